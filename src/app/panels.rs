//! The window's panels and keys: menu bar, status bar, playback bar with the plots, the
//! parameter panel and the 3D viewport. Each reads the app and pushes [`Command`]s; nothing
//! here changes the document or the playback.

use std::path::PathBuf;

use eframe::egui;
use egui::{Key, KeyboardShortcut, Modifiers, Ui};

use super::command::Command;
use super::playback::SPEED_RANGE;
use super::viewport::Pickable;
use super::{list_presets, paint, params_panel, presets_dir, timeline, App, FileTask, SHIPPED};
use crate::export::Engine;
use crate::preset::{Garment, Look, Pattern};

impl App {
    /// Every panel of the window, in the order egui lays them out.
    pub(super) fn panels(&mut self, ui: &mut Ui, out: &mut Vec<Command>) {
        self.keys(ui, out);
        // The panels' fill is the colour the window is cleared to (`App::clear_color`), so
        // they paint no background of their own: on a software renderer such a fill is half
        // the window's pixels blended again every frame.
        let bare = egui::Frame::side_top_panel(ui.style()).fill(egui::Color32::TRANSPARENT);
        egui::Panel::top("menu")
            .frame(bare)
            .show(ui, |ui| self.menu_bar(ui, out));
        egui::Panel::bottom("status")
            .frame(bare)
            .show(ui, |ui| self.status_bar(ui, out));
        egui::Panel::bottom("playback")
            .frame(bare)
            .resizable(true)
            .default_size(210.0)
            .show(ui, |ui| {
                self.playback_bar(ui, out);
                ui.separator();
                self.playback.history.ui(ui);
            });
        egui::Panel::left("params")
            .frame(bare)
            .resizable(true)
            .default_size(360.0)
            .show(ui, |ui| self.params_side(ui, out));
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| self.viewport(ui, out));
    }

    fn keys(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        let redo = KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
        let undo = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
        ui.input_mut(|i| {
            if i.consume_shortcut(&redo) {
                out.push(Command::Redo);
            } else if i.consume_shortcut(&undo) {
                out.push(Command::Undo);
            }
        });
        if ui.ctx().egui_wants_keyboard_input() {
            return;
        }
        for (key, command) in [
            (Key::Space, Command::TogglePlay),
            (Key::Period, Command::Step),
            (Key::R, Command::Reset),
            (Key::F, Command::FrameCharacter),
            (Key::X, Command::SwapCompare),
        ] {
            if ui.input_mut(|i| i.consume_key(Modifiers::NONE, key)) {
                out.push(command);
            }
        }
    }

    fn menu_bar(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                file_menu(ui, self.character_path.is_some(), out)
            });
            ui.menu_button("Edit", |ui| self.edit_menu(ui, out));
            ui.menu_button("View", |ui| self.view.menu(ui, out));
            ui.menu_button("Compare", |ui| self.compare_menu(ui, out));
            ui.menu_button("Tools", |ui| self.tools_menu(ui, out));
            ui.separator();
            self.preset_picker(ui, out);
        });
    }

    fn edit_menu(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        let history = self.doc.undo_history();
        let undo = egui::Button::new("Undo").shortcut_text("Ctrl+Z");
        if ui.add_enabled(history.can_undo(), undo).clicked() {
            out.push(Command::Undo);
        }
        let redo = egui::Button::new("Redo").shortcut_text("Ctrl+Shift+Z");
        if ui.add_enabled(history.can_redo(), redo).clicked() {
            out.push(Command::Redo);
        }
        ui.separator();
        if ui.button("Revert to saved preset").clicked() {
            out.push(Command::RevertToSaved);
        }
    }

    /// The preset drop-down: shipped presets on disk and recent files.
    fn preset_picker(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        let open = self.doc.path();
        let current = open
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
                    if ui.selectable_label(open == Some(&p), name).clicked() {
                        choice = Some(p);
                    }
                }
                if !self.doc.recent().is_empty() {
                    ui.separator();
                    ui.label("Recent");
                    for p in self.doc.recent() {
                        let label = p.display().to_string();
                        if ui.selectable_label(open == Some(p), label).clicked() {
                            choice = Some(p.clone());
                        }
                    }
                }
            });
        if let Some(p) = choice {
            out.push(Command::Open(p));
        }
    }

    fn status_bar(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        ui.horizontal(|ui| match &self.error {
            Some(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
                if ui.small_button("Dismiss").clicked() {
                    out.push(Command::DismissError);
                }
            }
            None => {
                ui.label(&self.status);
            }
        });
    }

    fn playback_bar(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        let playback = &self.playback;
        ui.horizontal(|ui| {
            let clip = playback.scene().clip_name();
            egui::ComboBox::from_label("Clip")
                .selected_text(clip)
                .show_ui(ui, |ui| {
                    for name in playback.scene().clip_names() {
                        if ui.selectable_label(name == clip, &name).clicked() {
                            out.push(Command::SetClip(name));
                        }
                    }
                });
            let label = if playback.is_playing() {
                "Pause"
            } else {
                "Play"
            };
            if ui.button(label).on_hover_text("Space").clicked() {
                out.push(Command::TogglePlay);
            }
            let step = ui
                .button("Step")
                .on_hover_text("One fixed step (period key)");
            if step.clicked() {
                out.push(Command::Step);
            }
            let reset = ui
                .button("Reset")
                .on_hover_text("Back to the clip start, cloth at rest (R)");
            if reset.clicked() {
                out.push(Command::Reset);
            }
            let mut speed = playback.speed;
            ui.add(
                egui::Slider::new(&mut speed, SPEED_RANGE)
                    .text("Speed")
                    .suffix("x")
                    .clamping(egui::SliderClamping::Always),
            );
            if speed != playback.speed {
                out.push(Command::SetSpeed(speed));
            }
            let mut looping = playback.looping;
            if ui.checkbox(&mut looping, "Loop").changed() {
                out.push(Command::SetLooping(looping));
            }
            timeline::timeline(playback, ui, out);
            ui.label(format!("{:.0} fps", self.view.fps.fps()));
            let scene = playback.scene();
            if scene.params().tear_ratio > 0.0 {
                ui.label(format!("{} torn links", scene.cloth().torn_count()))
                    .on_hover_text("Links torn since the clip start (Reset mends them)");
            }
        });
    }

    /// The left panel: the preset's name, its garment and every knob.
    fn params_side(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        let preset = &self.doc.preset;
        ui.horizontal(|ui| {
            let label = ui.label("Name");
            let mut name = preset.name.clone();
            ui.text_edit_singleline(&mut name).labelled_by(label.id);
            if name != preset.name {
                out.push(Command::Rename(name));
            }
        });
        ui.horizontal(|ui| {
            ui.label("Garment");
            let mut garment = preset.garment;
            for g in Garment::ALL {
                ui.radio_value(&mut garment, g, g.as_str());
            }
            if garment != preset.garment {
                out.push(Command::SetGarment(garment));
            }
        });
        look_editor(ui, &preset.look, out);
        super::fold_panel::fold_lines_ui(ui, &preset.fold_lines, preset.garment, out);
        ui.separator();
        egui::ScrollArea::vertical().show(ui, |ui| {
            let map = preset.max_distance_map.as_ref();
            match paint::paint_panel(ui, &self.view.brush, map) {
                Some(paint::PaintAction::Brush(b)) => out.push(Command::SetBrush(b)),
                Some(paint::PaintAction::Clear) => out.push(Command::ClearPaint),
                None => {}
            }
            let mut params = preset.params.clone();
            let area = crate::sim::mass::rest_area_m2(self.playback.scene().cloth().topology());
            let reset_one = params_panel(ui, &mut params, &self.doc.saved().params, area);
            if reset_one || params != preset.params {
                let pointer_down = ui.input(|i| i.pointer.any_down());
                out.push(Command::EditParams {
                    params,
                    reset_one,
                    pointer_down,
                });
            }
        });
    }

    /// The 3D view. Moving the camera is the view's own interaction and happens here; poking
    /// the cloth is a command.
    fn viewport(&mut self, ui: &mut Ui, out: &mut Vec<Command>) {
        let other = self.other_view(self.view.compare_mode);
        let scene = self.playback.scene_mut();
        let view = &mut self.view;
        let snapshot = view.viewport.snapshot(scene, self.doc.preset.look);
        view.viewport.set_quality(view.quality);
        view.viewport.painting = view.brush.on;
        // While painting, the spheres show what is being painted.
        let mut overlays = view.overlays.clone();
        overlays.max_distance |= view.brush.on;
        view.viewport.ui(
            ui,
            &mut view.camera,
            &overlays,
            (snapshot, other),
            Pickable::of(scene),
            out,
        );
    }
}

