//! Tools > Wedge and Tools > Fit: the command line's `wedge` and `fit` on the preset being
//! tuned, on a background thread while the window stays live, with a progress bar and Cancel.
//! A wedge shows its contact sheet and a click on a cell loads that cell's knobs; a fit lists
//! its trials as they come and Apply loads the best one's knobs. Either is one undo step.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use eframe::egui;

use super::command::Command;
use super::App;
use crate::picture::Rgba;
use crate::render::headless::CameraSpec;
use crate::sim::{FabricParams, ParamKind};
use crate::tune::fit::{fit, FitResult, FitSpec};
use crate::tune::knobs::{knob_list, Sweep};
use crate::tune::targets::{metric_names, parse_targets};
use crate::tune::wedge::{run, sheet, Wedge, WedgeSpec};

/// The tuner's wedge pictures: small, so a 5 x 5 sheet is drawn in seconds on software GL.
const CELL_SIZE: (u32, u32) = (320, 180);

/// Work on a background thread: its answer (or why there is none), its progress and a way
/// to stop it early.
pub(super) struct Background<T> {
    answer: Receiver<Result<T, String>>,
    /// Lines it reports as it goes (a fit's trials).
    lines: Receiver<String>,
    pub(super) cancel: Arc<AtomicBool>,
    done: Arc<AtomicUsize>,
    total: Arc<AtomicUsize>,
}

/// What a background job is handed: the cancel flag, a progress callback (done, total) and a
/// sender for report lines.
pub(super) type JobTools<'a> = (
    &'a AtomicBool,
    &'a (dyn Fn(usize, usize) + Sync),
    Sender<String>,
);

impl<T: Send + 'static> Background<T> {
    pub(super) fn spawn(job: impl FnOnce(JobTools) -> Result<T, String> + Send + 'static) -> Self {
        let (tx, answer) = channel();
        let (line_tx, lines) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicUsize::new(0));
        let total = Arc::new(AtomicUsize::new(0));
        let (c, d, t) = (cancel.clone(), done.clone(), total.clone());
        std::thread::spawn(move || {
            let progress = move |now: usize, all: usize| {
                d.store(now, Ordering::Relaxed);
                t.store(all, Ordering::Relaxed);
            };
            let _ = tx.send(job((&c, &progress, line_tx)));
        });
        Self {
            answer,
            lines,
            cancel,
            done,
            total,
        }
    }

    /// The answer once it came (a job that died without one is an error).
    pub(super) fn poll(&self) -> Option<Result<T, String>> {
        match self.answer.try_recv() {
            Ok(a) => Some(a),
            Err(std::sync::mpsc::TryRecvError::Empty) => None,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                Some(Err("the job stopped unexpectedly".to_string()))
            }
        }
    }

    /// Done over total, 0 to 1.
    fn progress(&self) -> f32 {
        let total = self.total.load(Ordering::Relaxed).max(1);
        self.done.load(Ordering::Relaxed) as f32 / total as f32
    }

    /// A progress bar with Cancel.
    pub(super) fn ui(&self, ui: &mut egui::Ui, what: &str) {
        ui.horizontal(|ui| {
            ui.add(
                egui::ProgressBar::new(self.progress())
                    .show_percentage()
                    .desired_width(260.0)
                    .text(what),
            );
            if ui.button("Cancel").clicked() {
                self.cancel.store(true, Ordering::Relaxed);
            }
        });
    }
}

/// One knob of a wedge: its name and the values it sweeps.
#[derive(Clone, Debug, PartialEq)]
struct SweepRow {
    knob: Option<&'static str>,
    from: f64,
    to: f64,
    count: usize,
}

impl SweepRow {
    /// A sweep of `name` around its value in `params`: half to twice it, within the knob's
    /// range.
    fn around(name: &'static str, params: &FabricParams, count: usize) -> SweepRow {
        let spec = FabricParams::spec(name);
        let (min, max) = spec.map_or((0.0, 1.0), |s| (s.min, s.max));
        let v = params.get(name).unwrap_or(min);
        // Three significant digits, so the cells' labels read 0.0084 rather than the f32
        // value's widening to f64.
        let round = |x: f64| {
            let scale = 10f64.powi(2 - x.abs().max(1e-12).log10().floor() as i32);
            (x * scale).round() / scale
        };
        let (from, to) = if v > 0.0 {
            (round(v * 0.5).max(min), round(v * 2.0).min(max))
        } else {
            (min, max)
        };
        SweepRow {
            knob: Some(name),
            from,
            to,
            count,
        }
    }

    /// The row as the command line writes it, for [`Sweep::parse`]'s checks.
    fn sweep(&self) -> Option<Result<Sweep, String>> {
        let knob = self.knob?;
        let text = format!("{knob}={}:{}:{}", self.from, self.to, self.count);
        Some(Sweep::parse(&text).map_err(|e| e.to_string()))
    }
}

