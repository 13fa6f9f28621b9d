//! The shape of a cloth, built once: rest positions, constraint lists by family, edge flags,
//! the top-down hard-constraint order and each particle's row. Changing any of it means a
//! rebuild of the [`Cloth`](super::Cloth).

use glam::Vec3;

/// Which family a distance constraint belongs to. Stretch constraints join immediate
/// neighbours; shear constraints join diagonal neighbours; bend constraints join particles two
/// apart. Stretch is solved with its own stiffness, shear and bend share the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    /// Stretch between neighbours in a row.
    StretchHorizontal,
    /// Stretch between neighbours in a column (the hard constraints are these).
    StretchVertical,
    /// A diagonal of a grid cell.
    Shear,
    /// Two apart along a row or a column.
    Bend,
}

impl ConstraintKind {
    /// True for the two stretch kinds.
    pub fn is_stretch(self) -> bool {
        matches!(
            self,
            ConstraintKind::StretchHorizontal | ConstraintKind::StretchVertical
        )
    }
}

/// A distance constraint between particles `a` and `b` with its rest length.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// First particle (for a vertical stretch link: the upper one).
    pub a: u32,
    /// Second particle (for a vertical stretch link: the lower one).
    pub b: u32,
    /// Distance in the rest pose, metres.
    pub rest: f32,
    /// The family.
    pub kind: ConstraintKind,
}

/// Errors building a topology.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TopologyError {
    /// Fewer than 2 columns or rows.
    #[error("a cloth grid needs at least 2 columns and 2 rows, got {cols} x {rows}")]
    TooSmall {
        /// Columns given.
        cols: usize,
        /// Rows given.
        rows: usize,
    },
    /// The rest positions are not `cols * rows`.
    #[error("a {cols} x {rows} grid needs {expected} rest positions, got {got}")]
    WrongCount {
        /// Columns given.
        cols: usize,
        /// Rows given.
        rows: usize,
        /// `cols * rows`.
        expected: usize,
        /// Positions given.
        got: usize,
    },
    /// A rest position is NaN or infinite.
    #[error("rest position {index} is not finite")]
    NotFinite {
        /// The particle.
        index: usize,
    },
    /// A seam's two columns ([`Topology::with_seam`]) are apart on a row.
    #[error(
        "a seam joins the first and last columns, which must share their rest positions: \
         row {row} has them {distance} m apart"
    )]
    SeamApart {
        /// The first row whose ends are apart.
        row: usize,
        /// How far apart, metres.
        distance: f32,
    },
    /// Two particles joined by a constraint are at the same place.
    #[error(
        "particles {a} and {b} share a rest position: a constraint between them has no length"
    )]
    Degenerate {
        /// One particle.
        a: usize,
        /// The other.
        b: usize,
    },
}

/// The cloth's shape. Particle `i` sits at column `i % cols`, row `i / cols`; row 0 is the top
/// (the pinned row, skinned to the character) and the last row is the hem.
#[derive(Clone, Debug)]
pub struct Topology {
    /// Columns (particles per row).
    pub cols: usize,
    /// Rows, top to hem.
    pub rows: usize,
    /// Rest positions in character space, metres.
    pub rest: Vec<Vec3>,
    /// Every constraint, in build order (row by row, top down).
    pub links: Vec<Link>,
    /// Pinned particles: the top row.
    pub pinned: Vec<bool>,
    /// Edge particles: fewer than four stretch constraints (hem, side columns). Pinned
    /// particles are never edges.
    pub edge: Vec<bool>,
    /// Triangles (for wind and rendering), two per grid cell, counter-clockwise seen from the
    /// side the rest normals point to.
    pub triangles: Vec<[u32; 3]>,
    /// Whether the first and last columns are one seam, closing the grid into a tube (a
    /// skirt): they share their rest positions, carry no link between them and are welded
    /// in the row pass after every solver step (see [`Cloth`](super::Cloth)). Off for a grid as built; see
    /// [`Topology::with_seam`].
    pub seam: bool,
}

