//! Work is never lost: the autosave and its restore offer at start, the save-error dialog, the
//! reaction to a panic inside the 3D drawing, and the notice shown when the cloth had to reset
//! itself. The app calls [`App::recovery_frame`] once per frame.

use std::path::Path;

use eframe::egui;

use super::autosave::{Autosave, Autosaver, Tick};
use super::command::Command;
use super::App;
use crate::preset::Preset;
use crate::sim::FabricParams;

/// Seconds a reset notice stays after the last reset (it fades over the last few).
const NOTICE_SECONDS: f64 = 20.0;
const NOTICE_FADE: f64 = 5.0;

/// The recovery state the app keeps.
#[derive(Debug, Default)]
pub struct Recovery {
    autosaver: Autosaver,
    /// An autosave from an earlier run waiting for Restore or Discard.
    offer: Option<Autosave>,
    /// A failed save, shown as a dialog until dismissed.
    save_error: Option<String>,
    /// The cloth reset itself; shown over the viewport.
    notice: Option<ResetNotice>,
    /// The cloth's reset counter as last seen.
    seen_resets: u64,
}

#[derive(Clone, Debug)]
struct ResetNotice {
    text: String,
    /// Clock time of the last reset it reports.
    at: f64,
    count: u64,
}

impl App {
    /// Turns on the autosave in `dir` (`autosave.json`). When an autosave from an earlier run is
    /// there and differs from what was just loaded, the window offers to restore it (and says
    /// so on stderr: `cloth-tuner: autosave found: ...`).
    pub fn with_autosave_dir(mut self, dir: &Path) -> Self {
        let autosaver = Autosaver::in_dir(dir);
        let path = dir.join(super::autosave::FILE_NAME);
        self.recovery.autosaver = autosaver;
        match Autosave::load(&path) {
            Ok(None) => {}
            Ok(Some(save)) => {
                let same_source = match (&save.source, self.doc.path()) {
                    (Some(a), Some(b)) => same_file(a, b),
                    (None, None) => true,
                    _ => false,
                };
                if &save.preset == self.doc.preset() && same_source {
                    eprintln!(
                        "cloth-tuner: autosave {} matches what was opened; removed",
                        path.display()
                    );
                    let _ = std::fs::remove_file(&path);
                } else {
                    eprintln!(
                        "cloth-tuner: autosave found: {} (unsaved work on {}); offering to restore it",
                        path.display(),
                        describe_source(save.source.as_deref())
                    );
                    self.recovery.autosaver.hold(true);
                    self.recovery.offer = Some(save);
                }
            }
            Err(e) => {
                eprintln!("cloth-tuner: autosave not restored: {e}");
                self.error = Some(format!(
                    "Autosave not restored: {e} (the file is left as it is)"
                ));
                // Do not write over a file the artist may want to rescue by hand.
                self.recovery.autosaver.hold(true);
            }
        }
        self
    }

    /// The autosave file, when autosave is on.
    pub fn autosave_path(&self) -> Option<&Path> {
        self.recovery.autosaver.path()
    }

    /// True while the window offers to restore an autosave from an earlier run.
    pub fn restore_offered(&self) -> bool {
        self.recovery.offer.is_some()
    }

    /// The save-error dialog's message, while it is shown.
    pub fn save_error(&self) -> Option<&str> {
        self.recovery.save_error.as_deref()
    }

    /// The cloth-reset notice, while it is shown.
    pub fn reset_notice(&self) -> Option<&str> {
        self.recovery.notice.as_ref().map(|n| n.text.as_str())
    }

    /// Why the 3D view stopped drawing, if it did.
    pub fn viewport_failure(&self) -> Option<String> {
        self.view.viewport.failure()
    }

    /// Records a failure of the 3D drawing exactly as the paint callback does when drawing
    /// panics (tests have no OpenGL, so no paint callback runs there).
    #[doc(hidden)]
    pub fn fail_viewport_drawing(&mut self, message: &str) {
        self.view.viewport.record_failure(message);
    }

    /// A save failed: the dialog names the file and the reason; the preset, its `*` and the undo
    /// history stay as they were.
    pub(super) fn save_failed(&mut self, message: String) {
        self.status = format!("Not saved: {message}");
        self.recovery.save_error = Some(message);
    }

    /// A clean exit: nothing to recover next time.
    pub(super) fn clean_exit(&mut self) {
        if self.recovery.offer.is_none() {
            self.recovery.autosaver.clear();
        }
    }

