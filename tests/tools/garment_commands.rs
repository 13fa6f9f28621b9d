//! Every windowless command wears the artist's garment it is given (`--garment`, a manifest
//! case's `garment`), through the one loader the commands share: `render` and `regress` draw
//! it (their pictures named after it), `wedge` and `fit` measure their cells and trials on
//! it, `drift` follows its hem. The garment is the asset generator's skirt in a file of its
//! own, on the built-in character.
//!
//! The pictures need windowless OpenGL (EGL + Mesa). Without it those tests skip with a note,
//! and fail when `CI=true` with the packages to install. `fit` and `drift` need no GL.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

use common::scratch;

use cloth_tuner::cli::CharacterArgs;
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::metrics::{simulate_drawing_in, simulate_in, Drawing};
use cloth_tuner::scene::Outfit;
use cloth_tuner_assets::garment::{garment_file_glb, GarmentKind};
use cloth_tuner_assets::test_rig::RigStyle;

/// The generator's skirt in a file of its own, `dir/skirt.glb`.
fn skirt_file(dir: &Path) -> PathBuf {
    let path = dir.join("skirt.glb");
    std::fs::write(
        &path,
        garment_file_glb(GarmentKind::Skirt, &RigStyle::default()),
    )
    .unwrap();
    path
}

/// The built-in character's options wearing the garment in `file`.
fn wearing(file: &Path) -> CharacterArgs {
    CharacterArgs {
        garment: Some(file.to_path_buf()),
        ..Default::default()
    }
}

fn tweed() -> Preset {
    Preset::load("presets/tweed.json").unwrap()
}

fn cloth_tuner(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
        .args(args)
        .output()
        .expect("run cloth-tuner")
}

#[cfg(feature = "gui")]
mod pictures {
    use super::*;
    use crate::regress::regress_beside;
    use crate::wedge::{header_names, row_cells};
    use cloth_tuner::cli::regress::summary;
    use cloth_tuner::cli::render::{render, CameraSpec, RenderArgs};
    use cloth_tuner::picture::read_png;
    use common::have_gl;

    /// `render` of the tweed on walk, frame 20 from the front, small, in `out`.
    fn render_walk(character: CharacterArgs, out: &Path) -> PathBuf {
        let (written, _) = render(&RenderArgs {
            preset: "presets/tweed.json".into(),
            preset_b: None,
            clip: "walk".into(),
            character,
            frames: vec![20],
            width: 160,
            height: 120,
            camera: CameraSpec::Front,
            out: out.to_path_buf(),
            overlays: Vec::new(),
            baked: false,
            quiet: true,
        })
        .unwrap();
        assert_eq!(written.len(), 1);
        written[0].clone()
    }

    #[test]
    fn render_and_a_manifest_case_draw_the_garment_they_are_given() {
        if !have_gl("render with a garment") {
            return;
        }
        let dir = scratch("garment-render");
        let skirt = skirt_file(&dir);
        let template = render_walk(CharacterArgs::default(), &dir.join("template"));
        let worn = render_walk(wearing(&skirt), &dir.join("skirt"));
        assert_eq!(
            worn.file_name().unwrap().to_string_lossy(),
            "skirt_tweed_walk_front_0020.png",
            "the picture is named after the garment"
        );
        let (template, worn) = (read_png(&template).unwrap(), read_png(&worn).unwrap());
        let differ = template
            .pixels
            .iter()
            .zip(&worn.pixels)
            .filter(|(a, b)| a != b)
            .count();
        assert!(
            differ > template.pixels.len() / 50,
            "the skirt looks like the template jacket: {differ} pixels differ"
        );

        // The same garment named by a manifest case: the same picture, and it passes again.
        let manifest = dir.join("manifest.json");
        let text = serde_json::json!({
            "size": "160x120",
            "max_pixel_diff": 0,
            "max_diff_share": 0.0,
            "cases": [{
                "garment": skirt,
                "preset": "presets/tweed.json",
                "clips": ["walk"],
                "frames": [20],
                "cameras": ["front"]
            }]
        });
        std::fs::write(&manifest, text.to_string()).unwrap();
        let run = |update: bool| regress_beside(&manifest, &dir, update);
        let written = run(true);
        assert_eq!(written.updated.len(), 1);
        let golden = &written.updated[0];
        assert!(
            golden.ends_with("skirt_tweed_walk_front_0020.png"),
            "{golden:?}"
        );
        assert_eq!(
            read_png(golden).unwrap().pixels,
            worn.pixels,
            "regress draws the garment as render does"
        );
        let again = run(false);
        assert_eq!(again.failures(), 0, "{}", summary(&again));
    }

