//! The broad phase of the cloth's collisions: which colliders can reach which particles in a
//! solver step, worked out once per step so the per-particle tests skip the rest.
//!
//! The particles are taken in runs of [`RUN`] consecutive ones (along a row of the grid, so
//! close together). Each run gets a box holding every point its particles may be held to in
//! this step (each one's max-distance sphere around its reference point) and the set of
//! colliders whose bounding sphere (or plane) comes near that box. A point inside its run's
//! box is surely outside every other collider, which would hand it back unchanged, so
//! skipping them gives the same bits; a point outside the box (the relaxation can carry a
//! particle past its max distance before the clamp) is tested against every collider.
//!
//! The candidates of a point are then tested four at a time ([`Bounds`], kept with the runs):
//! each ellipsoid's map to its unit sphere rules out the points its push would leave alone,
//! and only the colliders left are pushed from.

use glam::Vec3;

use super::collision::push_out_chosen;
#[cfg(not(target_arch = "x86_64"))]
use super::collision::ray_misses_sphere;
use super::Collider;

/// Particles per run.
const RUN: usize = 8;
/// Most colliders one mask holds: with more, every point is tested against all.
pub(crate) const MASK_BITS: usize = u64::BITS as usize;

/// Colliders to test for one point: its run's, and the colliders' [`Bounds`] when the
/// candidates come from a broad phase.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidates<'a> {
    run: Run,
    bounds: Option<&'a Bounds>,
}

impl Candidates<'_> {
    /// Every collider, everywhere: no broad phase.
    pub(crate) const ALL: Candidates<'static> = Candidates {
        run: Run::ALL,
        bounds: None,
    };
}

/// The colliders that can reach a run of particles, and the region where that choice holds.
#[derive(Clone, Copy, Debug)]
struct Run {
    /// Bit `k`: collider `k` can reach points in the region.
    mask: u64,
    lo: Vec3,
    hi: Vec3,
}

impl Run {
    /// Every collider, everywhere.
    const ALL: Run = Run {
        mask: u64::MAX,
        lo: Vec3::NAN,
        hi: Vec3::NAN,
    };

    /// Whether the choice holds at `p` (never for [`Run::ALL`]: NaN compares false).
    #[inline(always)]
    fn covers(&self, p: Vec3) -> bool {
        p.cmpge(self.lo).all() && p.cmple(self.hi).all()
    }
}

/// A step's colliders (grown by the margin) in the form the pushes' first test takes, four
/// to a group in separate arrays, so one point is tested against four in a few vector
/// instructions: for an ellipsoid or a sphere the map to its unit sphere (the pushes' own map
/// up to rounding), which rules a point out where it lands surely outside. Only points the
/// collider's own push would hand back unchanged are ruled out, so pushing from the rest gives
/// the same bits.
#[derive(Clone, Debug, Default)]
pub struct Bounds {
    groups: Vec<BoundsGroup>,
    /// How many colliders, and the margin they are grown by.
    len: usize,
    margin: f32,
}

/// Four colliders' centres, unit maps (row `i`, column `j` at `m[3 * i + j]`) and thresholds.
/// A collider with no unit map (a capsule, a plane) has a NaN threshold, which no point is at
/// or past (it is always pushed from); an empty lane has minus infinity, which every point is.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
struct BoundsGroup {
    x: [f32; 4],
    y: [f32; 4],
    z: [f32; 4],
    m: [[f32; 4]; 9],
    threshold: [f32; 4],
    /// The squared radius of the bounding sphere, for rays (minus infinity where there is
    /// none: every ray misses).
    r2: [f32; 4],
}

impl Bounds {
    /// Room for `colliders` colliders, so updates up to that many allocate nothing.
    pub fn with_capacity(colliders: usize) -> Self {
        Self {
            groups: Vec::with_capacity(colliders.div_ceil(4)),
            ..Self::default()
        }
    }

