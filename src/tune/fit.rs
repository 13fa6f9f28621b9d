//! `fit`: a search over a few knobs for the preset whose
//! [`simulate`](crate::scene::metrics::simulate) metrics meet targets ("settle in 1.2 s, swing
//! 6 cm"). The core the command line and the tuner share: [`fit`] reports each trial as it
//! finishes, stops on a trial cap, a wall-clock budget or a cancel flag, and returns the
//! nearest preset with how near it came.
//!
//! The search is Nelder–Mead (argmin) in normalised coordinates: each knob's own range
//! (`ParamSpec::min..max`) maps to [0, 1], linearly or, for knobs whose useful values span
//! decades, on a log-like scale. A trial is one `simulate` run that draws nothing between its
//! steps ([`Drawing::Skipped`]: the same behaviour in about a third of the time); the
//! optimiser's points outside [0, 1] are clamped onto the range and pay a penalty for the
//! distance, so the simplex comes back. Same inputs, same trials in the same order and the
//! same result: the starting simplex runs in parallel but is reported in order, and wall-clock
//! timings only decide when to stop.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use argmin::core::{CostFunction, Executor};
use argmin::solver::neldermead::NelderMead;
use argmin_math::{ArgminAdd, ArgminMul, ArgminSub};
use rayon::prelude::*;

use super::knobs::{KnobError, Setting};
use super::targets::{round_sig, with_unit, Target, TargetError};
use crate::character::Character;
use crate::preset::Preset;
use crate::scene::metrics::{motion_end, simulate_drawing_in, Drawing, Metrics};
use crate::scene::{Outfit, SceneError};
use crate::sim::{ParamKind, ParamSpec};

/// A target counts as met within this share of its scale unless the caller says otherwise.
pub const DEFAULT_TOLERANCE: f64 = 0.05;
/// The most trials a fit runs unless the caller says otherwise.
pub const DEFAULT_MAX_TRIALS: usize = 100;
/// Wall-clock seconds a fit may take unless the caller says otherwise.
pub const DEFAULT_MAX_SECONDS: f64 = 60.0;
/// Simulated seconds of the default run after the clip's motion stops: the shipped fabrics
/// settle within about 3.5 s on sprint_stop, and a run must outlast the settling to see it.
pub const SETTLE_WINDOW: f64 = 5.0;
/// Simulated seconds of the default run on a clip that never stops (as `simulate`'s default).
pub const LOOP_SECONDS: f64 = 6.0;
/// The longest run a trial may simulate.
pub const MAX_RUN_SECONDS: f64 = 600.0;

/// Knobs searched on a log-like scale, with the decades the scale spans. Per-step damping is
/// 0.01 for tweed and 0.16 for its contact damping, out of 0 to 1: on a linear scale a tenth of
/// the range is ten times tweed's damping, while a log scale moves it by the same factor
/// wherever it is. The same holds for wind drag (below 1 for down, 5 to 30 for a veil).
const LOG_KNOBS: &[(&str, f64)] = &[
    ("damping", 4.0),
    ("contact_damping", 4.0),
    ("edge_damping", 4.0),
    ("wind_drag", 3.0),
];
/// Size of the starting simplex along each knob, in normalised units: a 2.5x step of a
/// damping, a tenth of a linear knob's range.
const START_STEP: f64 = 0.1;
/// Error added per squared normalised unit a point lies outside the knobs' ranges.
const OUTSIDE_PENALTY: f64 = 10.0;
/// Nelder–Mead stops when the spread of its simplex's errors is below this: far below what a
/// tolerance of a few percent can tell apart (an error of 0.0025 is one target 5 % off).
const SD_TOLERANCE: f64 = 1e-7;
/// The search counts as converged when its last `2 (knobs + 1)` points lie within this
/// of each other along every normalised axis: under 1 % of a damping, a thousandth of a
/// linear knob's range. Closer than that the metrics' own jitter is all the search sees (the
/// hem's path is chaotic: its RMS swing moved by 1 % between trials whose dampings differed
/// in the fifth digit).
const MIN_SPREAD: f64 = 1e-3;
/// Significant digits of a knob's value in a trial, as the shipped presets write them: the
/// saved preset reads `0.2003`, not `0.20033748`, and finer steps change nothing one sees.
const DIGITS: i32 = 4;

