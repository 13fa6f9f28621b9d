//! `render`: a preset on a clip, pictures of chosen frames from chosen cameras, with no window.
//! The pictures come from the tuner's own [`Renderer::draw`](crate::render::Renderer::draw)
//! into an offscreen target on a surfaceless EGL context. Frame N is the state after N fixed
//! steps from the start of the clip.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use indicatif::ProgressBar;

use super::progress_bar_of;
use crate::character::{Character, SkinnedMesh};
use crate::picture::{PngWriter, Rgba};
use crate::preset::Preset;
pub use crate::render::headless::CameraSpec;
use crate::render::headless::{HeadlessGl, Offscreen};
use crate::render::scene_data;
use crate::render::trails::draw_trails;
use crate::render::Overlays;
use crate::scene::motion::{trail_rows, ClipMotion, TrailBuffer};
use crate::scene::{Outfit, Scene};

pub use crate::render::headless::MAX_FRAME;

/// Debug overlays by name (`--overlay`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OverlayName {
    /// The simulation mesh (stretch links blue, shear/bend orange).
    SimMesh,
    /// Edge particles in yellow.
    Edges,
    /// Pinned particles in red.
    Pinned,
    /// Collision ellipsoids.
    Ellipsoids,
    /// Max-distance spheres.
    MaxDistance,
    /// Bones from the simulation mesh.
    Bones,
    /// The wind arrow (drawn only when the preset has wind).
    Wind,
    /// The stretch heat map instead of the jacket's fabric.
    HeatMap,
    /// Every overlay above.
    All,
    /// The hem's and the front edges' paths over the last second, fading with age (drawn
    /// over the picture; not part of `all`).
    Trails,
    /// Leave out the body.
    NoBody,
    /// Leave out the shadows.
    NoShadows,
}

/// The overlays for a list of names: body, jacket and shadows on, every debug overlay off
/// unless named.
pub fn overlays(names: &[OverlayName]) -> Overlays {
    let mut o = Overlays::default();
    o.set_all_debug(false);
    for n in names {
        match n {
            OverlayName::SimMesh => o.sim_mesh = true,
            OverlayName::Edges => o.edge_particles = true,
            OverlayName::Pinned => o.pinned_particles = true,
            OverlayName::Ellipsoids => o.ellipsoids = true,
            OverlayName::MaxDistance => o.max_distance = true,
            OverlayName::Bones => o.sim_bones = true,
            OverlayName::Wind => o.wind_arrow = true,
            OverlayName::HeatMap => o.stretch_heat_map = true,
            OverlayName::All => o.set_all_debug(true),
            OverlayName::NoBody => o.body = false,
            OverlayName::NoShadows => o.shadows = false,
            // Drawn over the finished picture by the job, not by the renderer.
            OverlayName::Trails => {}
        }
    }
    o
}

/// The file name of one picture: `<preset file stem>_<clip>_<camera>_<frame>.png`, after
/// `<character file stem>_` for a character other than the built-in one.
pub fn shot_name(
    character: Option<&str>,
    preset_path: &Path,
    clip: &str,
    camera: &CameraSpec,
    frame: u64,
) -> String {
    let stem = preset_path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "preset".into());
    let who = character.map(|c| format!("{c}_")).unwrap_or_default();
    format!("{who}{stem}_{clip}_{}_{frame:04}.png", camera.file_label())
}

/// One preset on one clip, pictures of `frames` from each of `cameras`.
#[derive(Clone, Debug)]
pub struct Job {
    /// The character and the name its pictures carry (`None`: the built-in one).
    pub character: Arc<Character>,
    pub character_label: Option<String>,
    /// What the character wears: the preset's template unless [`Job::wearing`] says.
    pub outfit: Outfit,
    pub preset_path: PathBuf,
    pub preset: Preset,
    pub clip: String,
    /// Sorted, without repeats.
    pub frames: Vec<u64>,
    pub cameras: Vec<CameraSpec>,
    pub overlays: Overlays,
    /// Draw the onion-skin trails ([`OverlayName::Trails`]) over each picture.
    pub trails: bool,
    /// Play a baked clip: the garment's mesh as the baked file skins it
    /// ([`Scene::play_baked`]); `None` simulates.
    pub baked: Option<Arc<SkinnedMesh>>,
}

