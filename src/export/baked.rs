//! Baked clips: the rigged garment ([`crate::export::rigged`]) with each clip played by the
//! live simulation at the preset's fixed step and written as one glTF animation of the body
//! bones, the garment's drivers and the cloth bones: local translation and rotation, LINEAR,
//! each joint's quaternions kept on one hemisphere from key to key.
//!
//! Keys are reduced by a per-joint conservative rule. A joint's key is dropped when, at
//! every step between the keys kept around it, linear interpolation (slerp for the rotation)
//! is within `tolerance / depth` of the simulated local transform, measured as the
//! translation's error plus the rotation's chord at the joint's reach (the farthest any
//! point it carries gets from it in the clip: a descendant joint's distance plus the
//! farthest vertex bound to that joint at rest). `depth` is the most joints on any chain from
//! a root, so the errors of all the joints above a vertex add up to at most the tolerance
//! (to first order), for every vertex of the garment and the body. What is measured and
//! reported ([`ClipReport`]) is the played file against the drawn garment of the live scene
//! (which also holds the file's four normalised weights against the rig's own skinning).
//!
//! Clips bake in parallel (rayon), each in its own scene and written in the order given, so
//! the bytes do not depend on the threads.

use std::path::Path;
use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};
use rayon::prelude::*;

use crate::character::Character;
use crate::export::rigged::{rigged_glb_animated, ClipKeys, Influences, JointKeys, Joints};
use crate::export::rigged::{Rigged, RiggedError};
use crate::files::write_atomic;
use crate::preset::Preset;
use crate::scene::{Outfit, SceneError};

/// The tolerance's allowed range, millimetres.
pub const TOLERANCE_MM: std::ops::RangeInclusive<f64> = 0.01..=50.0;

/// The longest a baked clip may be, seconds.
pub const MAX_SECONDS: f64 = 120.0;

/// What to bake.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeSettings {
    /// The clips, by name, in the order they are written.
    pub clips: Vec<String>,
    /// Seconds of each clip (from its start, at the preset's fixed step).
    pub seconds: f64,
    /// How far a dropped key may move a vertex, millimetres ([`TOLERANCE_MM`]).
    pub tolerance_mm: f64,
}

/// One clip's bake against the live simulation.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClipReport {
    pub clip: String,
    /// Simulated frames (steps, the first pose included).
    pub frames: usize,
    /// Keys written over all joints, and what every frame would have been.
    pub keys: usize,
    pub all_keys: usize,
    /// Largest and root-mean-square distance of a garment vertex played from the file to the
    /// same vertex drawn by the live scene, over every frame, millimetres.
    pub max_mm: f64,
    pub rms_mm: f64,
}

/// A baked file and its report.
#[derive(Clone, Debug)]
pub struct Baked {
    pub rigged: Rigged,
    pub clips: Vec<ClipReport>,
}

