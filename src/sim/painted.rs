//! The one rule for a particle's max distance when an artist may have painted it: a painted
//! value is final (metres, not scaled by `edge_max_distance_scale`: the artist sees and sets
//! the distance the particle gets), else the fabric's curve
//! ([`FabricParams::max_distance_at`]). The solver and the engine exports both read it here.

use super::params::FabricParams;

/// The max distance (metres) of a free particle `row_fraction` of the way down the grid:
/// `painted` where there is a painted value, else the curve (times the edge scale on an edge).
pub fn painted_or_curve(
    params: &FabricParams,
    painted: Option<f32>,
    row_fraction: f32,
    edge: bool,
) -> f32 {
    painted.unwrap_or_else(|| params.max_distance_at(row_fraction, edge))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_painted_value_is_final_and_the_curve_fills_the_rest() {
        let p = FabricParams {
            max_distance_top: 0.1,
            max_distance_hem: 0.3,
            max_distance_exponent: 1.0,
            edge_max_distance_scale: 2.0,
            ..Default::default()
        };
        // Painted on an edge: not doubled by the edge scale.
        assert_eq!(painted_or_curve(&p, Some(0.05), 1.0, true), 0.05);
        assert!((painted_or_curve(&p, None, 0.5, false) - 0.2).abs() < 1e-6);
        assert!((painted_or_curve(&p, None, 0.5, true) - 0.4).abs() < 1e-6);
    }
}
