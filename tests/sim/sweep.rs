//! The simulation under abuse: random fabrics drawn across every slider's full range, each run
//! on every clip of the character through the whole pipeline (`Scene`: clip, rig, cloth,
//! bones, skinned render mesh). After every step:
//! - no NaN or infinity in the cloth positions or in the skinned jacket the renderer draws;
//! - no particle beyond its max distance from its reference point;
//! - the reset counter explains every recovery: a step (of one substep) that counts a reset
//!   leaves the cloth at rest on the reference pose, a step counts at most one reset per
//!   substep, and a cloth that jumps to rest on the reference pose counted a reset.
//!
//! The normal suite runs [`DEFAULT_SETS`] seeded sets (the first all at their minimum, the
//! second all at their maximum, every eighth with each knob at one end or the other, the rest
//! uniform) on each clip from the clip's start, for [`DEFAULT_SECONDS`] of simulated time and
//! at least [`DEFAULT_MIN_STEPS`] steps. The longer run in docs/library.md:
//! `SWEEP_SETS=5000 SWEEP_SECONDS=0.1 SWEEP_MIN_STEPS=6 cargo test --release --test sim sweep:: --
//! --nocapture` (`SWEEP_SEED` picks another sequence of sets).

use std::sync::Arc;
use std::time::Instant;

use cloth_tuner::character::Character;
use cloth_tuner::preset::{Garment, Preset};
use cloth_tuner::scene::Scene;
use cloth_tuner::sim::{FabricParams, ParamKind};

/// Sets in the normal suite.
const DEFAULT_SETS: usize = 500;
/// Simulated seconds per set and clip in the normal suite (at least [`DEFAULT_MIN_STEPS`]
/// steps). Short: a step of a drawn set costs up to 8 substeps x 32 passes, so the normal suite
/// is breadth (every set on every clip, from the clip's start, where extreme fabrics blow up)
/// and the long run (`SWEEP_SECONDS`) is depth.
const DEFAULT_SECONDS: f64 = 0.025;
/// Fewest steps per set and clip in the normal suite.
const DEFAULT_MIN_STEPS: u64 = 3;
/// The seed of the sets (`SWEEP_SEED` picks another).
const DEFAULT_SEED: u64 = 0x5eed_c10f;
/// How far past its max distance a particle may end, metres (rounding in the clamp).
const MAX_DISTANCE_TOLERANCE: f32 = 1e-4;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// SplitMix64: small, seeded, the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1].
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / ((1u64 << 53) - 1) as f64
    }

    fn coin(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }
}

/// How a set's knobs are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Draw {
    /// Every knob at its minimum.
    AllMin,
    /// Every knob at its maximum.
    AllMax,
    /// Every knob at one end of its range or the other, at random.
    Ends,
    /// Every knob uniform over its range, switches 50/50.
    Uniform,
}

fn draw_kind(set: usize) -> Draw {
    match set {
        0 => Draw::AllMin,
        1 => Draw::AllMax,
        s if s % 8 == 2 => Draw::Ends,
        _ => Draw::Uniform,
    }
}

/// A fabric drawn across every slider's full range (from `FabricParams::SPECS`).
fn random_params(rng: &mut Rng, draw: Draw) -> FabricParams {
    let mut p = FabricParams::default();
    for s in FabricParams::SPECS {
        let v = match (draw, s.kind) {
            (Draw::AllMin, _) => s.min,
            (Draw::AllMax, _) => s.max,
            (Draw::Ends, _) | (Draw::Uniform, ParamKind::Bool) => {
                if rng.coin() {
                    s.max
                } else {
                    s.min
                }
            }
            (Draw::Uniform, ParamKind::Int) => {
                let span = (s.max - s.min) as u64 + 1;
                s.min + (rng.next_u64() % span) as f64
            }
            (Draw::Uniform, ParamKind::Float) => s.min + (s.max - s.min) * rng.unit(),
        };
        assert!(p.set(s.name, v), "{} is a field", s.name);
    }
    // Drawn within range: the float bounds are the f32 field's own values.
    let p2 = p.clone();
    if let Err(e) = p2.validate() {
        // Rounding a uniform f64 into f32 can land one ulp outside: pull it back in.
        let clamped = p2.clamped();
        assert!(
            clamped.validate().is_ok(),
            "a drawn set is out of range: {e}"
        );
        return clamped;
    }
    p
}

