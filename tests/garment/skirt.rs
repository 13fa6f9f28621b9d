//! The skirt on the character: pinned at the waist, closed all round, hanging to the knee over
//! the hips and the legs, keeping the jacket's guarantees on every clip (built-in and imported
//! characters), and never with its hem between the legs (the article's leg lines).

#[allow(dead_code)] // the shipped presets list is for the other test files
use crate::jacket_checks;

use std::sync::Arc;

use cloth_tuner::character::{Character, Role};
use cloth_tuner::preset::{Garment, Preset};
use cloth_tuner::scene::metrics::simulate;
use cloth_tuner::scene::Scene;
use glam::Vec3;

fn character() -> Arc<Character> {
    Arc::new(Character::builtin())
}

/// The shipped skirt preset.
fn skirt() -> Preset {
    let p = Preset::load("presets/skirt.json").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        p.garment,
        Garment::Skirt,
        "the skirt preset wears the skirt"
    );
    p
}

/// The height of a role's joint in the scene's current pose.
fn joint_y(scene: &Scene, role: Role) -> f32 {
    scene.model()[scene.character().roles.bone(role)].w_axis.y
}

#[test]
fn the_skirt_is_a_closed_tube_from_the_waist_to_the_knees() {
    let scene = Scene::new(character(), &skirt(), "idle").unwrap();
    let topo = scene.cloth().topology();
    let pos = scene.cloth().positions();
    let cols = topo.cols;
    let (pelvis, spine) = (joint_y(&scene, Role::Pelvis), joint_y(&scene, Role::Spine));
    let knee = (joint_y(&scene, Role::ShinL) + joint_y(&scene, Role::ShinR)) * 0.5;
    let hip = (joint_y(&scene, Role::ThighL) + joint_y(&scene, Role::ThighR)) * 0.5;
    // The waistband is pinned at the waist: between the pelvis and a little above the spine.
    for (i, p) in pos[..cols].iter().enumerate() {
        assert!(topo.pinned[i], "waist particle {i} is pinned");
        assert!(
            p.y > pelvis.min(hip) && p.y < spine + 0.05,
            "waist particle {i} at {p} (pelvis {pelvis}, spine {spine})"
        );
    }
    // The hem hangs to about the knee.
    for p in &pos[topo.hem()] {
        assert!((p.y - knee).abs() < 0.1, "hem particle at {p}, knee {knee}");
    }
    // Closed: the first and last columns are one seam, and the columns go all the way round
    // (every eighth of a turn around the pelvis holds a column).
    for r in 0..topo.rows {
        let (a, b) = (pos[r * cols], pos[r * cols + cols - 1]);
        assert!(a.distance(b) < 1e-5, "row {r}: seam at {a} and {b}");
    }
    let centre = scene.model()[scene.character().roles.bone(Role::Pelvis)].w_axis;
    let mut octants = [false; 8];
    for p in &pos[topo.hem()] {
        let a = (p.x - centre.x).atan2(p.z - centre.z);
        let k = ((a / std::f32::consts::TAU + 0.5) * 8.0) as usize % 8;
        octants[k] = true;
    }
    assert!(octants.iter().all(|&o| o), "{octants:?}");
}

#[test]
fn the_skirt_keeps_the_jacket_guarantees_on_every_clip() {
    let c = character();
    for clip in c.clip_names().map(str::to_string).collect::<Vec<_>>() {
        let mut scene = Scene::new(c.clone(), &skirt(), &clip).unwrap();
        jacket_checks::assert_jacket_holds(&mut scene, 300, &format!("skirt {clip}"));
        // The seam stays welded.
        let (pos, cols) = (scene.cloth().positions(), scene.cloth().topology().cols);
        for r in 0..pos.len() / cols {
            assert!(
                pos[r * cols].distance(pos[r * cols + cols - 1]) < 1e-5,
                "{clip}"
            );
        }
    }
}

#[test]
fn the_skirts_rows_stay_within_ten_percent_on_every_clip() {
    // Issue 18 item 8. What holds them: rings round the body with the collision's margin, the
    // row pass after the leg lines, and rows lifted over a raised thigh whole (otherwise the
    // thigh comes between two columns and holds them apart).
    let c = character();
    for clip in c.clip_names().map(str::to_string).collect::<Vec<_>>() {
        let m = simulate(c.clone(), &skirt(), &clip, 6.0).unwrap();
        assert!(
            m.max_horizontal_stretch_pct <= 10.0,
            "skirt on {clip}: rows stretched {} %",
            m.max_horizontal_stretch_pct
        );
    }
}

