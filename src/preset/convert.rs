//! Time-step conversion: rewrite the per-step knobs of a fabric so it behaves the same at
//! another fixed step.
//!
//! The article's warning is that damping and stiffness only hold at the step they were tuned
//! at: both act once per step (or per relaxation pass), so at twice the rate the fabric is damped
//! twice as often and relaxed twice as often. The conversion keeps what happens *per second*:
//!
//! - **Substeps**: where the new rate divides the rate the solver runs at (`timestep_hz` x
//!   `substeps`), the converted preset keeps that solver rate with `substeps` solver steps per
//!   fixed step (60 Hz to 30 Hz: 2), and the per-step knobs below stay as they are: the fabric
//!   is then solved exactly as it was tuned, with the character's motion interpolated between
//!   the engine's steps. Otherwise `substeps = round(solver rate / new rate)` (at least 1, at
//!   most 8: the solver rate nearest the old one) and the knobs below are rewritten from the
//!   old solver rate `h` to the new one `h'` (the new rate x substeps).
//! - **Damping** (`damping`, `contact_damping`, `edge_damping`, `hood_damping`): Verlet keeps
//!   `1 - d` of the velocity each step, so `(1 - d)^h` of it per second at `h` steps per second.
//!   At the new rate `h'` the same per-second loss needs `d' = 1 - (1 - d)^(h / h')`.
//!   `hood_stiffness` leaves `1 - k` of the hood's offset from its rest pose each step and
//!   converts the same way.
//! - **Relaxation** (`iterations`, `stretch_stiffness`, `shear_bend_stiffness`): a pass with
//!   stiffness `k` removes `k` of a link's error, so `n` passes per step at `h` steps per second
//!   leave `(1 - k)^(n h)` of it per second. The new pass count keeps passes per second:
//!   `n' = round(n h / h')` within 1 to 32 (0 stays 0); then each stiffness is solved so the
//!   per-second remainder is the same: `k' = 1 - (1 - k)^(n h / (n' h'))`. Where `n'` is
//!   exact (60 to 30 Hz with 4 passes gives 8) the stiffness is unchanged; where it is rounded
//!   or clamped the stiffness takes up the difference (a stiffness of 1 stays 1).
//! - Everything else is in seconds, metres or ratios per garment and does not change: gravity,
//!   wind (speed, drag, gusts in Hz), max distances, collision margin, the world-motion
//!   fractions (a fraction of the motion *since the last step*, so the same fraction of the
//!   motion per second whatever the rate), mass falloff, the hard constraints and the
//!   deformation limit (both geometric, applied every step).
//!
//! What cannot be converted: the hard pass, the max-distance clamp and the collisions run once
//! per step, so at a lower rate they correct less often. `cloth-tuner drift` will measure the
//! result on an animation clip; [`retimed`] gives the unconverted preset for comparison.
//!
//! ```
//! use cloth_tuner::preset::convert_params;
//! use cloth_tuner::sim::FabricParams;
//!
//! let at60 = FabricParams { damping: 0.02, iterations: 4, ..Default::default() };
//! // Half the rate: the same 60 Hz solver, twice per step.
//! let at30 = convert_params(&at60, 30.0)?.params;
//! assert_eq!((at30.timestep_hz, at30.substeps), (30.0, 2));
//! assert_eq!((at30.iterations, at30.damping), (4, 0.02));
//! // Twice the rate: the per-step knobs are rewritten.
//! let at120 = convert_params(&at60, 120.0)?.params;
//! assert_eq!((at120.substeps, at120.iterations), (1, 2)); // the same passes per second
//! // The same velocity kept per second: (1 - 0.02)^60 = (1 - d')^120.
//! assert!((at120.damping - (1.0 - 0.98f64.sqrt() as f32)).abs() < 1e-6);
//! # Ok::<(), cloth_tuner::preset::ConvertError>(())
//! ```

use super::Preset;
use crate::sim::{FabricParams, ParamError};