/// What one run (set x clip) saw.
#[derive(Default)]
struct RunReport {
    steps: u64,
    resets: u64,
}

/// Runs `scene` (already set to the fabric and clip, at the clip start) for `steps` steps and
/// checks every step. `what` names the run in failures.
fn run_checked(scene: &mut Scene, steps: u64, what: &str) -> RunReport {
    let n = scene.cloth().positions().len();
    let mut prev_pos = scene.cloth().positions().to_vec();
    let mut resets_before = scene.cloth().stats().resets;
    let mut report = RunReport::default();
    for step in 1..=steps {
        scene.step();
        // The renderer's mesh too: what it draws must be finite.
        scene.skin_meshes();
        let cloth = scene.cloth();
        let pos = cloth.positions();
        let prev = cloth.previous_positions();
        let reference = scene.references();
        let md = cloth.max_distances();
        assert_eq!(pos.len(), n);
        // Nothing non-finite reaches the caller or the renderer.
        if let Some(i) = pos.iter().position(|p| !p.is_finite()) {
            panic!("{what} step {step}: particle {i} is {:?}", pos[i]);
        }
        let jacket = scene.jacket();
        if let Some(i) = jacket.positions.iter().position(|p| !p.is_finite()) {
            panic!(
                "{what} step {step}: render vertex {i} is {:?}",
                jacket.positions[i]
            );
        }
        if let Some(i) = jacket.normals.iter().position(|p| !p.is_finite()) {
            panic!(
                "{what} step {step}: render normal {i} is {:?}",
                jacket.normals[i]
            );
        }
        // Nothing beyond its max distance.
        for i in 0..n {
            let over = pos[i].distance(reference[i]) - md[i];
            assert!(
                over <= MAX_DISTANCE_TOLERANCE,
                "{what} step {step}: particle {i} is {over} m past its max distance {}",
                md[i]
            );
        }
        // The reset counter explains every recovery.
        let resets = cloth.stats().resets;
        let counted = resets - resets_before;
        // At most one reset per solver step, and a step is `substeps` solver steps.
        let substeps = cloth.params().substeps.max(1) as u64;
        assert!(
            counted <= substeps,
            "{what} step {step}: {counted} resets in one step of {substeps} substeps"
        );
        let at_rest_on_reference = pos == reference && prev == reference;
        if counted > 0 {
            // With one substep the reset is the step's last word. With more, the substeps
            // after a reset carry on from the reference pose (the checks above still hold).
            assert!(
                substeps > 1 || at_rest_on_reference,
                "{what} step {step}: a reset was counted but the cloth is not at rest on its \
                 reference pose"
            );
            report.resets += counted;
        } else {
            // A jump to rest on the reference pose from somewhere else is a recovery that was
            // not counted. Only particles free to leave their reference tell: a max distance of
            // 0 holds a particle there every step, at rest whenever the character is still.
            let jumped = prev_pos
                .iter()
                .zip(reference)
                .zip(md)
                .any(|((a, b), &d)| d > 1e-6 && a.distance(*b) > 1e-6);
            assert!(
                !(at_rest_on_reference && jumped),
                "{what} step {step}: the cloth jumped to rest on its reference pose but no reset \
                 was counted"
            );
        }
        resets_before = resets;
        prev_pos.copy_from_slice(pos);
        report.steps += 1;
    }
    report
}

/// The sweep's fabrics: the same seeded sequence for every clip.
fn sets() -> Vec<(Draw, FabricParams, Garment)> {
    let count = env_or("SWEEP_SETS", DEFAULT_SETS);
    let mut rng = Rng(env_or("SWEEP_SEED", DEFAULT_SEED));
    (0..count)
        .map(|set| {
            let draw = draw_kind(set);
            let params = random_params(&mut rng, draw);
            let garment = if rng.coin() {
                Garment::HoodedJacket
            } else {
                Garment::Jacket
            };
            (draw, params, garment)
        })
        .collect()
}

