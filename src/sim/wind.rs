//! Wind as the cloth constraints and wind post (docs/references.md) models it: a force on each triangle of the cloth along its normal,
//! proportional to its area and to the cosine between the normal and the wind the triangle
//! meets (the wind minus the triangle's own velocity), shared by its three corners. The wind
//! is a steady world-space velocity with gusts that vary in time and across the cloth.

use glam::{Vec3, Vec3A, Vec4};

/// The steady wind in world space (m/s), before gusts: `direction_deg` turns around +Y, 0
/// blows toward +Z, 90 toward +X.
pub fn steady_wind(direction_deg: f32, speed: f32) -> Vec3 {
    if speed == 0.0 {
        return Vec3::ZERO;
    }
    let a = direction_deg.to_radians();
    Vec3::new(a.sin(), 0.0, a.cos()) * speed
}

/// Smooth noise in [-1, 1] with a period far longer than any clip (a sum of three
/// incommensurate sines), so the same argument gives the same value.
pub fn gust_noise(x: f64) -> f32 {
    Noise::at(x).plus(0.0)
}

/// The three sines of [`gust_noise`]: weight, turns per unit of the argument, phase (turns).
const NOISE_TERMS: [(f32, f64, f64); 3] = [
    (0.5, 1.0, 0.0),
    (0.3, 2.618, 1.3 / std::f64::consts::TAU),
    (0.2, 4.236, 2.9 / std::f64::consts::TAU),
];

/// [`gust_noise`] around an argument `x`, for arguments `x + d` with a small `d`: each sine's
/// phase at `x` is reduced to a fraction of a turn once (in f64, so an hour of simulated time
/// keeps it exact) and the rest is f32, cheap enough for every particle at every step.
struct Noise {
    phase: [f32; 3],
}

impl Noise {
    fn at(x: f64) -> Self {
        Self {
            phase: NOISE_TERMS.map(|(_, rate, phase)| {
                let p = x * rate + phase;
                (p - (p as i64) as f64) as f32
            }),
        }
    }

    /// The noise at `x + d` (`d` within a few: a garment is a metre or two across).
    #[inline]
    fn plus(&self, d: f32) -> f32 {
        let mut v = 0.0;
        for ((weight, rate, _), phase) in NOISE_TERMS.iter().zip(self.phase) {
            v += weight * sin_turns(phase + *rate as f32 * d);
        }
        v
    }

    /// [`Noise::plus`] at each of a block of offsets: term by term over the block, each
    /// offset's sum taken in the same order.
    #[inline(always)]
    fn plus_each(&self, d: [f32; LANES]) -> [f32; LANES] {
        let mut v = [0.0f32; LANES];
        for ((weight, rate, _), phase) in NOISE_TERMS.iter().zip(self.phase) {
            let rate = *rate as f32;
            let sines = sin_turns_each(std::array::from_fn(|l| phase + rate * d[l]));
            for (v, s) in v.iter_mut().zip(sines) {
                *v += weight * s;
            }
        }
        v
    }
}

/// Points per block in [`GustField::fill`]: two SSE registers, one AVX register.
const LANES: usize = 8;

/// `sin(2 pi x)` to within 4e-6 of the sine of the f32 `x`, in a few multiplications (the
/// callers keep `|x|` within a few tens of turns, where f32 holds it to 2e-6 of a turn). The
/// gusts are sampled at every particle every solver step, where the library's sine costs about
/// twice as much. Plain arithmetic, so the same on every machine.
#[inline(always)]
pub fn sin_turns(x: f32) -> f32 {
    // Into (-1, 1) turns, then [-0.5, 0.5], then folded into [-0.25, 0.25] (sin(2 pi a) =
    // sin(2 pi (0.5 - a))) where the series converges fast. No branches: the phases of
    // neighbouring particles fall either side at random. (A truncating conversion, not
    // `round`: without SSE4.1 that is a library call.)
    // Past 2^23 turns an f32 holds no fraction of a turn: no phase is left to take the sine
    // of (and the conversion below would saturate). A NaN ends here too.
    // A select, not a return: no branch in the sums of sines (the sine of 0 is 0, so the
    // result is the same).
    let x = if x.is_nan() || x.abs() >= 8_388_608.0 {
        0.0
    } else {
        x
    };
    let y = x - (x as i32) as f32;
    let y = y - ((y > 0.5) as i32 - (y < -0.5) as i32) as f32;
    let y = y.abs().min(0.5 - y.abs()).copysign(y);
    let z = y * std::f32::consts::TAU;
    let z2 = z * z;
    // Taylor to z^9: the first term left out is below (pi/2)^11 / 11! = 3.6e-6.
    z * (1.0 + z2 * (-1.0 / 6.0 + z2 * (1.0 / 120.0 + z2 * (-1.0 / 5040.0 + z2 / 362_880.0))))
}

