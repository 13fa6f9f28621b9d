//! The hood, as the article builds it: one extra bone behind the neck that looks at the end of
//! a pendulum, the end a single Verlet particle. Its own knobs ([`FabricParams::hood_damping`],
//! [`FabricParams::hood_stiffness`], [`FabricParams::hood_swing_limit_deg`]) shape the swing;
//! the hood's outer surface is then turned out of the head, the neck and the shoulders.
//!
//! Per solver step, in order: Verlet with the hood's damping (the fabric's contact damping
//! after a step in which it touched the body) and gravity; the pull toward the
//! rest pose (hanging on the back, carried by the neck); the pendulum's length; the swing
//! limit; the collisions. The collisions come last so the hood never ends a step inside the
//! body: where the swing limit and a collider disagree, the collider wins.

use std::any::Any;
use std::f32::consts::{PI, TAU};

use glam::{Mat4, Quat, Vec3};

use super::jacket::{Jacket, JacketCut, UPPER_DRIVERS};
use super::layout::{GridLayout, Ring};
use super::rig::{
    bone_from_axes, driver, look_at_matrix, rest_model, Binding, GarmentRig, RenderMesh, RestSkin,
    RigFrame, Tailor,
};
use super::{Body, Garment, GarmentError, Posed};
use crate::character::{Character, Ellipsoid, Role};
use crate::preset::Garment as Template;
use crate::sim::world_motion::carry;
use crate::sim::{push_out_masked, Bounds, Collider, FabricParams, WorldMotion};

/// Rounds of turning the hood out of the colliders per solver step: each round turns it by the
/// deepest point's push, and a turn can bring another point in.
const CLEAR_ROUNDS: usize = 4;

/// The largest turn of one round, radians (about 17°): a hood point deep in a collider near
/// the hinge would ask for a turn that throws the hood round in one step.
const MAX_TURN: f32 = 0.3;

/// The most colliders the hood keeps out of (head, neck, chest, two upper arms on the built-in
/// character).
pub(crate) const MAX_COLLIDERS: usize = 8;

/// Sweeps over the colliders for each point (overlapping ones, head and neck, can hand a point
/// back and forth).
const POINT_SWEEPS: usize = 2;

/// What the hood's step works in, kept between steps so it allocates nothing once grown.
#[derive(Clone, Debug, Default)]
pub(crate) struct HoodScratch {
    /// The turns the hood points ask for in one round of [`Pendulum::clear`].
    turns: Vec<Vec3>,
    /// The colliders of one solver step, tested four at a time.
    bounds: Bounds,
}

impl HoodScratch {
    /// Room for a hood of `points` points among [`MAX_COLLIDERS`] colliders: its steps then
    /// allocate nothing.
    pub(crate) fn for_points(points: usize) -> Self {
        Self {
            turns: Vec::with_capacity(points),
            bounds: Bounds::with_capacity(MAX_COLLIDERS),
        }
    }
}

/// The hood's pendulum: one Verlet particle at `length` from the hood bone's origin.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pendulum {
    /// The end, character space.
    pub pos: Vec3,
    /// The end one solver step ago.
    pub prev: Vec3,
    /// From the hood bone's origin to the end, metres.
    pub length: f32,
    /// The hood bone's origin in the neck bone's space.
    pub origin_local: Vec3,
    /// The rest direction (hanging straight down in the skeleton's rest pose, the pose the
    /// hood mesh is shaped for) in the neck bone's space, so the rest pose turns with the neck.
    pub rest_local: Vec3,
    /// The origin (character space) at the last step, to move it across substeps.
    pub last_origin: Vec3,
    /// The rest direction at the last step, likewise.
    pub last_rest: Vec3,
    /// Farthest hood point from the origin, metres: the hood's bounding sphere.
    pub reach: f32,
    /// Whether the hood touched a collider in the last solver step: it then takes the fabric's
    /// `contact_damping` instead of `hood_damping`, the friction of the hood on the back.
    pub touched: bool,
}

