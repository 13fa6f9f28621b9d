//! Coarser triangle sets of the character's meshes for the window's cheaper quality levels.
//!
//! On a software rasteriser a mesh costs by its triangles as much as by its pixels: every
//! vertex is shaded on one thread before the picture is shared out, and a triangle smaller
//! than a pixel still shades a whole block of them. The built-in body (19,000 triangles) and
//! jacket (13,000) cover about 200 pixels of height in the Fast view. So each mesh also gets
//! coarser triangle sets over the same vertices (meshoptimizer's edge collapses, which keep
//! the mesh's own normals, seams and winding), and a picture draws the coarsest one whose
//! error is under half a pixel at the character's distance: the same look for a fraction of
//! the work; zoomed in close, the full mesh again. A set's error is taken in the pose the
//! mesh was first drawn in.

use glam::Vec3;
use meshopt::SimplifyOptions;

/// Shares of the full mesh's triangles that the coarse sets aim for, finest first; each is
/// made from the one before it.
const SHARES: [f32; 3] = [0.5, 0.25, 0.125];

/// Meshes smaller than this many triangles are drawn as they are.
const MIN_TRIANGLES: usize = 2_000;

/// The largest error allowed on screen, pixels of the drawn picture. The error is
/// meshoptimizer's, measured at the full mesh's vertices; midway across a coarse triangle the
/// surface may stray up to about twice as far, so about a pixel at most.
const MAX_ERROR_PX: f32 = 0.5;

/// One coarse triangle set: its indices (into the full mesh's vertices) and how far the full
/// mesh's vertices lie from its surface, metres.
struct Level {
    indices: Vec<u32>,
    error_m: f32,
}

/// A mesh's coarse triangle sets, made once per index set.
#[derive(Default)]
pub struct Coarse {
    /// The index set the levels were made from ([`super::index_key`]).
    key: Option<(usize, u64)>,
    /// Finest first; empty when the mesh is small or does not simplify.
    levels: Vec<Level>,
}

impl Coarse {
    /// The triangles to draw for a mesh (`positions`, `indices`) seen at `pixels_per_metre`
    /// (at the character's distance; infinite: always the full mesh): the coarsest set whose
    /// error stays under half a pixel, else `indices`.
    pub fn pick<'a>(
        &'a mut self,
        positions: &[Vec3],
        indices: &'a [u32],
        pixels_per_metre: f32,
    ) -> &'a [u32] {
        if !pixels_per_metre.is_finite() {
            return indices;
        }
        let key = super::index_key(indices);
        if self.key != Some(key) {
            self.levels = levels(positions, indices);
            self.key = Some(key);
        }
        self.levels
            .iter()
            .rev()
            .find(|l| l.error_m * pixels_per_metre <= MAX_ERROR_PX)
            .map_or(indices, |l| &l.indices)
    }
}

/// The coarse sets of a mesh, finest first, each with its error measured from the full mesh
/// (the steps' errors added: an upper bound). Stops at a step that saves less than a fifth.
fn levels(positions: &[Vec3], indices: &[u32]) -> Vec<Level> {
    let full = indices.len() / 3;
    let mesh = super::MeshData {
        positions,
        normals: &[],
        uvs: &[],
        indices,
    };
    if full < MIN_TRIANGLES || !super::mesh_ok(&mesh) {
        return Vec::new();
    }
    let points: Vec<[f32; 3]> = positions.iter().map(|p| p.to_array()).collect();
    let mut out: Vec<Level> = Vec::new();
    for share in SHARES {
        let (from, error_before) = out
            .last()
            .map_or((indices, 0.0), |l| (&l.indices[..], l.error_m));
        let target = ((full as f32 * share) as usize).max(1) * 3;
        let mut error = 0.0f32;
        let simpler = meshopt::simplify_decoder(
            from,
            &points,
            target,
            f32::MAX,
            SimplifyOptions::ErrorAbsolute,
            Some(&mut error),
        );
        if simpler.is_empty() || simpler.len() * 5 > from.len() * 4 {
            break;
        }
        out.push(Level {
            indices: simpler,
            error_m: error_before + error,
        });
    }
    out
}

