//! The k nearest of a fixed set of points, through a uniform grid: what a search over every
//! point finds (the same points in the same order, ties by index), without visiting them all.
//! Building a garment asks this of the body's skin for each of thousands of mesh points.

use glam::Vec3;

/// Cells along the longest side of the points' box.
const CELLS_ALONG_LONGEST: f32 = 64.0;

/// The points sorted into cubic cells.
pub(crate) struct PointGrid {
    points: Vec<Vec3>,
    origin: Vec3,
    cell: f32,
    dims: [usize; 3],
    /// Cell `c`'s points are `items[start[c]..start[c + 1]]`, in index order.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl PointGrid {
    pub(crate) fn new(points: Vec<Vec3>) -> Self {
        let finite = || points.iter().filter(|p| p.is_finite());
        let lo = finite().fold(Vec3::INFINITY, |a, &p| a.min(p));
        let hi = finite().fold(Vec3::NEG_INFINITY, |a, &p| a.max(p));
        let (origin, extent) = if lo.cmple(hi).all() {
            (lo, hi - lo)
        } else {
            (Vec3::ZERO, Vec3::ZERO)
        };
        let cell = (extent.max_element() / CELLS_ALONG_LONGEST).max(1e-6);
        let dims = extent.to_array().map(|e| (e / cell) as usize + 1);
        let mut grid = Self {
            points: Vec::new(),
            origin,
            cell,
            dims,
            start: vec![0; dims[0] * dims[1] * dims[2] + 1],
            items: Vec::with_capacity(points.len()),
        };
        // A counting sort by cell keeps each cell's points in index order.
        let cells: Vec<usize> = points.iter().map(|&p| grid.flat(grid.cell_of(p))).collect();
        for &c in &cells {
            grid.start[c + 1] += 1;
        }
        for c in 1..grid.start.len() {
            grid.start[c] += grid.start[c - 1];
        }
        let mut next = grid.start.clone();
        grid.items = vec![0; points.len()];
        for (i, &c) in cells.iter().enumerate() {
            grid.items[next[c] as usize] = i as u32;
            next[c] += 1;
        }
        grid.points = points;
        grid
    }

    /// The points, in the order given.
    pub(crate) fn points(&self) -> &[Vec3] {
        &self.points
    }

    /// The cell holding `p`, clamped into the grid (a NaN coordinate to cell 0).
    fn cell_of(&self, p: Vec3) -> [usize; 3] {
        let rel = (p - self.origin) / self.cell;
        [0, 1, 2].map(|a| (rel[a].max(0.0) as usize).min(self.dims[a] - 1))
    }

    fn flat(&self, [x, y, z]: [usize; 3]) -> usize {
        (z * self.dims[1] + y) * self.dims[0] + x
    }

    /// The (up to) `K` points nearest `p`, nearest first, ties by index: the first `K` of all
    /// the points sorted by squared distance to `p` and then index. Shells of cells are taken
    /// around `p`'s cell until the `K`th nearest found is nearer than anything in a shell not
    /// yet taken can be: a point `s + 1` cells away along some axis is at least `s` cells
    /// away from `p`, which lies in (or, clamped, beyond) its cell.
    pub(crate) fn nearest<const K: usize>(&self, p: Vec3) -> [Option<usize>; K] {
        let mut found: Vec<(f32, u32)> = Vec::new();
        let centre = self.cell_of(p);
        let shells = self.dims.iter().max().copied().unwrap_or(1);
        // A total order (indices differ), so the K kept are the same however they are found.
        let order = |a: &(f32, u32), b: &(f32, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        for s in 0..shells {
            self.add_shell(centre, s, p, &mut found);
            if K == 0 || found.len() < K {
                continue;
            }
            // The K nearest so far, the Kth last; the rest can never be among them.
            found.select_nth_unstable_by(K - 1, order);
            found.truncate(K);
            // Half a cell less, so a point put in a neighbouring cell by rounding is covered.
            let reach = (s as f32 - 0.5).max(0.0) * self.cell;
            if found[K - 1].0 < reach * reach {
                break;
            }
        }
        found.sort_by(order);
        std::array::from_fn(|k| found.get(k).map(|&(_, i)| i as usize))
    }

    /// Appends the points of the cells exactly `s` cells from `centre` (the largest of the
    /// three index differences), with their squared distances to `p`.
    fn add_shell(&self, centre: [usize; 3], s: usize, p: Vec3, found: &mut Vec<(f32, u32)>) {
        let range = |a: usize| centre[a].saturating_sub(s)..=(centre[a] + s).min(self.dims[a] - 1);
        for z in range(2) {
            for y in range(1) {
                // Inside the shell's faces in y and z, only its two ends in x are on it: the
                // shell's cells are visited alone (in the order walking the whole cube gives),
                // so a far query costs its shells' surfaces, not their volumes.
                let inner = z.abs_diff(centre[2]) < s && y.abs_diff(centre[1]) < s;
                let ends = [
                    centre[0].checked_sub(s),
                    Some(centre[0] + s).filter(|&x| x < self.dims[0]),
                ];
                let (mut all, mut two) = (range(0), ends.into_iter().flatten());
                let xs: &mut dyn Iterator<Item = usize> = if inner { &mut two } else { &mut all };
                for x in xs {
                    let c = self.flat([x, y, z]);
                    for &i in &self.items[self.start[c] as usize..self.start[c + 1] as usize] {
                        let d = self.points[i as usize].distance_squared(p);
                        // As a search over every point starting from f32::MAX would.
                        if d < f32::MAX {
                            found.push((d, i));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first `k` of every point sorted by squared distance, then index.
    fn every(points: &[Vec3], p: Vec3, k: usize) -> Vec<usize> {
        let mut all: Vec<(f32, usize)> = points
            .iter()
            .enumerate()
            .map(|(i, q)| (q.distance_squared(p), i))
            .collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        all.into_iter().take(k).map(|(_, i)| i).collect()
    }

    #[test]
    fn the_grid_finds_what_a_search_over_every_point_finds() {
        // A lumpy cloud, mirrored (ties between mirror images), with repeated points.
        let mut points = Vec::new();
        for i in 0..1500 {
            let t = i as f32 * 0.618;
            let p = Vec3::new(
                t.sin() * 0.3,
                (t * 0.37).cos() * 0.9 + 1.0,
                (t * 1.7).sin() * 0.15,
            );
            points.push(p);
            points.push(p * Vec3::new(-1.0, 1.0, 1.0));
            if i % 50 == 0 {
                points.push(p);
            }
        }
        let grid = PointGrid::new(points.clone());
        for j in 0..600 {
            let t = j as f32 * 0.731;
            // Queries on the mirror plane, inside the cloud and well outside its box.
            let scale = [1.0, 0.0, 2.5][j % 3];
            let q = Vec3::new(
                t.cos() * 0.4 * scale,
                t.sin() * 1.2 + 1.0,
                (t * 2.3).cos() * 0.3,
            );
            let got: Vec<usize> = grid.nearest::<16>(q).into_iter().flatten().collect();
            assert_eq!(got, every(&points, q, 16), "{q}");
        }
        // Fewer points than asked for: all of them, nearest first.
        let few = [Vec3::X, Vec3::ZERO, Vec3::Y];
        let got = PointGrid::new(few.to_vec()).nearest::<4>(Vec3::splat(0.1));
        assert_eq!(got, [Some(1), Some(0), Some(2), None]);
    }
}
