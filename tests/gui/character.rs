//! The tuner on the artist's own character: File > Open character… with a glTF rig written by
//! the asset generator (Mixamo names, 1.6 m), the clip list it brings, going back to the
//! built-in character, and a bad file that changes nothing; the Character window for a rig
//! whose names say nothing (the roles its shape gave, to accept or change), the bone picker
//! for a rig with no humanoid shape, and the ellipsoid scales.
#![cfg(feature = "gui")]

use crate::common;

use cloth_tuner::character::{Character, CharacterSettings, Role as RigRole};
use cloth_tuner_assets::test_rig::{self, test_rig_glb, Naming, RigStyle};
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

/// A tuner that opened a rig with `naming` and a walk, written to `dir/name`: the rig's path
/// and the harness.
fn open_walking_rig(
    dir: &std::path::Path,
    name: &str,
    naming: Naming,
) -> (
    std::path::PathBuf,
    egui_kittest::Harness<'static, cloth_tuner::app::App>,
) {
    let rig = dir.join(name);
    let style = RigStyle {
        naming,
        clips: vec!["walk".into()],
        ..RigStyle::default()
    };
    std::fs::write(&rig, test_rig_glb(&style)).unwrap();
    let mut h = harness();
    type_path(&mut h, "Open character…", &rig);
    (rig, h)
}

/// The rig's name for the built-in bone `builtin` under `naming`.
fn bone_called(naming: Naming, builtin: &str) -> String {
    test_rig::bone_called(naming, builtin).unwrap()
}

#[test]
fn a_rig_whose_names_say_nothing_plays_with_roles_from_its_shape_to_accept_or_change() {
    let dir = tempfile::tempdir().unwrap();
    let (rig, mut h) = open_walking_rig(dir.path(), "custom.glb", Naming::Unknown);
    assert_eq!(h.state().error(), None);
    assert_eq!(
        h.state().character_path(),
        Some(rig.as_path()),
        "the rig plays"
    );
    let editor = h
        .state()
        .character_editor()
        .expect("the Character window opens by itself");
    assert_eq!(editor.by_shape(), RigRole::REQUIRED);
    assert!(editor.missing().is_empty());
    assert_eq!(editor.character(), rig.as_path());
    let calf = bone_called(Naming::Unknown, "calf_l");
    assert_eq!(editor.playing(RigRole::ShinL), Some(calf.as_str()));
    // The window says which roles came from the shape and marks each of them.
    h.get_by_label_contains("they were found from the skeleton's shape: pelvis, spine");
    let shown = h.get_by_role_and_label(Role::ComboBox, "shin_l").value();
    assert_eq!(shown, Some(format!("by shape: {calf}")));

    // Change one through the picker: the pelvis, picked as the artist would.
    let pelvis = bone_called(Naming::Unknown, "pelvis");
    h.get_by_role_and_label(Role::ComboBox, "pelvis").click();
    h.run();
    h.get_by_label(&pelvis).click();
    h.run();
    let picked = h.state().character_editor().unwrap().settings.bones.clone();
    assert_eq!(picked.get(&RigRole::Pelvis), Some(&pelvis), "{picked:?}");

    // Accept the rest: they go into the bone map, which is saved beside the rig.
    h.get_by_label("Accept the bones found by shape").click();
    h.run();
    let editor = h.state().character_editor().unwrap();
    assert_eq!(editor.problem(), None);
    assert!(!editor.is_dirty());
    assert_eq!(editor.by_shape(), [], "every role now comes from the map");
    assert_eq!(editor.settings.bones.len(), RigRole::REQUIRED.len());
    assert!(h
        .query_by_label_contains("found from the skeleton's shape")
        .is_none());
    assert_eq!(h.state().character_path(), Some(rig.as_path()));
    assert_eq!(h.state().scene().clip_name(), "walk");

    // The command line finds the same map beside the character.
    let beside = CharacterSettings::path_beside(&rig);
    assert_eq!(
        h.state().character_editor().unwrap().settings_path(),
        beside
    );
    let loaded = Character::open(&rig, None).expect("the saved map resolves every role");
    assert_eq!(loaded.roles.by_shape(), []);
    let pelvis_bone = loaded.roles.bone(RigRole::Pelvis);
    assert_eq!(loaded.skeleton.bones()[pelvis_bone].name, pelvis);
    let shin = loaded.roles.bone(RigRole::ShinL);
    assert_eq!(loaded.skeleton.bones()[shin].name, calf);
}

