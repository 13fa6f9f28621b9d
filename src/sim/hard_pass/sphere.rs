//! Searches on the rest-length sphere around a particle's upper neighbour, where the hard pass
//! may put it: swung out of the colliders, swung back within its max distance, walked round
//! the rim of what is within reach, or, where swinging fails, the whole sphere searched for a
//! clear point (or the least deep one). Each moves continuously with its input where it can,
//! so a tiny difference between two runs stays tiny.

use glam::Vec3;

use crate::sim::broad::{push_out_each, Candidates, Shapes};
use crate::sim::Collider;

/// Swings `x`, a point at distance `rest` from `top`, out of the colliders while keeping it at
/// that distance: push it out (deep points toward `anchor` where given, see
/// [`Collider::push_out_toward`]), then put it back on the sphere around `top` toward the
/// pushed point, tipped further out along the push (when `top` lies on the same convex surface,
/// the straight line to the pushed point is a chord and would lead back inside). At most
/// `passes` rounds; returns the point and whether it ended clear. The result moves
/// continuously with `x` wherever one push decides it, so a point swept by a limb slides
/// around it instead of jumping.
pub fn swing_clear(
    colliders: &[Collider],
    margin: f32,
    top: Vec3,
    rest: f32,
    x: Vec3,
    anchor: Option<Vec3>,
    passes: usize,
) -> (Vec3, bool) {
    let at = Swing {
        top,
        rest,
        anchor,
        passes,
    };
    swing_clear_among(colliders, Candidates::ALL, margin, at, x)
}

/// Where and how [`swing_clear`] swings a point: around `top` at distance `rest`, deep points
/// leaving toward `anchor`, at most `passes` rounds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Swing {
    pub(crate) top: Vec3,
    pub(crate) rest: f32,
    pub(crate) anchor: Option<Vec3>,
    pub(crate) passes: usize,
}

/// [`swing_clear`] testing only the colliders `candidates` names while the point stays where
/// that holds (the same result: see [`crate::sim::broad`]).
#[inline]
pub(crate) fn swing_clear_among(
    colliders: &[Collider],
    candidates: Candidates,
    margin: f32,
    at: Swing,
    mut x: Vec3,
) -> (Vec3, bool) {
    let Swing {
        top,
        rest,
        anchor,
        passes,
    } = at;
    for _ in 0..passes {
        let (y, _) = push_out_each(colliders, candidates, x, anchor, margin);
        if y == x {
            return (x, true);
        }
        let e = (y - top) + (y - x);
        let elen = e.length();
        if elen <= 1e-9 {
            break;
        }
        x = top + e * (rest / elen);
    }
    (x, false)
}

/// The points at distance `rest` from `top` within `reach` of `r` form a cap around the
/// direction of `r`: that direction (`axis`) and the cosine of the angle from it to the cap's
/// rim, from |top + rest w - r|² = rest² + dist² - 2 rest dist (w·axis) <= reach². At 1 or
/// more nothing is in reach; at -1 or less all of the sphere is. `None` when `r` is at `top`.
fn reachable_cap(top: Vec3, rest: f32, r: Vec3, reach: f32) -> Option<(Vec3, f32)> {
    let to_r = r - top;
    let dist = to_r.length();
    if dist <= 1e-9 {
        return None;
    }
    let cos = (rest * rest + dist * dist - reach * reach) / (2.0 * rest * dist);
    Some((to_r / dist, cos))
}

/// The unit vector across `axis` toward `dir` (any one across `axis` if `dir` lies along it).
fn across(dir: Vec3, axis: Vec3) -> Vec3 {
    (dir - axis * dir.dot(axis)).normalize_or(axis.any_orthonormal_vector())
}

