//! The tuner window driven by label through egui_kittest (no GPU: the 3D viewport is skipped).
#![cfg(feature = "gui")]

use cloth_tuner::preset::Preset;
use cloth_tuner::sim::{FabricParams, ParamKind};
use common::{harness, type_path};
use eframe::egui;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;

use crate::common;

#[test]
fn every_fabric_param_has_a_widget() {
    let h = harness();
    for spec in FabricParams::SPECS {
        let role = match spec.kind {
            ParamKind::Bool => Role::CheckBox,
            ParamKind::Int | ParamKind::Float => Role::Slider,
        };
        assert!(
            h.query_by_role_and_label(role, spec.label).is_some(),
            "no {role:?} labelled {:?} for field `{}`",
            spec.label,
            spec.name
        );
    }
}

#[test]
fn moving_a_slider_changes_the_simulation_parameter_and_undo_redo_restore_it() {
    let mut h = harness();
    let before = h.state().params().damping;
    h.get_by_role_and_label(Role::Slider, "Damping")
        .set_value_accesskit(0.5);
    h.run();
    assert_eq!(h.state().params().damping, 0.5);
    assert_eq!(h.state().scene().params().damping, 0.5, "not applied live");
    assert!(
        h.state().window_title().contains('*'),
        "{}",
        h.state().window_title()
    );

    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(h.state().params().damping, before);
    assert_eq!(h.state().scene().params().damping, before);
    assert!(!h.state().window_title().contains('*'));

    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::Z,
    );
    h.run();
    assert_eq!(h.state().scene().params().damping, 0.5);

    // The Edit menu does the same.
    h.get_by_label("Edit").click();
    h.run();
    h.get_by_label_contains("Undo").click();
    h.run();
    assert_eq!(h.state().scene().params().damping, before);
}

#[test]
fn the_tear_ratio_slider_goes_from_off_straight_to_its_first_tearing_value() {
    // Between 0 and 1.1 every link at rest length would tear at once: a drag lands on the
    // nearer end instead of shredding the jacket.
    let mut h = harness();
    for (dragged, lands) in [(0.4, 0.0), (0.7, 1.1), (1.6, 1.6)] {
        h.get_by_role_and_label(Role::Slider, "Tear ratio")
            .set_value_accesskit(dragged);
        h.run();
        assert_eq!(h.state().params().tear_ratio, lands, "dragged to {dragged}");
        assert_eq!(h.state().scene().params().tear_ratio, lands);
    }
}

#[test]
fn a_checkbox_switches_a_param_live() {
    let mut h = harness();
    let before = h.state().params().hard_constraints;
    h.get_by_role_and_label(Role::CheckBox, "Hard constraints")
        .click();
    h.run();
    assert_eq!(h.state().scene().params().hard_constraints, !before);
}

#[test]
fn loading_an_invalid_preset_shows_the_error_and_keeps_the_params() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    let text = cloth_tuner::app::SHIPPED[0]
        .1
        .replace("\"damping\": 0.0096", "\"damping\": 7.5");
    assert_ne!(
        text,
        cloth_tuner::app::SHIPPED[0].1,
        "the fixture edit did not apply"
    );
    std::fs::write(&bad, text).unwrap();

    let mut h = harness();
    let params = h.state().params().clone();
    let name = h.state().preset().name.clone();
    type_path(&mut h, "Open…", &bad);
    let err = h.state().error().expect("an error is shown").to_string();
    assert!(
        err.contains("bad.json") && err.contains("params.damping") && err.contains("0 to 1"),
        "{err}"
    );
    assert!(
        h.query_by_label_contains("params.damping").is_some(),
        "the message is not in the window"
    );
    assert_eq!(h.state().params(), &params);
    assert_eq!(h.state().scene().params(), &params);
    assert_eq!(h.state().preset().name, name);
}

