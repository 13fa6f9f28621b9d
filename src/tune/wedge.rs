//! Wedges: a preset run over every combination of a few knob values, one picture and one set of
//! `simulate` metrics per combination, laid out as a labelled contact sheet ([`sheet`]) with an
//! HTML page of the numbers ([`html`]). The command line's `wedge` and (later) the tuner's
//! Tools > Wedge both call [`run`]; the tuner maps a click on the sheet back to a cell with
//! [`Layout::cell_at`].
//!
//! The sheet is made to show how the fabrics differ: by default each cell is seen by a camera
//! fitted to the garment over the clip (the same for every cell), at the frame where the cells'
//! hems and front edges are furthest apart, with the last second of their paths drawn over it
//! as fading trails ([`crate::render::trails`]); `frames` gives a short filmstrip per cell
//! instead.
//!
//! Every cell is independent of every other: its picture depends only on its own scene (each
//! picture gets a fresh renderer) and its metrics only on its own run; the shared camera and
//! frame come from every cell's run of the clip, combined in sheet order. So the sheet's bytes
//! do not depend on how many threads there are or in which order the cells finish.

mod html;
mod sheet;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Arc;

use rayon::prelude::*;

pub use html::html;
pub use sheet::{sheet, Layout, Rect};

use super::knobs::{combinations, KnobError, Setting, Sweep};
use crate::character::Character;
use crate::picture::Rgba;
use crate::preset::{Preset, PresetError};
use crate::render::headless::{CameraSpec, HeadlessError, HeadlessGl, Offscreen};
use crate::render::trails::draw_trails;
use crate::render::{scene_data, Overlays};
use crate::scene::metrics::{simulate_drawing_in, Drawing, Metrics};
use crate::scene::motion::{clip_steps, most_different_step, trail_rows, ClipMotion, TrailBuffer};
use crate::scene::{Outfit, Scene, SceneError};
use crate::sim::{FabricParams, ParamError};

pub use crate::render::headless::MAX_FRAME;
/// The longest metrics run, seconds.
pub const MAX_SECONDS: f64 = 600.0;
/// The largest cell, pixels each way.
pub const MAX_CELL_SIZE: u32 = 4096;
/// The smallest cell, pixels each way: below this the labels do not fit.
pub const MIN_CELL_SIZE: u32 = 32;
/// The most frames in one cell's filmstrip.
pub const MAX_STRIP: usize = 8;
/// Pixels between the frames of a cell's filmstrip.
pub const STRIP_GAP: u32 = 4;
/// The most frames in a cell's film for the page.
pub const MAX_FILM: usize = 120;

/// What to wedge: the preset, the knobs, and how each cell is pictured and measured.
#[derive(Clone, Debug)]
pub struct WedgeSpec {
    /// The preset every cell starts from.
    pub preset: Preset,
    /// Where the preset came from: named in the sheet's header and the cells' presets, and
    /// (with the preset's name) picks the fabric's look as the tuner does.
    pub preset_path: PathBuf,
    /// A character other than the built-in one, by name, for the header (`None`: built-in).
    pub character_label: Option<String>,
    /// The knobs and their values; the first goes across the sheet's columns, the others'
    /// combinations down its rows (the second changing fastest).
    pub sweeps: Vec<Sweep>,
    /// The clip, by name.
    pub clip: String,
    /// The frames pictured, fixed steps from the clip start as `render`'s `--frames`: one, or
    /// a filmstrip of a few side by side in each cell. Empty: the one frame where the cells
    /// differ most ([`FrameChoice`]).
    pub frames: Vec<u64>,
    /// Draw the last second of the hem's and the front edges' paths over each picture.
    pub trails: bool,
    /// Frames of each cell's film for the page (0: none): one run of the clip, evenly
    /// spaced, each at half the cell's size ([`WedgeSpec::film_size`]).
    pub film: usize,
    /// Simulated seconds of each cell's metrics run.
    pub seconds: f64,
    /// The camera; a garment camera is fitted once to every cell's run of the clip.
    pub camera: CameraSpec,
    /// Each cell's picture (each frame of a filmstrip), pixels.
    pub cell_width: u32,
    pub cell_height: u32,
    /// Allow more than [`crate::tune::knobs::MAX_CELLS`] cells.
    pub force: bool,
}