#[test]
fn a_rig_with_no_humanoid_shape_opens_the_picker_with_the_missing_roles() {
    let dir = tempfile::tempdir().unwrap();
    let rig = dir.path().join("chain.glb");
    let style = RigStyle {
        naming: Naming::Unknown,
        chain: true,
        clips: Vec::new(),
        ..RigStyle::default()
    };
    std::fs::write(&rig, test_rig_glb(&style)).unwrap();
    let mut h = harness();
    type_path(&mut h, "Open character…", &rig);
    let error = h.state().error().expect("an error").to_string();
    assert!(error.contains("chain.glb"), "{error}");
    assert_eq!(
        h.state().character_path(),
        None,
        "the mannequin still plays"
    );
    let editor = h
        .state()
        .character_editor()
        .expect("the Character window opens");
    assert_eq!(editor.missing(), RigRole::REQUIRED);
    assert_eq!(editor.by_shape(), []);
    h.get_by_label_contains("No bone found for 15 role(s)");

    // Pick the pelvis through the window.
    let pelvis = bone_called(Naming::Unknown, "pelvis");
    h.get_by_role_and_label(Role::ComboBox, "pelvis").click();
    h.run();
    h.get_by_label(&pelvis).click();
    h.run();
    let picked = h.state().character_editor().unwrap().settings.bones.clone();
    assert_eq!(picked.get(&RigRole::Pelvis), Some(&pelvis), "{picked:?}");
}

#[test]
fn scaling_a_roles_ellipsoids_reloads_the_character_and_saves_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let (rig, mut h) = open_walking_rig(dir.path(), "hero.glb", Naming::Mixamo);
    assert_eq!(h.state().error(), None);
    assert!(h.state().character_editor().is_none(), "closed until asked");
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Character settings…").click();
    h.run();
    let thigh_radii = |h: &cloth_tuner::app::App| {
        let c = h.scene().character();
        let bone = c.roles.bone(RigRole::ThighL);
        c.ellipsoids
            .iter()
            .filter(|e| e.bone == bone)
            .map(|e| e.radii)
            .collect::<Vec<_>>()
    };
    let before = thigh_radii(h.state());
    assert!(!before.is_empty());

    h.state_mut()
        .character_editor_mut()
        .expect("the window is open")
        .set_scale(RigRole::ThighL, 1.5);
    h.run();
    h.get_by_label("Apply").click();
    h.run();
    let after = thigh_radii(h.state());
    for (a, b) in after.iter().zip(&before) {
        assert!((*a - *b * 1.5).abs().max_element() < 1e-5, "{a} vs {b}");
    }
    assert!(h.state().character_editor().unwrap().is_dirty());
    let beside = CharacterSettings::path_beside(&rig);
    assert!(!beside.exists(), "Apply does not write");

    // A save that cannot be written (a folder where the file goes): the window names the
    // file, and neither the scene nor the disk changes.
    std::fs::create_dir(&beside).unwrap();
    let editor = h.state_mut().character_editor_mut().unwrap();
    editor.set_scale(RigRole::ShinL, 1.2);
    h.run();
    h.get_by_label("Save").click();
    h.run();
    let editor = h.state().character_editor().unwrap();
    let problem = editor.problem().expect("a problem").to_string();
    assert!(problem.contains("hero.cloth-character.json"), "{problem}");
    assert!(beside.is_dir(), "nothing written");
    assert_eq!(thigh_radii(h.state()), after, "the scene stays as it was");
    assert!(editor.is_dirty(), "the edits are kept");

    std::fs::remove_dir(&beside).unwrap();
    h.get_by_label("Save").click();
    h.run();
    assert_eq!(h.state().character_editor().unwrap().problem(), None);
    let saved = CharacterSettings::load(&beside).unwrap();
    assert_eq!(saved.scale(RigRole::ThighL), 1.5);
    assert_eq!(saved.scale(RigRole::ShinL), 1.2);
    let reloaded = Character::open(&rig, None).unwrap();
    assert_eq!(
        &reloaded.ellipsoids,
        &h.state().scene().character().ellipsoids
    );
}