/// What to fit: the knobs, the clip and run, the targets and when to stop.
#[derive(Clone, Debug, PartialEq)]
pub struct FitSpec {
    /// The clip every trial plays.
    pub clip: String,
    /// What the metrics should reach.
    pub targets: Vec<Target>,
    /// The knobs the search moves (continuous ones only), within their own limits.
    pub knobs: Vec<&'static ParamSpec>,
    /// Simulated seconds per trial; `None`: [`SETTLE_WINDOW`] after the clip's motion stops,
    /// or [`LOOP_SECONDS`] on a looping clip.
    pub seconds: Option<f64>,
    /// A target is met when the miss is within this share of its scale (0.05 = 5 %).
    pub tolerance: f64,
    /// The most trials (simulate runs).
    pub max_trials: usize,
    /// Wall-clock budget, seconds: no trial starts unless the time left covers the slowest
    /// trial so far.
    pub max_seconds: f64,
}

impl FitSpec {
    /// The knobs and targets on a clip, with the default run, tolerance and limits.
    pub fn new(clip: &str, targets: Vec<Target>, knobs: Vec<&'static ParamSpec>) -> Self {
        Self {
            clip: clip.to_string(),
            targets,
            knobs,
            seconds: None,
            tolerance: DEFAULT_TOLERANCE,
            max_trials: DEFAULT_MAX_TRIALS,
            max_seconds: DEFAULT_MAX_SECONDS,
        }
    }

    /// Checks everything that can be checked before a trial runs, and returns the simulated
    /// seconds of each trial.
    pub fn check(&self, character: &Character) -> Result<f64, FitError> {
        self.check_limits()?;
        if !character.clips.iter().any(|c| c.name == self.clip) {
            return Err(SceneError::UnknownClip {
                name: self.clip.clone(),
                valid: character.clip_names().map(str::to_string).collect(),
            }
            .into());
        }
        let end = clip_motion_end(character, &self.clip);
        let settle = self
            .targets
            .iter()
            .find(|t| t.metric.name == "settle_time")
            .map(|t| t.value);
        let seconds = match (self.seconds, end) {
            (Some(s), _) => s,
            (None, Some(e)) => e + SETTLE_WINDOW.max(settle.unwrap_or(0.0) + 2.0),
            (None, None) => LOOP_SECONDS,
        };
        if !(seconds.is_finite() && seconds > 0.0 && seconds <= MAX_RUN_SECONDS) {
            return Err(FitError::Seconds(seconds));
        }
        if let Some(target) = settle {
            settle_checks(character, &self.clip, end, seconds, target)?;
        }
        Ok(seconds)
    }

    /// The checks that need no character: knobs, targets, tolerance and limits.
    fn check_limits(&self) -> Result<(), FitError> {
        if self.knobs.is_empty() {
            return Err(FitError::NoKnobs);
        }
        for (i, spec) in self.knobs.iter().enumerate() {
            if self.knobs[..i].iter().any(|s| s.name == spec.name) {
                return Err(KnobError::Repeated {
                    name: spec.name.into(),
                }
                .into());
            }
            match spec.kind {
                ParamKind::Float if spec.name == "timestep_hz" => return Err(FitError::TimeStep),
                ParamKind::Float => {}
                ParamKind::Int | ParamKind::Bool => {
                    return Err(FitError::NotContinuous {
                        name: spec.name.into(),
                        kind: if spec.kind == ParamKind::Int {
                            "a whole number"
                        } else {
                            "a switch"
                        },
                    })
                }
            }
        }
        if self.targets.is_empty() {
            return Err(TargetError::None.into());
        }
        for (i, t) in self.targets.iter().enumerate() {
            if self.targets[..i].iter().any(|o| o.metric == t.metric) {
                return Err(TargetError::Repeated {
                    name: t.metric.name.into(),
                }
                .into());
            }
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0 && self.tolerance <= 1.0) {
            return Err(FitError::Tolerance(self.tolerance));
        }
        if self.max_trials == 0 {
            return Err(FitError::MaxTrials);
        }
        if !(self.max_seconds.is_finite() && self.max_seconds > 0.0) {
            return Err(FitError::MaxSeconds(self.max_seconds));
        }
        Ok(())
    }
}

/// When the clip called `name` stops moving; `None` for a looping clip or an unknown name.
fn clip_motion_end(character: &Character, name: &str) -> Option<f64> {
    let clip = character.clips.iter().find(|c| c.name == name)?;
    motion_end(character, clip)
}

/// A settle time needs a clip that stops and a run that goes on long enough after it.
fn settle_checks(
    character: &Character,
    clip: &str,
    end: Option<f64>,
    seconds: f64,
    target: f64,
) -> Result<(), FitError> {
    let Some(end) = end else {
        return Err(FitError::SettleNeedsStop {
            clip: clip.into(),
            stopping: character
                .clips
                .iter()
                .filter(|c| !c.looping)
                .map(|c| c.name.clone())
                .collect(),
        });
    };
    // A second past the target, so a fabric that settles just late is seen as late rather
    // than as never settled.
    let needed = end + target + 1.0;
    if seconds < needed {
        return Err(FitError::TooShort {
            seconds,
            target,
            clip: clip.into(),
            end,
            needed: needed.ceil(),
        });
    }
    Ok(())
}

