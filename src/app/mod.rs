//! The desktop tuner: an eframe app with a menu bar, the parameter panel on the left, the 3D
//! viewport in the centre and playback with plots at the bottom.
//!
//! The state is three parts: the [`Document`] (the preset, its file, undo), the [`Playback`]
//! (the playing scene and its clock) and the [`ViewState`] (camera, overlays, look, viewport).
//! Each frame first advances the playback, then the panels (plain functions of the state, in
//! `panels.rs` and `dialogs.rs`) draw and push [`Command`]s, and only then [`App::apply`]
//! carries the commands out.

use eframe::egui;
pub mod autosave;
mod bake_dialog;
mod character_panel;
mod command;
pub mod compare;
mod dialogs;
pub mod document;
mod fold_panel;
mod garment_panel;
pub mod paint;
mod panels;
pub mod params_panel;
pub mod playback;
pub mod plots;
mod recovery;
mod timeline;
mod tools;
pub mod undo;
mod view;
mod viewport;
mod wear;

pub use bake_dialog::BakeDialog;
pub use garment_panel::GarmentEditor;
pub use wear::{GarmentRef, RememberedGarment};

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use egui::Ui;
use serde::{Deserialize, Serialize};

use crate::character::Character;
use crate::export::vertices::MeshVertices;
use crate::export::{export_for_engine, export_for_garment, Engine, EngineExport, GridSize};
use crate::preset::Preset;
use crate::render::{OrbitCamera, Overlays, Quality};
use crate::scene::{Outfit, Scene};
use crate::sim::FabricParams;
pub use character_panel::CharacterEditor;
pub use command::Command;
pub use document::Document;
pub use params_panel::params_panel;
pub use playback::{Playback, MAX_STEPS_PER_FRAME};
pub use view::{FpsMeter, ViewState};

/// The key the window state is saved under.
const STORAGE_KEY: &str = "cloth-tuner";
/// Shipped presets, compiled in for "New from".
pub const SHIPPED: [(&str, &str); 4] = [
    ("tweed.json", include_str!("../../presets/tweed.json")),
    (
        "down_jacket.json",
        include_str!("../../presets/down_jacket.json"),
    ),
    ("veil.json", include_str!("../../presets/veil.json")),
    ("skirt.json", include_str!("../../presets/skirt.json")),
];
/// The clip played when nothing else is remembered.
const DEFAULT_CLIP: &str = "walk";

/// What the window remembers between runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Persisted {
    pub preset_path: Option<PathBuf>,
    pub recent: Vec<PathBuf>,
    pub camera: OrbitCamera,
    pub overlays: Overlays,
    pub clip: String,
    pub speed: f32,
    pub looping: bool,
    /// The glTF character last played (`None`: the built-in one).
    pub character: Option<PathBuf>,
    /// View > Quality.
    pub quality: Quality,
    /// Compare > side by side or ghost.
    pub compare_mode: compare::CompareMode,
    /// The artist's garment last worn, with the character it was worn on.
    pub garment: Option<RememberedGarment>,
}

/// Something that would throw away unsaved changes, waiting for the artist's answer.
#[derive(Clone, Debug, PartialEq)]
enum Pending {
    Open(PathBuf),
    NewFrom(usize),
    Quit,
    /// End the A/B comparison (asks first when B has unsaved changes).
    CloseCompare,
}

/// What a file dialog is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileTask {
    OpenPreset,
    SavePreset,
    /// A glTF humanoid to play instead of the current character.
    OpenCharacter,
    /// Where to write the preset's settings for an engine.
    ExportFor(Engine),
    /// Where to write the garment rigged with its cloth bones (glTF binary).
    ExportRigged,
    /// A preset to compare with (A/B).
    OpenSecond,
    /// A glTF file holding the artist's garment (for the Garment window's list of meshes).
    OpenGarment,
}

