//! `ct_garment_step` against the tool's jacket frame for the same garment: the built-in
//! jacket with tweed rigged as `export --rig` writes it, loaded back; the tool's frame is
//! `Scene::step` on the walk as `simulate` times it (`frame_seconds`), the runtime's one
//! `ct_garment_step` call per frame with the walk's pose (sampled beforehand, as an engine's
//! animation is its own), from the call to its return. 1,200 frames, the first second left
//! out, three runs of each alternated; the fastest frame and the median of the medians.
//! `cargo bench -p cloth-tuner-capi --bench garment_step`.

use std::ffi::CString;
use std::time::Instant;

use cloth_tuner::character::Character;
use cloth_tuner::export::rigged::write_rigged;
use cloth_tuner::export::runtime::GarmentRuntime;
use cloth_tuner::garment::imported::ImportedGarment;
use cloth_tuner::garment::{dress, fitted_layout};
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::Scene;
use cloth_tuner_capi::{
    ct_garment_cloth_bone_count, ct_garment_free, ct_garment_load, ct_garment_step, CtFrame,
    CtMat4, CtQuat, CtStatus, CtVec3,
};

const STEPS: usize = 1200;
/// Frames left out at the start (the first second).
const SKIP: usize = 60;
const RUNS: usize = 3;

/// Fastest and median, microseconds, of `times` past the first second.
fn figures(mut times: Vec<f64>) -> (f64, f64) {
    let mut t = times.split_off(SKIP);
    t.sort_by(f64::total_cmp);
    (t[0], t[t.len() / 2])
}

fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let tweed = concat!(env!("CARGO_MANIFEST_DIR"), "/../presets/tweed.json");
    let preset = Preset::load(tweed).expect("the shipped tweed");
    let character = Character::builtin();
    let layout = fitted_layout(&character, preset.garment);
    let jacket = dress(&character, preset.garment, &layout).expect("the jacket");
    let glb = dir.path().join("jacket.glb");
    write_rigged(&glb, &character, jacket.as_ref(), &preset).expect("write the rigged jacket");

    let runtime = GarmentRuntime::load(&glb, Some(tweed.as_ref())).expect("load it back");
    let garment = runtime
        .scene()
        .worn_as::<ImportedGarment>()
        .unwrap()
        .clone();
    let loaded = runtime.scene().character_arc().clone();
    let tool = || Scene::wearing(loaded.clone(), Box::new(garment.clone()), &preset, "walk");
    let sk = &loaded.skeleton;
    let body: Vec<usize> = runtime.joints()[..runtime.body_joint_count()]
        .iter()
        .map(|j| sk.find(&j.name).unwrap())
        .collect();
    // The walk's poses as an engine hands them over.
    let mut scene = tool().expect("the walk");
    let frames: Vec<(Vec<CtMat4>, CtFrame)> = (0..STEPS)
        .map(|_| {
            scene.step();
            let pose = body
                .iter()
                .map(|&b| CtMat4 {
                    m: scene.model()[b].to_cols_array(),
                })
                .collect();
            let (q, t) = (scene.root().rotation, scene.root().translation);
            let root = CtFrame {
                rotation: CtQuat {
                    x: q.x,
                    y: q.y,
                    z: q.z,
                    w: q.w,
                },
                translation: CtVec3 {
                    x: t.x,
                    y: t.y,
                    z: t.z,
                },
            };
            (pose, root)
        })
        .collect();
    let path = CString::new(glb.to_str().unwrap()).unwrap();
    let preset_path = CString::new(tweed).unwrap();

    let (mut tool_runs, mut runtime_runs) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let mut scene = tool().expect("the walk");
        let times = (0..STEPS)
            .map(|_| {
                scene.step();
                scene.frame_stats().frame_seconds as f64 * 1e6
            })
            .collect();
        tool_runs.push(figures(times));

        let mut g = std::ptr::null_mut();
        let s = unsafe { ct_garment_load(path.as_ptr(), preset_path.as_ptr(), &mut g) };
        assert_eq!(s, CtStatus::Ok);
        let n = unsafe { ct_garment_cloth_bone_count(g) };
        let mut out = vec![CtMat4 { m: [0.0; 16] }; n];
        let times = frames
            .iter()
            .map(|(pose, root)| {
                let start = Instant::now();
                let s = unsafe {
                    let (p, o) = (pose.as_ptr(), out.as_mut_ptr());
                    ct_garment_step(g, p, pose.len(), root, 1.0 / 60.0, o, n)
                };
                let us = start.elapsed().as_secs_f64() * 1e6;
                assert_eq!(s, CtStatus::Ok);
                us
            })
            .collect();
        runtime_runs.push(figures(times));
        unsafe { ct_garment_free(g) };
    }
    let best = |runs: &[(f64, f64)]| {
        let fastest = runs.iter().map(|r| r.0).fold(f64::MAX, f64::min);
        let mut medians: Vec<f64> = runs.iter().map(|r| r.1).collect();
        medians.sort_by(f64::total_cmp);
        (fastest, medians[medians.len() / 2])
    };
    let (tf, tm) = best(&tool_runs);
    let (rf, rm) = best(&runtime_runs);
    let grid = &runtime.scene().cloth().topology();
    println!(
        "rigged tweed jacket, grid {} x {}, {} cloth bones, walk, {} frames x {RUNS} runs",
        grid.cols,
        grid.rows,
        runtime.cloth_bones().len(),
        STEPS - SKIP
    );
    println!("tool jacket frame (Scene::step):  fastest {tf:7.1} us  median {tm:7.1} us");
    println!("ct_garment_step:                  fastest {rf:7.1} us  median {rm:7.1} us");
    println!(
        "ct_garment_step / tool frame: fastest {:.3}, median {:.3} (target: within 1.10)",
        rf / tf,
        rm / tm
    );
}
