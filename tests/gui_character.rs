//! The tuner on the artist's own character: File > Open character… with a glTF rig written by
//! the asset generator (Mixamo names, 1.6 m), the clip list it brings, going back to the
//! built-in character, and a bad file that changes nothing.
#![cfg(feature = "gui")]

mod common;

use cloth_tuner_assets::test_rig::{test_rig_glb, Naming, RigStyle};
use common::{harness, type_path};
use eframe::egui::accesskit::Role;
use egui_kittest::kittest::Queryable;

#[test]
fn open_character_plays_the_preset_on_the_file_and_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let rig = dir.path().join("hero.glb");
    let style = RigStyle {
        naming: Naming::Mixamo,
        scale: 1.6 / 1.8,
        clips: vec!["walk".into(), "dodge".into()],
        ..RigStyle::default()
    };
    std::fs::write(&rig, test_rig_glb(&style)).unwrap();
    let mut h = harness();
    let preset = h.state().preset().clone();
    type_path(&mut h, "Open character…", &rig);
    assert_eq!(h.state().error(), None);
    assert_eq!(h.state().character_path(), Some(rig.as_path()));
    let scene = h.state().scene();
    let height = scene.character().height();
    assert!((height - 1.6).abs() < 0.05, "{height} m tall");
    assert_eq!(scene.clip_name(), "walk", "the clip playing is kept");
    assert!(scene.clip_names().iter().any(|c| c == "dodge"));
    assert_eq!(h.state().preset(), &preset, "the fabric does not change");
    for _ in 0..30 {
        h.key_press(eframe::egui::Key::Period);
    }
    h.run();
    assert_eq!(h.state().scene().cloth().stats().resets, 0);

    // Back to the mannequin.
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Built-in character").click();
    h.run();
    assert_eq!(h.state().character_path(), None);
    assert!((h.state().scene().character().height() - 1.6).abs() > 0.1);
}

#[test]
fn a_file_that_is_not_a_character_is_named_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("notes.glb");
    std::fs::write(&bad, b"not a glTF file").unwrap();
    let mut h = harness();
    let clip = h.state().scene().clip_name().to_string();
    type_path(&mut h, "Open character…", &bad);
    let error = h.state().error().expect("an error").to_string();
    assert!(error.contains("notes.glb"), "{error}");
    assert_eq!(h.state().character_path(), None);
    assert_eq!(h.state().scene().clip_name(), clip);
}

#[test]
fn export_for_engine_writes_the_files_and_lists_what_does_not_carry_over() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tweed_jolt.json");
    let mut h = harness();
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Export for engine").click();
    h.run();
    h.get_by_label("Jolt Physics (soft body)").click();
    h.run();
    h.get_by_role_and_label(Role::TextInput, "Path")
        .set_text_value_accesskit(&out.display().to_string());
    h.run();
    h.get_by_label("Export").click();
    h.run();
    assert_eq!(h.state().error(), None);
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(settings.is_object());
    assert!(out.with_extension("particles.csv").exists());
    assert!(out.with_extension("cpp").exists());
    let report = h.state().export_report().expect("a report").to_string();
    assert!(report.contains("tweed_jolt.json"), "{report}");
    assert!(report.contains("world_motion_fraction"), "{report}");
    h.get_by_label("OK").click();
    h.run();
    assert!(h.state().export_report().is_none());

    // A folder that does not exist: the error names it and nothing is written.
    let missing = dir.path().join("no_such_folder").join("x.json");
    let ctx = h.ctx.clone();
    h.state_mut().apply(
        &ctx,
        cloth_tuner::app::Command::ExportFor(cloth_tuner::export::Engine::Unity, missing.clone()),
    );
    let error = h.state().error().expect("an error").to_string();
    assert!(error.contains("no_such_folder"), "{error}");
    assert!(!missing.exists());
}
