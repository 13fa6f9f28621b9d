//! `cloth-tuner fit`: the command line of [`crate::tune::fit`]. Reads and checks every input
//! before the first trial, prints each trial as it finishes and the verdict, and saves the
//! best preset (atomically, at the end) with `--out`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::Context;

use super::CharacterArgs;
use crate::preset::Preset;
use crate::tune::fit::{
    fit_in, percent, FitSpec, DEFAULT_MAX_SECONDS, DEFAULT_MAX_TRIALS, DEFAULT_TOLERANCE,
};
use crate::tune::knobs::{knob_list, Setting};
use crate::tune::targets::parse_targets;

/// The options of `fit`.
#[derive(Clone, Debug, clap::Args)]
pub struct FitArgs {
    /// The preset to start from (JSON). Its other knobs stay as they are.
    #[arg(long)]
    pub preset: PathBuf,
    /// The clip every trial plays; an unknown name is an error that lists the clips there
    /// are. settle_time needs a clip whose motion stops (of the built-in ones, sprint_stop).
    #[arg(long, default_value = "sprint_stop")]
    pub clip: String,
    /// What the metrics should reach, METRIC=VALUE, comma separated or repeated: settle_time
    /// (s), hem_swing_rms, hem_swing_peak, max_penetration (m), max_vertical_stretch,
    /// mean_vertical_stretch, max_horizontal_stretch, max_distance_saturation (%),
    /// edge_interior_motion_ratio. E.g. settle_time=1.2,hem_swing_rms=0.06.
    #[arg(long, value_name = "METRIC=VALUE,...", required = true)]
    pub target: Vec<String>,
    /// The knobs to search, comma separated (`cloth-tuner params` lists them), each within
    /// its own limits. Continuous knobs only: whole-number knobs and switches are refused.
    #[arg(long, value_name = "NAME,NAME")]
    pub knobs: String,
    #[command(flatten)]
    pub character: CharacterArgs,
    /// Simulated seconds per trial (default: 5 s past the moment the clip's motion stops,
    /// longer for a settle time over 3 s; 6 s on a looping clip).
    #[arg(long)]
    pub seconds: Option<f64>,
    /// A target is met when its miss is within this share of it (0.05 = 5 %); a target near
    /// 0 is measured against a small floor of its unit instead (0.1 s, 1 cm, 1 %).
    #[arg(long, default_value_t = DEFAULT_TOLERANCE)]
    pub tolerance: f64,
    /// The most trials (simulate runs).
    #[arg(long, default_value_t = DEFAULT_MAX_TRIALS)]
    pub max_trials: usize,
    /// Wall-clock budget in seconds: no trial starts that the time left would not cover.
    #[arg(long, default_value_t = DEFAULT_MAX_SECONDS)]
    pub max_seconds: f64,
    /// Save the best preset here when the search ends (written atomically; also when the
    /// targets were not met, as the nearest). Its name and description say what it was
    /// fitted to.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Runs `fit`: exit 0 when every target was met, 1 when not (the nearest is reported and,
/// with `--out`, saved), 2 on bad input (refused before any trial runs) or a failed save.
pub fn fit_command(args: &FitArgs) -> ExitCode {
    match run(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            super::print_error(&e);
            ExitCode::from(2)
        }
    }
}

/// The fit, its report and the save; whether every target was met.
fn run(args: &FitArgs) -> anyhow::Result<bool> {
    let (preset, character, outfit, spec) = prepare(args)?;
    let seconds = spec.check(&character)?;
    let start = Setting(
        spec.knobs
            .iter()
            .map(|k| (*k, preset.params.get(k.name).unwrap_or(k.min)))
            .collect(),
    );
    let targets: Vec<String> = spec.targets.iter().map(|t| t.to_string()).collect();
    println!(
        "fitting {} on {} ({seconds:.2} s runs) to {} (within {} %)\n\
         starting from {start}; at most {} trials or {} s",
        preset.name,
        spec.clip,
        targets.join(", "),
        percent(spec.tolerance),
        spec.max_trials,
        spec.max_seconds,
    );
    let cancel = AtomicBool::new(false);
    let mut print_trial = |t: &crate::tune::fit::Trial| {
        println!("{}", t.to_text());
        // Trials take a second or so each: show them as they come, even through a pipe.
        let _ = std::io::stdout().flush();
    };
    let who = (character, &outfit);
    let result = fit_in(who, &preset, &spec, &mut print_trial, &cancel)?;
    print!("{}", result.to_text());
    // The search knows only the targets: say where its knobs leave the article's advice.
    for w in result.preset.params.article_departures() {
        eprintln!("warning: {w}");
    }
    if let Some(out) = &args.out {
        result.preset.save(out)?;
        println!(
            "saved {} as {}",
            if result.met {
                "the fitted preset"
            } else {
                "the nearest preset (targets not met)"
            },
            out.display()
        );
    }
    Ok(result.met)
}

/// What a fit plays on: the starting preset, the character, what it wears, the search.
type Prepared = (
    Preset,
    std::sync::Arc<crate::character::Character>,
    crate::scene::Outfit,
    FitSpec,
);

/// Every input read and checked: the preset, the character and its garment, the targets, the
/// knobs, and that `--out` can be written at the end.
fn prepare(args: &FitArgs) -> anyhow::Result<Prepared> {
    let targets = parse_targets(&args.target.join(","))?;
    let knobs = knob_list(&args.knobs)?;
    let mut spec = FitSpec::new(&args.clip, targets, knobs);
    spec.seconds = args.seconds;
    spec.tolerance = args.tolerance;
    spec.max_trials = args.max_trials;
    spec.max_seconds = args.max_seconds;
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    let preset = Preset::load(&args.preset)?;
    let (character, outfit) = args.character.load_outfit()?;
    Ok((preset, character, outfit, spec))
}

/// Refuses an `--out` the save at the end would fail on, before a minute of trials.
fn check_writable(out: &Path) -> anyhow::Result<()> {
    let folder = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let meta = std::fs::metadata(folder)
        .with_context(|| format!("--out {}: no folder {}", out.display(), folder.display()))?;
    if !meta.is_dir() {
        anyhow::bail!(
            "--out {}: {} is not a folder",
            out.display(),
            folder.display()
        );
    }
    if out.is_dir() {
        anyhow::bail!("--out {} is a folder; give a file name", out.display());
    }
    if std::fs::metadata(out).is_ok_and(|m| m.permissions().readonly()) {
        anyhow::bail!("--out {} is read-only", out.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_help_and_the_guide_name_every_target_metric() {
        let help = super::super::Cli::command()
            .find_subcommand_mut("fit")
            .expect("a fit subcommand")
            .render_long_help()
            .to_string();
        let guide = std::fs::read_to_string("docs/comparing-fabrics.md").unwrap();
        for m in crate::tune::targets::TARGET_METRICS {
            assert!(help.contains(m.name), "fit --help does not name {}", m.name);
            assert!(
                guide.contains(&format!("`{}`", m.name)),
                "docs/comparing-fabrics.md does not name {}",
                m.name
            );
        }
    }
}