/// [`sin_turns`] of each of a block of phases, the same bits: on x86-64 four at a time in SSE2
/// registers (every x86-64 CPU has them), the same operations in the same order, so the gusts
/// cost a quarter of the scalar sines (the compiler does not vectorise the scalar form's
/// conversion to an integer).
#[inline(always)]
fn sin_turns_each(x: [f32; LANES]) -> [f32; LANES] {
    #[cfg(target_arch = "x86_64")]
    {
        let mut out = [0.0f32; LANES];
        for (o, x) in out.chunks_exact_mut(4).zip(x.chunks_exact(4)) {
            o.copy_from_slice(&sse2::sin_turns4([x[0], x[1], x[2], x[3]]));
        }
        out
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        x.map(sin_turns)
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// [`super::sin_turns`] of four phases, step for step.
    #[inline(always)]
    pub(super) fn sin_turns4(x: [f32; 4]) -> [f32; 4] {
        // SAFETY: SSE2 is part of every x86-64 CPU; the loads and stores are unaligned ones
        // of four-element arrays.
        unsafe {
            let x = _mm_loadu_ps(x.as_ptr());
            let sign = _mm_set1_ps(-0.0);
            let abs = |v: __m128| _mm_andnot_ps(sign, v);
            let one = _mm_set1_ps(1.0);
            // NaN, or past 2^23 turns: 0 (`not less than` is also true of NaN).
            let dropped = _mm_cmpnlt_ps(abs(x), _mm_set1_ps(8_388_608.0));
            let x = _mm_andnot_ps(dropped, x);
            // Exact below 2^23, as `x as i32` there.
            let y = _mm_sub_ps(x, _mm_cvtepi32_ps(_mm_cvttps_epi32(x)));
            let up = _mm_and_ps(_mm_cmpgt_ps(y, _mm_set1_ps(0.5)), one);
            let down = _mm_and_ps(_mm_cmplt_ps(y, _mm_set1_ps(-0.5)), one);
            let y = _mm_sub_ps(y, _mm_sub_ps(up, down));
            // Neither operand is NaN and they are never both zero, so `minps` is `f32::min`.
            let folded = _mm_min_ps(abs(y), _mm_sub_ps(_mm_set1_ps(0.5), abs(y)));
            let y = _mm_or_ps(abs(folded), _mm_and_ps(sign, y));
            let z = _mm_mul_ps(y, _mm_set1_ps(std::f32::consts::TAU));
            let z2 = _mm_mul_ps(z, z);
            let c = |v: f32| _mm_set1_ps(v);
            let t = _mm_div_ps(z2, c(362_880.0));
            let t = _mm_mul_ps(z2, _mm_add_ps(c(-1.0 / 5040.0), t));
            let t = _mm_mul_ps(z2, _mm_add_ps(c(1.0 / 120.0), t));
            let t = _mm_mul_ps(z2, _mm_add_ps(c(-1.0 / 6.0), t));
            let r = _mm_mul_ps(z, _mm_add_ps(one, t));
            let mut out = [0.0f32; 4];
            _mm_storeu_ps(out.as_mut_ptr(), r);
            out
        }
    }
}

/// How wide a gust front is across the wind, metres: over this distance a gust's phase turns
/// a full cycle, so the two sides of a garment catch it at different moments.
pub const GUST_FRONT_WIDTH: f32 = 3.0;
/// Turbulence: eddies this many times as frequent as the gusts,
pub const EDDY_RATE: f64 = 3.1;
/// this size (metres: a full cycle of the noise over this distance),
pub const EDDY_SIZE: f32 = 0.35;
/// and this share of the gusts' strength.
pub const EDDY_SHARE: f32 = 0.25;

/// Gusts and turbulence: how the wind's speed varies in time and across the cloth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gust {
    /// Share of the steady speed a gust adds or takes away (`gust_amplitude`; 0: steady).
    pub amplitude: f32,
    /// Gusts per second (`gust_frequency`).
    pub frequency: f32,
    /// Simulation time, seconds.
    pub time: f64,
}