/// Why a bake failed.
#[derive(Debug, thiserror::Error)]
pub enum BakeError {
    #[error("--tolerance-mm must be from 0.01 to 50, got {0}")]
    Tolerance(f64),
    #[error("--seconds must be more than one step and at most {MAX_SECONDS}, got {0}")]
    Seconds(f64),
    #[error("--clips: give at least one clip")]
    NoClips,
    #[error(transparent)]
    Scene(#[from] SceneError),
    #[error(transparent)]
    Rigged(#[from] RiggedError),
}

/// Bakes `settings.clips` of `character` in `outfit` tuned by `preset`. `progress` is called
/// with 1 after each simulated frame (from any thread).
pub fn bake(
    character: &Arc<Character>,
    outfit: &Outfit,
    preset: &Preset,
    settings: &BakeSettings,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Baked, BakeError> {
    if !(TOLERANCE_MM.contains(&settings.tolerance_mm)) {
        return Err(BakeError::Tolerance(settings.tolerance_mm));
    }
    let frames = frame_count(preset, settings.seconds)?;
    let first = settings.clips.first().ok_or(BakeError::NoClips)?;
    // Every clip is checked before any is simulated.
    let scene = outfit.scene(character.clone(), preset, first)?;
    for clip in &settings.clips {
        crate::scene::find_clip(character, clip)?;
    }
    let tolerance = (settings.tolerance_mm * 1e-3) as f32;
    let baked: Vec<(ClipKeys, ClipReport)> = settings
        .clips
        .par_iter()
        .map(|clip| bake_clip(character, outfit, preset, clip, frames, tolerance, progress))
        .collect::<Result<_, _>>()?;
    let (keys, clips): (Vec<ClipKeys>, Vec<ClipReport>) = baked.into_iter().unzip();
    let rigged = rigged_glb_animated(scene.character(), scene.worn(), preset, &keys)?;
    Ok(Baked { rigged, clips })
}

/// [`bake`] written atomically to `path`.
pub fn write_baked(
    path: &Path,
    character: &Arc<Character>,
    outfit: &Outfit,
    preset: &Preset,
    settings: &BakeSettings,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Baked, BakeError> {
    let baked = bake(character, outfit, preset, settings, progress)?;
    write_atomic(path, &baked.rigged.bytes).map_err(RiggedError::from)?;
    Ok(baked)
}

/// Frames for `seconds` at the preset's step (the first pose and one a step), at least two.
pub fn frame_count(preset: &Preset, seconds: f64) -> Result<usize, BakeError> {
    let steps = (seconds * preset.params.timestep_hz as f64).round();
    if !(seconds.is_finite() && seconds <= MAX_SECONDS && steps >= 1.0) {
        return Err(BakeError::Seconds(seconds));
    }
    Ok(steps as usize + 1)
}

/// One clip simulated, its keys reduced and its bake measured.
fn bake_clip(
    character: &Arc<Character>,
    outfit: &Outfit,
    preset: &Preset,
    clip: &str,
    frames: usize,
    tolerance: f32,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(ClipKeys, ClipReport), BakeError> {
    let mut scene = outfit.scene(character.clone(), preset, clip)?;
    let joints = Joints::new(scene.character(), scene.worn());
    let nj = joints.world.len();
    let garment_skin = joints.garment_skin(scene.worn());
    let rest = scene.rig().render.positions.clone();
    let nv = rest.len();
    let mut world = vec![Mat4::IDENTITY; frames * nj];
    let mut drawn = Vec::with_capacity(frames * nv);
    for f in 0..frames {
        if f > 0 {
            scene.step();
        }
        let out = &mut world[f * nj..(f + 1) * nj];
        joints.posed(scene.model(), scene.rig(), scene.rig_frame(), out);
        scene.skin_meshes();
        drawn.extend_from_slice(scene.jacket().positions);
        progress(1);
    }
    let own = own_radii(&joints, &[(&rest, &garment_skin)], scene.character());
    let reach = reaches(&joints, &world, &own);
    let depth = depth(&joints);
    let hz = preset.params.timestep_hz as f64;
    let per_joint = tolerance / depth as f32;
    let keys: Vec<JointKeys> = (0..nj)
        .map(|j| joint_keys(&joints, &world, j, reach[j], per_joint, hz))
        .collect();
    let played = play(&joints, &keys, frames, hz);
    let (max_mm, rms_mm) = deviation(&joints, &played, &garment_skin, &rest, &drawn);
    let report = ClipReport {
        clip: clip.to_string(),
        frames,
        keys: keys.iter().map(|k| k.times.len()).sum(),
        all_keys: frames * nj,
        max_mm,
        rms_mm,
    };
    let name = clip.to_string();
    Ok((ClipKeys { name, joints: keys }, report))
}

/// Per joint, the farthest any vertex bound to it lies from it at rest (the garment's and
/// the body's).
fn own_radii(
    joints: &Joints,
    meshes: &[(&[Vec3], &[Influences])],
    character: &Character,
) -> Vec<f32> {
    let body_skin = joints.body_skin(character);
    let body: (&[Vec3], &[Influences]) = (&character.mesh.positions, &body_skin);
    let mut own = vec![0f32; joints.world.len()];
    for &(positions, skin) in meshes.iter().chain([&body]) {
        for (p, (js, ws)) in positions.iter().zip(skin) {
            for (&j, &w) in js.iter().zip(ws) {
                if w > 0.0 {
                    let o = joints.world[j as usize].w_axis.truncate();
                    own[j as usize] = own[j as usize].max(p.distance(o));
                }
            }
        }
    }
    own
}

/// Per joint, its reach over the clip: the farthest a descendant joint (itself included)
/// gets from it, plus that joint's own radius.
fn reaches(joints: &Joints, world: &[Mat4], own: &[f32]) -> Vec<f32> {
    let nj = joints.world.len();
    let mut reach = vec![0f32; nj];
    for frame in world.chunks_exact(nj) {
        for i in 0..nj {
            let oi = frame[i].w_axis.truncate();
            let mut k = Some(i as u32);
            while let Some(a) = k {
                let a = a as usize;
                let d = frame[a].w_axis.truncate().distance(oi) + own[i];
                reach[a] = reach[a].max(d);
                k = joints.parent[a];
            }
        }
    }
    reach
}

/// The most joints on a chain from a root.
fn depth(joints: &Joints) -> usize {
    let mut depth = vec![0usize; joints.parent.len()];
    for j in 0..depth.len() {
        depth[j] = joints.parent[j].map_or(1, |p| depth[p as usize] + 1);
    }
    depth.into_iter().max().unwrap_or(1)
}

/// Joint `j`'s local transform at every frame (rotations on one hemisphere from frame to
/// frame), reduced to the keys the rule keeps.
fn joint_keys(
    joints: &Joints,
    world: &[Mat4],
    j: usize,
    reach: f32,
    tolerance: f32,
    hz: f64,
) -> JointKeys {
    let nj = joints.world.len();
    let frames = world.len() / nj;
    let mut t = Vec::with_capacity(frames);
    let mut r: Vec<Quat> = Vec::with_capacity(frames);
    for frame in world.chunks_exact(nj) {
        let local = match joints.parent[j] {
            Some(p) => affine_inverse(frame[p as usize]) * frame[j],
            None => frame[j],
        };
        let (_, mut q, tr) = local.to_scale_rotation_translation();
        q = q.normalize();
        if r.last().is_some_and(|prev| prev.dot(q) < 0.0) {
            q = -q;
        }
        t.push(tr);
        r.push(q);
    }
    let kept = reduce(&t, &r, reach, tolerance);
    JointKeys {
        times: kept.iter().map(|&f| (f as f64 / hz) as f32).collect(),
        translations: kept.iter().map(|&f| t[f]).collect(),
        rotations: kept.iter().map(|&f| r[f]).collect(),
    }
}

/// The longest run of frames one pair of keys may span.
const MAX_SPAN: usize = 240;

/// The frames kept as keys: the first, the last, and greedily the farthest frame from the
/// last key kept such that every frame between them is within `tolerance` of the
/// interpolation ([`key_error`]) and the two keys' rotations lie on one hemisphere.
fn reduce(t: &[Vec3], r: &[Quat], reach: f32, tolerance: f32) -> Vec<usize> {
    let n = t.len();
    let mut kept = vec![0];
    let mut a = 0;
    let fits = |a: usize, b: usize| {
        r[a].dot(r[b]) >= 0.0
            && (a + 1..b).all(|i| {
                let s = (i - a) as f32 / (b - a) as f32;
                let (ti, ri) = interpolate(t[a], r[a], t[b], r[b], s);
                key_error(ti, ri, t[i], r[i], reach) <= tolerance
            })
    };
    while a + 1 < n {
        let mut b = a + 1;
        while b + 1 < n && b + 1 - a <= MAX_SPAN && fits(a, b + 1) {
            b += 1;
        }
        kept.push(b);
        a = b;
    }
    kept
}

/// glTF's LINEAR: the translation lerped, the rotation slerped (keys on one hemisphere).
fn interpolate(ta: Vec3, ra: Quat, tb: Vec3, rb: Quat, s: f32) -> (Vec3, Quat) {
    (ta.lerp(tb, s), ra.slerp(rb, s).normalize())
}

/// How far a local transform `(t, r)` moves a point within `reach` of the joint from where
/// `(t0, r0)` puts it, at most: the translations' distance plus the rotations' chord.
fn key_error(t: Vec3, r: Quat, t0: Vec3, r0: Quat, reach: f32) -> f32 {
    let d = r0.conjugate() * r;
    let chord = 2.0 * Vec3::new(d.x, d.y, d.z).length() * reach;
    t.distance(t0) + chord
}

/// The inverse of a rigid (or affine) matrix.
fn affine_inverse(m: Mat4) -> Mat4 {
    Mat4::from(glam::Affine3A::from_mat4(m).inverse())
}

/// Every joint's world matrix at every frame as the file plays it: the keys sampled at the
/// frame's time and composed down the hierarchy.
fn play(joints: &Joints, keys: &[JointKeys], frames: usize, hz: f64) -> Vec<Mat4> {
    let nj = keys.len();
    let mut world = vec![Mat4::IDENTITY; frames * nj];
    for (j, k) in keys.iter().enumerate() {
        let mut seg = 0;
        for f in 0..frames {
            let time = (f as f64 / hz) as f32;
            while seg + 1 < k.times.len() - 1 && k.times[seg + 1] <= time {
                seg += 1;
            }
            let (t, r) = if k.times.len() == 1 {
                (k.translations[0], k.rotations[0])
            } else {
                let (a, b) = (k.times[seg], k.times[seg + 1]);
                let s = ((time - a) / (b - a)).clamp(0.0, 1.0);
                let (ta, ra) = (k.translations[seg], k.rotations[seg]);
                interpolate(ta, ra, k.translations[seg + 1], k.rotations[seg + 1], s)
            };
            world[f * nj + j] = Mat4::from_rotation_translation(r, t);
        }
    }
    for frame in world.chunks_exact_mut(nj) {
        for j in 0..nj {
            if let Some(p) = joints.parent[j] {
                frame[j] = frame[p as usize] * frame[j];
            }
        }
    }
    world
}

/// Largest and RMS distance, millimetres, of the garment skinned by the file's formula on
/// `played` from `drawn` (the live scene's, frame after frame).
fn deviation(
    joints: &Joints,
    played: &[Mat4],
    skin: &[Influences],
    rest: &[Vec3],
    drawn: &[Vec3],
) -> (f64, f64) {
    let nj = joints.world.len();
    let ibm = joints.inverse_binds();
    let mut joint_skin = vec![Mat4::IDENTITY; nj];
    let (mut max, mut sum_sq) = (0f64, 0f64);
    for (frame, drawn) in played.chunks_exact(nj).zip(drawn.chunks_exact(rest.len())) {
        for ((m, w), b) in joint_skin.iter_mut().zip(frame).zip(&ibm) {
            *m = *w * *b;
        }
        for ((p, (js, ws)), d) in rest.iter().zip(skin).zip(drawn) {
            let mut m = Mat4::ZERO;
            for (&j, &w) in js.iter().zip(ws) {
                if w != 0.0 {
                    m += joint_skin[j as usize] * w;
                }
            }
            let e = m.transform_point3(*p).distance(*d) as f64;
            max = max.max(e);
            sum_sq += e * e;
        }
    }
    let count = (drawn.len()).max(1) as f64;
    (max * 1e3, (sum_sq / count).sqrt() * 1e3)
}