/// What the hood sees in one fixed step, character space.
pub(crate) struct HoodInput<'a> {
    /// The hood bone's origin at the end of the step.
    pub origin: Vec3,
    /// The rest direction at the end of the step (unit).
    pub rest_dir: Vec3,
    /// Gravity, m/s².
    pub gravity: Vec3,
    /// The bone's sideways axis (the chest's x axis): the hood's roll.
    pub across: Vec3,
    /// What the hood keeps out of at the end of the step: head, neck, shoulders (the first
    /// [`MAX_COLLIDERS`]).
    pub colliders: &'a [Collider],
    /// The same at the last step (empty, or another count, at a restart: not blended).
    pub last_colliders: &'a [Collider],
    /// The hood's outer surface, hood bone space ([`HoodedJacket::hood_points`]).
    pub points: &'a [Vec3],
    /// Gap kept to the colliders, metres.
    pub margin: f32,
}

impl Pendulum {
    /// One fixed step: `substeps` solver steps with the origin, the rest direction and the
    /// colliders moving across them from the last step's, as the cloth's inputs do, so the
    /// per-step knobs mean the same for the hood as for the jacket and a preset converted to
    /// substeps swings its hood as at its own rate.
    pub fn step(&mut self, p: &FabricParams, input: &HoodInput, scratch: &mut HoodScratch) {
        let n = p.substeps.max(1);
        let h = p.solver_dt();
        let from = std::mem::replace(&mut self.last_origin, input.origin);
        let rest_from = std::mem::replace(&mut self.last_rest, input.rest_dir);
        // The colliders between the last step's and this one's, as the cloth's (no allocation:
        // a few on the stack).
        let mut moving = [Collider::Sphere {
            center: Vec3::ZERO,
            radius: 1.0,
        }; MAX_COLLIDERS];
        let count = input.colliders.len().min(MAX_COLLIDERS);
        let blend = input.last_colliders.len() == input.colliders.len();
        for k in 1..=n {
            let w = k as f32 / n as f32;
            let origin = from.lerp(input.origin, w);
            let rest_dir = rest_from
                .lerp(input.rest_dir, w)
                .normalize_or(input.rest_dir);
            for (i, c) in moving.iter_mut().enumerate().take(count) {
                *c = if blend {
                    input.last_colliders[i].lerp(&input.colliders[i], w)
                } else {
                    input.colliders[i]
                };
            }
            let v = self.pos - self.prev;
            self.prev = self.pos;
            // Friction while it lies on the body, as the cloth's particles have: without it the
            // hood slides about the curved back and shoulders.
            let damping = if self.touched {
                p.contact_damping
            } else {
                p.hood_damping
            };
            self.pos += v * (1.0 - damping) + input.gravity * h * h;
            // Skipped at 0 (the default), so a preset without the knob steps as it did.
            if p.hood_stiffness > 0.0 {
                let rest = origin + rest_dir * self.length;
                self.pos = self.pos.lerp(rest, p.hood_stiffness);
            }
            self.pos = self.at_length(origin, self.pos);
            self.pos = limit_swing(
                origin,
                self.pos,
                rest_dir,
                p.hood_swing_limit_deg,
                self.length,
            );
            let cleared = self.clear(origin, self.pos, input, &moving[..count], scratch);
            self.touched = cleared != self.pos;
            self.pos = cleared;
        }
    }

    /// `pos` moved onto the sphere of the pendulum's length around `origin` (straight down
    /// when it sits on the origin or is not finite).
    pub fn at_length(&self, origin: Vec3, pos: Vec3) -> Vec3 {
        let d = pos - origin;
        let len = d.length();
        if len > 1e-6 && len.is_finite() {
            origin + d * (self.length / len)
        } else {
            origin + Vec3::new(0.0, -self.length, 0.0)
        }
    }

    /// The hood bone for the end at `pos`: its x axis toward the end, its y axis as near the
    /// chest's sideways axis as that allows.
    pub fn bone(origin: Vec3, pos: Vec3, across: Vec3) -> Mat4 {
        bone_from_axes(origin, pos - origin, across)
    }