    /// The bounds of `colliders` grown by `margin`, in place of the last ones.
    pub fn update(&mut self, colliders: &[Collider], margin: f32) {
        (self.len, self.margin) = (colliders.len(), margin);
        self.groups.clear();
        for four in colliders.chunks(4) {
            let mut g = BoundsGroup {
                x: [0.0; 4],
                y: [0.0; 4],
                z: [0.0; 4],
                m: [[0.0; 4]; 9],
                threshold: [f32::NEG_INFINITY; 4],
                r2: [f32::NEG_INFINITY; 4],
            };
            for (l, c) in four.iter().enumerate() {
                g.r2[l] = c
                    .bounding_sphere(margin)
                    .map_or(f32::NEG_INFINITY, |(_, r2)| r2);
                let Some((center, rows, threshold)) = c.unit_map(margin) else {
                    g.threshold[l] = f32::NAN;
                    continue;
                };
                (g.x[l], g.y[l], g.z[l]) = (center.x, center.y, center.z);
                for (i, row) in rows.iter().enumerate() {
                    for j in 0..3 {
                        g.m[3 * i + j][l] = row[j];
                    }
                }
                g.threshold[l] = threshold;
            }
            self.groups.push(g);
        }
    }

    /// Whether these are the bounds of `colliders` (as many, at most [`MASK_BITS`]) grown by
    /// `margin`.
    fn fit(&self, colliders: &[Collider], margin: f32) -> bool {
        self.len == colliders.len() && self.len <= MASK_BITS && self.margin == margin
    }

    /// The furthest point (metres from `p`, at least 0) where the ray from `p` along the unit
    /// vector `dir` leaves any of `colliders[among]` grown by `margin`: the largest
    /// [`Collider::exit_along`], the bounding spheres tested four at a time with the same
    /// arithmetic where these are the bounds of `colliders` and `margin`.
    pub fn furthest_exit(
        &self,
        colliders: &[Collider],
        among: std::ops::Range<usize>,
        p: Vec3,
        dir: Vec3,
        margin: f32,
    ) -> f32 {
        let among = among.start.min(colliders.len())..among.end.min(colliders.len());
        if !self.fit(colliders, margin) {
            return (colliders[among].iter())
                .filter_map(|c| c.exit_along(p, dir, margin))
                .fold(0.0, f32::max);
        }
        let among_bits = low_bits(among.end) & !low_bits(among.start);
        let mut t = 0.0f32;
        for (k, g) in self.groups.iter().enumerate() {
            let mut hit = !g.rays_miss(p, dir) & (among_bits >> (4 * k)) & 0xF;
            while hit != 0 {
                let l = hit.trailing_zeros() as usize;
                hit &= hit - 1;
                if let Some(e) = colliders[4 * k + l].exit_along_past_bound(p, dir, margin) {
                    t = t.max(e);
                }
            }
        }
        t
    }

    /// Of the colliders in `among` (bit `k`: collider `k`), those that do not rule `p` out:
    /// the ones to push it from.
    #[inline(always)]
    fn holding(&self, p: Vec3, among: u64) -> u64 {
        let mut near = 0u64;
        for (k, g) in self.groups.iter().enumerate() {
            let shift = 4 * k;
            if (among >> shift) & 0xF == 0 {
                continue;
            }
            near |= (!g.outside(p) & 0xF) << shift;
        }
        near & among
    }
}

