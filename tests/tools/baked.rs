//! Baked clips (`bake`): the file passes the Khronos glTF validator, played by the glTF
//! formula alone (the animation's channels sampled, the joints' world matrices composed from
//! the nodes, x inverse bind matrices, weights) it matches the garment the live scene draws
//! within the error `bake` prints, that error is under 2 mm at the default tolerance, and the
//! same command writes the same bytes.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::cli::CharacterArgs;
use cloth_tuner::scene::Scene;
use glam::{Mat4, Quat, Vec3};
use gltf::animation::util::{ReadOutputs, Rotations};

use super::rigged::{assert_valid, read, run_ok, tweed, worst, Read};

/// Runs `cloth-tuner bake` with `args` writing `out`; its report.
fn bake(out: &Path, args: &[&str]) -> String {
    let command = ["bake", "--preset", "presets/tweed.json", "--quiet", "--out"];
    run_ok(&command, out, args)
}

/// The report's row for `clip`: (frames, max mm, rms mm).
fn row(report: &str, clip: &str) -> (usize, f32, f32) {
    let line = report
        .lines()
        .find(|l| l.split_whitespace().next() == Some(clip))
        .unwrap_or_else(|| panic!("no row for {clip} in:\n{report}"));
    let cells: Vec<&str> = line.split_whitespace().collect();
    (
        cells[1].parse().unwrap(),
        cells[3].parse().unwrap(),
        cells[4].parse().unwrap(),
    )
}

/// Each node's local transform with the animation `name` sampled at `time` (glTF LINEAR:
/// translations lerped, rotations slerped), composed into world matrices from the scene's
/// roots.
fn world_at(file: &Read, name: &str, time: f32) -> Vec<Mat4> {
    let mut local: Vec<(Vec3, Quat, Vec3)> = file
        .doc
        .nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
        })
        .collect();
    let anim = file
        .doc
        .animations()
        .find(|a| a.name() == Some(name))
        .unwrap();
    let get = |b: gltf::Buffer| Some(&file.buffers[b.index()][..]);
    for channel in anim.channels() {
        let reader = channel.reader(get);
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        let k = times
            .partition_point(|&t| t <= time)
            .clamp(1, times.len() - 1)
            - 1;
        let s = ((time - times[k]) / (times[k + 1] - times[k])).clamp(0.0, 1.0);
        let node = channel.target().node().index();
        match reader.read_outputs().unwrap() {
            ReadOutputs::Translations(t) => {
                let t: Vec<Vec3> = t.map(Vec3::from).collect();
                local[node].0 = t[k].lerp(t[k + 1], s);
            }
            ReadOutputs::Rotations(Rotations::F32(r)) => {
                let r: Vec<Quat> = r.map(Quat::from_array).collect();
                assert!(r[k].dot(r[k + 1]) >= 0.0, "keys on one hemisphere");
                local[node].1 = r[k].slerp(r[k + 1], s);
            }
            _ => panic!("only f32 translations and rotations are baked"),
        }
    }
    let mut world = vec![Mat4::IDENTITY; local.len()];
    fn walk(node: gltf::Node, parent: Mat4, local: &[(Vec3, Quat, Vec3)], world: &mut [Mat4]) {
        let (t, r, s) = local[node.index()];
        let m = parent * Mat4::from_scale_rotation_translation(s, r, t);
        world[node.index()] = m;
        for c in node.children() {
            walk(c, m, local, world);
        }
    }
    for node in file.doc.default_scene().unwrap().nodes() {
        walk(node, Mat4::IDENTITY, &local, &mut world);
    }
    world
}

#[test]
fn baked_clips_are_valid_play_back_the_simulated_jacket_within_their_error_and_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.glb"), dir.path().join("b.glb"));
    let args = ["--clips", "walk,dodge", "--seconds", "0.5"];
    let report = bake(&a, &args);
    println!("{report}");
    bake(&b, &args);
    assert!(
        std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
        "the same bake wrote different bytes"
    );
    assert_valid(&a);
    let file = read(&a);
    assert_eq!(file.doc.animations().count(), 2);
    let character = Arc::new(Character::builtin());
    for clip in ["walk", "dodge"] {
        let (frames, max_mm, rms_mm) = row(&report, clip);
        assert!(
            max_mm < 2.0,
            "{clip}: bake error {max_mm} mm at the default tolerance"
        );
        assert!(rms_mm <= max_mm);
        let mut scene = Scene::new(character.clone(), &tweed(), clip).unwrap();
        let hz = scene.params().timestep_hz as f64;
        let mut played_worst = 0f32;
        for f in 0..frames {
            if f > 0 {
                scene.step();
            }
            scene.skin_meshes();
            let world = world_at(&file, clip, (f as f64 / hz) as f32);
            let played = file.skinned_by("jacket", |j| world[j.index()]);
            played_worst = played_worst.max(worst(&played, scene.jacket().positions));
        }
        // The report's figures are rounded to a micrometre.
        assert!(
            played_worst * 1e3 <= max_mm + 2e-3,
            "{clip}: played {} mm from the simulation, reported {max_mm} mm",
            played_worst * 1e3
        );
    }
}