/// Tools > Wedge.
pub struct WedgeTool {
    pub(super) open: bool,
    rows: [SweepRow; 2],
    /// Picture the frame where the cells differ most (as the command line does with no
    /// `--frame`) instead of [`WedgeTool::frame`].
    pick_frame: bool,
    frame: u64,
    running: Option<Background<(Wedge, Rgba)>>,
    shown: Option<(Wedge, egui::TextureHandle)>,
    error: Option<String>,
}

impl WedgeTool {
    fn new(params: &FabricParams) -> Self {
        let mut second = SweepRow::around("world_motion_fraction", params, 3);
        second.knob = None;
        Self {
            open: false,
            rows: [SweepRow::around("damping", params, 5), second],
            pick_frame: true,
            frame: 60,
            running: None,
            shown: None,
            error: None,
        }
    }
}

/// Tools > Fit.
pub struct FitTool {
    pub(super) open: bool,
    targets: String,
    knobs: String,
    log: Vec<String>,
    running: Option<Background<FitResult>>,
    result: Option<FitResult>,
    error: Option<String>,
}

impl Default for FitTool {
    fn default() -> Self {
        Self {
            open: false,
            targets: "settle_time=1.2, hem_swing_rms=0.06".into(),
            knobs: "damping, contact_damping".into(),
            log: Vec::new(),
            running: None,
            result: None,
            error: None,
        }
    }
}

/// Both tools.
pub struct Tools {
    pub(super) wedge: WedgeTool,
    pub(super) fit: FitTool,
}

impl Tools {
    pub(super) fn new(params: &FabricParams) -> Self {
        Self {
            wedge: WedgeTool::new(params),
            fit: FitTool::default(),
        }
    }
}

impl App {
    /// The Tools menu.
    pub(super) fn tools_menu(&self, ui: &mut egui::Ui, out: &mut Vec<Command>) {
        let wedge = ui.button("Wedge…").on_hover_text(
            "Pictures of this preset over a grid of knob values, in one sheet: click a cell to \
             load its values",
        );
        if wedge.clicked() {
            out.push(Command::ShowWedge(true));
        }
        let fit = ui.button("Fit…").on_hover_text(
            "Search knobs for the values whose metrics meet targets (settle in 1.2 s, swing 6 \
             cm …)",
        );
        if fit.clicked() {
            out.push(Command::ShowFit(true));
        }
    }

    /// The last wedge the Wedge window shows, once there is one.
    pub fn wedge_shown(&self) -> Option<&Wedge> {
        self.tools.wedge.shown.as_ref().map(|(w, _)| w)
    }

    /// The last fit's outcome, once there is one, and the trials it reported.
    pub fn fit_result(&self) -> (Option<&FitResult>, &[String]) {
        (self.tools.fit.result.as_ref(), &self.tools.fit.log)
    }

    /// True while a wedge or a fit runs.
    pub fn tool_running(&self) -> bool {
        self.tools.wedge.running.is_some() || self.tools.fit.running.is_some()
    }

    /// The error the Wedge and Fit windows show, if any.
    pub fn tool_errors(&self) -> [Option<&str>; 2] {
        [
            self.tools.wedge.error.as_deref(),
            self.tools.fit.error.as_deref(),
        ]
    }

    /// Starts a wedge of the current preset on the current clip, after the same checks as
    /// the command line's.
    pub(super) fn run_wedge(&mut self) {
        let w = &mut self.tools.wedge;
        let sweeps: Result<Vec<Sweep>, String> =
            w.rows.iter().filter_map(SweepRow::sweep).collect();
        let sweeps = match sweeps {
            Ok(s) if s.is_empty() => Err("pick a knob to sweep".to_string()),
            other => other,
        };
        let sweeps = match sweeps {
            Ok(s) => s,
            Err(e) => {
                w.error = Some(e);
                return;
            }
        };
        let scene = self.playback.scene();
        let spec = WedgeSpec {
            preset: self.doc.preset.clone(),
            preset_path: self
                .doc
                .path()
                .map_or_else(|| "preset.json".into(), |p| p.to_path_buf()),
            character_label: None,
            sweeps,
            clip: scene.clip_name().to_string(),
            frames: if w.pick_frame {
                Vec::new()
            } else {
                vec![w.frame]
            },
            trails: true,
            film: 0,
            seconds: super::compare::METRICS_SECONDS,
            camera: CameraSpec::Garment(None),
            cell_width: CELL_SIZE.0,
            cell_height: CELL_SIZE.1,
            force: false,
        };
        let character = scene.character_arc().clone();
        w.error = None;
        w.running = Some(Background::spawn(move |(cancel, progress, _)| {
            let wedge = run(character, &spec, progress, cancel).map_err(|e| e.to_string())?;
            let picture = sheet(&wedge);
            Ok((wedge, picture))
        }));
    }