/// The point at distance `rest` from `top` nearest in direction to `x` that lies within `md` of
/// `r`: `x` swung on the sphere around `top`, in the plane through `top`, `x` and `r`, just far
/// enough toward `r`. The points of the sphere within reach of `r` form a cap around the
/// direction of `r`; the swing stops on the cap's rim, so the result moves continuously with
/// `x` (a swing in fixed steps would overshoot into the cap and make a cloth held at its max
/// distance, by wind for example, shiver). Where the cap is empty the point nearest `r`.
pub(super) fn swing_within_reach(top: Vec3, rest: f32, x: Vec3, r: Vec3, md: f32) -> Vec3 {
    let current = (x - top).normalize_or(Vec3::Y);
    let Some((axis, cos_rim)) = reachable_cap(top, rest, r, md) else {
        return top + current * rest;
    };
    if cos_rim >= 1.0 {
        return top + axis * rest;
    }
    if current.dot(axis) >= cos_rim {
        return top + current * rest;
    }
    let side = across(current, axis);
    // A hair inside the rim, so rounding cannot leave it outside.
    let cos_in = (cos_rim + 1e-6).min(1.0);
    let dir = axis * cos_in + side * (1.0 - cos_in * cos_in).max(0.0).sqrt();
    top + dir * rest
}

/// Steps tried each way around the rim before giving up, and halvings of the last one.
const RIM_STEPS: usize = 18;
const RIM_REFINE: usize = 12;
/// How far inside the max distance the rim is taken, metres.
const RIM_INSET: f32 = 1e-5;

/// The rim of the reachable cap: the circle of points at distance `rest` from `top` and
/// [`RIM_INSET`] inside the max distance `md` from `r` (10 um, so rounding, about 0.1 um on
/// positions near a metre from the origin, cannot leave a rim point outside the reach),
/// parametrised by the angle from its point nearest to `x`.
pub(super) struct Rim {
    top: Vec3,
    rest: f32,
    axis: Vec3,
    u: Vec3,
    v: Vec3,
    cos: f32,
    sin: f32,
}

impl Rim {
    /// `None` when the reach holds no point of the sphere or all of it.
    pub(super) fn new(top: Vec3, rest: f32, x: Vec3, r: Vec3, md: f32) -> Option<Rim> {
        let (axis, cos) = reachable_cap(top, rest, r, (md - RIM_INSET).max(0.0))?;
        if cos <= -1.0 || cos >= 1.0 {
            return None;
        }
        let u = across((x - top).normalize_or(Vec3::Y), axis);
        Some(Rim {
            top,
            rest,
            axis,
            u,
            v: axis.cross(u),
            cos,
            sin: (1.0 - cos * cos).sqrt(),
        })
    }

    fn at(&self, angle: f32) -> Vec3 {
        let (sin, cos) = angle.sin_cos();
        self.top + (self.axis * self.cos + (self.u * cos + self.v * sin) * self.sin) * self.rest
    }

    /// The rim point nearest in angle to `x` that is outside every collider (with `margin`):
    /// the rim is walked both ways from angle 0 in steps of 180° / [`RIM_STEPS`] until one way
    /// comes out clear, then the last step is halved down to the collider's surface. `None`
    /// when the rim is nowhere clear. Continuous in `x` while the same way round comes out
    /// first.
    pub(super) fn clear_point(&self, colliders: &[Collider], margin: f32) -> Option<Vec3> {
        let clear = |y: Vec3| clear_of(colliders, y, margin);
        if clear(self.at(0.0)) {
            return Some(self.at(0.0));
        }
        let step = std::f32::consts::PI / RIM_STEPS as f32;
        for k in 1..=RIM_STEPS {
            for sign in [1.0f32, -1.0] {
                let angle = sign * step * k as f32;
                if !clear(self.at(angle)) {
                    continue;
                }
                let (mut good, mut bad) = (angle, sign * step * (k - 1) as f32);
                for _ in 0..RIM_REFINE {
                    let mid = 0.5 * (good + bad);
                    if clear(self.at(mid)) {
                        good = mid;
                    } else {
                        bad = mid;
                    }
                }
                return Some(self.at(good));
            }
        }
        None
    }

    /// `best` (a point and its depth in the colliders, margin not counted) or the least deep
    /// of 2 x [`RIM_STEPS`] points evenly round the rim, whichever is shallower.
    fn least_deep(&self, colliders: &[Collider], mut best: (Vec3, f32)) -> (Vec3, f32) {
        let step = std::f32::consts::PI / RIM_STEPS as f32;
        for k in 0..2 * RIM_STEPS {
            let y = self.at(step * k as f32);
            let d = depth_in(colliders, y);
            if d < best.1 {
                best = (y, d);
            }
        }
        best
    }
}

