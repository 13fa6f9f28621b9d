//! The Garment window (File > Open garment…): pick a skinned mesh of the character's file or of
//! a glTF file of its own for the character to wear, then see the grid over it (the simulation
//! mesh overlay), change its rows, columns, pin line and seam live, read the binding error, and
//! save the grid settings beside the garment. Like the other panels it pushes [`Command`]s; the
//! typed path, the mesh picked and the grid being edited are its own state.

use std::path::{Path, PathBuf};

use eframe::egui::{self, Ui};

use super::command::Command;
use super::wear::{GarmentRef, Worn};
use super::{App, FileTask};
use crate::character::Character;
use crate::garment::imported::{GridChoice, ImportedGarment, Seam};
use crate::garment::settings::{COLS_RANGE, PIN_RANGE_M, ROWS_RANGE};
use crate::render::Overlays;
use crate::scene::Scene;

/// The Garment window's own state.
#[derive(Clone, Debug, Default)]
pub struct GarmentEditor {
    pub open: bool,
    /// Where the meshes are listed from: a file of its own (`true`, at `path`) or the
    /// character's file.
    pub own_file: bool,
    pub path: String,
    /// The skinned meshes of the file listed last (or why it could not be read), and that file.
    listed: Option<(PathBuf, Result<Vec<String>, String>)>,
    pub mesh: String,
    /// The grid being edited (applied when a slider is let go).
    pub choice: GridChoice,
    /// Why the last garment could not be worn or its settings saved.
    pub problem: Option<String>,
    /// The largest binding error seen since the garment was last laid, metres.
    worst_binding_m: f32,
}

impl GarmentEditor {
    /// Follows the garment now worn (`None`: the template).
    pub(super) fn on_worn(&mut self, worn: Option<&Worn>) {
        self.worst_binding_m = 0.0;
        if let Some(w) = worn {
            self.choice = w.choice.clone();
            self.mesh = w.built.name().to_string();
            self.own_file = w.garment.file.is_some();
            if let Some(f) = &w.garment.file {
                self.path = f.display().to_string();
            }
            self.problem = None;
        }
    }

    /// The file whose meshes are listed: the typed one, or the character's.
    fn source(&self, character: Option<&Path>) -> Option<PathBuf> {
        if self.own_file {
            let p = self.path.trim();
            (!p.is_empty()).then(|| PathBuf::from(p))
        } else {
            character.map(Path::to_path_buf)
        }
    }

    /// Reads the meshes of `file` unless they were read from it last.
    fn list(&mut self, file: &Path) {
        if self.listed.as_ref().is_some_and(|(f, _)| f == file) {
            return;
        }
        // A file of its own may hold only the garment; the character's holds the body too.
        let meshes = if self.own_file {
            Character::skinned_mesh_names(file)
        } else {
            Character::garment_mesh_names(file)
        };
        let meshes = meshes.map_err(|e| e.to_string());
        if let Ok(names) = &meshes {
            if !names.contains(&self.mesh) {
                self.mesh = names.first().cloned().unwrap_or_default();
            }
        }
        self.listed = Some((file.to_path_buf(), meshes));
    }

    /// Lists the meshes of the file at `path` (after Browse… picked it).
    pub(super) fn set_file(&mut self, path: &Path) {
        self.own_file = true;
        self.path = path.display().to_string();
        self.listed = None;
        self.list(path);
    }

    /// The Garment window.
    fn ui(&mut self, ctx: &egui::Context, app: &PanelView, out: &mut Vec<Command>) {
        let mut open = true;
        egui::Window::new("Garment")
            .id(egui::Id::unique("garment window"))
            .open(&mut open)
            .default_width(430.0)
            .show(ctx, |ui| {
                self.picker(ui, app, out);
                if let Some(p) = &self.problem {
                    ui.colored_label(ui.visuals().error_fg_color, p);
                }
                if let Some(g) = app.built {
                    ui.separator();
                    self.grid_controls(ui, g, app, out);
                }
            });
        if !open {
            out.push(Command::ShowGarment(false));
        }
    }

