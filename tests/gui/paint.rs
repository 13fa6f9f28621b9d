//! Painting the max distance in the window, driven through egui_kittest as the artist does it:
//! the Paint max distance panel, a drag over the jacket, undo, save.
#![cfg(feature = "gui")]

use common::harness;
use eframe::egui;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;

use cloth_tuner::app::App;
use cloth_tuner::preset::Preset;

use crate::common;

/// A particle on the front panel, mid-way down (row 7, column 2 of the 17 x 10 grid), where a
/// front view sees it.
const TARGET: usize = 7 * 17 + 2;
/// The back of the hem, far from the brush.
const FAR: usize = 9 * 17 + 8;

/// Opens the paint panel, turns the brush on and sets it to paint 0 m at full strength.
fn brush_on(h: &mut Harness<'static, App>) {
    h.get_by_label("Paint max distance").click();
    h.run();
    h.get_by_role_and_label(Role::CheckBox, "Paint max distance (drag on the jacket)")
        .click();
    h.run();
    h.get_by_role_and_label(Role::Slider, "Brush value")
        .set_value_accesskit(0.0);
    h.run();
    h.get_by_role_and_label(Role::Slider, "Brush radius")
        .set_value_accesskit(0.08);
    h.run();
    let b = h.state().brush();
    assert!(b.on && b.value_m == 0.0 && b.radius_m == 0.08, "{b:?}");
}

/// A left drag starting on `particle` and wiggling a few points around it.
fn stroke_over(h: &mut Harness<'static, App>, particle: usize) {
    let at = h
        .state()
        .particle_on_screen(particle)
        .expect("the particle is on the screen");
    h.hover_at(at);
    h.run();
    h.drag_at(at);
    h.run();
    for dx in [4.0, 8.0, 4.0, 0.0] {
        h.hover_at(at + egui::vec2(dx, 0.0));
        h.run();
    }
    h.drop_at(at);
    h.run();
}

#[test]
fn a_stroke_paints_the_particles_under_the_brush_and_undo_puts_the_curve_back() {
    let mut h = harness();
    let curve = h.state().scene().cloth().max_distances().to_vec();
    assert!(curve[TARGET] > 0.05, "{}", curve[TARGET]);
    assert!(h.state().preset().max_distance_map.is_none());
    brush_on(&mut h);
    assert!(
        !h.state().document().undo_history().can_undo(),
        "brush settings are not edits of the preset"
    );

    let on_screen = h.state().particle_on_screen(FAR);
    stroke_over(&mut h, TARGET);
    assert_eq!(
        h.state().particle_on_screen(FAR),
        on_screen,
        "painting does not turn the camera"
    );
    let map = h.state().preset().max_distance_map.clone().expect("a map");
    assert_eq!(map.metres[TARGET], Some(0.0));
    assert_eq!(map.metres[FAR], None);
    let painted = h.state().scene().cloth().max_distances().to_vec();
    assert_eq!(painted[TARGET], 0.0, "the playing cloth uses the paint");
    assert_eq!(painted[FAR], curve[FAR], "far from the brush: the curve");
    assert!(h.state().window_title().contains('*'), "unsaved");

    // The whole stroke is one undo step.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert!(h.state().preset().max_distance_map.is_none());
    assert_eq!(h.state().scene().cloth().max_distances(), &curve[..]);
    assert!(!h.state().document().undo_history().can_undo());
    assert!(!h.state().window_title().contains('*'));

    // Redo, then Save writes the map.
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::Z,
    );
    h.run();
    assert_eq!(h.state().scene().cloth().max_distances(), &painted[..]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("painted.json");
    h.state_mut().save_as(&path);
    let saved = Preset::load(&path).unwrap();
    assert_eq!(saved.max_distance_map, Some(map));
    assert!(!h.state().window_title().contains('*'));
}

#[test]
fn erase_and_clear_paint_go_back_to_the_curve() {
    let mut h = harness();
    let curve = h.state().scene().cloth().max_distances().to_vec();
    brush_on(&mut h);
    stroke_over(&mut h, TARGET);
    assert_eq!(h.state().scene().cloth().max_distances()[TARGET], 0.0);

    h.get_by_role_and_label(Role::RadioButton, "Erase").click();
    h.run();
    stroke_over(&mut h, TARGET);
    assert!(
        h.state().preset().max_distance_map.is_none(),
        "all erased: no map"
    );
    assert_eq!(h.state().scene().cloth().max_distances(), &curve[..]);

    h.get_by_role_and_label(Role::RadioButton, "Paint").click();
    h.run();
    stroke_over(&mut h, TARGET);
    assert!(h.state().preset().max_distance_map.is_some());
    h.get_by_label("Clear paint").click();
    h.run();
    assert!(h.state().preset().max_distance_map.is_none());
    assert_eq!(h.state().scene().cloth().max_distances(), &curve[..]);
}

