//! Wind: a world-space velocity with a deterministic gust, and the per-triangle force model
//! (along the triangle's normal, proportional to its area and to the cosine between the normal
//! and the wind).

use glam::Vec3;

/// The wind velocity in world space (m/s) at simulation time `t` seconds.
///
/// `direction_deg` turns around +Y: 0 blows toward +Z, 90 toward +X. The gust multiplies the
/// speed by `1 + amplitude * g(t * frequency)` with `g` a smooth, deterministic noise in
/// [-1, 1] (a sum of three incommensurate sines), so the same time gives the same wind.
pub fn wind_velocity(
    direction_deg: f32,
    speed: f32,
    gust_amplitude: f32,
    gust_frequency: f32,
    t: f64,
) -> Vec3 {
    if speed == 0.0 {
        return Vec3::ZERO;
    }
    let a = direction_deg.to_radians();
    let dir = Vec3::new(a.sin(), 0.0, a.cos());
    let gust = gust_amplitude * gust_noise(t * gust_frequency as f64);
    dir * (speed * (1.0 + gust)).max(0.0)
}

/// Smooth noise in [-1, 1] with a period far longer than any clip.
pub fn gust_noise(x: f64) -> f32 {
    use std::f64::consts::TAU;
    let v = 0.5 * (TAU * x).sin()
        + 0.3 * (TAU * x * 2.618 + 1.3).sin()
        + 0.2 * (TAU * x * 4.236 + 2.9).sin();
    v as f32
}

/// Writes each particle's wind acceleration into `accel`: the area-weighted mean over its
/// triangles of `drag * (n̂·w) |w| n̂`, where `w` is the wind velocity (in the cloth's frame),
/// `n̂` a triangle's unit normal and the weights a third of each triangle's area. So the force
/// on a triangle points along its normal and grows with its area and with the cosine between
/// the normal and the wind; a particle no triangle faces gets nothing. `area` is scratch of one
/// entry per particle.
pub fn triangle_wind(
    pos: &[Vec3],
    triangles: &[[u32; 3]],
    wind: Vec3,
    drag: f32,
    accel: &mut [Vec3],
    area: &mut [f32],
) {
    accel.fill(Vec3::ZERO);
    let speed = wind.length();
    if speed == 0.0 || drag == 0.0 {
        return;
    }
    area.fill(0.0);
    for tri in triangles {
        let [i, j, k] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        // The cross product's length is twice the triangle's area.
        let n = (pos[j] - pos[i]).cross(pos[k] - pos[i]);
        let len = n.length();
        if len <= 1e-12 {
            continue;
        }
        let share = len / 6.0;
        let unit = n / len;
        let f = unit * (unit.dot(wind) * speed * drag * share);
        for v in [i, j, k] {
            accel[v] += f;
            area[v] += share;
        }
    }
    for (a, s) in accel.iter_mut().zip(area.iter()) {
        if *s > 0.0 {
            *a /= *s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_1_SQRT_2;

    #[test]
    fn direction_and_gust() {
        let w = wind_velocity(0.0, 4.0, 0.0, 1.0, 3.0);
        assert!((w - Vec3::new(0.0, 0.0, 4.0)).length() < 1e-6);
        let w = wind_velocity(90.0, 2.0, 0.0, 1.0, 0.0);
        assert!((w - Vec3::new(2.0, 0.0, 0.0)).length() < 1e-6);
        // The gust changes the speed over time but never reverses the wind.
        let speeds: Vec<f32> = (0..200)
            .map(|i| wind_velocity(0.0, 5.0, 0.5, 1.0, i as f64 * 0.05).length())
            .collect();
        let (lo, hi) = speeds
            .iter()
            .fold((f32::MAX, 0f32), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        assert!(lo >= 2.5 - 1e-4 && hi <= 7.5 + 1e-4, "{lo} {hi}");
        assert!(hi - lo > 2.0, "gust too weak: {lo}..{hi}");
        assert_eq!(
            wind_velocity(10.0, 5.0, 0.5, 1.0, 1.23),
            wind_velocity(10.0, 5.0, 0.5, 1.0, 1.23)
        );
    }

    #[test]
    fn triangle_force_follows_normal_area_and_cosine() {
        // One right triangle in the XY plane, legs 1 m: area 0.5, normal +Z.
        let pos = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let tris = [[0u32, 1, 2]];
        let mut acc = [Vec3::ONE; 3];
        let mut area = [0.0; 3];
        // Face-on wind of 2 m/s, drag 1.5: a = 1.5 * 2 * 2 = 6 m/s² along +Z on each vertex.
        triangle_wind(
            &pos,
            &tris,
            Vec3::new(0.0, 0.0, 2.0),
            1.5,
            &mut acc,
            &mut area,
        );
        for s in area {
            assert!((s - 0.5 / 3.0).abs() < 1e-6);
        }
        for a in acc {
            assert!((a - Vec3::new(0.0, 0.0, 6.0)).length() < 1e-5, "{a}");
        }
        // At 45 degrees the force along the normal falls with the cosine.
        let w = Vec3::new(FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2) * 2.0;
        triangle_wind(&pos, &tris, w, 1.5, &mut acc, &mut area);
        assert!((acc[0] - Vec3::new(0.0, 0.0, 6.0 * FRAC_1_SQRT_2)).length() < 1e-5);
        // Edge-on wind gives nothing.
        triangle_wind(
            &pos,
            &tris,
            Vec3::new(3.0, 0.0, 0.0),
            1.5,
            &mut acc,
            &mut area,
        );
        assert!(acc.iter().all(|a| a.length() < 1e-7));
    }
}
