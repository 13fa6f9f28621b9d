//! The built-in clips: rigid bones, clean loops, pure sampling, plausible root motion.
#![cfg(feature = "rig")]

use cloth_tuner::character::{Character, Clip, Pose};
use cloth_tuner::sim::Frame;
use glam::{Mat4, Quat, Vec3};

fn ch() -> Character {
    Character::builtin()
}

fn joint_positions(ch: &Character, pose: &Pose, out: &mut Vec<Mat4>) -> Vec<Vec3> {
    pose.compute_model(&ch.skeleton, out);
    out.iter().map(|m| m.transform_point3(Vec3::ZERO)).collect()
}

fn pose_distance(a: &Pose, b: &Pose) -> (f32, f32) {
    let mut dt: f32 = 0.0;
    let mut dr: f32 = 0.0;
    for (x, y) in a.local.iter().zip(b.local.iter()) {
        dt = dt.max((x.translation - y.translation).length());
        dr = dr.max(x.rotation.angle_between(y.rotation));
    }
    (dt, dr)
}

#[test]
fn bone_lengths_are_preserved_in_every_clip() {
    let ch = ch();
    let mut model = Vec::new();
    let rest = joint_positions(&ch, &ch.skeleton.rest_pose(), &mut model);
    let mut pose = ch.skeleton.rest_pose();
    for clip in &ch.clips {
        for i in 0..=200 {
            let t = clip.duration * i as f32 / 200.0;
            clip.sample(t, &mut pose);
            let p = joint_positions(&ch, &pose, &mut model);
            for (b, bone) in ch.skeleton.bones().iter().enumerate() {
                // The pelvis is the one bone that translates (relative to the root).
                let Some(parent) = bone.parent.filter(|&p| p != 0) else {
                    continue;
                };
                let rest_len = (rest[b] - rest[parent]).length();
                let len = (p[b] - p[parent]).length();
                assert!(
                    (len - rest_len).abs() < 1e-4,
                    "{} t={t}: {} length {len} vs rest {rest_len}",
                    clip.name,
                    bone.name
                );
            }
        }
    }
}

#[test]
fn looping_clips_close_and_accumulate_root_motion() {
    let ch = ch();
    // Every clip loops but the one that ends standing.
    for clip in &ch.clips {
        assert_eq!(
            clip.looping,
            clip.name != "sprint_stop",
            "{}: looping flag",
            clip.name
        );
    }
    let looping: Vec<&Clip> = ch.clips.iter().filter(|c| c.looping).collect();
    let (mut a, mut b) = (ch.skeleton.rest_pose(), ch.skeleton.rest_pose());
    for clip in looping {
        // The last key equals the first one: every track.
        for track in clip.tracks() {
            if let Some(r) = &track.rotation {
                let v = r.values();
                assert!(
                    v[0].angle_between(v[v.len() - 1]) < 1e-6,
                    "{} bone {}",
                    clip.name,
                    track.bone
                );
            }
            if let Some(tr) = &track.translation {
                let v = tr.values();
                assert!((v[0] - v[v.len() - 1]).length() < 1e-6, "{}", clip.name);
            }
        }
        // Continuity across the loop boundary: just before vs just after.
        let eps = 1e-3;
        let fa = clip.sample(clip.duration - eps, &mut a);
        let fb = clip.sample(clip.duration + eps, &mut b);
        let (dt, dr) = pose_distance(&a, &b);
        assert!(
            dt < 0.01 && dr < 0.05,
            "{}: jump at loop {dt} m {dr} rad",
            clip.name
        );
        assert!(
            (fa.translation - fb.translation).length() < 0.02,
            "{} root jumps",
            clip.name
        );
        // Root motion accumulates per loop.
        let per = clip.root_motion_per_loop();
        let f1 = clip.sample(0.3, &mut a);
        let f2 = clip.sample(0.3 + 2.0 * clip.duration, &mut b);
        let expect = per.mul(&per).mul(&f1);
        assert!(
            (expect.translation - f2.translation).length() < 1e-3,
            "{}",
            clip.name
        );
        assert!(
            expect.rotation.angle_between(f2.rotation) < 1e-3,
            "{}",
            clip.name
        );
        assert!(pose_distance(&a, &b).1 < 1e-4, "{}", clip.name);
    }
}