/// Why a fit did not run (or ran no trial).
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    #[error(transparent)]
    Knob(#[from] KnobError),
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error(transparent)]
    Scene(#[from] SceneError),
    #[error("no knob to fit: name one or more (e.g. damping,contact_damping)")]
    NoKnobs,
    #[error(
        "{name} is {kind}: fit moves only knobs with a continuous range, since its search \
         takes small steps; set it in the preset, or compare its values side by side with `wedge`"
    )]
    NotContinuous { name: String, kind: &'static str },
    #[error(
        "timestep_hz is not fitted: it sets what every per-step knob means; choose the step \
         first (`export --timestep-hz` converts a preset) and fit the other knobs at it"
    )]
    TimeStep,
    #[error(
        "settle_time needs a clip whose motion stops, and `{clip}` loops; the clips that stop: {}",
        stopping.join(", ")
    )]
    SettleNeedsStop { clip: String, stopping: Vec<String> },
    #[error(
        "a run of {seconds} s cannot show a settle time of {target} s: the motion of `{clip}` \
         stops at {end:.2} s; run for {needed} s or more"
    )]
    TooShort {
        seconds: f64,
        target: f64,
        clip: String,
        end: f64,
        needed: f64,
    },
    #[error("the simulated seconds per trial must be more than 0 and at most {MAX_RUN_SECONDS}, got {0}")]
    Seconds(f64),
    #[error("the tolerance must be more than 0 and at most 1 (0.05 = 5 %), got {0}")]
    Tolerance(f64),
    #[error("the trial cap must be at least 1")]
    MaxTrials,
    #[error("the time budget must be more than 0 seconds, got {0}")]
    MaxSeconds(f64),
    #[error("cancelled before the first trial finished")]
    Cancelled,
    #[error("the search failed: {0}")]
    Search(String),
}

/// How a knob's range maps to the search's [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    Linear,
    /// `v = min + span * (10^(d u) - 1) / (10^d - 1)`: through both limits (0 included, which
    /// a plain log scale cannot reach), even steps in `u` multiply `v - min` by the same factor
    /// above the bottom 10^-d of the range.
    Log {
        decades: f64,
    },
}

fn axis(spec: &ParamSpec) -> Axis {
    LOG_KNOBS
        .iter()
        .find(|(name, _)| *name == spec.name)
        .map_or(Axis::Linear, |&(_, decades)| Axis::Log { decades })
}

/// The knob's value at normalised `u` (clamped to [0, 1]), as the preset's f32 stores it.
fn to_value(spec: &ParamSpec, u: f64) -> f64 {
    let u = u.clamp(0.0, 1.0);
    let span = spec.max - spec.min;
    let t = match axis(spec) {
        Axis::Linear => u,
        Axis::Log { decades } => (10f64.powf(decades * u) - 1.0) / (10f64.powf(decades) - 1.0),
    };
    let v = round_sig(spec.min + span * t, DIGITS).clamp(spec.min, spec.max);
    spec.snap(v) as f32 as f64
}

/// Where `v` lies on the knob's normalised axis.
fn to_unit(spec: &ParamSpec, v: f64) -> f64 {
    let span = spec.max - spec.min;
    if span <= 0.0 {
        return 0.0;
    }
    let t = ((v - spec.min) / span).clamp(0.0, 1.0);
    match axis(spec) {
        Axis::Linear => t,
        Axis::Log { decades } => (1.0 + t * (10f64.powf(decades) - 1.0)).log10() / decades,
    }
}

/// One target in one trial.
#[derive(Clone, Debug, PartialEq)]
pub struct Reached {
    pub target: Target,
    /// The metric's value, in the target's unit; `None` when the run did not produce it (a
    /// jacket still moving at the end of the run has no settle time).
    pub value: Option<f64>,
    /// Signed miss as a share of [`Target::scale`]: +0.1 is 10 % over. A missing value counts
    /// as the least it could have been (all the run's time after the motion stopped) plus a
    /// whole miss, so a fabric that never settles ranks below every one that does.
    pub miss: f64,
    /// Whether the miss is within the tolerance.
    pub met: bool,
}