    /// The end turned about the origin until no hood point is inside a collider grown by the
    /// margin (or [`CLEAR_ROUNDS`] have passed). Each point inside asks for the turn that takes
    /// its ray from the origin through where it is pushed out to; the hood turns along the sum
    /// of those turns (contacts on both sides of the back cancel sideways, so the hood settles
    /// on the back instead of sliding off one shoulder or the other), by as much as the point
    /// that asks most along it. Turning, not moving the end: the hood is rigid on its bone.
    pub fn clear(
        &self,
        origin: Vec3,
        mut pos: Vec3,
        input: &HoodInput,
        colliders: &[Collider],
        scratch: &mut HoodScratch,
    ) -> Vec3 {
        let margin = input.margin;
        // Only the colliders the hood's bounding sphere reaches (a bit per collider).
        let near = colliders
            .iter()
            .enumerate()
            .take(u64::BITS as usize)
            .filter(|(_, c)| reaches(c, origin, self.reach + margin))
            .fold(0u64, |mask, (i, _)| mask | 1 << i);
        if near == 0 {
            return pos;
        }
        let HoodScratch { turns, bounds } = scratch;
        bounds.update(colliders, margin);
        for _ in 0..CLEAR_ROUNDS {
            let bone = Self::bone(origin, pos, input.across);
            // Each point's turn once a round: the sum and the largest share both read them.
            turns.clear();
            turns.extend(input.points.iter().filter_map(|local| {
                let q = bone.transform_point3(*local);
                let out = push_out_masked(colliders, bounds, near, q, None, margin, POINT_SWEEPS);
                if out == q {
                    return None;
                }
                let (from, to) = ((q - origin).normalize(), (out - origin).normalize());
                let (axis, angle) = Quat::from_rotation_arc(from, to).to_axis_angle();
                let turn = axis * angle;
                turn.is_finite().then_some(turn)
            }));
            let sum: Vec3 = turns.iter().sum();
            let Some(axis) = sum.try_normalize() else {
                break;
            };
            let angle = turns
                .iter()
                .map(|t| t.dot(axis))
                .fold(0.0, f32::max)
                .min(MAX_TURN);
            if angle <= 0.0 {
                break;
            }
            pos = origin + Quat::from_axis_angle(axis, angle) * (pos - origin);
        }
        pos
    }
}

/// `pos` (at `length` from `origin`) turned toward `rest_dir` until it is at most `limit_deg`
/// from it. 180° or more is no limit.
pub(crate) fn limit_swing(
    origin: Vec3,
    pos: Vec3,
    rest_dir: Vec3,
    limit_deg: f32,
    length: f32,
) -> Vec3 {
    if limit_deg >= 180.0 {
        return pos;
    }
    let dir = (pos - origin).normalize_or(rest_dir);
    let limit = limit_deg.max(0.0).to_radians();
    if dir.dot(rest_dir) >= limit.cos() {
        return pos;
    }
    // The direction at the limit, in the plane of the swing (any plane when the hood points
    // exactly away from its rest).
    let side = (dir - rest_dir * dir.dot(rest_dir)).normalize_or(rest_dir.any_orthonormal_vector());
    origin + (rest_dir * limit.cos() + side * limit.sin()) * length
}

/// The angle between the pendulum (`pos` from `origin`) and the rest direction, degrees.
pub(crate) fn swing_deg(origin: Vec3, pos: Vec3, rest_dir: Vec3) -> f32 {
    let dir = (pos - origin).normalize_or(rest_dir);
    dir.dot(rest_dir).clamp(-1.0, 1.0).acos().to_degrees()
}

/// True when the collider may come within `radius` of `centre` (a bounding-sphere test; a
/// plane or another shape always may).
fn reaches(c: &Collider, centre: Vec3, radius: f32) -> bool {
    match *c {
        Collider::Ellipsoid { center, radii, .. } => {
            center.distance(centre) <= radius + radii.max_element()
        }
        Collider::Sphere { center, radius: r } => center.distance(centre) <= radius + r,
        _ => true,
    }
}

/// The hooded jacket: the jacket with a hood on a pendulum bone behind the neck.
#[derive(Clone, Debug)]
pub struct HoodedJacket {
    jacket: Jacket,
    /// Points on the hood's outer surface in the hood bone's space: what the hood keeps out
    /// of the head, neck and shoulders.
    hood_points: Vec<Vec3>,
    pendulum: Pendulum,
    /// What the hood keeps out of: the head and neck (fitted to the skin) and the shoulders
    /// (the chest's and the upper arms' upper ellipsoids), bound to their bones.
    ellipsoids: Vec<Ellipsoid>,
    /// Those, posed for this step and for the last (the hood blends them across substeps).
    colliders: Vec<Collider>,
    last_colliders: Vec<Collider>,
    scratch: HoodScratch,
    neck: usize,
}

/// The hood bone's index among the jacket's own drivers (after the upper jacket's).
const HOOD_DRIVER: usize = UPPER_DRIVERS;