#[test]
fn sampling_is_deterministic_and_pure() {
    let ch = ch();
    for clip in &ch.clips {
        let (mut a, mut b) = (ch.skeleton.rest_pose(), ch.skeleton.rest_pose());
        let fa = clip.sample(0.37, &mut a);
        // Sample elsewhere with the same buffer, then come back.
        clip.sample(1.91, &mut b);
        clip.sample(-3.0, &mut b);
        let fb = clip.sample(0.37, &mut b);
        assert_eq!(a, b, "{}", clip.name);
        assert_eq!(fa, fb, "{}", clip.name);
        // A reused buffer with garbage in it gives the same answer as a fresh one.
        let mut c = ch.skeleton.rest_pose();
        for f in c.local.iter_mut() {
            *f = Frame::new(Quat::from_rotation_x(1.0), Vec3::splat(9.0));
        }
        let fc = clip.sample(0.37, &mut c);
        assert_eq!(a, c);
        assert_eq!(fa, fc);
        assert_eq!(a.local[0], Frame::IDENTITY, "root local is the identity");
    }
}

#[test]
fn root_motion_is_finite_and_walk_and_run_travel_forward() {
    let ch = ch();
    let mut pose = ch.skeleton.rest_pose();
    for clip in &ch.clips {
        for i in 0..=300 {
            let t = -clip.duration + 3.0 * clip.duration * i as f32 / 300.0;
            let f = clip.sample(t, &mut pose);
            assert!(f.is_finite(), "{} t={t}", clip.name);
            assert!(
                f.translation.y.abs() < 1e-4,
                "{}: the root stays on the ground",
                clip.name
            );
        }
    }
    for (name, speed) in [("walk", 1.4), ("run", 3.5)] {
        let clip = ch.clip(name).unwrap();
        let per = clip.root_motion_per_loop();
        let v = per.translation / clip.duration;
        assert!((v.z - speed).abs() < 0.1, "{name} speed {v}");
        assert!(v.x.abs() < 1e-3 && per.rotation.angle_between(Quat::IDENTITY) < 1e-4);
        // Forward at every instant, not only on average.
        let mut last = clip.sample(0.0, &mut pose).translation.z;
        for i in 1..=60 {
            let z = clip
                .sample(i as f32 * clip.duration / 60.0, &mut pose)
                .translation
                .z;
            assert!(z > last, "{name} moves forward");
            last = z;
        }
    }
}

#[test]
fn turn_dodge_and_sprint_stop_move_as_described() {
    let ch = ch();
    let mut pose = ch.skeleton.rest_pose();
    // Turn: half a turn to the left per loop, in place.
    let turn = ch.clip("turn").unwrap();
    let per = turn.root_motion_per_loop();
    assert!(per.translation.length() < 1e-4);
    let fwd = per.rotation * Vec3::Z;
    assert!(
        (fwd - Vec3::NEG_Z).length() < 1e-3,
        "turn ends facing back: {fwd}"
    );
    // Dodge: a fast sidestep (peak lateral speed above 4 m/s) that comes back.
    let dodge = ch.clip("dodge").unwrap();
    let dt = 1.0 / 240.0;
    let mut peak: f32 = 0.0;
    let mut max_x: f32 = 0.0;
    for i in 0..(dodge.duration / dt) as usize {
        let t = i as f32 * dt;
        let a = dodge.sample(t, &mut pose).translation;
        let b = dodge.sample(t + dt, &mut pose).translation;
        peak = peak.max(((b - a) / dt).x.abs());
        max_x = max_x.max(a.x);
    }
    assert!(peak > 4.0, "dodge peak speed {peak}");
    assert!(max_x > 0.8, "dodge distance {max_x}");
    assert!(dodge.root_motion_per_loop().translation.length() < 1e-4);
    // Sprint stop: fast, then stopped within 0.6 s, then holds.
    let stop = ch.clip("sprint_stop").unwrap();
    assert!(!stop.looping);
    let speed = |t: f32, pose: &mut Pose| {
        let a = stop.sample(t, pose).translation;
        let b = stop.sample(t + 0.01, pose).translation;
        (b - a).length() / 0.01
    };
    assert!(speed(0.5, &mut pose) > 5.0);
    let braking_starts = (0..300)
        .map(|i| i as f32 * 0.01)
        .find(|&t| speed(t, &mut pose) < 5.0)
        .unwrap();
    let stopped = (0..400)
        .map(|i| i as f32 * 0.01)
        .find(|&t| speed(t, &mut pose) < 0.01)
        .unwrap();
    assert!(
        stopped - braking_starts < 0.6,
        "stops in {}",
        stopped - braking_starts
    );
    let mut end = ch.skeleton.rest_pose();
    let f_end = stop.sample(stop.duration, &mut end);
    let f_later = stop.sample(stop.duration + 10.0, &mut pose);
    assert_eq!(f_end, f_later);
    assert_eq!(end, pose);
}

