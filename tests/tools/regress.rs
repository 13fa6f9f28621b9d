//! The visual regression suite: the committed manifest against the committed goldens, proof
//! that the suite notices a small change to a preset, byte-identical renders, and bad input.
//!
//! The GL tests need windowless OpenGL (EGL + Mesa). Without it they skip with a note, and
//! fail when `CI=true` with the packages to install.
#![cfg(feature = "gui")]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{have_gl, scratch};

use cloth_tuner::cli::regress::{regress, summary, RegressArgs, Report};
use cloth_tuner::cli::render::{render, CameraSpec, RenderArgs};

#[test]
fn the_committed_manifest_matches_the_goldens() {
    if !have_gl("the regression suite") {
        return;
    }
    let args = RegressArgs {
        manifest: "tests/regress.json".into(),
        character: Default::default(),
        golden: "tests/golden".into(),
        out: scratch("regress-suite"),
        update: false,
        quiet: true,
        shard: None,
        junit: None,
    };
    let report = regress(&args).unwrap();
    println!("{}", summary(&report));
    assert!(report.cases.len() >= 18, "{} cases", report.cases.len());
    assert_eq!(
        report.failures(),
        0,
        "{}\nIf the change is deliberate: cargo run --release -- regress --manifest \
         tests/regress.json --golden tests/golden --out target/regress --update",
        summary(&report)
    );
}

/// One case (tweed, dodge, front, frame 30) from `preset`, against the committed goldens.
fn one_case(preset: &Path, dir: &Path) -> cloth_tuner::cli::regress::Report {
    let manifest = dir.join("manifest.json");
    let text = serde_json::json!({
        "size": "480x270",
        "max_pixel_diff": 16,
        "max_diff_share": 0.0005,
        "cases": [{
            "preset": preset,
            "clips": ["dodge"],
            "frames": [30],
            "cameras": ["front"]
        }]
    });
    std::fs::write(&manifest, text.to_string()).unwrap();
    regress(&RegressArgs {
        manifest,
        character: Default::default(),
        golden: "tests/golden".into(),
        out: dir.join("out"),
        update: false,
        quiet: true,
        shard: None,
        junit: None,
    })
    .unwrap()
}

#[test]
fn a_small_damping_or_stiffness_change_fails_and_the_unchanged_preset_passes() {
    if !have_gl("the preset-change check") {
        return;
    }
    let same = scratch("regress-unchanged");
    let report = one_case(Path::new("presets/tweed.json"), &same);
    assert_eq!(report.failures(), 0, "{}", summary(&report));

    // The tweed with damping 0.0096 -> 0.024, or shear/bend stiffness 0.35 -> 0.25, in a file
    // of the same name (so the same golden).
    for (knob, value) in [("damping", 0.024), ("shear_bend_stiffness", 0.25)] {
        let changed = scratch(&format!("regress-changed-{knob}"));
        let mut preset: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string("presets/tweed.json").unwrap()).unwrap();
        preset["params"][knob] = serde_json::json!(value);
        let path = changed.join("tweed.json");
        std::fs::write(&path, serde_json::to_string_pretty(&preset).unwrap()).unwrap();
        let report = one_case(&path, &changed);
        assert_eq!(report.failures(), 1, "{knob}: {}", summary(&report));
        let name = &report.cases[0].name;
        assert!(changed.join("out/diff").join(name).is_file());
        assert!(changed.join("out/expected").join(name).is_file());
        let html = std::fs::read_to_string(&report.html).unwrap();
        assert!(html.contains(&format!("diff/{name}")), "{html}");
    }
}

