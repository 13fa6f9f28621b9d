//! The jacket, as the article built it: an upper jacket of procedural bones (shoulder pads
//! that look at the upper arms, side bones that look straight down, kept apart by a position
//! constraint), a low-resolution simulation grid for the lower jacket whose top row is skinned
//! to the side bones and whose reference points rise with the shoulders, and a detailed render
//! mesh (two shells with pockets and lapels, a yoke, a collar, sleeves and armholes) skinned to
//! the simulation bones, the pads and the body.
//!
//! Everything here is in character space (the root's frame). The per-frame functions take
//! their output buffers and allocate nothing once those are sized.

use std::any::Any;
use std::f32::consts::{FRAC_PI_2, PI, TAU};

use glam::{Mat4, Quat, Vec3};

use super::layout::{
    column_angle, landmarks, surface_normal, surface_point, torso_rings, GridLayout, Ring,
    BUILTIN_LANDMARKS,
};
use super::rig::{
    add_shells, distance_to_segment, driver, lower_binding, mix_bindings, rest_model, ring_rest,
    ring_strip, smoothstep, Binding, GarmentRig, RenderMesh, RestSkin, RigFrame, Tailor,
};
use super::{Body, Garment, Posed};
use crate::character::Character;
use crate::preset::Garment as Template;

/// The jacket's layout on `character`: the default layout with the top row scaled with the
/// shoulder height, the hem with the mid-thigh height, the drawn details with the shoulder
/// height ([`GridLayout::body_scale`]), each against the built-in character's (on which this is
/// exactly the default).
pub fn fitted_layout(character: &Character) -> GridLayout {
    let (shoulder, thigh) = landmarks(character);
    let d = GridLayout::default();
    let k = shoulder / BUILTIN_LANDMARKS.0;
    GridLayout {
        top_height: d.top_height * k,
        hem_height: d.hem_height * (thigh / BUILTIN_LANDMARKS.1),
        body_scale: k,
        ..d
    }
}

/// The jacket on one character: its rig, what it collides with, and its upper jacket.
#[derive(Clone, Debug)]
pub struct Jacket {
    rig: GarmentRig,
    body: Body,
    /// Where each shoulder pad looks, in its upper arm's space.
    pad_target_local: [Vec3; 2],
    /// Rest offset of each side bone from its pad, in the pad's space.
    side_offset: [Vec3; 2],
    side_distance: f32,
    /// The upper jacket in this step's pose.
    upper: UpperJacket,
}

/// The jacket's own drivers after the character's bones: two shoulder pads, two side bones.
pub(super) const UPPER_DRIVERS: usize = 4;

impl Jacket {
    /// The jacket on `character` in `layout`.
    pub fn new(character: &Character, layout: &GridLayout) -> Result<Self, super::GarmentError> {
        Self::with_parts(character, layout, &[], &JacketCut)
    }

    /// The jacket with drivers of its own after the upper jacket's (`more_rest`, at rest) and
    /// the render parts `tailor` adds (the hooded jacket's hood).
    pub(super) fn with_parts(
        character: &Character,
        layout: &GridLayout,
        more_rest: &[Mat4],
        tailor: &dyn Tailor,
    ) -> Result<Self, super::GarmentError> {
        GarmentRig::check_layout(layout)?;
        let model = rest_model(character);
        let rings = torso_rings(character, layout, &model, JACKET_RING_FLOOR);
        let bones = super::rig::Bones::of(&character.roles);
        let pos = |b: usize| model[b].w_axis.truncate();
        let chest = model[bones.chest];
        let (_, chest_rot, _) = chest.to_scale_rotation_translation();
        let mut extra = Vec::with_capacity(UPPER_DRIVERS + more_rest.len());
        let mut pad_target_local = [Vec3::ZERO; 2];
        let mut side_offset = [Vec3::ZERO; 2];
        let mut side_pos = [Vec3::ZERO; 2];
        let top = rings[0];
        for s in SIDES {
            let shoulder = pos(bones.upperarm[s]);
            let target = shoulder.lerp(pos(bones.forearm[s]), layout.pad_target);
            pad_target_local[s] = model[bones.upperarm[s]].inverse().transform_point3(target);
            // The pad: x axis toward its target, oriented from the chest's frame.
            let x = (target - shoulder).normalize();
            let rot = Quat::from_rotation_arc(chest_rot * Vec3::X, x) * chest_rot;
            let pad = Mat4::from_rotation_translation(rot.normalize(), shoulder);
            // The side bone hangs below the pad's end, at the jacket's top row under the arm.
            let sign = if s == 0 { 1.0 } else { -1.0 };
            side_pos[s] = Vec3::new(sign * top.rx, top.y, top.cz);
            side_offset[s] = pad.inverse().transform_point3(side_pos[s]);
            extra.push(pad);
        }
        for s in SIDES {
            extra.push(Mat4::from_rotation_translation(chest_rot, side_pos[s]));
        }
        extra.extend_from_slice(more_rest);
        let rest = ring_rest(layout, &rings);
        let rig = GarmentRig::new(character, &model, layout, (rest, &rings), &extra, tailor)?;
        let jacket = Self {
            rig,
            body: Body::torso_and_legs(character),
            pad_target_local,
            side_offset,
            side_distance: side_pos[0].distance(side_pos[1]),
            upper: UpperJacket::default(),
        };
        Ok(Self {
            upper: jacket.rest_upper(),
            ..jacket
        })
    }