    #[test]
    fn a_wedge_measures_its_cells_on_the_garment() {
        if !have_gl("a wedge with a garment") {
            return;
        }
        let dir = scratch("garment-wedge");
        let skirt = skirt_file(&dir);
        let out = dir.join("sheet.png");
        let o = cloth_tuner(&[
            "wedge",
            "--quiet",
            "--preset",
            "presets/tweed.json",
            "--knob",
            "damping=0.005:0.3:2",
            "--garment",
            skirt.to_str().unwrap(),
            "--clip",
            "walk",
            "--frame",
            "10",
            "--seconds",
            "0.5",
            "--cell-size",
            "160x120",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let html = std::fs::read_to_string(dir.join("sheet.html")).unwrap();
        // The second cell's preset, simulated on the garment, gives the page's hem swing.
        let cell = Preset::load(dir.join("sheet_cells/cell_001.json")).unwrap();
        let (character, outfit) = wearing(&skirt).load_outfit().unwrap();
        let on_skirt = simulate_in(character.clone(), &outfit, &cell, "walk", 0.5).unwrap();
        let on_jacket = simulate_in(character, &Outfit::Template, &cell, "walk", 0.5).unwrap();
        let col = header_names(&html)
            .iter()
            .position(|n| n == "hem_swing_peak_cm")
            .unwrap();
        let shown: f64 = row_cells(&html, "cell-1")[col].parse().unwrap();
        let real = on_skirt.hem_swing_peak_cm as f64;
        assert!(
            (shown - real).abs() <= real.abs() * 1e-3,
            "the page says {shown}, the cell on the skirt {real}"
        );
        let jacket = on_jacket.hem_swing_peak_cm as f64;
        assert!(
            (shown - jacket).abs() > jacket.abs() * 1e-2,
            "the page shows the jacket's hem swing {jacket}"
        );
    }
}

#[test]
fn a_fit_runs_its_trials_on_the_garment() {
    use cloth_tuner::tune::fit::{fit_in, FitSpec, Stop, Trial};
    use cloth_tuner::tune::knobs::knob_list;
    use cloth_tuner::tune::targets::parse_targets;
    let dir = scratch("garment-fit");
    let (character, outfit) = wearing(&skirt_file(&dir)).load_outfit().unwrap();
    assert!(matches!(outfit, Outfit::Garment(_)));
    let mut spec = FitSpec::new(
        "walk",
        parse_targets("hem_swing_peak=0.5").unwrap(),
        knob_list("damping").unwrap(),
    );
    spec.seconds = Some(0.3);
    spec.max_trials = 1;
    let mut trials = Vec::new();
    let who = (character.clone(), &outfit);
    let cancel = AtomicBool::new(false);
    // One trial, fewer than the starting simplex's two: the search stops at the cap.
    let mut on_trial = |t: &Trial| trials.push(t.clone());
    let result = fit_in(who, &tweed(), &spec, &mut on_trial, &cancel).unwrap();
    assert_eq!((result.trials, trials.len()), (1, 1));
    assert_eq!(result.stop, Stop::TrialCap(1));
    // The first trial is the preset as given: its metrics are the skirt's, not the jacket's.
    let first = &trials[0].metrics;
    let run = |o: &Outfit| {
        simulate_drawing_in(
            character.clone(),
            o,
            &tweed(),
            "walk",
            0.3,
            Drawing::Skipped,
        )
        .unwrap()
    };
    let (skirt, jacket) = (run(&outfit), run(&Outfit::Template));
    assert_eq!(first.hem_swing_peak_cm, skirt.hem_swing_peak_cm);
    assert_ne!(first.hem_swing_peak_cm, jacket.hem_swing_peak_cm);
}

#[test]
fn drift_follows_the_garments_hem() {
    use cloth_tuner::scene::drift::drift_rates;
    let dir = scratch("garment-drift");
    let skirt = skirt_file(&dir);
    let o = cloth_tuner(&[
        "drift",
        "--preset",
        "presets/tweed.json",
        "--garment",
        skirt.to_str().unwrap(),
        "--timestep-hz",
        "30",
        "--clip",
        "walk",
        "--seconds",
        "0.3",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let printed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The jacket's hem on the same run: the skirt's swings otherwise.
    let jacket = drift_rates(
        std::sync::Arc::new(cloth_tuner::character::Character::builtin()),
        &tweed(),
        "walk",
        &[30.0],
        0.3,
        &|_| {},
    )
    .unwrap();
    let shown = printed[0]["original_swing_cm"].as_f64().unwrap();
    let on_jacket = jacket[0].original_swing_cm as f64;
    assert!(
        shown > 0.0 && (shown - on_jacket).abs() > 1e-3 * on_jacket,
        "drift printed the jacket's hem swing {on_jacket} cm, not the skirt's ({shown})"
    );
    // What every command is given is checked as `simulate` checks it: a missing file is named.
    let o = cloth_tuner(&[
        "drift",
        "--preset",
        "presets/tweed.json",
        "--garment",
        "no-such-coat.glb",
        "--timestep-hz",
        "30",
        "--seconds",
        "0.3",
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no-such-coat.glb"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
