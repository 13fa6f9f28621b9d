//! Tools > Wedge and Tools > Fit in the window: a wedge of the current preset runs in the
//! background and a cell's values load into the preset as one undo step; a fit lists its
//! trials, says what it reached, and Apply loads its knobs; bad input is shown in the window.
//!
//! The wedge draws with windowless OpenGL (EGL + Mesa): without it that test skips with a
//! note, and fails when `CI=true`.
#![cfg(feature = "gui")]

use crate::common;

use std::time::{Duration, Instant};

use cloth_tuner::app::{App, Command};
use common::{harness, have_gl};
use eframe::egui;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;

fn apply(h: &mut Harness<'static, App>, command: Command) {
    let ctx = h.ctx.clone();
    h.state_mut().apply(&ctx, command);
    h.step();
}

/// Steps frames until the background job is done (the progress bar repaints meanwhile).
fn wait_for_tools(h: &mut Harness<'static, App>) {
    let start = Instant::now();
    while h.state().tool_running() {
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "the job never ended"
        );
        std::thread::sleep(Duration::from_millis(50));
        h.step();
    }
    h.run();
}

#[test]
fn a_wedge_of_the_preset_loads_a_clicked_cell_as_one_undo_step() {
    if !have_gl("the wedge in the window") {
        return;
    }
    let mut h = harness();
    h.get_by_label("Tools").click();
    h.run();
    h.get_by_label("Wedge…").click();
    h.run();
    let before = h.state().params().clone();
    h.get_by_label("Run").click();
    h.step();
    wait_for_tools(&mut h);
    assert_eq!(h.state().tool_errors(), [None, None]);
    let wedge = h.state().wedge_shown().expect("a sheet");
    // Damping from half to twice the tweed's, 5 values, the tweed's other knobs.
    assert_eq!(wedge.cells.len(), 5);
    let damping: Vec<f32> = wedge.cells.iter().map(|c| c.params.damping).collect();
    assert!(damping.windows(2).all(|w| w[0] < w[1]), "{damping:?}");
    assert!(damping[0] < before.damping && before.damping < damping[4]);
    let cell = wedge.cells[3].params.clone();
    assert!(h
        .query_by_label("Click a cell to load its values into the preset.")
        .is_some());
    apply(&mut h, Command::WedgeCell(3));
    assert_eq!(h.state().params(), &cell);
    assert_eq!(h.state().scene().params().damping, cell.damping);
    apply(&mut h, Command::Undo);
    assert_eq!(h.state().params(), &before, "one undo step back");
}

#[test]
fn a_fit_in_the_window_lists_its_trials_and_apply_loads_the_result() {
    let mut h = harness();
    apply(&mut h, Command::SetClip("sprint_stop".into()));
    apply(&mut h, Command::ShowFit(true));
    h.run();
    // Bad input is shown in the window and runs nothing.
    h.get_by_role_and_label(Role::TextInput, "Knobs")
        .set_text_value_accesskit("damping, wobble");
    h.run();
    h.get_by_role_and_label(Role::Button, "Fit").click();
    h.run();
    let [_, e] = h.state().tool_errors();
    assert!(e.is_some_and(|e| e.contains("`wobble`")), "{e:?}");
    assert!(!h.state().tool_running());
    // The tweed's own hem swing, within 5 %: met at once, by the start itself or near it.
    let character = std::sync::Arc::new(cloth_tuner::character::Character::builtin());
    let probe = cloth_tuner::tune::fit::FitSpec::new(
        "sprint_stop",
        cloth_tuner::tune::targets::parse_targets("hem_swing_peak=0.1").unwrap(),
        cloth_tuner::tune::knobs::knob_list("damping").unwrap(),
    );
    let seconds = probe.check(&character).unwrap();
    let m = cloth_tuner::scene::metrics::simulate(
        character,
        h.state().preset(),
        "sprint_stop",
        seconds,
    )
    .unwrap();
    let target = format!("hem_swing_peak={}", m.hem_swing_peak_cm / 100.0);
    h.get_by_role_and_label(Role::TextInput, "Knobs")
        .set_text_value_accesskit("damping");
    h.get_by_role_and_label(Role::TextInput, "Targets")
        .set_text_value_accesskit(&target);
    h.run();
    h.get_by_role_and_label(Role::Button, "Fit").click();
    h.step();
    wait_for_tools(&mut h);
    let (result, log) = h.state().fit_result();
    let result = result.expect("a fit result").clone();
    assert!(!log.is_empty() && log[0].contains("trial"), "{log:?}");
    assert!(result.met, "{}", result.to_text());
    assert!(h.query_by_label_contains("every target met").is_some());
    h.get_by_label("Apply the best").click();
    h.run();
    assert_eq!(h.state().params(), &result.preset.params);
}
