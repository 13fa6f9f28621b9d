//! Playback: the playing [`Scene`] (the character in the simulated jacket on a clip), the clock
//! that turns wall time into fixed steps, play/pause, speed, looping, the timeline scrub and the
//! plotted history. Nothing here draws; the window reads it and sends it commands.
//!
//! The cloth is simulated, so a time on the timeline is a state only together with every step
//! before it. Scrubbing to `t` therefore puts the clip back at its start with the cloth at rest
//! and runs the fixed steps up to `t` (`round(t * timestep_hz)` of them) with the current
//! parameters: the same state as pressing Reset and stepping there, whatever was played or
//! poked before. While the artist keeps dragging forward nothing changed in between, so the
//! run goes on from where the last scrub left it instead of starting again. The fast-forward
//! spends a bounded time per frame (`timeline::SEEK_BUDGET`), so a long scrub shows
//! its progress and the window stays responsive. Scrubbing pauses playback.
//!
//! An A/B comparison plays a second scene beside the first ([`Playback::set_second`]): it
//! starts, resets, switches clip and scrubs with the first, and after each step of the first it
//! takes the steps that bring it to the same clip time (at its own fixed step, which may
//! differ). Swapping A and B keeps both runs as they are.

use std::time::{Duration, Instant};

use super::plots::History;
use crate::preset::{Garment, Preset};
use crate::scene::Scene;
use crate::sim::{FabricParams, FixedStep, FoldLine};

/// At most this many simulation steps per drawn frame; a slower frame drops the backlog.
pub const MAX_STEPS_PER_FRAME: u32 = 8;

/// The slowest and fastest playback speeds.
pub const SPEED_RANGE: std::ops::RangeInclusive<f32> = 0.1..=2.0;

/// The scene and how it plays.
pub struct Playback {
    scene: Scene,
    pub(super) playing: bool,
    /// Wall-time multiplier, within [`SPEED_RANGE`].
    pub(super) speed: f32,
    /// A clip that does not loop by itself starts again at its end (else playback stops).
    pub(super) looping: bool,
    stepper: FixedStep,
    /// The clock time of the last drawn frame while playing.
    last_frame: Option<f64>,
    /// The timeline scrub under way or last finished.
    seek: Option<Seek>,
    pub(super) history: History,
    /// B of an A/B comparison: its scene and plots.
    second: Option<Second>,
}

/// The second scene of an A/B comparison and its plotted history.
struct Second {
    scene: Scene,
    history: History,
}

/// A scrub under way or finished: where it is going, and what the simulation was when the
/// state last came from a run from the clip start (to tell whether it can carry on from there).
#[derive(Clone, Debug, PartialEq)]
struct Seek {
    /// Fixed steps from the clip start to reach.
    target: u64,
    /// Fixed steps taken since the clip start by this scrub's run.
    done: u64,
    /// The inputs the run was made with; any change means starting again.
    key: SeekKey,
    /// The clip time when the run last stopped (anything else stepping changes it).
    time: f64,
}

#[derive(Clone, Debug, PartialEq)]
struct SeekKey {
    params: FabricParams,
    garment: Option<Garment>,
    clip: String,
}

impl Playback {
    /// Plays `scene` at `speed`, at the preset's fixed step.
    pub fn new(scene: Scene, speed: f32, looping: bool) -> Self {
        let hz = scene.params().timestep_hz;
        Self {
            scene,
            playing: true,
            speed: speed.clamp(*SPEED_RANGE.start(), *SPEED_RANGE.end()),
            looping,
            stepper: FixedStep::new(hz, MAX_STEPS_PER_FRAME),
            last_frame: None,
            seek: None,
            history: History::default(),
            second: None,
        }
    }

    /// Plays `scene` as B beside the current one (`None` ends the comparison); both start
    /// again from the clip start so they show the same moment.
    pub fn set_second(&mut self, scene: Option<Scene>) {
        self.second = scene.map(|scene| Second {
            scene,
            history: History::default(),
        });
        self.reset();
    }

    /// B's scene, while comparing.
    pub fn second(&self) -> Option<&Scene> {
        self.second.as_ref().map(|s| &s.scene)
    }