    /// Once per frame, after the commands: reacts to a drawing failure, notices cloth resets,
    /// expires the reset notice and keeps the autosave up to date.
    pub(super) fn recovery_frame(&mut self, ctx: &egui::Context) {
        let now = ctx.input(|i| i.time);
        if let Some(f) = self.view.viewport.take_new_failure() {
            self.drawing_failed(now, &f);
            ctx.request_repaint();
        }
        if self.watch_resets(now) {
            ctx.request_repaint();
        }
        let tick = self.recovery.autosaver.tick(
            now,
            self.doc.preset(),
            self.doc.path(),
            self.doc.is_dirty(),
        );
        match tick {
            Tick::Wait(s) => ctx.request_repaint_after(std::time::Duration::from_secs_f64(s)),
            Tick::Failed(e) => {
                self.error = Some(format!("Autosave failed: {e}"));
                ctx.request_repaint();
            }
            Tick::Idle | Tick::Wrote | Tick::Removed => {}
        }
        let expired = |n: &ResetNotice| now - n.at >= NOTICE_SECONDS;
        if self.recovery.notice.as_ref().is_some_and(expired) {
            self.recovery.notice = None;
        }
    }

    /// The recovery dialogs: the autosave offer, a failed save and the reset notice.
    pub(super) fn recovery_dialogs(&self, ctx: &egui::Context, out: &mut Vec<Command>) {
        let now = ctx.input(|i| i.time);
        self.restore_dialog(ctx, out);
        self.save_error_dialog(ctx, out);
        self.reset_banner(ctx, now, out);
    }

    fn drawing_failed(&mut self, now: f64, failure: &str) {
        let saved = if self.is_dirty() {
            match self
                .recovery
                .autosaver
                .write_now(now, self.doc.preset(), self.doc.path())
            {
                Ok(()) => format!(
                    "unsaved parameters autosaved to {}",
                    self.autosave_path()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                ),
                Err(e) => format!("the autosave failed too ({e}): save with File > Save As"),
            }
        } else {
            "nothing unsaved".to_string()
        };
        eprintln!(
            "cloth-tuner: drawing the 3D view panicked: {failure}; the 3D view is off; {saved}"
        );
        self.error = Some(format!(
            "3D view stopped: drawing panicked ({failure}). Nothing is lost: {saved}."
        ));
    }

    /// Returns true when a new reset was noticed.
    fn watch_resets(&mut self, now: f64) -> bool {
        let resets = self.scene().cloth().stats().resets;
        if resets < self.recovery.seen_resets {
            // A new cloth (another garment) starts counting again.
            self.recovery.seen_resets = resets;
        }
        if resets == self.recovery.seen_resets {
            return false;
        }
        let new = resets - self.recovery.seen_resets;
        self.recovery.seen_resets = resets;
        let count = new + self.recovery.notice.as_ref().map_or(0, |n| n.count);
        let times = if count > 1 {
            format!(" ({count} times)")
        } else {
            String::new()
        };
        let text = format!(
            "Cloth reset to the reference pose at t={:.2} s{times}: its state went non-finite or a particle flew past 10x its max distance. {}",
            self.scene().time(),
            reset_hint(self.scene().params())
        );
        self.recovery.notice = Some(ResetNotice {
            text,
            at: now,
            count,
        });
        true
    }

    fn restore_dialog(&self, ctx: &egui::Context, out: &mut Vec<Command>) {
        let Some(save) = &self.recovery.offer else {
            return;
        };
        let changes = changed_params(&self.doc.preset().params, &save.preset.params);
        egui::Modal::new(egui::Id::unique("restore-autosave")).show(ctx, |ui| {
            ui.set_max_width(520.0);
            ui.heading("Restore unsaved work?");
            ui.label(format!(
                "cloth-tuner did not close cleanly last time. An autosave holds unsaved work on \"{}\" ({}), written {}.",
                save.preset.name,
                describe_source(save.source.as_deref()),
                age(save.written_unix)
            ));
            if !changes.is_empty() {
                ui.label(format!("Differs from what is open now in: {changes}"));
            }
            ui.horizontal(|ui| {
                if ui.button("Restore").clicked() {
                    out.push(Command::AnswerRestore(true));
                }
                if ui.button("Discard").clicked() {
                    out.push(Command::AnswerRestore(false));
                }
            });
        });
    }

    /// Restores the autosave on offer, or throws it away.
    pub(super) fn answer_restore(&mut self, ctx: &egui::Context, restore: bool) {
        if restore {
            self.restore(ctx.input(|i| i.time));
        } else if self.recovery.offer.take().is_some() {
            self.recovery.autosaver.hold(false);
            self.recovery.autosaver.clear();
            self.status = "Discarded the autosave".into();
        }
    }