/// How the hooded jacket is cut: the jacket's cut with the hood on its bone.
struct HoodedCut {
    hood_rest: Mat4,
}

impl Tailor for HoodedCut {
    fn reference_binding(&self, rig: &GarmentRig, i: usize, p: Vec3, depth: f32) -> Binding {
        JacketCut.reference_binding(rig, i, p, depth)
    }

    fn shell_detail(&self, layout: &GridLayout, u: f32, v: f32) -> f32 {
        JacketCut.shell_detail(layout, u, v)
    }

    fn add_parts(&self, rig: &GarmentRig, rings: &[Ring], skin: &RestSkin, m: &mut RenderMesh) {
        JacketCut.add_parts(rig, rings, skin, m);
        let hood = driver(rig, rig.char_bones + HOOD_DRIVER);
        build_hood(rig, self.hood_rest, m, hood);
    }
}

impl HoodedJacket {
    /// The hooded jacket on `character` in `layout`.
    pub fn new(character: &Character, layout: &GridLayout) -> Result<Self, GarmentError> {
        let model = rest_model(character);
        let neck_bone = character.roles.bone(Role::Neck);
        // The hood: a bone behind the neck looking at a pendulum end behind and below it.
        let neck = model[neck_bone].w_axis.truncate();
        let k = layout.body_scale;
        let hood_origin = neck + Vec3::new(0.0, 0.02, -0.09) * k;
        let pendulum_rest = hood_origin + Vec3::new(0.0, -0.12, -0.2) * k;
        let hood_rest = look_at_matrix(hood_origin, pendulum_rest);
        let cut = HoodedCut { hood_rest };
        let jacket = Jacket::with_parts(character, layout, &[hood_rest], &cut)?;
        let hood_points = hood_points(jacket.rig(), hood_rest);
        let ellipsoids = crate::character::head_and_shoulders(character);
        let pendulum = new_pendulum(hood_rest, pendulum_rest, &hood_points, model[neck_bone]);
        Ok(Self {
            jacket,
            colliders: Vec::with_capacity(ellipsoids.len()),
            last_colliders: Vec::with_capacity(ellipsoids.len()),
            scratch: HoodScratch::for_points(hood_points.len()),
            hood_points,
            pendulum,
            ellipsoids,
            neck: neck_bone,
        })
    }

    /// The jacket under the hood.
    pub fn jacket(&self) -> &Jacket {
        &self.jacket
    }

    /// Points on the hood's outer surface in the hood bone's space (what the hood keeps out of
    /// the head, neck and shoulders); the hood's vertices ([`RenderMesh::hood`]) ride on the
    /// same bone.
    pub fn hood_points(&self) -> &[Vec3] {
        &self.hood_points
    }

    /// The pendulum's end point (character space).
    pub fn pendulum_end(&self) -> Vec3 {
        self.pendulum.pos
    }

    /// What the hood keeps out of this step (head, neck, shoulders), character space.
    pub fn colliders(&self) -> &[Collider] {
        &self.colliders
    }

    /// The hood bone in the pose `model` (character space): x toward the pendulum's end.
    pub fn bone(&self, model: &[Mat4]) -> Mat4 {
        let origin = self.origin(model);
        let chest_x = model[self.neck].x_axis.truncate();
        Pendulum::bone(origin, self.pendulum.pos, chest_x)
    }

    /// The pendulum's angle from its rest pose (hanging on the back, carried by the neck) in
    /// the pose `model`, degrees: what [`FabricParams::hood_swing_limit_deg`] caps.
    pub fn swing_deg(&self, model: &[Mat4]) -> f32 {
        swing_deg(self.origin(model), self.pendulum.pos, self.rest_dir(model))
    }

    fn origin(&self, model: &[Mat4]) -> Vec3 {
        model[self.neck].transform_point3(self.pendulum.origin_local)
    }

    /// The hood's rest direction in the pose `model`: its hanging direction at rest, turned
    /// with the neck.
    fn rest_dir(&self, model: &[Mat4]) -> Vec3 {
        model[self.neck]
            .transform_vector3(self.pendulum.rest_local)
            .normalize_or(Vec3::NEG_Y)
    }

