//! How a preset behaves on a clip, measured with no window: the numbers `cloth-tuner simulate`
//! prints.

use std::sync::Arc;

use glam::Vec3;
use serde::Serialize;

use super::{find_clip, Outfit, SceneError};
use crate::character::{Character, Clip, Role};
use crate::garment::imported::ImportedGarment;
use crate::preset::Preset;

/// Hem speed relative to the body below which the jacket counts as settled, m/s.
pub const SETTLE_SPEED: f32 = 0.05;
/// Speed of any bone below which the character counts as still, m/s.
pub const STILL_SPEED: f32 = 0.05;

/// The metrics of one run. Times are measured; everything else is deterministic.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metrics {
    pub preset: String,
    pub clip: String,
    /// The character's roles whose bones came from its skeleton's shape because no name, bone
    /// map or VRM gave them (`pelvis`, `upperarm_l`, ...), for the artist to confirm; absent
    /// when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub roles_by_shape: Vec<Role>,
    /// Simulated seconds and fixed steps.
    pub seconds: f64,
    pub steps: u64,
    /// Vertical stretch: largest and mean over the run, percent of rest length.
    pub max_vertical_stretch_pct: f32,
    pub mean_vertical_stretch_pct: f32,
    /// Largest horizontal stretch, percent.
    pub max_horizontal_stretch_pct: f32,
    /// Hem swing relative to the body: peak and RMS distance of hem particles from their
    /// reference points, centimetres.
    pub hem_swing_peak_cm: f32,
    pub hem_swing_rms_cm: f32,
    /// When the clip's motion stops (non-looping clips), seconds.
    pub motion_end_s: Option<f64>,
    /// Seconds after the motion stops until the hem moves slower than 5 cm/s relative to the
    /// body and stays so, measured with the wind off (gusts would keep it moving); `None` when
    /// the clip never stops or the jacket had not settled by the end of the run.
    pub settle_time_s: Option<f64>,
    /// Mean speed of edge particles over mean speed of interior particles (relative to the
    /// body).
    pub edge_interior_motion_ratio: f32,
    /// Deepest penetration of any particle into a body ellipsoid at the end of any step, cm.
    pub max_penetration_cm: f32,
    /// Mean share of free particles at their max distance, percent.
    pub max_distance_saturation_pct: f32,
    /// Resets after a non-finite or exploded state.
    pub resets: u64,
    /// Clamps of particles the hard pass pushed past their max distance, and the largest
    /// overshoot, cm.
    pub post_hard_clamps: u64,
    pub post_hard_clamp_max_cm: f32,
    /// Pushes out of a collider after the hard pass pulled a particle in, and the largest, cm.
    pub post_hard_pushes: u64,
    pub post_hard_push_max_cm: f32,
    /// Links torn by the end of the run (with those gone with them); absent when the preset's
    /// `tear_ratio` is 0 (tearing off), so runs without tearing report what they always did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torn_links: Option<usize>,
    /// The artist's garment only: how far its simulated vertices, skinned to the cloth bones,
    /// lie from their exact places on the simulated grid's surface over the run, root mean
    /// square and largest, millimetres ([`ImportedGarment::binding_error`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding_rms_mm: Option<f32>,
    /// The largest share over the run of the body's vertices the garment should cover (the
    /// torso and legs within its grid's rows and columns at rest) that show through the drawn
    /// garment, percent: further from the pelvis's vertical axis than the garment's outer
    /// surface on the same horizontal line, as a camera circling the character sees them; a
    /// vertex with no garment on its line (below a lifted hem) is uncovered, not showing
    /// ([`super::coverage::Coverage`]). Absent from a run that did not draw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skin_showing_pct: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding_max_mm: Option<f32>,
    /// Cloth step time, median and 99th percentile, microseconds.
    pub step_median_us: f64,
    pub step_p99_us: f64,
    /// Jacket frame time (clip sampling, rig, hood, cloth, bones: what a game pays per
    /// character on the CPU), median and 99th percentile, microseconds.
    pub frame_median_us: f64,
    pub frame_p99_us: f64,
    /// Skinning the detailed jacket and the body for drawing, once per step as a 60 Hz view
    /// would, median microseconds (on a graphics card a game skins these in its shaders).
    /// Absent from a run that did not draw ([`Drawing::Skipped`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skin_median_us: Option<f64>,
}