#[test]
fn bake_refuses_bad_settings_naming_the_flag_and_its_range() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.glb");
    for (args, says) in [
        (
            &["--clips", "walk", "--tolerance-mm", "0"][..],
            "--tolerance-mm must be from 0.01 to 50",
        ),
        (
            &["--clips", "walk", "--seconds", "0"][..],
            "--seconds must be more than one step",
        ),
        (
            &["--clips", "walk,moonwalk"][..],
            "unknown clip `moonwalk`; the clips are: idle",
        ),
    ] {
        let run = Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
            .args(["bake", "--preset", "presets/tweed.json", "--quiet", "--out"])
            .arg(&out)
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {text}");
        assert!(text.contains(says), "{args:?}: {text}");
        assert!(!out.exists(), "{args:?} wrote a file");
    }
}

#[test]
fn the_skirt_bakes_within_two_millimetres_its_round_hem_included() {
    // The skirt's hem is rounded by bones of its own, so the baked bones play the hem the
    // tuner draws (a hem smoothed after the skinning baked 63 to 141 mm off).
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("skirt.glb");
    let command = ["bake", "--preset", "presets/skirt.json", "--quiet", "--out"];
    let report = run_ok(
        &command,
        &out,
        &["--clips", "run,dodge", "--seconds", "0.5"],
    );
    println!("{report}");
    for clip in ["run", "dodge"] {
        let (_, max_mm, _) = row(&report, clip);
        assert!(max_mm < 2.0, "skirt {clip}: bake error {max_mm} mm");
    }
}

#[test]
fn a_baked_file_plays_its_cloth_bones_as_the_simulation_moved_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dodge.glb");
    bake(&file, &["--clips", "dodge", "--seconds", "0.5"]);
    let args = CharacterArgs {
        character: Some(file.clone()),
        ..Default::default()
    };
    let (character, outfit, worn) = args.load_baked().unwrap();
    let mut baked = outfit.scene(character, &tweed(), "dodge").unwrap();
    baked.play_baked(worn).unwrap();
    assert!(baked.is_baked());
    let mut live = Scene::new(Arc::new(Character::builtin()), &tweed(), "dodge").unwrap();
    let mut moved = 0f32;
    for frame in 0..30 {
        if frame > 0 {
            baked.step();
            live.step();
        }
        baked.skin_meshes();
        live.skin_meshes();
        // In the world (a file's clip comes back with its root motion taken from the
        // pelvis), less the body's mean shift (the importer stands a character's file on the
        // ground: the built-in body comes back 5 mm lower).
        let world = |scene: &Scene, points: &[Vec3]| -> Vec<Vec3> {
            points
                .iter()
                .map(|&p| scene.root().transform_point(p))
                .collect()
        };
        let (body_baked, body_live) = (
            world(&baked, baked.body().positions),
            world(&live, live.body().positions),
        );
        let shift = body_baked
            .iter()
            .zip(&body_live)
            .map(|(a, b)| *a - *b)
            .sum::<Vec3>()
            / body_live.len() as f32;
        let played: Vec<Vec3> = world(&baked, baked.jacket().positions)
            .iter()
            .map(|p| *p - shift)
            .collect();
        let off = worst(&played, &world(&live, live.jacket().positions));
        let body: Vec<Vec3> = body_baked.iter().map(|p| *p - shift).collect();
        let body_off = worst(&body, &body_live);
        assert!(
            body_off < 0.001,
            "frame {frame}: the body is {body_off} m off"
        );
        // The importer samples a file's clip at 30 Hz: on the samples (every second step
        // at 60 Hz) the played jacket is the baked one; between them it interpolates the
        // 30 Hz samples (up to 12 mm off on a dodge).
        let bound = if frame % 2 == 0 { 0.001 } else { 0.02 };
        assert!(
            off < bound,
            "frame {frame}: the baked jacket is {off} m off"
        );
        moved = moved.max(worst(
            baked.jacket().positions,
            &live.rig().render.positions,
        ));
    }
    assert!(moved > 0.05, "the baked jacket never left its rest pose");
    // `render --baked` draws it.
    if !crate::common::have_gl("render --baked") {
        return;
    }
    let out = dir.path().join("shots");
    let command = [
        "render",
        "--preset",
        "presets/tweed.json",
        "--baked",
        "--character",
    ];
    let text = run_ok(
        &command,
        &file,
        &[
            "--frames",
            "25",
            "--size",
            "160x90",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ],
    );
    let shots: Vec<_> = std::fs::read_dir(&out).unwrap().collect();
    assert_eq!(shots.len(), 1, "{text}");
}