impl FileTask {
    fn title(self) -> String {
        match self {
            FileTask::OpenPreset => "Open preset".into(),
            FileTask::SavePreset => "Save preset as".into(),
            FileTask::OpenCharacter => "Open character (glTF 2.0: .glb or .gltf)".into(),
            FileTask::ExportFor(engine) => format!("Export for {}", engine.label()),
            FileTask::ExportRigged => "Export rigged garment (glTF 2.0 binary, .glb)".into(),
            FileTask::OpenSecond => "Open preset B (to compare with)".into(),
            FileTask::OpenGarment => "Open garment (glTF 2.0: .glb or .gltf)".into(),
        }
    }

    /// The folder a dialog starts in: the presets for a preset, else the working folder (an
    /// engine's settings are not presets and must not show in the preset list).
    fn folder(self) -> PathBuf {
        match self {
            FileTask::OpenPreset | FileTask::SavePreset | FileTask::OpenSecond => presets_dir(),
            FileTask::OpenCharacter
            | FileTask::OpenGarment
            | FileTask::ExportFor(_)
            | FileTask::ExportRigged => {
                std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
            }
        }
    }

    fn button(self) -> &'static str {
        match self {
            FileTask::SavePreset => "Save",
            FileTask::ExportFor(_) | FileTask::ExportRigged => "Export",
            FileTask::OpenPreset
            | FileTask::OpenCharacter
            | FileTask::OpenSecond
            | FileTask::OpenGarment => "Open",
        }
    }

    /// The native dialog's file filter.
    fn filter(self) -> (&'static str, &'static [&'static str]) {
        match self {
            FileTask::OpenPreset | FileTask::SavePreset | FileTask::OpenSecond => {
                ("cloth-tuner preset", &["json"])
            }
            FileTask::ExportFor(_) => ("engine settings", &["json"]),
            FileTask::ExportRigged => ("glTF 2.0 binary", &["glb"]),
            FileTask::OpenCharacter => ("glTF 2.0 character", &["glb", "gltf"]),
            FileTask::OpenGarment => ("glTF 2.0 garment", &["glb", "gltf"]),
        }
    }

    /// What to do with the path the artist gave.
    fn command(self, path: PathBuf) -> Command {
        match self {
            FileTask::OpenPreset => Command::Open(path),
            FileTask::SavePreset => Command::SaveAs(path),
            FileTask::OpenCharacter => Command::OpenCharacter(Some(path)),
            FileTask::ExportFor(engine) => Command::ExportFor(engine, path),
            FileTask::ExportRigged => Command::ExportRigged(path),
            FileTask::OpenSecond => Command::OpenSecond(path),
            FileTask::OpenGarment => Command::GarmentFile(path),
        }
    }

    /// The file name a save dialog starts with; an export is named after the preset's file
    /// (`tweed_unity.json`), as `render` names pictures.
    fn suggested_name(self, preset_file: Option<&Path>) -> String {
        let stem = preset_file
            .and_then(Path::file_stem)
            .map_or("preset".into(), |s| s.to_string_lossy());
        match self {
            FileTask::SavePreset => "my_fabric.json".to_string(),
            FileTask::ExportFor(engine) => format!("{stem}_{}.json", engine.name()),
            FileTask::ExportRigged => format!("{stem}_rigged.glb"),
            FileTask::OpenPreset
            | FileTask::OpenCharacter
            | FileTask::OpenSecond
            | FileTask::OpenGarment => String::new(),
        }
    }
}

/// The typed-path dialog (the fallback when no native file dialog is available).
#[derive(Clone, Debug, PartialEq)]
struct PathDialog {
    task: FileTask,
    text: String,
}

/// A native file dialog's answer: what it was for, and the path picked.
type FilePick = (FileTask, Option<PathBuf>);

/// Options for starting the window.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Preset to open instead of the remembered one.
    pub preset: Option<PathBuf>,
    /// Folder for the saved window state instead of eframe's default.
    pub state_dir: Option<PathBuf>,
    /// Print the frame rate to stderr every few seconds.
    pub report_fps: bool,
    /// A glTF character to play instead of the remembered one.
    pub character: Option<PathBuf>,
    /// Its settings file (bone map, ellipsoid scales) instead of the one beside it.
    pub bone_map: Option<PathBuf>,
    /// The garment it wears instead of the remembered one (`--garment`, `--garment-mesh`).
    pub garment: Option<GarmentRef>,
}