/// Pixels per metre of a picture `height_px` tall with a vertical field of view of `fov_deg`,
/// at `distance` metres from the eye.
pub fn pixels_per_metre(height_px: u32, fov_deg: f32, distance: f32) -> f32 {
    let half = (fov_deg.to_radians() / 2.0).tan();
    let ppm = height_px as f32 / (2.0 * distance.max(1e-3) * half);
    if ppm.is_finite() && ppm > 0.0 {
        ppm
    } else {
        f32::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed sphere of radius 1: `rings` bands of `segments` quads, one vertex at each
    /// pole, wound one way.
    fn sphere(rings: u32, segments: u32) -> (Vec<Vec3>, Vec<u32>) {
        let mut p = vec![Vec3::Y];
        for r in 1..rings {
            let theta = std::f32::consts::PI * r as f32 / rings as f32;
            for s in 0..segments {
                let phi = std::f32::consts::TAU * s as f32 / segments as f32;
                p.push(Vec3::new(
                    theta.sin() * phi.cos(),
                    theta.cos(),
                    theta.sin() * phi.sin(),
                ));
            }
        }
        p.push(-Vec3::Y);
        let south = p.len() as u32 - 1;
        let at = |r: u32, s: u32| 1 + (r - 1) * segments + s % segments;
        let mut idx = Vec::new();
        for s in 0..segments {
            idx.extend([0, at(1, s + 1), at(1, s)]);
            idx.extend([south, at(rings - 1, s), at(rings - 1, s + 1)]);
        }
        for r in 1..rings - 1 {
            for s in 0..segments {
                let (a, b) = (at(r, s), at(r, s + 1));
                let (c, d) = (at(r + 1, s), at(r + 1, s + 1));
                idx.extend([a, b, c, b, d, c]);
            }
        }
        (p, idx)
    }

    /// How far the triangles' centres lie inside the unit sphere, at most (the vertices lie on
    /// it, so they cannot show a collapse's error; the centres can).
    fn worst_midpoint_gap(p: &[Vec3], idx: &[u32]) -> f32 {
        idx.chunks(3)
            .map(|t| {
                let c = (p[t[0] as usize] + p[t[1] as usize] + p[t[2] as usize]) / 3.0;
                1.0 - c.length()
            })
            .fold(0.0, f32::max)
    }

    #[test]
    fn far_away_the_coarsest_set_is_drawn_and_close_up_the_full_mesh() {
        let (p, idx) = sphere(60, 80);
        let mut coarse = Coarse::default();
        let far = coarse.pick(&p, &idx, 20.0).len();
        assert!(far * 6 <= idx.len(), "far: {far} of {}", idx.len());
        let close = coarse.pick(&p, &idx, 1e6).len();
        assert_eq!(close, idx.len(), "close up, every triangle");
        assert_eq!(coarse.pick(&p, &idx, f32::INFINITY).len(), idx.len());
    }

    #[test]
    fn a_coarse_set_strays_no_further_than_its_error_says() {
        let (p, idx) = sphere(60, 80);
        let levels = levels(&p, &idx);
        assert_eq!(levels.len(), SHARES.len());
        let mut last = 0.0;
        for (l, share) in levels.iter().zip(SHARES) {
            let kept = l.indices.len() as f32 / idx.len() as f32;
            assert!(kept <= share * 1.05, "{kept} for {share}");
            assert!(l.indices.iter().all(|&i| (i as usize) < p.len()));
            // The full mesh's own chords sag below the sphere; the coarse set adds to that.
            // meshoptimizer's figure is measured at the full mesh's vertices, so across the
            // middle of a coarse triangle the gap may run past it (1.2 times here), not to
            // twice it.
            let gap = worst_midpoint_gap(&p, &l.indices);
            let sag = worst_midpoint_gap(&p, &idx);
            assert!(
                gap <= sag + 2.0 * l.error_m,
                "gap {gap} > {sag} + 2 x error {}",
                l.error_m
            );
            assert!(l.error_m >= last, "errors grow with coarseness");
            last = l.error_m;
        }
    }

    #[test]
    fn the_coarse_triangles_face_the_way_the_full_ones_do() {
        let (p, idx) = sphere(40, 60);
        // Which way a triangle faces: out of the sphere or into it (0: no area).
        let facing = |t: &[u32]| {
            let [a, b, c] = [0, 1, 2].map(|k| p[t[k] as usize]);
            let n = (b - a).cross(c - a);
            if n.length() < 1e-9 {
                0.0
            } else {
                n.dot(a + b + c).signum()
            }
        };
        let full: Vec<f32> = idx.chunks(3).map(facing).collect();
        assert!(
            full.iter().all(|f| *f == full[0] && *f != 0.0),
            "the test sphere is wound one way"
        );
        for l in levels(&p, &idx) {
            let coarse: Vec<f32> = l.indices.chunks(3).map(facing).collect();
            assert!(coarse.iter().all(|f| *f == full[0]), "winding kept");
        }
    }

    #[test]
    fn small_or_broken_meshes_keep_their_triangles() {
        let (p, idx) = sphere(10, 12);
        assert!(
            levels(&p, &idx).is_empty(),
            "under {MIN_TRIANGLES} triangles"
        );
        let (mut p, idx) = sphere(60, 80);
        p[5].x = f32::NAN;
        let mut coarse = Coarse::default();
        assert_eq!(coarse.pick(&p, &idx, 1.0).len(), idx.len());
    }

    #[test]
    fn pixels_per_metre_follow_the_view() {
        let near = pixels_per_metre(400, 40.0, 2.0);
        let far = pixels_per_metre(400, 40.0, 4.0);
        assert!((near / far - 2.0).abs() < 1e-5);
        assert!((pixels_per_metre(800, 40.0, 2.0) / near - 2.0).abs() < 1e-5);
        assert!(pixels_per_metre(400, f32::NAN, 2.0).is_infinite());
    }
}