    /// The upper jacket at rest.
    pub fn rest_upper(&self) -> UpperJacket {
        let (d, n) = (&self.rig.rest_drivers, self.rig.char_bones);
        UpperJacket {
            shoulder: [d[n], d[n + 1]],
            side: [d[n + 2], d[n + 3]],
        }
    }

    /// The upper jacket in this step's pose.
    pub fn upper(&self) -> &UpperJacket {
        &self.upper
    }

    /// Solves the upper jacket for a pose (`model`: the character's bones in character space),
    /// fills the drivers' skin matrices (`more`: the drivers after the upper jacket's) and each
    /// particle's reference point.
    pub(super) fn pose_with(
        &mut self,
        model: &[Mat4],
        more: &[Mat4],
        frame: &mut RigFrame,
        references: &mut [Vec3],
    ) {
        self.upper = self.solve_upper(model);
        let u = &self.upper;
        let upper = [u.shoulder[0], u.shoulder[1], u.side[0], u.side[1]];
        self.rig.pose(model, &upper, frame);
        for (k, m) in more.iter().enumerate() {
            self.rig.set_extra(UPPER_DRIVERS + k, *m, frame);
        }
        self.rig.references(frame, references);
        self.lift_references(frame, references);
    }

    /// The upper jacket in the pose `model`.
    ///
    /// Each shoulder pad follows the chest but turns to look at its target on the upper arm,
    /// so the pad lifts when the arm rises. Each side bone rides at the end of its pad and
    /// takes the chest's orientation (looking straight down, cancelling the pad's turn); a
    /// position constraint then moves the two side bones apart or together to their rest
    /// distance.
    fn solve_upper(&self, model: &[Mat4]) -> UpperJacket {
        let rig = &self.rig;
        let (n, bones) = (rig.char_bones, rig.bones);
        let mut upper = UpperJacket::default();
        let chest_delta = model[bones.chest] * rig.rest_drivers_inv[bones.chest];
        let (_, chest_turn, _) = chest_delta.to_scale_rotation_translation();
        let mut side_pos = [Vec3::ZERO; 2];
        for s in SIDES {
            let origin = model[bones.upperarm[s]].w_axis.truncate();
            let target = model[bones.upperarm[s]].transform_point3(self.pad_target_local[s]);
            let (_, rest_rot, _) = rig.rest_drivers[n + s].to_scale_rotation_translation();
            let follow = (chest_turn * rest_rot).normalize();
            let dir = (target - origin).normalize_or_zero();
            let current = follow * Vec3::X;
            let turn = if dir == Vec3::ZERO {
                Quat::IDENTITY
            } else {
                Quat::from_rotation_arc(current, dir)
            };
            upper.shoulder[s] =
                Mat4::from_rotation_translation((turn * follow).normalize(), origin);
            // Only the pad's lift reaches the side bone: sliding it forward or back with the
            // arm would stretch the pinned top row between the sides.
            let carried =
                chest_delta.transform_point3(rig.rest_drivers[n + 2 + s].w_axis.truncate());
            let up = chest_turn * Vec3::Y;
            let padded = upper.shoulder[s].transform_point3(self.side_offset[s]);
            side_pos[s] = carried + up * (padded - carried).dot(up);
        }
        let d = side_pos[1] - side_pos[0];
        let len = d.length();
        if len > 1e-6 {
            let fix = d * ((len - self.side_distance) / len * 0.5);
            side_pos[0] += fix;
            side_pos[1] -= fix;
        }
        for s in SIDES {
            let (_, rest_rot, _) = rig.rest_drivers[n + 2 + s].to_scale_rotation_translation();
            upper.side[s] =
                Mat4::from_rotation_translation((chest_turn * rest_rot).normalize(), side_pos[s]);
        }
        upper
    }

    /// Adds to every reference point below the top row the lift of its column's top particle
    /// (how far the shoulder pads moved it from where the chest alone would put it). The
    /// jacket is parented top down, as in the article: when the shoulders rise, the whole
    /// column's reference rises with them, so the hard constraints and the max distance agree.
    fn lift_references(&self, frame: &RigFrame, out: &mut [Vec3]) {
        let topo = &self.rig.topology;
        let cols = topo.cols;
        let chest = frame.driver_skin[self.rig.bones.chest];
        for i in cols..out.len() {
            let lift = out[i % cols] - chest.transform_point3(topo.rest[i % cols]);
            out[i] += lift;
        }
    }
}

impl Garment for Jacket {
    fn template(&self) -> Option<Template> {
        Some(Template::Jacket)
    }

    fn rig(&self) -> &GarmentRig {
        &self.rig
    }

    fn body(&self) -> &Body {
        &self.body
    }

