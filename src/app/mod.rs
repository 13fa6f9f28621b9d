//! The desktop tuner: an eframe app with a menu bar, the parameter panel on the left, the 3D
//! viewport in the centre and playback with plots at the bottom. Panels are plain functions;
//! the app owns the playing [`Stage`], the preset being tuned, undo and the window state.

use eframe::egui;
pub mod autosave;
mod params_panel;
pub mod plots;
mod recovery;
pub mod stage;
mod timeline;
pub mod undo;
mod viewport;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use egui::{Key, KeyboardShortcut, Modifiers, Ui};
use serde::{Deserialize, Serialize};

use crate::preset::{Garment, Preset};
use crate::render::{FabricLook, OrbitCamera, Overlays};
use crate::rig::Character;
use crate::sim::{FabricParams, FixedStep};
pub use params_panel::params_panel;
use plots::History;
pub use stage::{FrameStats, Stage};
use undo::Undo;

/// The key the window state is saved under.
const STORAGE_KEY: &str = "cloth-tuner";
/// At most this many simulation steps per drawn frame; a slower frame drops the backlog.
pub const MAX_STEPS_PER_FRAME: u32 = 8;
/// Shipped presets, compiled in for "New from".
pub const SHIPPED: [(&str, &str); 3] = [
    ("tweed.json", include_str!("../../presets/tweed.json")),
    (
        "down_jacket.json",
        include_str!("../../presets/down_jacket.json"),
    ),
    ("veil.json", include_str!("../../presets/veil.json")),
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
}

/// Something that would throw away unsaved changes, waiting for the artist's answer.
#[derive(Clone, Debug, PartialEq)]
enum Pending {
    Open(PathBuf),
    NewFrom(usize),
    Quit,
}

/// The typed-path dialog (the fallback when no native file dialog is available).
#[derive(Clone, Debug, PartialEq)]
struct PathDialog {
    save: bool,
    text: String,
}

/// A native file dialog's answer: (was it Save, the path picked).
type FilePick = (bool, Option<PathBuf>);

/// Options for starting the window.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Preset to open instead of the remembered one.
    pub preset: Option<PathBuf>,
    /// Folder for the saved window state instead of eframe's default.
    pub state_dir: Option<PathBuf>,
    /// Print the frame rate to stderr every few seconds.
    pub report_fps: bool,
}

/// The tuner.
pub struct App {
    stage: Stage,
    /// The preset being tuned; its `params` are the live knobs.
    preset: Preset,
    /// The preset as last loaded or saved (the title's `*` compares against it).
    saved: Preset,
    preset_path: Option<PathBuf>,
    recent: Vec<PathBuf>,
    undo: Undo,
    playing: bool,
    speed: f32,
    looping: bool,
    stepper: FixedStep,
    last_frame: Option<f64>,
    history: History,
    camera: OrbitCamera,
    overlays: Overlays,
    look: FabricLook,
    viewport: viewport::Viewport,
    error: Option<String>,
    status: String,
    pending: Option<Pending>,
    path_dialog: Option<PathDialog>,
    file_picks: (Sender<FilePick>, Receiver<FilePick>),
    shots: (Sender<String>, Receiver<String>),
    title: String,
    fps: f64,
    report_fps: bool,
    fps_report_at: f64,
    allow_close: bool,
    /// The timeline scrub under way or last finished.
    seek: Option<timeline::Seek>,
    /// Autosave, restore offer, save-error dialog, drawing failure, reset notice.
    recovery: recovery::Recovery,
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
        let character = Arc::new(Character::builtin());
        let mut status = String::new();
        let mut error = None;