#[test]
fn save_as_then_open_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.json");
    let mut h = harness();
    h.get_by_role_and_label(Role::Slider, "Wind speed")
        .set_value_accesskit(12.0);
    h.get_by_role_and_label(Role::Slider, "Iterations")
        .set_value_accesskit(9.0);
    h.run();
    type_path(&mut h, "Save As…", &path);
    assert_eq!(h.state().error(), None);
    assert!(!h.state().is_dirty());
    let saved = Preset::load(&path).expect("the saved file loads");
    assert_eq!(&saved.params, h.state().params());
    assert_eq!(saved.params.wind_speed, 12.0);
    assert_eq!(saved.params.iterations, 9);

    // Change something, then open the file again (discarding the change when asked).
    h.get_by_role_and_label(Role::Slider, "Wind speed")
        .set_value_accesskit(3.0);
    h.run();
    type_path(&mut h, "Open…", &path);
    h.get_by_label("Discard").click();
    h.run();
    assert_eq!(h.state().params(), &saved.params);
    assert_eq!(h.state().scene().params(), &saved.params);
    assert_eq!(h.state().preset(), &saved);
}

#[test]
fn opening_with_unsaved_changes_asks_first_and_cancel_keeps_them() {
    let mut h = harness();
    h.get_by_role_and_label(Role::Slider, "Gravity")
        .set_value_accesskit(20.0);
    h.run();
    let tweed = cloth_tuner::app::presets_dir().join("tweed.json");
    type_path(&mut h, "Open…", &tweed);
    h.get_by_label("Cancel").click();
    h.run();
    assert_eq!(h.state().params().gravity, 20.0);
    assert!(h.state().is_dirty());
}

#[test]
fn switching_clips_works() {
    let mut h = harness();
    assert_eq!(h.state().scene().clip_name(), "walk");
    h.get_by_role_and_label(Role::ComboBox, "Clip").click();
    h.run();
    h.get_by_label("run").click();
    h.run();
    assert_eq!(h.state().scene().clip_name(), "run");
    assert_eq!(h.state().scene().time(), 0.0);
    // One fixed step with the period key.
    h.key_press(egui::Key::Period);
    h.run();
    let dt = 1.0 / h.state().params().timestep_hz as f64;
    assert!((h.state().scene().time() - dt).abs() < 1e-9);
    h.key_press(egui::Key::R);
    h.run();
    assert_eq!(h.state().scene().time(), 0.0);
}

#[test]
fn the_simulation_advances_in_fixed_steps_with_a_cap() {
    let mut h = harness();
    let app = h.state_mut();
    app.set_playing(true);
    let hz = app.params().timestep_hz as f64;
    // A 5 s hitch takes at most the cap's worth of steps.
    let steps = app.playback_mut().advance(5.0);
    assert_eq!(steps, cloth_tuner::app::MAX_STEPS_PER_FRAME);
    let t = app.scene().time();
    assert!((t - steps as f64 / hz).abs() < 1e-9, "{t}");
}

#[test]
fn opening_a_preset_with_more_decimals_than_a_slider_shows_changes_nothing() {
    // Hand-edited or converted presets carry values like 0.006018; the sliders show four
    // decimals. Drawing them must not round the value (which would change the fabric and mark
    // the file as changed just by opening it).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fine.json");
    let mut preset = cloth_tuner::app::shipped(0);
    preset.params.damping = 0.006_018;
    preset.params.contact_damping = 0.163_33;
    preset.params.max_stretch_ratio = 1.081_234;
    preset.save(&path).unwrap();
    let mut h = harness();
    type_path(&mut h, "Open…", &path);
    for _ in 0..3 {
        h.run();
    }
    assert_eq!(h.state().error(), None);
    assert_eq!(h.state().params(), &preset.params);
    assert_eq!(h.state().scene().params(), &preset.params);
    assert!(
        !h.state().is_dirty() && !h.state().window_title().contains('*'),
        "{}",
        h.state().window_title()
    );
}

