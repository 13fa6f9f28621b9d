//! A/B: a second preset played beside the one being tuned, on the same character, clip, time,
//! camera and playback. The knobs edit one of the two (always the app's document and the
//! playback's first scene); the swap key hands them to the other while A stays on the left.
//! A table puts the two presets' `simulate` metrics side by side, measured on a background
//! thread whenever either preset or the clip changed.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};

use eframe::egui;
use serde::{Deserialize, Serialize};

use super::command::Command;
use super::document::Document;
use super::viewport::{OtherView, Snapshot};
use super::App;
use crate::preset::Preset;
use crate::scene::metrics::{simulate, Metrics};
use crate::scene::Scene;

/// Simulated seconds behind the metrics table (`simulate`'s default, so the numbers match).
pub const METRICS_SECONDS: f64 = 6.0;

/// How the viewport shows B.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompareMode {
    /// The viewport split in two, A on the left.
    #[default]
    SideBySide,
    /// The preset not being edited drawn as a see-through blue jacket over the other.
    Ghost,
}

/// The comparison under way.
pub struct Compare {
    /// The preset the knobs do not edit now, with its file and undo history.
    pub(super) other: Document,
    /// The knobs edit B (the swap key was pressed an odd number of times).
    pub(super) editing_b: bool,
    pub(super) table_open: bool,
    measure: Measure,
}

/// The metrics table's measurement.
#[derive(Default)]
struct Measure {
    /// What was measured (or is being measured): A's and B's presets and the clip.
    key: Option<(Preset, Preset, String)>,
    running: Option<Receiver<Result<[Metrics; 2], String>>>,
    result: Option<Result<[Metrics; 2], String>>,
}

/// One row of the metrics table: label, unit, the value, decimals.
type Row = (
    &'static str,
    &'static str,
    fn(&Metrics) -> Option<f64>,
    usize,
);

/// The table's rows: what an artist compares two fabrics by.
const ROWS: [Row; 10] = [
    (
        "hem swing, peak",
        "cm",
        |m| Some(m.hem_swing_peak_cm as f64),
        1,
    ),
    (
        "hem swing, RMS",
        "cm",
        |m| Some(m.hem_swing_rms_cm as f64),
        1,
    ),
    ("settle time", "s", |m| m.settle_time_s, 2),
    (
        "edge / interior motion",
        "",
        |m| Some(m.edge_interior_motion_ratio as f64),
        2,
    ),
    (
        "horizontal stretch, max",
        "%",
        |m| Some(m.max_horizontal_stretch_pct as f64),
        1,
    ),
    (
        "vertical stretch, max",
        "%",
        |m| Some(m.max_vertical_stretch_pct as f64),
        2,
    ),
    (
        "deepest penetration",
        "cm",
        |m| Some(m.max_penetration_cm as f64),
        2,
    ),
    (
        "at max distance",
        "%",
        |m| Some(m.max_distance_saturation_pct as f64),
        1,
    ),
    ("resets", "", |m| Some(m.resets as f64), 0),
    ("jacket frame, median", "µs", |m| Some(m.frame_median_us), 0),
];

impl Compare {
    /// A and B's presets, in that order.
    fn presets<'a>(&'a self, edited: &'a Preset) -> [&'a Preset; 2] {
        if self.editing_b {
            [self.other.preset(), edited]
        } else {
            [edited, self.other.preset()]
        }
    }

    /// Takes a finished measurement; starts a new one when the presets or the clip changed
    /// since the last (never while a slider is held, so a drag measures once at its end).
    fn measure(&mut self, edited: &Preset, scene: &Scene, pointer_down: bool) {
        if let Some(rx) = &self.measure.running {
            match rx.try_recv() {
                Ok(r) => {
                    self.measure.result = Some(r);
                    self.measure.running = None;
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => return,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    self.measure.result = Some(Err("the measurement stopped".into()));
                    self.measure.running = None;
                }
            }
        }
        let [a, b] = self.presets(edited);
        let key = (a.clone(), b.clone(), scene.clip_name().to_string());
        if pointer_down || self.measure.key.as_ref() == Some(&key) {
            return;
        }
        let (tx, rx) = channel();
        let character = scene.character_arc().clone();
        let job = key.clone();
        std::thread::spawn(move || {
            let (a, b, clip) = &job;
            let (ma, mb) = rayon::join(
                || simulate(character.clone(), a, clip, METRICS_SECONDS),
                || simulate(character.clone(), b, clip, METRICS_SECONDS),
            );
            let both = ma.and_then(|a| Ok([a, mb?])).map_err(|e| e.to_string());
            let _ = tx.send(both);
        });
        self.measure = Measure {
            key: Some(key),
            running: Some(rx),
            result: self.measure.result.take(),
        };
    }

    /// The A/B metrics window: a row per metric, A, B and B's difference; it starts at the
    /// viewport's bottom right corner, clear of the characters.
    fn table(
        &self,
        ctx: &egui::Context,
        corner: egui::Pos2,
        labels: &[String; 2],
        out: &mut Vec<Command>,
    ) {
        let mut open = true;
        egui::Window::new("A/B metrics")
            .open(&mut open)
            .pivot(egui::Align2::RIGHT_BOTTOM)
            .default_pos(corner - egui::vec2(10.0, 34.0))
            .show(ctx, |ui| {
                ui.label(format!(
                    "{METRICS_SECONDS} s of each preset on this clip, as `cloth-tuner simulate` measures it"
                ));
                if self.measure.running.is_some() {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("measuring…");
                    });
                }
                match &self.measure.result {
                    Some(Ok(m)) => metrics_grid(ui, labels, m),
                    Some(Err(e)) => {
                        ui.colored_label(ui.visuals().error_fg_color, e);
                    }
                    None => {}
                }
            });
        if !open {
            out.push(Command::ShowCompareTable(false));
        }
    }
}