/// A copy of a Mixamo-named test rig whose first animation's eighth channel aims at a node the file
/// does not have: valid JSON that the `gltf` crate's accessors would panic on.
fn rig_with_a_broken_channel(path: &std::path::Path) {
    let glb = test_rig_glb(&RigStyle {
        naming: Naming::Mixamo,
        ..RigStyle::default()
    });
    std::fs::write(path, common::with_channel_at_a_missing_node(&glb, 0, 7)).unwrap();
}

#[test]
fn a_broken_character_from_the_menu_is_named_and_the_character_playing_stays() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("hero.glb");
    std::fs::write(&good, test_rig_glb(&RigStyle::default())).unwrap();
    let broken = dir.path().join("broken.glb");
    rig_with_a_broken_channel(&broken);
    let mut h = harness();
    type_path(&mut h, "Open character…", &good);
    assert_eq!(h.state().character_path(), Some(good.as_path()));
    type_path(&mut h, "Open character…", &broken);
    let error = h.state().error().expect("an error").to_string();
    assert!(error.contains("broken.glb"), "{error}");
    assert!(
        error.contains("animations[0].channels[7].target.node: 512 is not a node"),
        "{error}"
    );
    assert_eq!(h.state().character_path(), Some(good.as_path()));
    assert_eq!(
        h.state().persisted().character.as_deref(),
        Some(good.as_path())
    );
}

#[test]
fn a_broken_character_at_start_plays_the_builtin_and_is_not_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.glb");
    rig_with_a_broken_channel(&broken);
    // Named on the command line, and remembered from a run when it still loaded.
    let from_command_line = cloth_tuner::app::Options {
        character: Some(broken.clone()),
        ..Default::default()
    };
    let remembered = cloth_tuner::app::Persisted {
        character: Some(broken.clone()),
        ..Default::default()
    };
    let starts = [
        (from_command_line, Default::default()),
        (Default::default(), remembered),
    ];
    for (options, persisted) in starts {
        let h = common::paused_harness(move |cc| {
            cloth_tuner::app::App::with_state(cc, options, persisted)
        });
        let error = h.state().error().expect("an error").to_string();
        assert!(error.contains("broken.glb"), "{error}");
        assert!(error.contains("playing the built-in character"), "{error}");
        assert_eq!(h.state().character_path(), None);
        assert_eq!(h.state().persisted().character, None, "never remembered");
        assert_eq!(
            h.state().scene().character().height(),
            Character::builtin().height()
        );
    }
}

#[test]
fn a_rig_named_at_start_whose_roles_come_from_its_shape_opens_the_character_window() {
    let dir = tempfile::tempdir().unwrap();
    let rig = dir.path().join("public.glb");
    let style = RigStyle {
        naming: Naming::Joints,
        ..RigStyle::default()
    };
    std::fs::write(&rig, test_rig_glb(&style)).unwrap();
    let options = cloth_tuner::app::Options {
        character: Some(rig.clone()),
        ..Default::default()
    };
    let mut h = common::paused_harness(move |cc| {
        cloth_tuner::app::App::with_state(cc, options, Default::default())
    });
    h.run();
    assert_eq!(h.state().error(), None);
    assert_eq!(h.state().character_path(), Some(rig.as_path()));
    let editor = h
        .state()
        .character_editor()
        .expect("the Character window opens by itself");
    assert_eq!(editor.by_shape(), RigRole::REQUIRED);
    h.get_by_label_contains("15 role(s) found from the skeleton's shape");
    h.get_by_label("Accept the bones found by shape");
}