    /// Loads wedge cell `i`'s knobs into the preset (one undo step).
    pub(super) fn load_wedge_cell(&mut self, i: usize) {
        let Some(cell) = self
            .tools
            .wedge
            .shown
            .as_ref()
            .and_then(|(w, _)| w.cells.get(i))
        else {
            return;
        };
        let (params, what) = (cell.params.clone(), cell.setting.to_string());
        self.doc.edit_params(params, true, false);
        self.sync_scene();
        self.status = format!("Loaded wedge cell #{i}: {what} (Ctrl+Z undoes)");
    }

    /// Starts a fit of the current preset on the current clip.
    pub(super) fn run_fit(&mut self) {
        let f = &mut self.tools.fit;
        let parsed = parse_targets(&f.targets)
            .map_err(|e| e.to_string())
            .and_then(|t| Ok((t, knob_list(&f.knobs).map_err(|e| e.to_string())?)));
        let (targets, knobs) = match parsed {
            Ok(p) => p,
            Err(e) => {
                f.error = Some(e);
                return;
            }
        };
        let scene = self.playback.scene();
        let spec = FitSpec::new(scene.clip_name(), targets, knobs);
        let character = scene.character_arc().clone();
        let preset = self.doc.preset.clone();
        f.error = None;
        f.log.clear();
        f.result = None;
        f.running = Some(Background::spawn(move |(cancel, progress, lines)| {
            let max = spec.max_trials;
            let mut on_trial = |t: &crate::tune::fit::Trial| {
                progress(t.number, max);
                let _ = lines.send(t.to_text());
            };
            fit(character, &preset, &spec, &mut on_trial, cancel).map_err(|e| e.to_string())
        }));
    }

    /// Loads the fit's best knobs into the preset (one undo step).
    pub(super) fn apply_fit(&mut self) {
        let Some(result) = self.tools.fit.result.as_ref() else {
            return;
        };
        let (params, what) = (
            result.preset.params.clone(),
            result.best.setting.to_string(),
        );
        self.doc.edit_params(params, true, false);
        self.sync_scene();
        self.status = format!("Applied the fit: {what} (Ctrl+Z undoes)");
    }

    /// The two tools' windows, and their background work's answers.
    pub(super) fn tool_windows(&mut self, ctx: &egui::Context, out: &mut Vec<Command>) {
        self.poll_tools(ctx);
        if self.tools.wedge.open {
            let mut open = true;
            egui::Window::new("Wedge")
                .open(&mut open)
                .default_width(1100.0)
                .show(ctx, |ui| wedge_ui(&mut self.tools.wedge, ui, out));
            if !open {
                out.push(Command::ShowWedge(false));
            }
        }
        if self.tools.fit.open {
            let mut open = true;
            egui::Window::new("Fit")
                .open(&mut open)
                .default_width(620.0)
                .show(ctx, |ui| fit_ui(&mut self.tools.fit, ui, out));
            if !open {
                out.push(Command::ShowFit(false));
            }
        }
    }

    fn poll_tools(&mut self, ctx: &egui::Context) {
        let w = &mut self.tools.wedge;
        if let Some(answer) = w.running.as_ref().and_then(Background::poll) {
            w.running = None;
            match answer {
                Ok((wedge, picture)) => {
                    let image = egui::ColorImage::from_rgba_unmultiplied(
                        [picture.width as usize, picture.height as usize],
                        picture.pixels.as_flattened(),
                    );
                    let texture = ctx.load_texture("wedge", image, egui::TextureOptions::LINEAR);
                    w.shown = Some((wedge, texture));
                }
                Err(e) => w.error = Some(e),
            }
        }
        let f = &mut self.tools.fit;
        if let Some(r) = &f.running {
            f.log.extend(r.lines.try_iter());
            if let Some(answer) = r.poll() {
                f.running = None;
                match answer {
                    Ok(result) => f.result = Some(result),
                    Err(e) => f.error = Some(e),
                }
            }
        }
        if w.running.is_some() || f.running.is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }
}