    fn pose(&mut self, posed: &Posed, frame: &mut RigFrame, references: &mut [Vec3]) {
        self.pose_with(posed.model, &[], frame, references);
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// How the jacket is cut: its reference points follow the torso, its outer shell carries
/// pockets and lapels, and its render mesh goes on over the shoulders with a yoke, a collar,
/// sleeves and armholes.
pub(super) struct JacketCut;

impl Tailor for JacketCut {
    /// A particle's reference point follows its rest position skinned to its nearest torso
    /// bone (pelvis, spine or chest, measured to the bone's segment; the legs are left out so a
    /// swinging thigh does not drag the hem's reference against the hard constraints — the
    /// scene instead keeps references outside the leg ellipsoids); the top row's follows the
    /// side bones ([`top_binding`]).
    fn reference_binding(&self, rig: &GarmentRig, _i: usize, p: Vec3, depth: f32) -> Binding {
        let model_pos = |b: usize| rig.rest_drivers[b].w_axis.truncate();
        let b = rig.bones;
        let segments = [
            (b.pelvis, model_pos(b.pelvis), model_pos(b.spine)),
            (b.spine, model_pos(b.spine), model_pos(b.chest)),
            (b.chest, model_pos(b.chest), model_pos(b.neck)),
        ];
        let nearest = segments
            .iter()
            .map(|&(bone, a, z)| (bone, distance_to_segment(p, a, z)))
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .map(|(bone, _)| bone)
            .unwrap_or(b.chest);
        if depth == 0.0 {
            return top_binding(rig, p);
        }
        [(nearest as u16, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)]
    }

    fn shell_detail(&self, layout: &GridLayout, u: f32, v: f32) -> f32 {
        shell_detail(layout, u, v)
    }

    fn add_parts(&self, rig: &GarmentRig, rings: &[Ring], skin: &RestSkin, m: &mut RenderMesh) {
        add_shells(rig, rings, self, m);
        let yoke_top = add_yoke(rig, rings, skin, m);
        add_collar(rig, yoke_top, m);
        for s in SIDES {
            let arm = Arm::new(rig, s);
            add_sleeve(rig, &arm, skin, m);
            add_armhole(rig, &arm, rings[0], skin, m);
        }
    }
}

/// The top row's binding: the two side bones, weighted linearly by how far across the body
/// the particle sits (half each at the middle, all of one at its side bone). Each side bone is
/// the chest moved along the chest's up axis by its pad's lift ([`Jacket::solve_upper`]), so
/// the row follows the chest and one raised arm tilts it evenly instead of stretching the two
/// or three links where a steeper blend would change.
fn top_binding(rig: &GarmentRig, p: Vec3) -> Binding {
    let side = if p.x >= 0.0 { 0 } else { 1 };
    let side_driver = rig.char_bones + 2 + side;
    let reach = rig.rest_drivers[side_driver].w_axis.x.abs().max(1e-3);
    let w = (0.5 + 0.5 * p.x.abs() / reach).min(1.0);
    let other = rig.char_bones + 3 - side;
    [
        (side_driver as u16, w),
        (other as u16, 1.0 - w),
        (0, 0.0),
        (0, 0.0),
    ]
}

/// Left (+X) and right (-X).
const SIDES: [usize; 2] = [0, 1];

/// The upper jacket's procedural bones for one pose (character space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UpperJacket {
    /// Shoulder pads, left and right: at the shoulder joint, looking at the upper arm.
    pub shoulder: [Mat4; 2],
    /// Side bones, left and right: at the end of the pad, looking straight down.
    pub side: [Mat4; 2],
}

impl Default for UpperJacket {
    fn default() -> Self {
        Self {
            shoulder: [Mat4::IDENTITY; 2],
            side: [Mat4::IDENTITY; 2],
        }
    }
}

/// The smallest ring (half width, front and back of the centre line, metres on the built-in
/// body) a jacket row gets, whatever the ellipsoids there: the jacket hangs loose.
const JACKET_RING_FLOOR: Vec3 = Vec3::new(0.12, 0.08, 0.08);

/// Raised details on the outer shell at grid coordinates (u, v), as an outward offset
/// (metres): patch pockets and lapels.
fn shell_detail(layout: &GridLayout, u: f32, v: f32) -> f32 {
    let cols = (layout.cols - 1) as f32;
    let rows = (layout.rows - 1) as f32;
    let mut d = 0.0;
    // Patch pockets on both front sides, two-thirds down.
    for centre in [cols * 0.14, cols * 0.86] {
        let du = (u - centre).abs() / (cols * 0.06);
        let dv = (v - rows * 0.68).abs() / (rows * 0.12);
        if du < 1.0 && dv < 1.0 {
            d += 0.006 * smoothstep(1.0, 0.8, du.max(dv));
        }
    }
    // Lapels: the front edges fold outward near the top.
    let edge = (u.min(cols - u)) / (cols * 0.08);
    let top = 1.0 - (v / (rows * 0.45)).min(1.0);
    d += 0.018 * (1.0 - edge.min(1.0)).powi(2) * top;
    d
}

/// The yoke: from the top row up over the shoulders to the collar line, skinned from the
/// simulation's top row bones into the chest and the shoulder pads. Returns the index of its
/// top row's first vertex.
fn add_yoke(rig: &GarmentRig, rings: &[Ring], skin: &RestSkin, m: &mut RenderMesh) -> u32 {
    let layout = &rig.layout;
    let (nu, _) = layout.render_grid();
    let half = layout.thickness * 0.5;
    let top = rings[0];
    let k = layout.body_scale;
    let yoke_rows = 8;
    let yoke_start = m.positions.len() as u32;
    for j in 0..=yoke_rows {
        let t = j as f32 / yoke_rows as f32;
        for i in 0..nu {
            let u = layout.render_u(i);
            let a = column_angle(layout, u);
            let s = a.sin();
            // The lapels carry on up the yoke, fading out toward the collar: a lapel that
            // stopped at the top row stood out from the yoke in a box-like ledge.
            let low = surface_point(layout, rings, u, 0.0)
                + surface_normal(layout, rings, u, 0.0) * (half + shell_detail(layout, u, 0.0));
            // The collar line: narrow at the neck front and back, out to the shoulder at the sides.
            let high = Vec3::new(
                s * (0.075 + 0.16 * s.abs().powi(3)) * k,
                (1.52 - 0.05 * s.abs()) * k,
                top.cz * 0.3 + a.cos() * 0.085 * k,
            );
            // Bulge outward over the shoulder, then in to the collar (a little: the skin
            // under it already keeps the yoke off the shoulder, see below).
            let p = low.lerp(high, t)
                + Vec3::new(s, 0.25, 0.0).normalize() * (0.015 * (PI * t).sin() * s.abs() * k);
            // The straight line from the top row to the collar runs through the front and
            // back of the arm's root, which the sleeve covers only while the arm hangs: keep
            // the yoke outside the skin there (the sleeve's cap keeps outside the yoke). The
            // top row stays as the shell has it.
            let p = if j == 0 {
                p
            } else {
                skin.outside(p, layout.clearance * 0.5)
            };
            m.push_vertex(
                p,
                Vec3::new(s, 0.6 * t + 0.1, a.cos()).normalize(),
                [u / (layout.cols - 1) as f32 * 4.0, -t * 0.5],
                yoke_binding(rig, skin, p, u, t),
            );
        }
    }
    for j in 0..yoke_rows {
        for i in 0..nu - 1 {
            let a = yoke_start + (j * nu + i) as u32;
            let c = a + nu as u32;
            m.indices.extend_from_slice(&[a, a + 1, c, a + 1, c + 1, c]);
        }
    }
    yoke_start + (yoke_rows * nu) as u32
}

/// Skinning of a yoke vertex at `p`, column `u`, `t` the way up from the top row (0) to the
/// collar line (1): the top row's binding fading out over the lower half, then the skin's
/// under it. Over the shoulders the skin follows the collar bone and the upper arm only in
/// part; a yoke that followed the shoulder pad (the whole upper arm's swing) left the front of
/// the shoulder bare when the arm swung back.
fn yoke_binding(rig: &GarmentRig, skin: &RestSkin, p: Vec3, u: f32, t: f32) -> Binding {
    let w_low = (1.0 - t * 2.0).max(0.0);
    let mut entries: Vec<(u16, f32)> = lower_binding(rig, u, 0.0)
        .iter()
        .map(|&(d, w)| (d, w * w_low))
        .collect();
    entries.extend(
        skin.binding_near(rig, p)
            .iter()
            .map(|&(d, w)| (d, w * (1.0 - w_low))),
    );
    mix_bindings(&entries)
}

/// The collar: a low band on the yoke's top edge (its first vertex `yoke_top`) that stands
/// up round the neck and rolls outward, skinned from the yoke's edge into the neck and chest.
/// The yoke's top edge runs round the neck at the front and back but out along the top of the
/// shoulders at the sides; a collar standing all along it made upright walls over the
/// shoulders, so it stands only round the neck and lies flat on the yoke beyond.
fn add_collar(rig: &GarmentRig, yoke_top: u32, m: &mut RenderMesh) {
    let layout = &rig.layout;
    let (nu, _) = layout.render_grid();
    let b = rig.bones;
    let scale = layout.body_scale;
    let neck_chest = [(driver(rig, b.neck), 0.5), (driver(rig, b.chest), 0.5)];
    // Per row: the rise and the roll outward at full height, metres on the built-in body.
    let rows = [(0.022, 0.002), (0.036, 0.010), (0.040, 0.024)];
    let collar_start = m.positions.len() as u32;
    for (r, &(rise, roll)) in rows.iter().enumerate() {
        let f = (r + 1) as f32 / rows.len() as f32;
        for i in 0..nu {
            let p0 = m.positions[(yoke_top + i as u32) as usize];
            let n0 = m.normals[(yoke_top + i as u32) as usize];
            let s = column_angle(layout, layout.render_u(i)).sin().abs();
            let stand = 1.0 - smoothstep(0.55, 0.85, s);
            let out = Vec3::new(n0.x, 0.0, n0.z).normalize_or_zero();
            let w = stand * f;
            let mut entries: Vec<(u16, f32)> = m.binding[(yoke_top + i as u32) as usize]
                .iter()
                .map(|&(d, x)| (d, x * (1.0 - w)))
                .collect();
            entries.extend(neck_chest.iter().map(|&(d, x)| (d, x * w)));
            m.push_vertex(
                p0 + (Vec3::Y * rise + out * roll) * (stand * scale),
                n0,
                [layout.render_u(i) * 0.25, -0.6 - 0.1 * f],
                mix_bindings(&entries),
            );
        }
    }
    let rows_of = |r: u32| {
        if r == 0 {
            yoke_top
        } else {
            collar_start + (r - 1) * nu as u32
        }
    };
    for r in 0..rows.len() as u32 {
        for i in 0..(nu - 1) as u32 {
            let a = rows_of(r) + i;
            let c = rows_of(r + 1) + i;
            m.indices.extend_from_slice(&[a, a + 1, c, a + 1, c + 1, c]);
        }
    }
}

/// Vertices around a sleeve or armhole ring.
const SLEEVE_AROUND: usize = 16;

/// One arm at rest, as the sleeve and the armhole see it.
struct Arm {
    side: usize,
    /// The driver bones from the shoulder to the hand: upper arm, its twist bone, forearm, its
    /// twist bone, hand.
    chain: [usize; 5],
    /// The shoulder and the wrist joints (character space).
    start: Vec3,
    end: Vec3,
    /// Unit vectors: along the arm, and two across it.
    axis: Vec3,
    side_axis: Vec3,
    up_axis: Vec3,
}

impl Arm {
    fn new(rig: &GarmentRig, s: usize) -> Self {
        let b = rig.bones;
        let chain = [
            b.upperarm[s],
            b.upperarm_twist[s],
            b.forearm[s],
            b.forearm_twist[s],
            b.hand[s],
        ];
        let joint = |k: usize| rig.rest_drivers[chain[k]].w_axis.truncate();
        let (start, end) = (joint(0), joint(4));
        let axis = (end - start).normalize();
        let side_axis = axis.cross(Vec3::Z).normalize_or(Vec3::Y);
        let up_axis = side_axis.cross(axis).normalize();
        Self {
            side: s,
            chain,
            start,
            end,
            axis,
            side_axis,
            up_axis,
        }
    }

