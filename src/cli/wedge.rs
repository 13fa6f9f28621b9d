//! `wedge`: a preset over every combination of a few knob values, written as one labelled
//! contact sheet (PNG), an HTML page of each cell's metrics beside it, and each cell's preset
//! (and, with `--film`, its film for the page) in a folder beside that. The work is [`crate::tune::wedge`]'s; this file checks the command
//! line and the output folder before anything is written, shows progress and writes the files.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use indicatif::ProgressStyle;
use rayon::prelude::*;

use super::render::{progress_bar, CameraSpec};
use super::CharacterArgs;
use crate::files::write_atomic;
use crate::picture::write_png;
use crate::preset::Preset;
use crate::tune::knobs::Sweep;
use crate::tune::wedge::{self, cells_dir, html_path, Wedge, WedgeSpec};

/// What `wedge` was asked to do.
#[derive(Clone, Debug)]
pub struct WedgeArgs {
    pub preset: PathBuf,
    pub knobs: Vec<Sweep>,
    pub clip: String,
    pub character: CharacterArgs,
    /// The frames pictured (a filmstrip when more than one); empty: the one where the cells
    /// differ most.
    pub frames: Vec<u64>,
    /// Draw the trails over each picture.
    pub trails: bool,
    /// Frames of each cell's film for the page (0: none).
    pub film: usize,
    pub seconds: f64,
    pub cell_width: u32,
    pub cell_height: u32,
    pub camera: CameraSpec,
    pub out: PathBuf,
    pub force: bool,
    pub quiet: bool,
}

/// What `wedge` wrote.
#[derive(Clone, Debug)]
pub struct Written {
    pub sheet: PathBuf,
    pub html: PathBuf,
    pub cells_dir: PathBuf,
    pub cells: usize,
    pub columns: usize,
    pub rows: usize,
    /// The frames pictured and, when the wedge picked it, why.
    pub frames: String,
    pub elapsed: Duration,
}

impl Written {
    /// The summary for people: the files, then the time.
    pub fn to_text(&self) -> String {
        format!(
            "{}\n{}\n{}\n{}/ ({} presets)\n",
            self.frames,
            self.sheet.display(),
            self.html.display(),
            self.cells_dir.display(),
            self.cells
        )
    }
}

/// `wedge`: checks everything (knobs, preset, clip, frame, every cell's knobs, the output
/// folder) before it writes anything, runs the wedge, then writes the cells' presets, the
/// sheet and the page.
pub fn wedge(args: &WedgeArgs) -> anyhow::Result<Written> {
    let start = Instant::now();
    let preset = Preset::load(&args.preset)?;
    let (character, outfit) = args.character.load_outfit()?;
    let spec = WedgeSpec {
        preset,
        preset_path: args.preset.clone(),
        character_label: args.character.label(),
        sweeps: args.knobs.clone(),
        clip: args.clip.clone(),
        frames: {
            let mut f = args.frames.clone();
            f.sort_unstable();
            f.dedup();
            f
        },
        trails: args.trails,
        film: args.film,
        seconds: args.seconds,
        camera: args.camera,
        cell_width: args.cell_width,
        cell_height: args.cell_height,
        force: args.force,
    };
    let cells = spec.check(&character)?.len();
    check_out(&args.out)?;
    let bar = progress_bar(2 * cells, args.quiet);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30} {pos}/{len} pictures and metric runs  {elapsed}")
    {
        bar.set_style(style);
    }
    let progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let result = wedge::run_in(
        character,
        &outfit,
        &spec,
        &progress,
        &AtomicBool::new(false),
    );
    bar.finish_and_clear();
    let wedge = result?;
    let written = write(&wedge, &args.out)?;
    Ok(Written {
        elapsed: start.elapsed(),
        ..written
    })
}

/// Refuses an output that could not be written, without creating anything: `out` must name a
/// `.png` file, and the nearest folder on its path that exists must take a file.
fn check_out(out: &Path) -> anyhow::Result<()> {
    let png = out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !png {
        anyhow::bail!(
            "--out {}: the contact sheet is a PNG; give a file name ending in .png (the page \
             and the cells' presets go beside it)",
            out.display()
        );
    }
    if out.is_dir() {
        anyhow::bail!(
            "--out {} is a folder; give the sheet's file name",
            out.display()
        );
    }
    let folder = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // The folders are made only after the wedge ran, so a refused or failed run leaves none
    // behind; here the nearest existing one must be a folder that takes a file.
    let mut existing = folder;
    while !existing.exists() {
        existing = match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
    }
    if !existing.is_dir() {
        anyhow::bail!(
            "cannot write in the output folder {}: {} is not a folder",
            folder.display(),
            existing.display()
        );
    }
    tempfile::NamedTempFile::new_in(existing).with_context(|| {
        format!(
            "cannot write in the output folder {} ({} does not take files)",
            folder.display(),
            existing.display()
        )
    })?;
    let cells = cells_dir(out);
    if cells.exists() && !cells.is_dir() {
        anyhow::bail!(
            "{} is in the way: the cells' presets go in a folder of that name",
            cells.display()
        );
    }
    if html_path(out).is_dir() {
        anyhow::bail!(
            "{} is a folder: the page goes in a file of that name",
            html_path(out).display()
        );
    }
    Ok(())
}

/// Writes the cells' presets, the sheet and the page (last: it links the others), each file
/// atomically.
fn write(wedge: &Wedge, out: &Path) -> anyhow::Result<Written> {
    let cells = cells_dir(out);
    std::fs::create_dir_all(&cells)
        .with_context(|| format!("cannot create the folder {}", cells.display()))?;
    // Each save flushes its file to disk: in parallel, the waits overlap.
    (0..wedge.cells.len())
        .into_par_iter()
        .try_for_each(|i| -> anyhow::Result<()> {
            let preset = wedge.cell_preset(i).context("a cell with no preset")?;
            preset.save(cells.join(wedge.cell_file_name(i)))?;
            if let Some(film) = &wedge.cells[i].film {
                write_png(&cells.join(wedge.film_file_name(i)), film)?;
            }
            Ok(())
        })?;
    write_png(out, &wedge::sheet(wedge))?;
    let html = html_path(out);
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let page = wedge::html(wedge, &name(out), &name(&cells));
    write_atomic(&html, page.as_bytes())?;
    Ok(Written {
        sheet: out.to_path_buf(),
        html,
        cells_dir: cells,
        cells: wedge.cells.len(),
        columns: wedge.layout.columns,
        rows: wedge.layout.rows,
        frames: frames_note(wedge),
        elapsed: Duration::ZERO,
    })
}

/// The frames pictured, for the summary: `frame 87 (1.45 s), picked where the cells differ
/// most`.
fn frames_note(wedge: &Wedge) -> String {
    match wedge.frame_choice.reason() {
        Some(why) => format!("{}, {why}", wedge.spec.frames_text()),
        None => wedge.spec.frames_text(),
    }
}