impl Gust {
    /// The factor on the steady speed at a point `along` metres downwind and `across` metres
    /// across the wind, for a wind of `speed` m/s; never negative. A gust front travels
    /// downwind at the wind's speed and is [`GUST_FRONT_WIDTH`] wide; eddies of [`EDDY_SIZE`]
    /// ride on it. The same time and place give the same factor.
    pub fn factor(&self, along: f32, across: f32, speed: f32) -> f32 {
        GustField::new(self, speed).at(along, across)
    }
}

/// [`Gust::factor`] with what is the same for every point worked out once per step.
struct GustField {
    amplitude: f32,
    /// The gust front's and the eddies' noise at the origin.
    front: Noise,
    eddy: Noise,
    /// Their arguments' change per metre downwind and across.
    front_along: f32,
    front_across: f32,
    eddy_along: f32,
    eddy_across: f32,
}

impl GustField {
    fn new(gust: &Gust, speed: f32) -> Self {
        let f = gust.frequency as f64;
        Self {
            amplitude: gust.amplitude,
            front: Noise::at(f * gust.time),
            eddy: Noise::at(EDDY_RATE * f * gust.time + 0.37),
            // A front reaches a point `along` metres downwind `along / speed` seconds later.
            front_along: -(gust.frequency / speed.max(0.1)),
            front_across: 1.0 / GUST_FRONT_WIDTH,
            eddy_along: 1.0 / EDDY_SIZE,
            eddy_across: 0.7 / EDDY_SIZE,
        }
    }

    /// The factor at each of `points` (its position downwind and across the wind read off
    /// along `downwind` and `across`) into `out`. Worked in blocks of [`LANES`] points, one
    /// arithmetic step at a time over the block, so the compiler can put a block in vector
    /// registers; each point's operations are [`GustField::at`]'s in the same order, so the
    /// same bits.
    fn fill(&self, points: &[Vec3], downwind: Vec3, across: Vec3, out: &mut [f32]) {
        if self.amplitude == 0.0 {
            out.fill(1.0);
            return;
        }
        let (mut along_at, mut across_at) = ([0.0f32; LANES], [0.0f32; LANES]);
        for (points, out) in points.chunks(LANES).zip(out.chunks_mut(LANES)) {
            for ((p, a), c) in points.iter().zip(&mut along_at).zip(&mut across_at) {
                (*a, *c) = (p.dot(downwind), p.dot(across));
            }
            let front = self.front.plus_each(std::array::from_fn(|l| {
                along_at[l] * self.front_along + across_at[l] * self.front_across
            }));
            let eddy = self.eddy.plus_each(std::array::from_fn(|l| {
                along_at[l] * self.eddy_along + across_at[l] * self.eddy_across
            }));
            for ((o, f), e) in out.iter_mut().zip(front).zip(eddy) {
                *o = self.factor(f, e);
            }
        }
    }

    /// The factor from the gust front's and the eddies' noise at a point.
    #[inline(always)]
    fn factor(&self, front: f32, eddy: f32) -> f32 {
        (1.0 + self.amplitude * ((1.0 - EDDY_SHARE) * front + EDDY_SHARE * eddy)).max(0.0)
    }

