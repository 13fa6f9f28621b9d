//! Knobs named by the user (`damping`, `world_motion_fraction=0.1:0.3:3`): the checks that
//! every tool which takes knob names shares, so a misspelt knob or a range outside its limits
//! reads the same everywhere.

use std::fmt;

use crate::sim::{FabricParams, ParamKind, ParamSpec};

/// The largest number of cells a sweep makes unless the user insists.
pub const MAX_CELLS: usize = 400;

/// Why a knob or a sweep was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum KnobError {
    #[error("there is no knob `{name}`; the knobs are: {}", knob_names().join(", "))]
    Unknown { name: String },
    #[error("`{text}` is not a sweep: write NAME=FROM:TO:COUNT (e.g. damping=0.005:0.05:5) or NAME=VALUE")]
    Syntax { text: String },
    #[error("{name}: {value} is outside the knob's range, {range}")]
    OutOfRange {
        name: String,
        value: f64,
        range: String,
    },
    #[error("{name}: the count must be a whole number from 1 to {MAX_CELLS}, got `{count}`")]
    Count { name: String, count: String },
    #[error("{name}: one value was given ({from}) for a count of {count}; give FROM:TO:COUNT with FROM and TO apart")]
    NoSpan {
        name: String,
        from: f64,
        count: usize,
    },
    #[error("{name} is named twice")]
    Repeated { name: String },
    #[error("the sweep makes {cells} cells, more than {MAX_CELLS}; use fewer values or --force")]
    TooMany { cells: usize },
}

/// Every knob's name, in the preset's order.
pub fn knob_names() -> Vec<&'static str> {
    FabricParams::SPECS.iter().map(|s| s.name).collect()
}

/// The knob called `name`.
pub fn knob(name: &str) -> Result<&'static ParamSpec, KnobError> {
    FabricParams::spec(name.trim()).ok_or_else(|| KnobError::Unknown {
        name: name.trim().to_string(),
    })
}

/// Knob names separated by commas (`damping,contact_damping`), each known and none twice.
pub fn knob_list(text: &str) -> Result<Vec<&'static ParamSpec>, KnobError> {
    let mut out: Vec<&'static ParamSpec> = Vec::new();
    for name in text.split(',').filter(|s| !s.trim().is_empty()) {
        let spec = knob(name)?;
        if out.iter().any(|s| s.name == spec.name) {
            return Err(KnobError::Repeated {
                name: spec.name.into(),
            });
        }
        out.push(spec);
    }
    Ok(out)
}

/// One knob and the values a sweep gives it, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    pub spec: &'static ParamSpec,
    pub values: Vec<f64>,
}

impl Sweep {
    /// `NAME=FROM:TO:COUNT` (COUNT values evenly from FROM to TO, both included) or
    /// `NAME=VALUE`. Whole-number knobs round each value and drop repeats; a switch sweeps
    /// `0:1:2`.
    pub fn parse(text: &str) -> Result<Sweep, KnobError> {
        let syntax = || KnobError::Syntax { text: text.into() };
        let (name, range) = text.split_once('=').ok_or_else(syntax)?;
        let spec = knob(name)?;
        let parts: Vec<&str> = range.split(':').map(str::trim).collect();
        let number = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite());
        let (from, to, count) = match parts.as_slice() {
            [v] => {
                let v = number(v).ok_or_else(syntax)?;
                (v, v, 1)
            }
            [a, b, n] => {
                let count = n
                    .parse::<usize>()
                    .ok()
                    .filter(|c| (1..=MAX_CELLS).contains(c))
                    .ok_or_else(|| KnobError::Count {
                        name: spec.name.into(),
                        count: (*n).into(),
                    })?;
                (
                    number(a).ok_or_else(syntax)?,
                    number(b).ok_or_else(syntax)?,
                    count,
                )
            }
            _ => return Err(syntax()),
        };
        for v in [from, to] {
            // In range and not between a knob's off value and its first on value.
            if !(spec.min..=spec.max).contains(&v) || spec.in_gap(v) {
                return Err(KnobError::OutOfRange {
                    name: spec.name.into(),
                    value: v,
                    range: spec.range_text(),
                });
            }
        }
        if count > 1 && from == to {
            return Err(KnobError::NoSpan {
                name: spec.name.into(),
                from,
                count,
            });
        }
        Ok(Sweep {
            spec,
            values: spread(spec, from, to, count),
        })
    }
}