    /// The pendulum's inputs for the pose `posed`.
    fn input<'a>(&'a self, posed: &Posed, origin: Vec3) -> HoodInput<'a> {
        let p = posed.params;
        HoodInput {
            origin,
            rest_dir: self.rest_dir(posed.model),
            gravity: posed.root.rotation.inverse() * Vec3::new(0.0, -p.gravity, 0.0),
            across: posed.model[self.neck].x_axis.truncate(),
            colliders: &self.colliders,
            last_colliders: &self.last_colliders,
            points: &self.hood_points,
            margin: p.collision_margin,
        }
    }

    /// Moves the hood bone's skin matrix to the pendulum.
    fn place_hood(&self, model: &[Mat4], frame: &mut RigFrame) {
        let hood = self.bone(model);
        self.jacket.rig().set_extra(HOOD_DRIVER, hood, frame);
    }
}

impl Garment for HoodedJacket {
    fn template(&self) -> Option<Template> {
        Some(Template::HoodedJacket)
    }

    fn rig(&self) -> &GarmentRig {
        self.jacket.rig()
    }

    fn body(&self) -> &Body {
        self.jacket.body()
    }

    fn pose(&mut self, posed: &Posed, frame: &mut RigFrame, references: &mut [Vec3]) {
        let hood = self.bone(posed.model);
        self.jacket
            .pose_with(posed.model, &[hood], frame, references);
        std::mem::swap(&mut self.colliders, &mut self.last_colliders);
        self.colliders.clear();
        for e in self.ellipsoids.iter().take(MAX_COLLIDERS) {
            self.colliders.push(e.posed_collider(posed.model));
        }
    }

    /// The hood starts where it comes to rest: hanging straight down behind the head (from
    /// its modelled pose it would first swing down for half a second), out of the head and
    /// shoulders (a clip may start bowed).
    fn reset(&mut self, posed: &Posed, frame: &mut RigFrame) {
        let origin = self.origin(posed.model);
        let hanging = origin + Vec3::NEG_Y * self.pendulum.length;
        // The hood's first step, too, moves from this pose.
        self.last_colliders.clone_from(&self.colliders);
        let mut scratch = std::mem::take(&mut self.scratch);
        let input = self.input(posed, origin);
        let start = self
            .pendulum
            .clear(origin, hanging, &input, &self.colliders, &mut scratch);
        self.scratch = scratch;
        self.pendulum.pos = start;
        self.pendulum.prev = start;
        self.pendulum.last_origin = origin;
        self.pendulum.last_rest = self.rest_dir(posed.model);
        self.pendulum.touched = start != hanging;
        self.place_hood(posed.model, frame);
    }