impl Topology {
    /// A flat `cols` x `rows` sheet hanging in the XY plane from `top_left`, columns along +X,
    /// rows down -Y, `spacing` metres apart. Handy for tests and benches.
    pub fn flat_grid(cols: usize, rows: usize, spacing: f32, top_left: Vec3) -> Self {
        let rest = (0..rows)
            .flat_map(|r| {
                (0..cols).map(move |c| top_left + Vec3::new(c as f32, -(r as f32), 0.0) * spacing)
            })
            .collect();
        Self::from_grid(cols, rows, rest).expect("a flat grid is always valid")
    }

    /// A grid cloth from its rest positions (row-major, top row first). Builds stretch
    /// (horizontal and vertical neighbours), shear (both diagonals) and bend (two apart along
    /// rows and columns) constraints, flags the top row as pinned and finds the edges.
    pub fn from_grid(cols: usize, rows: usize, rest: Vec<Vec3>) -> Result<Self, TopologyError> {
        if cols < 2 || rows < 2 {
            return Err(TopologyError::TooSmall { cols, rows });
        }
        if rest.len() != cols * rows {
            return Err(TopologyError::WrongCount {
                cols,
                rows,
                expected: cols * rows,
                got: rest.len(),
            });
        }
        if let Some(index) = rest.iter().position(|p| !p.is_finite()) {
            return Err(TopologyError::NotFinite { index });
        }
        let id = |c: usize, r: usize| r * cols + c;
        let mut links = Vec::new();
        let mut push = |a: usize, b: usize, kind| -> Result<(), TopologyError> {
            let rest_len = rest[a].distance(rest[b]);
            if rest_len <= 1e-6 {
                return Err(TopologyError::Degenerate { a, b });
            }
            links.push(Link {
                a: a as u32,
                b: b as u32,
                rest: rest_len,
                kind,
            });
            Ok(())
        };
        for r in 0..rows {
            for c in 0..cols {
                if c + 1 < cols {
                    push(id(c, r), id(c + 1, r), ConstraintKind::StretchHorizontal)?;
                }
                if r + 1 < rows {
                    push(id(c, r), id(c, r + 1), ConstraintKind::StretchVertical)?;
                }
                if c + 1 < cols && r + 1 < rows {
                    push(id(c, r), id(c + 1, r + 1), ConstraintKind::Shear)?;
                    push(id(c + 1, r), id(c, r + 1), ConstraintKind::Shear)?;
                }
                if c + 2 < cols {
                    push(id(c, r), id(c + 2, r), ConstraintKind::Bend)?;
                }
                if r + 2 < rows {
                    push(id(c, r), id(c, r + 2), ConstraintKind::Bend)?;
                }
            }
        }
        let n = cols * rows;
        let pinned: Vec<bool> = (0..n).map(|i| i < cols).collect();
        let mut stretch_count = vec![0u32; n];
        for l in links.iter().filter(|l| l.kind.is_stretch()) {
            stretch_count[l.a as usize] += 1;
            stretch_count[l.b as usize] += 1;
        }
        let edge = (0..n).map(|i| !pinned[i] && stretch_count[i] < 4).collect();
        let mut triangles = Vec::with_capacity((cols - 1) * (rows - 1) * 2);
        for r in 0..rows - 1 {
            for c in 0..cols - 1 {
                let (tl, tr) = (id(c, r) as u32, id(c + 1, r) as u32);
                let (bl, br) = (id(c, r + 1) as u32, id(c + 1, r + 1) as u32);
                triangles.push([tl, bl, br]);
                triangles.push([tl, br, tr]);
            }
        }
        Ok(Self {
            cols,
            rows,
            rest,
            links,
            pinned,
            edge,
            triangles,
            seam: false,
        })
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.rest.len()
    }

    /// True for a cloth with no particles (never, for a built grid).
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The hem: the particles of the bottom row.
    pub fn hem(&self) -> std::ops::Range<usize> {
        (self.rows - 1) * self.cols..self.rows * self.cols
    }

    /// The row of particle `i` (0 = top).
    pub fn row(&self, i: usize) -> usize {
        i / self.cols
    }

    /// The column of particle `i`.
    pub fn col(&self, i: usize) -> usize {
        i % self.cols
    }