/// `count` values from `from` to `to`, through the knob's own type.
fn spread(spec: &ParamSpec, from: f64, to: f64, count: usize) -> Vec<f64> {
    let mut values: Vec<f64> = (0..count)
        .map(|i| {
            let t = if count == 1 {
                0.0
            } else {
                i as f64 / (count - 1) as f64
            };
            let v = spec.snap(from + (to - from) * t);
            match spec.kind {
                // Printed and stored as the preset's f32, so a cell saved as a preset holds
                // exactly the value on its label.
                ParamKind::Float => v as f32 as f64,
                ParamKind::Int | ParamKind::Bool => v.round(),
            }
        })
        .collect();
    values.dedup();
    values
}

/// One combination of knob values: a cell of a wedge, a trial of a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting(pub Vec<(&'static ParamSpec, f64)>);

impl Setting {
    /// `params` with these knobs changed.
    pub fn apply(&self, params: &FabricParams) -> FabricParams {
        let mut p = params.clone();
        for (spec, v) in &self.0 {
            p.set(spec.name, *v);
        }
        p
    }
}

impl fmt::Display for Setting {
    /// `damping 0.01, world_motion_fraction 0.2`, with each knob's unit.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (spec, v)) in self.0.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{} {}", spec.name, value_text(spec, *v))?;
            if !spec.unit.is_empty() {
                write!(f, " {}", spec.unit)?;
            }
        }
        Ok(())
    }
}

/// A knob's value as a person reads it: `true`, `12`, `0.015`.
pub fn value_text(spec: &ParamSpec, v: f64) -> String {
    match spec.kind {
        ParamKind::Bool => (v >= 0.5).to_string(),
        ParamKind::Int => format!("{}", v.round()),
        ParamKind::Float => format!("{}", v as f32),
    }
}