/// What a run does between its steps besides measuring the fabric. The fabric behaves the same
/// bits either way; only the timings differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawing {
    /// The drawn meshes are skinned after every step, as a window drawing each step would, and
    /// that is timed (`skin_median_us`); the frame is timed with what drawing left in the
    /// caches, as in the window. What `cloth-tuner simulate` does.
    Skinned,
    /// Nothing between the steps: a run takes about a third of the time, for searches that
    /// read only the fabric's behaviour (`fit`, `wedge`), and the settle time's calm run goes
    /// beside it on another core. Its frame times say little (warm caches, another run beside
    /// it) and there is no skinning time.
    Skipped,
}

/// When the clip's motion stops for good: the last moment any joint moves faster than
/// [`STILL_SPEED`] in the world. `None` for looping clips.
pub fn motion_end(character: &Character, clip: &Clip) -> Option<f64> {
    if clip.looping {
        return None;
    }
    let mut pose = character.skeleton.rest_pose();
    let mut model = Vec::new();
    let rate = 60.0;
    let samples = (clip.duration * rate).ceil() as usize;
    let joints = |t: f32, pose: &mut super::Pose, model: &mut Vec<glam::Mat4>| -> Vec<Vec3> {
        let root = clip.sample(t, pose);
        pose.compute_model(&character.skeleton, model);
        model
            .iter()
            .map(|m| root.transform_point(m.w_axis.truncate()))
            .collect()
    };
    let mut last_moving = 0.0;
    let mut before = joints(0.0, &mut pose, &mut model);
    for i in 1..=samples {
        let t = i as f32 / rate;
        let now = joints(t, &mut pose, &mut model);
        let fastest = now
            .iter()
            .zip(&before)
            .map(|(a, b)| a.distance(*b) * rate)
            .fold(0.0, f32::max);
        if fastest > STILL_SPEED {
            last_moving = t;
        }
        before = now;
    }
    Some(last_moving as f64)
}

/// Runs `preset` on `clip` for `seconds` with no window and measures it, skinning the drawn
/// meshes between the steps as a window would ([`Drawing::Skinned`]).
pub fn simulate(
    character: Arc<Character>,
    preset: &Preset,
    clip: &str,
    seconds: f64,
) -> Result<Metrics, SceneError> {
    simulate_drawing(character, preset, clip, seconds, Drawing::Skinned)
}

/// [`simulate`] with the character in `outfit` (the artist's own garment, or the preset's
/// template).
pub fn simulate_in(
    character: Arc<Character>,
    outfit: &Outfit,
    preset: &Preset,
    clip: &str,
    seconds: f64,
) -> Result<Metrics, SceneError> {
    simulate_drawing_in(character, outfit, preset, clip, seconds, Drawing::Skinned)
}

/// [`simulate`], with or without the drawn meshes skinned between the steps. The settle time
/// comes from a second run with the wind off: beside the measured one on another core when
/// nothing but the steps is timed ([`Drawing::Skipped`]), after it otherwise, so a timed run
/// has the machine to itself. Either way the same metrics.
pub fn simulate_drawing(
    character: Arc<Character>,
    preset: &Preset,
    clip: &str,
    seconds: f64,
    drawing: Drawing,
) -> Result<Metrics, SceneError> {
    simulate_drawing_in(character, &Outfit::Template, preset, clip, seconds, drawing)
}

/// [`simulate_drawing`] with the character in `outfit`.
pub fn simulate_drawing_in(
    character: Arc<Character>,
    outfit: &Outfit,
    preset: &Preset,
    clip: &str,
    seconds: f64,
    drawing: Drawing,
) -> Result<Metrics, SceneError> {
    let end = motion_end(&character, &character.clips[find_clip(&character, clip)?]);
    let steps = (seconds * preset.params.timestep_hz as f64)
        .round()
        .max(1.0) as u64;
    let calm = || match end {
        Some(e) => settle_time(character.clone(), outfit, preset, clip, steps, e),
        None => Ok(None),
    };
    let measured = || measured_run(character.clone(), outfit, preset, clip, steps, end, drawing);
    let (mut metrics, calm_run) = match drawing {
        Drawing::Skipped => {
            let (metrics, calm_run) = rayon::join(measured, calm);
            (metrics?, Some(calm_run))
        }
        Drawing::Skinned => (measured()?, None),
    };
    // Only a run that saw the motion stop has a settle time to give.
    if end.is_some_and(|e| e <= metrics.seconds) {
        metrics.settle_time_s = match calm_run {
            Some(settle) => settle?,
            None => calm()?,
        };
    }
    Ok(metrics)
}