    /// The outward direction at angle `phi` around the arm.
    fn around(&self, phi: f32) -> Vec3 {
        self.side_axis * phi.cos() + self.up_axis * phi.sin()
    }

    /// Weights along the arm at fraction `f` from the shoulder joint to the wrist: the upper
    /// arm (its twist bone taking over toward the elbow), a short blend across the elbow, the
    /// forearm (its twist bone toward the wrist); `pad` of the weight goes to the shoulder pad.
    fn binding(&self, rig: &GarmentRig, f: f32, pad: f32) -> Binding {
        let chain = &self.chain;
        let joint = |k: usize| rig.rest_drivers[chain[k]].w_axis.truncate();
        let e = joint(0).distance(joint(2)) / joint(0).distance(joint(4)).max(1e-6);
        let twist = smoothstep(e * 0.2, e * 0.8, f);
        let lower = smoothstep(e - 0.06, e + 0.06, f);
        let wrist = smoothstep(e + 0.1, 0.95, f);
        let keep = 1.0 - pad;
        mix_bindings(&[
            (driver(rig, chain[0]), (1.0 - twist) * (1.0 - lower) * keep),
            (driver(rig, chain[1]), twist * (1.0 - lower) * keep),
            (driver(rig, chain[2]), (1.0 - wrist) * lower * keep),
            (driver(rig, chain[3]), wrist * lower * keep),
            (driver(rig, rig.char_bones + self.side), pad),
        ])
    }
}

/// Half the distance between the built-in body's shoulder joints at rest, metres.
const BUILTIN_SHOULDER_HALF_WIDTH: f32 = 0.185;

/// How broad the shoulders of the rig's body are for its size: half the distance between the
/// shoulder joints at rest over the built-in body's, both at the body's scale
/// ([`GridLayout::body_scale`]). Exactly 1 on the built-in body.
fn shoulder_breadth(rig: &GarmentRig) -> f32 {
    let x = |s: usize| rig.rest_drivers[rig.bones.upperarm[s]].w_axis.x;
    (x(0) - x(1)) * 0.5 / (BUILTIN_SHOULDER_HALF_WIDTH * rig.layout.body_scale)
}

/// How far a sleeve cap's top moves in toward the neck per unit of shoulder breadth over the
/// built-in body's ([`shoulder_breadth`]), metres on the built-in body: half the joints' own
/// move out. Moved in by all of it, the cap's top rose over the higher skin near the neck and
/// stood there as a crease; by half, it covers the shoulder's top about as far in as on the
/// built-in body.
const CAP_TUCK_IN: f32 = BUILTIN_SHOULDER_HALF_WIDTH * 0.5;

/// Rings of a sleeve's cap ([`add_sleeve`]).
const CAP_RINGS: usize = 6;

/// A sleeve: a tube from the shoulder to the wrist, skinned along the arm chain.
fn add_sleeve(rig: &GarmentRig, arm: &Arm, skin: &RestSkin, m: &mut RenderMesh) {
    let (start, end, axis) = (arm.start, arm.end, arm.axis);
    let k = rig.layout.body_scale;
    let (rings_n, around) = (24 + CAP_RINGS, SLEEVE_AROUND);
    let first = m.positions.len() as u32;
    // How far above the shoulder joint the sleeve starts.
    let tuck = 0.06 * k;
    // On shoulders broader than the built-in body's (for their size), the cap's top also
    // moves in toward the neck, level over the shoulder's top ([`CAP_TUCK_IN`]): from a joint
    // further out, the built-in's reach left the top of the shoulder bare between the collar
    // and the cap. Narrower shoulders move it out. None on the built-in body.
    let sign = if arm.side == 0 { 1.0 } else { -1.0 };
    let inward = Vec3::new(-sign, 0.0, 0.0) * (CAP_TUCK_IN * (shoulder_breadth(rig) - 1.0) * k);
    for j in 0..=rings_n {
        // The first rings round the cap over the shoulder as a quarter of an ellipse, from its
        // top `tuck` above the joint on the arm's line to the sleeve's full width at the
        // joint; the rest run down the arm. Over fewer rings (a point and a ring at 85 % width)
        // the top, pushed out of the skin, would stand as a peak on the shoulder.
        let (t, dome, lift) = if j < CAP_RINGS {
            let a = FRAC_PI_2 * j as f32 / CAP_RINGS as f32;
            (0.0, a.sin(), a.cos())
        } else {
            let t = (j - CAP_RINGS) as f32 / (rings_n - CAP_RINGS) as f32;
            (t, 1.0, 0.0)
        };
        // The sleeve starts inside the shoulder (under the yoke's edge) and flares there,
        // so no skin shows between the yoke and the sleeve.
        let centre = start.lerp(end, t * 0.93) - axis * (tuck * lift) + inward * lift;
        // A little extra room around the elbow, so a bent arm does not poke through.
        let elbow = (-((t * 0.93 - 0.5) / 0.08).powi(2)).exp();
        let radius =
            (0.072 - 0.022 * t + 0.02 * (1.0 - t * 6.0).max(0.0) + 0.008 * elbow) * k * dome;
        let binding = arm.binding(rig, t * 0.93, (1.0 - t * 8.0).max(0.0));
        let sleeve_v = (j as f32 - CAP_RINGS as f32) / (rings_n - CAP_RINGS) as f32;
        // The cap stays outside the yoke, which keeps half the clearance off the skin
        // (see `add_yoke`).
        let cap = (1.0 - t * 6.0).max(0.0);
        for i in 0..around {
            let phi = TAU * i as f32 / around as f32;
            let n = arm.around(phi);
            let p = centre + n * radius;
            m.push_vertex(
                p.lerp(skin.outside(p, rig.layout.clearance * 0.75), cap),
                n,
                // Down the sleeve as down the arm, the cap's rings above (before) the first.
                [i as f32 / around as f32 * 2.0, sleeve_v * 3.0],
                binding,
            );
        }
    }
    ring_strip(
        &mut m.indices,
        first,
        rings_n as u32,
        around as u32,
        arm.side == 0,
    );
}

/// The armhole: a band from a loop inside the torso (skinned like the jacket's side under the
/// arm and the yoke over the shoulder) out to a ring just inside the sleeve (skinned like the
/// sleeve there). At rest it hides under the yoke and the sleeve; when the arm swings or rises
/// it stretches across the armpit, so the body never shows between the sleeve and the jacket.
/// `top` is the jacket's top row.
fn add_armhole(rig: &GarmentRig, arm: &Arm, top: Ring, skin: &RestSkin, m: &mut RenderMesh) {
    let (s, start, end, axis) = (arm.side, arm.start, arm.end, arm.axis);
    let around = SLEEVE_AROUND;
    let sign = if s == 0 { 1.0 } else { -1.0 };
    // The inner loop lies on the jacket's shell around the arm's root (front and back
    // on the yoke, below on the top row), so the band stays outside the body.
    let k = rig.layout.body_scale;
    let inner_centre = Vec3::new(start.x * 0.65, start.y - 0.05 * k, top.cz);
    let (inner_up, inner_depth) = (0.075 * k, top.rz * 0.95);
    let outer_along = 0.07 * k;
    let outer_t = ((outer_along + 0.06 * k) / (0.93 * start.distance(end))).min(1.0);
    let outer_centre = start + axis * outer_along;
    let outer_radius = (0.072 - 0.022 * outer_t - 0.006) * k;
    let outer_binding = arm.binding(rig, outer_t * 0.93, 0.0);
    let band_rings = 6;
    let band_first = m.positions.len() as u32;
    for j in 0..=band_rings {
        let f = j as f32 / band_rings as f32;
        for i in 0..around {
            let phi = TAU * i as f32 / around as f32;
            let n = arm.around(phi);
            let flat = Vec3::new(0.0, n.y, n.z).normalize_or(Vec3::Y);
            let inner = inner_centre + Vec3::new(0.0, flat.y * inner_up, flat.z * inner_depth);
            let outer = outer_centre + n * outer_radius;
            // Bulge a little outward mid-way, like a sleeve cap.
            let p = inner.lerp(outer, f) + n * (0.012 * (PI * f).sin() * k);
            let normal = (Vec3::new(sign * 0.3, flat.y, flat.z).lerp(n, f)).normalize_or(n);
            // Under the arm the side bone (as the jacket's top row there), elsewhere the skin
            // under the loop, which the yoke over it follows too.
            let under = smoothstep(0.2, 0.9, -flat.y);
            // Over the arm's root the band keeps close to the skin, under the yoke (half
            // the clearance off it) and the sleeve's cap: where it stood further out, its
            // front showed through the yoke as a flap. Under the arm it spans the armpit, and
            // toward the sleeve it is let go (held there, it left the armpit bare as the arm
            // rose).
            let p = p.lerp(
                skin.within(p, rig.layout.clearance * 0.25),
                (1.0 - under) * (1.0 - f * f),
            );
            let mut w = Vec::with_capacity(9);
            w.push((driver(rig, rig.char_bones + 2 + s), under * (1.0 - f)));
            w.extend(
                skin.binding_near(rig, inner)
                    .iter()
                    .map(|&(d, x)| (d, x * (1.0 - under) * (1.0 - f))),
            );
            w.extend(outer_binding.iter().map(|&(d, x)| (d, x * f)));
            m.push_vertex(
                p,
                normal,
                [i as f32 / around as f32 * 2.0, -0.3 + f * 0.4],
                mix_bindings(&w),
            );
        }
    }
    ring_strip(
        &mut m.indices,
        band_first,
        band_rings as u32,
        around as u32,
        s == 0,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::garment::hood::HoodedJacket;
    use crate::garment::layout::{ring_at, wrapped_skin};
    use crate::garment::rig::{bone_from_axes, SHELL_UV};

    #[test]
    fn the_builtin_body_has_the_shoulder_breadth_the_sleeve_caps_are_drawn_to() {
        let c = Character::builtin();
        let jacket = Jacket::new(&c, &fitted_layout(&c)).unwrap();
        assert_eq!(shoulder_breadth(jacket.rig()), 1.0);
    }

    #[test]
    fn the_fitted_layout_on_the_builtin_character_is_the_default() {
        let c = Character::builtin();
        assert_eq!(landmarks(&c), BUILTIN_LANDMARKS);
        assert_eq!(fitted_layout(&c), GridLayout::default());
    }

    /// Every skin vertex the lower jacket wraps, from its top row to its hem, is inside the
    /// rest surface at its height: the jacket covers the body there (its front opening aside).
    fn assert_the_rest_surface_covers_the_skin(c: &Character, what: &str) {
        let layout = fitted_layout(c);
        let mut model = Vec::new();
        c.skeleton
            .rest_pose()
            .compute_model(&c.skeleton, &mut model);
        let rings = torso_rings(c, &layout, &model, JACKET_RING_FLOOR);
        let span = layout.top_height - layout.hem_height;
        let (mut outside, mut worst) = (0, 0.0f32);
        for p in wrapped_skin(c, &model) {
            if !(layout.hem_height..=layout.top_height).contains(&p.y) {
                continue;
            }
            let g = ring_at(
                &rings,
                (layout.top_height - p.y) / span * (layout.rows - 1) as f32,
            );
            let e = ((p.x / g.rx).powi(2) + ((p.z - g.cz) / g.rz).powi(2)).sqrt();
            if e > 1.0 + 1e-4 {
                outside += 1;
                worst = worst.max(e);
            }
        }
        assert_eq!(
            outside,
            0,
            "{what}: {outside} skin vertices outside the jacket, up to {:.1} % out",
            (worst - 1.0) * 100.0
        );
    }

    #[test]
    fn the_jacket_covers_the_skin_of_the_builtin_and_of_a_fitted_body() {
        assert_the_rest_surface_covers_the_skin(&Character::builtin(), "built-in");
        // The same body from a file that brings no ellipsoids: they are fitted inside the
        // skin, so the jacket must wrap the skin itself (the hips and the waist poked out).
        let style = cloth_tuner_assets::test_rig::RigStyle {
            clips: Vec::new(),
            ..Default::default()
        };
        let glb = cloth_tuner_assets::test_rig::test_rig_glb(&style);
        let c = Character::from_glb(&glb, "test.glb").unwrap();
        assert_the_rest_surface_covers_the_skin(&c, "fitted");
    }

    /// The collar stands round the neck, not over the shoulders: out past the neck the
    /// jacket at rest (collar, yoke, sleeve caps) keeps within 9 cm of the shoulder joints'
    /// height, while round the neck the collar stands above the yoke's edge. With a collar
    /// raised all along the yoke's edge (out to the shoulders' tips) or open sleeve tubes
    /// standing above the joints, the jacket would reach well over that.
    #[test]
    fn the_collar_stands_round_the_neck_and_not_over_the_shoulders() {
        let c = Character::builtin();
        let jacket = Jacket::new(&c, &fitted_layout(&c)).unwrap();
        let rig = jacket.rig();
        let shoulder = BUILTIN_LANDMARKS.0;
        let highest = |keep: &dyn Fn(Vec3) -> bool| {
            rig.render
                .positions
                .iter()
                .filter(|p| keep(**p))
                .fold(f32::MIN, |m, p| m.max(p.y))
        };
        let over_shoulders = highest(&|p| p.x.abs() > 0.12);
        let round_neck = highest(&|p| p.x.abs() < 0.08);
        assert!(
            over_shoulders < shoulder + 0.09,
            "out past the neck the jacket reaches {:.3} m, {:.1} cm above the shoulder joints",
            over_shoulders,
            (over_shoulders - shoulder) * 100.0
        );
        assert!(
            round_neck > 1.52 + 0.03,
            "round the neck the collar reaches only {round_neck:.3} m"
        );
    }

    /// How far the jacket's highest point out past the neck on the side `sign` of the body
    /// (+1 left, -1 right) stands above the highest of its neighbours 3 to 6 cm away
    /// (horizontally): a rounded shoulder drops a little over that distance, a peak a lot.
    fn shoulder_peak_cm(positions: &[Vec3], sign: f32) -> f32 {
        let side = positions.iter().filter(|p| p.x * sign > 0.12);
        let top = side
            .clone()
            .fold(Vec3::MIN, |m, p| if p.y > m.y { *p } else { m });
        let flat = |p: Vec3| Vec3::new(p.x, 0.0, p.z);
        let around = side
            .filter(|p| (0.03..0.06).contains(&flat(**p).distance(flat(top))))
            .fold(f32::MIN, |m, p| m.max(p.y));
        (top.y - around) * 100.0
    }

    #[test]
    fn the_sleeve_caps_round_over_the_shoulders_without_a_peak() {
        let c = Character::builtin();
        let layout = fitted_layout(&c);
        let jacket = Jacket::new(&c, &layout).unwrap();
        let hooded = HoodedJacket::new(&c, &layout).unwrap();
        for (garment, rig) in [("jacket", jacket.rig()), ("hooded jacket", hooded.rig())] {
            for sign in [1.0, -1.0] {
                // A cap closed over two rings to a point pushed out of the skin stands 2 cm proud.
                let peak = shoulder_peak_cm(&rig.render.positions, sign);
                assert!(
                    peak < 1.0,
                    "{garment}: the shoulder's top stands {peak:.2} cm over the cloth 3-6 cm round it"
                );
            }
        }
    }

    #[test]
    fn the_edge_strips_show_the_weave_across_the_fabrics_thickness() {
        // The strips joining the shells at the front edges and the hem run from an outer
        // vertex to the inner one under it: their texture coordinates must differ by about
        // the fabric's thickness, or the strip shows one column of the weave as stripes.
        let c = Character::builtin();
        let layout = fitted_layout(&c);
        let jacket = Jacket::new(&c, &layout).unwrap();
        let rig = jacket.rig();
        let (nu, nv) = layout.render_grid();
        let uv = &rig.render.uvs;
        // Texture units per metre, around and down: the whole repeat over the row's length
        // (0.6 to 1.6 m round the body: the front is open) and the jacket's height.
        let height = layout.top_height - layout.hem_height;
        let per_metre = (SHELL_UV.0 / 1.6, SHELL_UV.0 / 0.6, SHELL_UV.1 / height);
        for j in [0, nv / 2, nv - 1] {
            for i in [0, nu - 1] {
                let (outer, inner) = (uv[j * nu + i], uv[nu * nv + j * nu + i]);
                let (du, dv) = (inner[0] - outer[0], inner[1] - outer[1]);
                let t = layout.thickness;
                assert!(
                    (t * per_metre.0 * 0.99..t * per_metre.1 * 1.01).contains(&du.abs()),
                    "edge ({i}, {j}): the strip spans {du} around"
                );
                assert!(
                    (dv.abs() - t * per_metre.2).abs() < 1e-4,
                    "({i}, {j}): {dv}"
                );
            }
        }
    }

    #[test]
    fn bone_from_axes_is_orthonormal_with_x_along_the_first_direction() {
        let m = bone_from_axes(
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(0.1, -2.0, 0.3),
            Vec3::new(1.0, 0.4, 0.1),
        );
        let (x, y, z) = (
            m.x_axis.truncate(),
            m.y_axis.truncate(),
            m.z_axis.truncate(),
        );
        for v in [x, y, z] {
            assert!((v.length() - 1.0).abs() < 1e-5);
        }
        assert!(x.dot(y).abs() < 1e-5 && x.dot(z).abs() < 1e-5 && y.dot(z).abs() < 1e-5);
        assert!(x.dot(Vec3::new(0.1, -2.0, 0.3).normalize()) > 0.9999);
        assert!((x.cross(y) - z).length() < 1e-5);
        assert_eq!(m.w_axis.truncate(), Vec3::new(1.0, 2.0, 3.0));
    }
}
