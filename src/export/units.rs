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

/// The base of Chaos's stiffness curve (`FPBDStiffness`, UE 5.x `Chaos/PBDStiffness.h`:
/// `ParameterFitBase`).
pub const CHAOS_CURVE_BASE: f64 = 1000.0;
/// The rate Chaos's stiffness fractions are per, Hz (`FPBDStiffness::ParameterFrequency`).
pub const CHAOS_PERIOD_HZ: f64 = 120.0;
/// The frame rate Chaos's `IterationCount` is stated at, Hz.
pub const CHAOS_ITERATION_FPS: f64 = 60.0;

/// Chaos's stiffness input for a fraction `f` removed per 1/120 s. Chaos maps an input `v`
/// to the fraction `(1000^v - 1) / 999` before use, so the input is `log_1000(1 + 999 f)`:
/// 0 stays 0, 1 stays 1, 0.58 becomes 0.92.
pub fn chaos_stiffness_input(f: f64) -> f64 {
    let f = f.clamp(0.0, 1.0);
    (1.0 + (CHAOS_CURVE_BASE - 1.0) * f).ln() / CHAOS_CURVE_BASE.ln()
}

/// The fraction per 1/120 s that a Chaos stiffness input `v` stands for (the inverse of
/// [`chaos_stiffness_input`]): `(1000^v - 1) / 999`.
pub fn chaos_stiffness_fraction(v: f64) -> f64 {
    (CHAOS_CURVE_BASE.powf(v.clamp(0.0, 1.0)) - 1.0) / (CHAOS_CURVE_BASE - 1.0)
}

/// Chaos's `IterationCount` for `passes` iterations per substep at a frame rate of
/// `frame_hz`: Chaos states it at 60 fps and scales it by the frame time
/// (`IterationCount x 60 / frame_hz` per substep, up to `MaxIterationCount`), so the count is
/// `passes x frame_hz / 60`, rounded, at least 1.
pub fn chaos_iteration_count(passes: u32, frame_hz: f64) -> u32 {
    ((passes as f64 * frame_hz / CHAOS_ITERATION_FPS).round() as u32).max(1)
}

/// The iterations per substep Chaos runs for an `IterationCount` at a frame rate of
/// `frame_hz` (the inverse of [`chaos_iteration_count`], before the cap).
pub fn chaos_iterations_per_substep(iteration_count: u32, frame_hz: f64) -> f64 {
    iteration_count as f64 * CHAOS_ITERATION_FPS / frame_hz
}

/// NvCloth's friction (and Unity's, which is NvCloth underneath) for a contact damping `d`
/// per step at `h` steps/s. NvCloth applies friction in every collision pass,
/// `solver_hz` a second, removing up to that fraction of the tangential velocity
/// (`SwCollision.cpp`, `calculateFrictionImpulse`: a Coulomb impulse capped at the whole
/// tangential velocity); the stiffness frequency does not rescale it. So the coefficient is
/// our damping re-expressed per pass: `1 - (1 - d)^(h / solver_hz)`.
pub fn nvcloth_friction(d: f64, h: f64, solver_hz: f64) -> f64 {
    per_rate(d, h, solver_hz)
}

/// NvCloth's `setDragCoefficient` for our wind drag `k_w` (1/m) on a fabric of areal
/// density `sigma` (kg/m²), with `setFluidDensity(rho)` and stiffness frequency `f_s`.
/// NvCloth moves each vertex of a triangle, every iteration, by
/// `C_it ρ A w |Δ| Δ / dt` (`SwSolverKernel.cpp`, `applyWind`: `Δ` the triangle's motion
/// relative to the wind over the iteration, `A` its area, `w` the vertex's inverse mass, and
/// `C_it = 1 - (1 - C)^(f_s dt)`), and a vertex carries a third of the area of each of its
/// triangles, so the acceleration per (m/s)² is `-3 ln(1 - C) f_s ρ / σ`. Setting it to `k_w`:
/// `C = 1 - exp(-σ k_w / (3 ρ f_s))`.
pub fn nvcloth_drag(wind_drag: f64, sigma: f64, rho: f64, stiffness_hz: f64) -> f64 {
    1.0 - (-sigma * wind_drag / (3.0 * rho * stiffness_hz)).exp()
}