    /// How far down the garment particle `i` sits: 0 at the top row, 1 at the hem.
    pub fn row_fraction(&self, i: usize) -> f32 {
        self.row(i) as f32 / (self.rows - 1) as f32
    }

    /// Sort key for a top-down relaxation sweep whose consecutive links share no particle:
    /// (upper row, family, column class, column). Within one row and family the links of one
    /// column class are pairwise disjoint.
    pub fn sweep_key(&self, l: &Link) -> (u8, usize, u8, usize, usize) {
        let (a, b) = (l.a as usize, l.b as usize);
        let row = self.row(a).min(self.row(b));
        let col = self.col(a).min(self.col(b));
        let vertical = self.col(a) == self.col(b);
        let horizontal = self.row(a) == self.row(b);
        match l.kind {
            ConstraintKind::StretchVertical => (0, row, 0, 0, col),
            ConstraintKind::StretchHorizontal => (1, row, 1, col % 2, col),
            // The two diagonals of a cell: down-right first, then down-left.
            ConstraintKind::Shear => (0, row, 2, (self.col(a) > self.col(b)) as usize, col),
            ConstraintKind::Bend if horizontal => (0, row, 3, (col % 4) / 2, col),
            ConstraintKind::Bend if vertical => (0, row, 4, 0, col),
            ConstraintKind::Bend => (0, row, 5, 0, col),
        }
    }

    /// Sort key for the stretch sweep: by the lower row; within it, the vertical links into
    /// that row first (pairwise disjoint), then the row's horizontal links left to right in
    /// four segments swept side by side (`H(k), H(k+s), H(k+2s), H(k+3s), H(k+1), ...` with
    /// `s` a quarter of the row): each segment is a build-order chain, so a correction crosses
    /// a quarter row in one pass, and the four chains are independent of each other.
    pub fn stretch_sweep_key(&self, l: &Link) -> (usize, u8, usize, usize) {
        let (a, b) = (l.a as usize, l.b as usize);
        let lower = self.row(a).max(self.row(b));
        let col = self.col(a).min(self.col(b));
        if self.row(a) == self.row(b) {
            let segment = (self.cols - 1).div_ceil(4).max(2);
            (lower, 1, col % segment, col / segment)
        } else {
            (lower, 0, col, 0)
        }
    }

    /// The vertical stretch links sorted top-down: the hard-constraint pass. Each moves only
    /// its lower particle (`b`).
    pub fn hard_links(&self) -> Vec<Link> {
        self.links_top_down(ConstraintKind::StretchVertical)
    }

    /// The links of one kind sorted by their first particle's row, then column.
    pub fn links_top_down(&self, kind: ConstraintKind) -> Vec<Link> {
        let mut links: Vec<Link> = self
            .links
            .iter()
            .copied()
            .filter(|l| l.kind == kind)
            .collect();
        links.sort_by_key(|l| (self.row(l.a as usize), self.col(l.a as usize)));
        links
    }
}