/// The preset's look: weave, colour and sheerness (how the fabric is drawn, not how it
/// moves).
fn look_editor(ui: &mut Ui, look: &Look, out: &mut Vec<Command>) {
    let mut l = *look;
    ui.horizontal(|ui| {
        ui.label("Look").on_hover_text(
            "How the fabric is drawn in the tuner and in pictures; saved in the preset. It does \
             not change how the fabric moves.",
        );
        for p in Pattern::ALL {
            ui.radio_value(&mut l.pattern, p, p.as_str());
        }
        ui.color_edit_button_srgb(&mut l.colour.0)
            .on_hover_text("The yarn's colour in light; the weave's threads are shaded from it");
        ui.menu_button("Shipped", |ui| {
            for (name, shipped) in Look::SHIPPED {
                if ui.button(name).clicked() {
                    l = shipped;
                }
            }
        });
    });
    ui.add(
        egui::Slider::new(&mut l.sheerness, 0.0..=1.0)
            .text("Sheerness")
            .custom_formatter(|v, _| format!("{:.0} %", v * 100.0))
            .custom_parser(|s| {
                s.trim()
                    .trim_end_matches('%')
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .map(|v| v / 100.0)
            }),
    )
    .on_hover_text(
        "How see-through the fabric is: 0 % opaque; above 0 it is drawn blended and from both \
         sides (a net's holes let through more than its threads). Range 0 to 100 %.",
    );
    if l != *look {
        out.push(Command::SetLook(l));
    }
}

