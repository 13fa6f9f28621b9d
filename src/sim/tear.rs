//! Tearing (Lander's "taking it to the limit", in "Devil in the Blue Faceted Dress"): a link stretched past
//! [`FabricParams::tear_ratio`](super::FabricParams::tear_ratio) times its rest length leaves
//! the solve until the cloth is reset.
//!
//! What goes with a torn stretch link, so the cloth really opens instead of being held shut by
//! the links around it: the bend links that jump over it (along its own line) and the shear
//! links of the two grid cells that have it as a side. A torn vertical stretch link is also a
//! column the hard pass no longer hangs from above (see [`Tears::cut`]). A shear or bend link
//! that tears takes only itself. The cloth makes the free ends of a torn stretch link edge
//! particles until the reset that mends it.
//!
//! The check walks the links in the topology's order once per solver step, after the
//! relaxation, so the same run tears the same links in the same step. It allocates nothing:
//! the flags are sized when the cloth is built; the solver's link lists keep their plan and a
//! dead link gets zero weight (a projection that moves nothing) when something tears.

use glam::Vec3;

use super::topology::{ConstraintKind, Topology};

/// [`Tears::cut`] bit: the vertical stretch link from the particle above is torn.
pub(crate) const CUT_UP: u8 = 1;
/// [`Tears::cut`] bit: the horizontal stretch link to the particle on the right is torn.
pub(crate) const CUT_RIGHT: u8 = 2;

/// Which links are torn, for one cloth.
#[derive(Clone, Debug)]
pub(super) struct Tears {
    /// Per topology link: torn (or gone with a torn stretch link).
    dead: Vec<bool>,
    /// How many are.
    count: usize,
    /// Every link as (smaller particle, larger particle, link index), sorted: finds the link
    /// between two particles when something tears or the weights are refreshed.
    pairs: Vec<(u32, u32, u32)>,
    /// Per particle: [`CUT_UP`] and [`CUT_RIGHT`] bits, for the hard pass.
    cut: Vec<u8>,
}

impl Tears {
    /// Nothing torn on `topo`.
    pub fn new(topo: &Topology) -> Self {
        let mut pairs: Vec<(u32, u32, u32)> = (topo.links.iter().enumerate())
            .map(|(i, l)| (l.a.min(l.b), l.a.max(l.b), i as u32))
            .collect();
        pairs.sort_unstable();
        Self {
            dead: vec![false; topo.links.len()],
            count: 0,
            pairs,
            cut: vec![0; topo.len()],
        }
    }

    /// Links out of the solve.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Per topology link: out of the solve.
    pub fn dead(&self) -> &[bool] {
        &self.dead
    }

    /// Per particle: [`CUT_UP`] / [`CUT_RIGHT`] bits.
    pub fn cut(&self) -> &[u8] {
        &self.cut
    }

    /// Whether the link between particles `a` and `b` is out of the solve (false when there is
    /// no such link).
    pub fn is_dead(&self, a: u32, b: u32) -> bool {
        self.count > 0 && self.find(a, b).is_some_and(|i| self.dead[i])
    }

    /// Every link whole again.
    pub fn mend(&mut self) {
        if self.count > 0 {
            self.dead.fill(false);
            self.cut.fill(0);
            self.count = 0;
        }
    }

    /// Tears every live link of `topo` longer than `ratio` x its rest length at `pos`, in the
    /// topology's order (links between two pinned particles are not in the solve and never
    /// tear). Returns whether anything tore. `ratio` 0 (or below) tears nothing.
    pub fn check(&mut self, topo: &Topology, pos: &[Vec3], ratio: f32) -> bool {
        if ratio <= 0.0 {
            return false;
        }
        let before = self.count;
        for (i, l) in topo.links.iter().enumerate() {
            let (a, b) = (l.a as usize, l.b as usize);
            if self.dead[i] || (topo.pinned[a] && topo.pinned[b]) {
                continue;
            }
            let limit = l.rest * ratio;
            if pos[a].distance_squared(pos[b]) > limit * limit {
                self.tear(topo, i);
            }
        }
        self.count > before
    }

