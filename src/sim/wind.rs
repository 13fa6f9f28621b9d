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

/// The air a cloth moves through for one step: what [`triangle_wind`] needs besides the
/// positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Air {
    /// Wind velocity in the cloth's frame, m/s.
    pub wind: Vec3,
    /// Drag, 1/m (the fabric's `wind_drag`).
    pub drag: f32,
    /// The step, seconds: velocities are `(pos - prev) / dt`.
    pub dt: f32,
    /// The largest factor the caller will scale the result by (the edges' `edge_wind_scale`,
    /// at least 1), so the air's damping can be kept from overshooting there too.
    pub max_scale: f32,
}

/// Writes each particle's wind acceleration into `accel`: the area-weighted mean over its
/// triangles of `n̂ (c (n̂·w) - c' (n̂·v))`, where `w` is the wind velocity, `v` the triangle's
/// velocity (the mean of its corners'), `n̂` its unit normal, `c = drag |w|` and the weights a
/// third of each triangle's area.
///
/// The first term pushes along the normal and grows with the triangle's area and with the
/// cosine between the normal and the wind; a particle no triangle faces gets nothing. The
/// second is the air resisting the cloth's motion across the wind: a fabric flapping toward
/// the wind meets more of it and one moving with it less, which damps the flutter along the
/// normal at a rate `c` per second. It is taken implicitly, `c' = c / (1 + c s dt)` with `s`
/// the caller's largest scale, so even a gale at a low rate slows the motion along the normal
/// without reversing it. With no wind there is no air: both terms vanish. `area` is scratch of
/// one entry per particle.
pub fn triangle_wind(
    pos: &[Vec3],
    prev: &[Vec3],
    triangles: &[[u32; 3]],
    air: &Air,
    accel: &mut [Vec3],
    area: &mut [f32],
) {
    accel.fill(Vec3::ZERO);
    let speed = air.wind.length();
    if speed == 0.0 || air.drag == 0.0 || air.dt <= 0.0 {
        return;
    }
    let c = air.drag * speed;
    let c_motion = c / (1.0 + c * air.max_scale.max(1.0) * air.dt);
    let per_velocity = 1.0 / (3.0 * air.dt);
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
        let v = (pos[i] - prev[i] + pos[j] - prev[j] + pos[k] - prev[k]) * per_velocity;
        let f = unit * ((c * unit.dot(air.wind) - c_motion * unit.dot(v)) * share);
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

    /// Drag 1.5 at 60 Hz, no edge scale.
    fn still(wind: Vec3) -> Air {
        Air {
            wind,
            drag: 1.5,
            dt: 1.0 / 60.0,
            max_scale: 1.0,
        }
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
            &pos,
            &tris,
            &still(Vec3::new(0.0, 0.0, 2.0)),
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
        triangle_wind(&pos, &pos, &tris, &still(w), &mut acc, &mut area);
        assert!((acc[0] - Vec3::new(0.0, 0.0, 6.0 * FRAC_1_SQRT_2)).length() < 1e-5);
        // Edge-on wind gives nothing.
        triangle_wind(
            &pos,
            &pos,
            &tris,
            &still(Vec3::new(3.0, 0.0, 0.0)),
            &mut acc,
            &mut area,
        );
        assert!(acc.iter().all(|a| a.length() < 1e-7));
    }

    #[test]
    fn the_air_resists_motion_along_the_normal_without_reversing_it() {
        let pos = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let tris = [[0u32, 1, 2]];
        let (mut acc, mut area) = ([Vec3::ZERO; 3], [0.0; 3]);
        let wind = Vec3::new(0.0, 0.0, 2.0);
        let force = |prev: [Vec3; 3], air: &Air, acc: &mut [Vec3; 3], area: &mut [f32; 3]| {
            triangle_wind(&pos, &prev, &tris, air, acc, area);
            acc[0].z
        };
        let at_rest = force(pos, &still(wind), &mut acc, &mut area);
        // Moving with the wind (prev behind along +Z) it pushes less; against it, more.
        let back = pos.map(|p| p - Vec3::Z * 0.01);
        let ahead = pos.map(|p| p + Vec3::Z * 0.01);
        let with = force(back, &still(wind), &mut acc, &mut area);
        let against = force(ahead, &still(wind), &mut acc, &mut area);
        assert!(
            with < at_rest && at_rest < against,
            "{with} {at_rest} {against}"
        );
        // Motion along the surface meets no resistance.
        let sideways = pos.map(|p| p - Vec3::X * 0.01);
        assert_eq!(force(sideways, &still(wind), &mut acc, &mut area), at_rest);
        // A gale, the most drag and the lowest rate, with the edges' scale: one step takes away
        // less than the whole velocity along the normal, never more.
        let dt = 1.0 / 10.0;
        let gale = Air {
            wind: Vec3::new(100.0, 0.0, 0.0), // edge-on: only the damping acts
            drag: 50.0,
            dt,
            max_scale: 5.0,
        };
        let v = 3.0;
        let moving = pos.map(|p| p - Vec3::Z * v * dt);
        let a = force(moving, &gale, &mut acc, &mut area) * gale.max_scale;
        let v_after = v + a * dt;
        assert!(v_after > 0.0 && v_after < v, "{v} -> {v_after}");
        // No wind, no air.
        let calm = Air {
            wind: Vec3::ZERO,
            ..gale
        };
        assert_eq!(force(moving, &calm, &mut acc, &mut area), 0.0);
    }
}