/// Runs every set on `clip` and checks every step (see [`run_checked`]).
fn sweep(character: Arc<Character>, clip: &str) {
    let seconds = env_or("SWEEP_SECONDS", DEFAULT_SECONDS);
    let min_steps = env_or("SWEEP_MIN_STEPS", DEFAULT_MIN_STEPS);
    let base = Preset::load("presets/tweed.json").unwrap();
    // One scene per garment, reused across sets (a new fabric and a restart each).
    let mut scenes: [Option<Scene>; 2] = [None, None];
    let sets = sets();
    let start = Instant::now();
    let (mut steps, mut resets, mut sets_with_resets) = (0u64, 0u64, 0u64);
    for (set, (draw, params, garment)) in sets.iter().enumerate() {
        let scene = scenes[(*garment == Garment::HoodedJacket) as usize].get_or_insert_with(|| {
            let preset = Preset {
                garment: *garment,
                ..base.clone()
            };
            Scene::new(character.clone(), &preset, clip).unwrap()
        });
        scene.set_params(params);
        scene.reset();
        assert_eq!(scene.params(), params, "the scene took the fabric as drawn");
        let run_steps = ((seconds * params.timestep_hz as f64).ceil() as u64).max(min_steps);
        let what = format!("set {set} ({draw:?}, {garment:?}) on {clip}: {params:?}");
        let r = run_checked(scene, run_steps, &what);
        steps += r.steps;
        resets += r.resets;
        sets_with_resets += (r.resets > 0) as u64;
    }
    eprintln!(
        "sweep {clip}: {} sets x {seconds} s (at least {min_steps} steps), {steps} steps, {resets} resets in \
         {sets_with_resets} sets, {:.1} s",
        sets.len(),
        start.elapsed().as_secs_f64()
    );
}

/// Every clip of the character, each on its own thread: a clip's sweep is long, and one test
/// per clip would need the clip names written out here.
#[test]
fn random_fabrics_stay_finite_within_max_distance_and_count_their_resets_on_every_clip() {
    let character = Arc::new(Character::builtin());
    let clips: Vec<String> = character.clip_names().map(str::to_string).collect();
    let failed: Vec<&str> = std::thread::scope(|scope| {
        let runs: Vec<_> = clips
            .iter()
            .map(|clip| {
                let character = character.clone();
                std::thread::Builder::new()
                    .name(format!("sweep {clip}"))
                    .spawn_scoped(scope, move || sweep(character, clip))
                    .expect("a thread for the sweep")
            })
            .collect();
        clips
            .iter()
            .zip(runs)
            .filter_map(|(clip, run)| run.join().is_err().then_some(clip.as_str()))
            .collect()
    });
    assert!(
        failed.is_empty(),
        "the sweep failed on {failed:?} (each failure is printed above)"
    );
}

#[test]
fn the_drawn_sets_cover_every_knob_from_end_to_end() {
    // The sweep is only as good as its draws: over the suite's sets every knob reaches both
    // ends of its range and its middle, and every set is valid.
    let mut rng = Rng(env_or("SWEEP_SEED", DEFAULT_SEED));
    let specs = FabricParams::SPECS;
    let mut lo = vec![f64::MAX; specs.len()];
    let mut hi = vec![f64::MIN; specs.len()];
    let mut middle = vec![false; specs.len()];
    for set in 0..DEFAULT_SETS {
        let p = random_params(&mut rng, draw_kind(set));
        assert!(p.validate().is_ok(), "set {set}: {:?}", p.validate());
        let _ = rng.coin(); // the garment
        for (k, s) in specs.iter().enumerate() {
            let v = p.get(s.name).unwrap();
            lo[k] = lo[k].min(v);
            hi[k] = hi[k].max(v);
            let t = (v - s.min) / (s.max - s.min);
            middle[k] |= (0.4..=0.6).contains(&t) || s.kind == ParamKind::Bool;
        }
    }
    for (k, s) in specs.iter().enumerate() {
        assert_eq!(lo[k], s.min, "{} never at its minimum", s.name);
        assert_eq!(hi[k], s.max, "{} never at its maximum", s.name);
        assert!(middle[k], "{} never near the middle of its range", s.name);
    }
}
