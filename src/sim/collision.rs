//! Colliders the cloth is pushed out of: ellipsoids (the body), spheres, capsules and a ground
//! plane. All are given in character space for the step they are used in.

use glam::{Quat, Vec3};

/// How deep (as a fraction of the way from the surface to the centre, in unit-sphere space)
/// a particle must be before [`Collider::push_out_toward`] stops using the nearest surface.
const DEEP: f32 = 0.7;

/// One collision shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Collider {
    /// An ellipsoid: a unit sphere scaled by `radii` along its local axes, then rotated and
    /// moved to `center`. Solved in unit-sphere space.
    Ellipsoid {
        /// Centre, metres.
        center: Vec3,
        /// Orientation of the local axes (unit quaternion).
        rotation: Quat,
        /// Half-lengths along the local X, Y and Z axes, metres.
        radii: Vec3,
    },
    /// A sphere.
    Sphere {
        /// Centre, metres.
        center: Vec3,
        /// Radius, metres.
        radius: f32,
    },
    /// A capsule: every point within `radius` of the segment `a`-`b`.
    Capsule {
        /// One end of the segment.
        a: Vec3,
        /// The other end.
        b: Vec3,
        /// Radius, metres.
        radius: f32,
    },
    /// A half-space: particles stay on the side `normal` points to. `normal` must be unit.
    Plane {
        /// A point on the plane.
        point: Vec3,
        /// The unit normal, pointing to the free side.
        normal: Vec3,
    },
}

impl Collider {
    /// The shape `t` of the way from `self` to `other` (0 is `self`, 1 is `other`): centres,
    /// ends, sizes and points linearly, rotations along the shortest arc. Shapes of different
    /// kinds do not blend: the result is `other`.
    pub fn lerp(&self, other: &Collider, t: f32) -> Collider {
        let mix = |a: f32, b: f32| a + (b - a) * t;
        match (*self, *other) {
            (
                Collider::Ellipsoid {
                    center: c0,
                    rotation: q0,
                    radii: r0,
                },
                Collider::Ellipsoid {
                    center: c1,
                    rotation: q1,
                    radii: r1,
                },
            ) => Collider::Ellipsoid {
                center: c0.lerp(c1, t),
                rotation: q0.slerp(q1, t).normalize(),
                radii: r0.lerp(r1, t),
            },
            (
                Collider::Sphere {
                    center: c0,
                    radius: r0,
                },
                Collider::Sphere {
                    center: c1,
                    radius: r1,
                },
            ) => Collider::Sphere {
                center: c0.lerp(c1, t),
                radius: mix(r0, r1),
            },
            (
                Collider::Capsule {
                    a: a0,
                    b: b0,
                    radius: r0,
                },
                Collider::Capsule {
                    a: a1,
                    b: b1,
                    radius: r1,
                },
            ) => Collider::Capsule {
                a: a0.lerp(a1, t),
                b: b0.lerp(b1, t),
                radius: mix(r0, r1),
            },
            (
                Collider::Plane {
                    point: p0,
                    normal: n0,
                },
                Collider::Plane {
                    point: p1,
                    normal: n1,
                },
            ) => Collider::Plane {
                point: p0.lerp(p1, t),
                normal: n0.lerp(n1, t).normalize_or(n1),
            },
            (_, other) => other,
        }
    }

    /// True when every number is finite and every size positive.
    pub fn is_valid(&self) -> bool {
        match *self {
            Collider::Ellipsoid {
                center,
                rotation,
                radii,
            } => {
                center.is_finite()
                    && rotation.is_finite()
                    && radii.is_finite()
                    && radii.min_element() > 0.0
            }
            Collider::Sphere { center, radius } => {
                center.is_finite() && radius.is_finite() && radius > 0.0
            }
            Collider::Capsule { a, b, radius } => {
                a.is_finite() && b.is_finite() && radius.is_finite() && radius > 0.0
            }
            Collider::Plane { point, normal } => {
                point.is_finite() && normal.is_finite() && normal.length_squared() > 0.5
            }
        }
    }