/// The wind drag (1/m) an NvCloth drag coefficient gives (the inverse of [`nvcloth_drag`]).
pub fn wind_drag_from_nvcloth(c: f64, sigma: f64, rho: f64, stiffness_hz: f64) -> f64 {
    -(1.0 - c).ln() * 3.0 * rho * stiffness_hz / sigma
}

/// Magica Cloth 2 takes a fifth of its `damping` value per simulation step
/// (`ClothSerializeDataFunction.cs`, `GetClothParameters`: the damping curve times 0.2; the
/// solver multiplies the velocity by `1 - damping` each step).
pub const MAGICA_DAMPING_SCALE: f64 = 0.2;
/// Magica Cloth 2's default simulation frequency, Hz.
pub const MAGICA_SIM_HZ: f64 = 90.0;

/// Magica Cloth 2's `damping` value for a per-step damping `d` at `h` steps/s: the fraction
/// per 1/90 s, over [`MAGICA_DAMPING_SCALE`].
pub fn magica_damping(d: f64, h: f64) -> f64 {
    per_rate(d, h, MAGICA_SIM_HZ) / MAGICA_DAMPING_SCALE
}

/// Where Magica Cloth 2 puts a particle `t` of the way from the fixed particles (0) to the
/// deepest (1) on its curves: it evaluates a depth curve at `t²`
/// (`MotionConstraint`/`ClothSerializeData`: the curve is read at the squared depth). A key
/// for depth `t` goes at time `t²`; the value at key time `τ` is ours at depth `√τ`.
pub fn magica_curve_time(t: f64) -> f64 {
    t * t
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
        let cd = drag_coefficient(1.5, 0.35);
        assert!((wind_drag_from_coefficient(cd, 0.35) - 1.5).abs() < 1e-12);
    }

    #[test]
    fn chaos_curve_matches_its_worked_example() {
        // FPBDStiffness: an input of 0.5 is (1000^0.5 - 1) / 999 = 0.0306534 per 1/120 s.
        assert!((chaos_stiffness_fraction(0.5) - 0.030_653_4).abs() < 1e-7);
        assert!((chaos_stiffness_input(0.030_653_4) - 0.5).abs() < 1e-6);
        // The tweed bending: 0.58 per 1/120 s needs an input of about 0.92; written
        // as it is, 0.58 means about 0.05.
        assert!((chaos_stiffness_input(0.58) - 0.9213).abs() < 1e-3);
        assert!((chaos_stiffness_fraction(0.58) - 0.0543).abs() < 1e-3);
        assert_eq!(chaos_stiffness_input(0.0), 0.0);
        assert!((chaos_stiffness_input(1.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn chaos_iteration_count_is_per_60_fps() {
        // 2 passes a substep: 2 at 60 fps, 1 at 30 fps (Chaos doubles it), 4 at 120 fps.
        assert_eq!(chaos_iteration_count(2, 60.0), 2);
        assert_eq!(chaos_iteration_count(2, 30.0), 1);
        assert_eq!(chaos_iteration_count(2, 120.0), 4);
        assert_eq!(chaos_iterations_per_substep(1, 30.0), 2.0);
        assert_eq!(chaos_iteration_count(1, 15.0), 1);
    }

    #[test]
    fn nvcloth_friction_and_drag_round_trip() {
        // Tweed: 0.1633 per step at 120 Hz, 240 passes a second: 0.0853 per pass.
        let mu = nvcloth_friction(0.1633, 120.0, 240.0);
        assert!((mu - (1.0 - 0.8367f64.sqrt())).abs() < 1e-12);
        let c = nvcloth_drag(1.2, 0.4, 1.225, 120.0);
        assert!(c > 0.0 && c < 0.01, "{c}");
        assert!((wind_drag_from_nvcloth(c, 0.4, 1.225, 120.0) - 1.2).abs() < 1e-9);
        assert_eq!(magica_curve_time(0.5), 0.25);
        // 2 % a step at 90 Hz is Magica's 0.1 (it takes a fifth of it).
        assert!((magica_damping(0.02, 90.0) - 0.1).abs() < 1e-12);
    }
}
