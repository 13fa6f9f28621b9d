//! The garment's motion over a clip, for pictures that have to show it: which particles stand
//! for the garment's motion (the hem and the front edges, [`followed_particles`]), their recent
//! path as a scene steps ([`TrailBuffer`], the onion-skin trails), and a whole clip's run of
//! them ([`ClipMotion`]) from which a camera is fitted to the garment and the frame where
//! fabrics differ most is picked ([`most_different_step`]).
//!
//! Positions are in character space (the cloth's own frame), so a trail shows the cloth moving
//! against the body, not the character moving through the world.

use std::sync::Arc;

use glam::Vec3;

use super::{Outfit, Scene, SceneError};
use crate::character::Character;
use crate::preset::Preset;
use crate::sim::Topology;

/// The longest run [`ClipMotion::of_clip`] makes of a clip, seconds.
pub const MAX_CLIP_SECONDS: f64 = 20.0;

/// The particles whose paths show how a garment moves: every edge particle (the hem row and
/// the front opening's columns), in index order. The regression records follow the same ones.
pub fn followed_particles(topology: &Topology) -> Vec<usize> {
    let mut which: Vec<usize> = topology.hem().collect();
    which.extend((0..topology.len()).filter(|&i| topology.edge[i]));
    which.sort_unstable();
    which.dedup();
    which
}

/// The steps of one run through `clip` at `preset`'s rate: the clip's duration, at least a
/// second, at most [`MAX_CLIP_SECONDS`].
pub fn clip_steps(character: &Character, preset: &Preset, clip: &str) -> u64 {
    let seconds = character
        .clip(clip)
        .map_or(1.0, |c| c.duration as f64)
        .clamp(1.0, MAX_CLIP_SECONDS);
    (seconds * preset.params.timestep_hz as f64).ceil() as u64
}

/// The rows of a trail for `preset`: the step pictured and one second of steps before it.
pub fn trail_rows(preset: &Preset) -> usize {
    preset.params.timestep_hz.round().max(1.0) as usize + 1
}

/// The followed particles' positions over the last `capacity` steps, kept as a ring: sized
/// once, so pushing a step allocates nothing.
#[derive(Clone, Debug)]
pub struct TrailBuffer {
    particles: Vec<usize>,
    /// `capacity` rows of `particles.len()` positions; row `(start + k) % capacity` is the
    /// k-th oldest.
    rows: Vec<Vec3>,
    capacity: usize,
    start: usize,
    len: usize,
}

impl TrailBuffer {
    /// A buffer for `scene`'s followed particles over `capacity` steps (at least 2).
    pub fn new(scene: &Scene, capacity: usize) -> Self {
        let particles = followed_particles(scene.cloth().topology());
        let capacity = capacity.max(2);
        Self {
            rows: vec![Vec3::ZERO; capacity * particles.len()],
            particles,
            capacity,
            start: 0,
            len: 0,
        }
    }

    /// Appends the scene's current positions, dropping the oldest row when full.
    pub fn push(&mut self, scene: &Scene) {
        let n = self.particles.len();
        let row = if self.len < self.capacity {
            self.len += 1;
            (self.start + self.len - 1) % self.capacity
        } else {
            let r = self.start;
            self.start = (self.start + 1) % self.capacity;
            r
        };
        let p = scene.cloth().positions();
        for (slot, &i) in self.rows[row * n..(row + 1) * n]
            .iter_mut()
            .zip(&self.particles)
        {
            *slot = p[i];
        }
    }

    /// How many particles each row holds.
    pub fn particles(&self) -> usize {
        self.particles.len()
    }

    /// The rows held, oldest first: each the followed particles' positions at one step.
    pub fn rows(&self) -> impl Iterator<Item = &[Vec3]> + '_ {
        let n = self.particles.len();
        (0..self.len).map(move |k| {
            let r = (self.start + k) % self.capacity;
            &self.rows[r * n..(r + 1) * n]
        })
    }
}

/// One run of a preset over a clip: the followed particles at every step, and every
/// particle every few steps (enough to fit a camera to the whole garment).
#[derive(Clone, Debug, Default)]
pub struct ClipMotion {
    /// How many followed particles each step holds.
    pub followed: usize,
    /// `steps + 1` rows (the start, then after each step) of `followed` positions.
    pub path: Vec<Vec3>,
    /// Every particle at the start and at every `OUTLINE_EVERY`-th step.
    pub outline: Vec<Vec3>,
}

/// Steps between the samples of [`ClipMotion::outline`].
const OUTLINE_EVERY: u64 = 4;

impl ClipMotion {
    /// Steps `scene` `steps` times from where it is, recording as it goes. `stop` is asked
    /// before each step; when it says yes the run ends early with what it has.
    pub fn record(mut scene: Scene, steps: u64, stop: &dyn Fn() -> bool) -> Self {
        let followed = followed_particles(scene.cloth().topology());
        let mut m = ClipMotion {
            followed: followed.len(),
            path: Vec::with_capacity((steps as usize + 1) * followed.len()),
            outline: Vec::with_capacity(
                (steps / OUTLINE_EVERY + 1) as usize * scene.cloth().positions().len(),
            ),
        };
        for step in 0..=steps {
            if step > 0 {
                if stop() {
                    break;
                }
                scene.step();
            }
            let p = scene.cloth().positions();
            m.path.extend(followed.iter().map(|&i| p[i]));
            if step % OUTLINE_EVERY == 0 {
                m.outline.extend_from_slice(p);
            }
        }
        m
    }