/// Why a wedge was refused or stopped.
#[derive(Debug, thiserror::Error)]
pub enum WedgeError {
    #[error(transparent)]
    Knob(#[from] KnobError),
    #[error("no knob to wedge: give at least one, e.g. --knob damping=0.005:0.05:5")]
    NoKnob,
    #[error("unknown clip `{clip}`; the clips are: {}", .clips.join(", "))]
    UnknownClip { clip: String, clips: Vec<String> },
    #[error("frame {frame} is out of range (0 to {MAX_FRAME})")]
    Frame { frame: u64 },
    #[error("{count} frames for a filmstrip: give at most {MAX_STRIP}")]
    Strip { count: usize },
    #[error("a film of {count} frames: give 2 to {MAX_FILM} (or 0 for none)")]
    Film { count: usize },
    #[error(
        "the metrics run must be more than 0 and at most {MAX_SECONDS} seconds, got {seconds}"
    )]
    Seconds { seconds: f64 },
    #[error(
        "the cell size {width}x{height} is out of range ({MIN_CELL_SIZE} to {MAX_CELL_SIZE} \
         pixels each way)"
    )]
    CellSize { width: u32, height: u32 },
    #[error("cell {cell} ({setting}): {source}")]
    Params {
        cell: usize,
        setting: String,
        source: ParamError,
    },
    #[error("cell {cell} ({setting}): {source}")]
    Preset {
        cell: usize,
        setting: String,
        source: Box<PresetError>,
    },
    #[error(transparent)]
    Gl(#[from] HeadlessError),
    #[error("cell {cell} on clip `{clip}`: {source}")]
    Scene {
        cell: usize,
        clip: String,
        source: SceneError,
    },
    #[error("the wedge was cancelled")]
    Cancelled,
}

/// One combination of knob values and what it gave.
#[derive(Clone, Debug)]
pub struct Cell {
    pub setting: Setting,
    /// The preset's knobs with the setting applied.
    pub params: FabricParams,
    /// The cell's picture: its frames side by side, each `cell_width` x `cell_height`,
    /// [`STRIP_GAP`] apart.
    pub image: Rgba,
    /// The cell's film for the page: its frames side by side, each
    /// [`WedgeSpec::film_size`]; `None` when the spec asks for none.
    pub film: Option<Rgba>,
    pub metrics: Metrics,
}

/// How a wedge's frames were chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameChoice {
    /// Given in the spec.
    Given,
    /// Where the cells' hems and front edges are furthest apart over one run of the clip.
    MostDifferent,
    /// The cells never differ (one cell, or knobs that change nothing): where the hem and
    /// front edges move fastest.
    PeakMotion,
}

impl FrameChoice {
    /// Why the frame was picked, for the sheet and the summary; `None` when it was given.
    pub fn reason(self) -> Option<&'static str> {
        match self {
            Self::Given => None,
            Self::MostDifferent => Some("picked where the cells differ most"),
            Self::PeakMotion => Some("picked where the hem moves fastest"),
        }
    }
}

/// A finished wedge: the cells in sheet order (row by row, left to right). Its spec holds
/// the frames pictured and the camera as fitted.
#[derive(Clone, Debug)]
pub struct Wedge {
    pub spec: WedgeSpec,
    pub frame_choice: FrameChoice,
    /// The clip time one run through it covers (the cells' films), seconds.
    pub clip_seconds: f64,
    pub layout: Layout,
    pub cells: Vec<Cell>,
}

