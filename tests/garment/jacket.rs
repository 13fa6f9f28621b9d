//! The jacket on the character: rig, bones from the simulation mesh, the whole pipeline.

use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::garment::jacket::Jacket;
use cloth_tuner::preset::{Garment, Preset};
use cloth_tuner::scene::metrics::{simulate, simulate_drawing, Drawing, Metrics};
use cloth_tuner::scene::{Scene, SceneError};
use glam::{Mat4, Vec3};

use crate::jacket_checks;

use jacket_checks::PRESETS;

/// Seconds of sprint_stop run to see the hem settle: the motion stops at 2.93 s, and the heavy
/// tweed's front edges swing on for nearly 4 s after it.
const SETTLE_RUN_S: f64 = 9.0;

fn character() -> Arc<Character> {
    Arc::new(Character::builtin())
}

fn assert_orthonormal(m: &Mat4, what: &str) {
    let (x, y, z) = (
        m.x_axis.truncate(),
        m.y_axis.truncate(),
        m.z_axis.truncate(),
    );
    for v in [x, y, z] {
        assert!(
            (v.length() - 1.0).abs() < 1e-4,
            "{what}: axis length {}",
            v.length()
        );
    }
    assert!(
        x.dot(y).abs() < 1e-4 && x.dot(z).abs() < 1e-4 && y.dot(z).abs() < 1e-4,
        "{what}: not orthogonal"
    );
    assert!((x.cross(y) - z).length() < 1e-4, "{what}: not right-handed");
}

#[test]
fn bones_from_the_sim_mesh_are_orthonormal_and_follow_the_rows() {
    let preset = Preset::load("presets/tweed.json").unwrap();
    let mut scene = Scene::new(character(), &preset, "dodge").unwrap();
    let rig = scene.rig().clone();
    let topo = &rig.topology;
    // Every row but the last, every second column.
    assert_eq!(
        rig.sim_bone_sites().len(),
        (topo.rows - 1) * topo.cols.div_ceil(2)
    );
    assert!(rig
        .sim_bone_sites()
        .iter()
        .all(|&(r, c)| r < topo.rows - 1 && c % 2 == 0));
    for step in 0..240 {
        scene.step();
        for (k, (m, &(r, c))) in scene
            .sim_bones()
            .iter()
            .zip(rig.sim_bone_sites())
            .enumerate()
        {
            assert_orthonormal(m, &format!("step {step} bone {k}"));
            // The bone sits on its particle with its x axis toward the particle below.
            let p = scene.cloth().positions()[r * topo.cols + c];
            let below = scene.cloth().positions()[(r + 1) * topo.cols + c];
            assert!(m.w_axis.truncate().distance(p) < 1e-6);
            assert!(m.x_axis.truncate().dot((below - p).normalize()) > 0.9999);
        }
    }
}

#[test]
fn the_render_mesh_is_detailed_and_follows_the_cloth() {
    let preset = Preset::load("presets/tweed.json").unwrap();
    let mut scene = Scene::new(character(), &preset, "walk").unwrap();
    scene.skin_meshes();
    let sim = scene.cloth().positions().len();
    let render = scene.jacket().positions.len();
    assert!(
        render >= 10 * sim,
        "render mesh {render} vertices, sim {sim}"
    );
    assert_eq!(scene.jacket().indices.len() % 3, 0);
    assert!(scene
        .jacket()
        .indices
        .iter()
        .all(|&i| (i as usize) < render));
    // Where a render vertex sits on a bone site, it stays on that particle (within the
    // fabric's half thickness plus the lapel and pocket relief) as the cloth moves.
    let layout = scene.rig().layout().clone();
    let nu = (layout.cols - 1) * layout.render_cols_per_sim + 1;
    let sites = scene.rig().sim_bone_sites().to_vec();
    for _ in 0..60 {
        scene.step();
        scene.skin_meshes();
        for &(r, c) in &sites {
            let v = r * layout.render_rows_per_sim * nu + c * layout.render_cols_per_sim;
            let particle = scene.cloth().positions()[r * layout.cols + c];
            let d = scene.jacket().positions[v].distance(particle);
            assert!(
                d < layout.thickness * 0.5 + 0.03,
                "vertex {v} is {d} m off particle ({r}, {c})"
            );
        }
    }
    assert!(scene.jacket().positions.iter().all(|p| p.is_finite()));
    assert!(scene
        .jacket()
        .normals
        .iter()
        .all(|n| (n.length() - 1.0).abs() < 1e-3));
}