/// The binding error summed over a run's steps.
#[derive(Default)]
struct BindingError {
    sum_sq: f64,
    count: u64,
    max: f32,
}

impl BindingError {
    fn add(&mut self, (sum_sq, count, max): (f64, u64, f32)) {
        self.sum_sq += sum_sq;
        self.count += count;
        self.max = self.max.max(max);
    }
}

/// `steps` steps of `preset` on `clip` and their metrics, all but the settle time.
fn measured_run(
    character: Arc<Character>,
    outfit: &Outfit,
    preset: &Preset,
    clip: &str,
    steps: u64,
    end: Option<f64>,
    drawing: Drawing,
) -> Result<Metrics, SceneError> {
    let roles_by_shape = character.roles.by_shape();
    let mut scene = outfit.scene(character, preset, clip)?;
    let mut step_times = Vec::with_capacity(steps as usize);
    let mut frame_times = Vec::with_capacity(steps as usize);
    let skinned = drawing == Drawing::Skinned;
    let mut skin_times = Vec::with_capacity(if skinned { steps as usize } else { 0 });
    let (mut vmax, mut vmean_sum, mut hmax) = (0f32, 0f64, 0f32);
    let (mut hem_peak, mut hem_sq_sum) = (0f32, 0f64);
    let (mut edge_sum, mut int_sum) = (0f64, 0f64);
    let (mut penetration, mut saturation_sum) = (0f32, 0f64);
    let mut binding = BindingError::default();
    let mut showing = 0f32;
    for _ in 0..steps {
        scene.step();
        if skinned {
            // Skinned as a window drawing every step would, timed on its own.
            scene.skin_meshes();
            skin_times.push(scene.frame_stats().skin_seconds as f64);
            showing = showing.max(scene.skin_showing_pct());
            if let Some(g) = scene.worn_as::<ImportedGarment>() {
                binding.add(g.binding_error(scene.cloth().positions(), scene.jacket().positions));
            }
        }
        let s = scene.frame_stats();
        step_times.push(s.step_seconds as f64);
        frame_times.push(s.frame_seconds as f64);
        vmax = vmax.max(s.vertical_stretch_pct);
        vmean_sum += s.mean_vertical_stretch_pct as f64;
        hmax = hmax.max(s.horizontal_stretch_pct);
        hem_peak = hem_peak.max(s.hem_swing_m);
        hem_sq_sum += (s.hem_rms_m as f64).powi(2);
        edge_sum += s.edge_speed as f64;
        int_sum += s.interior_speed as f64;
        penetration = penetration.max(s.max_penetration_m);
        saturation_sum += s.max_distance_saturation as f64;
    }
    let n = steps as f64;
    let stats = scene.cloth().stats();
    Ok(Metrics {
        preset: preset.name.clone(),
        clip: clip.to_string(),
        roles_by_shape,
        seconds: scene.time(),
        steps,
        max_vertical_stretch_pct: vmax,
        mean_vertical_stretch_pct: (vmean_sum / n) as f32,
        max_horizontal_stretch_pct: hmax,
        hem_swing_peak_cm: hem_peak * 100.0,
        hem_swing_rms_cm: ((hem_sq_sum / n).sqrt() * 100.0) as f32,
        motion_end_s: end,
        settle_time_s: None,
        edge_interior_motion_ratio: if int_sum > 0.0 {
            (edge_sum / int_sum) as f32
        } else {
            0.0
        },
        max_penetration_cm: penetration * 100.0,
        max_distance_saturation_pct: (saturation_sum / n * 100.0) as f32,
        resets: stats.resets,
        post_hard_clamps: stats.post_hard_clamps,
        post_hard_clamp_max_cm: stats.post_hard_clamp_max * 100.0,
        post_hard_pushes: stats.post_hard_pushes,
        post_hard_push_max_cm: stats.post_hard_push_max * 100.0,
        torn_links: (preset.params.tear_ratio > 0.0).then(|| scene.cloth().torn_count()),
        binding_rms_mm: (binding.count > 0)
            .then(|| ((binding.sum_sq / binding.count as f64).sqrt() * 1000.0) as f32),
        binding_max_mm: (binding.count > 0).then_some(binding.max * 1000.0),
        skin_showing_pct: skinned.then_some(showing),
        step_median_us: percentile(&mut step_times, 0.5) * 1e6,
        step_p99_us: percentile(&mut step_times, 0.99) * 1e6,
        frame_median_us: percentile(&mut frame_times, 0.5) * 1e6,
        frame_p99_us: percentile(&mut frame_times, 0.99) * 1e6,
        skin_median_us: skinned.then(|| percentile(&mut skin_times, 0.5) * 1e6),
    })
}