/// Every combination of the sweeps' values, the first sweep changing fastest (across a
/// sheet's columns), refused past [`MAX_CELLS`] unless `force`.
pub fn combinations(sweeps: &[Sweep], force: bool) -> Result<Vec<Setting>, KnobError> {
    for (i, s) in sweeps.iter().enumerate() {
        if sweeps[..i].iter().any(|o| o.spec.name == s.spec.name) {
            return Err(KnobError::Repeated {
                name: s.spec.name.into(),
            });
        }
    }
    let cells = sweeps
        .iter()
        .try_fold(1usize, |n, s| n.checked_mul(s.values.len()))
        .unwrap_or(usize::MAX);
    if cells > MAX_CELLS && !force {
        return Err(KnobError::TooMany { cells });
    }
    let mut out = Vec::with_capacity(cells);
    for index in 0..cells {
        let mut rest = index;
        let mut setting = Vec::with_capacity(sweeps.len());
        for s in sweeps {
            setting.push((s.spec, s.values[rest % s.values.len()]));
            rest /= s.values.len();
        }
        out.push(Setting(setting));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tear_ratio_sweep_skips_the_values_that_tear_every_link() {
        let s = Sweep::parse("tear_ratio=0:2:5").unwrap();
        assert_eq!(s.values, vec![0.0, 1.1_f32 as f64, 1.5, 2.0]);
        let e = Sweep::parse("tear_ratio=0.5:2:4").unwrap_err().to_string();
        assert!(e.contains("0 (off) or 1.1 to 5 x rest"), "{e}");
    }

    #[test]
    fn a_sweep_spreads_its_values_evenly_and_ends_on_both_bounds() {
        let s = Sweep::parse("damping=0.005:0.05:5").unwrap();
        assert_eq!(s.spec.name, "damping");
        assert_eq!(s.values.len(), 5);
        assert_eq!(s.values[0], 0.005_f32 as f64);
        assert_eq!(s.values[4], 0.05_f32 as f64);
        assert!((s.values[2] - 0.0275).abs() < 1e-6, "{:?}", s.values);
        let one = Sweep::parse("damping=0.02").unwrap();
        assert_eq!(one.values, vec![0.02_f32 as f64]);
    }

    #[test]
    fn whole_number_knobs_round_and_drop_repeats() {
        let spec = FabricParams::SPECS
            .iter()
            .find(|s| s.kind == ParamKind::Int)
            .expect("a whole-number knob");
        let text = format!("{}={}:{}:7", spec.name, spec.min, spec.min + 2.0);
        let s = Sweep::parse(&text).unwrap();
        assert_eq!(s.values, vec![spec.min, spec.min + 1.0, spec.min + 2.0]);
    }

    #[test]
    fn bad_sweeps_say_what_is_wrong() {
        let e = Sweep::parse("dampnig=0:1:2").unwrap_err().to_string();
        assert!(
            e.contains("no knob `dampnig`") && e.contains("damping"),
            "{e}"
        );
        let e = Sweep::parse("damping=0.005:7:5").unwrap_err().to_string();
        let spec = FabricParams::spec("damping").unwrap();
        assert!(
            e.contains("outside") && e.contains(&spec.range_text()),
            "{e}"
        );
        for bad in ["damping", "damping=a:b:3", "damping=0.1:0.2", "damping=nan"] {
            let e = Sweep::parse(bad).unwrap_err();
            assert!(matches!(e, KnobError::Syntax { .. }), "{bad}: {e}");
        }
        for count in ["0", "-1", "2.5", "401"] {
            let e = Sweep::parse(&format!("damping=0.01:0.02:{count}")).unwrap_err();
            assert!(matches!(e, KnobError::Count { .. }), "{count}: {e}");
        }
        assert!(matches!(
            Sweep::parse("damping=0.02:0.02:3").unwrap_err(),
            KnobError::NoSpan { .. }
        ));
    }

    #[test]
    fn combinations_cover_the_grid_first_knob_fastest_and_refuse_too_many() {
        let a = Sweep::parse("damping=0.01:0.03:3").unwrap();
        let b = Sweep::parse("world_motion_fraction=0.1:0.3:2").unwrap();
        let cells = combinations(&[a.clone(), b.clone()], false).unwrap();
        assert_eq!(cells.len(), 6);
        assert_eq!(cells[1].0[0].1, a.values[1]);
        assert_eq!(cells[1].0[1].1, b.values[0]);
        assert_eq!(cells[3].0[1].1, b.values[1]);
        let p = cells[5].apply(&FabricParams::default());
        assert_eq!(p.get("damping"), Some(a.values[2]));
        assert_eq!(p.get("world_motion_fraction"), Some(b.values[1]));
        let big = Sweep::parse("damping=0.005:0.05:21").unwrap();
        let big2 = Sweep::parse("world_motion_fraction=0:1:20").unwrap();
        let e = combinations(&[big.clone(), big2.clone()], false).unwrap_err();
        assert_eq!(e, KnobError::TooMany { cells: 420 });
        assert_eq!(combinations(&[big, big2], true).unwrap().len(), 420);
        let e = combinations(&[a.clone(), a], false).unwrap_err();
        assert!(matches!(e, KnobError::Repeated { .. }));
    }

    #[test]
    fn knob_lists_check_every_name() {
        let l = knob_list("damping, contact_damping").unwrap();
        assert_eq!(l.len(), 2);
        assert!(knob_list("damping,damping").is_err());
        assert!(knob_list("damping,wobble")
            .unwrap_err()
            .to_string()
            .contains("`wobble`"));
    }
}
