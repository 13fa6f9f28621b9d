//! Work is never lost, in the window (egui_kittest, no GPU): failed saves are a dialog and keep
//! the tweaks, the autosave is written while the parameters change and offered back at start,
//! a drawing failure keeps (and autosaves) the parameters, files that are not presets change
//! nothing, and a cloth reset shows a notice.
#![cfg(feature = "gui")]

use std::path::{Path, PathBuf};

use cloth_tuner::app::autosave::{Autosave, FILE_NAME};
use cloth_tuner::app::{App, Options};
use cloth_tuner::preset::Preset;
use eframe::egui;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;

use common::{tweed_copy, type_path};

use crate::common;

fn build(preset: Option<PathBuf>, autosave_dir: Option<PathBuf>) -> Harness<'static, App> {
    common::paused_harness(move |cc| {
        let app = App::with_options(
            cc,
            Options {
                preset,
                ..Default::default()
            },
        );
        match &autosave_dir {
            Some(d) => app.with_autosave_dir(d),
            None => app,
        }
    })
}

fn harness() -> Harness<'static, App> {
    build(None, None)
}

fn set_slider(h: &mut Harness<'static, App>, label: &str, value: f64) {
    h.get_by_role_and_label(Role::Slider, label)
        .set_value_accesskit(value);
    h.run();
}

/// Two separate slider edits (two undo steps), returning the damping before them.
fn tweak(h: &mut Harness<'static, App>) -> f32 {
    let before = h.state().params().damping;
    set_slider(h, "Damping", 0.5);
    set_slider(h, "Gravity", 20.0);
    assert_eq!(h.state().params().damping, 0.5);
    assert_eq!(h.state().params().gravity, 20.0);
    assert!(h.state().is_dirty());
    before
}

/// The dialog shows `expect` in the window, the tweaks and their undo history stay, and OK
/// closes it.
fn assert_save_failed_and_kept(h: &mut Harness<'static, App>, file: &str, reason: &str) {
    let msg = h
        .state()
        .save_error()
        .expect("a save-error dialog is shown")
        .to_string();
    assert!(msg.contains(file) && msg.contains(reason), "{msg}");
    assert!(h.query_by_label("Could not save").is_some(), "no dialog");
    assert!(
        h.query_all_by_label_contains(reason).count() >= 1,
        "the reason is not in the window"
    );
    assert_eq!(h.state().params().damping, 0.5);
    assert_eq!(h.state().params().gravity, 20.0);
    assert_eq!(h.state().scene().params().gravity, 20.0);
    assert!(h.state().is_dirty());
    assert!(h.state().window_title().contains('*'));
    h.get_by_label("OK").click();
    h.run();
    assert!(h.state().save_error().is_none());
    assert!(h.query_by_label("Could not save").is_none());
    // The undo history is intact: two steps back to where we started.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_ne!(h.state().params().gravity, 20.0);
    assert_eq!(h.state().params().damping, 0.5);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_ne!(h.state().params().damping, 0.5);
}

#[test]
fn saving_into_a_missing_folder_is_a_dialog_and_the_tweaks_stay() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("no_such_folder").join("mine.json");
    let mut h = harness();
    tweak(&mut h);
    type_path(&mut h, "Save As…", &target);
    assert!(!target.exists());
    assert_save_failed_and_kept(
        &mut h,
        "no_such_folder/mine.json",
        "No such file or directory",
    );
}

#[test]
fn saving_under_a_regular_file_as_folder_is_a_dialog_and_the_tweaks_stay() {
    // Fails for root too: a file cannot hold another file.
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("notes.txt");
    std::fs::write(&blocker, "not a folder").unwrap();
    let target = blocker.join("mine.json");
    let mut h = harness();
    tweak(&mut h);
    type_path(&mut h, "Save As…", &target);
    assert_save_failed_and_kept(&mut h, "notes.txt/mine.json", "Not a directory");
    assert_eq!(std::fs::read_to_string(&blocker).unwrap(), "not a folder");
}

#[test]
fn saving_over_a_read_only_file_is_a_dialog_and_the_file_and_tweaks_stay() {
    let dir = tempfile::tempdir().unwrap();
    let path = tweed_copy(dir.path());
    let mut h = build(Some(path.clone()), None);
    assert_eq!(h.state().preset_path(), Some(path.as_path()));
    tweak(&mut h);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    // File > Save (to the file it came from). The refusal does not depend on who runs the
    // test: root could write the file, but a read-only preset is never replaced.
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Save").click();
    h.run();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        cloth_tuner::app::SHIPPED[0].1,
        "the read-only file was changed"
    );
    assert_save_failed_and_kept(&mut h, "tweed.json", "read-only");
}