impl WedgeSpec {
    /// Every check a wedge makes before any work: the knobs (at least one; the cell count),
    /// the clip, the frame, the seconds, the cell size, and every cell's knobs (each in range
    /// and a preset that would load). Returns each cell's setting and knobs, in sheet order.
    pub fn check(&self, character: &Character) -> Result<Vec<(Setting, FabricParams)>, WedgeError> {
        if self.sweeps.is_empty() {
            return Err(WedgeError::NoKnob);
        }
        let settings = combinations(&self.sweeps, self.force)?;
        if character.clip(&self.clip).is_none() {
            return Err(WedgeError::UnknownClip {
                clip: self.clip.clone(),
                clips: character.clip_names().map(str::to_string).collect(),
            });
        }
        if let Some(&frame) = self.frames.iter().find(|&&f| f > MAX_FRAME) {
            return Err(WedgeError::Frame { frame });
        }
        if self.film == 1 || self.film > MAX_FILM {
            return Err(WedgeError::Film { count: self.film });
        }
        if self.frames.len() > MAX_STRIP {
            return Err(WedgeError::Strip {
                count: self.frames.len(),
            });
        }
        if !(self.seconds.is_finite() && self.seconds > 0.0 && self.seconds <= MAX_SECONDS) {
            return Err(WedgeError::Seconds {
                seconds: self.seconds,
            });
        }
        let size = MIN_CELL_SIZE..=MAX_CELL_SIZE;
        if !size.contains(&self.cell_width) || !size.contains(&self.cell_height) {
            return Err(WedgeError::CellSize {
                width: self.cell_width,
                height: self.cell_height,
            });
        }
        let mut cells = Vec::with_capacity(settings.len());
        for (i, setting) in settings.into_iter().enumerate() {
            let params = setting.apply(&self.preset.params);
            params.validate().map_err(|source| WedgeError::Params {
                cell: i,
                setting: setting.to_string(),
                source,
            })?;
            // The cell is saved as a preset: refuse here what the preset's own checks would
            // refuse there, before any picture is drawn.
            let preset = Preset {
                params: params.clone(),
                ..self.preset.clone()
            };
            preset
                .validate(&self.preset_path)
                .map_err(|source| WedgeError::Preset {
                    cell: i,
                    setting: setting.to_string(),
                    source: Box::new(source),
                })?;
            cells.push((setting, params));
        }
        Ok(cells)
    }

    /// The sheet's layout for this spec with its frames as given: the first knob's values
    /// across, the other knobs' combinations down, the header wrapped to the sheet's width.
    pub fn layout(&self) -> Layout {
        sheet::layout_for(self, FrameChoice::Given)
    }

    /// The size of each frame of a cell's film: half the cell's, at least
    /// [`MIN_CELL_SIZE`] each way.
    pub fn film_size(&self) -> (u32, u32) {
        (
            (self.cell_width / 2).max(MIN_CELL_SIZE),
            (self.cell_height / 2).max(MIN_CELL_SIZE),
        )
    }

    /// The width of a cell's picture: its filmstrip's frames and the gaps between them.
    pub fn strip_width(&self) -> u32 {
        let n = self.frames.len().max(1) as u32;
        n * self.cell_width + (n - 1) * STRIP_GAP
    }

    /// The frames as the sheet and the summary name them, with their clip times: `frame 60
    /// (1.00 s)` or `frames 30, 60 (0.50, 1.00 s)`.
    pub fn frames_text(&self) -> String {
        let hz = self.preset.params.timestep_hz as f64;
        let list: Vec<String> = self.frames.iter().map(u64::to_string).collect();
        let seconds: Vec<String> = self
            .frames
            .iter()
            .map(|&f| format!("{:.2}", f as f64 / hz))
            .collect();
        let name = if list.len() == 1 { "frame" } else { "frames" };
        format!("{name} {} ({} s)", list.join(", "), seconds.join(", "))
    }

    /// The preset file's name as the sheet shows it (`tweed.json`).
    pub fn preset_file_name(&self) -> String {
        self.preset_path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.preset_path.display().to_string())
    }
}

/// Runs a wedge: checks `spec` ([`WedgeSpec::check`]), runs every cell through the clip
/// once when the camera or the frame depends on it ([`settle_view`]), then pictures and
/// measures every cell. The pictures' scenes are stepped and the metrics run on rayon's
/// threads while this thread, which holds the one GL context, draws each picture as its scene
/// arrives. `progress(done, total)` is called (from any thread) after each clip run, picture
/// and metrics run. Setting `cancel` stops the wedge soon with [`WedgeError::Cancelled`].
pub fn run(
    character: Arc<Character>,
    spec: &WedgeSpec,
    progress: &(dyn Fn(usize, usize) + Sync),
    cancel: &AtomicBool,
) -> Result<Wedge, WedgeError> {
    run_in(character, &Outfit::Template, spec, progress, cancel)
}