#[test]
fn shards_split_the_suite_without_overlap_and_junit_and_the_report_list_failures_first() {
    if !have_gl("the shard check") {
        return;
    }
    let dir = scratch("regress-shards");
    // Three preset x clip pairs from the shipped suite; the veil's stands in for a tweed whose
    // damping drifted (a file of the same name, so the same goldens).
    let mut drifted: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("presets/tweed.json").unwrap()).unwrap();
    drifted["params"]["damping"] = serde_json::json!(0.024);
    std::fs::create_dir_all(dir.join("drifted")).unwrap();
    let drifted_path = dir.join("drifted/tweed.json");
    std::fs::write(&drifted_path, drifted.to_string()).unwrap();
    let manifest = dir.join("manifest.json");
    let text = serde_json::json!({
        "size": "480x270",
        "max_pixel_diff": 16,
        "max_diff_share": 0.0005,
        "cases": [
            {"preset": "presets/down_jacket.json", "clips": ["dodge", "walk"], "frames": [30], "cameras": ["front"]},
            {"preset": drifted_path, "clips": ["dodge"], "frames": [30], "cameras": ["front"]}
        ]
    });
    std::fs::write(&manifest, text.to_string()).unwrap();
    let run = |shard: &str| {
        let out = dir.join(shard.replace('/', "-"));
        let junit = out.join("junit.xml");
        let report = regress(&RegressArgs {
            manifest: manifest.clone(),
            character: Default::default(),
            golden: "tests/golden".into(),
            out: out.clone(),
            update: false,
            quiet: true,
            shard: Some(shard.parse().unwrap()),
            junit: Some(junit.clone()),
        })
        .unwrap();
        (report, std::fs::read_to_string(junit).unwrap())
    };
    let mut names = Vec::new();
    for shard in ["1/2", "2/2"] {
        let (report, _) = run(shard);
        names.extend(report.cases.iter().map(|c| c.name.clone()));
    }
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        names.len(),
        "a case ran in two shards: {names:?}"
    );
    assert_eq!(
        sorted,
        [
            "down_jacket_dodge_front_0030.png",
            "down_jacket_walk_front_0030.png",
            "tweed_dodge_front_0030.png"
        ]
    );

    // Shard 1/2 holds the first and third pairs: a pass and the drifted tweed's failure.
    let (report, xml) = run("1/2");
    assert_eq!((report.cases.len(), report.failures()), (2, 1));
    // Read back as a CI system reads it.
    let junit = quick_junit::Report::deserialize_from_str(&xml).expect("JUnit XML");
    assert_eq!(
        (junit.tests, junit.failures, junit.errors),
        (2, 1, 0),
        "{xml}"
    );
    let suite = &junit.test_suites[0];
    assert!(suite.name.contains("shard 1/2"), "{xml}");
    let case = |name: &str| {
        suite
            .test_cases
            .iter()
            .find(|c| c.name.as_str() == name && c.classname.as_deref() == Some("regress"))
            .unwrap_or_else(|| panic!("no test case {name}: {xml}"))
    };
    match &case("tweed_dodge_front_0030.png").status {
        quick_junit::TestCaseStatus::NonSuccess {
            kind: quick_junit::NonSuccessKind::Failure,
            message: Some(message),
            description: Some(text),
            ..
        } => {
            assert!(message.as_str().starts_with("largest difference"), "{xml}");
            assert!(text.as_str().contains("largest difference"), "{xml}");
        }
        other => panic!("the drifted tweed should fail: {other:?}"),
    }
    assert!(
        matches!(
            case("down_jacket_dodge_front_0030.png").status,
            quick_junit::TestCaseStatus::Success { .. }
        ),
        "{xml}"
    );
    let html = std::fs::read_to_string(&report.html).unwrap();
    let (fail, pass) = (html.find("FAIL").unwrap(), html.find(">pass<").unwrap());
    assert!(fail < pass, "failures come first in the report");
}

#[test]
fn the_same_render_twice_gives_byte_identical_pngs() {
    if !have_gl("the determinism check") {
        return;
    }
    let dir = scratch("render-twice");
    let mut files = Vec::new();
    for run in ["a", "b"] {
        let args = RenderArgs {
            preset: "presets/down_jacket.json".into(),
            preset_b: None,
            clip: "dodge".into(),
            character: Default::default(),
            frames: vec![12, 3],
            width: 240,
            height: 136,
            camera: CameraSpec::parse("side").unwrap(),
            out: dir.join(run),
            overlays: Vec::new(),
            baked: false,
            quiet: true,
        };
        let (written, _) = render(&args).unwrap();
        assert_eq!(written.len(), 2);
        files.push(written);
    }
    for (a, b) in files[0].iter().zip(&files[1]) {
        assert_eq!(a.file_name(), b.file_name());
        assert!(
            std::fs::read(a).unwrap() == std::fs::read(b).unwrap(),
            "{} and {} differ",
            a.display(),
            b.display()
        );
    }
    assert!(files[0][0].ends_with("down_jacket_dodge_side_0003.png"));
}

