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
    /// the points sorted by squared distance to `p` and then index.
    pub(crate) fn nearest<const K: usize>(&self, p: Vec3) -> [Option<usize>; K] {
        self.nearest_within::<K>(p, f32::INFINITY)
    }

    /// The (up to) `K` points nearest `p` among those nearer than `within`, nearest first,
    /// ties by index: the first `K` of those points sorted by squared distance to `p` and then
    /// index. Shells of cells are taken around `p`'s cell until the `K`th nearest found is
    /// nearer than anything in a shell not yet taken can be ([`PointGrid::beyond_squared`]);
    /// in each shell, the cells that lie further from `p` than the `K`th nearest found so far
    /// are passed over unread. Allocates nothing.
    pub(crate) fn nearest_within<const K: usize>(
        &self,
        p: Vec3,
        within: f32,
    ) -> [Option<usize>; K] {
        // As a search over every point starting from f32::MAX would.
        let limit = (within * within).min(f32::MAX);
        let mut best = Best::<K> {
            kept: [(limit, u32::MAX); K],
            len: 0,
        };
        if K > 0 {
            let centre = self.cell_of(p);
            let shells = self.dims.iter().max().copied().unwrap_or(1);
            for s in 0..shells {
                self.add_shell(centre, s, p, &mut best);
                if best.worst() < self.beyond_squared(centre, s, p) {
                    break;
                }
            }
        }
        std::array::from_fn(|k| (k < best.len).then(|| best.kept[k].1 as usize))
    }

    /// At most the squared distance from `p` to any point in a cell more than `s` cells from
    /// `centre` along some axis (infinite when there is none): such a point lies beyond a face
    /// of the cube of cells taken, so it is at least as far from `p` along that face's axis as
    /// the face, and along the other two at least as far as the grid's box. A query outside
    /// the box (clamped to its edge cells) so stops as soon as nothing beyond can be nearer,
    /// not when the shells have reached as far as it lies.
    fn beyond_squared(&self, centre: [usize; 3], s: usize, p: Vec3) -> f32 {
        let half = 0.5 * self.cell;
        let rel = p - self.origin;
        // Per axis, how far `p` lies outside the grid's box.
        let outside = [0, 1, 2].map(|a| {
            let size = self.dims[a] as f32 * self.cell;
            ((-rel[a]).max(rel[a] - size) - half).max(0.0)
        });
        let mut bound = f32::INFINITY;
        for a in 0..3 {
            let across: f32 = (0..3)
                .filter(|&b| b != a)
                .map(|b| outside[b] * outside[b])
                .sum();
            // Cells below the cube along `a` end where cell `centre - s` begins; cells above
            // it begin where cell `centre + s` ends.
            let below = (centre[a] > s).then(|| rel[a] - (centre[a] - s) as f32 * self.cell);
            let above = (centre[a] + s + 1 < self.dims[a])
                .then(|| (centre[a] + s + 1) as f32 * self.cell - rel[a]);
            for gap in [below, above].into_iter().flatten() {
                let gap = (gap - half).max(0.0);
                bound = bound.min(gap * gap + across);
            }
        }
        bound
    }

    /// At most the squared distance along axis `a` from `rel` (a position relative to the
    /// origin) to any point in cell `i` along that axis. Each cell is taken half a cell wider
    /// on each side, so a point put in a neighbouring cell by rounding is covered.
    fn gap_squared(&self, rel: f32, i: usize) -> f32 {
        let lo = (i as f32 - 0.5) * self.cell;
        let hi = (i as f32 + 1.5) * self.cell;
        let gap = (lo - rel).max(rel - hi).max(0.0);
        gap * gap
    }

    /// Offers `best` the points of the cells exactly `s` cells from `centre` (the largest of
    /// the three index differences), passing over the planes, rows and cells of them that lie
    /// further from `p` than the worst point `best` keeps.
    fn add_shell<const K: usize>(&self, centre: [usize; 3], s: usize, p: Vec3, best: &mut Best<K>) {
        let rel = p - self.origin;
        let range = |a: usize| centre[a].saturating_sub(s)..=(centre[a] + s).min(self.dims[a] - 1);
        for z in range(2) {
            let gz = self.gap_squared(rel.z, z);
            if gz > best.worst() {
                continue;
            }
            for y in range(1) {
                let gyz = gz + self.gap_squared(rel.y, y);
                if gyz > best.worst() {
                    continue;
                }
                // Inside the shell's faces in y and z, only its two ends in x are on it: the
                // shell's cells are visited alone, so a far query costs its shells' surfaces,
                // not their volumes.
                let inner = z.abs_diff(centre[2]) < s && y.abs_diff(centre[1]) < s;
                let ends = [
                    centre[0].checked_sub(s),
                    Some(centre[0] + s).filter(|&x| x < self.dims[0]),
                ];
                let mut visit = |x: usize| {
                    if gyz + self.gap_squared(rel.x, x) > best.worst() {
                        return;
                    }
                    let c = self.flat([x, y, z]);
                    for &i in &self.items[self.start[c] as usize..self.start[c + 1] as usize] {
                        best.offer(self.points[i as usize].distance_squared(p), i);
                    }
                };
                if inner {
                    ends.into_iter().flatten().for_each(&mut visit);
                } else {
                    range(0).for_each(&mut visit);
                }
            }
        }
    }
}

