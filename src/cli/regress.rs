//! `regress`: every case of a manifest (preset x clip x frames x cameras) rendered and compared
//! with its golden picture; diffs and an HTML report, failures first. `--update` rewrites the
//! goldens, and only after every case has rendered, each file atomically. `--shard K/N` runs
//! one of N disjoint parts of the suite (for several CI machines); `--junit` writes the
//! outcome as JUnit XML for CI systems to show.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use serde::Deserialize;

use super::compare::{compare, diff_image, Comparison, Thresholds};
use super::record::{compare as compare_record, record, record_name, RecordComparison, RecordSpec};
use super::render::{progress_bar, run_job, total, writable_dir, Job, OverlayName, Shot, Timings};
use super::CharacterArgs;
use crate::character::Character;
use crate::files::write_atomic;
use crate::picture::{read_png, write_png, PngWriter};
use crate::render::headless::{parse_size, CameraSpec, HeadlessGl, Offscreen};
use crate::scene::Outfit;
use html_escape::encode_double_quoted_attribute as escape;

/// The manifest file (`tests/regress.json`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Picture size, `WIDTHxHEIGHT`.
    pub size: String,
    /// A pixel differs when a channel differs by more than this.
    pub max_pixel_diff: u8,
    /// A case passes while at most this share of its pixels differ (0 to 1).
    pub max_diff_share: f64,
    /// Also record the path of the hem and the front edges through each preset x clip and
    /// compare it (optional).
    #[serde(default)]
    pub records: Option<RecordSpec>,
    pub cases: Vec<ManifestCase>,
}

/// One preset on some clips, frames and cameras. Paths are relative to the working folder.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestCase {
    /// A glTF character to play instead of `regress --character`'s (or the built-in one);
    /// its pictures' names start with its file stem.
    #[serde(default)]
    pub character: Option<PathBuf>,
    /// That character's settings file, instead of the one beside it.
    #[serde(default)]
    pub bone_map: Option<PathBuf>,
    /// The garment the character wears instead of the preset's template, in a glTF file of
    /// its own (as `--garment`); its pictures' names carry its file stem after the
    /// character's.
    #[serde(default)]
    pub garment: Option<PathBuf>,
    /// The garment's skinned mesh by name (as `--garment-mesh`): in `garment`'s file when it
    /// has several, else in the character's file.
    #[serde(default)]
    pub garment_mesh: Option<String>,
    pub preset: PathBuf,
    pub clips: Vec<String>,
    pub frames: Vec<u64>,
    pub cameras: Vec<String>,
    #[serde(default)]
    pub overlays: Vec<OverlayName>,
}

impl ManifestCase {
    /// The character and garment options this case plays: the command line's
    /// (`regress --character ...`) when it names neither a character nor a garment; else its
    /// own character (the command line's when it names none) in its own garment (the
    /// preset's template when it names none).
    pub fn character_args(&self, command_line: &CharacterArgs) -> CharacterArgs {
        let names_garment = self.garment.is_some() || self.garment_mesh.is_some();
        if self.character.is_none() && !names_garment {
            return command_line.clone();
        }
        let (character, bone_map) = match &self.character {
            Some(c) => (Some(c.clone()), self.bone_map.clone()),
            None => (
                command_line.character.clone(),
                command_line.bone_map.clone(),
            ),
        };
        CharacterArgs {
            character,
            bone_map,
            garment: self.garment.clone(),
            garment_mesh: self.garment_mesh.clone(),
        }
    }
}

impl Manifest {
    /// Reads a manifest; errors name the file and the field.
    pub fn load(path: &Path) -> anyhow::Result<Manifest> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the manifest {}", path.display()))?;
        let de = &mut serde_json::Deserializer::from_str(&text);
        let m: Manifest = serde_path_to_error::deserialize(de).map_err(|e| {
            anyhow::anyhow!("{}: field `{}`: {}", path.display(), e.path(), e.inner())
        })?;
        if let Some(e) = m.records.as_ref().and_then(|r| r.check().err()) {
            anyhow::bail!("{}: {e}", path.display());
        }
        if !(0.0..=1.0).contains(&m.max_diff_share) {
            anyhow::bail!(
                "{}: field `max_diff_share`: {} is out of range (0 to 1)",
                path.display(),
                m.max_diff_share
            );
        }
        Ok(m)
    }
}