    /// Tears link `i` of `topo` and what goes with it (module documentation).
    pub fn tear(&mut self, topo: &Topology, i: usize) {
        self.kill(i);
        let l = topo.links[i];
        if !l.kind.is_stretch() {
            return;
        }
        let (a, b) = (l.a.min(l.b) as usize, l.a.max(l.b) as usize);
        let (c, r) = (topo.col(a) as i64, topo.row(a) as i64);
        // (dc, dr) steps along the link and across it.
        let (along, across) = if l.kind == ConstraintKind::StretchHorizontal {
            self.cut[a] |= CUT_RIGHT;
            ((1, 0), (0, 1))
        } else {
            self.cut[b] |= CUT_UP;
            ((0, 1), (1, 0))
        };
        let at = |k: i64, s: i64| {
            (
                c + along.0 * k + across.0 * s,
                r + along.1 * k + across.1 * s,
            )
        };
        let mut companions = [((0, 0), (0, 0)); 6];
        // The bend links over it.
        companions[0] = (at(-1, 0), at(1, 0));
        companions[1] = (at(0, 0), at(2, 0));
        // The diagonals of the cells on both sides.
        for (k, s) in [-1i64, 1].into_iter().enumerate() {
            companions[2 + 2 * k] = (at(0, 0), at(1, s));
            companions[3 + 2 * k] = (at(1, 0), at(0, s));
        }
        for (p, q) in companions {
            if let (Some(p), Some(q)) = (grid_index(topo, p), grid_index(topo, q)) {
                if let Some(j) = self.find(p, q) {
                    self.kill(j);
                }
            }
        }
    }

    fn kill(&mut self, i: usize) {
        if !self.dead[i] {
            self.dead[i] = true;
            self.count += 1;
        }
    }

    /// The index of the link between `a` and `b`.
    fn find(&self, a: u32, b: u32) -> Option<usize> {
        let key = (a.min(b), a.max(b));
        self.pairs
            .binary_search_by(|&(x, y, _)| (x, y).cmp(&key))
            .ok()
            .map(|k| self.pairs[k].2 as usize)
    }
}

/// The particle at (column, row), when it is on the grid.
fn grid_index(topo: &Topology, (c, r): (i64, i64)) -> Option<u32> {
    let inside = (0..topo.cols as i64).contains(&c) && (0..topo.rows as i64).contains(&r);
    inside.then(|| (r as usize * topo.cols + c as usize) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_horizontal_link_takes_its_bends_and_the_diagonals_of_both_cells() {
        // 5 x 4 grid; the horizontal link (1,2)-(2,2) tears.
        let t = Topology::flat_grid(5, 4, 0.1, Vec3::ZERO);
        let mut tears = Tears::new(&t);
        let id = |c: u32, r: u32| r * 5 + c;
        let i = tears.find(id(1, 2), id(2, 2)).unwrap();
        tears.tear(&t, i);
        let mut gone: Vec<(u32, u32)> = (t.links.iter().zip(tears.dead()))
            .filter(|(_, d)| **d)
            .map(|(l, _)| (l.a, l.b))
            .collect();
        gone.sort();
        let mut expected = vec![
            (id(1, 2), id(2, 2)),
            (id(0, 2), id(2, 2)),
            (id(1, 2), id(3, 2)),
            (id(1, 1), id(2, 2)),
            (id(2, 1), id(1, 2)),
            (id(1, 2), id(2, 3)),
            (id(2, 2), id(1, 3)),
        ];
        expected.sort();
        assert_eq!(gone, expected);
        assert_eq!(tears.count(), 7);
        assert_eq!(tears.cut()[id(1, 2) as usize], CUT_RIGHT);
        tears.mend();
        assert_eq!(tears.count(), 0);
        assert!(tears.dead().iter().all(|d| !d) && tears.cut().iter().all(|&c| c == 0));
    }

    #[test]
    fn a_torn_vertical_link_cuts_the_column_for_the_hard_pass() {
        let t = Topology::flat_grid(3, 4, 0.1, Vec3::ZERO);
        let mut tears = Tears::new(&t);
        let i = tears.find(4, 7).unwrap();
        tears.tear(&t, i);
        // Itself, two bends (1-7, 4-10), the diagonals of the cells left and right of it.
        assert_eq!(tears.count(), 7);
        assert_eq!(tears.cut()[7], CUT_UP);
        assert!(tears.is_dead(7, 4) && tears.is_dead(1, 7) && tears.is_dead(3, 7));
        assert!(!tears.is_dead(7, 10));
    }
}
