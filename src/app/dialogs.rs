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
        if let Some(dialog) = self.path_dialog.as_mut() {
            path_dialog(dialog, ctx, out);
        }
        while let Ok((save, picked)) = self.file_picks.1.try_recv() {
            match picked {
                Some(p) => {
                    out.push(Command::ClosePathDialog);
                    out.push(if save {
                        Command::SaveAs(p)
                    } else {
                        Command::Open(p)
                    });
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
            ui.label(format!(
                "{} has unsaved changes. Discard them?",
                self.doc.preset().name
            ));
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

/// The typed-path dialog: Open/Save with the typed path, Browse for the native picker.
fn path_dialog(d: &mut PathDialog, ctx: &egui::Context, out: &mut Vec<Command>) {
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
                let path = PathBuf::from(d.text.trim());
                out.push(Command::ClosePathDialog);
                out.push(if d.save {
                    Command::SaveAs(path)
                } else {
                    Command::Open(path)
                });
            }
            if ui.button("Browse…").clicked() {
                out.push(Command::Browse { save: d.save });
            }
            if ui.button("Cancel").clicked() {
                out.push(Command::ClosePathDialog);
            }
        });
    });
}
