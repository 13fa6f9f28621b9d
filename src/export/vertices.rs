//! Per-vertex data on the artist's own mesh: with an imported garment the engines' arrays
//! (max distance, pinned, edge, mass) cover the garment's vertices as its glTF file lists them,
//! not our grid's particles, so they fit the mesh the game ships.
//!
//! Each vertex takes its place on the grid from the rule its skinning came from
//! ([`ImportedGarment::vertex_places`]): (column, row) coordinates and the cloth bones' share
//! of its skinning. From there:
//! - pinned where the cloth bones take none of it (above the pin line, the sleeves);
//! - max distance: the grid's, bilinear over the cell it lies in, times that share (0 on a
//!   pinned vertex);
//! - edge: its nearest particle's flag (never on a pinned vertex);
//! - mass: the fabric's areal density over the vertex's own share of the mesh's rest area (a
//!   third of each triangle it is a corner of), on a simulated vertex times the grid's density
//!   there relative to the grid's mean (bilinear over the cell; `mass_falloff` makes the upper
//!   rows denser), so the masses of a mesh of any resolution follow its area, not its vertex
//!   count.

use glam::Vec3;

use super::particles::{GridSize, Particle};
use crate::garment::imported::{ImportedGarment, VertexPlace};
use crate::garment::Garment;
use crate::sim::mass::{area_fraction, areal_density_kg_m2, inverse_mass_per_kg, total_mass_kg};
use crate::sim::FabricParams;

/// The artist's garment mesh the per-particle arrays are written over.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshVertices {
    /// The mesh's name in its file (its node's, else the mesh's).
    pub name: String,
    /// Per vertex, in the file's order: its place on the grid, `None` for a sleeve's.
    pub places: Vec<Option<VertexPlace>>,
    /// Per vertex, its share of the mesh's rest area, m².
    pub areas_m2: Vec<f64>,
}

impl MeshVertices {
    /// The vertices of the garment `worn`, when it is the artist's own (`None` for a
    /// template, whose arrays stay on the grid).
    pub fn of_worn(worn: &dyn Garment) -> Option<Self> {
        worn.as_any()
            .downcast_ref::<ImportedGarment>()
            .map(Self::of)
    }

    /// The vertices of an imported garment.
    pub fn of(garment: &ImportedGarment) -> Self {
        let mesh = &garment.rig().render;
        Self {
            name: garment.name().to_string(),
            places: garment.vertex_places().to_vec(),
            areas_m2: vertex_areas(&mesh.positions, &mesh.indices),
        }
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.places.len()
    }

    /// True for a mesh with no vertices.
    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }
}

/// Per vertex, a third of the area of each triangle it is a corner of, m².
fn vertex_areas(positions: &[Vec3], indices: &[u32]) -> Vec<f64> {
    let mut areas = vec![0.0; positions.len()];
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|k| positions[tri[k] as usize]);
        let third = (b - a).cross(c - a).length() as f64 / 6.0;
        for &v in tri {
            areas[v as usize] += third;
        }
    }
    areas
}

/// One row per vertex of `mesh` with the values the grid's particles (`table`, over `grid`)
/// give it; `index` is the vertex's, `row` and `col` its nearest particle's.
pub fn vertex_table(
    grid: GridSize,
    table: &[Particle],
    params: &FabricParams,
    mesh: &MeshVertices,
) -> Vec<Particle> {
    let density = areal_density_kg_m2(params);
    let total = total_mass_kg(params, grid.area_m2 as f64);
    // Each particle's density relative to the garment's mean: its mass over its share of
    // the whole garment's.
    let relative: Vec<f64> = table
        .iter()
        .map(|q| q.mass_kg as f64 / (total * area_fraction(grid.cols, grid.rows, q.index)))
        .collect();
    mesh.places
        .iter()
        .zip(&mesh.areas_m2)
        .enumerate()
        .map(|(index, (place, &area))| {
            let Some(p) = place else {
                let mass = density * area;
                return Particle {
                    index,
                    row: 0,
                    col: 0,
                    pinned: true,
                    edge: false,
                    max_distance_m: 0.0,
                    mass_kg: mass as f32,
                    inv_mass: 0.0,
                };
            };
            let (row, col) = nearest(grid, p);
            let pinned = p.share <= 0.0;
            let max_distance = bilinear(grid, p, |i| table[i].max_distance_m as f64);
            // The falloff is the simulated rows'; what stays on the body weighs its area.
            let scale = if pinned {
                1.0
            } else {
                bilinear(grid, p, |i| relative[i])
            };
            let mass = density * area * scale;
            Particle {
                index,
                row,
                col,
                pinned,
                edge: !pinned && table[row * grid.cols + col].edge,
                max_distance_m: if pinned {
                    0.0
                } else {
                    (max_distance * p.share as f64) as f32
                },
                mass_kg: mass as f32,
                inv_mass: inverse_mass_per_kg(mass, pinned) as f32,
            }
        })
        .collect()
}