fn metrics_grid(ui: &mut egui::Ui, labels: &[String; 2], m: &[Metrics; 2]) {
    egui::Grid::new("ab_metrics")
        .striped(true)
        .num_columns(4)
        .show(ui, |ui| {
            ui.strong("metric");
            ui.strong(&labels[0]);
            ui.strong(&labels[1]);
            ui.strong("B − A");
            ui.end_row();
            for (label, unit, get, decimals) in ROWS {
                let cell = |v: Option<f64>| match v {
                    Some(v) => format!("{v:.decimals$} {unit}"),
                    None => "n/a".to_string(),
                };
                let (a, b) = (get(&m[0]), get(&m[1]));
                ui.label(label);
                ui.label(cell(a));
                ui.label(cell(b));
                ui.label(match (a, b) {
                    (Some(a), Some(b)) if a != 0.0 => {
                        format!(
                            "{:+.decimals$} {unit} ({:+.0} %)",
                            b - a,
                            (b - a) / a * 100.0
                        )
                    }
                    (Some(a), Some(b)) => format!("{:+.decimals$} {unit}", b - a),
                    _ => String::new(),
                });
                ui.end_row();
            }
        });
}

impl App {
    /// Opens the preset at `path` as B. On any error the message is shown and nothing changes.
    pub fn open_second(&mut self, path: &Path) {
        match Preset::load(path) {
            Ok(p) => self.start_compare(p, Some(path.to_path_buf())),
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// Plays `preset` as B beside the edited preset, both from the clip start.
    pub(super) fn start_compare(&mut self, preset: Preset, path: Option<PathBuf>) {
        let scene = self.playback.scene();
        let clip = scene.clip_name().to_string();
        match self
            .outfit()
            .scene(scene.character_arc().clone(), &preset, &clip)
        {
            Ok(second) => {
                self.playback.set_second(Some(second));
                self.status = format!("Comparing with {} (B)", preset.name);
                let table_open = self.compare.as_ref().is_some_and(|c| c.table_open);
                self.compare = Some(Compare {
                    other: Document::new(preset, path, Vec::new()),
                    editing_b: false,
                    table_open,
                    measure: Measure::default(),
                });
                self.error = None;
            }
            Err(e) => self.error = Some(format!("cannot play {} as B: {e}", preset.name)),
        }
    }

    /// Ends the comparison (the preset the knobs edit stays).
    pub(super) fn close_compare(&mut self) {
        self.compare = None;
        self.playback.set_second(None);
    }

    /// B's scene again on the character now playing (after the character changed).
    pub(super) fn replay_second(&mut self) {
        if let Some(c) = self.compare.take() {
            let (preset, path, editing_b, table_open) = (
                c.other.preset().clone(),
                c.other.path().map(Path::to_path_buf),
                c.editing_b,
                c.table_open,
            );
            self.start_compare(preset, path);
            if let Some(c) = self.compare.as_mut() {
                c.editing_b = editing_b;
                c.table_open = table_open;
            }
        }
    }

    /// The knobs go to the other preset of the comparison.
    pub fn swap_compare(&mut self) {
        let Some(c) = self.compare.as_mut() else {
            return;
        };
        std::mem::swap(&mut self.doc, &mut c.other);
        c.editing_b = !c.editing_b;
        self.playback.swap();
        let side = if c.editing_b { "B" } else { "A" };
        self.status = format!("The knobs edit {side}: {}", self.doc.preset().name);
    }

    /// The comparison's second preset (the one the knobs do not edit) and whether the knobs
    /// edit B, while comparing.
    pub fn compare_other(&self) -> Option<(&Preset, bool)> {
        self.compare
            .as_ref()
            .map(|c| (c.other.preset(), c.editing_b))
    }

    /// The metrics table's last measurement, A then B, once there is one.
    pub fn compare_metrics(&self) -> Option<&[Metrics; 2]> {
        match &self.compare.as_ref()?.measure.result {
            Some(Ok(m)) => Some(m),
            _ => None,
        }
    }

    /// True while the metrics table is measuring.
    pub fn compare_measuring(&self) -> bool {
        self.compare
            .as_ref()
            .is_some_and(|c| c.measure.running.is_some())
    }

    /// True when the preset the knobs do not edit has unsaved changes.
    pub(super) fn other_is_dirty(&self) -> bool {
        self.compare.as_ref().is_some_and(|c| c.other.is_dirty())
    }

    /// "A · tweed" and "B · veil", with `*` on a preset with unsaved changes.
    fn compare_labels(&self, c: &Compare) -> [String; 2] {
        let name = |d: &Document| {
            let star = if d.is_dirty() { " *" } else { "" };
            format!("{}{star}", d.preset().name)
        };
        let (edited, other) = (name(&self.doc), name(&c.other));
        if c.editing_b {
            [format!("A · {other}"), format!("B · {edited}")]
        } else {
            [format!("A · {edited}"), format!("B · {other}")]
        }
    }

    /// What the viewport needs to show B, while comparing.
    pub(super) fn other_view(&mut self, mode: CompareMode) -> Option<OtherView> {
        let c = self.compare.as_ref()?;
        let labels = self.compare_labels(c);
        let (look, editing_b) = (c.other.preset().look, c.editing_b);
        let scene = self.playback.second_mut()?;
        let snapshot: Snapshot = self.view.viewport.snapshot_other(scene, look);
        Some(OtherView {
            snapshot,
            mode,
            labels,
            editing_b,
        })
    }

    /// The metrics window while it is open, measuring again when something changed.
    pub(super) fn compare_window(&mut self, ctx: &egui::Context, out: &mut Vec<Command>) {
        let pointer_down = ctx.input(|i| i.pointer.any_down());
        let Some(c) = self.compare.as_ref() else {
            return;
        };
        if !c.table_open {
            return;
        }
        let labels = self.compare_labels(c);
        let corner = self
            .view
            .viewport
            .rect()
            .map_or(ctx.content_rect().right_bottom(), |r| r.right_bottom());
        let scene = self.playback.scene();
        let edited = &self.doc.preset;
        if let Some(c) = self.compare.as_mut() {
            c.measure(edited, scene, pointer_down);
            c.table(ctx, corner, &labels, out);
            if c.measure.running.is_some() {
                ctx.request_repaint_after(std::time::Duration::from_millis(200));
            }
        }
    }

    /// The Compare menu.
    pub(super) fn compare_menu(&self, ui: &mut egui::Ui, out: &mut Vec<Command>) {
        let comparing = self.compare.is_some();
        if ui
            .button("Open B…")
            .on_hover_text("Play a second preset beside this one: same clip, time and camera")
            .clicked()
        {
            out.push(Command::AskPath(super::FileTask::OpenSecond));
        }
        ui.menu_button("B from shipped", |ui| {
            for (i, (name, _)) in super::SHIPPED.iter().enumerate() {
                if ui.button(*name).clicked() {
                    out.push(Command::SecondFromShipped(i));
                }
            }
        });
        ui.separator();
        let swap = egui::Button::new("Swap: the knobs edit the other").shortcut_text("X");
        if ui.add_enabled(comparing, swap).clicked() {
            out.push(Command::SwapCompare);
        }
        let mut mode = self.view.compare_mode;
        ui.add_enabled_ui(comparing, |ui| {
            ui.radio_value(&mut mode, CompareMode::SideBySide, "Side by side (A left)");
            ui.radio_value(&mut mode, CompareMode::Ghost, "Ghost (the other in blue)");
        });
        if mode != self.view.compare_mode {
            out.push(Command::SetCompareMode(mode));
        }
        let mut table = self.compare.as_ref().is_some_and(|c| c.table_open);
        let check = ui.add_enabled(comparing, egui::Checkbox::new(&mut table, "Metrics table"));
        if check.changed() {
            out.push(Command::ShowCompareTable(table));
        }
        ui.separator();
        if ui
            .add_enabled(comparing, egui::Button::new("Close B"))
            .clicked()
        {
            out.push(Command::CloseCompare);
        }
    }

    /// Shows or hides the metrics table.
    pub(super) fn show_compare_table(&mut self, open: bool) {
        if let Some(c) = self.compare.as_mut() {
            c.table_open = open;
        }
    }
}