/// The `K` nearest points found so far, nearest first, ties by index.
struct Best<const K: usize> {
    /// The first `len` are found; the rest hold the limit a point must be nearer than.
    kept: [(f32, u32); K],
    len: usize,
}

impl<const K: usize> Best<K> {
    /// The squared distance a point must not exceed to be kept: the `K`th nearest's once `K`
    /// are found, the limit before.
    fn worst(&self) -> f32 {
        self.kept.last().map_or(f32::NEG_INFINITY, |k| k.0)
    }

    /// Keeps point `i` at squared distance `d` if it is among the `K` nearest so far.
    fn offer(&mut self, d: f32, i: u32) {
        let Some(&last) = self.kept.last() else {
            return;
        };
        // Not yet full, a point must be nearer than the limit; full, before the last kept.
        let before = |a: (f32, u32), b: (f32, u32)| a.0 < b.0 || (a.0 == b.0 && a.1 < b.1);
        let keep = if self.len < K {
            d < last.0
        } else {
            before((d, i), last)
        };
        if !keep {
            return;
        }
        let mut at = self.len.min(K - 1);
        while at > 0 && before((d, i), self.kept[at - 1]) {
            self.kept[at] = self.kept[at - 1];
            at -= 1;
        }
        self.kept[at] = (d, i);
        self.len = (self.len + 1).min(K);
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
        // Queries far from the cloud along one axis, as a garment's hem is from its sleeves;
        // and bounded searches, which find the nearest of those within the bound.
        for j in 0..200 {
            let t = j as f32 * 0.413;
            let q = Vec3::new(t.sin() * 0.5, -0.2 - (j % 7) as f32 * 0.3, t.cos() * 0.2);
            let got: Vec<usize> = grid.nearest::<1>(q).into_iter().flatten().collect();
            assert_eq!(got, every(&points, q, 1), "{q}");
            let within = 0.05 + (j % 5) as f32 * 0.2;
            let got: Vec<usize> = grid
                .nearest_within::<4>(q, within)
                .into_iter()
                .flatten()
                .collect();
            let near = every(&points, q, 4)
                .into_iter()
                .filter(|&i| points[i].distance_squared(q) < within * within);
            assert_eq!(got, near.collect::<Vec<_>>(), "{q} within {within}");
        }
        // Fewer points than asked for: all of them, nearest first.
        let few = [Vec3::X, Vec3::ZERO, Vec3::Y];
        let got = PointGrid::new(few.to_vec()).nearest::<4>(Vec3::splat(0.1));
        assert_eq!(got, [Some(1), Some(0), Some(2), None]);
    }
}
