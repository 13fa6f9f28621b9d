//! How well a time-step conversion holds: the hem's trajectory on a clip with the preset at its
//! own rate, against the converted preset at another rate and against the same knobs simply run
//! at that rate. And the floor under both: how far the same preset at its own rate departs
//! from itself when one knob moves by a millionth. A chaotic fabric turns any difference,
//! however small, into centimetres within seconds (the veil as first tuned,
//! `tests/fixtures/veil_before_retune.json`, whose shear is so soft that the deformation limit
//! does its work); conversion
//! drift near that floor is as small as a comparison of single trajectories can show.

use std::sync::Arc;

use glam::Vec3;
use serde::Serialize;

use super::{Outfit, Scene, SceneError};
use crate::character::Character;
use crate::preset::convert::{convert_preset, retimed, ConvertError};
use crate::preset::Preset;

/// Why a drift measurement could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DriftError {
    #[error(transparent)]
    Scene(#[from] SceneError),
    #[error(transparent)]
    Convert(#[from] ConvertError),
}

/// One row of the drift table: centimetres between the hem of the preset at its own rate and
/// the hem at `to_hz`, converted and unconverted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DriftRow {
    pub preset: String,
    pub clip: String,
    pub from_hz: f32,
    pub to_hz: f32,
    pub seconds: f64,
    pub converted_rms_cm: f32,
    pub converted_max_cm: f32,
    pub unconverted_rms_cm: f32,
    pub unconverted_max_cm: f32,
    /// The preset at its own rate with `damping` moved by [`FLOOR_NUDGE`], against itself.
    pub floor_rms_cm: f32,
    pub floor_max_cm: f32,
    /// How much the hem swings (RMS distance of its particles from their mean positions over
    /// the run, cm) at the original rate, converted and unconverted: where chaos makes the
    /// trajectories part, whether the fabric still moves as much.
    pub original_swing_cm: f32,
    pub converted_swing_cm: f32,
    pub unconverted_swing_cm: f32,
    /// The same for the floor's run: how much chaos alone moves this statistic.
    pub floor_swing_cm: f32,
}

/// How far `damping` is moved for the floor: a millionth, far below anything a slider or a
/// conversion sets.
pub const FLOOR_NUDGE: f32 = 1e-6;

impl DriftRow {
    /// Converted drift as a share of unconverted drift (RMS): below 1/3 is the target.
    pub fn ratio(&self) -> f32 {
        if self.unconverted_rms_cm > 0.0 {
            self.converted_rms_cm / self.unconverted_rms_cm
        } else {
            0.0
        }
    }
}

/// The hem particles' positions relative to the body (character space) when `preset` plays
/// `clip` for `steps` fixed steps: at the start and after every `every`-th step.
pub fn hem_path(
    character: Arc<Character>,
    preset: &Preset,
    clip: &str,
    steps: usize,
    every: usize,
) -> Result<Vec<Vec<Vec3>>, SceneError> {
    let hem = |t: &crate::sim::Topology| t.hem().collect();
    let outfit = Outfit::Template;
    path_ticking(
        character,
        &outfit,
        preset,
        clip,
        (steps, every),
        hem,
        &|_| {},
    )
}