/// Files that are not presets for this build, each refused with the loader's own message.
fn not_presets(dir: &Path) -> Vec<PathBuf> {
    let newer = dir.join("from_the_future.json");
    let current = format!("\"version\": {}", cloth_tuner::preset::VERSION);
    let shipped = cloth_tuner::app::SHIPPED[2].1;
    assert!(
        shipped.contains(&current),
        "the shipped veil is not at {current}"
    );
    std::fs::write(&newer, shipped.replacen(&current, "\"version\": 7", 1)).unwrap();
    let png = dir.join("picture.png");
    let golden = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "png"))
        .expect("a golden PNG");
    std::fs::copy(golden, &png).unwrap();
    let array = dir.join("array.json");
    std::fs::write(&array, "[1, 2, 3]\n").unwrap();
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("presets/schema.json");
    vec![newer, png, array, schema]
}

#[test]
fn opening_a_newer_version_or_a_non_preset_changes_nothing_and_shows_why() {
    let dir = tempfile::tempdir().unwrap();
    for path in not_presets(dir.path()) {
        let expected = Preset::load(&path)
            .expect_err("the fixture is refused by the loader")
            .to_string();
        let mut h = harness();
        set_slider(&mut h, "Wind speed", 7.0);
        let before = h.state().preset().clone();
        let path_before = h.state().preset_path().map(Path::to_path_buf);
        type_path(&mut h, "Open…", &path);
        // Unsaved changes: the window asks first; go ahead, the file is refused anyway.
        if h.query_by_label("Discard").is_some() {
            h.get_by_label("Discard").click();
            h.run();
        }
        assert_eq!(h.state().error(), Some(expected.as_str()), "{path:?}");
        assert!(
            h.query_by_label(&expected).is_some(),
            "the loader's message is not in the window: {expected}"
        );
        assert_eq!(h.state().preset(), &before, "{path:?}");
        assert_eq!(h.state().scene().params(), &before.params, "{path:?}");
        assert_eq!(
            h.state().preset_path().map(Path::to_path_buf),
            path_before,
            "{path:?}"
        );
        assert!(h.state().is_dirty(), "the unsaved change was lost");
    }
}

#[test]
fn the_refusals_name_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let msgs: Vec<String> = not_presets(dir.path())
        .iter()
        .map(|p| Preset::load(p).unwrap_err().to_string())
        .collect();
    assert!(
        msgs[0].contains("version 7") && msgs[0].contains("newer"),
        "{}",
        msgs[0]
    );
    assert!(
        msgs[1].contains("picture.png") && msgs[1].contains("UTF-8"),
        "{}",
        msgs[1]
    );
    assert!(msgs[2].contains("not a cloth-tuner preset"), "{}", msgs[2]);
    assert!(
        msgs[3].contains("schema.json") && msgs[3].contains("not a cloth-tuner preset"),
        "{}",
        msgs[3]
    );
}

#[test]
fn changes_are_autosaved_with_their_source_and_saving_removes_the_autosave() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let path = tweed_copy(dir.path());
    let mut h = build(Some(path.clone()), Some(state.clone()));
    let file = state.join(FILE_NAME);
    assert_eq!(h.state().autosave_path(), Some(file.as_path()));
    assert!(!file.exists(), "nothing unsaved, nothing autosaved");
    set_slider(&mut h, "Damping", 0.5);
    let save = Autosave::load(&file)
        .unwrap()
        .expect("the first change is autosaved at once");
    assert_eq!(save.preset.params.damping, 0.5);
    assert_eq!(&save.preset, h.state().preset());
    assert_eq!(save.source.as_deref(), Some(path.as_path()));
    // Saved: nothing to recover any more.
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Save").click();
    h.run();
    assert_eq!(h.state().error(), None);
    assert_eq!(Preset::load(&path).unwrap().params.damping, 0.5);
    assert!(!file.exists(), "the autosave outlived the save");
}

#[test]
fn a_later_change_within_the_interval_waits_then_lands() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let mut h = build(Some(tweed_copy(dir.path())), Some(state.clone()));
    let file = state.join(FILE_NAME);
    set_slider(&mut h, "Damping", 0.5);
    set_slider(&mut h, "Gravity", 20.0);
    let damped = Autosave::load(&file).unwrap().unwrap();
    assert_eq!(damped.preset.params.damping, 0.5);
    assert_ne!(
        damped.preset.params.gravity, 20.0,
        "written twice within the interval"
    );
    // Let the window's clock run past the interval.
    for _ in 0..(4 * 60) {
        h.step();
    }
    let later = Autosave::load(&file).unwrap().unwrap();
    assert_eq!(later.preset.params.gravity, 20.0);
}