        // The preset: the one asked for, else the remembered one, else the shipped tweed.
        let wanted = options.preset.clone().or(persisted.preset_path.clone());
        let (preset, path) = match wanted.as_deref().map(|p| (p, Preset::load(p))) {
            Some((p, Ok(preset))) => (preset, Some(p.to_path_buf())),
            Some((_, Err(e))) => {
                error = Some(e.to_string());
                (shipped(0), None)
            }
            None => {
                let tweed = presets_dir().join(SHIPPED[0].0);
                match Preset::load(&tweed) {
                    Ok(p) => (p, Some(tweed)),
                    Err(_) => (shipped(0), None),
                }
            }
        };
        let clip = if persisted.clip.is_empty() {
            DEFAULT_CLIP.to_string()
        } else {
            persisted.clip.clone()
        };
        let stage = match Stage::new(character.clone(), &preset, &clip) {
            Ok(s) => s,
            Err(_) => {
                let first = character
                    .clip_names()
                    .next()
                    .unwrap_or(DEFAULT_CLIP)
                    .to_string();
                match Stage::new(character.clone(), &preset, &first) {
                    Ok(s) => s,
                    Err(e) => panic!("the built-in character cannot play its own clip: {e}"),
                }
            }
        };
        let viewport = viewport::Viewport::new(cc.gl.clone());
        if let Some(e) = viewport.error() {
            status = format!("3D viewport off: {e}");
        }
        let speed = if persisted.speed > 0.0 {
            persisted.speed.clamp(0.1, 2.0)
        } else {
            1.0
        };
        let look = FabricLook::for_preset(&look_key(&preset, path.as_deref()));
        let stepper = FixedStep::new(preset.params.timestep_hz, MAX_STEPS_PER_FRAME);
        Self {
            stage,
            saved: preset.clone(),
            preset,
            preset_path: path,
            recent: persisted.recent.clone(),
            undo: Undo::default(),
            playing: true,
            speed,
            looping: persisted.looping || persisted == Persisted::default(),
            stepper,
            last_frame: None,
            history: History::default(),
            camera: persisted.camera.clone(),
            overlays: persisted.overlays.clone(),
            look,
            viewport,
            error,
            status,
            pending: None,
            path_dialog: None,
            file_picks: channel(),
            shots: channel(),
            title: String::new(),
            fps: 0.0,
            report_fps: options.report_fps,
            fps_report_at: 0.0,
            allow_close: false,
            seek: None,
            recovery: recovery::Recovery::default(),
        }
    }

    // ----- Read access for tests and tools -----

    /// The live parameters.
    pub fn params(&self) -> &FabricParams {
        &self.preset.params
    }

    /// The parameters the simulation is running with.
    pub fn stage(&self) -> &Stage {
        &self.stage
    }

    /// The preset being tuned.
    pub fn preset(&self) -> &Preset {
        &self.preset
    }

    /// The preset file, if the preset came from (or was saved to) one.
    pub fn preset_path(&self) -> Option<&Path> {
        self.preset_path.as_deref()
    }

    /// True when the preset has changes not saved to its file.
    pub fn is_dirty(&self) -> bool {
        self.preset != self.saved
    }

    /// The error shown in the window, if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The window title: the preset's name, `*` when unsaved.
    pub fn window_title(&self) -> String {
        let file = self
            .preset_path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|f| format!(" ({})", f.to_string_lossy()))
            .unwrap_or_default();
        format!(
            "{}{}{} - cloth-tuner",
            self.preset.name,
            if self.is_dirty() { " *" } else { "" },
            file
        )
    }

    /// True once the artist agreed to quit (nothing unsaved, or Discard): the next close
    /// request goes through.
    pub fn close_allowed(&self) -> bool {
        self.allow_close
    }

    /// Plays or pauses.
    pub fn set_playing(&mut self, playing: bool) {
        self.playing = playing;
        self.last_frame = None;
    }

    // ----- Actions -----

    fn apply_params(&mut self) {
        self.stage.set_params(&self.preset.params);
        self.stepper.set_hz(self.preset.params.timestep_hz);
    }

    /// Loads a preset file. On any error the message is shown and nothing changes.
    pub fn open(&mut self, path: &Path) {
        match Preset::load(path) {
            Ok(p) => {
                self.install(p, Some(path.to_path_buf()));
                self.status = format!("Opened {}", path.display());
            }
            Err(e) => {
                self.error = Some(e.to_string());
            }
        }
    }

    fn install(&mut self, preset: Preset, path: Option<PathBuf>) {
        let garment_changed = preset.garment != self.preset.garment;
        self.look = FabricLook::for_preset(&look_key(&preset, path.as_deref()));
        self.saved = preset.clone();
        self.preset = preset;
        if let Some(p) = &path {
            self.remember(p.clone());
        }
        self.preset_path = path;
        self.undo.clear();
        self.error = None;
        self.apply_params();
        if garment_changed {
            self.stage.set_garment(self.preset.garment);
        }
        self.stage.reset();
        self.history.clear();
    }

    fn remember(&mut self, path: PathBuf) {
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(8);
    }

    /// Saves to `path` (atomically). Errors are shown; the preset stays as it is.
    pub fn save_as(&mut self, path: &Path) {
        let mut preset = self.preset.clone();
        if self.preset_path.as_deref() != Some(path) && self.saved.name == preset.name {
            // A new file: name the preset after it unless the artist renamed it already.
            if let Some(stem) = path.file_stem() {
                let stem = stem.to_string_lossy().replace('_', " ");
                if !stem.is_empty() && self.preset_path.is_some() {
                    preset.name = capitalise(&stem);
                }
            }
        }
        match preset.save(path) {
            Ok(()) => {
                self.preset = preset.clone();
                self.saved = preset;
                self.preset_path = Some(path.to_path_buf());
                self.remember(path.to_path_buf());
                self.error = None;
                self.status = format!("Saved {}", path.display());
            }
            Err(e) => self.save_failed(e.to_string()),
        }
    }

    fn save(&mut self) {
        match self.preset_path.clone() {
            Some(p) => self.save_as(&p),
            None => self.ask_path(true),
        }
    }

    /// Starts a new preset from shipped preset `i` (unsaved, no file).
    pub fn new_from_shipped(&mut self, i: usize) {
        let p = shipped(i);
        self.install(p, None);
        self.saved = Preset::default();
        self.status = format!("New preset from {}", SHIPPED.get(i).map_or("", |s| s.0));
    }

    /// Runs `action` now, or asks first when it would discard unsaved changes.
    fn guarded(&mut self, action: Pending) {
        if self.is_dirty() {
            self.pending = Some(action);
        } else {
            self.run_pending(action);
        }
    }

    fn run_pending(&mut self, action: Pending) {
        match action {
            Pending::Open(p) => self.open(&p),
            Pending::NewFrom(i) => self.new_from_shipped(i),
            Pending::Quit => self.allow_close = true,
        }
    }

    /// Opens the typed-path dialog, with a native picker offered from inside it.
    fn ask_path(&mut self, save: bool) {
        let text = self
            .preset_path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| {
                let dir = presets_dir();
                let name = if save { "my_fabric.json" } else { "" };
                dir.join(name).display().to_string()
            });
        self.path_dialog = Some(PathDialog { save, text });
    }

    fn native_pick(&self, save: bool) {
        let tx = self.file_picks.0.clone();
        let dir = presets_dir();
        std::thread::spawn(move || {
            let dialog = rfd::FileDialog::new()
                .add_filter("cloth-tuner preset", &["json"])
                .set_directory(&dir);
            let picked = if save {
                dialog.set_file_name("my_fabric.json").save_file()
            } else {
                dialog.pick_file()
            };
            let _ = tx.send((save, picked));
        });
    }

    pub fn undo(&mut self) {
        if let Some(p) = self.undo.undo(&self.preset.params) {
            self.preset.params = p;
            self.apply_params();
        }
    }

    pub fn redo(&mut self) {
        if let Some(p) = self.undo.redo(&self.preset.params) {
            self.preset.params = p;
            self.apply_params();
        }
    }

    /// Switches the clip (restarts it). Errors are shown.
    pub fn set_clip(&mut self, name: &str) {
        match self.stage.set_clip(name) {
            Ok(()) => {
                self.history.clear();
                self.stepper.reset();
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    pub fn reset(&mut self) {
        self.stage.reset();
        self.history.clear();
        self.stepper.reset();
    }

    /// One fixed step, recorded in the plots.
    pub fn step_once(&mut self) {
        self.stage.step();
        self.history
            .push(self.stage.time(), self.stage.frame_stats());
        let (duration, clip_loops) = self.stage.clip_duration();
        if self.stage.time() >= duration && !clip_loops {
            if self.looping {
                self.stage.reset();
            } else {
                self.playing = false;
            }
        }
    }

    /// Advances the simulation by `elapsed` seconds of wall time (scaled by the speed), in
    /// whole fixed steps, never more than [`MAX_STEPS_PER_FRAME`].
    pub fn advance(&mut self, elapsed: f64) -> u32 {
        let steps = self.stepper.advance(elapsed * self.speed as f64);
        for _ in 0..steps {
            if !self.playing {
                break;
            }
            self.step_once();
        }
        steps
    }

    fn screenshot(&mut self, ctx: &egui::Context) {
        let Some(rect) = self.viewport.rect() else {
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

    fn handle_keys(&mut self, ui: &mut Ui) {
        let typing = ui.ctx().egui_wants_keyboard_input();
        let redo = KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
        let undo = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
        let (do_redo, do_undo) = ui.input_mut(|i| {
            let r = i.consume_shortcut(&redo);
            (r, !r && i.consume_shortcut(&undo))
        });
        if do_redo {
            self.redo();
        }
        if do_undo {
            self.undo();
        }
        if typing {
            return;
        }
        let (space, period, r, f) = ui.input_mut(|i| {
            (
                i.consume_key(Modifiers::NONE, Key::Space),
                i.consume_key(Modifiers::NONE, Key::Period),
                i.consume_key(Modifiers::NONE, Key::R),
                i.consume_key(Modifiers::NONE, Key::F),
            )
        });
        if space {
            self.set_playing(!self.playing);
        }
        if period {
            self.playing = false;
            self.step_once();
        }
        if r {
            self.reset();
        }
        if f {
            self.camera.frame_character(self.stage.character_height());
        }
    }

    fn menu_bar(&mut self, ui: &mut Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| self.file_menu(ui));
            ui.menu_button("Edit", |ui| self.edit_menu(ui));
            ui.menu_button("View", |ui| self.view_menu(ui));
            ui.separator();
            self.preset_picker(ui);
        });
    }

    fn file_menu(&mut self, ui: &mut Ui) {
        ui.menu_button("New from", |ui| {
            for (i, (name, _)) in SHIPPED.iter().enumerate() {
                if ui.button(*name).clicked() {
                    self.guarded(Pending::NewFrom(i));
                }
            }
        });
        if ui.button("Open…").clicked() {
            self.ask_path(false);
        }
        if ui.button("Save").clicked() {
            self.save();
        }
        if ui.button("Save As…").clicked() {
            self.ask_path(true);
        }
        ui.separator();
        if ui.button("Save screenshot (PNG)").clicked() {
            self.screenshot(ui.ctx());
        }
        ui.separator();
        if ui.button("Quit").clicked() {
            // Asks first when there are unsaved changes, as the close button does.
            self.guarded(Pending::Quit);
            if self.allow_close {
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    fn edit_menu(&mut self, ui: &mut Ui) {
        if ui
            .add_enabled(
                self.undo.can_undo(),
                egui::Button::new("Undo").shortcut_text("Ctrl+Z"),
            )
            .clicked()
        {
            self.undo();
        }
        if ui
            .add_enabled(
                self.undo.can_redo(),
                egui::Button::new("Redo").shortcut_text("Ctrl+Shift+Z"),
            )
            .clicked()
        {
            self.redo();
        }
        ui.separator();
        if ui.button("Revert to saved preset").clicked() {
            let before = self.preset.params.clone();
            self.preset.params = self.saved.params.clone();
            if before != self.preset.params {
                self.undo.push(before);
            }
            self.apply_params();
        }
    }

    /// Layers, the fabric look and the camera.
    fn view_menu(&mut self, ui: &mut Ui) {
        let o = &mut self.overlays;
        ui.checkbox(&mut o.body, "Body");
        ui.checkbox(&mut o.jacket, "Jacket");
        ui.checkbox(&mut o.shadows, "Shadows");
        ui.separator();
        ui.checkbox(
            &mut o.sim_mesh,
            "Simulation mesh (stretch blue, shear/bend orange)",
        );
        ui.checkbox(&mut o.edge_particles, "Edge particles");
        ui.checkbox(&mut o.pinned_particles, "Pinned particles");
        ui.checkbox(&mut o.ellipsoids, "Collision ellipsoids");
        ui.checkbox(&mut o.max_distance, "Max-distance spheres");
        ui.checkbox(&mut o.sim_bones, "Bones from the simulation mesh");
        ui.checkbox(&mut o.wind_arrow, "Wind arrow");
        ui.checkbox(&mut o.stretch_heat_map, "Stretch heat map");
        if ui.button("All overlays on").clicked() {
            o.set_all_debug(true);
        }
        if ui.button("All overlays off").clicked() {
            o.set_all_debug(false);
        }
        ui.separator();
        ui.label("Fabric look");
        for look in FabricLook::ALL {
            ui.radio_value(&mut self.look, look, look.label());
        }
        ui.separator();
        let facing = self.stage.root().rotation.to_euler(glam::EulerRot::YXZ).0;
        for (label, view) in [
            ("Front view", crate::render::View::Front),
            ("Side view", crate::render::View::Side),
            ("Back view", crate::render::View::Back),
        ] {
            if ui.button(label).clicked() {
                self.camera.set_view(view, facing);
            }
        }
        if ui.button("Frame character (F)").clicked() {
            self.camera.frame_character(self.stage.character_height());
        }
        ui.checkbox(&mut self.camera.follow, "Camera follows the character");
    }

    /// The preset drop-down: shipped presets on disk and recent files.
    fn preset_picker(&mut self, ui: &mut Ui) {
        let current = self
            .preset_path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_else(|| "(unsaved)".into());
        let mut choice: Option<PathBuf> = None;
        egui::ComboBox::from_label("Preset")
            .selected_text(current)
            .show_ui(ui, |ui| {
                for p in list_presets(&presets_dir()) {
                    let name = p
                        .file_name()
                        .map(|f| f.to_string_lossy().to_string())
                        .unwrap_or_default();
                    if ui
                        .selectable_label(self.preset_path.as_ref() == Some(&p), name)
                        .clicked()
                    {
                        choice = Some(p);
                    }
                }
                if !self.recent.is_empty() {
                    ui.separator();
                    ui.label("Recent");
                    for p in self.recent.clone() {
                        if ui
                            .selectable_label(
                                self.preset_path.as_ref() == Some(&p),
                                p.display().to_string(),
                            )
                            .clicked()
                        {
                            choice = Some(p);
                        }
                    }
                }
            });
        if let Some(p) = choice {
            self.guarded(Pending::Open(p));
        }
    }

    fn playback_bar(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            let clip = self.stage.clip_name().to_string();
            let mut picked = None;
            egui::ComboBox::from_label("Clip")
                .selected_text(&clip)
                .show_ui(ui, |ui| {
                    for name in self.stage.clip_names() {
                        if ui.selectable_label(name == clip, &name).clicked() {
                            picked = Some(name);
                        }
                    }
                });
            if let Some(name) = picked {
                self.set_clip(&name);
            }
            let label = if self.playing { "Pause" } else { "Play" };
            if ui.button(label).on_hover_text("Space").clicked() {
                self.set_playing(!self.playing);
            }
            if ui
                .button("Step")
                .on_hover_text("One fixed step (period key)")
                .clicked()
            {
                self.playing = false;
                self.step_once();
            }
            if ui
                .button("Reset")
                .on_hover_text("Back to the clip start, cloth at rest (R)")
                .clicked()
            {
                self.reset();
            }
            ui.add(
                egui::Slider::new(&mut self.speed, 0.1..=2.0)
                    .text("Speed")
                    .suffix("x")
                    .clamping(egui::SliderClamping::Always),
            );
            ui.checkbox(&mut self.looping, "Loop");
            self.timeline(ui);
            ui.label(format!("{:.0} fps", self.fps));
        });
    }

    fn dialogs(&mut self, ctx: &egui::Context) {
        if let Some(action) = self.pending.clone() {
            let mut answer = None;
            egui::Modal::new(egui::Id::unique("discard")).show(ctx, |ui| {
                ui.heading("Unsaved changes");
                ui.label(format!(
                    "{} has unsaved changes. Discard them?",
                    self.preset.name
                ));
                ui.horizontal(|ui| {
                    if ui.button("Discard").clicked() {
                        answer = Some(true);
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(false);
                    }
                });
            });
            match answer {
                Some(true) => {
                    self.pending = None;
                    self.run_pending(action);
                    if self.allow_close {
                        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    }
                }
                Some(false) => self.pending = None,
                None => {}
            }
        }
        if let Some(mut d) = self.path_dialog.clone() {
            let mut done = None;
            let mut browse = false;
            let title = if d.save {
                "Save preset as"
            } else {
                "Open preset"
            };
            egui::Window::new(title).collapsible(false).show(ctx, |ui| {
                ui.horizontal(|ui| {
                    let label = ui.label("Path");
                    ui.add(egui::TextEdit::singleline(&mut d.text).desired_width(360.0))
                        .labelled_by(label.id);
                });
                ui.horizontal(|ui| {
                    if ui.button(if d.save { "Save" } else { "Open" }).clicked() {
                        done = Some(true);
                    }
                    if ui.button("Browse…").clicked() {
                        browse = true;
                    }
                    if ui.button("Cancel").clicked() {
                        done = Some(false);
                    }
                });
            });
            if browse {
                self.native_pick(d.save);
            }
            match done {
                Some(true) => {
                    self.path_dialog = None;
                    let path = PathBuf::from(d.text.trim());
                    if d.save {
                        self.save_as(&path);
                    } else {
                        self.guarded(Pending::Open(path));
                    }
                }
                Some(false) => self.path_dialog = None,
                None => self.path_dialog = Some(d),
            }
        }
        while let Ok((save, picked)) = self.file_picks.1.try_recv() {
            match picked {
                Some(p) => {
                    self.path_dialog = None;
                    if save {
                        self.save_as(&p);
                    } else {
                        self.guarded(Pending::Open(p));
                    }
                }
                None => {
                    self.status =
                        "No file picked (or no native file dialog here): type the path".into();
                }
            }
        }
        while let Ok(msg) = self.shots.1.try_recv() {
            match msg.strip_prefix("error: ") {
                Some(e) => self.error = Some(e.to_string()),
                None => self.status = msg,
            }
        }
    }

    fn frame_timing(&mut self, ui: &Ui) {
        let now = ui.input(|i| i.time);
        if let Some(last) = self.last_frame {
            let dt = now - last;
            if dt > 0.0 && dt.is_finite() {
                let inst = 1.0 / dt;
                self.fps = if self.fps == 0.0 {
                    inst
                } else {
                    self.fps * 0.9 + inst * 0.1
                };
                if self.playing {
                    self.advance(dt);
                }
            }
        }
        self.last_frame = Some(now);
        if self.report_fps && now - self.fps_report_at > 3.0 {
            self.fps_report_at = now;
            eprintln!("cloth-tuner: {:.1} fps", self.fps);
        }
    }
}

impl eframe::App for App {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        if ctx.input(|i| i.viewport().close_requested()) && self.is_dirty() && !self.allow_close {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.pending = Some(Pending::Quit);
        }
        self.frame_timing(ui);
        self.handle_keys(ui);

        egui::Panel::top("menu").show(ui, |ui| self.menu_bar(ui));
        egui::Panel::bottom("status").show(ui, |ui| {
            ui.horizontal(|ui| {
                if let Some(e) = &self.error {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                    if ui.small_button("Dismiss").clicked() {
                        self.error = None;
                    }
                } else {
                    ui.label(&self.status);
                }
            });
        });
        egui::Panel::bottom("playback")
            .resizable(true)
            .default_size(210.0)
            .show(ui, |ui| {
                self.playback_bar(ui);
                ui.separator();
                self.history.ui(ui);
            });
        egui::Panel::left("params")
            .resizable(true)
            .default_size(360.0)
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    let label = ui.label("Name");
                    ui.text_edit_singleline(&mut self.preset.name)
                        .labelled_by(label.id);
                });
                ui.horizontal(|ui| {
                    ui.label("Garment");
                    let before = self.preset.garment;
                    for g in Garment::ALL {
                        ui.radio_value(&mut self.preset.garment, g, g.as_str());
                    }
                    if self.preset.garment != before {
                        self.stage.set_garment(self.preset.garment);
                        self.history.clear();
                    }
                });
                ui.separator();
                egui::ScrollArea::vertical().show(ui, |ui| {
                    let before = self.preset.params.clone();
                    let reset_one = params_panel(ui, &mut self.preset.params, &self.saved.params);
                    let after = self.preset.params.clone();
                    if reset_one {
                        self.undo.push(before.clone());
                    } else {
                        let down = ui.input(|i| i.pointer.any_down());
                        self.undo.track(&before, &after, down);
                    }
                    if before != after {
                        self.apply_params();
                    }
                });
            });
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| {
                let data = self.viewport.snapshot(self.stage.scene(), self.look);
                self.viewport
                    .ui(ui, &mut self.camera, &self.overlays, data, &mut self.stage);
            });

        self.dialogs(&ctx);
        self.recovery_frame(&ctx);

        let title = self.window_title();
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        if self.playing {
            ctx.request_repaint();
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        let p = Persisted {
            preset_path: self.preset_path.clone(),
            recent: self.recent.clone(),
            camera: self.camera.clone(),
            overlays: self.overlays.clone(),
            clip: self.stage.clip_name().to_string(),
            speed: self.speed,
            looping: self.looping,
        };
        eframe::set_value(storage, STORAGE_KEY, &p);
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.clean_exit();
    }
}

/// Shipped preset `i` (the tweed when out of range).
pub fn shipped(i: usize) -> Preset {
    let (name, text) = SHIPPED.get(i).copied().unwrap_or(SHIPPED[0]);
    // The shipped presets are checked by the test suite; fall back to defaults anyway.
    Preset::from_json(text, Path::new(name)).unwrap_or_default()
}

fn look_key(preset: &Preset, path: Option<&Path>) -> String {
    let file = path
        .and_then(|p| p.file_stem())
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default();
    format!("{} {}", preset.name, file)
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
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
        assert_eq!(names, ["down_jacket.json", "tweed.json", "veil.json"]);
    }
}
