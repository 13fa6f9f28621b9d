//! What `fit` can be asked for: the one table of target metrics (the name a user types, its SI
//! unit, how to read it from [`simulate`](crate::scene::metrics::simulate)'s [`Metrics`], the
//! scale a miss is measured against) and the parsing of `settle_time=1.2,hem_swing_rms=0.06`.

use std::fmt;

use crate::scene::metrics::Metrics;

/// A metric a fit can aim at.
#[derive(Debug)]
pub struct TargetMetric {
    /// The name on the command line: `settle_time`.
    pub name: &'static str,
    /// Its unit as printed: `s`, `m`, `%`, or "" for a plain ratio.
    pub unit: &'static str,
    /// What it measures, for messages and `--help`.
    pub what: &'static str,
    /// The smallest scale a miss is measured against, in [`TargetMetric::unit`]. A miss is
    /// relative to the target, but relative to a target of 0 (no penetration) every miss would
    /// be infinite: below this the miss is measured in units of `floor` instead.
    pub floor: f64,
    /// Reads the metric in [`TargetMetric::unit`]; `None` when the run did not produce it (a
    /// jacket that had not settled by the end of the run).
    read: fn(&Metrics) -> Option<f64>,
}

impl TargetMetric {
    /// The metric's value in this run, in its own unit.
    pub fn read(&self, m: &Metrics) -> Option<f64> {
        (self.read)(m)
    }
}

impl PartialEq for TargetMetric {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// Centimetres as `simulate` reports them to metres as a user gives them.
fn metres(cm: f32) -> Option<f64> {
    Some(cm as f64 / 100.0)
}

/// Every metric a fit can aim at. SI units (seconds, metres) except stretch and saturation,
/// which `simulate` gives in percent and an artist thinks of in percent.
pub const TARGET_METRICS: &[TargetMetric] = &[
    TargetMetric {
        name: "settle_time",
        unit: "s",
        what: "seconds after the clip's motion stops until the hem is still (wind off)",
        floor: 0.1,
        read: |m| m.settle_time_s,
    },
    TargetMetric {
        name: "hem_swing_rms",
        unit: "m",
        what: "RMS distance of the hem from its skinned pose over the run",
        floor: 0.01,
        read: |m| metres(m.hem_swing_rms_cm),
    },
    TargetMetric {
        name: "hem_swing_peak",
        unit: "m",
        what: "largest distance of the hem from its skinned pose",
        floor: 0.01,
        read: |m| metres(m.hem_swing_peak_cm),
    },
    TargetMetric {
        name: "max_vertical_stretch",
        unit: "%",
        what: "largest vertical stretch, percent of rest length",
        floor: 0.5,
        read: |m| Some(m.max_vertical_stretch_pct as f64),
    },
    TargetMetric {
        name: "mean_vertical_stretch",
        unit: "%",
        what: "mean vertical stretch over the run, percent of rest length",
        floor: 0.1,
        read: |m| Some(m.mean_vertical_stretch_pct as f64),
    },
    TargetMetric {
        name: "max_horizontal_stretch",
        unit: "%",
        what: "largest horizontal stretch, percent of rest length",
        floor: 1.0,
        read: |m| Some(m.max_horizontal_stretch_pct as f64),
    },
    TargetMetric {
        name: "edge_interior_motion_ratio",
        unit: "",
        what: "mean speed of the edges over that of the interior",
        floor: 0.1,
        read: |m| Some(m.edge_interior_motion_ratio as f64),
    },
    TargetMetric {
        name: "max_penetration",
        unit: "m",
        what: "deepest penetration of the body",
        floor: 0.005,
        read: |m| metres(m.max_penetration_cm),
    },
    TargetMetric {
        name: "max_distance_saturation",
        unit: "%",
        what: "mean share of free particles held at their max distance",
        floor: 1.0,
        read: |m| Some(m.max_distance_saturation_pct as f64),
    },
];

/// Every target metric's name, in the table's order.
pub fn metric_names() -> Vec<&'static str> {
    TARGET_METRICS.iter().map(|m| m.name).collect()
}

/// The target metric called `name`.
pub fn metric(name: &str) -> Result<&'static TargetMetric, TargetError> {
    let name = name.trim();
    TARGET_METRICS
        .iter()
        .find(|m| m.name == name)
        .ok_or_else(|| TargetError::Unknown { name: name.into() })
}

/// Why a target was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TargetError {
    #[error("there is no target metric `{name}`; the metrics are: {}", metric_names().join(", "))]
    Unknown { name: String },
    #[error("`{text}` is not a target: write METRIC=VALUE (e.g. settle_time=1.2)")]
    Syntax { text: String },
    #[error("{name}: `{value}` is not a number")]
    NotANumber { name: String, value: String },
    #[error("{name}: {value} is negative; the metric is never below 0")]
    Negative { name: String, value: f64 },
    #[error("{name} is given twice")]
    Repeated { name: String },
    #[error("no target given: write --target METRIC=VALUE (e.g. settle_time=1.2)")]
    None,
}

