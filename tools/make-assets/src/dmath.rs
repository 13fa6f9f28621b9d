//! Platform-independent scalar helpers for the asset generator.
//!
//! The committed asset must equal the generator's output byte for byte on any machine, so the
//! generator avoids the C library's transcendental functions (whose last bits differ between
//! libm versions) and uses these polynomial versions built from `+ - * /` only.

use glam::{Mat3, Quat, Vec3};

const PI: f64 = std::f64::consts::PI;

/// Sine, accurate to ~1e-12 (Taylor series after reduction to [-π/2, π/2]).
pub fn sin(x: f64) -> f64 {
    let tau = 2.0 * PI;
    let mut r = x - (x / tau).round() * tau;
    if r > PI / 2.0 {
        r = PI - r;
    } else if r < -PI / 2.0 {
        r = -PI - r;
    }
    let r2 = r * r;
    // Horner form of r - r^3/3! + r^5/5! - ... up to r^17.
    let mut term = 1.0;
    let mut k = 17.0;
    while k > 1.0 {
        term = 1.0 - r2 / (k * (k - 1.0)) * term;
        k -= 2.0;
    }
    r * term
}

/// Cosine via [`sin`].
pub fn cos(x: f64) -> f64 {
    sin(x + PI / 2.0)
}

/// e^x, accurate to ~1e-13 for |x| < 700.
pub fn exp(x: f64) -> f64 {
    let x = x.clamp(-700.0, 700.0);
    let ln2 = std::f64::consts::LN_2;
    let k = (x / ln2).round();
    let r = x - k * ln2;
    let mut sum = 1.0;
    let mut n = 16.0;
    while n >= 1.0 {
        sum = 1.0 + r / n * sum;
        n -= 1.0;
    }
    let bits = ((k as i64 + 1023) as u64) << 52;
    sum * f64::from_bits(bits)
}

/// Degrees to radians.
pub fn deg(d: f64) -> f64 {
    d * PI / 180.0
}

/// Unit quaternion for a rotation of `angle` radians about the unit `axis`.
pub fn axis_angle(axis: Vec3, angle: f64) -> Quat {
    let s = sin(angle * 0.5) as f32;
    let c = cos(angle * 0.5) as f32;
    let a = axis.normalize();
    Quat::from_xyzw(a.x * s, a.y * s, a.z * s, c)
}

/// Rotation about +X.
pub fn rx(a: f64) -> Quat {
    axis_angle(Vec3::X, a)
}
/// Rotation about +Y.
pub fn ry(a: f64) -> Quat {
    axis_angle(Vec3::Y, a)
}
/// Rotation about +Z.
pub fn rz(a: f64) -> Quat {
    axis_angle(Vec3::Z, a)
}

/// The rotation taking the orthonormal pair (`d0`, `p0`) to (`d`, `p`); `p` is first made
/// perpendicular to `d`. Built from matrices, so no trigonometry.
pub fn basis_rotation(d0: Vec3, p0: Vec3, d: Vec3, p: Vec3) -> Quat {
    let d = d.normalize();
    let mut p = p - d * p.dot(d);
    if p.length_squared() < 1e-10 {
        p = d.any_orthonormal_vector();
    }
    let p = p.normalize();
    let target = Mat3::from_cols(d, p, d.cross(p));
    let d0 = d0.normalize();
    let p0 = (p0 - d0 * p0.dot(d0)).normalize();
    let rest = Mat3::from_cols(d0, p0, d0.cross(p0));
    Quat::from_mat3(&(target * rest.transpose())).normalize()
}

/// Square root of a unit quaternion (half the rotation), no trigonometry.
pub fn half(q: Quat) -> Quat {
    let q = if q.w < 0.0 { -q } else { q };
    let h = Quat::from_xyzw(q.x, q.y, q.z, q.w + 1.0);
    if h.length_squared() < 1e-12 {
        Quat::IDENTITY
    } else {
        h.normalize()
    }
}

/// Normalised linear blend of two rotations (shortest path); `f` in [0, 1].
pub fn nlerp(a: Quat, b: Quat, f: f32) -> Quat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    (a * (1.0 - f) + b * f).normalize()
}

/// Cubic ease 0→1 on [0, 1], clamped outside.
pub fn smoothstep(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// Quintic ease (zero velocity and acceleration at both ends).
pub fn smootherstep(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    x * x * x * (x * (x * 6.0 - 15.0) + 10.0)
}

/// A smooth curve through `(time, value)` keys (Catmull-Rom tangents, clamped ends).
pub fn curve(keys: &[(f64, f64)], t: f64) -> f64 {
    match keys {
        [] => 0.0,
        [(_, v)] => *v,
        _ => {
            let n = keys.len();
            if t <= keys[0].0 {
                return keys[0].1;
            }
            if t >= keys[n - 1].0 {
                return keys[n - 1].1;
            }
            let i = keys
                .partition_point(|k| k.0 <= t)
                .saturating_sub(1)
                .min(n - 2);
            let (t0, v0) = keys[i];
            let (t1, v1) = keys[i + 1];
            let h = t1 - t0;
            let slope = |a: usize, b: usize| (keys[b].1 - keys[a].1) / (keys[b].0 - keys[a].0);
            let m0 = if i == 0 { 0.0 } else { slope(i - 1, i + 1) } * h;
            let m1 = if i + 2 >= n { 0.0 } else { slope(i, i + 2) } * h;
            let s = (t - t0) / h;
            let s2 = s * s;
            let s3 = s2 * s;
            (2.0 * s3 - 3.0 * s2 + 1.0) * v0
                + (s3 - 2.0 * s2 + s) * m0
                + (-2.0 * s3 + 3.0 * s2) * v1
                + (s3 - s2) * m1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomial_functions_match_libm() {
        for i in -200..200 {
            let x = i as f64 * 0.173;
            assert!((sin(x) - x.sin()).abs() < 1e-10, "sin {x}");
            assert!((cos(x) - x.cos()).abs() < 1e-10, "cos {x}");
            let e = (i as f64) * 0.05;
            assert!(
                (exp(e) - e.exp()).abs() < 1e-10 * e.exp().max(1.0),
                "exp {e}"
            );
        }
    }

    #[test]
    fn basis_rotation_maps_the_pair() {
        let q = basis_rotation(Vec3::NEG_Y, Vec3::Z, Vec3::new(1.0, -1.0, 0.3), Vec3::Z);
        let d = q * Vec3::NEG_Y;
        assert!((d - Vec3::new(1.0, -1.0, 0.3).normalize()).length() < 1e-5);
        let h = half(rx(1.0));
        assert!((h.to_axis_angle().1 - 0.5).abs() < 1e-5);
    }

    #[test]
    fn curve_passes_through_keys() {
        let k = [(0.0, 1.0), (1.0, 3.0), (2.0, 2.0)];
        assert!((curve(&k, 1.0) - 3.0).abs() < 1e-12);
        assert!((curve(&k, 0.0) - 1.0).abs() < 1e-12);
        assert!((curve(&k, 5.0) - 2.0).abs() < 1e-12);
    }
}