    /// B's scene, for new knobs or a garment.
    pub fn second_mut(&mut self) -> Option<&mut Scene> {
        self.second.as_mut().map(|s| &mut s.scene)
    }

    /// Swaps A and B: the scene the knobs edit becomes the other one. Both runs go on from
    /// where they are.
    pub fn swap(&mut self) {
        if let Some(second) = self.second.as_mut() {
            std::mem::swap(&mut self.scene, &mut second.scene);
            std::mem::swap(&mut self.history, &mut second.history);
            self.seek = None;
            self.stepper.set_hz(self.scene.params().timestep_hz);
        }
    }

    /// Plays another scene (another character) from its start, with the same playing, speed
    /// and looping.
    pub fn replace_scene(&mut self, scene: Scene) {
        self.scene = scene;
        self.seek = None;
        self.last_frame = None;
        self.stepper.set_hz(self.scene.params().timestep_hz);
        self.reset();
    }

    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The scene, for tools and tests (poking a particle, for instance).
    pub fn scene_mut(&mut self) -> &mut Scene {
        &mut self.scene
    }

    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// Plays or pauses.
    pub fn set_playing(&mut self, playing: bool) {
        self.playing = playing;
        self.last_frame = None;
    }

    /// Length of the current clip in seconds and whether it repeats by itself.
    pub fn clip_duration(&self) -> (f64, bool) {
        self.scene
            .character()
            .clip(self.scene.clip_name())
            .map_or((1.0, true), |c| (c.duration as f64, c.looping))
    }

    /// New knobs, from the next step.
    pub fn set_params(&mut self, params: &FabricParams) {
        self.scene.set_params(params);
        self.stepper.set_hz(params.timestep_hz);
    }

    /// Another garment: the cloth is rebuilt and the plots start again.
    pub fn set_garment(&mut self, garment: Garment) {
        self.scene.set_garment(garment);
        self.history.clear();
    }

    /// Rebuilds the cloth with these fold lines, from the clip start. A line off the grid is
    /// refused (the message names it and the allowed range) and changes nothing.
    pub fn set_fold_lines(&mut self, lines: &[FoldLine]) -> Result<(), String> {
        self.scene
            .set_fold_lines(lines)
            .map_err(|e| e.to_string())?;
        self.history.clear();
        Ok(())
    }

    /// Another preset: its knobs, garment and fold lines, from the clip start.
    pub fn load_preset(&mut self, preset: &Preset) {
        self.set_params(&preset.params);
        // The artist's own garment stays whatever template the preset names.
        if self.scene.garment().is_some_and(|g| g != preset.garment) {
            self.scene.set_garment(preset.garment);
        }
        if preset.fold_lines != self.scene.fold_lines() {
            // A loaded preset's lines were checked against its garment's grid.
            let _ = self.scene.set_fold_lines(&preset.fold_lines);
        }
        self.reset();
    }

    /// Switches the clip (from its start). Errors name the clip and the ones there are.
    pub fn set_clip(&mut self, name: &str) -> Result<(), String> {
        self.scene.set_clip(name).map_err(|e| e.to_string())?;
        if let Some(b) = self.second.as_mut() {
            // The same character, so the same clips: a failure here would only leave B behind.
            b.scene.set_clip(name).map_err(|e| e.to_string())?;
        }
        self.reset();
        Ok(())
    }

    /// Back to the clip start with the cloth at rest (B too).
    pub fn reset(&mut self) {
        self.reset_scenes();
        self.history.clear();
        self.stepper.reset();
    }

    fn reset_scenes(&mut self) {
        self.scene.reset();
        if let Some(b) = self.second.as_mut() {
            b.scene.reset();
            b.history.clear();
        }
    }

    /// One fixed step, recorded in the plots; at the end of a clip that does not repeat, starts
    /// it again (looping) or stops.
    pub fn step_once(&mut self) {
        self.step_recorded();
        let (duration, clip_loops) = self.clip_duration();
        if self.scene.time() >= duration && !clip_loops {
            if self.looping {
                self.reset_scenes();
            } else {
                self.playing = false;
            }
        }
    }

