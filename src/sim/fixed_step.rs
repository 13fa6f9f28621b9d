//! The fixed time step: an accumulator that turns variable frame times into whole steps.

/// Turns elapsed wall-clock or animation time into a whole number of fixed steps, carrying the
/// remainder to the next call. A slow frame never asks for more than `max_steps` steps: the
/// backlog beyond that is dropped (the simulation runs slow rather than spiral).
#[derive(Clone, Debug, PartialEq)]
pub struct FixedStep {
    dt: f64,
    accumulator: f64,
    max_steps: u32,
    dropped: f64,
}

impl FixedStep {
    /// An accumulator for `hz` steps per second, at most `max_steps` steps per call.
    pub fn new(hz: f32, max_steps: u32) -> Self {
        let hz = if hz.is_finite() && hz > 0.0 { hz } else { 60.0 };
        Self {
            dt: 1.0 / hz as f64,
            accumulator: 0.0,
            max_steps: max_steps.max(1),
            dropped: 0.0,
        }
    }

    /// The step length in seconds.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Changes the rate, keeping the accumulated time.
    pub fn set_hz(&mut self, hz: f32) {
        if hz.is_finite() && hz > 0.0 {
            self.dt = 1.0 / hz as f64;
        }
    }

    /// Adds `elapsed` seconds and returns how many steps to take now. Negative or non-finite
    /// time counts as none.
    pub fn advance(&mut self, elapsed: f64) -> u32 {
        if elapsed.is_finite() && elapsed > 0.0 {
            self.accumulator += elapsed;
        }
        // A tiny tolerance so 1/60 s of elapsed time gives one step despite rounding.
        let steps = ((self.accumulator + 1e-9) / self.dt).floor();
        let steps = if steps > self.max_steps as f64 {
            let keep = self.max_steps as f64;
            self.dropped += self.accumulator - keep * self.dt;
            self.accumulator = keep * self.dt;
            keep
        } else {
            steps.max(0.0)
        };
        self.accumulator = (self.accumulator - steps * self.dt).max(0.0);
        steps as u32
    }

    /// Time waiting for the next step, as a fraction of a step (for interpolating the picture).
    pub fn alpha(&self) -> f64 {
        (self.accumulator / self.dt).clamp(0.0, 1.0)
    }

    /// Seconds of backlog dropped so far because frames were too slow.
    pub fn dropped(&self) -> f64 {
        self.dropped
    }

    /// Forgets the accumulated time.
    pub fn reset(&mut self) {
        self.accumulator = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_add_up_across_uneven_frames() {
        let mut fs = FixedStep::new(60.0, 8);
        // 0.5 s in 37 uneven frames gives exactly 30 steps.
        let frames: Vec<f64> = (0..37)
            .map(|i| {
                if i % 3 == 0 {
                    0.02
                } else {
                    0.5 / 37.0 * 1.5 - 0.01
                }
            })
            .collect();
        let total: f64 = frames.iter().sum();
        let steps: u32 = frames.iter().map(|&f| fs.advance(f)).sum();
        assert_eq!(steps, (total * 60.0 + 1e-9).floor() as u32);
        assert!(fs.alpha() < 1.0);
    }

    #[test]
    fn one_frame_at_the_rate_is_one_step() {
        let mut fs = FixedStep::new(60.0, 8);
        for _ in 0..600 {
            assert_eq!(fs.advance(1.0 / 60.0), 1);
        }
    }

    #[test]
    fn a_hitch_is_capped_and_reported() {
        let mut fs = FixedStep::new(60.0, 4);
        assert_eq!(fs.advance(1.0), 4);
        assert!((fs.dropped() - (1.0 - 4.0 / 60.0)).abs() < 1e-9);
        assert_eq!(fs.advance(0.0), 0);
        assert_eq!(fs.advance(f64::NAN), 0);
        assert_eq!(fs.advance(-3.0), 0);
    }
}