fn tuner(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn bad_input_is_a_clear_message_and_a_nonzero_exit() {
    let dir = scratch("bad-input");
    let out = dir.join("shots");
    let out = out.to_str().unwrap();
    let render = |extra: &[&str]| {
        let mut a = vec!["render", "--out", out];
        a.extend_from_slice(extra);
        tuner(&a)
    };
    let (code, text) = render(&["--preset", "presets/nope.json", "--frames", "1"]);
    assert_ne!(code, 0);
    assert!(text.contains("presets/nope.json"), "{text}");
    let (code, text) = render(&[
        "--preset",
        "presets/tweed.json",
        "--clip",
        "moonwalk",
        "--frames",
        "1",
    ]);
    assert_ne!(code, 0);
    assert!(text.contains("unknown clip `moonwalk`"), "{text}");
    let (code, text) = render(&["--preset", "presets/tweed.json", "--frames", "1,two"]);
    assert_ne!(code, 0);
    assert!(text.contains("--frames") && text.contains("two"), "{text}");
    let (code, text) = render(&[
        "--preset",
        "presets/tweed.json",
        "--frames",
        "1",
        "--size",
        "big",
    ]);
    assert_ne!(code, 0);
    assert!(text.contains("WIDTHxHEIGHT"), "{text}");

    // An output folder that cannot be made: its parent is a file.
    let file = dir.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let blocked = file.join("shots");
    let (code, text) = tuner(&[
        "render",
        "--preset",
        "presets/tweed.json",
        "--frames",
        "1",
        "--out",
        blocked.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(text.contains("output folder"), "{text}");
    assert!(!Path::new(out).exists(), "nothing was written");

    // compare: a missing file and different sizes are errors (2), not mismatches (1).
    let (code, text) = tuner(&["compare", "tests/golden/none.png", "tests/golden/none.png"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("none.png"), "{text}");
    let small = dir.join("small.png");
    let px = cloth_tuner::picture::Rgba {
        width: 2,
        height: 2,
        pixels: vec![[0, 0, 0, 255]; 4],
    };
    cloth_tuner::picture::write_png(&small, &px).unwrap();
    let big = dir.join("big.png");
    cloth_tuner::picture::write_png(
        &big,
        &cloth_tuner::picture::Rgba {
            width: 3,
            height: 2,
            pixels: vec![[0, 0, 0, 255]; 6],
        },
    )
    .unwrap();
    let (code, text) = tuner(&["compare", small.to_str().unwrap(), big.to_str().unwrap()]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("different sizes"), "{text}");
    let (code, text) = tuner(&["compare", small.to_str().unwrap(), small.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");

    // regress --update with a bad case after a good one: no golden is touched.
    let golden = dir.join("golden");
    std::fs::create_dir_all(&golden).unwrap();
    let kept = golden.join("tweed_walk_front_0002.png");
    std::fs::write(&kept, b"the old golden").unwrap();
    let manifest = dir.join("manifest.json");
    std::fs::write(
        &manifest,
        r#"{"size": "64x36", "max_pixel_diff": 0, "max_diff_share": 0, "cases": [
            {"preset": "presets/tweed.json", "clips": ["walk"], "frames": [2], "cameras": ["front"]},
            {"preset": "presets/tweed.json", "clips": ["moonwalk"], "frames": [2], "cameras": ["front"]}
        ]}"#,
    )
    .unwrap();
    let (code, text) = tuner(&[
        "regress",
        "--manifest",
        manifest.to_str().unwrap(),
        "--golden",
        golden.to_str().unwrap(),
        "--out",
        dir.join("regress").to_str().unwrap(),
        "--update",
    ]);
    assert_ne!(code, 0);
    assert!(
        text.contains("case 1") && text.contains("moonwalk"),
        "{text}"
    );
    assert_eq!(std::fs::read(&kept).unwrap(), b"the old golden");
    assert_eq!(std::fs::read_dir(&golden).unwrap().count(), 1);
    // A manifest field of the wrong kind names the field.
    std::fs::write(&manifest, r#"{"size": "64x36", "max_pixel_diff": "lots"}"#).unwrap();
    let (code, text) = tuner(&["regress", "--manifest", manifest.to_str().unwrap()]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("max_pixel_diff"), "{text}");
    // A shard that is not one of N parts, before anything is read or written.
    for (shard, says) in [
        ("3/2", "from 1 to the number of parts (2)"),
        ("0/4", "from 1"),
        ("two", "K/N"),
    ] {
        let (code, text) = tuner(&[
            "regress",
            "--shard",
            shard,
            "--out",
            dir.join("sharded").to_str().unwrap(),
        ]);
        assert_ne!(code, 0, "{shard}");
        assert!(
            text.contains("--shard") && text.contains(says),
            "{shard}: {text}"
        );
        assert!(!dir.join("sharded").exists());
    }
}

#[test]
fn a_manifest_case_plays_the_character_it_names() {
    if !have_gl("the character case") {
        return;
    }
    use cloth_tuner_assets::test_rig::{test_rig_glb, Naming, RigStyle};
    let dir = scratch("regress-character");
    let rig = dir.join("hero.glb");
    let style = RigStyle {
        naming: Naming::Mixamo,
        clips: Vec::new(),
        ..RigStyle::default()
    };
    std::fs::write(&rig, test_rig_glb(&style)).unwrap();
    let manifest = dir.join("manifest.json");
    let text = serde_json::json!({
        "size": "160x90",
        "max_pixel_diff": 0,
        "max_diff_share": 0.0,
        "cases": [{
            "character": rig,
            "preset": "presets/tweed.json",
            "clips": ["bind_pose", "dodge"],
            "frames": [10],
            "cameras": ["front"]
        }]
    });
    std::fs::write(&manifest, text.to_string()).unwrap();
    let run = |update: bool| regress_beside(&manifest, &dir, update);
    let written = run(true);
    let names: Vec<String> = written
        .updated
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "hero_tweed_bind_pose_front_0010.png",
            "hero_tweed_dodge_front_0010.png"
        ]
    );
    // The same character renders the same pictures again.
    let again = run(false);
    assert_eq!(again.failures(), 0, "{}", summary(&again));
}

/// The knob moved as a 5 % drift would move it: a number 5 % up (down where up leaves its
/// range; 5 % of the range from 0, or a knob off at 0 to its first on value), a count one
/// step, a switch flipped.
fn nudged(spec: &cloth_tuner::sim::ParamSpec, v: f64) -> f64 {
    use cloth_tuner::sim::ParamKind;
    match spec.kind {
        ParamKind::Bool => 1.0 - v,
        ParamKind::Int if v < spec.max => v + 1.0,
        ParamKind::Int => v - 1.0,
        // A knob off at 0 (tearing) turns on at its first value.
        ParamKind::Float if v == 0.0 => spec.on_from.unwrap_or(spec.max * 0.05),
        ParamKind::Float if v * 1.05 <= spec.max => v * 1.05,
        ParamKind::Float => v * 0.95,
    }
}

#[test]
fn moving_any_knob_of_a_shipped_preset_by_5_percent_fails_its_motion_record() {
    use cloth_tuner::character::Character;
    use cloth_tuner::cli::record::{compare, record, record_name, MotionRecord};
    use cloth_tuner::cli::regress::Manifest;
    use cloth_tuner::cli::render::Job;
    use cloth_tuner::preset::Preset;
    use cloth_tuner::sim::FabricParams;
    use std::sync::Arc;
    // No pictures here, so no GL: the records alone.
    let manifest = Manifest::load(Path::new("tests/regress.json")).unwrap();
    let spec = manifest
        .records
        .clone()
        .expect("the shipped suite records the hem and front edges");
    let character = Arc::new(Character::builtin());
    let dir = scratch("regress-knobs");
    let job = |preset: &Path, clip: &str| {
        Job::new(
            &character,
            None,
            preset,
            clip,
            &[1],
            vec![CameraSpec::Front],
            &[],
        )
        .unwrap()
    };
    let mut missed = Vec::new();
    for case in &manifest.cases {
        let base = Preset::load(&case.preset).unwrap();
        let path = dir.join(case.preset.file_name().unwrap());
        for knob in FabricParams::SPECS {
            let mut moved = base.clone();
            let v = moved.params.get(knob.name).unwrap();
            assert!(moved.params.set(knob.name, nudged(knob, v)));
            std::fs::write(&path, moved.to_json()).unwrap();
            // Caught when any clip's hem, front edges or hood leave their record.
            let runs: Vec<(MotionRecord, MotionRecord)> = case
                .clips
                .iter()
                .map(|clip| {
                    let j = job(&path, clip);
                    let golden = Path::new("tests/golden").join(record_name(&j));
                    let expected: MotionRecord =
                        serde_json::from_slice(&std::fs::read(&golden).unwrap()).unwrap();
                    (expected, record(&j, &spec).unwrap())
                })
                .collect();
            let caught = runs.iter().any(|(expected, actual)| {
                compare(expected, actual, spec.tolerance_cm).map_or(true, |c| !c.passes())
            });
            // A knob the preset's garment never uses (the hood's on a plain jacket, a swing
            // limit the hood never reaches) moves nothing at all: no drift to catch. Anything
            // it does move, by however little, must be caught.
            let moves_nothing = runs.iter().all(|(expected, actual)| expected == actual);
            if !caught && !moves_nothing {
                missed.push(format!("{} {}", base.name, knob.name));
            }
        }
    }
    assert!(
        missed.is_empty(),
        "5 % moves the suite does not catch: {missed:?}"
    );
}

#[test]
fn an_ab_render_puts_a_left_and_b_right_each_as_its_own_render_draws_it() {
    if !have_gl("the A/B render") {
        return;
    }
    let dir = scratch("render-ab");
    let args = |preset: &str, preset_b: Option<&str>, out: &str| RenderArgs {
        preset: preset.into(),
        preset_b: preset_b.map(PathBuf::from),
        clip: "dodge".into(),
        character: Default::default(),
        frames: vec![20],
        width: 200,
        height: 120,
        camera: CameraSpec::parse("three-quarter").unwrap(),
        out: dir.join(out),
        overlays: Vec::new(),
        baked: false,
        quiet: true,
    };
    let (pair, _) = render(&args("presets/tweed.json", Some("presets/veil.json"), "ab")).unwrap();
    assert_eq!(pair.len(), 1);
    assert_eq!(
        pair[0].file_name().unwrap(),
        "tweed_vs_veil_dodge_three-quarter_0020.png"
    );
    let (a, _) = render(&args("presets/tweed.json", None, "a")).unwrap();
    let (b, _) = render(&args("presets/veil.json", None, "b")).unwrap();
    let read = |p: &Path| cloth_tuner::picture::read_png(p).unwrap();
    let (pair, a, b) = (read(&pair[0]), read(&a[0]), read(&b[0]));
    let gap = cloth_tuner::cli::render::PAIR_GAP;
    assert_eq!((pair.width, pair.height), (2 * 200 + gap, 120));
    let half = |x0: u32| -> Vec<[u8; 4]> {
        (0..120)
            .flat_map(|y| {
                let row = (y * pair.width + x0) as usize;
                pair.pixels[row..row + 200].to_vec()
            })
            .collect()
    };
    assert!(
        half(0) == a.pixels,
        "the left half is not tweed's own render"
    );
    assert!(
        half(200 + gap) == b.pixels,
        "the right half is not veil's own render"
    );
    assert!(
        a.pixels != b.pixels,
        "the two presets should look different"
    );
}

/// `regress` on `manifest` with its goldens in `dir/golden` and its pictures in `dir/out`,
/// writing the goldens when `update`: a manifest of the test's own, run quietly.
pub(crate) fn regress_beside(manifest: &Path, dir: &Path, update: bool) -> Report {
    regress(&RegressArgs {
        manifest: manifest.to_path_buf(),
        character: Default::default(),
        golden: dir.join("golden"),
        out: dir.join("out"),
        update,
        quiet: true,
        shard: None,
        junit: None,
    })
    .unwrap()
}