    /// Where the garment comes from, which mesh, and Wear / Back to the template.
    fn picker(&mut self, ui: &mut Ui, app: &PanelView, out: &mut Vec<Command>) {
        let Some(character) = app.character else {
            ui.label(
                "The built-in character wears the preset's templates only: open your glTF \
                 character (File > Open character…) to wear your own garment.",
            );
            return;
        };
        ui.horizontal(|ui| {
            ui.radio_value(&mut self.own_file, false, "In the character's file")
                .on_hover_text(format!(
                    "A skinned mesh of {} other than the body",
                    character.display()
                ));
            ui.radio_value(&mut self.own_file, true, "A file of its own")
                .on_hover_text(
                    "A glTF 2.0 file (.glb, or .gltf with its buffers) skinned to the same \
                     skeleton: joints matched by name, bind pose within 1 cm of the body's",
                );
        });
        if self.own_file {
            ui.horizontal(|ui| {
                ui.add(egui::TextEdit::singleline(&mut self.path).hint_text("garment .glb/.gltf"))
                    .labelled_by(ui.label("Path").id);
                if ui.button("Browse…").clicked() {
                    out.push(Command::Browse(FileTask::OpenGarment));
                }
            });
        }
        let Some(file) = self.source(Some(character)) else {
            return;
        };
        if ui.button("List meshes").clicked() {
            self.listed = None;
        }
        self.list(&file);
        self.mesh_list(ui, &file, out);
        if app.built.is_some() && ui.button("Back to the template").clicked() {
            out.push(Command::TakeOffGarment);
        }
    }

    /// The file's skinned meshes to pick from, and Wear.
    fn mesh_list(&mut self, ui: &mut Ui, file: &Path, out: &mut Vec<Command>) {
        let names = match self.listed.as_ref().map(|(_, m)| m) {
            Some(Ok(names)) => names.clone(),
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                return;
            }
            None => return,
        };
        if names.is_empty() {
            ui.label(format!(
                "{} has no skinned mesh but the body: give the garment's own file",
                file.display()
            ));
            return;
        }
        egui::ComboBox::from_label("Mesh")
            .selected_text(self.mesh.as_str())
            .show_ui(ui, |ui| {
                for n in &names {
                    ui.selectable_value(&mut self.mesh, n.clone(), n);
                }
            });
        let wear = ui.button("Wear").on_hover_text(
            "The character wears this mesh: its lower part becomes the simulation grid and the \
             cloth bones, the rest stays on the body's bones. The fabric preset does not change.",
        );
        if wear.clicked() {
            out.push(Command::WearGarment(GarmentRef {
                file: self.own_file.then(|| file.to_path_buf()),
                mesh: self.mesh.clone(),
            }));
        }
    }

    /// The grid found on the garment and the knobs that lay it.
    fn grid_controls(
        &mut self,
        ui: &mut Ui,
        g: &ImportedGarment,
        app: &PanelView,
        out: &mut Vec<Command>,
    ) {
        let grid = g.grid();
        ui.label(format!(
            "Grid: {} rows × {} columns, {}; pin line {:.2} m, hem {:.2} m",
            grid.rows,
            grid.cols,
            if grid.closed {
                "closed (a loop)"
            } else {
                "open"
            },
            grid.pin_height,
            grid.hem_height
        ));
        self.binding_figures(ui, g, app.scene);
        let mut shown = app.overlays.sim_mesh;
        if ui
            .checkbox(&mut shown, "Show the grid over the garment")
            .on_hover_text("The simulation mesh overlay: stretch links blue, shear/bend orange")
            .changed()
        {
            let mut o = app.overlays.clone();
            o.sim_mesh = shown;
            out.push(Command::SetOverlays(o));
        }
        let mut c = self.choice.clone();
        let mut let_go = false;
        let_go |= count_knob(ui, "Rows", &mut c.rows, grid.rows, ROWS_RANGE, ROWS_TIP);
        let_go |= count_knob(ui, "Columns", &mut c.cols, grid.cols, COLS_RANGE, COLS_TIP);
        let_go |= pin_knob(ui, &mut c.pin_height_m, grid.pin_height);
        let_go |= seam_knobs(ui, &mut c);
        self.choice = c;
        // A slider's display rounding is no change: only a grid other than the one laid is.
        if let_go && Some(&self.choice) != app.choice {
            out.push(Command::SetGridChoice(self.choice.clone()));
        }
        settings_buttons(ui, app, out);
    }

    /// The binding error of the frame shown and the largest since the grid was laid.
    fn binding_figures(&mut self, ui: &mut Ui, g: &ImportedGarment, scene: &Scene) {
        if !scene.is_skinned() {
            ui.label("Binding error: measured on the garment as drawn (the 3D view is off)");
            return;
        }
        let (sum, n, max) = g.binding_error(scene.cloth().positions(), scene.jacket().positions);
        if n == 0 {
            return;
        }
        self.worst_binding_m = self.worst_binding_m.max(max);
        let rms = (sum / n as f64).sqrt() * 1000.0;
        ui.label(format!(
            "Binding error: rms {rms:.1} mm, max {:.1} mm this frame; max {:.1} mm since laid",
            max * 1000.0,
            self.worst_binding_m * 1000.0
        ))
        .on_hover_text(
            "How far the garment skinned to the cloth bones lies from the simulated grid's \
             surface: what an engine that drives the bones shows. simulate --json reports it \
             over a whole clip (binding_rms_mm, binding_max_mm).",
        );
    }
}