/// The knobs whose meaning depends on the time step, with how they convert.
pub const TIMESTEP_DEPENDENT: [&str; 9] = [
    "substeps",
    "damping",
    "contact_damping",
    "edge_damping",
    "hood_damping",
    "hood_stiffness",
    "iterations",
    "stretch_stiffness",
    "shear_bend_stiffness",
];

/// Why a conversion was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConvertError {
    /// The target rate is outside the time step's range.
    #[error("time step {value} Hz is out of range; allowed {range}")]
    Rate {
        /// The rate asked for.
        value: f64,
        /// The allowed range, with unit.
        range: String,
    },
    /// The fabric to convert has a value out of range.
    #[error("the fabric to convert is invalid: {0}")]
    Params(#[from] ParamError),
}

/// One knob rewritten by a conversion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change {
    /// The field's name.
    pub field: &'static str,
    /// Its value before.
    pub from: f64,
    /// Its value after.
    pub to: f64,
}

/// A converted fabric and what changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Conversion {
    /// The knobs for the new time step (`timestep_hz` included).
    pub params: FabricParams,
    /// Every field whose value changed, in [`FabricParams::SPECS`] order.
    pub changes: Vec<Change>,
}

/// The fabric rewritten to step at `to_hz` and behave as it did at its own step (see the
/// module documentation for the formulas). Converting to the fabric's own rate changes
/// nothing.
pub fn convert_params(params: &FabricParams, to_hz: f32) -> Result<Conversion, ConvertError> {
    params.validate()?;
    check_rate(to_hz)?;
    let mut out = params.clone();
    // The rate the solver really runs at, before and after.
    let from_hz = params.timestep_hz as f64 * params.substeps.max(1) as f64;
    // The whole number of substeps that brings the solver nearest its old rate (exact where
    // the new rate divides it).
    let substeps = (from_hz / to_hz as f64).round().clamp(1.0, max_substeps()) as u32;
    let ratio = from_hz / (to_hz as f64 * substeps as f64);
    if params.timestep_hz != to_hz {
        out.timestep_hz = to_hz;
        out.substeps = substeps;
    }
    if ratio != 1.0 {
        out.damping = convert_damping(params.damping, ratio);
        out.contact_damping = convert_damping(params.contact_damping, ratio);
        out.edge_damping = convert_damping(params.edge_damping, ratio);
        out.hood_damping = convert_damping(params.hood_damping, ratio);
        // The pull toward the hood's rest pose leaves `1 - k` of its offset each step, as
        // damping leaves `1 - d` of the velocity: the same conversion.
        out.hood_stiffness = convert_damping(params.hood_stiffness, ratio);
        let n = params.iterations;
        if n > 0 {
            let n_new = (n as f64 * ratio).round().clamp(1.0, max_iterations()) as u32;
            out.iterations = n_new;
            // The exponent: passes per second before over passes per second after.
            let e = n as f64 * ratio / n_new as f64;
            out.stretch_stiffness = convert_stiffness(params.stretch_stiffness, e);
            out.shear_bend_stiffness = convert_stiffness(params.shear_bend_stiffness, e);
        }
    }
    let changes = FabricParams::SPECS
        .iter()
        .filter_map(|s| {
            let (from, to) = (params.get(s.name)?, out.get(s.name)?);
            (from != to).then_some(Change {
                field: s.name,
                from,
                to,
            })
        })
        .collect();
    Ok(Conversion {
        params: out,
        changes,
    })
}

/// The preset rewritten for `to_hz` by [`convert_params`], recording the rate it was converted
/// from in [`Preset::converted_from_hz`] (unchanged when `to_hz` is already its rate).
pub fn convert_preset(preset: &Preset, to_hz: f32) -> Result<(Preset, Vec<Change>), ConvertError> {
    let conversion = convert_params(&preset.params, to_hz)?;
    let mut out = preset.clone();
    if preset.params.timestep_hz != to_hz {
        out.converted_from_hz = Some(preset.params.timestep_hz);
    }
    out.params = conversion.params;
    Ok((out, conversion.changes))
}