/// [`run`] with the character in `outfit` (the artist's own garment, or the preset's
/// template): every cell wears it.
pub fn run_in(
    character: Arc<Character>,
    outfit: &Outfit,
    spec: &WedgeSpec,
    progress: &(dyn Fn(usize, usize) + Sync),
    cancel: &AtomicBool,
) -> Result<Wedge, WedgeError> {
    let who = (&character, outfit);
    let cells = spec.check(&character)?;
    let gl = HeadlessGl::new()?;
    let mut offscreen = Offscreen::new(&gl, spec.cell_width, spec.cell_height)?;
    let n = cells.len();
    let presets: Vec<Preset> = cells
        .iter()
        .map(|(_, params)| Preset {
            params: params.clone(),
            ..spec.preset.clone()
        })
        .collect();
    let runs = if needs_clip_runs(spec) { n } else { 0 };
    let strip = spec.frames.len().max(1);
    let films = if spec.film > 0 { n } else { 0 };
    let total = runs + n * strip + n + films;
    let done = AtomicUsize::new(0);
    let tick = || progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
    let (spec, frame_choice) = settle_view(who, spec, &presets, &tick, cancel)?;
    let spec = &spec;
    let pictures = n * strip;
    // Room for one waiting scene per thread: the stepping runs ahead of the drawing by that
    // much and no further, so at most a handful of scenes are alive at once.
    let threads = rayon::current_num_threads().max(1);
    let (tx, rx) = sync_channel::<Stepped>(threads);
    let mut images: Vec<Option<Rgba>> = vec![None; pictures];
    let mut film_images: Vec<Option<Rgba>> = vec![None; n];
    let mut film_target = if spec.film > 0 {
        let (w, h) = spec.film_size();
        Some(Offscreen::new(&gl, w, h)?)
    } else {
        None
    };
    let work = std::thread::scope(|s| {
        // Its own thread, so the rayon work (which may use the calling thread when it is a
        // rayon worker) never runs on the GL thread and the drawing starts at once.
        let worker = s.spawn(|| {
            (0..pictures + n)
                .into_par_iter()
                .map_with(tx, |tx, task| {
                    if cancel.load(Ordering::Relaxed) {
                        return Ok(None);
                    }
                    if task < pictures {
                        let (cell, frame) = (task / strip, spec.frames[task % strip]);
                        let stepped = scene_at(who, &presets[cell], spec, cell, frame)?;
                        // A closed channel means the drawing stopped (cancelled): nothing to do.
                        let _ = tx.send((task, stepped.0, stepped.1));
                        Ok(None)
                    } else {
                        let i = task - pictures;
                        // The cells' pictures are drawn apart: nothing between the steps.
                        let m = simulate_drawing_in(
                            character.clone(),
                            outfit,
                            &presets[i],
                            &spec.clip,
                            spec.seconds,
                            Drawing::Skipped,
                        )
                        .map_err(|source| WedgeError::Scene {
                            cell: i,
                            clip: spec.clip.clone(),
                            source,
                        })?;
                        tick();
                        Ok(Some(m))
                    }
                })
                .collect::<Result<Vec<Option<Metrics>>, WedgeError>>()
        });
        draw_scenes(rx, &mut offscreen, spec, &mut images, &tick, cancel);
        let films = match film_target.as_mut() {
            Some(target) => {
                draw_films(who, &presets, spec, target, &tick, cancel).map(|f| film_images = f)
            }
            None => Ok(()),
        };
        let work = worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        films.and(work)
    });
    let metrics = work?;
    if cancel.load(Ordering::Relaxed) {
        return Err(WedgeError::Cancelled);
    }
    let strips = images.chunks(strip).map(|frames| {
        frames
            .iter()
            .cloned()
            .collect::<Option<Vec<Rgba>>>()
            .map(join_strip)
    });
    let cells = cells
        .into_iter()
        .zip(strips)
        .zip(metrics.into_iter().skip(pictures))
        .zip(film_images)
        .map(
            |((((setting, params), image), metrics), film)| match (image, metrics) {
                (Some(image), Some(metrics)) => Ok(Cell {
                    setting,
                    params,
                    image,
                    film,
                    metrics,
                }),
                // Only a cancel leaves a cell without its picture or metrics.
                _ => Err(WedgeError::Cancelled),
            },
        )
        .collect::<Result<Vec<Cell>, WedgeError>>()?;
    Ok(Wedge {
        spec: spec.clone(),
        frame_choice,
        clip_seconds: clip_steps(&character, &spec.preset, &spec.clip) as f64
            / spec.preset.params.timestep_hz as f64,
        layout: sheet::layout_for(spec, frame_choice),
        cells,
    })
}