    /// `preset` on `clip` from its start, once through the clip (its duration, at least a
    /// second, at most [`MAX_CLIP_SECONDS`]).
    pub fn of_clip(
        character: Arc<Character>,
        preset: &Preset,
        clip: &str,
        stop: &dyn Fn() -> bool,
    ) -> Result<Self, SceneError> {
        Self::of_clip_in(character, &Outfit::Template, preset, clip, stop)
    }

    /// [`ClipMotion::of_clip`] with the character in `outfit`.
    pub fn of_clip_in(
        character: Arc<Character>,
        outfit: &Outfit,
        preset: &Preset,
        clip: &str,
        stop: &dyn Fn() -> bool,
    ) -> Result<Self, SceneError> {
        let steps = clip_steps(&character, preset, clip);
        let scene = outfit.scene(character, preset, clip)?;
        Ok(Self::record(scene, steps, stop))
    }

    /// How many rows the path holds (the steps recorded, plus the start).
    pub fn rows(&self) -> usize {
        self.path.len().checked_div(self.followed).unwrap_or(0)
    }

    /// The followed particles at row `t`.
    pub fn row(&self, t: usize) -> &[Vec3] {
        &self.path[t * self.followed..(t + 1) * self.followed]
    }

    /// The step at which the followed particles move fastest against the body (the summed
    /// distance each moved over the step before), the first of equals; 0 on a run of no
    /// steps.
    pub fn peak_motion_step(&self) -> usize {
        let mut best = (0, 0.0f64);
        for t in 1..self.rows() {
            let moved: f64 = self
                .row(t)
                .iter()
                .zip(self.row(t - 1))
                .map(|(a, b)| a.distance(*b) as f64)
                .sum();
            if moved > best.1 {
                best = (t, moved);
            }
        }
        best.0
    }
}

/// The step at which runs of the same garment (a wedge's cells) are furthest apart: the
/// followed particles' summed squared distance from their mean across the runs, the first of
/// equals. `None` when they never differ (one run, or knobs that change nothing) or the runs
/// do not match in shape.
pub fn most_different_step(runs: &[ClipMotion]) -> Option<usize> {
    let first = runs.first()?;
    let rows = runs.iter().map(ClipMotion::rows).min()?;
    if runs.iter().any(|r| r.followed != first.followed) {
        return None;
    }
    let mut best = (None, 0.0f64);
    for t in 0..rows {
        let mut spread = 0.0f64;
        for k in 0..first.followed {
            let mean = runs.iter().map(|r| r.row(t)[k]).sum::<Vec3>() / runs.len() as f32;
            spread += runs
                .iter()
                .map(|r| r.row(t)[k].distance_squared(mean) as f64)
                .sum::<f64>();
        }
        if spread > best.1 {
            best = (Some(t), spread);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::character::Character;
    use crate::preset::Preset;
    use std::sync::Arc;

    fn scene() -> Scene {
        Scene::new(Arc::new(Character::builtin()), &Preset::default(), "dodge").unwrap()
    }

    #[test]
    fn a_trail_keeps_the_last_steps_oldest_first() {
        let mut s = scene();
        let mut trail = TrailBuffer::new(&s, 3);
        let mut seen = Vec::new();
        for _ in 0..5 {
            s.step();
            trail.push(&s);
            seen.push(s.cloth().positions().to_vec());
        }
        let followed = followed_particles(s.cloth().topology());
        let rows: Vec<&[Vec3]> = trail.rows().collect();
        assert_eq!(rows.len(), 3);
        for (row, step) in rows.iter().zip(2..5) {
            assert_eq!(row[0], seen[step][followed[0]]);
            assert_eq!(row[row.len() - 1], seen[step][*followed.last().unwrap()]);
        }
    }

    #[test]
    fn a_clip_run_records_the_followed_path_and_its_peak() {
        let m = ClipMotion::record(scene(), 60, &|| false);
        assert_eq!(m.rows(), 61);
        let peak = m.peak_motion_step();
        assert!((1..=60).contains(&peak), "{peak}");
        let stopped = ClipMotion::record(scene(), 60, &|| true);
        assert_eq!(stopped.rows(), 1);
    }

    #[test]
    fn identical_runs_never_differ_and_different_ones_do() {
        let a = ClipMotion::record(scene(), 30, &|| false);
        assert_eq!(most_different_step(&[a.clone(), a.clone()]), None);
        let mut preset = Preset::default();
        preset.params.damping = 0.2;
        let b = ClipMotion::record(
            Scene::new(Arc::new(Character::builtin()), &preset, "dodge").unwrap(),
            30,
            &|| false,
        );
        let t = most_different_step(&[a, b]).unwrap();
        assert!((1..=30).contains(&t), "{t}");
    }
}
