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

use glam::Vec3;

use super::Collider;

/// Particles per run.
const RUN: usize = 8;
/// Most colliders one mask holds: with more, every point is tested against all.
const MASK_BITS: usize = u64::BITS as usize;

/// Colliders to test for one point, and the region where that choice holds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidates {
    /// Bit `k`: collider `k` can reach points in the region.
    mask: u64,
    lo: Vec3,
    hi: Vec3,
}

impl Candidates {
    /// Every collider, everywhere: no broad phase.
    pub(crate) const ALL: Candidates = Candidates {
        mask: u64::MAX,
        lo: Vec3::NAN,
        hi: Vec3::NAN,
    };

    /// Whether the choice holds at `p` (never for [`Candidates::ALL`]: NaN compares false).
    #[inline(always)]
    fn covers(&self, p: Vec3) -> bool {
        p.cmpge(self.lo).all() && p.cmple(self.hi).all()
    }
}

/// Each run's [`Candidates`] for one solver step.
#[derive(Clone, Debug)]
pub(crate) struct Broad {
    runs: Vec<Candidates>,
    /// The margin the runs were built for (colliders grown by it).
    margin: f32,
}

impl Broad {
    /// Room for `n` particles; every run tests every collider until [`Broad::update`].
    pub(crate) fn new(n: usize) -> Self {
        Self {
            runs: vec![Candidates::ALL; n.div_ceil(RUN)],
            margin: 0.0,
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
        self.margin = margin;
        let usable = colliders.len() <= MASK_BITS && reference.len() == max_distance.len();
        for (k, run) in self.runs.iter_mut().enumerate() {
            let range = k * RUN..((k + 1) * RUN).min(reference.len());
            if !usable || range.is_empty() {
                *run = Candidates::ALL;
                continue;
            }
            let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
            for (r, &md) in reference[range.clone()].iter().zip(&max_distance[range]) {
                lo = lo.min(*r - Vec3::splat(md));
                hi = hi.max(*r + Vec3::splat(md));
            }
            let mask = colliders
                .iter()
                .enumerate()
                .filter(|(_, c)| may_reach(c, lo, hi, margin))
                .fold(0u64, |m, (i, _)| m | 1 << i);
            *run = if lo.is_finite() && hi.is_finite() {
                Candidates { mask, lo, hi }
            } else {
                Candidates::ALL
            };
        }
    }

    /// Particle `i`'s candidates for colliders grown by `margin` ([`Candidates::ALL`] for
    /// another margin or an index past the runs).
    #[inline(always)]
    pub(crate) fn of(&self, i: usize, margin: f32) -> Candidates {
        match self.runs.get(i / RUN) {
            Some(c) if margin == self.margin => *c,
            _ => Candidates::ALL,
        }
    }
}

/// Whether any point of the box `lo`..`hi` may lie inside `c` grown by `margin`. Errs toward
/// yes: the bound is widened by a thousandth (and 10 um), far more than rounding in the exact
/// tests could take back.
fn may_reach(c: &Collider, lo: Vec3, hi: Vec3, margin: f32) -> bool {
    let slack = |r: f32| r * 1.001 + 1e-5;
    match *c {
        Collider::Ellipsoid { center, radii, .. } => {
            near_box(center, slack(radii.max_element() + margin), lo, hi)
        }
        Collider::Sphere { center, radius } => near_box(center, slack(radius + margin), lo, hi),
        Collider::Capsule { a, b, radius } => {
            let bound = 0.5 * a.distance(b) + radius + margin;
            near_box((a + b) * 0.5, slack(bound), lo, hi)
        }
        Collider::Plane { point, normal } => {
            // The box's corner furthest toward the blocked side.
            let corner = Vec3::select(normal.cmpge(Vec3::ZERO), lo, hi);
            (corner - point).dot(normal) < slack(margin.abs())
        }
    }
}

/// Whether the sphere at `center` of `radius` comes within the box `lo`..`hi`.
fn near_box(center: Vec3, radius: f32, lo: Vec3, hi: Vec3) -> bool {
    center.clamp(lo, hi).distance_squared(center) <= radius * radius || !center.is_finite()
}

/// `p` pushed out of `colliders` in order, as [`Collider::push_out_toward`] (with an `anchor`)
/// or [`Collider::push_out`] each would: only the candidates while `p` stays where they hold,
/// every collider once a push takes it out of there. Returns the point and whether any
/// collider moved it.
#[inline(always)]
pub(crate) fn push_out_each(
    colliders: &[Collider],
    candidates: Candidates,
    mut p: Vec3,
    anchor: Option<Vec3>,
    margin: f32,
) -> (Vec3, bool) {
    let mut skipping = colliders.len() <= MASK_BITS && candidates.covers(p);
    let mut touched = false;
    for (k, c) in colliders.iter().enumerate() {
        if skipping && candidates.mask & (1 << k) == 0 {
            continue;
        }
        let y = match anchor {
            Some(a) => c.push_out_toward(p, a, margin),
            None => c.push_out(p, margin),
        };
        if y != p {
            touched = true;
            p = y;
            skipping = skipping && candidates.covers(p);
        }
    }
    (p, touched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    /// Pseudo-random numbers in [0, 1), the same every run.
    fn lcg(seed: &mut u64) -> f32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 40) as f32 / (1u64 << 24) as f32
    }

    #[test]
    fn the_broad_phase_moves_every_point_exactly_as_testing_every_collider_does() {
        let mut seed = 7;
        let v =
            |s: &mut u64, scale: f32| Vec3::new(lcg(s) - 0.5, lcg(s) - 0.5, lcg(s) - 0.5) * scale;
        let colliders: Vec<Collider> = (0..12)
            .map(|k| match k % 4 {
                0 => Collider::Ellipsoid {
                    center: v(&mut seed, 2.0),
                    rotation: Quat::from_rotation_y(k as f32),
                    radii: Vec3::new(0.1, 0.25, 0.15),
                },
                1 => Collider::Sphere {
                    center: v(&mut seed, 2.0),
                    radius: 0.2,
                },
                2 => Collider::Capsule {
                    a: v(&mut seed, 2.0),
                    b: v(&mut seed, 2.0),
                    radius: 0.1,
                },
                _ => Collider::Plane {
                    point: Vec3::new(0.0, -0.8, 0.0),
                    normal: Vec3::Y,
                },
            })
            .collect();
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
            skipped += colliders.len() - c.mask.count_ones() as usize;
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
        assert_eq!(broad.of(0, 0.5).mask, u64::MAX);
    }

    #[test]
    fn a_plane_is_a_candidate_only_for_boxes_that_reach_it() {
        let ground = Collider::Plane {
            point: Vec3::ZERO,
            normal: Vec3::Y,
        };
        let (lo, hi) = (Vec3::new(-1.0, 0.5, -1.0), Vec3::new(1.0, 1.5, 1.0));
        assert!(!may_reach(&ground, lo, hi, 0.1));
        assert!(may_reach(&ground, lo, hi, 0.6));
        assert!(may_reach(&ground, lo - Vec3::Y, hi, 0.0));
    }
}