/// Whether the wedge runs each cell through the clip first: to pick its frame or to fit a
/// garment camera.
fn needs_clip_runs(spec: &WedgeSpec) -> bool {
    spec.frames.is_empty() || spec.camera == CameraSpec::Garment(None)
}

/// The spec with its frames and camera settled: every cell run once through the clip (on
/// rayon's threads, combined in sheet order) when the frame is to be picked or a garment
/// camera fitted; the frame where the cells differ most, or where the hem moves fastest
/// when they never differ.
fn settle_view(
    (character, outfit): (&Arc<Character>, &Outfit),
    spec: &WedgeSpec,
    presets: &[Preset],
    tick: &(dyn Fn() + Sync),
    cancel: &AtomicBool,
) -> Result<(WedgeSpec, FrameChoice), WedgeError> {
    if !needs_clip_runs(spec) {
        return Ok((spec.clone(), FrameChoice::Given));
    }
    let stop = || cancel.load(Ordering::Relaxed);
    let motions = presets
        .par_iter()
        .enumerate()
        .map(|(cell, preset)| {
            let m = ClipMotion::of_clip_in(character.clone(), outfit, preset, &spec.clip, &stop)
                .map_err(|source| WedgeError::Scene {
                    cell,
                    clip: spec.clip.clone(),
                    source,
                });
            tick();
            m
        })
        .collect::<Result<Vec<_>, _>>()?;
    if stop() {
        return Err(WedgeError::Cancelled);
    }
    let (frames, choice) = if !spec.frames.is_empty() {
        (spec.frames.clone(), FrameChoice::Given)
    } else if let Some(t) = most_different_step(&motions) {
        (vec![t as u64], FrameChoice::MostDifferent)
    } else {
        let t = motions.first().map_or(0, ClipMotion::peak_motion_step);
        (vec![t as u64], FrameChoice::PeakMotion)
    };
    let settled = WedgeSpec {
        frames,
        camera: spec
            .camera
            .fitted(&motions, spec.cell_width, spec.cell_height),
        ..spec.clone()
    };
    Ok((settled, choice))
}

/// A picture's scene, ready to draw: its task number (cell and frame) and the trail behind it.
type Stepped = (usize, Scene, Option<TrailBuffer>);

/// A cell's scene stepped from the clip start to `frame`, as `render` steps it, with the last
/// second of its hem and front edges when the spec draws trails.
fn scene_at(
    (character, outfit): (&Arc<Character>, &Outfit),
    preset: &Preset,
    spec: &WedgeSpec,
    cell: usize,
    frame: u64,
) -> Result<(Scene, Option<TrailBuffer>), WedgeError> {
    let mut scene = outfit
        .scene(character.clone(), preset, &spec.clip)
        .map_err(|source| WedgeError::Scene {
            cell,
            clip: spec.clip.clone(),
            source,
        })?;
    let mut trail = spec
        .trails
        .then(|| TrailBuffer::new(&scene, trail_rows(preset)));
    if let Some(t) = trail.as_mut() {
        t.push(&scene);
    }
    while scene.steps() < frame {
        scene.step();
        if let Some(t) = trail.as_mut() {
            t.push(&scene);
        }
    }
    Ok((scene, trail))
}