/// The tuner.
pub struct App {
    doc: Document,
    playback: Playback,
    view: ViewState,
    /// The error shown in the status bar until dismissed.
    error: Option<String>,
    status: String,
    pending: Option<Pending>,
    path_dialog: Option<PathDialog>,
    file_picks: (Sender<FilePick>, Receiver<FilePick>),
    shots: (Sender<String>, Receiver<String>),
    /// The glTF character playing (`None`: the built-in one).
    character_path: Option<PathBuf>,
    /// The `--bone-map` the window was started with, for that character: (character, map).
    bone_map: Option<(PathBuf, PathBuf)>,
    /// The Character window's state for the glTF character (or the one whose roles are
    /// being picked); kept while the window is closed.
    character_editor: Option<CharacterEditor>,
    character_open: bool,
    /// The last engine export's report (files written, knobs that do not carry over), shown
    /// until dismissed.
    export_report: Option<String>,
    /// The title last sent to the window.
    title: String,
    allow_close: bool,
    /// Autosave, restore offer, save-error dialog, drawing failure, reset notice.
    recovery: recovery::Recovery,
    /// The A/B comparison, while there is one.
    compare: Option<compare::Compare>,
    /// Tools > Wedge and Tools > Fit.
    tools: tools::Tools,
    /// The artist's garment the character wears (`None`: the preset's template).
    worn: Option<wear::Worn>,
    /// The Garment window.
    garment_editor: GarmentEditor,
    /// File > Bake clips….
    bake: BakeDialog,
}

impl App {
    /// Builds the app from eframe's creation context: restores the saved state, loads the last
    /// preset, and sets up the 3D viewport when there is a GL context (there is none under
    /// egui_kittest; the viewport is then skipped).
    pub fn new(cc: &eframe::CreationContext<'_>) -> Self {
        Self::with_options(cc, Options::default())
    }

    /// [`App::new`] with start-up options.
    pub fn with_options(cc: &eframe::CreationContext<'_>, options: Options) -> Self {
        let persisted: Persisted = cc
            .storage
            .and_then(|s| eframe::get_value(s, STORAGE_KEY))
            .unwrap_or_default();
        Self::with_state(cc, options, persisted)
    }