fn no_deformation_limit(h: &mut Harness<'static, App>) {
    if h.state().params().deformation_limit {
        h.get_by_role_and_label(Role::CheckBox, "Deformation limit")
            .click();
        h.run();
    }
    assert!(!h.state().scene().params().deformation_limit);
}

/// A free (not pinned) particle on the last row.
fn hem_particle(h: &Harness<'static, App>) -> usize {
    let topo = h.state().scene().cloth().topology();
    (0..topo.len())
        .rev()
        .find(|&i| !topo.pinned[i])
        .expect("a free particle")
}

fn write_autosave(state: &Path, source: Option<&Path>, damping: f32) -> PathBuf {
    std::fs::create_dir_all(state).unwrap();
    let mut preset = cloth_tuner::app::shipped(0);
    preset.params.damping = damping;
    preset.params.wind_speed = 9.0;
    let file = state.join(FILE_NAME);
    Autosave::new(&preset, source).write(&file).unwrap();
    file
}

#[test]
fn an_autosave_from_a_killed_run_is_offered_and_restore_brings_the_params_back_unsaved() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let path = tweed_copy(dir.path());
    let file = write_autosave(&state, Some(&path), 0.5);
    let mut h = build(Some(path.clone()), Some(state));
    assert!(h.state().restore_offered());
    assert!(h.query_by_label("Restore unsaved work?").is_some());
    assert!(
        h.query_by_label_contains("Damping 0.0096 -> 0.5").is_some(),
        "the dialog does not say what differs"
    );
    // Until answered, the old autosave is left alone.
    assert_eq!(h.state().params().damping, 0.0096);
    h.get_by_label("Restore").click();
    h.run();
    assert!(!h.state().restore_offered());
    assert_eq!(h.state().params().damping, 0.5);
    assert_eq!(h.state().params().wind_speed, 9.0);
    assert_eq!(h.state().scene().params().damping, 0.5, "not applied");
    assert_eq!(h.state().preset_path(), Some(path.as_path()));
    assert!(h.state().is_dirty());
    assert!(h.state().window_title().contains('*'));
    assert!(file.exists(), "the autosave is still needed");
    // Undo goes back to the file's values.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(h.state().params(), &Preset::load(&path).unwrap().params);
}

#[test]
fn discard_removes_the_autosave_and_keeps_what_was_opened() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let path = tweed_copy(dir.path());
    let file = write_autosave(&state, Some(&path), 0.5);
    let mut h = build(Some(path.clone()), Some(state));
    assert!(h.state().restore_offered());
    h.get_by_label("Discard").click();
    h.run();
    assert!(!h.state().restore_offered());
    assert!(!file.exists());
    assert_eq!(h.state().params(), &Preset::load(&path).unwrap().params);
    assert!(!h.state().is_dirty());
}

#[test]
fn an_autosave_of_a_new_preset_restores_as_unsaved_with_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    write_autosave(&state, None, 0.25);
    let mut h = build(Some(tweed_copy(dir.path())), Some(state));
    h.get_by_label("Restore").click();
    h.run();
    assert_eq!(h.state().params().damping, 0.25);
    assert_eq!(h.state().preset_path(), None);
    assert!(h.state().is_dirty());
}

#[test]
fn an_autosave_equal_to_what_opens_is_not_offered() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let path = tweed_copy(dir.path());
    std::fs::create_dir_all(&state).unwrap();
    let file = state.join(FILE_NAME);
    Autosave::new(&Preset::load(&path).unwrap(), Some(&path))
        .write(&file)
        .unwrap();
    let h = build(Some(path), Some(state));
    assert!(!h.state().restore_offered());
    assert!(h.query_by_label("Restore unsaved work?").is_none());
    assert!(!file.exists());
}

#[test]
fn a_broken_autosave_is_reported_and_left_for_rescue() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let file = state.join(FILE_NAME);
    std::fs::write(&file, "{\"format\": \"cloth-tuner-autosave\", \"vers").unwrap();
    let mut h = build(Some(tweed_copy(dir.path())), Some(state));
    assert!(!h.state().restore_offered());
    let err = h.state().error().expect("an error is shown").to_string();
    assert!(err.contains(FILE_NAME), "{err}");
    // A change does not overwrite it.
    set_slider(&mut h, "Damping", 0.5);
    assert!(std::fs::read_to_string(&file).unwrap().ends_with("\"vers"));
}

