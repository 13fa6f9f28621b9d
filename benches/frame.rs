//! The jacket frame (clip, rig, reference points, hood, cloth substeps, skirt leg lines,
//! bones) on the built-in character, per shipped preset and clip: the fastest and the median
//! of `Scene::step` over 40 s as `simulate` times it, once with nothing between the steps
//! (warm caches) and once with the drawn meshes skinned between them as `simulate` does, and a
//! hash of where the run ended. `cargo bench --bench frame [-- FILTER] [--warm]`.

use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::Scene;

const PRESETS: [&str; 4] = ["tweed", "down_jacket", "veil", "skirt"];
const CLIPS: [&str; 2] = ["walk", "dodge"];
const STEPS: usize = 2400;

/// One run of [`STEPS`] steps.
struct Run {
    /// Microseconds of the fastest and the median frame.
    fastest: f64,
    median: f64,
    /// Where the run ended (positions, bones, the hood's pendulum): a change meant to keep the
    /// bits keeps this.
    hash: u64,
    particles: usize,
}

fn run(character: &Arc<Character>, preset: &Preset, clip: &str, skin: bool) -> Run {
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
    Run {
        fastest: times[0],
        median: times[times.len() / 2],
        hash: end_hash(&scene),
        particles: scene.cloth().positions().len(),
    }
}

/// FNV-1a over the bits of the cloth's positions, the simulation bones and the hood's end (when
/// the garment has a hood).
fn end_hash(scene: &Scene) -> u64 {
    let pos = scene.cloth().positions().iter().flat_map(|p| p.to_array());
    let bones = scene.sim_bones().iter().flat_map(|m| m.to_cols_array());
    let hood = scene.hood_pendulum().into_iter().flat_map(|p| p.to_array());
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
    println!(
        "{:>12} {:>6} {:>9} {:>20} {:>20} {:>18}",
        "preset", "clip", "particles", "warm", "skinned between", "end state"
    );
    for name in PRESETS {
        let path = format!("{}/presets/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let preset = Preset::load(&path).expect("a shipped preset");
        for clip in CLIPS {
            if filter
                .as_deref()
                .is_some_and(|f| !format!("{name}/{clip}").contains(f))
            {
                continue;
            }
            let warm = run(&character, &preset, clip, false);
            let skinned = if warm_only {
                "-".to_string()
            } else {
                let s = run(&character, &preset, clip, true);
                format!("{:.1} / {:.1}", s.fastest, s.median)
            };
            let warm_text = format!("{:.1} / {:.1}", warm.fastest, warm.median);
            println!(
                "{name:>12} {clip:>6} {:>9} {warm_text:>20} {skinned:>20} {:>18x}",
                warm.particles, warm.hash
            );
        }
    }
}