impl BoundsGroup {
    /// Bit `l`: `p` is surely outside collider `l`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn outside(&self, p: Vec3) -> u64 {
        use std::arch::x86_64::*;
        // SAFETY: SSE is part of every x86_64 CPU; the loads read the group's own 16-byte
        // aligned arrays.
        unsafe {
            let load = |a: &[f32; 4]| _mm_load_ps(a.as_ptr());
            let d = |c: &[f32; 4], v: f32| _mm_sub_ps(_mm_set1_ps(v), load(c));
            let (dx, dy, dz) = (d(&self.x, p.x), d(&self.y, p.y), d(&self.z, p.z));
            let q = |i: usize| {
                let (a, b, c) = (
                    load(&self.m[3 * i]),
                    load(&self.m[3 * i + 1]),
                    load(&self.m[3 * i + 2]),
                );
                _mm_add_ps(
                    _mm_add_ps(_mm_mul_ps(a, dx), _mm_mul_ps(b, dy)),
                    _mm_mul_ps(c, dz),
                )
            };
            let (q0, q1, q2) = (q(0), q(1), q(2));
            let len2 = _mm_add_ps(
                _mm_add_ps(_mm_mul_ps(q0, q0), _mm_mul_ps(q1, q1)),
                _mm_mul_ps(q2, q2),
            );
            _mm_movemask_ps(_mm_cmpge_ps(len2, load(&self.threshold))) as u64
        }
    }

    /// Bit `l`: the ray from `p` along `dir` misses sphere `l`
    /// ([`crate::sim::collision::ray_misses_sphere`]).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn rays_miss(&self, p: Vec3, dir: Vec3) -> u64 {
        use std::arch::x86_64::*;
        // SAFETY: as in `outside`.
        unsafe {
            let load = |a: &[f32; 4]| _mm_load_ps(a.as_ptr());
            let d = |c: &[f32; 4], v: f32| _mm_sub_ps(load(c), _mm_set1_ps(v));
            let (tx, ty, tz) = (d(&self.x, p.x), d(&self.y, p.y), d(&self.z, p.z));
            let dot = |x: __m128, y: __m128, z: __m128| {
                _mm_add_ps(
                    _mm_add_ps(_mm_mul_ps(tx, x), _mm_mul_ps(ty, y)),
                    _mm_mul_ps(tz, z),
                )
            };
            let along = dot(_mm_set1_ps(dir.x), _mm_set1_ps(dir.y), _mm_set1_ps(dir.z));
            let d2 = dot(tx, ty, tz);
            let r2 = load(&self.r2);
            let wide = _mm_cmpgt_ps(_mm_sub_ps(d2, _mm_mul_ps(along, along)), r2);
            let behind = _mm_and_ps(_mm_cmplt_ps(along, _mm_setzero_ps()), _mm_cmpgt_ps(d2, r2));
            _mm_movemask_ps(_mm_or_ps(wide, behind)) as u64
        }
    }

    /// Bit `l`: the ray from `p` along `dir` misses sphere `l`
    /// ([`crate::sim::collision::ray_misses_sphere`]).
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn rays_miss(&self, p: Vec3, dir: Vec3) -> u64 {
        let mut miss = 0;
        for l in 0..4 {
            let to_center = Vec3::new(self.x[l], self.y[l], self.z[l]) - p;
            miss |= (ray_misses_sphere(to_center, dir, self.r2[l]) as u64) << l;
        }
        miss
    }

    /// Bit `l`: `p` is surely outside collider `l`.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn outside(&self, p: Vec3) -> u64 {
        let mut outside = 0;
        for l in 0..4 {
            let d = [p.x - self.x[l], p.y - self.y[l], p.z - self.z[l]];
            let q = |i: usize| (0..3).map(|j| self.m[3 * i + j][l] * d[j]).sum::<f32>();
            let len2 = (0..3).map(|i| q(i) * q(i)).sum::<f32>();
            outside |= ((len2 >= self.threshold[l]) as u64) << l;
        }
        outside
    }
}

/// Colliders grown by `margin`, with their [`Bounds`] when the caller has them (bounds made
/// for other colliders or another margin are not used): what the searches on the rest-length
/// sphere test points against.
#[derive(Clone, Copy, Debug)]
pub struct Shapes<'a> {
    /// The colliders, in the frame the points are given in.
    pub colliders: &'a [Collider],
    /// Added to every collider's size, metres.
    pub margin: f32,
    /// Their [`Bounds`] for `margin` ([`Bounds::update`]), or `None`.
    pub bounds: Option<&'a Bounds>,
}

impl<'a> Shapes<'a> {
    /// `colliders` grown by `margin`, without bounds.
    pub fn plain(colliders: &'a [Collider], margin: f32) -> Self {
        Self {
            colliders,
            margin,
            bounds: None,
        }
    }

    /// Whether `x` is outside every collider (no push moves it); with bounds for these
    /// colliders and margin, only those that do not rule it out are tried.
    pub fn clear(&self, x: Vec3) -> bool {
        let (colliders, margin) = (self.colliders, self.margin);
        match self.bounds {
            Some(b) if b.fit(colliders, margin) => {
                set_bits(b.holding(x, low_bits(colliders.len())))
                    .all(|k| colliders[k].push_out_near(x, margin) == x)
            }
            _ => colliders.iter().all(|c| c.push_out(x, margin) == x),
        }
    }