/// The (row, column) of the particle nearest grid place `p`.
fn nearest(grid: GridSize, p: &VertexPlace) -> (usize, usize) {
    let at = |x: f32, n: usize| (x.round().max(0.0) as usize).min(n - 1);
    (at(p.v, grid.rows), at(p.u, grid.cols))
}

/// `value` of the particles at the corners of the cell holding `p`, blended bilinearly.
fn bilinear(grid: GridSize, p: &VertexPlace, value: impl Fn(usize) -> f64) -> f64 {
    let cell = |x: f32, n: usize| {
        let x = x.clamp(0.0, (n - 1) as f32);
        let i = (x.floor() as usize).min(n - 2);
        (i, (x - i as f32) as f64)
    };
    let (c0, fu) = cell(p.u, grid.cols);
    let (r0, fv) = cell(p.v, grid.rows);
    let at = |r: usize, c: usize| value(r * grid.cols + c);
    let top = at(r0, c0) * (1.0 - fu) + at(r0, c0 + 1) * fu;
    let bottom = at(r0 + 1, c0) * (1.0 - fu) + at(r0 + 1, c0 + 1) * fu;
    top * (1.0 - fv) + bottom * fv
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::particle_table;

    fn place(u: f32, v: f32, share: f32) -> Option<VertexPlace> {
        Some(VertexPlace { u, v, share })
    }

    #[test]
    fn vertices_take_the_cell_they_lie_in() {
        let params = FabricParams {
            max_distance_top: 0.0,
            max_distance_hem: 0.3,
            max_distance_exponent: 1.0,
            edge_max_distance_scale: 1.0,
            mass_falloff: 1.0,
            areal_density_gsm: 200.0,
            ..Default::default()
        };
        // 5 x 4 particles 0.1 m apart: the max distance grows 0.1 m a row.
        let grid = GridSize::panel(5, 4, 0.1);
        let table = particle_table(grid, &params, &[]);
        let mesh = MeshVertices {
            name: "coat".into(),
            places: vec![
                None,
                place(2.0, 0.0, 0.0),
                place(2.0, 1.5, 1.0),
                place(2.0, 1.5, 0.5),
                place(0.2, 3.0, 1.0),
            ],
            areas_m2: vec![0.01; 5],
        };
        let t = vertex_table(grid, &table, &params, &mesh);
        assert_eq!(t.len(), 5);
        assert!(t[0].pinned && t[1].pinned && !t[2].pinned);
        assert_eq!((t[0].max_distance_m, t[1].max_distance_m), (0.0, 0.0));
        assert_eq!((t[0].inv_mass, t[1].inv_mass), (0.0, 0.0));
        // Halfway between rows 1 and 2; half the cloth's share halves it.
        assert!((t[2].max_distance_m - 0.15).abs() < 1e-6, "{t:?}");
        assert!((t[3].max_distance_m - 0.075).abs() < 1e-6, "{t:?}");
        // Nearest the hem's first column: an edge.
        assert!(t[4].edge && (t[4].row, t[4].col) == (3, 0));
        assert!(!t[2].edge);
        // No falloff: every vertex weighs the density times its area, 2 g.
        for q in &t {
            assert!((q.mass_kg - 0.002).abs() < 1e-7, "{q:?}");
        }
        assert!((t[2].inv_mass - 500.0).abs() < 1e-3);
    }

    #[test]
    fn a_falloff_makes_upper_vertices_heavier_for_the_same_area() {
        let params = FabricParams {
            mass_falloff: 2.0,
            ..Default::default()
        };
        let grid = GridSize::panel(5, 4, 0.1);
        let table = particle_table(grid, &params, &[]);
        let mesh = MeshVertices {
            name: "coat".into(),
            places: vec![place(2.0, 1.0, 1.0), place(2.0, 2.0, 1.0)],
            areas_m2: vec![0.01; 2],
        };
        let t = vertex_table(grid, &table, &params, &mesh);
        assert!((t[0].mass_kg / t[1].mass_kg - 2.0).abs() < 1e-5, "{t:?}");
    }

    #[test]
    fn each_vertex_gets_a_third_of_its_triangles() {
        let p = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0)];
        let a = vertex_areas(&p, &[0, 1, 2, 1, 3, 2]);
        let third = 0.5 / 3.0;
        assert!((a[0] - third).abs() < 1e-12 && (a[3] - third).abs() < 1e-12);
        assert!((a[1] - 2.0 * third).abs() < 1e-12 && (a[2] - 2.0 * third).abs() < 1e-12);
    }
}
