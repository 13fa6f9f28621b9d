//! The jacket frame (clip, rig, reference points, hood, cloth substeps, skirt leg lines,
//! bones) on the built-in character, per shipped preset and clip: the fastest and the median
//! of `Scene::step` over 40 s (as `simulate` times it), with nothing else between the steps (warm caches), and with the
//! drawn meshes skinned between the steps as `simulate` does (cold caches).
//! `cargo bench --bench frame [-- FILTER]`.

use std::sync::Arc;

use cloth_tuner::preset::Preset;
use cloth_tuner::rig::{Character, Scene};

const PRESETS: [&str; 4] = ["tweed", "down_jacket", "veil", "skirt"];
const CLIPS: [&str; 2] = ["walk", "dodge"];
const STEPS: usize = 2400;

/// (fastest, median) microseconds of a step over [`STEPS`] steps, and a hash of where the
/// run ended (positions, bones, the hood's pendulum): a change that should keep the bits
/// keeps this.
fn frame_us(
    character: &Arc<Character>,
    preset: &Preset,
    clip: &str,
    skin: bool,
) -> (f64, f64, u64) {
    let mut scene = Scene::new(character.clone(), preset, clip).expect("a shipped clip");
    let mut times = Vec::with_capacity(STEPS);
    for _ in 0..STEPS {
        scene.step();
        // The frame as `simulate` times it: the tuner's measurements after it are not counted.
        times.push(scene.frame_stats().frame_seconds as f64 * 1e6);
        if skin {
            scene.skin_meshes();
        }
    }
    times.sort_by(f64::total_cmp);
    (times[0], times[times.len() / 2], end_hash(&scene))
}

/// The shipped preset `name`.
fn load(name: &str) -> Preset {
    let path = format!("{}/presets/{name}.json", env!("CARGO_MANIFEST_DIR"));
    Preset::load(&path).expect("a shipped preset")
}

/// FNV-1a over the bits of the cloth's positions, the simulation bones and the hood's end.
fn end_hash(scene: &Scene) -> u64 {
    let pos = scene.cloth().positions().iter().flat_map(|p| p.to_array());
    let bones = scene.sim_bones().iter().flat_map(|m| m.to_cols_array());
    let hood = scene.hood_pendulum().to_array();
    pos.chain(bones)
        .chain(hood)
        .fold(0xcbf2_9ce4_8422_2325, |h, x| {
            (h ^ x.to_bits() as u64).wrapping_mul(0x0100_0000_01b3)
        })
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    // `--warm`: only the steps with nothing between them (for a profiler).
    let warm_only = std::env::args().any(|a| a == "--warm");
    let character = Arc::new(Character::builtin());
    println!("jacket frame, us: fastest / median over {STEPS} steps");
    for name in PRESETS {
        let scene = Scene::new(character.clone(), &load(name), "walk").expect("a shipped clip");
        let particles = scene.cloth().positions().len();
        println!("  {name}: {particles} particles");
    }
    println!(
        "{:>12} {:>6} {:>20} {:>20}",
        "preset", "clip", "warm", "skinned between"
    );
    for name in PRESETS {
        let preset = load(name);
        for clip in CLIPS {
            let label = format!("{name}/{clip}");
            if filter.as_deref().is_some_and(|f| !label.contains(f)) {
                continue;
            }
            let (wf, wm, hash) = frame_us(&character, &preset, clip, false);
            let (sf, sm) = if warm_only {
                (0.0, 0.0)
            } else {
                let (sf, sm, _) = frame_us(&character, &preset, clip, true);
                (sf, sm)
            };
            println!(
                "{name:>12} {clip:>6} {wf:>9.1} / {wm:>7.1} {sf:>9.1} / {sm:>7.1} {hash:>18x}"
            );
        }
    }
}