impl Reached {
    /// `+0.021 s`: how far off, in the metric's own unit.
    pub fn off_by(&self) -> Option<String> {
        let v = self.value?;
        let d = v - self.target.value;
        let sign = if d >= 0.0 { "+" } else { "-" };
        Some(format!(
            "{sign}{}",
            with_unit(d.abs(), self.target.metric.unit)
        ))
    }
}

impl Reached {
    /// The miss in percent of the target, or `None` where the miss is measured against the
    /// metric's floor (a target near 0), not against the target.
    pub fn percent_off(&self) -> Option<f64> {
        let t = self.target;
        (self.value.is_some() && t.scale() == t.value).then_some(self.miss * 100.0)
    }
}

impl fmt::Display for Reached {
    /// `settle_time 1.23 s (+2.5 %)`, `max_penetration 0.002 m (+0.002 m)` for a target near
    /// 0, or `settle_time none in the run`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.target.metric;
        match (self.value, self.percent_off(), self.off_by()) {
            (Some(v), Some(pct), _) => {
                write!(f, "{} {} ({pct:+.1} %)", m.name, with_unit(v, m.unit))
            }
            (Some(v), None, Some(off)) => write!(f, "{} {} ({off})", m.name, with_unit(v, m.unit)),
            _ => write!(f, "{} none in the run", m.name),
        }
    }
}

/// One run of the preset with a setting of the knobs.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// 1 for the first trial (the preset as given).
    pub number: usize,
    pub setting: Setting,
    /// Every target, in the order given.
    pub reached: Vec<Reached>,
    /// The sum of the squared misses: what the search makes small.
    pub error: f64,
    /// Whether every target is met.
    pub met: bool,
    /// The run's full metrics (its timings are measured, and play no part in the search).
    pub metrics: Metrics,
}

impl Trial {
    /// One line: the knobs, each target's value and miss, the error.
    pub fn to_text(&self) -> String {
        let reached: Vec<String> = self.reached.iter().map(|r| r.to_string()).collect();
        format!(
            "trial {:>3}: {} -> {}; error {:.4}{}",
            self.number,
            self.setting,
            reached.join(", "),
            self.error,
            if self.met {
                "  (meets every target)"
            } else {
                ""
            }
        )
    }
}

/// Why the search stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stop {
    /// A trial met every target.
    Met,
    /// The search could improve no further: its simplex's errors agree, or its last points
    /// lie closer together than the metrics' jitter lets it tell apart.
    Converged,
    /// The trial cap was reached.
    TrialCap(usize),
    /// The time budget (seconds) would have run out during the next trial.
    TimeBudget(f64),
    /// The caller cancelled.
    Cancelled,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Met => write!(f, "a trial met every target"),
            Stop::Converged => write!(f, "the search converged"),
            Stop::TrialCap(n) => write!(f, "the trial cap ({n}) was reached"),
            Stop::TimeBudget(s) => write!(f, "the time budget ({s} s) was spent"),
            Stop::Cancelled => write!(f, "cancelled"),
        }
    }
}

/// The outcome of a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitResult {
    /// The trial with the least error (the first such, if several tie).
    pub best: Trial,
    /// The given preset with the best trial's knobs, its name and description saying what it
    /// was fitted to.
    pub preset: Preset,
    /// Whether every target was met.
    pub met: bool,
    /// Trials run.
    pub trials: usize,
    pub stop: Stop,
    /// Simulated seconds per trial.
    pub seconds: f64,
    /// The share of a target's scale a met target was within.
    pub tolerance: f64,
    /// Wall-clock seconds the fit took.
    pub elapsed_s: f64,
}

impl FitResult {
    /// The verdict, the best knobs and each target's value and miss, for a person.
    pub fn to_text(&self) -> String {
        let mut s = if self.met {
            format!(
                "every target met by trial {} of {} ({:.1} s)\n",
                self.best.number, self.trials, self.elapsed_s
            )
        } else {
            format!(
                "targets NOT met: stopped after {} trials ({:.1} s) because {}; the nearest is trial {}\n",
                self.trials, self.elapsed_s, self.stop, self.best.number
            )
        };
        s += &format!("  knobs: {}\n", self.best.setting);
        let tolerance = percent(self.tolerance);
        for r in &self.best.reached {
            let t = r.target;
            let reached = match r.value {
                Some(v) => with_unit(v, t.metric.unit),
                None => format!("none in the {:.2} s run", self.seconds),
            };
            let off = match (r.off_by(), r.percent_off()) {
                (Some(d), Some(pct)) => format!("off by {d} ({pct:+.1} %)"),
                (Some(d), None) => format!("off by {d}"),
                _ => String::new(),
            };
            s += &format!(
                "  {:<27} target {:<10} reached {:<12} {:<30} {}\n",
                t.metric.name,
                with_unit(t.value, t.metric.unit),
                reached,
                off,
                if r.met {
                    format!("met (within {tolerance} %)")
                } else {
                    format!("missed (tolerance {tolerance} %)")
                }
            );
        }
        s
    }
}

