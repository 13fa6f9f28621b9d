//! Provot's deformation limit on the padded positions: any link longer than `ratio` times its
//! rest length is pulled back to exactly that length, link after link in the list's order.
//!
//! Nearly every link is within the limit, and a link within it moves nothing, so the walk
//! tests links four at a time (SSE2 on x86-64) for being surely within, and only the first
//! that is not is taken on its own; the links before it were read after the last move, so
//! this is the one-after-another walk, bit for bit. Each lane does the scalar test's
//! arithmetic in its order ([`super::cloth::surely_within`]).

use glam::Vec3;

use super::cloth::{excess, surely_within};
use super::relax::{Proj, P4};

/// One pass of the limit over `links` on `work`; returns whether any link was over it (a pass
/// that found none moved nothing, and the next would find the same).
pub(super) fn limit_stretch(work: &mut [P4], links: &[Proj], ratio: f32) -> bool {
    let mut over = false;
    let mut k = 0;
    while k < links.len() {
        k += leading_within(work, &links[k..], ratio);
        let Some(l) = links.get(k) else {
            break;
        };
        let (a, b) = (l.a as usize, l.b as usize);
        let (pa, pb) = (work[a].vec3(), work[b].vec3());
        let d = pb - pa;
        if let Some(s) = excess(d, l.rest, ratio) {
            over = true;
            work[a] = P4::new(pa + d * (s * l.wa));
            work[b] = P4::new(work[b].vec3() - d * (s * l.wb));
        }
        k += 1;
    }
    over
}

/// How many of the first `links` are surely within the limit on `work`.
#[inline]
fn leading_within(work: &[P4], links: &[Proj], ratio: f32) -> usize {
    let mut n = 0;
    #[cfg(target_arch = "x86_64")]
    while let Some(four) = links.get(n..n + 4) {
        let within = x86::within_four(work, four, ratio);
        if within != 0xF {
            return n + within.trailing_ones() as usize;
        }
        n += 4;
    }
    for l in &links[n..] {
        let d = work[l.b as usize].vec3() - work[l.a as usize].vec3();
        if !surely_within(d, Vec3::ZERO, l.rest * ratio) {
            return n;
        }
        n += 1;
    }
    n
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Proj, P4};
    use crate::sim::relax::x86::transpose4;
    use std::arch::x86_64::*;

    /// Bit `l`: link `l` of the four is surely within the limit.
    #[inline(always)]
    pub(super) fn within_four(work: &[P4], four: &[Proj], ratio: f32) -> u32 {
        let load = |i: u32| {
            let p: &P4 = &work[i as usize];
            // SAFETY: SSE is part of every x86-64 CPU; `P4` is four f32, aligned to 16.
            unsafe { _mm_load_ps(p as *const P4 as *const f32) }
        };
        let [xa, ya, za] = transpose4([0, 1, 2, 3].map(|k| load(four[k].a)));
        let [xb, yb, zb] = transpose4([0, 1, 2, 3].map(|k| load(four[k].b)));
        // SAFETY: as above.
        unsafe {
            let (x, y, z) = (_mm_sub_ps(xb, xa), _mm_sub_ps(yb, ya), _mm_sub_ps(zb, za));
            // The squared length as `Vec3::length_squared` sums it: (x² + y²) + z².
            let len2 = _mm_add_ps(
                _mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)),
                _mm_mul_ps(z, z),
            );
            let rest = _mm_set_ps(four[3].rest, four[2].rest, four[1].rest, four[0].rest);
            let limit = _mm_mul_ps(rest, _mm_set1_ps(ratio));
            let bound = _mm_mul_ps(_mm_mul_ps(limit, limit), _mm_set1_ps(1.0 - 1e-6));
            _mm_movemask_ps(_mm_cmplt_ps(len2, bound)) as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::relax::{pad, unpad};
    use crate::sim::test_noise;

    /// The limit as the plain one-after-another walk over unpadded positions.
    fn one_by_one(pos: &mut [Vec3], links: &[Proj], ratio: f32) -> bool {
        let mut over = false;
        for l in links {
            let (a, b) = (l.a as usize, l.b as usize);
            let d = pos[b] - pos[a];
            let Some(s) = excess(d, l.rest, ratio) else {
                continue;
            };
            over = true;
            pos[a] += d * (s * l.wa);
            pos[b] -= d * (s * l.wb);
        }
        over
    }

    fn link(a: u32, b: u32, rest: f32, wa: f32) -> Proj {
        Proj {
            wa,
            wb: 1.0 - wa,
            ..Proj::new(a, b, rest)
        }
    }

    #[test]
    fn pulls_back_to_the_ratio_and_says_when_nothing_was_over() {
        let mut work = vec![P4::default(); 2];
        let run = |work: &mut Vec<P4>, x: f32| {
            pad(&[Vec3::ZERO, Vec3::new(x, 0.0, 0.0)], work);
            let over = limit_stretch(work, &[link(0, 1, 1.0, 0.5)], 1.1);
            let mut pos = [Vec3::ZERO; 2];
            unpad(work, &mut pos);
            (over, pos)
        };
        let (over, pos) = run(&mut work, 1.5);
        assert!(over);
        assert!((pos[0].distance(pos[1]) - 1.1).abs() < 1e-6);
        // Within the ratio: untouched, and said so (the next pass is skipped).
        let (over, pos) = run(&mut work, 1.05);
        assert!(!over);
        assert_eq!(pos[1].x, 1.05);
    }

    #[test]
    fn the_walk_four_at_a_time_moves_every_particle_as_one_link_at_a_time_does() {
        // A chain and its skip-one links over 40 particles, a few of them pulled far out, so
        // over-long links fall at every place in a group of four, next to each other too.
        let mut noise = test_noise(17);
        let n = 40;
        let mut links = Vec::new();
        for i in 0..n - 1 {
            links.push(link(i, i + 1, 0.1, 0.5));
            if i + 2 < n {
                links.push(link(i, i + 2, 0.2, if i % 3 == 0 { 0.0 } else { 0.5 }));
            }
        }
        let mut over_links = 0;
        for trial in 0..200 {
            let pos: Vec<Vec3> = (0..n)
                .map(|i| {
                    let far = if (i as usize + trial) % 7 == 0 {
                        0.3
                    } else {
                        0.01
                    };
                    Vec3::new(i as f32 * 0.1, 0.0, 0.0) + Vec3::new(noise(), noise(), noise()) * far
                })
                .collect();
            let mut want = pos.clone();
            let mut work = vec![P4::default(); pos.len()];
            pad(&pos, &mut work);
            for _ in 0..2 {
                let (a, b) = (
                    one_by_one(&mut want, &links, 1.08),
                    limit_stretch(&mut work, &links, 1.08),
                );
                assert_eq!(a, b);
            }
            let mut got = vec![Vec3::ZERO; pos.len()];
            unpad(&work, &mut got);
            let bits = |v: &[Vec3]| -> Vec<u32> {
                v.iter()
                    .flat_map(|p| p.to_array())
                    .map(f32::to_bits)
                    .collect()
            };
            assert_eq!(bits(&got), bits(&want), "trial {trial}");
            over_links += pos
                .iter()
                .zip(&want)
                .filter(|(before, after)| before != after)
                .count();
        }
        // The test means something: many particles were moved.
        assert!(over_links > 1000, "{over_links}");
    }
}