/// Seconds after `end` (when the clip's motion stops) until the hem moves slower than
/// [`SETTLE_SPEED`] relative to the body and stays so over `steps` steps; `None` if it never
/// does. Run with the wind off: gusts would keep a hem moving for ever.
fn settle_time(
    character: Arc<Character>,
    outfit: &Outfit,
    preset: &Preset,
    clip: &str,
    steps: u64,
    end: f64,
) -> Result<Option<f64>, SceneError> {
    let calm = Preset {
        params: crate::sim::FabricParams {
            wind_speed: 0.0,
            ..preset.params.clone()
        },
        ..preset.clone()
    };
    let mut scene = outfit.scene(character, &calm, clip)?;
    let mut settled_since: Option<f64> = None;
    for _ in 0..steps {
        scene.step();
        let t = scene.time();
        if t < end {
            continue;
        }
        if scene.frame_stats().hem_speed < SETTLE_SPEED {
            settled_since.get_or_insert(t);
        } else {
            settled_since = None;
        }
    }
    Ok(settled_since.map(|s| (s - end).max(0.0)))
}

fn percentile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

impl Metrics {
    /// The report for a person, one metric a line.
    pub fn to_text(&self) -> String {
        let opt = |v: Option<f64>, unit: &str| match v {
            Some(x) => format!("{x:.2} {unit}"),
            None => "n/a".to_string(),
        };
        let settle = match (self.motion_end_s, self.settle_time_s) {
            (None, _) => "n/a (the clip loops)".to_string(),
            (Some(_), Some(s)) => format!("{s:.2} s"),
            (Some(e), None) if e > self.seconds => {
                "n/a (the run ends before the motion stops)".to_string()
            }
            (Some(_), None) => "not settled by the end of the run".to_string(),
        };
        let by_shape = if self.roles_by_shape.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = self.roles_by_shape.iter().map(|r| r.name()).collect();
            format!(
                "roles by shape          {} (no bone name says them: confirm them in the \
                 Character window or a bone map)\n",
                names.join(", ")
            )
        };
        format!(
            "preset {} on clip {} for {:.2} s ({} steps)\n\
             {}\
             vertical stretch        max {:.3} %  mean {:.4} %\n\
             horizontal stretch      max {:.2} %\n\
             hem swing               peak {:.1} cm  rms {:.1} cm\n\
             motion stops at         {}\n\
             settle time             {}\n\
             edge / interior motion  {:.2}\n\
             deepest penetration     {:.2} cm\n\
             at max distance         {:.1} % of particles (mean)\n\
             resets                  {}\n\
             post-hard clamps        {} (largest {:.2} cm)\n\
             post-hard pushes        {} (largest {:.2} cm)\n\
             {}\
             cloth step              median {:.1} us  p99 {:.1} us\n\
             jacket frame            median {:.1} us  p99 {:.1} us\n\
             skinning for drawing    {}\n",
            self.preset,
            self.clip,
            self.seconds,
            self.steps,
            by_shape,
            self.max_vertical_stretch_pct,
            self.mean_vertical_stretch_pct,
            self.max_horizontal_stretch_pct,
            self.hem_swing_peak_cm,
            self.hem_swing_rms_cm,
            opt(self.motion_end_s, "s"),
            settle,
            self.edge_interior_motion_ratio,
            self.max_penetration_cm,
            self.max_distance_saturation_pct,
            self.resets,
            self.post_hard_clamps,
            self.post_hard_clamp_max_cm,
            self.post_hard_pushes,
            self.post_hard_push_max_cm,
            self.torn_links
                .map(|n| format!("torn links              {n}\n"))
                .unwrap_or_default()
                + &self
                    .skin_showing_pct
                    .map(|pct| format!("skin showing through    {pct:.2} % at most\n"))
                    .unwrap_or_default()
                + &self
                    .binding_rms_mm
                    .zip(self.binding_max_mm)
                    .map(|(rms, max)| {
                        format!("binding error           rms {rms:.2} mm, max {max:.2} mm\n")
                    })
                    .unwrap_or_default(),
            self.step_median_us,
            self.step_p99_us,
            self.frame_median_us,
            self.frame_p99_us,
            match self.skin_median_us {
                Some(us) => format!("median {us:.1} us"),
                None => "not drawn in this run".to_string(),
            },
        )
    }
}