    /// How far `p` is inside the shape grown by `margin` (metres; 0 or less means outside).
    /// For an ellipsoid this is measured along the unit-sphere direction, scaled back.
    pub fn penetration(&self, p: Vec3, margin: f32) -> f32 {
        let q = self.push_out(p, margin);
        if q == p {
            0.0
        } else {
            q.distance(p)
        }
    }

    /// Like [`Collider::push_out`], but a particle deep inside an ellipsoid or sphere (past 30 %
    /// of the way to its centre, in unit-sphere space) leaves along the line toward `anchor`
    /// (its reference point, outside the body) instead of through the nearest surface, so a
    /// leg that swept through the cloth in one step does not throw it out on the wrong side.
    /// Falls back to the nearest surface when `anchor` is inside too.
    #[inline(always)]
    pub fn push_out_toward(&self, p: Vec3, anchor: Vec3, margin: f32) -> Vec3 {
        if self.surely_outside(p, margin) {
            return p;
        }
        self.push_out_toward_near(p, anchor, margin)
    }

    /// Whether `p` is outside the bounding sphere of an ellipsoid or sphere grown by `margin`:
    /// the test most particle/collider pairs stop at, inlined into the callers (the solver
    /// makes thousands of these calls per frame, nearly all of them this far from the shape).
    /// False for other shapes.
    #[inline(always)]
    fn surely_outside(&self, p: Vec3, margin: f32) -> bool {
        let (center, bound) = match *self {
            Collider::Ellipsoid { center, radii, .. } => (center, radii.max_element() + margin),
            Collider::Sphere { center, radius } => (center, radius + margin),
            _ => return false,
        };
        (p - center).length_squared() >= bound * bound
    }

    /// An ellipsoid or a sphere as an ellipsoid grown by `margin`: centre, rotation and radii.
    /// `None` for other shapes.
    fn grown_ellipsoid(&self, margin: f32) -> Option<(Vec3, Quat, Vec3)> {
        match *self {
            Collider::Ellipsoid {
                center,
                rotation,
                radii,
            } => Some((center, rotation, radii + Vec3::splat(margin))),
            Collider::Sphere { center, radius } => {
                Some((center, Quat::IDENTITY, Vec3::splat(radius + margin)))
            }
            _ => None,
        }
    }

    /// [`Collider::push_out_toward`] past the bounding-sphere test.
    #[inline(never)]
    fn push_out_toward_near(&self, p: Vec3, anchor: Vec3, margin: f32) -> Vec3 {
        let Some((center, rotation, radii)) = self.grown_ellipsoid(margin) else {
            return self.push_out(p, margin);
        };
        // Inside the bounding sphere (`surely_outside` ruled the rest out).
        let inv = rotation.inverse();
        let q = inv * (p - center) / radii;
        let q2 = q.length_squared();
        if q2 >= 1.0 {
            return p;
        }
        let r = inv * (anchor - center) / radii;
        if q2 > DEEP * DEEP || r.length_squared() <= 1.0 {
            return self.push_out(p, margin);
        }
        // |q + s (r - q)| = 1 for s in (0, 1]: the exit on the way to the anchor.
        let d = r - q;
        let a = d.length_squared();
        let b = 2.0 * q.dot(d);
        let c = q2 - 1.0;
        let s = (-b + (b * b - 4.0 * a * c).max(0.0).sqrt()) / (2.0 * a);
        center + rotation * ((q + d * s.clamp(0.0, 1.0)) * radii)
    }