/// What every trial shares; `Sync`, so the starting simplex can run on all cores.
struct Runner<'a> {
    character: Arc<Character>,
    /// What the character wears in every trial.
    outfit: &'a Outfit,
    base: &'a Preset,
    spec: &'a FitSpec,
    /// Simulated seconds per trial.
    seconds: f64,
    /// When the clip's motion stops, for the settle time of a run that never settled.
    motion_end: Option<f64>,
}

impl Runner<'_> {
    /// The knob values at normalised `u` (each clamped to its range) and the penalty for
    /// the distance outside.
    fn values(&self, u: &[f64]) -> (Vec<f64>, f64) {
        let values = self
            .spec
            .knobs
            .iter()
            .zip(u)
            .map(|(spec, &x)| to_value(spec, x))
            .collect();
        let outside: f64 = u.iter().map(|&x| (x - x.clamp(0.0, 1.0)).powi(2)).sum();
        (values, outside * OUTSIDE_PENALTY)
    }

    /// The preset's own knob values, normalised: where the search starts.
    fn start(&self) -> Vec<f64> {
        self.spec
            .knobs
            .iter()
            .map(|spec| to_unit(spec, self.base.params.get(spec.name).unwrap_or(spec.min)))
            .collect()
    }

    fn setting(&self, values: &[f64]) -> Setting {
        Setting(
            self.spec
                .knobs
                .iter()
                .copied()
                .zip(values.iter().copied())
                .collect(),
        )
    }

    /// One `simulate` run of the preset with these knob values.
    fn run(&self, values: &[f64]) -> Result<Metrics, SceneError> {
        let preset = Preset {
            params: self.setting(values).apply(&self.base.params),
            ..self.base.clone()
        };
        // The search reads the behaviour only: nothing is drawn between the steps.
        simulate_drawing_in(
            self.character.clone(),
            self.outfit,
            &preset,
            &self.spec.clip,
            self.seconds,
            Drawing::Skipped,
        )
    }

    /// Each target's value and miss, the error and whether all are met.
    fn score(&self, metrics: &Metrics) -> (Vec<Reached>, f64, bool) {
        let reached: Vec<Reached> = self
            .spec
            .targets
            .iter()
            .map(|&target| {
                let value = target.metric.read(metrics);
                let miss = match value {
                    Some(v) => target.miss(v),
                    // Only settle_time can be missing: it is at least the run's time after
                    // the motion stopped.
                    None => {
                        let least = self.seconds - self.motion_end.unwrap_or(0.0);
                        target.miss(least).max(0.0) + 1.0
                    }
                };
                Reached {
                    target,
                    value,
                    miss,
                    met: value.is_some() && miss.abs() <= self.spec.tolerance,
                }
            })
            .collect();
        let error = reached.iter().map(|r| r.miss * r.miss).sum();
        let met = reached.iter().all(|r| r.met);
        (reached, error, met)
    }
}

/// What the search has found so far.
struct Log<'a> {
    /// Every setting run so far (the f32 bits of its knob values, as the preset stores them)
    /// and its error: the simplex revisits points, and points outside the ranges clamp onto
    /// the same setting.
    seen: Vec<(Vec<u32>, f64)>,
    best: Option<Trial>,
    trials: usize,
    /// The longest trial so far, wall-clock seconds: the budget check's estimate.
    slowest: f64,
    /// The last points the search evaluated (normalised, clamped), newest last.
    recent: VecDeque<Vec<f64>>,
    stop: Option<Stop>,
    failure: Option<SceneError>,
    on_trial: &'a mut dyn FnMut(&Trial),
}

/// The search: a runner, what it found, and when to stop.
struct Search<'a> {
    runner: Runner<'a>,
    started: Instant,
    cancel: &'a AtomicBool,
    log: RefCell<Log<'a>>,
}

fn key(values: &[f64]) -> Vec<u32> {
    values.iter().map(|&v| (v as f32).to_bits()).collect()
}

