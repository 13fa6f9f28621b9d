//! How much a tiny difference grows on the character: what an engine whose arithmetic
//! differs from ours in the last bits (another compiler, fused multiply-adds, SIMD) can expect.

use std::sync::Arc;

use cloth_tuner::preset::Preset;
use cloth_tuner::rig::{Character, Scene};

/// RMS distance (cm) between the hem of `preset` and of the same preset with a millionth more
/// damping, over `seconds` of `clip`, sampled every step.
fn nudged_hem_rms_cm(c: &Arc<Character>, preset: &Preset, clip: &str, seconds: f64) -> f64 {
    let mut nudged = preset.clone();
    nudged.params.damping += 1e-6;
    let mut a = Scene::new(c.clone(), preset, clip).unwrap();
    let mut b = Scene::new(c.clone(), &nudged, clip).unwrap();
    a.set_skin_body(false);
    b.set_skin_body(false);
    let topo = a.cloth().topology().clone();
    let hem = (topo.rows - 1) * topo.cols..topo.rows * topo.cols;
    let steps = (seconds * preset.params.timestep_hz as f64).round() as usize;
    let (mut sum, mut n) = (0f64, 0usize);
    for _ in 0..steps {
        a.step();
        b.step();
        for i in hem.clone() {
            let d = a.cloth().positions()[i].distance(b.cloth().positions()[i]) as f64;
            sum += d * d;
            n += 1;
        }
    }
    (sum / n as f64).sqrt() * 100.0
}

/// The nudged-hem RMS of each clip (3 s) and their sum, printed for the log.
fn over_every_clip(file: &str) -> f64 {
    let c = Arc::new(Character::builtin());
    let preset = Preset::load(file).unwrap();
    let clips: Vec<String> = c.clip_names().map(str::to_string).collect();
    assert_eq!(clips.len(), 9, "the figures below are over the nine clips");
    let mut total = 0.0;
    for clip in &clips {
        let cm = nudged_hem_rms_cm(&c, &preset, clip, 3.0);
        eprintln!("{file} {clip}: {cm:.2} cm");
        total += cm;
    }
    eprintln!("{file}: {total:.2} cm over {} clips", clips.len());
    total
}

#[test]
fn a_millionth_more_damping_moves_the_tweed_hem_by_millimetres_not_centimetres() {
    // Measured: 4.3 cm summed over the nine clips. Before the hard pass's corrections and the
    // rig's reference points were made continuous (the sideways limit chose between the whole,
    // half or a quarter of the way; a particle swung out of a leg past its reach jumped to a
    // fixed search direction; a reference inside a thigh went to its nearest surface, which
    // changes side as the thigh's centre goes by) it was 12.4 cm.
    let total = over_every_clip("presets/tweed.json");
    assert!(total < 7.0, "{total:.2} cm");
}

#[test]
fn a_millionth_more_damping_moves_the_down_jacket_hem_by_millimetres_not_centimetres() {
    // Measured: 2.4 cm summed over the nine clips; it was 6.8 cm.
    let total = over_every_clip("presets/down_jacket.json");
    assert!(total < 4.0, "{total:.2} cm");
}
