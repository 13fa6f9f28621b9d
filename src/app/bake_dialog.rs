//! File > Bake clips…: the command line's `bake` on the garment worn (the artist's or the
//! template) and the preset being tuned: the clips chosen, simulated on a background thread with
//! a progress bar while the window stays live, written as one rigged glTF binary with a glTF
//! animation per clip, and the bake's error against the live simulation shown per clip.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use eframe::egui;

use super::command::Command;
use super::tools::Background;
use super::App;
use crate::export::baked::{bake, frame_count, BakeSettings, Baked, TOLERANCE_MM};

/// The Bake window's own state.
#[derive(Default)]
pub struct BakeDialog {
    pub open: bool,
    /// Each clip of the character and whether it is baked.
    pub clips: Vec<(String, bool)>,
    pub seconds: f64,
    pub tolerance_mm: f64,
    /// Where the file goes.
    pub path: String,
    running: Option<(Background<Baked>, PathBuf)>,
    /// The last bake's table, or why it failed.
    pub report: Option<Result<String, String>>,
}

impl BakeDialog {
    /// Whether a bake is running.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The dialog as it opens on a character with these clips.
    fn opened(&mut self, clip_names: Vec<String>, playing: &str) {
        if self.clips.iter().map(|c| &c.0).ne(clip_names.iter()) {
            self.clips = clip_names
                .into_iter()
                .map(|c| {
                    let on = c == playing;
                    (c, on)
                })
                .collect();
        }
        if self.seconds <= 0.0 {
            self.seconds = 6.0;
            self.tolerance_mm = 0.5;
        }
        if self.path.is_empty() {
            self.path = std::env::current_dir()
                .unwrap_or_default()
                .join("baked.glb")
                .display()
                .to_string();
        }
        self.open = true;
    }

    fn ui(&mut self, ui: &mut egui::Ui, out: &mut Vec<Command>) {
        ui.label("Clips")
            .on_hover_text("Each becomes a glTF animation of the body bones and the cloth bones");
        ui.horizontal_wrapped(|ui| {
            for (name, on) in &mut self.clips {
                ui.checkbox(on, name.as_str());
            }
        });
        ui.add(
            egui::Slider::new(&mut self.seconds, 0.5..=30.0)
                .text("Length")
                .suffix(" s"),
        )
        .on_hover_text("Seconds of each clip, from its start, at the preset's time step");
        let (lo, hi) = (*TOLERANCE_MM.start(), *TOLERANCE_MM.end());
        ui.add(
            egui::Slider::new(&mut self.tolerance_mm, lo..=hi)
                .logarithmic(true)
                .text("Tolerance")
                .suffix(" mm"),
        )
        .on_hover_text(
            "How far a dropped key may move a vertex: larger gives smaller files that follow \
             the simulation less closely",
        );
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(320.0))
                .labelled_by(ui.label("Path").id);
        });
        match &self.running {
            Some((job, _)) => job.ui(ui, "Baking"),
            None => {
                if ui.button("Bake").clicked() {
                    out.push(Command::RunBake);
                }
            }
        }
        match &self.report {
            Some(Ok(table)) => {
                ui.monospace(table);
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            None => {}
        }
    }
}

/// The report of a bake written to `path`: a line per clip.
fn table(baked: &Baked, path: &std::path::Path) -> String {
    let mut t = format!(
        "{} ({} cloth bones)\nclip          frames  keys kept  max mm  rms mm\n",
        path.display(),
        baked.rigged.cloth_bones
    );
    for c in &baked.clips {
        t += &format!(
            "{:<13} {:>6}  {:>8.1} %  {:>6.3}  {:>6.3}\n",
            c.clip,
            c.frames,
            100.0 * c.keys as f64 / c.all_keys.max(1) as f64,
            c.max_mm,
            c.rms_mm
        );
    }
    t
}

impl App {
    /// The Bake window's state, for tests and tools.
    pub fn bake_dialog(&self) -> &BakeDialog {
        &self.bake
    }

    /// The Bake window's state, for tests and tools.
    pub fn bake_dialog_mut(&mut self) -> &mut BakeDialog {
        &mut self.bake
    }

    /// Opens the Bake window on the character playing.
    pub(super) fn show_bake(&mut self, open: bool) {
        if open {
            let scene = self.playback.scene();
            let (names, playing) = (scene.clip_names(), scene.clip_name().to_string());
            self.bake.opened(names, &playing);
        } else {
            self.bake.open = false;
        }
    }

    /// Starts the bake as the window is set up; the file is written when it is done.
    pub fn run_bake(&mut self) {
        let character = self.playback.scene().character_arc().clone();
        let outfit = self.outfit();
        let b = &mut self.bake;
        let settings = BakeSettings {
            clips: b
                .clips
                .iter()
                .filter(|c| c.1)
                .map(|c| c.0.clone())
                .collect(),
            seconds: b.seconds,
            tolerance_mm: b.tolerance_mm,
        };
        let preset = self.doc.preset.clone();
        let frames = match frame_count(&preset, settings.seconds) {
            Ok(f) => f * settings.clips.len(),
            Err(e) => return b.report = Some(Err(e.to_string())),
        };
        let job = Background::spawn(move |(_, progress, _)| {
            let done = AtomicUsize::new(0);
            let tick = |n: u64| {
                let now = done.fetch_add(n as usize, Ordering::Relaxed) + n as usize;
                progress(now, frames);
            };
            bake(&character, &outfit, &preset, &settings, &tick).map_err(|e| e.to_string())
        });
        b.report = None;
        b.running = Some((job, PathBuf::from(b.path.trim())));
    }

    /// The Bake window, and the bake's answer when it comes: written atomically unless
    /// cancelled.
    pub(super) fn bake_window(&mut self, ctx: &egui::Context, out: &mut Vec<Command>) {
        self.poll_bake();
        if !self.bake.open {
            return;
        }
        let mut open = true;
        egui::Window::new("Bake clips")
            .open(&mut open)
            .default_width(460.0)
            .show(ctx, |ui| self.bake.ui(ui, out));
        if !open {
            out.push(Command::ShowBake(false));
        }
        if self.bake.running.is_some() {
            ctx.request_repaint();
        }
    }

    fn poll_bake(&mut self) {
        let b = &mut self.bake;
        let Some(answer) = b.running.as_ref().and_then(|(job, _)| job.poll()) else {
            return;
        };
        let Some((job, path)) = b.running.take() else {
            return;
        };
        if job.cancel.load(Ordering::Relaxed) {
            b.report = Some(Err("Cancelled: nothing written".into()));
            return;
        }
        b.report = Some(answer.and_then(|baked| {
            crate::files::write_atomic(&path, &baked.rigged.bytes)
                .map_err(|e| e.to_string())
                .map(|()| table(&baked, &path))
        }));
        if let Some(Ok(_)) = &b.report {
            self.status = format!("Baked {}", path.display());
        }
    }
}