    /// [`App::with_options`] starting from `persisted`, what the window remembered from its
    /// last run. A remembered preset or character that no longer loads is not played: the
    /// message says why, and the built-in one plays instead.
    pub fn with_state(
        cc: &eframe::CreationContext<'_>,
        options: Options,
        persisted: Persisted,
    ) -> Self {
        let wanted = options.preset.clone().or(persisted.preset_path.clone());
        let (preset, path, mut error) = starting_preset(wanted.as_deref());
        let bone_map = options.character.clone().zip(options.bone_map.clone());
        let wanted = options.character.as_ref().or(persisted.character.as_ref());
        let (character, character_path, character_editor) = match wanted {
            None => (Arc::new(Character::builtin()), None, None),
            Some(p) => {
                let map = character_panel::bone_map_for(bone_map.as_ref(), p);
                match character_panel::load_character(p, map) {
                    (Ok(c), editor) => (Arc::new(c), Some(p.clone()), editor),
                    (Err(e), editor) => {
                        error = Some(format!("{e}; playing the built-in character"));
                        (Arc::new(Character::builtin()), None, editor)
                    }
                }
            }
        };
        let character_open = character_editor
            .as_ref()
            .is_some_and(|e| e.needs_the_artist());
        let (preset, path) = match fits_grid(&preset, path.as_deref(), &character) {
            Ok(()) => (preset, path),
            Err(e) => {
                error = Some(e);
                (shipped(0), None)
            }
        };
        let scene = starting_scene(character, &preset, &persisted.clip);
        let viewport = viewport::Viewport::new(cc.gl.clone());
        let shape = character_editor
            .as_ref()
            .filter(|_| character_path.is_some())
            .and_then(character_panel::shape_status);
        let status = [
            viewport.error().map(|e| format!("3D viewport off: {e}")),
            shape,
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("; ");
        let speed = if persisted.speed > 0.0 {
            persisted.speed
        } else {
            1.0
        };
        let looping = persisted.looping || persisted == Persisted::default();
        let view = ViewState {
            camera: persisted.camera.clone(),
            overlays: persisted.overlays.clone(),
            quality: persisted.quality,
            compare_mode: persisted.compare_mode,
            viewport,
            fps: FpsMeter::new(options.report_fps),
            brush: paint::Brush::default(),
            stroke: None,
        };
        let preset_params = preset.params.clone();
        let mut app = Self {
            doc: Document::new(preset, path, persisted.recent.clone()),
            playback: Playback::new(scene, speed, looping),
            view,
            error,
            status,
            pending: None,
            path_dialog: None,
            file_picks: channel(),
            shots: channel(),
            character_path,
            bone_map,
            character_editor,
            character_open,
            export_report: None,
            title: String::new(),
            allow_close: false,
            recovery: recovery::Recovery::default(),
            compare: None,
            tools: tools::Tools::new(&preset_params),
            worn: None,
            garment_editor: GarmentEditor::default(),
            bake: BakeDialog::default(),
        };
        match options.garment {
            Some(g) => app.wear_garment(g, None),
            None => app.restore_garment(persisted.garment.as_ref()),
        }
        app
    }

    // ----- Read access for tests and tools -----

    /// What the window would remember if it closed now (what [`eframe::App::save`] stores):
    /// the character only when it loaded, so a file that fails never comes back at start.
    pub fn persisted(&self) -> Persisted {
        Persisted {
            preset_path: self.doc.path().map(Path::to_path_buf),
            recent: self.doc.recent().to_vec(),
            camera: self.view.camera.clone(),
            overlays: self.view.overlays.clone(),
            clip: self.scene().clip_name().to_string(),
            speed: self.playback.speed,
            looping: self.playback.looping,
            character: self.character_path.clone(),
            quality: self.view.quality,
            compare_mode: self.view.compare_mode,
            garment: self.remembered_garment(),
        }
    }

    /// The live parameters.
    pub fn params(&self) -> &FabricParams {
        &self.doc.preset.params
    }

    /// The preset, its file and its undo history.
    pub fn document(&self) -> &Document {
        &self.doc
    }

    /// The preset being tuned.
    pub fn preset(&self) -> &Preset {
        &self.doc.preset
    }

    /// The preset file, if the preset came from (or was saved to) one.
    pub fn preset_path(&self) -> Option<&Path> {
        self.doc.path()
    }

    /// True when the preset (or the one it is compared with) has changes not saved to its
    /// file.
    pub fn is_dirty(&self) -> bool {
        self.doc.is_dirty() || self.other_is_dirty()
    }

    /// The playing scene and its clock.
    pub fn playback(&self) -> &Playback {
        &self.playback
    }

    /// The playback, for tools and tests (stepping, scrubbing, poking a particle).
    pub fn playback_mut(&mut self) -> &mut Playback {
        &mut self.playback
    }

    /// The scene playing: the parameters, clip and time the simulation runs with.
    pub fn scene(&self) -> &Scene {
        self.playback.scene()
    }

    /// The status bar's message: what the last action did.
    pub fn status(&self) -> &str {
        &self.status
    }

    /// The error shown in the window, if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The window title: the preset's name, `*` when unsaved.
    pub fn window_title(&self) -> String {
        self.doc.title()
    }

    /// True once the artist agreed to quit (nothing unsaved, or Discard): the next close
    /// request goes through.
    pub fn close_allowed(&self) -> bool {
        self.allow_close
    }

    // ----- Actions -----

    /// Hands the document's knobs and painted max distances to the simulation.
    /// Brings the playing scene to the document's edits: its garment, fold lines (both
    /// restart the clip, and only when they differ), knobs and painted max distances.
    fn sync_scene(&mut self) {
        let preset = &self.doc.preset;
        // The artist's own garment stays whatever template the preset names.
        if (self.playback.scene().garment()).is_some_and(|g| g != preset.garment) {
            self.playback.set_garment(preset.garment);
        }
        if preset.fold_lines != self.playback.scene().fold_lines() {
            if let Err(e) = self.playback.set_fold_lines(&preset.fold_lines) {
                self.status = e;
            }
        }
        self.playback.set_params(&self.doc.preset.params);
        self.sync_max_distance_map();
    }

    /// Loads a preset file. On any error the message is shown and nothing changes.
    pub fn open(&mut self, path: &Path) {
        let character = self.scene().character_arc().clone();
        let loaded = Preset::load(path).map_err(|e| e.to_string());
        match loaded.and_then(|p| fits_grid(&p, Some(path), &character).map(|()| p)) {
            Ok(p) => {
                self.install(p, Some(path.to_path_buf()));
                self.status = format!("Opened {}", path.display());
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Puts a preset in as the document and plays it from the clip start.
    fn install(&mut self, preset: Preset, path: Option<PathBuf>) {
        self.doc.replace(preset, path);
        self.error = None;
        self.playback.load_preset(&self.doc.preset);
        self.sync_max_distance_map();
    }

    /// Saves to `path` (atomically). Errors are shown; the preset stays as it is.
    pub fn save_as(&mut self, path: &Path) {
        let preset = self.doc.to_save_as(path);
        match preset.save(path) {
            Ok(()) => {
                self.doc.saved_to(preset, path);
                self.error = None;
                self.status = format!("Saved {}", path.display());
            }
            Err(e) => self.save_failed(e.to_string()),
        }
    }

    fn save(&mut self) {
        match self.doc.path().map(Path::to_path_buf) {
            Some(p) => self.save_as(&p),
            None => self.ask_path(FileTask::SavePreset),
        }
    }

    /// Starts a new preset from shipped preset `i` (unsaved, no file).
    pub fn new_from_shipped(&mut self, i: usize) {
        self.install(shipped(i), None);
        self.doc.mark_unsaved();
        self.status = format!("New preset from {}", SHIPPED.get(i).map_or("", |s| s.0));
    }

    /// Runs `action` now, or asks first when it would discard unsaved changes.
    fn guarded(&mut self, ctx: &egui::Context, action: Pending) {
        if self.pending_discards(&action).is_some() {
            self.pending = Some(action);
        } else {
            self.run_pending(ctx, action);
        }
    }

    fn answer_discard(&mut self, ctx: &egui::Context, discard: bool) {
        match self.pending.take() {
            Some(action) if discard => self.run_pending(ctx, action),
            _ => {}
        }
    }

    fn run_pending(&mut self, ctx: &egui::Context, action: Pending) {
        match action {
            Pending::Open(p) => self.open(&p),
            Pending::NewFrom(i) => self.new_from_shipped(i),
            Pending::Quit => {
                self.allow_close = true;
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            Pending::CloseCompare => self.close_compare(),
        }
    }

    /// The names of the presets whose unsaved changes `action` would throw away, if any.
    fn pending_discards(&self, action: &Pending) -> Option<String> {
        let edited = self.doc.is_dirty().then(|| self.doc.preset().name.clone());
        let other = self
            .compare
            .as_ref()
            .filter(|c| c.other.is_dirty())
            .map(|c| c.other.preset().name.clone());
        match action {
            Pending::Open(_) | Pending::NewFrom(_) => edited,
            Pending::CloseCompare => other,
            Pending::Quit => match (edited, other) {
                (Some(a), Some(b)) => Some(format!("{a} and {b}")),
                (a, b) => a.or(b),
            },
        }
    }

    /// Opens the typed-path dialog, with a native picker offered from inside it.
    fn ask_path(&mut self, task: FileTask) {
        let start = match task {
            FileTask::OpenCharacter => self.character_path.clone(),
            FileTask::OpenPreset | FileTask::SavePreset => self.doc.path().map(Path::to_path_buf),
            FileTask::OpenGarment => {
                Some(PathBuf::from(&self.garment_editor.path)).filter(|p| p.is_file())
            }
            FileTask::ExportFor(_) | FileTask::ExportRigged | FileTask::OpenSecond => None,
        };
        let text = start.map(|p| p.display().to_string()).unwrap_or_else(|| {
            let name = task.suggested_name(self.doc.path());
            task.folder().join(name).display().to_string()
        });
        self.path_dialog = Some(PathDialog { task, text });
    }

    fn native_pick(&self, task: FileTask) {
        let tx = self.file_picks.0.clone();
        let dir = task.folder();
        let name = task.suggested_name(self.doc.path());
        std::thread::spawn(move || {
            let (what, extensions) = task.filter();
            let dialog = rfd::FileDialog::new()
                .add_filter(what, extensions)
                .set_directory(&dir);
            let picked = if name.is_empty() {
                dialog.pick_file()
            } else {
                dialog.set_file_name(name).save_file()
            };
            let _ = tx.send((task, picked));
        });
    }

    pub fn undo(&mut self) {
        if self.doc.undo() {
            self.sync_scene();
        }
    }

    pub fn redo(&mut self) {
        if self.doc.redo() {
            self.sync_scene();
        }
    }

    /// Switches the clip (restarts it). Errors are shown.
    pub fn set_clip(&mut self, name: &str) {
        if let Err(e) = self.playback.set_clip(name) {
            self.error = Some(e);
        }
    }

    /// Writes the preset's settings for `engine` at `out` (and the per-particle table and any
    /// snippet beside it) for the grid the jacket plays with, or, when the artist's garment is
    /// worn, over its mesh's vertices. The report lists the files and every knob that does not
    /// carry over; an error names the file and changes nothing else.
    pub fn export_for(&mut self, engine: Engine, out: &Path) {
        let worn = self.scene().worn();
        let exported = match MeshVertices::of_worn(worn) {
            Some(mesh) => {
                let grid = GridSize::of_topology(&worn.rig().topology);
                export_for_garment(engine, &self.doc.preset, None, grid, &mesh)
            }
            None => {
                let grid = GridSize::of_topology(self.scene().cloth().topology());
                export_for_engine(engine, &self.doc.preset, None, grid)
            }
        };
        let written = exported
            .map_err(|e| format!("cannot export for {engine}: {e}"))
            .and_then(|export| {
                let paths = export.write(out).map_err(|e| e.to_string())?;
                Ok((export, paths))
            });
        match written {
            Ok((export, paths)) => {
                self.status = format!("Exported for {engine}: {}", out.display());
                self.export_report = Some(export_report(&export, &paths));
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Writes the garment worn (the artist's or the template), rigged with its cloth bones, the
    /// body and the grid, as one glTF binary at `out` (atomically). Errors name the file.
    pub fn export_rigged(&mut self, out: &Path) {
        let scene = self.playback.scene();
        let written = crate::export::rigged::write_rigged(
            out,
            scene.character(),
            scene.worn(),
            &self.doc.preset,
        );
        match written {
            Ok(r) => {
                self.status = format!(
                    "Exported the rigged garment `{}` to {} ({} cloth bones, {} joints)",
                    r.garment,
                    out.display(),
                    r.cloth_bones,
                    r.joints
                );
                self.error = None;
            }
            Err(e) => self.error = Some(format!("cannot export {}: {e}", out.display())),
        }
    }

    /// The last engine export's report, while it is shown.
    pub fn export_report(&self) -> Option<&str> {
        self.export_report.as_deref()
    }

    /// View > Quality as chosen (Automatic resolves per renderer when drawing).
    pub fn quality(&self) -> Quality {
        self.view.quality
    }

    /// The glTF character playing (`None`: the built-in one).
    pub fn character_path(&self) -> Option<&Path> {
        self.character_path.as_deref()
    }

    /// Plays or pauses.
    pub fn set_playing(&mut self, playing: bool) {
        self.playback.set_playing(playing);
    }

    fn screenshot(&mut self, ctx: &egui::Context) {
        let Some(rect) = self.view.viewport.rect() else {
            self.error = Some("no viewport to take a screenshot of".into());
            return;
        };
        let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let path = dir.join(format!("cloth-tuner-{stamp}.png"));
        let tx = self.shots.0.clone();
        let ppp = ctx.pixels_per_point();
        let repaint = ctx.clone();
        ctx.request_screenshot(move |image| {
            let region = image.region(&rect, Some(ppp));
            let msg = match write_png(&path, &region) {
                Ok(()) => format!("Saved screenshot {}", path.display()),
                Err(e) => format!("error: {e}"),
            };
            let _ = tx.send(msg);
            repaint.request_repaint();
        });
    }

    // ----- Frame -----

    /// Before the panels: the clock, the scrub's fast-forward and the frame rate.
    fn advance_frame(&mut self, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        self.view.fps.frame(now);
        self.playback.tick(now);
        if self.playback.is_seeking() {
            self.playback.seek_for(timeline::SEEK_BUDGET);
            ctx.request_repaint();
        }
    }

    /// After the panels: what the artist asked for, then the bookkeeping that follows it.
    fn apply_commands(&mut self, ctx: &egui::Context, commands: Vec<Command>) {
        for command in commands {
            self.apply(ctx, command);
        }
        let down = ctx.input(|i| i.pointer.any_down());
        self.doc.settle_gesture(down);
        self.receive_screenshots();
        self.recovery_frame(ctx);
        let title = self.window_title();
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        if self.playback.is_playing() {
            ctx.request_repaint();
        }
    }

    /// Screenshot results that arrived from the thread that wrote them.
    fn receive_screenshots(&mut self) {
        while let Ok(msg) = self.shots.1.try_recv() {
            match msg.strip_prefix("error: ") {
                Some(e) => self.error = Some(e.to_string()),
                None => self.status = msg,
            }
        }
    }
}

impl eframe::App for App {
    /// The panels' colour: they draw no fill of their own (see `App::panels`).
    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        visuals.panel_fill.to_normalized_gamma_f32()
    }

    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        let smooth = self.view.viewport.quality().smooth_panels();
        ctx.tessellation_options_mut(|o| o.feathering = smooth);
        if ctx.input(|i| i.viewport().close_requested()) && self.is_dirty() && !self.allow_close {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.pending = Some(Pending::Quit);
        }
        self.advance_frame(&ctx);
        let mut commands = Vec::new();
        self.panels(ui, &mut commands);
        self.dialogs(&ctx, &mut commands);
        self.compare_window(&ctx, &mut commands);
        self.tool_windows(&ctx, &mut commands);
        self.recovery_dialogs(&ctx, &mut commands);
        self.apply_commands(&ctx, commands);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.persisted());
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.clean_exit();
    }
}

/// What an engine export wrote and what did not carry over, for the artist.
fn export_report(export: &EngineExport, paths: &[PathBuf]) -> String {
    let info = export.engine.info();
    let mut text = format!("{} ({})\n", export.engine, info.version);
    for p in paths {
        text += &format!("Wrote {}\n", p.display());
    }
    if export.warnings.is_empty() {
        text += "Every knob carried over.";
    } else {
        text += &format!(
            "{} knobs do not carry over as they are:\n",
            export.warnings.len()
        );
        for w in &export.warnings {
            text += &format!("• {w}\n");
        }
        text += "docs/engines.md has each engine's formulas and what the artist will see differ.";
    }
    text
}

/// The preset to start with: the one asked for, else the remembered one, else the shipped
/// tweed; with the error to show when the one asked for does not load.
fn starting_preset(wanted: Option<&Path>) -> (Preset, Option<PathBuf>, Option<String>) {
    match wanted.map(|p| (p, Preset::load(p))) {
        Some((p, Ok(preset))) => (preset, Some(p.to_path_buf()), None),
        Some((_, Err(e))) => (shipped(0), None, Some(e.to_string())),
        None => {
            let tweed = presets_dir().join(SHIPPED[0].0);
            match Preset::load(&tweed) {
                Ok(p) => (p, Some(tweed), None),
                Err(_) => (shipped(0), None, None),
            }
        }
    }
}

/// Refuses a preset whose painted max distances were made for another grid than the one the
/// jacket has on `character`.
fn fits_grid(preset: &Preset, path: Option<&Path>, character: &Character) -> Result<(), String> {
    let grid = crate::garment::fitted_layout(character, preset.garment);
    let path = path.unwrap_or(Path::new("(unsaved preset)"));
    preset
        .check_map_grid(path, grid.cols, grid.rows)
        .map_err(|e| e.to_string())
}

/// The character in `preset` on the remembered clip, else on its first clip; the built-in
/// character when `character` cannot wear the jacket.
fn starting_scene(character: Arc<Character>, preset: &Preset, clip: &str) -> Scene {
    let clip = if clip.is_empty() { DEFAULT_CLIP } else { clip };
    scene_on(character.clone(), preset, clip)
        .or_else(|_| scene_on(Arc::new(Character::builtin()), preset, clip))
        .unwrap_or_else(|e| panic!("the built-in character cannot wear the jacket: {e}"))
}

/// `character` wearing `preset`'s template on `clip`, or on its first clip when it has no such
/// clip.
fn scene_on(character: Arc<Character>, preset: &Preset, clip: &str) -> Result<Scene, String> {
    scene_on_outfit(character, &Outfit::Template, preset, clip)
}

/// [`scene_on`] with `character` wearing `outfit`.
fn scene_on_outfit(
    character: Arc<Character>,
    outfit: &Outfit,
    preset: &Preset,
    clip: &str,
) -> Result<Scene, String> {
    let clip = match character.clip(clip) {
        Some(_) => clip.to_string(),
        None => character.clip_names().next().unwrap_or(clip).to_string(),
    };
    outfit
        .scene(character, preset, &clip)
        .map_err(|e| e.to_string())
}

/// Shipped preset `i` (the tweed when out of range).
pub fn shipped(i: usize) -> Preset {
    let (name, text) = SHIPPED.get(i).copied().unwrap_or(SHIPPED[0]);
    // The shipped presets are checked by the test suite; fall back to defaults anyway.
    Preset::from_json(text, Path::new(name)).unwrap_or_default()
}

/// The folder of shipped presets: `CLOTH_TUNER_PRESETS`, else `./presets`, else the source
/// tree's.
pub fn presets_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("CLOTH_TUNER_PRESETS") {
        return PathBuf::from(p);
    }
    let local = PathBuf::from("presets");
    if local.is_dir() {
        return local;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("presets")
}

/// The `.json` files in a folder, sorted (none when it cannot be read), leaving out the JSON
/// Schema that ships beside the presets (`schema.json`).
pub fn list_presets(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .filter(|p| p.file_stem().is_none_or(|s| s != "schema"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Writes an egui image as PNG, atomically (the crate's one PNG writer).
pub fn write_png(path: &Path, image: &egui::ColorImage) -> Result<(), String> {
    let [w, h] = image.size;
    let picture = crate::picture::Rgba {
        width: w as u32,
        height: h as u32,
        pixels: image.pixels.iter().map(|c| c.to_array()).collect(),
    };
    crate::picture::write_png(path, &picture).map_err(|e| e.to_string())
}

/// Opens the window and runs until it is closed.
pub fn run(options: Options) -> Result<(), String> {
    let native = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        depth_buffer: 24,
        viewport: egui::ViewportBuilder::default()
            .with_title("cloth-tuner")
            .with_inner_size([1280.0, 800.0])
            .with_min_inner_size([800.0, 500.0]),
        persistence_path: options.state_dir.as_ref().map(|d| d.join("app.ron")),
        ..Default::default()
    };
    eframe::run_native(
        "cloth-tuner",
        native,
        Box::new(move |cc| {
            let autosave = autosave::default_dir(options.state_dir.as_deref());
            let app = App::with_options(cc, options);
            Ok(Box::new(match autosave {
                Some(dir) => app.with_autosave_dir(&dir),
                None => app,
            }))
        }),
    )
    .map_err(|e| format!("cannot open the window: {e}"))
}

#[cfg(test)]
mod preset_list_tests {
    use super::*;

    #[test]
    fn the_preset_list_shows_the_presets_and_not_the_schema_beside_them() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("presets");
        assert!(dir.join("schema.json").exists());
        let names: Vec<String> = list_presets(&dir)
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        assert_eq!(
            names,
            ["down_jacket.json", "skirt.json", "tweed.json", "veil.json"]
        );
    }
}