    fn step_recorded(&mut self) {
        self.scene.step();
        self.history
            .push(self.scene.time(), self.scene.frame_stats());
        if let Some(b) = self.second.as_mut() {
            // Half a step of slack so equal rates take exactly one step each.
            let half_step = 0.5 / b.scene.params().timestep_hz as f64;
            while b.scene.time() + half_step < self.scene.time() {
                b.scene.step();
                b.history.push(b.scene.time(), b.scene.frame_stats());
            }
        }
    }

    /// Pauses and takes one fixed step (the Step button).
    pub fn single_step(&mut self) {
        self.playing = false;
        self.step_once();
    }

    /// Advances by `elapsed` seconds of wall time (scaled by the speed), in whole fixed steps,
    /// never more than [`MAX_STEPS_PER_FRAME`]. Returns the steps the clock allowed.
    pub fn advance(&mut self, elapsed: f64) -> u32 {
        let steps = self.stepper.advance(elapsed * self.speed as f64);
        for _ in 0..steps {
            if !self.playing {
                break;
            }
            self.step_once();
        }
        steps
    }

    /// A drawn frame at clock time `now`: plays the wall time since the last one.
    pub fn tick(&mut self, now: f64) {
        if let Some(last) = self.last_frame {
            let dt = now - last;
            if self.playing && dt > 0.0 && dt.is_finite() {
                self.advance(dt);
            }
        }
        self.last_frame = Some(now);
    }

    fn seek_key(&self) -> SeekKey {
        SeekKey {
            params: self.scene.params().clone(),
            garment: self.scene.garment(),
            clip: self.scene.clip_name().to_string(),
        }
    }

    /// Scrubs to `t` seconds from the clip start (clamped to the clip): pauses, and from then
    /// on [`Playback::seek_for`] runs the fixed steps from the clip start up to `t` (see the
    /// module documentation). [`Playback::is_seeking`] is true until the state is there.
    pub fn seek_to(&mut self, t: f64) {
        let (duration, _) = self.clip_duration();
        let hz = self.scene.params().timestep_hz as f64;
        let target = (t.clamp(0.0, duration.max(0.0)) * hz).round() as u64;
        self.set_playing(false);
        let key = self.seek_key();
        let time = self.scene.time();
        match self.seek.as_mut() {
            Some(s) if s.key == key && s.time == time && s.done <= target => s.target = target,
            _ => {
                self.reset();
                self.seek = Some(Seek {
                    target,
                    done: 0,
                    key,
                    time: self.scene.time(),
                });
            }
        }
    }

    /// True while a scrub is still fast-forwarding.
    pub fn is_seeking(&self) -> bool {
        self.seek.as_ref().is_some_and(|s| s.done < s.target)
    }

    /// Where the scrub under way is going (seconds) and how far it got (0 to 1).
    pub fn seek_progress(&self) -> Option<(f64, f64)> {
        let hz = self.scene.params().timestep_hz as f64;
        self.seek
            .as_ref()
            .filter(|s| s.done < s.target)
            .map(|s| (s.target as f64 / hz, s.done as f64 / s.target.max(1) as f64))
    }

    /// Runs the scrub's fixed steps for at most `budget` of wall time. Returns the steps taken.
    pub fn seek_for(&mut self, budget: Duration) -> u64 {
        let Some(mut s) = self.seek.take() else {
            return 0;
        };
        if s.key != self.seek_key() || s.time != self.scene.time() {
            // Something else moved the simulation (reset, a step, new parameters): the scrub
            // is abandoned rather than finished from the wrong state.
            return 0;
        }
        let start = Instant::now();
        let mut taken = 0;
        while s.done < s.target {
            self.step_recorded();
            s.done += 1;
            taken += 1;
            if start.elapsed() >= budget {
                break;
            }
        }
        s.time = self.scene.time();
        self.seek = Some(s);
        taken
    }

    /// Runs a scrub to the end, however long it takes (tools and tests).
    pub fn finish_seek(&mut self) {
        while self.is_seeking() {
            self.seek_for(Duration::from_secs(3600));
        }
    }
}