    /// How deep `x` is inside the colliders (metres, 0 outside them all): the largest
    /// [`Collider::penetration`], with bounds for these colliders and margin only those that
    /// do not rule it out measured (the rest would say 0).
    pub fn deepest(&self, x: Vec3) -> f32 {
        let (colliders, margin) = (self.colliders, self.margin);
        let depth = |c: &Collider| c.penetration(x, margin);
        match self.bounds {
            Some(b) if b.fit(colliders, margin) => {
                set_bits(b.holding(x, low_bits(colliders.len())))
                    .map(|k| depth(&colliders[k]))
                    .fold(0.0, f32::max)
            }
            _ => colliders.iter().map(depth).fold(0.0, f32::max),
        }
    }
}

/// The indices of the bits set in `mask`, lowest first.
fn set_bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            k
        })
    })
}

/// Each run's [`Candidates`] for one solver step, for colliders grown by the bounds' margin.
#[derive(Clone, Debug)]
pub(crate) struct Broad {
    runs: Vec<Run>,
    bounds: Bounds,
    /// The step's colliders' reach, in collider order (scratch, sized once).
    reach: Vec<Reach>,
}

impl Broad {
    /// Room for `n` particles; every run tests every collider until [`Broad::update`].
    pub(crate) fn new(n: usize) -> Self {
        Self {
            runs: vec![Run::ALL; n.div_ceil(RUN)],
            // As many as a mask holds: more are tested one by one.
            bounds: Bounds::with_capacity(MASK_BITS),
            reach: Vec::with_capacity(MASK_BITS),
        }
    }

    /// The runs' boxes around the max-distance spheres of `reference` and `max_distance`, and
    /// the colliders (grown by `margin`) that come near each.
    pub(crate) fn update(
        &mut self,
        reference: &[Vec3],
        max_distance: &[f32],
        colliders: &[Collider],
        margin: f32,
    ) {
        self.bounds.update(colliders, margin);
        self.reach.clear();
        let usable = colliders.len() <= MASK_BITS && reference.len() == max_distance.len();
        if usable {
            self.reach
                .extend(colliders.iter().map(|c| Reach::of(c, margin)));
        }
        for (k, run) in self.runs.iter_mut().enumerate() {
            let range = k * RUN..((k + 1) * RUN).min(reference.len());
            if !usable || range.is_empty() {
                *run = Run::ALL;
                continue;
            }
            let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
            for (r, &md) in reference[range.clone()].iter().zip(&max_distance[range]) {
                lo = lo.min(*r - Vec3::splat(md));
                hi = hi.max(*r + Vec3::splat(md));
            }
            let mask = self
                .reach
                .iter()
                .enumerate()
                .filter(|(_, r)| r.meets(lo, hi))
                .fold(0u64, |m, (i, _)| m | 1 << i);
            *run = if lo.is_finite() && hi.is_finite() {
                Run { mask, lo, hi }
            } else {
                Run::ALL
            };
        }
    }

    /// This step's colliders in the form tested four at a time.
    pub(crate) fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// The colliders that can reach the segment from `p` to `q`, the positions of particles
    /// `i` and `j`, grown by `margin`: bit `k` for collider `k`. The choice of a run whose box
    /// holds both ends (so the whole segment: a collider left out has no point of its
    /// bounding sphere there, and [`Collider::link_push`] would leave the link alone); every
    /// bit where neither does, for another margin, and past [`MASK_BITS`] colliders (the
    /// caller tests those always).
    #[inline]
    pub(crate) fn of_segment(&self, i: usize, j: usize, p: Vec3, q: Vec3, margin: f32) -> u64 {
        [i, j]
            .into_iter()
            .map(|k| self.of(k, margin).run)
            .find(|run| run.covers(p) && run.covers(q))
            .map_or(u64::MAX, |run| run.mask)
    }

    /// Particle `i`'s candidates for colliders grown by `margin` ([`Candidates::ALL`] for
    /// another margin or an index past the runs).
    #[inline(always)]
    pub(crate) fn of(&self, i: usize, margin: f32) -> Candidates<'_> {
        match self.runs.get(i / RUN) {
            Some(&run) if margin == self.bounds.margin => Candidates {
                run,
                bounds: Some(&self.bounds),
            },
            _ => Candidates::ALL,
        }
    }
}