    /// The pendulum ([`Pendulum::step`]) after the character's world motion since the last
    /// step (the cloth's fraction and its cuts, [`WorldMotion`]), then the hood bone.
    fn before_cloth(&mut self, posed: &Posed, frame: &mut RigFrame) {
        let p = posed.params;
        // The cloth's world-motion rule: a cut adds no motion.
        let motion = WorldMotion::between(&posed.last_root, &posed.root);
        if !motion.is_cut() {
            if let Some(m) = motion.fraction(p.world_motion_fraction) {
                carry(&m, &mut self.pendulum.pos, &mut self.pendulum.prev);
            }
        }
        let origin = self.origin(posed.model);
        let mut scratch = std::mem::take(&mut self.scratch);
        let input = self.input(posed, origin);
        let mut pendulum = self.pendulum;
        pendulum.step(p, &input, &mut scratch);
        self.scratch = scratch;
        self.pendulum = pendulum;
        self.place_hood(posed.model, frame);
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// The hood's pendulum at rest: the hood bone at `hood_rest` looking at `pendulum_rest`, the
/// hood's `points` in its space, `neck` the neck bone at rest (character space).
fn new_pendulum(hood_rest: Mat4, pendulum_rest: Vec3, points: &[Vec3], neck: Mat4) -> Pendulum {
    let origin = hood_rest.w_axis.truncate();
    let to_neck = neck.inverse();
    Pendulum {
        pos: pendulum_rest,
        prev: pendulum_rest,
        length: origin.distance(pendulum_rest),
        origin_local: to_neck.transform_point3(origin),
        rest_local: to_neck.transform_vector3(Vec3::NEG_Y),
        last_origin: origin,
        last_rest: Vec3::NEG_Y,
        touched: false,
        reach: points.iter().map(|p| p.length()).fold(0.0, f32::max),
    }
}

/// The hood's outer layer: rings from the face opening to the bottom of the bowl, and vertices
/// around each ring (one more closes it).
const HOOD_RINGS: usize = 14;
const HOOD_AROUND: usize = 32;

/// The hood, down: a rounded cowl lying on the upper back, its face opening turned up behind
/// the neck. Two layers (the outer fabric and the lining) of a half ellipsoid whose rim is the
/// face opening, rolled over at the rim, every vertex skinned rigidly to the hood bone so the
/// whole hood swings with the pendulum.
fn build_hood(rig: &GarmentRig, hood_rest: Mat4, m: &mut RenderMesh, hood_driver: u16) {
    let neck = rig.rest_drivers[rig.bones.neck].w_axis.truncate();
    let head = rig.rest_drivers[rig.bones.head].w_axis.truncate();
    // The opening's centre behind the neck, under the head; the bowl hangs from it down the
    // back.
    let k = rig.layout.body_scale;
    let centre = Vec3::new(head.x, neck.y - 0.02 * k, neck.z - 0.165 * k);
    let down = Vec3::new(0.0, -1.0, -0.28).normalize();
    let across = Vec3::X;
    let out = across.cross(down).normalize();
    let (width, depth, length) = (0.125 * k, 0.05 * k, 0.2 * k);
    let thickness = 0.012 * k;
    let (nt, np) = (HOOD_RINGS, HOOD_AROUND);
    let start = m.positions.len();
    let binding: Binding = [(hood_driver, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)];
    // The pendulum hangs straight down once the clip runs (it starts tilted back, its rest
    // position): the hood is shaped for that hanging bone and carried into the rest bone's
    // frame, so it lies on the back while the bone hangs and swings with it.
    let origin = hood_rest.w_axis.truncate();
    let hanging = look_at_matrix(origin, origin - Vec3::Y);
    let to_rest = hood_rest * hanging.inverse();
    // A point on the outer surface: `theta` from the opening (0) to the bottom of the bowl
    // (PI / 2), `phi` around the opening (0 at the left, PI / 2 facing out from the back).
    let surface = |theta: f32, phi: f32| -> (Vec3, Vec3) {
        let (ct, st) = (theta.cos(), theta.sin());
        let (cp, sp) = (phi.cos(), phi.sin());
        // The opening hugs the neck: its sides come forward around it and its back edge
        // rises a little, as a hood's face opening does when it lies folded.
        let wrap = ct.powi(3) * cp * cp;
        let p = centre
            + across * (width * cp * ct)
            + out * (depth * sp * ct)
            + down * (length * st)
            + Vec3::new(0.0, 0.02 * sp.max(0.0), 0.07) * (wrap * k);
        let n = across * (cp * ct / width) + out * (sp * ct / depth) + down * (st / length);
        (p, n.normalize())
    };
    // Outer layer, then the lining (offset inward, facing inward), sharing the rim.
    for layer in 0..2 {
        let first = m.positions.len() as u32;
        for j in 0..=nt {
            let theta = PI * 0.5 * j as f32 / nt as f32;
            for i in 0..=np {
                let phi = TAU * i as f32 / np as f32;
                let (p, n) = surface(theta, phi);
                let (p, n) = if layer == 0 {
                    (p, n)
                } else {
                    (p - n * thickness, -n)
                };
                let (p, n) = (to_rest.transform_point3(p), to_rest.transform_vector3(n));
                m.push_vertex(
                    p,
                    n,
                    [i as f32 / np as f32 * 3.0, j as f32 / nt as f32 * 1.2],
                    binding,
                );
            }
        }
        for j in 0..nt as u32 {
            for i in 0..np as u32 {
                let a = first + j * (np as u32 + 1) + i;
                let c = a + np as u32 + 1;
                if layer == 0 {
                    m.indices.extend_from_slice(&[a, a + 1, c, a + 1, c + 1, c]);
                } else {
                    m.indices.extend_from_slice(&[a, c, a + 1, a + 1, c, c + 1]);
                }
            }
        }
    }
    // The rolled rim of the opening: joins the outer layer to the lining with a small bead.
    let outer_rim = |i: usize| (m.positions.len() - 2 * (nt + 1) * (np + 1) + i) as u32;
    let inner_rim = |i: usize| (m.positions.len() - (nt + 1) * (np + 1) + i) as u32;
    let (o0, i0) = (outer_rim(0), inner_rim(0));
    let bead = m.positions.len() as u32;
    for i in 0..=np {
        let phi = TAU * i as f32 / np as f32;
        let (p, n) = surface(0.0, phi);
        m.push_vertex(
            to_rest.transform_point3(p - n * (thickness * 0.5) - down * (0.012 * k)),
            to_rest.transform_vector3(-down),
            [i as f32 / np as f32 * 3.0, -0.05],
            binding,
        );
    }
    for i in 0..np as u32 {
        let (o, n, k) = (o0 + i, i0 + i, bead + i);
        m.indices.extend_from_slice(&[o, k, o + 1, o + 1, k, k + 1]);
        m.indices.extend_from_slice(&[k, n, k + 1, k + 1, n, n + 1]);
    }
    m.hood = start..m.positions.len();
}

/// A sample of the hood's outer layer (every second ring from the face opening to the bottom
/// of the bowl, every second vertex around), in the hood bone's space: enough to find where
/// the hood meets the head or a shoulder to within a few centimetres, few enough to test every
/// step. The vertices are skinned rigidly to the hood bone, whose rest matrix is `hood_rest`.
fn hood_points(rig: &GarmentRig, hood_rest: Mat4) -> Vec<Vec3> {
    let to_bone = hood_rest.inverse();
    let outer = &rig.render.positions[rig.render.hood.clone()];
    let mut out = Vec::new();
    for j in (0..=HOOD_RINGS).step_by(2) {
        // The bottom ring is one point.
        let step = if j == HOOD_RINGS { HOOD_AROUND } else { 2 };
        for i in (0..HOOD_AROUND).step_by(step) {
            if let Some(p) = outer.get(j * (HOOD_AROUND + 1) + i) {
                out.push(to_bone.transform_point3(*p));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_swing_limit_turns_the_end_back_onto_its_cone() {
        let origin = Vec3::ZERO;
        let rest = Vec3::NEG_Y;
        // Straight out in front: 90° from hanging.
        let pos = Vec3::new(0.0, 0.0, 0.2);
        let limited = limit_swing(origin, pos, rest, 30.0, 0.2);
        assert!((swing_deg(origin, limited, rest) - 30.0).abs() < 1e-3);
        assert!((limited.length() - 0.2).abs() < 1e-5);
        assert!(limited.z > 0.0, "it stays on the side it swung to");
        // Inside the cone, or no limit: untouched.
        assert_eq!(limit_swing(origin, pos, rest, 180.0, 0.2), pos);
        let inside = Vec3::new(0.0, -0.19, 0.05);
        assert_eq!(limit_swing(origin, inside, rest, 30.0, 0.2), inside);
        // Pointing straight up, away from its rest: still ends on the cone.
        let up = limit_swing(origin, Vec3::new(0.0, 0.2, 0.0), rest, 45.0, 0.2);
        assert!((swing_deg(origin, up, rest) - 45.0).abs() < 1e-3);
    }

    #[test]
    fn a_hood_point_inside_a_sphere_turns_the_hood_out_of_it() {
        // A hood of one point at the end of a 0.2 m pendulum, hanging over a sphere in front.
        let pendulum = Pendulum {
            pos: Vec3::new(0.0, -0.2, 0.0),
            prev: Vec3::new(0.0, -0.2, 0.0),
            length: 0.2,
            origin_local: Vec3::ZERO,
            rest_local: Vec3::NEG_Y,
            last_origin: Vec3::ZERO,
            last_rest: Vec3::NEG_Y,
            reach: 0.2,
            touched: false,
        };
        let colliders = [Collider::Sphere {
            center: Vec3::new(0.0, -0.2, 0.08),
            radius: 0.1,
        }];
        let points = [Vec3::new(0.2, 0.0, 0.0)];
        let input = HoodInput {
            origin: Vec3::ZERO,
            rest_dir: Vec3::NEG_Y,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            across: Vec3::X,
            colliders: &colliders,
            last_colliders: &colliders,
            points: &points,
            margin: 0.01,
        };
        let pos = pendulum.clear(
            Vec3::ZERO,
            pendulum.pos,
            &input,
            &colliders,
            &mut HoodScratch::default(),
        );
        assert!((pos.length() - 0.2).abs() < 1e-4, "it turns, at its length");
        assert!(pos.z < 0.0, "it turns away from the sphere: {pos}");
        assert!(
            colliders[0].penetration(pos, 0.01) < 0.005,
            "still {} m inside",
            colliders[0].penetration(pos, 0.01)
        );
    }
}
