//! The fold lines of the preset's garment in the parameter panel: a small list, each line's
//! axis and index editable, a button to remove it, and buttons to add a row or a column.
//! Every change rebuilds the cloth (the bend links are part of its topology) and restarts the
//! clip.

use eframe::egui;
use egui::Ui;

use super::command::Command;
use crate::preset::Garment;
use crate::sim::{FoldAxis, FoldLine};

/// The list; pushes [`Command::SetFoldLines`] with the edited list when anything changes.
pub(super) fn fold_lines_ui(
    ui: &mut Ui,
    lines: &[FoldLine],
    garment: Garment,
    out: &mut Vec<Command>,
) {
    let (cols, rows) = garment.grid();
    let last = |axis: FoldAxis| match axis {
        FoldAxis::Row => rows.saturating_sub(2).max(1),
        FoldAxis::Column => cols.saturating_sub(2).max(1),
    };
    let mut edited = lines.to_vec();
    let mut remove = None;
    egui::CollapsingHeader::new(format!("Fold lines ({})", lines.len()))
        .id_salt("fold_lines")
        .show(ui, |ui| {
            ui.label("Rows or columns of the simulation grid with no bend links across them: the fabric creases there.")
                .on_hover_text("Drawn in magenta in the simulation-mesh overlay. Row 1 is just below the pinned top row; columns count from the right front edge.");
            for (k, line) in edited.iter_mut().enumerate() {
                ui.horizontal(|ui| {
                    let label = ui.label(format!("Line {}", k + 1));
                    egui::ComboBox::from_id_salt(("fold_axis", k))
                        .selected_text(line.axis.as_str())
                        .show_ui(ui, |ui| {
                            for axis in [FoldAxis::Row, FoldAxis::Column] {
                                ui.selectable_value(&mut line.axis, axis, axis.as_str());
                            }
                        })
                        .response
                        .labelled_by(label.id);
                    line.index = line.index.clamp(1, last(line.axis));
                    ui.add(egui::DragValue::new(&mut line.index).range(1..=last(line.axis)))
                        .labelled_by(label.id);
                    if ui.button("Remove").clicked() {
                        remove = Some(k);
                    }
                });
            }
            ui.horizontal(|ui| {
                for (axis, label) in [(FoldAxis::Row, "Add row"), (FoldAxis::Column, "Add column")] {
                    let n = last(axis);
                    if ui.button(label).clicked() {
                        // The free line nearest the middle of the grid.
                        let middle = n.div_ceil(2);
                        let free = (0..n)
                            .flat_map(|d| [middle.saturating_sub(d), middle + d])
                            .find(|&index| {
                                (1..=n).contains(&index)
                                    && !edited.contains(&FoldLine { axis, index })
                            });
                        if let Some(index) = free {
                            edited.push(FoldLine { axis, index });
                        }
                    }
                }
            });
        });
    if let Some(k) = remove {
        edited.remove(k);
    }
    if edited != lines {
        out.push(Command::SetFoldLines(edited));
    }
}
