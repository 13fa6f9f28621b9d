//! The timeline in the playback bar: shows the clip time and scrubs it.
//!
//! The cloth is simulated, so a time on the timeline is a state only together with every step
//! before it. Scrubbing to `t` therefore puts the clip back at its start with the cloth at rest
//! and runs the fixed steps up to `t` (`round(t * timestep_hz)` of them) with the current
//! parameters: the same state as pressing Reset and stepping there, whatever was played or
//! poked before. While the artist keeps dragging forward nothing changed in between, so the
//! run goes on from where the last scrub left it instead of starting again. The fast-forward
//! spends at most [`SEEK_BUDGET`] of each frame, so a long scrub shows its progress on the
//! timeline and the window stays responsive. Scrubbing pauses playback.

use std::time::{Duration, Instant};

use eframe::egui;
use egui::Ui;

use super::App;
use crate::preset::Garment;
use crate::sim::FabricParams;

/// Wall time a frame may spend fast-forwarding toward a scrubbed time.
pub const SEEK_BUDGET: Duration = Duration::from_millis(30);

/// A scrub under way or finished: where it is going, and what the simulation was when the
/// state last came from a run from the clip start (to tell whether it can carry on from there).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Seek {
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
    garment: Garment,
    clip: String,
}

impl App {
    fn seek_key(&self) -> SeekKey {
        SeekKey {
            params: self.stage.params().clone(),
            garment: self.stage.garment(),
            clip: self.stage.clip_name().to_string(),
        }
    }

    /// Scrubs to `t` seconds from the clip start (clamped to the clip): pauses, and from the
    /// next frame on runs the fixed steps from the clip start up to `t` (see the module
    /// documentation). [`App::is_seeking`] is true until the state is there.
    pub fn seek_to(&mut self, t: f64) {
        let (duration, _) = self.stage.clip_duration();
        let hz = self.stage.params().timestep_hz as f64;
        let target = (t.clamp(0.0, duration.max(0.0)) * hz).round() as u64;
        self.playing = false;
        self.last_frame = None;
        let key = self.seek_key();
        let carry_on = self
            .seek
            .as_ref()
            .is_some_and(|s| s.key == key && s.time == self.stage.time() && s.done <= target);
        if carry_on {
            if let Some(s) = self.seek.as_mut() {
                s.target = target;
            }
        } else {
            self.stage.reset();
            self.history.clear();
            self.stepper.reset();
            self.seek = Some(Seek {
                target,
                done: 0,
                key,
                time: self.stage.time(),
            });
        }
    }

    /// True while a scrub is still fast-forwarding.
    pub fn is_seeking(&self) -> bool {
        self.seek.as_ref().is_some_and(|s| s.done < s.target)
    }

    /// Runs the scrub's fixed steps for at most `budget` of wall time. Returns the steps taken.
    pub fn seek_for(&mut self, budget: Duration) -> u64 {
        let Some(mut s) = self.seek.take() else {
            return 0;
        };
        if s.key != self.seek_key() || s.time != self.stage.time() {
            // Something else moved the simulation (reset, a step, new parameters): the scrub
            // is abandoned rather than finished from the wrong state.
            return 0;
        }
        let start = Instant::now();
        let mut taken = 0;
        while s.done < s.target {
            self.stage.step();
            self.history
                .push(self.stage.time(), self.stage.frame_stats());
            s.done += 1;
            taken += 1;
            if start.elapsed() >= budget {
                break;
            }
        }
        s.time = self.stage.time();
        self.seek = Some(s);
        taken
    }

    /// Runs a scrub to the end, however long it takes (tools and tests).
    pub fn finish_seek(&mut self) {
        while self.is_seeking() {
            self.seek_for(Duration::from_secs(3600));
        }
    }

    /// The timeline: the clip time as a slider; dragging it scrubs.
    pub(super) fn timeline(&mut self, ui: &mut Ui) {
        if self.is_seeking() {
            self.seek_for(SEEK_BUDGET);
            ui.ctx().request_repaint();
        }
        let (duration, clip_loops) = self.stage.clip_duration();
        let t = self.stage.time();
        let in_clip = if clip_loops && duration > 0.0 {
            t % duration
        } else {
            t.min(duration)
        };
        let hz = self.stage.params().timestep_hz as f64;
        let seeking = self.seek.as_ref().filter(|s| s.done < s.target);
        let mut shown = seeking.map_or(in_clip, |s| s.target as f64 / hz);
        let progress = seeking.map(|s| s.done as f64 / s.target.max(1) as f64);
        let response = ui
            .scope(|ui| {
                ui.spacing_mut().slider_width = 220.0;
                ui.add(
                    egui::Slider::new(&mut shown, 0.0..=duration.max(1e-3))
                        .text("Time")
                        .suffix(" s")
                        // Formatted, not rounded: a slider that rounds its value reports a
                        // change every frame, which would scrub (and pause) on its own.
                        .custom_formatter(|v, _| format!("{v:.3}"))
                        .clamping(egui::SliderClamping::Always),
                )
            })
            .inner
            .on_hover_text(format!(
                "Clip time ({duration:.2} s clip; {t:.3} s since the clip start). Drag to \
                 scrub: the cloth is re-simulated from the clip start to that time, so the \
                 state is the same every time."
            ));
        if response.changed() && shown != seeking.map_or(in_clip, |s| s.target as f64 / hz) {
            self.seek_to(shown);
        }
        if let Some(p) = progress {
            ui.add(
                egui::ProgressBar::new(p as f32)
                    .desired_width(90.0)
                    .text(format!("seeking {:.0} %", p * 100.0)),
            );
        }
    }
}