#[test]
fn raising_the_arms_lifts_the_shoulder_pads() {
    let preset = Preset::load("presets/tweed.json").unwrap();
    let mut scene = Scene::new(character(), &preset, "arms_raise").unwrap();
    let jacket = |s: &Scene| {
        s.worn_as::<Jacket>()
            .expect("tweed is a jacket")
            .upper()
            .to_owned()
    };
    let rest = scene.worn_as::<Jacket>().unwrap().rest_upper();
    let mut highest = f32::MIN;
    for _ in 0..180 {
        scene.step();
        let f = jacket(&scene);
        highest = highest.max(f.side[0].w_axis.y);
        // The position constraint keeps the side bones at their rest distance.
        let d = f.side[0]
            .w_axis
            .truncate()
            .distance(f.side[1].w_axis.truncate());
        let d0 = rest.side[0]
            .w_axis
            .truncate()
            .distance(rest.side[1].w_axis.truncate());
        assert!((d - d0).abs() < 1e-4, "side bones {d} apart, rest {d0}");
        for m in f.shoulder.iter().chain(&f.side) {
            assert_orthonormal(m, "upper jacket bone");
        }
    }
    assert!(
        highest > rest.side[0].w_axis.y + 0.02,
        "the side bone rose only to {highest} from {}",
        rest.side[0].w_axis.y
    );
}

#[test]
fn the_hood_pendulum_swings_at_its_length() {
    let mut preset = Preset::load("presets/down_jacket.json").unwrap();
    assert_eq!(preset.garment, Garment::HoodedJacket);
    let mut scene = Scene::new(character(), &preset, "dodge").unwrap();
    let end = |s: &Scene| s.hood_pendulum().expect("the down jacket has a hood");
    let mut moved = 0f32;
    let start = end(&scene);
    for _ in 0..120 {
        scene.step();
        moved = moved.max(end(&scene).distance(start));
        assert!(end(&scene).is_finite());
    }
    assert!(moved > 0.02, "the hood did not swing: {moved}");
    // It starts where it rests: standing still, it hardly moves in the first half second.
    let mut scene = Scene::new(character(), &preset, "idle").unwrap();
    let start = end(&scene);
    for _ in 0..30 {
        scene.step();
        let d = end(&scene).distance(start);
        assert!(d < 0.02, "the hood swung {d} m at rest");
    }
    // Switching garments rebuilds without the hood.
    preset.garment = Garment::Jacket;
    scene.set_garment(Garment::Jacket);
    assert!(scene.hood_pendulum().is_none());
    assert!(scene.rig().render.hood.is_empty());
}

#[test]
fn the_hood_swings_the_same_with_substeps_as_at_their_rate() {
    // `damping` is per solver step: 2 substeps at 60 Hz must damp the hood as 120 Hz does, or
    // the shipped down jacket's hood (2 substeps) swings on with half its damping per second.
    let preset = Preset::load("presets/down_jacket.json").unwrap();
    assert_eq!(preset.params.substeps, 2);
    let at_120 = Preset {
        params: cloth_tuner::sim::FabricParams {
            timestep_hz: 120.0,
            substeps: 1,
            ..preset.params.clone()
        },
        ..preset.clone()
    };
    let swing = |p: &Preset, steps: usize| {
        let mut scene = Scene::new(character(), p, "sprint_stop").unwrap();
        let mut path = Vec::new();
        for k in 1..=steps {
            scene.step();
            if k % (steps / 180) == 0 {
                path.push(scene.hood_pendulum().expect("the down jacket has a hood"));
            }
        }
        path
    };
    let (a, b) = (swing(&preset, 360), swing(&at_120, 720));
    let apart = |from: usize| {
        a.iter()
            .zip(&b)
            .skip(from)
            .map(|(x, y)| x.distance(*y))
            .fold(0f32, f32::max)
    };
    // The origin and the colliders are interpolated between the engine's steps, so not bit
    // for bit. Without collisions the two parted by 2.1 cm at most over a sprint and stop (one
    // pendulum step per fixed step: 4.4 cm). Since the hood keeps out of the back and the
    // shoulders it bumps along them in the stop, where a small difference changes which point
    // touches first, and the two part by up to 11.4 cm there; they come to rest together.
    let (whole, settled) = (apart(0), apart(90));
    assert!(
        whole < 0.15,
        "the hood parts from the 120 Hz one by {whole} m"
    );
    assert!(
        settled < 0.005,
        "after 3 s the hood is still {settled} m from the 120 Hz one (whole run {whole} m)"
    );
}