    #[inline]
    fn at(&self, along: f32, across: f32) -> f32 {
        if self.amplitude == 0.0 {
            return 1.0;
        }
        let front = self
            .front
            .plus(along * self.front_along + across * self.front_across);
        let eddy = self
            .eddy
            .plus(along * self.eddy_along + across * self.eddy_across);
        self.factor(front, eddy)
    }
}

/// The air a cloth moves through for one step: what [`triangle_wind`] needs besides the
/// cloth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Air {
    /// The steady wind in the cloth's frame, m/s.
    pub wind: Vec3,
    /// Gusts and turbulence on top of it.
    pub gust: Gust,
    /// Drag, 1/m (the fabric's `wind_drag`): the acceleration per (m/s)² of wind on cloth at
    /// its rest area facing the wind.
    pub drag: f32,
    /// The step, seconds: velocities are `(pos - prev) / dt`.
    pub dt: f32,
    /// The largest factor the caller will scale the result by (the edges' `edge_wind_scale`,
    /// at least 1), so the air's damping can be kept from overshooting there too.
    pub max_scale: f32,
}

/// Each particle's share of the cloth's area at rest, a third of each of its triangles': its
/// mass, which the wind's force is divided by. Particles of no triangle get 0. Computed once,
/// when the cloth is built.
pub fn rest_shares(rest: &[Vec3], triangles: &[[u32; 3]]) -> Vec<f32> {
    let mut out = vec![0.0; rest.len()];
    for tri in triangles {
        let [i, j, k] = tri.map(|v| v as usize);
        // The cross product's length is twice the triangle's area.
        let share = (rest[j] - rest[i]).cross(rest[k] - rest[i]).length() / 6.0;
        for v in [i, j, k] {
            out[v] += share;
        }
    }
    out
}

/// What [`triangle_wind`] reads besides the state: the triangles, each particle's rest
/// position (where it samples the gusts) and its rest share of area (its mass).
#[derive(Clone, Copy, Debug)]
pub struct WindMesh<'a> {
    /// The triangles, corner indices.
    pub triangles: &'a [[u32; 3]],
    /// Rest positions in the cloth's frame.
    pub rest: &'a [Vec3],
    /// [`rest_shares`] of the rest positions.
    pub rest_share: &'a [f32],
}

/// Scratch for [`triangle_wind`], one entry per particle, made with the cloth so the step
/// allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct WindScratch {
    /// The gust factor at each particle's rest position.
    gust: Vec<f32>,
    /// The wind's push, the sum over the particle's triangles of `c (A / 3) n̂ (n̂·w)`
    /// (`w` unused). Four lanes, so adding a triangle's share is one vector add. Zero
    /// between calls.
    push: Vec<Vec4>,
    /// The air's resistance to the motion, the sum of `c (A / 3) n̂ (n̂·v)`, and in `w` its
    /// rate, the sum of `c A / 3`.
    resist: Vec<Vec4>,
}

impl WindScratch {
    /// Scratch for `n` particles.
    pub fn new(n: usize) -> Self {
        Self {
            gust: vec![1.0; n],
            push: vec![Vec4::ZERO; n],
            resist: vec![Vec4::ZERO; n],
        }
    }
}