#[test]
fn a_preset_painted_on_another_grid_is_refused_on_open_and_at_start_without_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other_grid.json");
    let mut p = Preset::load("presets/tweed.json").unwrap();
    p.name = "Other grid".into();
    p.max_distance_map = Some(cloth_tuner::preset::MaxDistanceMap::new(9, 6));
    p.save(&path).unwrap();

    let mut h = harness();
    let before = h.state().preset().clone();
    h.state_mut().open(&path);
    h.run();
    let e = h.state().error().expect("an error is shown").to_string();
    assert!(
        e.contains("other_grid.json") && e.contains("max_distance_map") && e.contains("9 x 6"),
        "{e}"
    );
    assert_eq!(h.state().preset(), &before, "nothing changed");

    let opts = cloth_tuner::app::Options {
        preset: Some(path.clone()),
        ..Default::default()
    };
    let h = common::paused_harness(move |cc| App::with_options(cc, opts));
    let e = h.state().error().expect("an error is shown").to_string();
    assert!(
        e.contains("other_grid.json") && e.contains("17 x 10"),
        "{e}"
    );
    assert_ne!(h.state().preset().name, "Other grid");
}

#[test]
fn fold_line_and_garment_edits_are_undo_steps_and_revert_puts_paint_and_lines_back() {
    let mut h = harness();
    let curve = h.state().scene().cloth().max_distances().to_vec();
    let fold_lines = |h: &Harness<'static, App>| h.state().scene().fold_lines().len();

    h.get_by_label("Fold lines (0)").click();
    h.run();
    h.get_by_label("Add row").click();
    h.run();
    assert_eq!(fold_lines(&h), 1, "the cloth creases along the new row");
    assert_eq!(h.state().preset().fold_lines.len(), 1);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        fold_lines(&h),
        0,
        "undo takes the fold line out of the cloth"
    );
    assert!(h.state().preset().fold_lines.is_empty());
    assert!(!h.state().window_title().contains('*'));
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::Z,
    );
    h.run();
    assert_eq!(fold_lines(&h), 1, "redo puts it back");

    h.get_by_role_and_label(Role::RadioButton, "skirt").click();
    h.run();
    assert_eq!(
        h.state().scene().garment(),
        Some(cloth_tuner::preset::Garment::Skirt)
    );
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().scene().garment(),
        Some(cloth_tuner::preset::Garment::Jacket),
        "undo puts the jacket back on"
    );
    assert_eq!(fold_lines(&h), 1, "with its fold line");

    brush_on(&mut h);
    stroke_over(&mut h, TARGET);
    assert_eq!(h.state().scene().cloth().max_distances()[TARGET], 0.0);
    h.get_by_label("Edit").click();
    h.run();
    h.get_by_label("Revert to saved preset").click();
    h.run();
    assert!(
        h.state().preset().max_distance_map.is_none(),
        "paint reverted"
    );
    assert_eq!(h.state().scene().cloth().max_distances(), &curve[..]);
    assert_eq!(fold_lines(&h), 0, "fold lines reverted");
    assert!(!h.state().window_title().contains('*'), "as saved");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.run();
    assert_eq!(
        h.state().scene().cloth().max_distances()[TARGET],
        0.0,
        "the revert is one undo step"
    );
    assert_eq!(fold_lines(&h), 1);
}

#[test]
fn the_brush_paints_what_it_sees_not_the_back_of_the_jacket_through_the_body() {
    // The middle of the back panel, half-way down: behind the torso seen from the front.
    const BACK: usize = 4 * 17 + 8;
    let painted = |h: &Harness<'static, App>| {
        let map = h.state().preset().max_distance_map.clone();
        map.and_then(|m| m.metres[BACK])
    };
    let mut h = harness();
    brush_on(&mut h);
    for (view, seen) in [("Front view", false), ("Back view", true)] {
        h.get_by_label("View").click();
        h.run();
        h.get_by_label(view).click();
        h.run();
        stroke_over(&mut h, BACK);
        assert_eq!(
            painted(&h).is_some(),
            seen,
            "{view}: painted {:?}",
            painted(&h)
        );
    }
}
