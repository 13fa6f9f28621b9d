//! Colliders the cloth is pushed out of: ellipsoids (the body), spheres, capsules and a ground
//! plane. All are given in character space for the step they are used in.

use glam::{Quat, Vec3, Vec3A};

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
        let Some((center, bound2)) = self.bounding_sphere(margin) else {
            return false;
        };
        (p - center).length_squared() >= bound2
    }

    /// For an ellipsoid or a sphere grown by `margin` (`None` for other shapes): its centre,
    /// the rows of the matrix taking `p - center` to the unit-sphere point its pushes test,
    /// and a squared length from that matrix at or past which the pushes surely find `p`
    /// outside and hand it back unchanged. The matrix is the pushes' own map (the rotation's
    /// inverse, then divided by the radii), its columns made with the same quaternion
    /// arithmetic, so it differs from theirs by rounding alone: a few millionths, times the
    /// ratio of the longest to the shortest radius; the threshold leaves 1e-4 times its square.
    pub(crate) fn unit_map(&self, margin: f32) -> Option<(Vec3, [Vec3; 3], f32)> {
        let (center, rotation, radii) = self.grown_ellipsoid(margin)?;
        let inv = rotation.inverse();
        let cols = [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| inv * axis / radii);
        let rows = [0, 1, 2].map(|i| Vec3::new(cols[0][i], cols[1][i], cols[2][i]));
        let ratio = radii.max_element() / radii.min_element();
        let threshold = 1.0 + 1e-4 * ratio * ratio;
        (radii.min_element() > 0.0 && threshold.is_finite() && rows.iter().all(|r| r.is_finite()))
            .then_some((center, rows, threshold))
    }

    /// The centre and squared radius of the sphere holding an ellipsoid or a sphere grown by
    /// `margin` (`None` for other shapes): a point at or past that radius is left alone, and
    /// a ray that passes wide of it leaves nothing to exit.
    #[inline(always)]
    pub(crate) fn bounding_sphere(&self, margin: f32) -> Option<(Vec3, f32)> {
        let (center, bound) = match *self {
            Collider::Ellipsoid { center, radii, .. } => (center, radii.max_element() + margin),
            Collider::Sphere { center, radius } => (center, radius + margin),
            _ => return None,
        };
        Some((center, bound * bound))
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

    /// How far to move a link from `a` to `b`, both ends by the same vector, so that it no
    /// longer cuts through this ellipsoid or sphere grown by `margin`: its point nearest the
    /// centre (in the shape's unit-sphere space) goes out to the surface straight away from
    /// the centre. `None` when the link passes clear, when it runs through the centre itself
    /// (no way out is nearer than another), and for capsules and planes.
    #[inline]
    pub fn link_push(&self, a: Vec3, b: Vec3, margin: f32) -> Option<Vec3> {
        // Most links pass wide of the shape's bounding sphere.
        let (center, bound2) = self.bounding_sphere(margin)?;
        if closest_on_segment(center, a, b).distance_squared(center) >= bound2 {
            return None;
        }
        let (center, rotation, radii) = self.grown_ellipsoid(margin)?;
        let (inv, radii) = (rotation.inverse(), Vec3A::from(radii));
        let (q0, q1) = (
            to_unit(inv, center, radii, a),
            to_unit(inv, center, radii, b),
        );
        let d = q1 - q0;
        let s = (-q0.dot(d) / d.length_squared().max(1e-12)).clamp(0.0, 1.0);
        let nearest = q0 + d * s;
        let len = nearest.length();
        if !(1e-4..1.0).contains(&len) {
            return None;
        }
        let out = from_unit(rotation, center, radii, nearest / len);
        Some(out - from_unit(rotation, center, radii, nearest))
    }

    /// [`Collider::push_out_toward`] past the bounding-sphere test.
    #[inline(never)]
    pub(crate) fn push_out_toward_near(&self, p: Vec3, anchor: Vec3, margin: f32) -> Vec3 {
        let Some((center, rotation, radii)) = self.grown_ellipsoid(margin) else {
            return self.push_out(p, margin);
        };
        // Inside the bounding sphere (`surely_outside` ruled the rest out).
        let (inv, radii) = (rotation.inverse(), Vec3A::from(radii));
        let q = to_unit(inv, center, radii, p);
        let q2 = q.length_squared();
        if q2 >= 1.0 {
            return p;
        }
        let r = to_unit(inv, center, radii, anchor);
        if q2 > DEEP * DEEP || r.length_squared() <= 1.0 {
            return self.push_out(p, margin);
        }
        // |q + s (r - q)| = 1 for s in (0, 1]: the exit on the way to the anchor.
        let d = r - q;
        let a = d.length_squared();
        let b = 2.0 * q.dot(d);
        let c = q2 - 1.0;
        let s = (-b + (b * b - 4.0 * a * c).max(0.0).sqrt()) / (2.0 * a);
        from_unit(rotation, center, radii, q + d * s.clamp(0.0, 1.0))
    }

    /// How far along the ray from `p` in direction `dir` (a unit vector) the ray leaves this
    /// ellipsoid or sphere grown by `margin` for the last time: `Some(t)` with `t >= 0` when
    /// the ray meets the shape (from inside, or ahead of `p`), `None` when it misses it, the
    /// shape lies behind `p`, or the shape is a capsule or a plane.
    #[inline(always)]
    pub fn exit_along(&self, p: Vec3, dir: Vec3, margin: f32) -> Option<f32> {
        // Most rays pass wide of the shape's bounding sphere, or it lies behind the point:
        // that test inlined into the caller, the rest out of line.
        let (center, bound2) = self.bounding_sphere(margin)?;
        if ray_misses_sphere(center - p, dir, bound2) {
            return None;
        }
        self.exit_along_past_bound(p, dir, margin)
    }

    /// [`Collider::exit_along`] past the bounding-sphere test, for an ellipsoid or a sphere
    /// (`None` for other shapes).
    pub(crate) fn exit_along_past_bound(&self, p: Vec3, dir: Vec3, margin: f32) -> Option<f32> {
        let (center, rotation, radii) = self.grown_ellipsoid(margin)?;
        Self::exit_along_near(p, dir, center, rotation, radii)
    }

    /// [`Collider::exit_along`] past the bounding-sphere test, for the ellipsoid at `center`
    /// with `rotation` and (grown) `radii`.
    #[inline(never)]
    fn exit_along_near(
        p: Vec3,
        dir: Vec3,
        center: Vec3,
        rotation: Quat,
        radii: Vec3,
    ) -> Option<f32> {
        // |q + t v| = 1 in unit-sphere space; the larger root is where the ray leaves.
        let (inv, radii) = (rotation.inverse(), Vec3A::from(radii));
        let q = to_unit(inv, center, radii, p);
        let v = inv.mul_vec3a(Vec3A::from(dir)) / radii;
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

    /// Whether the straight line from `from` to `to` passes through this shape shrunk by
    /// `inset` (metres): what hides a point on the cloth from the camera. The shrinking keeps a
    /// line that only grazes the surface (cloth lying on the body, seen edge-on) in sight. A
    /// plane hides nothing.
    pub fn hides(&self, from: Vec3, to: Vec3, inset: f32) -> bool {
        if let Some((center, rotation, radii)) = self.grown_ellipsoid(-inset) {
            if radii.min_element() <= 0.0 {
                return false;
            }
            let inv = rotation.inverse();
            let q = inv * (from - center) / radii;
            let v = inv * (to - from) / radii;
            let t = (-q.dot(v) / v.length_squared().max(1e-12)).clamp(0.0, 1.0);
            return (q + v * t).length_squared() < 1.0;
        }
        match *self {
            Collider::Capsule { a, b, radius } => {
                let (p, q) = closest_between_segments(from, to, a, b);
                p.distance_squared(q) < (radius - inset).max(0.0).powi(2)
            }
            _ => false,
        }
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
    pub(crate) fn push_out_near(&self, p: Vec3, margin: f32) -> Vec3 {
        match *self {
            Collider::Ellipsoid {
                center,
                rotation,
                radii,
            } => {
                // Inside the bounding sphere (`surely_outside` ruled the rest out): into the
                // ellipsoid's frame, then scale to a unit sphere.
                let r = Vec3A::from(radii) + Vec3A::splat(margin);
                let unit = to_unit(rotation.inverse(), center, r, p);
                let d2 = unit.length_squared();
                if d2 >= 1.0 {
                    return p;
                }
                let d = d2.sqrt();
                // At the exact centre any direction is as good: push along the local X axis.
                let surface = if d > 1e-6 { unit / d } else { Vec3A::X };
                from_unit(rotation, center, r, surface)
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
    p: Vec3,
    anchor: Option<Vec3>,
    margin: f32,
    sweeps: usize,
) -> Vec3 {
    push_out_chosen(colliders, u64::MAX, p, anchor, margin, sweeps)
}

/// [`push_out_all`] over the colliders whose bit is set in `mask` (bit `k`: collider `k`;
/// those past the 64th are always taken).
pub(crate) fn push_out_chosen(
    colliders: &[Collider],
    mask: u64,
    mut p: Vec3,
    anchor: Option<Vec3>,
    margin: f32,
    sweeps: usize,
) -> Vec3 {
    let chosen = |k: usize| k >= u64::BITS as usize || mask & (1 << k) != 0;
    for _ in 0..sweeps {
        let start = p;
        for (k, c) in colliders.iter().enumerate() {
            if !chosen(k) {
                continue;
            }
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

/// Whether the ray from a point in unit direction `dir` passes wide of the sphere of squared
/// radius `bound2` whose centre is `to_center` from the point, or the sphere lies behind the
/// point: the test [`Collider::exit_along`] starts with (the order of its arithmetic is kept
/// where others repeat it four at a time).
#[inline(always)]
pub(crate) fn ray_misses_sphere(to_center: Vec3, dir: Vec3, bound2: f32) -> bool {
    let along = to_center.dot(dir);
    let d2 = to_center.length_squared();
    d2 - along * along > bound2 || (along < 0.0 && d2 > bound2)
}

/// The point of the segment `a`-`b` nearest `p` (`a` when the segment has no length).
pub(crate) fn closest_on_segment(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + ab * t
}

/// The closest points of segments `p0`-`p1` and `q0`-`q1`, one on each.
pub fn closest_between_segments(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> (Vec3, Vec3) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    let on_q = |s: f32| ((d2.dot(p0 + d1 * s - q0)) / e.max(1e-12)).clamp(0.0, 1.0);
    let s = if a <= 1e-12 {
        0.0
    } else {
        let (b, c) = (d1.dot(d2), d1.dot(r));
        let denom = a * e - b * b;
        let s = if denom > 1e-12 {
            ((b * f - c * e) / denom).clamp(0.0, 1.0)
        } else {
            0.0
        };
        // With t clamped to the second segment, the first's point is found again from it.
        let t = on_q(s);
        ((d2 * t - r).dot(d1) / a).clamp(0.0, 1.0)
    };
    let t = if e <= 1e-12 { 0.0 } else { on_q(s) };
    (p0 + d1 * s, q0 + d2 * t)
}

/// `p` in the unit-sphere space of an ellipsoid: from `center`, turned by `inv` (the
/// ellipsoid's rotation inverted), divided by `radii`. In 16-byte vectors, so the division is
/// one packed instruction instead of three; each lane does the scalar form's operations in
/// the same order (glam turns a `Vec3` by a `Quat` through the same 16-byte form), so the
/// same bits.
#[inline(always)]
fn to_unit(inv: Quat, center: Vec3, radii: Vec3A, p: Vec3) -> Vec3A {
    inv.mul_vec3a(Vec3A::from(p) - Vec3A::from(center)) / radii
}

/// [`to_unit`] undone: the unit-sphere point `q` back in character space.
#[inline(always)]
fn from_unit(rotation: Quat, center: Vec3, radii: Vec3A, q: Vec3A) -> Vec3 {
    Vec3::from(Vec3A::from(center) + rotation.mul_vec3a(q * radii))
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

    /// The 16-byte forms of the map into an ellipsoid's unit sphere and back give the scalar
    /// forms' bits (so pushes and exits are the same as before they were packed).
    #[test]
    fn the_packed_unit_sphere_maps_give_the_scalar_bits() {
        let mut next = crate::sim::test_noise(0x9e37_79b9);
        for _ in 0..10_000 {
            let axis = Vec3::new(next(), next(), next()).normalize_or(Vec3::Y);
            let rotation = Quat::from_axis_angle(axis, next() * 3.2);
            let center = Vec3::new(next(), next(), next());
            let radii = Vec3::new(next(), next(), next()).abs() * 0.3 + Vec3::splat(0.01);
            let p = Vec3::new(next(), next(), next()) * 0.5;
            let inv = rotation.inverse();
            let packed = to_unit(inv, center, Vec3A::from(radii), p);
            let scalar = inv * (p - center) / radii;
            assert_eq!(
                Vec3::from(packed).to_array().map(f32::to_bits),
                scalar.to_array().map(f32::to_bits)
            );
            let back = from_unit(rotation, center, Vec3A::from(radii), packed);
            let scalar_back = center + rotation * (scalar * radii);
            assert_eq!(
                back.to_array().map(f32::to_bits),
                scalar_back.to_array().map(f32::to_bits)
            );
        }
    }

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

    #[test]
    fn a_shape_hides_what_lies_behind_it_and_not_what_lies_beside_or_in_front() {
        let eye = Vec3::new(0.0, 0.0, 2.0);
        let body = Collider::Ellipsoid {
            center: Vec3::ZERO,
            rotation: Quat::from_rotation_y(0.4),
            radii: Vec3::new(0.2, 0.4, 0.1),
        };
        let behind = Vec3::new(0.0, 0.1, -0.15);
        let in_front = Vec3::new(0.0, 0.1, 0.15);
        let beside = Vec3::new(0.5, 0.0, -0.15);
        assert!(body.hides(eye, behind, 0.01));
        assert!(!body.hides(eye, in_front, 0.01));
        assert!(!body.hides(eye, beside, 0.01));
        let leg = Collider::Capsule {
            a: Vec3::new(0.0, -1.0, 0.0),
            b: Vec3::new(0.0, 1.0, 0.0),
            radius: 0.08,
        };
        assert!(leg.hides(eye, behind, 0.01));
        assert!(!leg.hides(eye, beside, 0.01));
        assert!(!leg.hides(eye, in_front, 0.01));
        let ground = Collider::Plane {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        };
        assert!(!ground.hides(eye, Vec3::NEG_Y, 0.0));
    }
}