const ROWS_TIP: &str = "Rows of particles from the pin line to the hem: more follow the \
                        garment's folds more closely and cost more per frame. Auto: from the \
                        target spacing (the built-in jacket's, 7.3 cm).";
const COLS_TIP: &str = "Columns of particles round the body (odd: the grid has a middle \
                        column): more give rounder hems and cost more. Auto: from the target \
                        spacing.";

/// An `Auto` checkbox and a slider for a count found from the garment when auto (`found`).
/// Whether the artist let go of it (the grid is laid again then).
fn count_knob(
    ui: &mut Ui,
    label: &str,
    value: &mut Option<usize>,
    found: usize,
    (lo, hi): (usize, usize),
    tip: &str,
) -> bool {
    ui.horizontal(|ui| {
        let mut auto = value.is_none();
        let toggled = ui.checkbox(&mut auto, "Auto").changed();
        let mut n = value.unwrap_or(found);
        let r = ui
            .add_enabled(
                !auto,
                egui::Slider::new(&mut n, lo..=hi)
                    .text(label)
                    .clamping(egui::SliderClamping::Always),
            )
            .on_hover_text(tip);
        *value = (!auto).then_some(n);
        toggled || r.drag_stopped() || (r.changed() && !r.dragged())
    })
    .inner
}

/// The pin line's height, metres, auto or set.
fn pin_knob(ui: &mut Ui, value: &mut Option<f32>, found: f32) -> bool {
    ui.horizontal(|ui| {
        let mut auto = value.is_none();
        let toggled = ui.checkbox(&mut auto, "Auto").changed();
        let mut h = value.unwrap_or(found);
        let r = ui
            .add_enabled(
                !auto,
                egui::Slider::new(&mut h, PIN_RANGE_M.0..=PIN_RANGE_M.1)
                    .text("Pin line")
                    .suffix(" m")
                    .fixed_decimals(2)
                    .clamping(egui::SliderClamping::Always),
            )
            .on_hover_text(
                "Height where the cloth hangs from: above it the garment stays on the body's \
                 bones, below it the simulation swings it. Lower keeps more of the garment \
                 tight to the body. Auto: where the garment leaves the chest and shoulders.",
            );
        *value = (!auto).then_some(h);
        toggled || r.drag_stopped() || (r.changed() && !r.dragged())
    })
    .inner
}