impl Search<'_> {
    /// Why no more trials may start, `batch` of them at once, if so.
    fn should_stop(&self, log: &Log<'_>, batch: usize) -> Option<Stop> {
        let spec = self.runner.spec;
        if self.cancel.load(Ordering::Relaxed) {
            return Some(Stop::Cancelled);
        }
        if log.trials >= spec.max_trials {
            return Some(Stop::TrialCap(spec.max_trials));
        }
        // The first trials always run: until one has, there is no estimate of a trial's time.
        let rounds = batch.div_ceil(rayon::current_num_threads().max(1)) as f64;
        let ahead = log.slowest * rounds;
        if log.trials > 0 && self.started.elapsed().as_secs_f64() + ahead > spec.max_seconds {
            return Some(Stop::TimeBudget(spec.max_seconds));
        }
        None
    }

    /// Keeps a finished trial: numbers it, reports it, remembers the best.
    fn record(&self, log: &mut Log<'_>, values: &[f64], metrics: Metrics, took: f64) -> f64 {
        let (reached, error, met) = self.runner.score(&metrics);
        log.trials += 1;
        log.slowest = log.slowest.max(took);
        let trial = Trial {
            number: log.trials,
            setting: self.runner.setting(values),
            reached,
            error,
            met,
            metrics,
        };
        (log.on_trial)(&trial);
        log.seen.push((key(values), error));
        if met && log.stop.is_none() {
            log.stop = Some(Stop::Met);
        }
        if log.best.as_ref().is_none_or(|b| error < b.error) {
            log.best = Some(trial);
        }
        error
    }

    /// Runs the settings at normalised points `us` not run before, in parallel, and keeps
    /// them in order. The starting simplex: its points are independent.
    fn run_batch(&self, us: &[Vec<f64>]) -> Result<(), FitError> {
        let mut log = self.log.borrow_mut();
        let mut fresh: Vec<Vec<f64>> = Vec::new();
        for u in us {
            let (values, _) = self.runner.values(u);
            let k = key(&values);
            let known = log.seen.iter().any(|(s, _)| *s == k);
            if !known && !fresh.iter().any(|f| key(f) == k) {
                fresh.push(values);
            }
        }
        fresh.truncate(self.runner.spec.max_trials.saturating_sub(log.trials));
        if let Some(stop) = self.should_stop(&log, fresh.len()) {
            log.stop = Some(stop);
            return Ok(());
        }
        let runner = &self.runner;
        let runs: Vec<(Result<Metrics, SceneError>, f64)> = fresh
            .par_iter()
            .map(|values| {
                let t = Instant::now();
                (runner.run(values), t.elapsed().as_secs_f64())
            })
            .collect();
        for (values, (metrics, took)) in fresh.iter().zip(runs) {
            self.record(&mut log, values, metrics?, took);
        }
        // A cap the batch used up stops here: the search after it would ask for a trial it
        // may not run before it could stop.
        let cap = self.runner.spec.max_trials;
        if log.stop.is_none() && log.trials >= cap {
            log.stop = Some(Stop::TrialCap(cap));
        }
        Ok(())
    }

    /// The error at normalised point `u`, running a trial when the setting is new; `None`
    /// when the search must stop instead.
    fn evaluate(&self, u: &[f64]) -> Option<f64> {
        let (values, penalty) = self.runner.values(u);
        let k = key(&values);
        let mut log = self.log.borrow_mut();
        // argmin's start evaluates the starting simplex, already run: those n + 1 points
        // come from the log, and no stop can fire before the `2 (n + 1)` points the
        // convergence test needs (argmin's start cannot be stopped).
        if log.stop.is_none() && converged(&mut log.recent, u) {
            log.stop = Some(Stop::Converged);
        }
        if log.stop.is_some() {
            return None;
        }
        if let Some(&(_, error)) = log.seen.iter().find(|(s, _)| *s == k) {
            return Some(error + penalty);
        }
        if let Some(stop) = self.should_stop(&log, 1) {
            log.stop = Some(stop);
            return None;
        }
        let t = Instant::now();
        match self.runner.run(&values) {
            Ok(metrics) => {
                let error = self.record(&mut log, &values, metrics, t.elapsed().as_secs_f64());
                // A trial that meets every target ends the search at once.
                log.stop.is_none().then_some(error + penalty)
            }
            Err(e) => {
                log.failure = Some(e);
                None
            }
        }
    }

    /// Nelder–Mead from the starting simplex (already run) until a stop.
    fn optimise(&self, simplex: Vec<Vec<f64>>) -> Result<(), FitError> {
        let solver = NelderMead::new(simplex.into_iter().map(Point).collect())
            .with_sd_tolerance(SD_TOLERANCE)
            .map_err(|e| FitError::Search(e.to_string()))?;
        // A guard only: the trial cap or the convergence test ends the search first.
        let iterations = (self.runner.spec.max_trials as u64 + 1) * 100;
        let outcome = Executor::new(Objective(self), solver)
            .configure(|state| state.max_iters(iterations))
            .run();
        let mut log = self.log.borrow_mut();
        if let Some(e) = log.failure.take() {
            return Err(e.into());
        }
        match outcome {
            Ok(_) => {
                log.stop.get_or_insert(Stop::Converged);
                Ok(())
            }
            Err(_) if log.stop.is_some() => Ok(()),
            Err(e) => Err(FitError::Search(e.to_string())),
        }
    }
}

