//! The parameter panel: one widget per [`FabricParams`] field, grouped as the artist thinks
//! ([`ParamGroup`]), with the unit, the tooltip from [`FabricParams::SPECS`], and double-click
//! to return a knob to the preset's value.
//!
//! The widgets come from [`FabricParams::knobs_mut`]: every field has one, with nothing here to
//! keep in step with the struct. Under the areal density the panel shows what the garment
//! weighs ([`crate::sim::mass`]), the mass the engine exports give it.

use eframe::egui;
use egui::{Slider, Ui};

use crate::sim::mass::mass_kg_of;
use crate::sim::{FabricParams, ParamGroup, ParamKind, ParamMut, ParamSpec};

/// Draws the panel. `preset` holds the values double-click returns to; `area_m2` is the
/// garment's rest area, for its total mass. Returns true when a knob was returned to its
/// preset value by double-click (a finished edit on its own).
pub fn params_panel(
    ui: &mut Ui,
    params: &mut FabricParams,
    preset: &FabricParams,
    area_m2: f64,
) -> bool {
    let deformation_on = params.deformation_limit;
    let mut knobs = params.knobs_mut();
    let mut reset_one = false;
    for group in ParamGroup::ALL {
        egui::CollapsingHeader::new(group.title())
            .default_open(true)
            .show(ui, |ui| {
                for (spec, knob) in knobs.iter_mut().filter(|(s, _)| s.group == group) {
                    let enabled = spec.name != "max_stretch_ratio" || deformation_on;
                    let preset_value = preset.get(spec.name).unwrap_or(spec.default);
                    reset_one |= ui
                        .add_enabled_ui(enabled, |ui| knob_widget(ui, spec, knob, preset_value))
                        .inner;
                    if let ParamMut::Float(gsm) = knob {
                        if spec.name == "areal_density_gsm" {
                            ui.label(total_mass_text(**gsm, area_m2)).on_hover_text(
                                "The garment's rest area times the areal density: the \
                                     mass the engine exports give it.",
                            );
                        }
                    }
                }
            });
    }
    reset_one
}

/// One knob: a slider with unit (or a checkbox), its tooltip, and double-click to the preset's
/// value. Returns true on that double-click reset.
fn knob_widget(ui: &mut Ui, spec: &ParamSpec, knob: &mut ParamMut, preset_value: f64) -> bool {
    let tooltip = format!(
        "{}\n\nRange {}. Preset value {}. Double-click to return to it.",
        spec.tooltip,
        spec.range_text(),
        format_value(spec, preset_value)
    );
    let suffix = if spec.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", spec.unit)
    };
    let response = match knob {
        ParamMut::Float(v) => {
            // Clamped and rounded only when the user edits: a value from a file (already
            // range-checked by the loader) is shown as it is, and opening a preset whose
            // values have more decimals than the slider shows does not change them.
            let mut slider = Slider::new(&mut **v, spec.min as f32..=spec.max as f32)
                .text(spec.label)
                .suffix(suffix)
                .clamping(egui::SliderClamping::Edits);
            if spec.max - spec.min <= 2.0 {
                // Four decimals: per-step dampings are a few thousandths at high rates.
                slider = slider.max_decimals(4);
            }
            if spec.min > 0.0 && spec.max / spec.min.max(1e-9) > 100.0 {
                slider = slider.logarithmic(true);
            }
            // Per-step dampings live in the first few hundredths of their 0 to 1 range (the
            // shipped presets: 0.003 to 0.16): on a logarithmic rail from 0.0001 they get most
            // of the slider's length, and 0 stays at the left end.
            if spec.unit == "per step" && spec.min == 0.0 {
                slider = slider.logarithmic(true).smallest_positive(1e-4);
            }
            let response = ui.add(slider);
            // A knob that is off at its minimum jumps from off to its first on value.
            if response.changed() {
                **v = spec.snap(**v as f64) as f32;
            }
            response
        }
        ParamMut::Int(v) => ui.add(
            Slider::new(&mut **v, spec.min as u32..=spec.max as u32)
                .text(spec.label)
                .suffix(suffix)
                .clamping(egui::SliderClamping::Edits),
        ),
        ParamMut::Bool(v) => ui.checkbox(v, spec.label),
    };
    let response = response.on_hover_text(tooltip);
    let double_clicked = response.hovered()
        && ui.input(|i| {
            i.pointer
                .button_double_clicked(egui::PointerButton::Primary)
        });
    if double_clicked && !matches!(knob, ParamMut::Bool(_)) {
        match knob {
            ParamMut::Float(v) => **v = preset_value as f32,
            ParamMut::Int(v) => **v = preset_value.round().max(0.0) as u32,
            ParamMut::Bool(v) => **v = preset_value >= 0.5,
        }
        return true;
    }
    false
}

/// "Garment mass 0.46 kg (1.15 m²)".
pub fn total_mass_text(gsm: f32, area_m2: f64) -> String {
    format!(
        "Garment mass {:.2} kg ({:.2} m²)",
        mass_kg_of(gsm, area_m2),
        area_m2
    )
}

fn format_value(spec: &ParamSpec, v: f64) -> String {
    match spec.kind {
        ParamKind::Bool => if v >= 0.5 { "on" } else { "off" }.to_string(),
        ParamKind::Int => format!("{v}"),
        ParamKind::Float => format!(
            "{}{}{}",
            v as f32,
            if spec.unit.is_empty() { "" } else { " " },
            spec.unit
        ),
    }
}
