//! Every garment template on the test bodies shaped like the characters users bring
//! (`Proportions::presets`: a segmented robot with a narrow waist, a slim mannequin, a
//! broad-shouldered soldier, a T-pose bind, long arms, short legs, 1.5 m and 2.0 m): at rest the
//! drawn garment covers the body, and on the hardest clips (dodge, run) the guarantees hold as
//! on the built-in character (vertical links at rest length, nothing deeper than 1 cm, nothing
//! past its max distance, no resets, rows within their horizontal limit).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use cloth_tuner::character::{Character, Role};
use cloth_tuner::scene::Scene;
use cloth_tuner_assets::proportions::Proportions;
use cloth_tuner_assets::test_rig::{test_rig_glb, Naming, RigStyle};
use glam::Vec3;

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

/// The jacket templates' presets (the jacket and the hooded jacket).
const JACKETS: [&str; 2] = ["tweed", "down_jacket"];

/// The sharpest turn the drawn jacket may take over the shoulders at rest, degrees
/// ([`shoulder_fold_deg`]): the built-in body's sleeve caps crease by 104 there.
const SHOULDER_FOLD_LIMIT_DEG: f32 = 125.0;

/// The largest share of the shoulders' top that may show from above at rest, percent
/// ([`shoulder_top_showing_pct`]). The collar's opening runs out over the shoulders toward
/// the sleeve caps by design: 63 % shows on the built-in body, 53 to 70 % on the test
/// bodies of its breadth of shoulder.
const SHOULDER_TOP_SHOWING_PCT: f32 = 78.0;

/// Bodies whose shoulders fail at rest today (issue 40), with their figures (degrees of
/// turn, percent showing), held so that they get no worse: the T-pose bind's sleeve cap,
/// fitted round an arm held out level, folds back on itself at the front of the shoulder
/// and leaves the shoulder's top bare once the idle pose lowers the arm.
const KNOWN_SHOULDERS: [(&str, f32, f32); 1] = [("t_pose", 178.5, 92.5)];

