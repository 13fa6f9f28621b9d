//! `fit`: what a user checks of a search for knob values that meet target metrics. Runs are
//! short (a few simulated seconds, a handful of trials) so the file stays quick at the test
//! profile's opt-level 1.

use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::metrics::simulate;
use cloth_tuner::tune::fit::{fit, FitError, FitResult, FitSpec, Stop, Trial};
use cloth_tuner::tune::knobs::knob_list;
use cloth_tuner::tune::targets::{metric, parse_targets, Target};

fn tweed() -> Preset {
    Preset::load("presets/tweed.json").unwrap()
}

/// Runs a fit and collects its trials as they were reported.
fn run(c: &Arc<Character>, preset: &Preset, spec: &FitSpec) -> (FitResult, Vec<Trial>) {
    let mut trials = Vec::new();
    let result = fit(
        c.clone(),
        preset,
        spec,
        &mut |t: &Trial| trials.push(t.clone()),
        &AtomicBool::new(false),
    )
    .unwrap();
    (result, trials)
}

#[test]
fn fitting_the_tweed_to_its_own_metrics_from_a_perturbed_start_recovers_them() {
    let c = Arc::new(Character::builtin());
    // 1.5 s of sprint_stop: the sprint, one pass per trial (the motion stops at 2.93 s, so
    // no settle run).
    let (clip, seconds) = ("sprint_stop", 1.5);
    let own = simulate(c.clone(), &tweed(), clip, seconds).unwrap();
    let targets: Vec<Target> = ["hem_swing_rms", "edge_interior_motion_ratio"]
        .iter()
        .map(|name| {
            let metric = metric(name).unwrap();
            Target {
                metric,
                value: metric.read(&own).unwrap(),
            }
        })
        .collect();
    let mut start = tweed();
    start.params.damping *= 1.6;
    start.params.contact_damping *= 0.6;
    let mut spec = FitSpec::new(clip, targets, knob_list("damping,contact_damping").unwrap());
    spec.seconds = Some(seconds);
    // 1 %: the perturbed tweed is within 5 % of these metrics already.
    spec.tolerance = 0.01;
    spec.max_trials = 30;
    let (result, trials) = run(&c, &start, &spec);
    assert!(
        !trials[0].met,
        "the perturbed start already meets the targets"
    );
    assert!(result.met, "{}", result.to_text());
    assert_eq!(result.stop, Stop::Met);
    for r in &result.best.reached {
        let v = r.value.unwrap();
        assert!(
            (v - r.target.value).abs() <= 0.01 * r.target.value,
            "{}: reached {v}, own {}",
            r.target.metric.name,
            r.target.value
        );
    }
    assert_eq!(result.trials, trials.len());
    // The best trial is one that ran, the nearest of them (trials run side by side, so the
    // one that met need not be the last to finish).
    assert!(trials.contains(&result.best));
    assert!(trials.iter().all(|t| t.error >= result.best.error));
    // The preset says what it was fitted to, holds the best knobs, and saves and loads.
    let p = &result.preset;
    assert_eq!(p.name, "Tweed (fitted)");
    assert!(p.description.contains("sprint_stop") && p.description.contains("hem_swing_rms"));
    assert_eq!(p.params, result.best.setting.apply(&start.params));
    let dir = tempfile::tempdir().unwrap();
    p.save(dir.path().join("fitted.json")).unwrap();
    assert_eq!(Preset::load(dir.path().join("fitted.json")).unwrap(), *p);
}