impl Job {
    /// Loads the preset and checks the clip, the frames and the cameras before anything is
    /// simulated or drawn. The overlays are [`overlays`]'s for `overlay_names`, and the trails
    /// when named.
    pub fn new(
        character: &Arc<Character>,
        character_label: Option<String>,
        preset_path: &Path,
        clip: &str,
        frames: &[u64],
        cameras: Vec<CameraSpec>,
        overlay_names: &[OverlayName],
    ) -> anyhow::Result<Job> {
        let preset = Preset::load(preset_path)?;
        if character.clip(clip).is_none() {
            let valid: Vec<&str> = character.clip_names().collect();
            anyhow::bail!("unknown clip `{clip}`; the clips are: {}", valid.join(", "));
        }
        if frames.is_empty() {
            anyhow::bail!("no frames to render: give --frames, e.g. 0,30,60");
        }
        if let Some(f) = frames.iter().find(|&&f| f > MAX_FRAME) {
            anyhow::bail!("frame {f} is out of range (0 to {MAX_FRAME})");
        }
        if cameras.is_empty() {
            anyhow::bail!("no camera given");
        }
        let mut frames = frames.to_vec();
        frames.sort_unstable();
        frames.dedup();
        Ok(Job {
            character: character.clone(),
            character_label,
            outfit: Outfit::Template,
            preset_path: preset_path.to_path_buf(),
            preset,
            clip: clip.to_string(),
            frames,
            cameras,
            overlays: overlays(overlay_names),
            trails: overlay_names.contains(&OverlayName::Trails),
            baked: None,
        })
    }

    /// The job with the character in `outfit` (the artist's own garment) instead of the
    /// preset's template.
    pub fn wearing(self, outfit: Outfit) -> Job {
        Job { outfit, ..self }
    }

    /// How many pictures the job makes.
    pub fn shots(&self) -> usize {
        self.frames.len() * self.cameras.len()
    }
}

/// One picture.
#[derive(Clone, Debug)]
pub struct Shot {
    pub name: String,
    pub frame: u64,
    pub camera: CameraSpec,
    pub image: Rgba,
}

/// Where the time went.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    /// Fixed steps of the whole pipeline (clip, rig, cloth, skinning).
    pub steps: u64,
    pub simulation: Duration,
    /// Drawing and reading the picture back.
    pub drawing: Duration,
    pub shots: usize,
}

impl Timings {
    fn add(&mut self, o: Timings) {
        self.steps += o.steps;
        self.simulation += o.simulation;
        self.drawing += o.drawing;
        self.shots += o.shots;
    }

    /// One line for people.
    pub fn to_text(&self) -> String {
        format!(
            "{} picture(s): simulation {:.3} s for {} steps ({:.2} ms/step), drawing {:.3} s ({:.1} ms/picture)",
            self.shots,
            self.simulation.as_secs_f64(),
            self.steps,
            self.simulation.as_secs_f64() * 1e3 / self.steps.max(1) as f64,
            self.drawing.as_secs_f64(),
            self.drawing.as_secs_f64() * 1e3 / self.shots.max(1) as f64
        )
    }
}

/// A job's simulation on its way through the frames, and how its pictures look.
struct JobRun {
    scene: Scene,
    look: crate::render::FabricLook,
    /// The last second of the hem and the front edges, when the job draws trails.
    trail: Option<TrailBuffer>,
}

impl JobRun {
    fn new(job: &Job) -> anyhow::Result<JobRun> {
        let mut scene = (job.outfit)
            .scene(job.character.clone(), &job.preset, &job.clip)
            .with_context(|| format!("{} on clip `{}`", job.preset_path.display(), job.clip))?;
        if let Some(worn) = &job.baked {
            scene.play_baked(worn.clone())?;
        }
        let look = job.preset.look;
        let trail = job.trails.then(|| {
            let mut t = TrailBuffer::new(&scene, trail_rows(&job.preset));
            t.push(&scene);
            t
        });
        Ok(JobRun { scene, look, trail })
    }

    /// Steps until `steps` fixed steps from the clip start, timed into `t`.
    fn advance_to(&mut self, steps: u64, t: &mut Timings) {
        let start = Instant::now();
        while self.scene.steps() < steps {
            self.scene.step();
            if let Some(trail) = self.trail.as_mut() {
                trail.push(&self.scene);
            }
            t.steps += 1;
        }
        t.simulation += start.elapsed();
    }

    /// Steps until the clip time of `frame` fixed steps at `hz` (another preset's rate in
    /// an A/B picture), to the nearest of this preset's steps.
    fn advance_to_time_of(&mut self, frame: u64, hz: f32, t: &mut Timings) {
        let own = self.scene.params().timestep_hz as f64;
        self.advance_to((frame as f64 * own / hz as f64).round() as u64, t);
    }