    /// How far along the ray from `p` in direction `dir` (a unit vector) the ray leaves this
    /// ellipsoid or sphere grown by `margin` for the last time: `Some(t)` with `t >= 0` when
    /// the ray meets the shape (from inside, or ahead of `p`), `None` when it misses it, the
    /// shape lies behind `p`, or the shape is a capsule or a plane.
    pub fn exit_along(&self, p: Vec3, dir: Vec3, margin: f32) -> Option<f32> {
        let (center, rotation, radii) = self.grown_ellipsoid(margin)?;
        // Most rays pass wide of the shape's bounding sphere, or it lies behind the point.
        let bound = radii.max_element();
        let to_center = center - p;
        let along = to_center.dot(dir);
        let d2 = to_center.length_squared();
        if d2 - along * along > bound * bound || (along < 0.0 && d2 > bound * bound) {
            return None;
        }
        // |q + t v| = 1 in unit-sphere space; the larger root is where the ray leaves.
        let inv = rotation.inverse();
        let q = inv * (p - center) / radii;
        let v = inv * dir / radii;
        let a = v.length_squared();
        if a <= 1e-12 {
            return None;
        }
        let b = 2.0 * q.dot(v);
        let c = q.length_squared() - 1.0;
        let disc = b * b - 4.0 * a * c;
        if disc < 0.0 {
            return None;
        }
        let t = (-b + disc.sqrt()) / (2.0 * a);
        (t >= 0.0).then_some(t)
    }

    /// `p` moved to the nearest surface point when it is inside the shape grown by `margin`,
    /// else `p` unchanged.
    #[inline(always)]
    pub fn push_out(&self, p: Vec3, margin: f32) -> Vec3 {
        if self.surely_outside(p, margin) {
            return p;
        }
        self.push_out_near(p, margin)
    }