/// One metric and the value a fit aims at, in the metric's unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    pub metric: &'static TargetMetric,
    pub value: f64,
}

impl Target {
    /// `METRIC=VALUE`: a known metric and a finite value that is not negative (every metric
    /// in the table is a length, a duration, a share or a ratio).
    pub fn parse(text: &str) -> Result<Target, TargetError> {
        let (name, value) = text.split_once('=').ok_or_else(|| TargetError::Syntax {
            text: text.trim().into(),
        })?;
        let metric = metric(name)?;
        let number = value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| TargetError::NotANumber {
                name: metric.name.into(),
                value: value.trim().into(),
            })?;
        if number < 0.0 {
            return Err(TargetError::Negative {
                name: metric.name.into(),
                value: number,
            });
        }
        Ok(Target {
            metric,
            value: number,
        })
    }

    /// What a miss is measured in: the target itself, or the metric's floor for a target
    /// near 0.
    pub fn scale(&self) -> f64 {
        self.value.abs().max(self.metric.floor)
    }

    /// How far `reached` is from the target, as a share of [`Target::scale`]: +0.1 is 10 %
    /// over.
    pub fn miss(&self, reached: f64) -> f64 {
        (reached - self.value) / self.scale()
    }
}

impl fmt::Display for Target {
    /// `settle_time 1.2 s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}",
            self.metric.name,
            with_unit(self.value, self.metric.unit)
        )
    }
}

/// `1.2 s`, `0.06 m`, `3 %`, `2.1`.
pub fn with_unit(value: f64, unit: &str) -> String {
    let v = format!("{}", round_sig(value, 4));
    match unit {
        "" => v,
        "%" => format!("{v} %"),
        u => format!("{v} {u}"),
    }
}

/// `v` to `digits` significant digits: 0.061234567 to 4 is 0.06123.
pub(crate) fn round_sig(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let scale = 10f64.powi(digits - 1 - v.abs().log10().floor() as i32);
    (v * scale).round() / scale
}

/// Targets separated by commas (`settle_time=1.2,hem_swing_rms=0.06`): at least one, each
/// known and none twice.
pub fn parse_targets(text: &str) -> Result<Vec<Target>, TargetError> {
    let mut out: Vec<Target> = Vec::new();
    for part in text.split(',').filter(|s| !s.trim().is_empty()) {
        let t = Target::parse(part)?;
        if out.iter().any(|o| o.metric == t.metric) {
            return Err(TargetError::Repeated {
                name: t.metric.name.into(),
            });
        }
        out.push(t);
    }
    if out.is_empty() {
        return Err(TargetError::None);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_in_si_units() {
        let t = parse_targets("settle_time=1.2, hem_swing_rms=0.06").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].metric.name, "settle_time");
        assert_eq!(t[0].value, 1.2);
        assert_eq!(t[1].to_string(), "hem_swing_rms 0.06 m");
        assert!((t[1].miss(0.066) - 0.1).abs() < 1e-12);
        // A target of 0 measures misses against the metric's floor, not against 0.
        let z = Target::parse("max_penetration=0").unwrap();
        assert!((z.miss(0.005) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn every_metric_reads_from_the_metrics_it_names() {
        let names = metric_names();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "a metric is listed twice");
        for m in TARGET_METRICS {
            assert!(m.floor > 0.0, "{}", m.name);
        }
    }

    #[test]
    fn bad_targets_say_what_is_wrong() {
        let e = parse_targets("setle_time=1").unwrap_err().to_string();
        assert!(
            e.contains("`setle_time`") && e.contains("settle_time, hem_swing_rms"),
            "{e}"
        );
        let e = parse_targets("settle_time=fast").unwrap_err();
        assert!(matches!(e, TargetError::NotANumber { .. }), "{e}");
        assert!(e.to_string().contains("`fast`"), "{e}");
        for bad in ["settle_time=nan", "settle_time=inf", "settle_time="] {
            let e = parse_targets(bad).unwrap_err();
            assert!(matches!(e, TargetError::NotANumber { .. }), "{bad}: {e}");
        }
        let e = parse_targets("hem_swing_rms=-0.1").unwrap_err();
        assert!(matches!(e, TargetError::Negative { .. }), "{e}");
        let e = parse_targets("settle_time").unwrap_err();
        assert!(matches!(e, TargetError::Syntax { .. }), "{e}");
        let e = parse_targets("settle_time=1,settle_time=2").unwrap_err();
        assert!(matches!(e, TargetError::Repeated { .. }), "{e}");
        assert_eq!(parse_targets(" , ").unwrap_err(), TargetError::None);
    }
}
