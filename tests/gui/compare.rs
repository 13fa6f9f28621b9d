//! A/B in the window: a second preset plays beside the edited one on the same clip and time,
//! X hands the knobs to the other, its unsaved changes are guarded, and the metrics table
//! shows what `simulate` measures for each.
#![cfg(feature = "gui")]

use crate::common;

use std::sync::Arc;

use cloth_tuner::app::{App, Command, SHIPPED};
use cloth_tuner::character::Character;
use cloth_tuner::scene::metrics::simulate;
use common::harness;
use eframe::egui;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;

/// Compare > B from shipped > `name`.
fn open_b(h: &mut Harness<'static, App>, name: &str) {
    h.get_by_label("Compare").click();
    h.run();
    h.get_by_label("B from shipped").hover();
    h.run();
    h.get_by_label(name).click();
    h.run();
}

fn apply(h: &mut Harness<'static, App>, command: Command) {
    let ctx = h.ctx.clone();
    h.state_mut().apply(&ctx, command);
    h.run();
}

#[test]
fn b_plays_beside_a_on_the_same_clip_and_time_and_x_hands_it_the_knobs() {
    let mut h = harness();
    open_b(&mut h, "veil.json");
    let (other, editing_b) = h.state().compare_other().expect("comparing");
    assert_eq!(other.name, "Veil");
    assert!(!editing_b);
    assert_eq!(h.state().preset().name, "Tweed");
    for _ in 0..10 {
        apply(&mut h, Command::Step);
    }
    let times = |h: &Harness<'static, App>| {
        let p = h.state().playback();
        let b = p.second().expect("B plays");
        (p.scene().time(), b.time(), b.clip_name().to_string())
    };
    let (a, b, clip) = times(&h);
    assert!(a > 0.1 && a == b, "A at {a} s, B at {b} s");
    assert_eq!(clip, h.state().scene().clip_name());
    apply(&mut h, Command::SetClip("dodge".into()));
    apply(&mut h, Command::Step);
    let (a, b, clip) = times(&h);
    assert_eq!((clip.as_str(), a), ("dodge", b));

    // X: the knobs now edit the veil; the tweed keeps its values and its run.
    h.key_press(egui::Key::X);
    h.run();
    assert_eq!(h.state().preset().name, "Veil");
    assert_eq!(h.state().compare_other().unwrap(), (&tweed(), true));
    let mut params = h.state().params().clone();
    params.damping = 0.05;
    apply(
        &mut h,
        Command::EditParams {
            params,
            reset_one: false,
            pointer_down: false,
        },
    );
    assert_eq!(h.state().scene().params().damping, 0.05);
    let b_scene = h.state().playback().second().unwrap();
    assert_eq!(
        b_scene.params(),
        &tweed().params,
        "the tweed's run kept its knobs"
    );
    // Back to A: the veil keeps the edit (unsaved), the knobs show the tweed again.
    h.key_press(egui::Key::X);
    h.run();
    assert_eq!(h.state().preset(), &tweed());
    let (veil, _) = h.state().compare_other().unwrap();
    assert_eq!(veil.params.damping, 0.05);
    assert!(h.state().is_dirty(), "B's unsaved change counts");
}

#[test]
fn closing_b_or_quitting_with_unsaved_changes_in_b_asks_first() {
    let mut h = harness();
    open_b(&mut h, "down_jacket.json");
    apply(&mut h, Command::SwapCompare);
    apply(&mut h, Command::Rename("Down, softer".into()));
    apply(&mut h, Command::SwapCompare);
    apply(&mut h, Command::CloseCompare);
    assert!(
        h.query_by_label_contains("Down, softer: unsaved changes")
            .is_some(),
        "the question names B"
    );
    h.get_by_label("Cancel").click();
    h.run();
    assert!(h.state().compare_other().is_some(), "Cancel keeps B");
    apply(&mut h, Command::Quit);
    assert!(h
        .query_by_label_contains("Down, softer: unsaved changes")
        .is_some());
    h.get_by_label("Cancel").click();
    h.run();
    assert!(!h.state().close_allowed());
    apply(&mut h, Command::CloseCompare);
    h.get_by_label("Discard").click();
    h.run();
    assert!(h.state().compare_other().is_none());
    assert!(h.state().playback().second().is_none());
    assert!(!h.state().is_dirty());
}

#[test]
fn b_at_another_fixed_step_stays_at_the_same_clip_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut slow = tweed();
    slow.params.timestep_hz = 30.0;
    let path = dir.path().join("tweed_30hz.json");
    slow.save(&path).unwrap();
    let mut h = harness();
    apply(&mut h, Command::OpenSecond(path));
    for _ in 0..12 {
        apply(&mut h, Command::Step);
    }
    let p = h.state().playback();
    let (a, b) = (p.scene().time(), p.second().unwrap().time());
    assert!((a - b).abs() <= 0.5 / 30.0 + 1e-9, "A at {a} s, B at {b} s");
    assert_eq!(p.second().unwrap().steps(), 6);
}

#[test]
fn the_metrics_table_shows_what_simulate_measures_for_a_and_b() {
    let mut h = harness();
    open_b(&mut h, "down_jacket.json");
    h.get_by_label("Compare").click();
    h.run();
    h.get_by_label("Metrics table").click();
    // The spinner repaints while measuring: step frames instead of waiting for a quiet UI.
    h.step();
    let start = std::time::Instant::now();
    while h.state().compare_measuring() || h.state().compare_metrics().is_none() {
        assert!(start.elapsed().as_secs() < 300, "the metrics never arrived");
        std::thread::sleep(std::time::Duration::from_millis(50));
        h.step();
    }
    h.run();
    let [a, b] = h.state().compare_metrics().unwrap().clone();
    let character = Arc::new(Character::builtin());
    let clip = h.state().scene().clip_name().to_string();
    let down = cloth_tuner::app::shipped(1);
    for (shown, preset) in [(&a, tweed()), (&b, down)] {
        let m = simulate(character.clone(), &preset, &clip, 6.0).unwrap();
        assert_eq!(shown.preset, m.preset);
        assert_eq!(shown.hem_swing_peak_cm, m.hem_swing_peak_cm);
        assert_eq!(
            shown.max_horizontal_stretch_pct,
            m.max_horizontal_stretch_pct
        );
    }
    assert!(h.query_by_label("A · Tweed").is_some());
    assert!(h.query_by_label("B · Down jacket").is_some());
    assert!(h.query_by_label("hem swing, peak").is_some());
    let peak = format!("{:.1} cm", a.hem_swing_peak_cm);
    assert!(h.query_by_label(&peak).is_some(), "no cell reads {peak}");
}

fn tweed() -> cloth_tuner::preset::Preset {
    cloth_tuner::app::shipped(SHIPPED.iter().position(|s| s.0 == "tweed.json").unwrap())
}
