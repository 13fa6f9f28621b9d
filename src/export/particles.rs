//! Per-particle data for the engines: max distance, mass and inverse mass in kilograms,
//! pinned and edge flags of every particle of a grid garment, by row and column, in the
//! grid's own particle order
//! (row-major, row 0 the pinned top row). That is the engines' vertex order for our grid
//! mesh: Unity's `coefficients`, Chaos's weight map, NvCloth's motion constraints and Jolt's
//! skinned constraints are all indexed by it.

use serde::Serialize;

use crate::sim::mass::{inverse_mass_per_kg, particle_masses_kg, rest_area_m2};
use crate::sim::painted::painted_or_curve;
use crate::sim::{FabricParams, Topology};

/// Spacing of a flat panel given as `COLSxROWS` with no spacing, metres.
pub const DEFAULT_PANEL_SPACING_M: f32 = 0.05;

/// Columns, rows and rest area of a grid garment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridSize {
    /// Particles per row.
    pub cols: usize,
    /// Rows, top to hem.
    pub rows: usize,
    /// The garment's rest area, m²: with the preset's areal density it gives the masses.
    pub area_m2: f32,
}

impl GridSize {
    /// The grid and rest area of a garment's simulation mesh (the one a scene plays with).
    pub fn of_topology(topo: &Topology) -> Self {
        Self {
            cols: topo.cols,
            rows: topo.rows,
            area_m2: rest_area_m2(topo) as f32,
        }
    }

    /// A flat panel of `cols x rows` particles `spacing_m` apart.
    pub fn panel(cols: usize, rows: usize, spacing_m: f32) -> Self {
        let (w, h) = (cols.saturating_sub(1) as f32, rows.saturating_sub(1) as f32);
        Self {
            cols,
            rows,
            area_m2: w * h * spacing_m * spacing_m,
        }
    }

    /// Parses `COLSxROWS` ("17x10"), a flat panel [`DEFAULT_PANEL_SPACING_M`] apart, or
    /// `COLSxROWS@SPACING` ("9x10@0.04", metres); each count 2 to 1000, the spacing above 0
    /// and at most 1 m.
    pub fn parse(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "`{text}` is not a grid size: expected COLSxROWS or COLSxROWS@SPACING, each \
                 count 2 to 1000, the spacing in metres above 0 and at most 1 (default {})",
                DEFAULT_PANEL_SPACING_M
            )
        };
        let (size, spacing) = match text.split_once('@') {
            Some((size, s)) => (size, s.trim().parse::<f32>().map_err(|_| bad())?),
            None => (text, DEFAULT_PANEL_SPACING_M),
        };
        let (c, r) = size.split_once(['x', 'X']).ok_or_else(bad)?;
        let cols: usize = c.trim().parse().map_err(|_| bad())?;
        let rows: usize = r.trim().parse().map_err(|_| bad())?;
        let counts = (2..=1000).contains(&cols) && (2..=1000).contains(&rows);
        if !(counts && spacing > 0.0 && spacing <= 1.0) {
            return Err(bad());
        }
        Ok(Self::panel(cols, rows, spacing))
    }
}

/// One particle's row of the table; on the artist's garment mesh, one vertex's (`index` the
/// vertex's in the file's order, `row` and `col` its nearest particle's; `export::vertices`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Particle {
    /// Index in the grid's order (`row * cols + col`), or the mesh vertex's.
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
    /// Mass in kg: its share of the garment's area times the areal density, weighted by
    /// `mass_falloff` ([`crate::sim::mass`]); pinned particles carry theirs too.
    pub mass_kg: f32,
    /// Inverse mass in 1/kg; 0 when pinned (the engines' kinematic particles).
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
    let masses = particle_masses_kg(params, grid.cols, grid.rows, grid.area_m2 as f64);
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
                mass_kg: masses[i] as f32,
                inv_mass: inverse_mass_per_kg(masses[i], pinned) as f32,
            }
        })
        .collect()
}

/// The table as CSV, one line per particle with a header.
pub fn to_csv(table: &[Particle]) -> String {
    let mut out =
        String::from("index,row,col,pinned,edge,max_distance_m,mass_kg,inv_mass_per_kg\n");
    for p in table {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            p.index,
            p.row,
            p.col,
            p.pinned as u8,
            p.edge as u8,
            p.max_distance_m,
            p.mass_kg,
            p.inv_mass
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
            areal_density_gsm: 300.0,
            ..Default::default()
        };
        // 5 x 4 particles 0.5 m apart: 2 m x 1.5 m, 0.9 kg of fabric.
        let t = particle_table(GridSize::panel(5, 4, 0.5), &p, &[]);
        assert_eq!(t.len(), 20);
        assert!(t[..5].iter().all(|q| q.pinned && q.max_distance_m == 0.0));
        assert!(t[..5].iter().all(|q| q.inv_mass == 0.0 && q.mass_kg > 0.0));
        let total: f32 = t.iter().map(|q| q.mass_kg).sum();
        assert!((total - 0.9).abs() < 1e-5, "{total}");
        // Row 3 is the hem: all edges, twice the hem distance.
        assert!(t[15..]
            .iter()
            .all(|q| q.edge && (q.max_distance_m - 0.6).abs() < 1e-6));
        // An interior particle of row 1: a third of the way down, twice the mass of the
        // interior particle below it (falloff 2 per row).
        let q = t[7];
        assert!(!q.edge && (q.max_distance_m - (0.02 + 0.28 / 3.0)).abs() < 1e-6);
        assert!((q.mass_kg / t[12].mass_kg - 2.0).abs() < 1e-5);
        assert!((q.inv_mass * q.mass_kg - 1.0).abs() < 1e-6);
        let csv = to_csv(&t);
        assert_eq!(csv.lines().count(), 21);
        assert!(csv.starts_with(
            "index,row,col,pinned,edge,max_distance_m,mass_kg,inv_mass_per_kg\n0,0,0,1,0,0,"
        ));
    }

    #[test]
    fn grid_sizes_parse_or_say_what_is_expected() {
        assert_eq!(
            GridSize::parse("17x10"),
            Ok(GridSize::panel(17, 10, DEFAULT_PANEL_SPACING_M))
        );
        let g = GridSize::parse("9x10@0.04").unwrap();
        assert!((g.area_m2 - 8.0 * 9.0 * 0.0016).abs() < 1e-6);
        let e = GridSize::parse("1x10").unwrap_err();
        assert!(
            e.contains("COLSxROWS or COLSxROWS@SPACING, each count 2 to 1000"),
            "{e}"
        );
        assert!(GridSize::parse("abc").is_err());
        assert!(GridSize::parse("9x10@0").is_err());
        assert!(GridSize::parse("9x10@nan").is_err());
    }
}