#[test]
fn an_unreachable_target_ends_with_the_nearest_preset_and_says_how_near() {
    let c = Arc::new(Character::builtin());
    let targets = parse_targets("settle_time=0.001,hem_swing_rms=5").unwrap();
    let mut spec = FitSpec::new(
        "sprint_stop",
        targets,
        knob_list("damping,contact_damping").unwrap(),
    );
    // The shortest run that can show a settle time of 0.001 s after the stop at 2.93 s; the
    // tweed is still moving at its end, so settle_time has no value.
    spec.seconds = Some(4.0);
    // The starting simplex only: a cap is a cap wherever the search is.
    spec.max_trials = 3;
    let (result, trials) = run(&c, &tweed(), &spec);
    assert!(!result.met);
    assert_eq!(result.stop, Stop::TrialCap(3));
    assert_eq!(trials.len(), 3);
    let least = trials.iter().map(|t| t.error).fold(f64::MAX, f64::min);
    assert_eq!(
        result.best.error, least,
        "the nearest trial is the best one"
    );
    assert_eq!(
        result.preset.params,
        result.best.setting.apply(&tweed().params)
    );
    let [settle, swing] = &result.best.reached[..] else {
        panic!("two targets")
    };
    assert!(!settle.met && !swing.met);
    // How near: a swing far below 5 m, a settle time that never came (ranked as the whole
    // run after the stop, and a whole miss more).
    let v = swing.value.unwrap();
    assert!(v > 0.0 && v < 1.0, "{v}");
    assert!((swing.miss - (v - 5.0) / 5.0).abs() < 1e-12);
    if settle.value.is_none() {
        assert!(settle.miss > 1.0, "{}", settle.miss);
    }
    let text = result.to_text();
    assert!(text.contains("targets NOT met"), "{text}");
    assert!(text.contains("trial cap (3)"), "{text}");
    assert!(
        text.contains("hem_swing_rms") && text.contains("missed"),
        "{text}"
    );
    assert!(text.contains("off by -"), "{text}");
}

#[test]
fn the_same_fit_runs_the_same_trials() {
    let c = Arc::new(Character::builtin());
    let targets = parse_targets("hem_swing_rms=0.05,edge_interior_motion_ratio=1.5").unwrap();
    let mut spec = FitSpec::new(
        "dodge",
        targets,
        knob_list("damping,world_motion_fraction").unwrap(),
    );
    spec.seconds = Some(0.75);
    spec.max_trials = 5;
    let (a, ta) = run(&c, &tweed(), &spec);
    let (b, tb) = run(&c, &tweed(), &spec);
    let key = |t: &Vec<Trial>| -> Vec<(String, u64)> {
        t.iter()
            .map(|t| (t.setting.to_string(), t.error.to_bits()))
            .collect()
    };
    assert_eq!(key(&ta), key(&tb));
    assert_eq!(a.best.setting, b.best.setting);
    assert_eq!(a.preset, b.preset);
}

#[test]
fn the_time_budget_stops_the_search_after_the_first_trials() {
    let c = Arc::new(Character::builtin());
    let mut spec = FitSpec::new(
        "dodge",
        parse_targets("hem_swing_rms=2").unwrap(),
        knob_list("damping").unwrap(),
    );
    spec.seconds = Some(0.25);
    // Less than any trial takes: the starting simplex runs (there is no estimate before it),
    // then nothing more.
    spec.max_seconds = 1e-6;
    let (result, trials) = run(&c, &tweed(), &spec);
    assert_eq!(result.stop, Stop::TimeBudget(1e-6));
    assert_eq!(trials.len(), 2);
    assert!(
        result.to_text().contains("time budget"),
        "{}",
        result.to_text()
    );
}