/// Remembers `u` (clamped) among the last `2 (knobs + 1)` points, and says whether they
/// all lie within [`MIN_SPREAD`] of each other along every axis.
fn converged(recent: &mut VecDeque<Vec<f64>>, u: &[f64]) -> bool {
    let keep = 2 * (u.len() + 1);
    recent.push_back(u.iter().map(|x| x.clamp(0.0, 1.0)).collect());
    while recent.len() > keep {
        recent.pop_front();
    }
    recent.len() == keep
        && (0..u.len()).all(|i| {
            let (lo, hi) = recent.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
                (lo.min(p[i]), hi.max(p[i]))
            });
            hi - lo < MIN_SPREAD
        })
}

/// A point of the search in normalised knob coordinates. Our own type so argmin-math needs
/// no `vec` feature (which would pull rand for solvers we do not use).
#[derive(Clone, Debug, PartialEq)]
struct Point(Vec<f64>);

impl ArgminAdd<Point, Point> for Point {
    fn add(&self, other: &Point) -> Point {
        Point(self.0.iter().zip(&other.0).map(|(a, b)| a + b).collect())
    }
}

impl ArgminSub<Point, Point> for Point {
    fn sub(&self, other: &Point) -> Point {
        Point(self.0.iter().zip(&other.0).map(|(a, b)| a - b).collect())
    }
}

impl ArgminMul<f64, Point> for Point {
    fn mul(&self, k: &f64) -> Point {
        Point(self.0.iter().map(|a| a * k).collect())
    }
}

/// The search as argmin's cost function. argmin takes `&self`, hence the `RefCell` log.
struct Objective<'s, 'a>(&'s Search<'a>);

/// Ends argmin's run: the reason is in the log.
#[derive(Debug, thiserror::Error)]
#[error("the fit stopped")]
struct Stopped;

impl CostFunction for Objective<'_, '_> {
    type Param = Point;
    type Output = f64;

    fn cost(&self, p: &Point) -> Result<f64, argmin::core::Error> {
        self.0.evaluate(&p.0).ok_or_else(|| Stopped.into())
    }
}

/// The normalised starting simplex: the start and one step along each knob (back where a
/// step forward would leave the range).
fn start_simplex(start: &[f64]) -> Vec<Vec<f64>> {
    let mut simplex = vec![start.to_vec()];
    for i in 0..start.len() {
        let mut p = start.to_vec();
        p[i] += if p[i] + START_STEP <= 1.0 {
            START_STEP
        } else {
            -START_STEP
        };
        simplex.push(p);
    }
    simplex
}

/// Searches `spec.knobs` of `preset` for the setting whose `simulate` metrics on
/// `spec.clip` meet `spec.targets`. Calls `on_trial` after each trial, in order (the tuner
/// shows them live). Stops when a trial meets every target, the search converges, the trial
/// cap or the time budget is reached, or `cancel` is set; the result is the best trial so
/// far. Nothing is written: the caller saves [`FitResult::preset`] if it wants to.
pub fn fit(
    character: Arc<Character>,
    preset: &Preset,
    spec: &FitSpec,
    on_trial: &mut dyn FnMut(&Trial),
    cancel: &AtomicBool,
) -> Result<FitResult, FitError> {
    fit_in(
        (character, &Outfit::Template),
        preset,
        spec,
        on_trial,
        cancel,
    )
}

/// [`fit`] with the character in `outfit` (the artist's own garment, or the preset's
/// template): every trial wears it; the fitted preset is the fabric alone.
pub fn fit_in(
    (character, outfit): (Arc<Character>, &Outfit),
    preset: &Preset,
    spec: &FitSpec,
    on_trial: &mut dyn FnMut(&Trial),
    cancel: &AtomicBool,
) -> Result<FitResult, FitError> {
    let seconds = spec.check(&character)?;
    let motion_end = clip_motion_end(&character, &spec.clip);
    let search = Search {
        runner: Runner {
            character,
            outfit,
            base: preset,
            spec,
            seconds,
            motion_end,
        },
        started: Instant::now(),
        cancel,
        log: RefCell::new(Log {
            seen: Vec::new(),
            best: None,
            trials: 0,
            slowest: 0.0,
            recent: VecDeque::new(),
            stop: None,
            failure: None,
            on_trial,
        }),
    };
    let simplex = start_simplex(&search.runner.start());
    search.run_batch(&simplex)?;
    // With every point of the simplex run, argmin's start (which cannot stop) only reads
    // the log; a trial cap smaller than the simplex stops before it.
    if search.log.borrow().stop.is_none() {
        search.optimise(simplex)?;
    }
    let elapsed_s = search.started.elapsed().as_secs_f64();
    let log = search.log.into_inner();
    let best = log.best.ok_or(FitError::Cancelled)?;
    Ok(FitResult {
        preset: fitted_preset(preset, &best, spec, seconds),
        met: best.met,
        trials: log.trials,
        stop: log.stop.unwrap_or(Stop::Converged),
        seconds,
        tolerance: spec.tolerance,
        elapsed_s,
        best,
    })
}