/// Open, closed or found, and where round the body the seam lies.
fn seam_knobs(ui: &mut Ui, c: &mut GridChoice) -> bool {
    let before = c.seam;
    egui::ComboBox::from_label("Seam")
        .selected_text(match c.seam {
            Seam::Auto => "Auto",
            Seam::Open => "Open",
            Seam::Closed => "Closed",
        })
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut c.seam, Seam::Auto, "Auto")
                .on_hover_text("Open where the hem has a gap wider than 25°, else closed");
            ui.selectable_value(&mut c.seam, Seam::Open, "Open")
                .on_hover_text("A coat's front opening: its edges swing free");
            ui.selectable_value(&mut c.seam, Seam::Closed, "Closed")
                .on_hover_text("A skirt: a loop, its seam welded every step");
        });
    let mut changed = c.seam != before;
    ui.horizontal(|ui| {
        let mut auto = c.seam_at_deg.is_none();
        changed |= ui.checkbox(&mut auto, "Auto").changed();
        let mut at = c.seam_at_deg.unwrap_or(0.0);
        let r = ui
            .add_enabled(
                !auto,
                egui::Slider::new(&mut at, -180.0..=180.0)
                    .text("Seam at")
                    .suffix("°")
                    .fixed_decimals(0),
            )
            .on_hover_text(
                "Where round the body the seam's middle lies: 0° the front, 90° the \
                 character's left, 180° the back. Auto: the opening's middle, or the back for a \
                 closed garment.",
            );
        c.seam_at_deg = (!auto).then_some(at);
        changed |= r.drag_stopped() || (r.changed() && !r.dragged());
    });
    changed
}

/// Save / Revert of the settings file, with its path.
fn settings_buttons(ui: &mut Ui, app: &PanelView, out: &mut Vec<Command>) {
    let dirty = if app.dirty { " (unsaved)" } else { "" };
    if let Some(path) = &app.settings_path {
        ui.label(format!("Settings: {}{dirty}", path.display()))
            .on_hover_text(
                "The grid settings for this garment (docs/your-garment.md); simulate and the \
                 other commands read the same file. Never part of the fabric preset.",
            );
    }
    ui.horizontal(|ui| {
        if ui.button("Save").clicked() {
            out.push(Command::SaveGarmentSettings);
        }
        let revert = ui.add_enabled(app.dirty, egui::Button::new("Revert"));
        if revert
            .on_hover_text("Back to the settings in the file")
            .clicked()
        {
            out.push(Command::RevertGarmentSettings);
        }
    });
}

/// What the Garment window reads of the app.
struct PanelView<'a> {
    character: Option<&'a Path>,
    built: Option<&'a ImportedGarment>,
    scene: &'a Scene,
    overlays: &'a Overlays,
    settings_path: Option<PathBuf>,
    dirty: bool,
    /// The grid settings the garment worn was laid with.
    choice: Option<&'a GridChoice>,
}

impl App {
    /// The Garment window, while it is open.
    pub(super) fn garment_window(&mut self, ctx: &egui::Context, out: &mut Vec<Command>) {
        if !self.garment_editor.open {
            return;
        }
        let view = PanelView {
            character: self.character_path.as_deref(),
            built: self.worn.as_ref().map(|w| &*w.built),
            scene: self.playback.scene(),
            overlays: &self.view.overlays,
            settings_path: self.worn.as_ref().map(Worn::settings_path),
            dirty: self.garment_settings_dirty(),
            choice: self.worn.as_ref().map(|w| &w.choice),
        };
        self.garment_editor.ui(ctx, &view, out);
    }

    /// The Garment window's state, for tests and tools.
    pub fn garment_editor(&self) -> &GarmentEditor {
        &self.garment_editor
    }

    /// The Garment window's state, for tests and tools.
    pub fn garment_editor_mut(&mut self) -> &mut GarmentEditor {
        &mut self.garment_editor
    }
}
