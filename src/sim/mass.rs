//! Masses in kilograms: what a garment of a given area weighs at the fabric's areal density,
//! and each particle's share of it, for the engine exports and the tuner's total. Our own
//! solver keeps its relative inverse masses ([`FabricParams::inv_mass_at`]): the motion here
//! does not depend on the density, an engine's does (its masses meet gravity, wind and other
//! bodies in kilograms).
//!
//! The rule, written once: a grid of `cols x rows` particles over `area` m² has
//! `(cols - 1)(rows - 1)` cells of equal area; a particle's share of the area is a quarter of
//! each cell it is a corner of. Its mass is the garment's mass `σ A` (σ the areal density in
//! kg/m²) split in proportion to that share times its row's weight, `mass_falloff` for every
//! row above the hem (the same ratio the solver uses), so the masses add up to `σ A` and the
//! rows keep the solver's ratios.

use super::{FabricParams, Topology};

/// Grams per kilogram.
const G_PER_KG: f64 = 1000.0;

/// The fabric's areal density in kg/m².
pub fn areal_density_kg_m2(params: &FabricParams) -> f64 {
    mass_kg_of(params.areal_density_gsm, 1.0)
}

/// The garment's rest area in m²: the sum of its triangles' areas.
pub fn rest_area_m2(topo: &Topology) -> f64 {
    topo.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| topo.rest[i as usize].as_dvec3());
            0.5 * (b - a).cross(c - a).length()
        })
        .sum()
}

/// The garment's mass in kg: its area times the areal density.
pub fn total_mass_kg(params: &FabricParams, area_m2: f64) -> f64 {
    mass_kg_of(params.areal_density_gsm, area_m2)
}

/// The mass in kg of `area_m2` of a fabric of `gsm` g/m².
pub fn mass_kg_of(gsm: f32, area_m2: f64) -> f64 {
    gsm as f64 / G_PER_KG * area_m2
}

/// Every particle's mass in kg, row-major (`row * cols + col`), pinned particles included
/// (they carry their share; an engine gives them inverse mass 0). Adds up to
/// [`total_mass_kg`]. Needs `cols` and `rows` of at least 2.
pub fn particle_masses_kg(
    params: &FabricParams,
    cols: usize,
    rows: usize,
    area_m2: f64,
) -> Vec<f64> {
    // A row's weight relative to the top row, so a steep falloff over many rows underflows
    // at the hem (a tiny mass) rather than overflowing at the top.
    let ln_falloff = (params.mass_falloff.max(1.0) as f64).ln();
    let weight = |r: usize| (-(r as f64) * ln_falloff).exp();
    let shares: Vec<f64> = (0..rows * cols)
        .map(|i| area_fraction(cols, rows, i) * weight(i / cols))
        .collect();
    let sum: f64 = shares.iter().sum();
    let total = total_mass_kg(params, area_m2);
    shares.iter().map(|s| total * s / sum).collect()
}

/// Particle `i`'s share of a `cols x rows` grid's area (row-major, `cols` and `rows` at least
/// 2): a quarter of each of the equal cells it is a corner of.
pub fn area_fraction(cols: usize, rows: usize, i: usize) -> f64 {
    let cells = ((cols - 1) * (rows - 1)) as f64;
    // Corners touch one cell, other border particles two, interior ones four.
    let along = |i: usize, n: usize| if i == 0 || i == n - 1 { 1.0 } else { 2.0 };
    along(i / cols, rows) * along(i % cols, cols) / (4.0 * cells)
}

/// The inverse of a mass in 1/kg for an engine: 0 for a pinned particle, and never more than
/// `f32::MAX` (a steep falloff leaves the hem almost weightless).
pub fn inverse_mass_per_kg(mass_kg: f64, pinned: bool) -> f64 {
    if pinned {
        0.0
    } else {
        (1.0 / mass_kg).min(f32::MAX as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uniform_panel_splits_its_mass_by_area() {
        // 3 x 3 particles, 1 m², 400 g/m²: four cells of 0.25 m², 0.4 kg in all.
        let p = FabricParams {
            areal_density_gsm: 400.0,
            mass_falloff: 1.0,
            ..Default::default()
        };
        let m = particle_masses_kg(&p, 3, 3, 1.0);
        assert!((m.iter().sum::<f64>() - 0.4).abs() < 1e-12);
        // A corner carries a quarter cell (0.025 kg), a side half of two (0.05), the middle
        // a quarter of four (0.1).
        assert!((m[0] - 0.025).abs() < 1e-12, "{}", m[0]);
        assert!((m[1] - 0.05).abs() < 1e-12, "{}", m[1]);
        assert!((m[4] - 0.1).abs() < 1e-12, "{}", m[4]);
    }

    #[test]
    fn the_falloff_keeps_the_solvers_row_ratios_and_the_total() {
        let p = FabricParams {
            areal_density_gsm: 350.0,
            mass_falloff: 1.5,
            ..Default::default()
        };
        let (cols, rows) = (5, 4);
        let m = particle_masses_kg(&p, cols, rows, 0.6);
        assert!((m.iter().sum::<f64>() - 0.21).abs() < 1e-12);
        // Interior particles of rows 1 and 2: the solver's inverse masses say 1.5 to 1.
        let (upper, lower) = (m[cols + 2], m[2 * cols + 2]);
        let solver = p.inv_mass_at(2, rows, false) / p.inv_mass_at(1, rows, false);
        assert!((upper / lower - solver as f64).abs() < 1e-6);
        // The steepest falloff over the most rows stays finite and positive.
        let steep = FabricParams {
            mass_falloff: 2000.0,
            ..p
        };
        let m = particle_masses_kg(&steep, 3, 1000, 1.0);
        assert!(m.iter().all(|x| x.is_finite() && *x >= 0.0));
        assert!(inverse_mass_per_kg(m[m.len() - 1], false) <= f32::MAX as f64);
    }

    #[test]
    fn a_flat_grid_has_its_width_times_its_height() {
        let t = Topology::flat_grid(9, 10, 0.05, glam::Vec3::ZERO);
        assert!((rest_area_m2(&t) - 0.4 * 0.45).abs() < 1e-6);
    }
}