/// A cell's frames side by side, [`STRIP_GAP`] apart.
fn join_strip(frames: Vec<Rgba>) -> Rgba {
    let mut frames = frames.into_iter();
    let first = frames.next().unwrap_or(Rgba {
        width: 0,
        height: 0,
        pixels: Vec::new(),
    });
    frames.fold(first, |strip, next| {
        strip.beside(&next, STRIP_GAP, sheet::background())
    })
}

/// Each cell's film, drawn on the GL thread once the pictures are done: the cell run once
/// through the clip, [`WedgeSpec::film`] frames evenly spaced from its start to its end, side
/// by side. No trails: the film shows the motion itself.
fn draw_films(
    (character, outfit): (&Arc<Character>, &Outfit),
    presets: &[Preset],
    spec: &WedgeSpec,
    target: &mut Offscreen,
    tick: &dyn Fn(),
    cancel: &AtomicBool,
) -> Result<Vec<Option<Rgba>>, WedgeError> {
    let look = spec.preset.look;
    let mut overlays = Overlays::default();
    overlays.set_all_debug(false);
    let mut films = Vec::with_capacity(presets.len());
    for (cell, preset) in presets.iter().enumerate() {
        let steps = clip_steps(character, preset, &spec.clip);
        let mut scene = outfit
            .scene(character.clone(), preset, &spec.clip)
            .map_err(|source| WedgeError::Scene {
                cell,
                clip: spec.clip.clone(),
                source,
            })?;
        let mut film: Option<Rgba> = None;
        for k in 0..spec.film as u64 {
            if cancel.load(Ordering::Relaxed) {
                return Err(WedgeError::Cancelled);
            }
            let at = k * steps / (spec.film as u64 - 1).max(1);
            while scene.steps() < at {
                scene.step();
            }
            let camera = spec.camera.camera(&scene);
            let frame = target.draw(&camera, &scene_data(&mut scene, look), &overlays);
            film = Some(match film {
                Some(f) => f.beside(&frame, 0, sheet::background()),
                None => frame,
            });
        }
        films.push(film);
        tick();
    }
    Ok(films)
}

/// The GL thread's half of [`run`]: draws each scene that arrives into its picture, with its
/// trail over it.
fn draw_scenes(
    scenes: std::sync::mpsc::Receiver<Stepped>,
    offscreen: &mut Offscreen,
    spec: &WedgeSpec,
    images: &mut [Option<Rgba>],
    tick: &dyn Fn(),
    cancel: &AtomicBool,
) {
    let look = spec.preset.look;
    // As `render` with no `--overlay`: body, jacket and shadows, no debug drawing.
    let mut overlays = Overlays::default();
    overlays.set_all_debug(false);
    for (i, mut scene, trail) in scenes {
        if cancel.load(Ordering::Relaxed) {
            // Dropping the receiver makes the remaining sends fail fast.
            return;
        }
        let camera = spec.camera.camera(&scene);
        let mut image = offscreen.draw(&camera, &scene_data(&mut scene, look), &overlays);
        if let Some(trail) = &trail {
            draw_trails(&mut image, &camera, scene.root().matrix(), trail);
        }
        images[i] = Some(image);
        tick();
    }
}

impl Wedge {
    /// Cell `i` as a preset to save: the wedge's preset with the cell's knobs, named after
    /// them ("Tweed (damping 0.0163 per step)") and describing where it came from.
    pub fn cell_preset(&self, i: usize) -> Option<Preset> {
        let cell = self.cells.get(i)?;
        let base = &self.spec.preset;
        let mut description = format!(
            "Cell {i} of a wedge of {} on clip `{}` at {}: {}.",
            self.spec.preset_file_name(),
            self.spec.clip,
            self.spec.frames_text(),
            cell.setting
        );
        if !base.description.is_empty() {
            description = format!("{description} {}", base.description);
        }
        Some(Preset {
            name: format!("{} ({})", base.name, cell.setting),
            description,
            params: cell.params.clone(),
            ..base.clone()
        })
    }

