//! The built-in clips on another character, through the roles, so every fabric can be judged
//! on the same moves on any body.
//!
//! Per role bone, the built-in bone's turn from its rest orientation (in character space) is
//! applied to the target bone's rest orientation, after a limb is first aimed along the
//! built-in limb's rest direction (so a T-posed arm follows an A-posed one). Bones without a
//! role keep their rest pose relative to their parent. The pelvis moves by the built-in
//! pelvis's offset from rest and the root motion travels, both scaled by the ratio of hip
//! heights (a shorter leg takes shorter strides).

use glam::{Quat, Vec3};

use super::clip::{BoneTrack, Clip, Track};
use super::import::SAMPLE_RATE;
use super::roles::{Role, Roles};
use super::{is_cloth_bone, Character, Skeleton};
use crate::sim::Frame;

/// The roles whose rotations carry over, with the role their rest direction points to.
const CARRIED: [(Role, Option<Role>); 15] = [
    (Role::Pelvis, None),
    (Role::Spine, None),
    (Role::Chest, None),
    (Role::Neck, None),
    (Role::Head, None),
    (Role::UpperarmL, Some(Role::ForearmL)),
    (Role::UpperarmR, Some(Role::ForearmR)),
    (Role::ForearmL, Some(Role::HandL)),
    (Role::ForearmR, Some(Role::HandR)),
    (Role::HandL, None),
    (Role::HandR, None),
    (Role::ThighL, Some(Role::ShinL)),
    (Role::ThighR, Some(Role::ShinR)),
    (Role::ShinL, None),
    (Role::ShinR, None),
];

/// Rest model frames of a skeleton.
fn rest_model(skeleton: &Skeleton) -> Vec<Frame> {
    let mut out = Vec::new();
    skeleton
        .rest_pose()
        .compute_model_frames(skeleton, &mut out);
    out
}

fn hip_height(model: &[Frame], roles: &Roles) -> f32 {
    (model[roles.bone(Role::ThighL)].translation.y + model[roles.bone(Role::ThighR)].translation.y)
        * 0.5
}

/// Every clip of `source` played on `target` (skeleton and roles), by the same names.
pub(crate) fn retarget_clips(
    source: &Character,
    target: &Skeleton,
    roles: &Roles,
) -> Result<Vec<Clip>, String> {
    let s0 = rest_model(&source.skeleton);
    let t0 = rest_model(target);
    let scale = hip_height(&t0, roles) / hip_height(&s0, &source.roles).max(1e-3);
    // Per target bone: the built-in bone it follows and the target's aimed rest orientation.
    let mut follows: Vec<Option<(usize, Quat)>> = vec![None; target.len()];
    for (role, aim) in CARRIED {
        let (sb, tb) = (source.roles.bone(role), roles.bone(role));
        let align = aim.map_or(Quat::IDENTITY, |a| {
            let dir = |m: &[Frame], r: &Roles, b: usize| {
                (m[r.bone(a)].translation - m[b].translation).normalize_or(Vec3::NEG_Y)
            };
            Quat::from_rotation_arc(dir(&t0, roles, tb), dir(&s0, &source.roles, sb))
        });
        follows[tb] = Some((sb, (align * t0[tb].rotation).normalize()));
    }
    let rest: Vec<Frame> = target.bones().iter().map(|b| b.rest).collect();
    // The bones a rigged garment adds (its drivers and cloth bones) keep their rest transform
    // with no track, exactly, as the garment runtime places them under an engine's pose of
    // the body (`Skeleton::complete_model`). Every other bone keeps its track, even one that
    // does not move, so that the clips of other characters stay as they were to the bit.
    let moves: Vec<bool> = target
        .bones()
        .iter()
        .enumerate()
        .map(|(b, bone)| follows[b].is_some() || !is_cloth_bone(&bone.name))
        .collect();
    source
        .clips
        .iter()
        .map(|clip| {
            let frames = sample(source, clip, target, &s0, &follows, roles, scale);
            to_clip(clip.name.clone(), clip, frames, target, &rest, &moves)
        })
        .collect()
}

/// Per sample: the root motion, then every target bone's model frame.
fn sample(
    source: &Character,
    clip: &Clip,
    target: &Skeleton,
    s0: &[Frame],
    follows: &[Option<(usize, Quat)>],
    roles: &Roles,
    scale: f32,
) -> Vec<(f32, Vec<Frame>)> {
    let count = (clip.duration * SAMPLE_RATE).ceil().max(1.0) as usize;
    let pelvis = roles.bone(Role::Pelvis);
    let source_pelvis = source.roles.bone(Role::Pelvis);
    let mut pose = source.skeleton.rest_pose();
    let mut s = Vec::new();
    (0..=count)
        .map(|k| {
            let t = (k as f32 / SAMPLE_RATE).min(clip.duration);
            let mut root = clip.sample(t, &mut pose);
            root.translation *= scale;
            pose.compute_model_frames(&source.skeleton, &mut s);
            let mut model: Vec<Frame> = Vec::with_capacity(target.len());
            model.push(Frame::IDENTITY);
            for (b, bone) in target.bones().iter().enumerate().skip(1) {
                let parent = model[bone.parent.unwrap_or(0)];
                let mut m = parent.mul(&bone.rest);
                if let Some((sb, aimed)) = follows[b] {
                    let turn = s[sb].rotation * s0[sb].rotation.inverse();
                    m.rotation = (turn * aimed).normalize();
                }
                if b == pelvis {
                    let lift = s[source_pelvis].translation - s0[source_pelvis].translation;
                    m.translation = parent.mul(&bone.rest).translation + lift * scale;
                }
                model.push(m);
            }
            model[0] = root;
            (t, model)
        })
        .collect()
}

/// Samples as a clip: root motion on the root, the local frame of every bone that `moves`
/// as tracks (the others sit at their rest transform, exactly, as a pose with no track
/// places them).
fn to_clip(
    name: String,
    source: &Clip,
    frames: Vec<(f32, Vec<Frame>)>,
    target: &Skeleton,
    rest: &[Frame],
    moves: &[bool],
) -> Result<Clip, String> {
    let times: Vec<f32> = frames.iter().map(|f| f.0).collect();
    let mut tracks = Vec::with_capacity(target.len());
    for (b, bone) in target.bones().iter().enumerate().skip(1) {
        if !moves[b] {
            continue;
        }
        let p = bone.parent.unwrap_or(0);
        // Bone 0's entry holds the root motion; its children are placed in character space.
        let local: Vec<Frame> = frames
            .iter()
            .map(|(_, m)| {
                let parent = if p == 0 { Frame::IDENTITY } else { m[p] };
                parent.inverse().mul(&m[b])
            })
            .collect();
        tracks.push(BoneTrack {
            bone: b,
            translation: Some(Track::new(
                times.clone(),
                local.iter().map(|f| f.translation).collect(),
            )?),
            rotation: Some(Track::new(
                times.clone(),
                local.iter().map(|f| f.rotation).collect(),
            )?),
        });
    }
    let root_t = Track::new(
        times.clone(),
        frames.iter().map(|f| f.1[0].translation).collect(),
    )?;
    let root_r = Track::new(times, frames.iter().map(|f| f.1[0].rotation).collect())?;
    Clip::new(
        name,
        source.looping,
        rest.to_vec(),
        Some(root_t),
        Some(root_r),
        tracks,
    )
}