/// One of N parts of a suite: `K/N`, K from 1 to N. A manifest's clips are dealt to the parts
/// in turn (the i-th preset x clip, counting from 0, goes to part i mod N + 1), so the N parts
/// together are the suite, each case in exactly one, whatever machine runs which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which part, from 1.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

impl Shard {
    /// Whether the `i`-th preset x clip of the manifest (from 0) is in this part.
    pub fn holds(&self, i: usize) -> bool {
        i % self.count == self.index - 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let parsed = s
            .split_once('/')
            .and_then(|(k, n)| Some((k.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((index, count)) if index >= 1 && index <= count => Ok(Shard { index, count }),
            Some((k, n)) => Err(format!(
                "shard {k}/{n}: the part must be from 1 to the number of parts ({n})"
            )),
            None => Err(format!(
                "shard '{s}': expected K/N, part K of N parts (for example 2/4)"
            )),
        }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// What `regress` was asked to do.
#[derive(Clone, Debug, clap::Args)]
pub struct RegressArgs {
    /// The manifest (JSON).
    #[arg(long, default_value = "tests/regress.json")]
    pub manifest: PathBuf,
    /// The character of the cases that name none.
    #[command(flatten)]
    pub character: super::CharacterArgs,
    /// The golden pictures' folder.
    #[arg(long, default_value = "tests/golden")]
    pub golden: PathBuf,
    /// Where the actual pictures, diffs and report go.
    #[arg(long, default_value = "target/regress")]
    pub out: PathBuf,
    /// Rewrite the golden pictures from this build.
    #[arg(long)]
    pub update: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Run only part K of N of the suite, for splitting it across CI machines: the
    /// manifest's preset x clip pairs are dealt to the N parts in turn, so the N parts
    /// together run every case exactly once.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Also write the outcome as JUnit XML (one test case per picture) to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// One case's outcome.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub name: String,
    /// `None` when there was no golden picture.
    pub comparison: Option<Comparison>,
    /// How the recorded particles' path compared with its record (a record case, not a
    /// picture).
    pub record: Option<RecordComparison>,
    /// Why it failed when not by the comparison (no golden, a different size).
    pub problem: Option<String>,
}

impl CaseResult {
    pub fn passed(&self) -> bool {
        self.problem.is_none()
            && (self.comparison.as_ref().is_some_and(Comparison::passes)
                || self.record.is_some_and(|r| r.passes()))
    }

    /// One line on how the picture compared (or why it could not be compared).
    pub fn detail(&self) -> String {
        match (&self.problem, &self.comparison) {
            (Some(p), _) => p.clone(),
            (None, Some(cmp)) => format!(
                "largest difference {}, {:.4} % of pixels over {}",
                cmp.max_channel_diff,
                cmp.share * 100.0,
                cmp.thresholds.max_pixel_diff
            ),
            (None, None) => self.record.map(|r| r.to_text()).unwrap_or_default(),
        }
    }
}

/// The outcome of a run.
#[derive(Clone, Debug)]
pub struct Report {
    pub cases: Vec<CaseResult>,
    /// Goldens written (with `--update`).
    pub updated: Vec<PathBuf>,
    pub timings: Timings,
    /// The HTML report.
    pub html: PathBuf,
}

impl Report {
    pub fn failures(&self) -> usize {
        self.cases.iter().filter(|c| !c.passed()).count()
    }
}

/// Renders every case; compares it with its golden (or, with `update`, rewrites the goldens).
pub fn regress(args: &RegressArgs) -> anyhow::Result<Report> {
    let manifest = Manifest::load(&args.manifest)?;
    let (w, h) = parse_size(&manifest.size)
        .map_err(|e| anyhow::anyhow!("{}: field `size`: {e}", args.manifest.display()))?;
    let thresholds = Thresholds {
        max_pixel_diff: manifest.max_pixel_diff,
        max_diff_share: manifest.max_diff_share,
    };
    // Every case is checked before anything is drawn or written.
    let jobs = plan_jobs(&manifest, args)?;
    let actual_dir = args.out.join("actual");
    let diff_dir = args.out.join("diff");
    let expected_dir = args.out.join("expected");
    for d in [&actual_dir, &diff_dir, &expected_dir] {
        writable_dir(d)?;
    }
    if args.update {
        writable_dir(&args.golden)?;
    } else if !args.golden.is_dir() {
        anyhow::bail!(
            "the golden folder {} does not exist (make it with --update)",
            args.golden.display()
        );
    }

    let gl = HeadlessGl::new()?;
    let mut offscreen = Offscreen::new(&gl, w.get(), h.get())?;
    let bar = progress_bar(jobs.iter().map(Job::shots).sum(), args.quiet);
    let mut shots: Vec<Shot> = Vec::new();
    let mut timings = Vec::new();
    let writer = PngWriter::new();
    let drawn: anyhow::Result<()> = jobs.iter().try_for_each(|job| {
        timings.push(run_job(job, &mut offscreen, &bar, |shot| {
            writer.write(actual_dir.join(&shot.name), shot.image.clone())?;
            shots.push(shot);
            Ok(())
        })?);
        Ok(())
    });
    writer.finish()?;
    drawn?;
    bar.finish_and_clear();

    let mut report = Report {
        cases: Vec::new(),
        updated: Vec::new(),
        timings: total(&timings),
        html: args.out.join("report.html"),
    };
    if args.update {
        // Everything rendered: now the goldens, each written atomically.
        for shot in &shots {
            let path = args.golden.join(&shot.name);
            write_png(&path, &shot.image)?;
            report.updated.push(path);
        }
    }
    for shot in &shots {
        let dirs = [diff_dir.as_path(), expected_dir.as_path()];
        report
            .cases
            .push(compare_shot(shot, &args.golden, dirs, thresholds)?);
    }
    if let Some(spec) = &manifest.records {
        check_records(&jobs, spec, args, &actual_dir, &mut report)?;
    }
    write_atomic(&report.html, html(&report, args).as_bytes())?;
    if let Some(path) = &args.junit {
        write_atomic(path, junit(&report, args)?.as_bytes())
            .with_context(|| format!("cannot write the JUnit report {}", path.display()))?;
    }
    Ok(report)
}

/// The manifest's cases as jobs for this part of the suite (`--shard`), every case checked, in
/// every part, so a bad one fails all of them. An error names the manifest and the case.
fn plan_jobs(manifest: &Manifest, args: &RegressArgs) -> anyhow::Result<Vec<Job>> {
    // Each character and garment is loaded once, however many cases name it.
    let mut loaded: Vec<(CharacterArgs, Arc<Character>, Outfit)> = Vec::new();
    let mut jobs = Vec::new();
    let mut jobs_seen = 0;
    for (i, case) in manifest.cases.iter().enumerate() {
        let at = |e: anyhow::Error| {
            anyhow::anyhow!(
                "{}: case {i}: {}",
                args.manifest.display(),
                super::error_text(&e)
            )
        };
        let who = case.character_args(&args.character);
        let (character, outfit) = match loaded.iter().find(|(a, ..)| *a == who) {
            Some((_, c, o)) => (c.clone(), o.clone()),
            None => {
                let (c, o) = who.load_outfit().map_err(|e| at(e.into()))?;
                loaded.push((who.clone(), c.clone(), o.clone()));
                (c, o)
            }
        };
        let label = who.label();
        let cameras = case
            .cameras
            .iter()
            .map(|c| CameraSpec::parse(c).map_err(|e| at(anyhow::anyhow!(e))))
            .collect::<anyhow::Result<Vec<_>>>()?;
        for clip in &case.clips {
            let in_shard = args.shard.is_none_or(|s| s.holds(jobs_seen));
            jobs_seen += 1;
            let job = Job::new(
                &character,
                label.clone(),
                &case.preset,
                clip,
                &case.frames,
                cameras.clone(),
                &case.overlays,
            )
            .map_err(at)?
            .wearing(outfit.clone());
            if in_shard {
                jobs.push(job);
            }
        }
    }
    if jobs_seen == 0 {
        anyhow::bail!("{}: no cases", args.manifest.display());
    }
    Ok(jobs)
}

/// One picture against its golden in `golden`: where it fails, the diff and the expected
/// picture go into `[diff, expected]`. A missing or unreadable golden is the case's problem,
/// not an error of the run.
fn compare_shot(
    shot: &Shot,
    golden: &Path,
    [diff_dir, expected_dir]: [&Path; 2],
    thresholds: Thresholds,
) -> anyhow::Result<CaseResult> {
    let golden = golden.join(&shot.name);
    let problem = |text: String| CaseResult {
        name: shot.name.clone(),
        comparison: None,
        record: None,
        problem: Some(text),
    };
    if !golden.is_file() {
        return Ok(problem(format!(
            "no golden picture {} (write it with --update)",
            golden.display()
        )));
    }
    let expected = read_png(&golden)?;
    Ok(match compare(&expected, &shot.image, thresholds) {
        Ok(c) => {
            if !c.passes() {
                write_png(
                    &diff_dir.join(&shot.name),
                    &diff_image(&expected, &shot.image, &c),
                )?;
                write_png(&expected_dir.join(&shot.name), &expected)?;
            }
            CaseResult {
                name: shot.name.clone(),
                comparison: Some(c),
                record: None,
                problem: None,
            }
        }
        Err(e) => problem(format!("{}: {e}", golden.display())),
    })
}

/// Records every job's hem and front edges, writes it to `actual/` (and, with `--update`, to the goldens once
/// all are recorded) and compares it with the golden record: one case per job.
fn check_records(
    jobs: &[Job],
    spec: &RecordSpec,
    args: &RegressArgs,
    actual_dir: &Path,
    report: &mut Report,
) -> anyhow::Result<()> {
    let records = jobs
        .iter()
        .map(|job| Ok((record_name(job), record(job, spec)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let json = |r| serde_json::to_vec(r).map_err(anyhow::Error::from);
    for (name, rec) in &records {
        write_atomic(&actual_dir.join(name), &json(rec)?)?;
    }
    if args.update {
        for (name, rec) in &records {
            let path = args.golden.join(name);
            write_atomic(&path, &json(rec)?)?;
            report.updated.push(path);
        }
    }
    for (name, rec) in records {
        let golden = args.golden.join(&name);
        let compared = std::fs::read(&golden)
            .map_err(|e| {
                format!(
                    "no record {} ({e}; write it with --update)",
                    golden.display()
                )
            })
            .and_then(|bytes| {
                serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", golden.display()))
            })
            .and_then(|expected| {
                compare_record(&expected, &rec, spec.tolerance_cm)
                    .map_err(|e| format!("{}: {e}", golden.display()))
            });
        let (record, problem) = match compared {
            Ok(c) => (Some(c), None),
            Err(p) => (None, Some(p)),
        };
        report.cases.push(CaseResult {
            name,
            comparison: None,
            record,
            problem,
        });
    }
    Ok(())
}

/// The report page: a line per case, and expected / actual / diff side by side per failure.
fn html(report: &Report, args: &RegressArgs) -> String {
    let mut s = String::new();
    let failures = report.failures();
    let _ = write!(
        s,
        "<!doctype html>\n<meta charset=\"utf-8\">\n<title>cloth-tuner regress</title>\n\
         <style>body{{font-family:sans-serif;background:#222;color:#ddd}} img{{max-width:32vw;border:1px solid #555}} \
         td{{padding:2px 8px}} .fail{{color:#f66}} .pass{{color:#6c6}} figure{{display:inline-block;margin:4px}}</style>\n\
         <h1>cloth-tuner regress: {} of {} failed</h1>\n<p>manifest {}, goldens {}</p>\n<table>\n",
        failures,
        report.cases.len(),
        escape(&args.manifest.display().to_string()),
        escape(&args.golden.display().to_string()),
    );
    // Failures first: they are what the reader came for.
    let (failed, passed): (Vec<&CaseResult>, Vec<&CaseResult>) =
        report.cases.iter().partition(|c| !c.passed());
    for c in failed.into_iter().chain(passed) {
        let (class, word) = if c.passed() {
            ("pass", "pass")
        } else {
            ("fail", "FAIL")
        };
        let _ = writeln!(
            s,
            "<tr><td class=\"{class}\">{word}</td><td><a href=\"#{n}\">{n}</a></td><td>{}</td></tr>",
            escape(&c.detail()),
            n = escape(&c.name)
        );
    }
    s.push_str("</table>\n");
    for c in report.cases.iter().filter(|c| !c.passed()) {
        let n = escape(&c.name);
        let _ = writeln!(s, "<h2 id=\"{n}\">{n}</h2>");
        if let Some(cmp) = &c.comparison {
            let _ = writeln!(s, "<pre>{}</pre>", escape(&cmp.to_text()));
            for (dir, label) in [
                ("expected", "expected"),
                ("actual", "actual"),
                ("diff", "diff"),
            ] {
                let _ = writeln!(
                    s,
                    "<figure><img src=\"{dir}/{n}\" alt=\"{label}\"><figcaption>{label}</figcaption></figure>"
                );
            }
        } else if let Some(r) = &c.record {
            let _ = writeln!(s, "<p>{}</p>", escape(&r.to_text()));
        } else if let Some(p) = &c.problem {
            let _ = writeln!(
                s,
                "<p>{}</p><figure><img src=\"actual/{n}\" alt=\"actual\"><figcaption>actual</figcaption></figure>",
                escape(p)
            );
        }
    }
    s
}

/// The outcome as JUnit XML: one test suite (named after the manifest, and the shard when
/// there is one), one test case per picture, a failure element with the comparison's text.
fn junit(report: &Report, args: &RegressArgs) -> anyhow::Result<String> {
    use quick_junit::{NonSuccessKind, Report as Junit, TestCase, TestCaseStatus, TestSuite};
    let mut name = format!("regress {}", args.manifest.display());
    if let Some(shard) = args.shard {
        let _ = write!(name, " shard {shard}");
    }
    let mut suite = TestSuite::new(name.as_str());
    suite.set_time(report.timings.simulation + report.timings.drawing);
    for c in &report.cases {
        let status = if c.passed() {
            TestCaseStatus::success()
        } else {
            let mut failure = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let text = match &c.comparison {
                Some(cmp) => cmp.to_text(),
                None => c.detail(),
            };
            failure.set_message(c.detail()).set_description(text);
            failure
        };
        let mut case = TestCase::new(c.name.as_str(), status);
        case.set_classname("regress");
        suite.add_test_case(case);
    }
    let mut junit = Junit::new(name.as_str());
    junit.add_test_suite(suite);
    Ok(junit.to_string()?)
}

/// The text summary `regress` prints.
pub fn summary(report: &Report) -> String {
    let mut s = String::new();
    for c in report.cases.iter().filter(|c| !c.passed()) {
        let _ = writeln!(s, "FAIL {}", c.name);
        if let Some(p) = &c.problem {
            let _ = writeln!(s, "  {p}");
        }
        if let Some(cmp) = &c.comparison {
            for line in cmp.to_text().lines() {
                let _ = writeln!(s, "  {line}");
            }
        }
        if let Some(r) = &c.record {
            let _ = writeln!(s, "  {}", r.to_text());
        }
    }
    for p in &report.updated {
        let _ = writeln!(s, "updated {}", p.display());
    }
    let _ = writeln!(
        s,
        "{} of {} case(s) passed; report: {}",
        report.cases.len() - report.failures(),
        report.cases.len(),
        report.html.display()
    );
    let _ = writeln!(s, "{}", report.timings.to_text());
    s
}