    /// The file name of cell `i`'s film in the cells' folder: `cell_003_film.png`.
    pub fn film_file_name(&self, i: usize) -> String {
        self.cell_file_name(i).replace(".json", "_film.png")
    }

    /// The file name of cell `i`'s preset in the cells' folder: `cell_003.json` (zero-padded
    /// so the files sort in sheet order).
    pub fn cell_file_name(&self, i: usize) -> String {
        let digits = self.cells.len().saturating_sub(1).to_string().len().max(3);
        format!("cell_{i:0digits$}.json")
    }
}

/// The folder of a sheet's cell presets: `sheet_cells/` beside `sheet.png`.
pub fn cells_dir(sheet: &Path) -> PathBuf {
    let stem = sheet
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "sheet".into());
    sheet.with_file_name(format!("{stem}_cells"))
}

/// The HTML page beside a sheet: `sheet.html` beside `sheet.png`.
pub fn html_path(sheet: &Path) -> PathBuf {
    sheet.with_extension("html")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(knobs: &[&str]) -> WedgeSpec {
        WedgeSpec {
            preset: Preset::default(),
            preset_path: PathBuf::from("presets/tweed.json"),
            character_label: None,
            sweeps: knobs.iter().map(|k| Sweep::parse(k).unwrap()).collect(),
            clip: "dodge".into(),
            frames: vec![30],
            trails: true,
            film: 0,
            seconds: 1.0,
            camera: CameraSpec::Front,
            cell_width: 96,
            cell_height: 54,
            force: false,
        }
    }

    #[test]
    fn check_gives_every_cell_its_knobs_in_sheet_order() {
        let c = Character::builtin();
        let s = spec(&["damping=0.01:0.03:3", "world_motion_fraction=0.1:0.3:2"]);
        let cells = s.check(&c).unwrap();
        assert_eq!(cells.len(), 6);
        // Across first: cell 1 is the second damping on the first row.
        assert_eq!(cells[1].1.damping, 0.02);
        assert_eq!(cells[1].1.world_motion_fraction, 0.1);
        assert_eq!(cells[3].1.damping, 0.01);
        assert_eq!(cells[3].1.world_motion_fraction, 0.3);
        let l = s.layout();
        assert_eq!((l.columns, l.rows, l.cells), (3, 2, 6));
    }

    #[test]
    fn check_refuses_bad_specs_before_any_work() {
        let c = Character::builtin();
        let e = spec(&[]).check(&c).unwrap_err();
        assert!(matches!(e, WedgeError::NoKnob), "{e}");
        let mut s = spec(&["damping=0.01:0.03:3"]);
        s.clip = "moonwalk".into();
        let e = s.check(&c).unwrap_err().to_string();
        assert!(e.contains("`moonwalk`") && e.contains("dodge"), "{e}");
        let mut s = spec(&["damping=0.01:0.03:3"]);
        s.frames = vec![10, MAX_FRAME + 1];
        assert!(matches!(s.check(&c), Err(WedgeError::Frame { .. })));
        let mut s = spec(&["damping=0.01:0.03:3"]);
        s.frames = (0..=MAX_STRIP as u64).collect();
        let e = s.check(&c).unwrap_err().to_string();
        assert!(e.contains("9 frames") && e.contains("at most 8"), "{e}");
        let mut s = spec(&["damping=0.01:0.03:3"]);
        s.seconds = 0.0;
        assert!(matches!(s.check(&c), Err(WedgeError::Seconds { .. })));
        let mut s = spec(&["damping=0.01:0.03:3"]);
        s.cell_width = 8;
        assert!(matches!(s.check(&c), Err(WedgeError::CellSize { .. })));
        let s = spec(&["damping=0.005:0.05:21", "world_motion_fraction=0:1:20"]);
        assert!(matches!(
            s.check(&c),
            Err(WedgeError::Knob(KnobError::TooMany { cells: 420 }))
        ));
    }

    #[test]
    fn files_beside_the_sheet() {
        let p = Path::new("out/sheet.png");
        assert_eq!(cells_dir(p), Path::new("out/sheet_cells"));
        assert_eq!(html_path(p), Path::new("out/sheet.html"));
    }
}