#[test]
fn a_drawing_failure_keeps_the_params_autosaves_them_at_once_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let mut h = build(Some(tweed_copy(dir.path())), Some(state.clone()));
    let file = state.join(FILE_NAME);
    set_slider(&mut h, "Damping", 0.5);
    // Within the autosave interval: only the failure makes it write again.
    set_slider(&mut h, "Gravity", 20.0);
    assert_ne!(
        Autosave::load(&file)
            .unwrap()
            .unwrap()
            .preset
            .params
            .gravity,
        20.0
    );
    h.state_mut()
        .fail_viewport_drawing("index out of range in the jacket mesh");
    h.run();
    let err = h.state().error().expect("the failure is shown").to_string();
    assert!(
        err.contains("3D view stopped") && err.contains("index out of range in the jacket mesh"),
        "{err}"
    );
    assert!(h.query_by_label_contains("3D view stopped").is_some());
    let save = Autosave::load(&file).unwrap().unwrap();
    assert_eq!(save.preset.params.gravity, 20.0);
    assert_eq!(save.preset.params.damping, 0.5);
    assert_eq!(h.state().params().gravity, 20.0);
    assert!(h.state().viewport_failure().is_some());
    // The window keeps working: sliders still change the simulation.
    set_slider(&mut h, "Wind speed", 4.0);
    assert_eq!(h.state().scene().params().wind_speed, 4.0);
}

#[test]
fn a_cloth_reset_shows_a_notice_that_can_be_dismissed() {
    let mut h = harness();
    assert!(h.state().reset_notice().is_none());
    // Poke the hem a hundred metres away with nothing to pull it back (no relaxation passes,
    // no deformation limit): the explosion check resets the cloth.
    set_slider(&mut h, "Iterations", 0.0);
    no_deformation_limit(&mut h);
    let last = hem_particle(&h);
    h.state_mut()
        .playback_mut()
        .scene_mut()
        .drag(last, Some(glam::Vec3::new(0.0, 100.0, 0.0)));
    h.key_press(egui::Key::Period);
    h.run();
    assert_eq!(h.state().scene().cloth().stats().resets, 1);
    let text = h.state().reset_notice().expect("a notice").to_string();
    assert!(
        text.starts_with("Cloth reset to the reference pose at t="),
        "{text}"
    );
    assert!(
        h.query_by_label_contains("Cloth reset to the reference pose")
            .is_some(),
        "the notice is not in the window"
    );
    // Dismiss (the status bar has no error, so this is the notice's button).
    h.get_all_by_label("Dismiss").last().unwrap().click();
    h.run();
    assert!(h.state().reset_notice().is_none());
    assert!(h
        .query_by_label_contains("Cloth reset to the reference pose")
        .is_none());
}

#[test]
fn the_reset_notice_names_the_knobs_to_try_when_they_are_extreme() {
    let mut h = harness();
    set_slider(&mut h, "Wind speed", 100.0);
    set_slider(&mut h, "Wind drag", 50.0);
    set_slider(&mut h, "Iterations", 0.0);
    no_deformation_limit(&mut h);
    let last = hem_particle(&h);
    h.state_mut()
        .playback_mut()
        .scene_mut()
        .drag(last, Some(glam::Vec3::new(0.0, 100.0, 0.0)));
    h.key_press(egui::Key::Period);
    h.run();
    let text = h.state().reset_notice().expect("a notice").to_string();
    assert!(
        text.contains("lower Wind speed or Wind drag") && text.contains("raise Iterations"),
        "{text}"
    );
}

#[test]
fn a_clean_exit_removes_the_autosave_but_not_an_unanswered_one() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let mut h = build(Some(tweed_copy(dir.path())), Some(state.clone()));
    let file = state.join(FILE_NAME);
    set_slider(&mut h, "Damping", 0.5);
    assert!(file.exists());
    eframe::App::on_exit(h.state_mut(), None);
    assert!(!file.exists(), "a clean exit left the autosave");

    // Quitting while the restore offer is still open keeps the old autosave for next time.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let path = tweed_copy(dir.path());
    let file = write_autosave(&state, Some(&path), 0.5);
    let mut h = build(Some(path), Some(state));
    assert!(h.state().restore_offered());
    eframe::App::on_exit(h.state_mut(), None);
    assert!(file.exists());
}