/// The positions of the particles `which` picks from the garment's topology (the character
/// in `outfit`), over `steps` fixed steps sampled `every` so many ([`scene_path`]), calling
/// `tick(1)` after each step (a progress bar's count).
fn path_ticking(
    character: Arc<Character>,
    outfit: &Outfit,
    preset: &Preset,
    clip: &str,
    (steps, every): (usize, usize),
    which: impl FnOnce(&crate::sim::Topology) -> Vec<usize>,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Vec<Vec3>>, SceneError> {
    let scene = outfit.scene(character, preset, clip)?;
    let chosen = which(scene.cloth().topology());
    let take = |s: &Scene| {
        let p = s.cloth().positions();
        chosen.iter().map(|&i| p[i]).collect::<Vec<Vec3>>()
    };
    Ok(scene_path(scene, (steps, every), take, tick))
}

/// What `sample` takes from `scene` at its start and after every `every`-th of `steps` fixed
/// steps, calling `tick(1)` after each step.
pub fn scene_path(
    mut scene: Scene,
    (steps, every): (usize, usize),
    sample: impl Fn(&Scene) -> Vec<Vec3>,
    tick: &(dyn Fn(u64) + Sync),
) -> Vec<Vec<Vec3>> {
    let every = every.max(1);
    let mut samples = Vec::with_capacity(steps / every + 1);
    samples.push(sample(&scene));
    for step in 1..=steps {
        scene.step();
        tick(1);
        if step % every == 0 {
            samples.push(sample(&scene));
        }
    }
    samples
}

/// The hem particles' positions relative to the body (character space) after every step.
struct Trajectory {
    dt: f64,
    samples: Vec<Vec<Vec3>>,
}

impl Trajectory {
    /// The hem over `seconds` of `clip` (the character in `outfit`), calling `tick(1)` after
    /// each step.
    fn record(
        character: Arc<Character>,
        outfit: &Outfit,
        preset: &Preset,
        clip: &str,
        seconds: f64,
        tick: &(dyn Fn(u64) + Sync),
    ) -> Result<Self, SceneError> {
        let dt = 1.0 / preset.params.timestep_hz as f64;
        let steps = Self::steps(preset, seconds);
        let hem = |t: &crate::sim::Topology| t.hem().collect();
        let samples = path_ticking(character, outfit, preset, clip, (steps, 1), hem, tick)?;
        Ok(Self { dt, samples })
    }

    /// Fixed steps in `seconds` of `preset`.
    fn steps(preset: &Preset, seconds: f64) -> usize {
        (seconds * preset.params.timestep_hz as f64).round() as usize
    }

    /// The hem at time `t`, linearly between steps.
    fn at(&self, t: f64, out: &mut [Vec3]) {
        let f = (t / self.dt).clamp(0.0, (self.samples.len() - 1) as f64);
        let i = (f.floor() as usize).min(self.samples.len().saturating_sub(2));
        let w = (f - i as f64) as f32;
        let (a, b) = (
            &self.samples[i],
            &self.samples[(i + 1).min(self.samples.len() - 1)],
        );
        for ((o, p), q) in out.iter_mut().zip(a).zip(b) {
            *o = p.lerp(*q, w);
        }
    }

    /// RMS distance (cm) of the hem particles from their own mean positions over the run.
    fn swing_cm(&self) -> f32 {
        let n = self.samples[0].len();
        let count = self.samples.len() as f32;
        let mut mean = vec![Vec3::ZERO; n];
        for s in &self.samples {
            for (m, p) in mean.iter_mut().zip(s) {
                *m += *p / count;
            }
        }
        let sum: f64 = self
            .samples
            .iter()
            .flat_map(|s| {
                s.iter()
                    .zip(&mean)
                    .map(|(p, m)| p.distance_squared(*m) as f64)
            })
            .sum();
        ((sum / (n as f64 * count as f64)).sqrt() * 100.0) as f32
    }

    /// RMS and largest distance (cm) from `reference` at the instants both trajectories were
    /// sampled (every step of the slower one when one rate divides the other: 60 and 30 Hz
    /// meet every 1/30 s, 60 and 120 Hz every 1/60 s, 60 and 45 Hz every 1/15 s). Where they
    /// share fewer than a tenth of the reference's samples (60 and 47 Hz meet once a second),
    /// at every one of the reference's samples with this trajectory interpolated linearly
    /// between its steps.
    /// Comparing an interpolated hem would count the straight line drawn between two of the
    /// slower run's steps as drift, which is none of the conversion's doing.
    fn distance_from(&self, reference: &Trajectory) -> (f32, f32) {
        let n = reference.samples[0].len();
        let common: Vec<(usize, usize)> = (0..reference.samples.len())
            .filter_map(|k| {
                let j = k as f64 * reference.dt / self.dt;
                let jr = j.round();
                ((j - jr).abs() < 1e-6 && (jr as usize) < self.samples.len())
                    .then_some((k, jr as usize))
            })
            .collect();
        let (mut sum, mut count, mut max) = (0f64, 0usize, 0f32);
        let mut add = |p: &[Vec3], q: &[Vec3]| {
            for (a, b) in p.iter().zip(q) {
                let d = a.distance(*b);
                sum += (d as f64).powi(2);
                count += 1;
                max = max.max(d);
            }
        };
        if common.len() * 10 >= reference.samples.len() {
            for &(k, j) in &common {
                add(&self.samples[j], &reference.samples[k]);
            }
        } else {
            let mut here = vec![Vec3::ZERO; n];
            for (k, r) in reference.samples.iter().enumerate() {
                self.at(k as f64 * reference.dt, &mut here);
                add(&here, r);
            }
        }
        (
            ((sum / count.max(1) as f64).sqrt() * 100.0) as f32,
            max * 100.0,
        )
    }
}

/// Measures how far the hem departs from the preset at its own rate when run at `to_hz`,
/// converted ([`convert_preset`]) and unconverted ([`retimed`]), over `seconds` of `clip`; and
/// the chaos floor (the preset at its own rate with `damping` nudged by [`FLOOR_NUDGE`]).
pub fn drift(
    character: Arc<Character>,
    preset: &Preset,
    clip: &str,
    to_hz: f32,
    seconds: f64,
) -> Result<DriftRow, DriftError> {
    let mut rows = drift_rates(character, preset, clip, &[to_hz], seconds, &|_| {})?;
    Ok(rows.remove(0))
}

/// The fixed steps [`drift_rates`] takes in all (its progress count's total).
pub fn drift_steps(preset: &Preset, rates: &[f32], seconds: f64) -> Result<u64, DriftError> {
    Ok(drift_runs(preset, rates)?
        .iter()
        .map(|p| Trajectory::steps(p, seconds) as u64)
        .sum())
}

/// The runs [`drift_rates`] makes: the original, its floor, then the converted and
/// unconverted preset per rate.
fn drift_runs(preset: &Preset, rates: &[f32]) -> Result<Vec<Preset>, DriftError> {
    let mut runs = vec![preset.clone(), nudged(preset)];
    for &to_hz in rates {
        runs.push(convert_preset(preset, to_hz)?.0);
        runs.push(Preset {
            params: retimed(&preset.params, to_hz)?,
            ..preset.clone()
        });
    }
    Ok(runs)
}

/// [`drift`] for each rate of `rates`, in that order. The preset at its own rate and its
/// floor run once for all of them, and every run is on its own core where there is one (the
/// runs share nothing, so the figures are those of running them one by one). `tick(1)` is
/// called after every fixed step of every run, [`drift_steps`] times in all.
pub fn drift_rates(
    character: Arc<Character>,
    preset: &Preset,
    clip: &str,
    rates: &[f32],
    seconds: f64,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<Vec<DriftRow>, DriftError> {
    let outfit = Outfit::Template;
    drift_rates_in((character, &outfit), preset, clip, rates, seconds, tick)
}

/// [`drift_rates`] with the character in `outfit` (the artist's own garment, or the preset's
/// template).
pub fn drift_rates_in(
    (character, outfit): (Arc<Character>, &Outfit),
    preset: &Preset,
    clip: &str,
    rates: &[f32],
    seconds: f64,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<Vec<DriftRow>, DriftError> {
    use rayon::prelude::*;
    let tracks = drift_runs(preset, rates)?
        .par_iter()
        .map(|p| Trajectory::record(character.clone(), outfit, p, clip, seconds, tick))
        .collect::<Result<Vec<_>, _>>()?;
    let (original, floor) = (&tracks[0], &tracks[1]);
    let (floor_rms_cm, floor_max_cm) = floor.distance_from(original);
    Ok(rates
        .iter()
        .zip(tracks[2..].chunks(2))
        .map(|(&to_hz, pair)| {
            let (conv, plain) = (&pair[0], &pair[1]);
            let (converted_rms_cm, converted_max_cm) = conv.distance_from(original);
            let (unconverted_rms_cm, unconverted_max_cm) = plain.distance_from(original);
            DriftRow {
                preset: preset.name.clone(),
                clip: clip.to_string(),
                from_hz: preset.params.timestep_hz,
                to_hz,
                seconds,
                converted_rms_cm,
                converted_max_cm,
                unconverted_rms_cm,
                unconverted_max_cm,
                floor_rms_cm,
                floor_max_cm,
                original_swing_cm: original.swing_cm(),
                converted_swing_cm: conv.swing_cm(),
                unconverted_swing_cm: plain.swing_cm(),
                floor_swing_cm: floor.swing_cm(),
            }
        })
        .collect())
}

/// `preset` with `damping` moved by [`FLOOR_NUDGE`] (down where up would leave its range).
fn nudged(preset: &Preset) -> Preset {
    let mut nudged = preset.clone();
    let d = nudged.params.damping;
    nudged.params.damping = if d + FLOOR_NUDGE <= 1.0 {
        d + FLOOR_NUDGE
    } else {
        d - FLOOR_NUDGE
    };
    nudged
}

/// The floor alone: RMS and largest distance (cm) between the hem of `preset` and of the same
/// preset with `damping` moved by [`FLOOR_NUDGE`], both at its own rate, over `seconds` of
/// `clip`. What an engine whose arithmetic differs from ours in the last bits can expect.
pub fn floor(
    character: Arc<Character>,
    preset: &Preset,
    clip: &str,
    seconds: f64,
) -> Result<(f32, f32), SceneError> {
    let outfit = &Outfit::Template;
    let (original, nudged) = rayon::join(
        || Trajectory::record(character.clone(), outfit, preset, clip, seconds, &|_| {}),
        || {
            Trajectory::record(
                character.clone(),
                outfit,
                &nudged(preset),
                clip,
                seconds,
                &|_| {},
            )
        },
    );
    Ok(nudged?.distance_from(&original?))
}

/// The rows as a Markdown table.
pub fn table(rows: &[DriftRow]) -> String {
    let mut s = String::from(
        "| preset | clip | from | to | converted drift RMS / max (cm) | unconverted drift RMS / max (cm) | converted / unconverted | floor RMS / max (cm) | hem swing original / converted / unconverted / floor (cm) |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} Hz | {} Hz | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} | {:.2} / {:.2} | {:.2} / {:.2} / {:.2} / {:.2} |\n",
            r.preset,
            r.clip,
            r.from_hz,
            r.to_hz,
            r.converted_rms_cm,
            r.converted_max_cm,
            r.unconverted_rms_cm,
            r.unconverted_max_cm,
            r.ratio(),
            r.floor_rms_cm,
            r.floor_max_cm,
            r.original_swing_cm,
            r.converted_swing_cm,
            r.unconverted_swing_cm,
            r.floor_swing_cm
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(hz: f64, seconds: f64, bump_odd: bool) -> Trajectory {
        let n = (seconds * hz).round() as usize;
        let samples = (0..=n)
            .map(|k| {
                let t = k as f32 / hz as f32;
                let y = if bump_odd && k % 2 == 1 { 0.01 } else { 0.0 };
                vec![Vec3::new(t, y, 0.0)]
            })
            .collect();
        Trajectory {
            dt: 1.0 / hz,
            samples,
        }
    }

    #[test]
    fn trajectories_are_compared_where_both_were_sampled() {
        // The 60 Hz hem leaves the line by 1 cm at every odd step, between the 30 Hz run's
        // steps: the two never disagree at an instant both saw.
        let fine = line(60.0, 1.0, true);
        let coarse = line(30.0, 1.0, false);
        assert_eq!(coarse.distance_from(&fine), (0.0, 0.0));
        assert_eq!(fine.distance_from(&coarse), (0.0, 0.0));
        // Against a 60 Hz run that agrees everywhere, the bumps count: 30 of the 61 samples
        // 1 cm off.
        let (rms, max) = fine.distance_from(&line(60.0, 1.0, false));
        let expected = (30.0f32 / 61.0).sqrt();
        assert!(
            (rms - expected).abs() < 1e-4 && (max - 1.0).abs() < 1e-4,
            "{rms} {max}"
        );
        // 45 and 60 Hz meet every 1/15 s: still a quarter of the samples, compared there.
        assert_eq!(line(45.0, 1.0, false).distance_from(&fine), (0.0, 0.0));
        // 47 and 60 Hz meet once a second: the 47 Hz run is interpolated instead, and the
        // bumps count again.
        let (rms, _) = line(47.0, 1.0, false).distance_from(&fine);
        assert!((rms - expected).abs() < 0.05, "{rms}");
    }
}
