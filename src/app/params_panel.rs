//! The parameter panel: one widget per [`FabricParams`] field, grouped as the artist thinks
//! ([`ParamGroup`]), with the unit, the tooltip from [`FabricParams::SPECS`], and double-click
//! to return a knob to the preset's value.
//!
//! The struct is destructured without `..`: a new field with no widget here does not compile.

use eframe::egui;
use egui::{Slider, Ui};

use crate::sim::{FabricParams, ParamGroup, ParamKind, ParamSpec};

/// A mutable handle on one field.
enum Knob<'a> {
    Float(&'a mut f32),
    Int(&'a mut u32),
    Bool(&'a mut bool),
}

/// Draws the panel. `preset` holds the values double-click returns to. Returns true when a
/// knob was returned to its preset value by double-click (a finished edit on its own).
pub fn params_panel(ui: &mut Ui, params: &mut FabricParams, preset: &FabricParams) -> bool {
    let FabricParams {
        timestep_hz,
        substeps,
        iterations,
        gravity,
        damping,
        contact_damping,
        stretch_stiffness,
        shear_bend_stiffness,
        mass_falloff,
        hard_constraints,
        deformation_limit,
        max_stretch_ratio,
        edge_damping,
        edge_wind_scale,
        edge_world_motion_fraction,
        edge_max_distance_scale,
        wind_direction_deg,
        wind_speed,
        wind_drag,
        gust_amplitude,
        gust_frequency,
        world_motion_fraction,
        max_distance_top,
        max_distance_hem,
        max_distance_exponent,
        collision_margin,
    } = params;
    let deformation_on = *deformation_limit;
    let mut knobs: Vec<(&'static str, Knob)> = vec![
        ("timestep_hz", Knob::Float(timestep_hz)),
        ("substeps", Knob::Int(substeps)),
        ("iterations", Knob::Int(iterations)),
        ("gravity", Knob::Float(gravity)),
        ("damping", Knob::Float(damping)),
        ("contact_damping", Knob::Float(contact_damping)),
        ("stretch_stiffness", Knob::Float(stretch_stiffness)),
        ("shear_bend_stiffness", Knob::Float(shear_bend_stiffness)),
        ("mass_falloff", Knob::Float(mass_falloff)),
        ("hard_constraints", Knob::Bool(hard_constraints)),
        ("deformation_limit", Knob::Bool(deformation_limit)),
        ("max_stretch_ratio", Knob::Float(max_stretch_ratio)),
        ("edge_damping", Knob::Float(edge_damping)),
        ("edge_wind_scale", Knob::Float(edge_wind_scale)),
        (
            "edge_world_motion_fraction",
            Knob::Float(edge_world_motion_fraction),
        ),
        (
            "edge_max_distance_scale",
            Knob::Float(edge_max_distance_scale),
        ),
        ("wind_direction_deg", Knob::Float(wind_direction_deg)),
        ("wind_speed", Knob::Float(wind_speed)),
        ("wind_drag", Knob::Float(wind_drag)),
        ("gust_amplitude", Knob::Float(gust_amplitude)),
        ("gust_frequency", Knob::Float(gust_frequency)),
        ("world_motion_fraction", Knob::Float(world_motion_fraction)),
        ("max_distance_top", Knob::Float(max_distance_top)),
        ("max_distance_hem", Knob::Float(max_distance_hem)),
        ("max_distance_exponent", Knob::Float(max_distance_exponent)),
        ("collision_margin", Knob::Float(collision_margin)),
    ];

    let mut reset_one = false;
    for group in ParamGroup::ALL {
        egui::CollapsingHeader::new(group.title())
            .default_open(true)
            .show(ui, |ui| {
                for spec in FabricParams::SPECS.iter().filter(|s| s.group == group) {
                    let Some((_, knob)) = knobs.iter_mut().find(|(n, _)| *n == spec.name) else {
                        // A SPECS row without a field here: make it loud, not silent.
                        ui.colored_label(
                            ui.visuals().error_fg_color,
                            format!("{}: no widget", spec.name),
                        );
                        continue;
                    };
                    let enabled = spec.name != "max_stretch_ratio" || deformation_on;
                    let preset_value = preset.get(spec.name).unwrap_or(spec.default);
                    reset_one |= ui
                        .add_enabled_ui(enabled, |ui| knob_widget(ui, spec, knob, preset_value))
                        .inner;
                }
            });
    }
    reset_one
}

/// One knob: a slider with unit (or a checkbox), its tooltip, and double-click to the preset's
/// value. Returns true on that double-click reset.
fn knob_widget(ui: &mut Ui, spec: &ParamSpec, knob: &mut Knob, preset_value: f64) -> bool {
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
        Knob::Float(v) => {
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
            ui.add(slider)
        }
        Knob::Int(v) => ui.add(
            Slider::new(&mut **v, spec.min as u32..=spec.max as u32)
                .text(spec.label)
                .suffix(suffix)
                .clamping(egui::SliderClamping::Edits),
        ),
        Knob::Bool(v) => ui.checkbox(v, spec.label),
    };
    let response = response.on_hover_text(tooltip);
    let double_clicked = response.hovered()
        && ui.input(|i| {
            i.pointer
                .button_double_clicked(egui::PointerButton::Primary)
        });
    if double_clicked && !matches!(knob, Knob::Bool(_)) {
        match knob {
            Knob::Float(v) => **v = preset_value as f32,
            Knob::Int(v) => **v = preset_value.round().max(0.0) as u32,
            Knob::Bool(v) => **v = preset_value >= 0.5,
        }
        return true;
    }
    false
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
