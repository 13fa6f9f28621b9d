//! Large cloths on all cores: the relaxation in bands of rows ([`super::SolveOrder::Banded`]).
//!
//! A band holds the links whose upper particle lies in its [`BAND_ROWS`] rows, in the serial
//! sweep's order. A link reaches at most two rows down, so two bands of the same parity (0 and
//! 2, 1 and 3, ...) share no particle: a pass relaxes every even band at once, each on its own
//! slice of the positions, then every odd band. The bands are fixed by the cloth's size alone
//! and each is swept in a fixed order, so the result is the same on any number of threads.

use super::relax::{relax, Kernel, LinkList, Proj, P4};

/// Rows per band: 16 bands (8 at a time) for a 256-row cloth.
pub const BAND_ROWS: usize = 16;

/// [`super::Cloth::new`] gives cloths of at least this many particles the banded order and all
/// cores (a 182 x 182 grid or larger). Below it a step is short enough that waking other cores
/// would cost more than it saves, and the cloth keeps the serial sweep.
pub const PARALLEL_MIN_PARTICLES: usize = 32 * 1024;

/// One band's links, with particle indices counted from `start`.
#[derive(Clone, Debug)]
pub(super) struct Band {
    /// The first particle its links reach.
    pub start: usize,
    /// One past the last particle its links reach.
    pub end: usize,
    pub stretch: LinkList,
    pub shear_bend: LinkList,
}

/// The bands of one cloth: the even ones (top first), then the odd ones.
#[derive(Clone, Debug)]
pub(super) struct Bands {
    pub phases: [Vec<Band>; 2],
}

impl Bands {
    /// Bands for a cloth of `cols` columns and `rows` rows from its link lists in the serial
    /// sweep's order. `None` when it has fewer than two bands' rows, or when its links reach so
    /// far that two bands of one parity would share a particle.
    pub fn new(cols: usize, rows: usize, stretch: &[Proj], shear_bend: &[Proj]) -> Option<Self> {
        let count = rows.div_ceil(BAND_ROWS);
        if count < 2 || cols == 0 {
            return None;
        }
        let band_of = |l: &Proj| l.a.min(l.b) as usize / cols / BAND_ROWS;
        let mut phases = [Vec::new(), Vec::new()];
        for j in 0..count {
            let pick = |list: &[Proj]| -> Vec<Proj> {
                list.iter().filter(|l| band_of(l) == j).copied().collect()
            };
            let (s, sb) = (pick(stretch), pick(shear_bend));
            let (Some(start), Some(end)) = (
                s.iter().chain(&sb).map(|l| l.a.min(l.b)).min(),
                s.iter().chain(&sb).map(|l| l.a.max(l.b) + 1).max(),
            ) else {
                continue;
            };
            let rebase = |v: Vec<Proj>| {
                LinkList::levelled(
                    v.into_iter()
                        .map(|l| Proj {
                            a: l.a - start,
                            b: l.b - start,
                            ..l
                        })
                        .collect(),
                )
            };
            phases[j % 2].push(Band {
                start: start as usize,
                end: end as usize,
                stretch: rebase(s),
                shear_bend: rebase(sb),
            });
        }
        let overlap = |phase: &Vec<Band>| phase.windows(2).any(|w| w[0].end > w[1].start);
        if phases.iter().any(overlap) {
            return None;
        }
        Some(Self { phases })
    }

    /// Every band's link lists (to refresh weights), with the band's first particle.
    pub fn lists_mut(&mut self) -> impl Iterator<Item = (usize, &mut LinkList)> {
        self.phases.iter_mut().flatten().flat_map(|band| {
            let start = band.start;
            [(start, &mut band.stretch), (start, &mut band.shear_bend)]
        })
    }

    /// One relaxation pass: the even bands side by side, then the odd ones; in each band the
    /// stretch links, then the shear/bend links. Runs on the current rayon pool.
    pub fn relax(&self, pos: &mut [P4], stretch: f32, shear_bend: f32, kernel: Kernel) {
        let k = Stiffness {
            stretch,
            shear_bend,
            kernel,
        };
        for phase in &self.phases {
            relax_bands(pos, 0, phase, &k);
        }
    }
}

/// What every band of a pass is relaxed with.
struct Stiffness {
    stretch: f32,
    shear_bend: f32,
    kernel: Kernel,
}

/// Relaxes `bands` (disjoint, in particle order) with `pos` the positions from particle `base`
/// on: halves the list and the positions between its halves and hands one half to another
/// thread, so each band gets its own slice and no lock or unsafe sharing is needed.
fn relax_bands(pos: &mut [P4], base: usize, bands: &[Band], k: &Stiffness) {
    match bands {
        [] => {}
        [band] => {
            let pos = &mut pos[band.start - base..band.end - base];
            relax(pos, &band.stretch, [k.stretch; 2], k.kernel);
            relax(pos, &band.shear_bend, [k.shear_bend; 2], k.kernel);
        }
        _ => {
            let (low, high) = bands.split_at(bands.len() / 2);
            let split = high[0].start;
            let (pos_low, pos_high) = pos.split_at_mut(split - base);
            rayon::join(
                || relax_bands(pos_low, base, low, k),
                || relax_bands(pos_high, split, high, k),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Cloth, FabricParams, SolveOrder, Topology};
    use glam::Vec3;

    #[test]
    fn the_bands_hold_every_link_once_and_bands_of_one_parity_share_no_particle() {
        let topo = Topology::flat_grid(9, 3 * BAND_ROWS + 2, 0.1, Vec3::ZERO);
        let cloth = Cloth::with_order(topo.clone(), &FabricParams::default(), SolveOrder::Banded);
        let bands = cloth.bands().expect("banded");
        let mut seen: Vec<(u32, u32)> = bands
            .phases
            .iter()
            .flatten()
            .flat_map(|band| {
                let start = band.start as u32;
                band.stretch
                    .links
                    .iter()
                    .chain(&band.shear_bend.links)
                    .map(move |l| (l.a + start, l.b + start))
            })
            .collect();
        seen.sort();
        let mut all: Vec<(u32, u32)> = topo.links.iter().map(|l| (l.a, l.b)).collect();
        all.sort();
        assert_eq!(seen, all);
        assert_eq!(bands.phases[0].len(), 2);
        assert_eq!(bands.phases[1].len(), 2);
        for phase in &bands.phases {
            assert!(phase.windows(2).all(|w| w[0].end <= w[1].start));
        }
    }
}
