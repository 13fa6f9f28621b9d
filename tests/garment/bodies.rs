//! Every garment template on the test bodies shaped like the characters users bring
//! (`Proportions::presets`: a segmented robot with a narrow waist, a slim mannequin, a
//! broad-shouldered soldier, a T-pose bind, long arms, short legs, 1.5 m and 2.0 m): at rest the
//! drawn garment covers the body, and on the hardest clips (dodge, run) the guarantees hold as
//! on the built-in character (vertical links at rest length, nothing deeper than 1 cm, nothing
//! past its max distance, no resets, rows within their horizontal limit).

use std::path::Path;
use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::scene::Scene;
use cloth_tuner_assets::proportions::Proportions;
use cloth_tuner_assets::test_rig::{test_rig_glb, Naming, RigStyle};

use crate::jacket_checks::{assert_jacket_holds, preset};

/// The four templates' presets.
const TEMPLATES: [&str; 4] = ["tweed", "down_jacket", "skirt", "veil"];

/// The test bodies, written into `dir` as Mixamo rigs with a coarse skin and no clips of their
/// own (they play the built-in clips retargeted), and opened.
fn bodies(dir: &Path) -> Vec<(&'static str, Arc<Character>)> {
    Proportions::presets()
        .into_iter()
        .map(|(name, proportions)| {
            let style = RigStyle {
                naming: Naming::Mixamo,
                proportions,
                clips: Vec::new(),
                cell: 0.03,
                ..RigStyle::default()
            };
            let path = dir.join(format!("{name}.glb"));
            std::fs::write(&path, test_rig_glb(&style)).unwrap();
            let c = Character::open(&path, None).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, Arc::new(c))
        })
        .collect()
}

/// The most skin that may show through a template at rest on a test body, percent of the
/// body's vertices it covers: a few vertices where the veil's folds lie on the shoulders.
const SHOWING_AT_REST_PCT: f32 = 0.5;

#[test]
fn every_template_covers_every_test_body_at_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (body, c) in bodies(dir.path()) {
        for name in TEMPLATES {
            let mut scene =
                Scene::new(c.clone(), &preset(&format!("presets/{name}.json")), "idle").unwrap();
            scene.skin_meshes();
            let showing = scene.skin_showing_pct();
            if showing > SHOWING_AT_REST_PCT {
                failures.push(format!("{name} on {body}: {showing:.2} %"));
            }
        }
    }
    assert!(failures.is_empty(), "skin shows at rest: {failures:?}");
}

/// Where a row stretches past 10 % on a test body (issue 40, not fixed yet), the largest
/// stretch measured over the steps this file runs, percent: held so that it gets no worse.
/// Traced in docs/your-character.md ("Bodies of other proportions"): the tweed's hem near its
/// front corners, pushed by the thighs' ellipsoids after the deformation limit; the veil's
/// back.
const KNOWN_OVER: [(&str, &str, &str, f32); 3] = [
    ("robot", "tweed", "run", 14.1),
    ("tall", "tweed", "run", 19.8),
    ("t_pose", "veil", "dodge", 11.1),
];

/// The skin showing through each template along the dodge and the run on the test bodies
/// (`skin_showing_pct`, sampled every [`SHOWING_EVERY`] steps), at most, percent. Issue 40
/// asks for near 0: the down jacket and the skirt are there; on some bodies the tweed's cloth
/// lies inside the skin where the fitted torso ellipsoids leave the skin outside them, and the
/// veil's where the shoulders rise through it. Held so that they get no worse.
const SHOWING_ALONG_CLIPS_PCT: [(&str, f32); 4] = [
    ("tweed", 5.5),
    ("down_jacket", 1.0),
    ("skirt", 1.0),
    ("veil", 25.5),
];

/// How often the skin showing is measured along a clip, in steps.
const SHOWING_EVERY: usize = 5;

/// The largest horizontal stretch and skin showing (percent) of `template` on `body` playing
/// `clip` for `steps` steps, with the other guarantees checked every step.
fn largest_stretch(
    c: &Arc<Character>,
    body: &str,
    template: &str,
    clip: &str,
    steps: usize,
) -> (f32, f32) {
    let p = preset(&format!("presets/{template}.json"));
    let mut scene = Scene::new(c.clone(), &p, clip).unwrap();
    let what = format!("{template} on {body}, {clip}");
    let (mut worst, mut showing) = (0f32, 0f32);
    for step in 0..steps {
        assert_jacket_holds(&mut scene, 1, &what);
        worst = worst.max(scene.frame_stats().horizontal_stretch_pct);
        if step % SHOWING_EVERY == 0 {
            scene.skin_meshes();
            showing = showing.max(scene.skin_showing_pct());
        }
    }
    (worst, showing)
}

/// `template` on every test body along the dodge and the run: every guarantee but the rows'
/// stretch on every step; rows within 10 % except where [`KNOWN_OVER`] holds a figure.
fn holds_on_every_body(template: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let show_limit = SHOWING_ALONG_CLIPS_PCT
        .iter()
        .find(|k| k.0 == template)
        .map_or(0.0, |k| k.1);
    for (body, c) in bodies(dir.path()) {
        for (clip, steps) in [("dodge", 150), ("run", 100)] {
            let (h, showing) = largest_stretch(&c, body, template, clip, steps);
            let known = KNOWN_OVER
                .iter()
                .find(|k| (k.0, k.1, k.2) == (body, template, clip));
            let limit = known.map_or(10.0, |k| k.3);
            if h > limit {
                failures.push(format!("{body}, {clip}: rows {h:.1} % (limit {limit} %)"));
            }
            if showing > show_limit {
                failures.push(format!(
                    "{body}, {clip}: skin showing {showing:.1} % (limit {show_limit} %)"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{template}: past its limits: {failures:?}"
    );
}

#[test]
fn the_tweed_keeps_its_guarantees_on_every_test_body() {
    holds_on_every_body("tweed");
}

#[test]
fn the_down_jacket_keeps_its_guarantees_on_every_test_body() {
    holds_on_every_body("down_jacket");
}

#[test]
fn the_skirt_keeps_its_guarantees_on_every_test_body() {
    holds_on_every_body("skirt");
}

#[test]
fn the_veil_keeps_its_guarantees_on_every_test_body() {
    holds_on_every_body("veil");
}
