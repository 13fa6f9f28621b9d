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

use glam::{Mat4, Quat, Vec3};

use super::jacket::bone_from_axes;
use crate::sim::{push_out_masked, Bounds, Collider, FabricParams};

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
    /// The hood's outer surface, hood bone space ([`super::JacketRig::hood_points`]).
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