/// The fabric simply run at `to_hz` with every other knob as it was: what happens without
/// conversion, for measuring how much the conversion helps.
pub fn retimed(params: &FabricParams, to_hz: f32) -> Result<FabricParams, ConvertError> {
    check_rate(to_hz)?;
    Ok(FabricParams {
        timestep_hz: to_hz,
        ..params.clone()
    })
}

/// `d' = 1 - (1 - d)^ratio`: the same velocity kept per second.
fn convert_damping(d: f32, ratio: f64) -> f32 {
    (1.0 - (1.0 - d as f64).powf(ratio)).clamp(0.0, 1.0) as f32
}

/// `k' = 1 - (1 - k)^e`: the same error left per second.
fn convert_stiffness(k: f32, e: f64) -> f32 {
    (1.0 - (1.0 - k as f64).powf(e)).clamp(0.0, 1.0) as f32
}

fn max_substeps() -> f64 {
    FabricParams::spec("substeps").map_or(8.0, |s| s.max)
}

fn max_iterations() -> f64 {
    FabricParams::spec("iterations").map_or(32.0, |s| s.max)
}

fn check_rate(hz: f32) -> Result<(), ConvertError> {
    let spec = FabricParams::spec("timestep_hz").unwrap_or(&FabricParams::SPECS[0]);
    if spec.accepts(hz as f64) {
        Ok(())
    } else {
        Err(ConvertError::Rate {
            value: hz as f64,
            range: spec.range_text(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHIPPED: [&str; 3] = [
        "presets/tweed.json",
        "presets/down_jacket.json",
        "presets/veil.json",
    ];

    fn per_second(d: f32, hz: f32) -> f64 {
        (1.0 - d as f64).powf(hz as f64)
    }

    #[test]
    fn damping_per_second_is_kept() {
        let p = Preset::load("presets/tweed.json").unwrap().params;
        for hz in [15.0, 30.0, 45.0, 90.0, 120.0, 240.0] {
            let c = convert_params(&p, hz).unwrap().params;
            for (a, b) in [
                (p.damping, c.damping),
                (p.contact_damping, c.contact_damping),
                (p.edge_damping, c.edge_damping),
            ] {
                // Per second at the rate the solver runs: the step rate x substeps.
                let solver_hz = hz * c.substeps as f32;
                let from_hz = p.timestep_hz * p.substeps as f32;
                let (before, after) = (per_second(a, from_hz), per_second(b, solver_hz));
                // Only the f32 rounding of the stored value separates them.
                assert!(
                    (before - after).abs() < 2e-6 * solver_hz as f64 * before.max(1e-3),
                    "{hz} Hz: {before} vs {after}"
                );
            }
        }
        // The formula itself: at half the rate, d' = 1 - (1 - d)^2.
        assert!((convert_damping(0.1, 2.0) - 0.19).abs() < 1e-7);
        assert_eq!(convert_damping(0.0, 4.0), 0.0);
        assert_eq!(convert_damping(1.0, 0.25), 1.0);
    }

    #[test]
    fn passes_per_second_are_kept_and_stiffness_takes_up_the_rounding() {
        let p = FabricParams {
            iterations: 4,
            stretch_stiffness: 0.9,
            shear_bend_stiffness: 0.3,
            ..Default::default()
        };
        // A whole divisor of the rate: the solver keeps its 60 Hz inside the engine's steps
        // and no per-step knob changes.
        for (hz, substeps) in [(30.0, 2), (20.0, 3), (15.0, 4)] {
            let c = convert_params(&p, hz).unwrap().params;
            assert_eq!(c.timestep_hz, hz);
            assert_eq!(c.substeps, substeps, "{hz} Hz");
            assert_eq!(
                FabricParams {
                    timestep_hz: 60.0,
                    substeps: 1,
                    ..c
                },
                p
            );
        }
        let c = convert_params(&p, 120.0).unwrap().params;
        assert_eq!((c.iterations, c.shear_bend_stiffness), (2, 0.3));
        assert_eq!(c.substeps, 1);
        // 4 passes at 60 Hz is 5.33 at 45 Hz: 5 passes, each a little stiffer.
        let c = convert_params(&p, 45.0).unwrap().params;
        assert_eq!(c.iterations, 5);
        let log_left = log_left_per_second;
        assert!(c.shear_bend_stiffness > 0.3);
        assert!(
            (log_left(0.3, 4, 60.0) / log_left(c.shear_bend_stiffness, 5, 45.0) - 1.0).abs() < 1e-4
        );
        // Clamped at 32 passes: the stiffness does the rest (240 Hz to 100 Hz: 2 substeps of
        // 200 Hz, 32 passes would be 38.4).
        let many = FabricParams {
            timestep_hz: 240.0,
            iterations: 32,
            ..p.clone()
        };
        let c = convert_params(&many, 100.0).unwrap().params;
        assert_eq!((c.iterations, c.substeps), (32, 2));
        assert!(c.shear_bend_stiffness > 0.3);
        // The same error left per second (both are far below 1e-300).
        assert!(
            (log_left(0.3, 32, 240.0) / log_left(c.shear_bend_stiffness, 32, 200.0) - 1.0).abs()
                < 1e-5
        );
        // No passes stay no passes; a rigid link stays rigid.
        let none = FabricParams {
            iterations: 0,
            ..p.clone()
        };
        assert_eq!(convert_params(&none, 45.0).unwrap().params.iterations, 0);
        let rigid = FabricParams {
            iterations: 5,
            stretch_stiffness: 1.0,
            ..p
        };
        assert_eq!(
            convert_params(&rigid, 90.0)
                .unwrap()
                .params
                .stretch_stiffness,
            1.0
        );
    }

    /// Fraction of a link's error left after one second of relaxation.
    /// The log of the share of a link's error left after a second of passes: compared as a
    /// log because the share itself underflows (a stiffness of 0.9 at 360 passes a second
    /// leaves 1e-360).
    fn log_left_per_second(k: f32, n: u32, hz: f32) -> f64 {
        n as f64 * hz as f64 * (1.0 - k as f64).ln()
    }

    #[test]
    fn round_trips_return_the_original_or_keep_the_faster_solver() {
        for file in SHIPPED {
            let p = Preset::load(file).unwrap().params;
            for hz in [15.0, 20.0, 30.0, 45.0, 50.0, 90.0, 120.0, 144.0, 240.0] {
                let there = convert_params(&p, hz).unwrap().params;
                assert!(there.validate().is_ok(), "{file} at {hz} Hz");
                let back = convert_params(&there, p.timestep_hz).unwrap().params;
                if there.timestep_hz >= 2.0 * p.timestep_hz
                    && there.timestep_hz * there.substeps as f32 > p.timestep_hz * p.substeps as f32
                {
                    // Coming back from at least twice the rate with a faster solver, the solver
                    // keeps the faster rate as substeps: the fabric is the faster preset's,
                    // solved as it was.
                    let k = (there.timestep_hz / p.timestep_hz).round() as u32;
                    assert_eq!(back.substeps, k, "{file} via {hz} Hz");
                    let ratio = there.timestep_hz as f64 / (p.timestep_hz as f64 * k as f64);
                    if ratio == 1.0 {
                        assert_eq!(
                            FabricParams {
                                timestep_hz: hz,
                                substeps: 1,
                                ..back
                            },
                            there,
                            "{file} via {hz} Hz"
                        );
                    }
                    continue;
                }
                // Whole passes: exact when the pass count converts to a whole number (60 to
                // 30 to 60), else the pass count may come back a little off (60 Hz x 4 is
                // 2.67 passes at 90 Hz: 3, and 3 at 90 Hz is 4.5 at 60 Hz: 5) and the stiffness
                // below 1 makes up for it: the error left per second is the same.
                // Back at the original's solver rate (the nearest to it from `there`).
                assert_eq!(back.substeps, p.substeps, "{file} via {hz} Hz");
                let solver_hz = hz as f64 * there.substeps as f64;
                let from_hz = p.timestep_hz as f64 * p.substeps as f64;
                let exact = (p.iterations as f64 * from_hz / solver_hz).fract() == 0.0;
                let mut fields: Vec<&str> = FabricParams::SPECS.iter().map(|s| s.name).collect();
                if !exact {
                    // Rounding to whole passes twice: off by at most 1/2 + (1/2) (hz / rate).
                    let slack = (0.5 + 0.5 * solver_hz / from_hz).floor() as u32;
                    assert!(
                        back.iterations.abs_diff(p.iterations) <= slack,
                        "{file} via {hz} Hz"
                    );
                    fields.retain(|f| {
                        !matches!(
                            *f,
                            "iterations" | "stretch_stiffness" | "shear_bend_stiffness"
                        )
                    });
                    for (k, k_back) in [
                        (p.stretch_stiffness, back.stretch_stiffness),
                        (p.shear_bend_stiffness, back.shear_bend_stiffness),
                    ] {
                        let (a, b) = (
                            log_left_per_second(k, p.iterations, from_hz as f32),
                            log_left_per_second(k_back, back.iterations, from_hz as f32),
                        );
                        assert!(
                            k == 1.0 && k_back == 1.0 || (a / b - 1.0).abs() < 1e-3,
                            "{file} via {hz} Hz: {k} -> {k_back}"
                        );
                    }
                }
                for name in fields {
                    let (a, b) = (p.get(name).unwrap(), back.get(name).unwrap());
                    assert!(
                        (a - b).abs() <= 1e-5 * a.abs().max(1e-2),
                        "{file} via {hz} Hz: {name} {a} came back as {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn only_time_step_dependent_knobs_change() {
        let p = Preset::load("presets/veil.json").unwrap().params;
        let c = convert_params(&p, 45.0).unwrap();
        for ch in &c.changes {
            assert!(
                ch.field == "timestep_hz" || TIMESTEP_DEPENDENT.contains(&ch.field),
                "{} changed",
                ch.field
            );
        }
        assert!(c.changes.iter().any(|ch| ch.field == "damping"));
        assert!(convert_params(&p, p.timestep_hz)
            .unwrap()
            .changes
            .is_empty());
    }

    #[test]
    fn the_preset_records_where_it_came_from() {
        let tweed = Preset::load("presets/tweed.json").unwrap();
        let (at30, _) = convert_preset(&tweed, 30.0).unwrap();
        assert_eq!(at30.converted_from_hz, Some(60.0));
        assert_eq!(at30.params.timestep_hz, 30.0);
        let (same, changes) = convert_preset(&tweed, 60.0).unwrap();
        assert_eq!(same, tweed);
        assert!(changes.is_empty());
        // The record round-trips through the file.
        let text = at30.to_json();
        assert!(text.contains("\"converted_from_hz\": 60.0"), "{text}");
        let back = Preset::from_json(&text, std::path::Path::new("x.json")).unwrap();
        assert_eq!(back, at30);
    }

    #[test]
    fn bad_rates_name_the_range() {
        let p = FabricParams::default();
        for hz in [10.0, 241.0, f32::NAN, 0.0, -30.0] {
            let e = convert_params(&p, hz).unwrap_err();
            assert!(e.to_string().contains("allowed 15 to 240 Hz"), "{hz}: {e}");
        }
        assert!(retimed(&p, 300.0).is_err());
        assert_eq!(retimed(&p, 30.0).unwrap().damping, p.damping);
        let bad = FabricParams {
            damping: 2.0,
            ..Default::default()
        };
        assert!(matches!(
            convert_params(&bad, 30.0),
            Err(ConvertError::Params(_))
        ));
    }
}