#[test]
fn commands_take_effect_after_the_frame_and_a_bad_clip_changes_nothing() {
    use cloth_tuner::app::Command;
    let mut h = harness();
    let ctx = h.ctx.clone();
    let clip = h.state().scene().clip_name().to_string();
    h.state_mut()
        .apply(&ctx, Command::SetClip("no_such_clip".into()));
    let error = h.state().error().expect("an error").to_string();
    assert!(error.contains("no_such_clip"), "{error}");
    assert_eq!(h.state().scene().clip_name(), clip);

    // A knob edit is one undo step, and undo puts the simulation's knobs back too.
    let before = h.state().params().clone();
    let mut params = before.clone();
    params.damping = 0.3;
    h.state_mut().apply(
        &ctx,
        Command::EditParams {
            params,
            reset_one: false,
            pointer_down: false,
        },
    );
    assert_eq!(h.state().scene().params().damping, 0.3);
    assert!(h.state().is_dirty());
    h.state_mut().apply(&ctx, Command::Undo);
    assert_eq!(h.state().scene().params(), &before);
    assert!(!h.state().is_dirty());
}

#[test]
fn view_quality_is_picked_in_the_view_menu_and_automatic_says_what_it_chose() {
    use cloth_tuner::render::Quality;
    let mut h = harness();
    assert_eq!(h.state().quality(), Quality::Automatic);
    h.get_by_label("View").click();
    h.run();
    // This harness has no OpenGL, which is no software rasteriser: Automatic means Full.
    assert!(h.query_by_label("Automatic (Full on no OpenGL)").is_some());
    let smooth = |ctx: &egui::Context| ctx.tessellation_options(|o| o.feathering);
    assert!(smooth(&h.ctx), "Full draws the panels' shapes anti-aliased");
    h.get_by_label("Fast (1/2 resolution)").click();
    h.run();
    assert_eq!(h.state().quality(), Quality::Fast);
    assert!(
        !smooth(&h.ctx),
        "Fast draws the panels' shapes without anti-aliasing"
    );
    h.get_by_label("View").click();
    h.run();
    h.get_by_label("Balanced (3/4 resolution)").click();
    h.run();
    assert_eq!(h.state().quality(), Quality::Balanced);
    assert!(
        smooth(&h.ctx),
        "Balanced draws the panels' shapes anti-aliased"
    );
}

#[test]
fn the_hood_knobs_sit_in_their_own_group_say_what_they_affect_and_undo() {
    let mut h = harness();
    assert!(h.query_by_label("Hood").is_some(), "no Hood group");
    for name in ["hood_damping", "hood_stiffness", "hood_swing_limit_deg"] {
        let spec = FabricParams::spec(name).unwrap();
        assert_eq!(spec.group, cloth_tuner::sim::ParamGroup::Hood, "{name}");
        // Shown for every garment, so the tooltip says it only moves the hood.
        assert!(spec
            .tooltip
            .starts_with("Only affects the hooded jacket's hood"));
    }
    let before = h.state().params().hood_swing_limit_deg;
    h.get_by_role_and_label(Role::Slider, "Hood swing limit")
        .set_value_accesskit(45.0);
    h.run();
    assert_eq!(h.state().scene().params().hood_swing_limit_deg, 45.0);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(h.state().scene().params().hood_swing_limit_deg, before);
}

#[test]
fn the_params_panel_shows_the_garments_mass_from_its_areal_density() {
    // What the engine exports give the garment: its rest area times the areal density.
    let mut h = harness();
    let area = cloth_tuner::sim::mass::rest_area_m2(h.state().scene().cloth().topology());
    let gsm = h.state().params().areal_density_gsm;
    let text = cloth_tuner::app::params_panel::total_mass_text(gsm, area);
    assert!(h.query_by_label(&text).is_some(), "no label {text:?}");
    h.get_by_role_and_label(Role::Slider, "Areal density")
        .set_value_accesskit(1000.0);
    h.run();
    let heavier = cloth_tuner::app::params_panel::total_mass_text(1000.0, area);
    assert!(h.query_by_label(&heavier).is_some(), "no label {heavier:?}");
    assert!(heavier.contains(&format!("{:.2} kg", area)), "{heavier}");
}