#[test]
fn on_imported_characters_the_skirt_keeps_the_jacket_guarantees_on_every_clip() {
    let dir = tempfile::tempdir().unwrap();
    for (name, c) in jacket_checks::imported_characters(dir.path()) {
        for clip in c.clip_names().map(str::to_string).collect::<Vec<_>>() {
            let mut scene = Scene::new(c.clone(), &skirt(), &clip).unwrap();
            jacket_checks::assert_jacket_holds(&mut scene, 150, &format!("{name} {clip}"));
        }
    }
}

/// The most hem particles between the legs' lines in one step of `clip` (`Scene`'s leg lines
/// give the legs; "between" is as seen from above at the particle's height, across the
/// strip joining the two legs within the lines' radius), with the leg lines on or off.
fn hem_between_legs(clip: &str, on: bool) -> usize {
    let mut scene = Scene::new(character(), &skirt(), clip).unwrap();
    scene.set_leg_lines(on);
    let mut worst = 0;
    for _ in 0..300 {
        scene.step();
        let lines = scene.leg_lines().expect("the skirt has leg lines");
        let hem = scene.cloth().topology().hem();
        let n = scene.cloth().positions()[hem.clone()]
            .iter()
            .filter(|p| lines.between(**p))
            .count();
        worst = worst.max(n);
    }
    worst
}

#[test]
fn the_leg_lines_keep_the_hem_from_between_the_legs() {
    // Running, the skirt's front and back hem fall into the gap between the striding legs
    // unless the leg lines hold them out (a walk's stride does not reach past the flared hem).
    let off = hem_between_legs("run", false);
    println!("run: {off} hem particles between the legs without the leg lines");
    assert!(
        off > 0,
        "without the leg lines the hem falls between the legs"
    );
    // With them, on no clip (a dodge needs the rows lifted over the legs whole too).
    for clip in character().clip_names() {
        let on = hem_between_legs(clip, true);
        assert_eq!(on, 0, "{clip}: {on} hem particles between the legs");
    }
}

#[test]
fn switching_to_the_skirt_and_back_gives_the_jacket_it_had() {
    let back =
        jacket_checks::assert_switching_back_gives_the_jacket(character(), Garment::Skirt, |s| {
            assert!(s.leg_lines().is_some(), "the skirt has no leg lines")
        });
    assert!(
        back.leg_lines().is_none(),
        "the jacket kept the skirt's leg lines"
    );
}

/// The largest turn, degrees, between consecutive segments of the closed polygon `pts`.
fn sharpest_turn_deg(pts: &[Vec3]) -> f32 {
    let n = pts.len();
    (0..n)
        .map(|k| {
            let a = pts[(k + 1) % n] - pts[k];
            let b = pts[(k + 2) % n] - pts[(k + 1) % n];
            a.angle_between(b).to_degrees()
        })
        .fold(0f32, f32::max)
}

#[test]
fn the_drawn_hem_is_a_smooth_curve_through_the_hem_particles() {
    // As in "Cloth Physics in K.I.S.A": the hem is drawn as a curve through the coarse hem
    // particles, so the polygon of 16 sides the simulation has reads as a curve; here the hem
    // bones draw it, so a baked clip plays the same hem.
    let mut scene = Scene::new(character(), &skirt(), "walk").unwrap();
    let layout = scene.rig().layout().clone();
    let (nu, nv) = layout.render_grid();
    let cps = layout.render_cols_per_sim;
    for step in 0..120 {
        scene.step();
        if step % 20 != 19 {
            continue;
        }
        scene.skin_meshes();
        let topo = scene.cloth().topology();
        let hem: Vec<Vec3> = scene.cloth().positions()[topo.hem()].to_vec();
        let drawn: Vec<Vec3> = (0..nu - 1)
            .map(|i| scene.jacket().positions[(nv - 1) * nu + i])
            .collect();
        for (c, p) in hem.iter().enumerate() {
            let d = scene.jacket().positions[(nv - 1) * nu + c * cps].distance(*p);
            assert!(
                d <= layout.thickness * 1.5 + 1e-5,
                "step {step}: drawn hem {d} m off hem particle {c}"
            );
        }
        let sim = sharpest_turn_deg(&hem[..hem.len() - 1]);
        let curve = sharpest_turn_deg(&drawn);
        println!(
            "step {step}: sharpest turn of the sim hem {sim:.1} deg, of the drawn one {curve:.1}"
        );
        assert!(
            sim > 20.0,
            "step {step}: the sim hem turns {sim} degrees at most"
        );
        // Skinning blends the hem bones linearly, so a corner is rounded less than a spline
        // drawn after the skinning rounded it: to 40 % of the polygon's turn or less.
        assert!(
            curve < sim * 0.4,
            "step {step}: the drawn hem turns {curve} degrees, the sim's {sim}"
        );
    }
}
