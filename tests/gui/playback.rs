//! The tuner's timeline scrubbing and quitting, driven by label through egui_kittest (no GPU:
//! the 3D viewport is skipped).
#![cfg(feature = "gui")]

use std::sync::Arc;

use cloth_tuner::app::App;
use cloth_tuner::character::Character;
use cloth_tuner::scene::Scene;
use eframe::egui;
use egui::accesskit::Role;
use egui::{ViewportCommand, ViewportEvent, ViewportId};
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::Harness;
use glam::Vec3;

use common::harness;

use crate::common;

/// Frames until the scrub has reached its time (each frame fast-forwards for a while).
fn run_until_seeked(h: &mut Harness<'static, App>) {
    for _ in 0..10_000 {
        if !h.state().playback().is_seeking() {
            break;
        }
        h.step();
    }
    assert!(
        !h.state().playback().is_seeking(),
        "the scrub never arrived"
    );
    h.run();
}

fn scrub(h: &mut Harness<'static, App>, seconds: f64) {
    h.get_by_role_and_label(Role::Slider, "Time")
        .set_value_accesskit(seconds);
    h.run();
    run_until_seeked(h);
}

fn cloth(h: &Harness<'static, App>) -> Vec<Vec3> {
    h.state().scene().cloth().positions().to_vec()
}

/// The cloth after `steps` fixed steps from the clip start, on a scene of its own.
fn run_from_start(app: &App, steps: usize) -> Vec<Vec3> {
    let mut scene = Scene::new(
        Arc::new(Character::builtin()),
        app.preset(),
        app.scene().clip_name(),
    )
    .expect("a fresh scene");
    for _ in 0..steps {
        scene.step();
    }
    scene.cloth().positions().to_vec()
}

#[test]
fn scrubbing_the_timeline_gives_the_state_of_a_run_from_the_clip_start() {
    let mut h = harness();
    // Some history the scrub must not depend on.
    for _ in 0..7 {
        h.key_press(egui::Key::Period);
    }
    h.run();
    let hz = h.state().params().timestep_hz as f64;

    scrub(&mut h, 1.0);
    assert!(
        (h.state().scene().time() - 1.0).abs() < 0.5 / hz,
        "time {}",
        h.state().scene().time()
    );
    let at_one = cloth(&h);
    let steps = (1.0 * hz).round() as usize;
    assert_eq!(
        at_one,
        run_from_start(h.state(), steps),
        "the scrubbed state is not the state of a run from the clip start"
    );
    assert!(
        h.query_by_label("Play").is_some(),
        "scrubbing should pause playback"
    );

    // Back, then forward again: the same state, bit for bit.
    scrub(&mut h, 0.25);
    assert!((h.state().scene().time() - 0.25).abs() < 0.5 / hz);
    scrub(&mut h, 1.0);
    assert_eq!(cloth(&h), at_one);

    // After playing on and changing a knob, scrubbing re-simulates with the new knob.
    h.get_by_role_and_label(Role::Slider, "Gravity")
        .set_value_accesskit(20.0);
    h.run();
    h.key_press(egui::Key::Period);
    h.run();
    scrub(&mut h, 1.0);
    assert_ne!(cloth(&h), at_one, "the new gravity was not used");
    assert_eq!(cloth(&h), run_from_start(h.state(), steps));
}

#[test]
fn the_timeline_shows_the_clip_time() {
    let mut h = harness();
    for _ in 0..30 {
        h.key_press(egui::Key::Period);
    }
    h.run();
    let slider = h.get_by_role_and_label(Role::Slider, "Time");
    let shown = slider
        .accesskit_node()
        .numeric_value()
        .expect("the timeline has a value");
    let t = h.state().scene().time();
    assert!(t > 0.0, "the steps did not run");
    // Shown to the millisecond.
    assert!(
        (shown - t).abs() <= 0.5e-3,
        "shows {shown}, the clip is at {t}"
    );
}

fn make_unsaved_change(h: &mut Harness<'static, App>) {
    h.get_by_role_and_label(Role::Slider, "Damping")
        .set_value_accesskit(0.5);
    h.run();
    assert!(h.state().is_dirty());
}

fn quit_from_menu(h: &mut Harness<'static, App>) {
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Quit").click();
    h.run();
}

#[test]
fn quit_from_the_menu_asks_before_discarding_unsaved_changes() {
    let mut h = harness();
    make_unsaved_change(&mut h);
    quit_from_menu(&mut h);
    assert!(
        h.query_by_label("Unsaved changes").is_some(),
        "no question asked"
    );
    assert!(!h.state().close_allowed());

    h.get_by_label("Cancel").click();
    h.run();
    assert!(h.query_by_label("Unsaved changes").is_none());
    assert!(!h.state().close_allowed());
    assert_eq!(h.state().params().damping, 0.5, "cancel kept the change");

    quit_from_menu(&mut h);
    h.get_by_label("Discard").click();
    h.run();
    assert!(h.state().close_allowed());
}

#[test]
fn quit_from_the_menu_with_nothing_unsaved_closes_at_once() {
    let mut h = harness();
    quit_from_menu(&mut h);
    assert!(h.query_by_label("Unsaved changes").is_none());
    assert!(h.state().close_allowed());
}

fn press_close_button(h: &mut Harness<'static, App>) -> bool {
    h.input_mut()
        .viewports
        .entry(ViewportId::ROOT)
        .or_default()
        .events
        .push(ViewportEvent::Close);
    h.step();
    // Whether the app cancelled the close (eframe then keeps the window open).
    h.output()
        .viewport_output
        .get(&ViewportId::ROOT)
        .is_some_and(|v| v.commands.contains(&ViewportCommand::CancelClose))
}

#[test]
fn the_window_close_button_asks_before_discarding_unsaved_changes() {
    let mut h = harness();
    make_unsaved_change(&mut h);
    assert!(press_close_button(&mut h), "the close was not held back");
    h.run();
    assert!(h.query_by_label("Unsaved changes").is_some());

    h.get_by_label("Cancel").click();
    h.run();
    assert!(press_close_button(&mut h), "closed after Cancel");
    h.run();
    h.get_by_label("Discard").click();
    h.run();
    assert!(h.state().close_allowed());
    assert!(!press_close_button(&mut h), "still held back after Discard");
}

#[test]
fn the_window_close_button_closes_at_once_with_nothing_unsaved() {
    let mut h = harness();
    assert!(!press_close_button(&mut h));
    h.run();
    assert!(h.query_by_label("Unsaved changes").is_none());
}

#[test]
fn the_timeline_does_not_pause_playback_by_itself() {
    // A clip time that is not a whole millisecond (one 60 Hz step): a timeline that rounds its
    // value reported a change every frame and scrubbed, pausing playback on its own.
    let mut h = harness();
    h.key_press(egui::Key::Period);
    h.run();
    h.state_mut().set_playing(true);
    for _ in 0..5 {
        h.step();
    }
    assert!(
        h.query_by_label("Pause").is_some(),
        "playback stopped without anyone touching the timeline"
    );
    assert!(!h.state().playback().is_seeking());
}