#[test]
fn bad_input_is_refused_before_any_trial() {
    let c = Arc::new(Character::builtin());
    let targets = parse_targets("hem_swing_rms=0.06").unwrap();
    let knobs = knob_list("damping").unwrap();
    let refused = |spec: FitSpec| -> String {
        let mut ran = 0;
        let e = fit(
            c.clone(),
            &tweed(),
            &spec,
            &mut |_: &Trial| ran += 1,
            &AtomicBool::new(false),
        )
        .unwrap_err();
        assert_eq!(ran, 0, "a trial ran before: {e}");
        e.to_string()
    };
    let e = refused(FitSpec::new("sprint", targets.clone(), knobs.clone()));
    assert!(
        e.contains("unknown clip `sprint`") && e.contains("sprint_stop"),
        "{e}"
    );
    let e = refused(FitSpec::new(
        "dodge",
        targets.clone(),
        knob_list("iterations").unwrap(),
    ));
    assert!(e.contains("iterations is a whole number"), "{e}");
    let e = refused(FitSpec::new(
        "dodge",
        targets.clone(),
        knob_list("hard_constraints").unwrap(),
    ));
    assert!(e.contains("hard_constraints is a switch"), "{e}");
    let e = refused(FitSpec::new(
        "dodge",
        targets.clone(),
        knob_list("timestep_hz").unwrap(),
    ));
    assert!(e.contains("timestep_hz is not fitted"), "{e}");
    let settle = parse_targets("settle_time=1").unwrap();
    let e = refused(FitSpec::new("walk", settle.clone(), knobs.clone()));
    assert!(
        e.contains("`walk` loops") && e.contains("sprint_stop"),
        "{e}"
    );
    let mut short = FitSpec::new("sprint_stop", settle, knobs.clone());
    short.seconds = Some(3.0);
    let e = refused(short);
    assert!(e.contains("run for 5 s or more"), "{e}");
    let mut loose = FitSpec::new("dodge", targets, knobs);
    loose.tolerance = 0.0;
    assert!(matches!(
        fit(
            c.clone(),
            &tweed(),
            &loose,
            &mut |_: &Trial| {},
            &AtomicBool::new(false)
        ),
        Err(FitError::Tolerance(_))
    ));
    // Cancelled before it began: no trial, no result.
    let e = fit(
        c.clone(),
        &tweed(),
        &FitSpec::new(
            "dodge",
            parse_targets("hem_swing_rms=0.06").unwrap(),
            knob_list("damping").unwrap(),
        ),
        &mut |_: &Trial| panic!("a trial ran"),
        &AtomicBool::new(true),
    )
    .unwrap_err();
    assert!(matches!(e, FitError::Cancelled), "{e}");
    // Names and numbers, as typed.
    let e = knob_list("damping,dampnig").unwrap_err().to_string();
    assert!(
        e.contains("no knob `dampnig`") && e.contains("contact_damping"),
        "{e}"
    );
    let e = parse_targets("hem_swing=0.06").unwrap_err().to_string();
    assert!(
        e.contains("no target metric `hem_swing`") && e.contains("hem_swing_rms"),
        "{e}"
    );
    let e = parse_targets("hem_swing_rms=6cm").unwrap_err().to_string();
    assert!(e.contains("`6cm` is not a number"), "{e}");
}

/// Runs the binary's `fit` with `args`.
fn cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
        .arg("fit")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_command_line_prints_each_trial_saves_the_best_and_writes_nothing_on_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fitted.json");
    let out_s = out.to_str().unwrap();
    let base = ["--preset", "presets/tweed.json", "--out", out_s];
    for (bad, says) in [
        (
            ["--knobs", "wobble", "--target", "hem_swing_rms=0.06"],
            "no knob `wobble`",
        ),
        (
            ["--knobs", "damping", "--target", "swing=0.06"],
            "no target metric `swing`",
        ),
        (
            ["--knobs", "damping", "--target", "hem_swing_rms=six"],
            "`six` is not a number",
        ),
        (
            ["--knobs", "damping", "--target", "hem_swing_rms=-1"],
            "negative",
        ),
        (
            ["--knobs", "substeps", "--target", "hem_swing_rms=0.06"],
            "whole number",
        ),
    ] {
        let o = cli(&[&base[..], &bad[..]].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{bad:?}");
        assert!(err.contains(says), "{bad:?}: {err}");
        assert!(!out.exists(), "{bad:?} wrote {out_s}");
    }
    let o = cli(&[
        &base[..],
        &[
            "--clip",
            "sprnt",
            "--knobs",
            "damping",
            "--target",
            "hem_swing_rms=0.06",
        ],
    ]
    .concat());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("unknown clip `sprnt`") && err.contains("sprint_stop"),
        "{err}"
    );
    assert!(!out.exists());

    // A short search that cannot meet its target: every trial printed, the nearest saved.
    let o = cli(&[
        &base[..],
        &[
            "--clip",
            "dodge",
            "--seconds",
            "0.5",
            "--knobs",
            "damping",
            "--target",
            "hem_swing_rms=2",
            "--max-trials",
            "3",
        ],
    ]
    .concat());
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    for n in 1..=3 {
        assert!(text.contains(&format!("trial   {n}: damping ")), "{text}");
    }
    assert!(text.contains("targets NOT met"), "{text}");
    assert!(
        text.contains("saved the nearest preset (targets not met)"),
        "{text}"
    );
    let saved = Preset::load(&out).unwrap();
    assert!(
        saved.description.contains("hem_swing_rms 2 m"),
        "{}",
        saved.description
    );
}
