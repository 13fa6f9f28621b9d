//! The unit formulas every engine export is built from, written once here and in
//! `docs/engines.md`. Our knobs act per solver step (`h` steps a second) and per relaxation
//! pass (`n` passes a step); engines state theirs per second, per their own period, as a
//! compliance or as a scale. Each formula keeps what the fabric does *per second*.
//!
//! Notation: `h` = our solver rate in steps/s (`timestep_hz x substeps`), `n` = passes per
//! step, `d` = a per-step damping (fraction of velocity removed), `k` = a per-pass stiffness
//! (fraction of a link's error removed).

/// Standard gravity, m/s²: the default of every engine here (Unity, Jolt, NvCloth samples).
pub const STANDARD_GRAVITY: f64 = 9.81;
/// Air density at sea level, kg/m³, for engines that take a drag coefficient.
pub const AIR_DENSITY: f64 = 1.225;
/// Areal density (kg/m²) assumed where an engine's drag needs a mass per area that our
/// preset does not hold: Chaos's default `Density`.
pub const REFERENCE_AREAL_DENSITY: f64 = 0.35;
/// Centimetres per metre (Unreal's unit of length).
pub const CM_PER_M: f64 = 100.0;

/// A fraction removed `from_rate` times a second, re-expressed as the fraction removed
/// `to_rate` times a second with the same remainder per second:
/// `1 - (1 - f)^(from_rate / to_rate)`. Used for damping (`from_rate = h`) and stiffness
/// (`from_rate = n h`) against an engine's period (`to_rate` = its stiffness frequency).
pub fn per_rate(fraction: f64, from_rate: f64, to_rate: f64) -> f64 {
    let f = fraction.clamp(0.0, 1.0);
    if f >= 1.0 {
        return 1.0;
    }
    1.0 - (1.0 - f).powf(from_rate / to_rate)
}

/// Jolt's `mLinearDamping` (1/s) for a per-step damping `d` at `h` steps/s, when Jolt runs
/// `substeps_per_s` substeps a second (step rate x `mNumIterations`) and multiplies the
/// velocity by `1 - c dt` each substep: `c = S (1 - (1 - d)^(h / S))`, so
/// `(1 - c/S)^S = (1 - d)^h` exactly.
pub fn jolt_linear_damping(d: f64, h: f64, substeps_per_s: f64) -> f64 {
    substeps_per_s * per_rate(d, h, substeps_per_s)
}

/// The per-step damping a Jolt `mLinearDamping` `c` stands for (the inverse of
/// [`jolt_linear_damping`]).
pub fn damping_from_jolt(c: f64, h: f64, substeps_per_s: f64) -> f64 {
    per_rate(c / substeps_per_s, substeps_per_s, h)
}

/// The XPBD compliance (m/N, Jolt's `mCompliance`) whose correction per substep equals a
/// PBD stiffness `k`: a substep removes `w / (w + α / dt²)` of the error, `w` the summed
/// inverse masses (1/kg), `dt` the substep (s), so `α = w dt² (1 - k) / k`. `k = 0` is
/// `f32::MAX`, which Jolt reads as "no constraint".
pub fn compliance_from_stiffness(k: f64, w: f64, dt: f64) -> f64 {
    if k <= 0.0 {
        return f32::MAX as f64;
    }
    w * dt * dt * (1.0 - k.min(1.0)) / k.min(1.0)
}

/// The PBD stiffness a compliance stands for (the inverse of
/// [`compliance_from_stiffness`]).
pub fn stiffness_from_compliance(alpha: f64, w: f64, dt: f64) -> f64 {
    if alpha >= f32::MAX as f64 {
        return 0.0;
    }
    w / (w + alpha / (dt * dt))
}

/// A wind response in our units (acceleration per (m/s)² of wind on a surface facing it, 1/m)
/// as the dimensionless drag coefficient of `F = ½ ρ C A v²` on a fabric of areal density
/// `sigma` (kg/m²): `C = 2 σ k_w / ρ`.
pub fn drag_coefficient(wind_drag: f64, sigma: f64) -> f64 {
    2.0 * sigma * wind_drag / AIR_DENSITY
}

/// The inverse of [`drag_coefficient`].
pub fn wind_drag_from_coefficient(c: f64, sigma: f64) -> f64 {
    c * AIR_DENSITY / (2.0 * sigma)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_rate_keeps_the_remainder_per_second_and_round_trips() {
        // 2 % a step at 120 Hz is 1 - 0.98^12 per 1/10 s.
        let per_tenth = per_rate(0.02, 120.0, 10.0);
        assert!((per_tenth - (1.0 - 0.98f64.powi(12))).abs() < 1e-12);
        assert!((per_rate(per_tenth, 10.0, 120.0) - 0.02).abs() < 1e-12);
        assert!((per_rate(0.3, 60.0, 60.0) - 0.3).abs() < 1e-12);
        assert_eq!(per_rate(1.0, 60.0, 10.0), 1.0);
        assert_eq!(per_rate(0.0, 60.0, 10.0), 0.0);
    }

    #[test]
    fn jolt_damping_and_compliance_round_trip() {
        let c = jolt_linear_damping(0.02, 120.0, 240.0);
        // Per second: (1 - c/240)^240 = 0.98^120.
        let kept = (1.0 - c / 240.0).powf(240.0);
        assert!((kept - 0.98f64.powf(120.0)).abs() < 1e-9, "{kept}");
        assert!((damping_from_jolt(c, 120.0, 240.0) - 0.02).abs() < 1e-12);
        let dt = 1.0 / 240.0;
        for k in [0.05, 0.3, 0.9, 1.0] {
            let a = compliance_from_stiffness(k, 2.0, dt);
            assert!(
                (stiffness_from_compliance(a, 2.0, dt) - k).abs() < 1e-12,
                "{k}"
            );
        }
        assert_eq!(compliance_from_stiffness(1.0, 2.0, dt), 0.0);
        assert_eq!(compliance_from_stiffness(0.0, 2.0, dt), f32::MAX as f64);
        let cd = drag_coefficient(1.5, REFERENCE_AREAL_DENSITY);
        assert!((wind_drag_from_coefficient(cd, REFERENCE_AREAL_DENSITY) - 1.5).abs() < 1e-12);
    }
}