/// A mask of the first `n` colliders.
fn low_bits(n: usize) -> u64 {
    if n >= MASK_BITS {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

/// Where a collider grown by the margin can reach, worked out once a step and tested against
/// every run's box. Errs toward reaching: the bound is widened by a thousandth (and 10 um),
/// far more than rounding in the exact tests could take back.
#[derive(Clone, Copy, Debug)]
enum Reach {
    /// Within `radius` of `center`.
    Ball { center: Vec3, radius: f32 },
    /// Behind the plane through `point` facing `normal`, or less than `slack` in front of it.
    HalfSpace {
        point: Vec3,
        normal: Vec3,
        slack: f32,
    },
    /// Anywhere (a shape with a non-finite centre).
    Everywhere,
}

impl Reach {
    fn of(c: &Collider, margin: f32) -> Reach {
        let slack = |r: f32| r * 1.001 + 1e-5;
        let ball = |center: Vec3, radius: f32| {
            if center.is_finite() {
                Reach::Ball { center, radius }
            } else {
                Reach::Everywhere
            }
        };
        match *c {
            Collider::Ellipsoid { center, radii, .. } => {
                ball(center, slack(radii.max_element() + margin))
            }
            Collider::Sphere { center, radius } => ball(center, slack(radius + margin)),
            Collider::Capsule { a, b, radius } => {
                let bound = 0.5 * a.distance(b) + radius + margin;
                ball((a + b) * 0.5, slack(bound))
            }
            Collider::Plane { point, normal } => Reach::HalfSpace {
                point,
                normal,
                slack: slack(margin.abs()),
            },
        }
    }

    /// Whether any point of the box `lo`..`hi` may lie within reach.
    #[inline(always)]
    fn meets(&self, lo: Vec3, hi: Vec3) -> bool {
        match *self {
            Reach::Ball { center, radius } => {
                center.clamp(lo, hi).distance_squared(center) <= radius * radius
            }
            Reach::HalfSpace {
                point,
                normal,
                slack,
            } => {
                // The box's corner furthest toward the blocked side.
                let corner = Vec3::select(normal.cmpge(Vec3::ZERO), lo, hi);
                (corner - point).dot(normal) < slack
            }
            Reach::Everywhere => true,
        }
    }
}

/// `p` pushed out of `colliders` in order, as [`Collider::push_out_toward`] (with an `anchor`)
/// or [`Collider::push_out`] each would: only the candidates while `p` stays where they hold,
/// every collider once a push takes it out of there. Returns the point and whether any
/// collider moved it.
#[inline(always)]
pub(crate) fn push_out_each(
    colliders: &[Collider],
    candidates: Candidates,
    p: Vec3,
    anchor: Option<Vec3>,
    margin: f32,
) -> (Vec3, bool) {
    match candidates.bounds {
        Some(bounds) if bounds.fit(colliders, margin) => {
            push_out_holding(colliders, candidates, bounds, p, anchor, margin)
        }
        _ => push_out_one_by_one(colliders, candidates, p, anchor, margin),
    }
}

/// [`push_out_each`] with the [`Bounds`] tested four at a time: the colliders are pushed from
/// in the same order, each one that does not rule out the point where it then is.
#[inline(always)]
fn push_out_holding(
    colliders: &[Collider],
    candidates: Candidates,
    bounds: &Bounds,
    mut p: Vec3,
    anchor: Option<Vec3>,
    margin: f32,
) -> (Vec3, bool) {
    let every = low_bits(colliders.len());
    let among = |skipping: bool| {
        if skipping {
            candidates.run.mask & every
        } else {
            every
        }
    };
    let mut skipping = candidates.run.covers(p);
    let mut todo = bounds.holding(p, among(skipping));
    let mut touched = false;
    while todo != 0 {
        let k = todo.trailing_zeros() as usize;
        let c = &colliders[k];
        let y = match anchor {
            Some(a) => c.push_out_toward_near(p, a, margin),
            None => c.push_out_near(p, margin),
        };
        // The colliders after `k`.
        let later = (u64::MAX - 1) << k;
        if y != p {
            touched = true;
            p = y;
            skipping = skipping && candidates.run.covers(p);
            todo = bounds.holding(p, among(skipping) & later);
        } else {
            todo &= later;
        }
    }
    (p, touched)
}

/// [`crate::sim::collision::push_out_all`] with the [`Bounds`] of `colliders` at hand (from
/// [`Bounds::update`] with the same colliders and margin; others are ignored): the same point,
/// each sweep testing four colliders at a time.
// Used by the rig alone (`sim` re-exports it to the crate with the `rig` feature).
#[cfg_attr(not(feature = "rig"), allow(dead_code))]
pub fn push_out_all_among(
    colliders: &[Collider],
    bounds: &Bounds,
    p: Vec3,
    anchor: Option<Vec3>,
    margin: f32,
    sweeps: usize,
) -> Vec3 {
    push_out_masked(colliders, bounds, u64::MAX, p, anchor, margin, sweeps)
}

/// [`push_out_all_among`] over the colliders whose bit is set in `mask` (bit `k`: collider
/// `k`), in order, as sweeps of [`Collider::push_out`] over just those would.
// Used by the rig alone (`sim` re-exports it to the crate with the `rig` feature).
#[cfg_attr(not(feature = "rig"), allow(dead_code))]
pub fn push_out_masked(
    colliders: &[Collider],
    bounds: &Bounds,
    mask: u64,
    mut p: Vec3,
    anchor: Option<Vec3>,
    margin: f32,
    sweeps: usize,
) -> Vec3 {
    if !bounds.fit(colliders, margin) {
        return push_out_chosen(colliders, mask, p, anchor, margin, sweeps);
    }
    // A region holding every point: the mask always applies.
    let every = Candidates {
        run: Run {
            mask,
            lo: Vec3::NEG_INFINITY,
            hi: Vec3::INFINITY,
        },
        bounds: Some(bounds),
    };
    for _ in 0..sweeps {
        let start = p;
        p = push_out_holding(colliders, every, bounds, p, anchor, margin).0;
        if p == start {
            break;
        }
    }
    p
}

/// [`push_out_each`] one collider at a time.
#[inline(always)]
fn push_out_one_by_one(
    colliders: &[Collider],
    candidates: Candidates,
    mut p: Vec3,
    anchor: Option<Vec3>,
    margin: f32,
) -> (Vec3, bool) {
    let mut skipping = colliders.len() <= MASK_BITS && candidates.run.covers(p);
    let mut touched = false;
    for (k, c) in colliders.iter().enumerate() {
        if skipping && candidates.run.mask & (1 << k) == 0 {
            continue;
        }
        let y = match anchor {
            Some(a) => c.push_out_toward(p, a, margin),
            None => c.push_out(p, margin),
        };
        if y != p {
            touched = true;
            p = y;
            skipping = skipping && candidates.run.covers(p);
        }
    }
    (p, touched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::collision::push_out_all;
    use glam::Quat;

    /// Pseudo-random numbers in [0, 1), the same every run.
    fn lcg(seed: &mut u64) -> f32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A point in the cube of side `scale` around the origin.
    fn v(s: &mut u64, scale: f32) -> Vec3 {
        Vec3::new(lcg(s) - 0.5, lcg(s) - 0.5, lcg(s) - 0.5) * scale
    }

    /// Twelve colliders of every kind scattered over a 2 m cube.
    fn mixed_colliders(seed: &mut u64) -> Vec<Collider> {
        (0..12)
            .map(|k| match k % 4 {
                0 => Collider::Ellipsoid {
                    center: v(seed, 2.0),
                    rotation: Quat::from_rotation_y(k as f32),
                    radii: Vec3::new(0.1, 0.25, 0.15),
                },
                1 => Collider::Sphere {
                    center: v(seed, 2.0),
                    radius: 0.2,
                },
                2 => Collider::Capsule {
                    a: v(seed, 2.0),
                    b: v(seed, 2.0),
                    radius: 0.1,
                },
                _ => Collider::Plane {
                    point: Vec3::new(0.0, -0.8, 0.0),
                    normal: Vec3::Y,
                },
            })
            .collect()
    }

    #[test]
    fn the_deepest_penetration_with_bounds_is_every_colliders_own() {
        let mut seed = 11;
        let colliders = mixed_colliders(&mut seed);
        let mut bounds = Bounds::default();
        bounds.update(&colliders, 0.0);
        let with = Shapes {
            colliders: &colliders,
            margin: 0.0,
            bounds: Some(&bounds),
        };
        let without = Shapes::plain(&colliders, 0.0);
        let mut inside = 0;
        for _ in 0..20_000 {
            let p = v(&mut seed, 2.4);
            let every = colliders.iter().map(|c| c.penetration(p, 0.0));
            let deepest = every.fold(0.0, f32::max);
            assert_eq!(with.deepest(p).to_bits(), deepest.to_bits(), "at {p}");
            assert_eq!(without.deepest(p).to_bits(), deepest.to_bits(), "at {p}");
            inside += (deepest > 0.0) as usize;
        }
        // Points inside shapes were met, not only points outside them all.
        assert!(inside > 1000, "{inside}");
    }

    #[test]
    fn the_broad_phase_moves_every_point_exactly_as_testing_every_collider_does() {
        let mut seed = 7;
        let colliders = mixed_colliders(&mut seed);
        let n = 400;
        // Runs of neighbours, as along a row of a garment.
        let mut base = Vec3::ZERO;
        let reference: Vec<Vec3> = (0..n)
            .map(|i| {
                if i % RUN == 0 {
                    base = v(&mut seed, 2.0);
                }
                base + v(&mut seed, 0.1)
            })
            .collect();
        let max_distance: Vec<f32> = (0..n).map(|_| 0.2 * lcg(&mut seed)).collect();
        let margin = 0.02;
        let mut broad = Broad::new(n);
        broad.update(&reference, &max_distance, &colliders, margin);
        let (mut skipped, mut moved) = (0, 0);
        for i in 0..n {
            // Points inside their max-distance sphere and, now and then, past it.
            let reach = if i % 5 == 0 { 3.0 } else { 1.0 };
            let p = reference[i] + v(&mut seed, 2.0 * reach * max_distance[i]);
            let c = broad.of(i, margin);
            skipped += colliders.len() - c.run.mask.count_ones() as usize;
            for anchor in [None, Some(reference[i])] {
                let all = push_out_each(&colliders, Candidates::ALL, p, anchor, margin);
                let some = push_out_each(&colliders, c, p, anchor, margin);
                assert_eq!(
                    all.0.to_array().map(f32::to_bits),
                    some.0.to_array().map(f32::to_bits)
                );
                assert_eq!(all.1, some.1);
                moved += all.1 as usize;
            }
        }
        // The test means something: colliders were skipped and points were pushed.
        assert!(skipped > n * colliders.len() / 2, "{skipped}");
        assert!(moved > 10, "{moved}");
        // Another margin: no broad phase.
        assert_eq!(broad.of(0, 0.5).run.mask, u64::MAX);
        // Sweeps over every collider, their bounds tested four at a time: the same points.
        let mut bounds = Bounds::default();
        bounds.update(&colliders, margin);
        let mut pushed = 0;
        let mut masked_pushes = 0;
        let chosen_by = |mask: u64| -> Vec<Collider> {
            (colliders.iter().enumerate())
                .filter(|(k, _)| mask & (1 << k) != 0)
                .map(|(_, c)| *c)
                .collect()
        };
        for &r in &reference {
            let p = r + v(&mut seed, 0.6);
            for anchor in [None, Some(r)] {
                let want = push_out_all(&colliders, p, anchor, margin, 4);
                let got = push_out_all_among(&colliders, &bounds, p, anchor, margin, 4);
                assert_eq!(
                    want.to_array().map(f32::to_bits),
                    got.to_array().map(f32::to_bits)
                );
                pushed += (want != p) as usize;
                // Whether a point is clear, with and without the bounds: the same answer.
                let shapes = |bounds| Shapes {
                    colliders: &colliders,
                    margin,
                    bounds,
                };
                assert_eq!(shapes(Some(&bounds)).clear(p), shapes(None).clear(p));
                // Bounds grown by another margin are not used.
                let other = push_out_all_among(&colliders, &bounds, p, anchor, 0.03, 4);
                assert_eq!(other, push_out_all(&colliders, p, anchor, 0.03, 4));
                // Seven of the twelve, in order: as sweeps over just those.
                let (mask, chosen) = (0b1010_0110_1101u64, chosen_by(0b1010_0110_1101));
                let want = push_out_all(&chosen, p, anchor, margin, 2);
                let got = push_out_masked(&colliders, &bounds, mask, p, anchor, margin, 2);
                assert_eq!(
                    want.to_array().map(f32::to_bits),
                    got.to_array().map(f32::to_bits)
                );
                masked_pushes += (want != p) as usize;
            }
        }
        assert!(pushed > 20, "{pushed}");
        assert!(masked_pushes > 10, "{masked_pushes}");
        // Rays out of the colliders, against a run of them: the same furthest exit.
        let mut exits = 0;
        for (i, &r) in reference.iter().enumerate() {
            let p = r + v(&mut seed, 0.6);
            let dir = v(&mut seed, 1.0).normalize_or(Vec3::X);
            let among = i % 5..12 - i % 3;
            let want = (colliders[among.clone()].iter())
                .filter_map(|c| c.exit_along(p, dir, margin))
                .fold(0.0, f32::max);
            let got = bounds.furthest_exit(&colliders, among.clone(), p, dir, margin);
            assert_eq!(want.to_bits(), got.to_bits(), "{p} {dir} {among:?}");
            exits += (want > 0.0) as usize;
        }
        assert!(exits > 20, "{exits}");
    }

    #[test]
    fn a_collider_rules_out_only_points_its_pushes_leave_alone() {
        let mut seed = 11;
        let mut u = || lcg(&mut seed);
        let (mut ruled_out, mut near_surface) = (0, 0);
        for k in 0..400 {
            // Long thin ellipsoids as well as round ones, turned every way, a few with a
            // rotation a little off unit length.
            let radii = Vec3::new(0.02 + u() * 0.3, 0.02 + u() * 0.05, 0.02 + u() * 0.2);
            let axis = Vec3::new(u() - 0.5, u() - 0.5, u() - 0.5).normalize_or(Vec3::Y);
            let rotation = Quat::from_axis_angle(axis, u() * 6.3) * (1.0 + (k % 3) as f32 * 1e-6);
            let center = Vec3::new(u() - 0.5, u() + 0.5, u() - 0.5);
            let margin = 0.01 * (k % 4) as f32;
            let c = if k % 5 == 4 {
                Collider::Sphere {
                    center,
                    radius: radii.x,
                }
            } else {
                Collider::Ellipsoid {
                    center,
                    rotation,
                    radii,
                }
            };
            let mut bounds = Bounds::default();
            bounds.update(&[c], margin);
            let grown = match c {
                Collider::Sphere { radius, .. } => Vec3::splat(radius + margin),
                _ => radii + Vec3::splat(margin),
            };
            let turn = match c {
                Collider::Sphere { .. } => Quat::IDENTITY,
                _ => rotation,
            };
            for _ in 0..50 {
                // Points on shells from just inside to well outside the grown surface.
                let dir = Vec3::new(u() - 0.5, u() - 0.5, u() - 0.5).normalize_or(Vec3::X);
                let scale = 0.98 + 0.06 * u();
                let p = center + turn * (dir * grown * scale);
                let anchor = center + turn * (dir * grown * 3.0);
                near_surface += (scale > 1.0 && scale < 1.005) as usize;
                if bounds.holding(p, 1) == 0 {
                    ruled_out += 1;
                    assert_eq!(c.push_out(p, margin), p, "{c:?} {p}");
                    assert_eq!(c.push_out_toward(p, anchor, margin), p, "{c:?} {p}");
                }
            }
        }
        // Most points outside the surface were ruled out, some of them a hair outside.
        assert!(ruled_out > 400 * 50 / 2, "{ruled_out}");
        assert!(near_surface > 500, "{near_surface}");
        // Shapes with no unit map are always pushed from.
        let ground = Collider::Plane {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        };
        let mut bounds = Bounds::default();
        bounds.update(&[ground], 0.0);
        assert_eq!(bounds.holding(Vec3::new(0.0, 50.0, 0.0), 1), 1);
    }

    #[test]
    fn a_plane_is_a_candidate_only_for_boxes_that_reach_it() {
        let ground = Collider::Plane {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        };
        let (lo, hi) = (Vec3::new(-1.0, 0.5, -1.0), Vec3::new(1.0, 1.5, 1.0));
        assert!(!Reach::of(&ground, 0.1).meets(lo, hi));
        assert!(Reach::of(&ground, 0.6).meets(lo, hi));
        assert!(Reach::of(&ground, 0.0).meets(lo - Vec3::Y, hi));
    }
}