fn wedge_ui(w: &mut WedgeTool, ui: &mut egui::Ui, out: &mut Vec<Command>) {
    ui.label("The current preset on the current clip, one picture per combination of values (at most 400).");
    for (i, row) in w.rows.iter_mut().enumerate() {
        sweep_row(ui, i, row);
    }
    ui.horizontal(|ui| {
        ui.checkbox(&mut w.pick_frame, "Frame where the cells differ most")
            .on_hover_text(
                "Picture the moment the cells' hems and front edges are furthest apart; the \
                 sheet's header says which frame that was",
            );
        ui.add_enabled(
            !w.pick_frame,
            egui::DragValue::new(&mut w.frame)
                .range(0..=crate::render::headless::MAX_FRAME)
                .suffix(" steps"),
        )
        .on_hover_text(
            "The pictures show the state after this many fixed steps from the clip start",
        );
        let running = w.running.is_some();
        if ui.add_enabled(!running, egui::Button::new("Run")).clicked() {
            out.push(Command::RunWedge);
        }
    });
    if let Some(r) = &w.running {
        r.ui(ui, "pictures and metrics");
    }
    if let Some(e) = &w.error {
        ui.colored_label(ui.visuals().error_fg_color, e);
    }
    if let Some((wedge, texture)) = &w.shown {
        ui.label("Click a cell to load its values into the preset.");
        egui::ScrollArea::both().max_height(560.0).show(ui, |ui| {
            let size = texture.size_vec2();
            let shown = size * (ui.available_width() / size.x).min(1.0);
            let response =
                ui.add(egui::Image::new((texture.id(), shown)).sense(egui::Sense::click()));
            if let Some(pos) = response
                .interact_pointer_pos()
                .filter(|_| response.clicked())
            {
                let at = (pos - response.rect.min) / shown * size;
                if let Some(i) = wedge.layout.cell_at(at.x as u32, at.y as u32) {
                    out.push(Command::WedgeCell(i));
                }
            }
        });
    }
}

/// A knob picker with its range and count.
fn sweep_row(ui: &mut egui::Ui, i: usize, row: &mut SweepRow) {
    ui.horizontal(|ui| {
        let label = ui.label(if i == 0 { "Knob" } else { "and knob" });
        egui::ComboBox::from_id_salt(("wedge knob", i))
            .selected_text(row.knob.unwrap_or("(none)"))
            .show_ui(ui, |ui| {
                if i > 0 {
                    ui.selectable_value(&mut row.knob, None, "(none)");
                }
                for spec in FabricParams::SPECS
                    .iter()
                    .filter(|s| s.kind == ParamKind::Float)
                {
                    ui.selectable_value(&mut row.knob, Some(spec.name), spec.label);
                }
            })
            .response
            .labelled_by(label.id);
        let spec = row.knob.and_then(FabricParams::spec);
        let unit = spec.map_or("", |s| s.unit);
        let range = spec.map_or(0.0..=1.0, |s| s.min..=s.max);
        let speed = (range.end() - range.start()) / 300.0;
        let number = |ui: &mut egui::Ui, text: &str, value: &mut f64| {
            let label = ui.label(text);
            ui.add(
                egui::DragValue::new(value)
                    .range(range.clone())
                    .speed(speed)
                    .suffix(format!(" {unit}")),
            )
            .labelled_by(label.id);
        };
        number(ui, "from", &mut row.from);
        number(ui, "to", &mut row.to);
        let label = ui.label("in");
        ui.add(
            egui::DragValue::new(&mut row.count)
                .range(1..=20)
                .suffix(" values"),
        )
        .labelled_by(label.id);
    });
}

fn fit_ui(f: &mut FitTool, ui: &mut egui::Ui, out: &mut Vec<Command>) {
    ui.label("Searches the knobs, within their ranges, for values whose metrics on the current clip meet the targets (at most 60 s).");
    ui.horizontal(|ui| {
        let label = ui.label("Targets");
        ui.add(egui::TextEdit::singleline(&mut f.targets).desired_width(380.0))
            .labelled_by(label.id)
            .on_hover_text(format!(
                "METRIC=VALUE, comma separated; the metrics: {}",
                metric_names().join(", ")
            ));
    });
    ui.horizontal(|ui| {
        let label = ui.label("Knobs");
        ui.add(egui::TextEdit::singleline(&mut f.knobs).desired_width(380.0))
            .labelled_by(label.id)
            .on_hover_text("Knob names as in the preset file, comma separated");
    });
    ui.horizontal(|ui| {
        if ui
            .add_enabled(f.running.is_none(), egui::Button::new("Fit"))
            .clicked()
        {
            out.push(Command::RunFit);
        }
        let can_apply = f.result.is_some() && f.running.is_none();
        if ui
            .add_enabled(can_apply, egui::Button::new("Apply the best"))
            .clicked()
        {
            out.push(Command::ApplyFit);
        }
    });
    if let Some(r) = &f.running {
        r.ui(ui, "trials");
    }
    if let Some(e) = &f.error {
        ui.colored_label(ui.visuals().error_fg_color, e);
    }
    if let Some(result) = &f.result {
        ui.label(result.to_text());
    }
    egui::ScrollArea::vertical()
        .max_height(220.0)
        .stick_to_bottom(true)
        .show(ui, |ui| {
            for line in &f.log {
                ui.monospace(line);
            }
        });
}
