//! The command line: the same binary as the tuner, with subcommands for work without a window.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::preset::Preset;

mod character;
#[cfg(feature = "gui")]
pub mod compare;
mod export;
pub mod fit;

pub use character::{load_character, outfit_of, CharacterArgs};
#[cfg(feature = "gui")]
pub mod record;
#[cfg(feature = "gui")]
pub mod regress;
#[cfg(feature = "gui")]
pub mod render;
#[cfg(feature = "gui")]
pub mod wedge;

/// Tune real-time cloth on an animated character and take the fabric to a game engine.
///
/// With no subcommand, opens the tuner window.
#[derive(Debug, Parser)]
#[command(name = "cloth-tuner", version, about, long_about = None)]
pub struct Cli {
    /// Preset to open in the window (default: the one open last time, else presets/tweed.json).
    #[arg(long, value_name = "FILE")]
    pub preset: Option<PathBuf>,
    #[command(flatten)]
    pub character: CharacterArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The windowless jobs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check preset files: exits 0 when every file loads and every value is in range, 1 when
    /// any does not (each problem printed with file, line, field and allowed range). Knobs
    /// that contradict the article (edges damped more than the body, contact damping below
    /// the base damping) are printed as warnings and do not change the exit code.
    Validate {
        /// Preset files (JSON).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// List every fabric parameter with its unit, range, default and what it does.
    Params,
    /// Run a preset on a clip with no window and print how the fabric behaves: stretch, hem
    /// swing and settle time, edge motion, penetration, max-distance saturation, resets, torn
    /// links (when the preset's `tear_ratio` is on; `torn_links` in `--json`), the skin showing
    /// through the drawn garment (`skin_showing_pct`: the share of the skin it covers at rest
    /// that lies further out than the garment, seen from around the body; skin with no garment
    /// in front of it, below a lifted hem, does not count), for the artist's garment the
    /// binding error, and timings.
    Simulate {
        /// The preset file.
        #[arg(long)]
        preset: PathBuf,
        /// The character's animation to play, by name; an unknown name is an error that lists
        /// the clips there are.
        #[arg(long, default_value = "walk")]
        clip: String,
        #[command(flatten)]
        character: CharacterArgs,
        /// Simulated seconds.
        #[arg(long, default_value_t = 6.0)]
        seconds: f64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write a preset for an engine, optionally converted to another fixed time step: the
    /// per-step knobs (damping, stiffness, iterations) are rewritten so the fabric behaves the
    /// same at the new step, and the step it was converted from is recorded
    /// (`converted_from_hz`). Without `--engine`, our own preset JSON (for engines that embed
    /// this library); with it, that engine's settings under its own names (`--out`), the
    /// per-particle table beside it (`.particles.csv`) and, for jolt and nvcloth, a C++
    /// snippet (`.cpp`); every knob the engine cannot take is printed as a warning. With
    /// `--engine` and the artist's garment (`--garment` / `--garment-mesh`), the per-particle
    /// arrays cover the garment mesh's own vertices in its file's order. With
    /// `--rig OUT.glb`, the rigged garment instead: one glTF binary with the character's
    /// skeleton, the cloth bones, the garment and the body skinned to them, and the grid and
    /// the preset in its extras (docs/engines.md, "The rigged garment"). Files are written
    /// atomically.
    Export {
        /// unity, chaos, jolt, nvcloth or magica2. Omit for our own preset JSON.
        #[arg(long)]
        engine: Option<String>,
        /// Write the rigged garment (.glb) here: the preset's template on the character, or
        /// the garment `--garment` / `--garment-mesh` name.
        #[arg(long, value_name = "OUT.glb", conflicts_with_all = ["engine", "out", "timestep_hz"])]
        rig: Option<PathBuf>,
        #[command(flatten)]
        character: CharacterArgs,
        /// The garment grid the per-particle data is for: COLSxROWS, a flat panel 5 cm apart,
        /// or COLSxROWS@SPACING (metres). Default: the preset's garment on the character
        /// (the built-in one unless --character), with its rest area for the masses. Only
        /// with --engine, and not with --garment or --garment-mesh: the artist's garment has
        /// its per-vertex data on its own vertices.
        #[arg(long, value_name = "COLSxROWS", requires = "engine")]
        grid: Option<String>,
        /// The preset to export (JSON).
        #[arg(long)]
        preset: PathBuf,
        /// The engine's fixed step in Hz (15 to 240). Omit to export at the preset's own step.
        #[arg(long, value_name = "HZ")]
        timestep_hz: Option<f64>,
        /// Where to write the exported preset.
        #[arg(long, required_unless_present = "rig")]
        out: Option<PathBuf>,
    },
    /// Bake clips: the rigged garment (as `export --rig` writes it) with each clip simulated
    /// at the preset's fixed step and written as a glTF animation of the body bones and the
    /// cloth bones (local translation and rotation, LINEAR), keys reduced so that a dropped
    /// key moves no vertex by more than `--tolerance-mm`. Clips bake on all cores; the same
    /// command writes the same bytes. Prints each clip's error against the live simulation:
    /// the largest and RMS distance of a garment vertex, mm (docs/engines.md, "Baked clips").
    Bake {
        /// The preset file.
        #[arg(long)]
        preset: PathBuf,
        #[command(flatten)]
        character: CharacterArgs,
        /// The clips, comma separated, by name (an unknown name lists the clips there are).
        #[arg(long, value_name = "CLIP,CLIP", value_delimiter = ',', required = true)]
        clips: Vec<String>,
        /// Seconds of each clip (up to 120).
        #[arg(long, default_value_t = 6.0)]
        seconds: f64,
        /// How far a dropped key may move a vertex, mm (0.01 to 50).
        #[arg(long, default_value_t = 0.5)]
        tolerance_mm: f64,
        /// Where to write the baked file (.glb).
        #[arg(long, value_name = "BAKED.glb")]
        out: PathBuf,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Print the JSON Schema of the preset file (`presets/schema.json` is this output), or
    /// with `--character-settings` of a character's settings file
    /// (`docs/character-settings.schema.json`), or with `--garment-settings` of a garment's
    /// (`docs/garment-settings.schema.json`).
    Schema {
        /// The character settings file's schema instead of the preset's.
        #[arg(long, conflicts_with = "garment_settings")]
        character_settings: bool,
        /// The garment settings file's schema instead of the preset's.
        #[arg(long)]
        garment_settings: bool,
    },
    /// Measure how well time-step conversion holds: how far the hem's trajectory on a clip
    /// departs from the preset at its own rate when run at each other rate, converted (as
    /// `export` writes it) and unconverted (the same knobs at the new rate). RMS and largest
    /// distance in cm. The floor column is the preset at its own rate against itself with its
    /// damping moved by a millionth: what chaos alone makes of a difference that small. The
    /// hem swing column (RMS distance from the hem's mean positions) says whether the fabric
    /// still moves as much where chaos parts the trajectories.
    Drift {
        /// The preset file.
        #[arg(long)]
        preset: PathBuf,
        /// Rates to compare against, comma separated (15 to 240 Hz).
        #[arg(long, value_name = "HZ,HZ", value_delimiter = ',', required = true)]
        timestep_hz: Vec<f32>,
        /// The clip.
        #[arg(long, default_value = "dodge")]
        clip: String,
        #[command(flatten)]
        character: CharacterArgs,
        /// Simulated seconds.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Search a few knobs of a preset for the values whose `simulate` metrics on a clip meet
    /// targets ("settle in 1.2 s, swing 6 cm").
    ///
    /// E.g. `fit --preset presets/tweed.json --clip sprint_stop --target
    /// settle_time=1.2,hem_swing_rms=0.06 --knobs damping,contact_damping --out fitted.json`.
    /// Nelder-Mead over each knob's own range
    /// (damping and drag on a log scale); prints every trial (knob values, metrics, error),
    /// stops when a trial meets every target, the search converges, or the trial cap or time
    /// budget (60 s) is reached, and prints what the best trial reached against each target.
    /// Exit 0 when every target was met, 1 when not (the nearest preset is still saved with
    /// --out), 2 on bad input (an unknown knob, metric or clip, a bad number): refused before
    /// any trial, with nothing written.
    Fit(fit::FitArgs),
    /// Pictures of a preset on a clip with no window and no X server (EGL, surfaceless): one
    /// PNG per frame, drawn by the tuner's viewport code. Frame N is the state after N fixed
    /// steps from the clip start. Same command, build and machine: byte-identical PNGs. With
    /// `--preset-b`, A/B pictures: A on the left, B on the right at the same clip time, each
    /// half `--size` (`<A>_vs_<B>_<clip>_<camera>_<frame>.png`).
    #[cfg(feature = "gui")]
    Render {
        /// The preset file.
        #[arg(long)]
        preset: PathBuf,
        /// A second preset to draw beside the first, for comparing.
        #[arg(long, value_name = "FILE")]
        preset_b: Option<PathBuf>,
        /// The character's animation to play, by name; an unknown name is an error that lists
        /// the clips there are.
        #[arg(long, default_value = "dodge")]
        clip: String,
        #[command(flatten)]
        character: CharacterArgs,
        /// Frames (fixed steps from the clip start), comma separated.
        #[arg(long, value_name = "N,N", value_delimiter = ',', required = true)]
        frames: Vec<u64>,
        /// Picture size in pixels.
        #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_size_arg)]
        size: (u32, u32),
        /// front, side, back, three-quarter, garment (fitted to the garment over the clip,
        /// turning with the character), or eye=x,y,z:target=x,y,z (world, metres).
        #[arg(long, default_value = "front", value_parser = parse_camera_arg)]
        camera: render::CameraSpec,
        /// The folder for the PNGs (made if missing).
        #[arg(long)]
        out: PathBuf,
        /// Debug overlays to draw, comma separated or repeated.
        #[arg(long, value_enum, value_delimiter = ',')]
        overlay: Vec<render::OverlayName>,
        /// Play a baked file instead of simulating: --character is a file `bake` wrote; it
        /// wears its own garment, and the clip's keys move the cloth bones as an engine
        /// playing the file would (the preset is read for its look only).
        #[arg(long, requires = "character")]
        baked: bool,
        /// No progress bar and no summary.
        #[arg(long)]
        quiet: bool,
    },
    /// A contact sheet of a preset over every combination of a few knob values: one picture
    /// per combination (the same frame of the same clip, drawn as `render` draws it), labelled
    /// with its values, in one PNG; beside it an HTML page with each cell's `simulate`
    /// metrics, and a folder with each cell as a preset to open in the tuner
    /// (`sheet.png`, `sheet.html`, `sheet_cells/cell_000.json`, ...). The first --knob goes
    /// across the columns, the others' combinations down the rows. By default every cell is
    /// seen by one camera fitted to the garment over the clip, at the frame where the cells
    /// differ most, with the last second of the hem and front edges drawn as trails. Every
    /// input is checked before anything is written. Same command and build: a byte-identical
    /// sheet.
    #[cfg(feature = "gui")]
    Wedge {
        /// The preset the knobs start from.
        #[arg(long)]
        preset: PathBuf,
        /// A knob and its values: NAME=FROM:TO:COUNT (COUNT values evenly from FROM to TO,
        /// both included) or NAME=VALUE; repeat for more knobs. `cloth-tuner params` lists
        /// the knobs and their ranges.
        #[arg(long = "knob", value_name = "NAME=FROM:TO:COUNT", required = true, value_parser = parse_sweep_arg)]
        knobs: Vec<crate::tune::knobs::Sweep>,
        /// The character's animation to play, by name; an unknown name is an error that lists
        /// the clips there are.
        #[arg(long, default_value = "dodge")]
        clip: String,
        #[command(flatten)]
        character: CharacterArgs,
        /// The frame pictured: fixed steps from the clip start (60 is one second at 60 Hz).
        /// Without it (or --frames), the frame where the cells' hems and front edges are
        /// furthest apart over one run of the clip, named in the header and the summary.
        #[arg(long, conflicts_with = "frames")]
        frame: Option<u64>,
        /// A short filmstrip per cell: these frames side by side (at most 8), comma
        /// separated.
        #[arg(long, value_name = "N,N", value_delimiter = ',')]
        frames: Vec<u64>,
        /// Leave out the trails (the last second of the hem's and the front edges' paths,
        /// fading, drawn over each picture).
        #[arg(long)]
        no_trails: bool,
        /// Each cell's clip as a film of N frames (2 to 120) that the page plays, all cells in
        /// step under one scrubber (`sheet_cells/cell_000_film.png`, ...). Each frame is
        /// drawn at half the cell size; off (0) by default, as it draws N pictures a cell.
        #[arg(long, value_name = "N", default_value_t = 0)]
        film: usize,
        /// Simulated seconds of each cell's metrics run, as `simulate --seconds`. A settle
        /// time needs a clip that stops (sprint_stop stops at 2.9 s) and a run long enough
        /// for the fabric to come to rest after it.
        #[arg(long, default_value_t = 6.0)]
        seconds: f64,
        /// Each cell's picture in pixels.
        #[arg(long, value_name = "WxH", default_value = "480x270", value_parser = parse_size_arg)]
        cell_size: (u32, u32),
        /// garment (fitted to the garment over the clip, the same for every cell), front,
        /// side, back, three-quarter, or eye=x,y,z:target=x,y,z (world, metres).
        #[arg(long, default_value = "garment", value_parser = parse_camera_arg)]
        camera: render::CameraSpec,
        /// The contact sheet (a .png file); the page and the cells' folder go beside it.
        #[arg(long)]
        out: PathBuf,
        /// Allow more than 400 cells.
        #[arg(long)]
        force: bool,
        /// No progress bar and no summary.
        #[arg(long)]
        quiet: bool,
    },
    /// Compare two pictures: exit 0 when they match within the thresholds, 1 when they do
    /// not, 2 on an error (a missing file, different sizes). Prints the largest channel
    /// difference, the share of pixels over the threshold and where the largest cluster of
    /// differences is.
    #[cfg(feature = "gui")]
    Compare {
        /// The reference picture (PNG).
        expected: PathBuf,
        /// The picture to check (PNG).
        actual: PathBuf,
        /// A pixel differs when one of its channels differs by more than this (0 to 255).
        #[arg(long, default_value_t = 0)]
        max_pixel_diff: u8,
        /// The largest share of differing pixels that still matches, 0 to 1 (0.01 = 1 %).
        #[arg(long, default_value_t = 0.0, value_parser = parse_share_arg)]
        max_diff_share: f64,
        /// Write a diff picture here: differences in red over a faded copy of the expected.
        #[arg(long, value_name = "PNG")]
        diff: Option<PathBuf>,
    },
    /// Render every case of a manifest and compare it with its golden picture; writes
    /// actual/, diff/, expected/ and report.html under --out. Exit 0 when all pass, 1 when any
    /// fails, 2 on an error. `--update` rewrites the goldens (after every case rendered).
    #[cfg(feature = "gui")]
    Regress(regress::RegressArgs),
}

/// An error and its causes as one line for the terminal: each cause the text so far does not
/// already say, after a colon. The crate's errors name their cause in their own message (the
/// window shows them alone), so `{:#}`, which appends every cause, said the operating
/// system's reason twice ("cannot read: No such file or directory (os error 2): No such file
/// or directory (os error 2)").
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

/// Prints `e` as the command's error (see [`error_text`]).
pub fn print_error(e: &anyhow::Error) {
    eprintln!("cloth-tuner: {}", error_text(e));
}

/// Runs the command line and returns the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        None => open_window(cli.preset, &cli.character),
        Some(Command::Validate { files }) => Ok(validate(&files)),
        Some(Command::Simulate {
            preset,
            clip,
            character,
            seconds,
            json,
        }) => simulate_command(&preset, &clip, &character, seconds, json),
        Some(Command::Params) => Ok(print_text(&params_table())),
        Some(Command::Export {
            engine,
            rig,
            character,
            grid,
            preset,
            timestep_hz,
            out,
        }) => export_command(
            engine,
            rig,
            &character,
            grid.as_deref(),
            &preset,
            timestep_hz,
            out,
        ),
        Some(Command::Bake {
            preset,
            character,
            clips,
            seconds,
            tolerance_mm,
            out,
            quiet,
        }) => bake_command(
            &preset,
            &character,
            clips,
            seconds,
            tolerance_mm,
            &out,
            quiet,
        ),
        Some(Command::Drift {
            preset,
            timestep_hz,
            clip,
            character,
            seconds,
            json,
        }) => drift_command(&preset, &timestep_hz, &clip, &character, seconds, json),
        Some(Command::Fit(args)) => Ok(fit::fit_command(&args)),
        #[cfg(feature = "gui")]
        Some(Command::Render {
            preset,
            preset_b,
            clip,
            character,
            frames,
            size,
            camera,
            out,
            overlay,
            baked,
            quiet,
        }) => render_command(render::RenderArgs {
            preset,
            preset_b,
            clip,
            character,
            frames,
            width: size.0,
            height: size.1,
            camera,
            out,
            overlays: overlay,
            baked,
            quiet,
        }),
        #[cfg(feature = "gui")]
        Some(Command::Wedge {
            preset,
            knobs,
            clip,
            character,
            frame,
            frames,
            no_trails,
            film,
            seconds,
            cell_size,
            camera,
            out,
            force,
            quiet,
        }) => wedge_command(&wedge::WedgeArgs {
            preset,
            knobs,
            clip,
            character,
            frames: frame.into_iter().chain(frames).collect(),
            trails: !no_trails,
            film,
            seconds,
            cell_width: cell_size.0,
            cell_height: cell_size.1,
            camera,
            out,
            force,
            quiet,
        }),
        #[cfg(feature = "gui")]
        Some(Command::Compare {
            expected,
            actual,
            max_pixel_diff,
            max_diff_share,
            diff,
        }) => {
            let thresholds = compare::Thresholds::new(max_pixel_diff, max_diff_share);
            Ok(compare_command(
                &expected,
                &actual,
                thresholds,
                diff.as_deref(),
            ))
        }
        #[cfg(feature = "gui")]
        Some(Command::Regress(args)) => Ok(regress_command(&args)),
        Some(Command::Schema {
            character_settings,
            garment_settings,
        }) => Ok(schema_command(character_settings, garment_settings)),
    }
}

/// `export`: the garment rigged (`--rig`), the preset for an engine (`--engine`, on the
/// garment the character options name), or the preset at another time step (`--out`; the
/// character options are refused there).
fn export_command(
    engine: Option<String>,
    rig: Option<PathBuf>,
    character: &CharacterArgs,
    grid: Option<&str>,
    preset: &Path,
    timestep_hz: Option<f64>,
    out: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let report = match (rig, out) {
        (Some(rig), _) => export::export_rig(preset, character, &rig)?,
        (None, Some(out)) => match engine {
            None => {
                export::refuse_character(character)?;
                export::export(preset, timestep_hz, &out)?
            }
            Some(e) => {
                let target = export::EngineTarget { grid, character };
                export::export_engine(&e, &target, preset, timestep_hz, &out)?
            }
        },
        (None, None) => anyhow::bail!("export: give --out, or --rig OUT.glb"),
    };
    print!("{report}");
    Ok(ExitCode::SUCCESS)
}

/// `bake`: the clips baked onto the rigged garment, with the bake's error per clip.
fn bake_command(
    preset: &Path,
    character: &CharacterArgs,
    clips: Vec<String>,
    seconds: f64,
    tolerance_mm: f64,
    out: &Path,
    quiet: bool,
) -> anyhow::Result<ExitCode> {
    let settings = crate::export::baked::BakeSettings {
        clips,
        seconds,
        tolerance_mm,
    };
    print!(
        "{}",
        export::bake(preset, character, &settings, out, quiet)?
    );
    Ok(ExitCode::SUCCESS)
}

/// Prints `text` as it is (a table, a schema): success.
fn print_text(text: &str) -> ExitCode {
    print!("{text}");
    ExitCode::SUCCESS
}

/// `schema`: the preset's JSON Schema, or a settings file's.
fn schema_command(character_settings: bool, garment_settings: bool) -> ExitCode {
    let text = if character_settings {
        crate::character::settings::settings_schema_text()
    } else if garment_settings {
        crate::garment::settings::settings_schema_text()
    } else {
        crate::preset::schema::schema_text()
    };
    print_text(&text)
}

/// No subcommand: the tuner window, or a note where this build has none. A `--character`
/// that does not load is not checked here: the window opens on the built-in character and
/// says why, as it does for a character opened from its menu.
fn open_window(preset: Option<PathBuf>, character: &CharacterArgs) -> anyhow::Result<ExitCode> {
    #[cfg(feature = "gui")]
    {
        let garment = match (&character.garment, &character.garment_mesh) {
            (None, None) => None,
            (file, mesh) => Some(crate::app::GarmentRef {
                file: file.clone(),
                mesh: mesh.clone().unwrap_or_default(),
            }),
        };
        let options = crate::app::Options {
            preset,
            state_dir: std::env::var_os("CLOTH_TUNER_STATE_DIR").map(PathBuf::from),
            report_fps: std::env::var_os("CLOTH_TUNER_REPORT_FPS").is_some(),
            character: character.character.clone(),
            bone_map: character.bone_map.clone(),
            garment,
        };
        crate::app::run(options).map_err(anyhow::Error::msg)?;
        Ok(ExitCode::SUCCESS)
    }
    // Asked for a window this build cannot open: an error, so a script sees it.
    #[cfg(not(feature = "gui"))]
    {
        let _ = (preset, character);
        eprintln!(
            "cloth-tuner: this build has no window (built without the `gui` feature).\n\
             Try `cloth-tuner validate presets/tweed.json` or `cloth-tuner params`; `--help` lists all commands."
        );
        Ok(ExitCode::from(2))
    }
}

/// `simulate`: the preset on the clip, its metrics as text or JSON.
fn simulate_command(
    preset: &Path,
    clip: &str,
    character: &CharacterArgs,
    seconds: f64,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let (preset, character, outfit) = prepare_run(preset, character, seconds, 3600.0)?;
    let m = crate::scene::metrics::simulate_in(character, &outfit, &preset, clip, seconds)?;
    print_result(json, &m, || m.to_text())
}

/// `drift`: one row per rate, as a table or JSON.
fn drift_command(
    preset: &Path,
    rates: &[f32],
    clip: &str,
    character: &CharacterArgs,
    seconds: f64,
    json: bool,
) -> anyhow::Result<ExitCode> {
    use crate::scene::drift::{drift_rates_in, drift_steps, table};
    let (preset, character, outfit) = prepare_run(preset, character, seconds, 600.0)?;
    // Hidden for JSON, as the other batch commands' `--quiet`: stdout stays the result alone.
    let total = drift_steps(&preset, rates, seconds)? as usize;
    let bar = progress_bar_of(total, "steps", json);
    let who = (character, &outfit);
    let rows = drift_rates_in(who, &preset, clip, rates, seconds, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    print_result(json, &rows, || table(&rows))
}

/// A progress bar on stderr counting `total` of `unit` (hidden with `quiet` or when stderr is
/// not a terminal).
pub fn progress_bar_of(total: usize, unit: &str, quiet: bool) -> ProgressBar {
    if quiet || total <= 1 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    let template = format!("{{bar:30}} {{pos}}/{{len}} {unit}  {{elapsed}}  {{msg}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

/// Checks `--seconds` (more than 0, at most `max`) and loads the preset, the character a
/// windowless run plays it on and what it wears (refusing a painted max-distance map made for
/// another grid).
fn prepare_run(
    preset: &Path,
    character: &CharacterArgs,
    seconds: f64,
    max: f64,
) -> anyhow::Result<(
    Preset,
    std::sync::Arc<crate::character::Character>,
    crate::scene::Outfit,
)> {
    check_seconds(seconds, max)?;
    let path = preset;
    let preset = Preset::load(path)?;
    let (character, outfit) = character.load_outfit()?;
    // Here, where the file is known, rather than as the scene's error naming the preset.
    let (cols, rows) = outfit.grid_size(&character, preset.garment);
    preset.check_map_grid(path, cols, rows)?;
    Ok((preset, character, outfit))
}

/// Refuses a run length out of (0, `max`] seconds.
fn check_seconds(seconds: f64, max: f64) -> anyhow::Result<()> {
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= max) {
        anyhow::bail!("--seconds must be more than 0 and at most {max}, got {seconds}");
    }
    Ok(())
}

/// Prints `value` as pretty JSON, or `text()` for a person.
fn print_result<T: serde::Serialize>(
    json: bool,
    value: &T,
    text: impl FnOnce() -> String,
) -> anyhow::Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string_pretty(value)?);
    } else {
        print!("{}", text());
    }
    Ok(ExitCode::SUCCESS)
}

/// `render`: the files written on stdout, the timings on stderr.
#[cfg(feature = "gui")]
fn render_command(args: render::RenderArgs) -> anyhow::Result<ExitCode> {
    let (written, timings) = render::render(&args)?;
    if !args.quiet {
        for p in &written {
            println!("{}", p.display());
        }
        eprintln!("{}", timings.to_text());
    }
    Ok(ExitCode::SUCCESS)
}

/// `wedge`: the files written on stdout, the time on stderr.
#[cfg(feature = "gui")]
fn wedge_command(args: &wedge::WedgeArgs) -> anyhow::Result<ExitCode> {
    let written = wedge::wedge(args)?;
    if !args.quiet {
        print!("{}", written.to_text());
        eprintln!(
            "{} cells ({} x {}) in {:.1} s",
            written.cells,
            written.columns,
            written.rows,
            written.elapsed.as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `regress`: 0 when every case passes, 1 when any fails, 2 on bad input.
#[cfg(feature = "gui")]
fn regress_command(args: &regress::RegressArgs) -> ExitCode {
    match regress::regress(args) {
        Ok(report) => {
            print!("{}", regress::summary(&report));
            if report.failures() == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            print_error(&e);
            ExitCode::from(2)
        }
    }
}

fn validate(files: &[PathBuf]) -> ExitCode {
    let mut failed = 0;
    for f in files {
        match Preset::load(f) {
            Ok(p) => {
                println!(
                    "{}: ok ({}, {}, {} Hz)",
                    f.display(),
                    p.name,
                    p.garment.as_str(),
                    p.params.timestep_hz
                );
                for w in p.params.article_departures() {
                    eprintln!("{}: warning: {w}", f.display());
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("{e}");
            }
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!("{failed} of {} preset(s) failed", files.len());
        ExitCode::FAILURE
    }
}

#[cfg(feature = "gui")]
fn compare_command(
    expected: &Path,
    actual: &Path,
    thresholds: compare::Thresholds,
    diff: Option<&Path>,
) -> ExitCode {
    let run = || -> anyhow::Result<bool> {
        let e = crate::picture::read_png(expected)?;
        let a = crate::picture::read_png(actual)?;
        let c = compare::compare(&e, &a, thresholds).map_err(|err| {
            anyhow::anyhow!("{} and {}: {err}", expected.display(), actual.display())
        })?;
        print!("{}", c.to_text());
        if let Some(path) = diff {
            crate::picture::write_png(path, &compare::diff_image(&e, &a, &c))?;
            println!("diff: {}", path.display());
        }
        Ok(c.passes())
    };
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            print_error(&e);
            ExitCode::from(2)
        }
    }
}

#[cfg(feature = "gui")]
fn parse_size_arg(s: &str) -> Result<(u32, u32), String> {
    crate::render::headless::parse_size(s).map(|(w, h)| (w.get(), h.get()))
}

#[cfg(feature = "gui")]
fn parse_camera_arg(s: &str) -> Result<render::CameraSpec, String> {
    render::CameraSpec::parse(s)
}

#[cfg(feature = "gui")]
fn parse_sweep_arg(s: &str) -> Result<crate::tune::knobs::Sweep, String> {
    crate::tune::knobs::Sweep::parse(s).map_err(|e| e.to_string())
}

#[cfg(feature = "gui")]
fn parse_share_arg(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a share from 0 to 1 (0.01 = 1 %)")),
    }
}

/// The parameter reference as a Markdown table (the table in `docs/fabrics.md` is this output).
pub fn params_table() -> String {
    crate::sim::FabricParams::reference_table()
}

#[cfg(test)]
mod tests {
    use anyhow::Context as _;

    #[test]
    fn an_error_says_each_cause_once() {
        // A missing preset: the preset's error names the file and the system's reason, which
        // is its cause too.
        let missing = crate::preset::Preset::load("no/such/preset.json").unwrap_err();
        let text = super::error_text(&anyhow::Error::new(missing));
        assert!(
            text.starts_with("no/such/preset.json: cannot read"),
            "{text}"
        );
        let reason = std::fs::read("no/such/preset.json")
            .unwrap_err()
            .to_string();
        assert!(text.contains(&reason), "{text}");
        assert_eq!(text.matches(&reason).count(), 1, "{text}");
        // A cause the message does not say is still given, after a colon.
        let io = std::io::Error::other("disk full");
        let wrapped = Err::<(), _>(io).context("cannot save a.json").unwrap_err();
        assert_eq!(super::error_text(&wrapped), "cannot save a.json: disk full");
    }

    #[test]
    fn the_guide_parameter_reference_is_current() {
        let guide = std::fs::read_to_string("docs/fabrics.md").unwrap();
        assert!(
            guide.contains(&super::params_table()),
            "docs/fabrics.md's parameter table is stale: paste `cloth-tuner params` into it"
        );
    }
}
