//! Numeric records beside the regression pictures: the path of the hem and the front edges
//! (every edge particle), and of the hood's end on a hooded jacket, through a clip, sampled
//! every few steps, compared with a tolerance.
//! A picture at one frame can miss a knob moved by 5 %; these paths over seconds of a clip do
//! not (every shipped knob moved by 5 % moves them by 1.5 cm or more somewhere in 5 s of walk,
//! dodge and turn), and an unchanged preset gives the same numbers bit for bit.

use serde::{Deserialize, Serialize};

use super::render::Job;
use crate::preset::Garment;
use crate::scene::drift::scene_path;
use crate::scene::{Scene, SceneError};

/// The entry of [`MotionRecord::particles`] that stands for the hood's end (the point its
/// pendulum swings), recorded after the particles on a hooded jacket.
pub const HOOD: u32 = u32::MAX;

/// What a manifest asks to record for each preset x clip.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordSpec {
    /// How long from the clip's start, seconds.
    pub seconds: f64,
    /// One sample every this many fixed steps.
    pub every_steps: u32,
    /// A recorded particle further than this from where the record has it fails the case, cm.
    pub tolerance_cm: f32,
}

impl RecordSpec {
    /// The spec's own errors, naming the field and its range.
    pub fn check(&self) -> Result<(), String> {
        if !(self.seconds > 0.0 && self.seconds <= 60.0) {
            return Err(format!(
                "field `records.seconds`: {} is out of range (more than 0, at most 60)",
                self.seconds
            ));
        }
        if self.every_steps == 0 {
            return Err("field `records.every_steps`: 0 is out of range (at least 1)".into());
        }
        if !(self.tolerance_cm >= 0.0 && self.tolerance_cm.is_finite()) {
            return Err(format!(
                "field `records.tolerance_cm`: {} is out of range (0 or more)",
                self.tolerance_cm
            ));
        }
        Ok(())
    }
}

/// The recorded particles' positions (character space, metres) at every sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MotionRecord {
    pub clip: String,
    pub every_steps: u32,
    /// Seconds between samples.
    pub sample_seconds: f64,
    /// Which particles, by index in the garment's grid: the hem and the front edges, then
    /// [`HOOD`] on a hooded jacket.
    pub particles: Vec<u32>,
    /// Per sample, the particles' positions in the order of `particles`.
    pub samples: Vec<Vec<[f32; 3]>>,
}

/// The particles a record follows: the hem and the front opening's columns (the same ones
/// the pictures' trails follow).
pub use crate::scene::motion::followed_particles as recorded_particles;

/// How a run's hem compared with its record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordComparison {
    /// The largest distance of a recorded particle from its recorded place, cm.
    pub max_cm: f32,
    /// When that was, seconds from the clip's start.
    pub at_seconds: f64,
    pub tolerance_cm: f32,
}

impl RecordComparison {
    pub fn passes(&self) -> bool {
        self.max_cm <= self.tolerance_cm
    }

    /// One line for people.
    pub fn to_text(&self) -> String {
        format!(
            "hem and front edges at most {:.3} cm from their record (at {:.2} s), allowed {} cm",
            self.max_cm, self.at_seconds, self.tolerance_cm
        )
    }
}

/// The file name of a job's record: its pictures' name without camera and frame.
pub fn record_name(job: &Job) -> String {
    let stem = job
        .preset_path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "preset".into());
    let who = job
        .character_label
        .as_ref()
        .map(|c| format!("{c}_"))
        .unwrap_or_default();
    format!("{who}{stem}_{}_edges.json", job.clip)
}