#[test]
fn every_preset_on_every_clip_keeps_the_jacket_guarantees() {
    // Finite, within max distance, out of the body, and where a leg sweeps through the open
    // front the column wraps around it at rest length instead of stretching: every vertical
    // link of every preset (all three use hard constraints) keeps its rest length at the end
    // of every step of every clip (see jacket_checks).
    let c = character();
    let clips: Vec<String> = c.clip_names().map(str::to_string).collect();
    for file in PRESETS {
        let preset = jacket_checks::preset(file);
        assert!(preset.params.hard_constraints, "{file}");
        for clip in &clips {
            let mut scene = Scene::new(c.clone(), &preset, clip).unwrap();
            jacket_checks::assert_jacket_holds(&mut scene, 300, &format!("{file} {clip}"));
        }
    }
}

/// A run's metrics without its timings, which are measured, not simulated.
fn strip(mut m: Metrics) -> Metrics {
    m.step_median_us = 0.0;
    m.step_p99_us = 0.0;
    m.frame_median_us = 0.0;
    m.frame_p99_us = 0.0;
    // What only a run that draws measures.
    m.skin_median_us = None;
    m.skin_showing_pct = None;
    m
}

#[test]
fn the_same_run_gives_bit_identical_metrics() {
    let preset = Preset::load("presets/tweed.json").unwrap();
    let drawn = simulate(character(), &preset, "dodge", 3.0).unwrap();
    assert!(drawn.skin_median_us.is_some_and(|us| us > 0.0));
    let again = simulate(character(), &preset, "dodge", 3.0).unwrap();
    assert!(drawn.skin_showing_pct.is_some());
    assert_eq!(drawn.skin_showing_pct, again.skin_showing_pct);
    let a = strip(drawn);
    let b = strip(again);
    assert_eq!(a, b);
    assert!(
        a.hem_swing_peak_cm > 1.0,
        "the hem should swing in a dodge: {}",
        a.hem_swing_peak_cm
    );
    // A search's run (`fit`, `wedge`) draws nothing between the steps: the same fabric, and
    // no skinning time claimed for it.
    let search = simulate_drawing(character(), &preset, "dodge", 3.0, Drawing::Skipped).unwrap();
    assert_eq!(search.skin_median_us, None);
    assert_eq!(search.skin_showing_pct, None);
    assert!(!serde_json::to_string(&search)
        .unwrap()
        .contains("skin_median_us"));
    assert_eq!(strip(search), a);
}

#[test]
fn a_search_run_settles_as_a_drawn_run_does() {
    // sprint_stop stops at 2.93 s and the tweed settles within 5 s of that: the settle time's
    // calm run, beside the measured one in a search, after it in a drawn run.
    let preset = Preset::load("presets/tweed.json").unwrap();
    let drawn = simulate(character(), &preset, "sprint_stop", 7.93).unwrap();
    let search = simulate_drawing(character(), &preset, "sprint_stop", 7.93, Drawing::Skipped);
    let search = search.unwrap();
    assert!(drawn.settle_time_s.is_some_and(|s| s > 0.5), "{drawn:?}");
    assert_eq!(strip(search), strip(drawn));
}

#[test]
fn an_unknown_clip_lists_the_valid_ones() {
    let preset = Preset::load("presets/tweed.json").unwrap();
    let Err(e) = Scene::new(character(), &preset, "moonwalk") else {
        panic!("moonwalk is not a clip");
    };
    assert!(matches!(e, SceneError::UnknownClip { .. }));
    let msg = e.to_string();
    assert!(
        msg.starts_with("unknown clip `moonwalk`; the clips are: "),
        "{msg}"
    );
    for clip in ["idle", "walk", "dodge", "sprint_stop", "arms_raise"] {
        assert!(msg.contains(clip), "{msg}");
    }
}

#[test]
fn motion_end_is_found_for_the_clip_that_stops() {
    let c = character();
    let stop = c.clip("sprint_stop").unwrap();
    let end = cloth_tuner::scene::metrics::motion_end(&c, stop).unwrap();
    assert!(
        end > 1.4 && end < stop.duration as f64,
        "sprint_stop motion ends at {end}"
    );
    assert_eq!(
        cloth_tuner::scene::metrics::motion_end(&c, c.clip("walk").unwrap()),
        None
    );
    let _ = Vec3::ZERO;
}

