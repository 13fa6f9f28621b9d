//! The render mesh opens where the cloth tore: the jacket's detailed mesh is skinned to bones
//! on every second simulation column, so it would stretch smoothly over a torn link like a
//! rubber sheet. Instead the render triangles around each torn stretch link stop drawing: those
//! whose centre lies within half a grid cell of the link's middle, across the link and along
//! it (a horizontal link (c, r)-(c + 1, r) hides columns c to c + 1 between rows r - ½ and
//! r + ½). A run of torn links in one column or row reads as a slit, a patch as a hole.

use crate::sim::{ConstraintKind, Link};

use super::GarmentRig;

/// The render mesh's triangles minus those across a torn stretch link, into `out` (cleared
/// first). `links` are the cloth's links and `torn` its torn flags, one per link
/// ([`crate::sim::Cloth::torn_links`]). With nothing torn, `out` is the whole mesh.
pub fn open_indices(rig: &GarmentRig, links: &[Link], torn: &[bool], out: &mut Vec<u32>) {
    out.clear();
    let cols = rig.topology.cols;
    // The boxes (column and row ranges, grid units) around the torn stretch links.
    let holes: Vec<[f32; 4]> = links
        .iter()
        .zip(torn)
        .filter(|(l, &t)| t && l.kind.is_stretch())
        .map(|(l, _)| {
            let (a, b) = (l.a.min(l.b) as usize, l.a.max(l.b) as usize);
            let (c, r) = ((a % cols) as f32, (a / cols) as f32);
            if l.kind == ConstraintKind::StretchHorizontal {
                debug_assert_eq!(b, a + 1);
                [c, c + 1.0, r - 0.5, r + 0.5]
            } else {
                [c - 0.5, c + 0.5, r, r + 1.0]
            }
        })
        .collect();
    for tri in rig.render.indices.chunks_exact(3) {
        let centre = tri.iter().try_fold((0.0, 0.0), |(u, v), &i| {
            rig.shell_grid_coords(i)
                .map(|(x, y)| (u + x / 3.0, v + y / 3.0))
        });
        let hidden = centre.is_some_and(|(u, v)| {
            holes
                .iter()
                .any(|h| u > h[0] && u < h[1] && v > h[2] && v < h[3])
        });
        if !hidden {
            out.extend_from_slice(tri);
        }
    }
}