/// Writes each particle's wind acceleration into `accel`.
///
/// Each triangle, with area `A` and unit normal `n̂` at the current positions, meets the wind
/// `w = g w0` (`w0` the steady wind, `g` the mean gust factor of its corners) and moves at
/// `v` (the mean of its corners' velocities). It feels `F = c A n̂ (n̂·(w - v))` with
/// `c = drag |w|`: along the normal, proportional to its area and to the cosine between the
/// normal and the relative wind. A third goes to each corner, and a particle's acceleration
/// is its sum over its rest share of area (its mass): a triangle stretched to twice its area
/// catches twice the wind, one folded edge-on none.
///
/// The `-v` part is the air resisting the cloth's motion along the normal, at about `c` per
/// second. Taken explicitly it would reverse a velocity in one step in a gale at a low rate,
/// so it is taken implicitly per particle: with `R` the particle's rate (the sum of its
/// triangles' `c A / 3` over its rest share) and `s` the caller's largest scale, it is divided
/// by `1 + R s dt`, which slows the motion along the normal without reversing it. With no wind
/// there is no air: both parts vanish.
///
/// The gusts are sampled at the rest positions, not the current ones: where a particle is on
/// the garment decides its gust, and a millimetre of difference in the state does not change
/// the wind it meets (that would feed the chaos between two nearly equal runs).
pub fn triangle_wind(
    pos: &[Vec3],
    prev: &[Vec3],
    mesh: &WindMesh,
    air: &Air,
    accel: &mut [Vec3],
    scratch: &mut WindScratch,
) {
    let speed = air.wind.length();
    if speed == 0.0 || air.drag == 0.0 || air.dt <= 0.0 {
        accel.fill(Vec3::ZERO);
        return;
    }
    let downwind = air.wind / speed;
    let across = downwind.cross(Vec3::Y).normalize_or_zero();
    GustField::new(&air.gust, speed).fill(mesh.rest, downwind, across, &mut scratch.gust);
    let per_velocity = 1.0 / (3.0 * air.dt);
    let wind = Vec3A::from(air.wind);
    // Every per-particle slice cut to one length, so one bounds check of an index covers all
    // of them.
    let n = pos.len();
    let (prev, gusts, rest_share) = (&prev[..n], &scratch.gust[..n], &mesh.rest_share[..n]);
    let (sum_push, sum_resist) = (&mut scratch.push[..n], &mut scratch.resist[..n]);
    let accel = &mut accel[..n];
    // The vectors in 16-byte lanes: each lane does the arithmetic the scalar form would, in
    // the same order, so the bits are the same in fewer instructions.
    for tri in mesh.triangles {
        let [i, j, k] = tri.map(|v| v as usize);
        let (pi, pj, pk) = (
            Vec3A::from(pos[i]),
            Vec3A::from(pos[j]),
            Vec3A::from(pos[k]),
        );
        let normal = (pj - pi).cross(pk - pi);
        let len = normal.length();
        if len <= 1e-12 {
            continue;
        }
        let unit = normal / len;
        // A third of the area (the cross product's length is twice it) times the drag rate.
        let gust = (gusts[i] + gusts[j] + gusts[k]) / 3.0;
        let c_share = air.drag * speed * gust * len / 6.0;
        let q = |v: usize| Vec3A::from(prev[v]);
        let v = (pi - q(i) + pj - q(j) + pk - q(k)) * per_velocity;
        let push = (unit * (c_share * gust * unit.dot(wind))).extend(0.0);
        let resist = (unit * (c_share * unit.dot(v))).extend(c_share);
        for v in [i, j, k] {
            sum_push[v] += push;
            sum_resist[v] += resist;
        }
    }
    // The sums are read and left at zero for the next call in one walk (every slice is `n`
    // long, so the walk reaches every sum).
    let step = air.max_scale.max(1.0) * air.dt;
    let sums = sum_push.iter_mut().zip(sum_resist.iter_mut());
    for ((a, (push, resist)), &mass) in accel.iter_mut().zip(sums).zip(rest_share) {
        *a = if mass > 0.0 {
            let rate = resist.w / mass;
            (push.truncate() - resist.truncate() / (1.0 + rate * step)) / mass
        } else {
            Vec3::ZERO
        };
        (*push, *resist) = (Vec4::ZERO, Vec4::ZERO);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_1_SQRT_2;

    /// Drag 1.5 at 60 Hz, no edge scale, no gusts.
    fn still(wind: Vec3) -> Air {
        Air {
            wind,
            gust: Gust {
                amplitude: 0.0,
                frequency: 1.0,
                time: 0.0,
            },
            drag: 1.5,
            dt: 1.0 / 60.0,
            max_scale: 1.0,
        }
    }

    /// One right triangle in the XY plane, legs 1 m: area 0.5, normal +Z.
    const TRIANGLE: [Vec3; 3] = [Vec3::ZERO, Vec3::X, Vec3::Y];

    /// The acceleration of each corner of [`TRIANGLE`] (its rest pose) placed at `pos`,
    /// moving from `prev`.
    fn corners(pos: [Vec3; 3], prev: [Vec3; 3], air: &Air) -> [Vec3; 3] {
        let triangles = [[0u32, 1, 2]];
        let rest_share = rest_shares(&TRIANGLE, &triangles);
        let mesh = WindMesh {
            triangles: &triangles,
            rest: &TRIANGLE,
            rest_share: &rest_share,
        };
        let mut acc = [Vec3::ONE; 3];
        triangle_wind(&pos, &prev, &mesh, air, &mut acc, &mut WindScratch::new(3));
        acc
    }

    #[test]
    fn the_fast_sine_is_the_sine() {
        for i in -2000..2000 {
            let x = i as f32 * 0.0317 + 0.001;
            let want = (x as f64 * std::f64::consts::TAU).sin();
            assert!(
                (sin_turns(x) as f64 - want).abs() < 2e-5,
                "{x}: {}",
                sin_turns(x)
            );
        }
        // A phase too large to hold a fraction of a turn, or none at all, gives no push.
        for x in [1e7, -3e9, 1e30, f32::INFINITY, f32::NAN] {
            assert_eq!(sin_turns(x), 0.0, "{x}");
        }
        // An hour into the simulation the noise is still the sum of its sines.
        let x = 3600.0 * 0.7 + 0.125;
        let want: f64 = NOISE_TERMS
            .iter()
            .map(|(w, rate, phase)| *w as f64 * ((x * rate + phase) * std::f64::consts::TAU).sin())
            .sum();
        assert!(
            (gust_noise(x) as f64 - want).abs() < 1e-5,
            "{}",
            gust_noise(x)
        );
    }

    #[test]
    fn the_block_sine_gives_the_scalar_sines_bits() {
        let mut phases: Vec<f32> = (-40_000..40_000)
            .map(|i| i as f32 * 0.000_731 + 0.000_1)
            .collect();
        // Either side of every fold and cut, signed zeros, the largest phases kept and the
        // first dropped, and what is never a phase.
        for v in [
            0.25f32,
            0.5,
            0.75,
            1.0,
            8_388_607.5,
            8_388_608.0,
            1e30,
            f32::INFINITY,
        ] {
            for x in [v, -v] {
                phases.extend([
                    x,
                    f32::from_bits(x.to_bits() + 1),
                    f32::from_bits(x.to_bits() - 1),
                ]);
            }
        }
        phases.extend([0.0, -0.0, f32::NAN, f32::MIN_POSITIVE, -f32::MIN_POSITIVE]);
        for block in phases.chunks(LANES) {
            let mut x = [0.0f32; LANES];
            x[..block.len()].copy_from_slice(block);
            let got = sin_turns_each(x).map(f32::to_bits);
            assert_eq!(got, x.map(|x| sin_turns(x).to_bits()), "{x:?}");
        }
    }

    #[test]
    fn the_steady_wind_blows_where_its_direction_says() {
        let w = steady_wind(0.0, 4.0);
        assert!((w - Vec3::new(0.0, 0.0, 4.0)).length() < 1e-6);
        let w = steady_wind(90.0, 2.0);
        assert!((w - Vec3::new(2.0, 0.0, 0.0)).length() < 1e-6);
        assert_eq!(steady_wind(30.0, 0.0), Vec3::ZERO);
    }

    #[test]
    fn triangle_force_follows_normal_area_and_cosine() {
        assert_eq!(rest_shares(&TRIANGLE, &[[0, 1, 2]]), vec![0.5 / 3.0; 3]);
        // Face-on wind of 2 m/s, drag 1.5: a = 1.5 * 2 * 2 = 6 m/s² along +Z on each corner.
        for a in corners(TRIANGLE, TRIANGLE, &still(Vec3::new(0.0, 0.0, 2.0))) {
            assert!((a - Vec3::new(0.0, 0.0, 6.0)).length() < 1e-5, "{a}");
        }
        // At 45 degrees the force along the normal falls with the cosine.
        let w = Vec3::new(FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2) * 2.0;
        let a = corners(TRIANGLE, TRIANGLE, &still(w));
        assert!((a[0] - Vec3::new(0.0, 0.0, 6.0 * FRAC_1_SQRT_2)).length() < 1e-5);
        // Edge-on wind gives nothing.
        let a = corners(TRIANGLE, TRIANGLE, &still(Vec3::new(3.0, 0.0, 0.0)));
        assert!(a.iter().all(|a| a.length() < 1e-7));
    }

    #[test]
    fn a_stretched_triangle_catches_more_wind_with_its_area() {
        // Stretched 1.5 x both ways its area is 2.25 x and its corners' mass (their rest area)
        // is not: the push grows 2.25 x. A wind that ignored the area (a mean of the
        // triangles' normals) would leave it at 6 m/s².
        let face_on = still(Vec3::new(0.0, 0.0, 2.0));
        let stretched = TRIANGLE.map(|p| p * 1.5);
        for a in corners(stretched, stretched, &face_on) {
            assert!((a.z - 6.0 * 2.25).abs() < 1e-4, "{a}");
        }
        // Squeezed to half its area (one leg halved), half the push.
        let squeezed = [Vec3::ZERO, Vec3::X * 0.5, Vec3::Y];
        for a in corners(squeezed, squeezed, &face_on) {
            assert!((a.z - 3.0).abs() < 1e-4, "{a}");
        }
    }

    #[test]
    fn gusts_vary_in_time_and_across_the_cloth_and_repeat_exactly() {
        let gust = |time| Gust {
            amplitude: 0.5,
            frequency: 0.7,
            time,
        };
        // At one place over time: stronger and weaker, never reversed.
        let speeds: Vec<f32> = (0..400)
            .map(|i| gust(i as f64 * 0.05).factor(0.0, 0.0, 2.0))
            .collect();
        let (lo, hi) = speeds
            .iter()
            .fold((f32::MAX, 0f32), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        assert!(lo >= 0.5 - 1e-4 && hi <= 1.5 + 1e-4, "{lo} {hi}");
        assert!(hi - lo > 0.4, "gusts too weak: {lo}..{hi}");
        // At one moment, the two sides of a garment half a metre apart feel different wind.
        let apart = (0..100)
            .map(|i| {
                let g = gust(i as f64 * 0.1);
                (g.factor(0.0, -0.25, 2.0) - g.factor(0.0, 0.25, 2.0)).abs()
            })
            .fold(0f32, f32::max);
        assert!(apart > 0.1, "{apart}");
        // A gust travels downwind: what is at 0 m now is at 1 m half a second later (2 m/s),
        // up to the eddies.
        for i in 0..20 {
            let t = i as f64 * 0.37;
            let (now, later) = (
                gust(t).factor(0.0, 0.0, 2.0),
                gust(t + 0.5).factor(1.0, 0.0, 2.0),
            );
            assert!(
                (now - later).abs() <= 2.0 * 0.5 * EDDY_SHARE + 1e-4,
                "{now} {later}"
            );
        }
        assert_eq!(
            gust(1.23).factor(0.3, 0.1, 2.0),
            gust(1.23).factor(0.3, 0.1, 2.0)
        );
        let steady = Gust {
            amplitude: 0.0,
            ..gust(4.0)
        };
        assert_eq!(steady.factor(0.3, 0.2, 2.0), 1.0);
    }

    #[test]
    fn the_gusts_of_a_whole_cloth_are_each_points_own_bit_for_bit() {
        // 21 points: two whole blocks and a part one; some far out, where the phases are large.
        let points: Vec<Vec3> = (0..21)
            .map(|i| {
                let f = i as f32;
                Vec3::new(f * 0.173 - 1.4, f * -0.091, (f * 0.61).sin() * 40.0)
            })
            .collect();
        let (downwind, across) = (Vec3::new(0.6, 0.0, 0.8), Vec3::new(-0.8, 0.0, 0.6));
        for (amplitude, time) in [(0.4, 0.0), (0.9, 12.3), (1.0, 3601.7), (0.0, 5.0)] {
            let gust = Gust {
                amplitude,
                frequency: 0.3,
                time,
            };
            let field = GustField::new(&gust, 2.5);
            let mut out = vec![f32::NAN; points.len()];
            field.fill(&points, downwind, across, &mut out);
            for (p, got) in points.iter().zip(&out) {
                let want = gust.factor(p.dot(downwind), p.dot(across), 2.5);
                assert_eq!(got.to_bits(), want.to_bits(), "{p} at {time} s");
            }
        }
    }

    #[test]
    fn in_a_gusty_wind_one_side_of_a_sheet_is_pushed_harder_than_the_other() {
        // A flat 9 x 2 sheet 80 cm wide across a face-on wind, at rest: with a single gust for
        // the whole cloth every particle would get the same push.
        let topo = crate::sim::Topology::flat_grid(9, 2, 0.1, Vec3::new(-0.4, 1.0, 0.0));
        let rest_share = rest_shares(&topo.rest, &topo.triangles);
        let mesh = WindMesh {
            triangles: &topo.triangles,
            rest: &topo.rest,
            rest_share: &rest_share,
        };
        let mut scratch = WindScratch::new(topo.len());
        let mut acc = vec![Vec3::ZERO; topo.len()];
        let mut widest = 0f32;
        for i in 0..50 {
            let air = Air {
                gust: Gust {
                    amplitude: 0.6,
                    frequency: 0.7,
                    time: i as f64 * 0.1,
                },
                ..still(Vec3::new(0.0, 0.0, 2.5))
            };
            triangle_wind(&topo.rest, &topo.rest, &mesh, &air, &mut acc, &mut scratch);
            // With one gust for the whole cloth every particle at rest would get the same
            // acceleration.
            let (left, right) = (acc[9].length(), acc[17].length());
            widest = widest.max((left - right).abs() / left.max(right));
        }
        assert!(widest > 0.1, "left and right within {widest}");
    }

    #[test]
    fn the_air_resists_motion_along_the_normal_without_reversing_it() {
        let pos = TRIANGLE;
        let wind = Vec3::new(0.0, 0.0, 2.0);
        let force = |prev: [Vec3; 3], air: &Air| corners(pos, prev, air)[0].z;
        let at_rest = force(pos, &still(wind));
        // Moving with the wind (prev behind along +Z) it meets less of it; against it, more.
        let back = pos.map(|p| p - Vec3::Z * 0.01);
        let ahead = pos.map(|p| p + Vec3::Z * 0.01);
        let with = force(back, &still(wind));
        let against = force(ahead, &still(wind));
        assert!(
            with < at_rest && at_rest < against,
            "{with} {at_rest} {against}"
        );
        // Motion along the surface meets no resistance.
        let sideways = pos.map(|p| p - Vec3::X * 0.01);
        assert_eq!(force(sideways, &still(wind)), at_rest);
        // A gale, the most drag and the lowest rate, with the edges' scale: one step takes away
        // less than the whole velocity along the normal, never more.
        let dt = 1.0 / 10.0;
        let gale = Air {
            wind: Vec3::new(100.0, 0.0, 0.0), // edge-on: only the resistance acts
            drag: 50.0,
            dt,
            max_scale: 5.0,
            ..still(wind)
        };
        let v = 3.0;
        let moving = pos.map(|p| p - Vec3::Z * v * dt);
        let a = force(moving, &gale) * gale.max_scale;
        let v_after = v + a * dt;
        assert!(v_after > 0.0 && v_after < v, "{v} -> {v_after}");
        // Stretched to twice its size the triangle meets four times the air: still no reversal.
        let big = TRIANGLE.map(|p| p * 2.0);
        let big_moving = big.map(|p| p - Vec3::Z * v * dt);
        let a = corners(big, big_moving, &gale)[0].z * gale.max_scale;
        let v_after = v + a * dt;
        assert!(v_after > 0.0 && v_after < v, "{v} -> {v_after}");
        // No wind, no air.
        let calm = Air {
            wind: Vec3::ZERO,
            ..gale
        };
        assert_eq!(force(moving, &calm), 0.0);
    }
}
