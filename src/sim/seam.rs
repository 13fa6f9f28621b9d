//! The seam weld, the first stage of each row in the row pass after the hard pass
//! ([`super::row_pass`]). A grid closed into a tube ([`Topology::with_seam`], a skirt) has its
//! first and last columns on one seam: they start at the same place and carry no link between
//! them, so each column is solved on its own and the two drift apart. On every row whose ends
//! are both free, the weld puts both at their mean, the position and the previous position
//! alike, so the seam keeps one place and one velocity; what the row pass moves after that, it
//! moves at both ends together ([`twin`]).

use glam::Vec3;

use super::topology::{Topology, TopologyError};

/// How far apart (metres) a seam's two columns may be at rest: rounding only (the two ends
/// of a ring computed a full turn apart).
const SEAM_TOLERANCE: f32 = 1e-4;

impl Topology {
    /// This grid closed into a tube: its first and last columns one seam, welded after every
    /// solver step (the first stage of the row pass, see [`Cloth`](super::Cloth)). They must share their rest positions (within 0.1 mm) on every
    /// row; a grid whose ends are apart is refused and changes nothing.
    pub fn with_seam(mut self) -> Result<Self, TopologyError> {
        let cols = self.cols;
        for row in 0..self.rows {
            let distance = self.rest[row * cols].distance(self.rest[row * cols + cols - 1]);
            if distance.is_nan() || distance > SEAM_TOLERANCE {
                return Err(TopologyError::SeamApart { row, distance });
            }
        }
        self.seam = true;
        Ok(self)
    }
}

/// Row `r`'s seam ends, `(first, last)`, where the topology has a seam and neither is pinned.
#[inline]
fn welded_ends(topo: &Topology, r: usize) -> Option<(usize, usize)> {
    let first = r * topo.cols;
    let last = first + topo.cols - 1;
    (topo.seam && !(topo.pinned[first] || topo.pinned[last])).then_some((first, last))
}

/// Welds row `r`'s seam: its two ends, position and previous position, at their mean.
/// Returns whether it did (the topology has a seam and neither end is pinned).
pub(crate) fn weld_row(topo: &Topology, r: usize, pos: &mut [Vec3], prev: &mut [Vec3]) -> bool {
    let Some((first, last)) = welded_ends(topo, r) else {
        return false;
    };
    for v in [&mut *pos, &mut *prev] {
        let mid = (v[first] + v[last]) * 0.5;
        v[first] = mid;
        v[last] = mid;
    }
    true
}

/// The particle welded to particle `k` of row `r`: the seam's other end where `k` is one of
/// its ends and the row's seam is welded, else `k` itself.
pub(crate) fn twin(topo: &Topology, r: usize, k: usize) -> usize {
    match welded_ends(topo, r) {
        Some((first, last)) if k == first => last,
        Some((first, last)) if k == last => first,
        _ => k,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 5 x 3 tube of radius 0.2 m: each row's first and last particle a full turn apart on
    /// the same ring.
    fn tube() -> Topology {
        let (cols, rows) = (5, 3);
        let rest = (0..rows)
            .flat_map(|r| {
                (0..cols).map(move |c| {
                    let a = std::f32::consts::TAU * c as f32 / (cols - 1) as f32;
                    Vec3::new(0.2 * a.sin(), 1.0 - 0.1 * r as f32, 0.2 * a.cos())
                })
            })
            .collect();
        Topology::from_grid(cols, rows, rest).unwrap()
    }

    #[test]
    fn the_weld_leaves_both_ends_at_one_place_with_one_velocity() {
        let topo = tube().with_seam().unwrap();
        let mut pos = topo.rest.clone();
        let mut prev = topo.rest.clone();
        // Row 1's ends drifted apart, each with its own velocity.
        let (first, last) = (5, 9);
        pos[first] += Vec3::new(0.03, -0.01, 0.0);
        pos[last] += Vec3::new(-0.01, 0.0, 0.02);
        prev[last] += Vec3::new(0.0, 0.01, 0.0);
        let was = pos[first].lerp(pos[last], 0.5);
        assert!(weld_row(&topo, 1, &mut pos, &mut prev));
        assert_eq!(pos[first], pos[last]);
        assert_eq!(pos[first], was);
        assert_eq!(pos[first] - prev[first], pos[last] - prev[last]);
        assert_eq!((twin(&topo, 1, first), twin(&topo, 1, last)), (last, first));
        assert_eq!(twin(&topo, 1, 7), 7);
        // The pinned row is not welded (its ends sit on their own reference points).
        assert!(!weld_row(&topo, 0, &mut pos, &mut prev));
        assert_eq!(twin(&topo, 0, 0), 0);
    }

    #[test]
    fn a_grid_without_a_seam_is_not_welded_and_one_with_its_ends_apart_is_refused() {
        let open = tube();
        let (mut pos, mut prev) = (open.rest.clone(), open.rest.clone());
        pos[5].x += 0.05;
        let before = pos.clone();
        assert!(!weld_row(&open, 1, &mut pos, &mut prev));
        assert_eq!(pos, before);
        let flat = Topology::flat_grid(5, 3, 0.1, Vec3::ZERO);
        assert!(matches!(
            flat.with_seam(),
            Err(TopologyError::SeamApart { row: 0, .. })
        ));
    }
}
