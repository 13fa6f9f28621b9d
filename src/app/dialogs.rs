//! The file dialogs: "discard unsaved changes?", the typed-path dialog and the native file
//! picker's answers. Like the panels, they push [`Command`]s; the typed path is the dialog's
//! own text and is edited in place.

use std::path::PathBuf;

use eframe::egui;

use super::command::Command;
use super::{App, PathDialog};

impl App {
    pub(super) fn dialogs(&mut self, ctx: &egui::Context, out: &mut Vec<Command>) {
        if self.pending.is_some() {
            self.discard_dialog(ctx, out);
        }
        if let Some(report) = &self.export_report {
            export_report(report, ctx, out);
        }
        self.character_window(ctx, out);
        self.garment_window(ctx, out);
        self.bake_window(ctx, out);
        if let Some(dialog) = self.path_dialog.as_mut() {
            path_dialog(dialog, ctx, out);
        }
        while let Ok((task, picked)) = self.file_picks.1.try_recv() {
            match picked {
                Some(p) => {
                    out.push(Command::ClosePathDialog);
                    out.push(task.command(p));
                }
                None => {
                    self.status =
                        "No file picked (or no native file dialog here): type the path".into();
                }
            }
        }
    }

    fn discard_dialog(&self, ctx: &egui::Context, out: &mut Vec<Command>) {
        egui::Modal::new(egui::Id::unique("discard")).show(ctx, |ui| {
            ui.heading("Unsaved changes");
            let names = self
                .pending
                .as_ref()
                .and_then(|p| self.pending_discards(p))
                .unwrap_or_else(|| self.doc.preset().name.clone());
            ui.label(format!("{names}: unsaved changes. Discard them?"));
            ui.horizontal(|ui| {
                if ui.button("Discard").clicked() {
                    out.push(Command::AnswerDiscard(true));
                }
                if ui.button("Cancel").clicked() {
                    out.push(Command::AnswerDiscard(false));
                }
            });
        });
    }
}

/// What the last engine export wrote and lost, until OK.
fn export_report(report: &str, ctx: &egui::Context, out: &mut Vec<Command>) {
    egui::Window::new("Export for engine")
        .collapsible(false)
        .show(ctx, |ui| {
            ui.set_max_width(560.0);
            ui.label(report);
            if ui.button("OK").clicked() {
                out.push(Command::DismissExportReport);
            }
        });
}

/// The typed-path dialog: Open/Save with the typed path, Browse for the native picker.
fn path_dialog(d: &mut PathDialog, ctx: &egui::Context, out: &mut Vec<Command>) {
    egui::Window::new(d.task.title())
        .collapsible(false)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                let label = ui.label("Path");
                ui.add(egui::TextEdit::singleline(&mut d.text).desired_width(360.0))
                    .labelled_by(label.id);
            });
            ui.horizontal(|ui| {
                if ui.button(d.task.button()).clicked() {
                    out.push(Command::ClosePathDialog);
                    out.push(d.task.command(PathBuf::from(d.text.trim())));
                }
                if ui.button("Browse…").clicked() {
                    out.push(Command::Browse(d.task));
                }
                if ui.button("Cancel").clicked() {
                    out.push(Command::ClosePathDialog);
                }
            });
        });
}