#[test]
fn the_jackets_shoulders_follow_the_shoulders_of_every_test_body_at_rest() {
    let dir = tempfile::tempdir().unwrap();
    let mut all = bodies(dir.path());
    all.push(("built-in", Arc::new(Character::builtin())));
    let mut failures = Vec::new();
    for (body, c) in all {
        let (fold_limit, showing_limit) = KNOWN_SHOULDERS
            .iter()
            .find(|k| k.0 == body)
            .map_or((SHOULDER_FOLD_LIMIT_DEG, SHOULDER_TOP_SHOWING_PCT), |k| {
                (k.1, k.2)
            });
        for name in JACKETS {
            let mut scene =
                Scene::new(c.clone(), &preset(&format!("presets/{name}.json")), "idle").unwrap();
            scene.skin_meshes();
            let (turn, at) = shoulder_fold_deg(&scene);
            if turn > fold_limit {
                failures.push(format!(
                    "{name} on {body}: folds by {turn:.1} degrees at {at:.3}"
                ));
            }
            let showing = shoulder_top_showing_pct(&scene);
            if showing > showing_limit {
                failures.push(format!(
                    "{name} on {body}: {showing:.1} % of the shoulders' top shows"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// The share (percent) of the top of the shoulders of `scene` (skinned) that shows from
/// straight above: the body's vertices facing up (normal at least 0.3 up), above the
/// shoulder joint, within 5 cm (at the body's scale) of its depth, from halfway out to the
/// joint to the joint, with no triangle of the drawn garment (the hood left out) above them.
fn shoulder_top_showing_pct(scene: &Scene) -> f32 {
    let model = scene.model();
    let roles = &scene.character().roles;
    let joints = [Role::UpperarmL, Role::UpperarmR].map(|r| model[roles.bone(r)].w_axis.truncate());
    let depth = 0.05 * scene.rig().layout().body_scale;
    let hood = scene.rig().render.hood.clone();
    let g = scene.jacket();
    // The drawn garment's triangles but the hood's, as corner positions, gathered once.
    let cloth: Vec<[Vec3; 3]> = (g.indices.chunks_exact(3))
        .filter(|t| !t.iter().any(|&v| hood.contains(&(v as usize))))
        .map(|t| [t[0], t[1], t[2]].map(|v| g.positions[v as usize]))
        .collect();
    let body = scene.body();
    let (mut top, mut showing) = (0usize, 0usize);
    for (p, n) in body.positions.iter().zip(body.normals) {
        let joint = joints[usize::from(p.x < 0.0)];
        let out = p.x.abs() / joint.x.abs();
        if n.y < 0.3
            || p.y < joint.y
            || (p.z - joint.z).abs() > depth
            || !(0.5..=1.0).contains(&out)
        {
            continue;
        }
        top += 1;
        let covered = cloth.iter().any(|&t| below_triangle(*p, t));
        showing += usize::from(!covered);
    }
    assert!(top >= 10, "only {top} skin vertices on the shoulders' top");
    100.0 * showing as f32 / top as f32
}

/// Whether `p` lies straight below the triangle `t` (seen from above, inside it, and lower).
fn below_triangle(p: Vec3, t: [Vec3; 3]) -> bool {
    let [a, b, c] = t;
    let cross = |u: Vec3, v: Vec3, w: Vec3| (v.x - u.x) * (w.z - u.z) - (v.z - u.z) * (w.x - u.x);
    let area = cross(a, b, c);
    if area.abs() < 1e-12 {
        return false;
    }
    let (wa, wb) = (cross(p, b, c) / area, cross(a, p, c) / area);
    let wc = 1.0 - wa - wb;
    wa >= 0.0 && wb >= 0.0 && wc >= 0.0 && wa * a.y + wb * b.y + wc * c.y > p.y
}

/// How sharply the drawn garment of `scene` (skinned) turns over the shoulders: the largest
/// angle (degrees) between the normals of two neighbouring triangles whose corners all lie
/// above the shoulder joints (the yoke's top, the collar, the sleeve caps; the hood left
/// out), and where (a corner of their shared edge). Cloth drapes over a shoulder in gentle
/// turns; a flap folded back on itself or a point pushed out of the skin turns by far more.
fn shoulder_fold_deg(scene: &Scene) -> (f32, Vec3) {
    let model = scene.model();
    let roles = &scene.character().roles;
    let joint = |r: Role| model[roles.bone(r)].w_axis.y;
    let above = (joint(Role::UpperarmL) + joint(Role::UpperarmR)) * 0.5;
    let hood = scene.rig().render.hood.clone();
    let g = scene.jacket();
    let over = |v: u32| !hood.contains(&(v as usize)) && g.positions[v as usize].y > above;
    // Triangles over the shoulders at least `SLIVER` across (a sleeve cap's apex is a point,
    // the collar runs out into slivers where it lies down on the yoke: their normals mean
    // nothing one can see).
    let mut normals = Vec::new();
    let mut edges: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for t in g.indices.chunks_exact(3) {
        if !t.iter().all(|&v| over(v)) {
            continue;
        }
        let [a, b, c] = [t[0], t[1], t[2]].map(|v| g.positions[v as usize]);
        let n = (b - a).cross(c - a);
        let longest = (b - a).length().max((c - b).length()).max((a - c).length());
        if n.length() < SLIVER * longest {
            continue;
        }
        for (x, y) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            edges
                .entry((x.min(y), x.max(y)))
                .or_default()
                .push(normals.len());
        }
        normals.push(n.normalize());
    }
    let mut worst = (0.0f32, Vec3::ZERO);
    for (&(v, _), faces) in &edges {
        if let [f, h] = faces[..] {
            let turn = normals[f]
                .dot(normals[h])
                .clamp(-1.0, 1.0)
                .acos()
                .to_degrees();
            if turn > worst.0 {
                worst = (turn, g.positions[v as usize]);
            }
        }
    }
    worst
}

/// The smallest height (metres, to its longest side) of a triangle [`shoulder_fold_deg`]
/// counts.
const SLIVER: f32 = 0.003;

/// Where a row stretches past 10 % on a test body (issue 40, not fixed yet), the largest
/// stretch measured over the steps this file runs, percent: held so that it gets no worse.
/// Traced in docs/your-character.md ("Bodies of other proportions"): the tweed's hem near its
/// front corners, where a knee raised into the hem leaves a particle no clear place at rest
/// length below its neighbour (one to three steps; which bodies it hits moves with any change
/// to the thighs' and the torso's ellipsoids); the veil's back.
const KNOWN_OVER: [(&str, &str, &str, f32); 3] = [
    ("robot", "tweed", "run", 10.7),
    ("t_pose", "veil", "dodge", 10.8),
    ("tall", "veil", "dodge", 11.1),
];

/// The skin showing through each template along the dodge and the run on the test bodies
/// (`skin_showing_pct`, sampled every [`SHOWING_EVERY`] steps), at most, percent. Issue 40
/// asks for near 0: the jackets and the skirt are within 2.2 %, where the cloth lies on the
/// fitted ellipsoids a little inside the skin; the veil is not: the shoulders rise through it
/// (the skin of the shoulder's top follows the arm and the clavicle, outside the upper arms'
/// and the chest's ellipsoids). Held so that they get no worse.
const SHOWING_ALONG_CLIPS_PCT: [(&str, f32); 4] = [
    ("tweed", 2.2),
    ("down_jacket", 0.6),
    ("skirt", 1.5),
    ("veil", 17.0),
];

/// How often the skin showing is measured along a clip, in steps.
const SHOWING_EVERY: usize = 5;

/// The largest horizontal stretch and skin showing (percent) of `template` on `body` playing
/// `clip` for `steps` steps, with the other guarantees checked every step.
fn largest_stretch_and_showing(
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
            let (h, showing) = largest_stretch_and_showing(&c, body, template, clip, steps);
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