fn file_menu(ui: &mut Ui, imported: bool, out: &mut Vec<Command>) {
    ui.menu_button("New from", |ui| {
        for (i, (name, _)) in SHIPPED.iter().enumerate() {
            if ui.button(*name).clicked() {
                out.push(Command::NewFrom(i));
            }
        }
    });
    for (label, command) in [
        ("Open…", Command::AskPath(FileTask::OpenPreset)),
        ("Save", Command::Save),
        ("Save As…", Command::AskPath(FileTask::SavePreset)),
    ] {
        if ui.button(label).clicked() {
            out.push(command);
        }
    }
    ui.separator();
    let open_character = ui.button("Open character…").on_hover_text(
        "Play the fabric on your own glTF 2.0 humanoid (.glb or .gltf): its animations join \
         the clip list. A bone map and ellipsoid scales are read from \
         <name>.cloth-character.json beside it (docs/character-settings.md).",
    );
    if open_character.clicked() {
        out.push(Command::AskPath(FileTask::OpenCharacter));
    }
    if ui.button("Built-in character").clicked() {
        out.push(Command::OpenCharacter(None));
    }
    let settings = ui
        .add_enabled(imported, egui::Button::new("Character settings…"))
        .on_hover_text(
            "Which bone plays each body part, and the size of the collision ellipsoids, for \
             the glTF character playing; saved beside it",
        )
        .on_disabled_hover_text("The built-in character has none: open a glTF character");
    if settings.clicked() {
        out.push(Command::ShowCharacterSettings);
    }
    let garment = ui.button("Open garment…").on_hover_text(
        "Dress the glTF character in your own garment: a skinned mesh of its file or of a \
         file of its own. Its lower part becomes the simulation grid and the cloth bones \
         (docs/your-garment.md).",
    );
    if garment.clicked() {
        out.push(Command::ShowGarment(true));
    }
    ui.separator();
    ui.menu_button("Export for engine", |ui| {
        for engine in Engine::ALL {
            let item = ui.button(engine.label()).on_hover_text(format!(
                "The closest settings {} can take ({}), the per-particle table beside them, and \
                 the knobs that do not carry over",
                engine.info().engine,
                engine.info().version
            ));
            if item.clicked() {
                out.push(Command::AskPath(FileTask::ExportFor(engine)));
            }
        }
    });
    let rigged = ui.button("Export rigged garment…").on_hover_text(
        "The garment worn with its cloth bones and their weights, the body, the grid and this \
         fabric as one glTF binary for an engine or a DCC tool (docs/engines.md, The rigged \
         garment)",
    );
    if rigged.clicked() {
        out.push(Command::AskPath(FileTask::ExportRigged));
    }
    let bake = ui.button("Bake clips…").on_hover_text(
        "The rigged garment with the clips you choose baked to keyframes of the body and cloth \
         bones, for an engine that plays animation instead of simulating (docs/engines.md)",
    );
    if bake.clicked() {
        out.push(Command::ShowBake(true));
    }
    ui.separator();
    if ui.button("Save screenshot (PNG)").clicked() {
        out.push(Command::Screenshot);
    }
    ui.separator();
    if ui.button("Quit").clicked() {
        // Asks first when there are unsaved changes, as the close button does.
        out.push(Command::Quit);
    }
}