    /// Puts the autosave's preset in, over its source file's when that still loads, so the
    /// title shows `*` and undo goes back to the file.
    fn restore(&mut self, now: f64) {
        let Some(save) = self.recovery.offer.take() else {
            return;
        };
        self.recovery.autosaver.hold(false);
        let source = save.source.clone();
        match source.as_deref().map(Preset::load) {
            Some(Ok(file)) => self.install(file, source.clone()),
            _ => {
                // No file (a new preset) or it is gone: the restored work is all unsaved.
                self.install(save.preset.clone(), None);
                self.doc.mark_unsaved();
            }
        }
        self.doc.set_preset(save.preset.clone());
        self.sync_scene();
        self.recovery
            .autosaver
            .adopt(self.doc.preset(), self.doc.path(), now);
        self.status = format!(
            "Restored unsaved work on {} from the autosave",
            describe_source(source.as_deref())
        );
        if source.is_some() && self.doc.path().is_none() {
            self.status += " (its file is gone: save it somewhere)";
        }
    }

    pub(super) fn dismiss_save_error(&mut self) {
        self.recovery.save_error = None;
    }

    pub(super) fn dismiss_reset_notice(&mut self) {
        self.recovery.notice = None;
    }

    fn save_error_dialog(&self, ctx: &egui::Context, out: &mut Vec<Command>) {
        let Some(message) = &self.recovery.save_error else {
            return;
        };
        egui::Modal::new(egui::Id::unique("save-error")).show(ctx, |ui| {
            ui.set_max_width(520.0);
            ui.heading("Could not save");
            ui.label(message);
            ui.label("Nothing was written; the changes are still here. Save As to another file.");
            if ui.button("OK").clicked() {
                out.push(Command::DismissSaveError);
            }
        });
    }

    fn reset_banner(&self, ctx: &egui::Context, now: f64, out: &mut Vec<Command>) {
        let Some(notice) = &self.recovery.notice else {
            return;
        };
        let left = NOTICE_SECONDS - (now - notice.at);
        let Some(rect) = self.view.viewport.rect().filter(|_| left > 0.0) else {
            return;
        };
        egui::Area::new(egui::Id::unique("reset-notice"))
            .order(egui::Order::Foreground)
            .fixed_pos(rect.left_top() + egui::vec2(12.0, 12.0))
            .constrain_to(rect)
            .show(ctx, |ui| {
                ui.set_opacity((left / NOTICE_FADE).clamp(0.15, 1.0) as f32);
                egui::Frame::popup(ui.style())
                    .fill(egui::Color32::from_rgb(110, 60, 20))
                    .show(ui, |ui| {
                        ui.set_max_width((rect.width() - 40.0).clamp(200.0, 640.0));
                        ui.add(
                            egui::Label::new(
                                egui::RichText::new(&notice.text).color(egui::Color32::WHITE),
                            )
                            .wrap(),
                        );
                        if ui.small_button("Dismiss").clicked() {
                            out.push(Command::DismissResetNotice);
                        }
                    });
            });
        ctx.request_repaint_after(std::time::Duration::from_millis(100));
    }
}

/// What to try after a reset, from the knobs most likely to blame.
fn reset_hint(p: &FabricParams) -> String {
    let mut tips = Vec::new();
    if p.wind_speed * p.wind_speed * p.wind_drag > 2000.0 {
        tips.push("lower Wind speed or Wind drag");
    }
    if p.iterations == 0 {
        tips.push("raise Iterations");
    }
    if p.gravity > 30.0 {
        tips.push("lower Gravity");
    }
    if p.timestep_hz < 30.0 {
        tips.push("raise Time step");
    }
    if p.damping < 0.005 && p.edge_damping < 0.005 {
        tips.push("raise Damping");
    }
    if tips.is_empty() {
        "A hard poke or a jump of the character can cause it; if it repeats, lower Wind speed or raise Iterations.".to_string()
    } else {
        format!("Try: {}.", tips.join(", "))
    }
}

/// "Damping 0.006018 -> 0.5, Gravity ..." for the knobs that differ (at most six named).
fn changed_params(now: &FabricParams, saved: &FabricParams) -> String {
    let changed: Vec<String> = FabricParams::SPECS
        .iter()
        .filter_map(|s| {
            let (a, b) = (now.get(s.name)?, saved.get(s.name)?);
            (a != b).then(|| format!("{} {} -> {}", s.label, fmt_num(a), fmt_num(b)))
        })
        .collect();
    let more = changed.len().saturating_sub(6);
    let mut text = changed.into_iter().take(6).collect::<Vec<_>>().join(", ");
    if more > 0 {
        text += &format!(" and {more} more");
    }
    text
}

/// The knob's value as stored (the shortest text of its 32-bit float): 0.006018 stays 0.006018
/// rather than rounding to a value it is not.
fn fmt_num(v: f64) -> String {
    format!("{}", v as f32)
}

fn describe_source(source: Option<&Path>) -> String {
    match source {
        Some(p) => p.display().to_string(),
        None => "a new preset never saved".to_string(),
    }
}

fn age(written_unix: u64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let s = now.saturating_sub(written_unix);
    match s {
        0..=59 => format!("{s} s ago"),
        60..=3599 => format!("{} min ago", s / 60),
        3600..=172_799 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}