    /// [`Collider::push_out`] past the bounding-sphere test.
    #[inline(never)]
    fn push_out_near(&self, p: Vec3, margin: f32) -> Vec3 {
        match *self {
            Collider::Ellipsoid {
                center,
                rotation,
                radii,
            } => {
                // Inside the bounding sphere (`surely_outside` ruled the rest out): into the
                // ellipsoid's frame, then scale to a unit sphere.
                let r = radii + Vec3::splat(margin);
                let local = rotation.inverse() * (p - center);
                let unit = local / r;
                let d2 = unit.length_squared();
                if d2 >= 1.0 {
                    return p;
                }
                let d = d2.sqrt();
                // At the exact centre any direction is as good: push along the local X axis.
                let surface = if d > 1e-6 { unit / d } else { Vec3::X };
                center + rotation * (surface * r)
            }
            Collider::Sphere { center, radius } => push_sphere(p, center, radius + margin),
            Collider::Capsule { a, b, radius } => {
                let ab = b - a;
                let len2 = ab.length_squared();
                let t = if len2 > 0.0 {
                    ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                push_sphere(p, a + ab * t, radius + margin)
            }
            Collider::Plane { point, normal } => {
                let d = (p - point).dot(normal) - margin;
                if d >= 0.0 {
                    p
                } else {
                    p - normal * d
                }
            }
        }
    }
}

/// Pushes `p` out of every collider, sweeping over them again until nothing moves (overlapping
/// colliders can hand a point back and forth), at most `sweeps` times. With an `anchor`, deep
/// points leave toward it ([`Collider::push_out_toward`]); without, through the nearest surface.
pub fn push_out_all(
    colliders: &[Collider],
    mut p: Vec3,
    anchor: Option<Vec3>,
    margin: f32,
    sweeps: usize,
) -> Vec3 {
    for _ in 0..sweeps {
        let start = p;
        for c in colliders {
            p = match anchor {
                Some(a) => c.push_out_toward(p, a, margin),
                None => c.push_out(p, margin),
            };
        }
        if p == start {
            break;
        }
    }
    p
}

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
    mut x: Vec3,
    anchor: Option<Vec3>,
    passes: usize,
) -> (Vec3, bool) {
    for _ in 0..passes {
        let mut y = x;
        for c in colliders {
            y = match anchor {
                Some(a) => c.push_out_toward(y, a, margin),
                None => c.push_out(y, margin),
            };
        }
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
pub(crate) fn reachable_cap(top: Vec3, rest: f32, r: Vec3, reach: f32) -> Option<(Vec3, f32)> {
    let to_r = r - top;
    let dist = to_r.length();
    if dist <= 1e-9 {
        return None;
    }
    let cos = (rest * rest + dist * dist - reach * reach) / (2.0 * rest * dist);
    Some((to_r / dist, cos))
}

/// The unit vector across `axis` toward `dir` (any one across `axis` if `dir` lies along it).
pub(crate) fn across(dir: Vec3, axis: Vec3) -> Vec3 {
    (dir - axis * dir.dot(axis)).normalize_or(axis.any_orthonormal_vector())
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
pub(crate) struct Rim {
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
    pub(crate) fn new(top: Vec3, rest: f32, x: Vec3, r: Vec3, md: f32) -> Option<Rim> {
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
    pub(crate) fn clear_point(&self, colliders: &[Collider], margin: f32) -> Option<Vec3> {
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

/// The point at distance `rest` from `top` that is outside every collider (with `margin`) and
/// within `max_distance` of `reference`, nearest to `blocked` (where the particle would be
/// without the colliders): a fixed spiral of directions finds a clear one, then halving the
/// arc between it and `blocked` slides it back to the collider's edge. `None` when no
/// direction is clear. The hard pass uses it where a leg has swept through a column.
pub fn clear_point_on_sphere(
    colliders: &[Collider],
    margin: f32,
    top: Vec3,
    rest: f32,
    blocked: Vec3,
    reference: Vec3,
    max_distance: f32,
) -> Option<Vec3> {
    let ok = |x: Vec3| {
        x.distance_squared(reference) <= max_distance * max_distance
            && clear_of(colliders, x, margin)
    };
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
    colliders.iter().all(|c| c.push_out(x, margin) == x)
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

#[inline]
fn push_sphere(p: Vec3, center: Vec3, radius: f32) -> Vec3 {
    let d = p - center;
    let d2 = d.length_squared();
    if d2 >= radius * radius {
        return p;
    }
    let len = d2.sqrt();
    let dir = if len > 1e-6 { d / len } else { Vec3::X };
    center + dir * radius
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::tests::largest_step;

    fn close(a: Vec3, b: Vec3) -> bool {
        a.distance(b) < 1e-5
    }

    #[test]
    fn ellipsoid_pushes_out_in_unit_sphere_space() {
        // Radii 0.2 (x), 0.5 (y), 0.1 (z) at (1,0,0): a point 0.05 in front of the centre on
        // z goes to the surface at z = 0.1; one 0.3 up goes to y = 0.5.
        let e = Collider::Ellipsoid {
            center: Vec3::new(1.0, 0.0, 0.0),
            rotation: Quat::IDENTITY,
            radii: Vec3::new(0.2, 0.5, 0.1),
        };
        assert!(close(
            e.push_out(Vec3::new(1.0, 0.0, 0.05), 0.0),
            Vec3::new(1.0, 0.0, 0.1)
        ));
        assert!(close(
            e.push_out(Vec3::new(1.0, 0.3, 0.0), 0.0),
            Vec3::new(1.0, 0.5, 0.0)
        ));
        // Outside stays put, bit for bit.
        let out = Vec3::new(1.3, 0.0, 0.0);
        assert_eq!(e.push_out(out, 0.0), out);
        // The margin grows every radius.
        assert!(close(
            e.push_out(Vec3::new(1.0, 0.0, 0.05), 0.02),
            Vec3::new(1.0, 0.0, 0.12)
        ));
        // A point pushed out lies on the surface: |local / radii| == 1.
        let p = e.push_out(Vec3::new(1.05, 0.1, 0.02), 0.0);
        let unit = (p - Vec3::new(1.0, 0.0, 0.0)) / Vec3::new(0.2, 0.5, 0.1);
        assert!((unit.length() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn rotated_ellipsoid_uses_its_own_axes() {
        // Long axis (y, 0.5) turned to lie along world x.
        let e = Collider::Ellipsoid {
            center: Vec3::ZERO,
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            radii: Vec3::new(0.1, 0.5, 0.1),
        };
        assert!(close(
            e.push_out(Vec3::new(0.4, 0.0, 0.0), 0.0),
            Vec3::new(0.5, 0.0, 0.0)
        ));
        let far_up = Vec3::new(0.0, 0.2, 0.0);
        assert_eq!(e.push_out(far_up, 0.0), far_up);
    }

    #[test]
    fn sphere_capsule_and_plane() {
        let s = Collider::Sphere {
            center: Vec3::ZERO,
            radius: 0.5,
        };
        assert!(close(
            s.push_out(Vec3::new(0.0, 0.1, 0.0), 0.0),
            Vec3::new(0.0, 0.5, 0.0)
        ));
        let c = Collider::Capsule {
            a: Vec3::ZERO,
            b: Vec3::new(0.0, 1.0, 0.0),
            radius: 0.1,
        };
        assert!(close(
            c.push_out(Vec3::new(0.05, 0.5, 0.0), 0.0),
            Vec3::new(0.1, 0.5, 0.0)
        ));
        assert!(close(
            c.push_out(Vec3::new(0.0, 1.05, 0.0), 0.0),
            Vec3::new(0.0, 1.1, 0.0)
        ));
        let g = Collider::Plane {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        };
        assert!(close(
            g.push_out(Vec3::new(0.3, -0.2, 0.1), 0.01),
            Vec3::new(0.3, 0.01, 0.1)
        ));
        assert!((g.penetration(Vec3::new(0.0, -0.2, 0.0), 0.0) - 0.2).abs() < 1e-6);
        assert_eq!(g.penetration(Vec3::new(0.0, 0.2, 0.0), 0.0), 0.0);
    }

    #[test]
    fn deep_particles_leave_toward_their_anchor() {
        let s = Collider::Sphere {
            center: Vec3::ZERO,
            radius: 1.0,
        };
        // Deep (0.1 from the centre, on the +X side) with the anchor on -X: it leaves at -X,
        // where the nearest-surface push would have thrown it to +X.
        let anchor = Vec3::new(-2.0, 0.0, 0.0);
        let p = s.push_out_toward(Vec3::new(0.1, 0.0, 0.0), anchor, 0.0);
        assert!(close(p, Vec3::new(-1.0, 0.0, 0.0)), "{p}");
        assert!(close(s.push_out(Vec3::new(0.1, 0.0, 0.0), 0.0), Vec3::X));
        // Shallow: the nearest surface, as before.
        let p = s.push_out_toward(Vec3::new(0.9, 0.0, 0.0), anchor, 0.0);
        assert!(close(p, Vec3::X));
        // Anchor inside too: nearest surface.
        let p = s.push_out_toward(Vec3::new(0.1, 0.0, 0.0), Vec3::new(-0.5, 0.0, 0.0), 0.0);
        assert!(close(p, Vec3::X));
        // Outside: untouched.
        let out = Vec3::new(0.0, 1.5, 0.0);
        assert_eq!(s.push_out_toward(out, anchor, 0.0), out);
    }

    #[test]
    fn a_ray_leaves_a_shape_at_its_far_side_whether_it_starts_inside_or_before_it() {
        let e = Collider::Ellipsoid {
            center: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            radii: Vec3::new(0.2, 0.5, 0.1),
        };
        // From the centre along +X: out at x = 0.2 (+ margin).
        let t = e.exit_along(Vec3::ZERO, Vec3::X, 0.01).unwrap();
        assert!((t - 0.21).abs() < 1e-6, "{t}");
        // From before the shape on -X: the far side, not the near one.
        let t = e
            .exit_along(Vec3::new(-1.0, 0.0, 0.0), Vec3::X, 0.0)
            .unwrap();
        assert!((t - 1.2).abs() < 1e-5, "{t}");
        // Shape behind the point, or beside the ray: nothing.
        assert_eq!(e.exit_along(Vec3::new(1.0, 0.0, 0.0), Vec3::X, 0.0), None);
        assert_eq!(e.exit_along(Vec3::new(-1.0, 0.0, 0.3), Vec3::X, 0.0), None);
        // Planes and capsules are not ray-cast.
        let g = Collider::Plane {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        };
        assert_eq!(g.exit_along(Vec3::NEG_Y, Vec3::Y, 0.0), None);
    }

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

    #[test]
    fn validity() {
        assert!(!Collider::Sphere {
            center: Vec3::ZERO,
            radius: f32::NAN
        }
        .is_valid());
        assert!(!Collider::Ellipsoid {
            center: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            radii: Vec3::new(0.1, 0.0, 0.1)
        }
        .is_valid());
    }
}
