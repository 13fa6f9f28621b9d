//! Baking (`bake`): the 9 built-in clips, 6 s each, of the tweed jacket on the built-in
//! character, as `bake --clips ALL --seconds 6` does it (every clip simulated and reduced on
//! all cores, then written as one glTF): the wall time of each of a few runs, its fastest
//! and median, and the CPU time. `cargo bench --bench bake`.

use std::sync::Arc;
use std::time::Instant;

use cloth_tuner::character::Character;
use cloth_tuner::export::baked::{bake, BakeSettings};
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::Outfit;

/// Runs timed (after one untimed run that warms the caches and the thread pool).
const RUNS: usize = 3;

/// CPU seconds this process has used (user and system), from `/proc/self/stat`; `None`
/// elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit(')').next()?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    let character = Arc::new(Character::builtin());
    let preset = Preset::load("presets/tweed.json").expect("presets/tweed.json");
    let clips: Vec<String> = character.clip_names().map(str::to_string).collect();
    let settings = BakeSettings {
        clips,
        seconds: 6.0,
        tolerance_mm: 0.5,
    };
    let run = || bake(&character, &Outfit::Template, &preset, &settings, &|_| {});
    let first = run().expect("the bake runs");
    let worst = first.clips.iter().map(|c| c.max_mm).fold(0.0, f64::max);
    let mut walls = Vec::new();
    let cpu_before = cpu_seconds();
    for _ in 0..RUNS {
        let start = Instant::now();
        let baked = run().expect("the bake runs");
        walls.push(start.elapsed().as_secs_f64());
        assert_eq!(
            baked.rigged.bytes, first.rigged.bytes,
            "a bake changed its bytes"
        );
    }
    let cpu = cpu_before
        .zip(cpu_seconds())
        .map(|(a, b)| format!("{:.2} s CPU a run", (b - a) / RUNS as f64))
        .unwrap_or_default();
    walls.sort_by(f64::total_cmp);
    println!(
        "bake: {} clips x {} s, tweed, {} threads, {:.1} MB written, largest error {worst:.3} mm",
        settings.clips.len(),
        settings.seconds,
        rayon::current_num_threads(),
        first.rigged.bytes.len() as f64 / 1e6,
    );
    println!(
        "  wall: fastest {:.2} s, median {:.2} s over {RUNS} runs; {cpu}",
        walls[0],
        walls[RUNS / 2]
    );
}