/// Reorders links so that no two consecutive ones share a particle, staying as close to the
/// given order as possible: at each position take the earliest remaining link that shares no
/// particle with the previous `window` links. Gauss-Seidel keeps (almost) the same sweep, and
/// the CPU can overlap neighbouring projections because they no longer depend on each other.
pub fn interleave(links: &[Link], window: usize) -> Vec<Link> {
    let shares = |x: &Link, y: &Link| x.a == y.a || x.a == y.b || x.b == y.a || x.b == y.b;
    let mut remaining: std::collections::VecDeque<Link> = links.iter().copied().collect();
    let mut out: Vec<Link> = Vec::with_capacity(links.len());
    // Look-ahead is bounded so the build stays linear for big cloths.
    const LOOKAHEAD: usize = 64;
    while !remaining.is_empty() {
        let recent = &out[out.len().saturating_sub(window)..];
        let pick = remaining
            .iter()
            .take(LOOKAHEAD)
            .position(|l| !recent.iter().any(|r| shares(r, l)));
        if let Some(i) = pick {
            out.extend(remaining.remove(i));
            continue;
        }
        // Nothing near the front fits (the tail of the list): slot the next link in earlier,
        // between two links it shares nothing with.
        let Some(l) = remaining.pop_front() else {
            break;
        };
        let slot = (1..out.len())
            .rev()
            .find(|&i| !shares(&out[i - 1], &l) && !shares(&out[i], &l));
        match slot {
            Some(i) => out.insert(i, l),
            None => out.push(l),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_has_the_three_families_with_the_expected_counts() {
        // 4 x 3 grid: horizontal stretch 3*3, vertical stretch 4*2, shear 2*3*2,
        // bend horizontal 2*3, bend vertical 4*1.
        let t = Topology::flat_grid(4, 3, 0.1, Vec3::ZERO);
        let count = |k| t.links.iter().filter(|l| l.kind == k).count();
        assert_eq!(count(ConstraintKind::StretchHorizontal), 9);
        assert_eq!(count(ConstraintKind::StretchVertical), 8);
        assert_eq!(count(ConstraintKind::Shear), 12);
        assert_eq!(count(ConstraintKind::Bend), 10);
        let shear = t
            .links
            .iter()
            .find(|l| l.kind == ConstraintKind::Shear)
            .unwrap();
        assert!((shear.rest - 0.1 * 2f32.sqrt()).abs() < 1e-6);
        let bend = t
            .links
            .iter()
            .find(|l| l.kind == ConstraintKind::Bend)
            .unwrap();
        assert!((bend.rest - 0.2).abs() < 1e-6);
        assert_eq!(t.triangles.len(), 12);
    }

    #[test]
    fn edges_are_particles_with_fewer_than_four_stretch_links() {
        // 5 x 4: the top row is pinned; the side columns and the hem are edges; the 3 x 2
        // interior below the top row are not.
        let t = Topology::flat_grid(5, 4, 0.1, Vec3::ZERO);
        let edges: Vec<usize> = (0..t.len()).filter(|&i| t.edge[i]).collect();
        assert_eq!(edges, vec![5, 9, 10, 14, 15, 16, 17, 18, 19]);
        assert!((0..5).all(|i| t.pinned[i] && !t.edge[i]));
    }

    #[test]
    fn hard_links_are_vertical_and_sorted_top_down() {
        let t = Topology::flat_grid(3, 4, 0.1, Vec3::ZERO);
        let hard = t.hard_links();
        assert_eq!(hard.len(), 9);
        let rows: Vec<usize> = hard.iter().map(|l| t.row(l.a as usize)).collect();
        assert_eq!(rows, vec![0, 0, 0, 1, 1, 1, 2, 2, 2]);
        assert!(hard.iter().all(|l| l.b as usize == l.a as usize + 3));
    }

    #[test]
    fn interleave_keeps_every_link_and_separates_neighbours() {
        let t = Topology::flat_grid(16, 16, 0.1, Vec3::ZERO);
        let order = interleave(&t.links, 2);
        assert_eq!(order.len(), t.links.len());
        let shares = |x: &Link, y: &Link| x.a == y.a || x.a == y.b || x.b == y.a || x.b == y.b;
        let clashes = order.windows(2).filter(|w| shares(&w[0], &w[1])).count();
        assert_eq!(clashes, 0);
        let mut a: Vec<(u32, u32)> = t.links.iter().map(|l| (l.a, l.b)).collect();
        let mut b: Vec<(u32, u32)> = order.iter().map(|l| (l.a, l.b)).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }

    #[test]
    fn bad_grids_are_errors_not_panics() {
        assert!(matches!(
            Topology::from_grid(1, 5, vec![Vec3::ZERO; 5]),
            Err(TopologyError::TooSmall { .. })
        ));
        assert!(matches!(
            Topology::from_grid(2, 2, vec![Vec3::ZERO; 3]),
            Err(TopologyError::WrongCount { .. })
        ));
        assert!(matches!(
            Topology::from_grid(2, 2, vec![Vec3::ZERO; 4]),
            Err(TopologyError::Degenerate { .. })
        ));
        let mut p = Topology::flat_grid(2, 2, 0.1, Vec3::ZERO).rest;
        p[3].x = f32::NAN;
        assert!(matches!(
            Topology::from_grid(2, 2, p),
            Err(TopologyError::NotFinite { index: 3 })
        ));
    }
}