#[test]
fn the_three_presets_are_measurably_different_fabrics() {
    // On the same clips, every pair of presets differs by at least 20 % in at least two of
    // the simulate metrics: the dodge's and how long the hem swings on after a sprint stops.
    // (The share of particles at their max distance does not tell the down jacket from the
    // tweed: it comes mostly from hem references pushed behind a thigh.)
    let c = character();
    let metrics: Vec<_> = PRESETS
        .iter()
        .map(|f| {
            let preset = Preset::load(f).unwrap();
            let dodge = simulate(c.clone(), &preset, "dodge", 3.0).unwrap();
            let stop = simulate(c.clone(), &preset, "sprint_stop", SETTLE_RUN_S).unwrap();
            let settle = stop
                .settle_time_s
                .expect("the hem settles after a sprint stop");
            (dodge, settle as f32)
        })
        .collect();
    let values = |(m, settle): &(cloth_tuner::scene::metrics::Metrics, f32)| {
        [
            ("hem swing peak", m.hem_swing_peak_cm),
            ("hem swing rms", m.hem_swing_rms_cm),
            ("edge/interior", m.edge_interior_motion_ratio),
            ("saturation", m.max_distance_saturation_pct),
            ("settle after a sprint stop", *settle),
        ]
    };
    for i in 0..3 {
        for j in i + 1..3 {
            let (a, b) = (values(&metrics[i]), values(&metrics[j]));
            let differing: Vec<&str> = a
                .iter()
                .zip(&b)
                .filter(|((_, x), (_, y))| (x - y).abs() >= 0.2 * x.abs().max(y.abs()))
                .map(|((name, _), _)| *name)
                .collect();
            assert!(
                differing.len() >= 2,
                "{} and {} differ by 20 % only in {:?}: {:?} vs {:?}",
                metrics[i].0.preset,
                metrics[j].0.preset,
                differing,
                a,
                b
            );
        }
    }
}

#[test]
fn after_a_sprint_stops_the_heavy_tweed_swings_longer_than_the_stiff_down_jacket() {
    let c = character();
    let settle = |file: &str| {
        let m = simulate(
            c.clone(),
            &Preset::load(file).unwrap(),
            "sprint_stop",
            SETTLE_RUN_S,
        )
        .unwrap();
        assert!(m.motion_end_s.is_some());
        m.settle_time_s
            .unwrap_or_else(|| panic!("{file} did not settle: {m:?}"))
    };
    let (tweed, down) = (
        settle("presets/tweed.json"),
        settle("presets/down_jacket.json"),
    );
    assert!(
        tweed > down * 1.5,
        "tweed settles in {tweed} s, down jacket in {down} s"
    );
}

#[test]
fn the_jackets_rows_stay_near_their_length_where_arms_and_legs_pulled_them_apart() {
    // The clips that stretch the rows most (CHANGELOG.md, 2026-11-24): the pinned top row
    // moving with the arms, a hem chain held at one end, reference points a thigh apart. A
    // front edge reads jagged well before 20 %.
    let c = character();
    for (file, clip) in [
        ("presets/tweed.json", "walk"),
        ("presets/tweed.json", "run"),
        ("presets/tweed.json", "arms_raise"),
        ("presets/down_jacket.json", "dodge"),
    ] {
        let m = simulate(c.clone(), &Preset::load(file).unwrap(), clip, 6.0).unwrap();
        assert!(
            m.max_horizontal_stretch_pct <= 20.0,
            "{file} on {clip}: rows stretched {} %",
            m.max_horizontal_stretch_pct
        );
    }
}

#[test]
fn the_tweed_down_jacket_and_veil_keep_their_rows_within_ten_percent_on_every_clip() {
    // Issue 18 item 8: the horizontal maximum over 6 s of every clip, for the tweed, the down
    // jacket and the veil. The hardest cases are a thigh between two hem particles after a
    // sprint stop and the shoulders under the veil's lower rows in a dodge: the sideways limit
    // holds them by overshooting and running to convergence.
    let c = character();
    let clips: Vec<String> = c.clip_names().map(str::to_string).collect();
    for file in PRESETS {
        let preset = Preset::load(file).unwrap();
        for clip in &clips {
            let m = simulate(c.clone(), &preset, clip, 6.0).unwrap();
            assert!(
                m.max_horizontal_stretch_pct <= 10.0,
                "{file} on {clip}: rows stretched {} %",
                m.max_horizontal_stretch_pct
            );
        }
    }
}