/// Runs the job's preset on its clip and records the hem and the front edges, and the hood's
/// end on a hooded jacket (so its knobs are caught too).
pub fn record(job: &Job, spec: &RecordSpec) -> Result<MotionRecord, SceneError> {
    let dt = 1.0 / job.preset.params.timestep_hz as f64;
    let steps = (spec.seconds / dt).round() as usize;
    let every = spec.every_steps as usize;
    let scene = (job.outfit).scene(job.character.clone(), &job.preset, &job.clip)?;
    let chosen = recorded_particles(scene.cloth().topology());
    let hooded = scene.garment() == Some(Garment::HoodedJacket);
    let take = |s: &Scene| {
        let p = s.cloth().positions();
        let mut out: Vec<_> = chosen.iter().map(|&i| p[i]).collect();
        out.extend(s.hood_pendulum());
        out
    };
    let path = scene_path(scene, (steps, every), take, &|_| {});
    let mut particles: Vec<u32> = chosen.iter().map(|&i| i as u32).collect();
    particles.extend(hooded.then_some(HOOD));
    // The start is the rest pose whatever the knobs: the record begins with the first sample
    // after it.
    let samples = path
        .iter()
        .skip(1)
        .map(|hem| hem.iter().map(|p| p.to_array()).collect())
        .collect();
    Ok(MotionRecord {
        clip: job.clip.clone(),
        every_steps: spec.every_steps,
        sample_seconds: dt * every as f64,
        particles,
        samples,
    })
}

/// Compares a run with its record; a record of another shape (other sampling, another
/// garment) is an error that says how they differ.
pub fn compare(
    expected: &MotionRecord,
    actual: &MotionRecord,
    tolerance_cm: f32,
) -> Result<RecordComparison, String> {
    let shape = |r: &MotionRecord| (r.samples.len(), r.samples.first().map_or(0, Vec::len));
    if shape(expected) != shape(actual)
        || expected.every_steps != actual.every_steps
        || expected.particles != actual.particles
    {
        return Err(format!(
            "the record has {} samples of {} particles every {} steps, this run {} of {} every {} (or other particles: another garment)",
            shape(expected).0,
            shape(expected).1,
            expected.every_steps,
            shape(actual).0,
            shape(actual).1,
            actual.every_steps
        ));
    }
    let mut worst = (0.0f32, 0usize);
    for (k, (e, a)) in expected.samples.iter().zip(&actual.samples).enumerate() {
        for (p, q) in e.iter().zip(a) {
            let d = glam::Vec3::from_array(*p).distance(glam::Vec3::from_array(*q)) * 100.0;
            // NaN counts as the worst.
            let d = if d.is_nan() { f32::INFINITY } else { d };
            if d > worst.0 {
                worst = (d, k);
            }
        }
    }
    Ok(RecordComparison {
        max_cm: worst.0,
        at_seconds: (worst.1 + 1) as f64 * actual.sample_seconds,
        tolerance_cm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(samples: Vec<Vec<[f32; 3]>>) -> MotionRecord {
        MotionRecord {
            clip: "walk".into(),
            every_steps: 6,
            sample_seconds: 0.1,
            particles: vec![0, 1],
            samples,
        }
    }

    #[test]
    fn records_follow_the_hem_and_the_front_edges() {
        let c = crate::character::Character::builtin();
        let scene = crate::scene::Scene::new(
            std::sync::Arc::new(c),
            &crate::preset::Preset::default(),
            "walk",
        )
        .unwrap();
        let t = scene.cloth().topology();
        let which = recorded_particles(t);
        assert!(t.hem().all(|i| which.contains(&i)));
        let front: Vec<usize> = which
            .iter()
            .copied()
            .filter(|&i| t.row(i) < t.rows - 1)
            .collect();
        assert!(
            front.len() >= 2 * (t.rows - 2),
            "both front columns: {front:?}"
        );
        assert!(front.iter().all(|&i| t.edge[i]));
    }

    #[test]
    fn the_largest_distance_and_its_time_decide() {
        let a = rec(vec![vec![[0.0; 3]; 2], vec![[0.0; 3]; 2]]);
        let b = rec(vec![vec![[0.0; 3]; 2], vec![[0.0, 0.0, 0.003], [0.0; 3]]]);
        let c = compare(&a, &b, 0.1).unwrap();
        assert!((c.max_cm - 0.3).abs() < 1e-4, "{c:?}");
        assert!((c.at_seconds - 0.2).abs() < 1e-9);
        assert!(!c.passes());
        assert!(compare(&a, &a, 0.0).unwrap().passes());
        let nan = rec(vec![
            vec![[0.0; 3]; 2],
            vec![[f32::NAN, 0.0, 0.0], [0.0; 3]],
        ]);
        assert!(!compare(&a, &nan, 100.0).unwrap().passes());
        let short = rec(vec![vec![[0.0; 3]; 2]]);
        assert!(compare(&a, &short, 0.1).unwrap_err().contains("2 samples"));
    }
}