    fn draw(&mut self, offscreen: &mut Offscreen, camera: &CameraSpec, job: &Job) -> Rgba {
        let cam = camera.camera(&self.scene);
        let mut image =
            offscreen.draw(&cam, &scene_data(&mut self.scene, self.look), &job.overlays);
        if let Some(trail) = &self.trail {
            draw_trails(&mut image, &cam, self.scene.root().matrix(), trail);
        }
        image
    }
}

/// `cameras` with any garment camera fitted to one run of the clip by each of `jobs` (A and
/// B of a comparison share one view), for pictures of `size`.
fn fitted_cameras(jobs: &[&Job], size: (u32, u32)) -> anyhow::Result<Vec<CameraSpec>> {
    let cameras = &jobs[0].cameras;
    if !cameras.contains(&CameraSpec::Garment(None)) {
        return Ok(cameras.clone());
    }
    let motions = jobs
        .iter()
        .map(|j| {
            ClipMotion::of_clip_in(j.character.clone(), &j.outfit, &j.preset, &j.clip, &|| {
                false
            })
            .with_context(|| format!("{} on clip `{}`", j.preset_path.display(), j.clip))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(cameras
        .iter()
        .map(|c| c.fitted(&motions, size.0, size.1))
        .collect())
}

/// Runs the job's simulation from the clip start and hands each picture to `shot` as soon as
/// it is drawn.
pub fn run_job(
    job: &Job,
    offscreen: &mut Offscreen,
    progress: &ProgressBar,
    shot: impl FnMut(Shot) -> anyhow::Result<()>,
) -> anyhow::Result<Timings> {
    run_frames(job, offscreen, None, progress, shot)
}

/// Two jobs on the same clip, frames and cameras (A and B of a comparison), each picture A
/// on the left and B on the right, B at the same clip time as A. Names are
/// `<A>_vs_<B>_<clip>_<camera>_<frame>.png`. Each has its own offscreen target (and so its
/// own fabric and meshes kept between pictures).
pub fn run_pair(
    (a, b): (&Job, &Job),
    (off_a, off_b): (&mut Offscreen, &mut Offscreen),
    progress: &ProgressBar,
    shot: impl FnMut(Shot) -> anyhow::Result<()>,
) -> anyhow::Result<Timings> {
    run_frames(a, off_a, Some((b, off_b)), progress, shot)
}

/// The pictures of `job`, with `other`'s beside each on the right when given.
fn run_frames(
    job: &Job,
    offscreen: &mut Offscreen,
    mut other: Option<(&Job, &mut Offscreen)>,
    progress: &ProgressBar,
    mut shot: impl FnMut(Shot) -> anyhow::Result<()>,
) -> anyhow::Result<Timings> {
    let mut t = Timings::default();
    let mut run = JobRun::new(job)?;
    let mut run_b = other.as_ref().map(|(b, _)| JobRun::new(b)).transpose()?;
    let both: Vec<&Job> = std::iter::once(job)
        .chain(other.as_ref().map(|(b, _)| *b))
        .collect();
    let cameras = fitted_cameras(&both, offscreen.size())?;
    let hz = job.preset.params.timestep_hz;
    let stem = |j: &Job| {
        j.preset_path
            .file_stem()
            .map_or("preset".into(), |s| s.to_string_lossy().to_string())
    };
    let named_after = match &other {
        Some((b, _)) => PathBuf::from(format!("{}_vs_{}.json", stem(job), stem(b))),
        None => job.preset_path.clone(),
    };
    for &frame in &job.frames {
        run.advance_to(frame, &mut t);
        if let Some(rb) = run_b.as_mut() {
            rb.advance_to_time_of(frame, hz, &mut t);
        }
        for camera in &cameras {
            let start = Instant::now();
            let mut image = run.draw(offscreen, camera, job);
            if let (Some(rb), Some((b, off_b))) = (run_b.as_mut(), other.as_mut()) {
                let right = rb.draw(off_b, camera, b);
                image = image.beside(&right, PAIR_GAP, [20, 20, 20, 255]);
            }
            t.drawing += start.elapsed();
            t.shots += 1;
            progress.set_message(format!(
                "{} {} frame {frame}",
                job.clip,
                camera.file_label()
            ));
            let name = shot_name(
                job.character_label.as_deref(),
                &named_after,
                &job.clip,
                camera,
                frame,
            );
            shot(Shot {
                name,
                frame,
                camera: *camera,
                image,
            })?;
            progress.inc(1);
        }
    }
    Ok(t)
}

/// Pixels between the two halves of an A/B picture.
pub const PAIR_GAP: u32 = 4;

/// A progress bar of pictures on stderr (hidden with `quiet` or when stderr is not a
/// terminal).
pub fn progress_bar(total: usize, quiet: bool) -> ProgressBar {
    progress_bar_of(total, "pictures", quiet)
}

/// Makes `dir` (and its parents) and checks a file can be written in it.
pub fn writable_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the output folder {}", dir.display()))?;
    tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in the output folder {}", dir.display()))?;
    Ok(())
}

/// What `render` was asked to do.
#[derive(Clone, Debug)]
pub struct RenderArgs {
    pub preset: PathBuf,
    /// A second preset drawn beside the first (A/B pictures).
    pub preset_b: Option<PathBuf>,
    pub clip: String,
    pub character: super::CharacterArgs,
    pub frames: Vec<u64>,
    pub width: u32,
    pub height: u32,
    pub camera: CameraSpec,
    pub out: PathBuf,
    pub overlays: Vec<OverlayName>,
    /// Play the baked file `character` names instead of simulating ([`Scene::play_baked`]).
    pub baked: bool,
    pub quiet: bool,
}

/// `render`: writes one PNG per frame and returns their paths and the timings.
pub fn render(args: &RenderArgs) -> anyhow::Result<(Vec<PathBuf>, Timings)> {
    let (character, outfit, baked) = if args.baked {
        let (character, outfit, worn) = args.character.load_baked()?;
        (character, outfit, Some(worn))
    } else {
        let (character, outfit) = args.character.load_outfit()?;
        (character, outfit, None)
    };
    let job_of = |preset: &Path| {
        Job::new(
            &character,
            args.character.label(),
            preset,
            &args.clip,
            &args.frames,
            vec![args.camera],
            &args.overlays,
        )
        .map(|job| Job {
            baked: baked.clone(),
            ..job.wearing(outfit.clone())
        })
    };
    let job = job_of(&args.preset)?;
    let job_b = args.preset_b.as_deref().map(job_of).transpose()?;
    writable_dir(&args.out)?;
    let gl = HeadlessGl::new()?;
    let mut offscreen = Offscreen::new(&gl, args.width, args.height)?;
    let bar = progress_bar(job.shots(), args.quiet);
    let mut written = Vec::new();
    let mut timings = Timings::default();
    let writer = PngWriter::new();
    let write = |shot: Shot| {
        let path = args.out.join(&shot.name);
        writer.write(path.clone(), shot.image)?;
        written.push(path);
        Ok(())
    };
    let drawn = match &job_b {
        Some(b) => {
            let mut off_b = Offscreen::new(&gl, args.width, args.height)?;
            run_pair((&job, b), (&mut offscreen, &mut off_b), &bar, write)
        }
        None => run_job(&job, &mut offscreen, &bar, write),
    };
    // The writer's own error says why a write failed; the drawing's says why it stopped.
    writer.finish()?;
    timings.add(drawn?);
    bar.finish_and_clear();
    Ok((written, timings))
}

/// The timings of several jobs.
pub fn total(timings: &[Timings]) -> Timings {
    let mut t = Timings::default();
    for x in timings {
        t.add(*x);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shot_names_name_preset_clip_camera_and_frame() {
        let n = shot_name(
            None,
            Path::new("presets/tweed.json"),
            "dodge",
            &CameraSpec::ThreeQuarter,
            30,
        );
        assert_eq!(n, "tweed_dodge_three-quarter_0030.png");
        let n = shot_name(
            Some("hero"),
            Path::new("presets/tweed.json"),
            "walk",
            &CameraSpec::Front,
            0,
        );
        assert_eq!(n, "hero_tweed_walk_front_0000.png");
    }

    #[test]
    fn overlays_by_name() {
        let o = overlays(&[OverlayName::SimMesh, OverlayName::NoShadows]);
        assert!(o.sim_mesh && !o.shadows && o.body && o.jacket && !o.wind_arrow);
        assert!(overlays(&[OverlayName::All]).max_distance);
    }

    #[test]
    fn bad_jobs_are_refused_before_any_work() {
        let c = Arc::new(Character::builtin());
        let p = Path::new("presets/tweed.json");
        let cams = || vec![CameraSpec::Front];
        let e = Job::new(&c, None, p, "moonwalk", &[1], cams(), &[]).unwrap_err();
        assert!(e.to_string().contains("unknown clip `moonwalk`"), "{e}");
        let e = Job::new(&c, None, Path::new("nope.json"), "walk", &[1], cams(), &[]).unwrap_err();
        assert!(format!("{e:#}").contains("nope.json"), "{e:#}");
        let e = Job::new(&c, None, p, "walk", &[MAX_FRAME + 1], cams(), &[]).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        let j = Job::new(&c, None, p, "walk", &[30, 0, 30], cams(), &[]).unwrap();
        assert_eq!(j.frames, vec![0, 30]);
    }
}