/// A share as a percentage for a person: 0.07 is `7`, not `7.000000000000001`.
pub fn percent(share: f64) -> String {
    format!("{}", (share * 1e6).round() / 1e4)
}

/// `preset` with the best trial's knobs, named and described for what it was fitted to.
fn fitted_preset(preset: &Preset, best: &Trial, spec: &FitSpec, seconds: f64) -> Preset {
    let targets: Vec<String> = spec.targets.iter().map(|t| t.to_string()).collect();
    let knobs: Vec<&str> = spec.knobs.iter().map(|k| k.name).collect();
    let reached: Vec<String> = best.reached.iter().map(|r| r.to_string()).collect();
    let name = if preset.name.ends_with("(fitted)") {
        preset.name.clone()
    } else {
        format!("{} (fitted)", preset.name)
    };
    let verdict = if best.met {
        format!("every target within {} %", percent(spec.tolerance))
    } else {
        "targets not met".to_string()
    };
    let mut description = format!(
        "{} fitted with `cloth-tuner fit` on {} ({seconds:.2} s runs) to {} by moving {}; \
         reached {} ({verdict}).",
        preset.name,
        spec.clip,
        targets.join(", "),
        knobs.join(", "),
        reached.join(", "),
    );
    if !preset.description.is_empty() {
        description = format!("{description} {}: {}", preset.name, preset.description);
    }
    Preset {
        name,
        description,
        params: best.setting.apply(&preset.params),
        ..preset.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::FabricParams;

    fn spec(name: &str) -> &'static ParamSpec {
        FabricParams::spec(name).unwrap()
    }

    #[test]
    fn the_axes_reach_both_limits_and_map_back() {
        for name in [
            "damping",
            "wind_drag",
            "world_motion_fraction",
            "max_distance_hem",
        ] {
            let s = spec(name);
            assert_eq!(to_value(s, 0.0), s.min as f32 as f64, "{name}");
            assert_eq!(to_value(s, 1.0), s.max as f32 as f64, "{name}");
            assert_eq!(to_value(s, -3.0), to_value(s, 0.0), "{name}: clamped");
            for v in [0.0096, 0.1633, 0.35] {
                let back = to_value(s, to_unit(s, v));
                assert!((back - v).abs() <= 1e-4 * v, "{name}: {v} -> {back}");
            }
        }
    }

    #[test]
    fn a_damping_moves_by_the_same_factor_wherever_it_is() {
        let d = spec("damping");
        let ratio = |v: f64| to_value(d, to_unit(d, v) + 0.05) / v;
        assert!(
            (ratio(0.01) - ratio(0.1)).abs() < 0.02,
            "{} {}",
            ratio(0.01),
            ratio(0.1)
        );
        // A tenth of a linear knob's range is a tenth of it.
        let w = spec("world_motion_fraction");
        assert!((to_value(w, to_unit(w, 0.2) + 0.1) - 0.3).abs() < 1e-6);
    }

    #[test]
    fn trial_values_keep_four_significant_digits() {
        let d = spec("damping");
        assert_eq!(to_value(d, to_unit(d, 0.20033748)), 0.2003_f32 as f64);
    }

    #[test]
    fn the_starting_simplex_steps_back_at_the_top_of_a_range() {
        let s = start_simplex(&[0.5, 0.95]);
        assert_eq!(s, vec![vec![0.5, 0.95], vec![0.6, 0.95], vec![0.5, 0.85]]);
    }

    #[test]
    fn the_search_converges_when_its_recent_points_gather() {
        let mut recent = VecDeque::new();
        // Two knobs: six points are needed.
        for i in 0..5 {
            assert!(!converged(&mut recent, &[0.5 + i as f64 * 1e-5, 0.2]));
        }
        assert!(converged(&mut recent, &[0.5, 0.2]));
        assert!(!converged(&mut recent, &[0.6, 0.2]));
    }
}