/// In the world, a planted foot stays put: during each flat-foot contact of walk and run,
/// the ankle moves less than 2 cm horizontally.
#[test]
fn planted_feet_do_not_slide() {
    let ch = ch();
    let mut pose = ch.skeleton.rest_pose();
    let mut model = Vec::new();
    for name in ["walk", "run", "idle", "turn"] {
        let clip = ch.clip(name).unwrap();
        for foot in ["foot_l", "foot_r"] {
            let fi = ch.skeleton.find(foot).unwrap();
            let mut contact: Vec<Vec3> = Vec::new();
            let mut worst: f32 = 0.0;
            let mut seen = 0;
            let n = 480;
            for i in 0..=n {
                let t = 2.0 * clip.duration * i as f32 / n as f32;
                let root = clip.sample(t, &mut pose);
                pose.compute_model(&ch.skeleton, &mut model);
                let (_, rot, pos) = model[fi].to_scale_rotation_translation();
                let world = root.transform_point(pos);
                let flat = (rot * Vec3::Y).y > 0.999;
                if world.y < 0.0855 && flat {
                    seen += 1;
                    contact.push(world);
                } else if !contact.is_empty() {
                    let first = contact[0];
                    for p in &contact {
                        worst = worst.max(((*p - first) * Vec3::new(1.0, 0.0, 1.0)).length());
                    }
                    contact.clear();
                }
            }
            assert!(seen > 20, "{name} {foot}: only {seen} planted samples");
            assert!(worst < 0.02, "{name} {foot} slides {worst} m");
        }
    }
}

#[test]
fn a_pose_completed_from_some_bones_places_the_others_as_a_pose_with_no_track() {
    // An engine gives the body and the runtime hangs the rest (Skeleton::complete_model): the
    // bones given keep the caller's matrices, the others land where a pose leaving them at
    // rest puts them, to the bit.
    let ch = ch();
    let sk = &ch.skeleton;
    let mut pose = sk.rest_pose();
    ch.clip("walk").unwrap().sample(0.4, &mut pose);
    let mut walked = Vec::new();
    pose.compute_model(sk, &mut walked);
    // The arms and everything below them left to the completion: their local transforms at
    // rest.
    let mut left_out: Vec<bool> = Vec::new();
    for b in sk.bones() {
        let below = b.parent.is_some_and(|p| left_out[p]);
        left_out.push(below || b.name.contains("arm"));
    }
    assert!(left_out.iter().any(|&x| x));
    for (i, out) in left_out.iter().enumerate() {
        if *out {
            pose.local[i] = sk.bones()[i].rest;
        }
    }
    let mut expected = Vec::new();
    pose.compute_model(sk, &mut expected);
    let given: Vec<bool> = left_out.iter().map(|x| !x).collect();
    let mut model: Vec<Mat4> = walked
        .iter()
        .zip(&given)
        .map(|(m, &g)| if g { *m } else { Mat4::ZERO })
        .collect();
    sk.complete_model(&given, &mut model);
    for (i, (a, b)) in model.iter().zip(&expected).enumerate() {
        let same = a
            .to_cols_array()
            .iter()
            .zip(b.to_cols_array())
            .all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same, "bone {} `{}`: {a} vs {b}", i, sk.bones()[i].name);
    }
}
