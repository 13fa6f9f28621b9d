//! Per-particle data for the engines: max distance, inverse mass, pinned and edge flags of
//! every particle of a grid garment, by row and column, in the grid's own particle order
//! (row-major, row 0 the pinned top row). That is the engines' vertex order for our grid
//! mesh: Unity's `coefficients`, Chaos's weight map, NvCloth's motion constraints and Jolt's
//! skinned constraints are all indexed by it.

use serde::Serialize;

use crate::sim::painted::painted_or_curve;
use crate::sim::{FabricParams, Topology};

/// Columns and rows of a grid garment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridSize {
    /// Particles per row.
    pub cols: usize,
    /// Rows, top to hem.
    pub rows: usize,
}

impl GridSize {
    /// The built-in jacket's simulation grid (the rig's default layout).
    #[cfg(feature = "rig")]
    pub fn builtin_jacket() -> Self {
        Self::of_layout(&crate::rig::jacket::JacketLayout::default())
    }

    /// The simulation grid of a jacket layout (the one a scene plays with, fitted to its body).
    #[cfg(feature = "rig")]
    pub fn of_layout(layout: &crate::rig::jacket::JacketLayout) -> Self {
        Self {
            cols: layout.cols,
            rows: layout.rows,
        }
    }

    /// Parses `COLSxROWS` ("17x10"); each at least 2 and at most 1000.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("`{text}` is not a grid size: expected COLSxROWS, each 2 to 1000");
        let (c, r) = text.split_once(['x', 'X']).ok_or_else(bad)?;
        let cols: usize = c.trim().parse().map_err(|_| bad())?;
        let rows: usize = r.trim().parse().map_err(|_| bad())?;
        if !(2..=1000).contains(&cols) || !(2..=1000).contains(&rows) {
            return Err(bad());
        }
        Ok(Self { cols, rows })
    }
}

/// One particle's row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Particle {
    /// Index in the grid's order (`row * cols + col`).
    pub index: usize,
    /// Row, 0 at the top.
    pub row: usize,
    /// Column.
    pub col: usize,
    /// Skinned to the body every step (the top row).
    pub pinned: bool,
    /// An edge particle (hem, side columns): the edge knobs apply.
    pub edge: bool,
    /// How far it may leave its skinned position, metres (0 for pinned particles).
    pub max_distance_m: f32,
    /// Inverse mass relative to the hem (1); 0 when pinned.
    pub inv_mass: f32,
}

/// Every particle of a grid with the values the fabric gives it; `painted` holds the preset's
/// painted max distances in the grid's order (`None` where the curve applies; empty: the curve
/// everywhere, as for a preset with no `max_distance_map`).
pub fn particle_table(
    grid: GridSize,
    params: &FabricParams,
    painted: &[Option<f32>],
) -> Vec<Particle> {
    // The flags depend on the grid's connectivity only, so a flat sheet of the same size has
    // the garment's flags.
    let topo = Topology::flat_grid(grid.cols, grid.rows, 1.0, glam::Vec3::ZERO);
    (0..topo.len())
        .map(|i| {
            let pinned = topo.pinned[i];
            Particle {
                index: i,
                row: topo.row(i),
                col: topo.col(i),
                pinned,
                edge: topo.edge[i],
                max_distance_m: if pinned {
                    0.0
                } else {
                    let paint = painted.get(i).copied().flatten();
                    painted_or_curve(params, paint, topo.row_fraction(i), topo.edge[i])
                },
                inv_mass: params.inv_mass_at(topo.row(i), topo.rows, pinned),
            }
        })
        .collect()
}

/// The table as CSV, one line per particle with a header.
pub fn to_csv(table: &[Particle]) -> String {
    let mut out = String::from("index,row,col,pinned,edge,max_distance_m,inv_mass\n");
    for p in table {
        out.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            p.index, p.row, p.col, p.pinned as u8, p.edge as u8, p.max_distance_m, p.inv_mass
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_follows_the_rows_and_flags_the_edges() {
        let p = FabricParams {
            max_distance_top: 0.02,
            max_distance_hem: 0.3,
            max_distance_exponent: 1.0,
            edge_max_distance_scale: 2.0,
            mass_falloff: 2.0,
            ..Default::default()
        };
        let t = particle_table(GridSize { cols: 5, rows: 4 }, &p, &[]);
        assert_eq!(t.len(), 20);
        assert!(t[..5].iter().all(|q| q.pinned && q.max_distance_m == 0.0));
        assert!(t[..5].iter().all(|q| q.inv_mass == 0.0));
        // Row 3 is the hem: all edges, twice the hem distance, inverse mass 1.
        assert!(t[15..]
            .iter()
            .all(|q| q.edge && (q.max_distance_m - 0.6).abs() < 1e-6));
        assert!(t[15..].iter().all(|q| q.inv_mass == 1.0));
        // An interior particle of row 1: a third of the way, four times the hem's mass.
        let q = t[7];
        assert!(!q.edge && (q.max_distance_m - (0.02 + 0.28 / 3.0)).abs() < 1e-6);
        assert_eq!(q.inv_mass, 0.25);
        let csv = to_csv(&t);
        assert_eq!(csv.lines().count(), 21);
        assert!(
            csv.starts_with("index,row,col,pinned,edge,max_distance_m,inv_mass\n0,0,0,1,0,0,0\n")
        );
    }

    #[test]
    fn grid_sizes_parse_or_say_what_is_expected() {
        assert_eq!(
            GridSize::parse("17x10"),
            Ok(GridSize { cols: 17, rows: 10 })
        );
        let e = GridSize::parse("1x10").unwrap_err();
        assert!(e.contains("COLSxROWS, each 2 to 1000"), "{e}");
        assert!(GridSize::parse("abc").is_err());
    }
}