/// Directions tried on the rest-length sphere when swinging could not clear a particle.
const SPHERE_SEARCH_DIRECTIONS: usize = 96;
/// Halvings of the arc between the blocked point and the clear direction found.
const SPHERE_SEARCH_REFINE: usize = 10;

/// The point at distance `rest` from `top` that is outside every collider of `shapes` and
/// within `max_distance` of `reference`, nearest to `blocked` (where the particle would be
/// without the colliders): a fixed spiral of directions finds a clear one, then halving the
/// arc between it and `blocked` slides it back to the collider's edge. `None` when no
/// direction is clear. The hard pass uses it where a leg has swept through a column.
pub fn clear_point_on_sphere(
    shapes: Shapes,
    top: Vec3,
    rest: f32,
    blocked: Vec3,
    reference: Vec3,
    max_distance: f32,
) -> Option<Vec3> {
    let ok =
        |x: Vec3| x.distance_squared(reference) <= max_distance * max_distance && shapes.clear(x);
    let from = (blocked - top).normalize_or(Vec3::NEG_Y);
    let mut best: Option<(f32, Vec3)> = None;
    for k in 0..SPHERE_SEARCH_DIRECTIONS {
        let dir = spiral_direction(k);
        let score = dir.distance_squared(from);
        if best.is_some_and(|(s, _)| s <= score) || !ok(top + dir * rest) {
            continue;
        }
        best = Some((score, dir));
    }
    let (_, mut good) = best?;
    let mut bad = from;
    for _ in 0..SPHERE_SEARCH_REFINE {
        let mid = (good + bad).normalize_or(good);
        if ok(top + mid * rest) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(top + good * rest)
}

/// Whether `x` is outside every collider grown by `margin` (no push moves it).
fn clear_of(colliders: &[Collider], x: Vec3, margin: f32) -> bool {
    Shapes::plain(colliders, margin).clear(x)
}

/// How deep `x` lies in the deepest of `colliders`, metres, margin not counted (0 outside all).
fn depth_in(colliders: &[Collider], x: Vec3) -> f32 {
    colliders
        .iter()
        .map(|c| c.penetration(x, 0.0))
        .fold(0.0, f32::max)
}

/// Where no point of the rest-length sphere around `top` is both clear and within
/// `max_distance` of `reference`: the point within the max distance (or, when none is, the one
/// nearest to `reference`) that lies least deep in the colliders, measured without margin,
/// and that depth in metres. Candidates: the point nearest `reference`, the search's fixed
/// directions within reach and, where those are all inside a collider, points round the rim
/// of the reach (a small reach holds few of the fixed directions), walked from the one nearest
/// `toward` (where the particle was headed).
pub fn least_deep_point_on_sphere(
    colliders: &[Collider],
    top: Vec3,
    rest: f32,
    toward: Vec3,
    reference: Vec3,
    max_distance: f32,
) -> (Vec3, f32) {
    let depth = |x: Vec3| depth_in(colliders, x);
    // The sphere's point nearest the reference is within the max distance whenever any is.
    let nearest = top + (reference - top).normalize_or(Vec3::NEG_Y) * rest;
    let mut best = (nearest, depth(nearest));
    for k in 0..SPHERE_SEARCH_DIRECTIONS {
        if best.1 <= 0.0 {
            break;
        }
        let x = top + spiral_direction(k) * rest;
        if x.distance_squared(reference) > max_distance * max_distance {
            continue;
        }
        let d = depth(x);
        if d < best.1 {
            best = (x, d);
        }
    }
    if best.1 > 0.0 {
        if let Some(rim) = Rim::new(top, rest, toward, reference, max_distance) {
            best = rim.least_deep(colliders, best);
        }
    }
    best
}

/// Direction `k` of a Fibonacci spiral over the unit sphere: evenly spread, and the same
/// directions every time.
fn spiral_direction(k: usize) -> Vec3 {
    let y = 1.0 - 2.0 * (k as f32 + 0.5) / SPHERE_SEARCH_DIRECTIONS as f32;
    let ring = (1.0 - y * y).max(0.0).sqrt();
    let (sin, cos) = (k as f32 * 2.399_963_2).sin_cos();
    Vec3::new(ring * cos, y, ring * sin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::tests::largest_step;

    #[test]
    fn a_point_swung_out_of_a_passing_sphere_slides_round_it_without_jumping() {
        // A link of 0.3 m hangs from the origin; a sphere of radius 0.1 sweeps across
        // through where its lower end would be. The end stays 0.3 m from the top, ends up
        // clear, and never moves much further than the sphere did in one step.
        let (top, rest) = (Vec3::ZERO, 0.3);
        let hanging = Vec3::new(0.0, -rest, 0.0);
        let mut path = Vec::new();
        let step = 0.002;
        for k in 0..=150 {
            let cx = -0.15 + step * k as f32;
            let c = [Collider::Sphere {
                center: Vec3::new(cx, -0.3, 0.02),
                radius: 0.1,
            }];
            let (x, clear) = swing_clear(&c, 0.0, top, rest, hanging, None, 6);
            assert!(clear, "not cleared with the sphere at x = {cx}");
            assert!((x.distance(top) - rest).abs() < 1e-5);
            path.push(x);
        }
        let worst_jump = largest_step(&path);
        assert!(
            worst_jump < 10.0 * step,
            "the end jumped {worst_jump} m while the sphere moved {step} m"
        );
    }

    #[test]
    fn the_rim_walk_finds_the_nearest_clear_point_within_reach_and_moves_with_the_collider() {
        // A 0.3 m link hangs from the origin, its reference straight below at 0.3 m, reach
        // 8 cm: the reachable cap is a circle around -Y. The particle was swung out of a body
        // to `x`, beyond reach on the +X side; a sphere sits on the rim point nearest to it,
        // a little toward +Z, so the nearest clear rim point is toward -Z.
        let (top, rest, r, md) = (Vec3::ZERO, 0.3, Vec3::new(0.0, -0.3, 0.0), 0.08);
        let angle = 40f32.to_radians();
        let x = top + Vec3::new(angle.sin(), -angle.cos(), 0.0) * rest;
        let step = 0.0005;
        let mut path = Vec::new();
        for k in 0..=40 {
            let c = [Collider::Sphere {
                center: Vec3::new(0.075, -0.29, 0.006 + step * k as f32),
                radius: 0.03,
            }];
            let rim = Rim::new(top, rest, x, r, md).unwrap();
            let y = rim.clear_point(&c, 0.0).expect("a clear rim point");
            assert!((y.distance(top) - rest).abs() < 1e-5);
            assert!(
                y.distance(r) <= md + 1e-6,
                "out of reach: {}",
                y.distance(r)
            );
            assert_eq!(c[0].push_out(y, 0.0), y, "inside the sphere");
            // On the -Z side, just past the sphere's surface.
            assert!(
                y.z < 0.0 && y.distance(Vec3::new(0.075, -0.29, 0.006 + step * k as f32)) < 0.031
            );
            path.push(y);
        }
        let worst = largest_step(&path);
        assert!(worst < 4.0 * step, "jumped {worst} m for a {step} m move");
        // Nothing in the way: the rim point nearest `x`.
        let y = Rim::new(top, rest, x, r, md)
            .unwrap()
            .clear_point(&[], 0.0)
            .unwrap();
        assert!(y.z.abs() < 1e-6 && y.x > 0.0);
        // A small reach wholly inside a sphere: no rim point is clear, and the least deep
        // point within reach lies on the rim, shallower than the point nearest the reference
        // (the search over fixed directions has none inside so small a cap).
        let (r, md) = (Vec3::new(0.0, -0.35, 0.0), 0.055);
        let body = [Collider::Sphere {
            center: Vec3::new(0.01, -0.3, 0.0),
            radius: 0.04,
        }];
        let rim = Rim::new(top, rest, x, r, md).unwrap();
        assert_eq!(rim.clear_point(&body, 0.0), None);
        let nearest = Vec3::new(0.0, -rest, 0.0);
        let centre_depth = depth_in(&body, nearest);
        let (y, depth) = rim.least_deep(&body, (nearest, centre_depth));
        assert!(depth < centre_depth, "{depth} against {centre_depth}");
        assert!(y.distance(r) <= md && (y.distance(top) - rest).abs() < 1e-5);
        // Reference out of reach of the whole sphere: no rim.
        assert!(Rim::new(top, rest, x, Vec3::new(0.0, -1.0, 0.0), md).is_none());
    }
}
