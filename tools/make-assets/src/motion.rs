//! The animation clips, authored procedurally: per clip, a function of time gives the root's
//! world frame, the pelvis and spine, hand targets and foot placements; a small solver (two-
//! bone IK for arms and legs, foot roll about heel and ball) turns that into local rotations,
//! which are then baked at about 30 keys per second.

// `side` (0 = left, 1 = right) indexes several parallel two-element arrays at once.
#![allow(clippy::needless_range_loop)]

use glam::{Quat, Vec3};

use crate::body::{self, b, side_sign, BoneDef};
use crate::dmath::{self, curve, deg, rx, ry, rz, smootherstep, smoothstep};
use crate::frame::Frame;

/// Keys per second of the baked clips (each clip's key spacing is adjusted so a whole number
/// of intervals spans its duration).
pub const KEY_RATE: f64 = 30.0;

/// A baked clip: per key, the root's world frame, the pelvis translation and every bone's
/// local rotation (index 0, the root, unused).
pub struct BakedClip {
    pub name: &'static str,
    pub looping: bool,
    pub times: Vec<f32>,
    pub root: Vec<Frame>,
    pub pelvis: Vec<Vec3>,
    pub rotations: Vec<[Quat; b::COUNT]>,
}

/// What a clip specifies at one instant.
#[derive(Clone, Copy)]
struct Spec {
    /// The root's world frame (root motion).
    root: Frame,
    /// Pelvis position and rotation in character space.
    pelvis_pos: Vec3,
    pelvis_rot: Quat,
    /// Local rotations.
    spine: Quat,
    chest: Quat,
    /// Head orientation wanted in character space (neck and head share the rotation).
    head_look: Quat,
    clavicle: [Quat; 2],
    /// Hand targets (wrist positions) in the chest's rest space: they move with the chest.
    hand: [Vec3; 2],
    /// Where the elbows point, chest rest space.
    elbow_pole: [Vec3; 2],
    /// Wrist rotation (hand relative to forearm) and forearm roll, radians.
    wrist: [Quat; 2],
    hand_roll: [f32; 2],
    /// Feet in the world: ankle position and foot rotation.
    foot: [(Vec3, Quat); 2],
}

/// Rest hand (wrist) position with the arms hanging relaxed, chest rest space.
fn hand_rest(side: usize) -> Vec3 {
    let s = side_sign(side);
    Vec3::new(0.245 * s, 0.915, 0.04)
}

fn shoulder_rest(side: usize) -> Vec3 {
    Vec3::new(0.185 * side_sign(side), 1.445, -0.01)
}

/// A hand swinging like a pendulum from the shoulder: `angle` forward (rad), `reach` (m).
fn swing_hand(side: usize, angle: f64, reach: f32, out: f32) -> Vec3 {
    let s = side_sign(side);
    shoulder_rest(side)
        + Vec3::new(
            out * s,
            -reach * dmath::cos(angle) as f32,
            reach * dmath::sin(angle) as f32,
        )
}

impl Spec {
    fn standing(root: Frame) -> Self {
        let feet = [0, 1].map(|side| {
            let p = root.transform_point(Vec3::new(0.11 * side_sign(side), ANKLE_H, 0.0));
            (p, root.rotation)
        });
        Spec {
            root,
            pelvis_pos: Vec3::new(0.0, 0.995, 0.0),
            pelvis_rot: Quat::IDENTITY,
            spine: Quat::IDENTITY,
            chest: Quat::IDENTITY,
            head_look: Quat::IDENTITY,
            clavicle: [Quat::IDENTITY; 2],
            hand: [hand_rest(0), hand_rest(1)],
            elbow_pole: [Vec3::new(0.0, -0.2, -1.0); 2],
            wrist: [Quat::IDENTITY; 2],
            hand_roll: [0.0; 2],
            foot: feet,
        }
    }
}

/// Ankle height above the ground with the foot flat.
const ANKLE_H: f32 = 0.085;
/// Heel and ball contact points relative to the ankle (foot space).
const HEEL: Vec3 = Vec3::new(0.0, -ANKLE_H, -0.06);
const BALL: Vec3 = Vec3::new(0.0, -ANKLE_H, 0.11);

/// A foot placement: planted from `strike` to `lift` at `place` (flat-foot ankle position,
/// world) with rotation `heading` about +Y; it lands with the toes up by `pitch_strike` (negative: toes
/// first) and rolls onto the ball up to `pitch_off` over the last `heel_time` seconds.
#[derive(Clone, Copy)]
struct Step {
    strike: f64,
    lift: f64,
    place: Vec3,
    heading: Quat,
    pitch_strike: f64,
    pitch_off: f64,
    heel_time: f64,
}

/// Ankle position and foot rotation for a placement rolled by `pitch` (toes up positive)
/// about the heel or the ball, so the contact point stays put.
fn rolled(place: Vec3, heading: Quat, pitch: f64) -> (Vec3, Quat) {
    let rot = heading * rx(-pitch);
    let pivot = if pitch >= 0.0 { HEEL } else { BALL };
    (place + heading * pivot - rot * pivot, rot)
}

const FLAT_TIME: f64 = 0.12;

/// The foot's world pose at `t` from its (time-ordered) steps; `height` is the swing's lift
/// and `early` shifts the highest point of the swing earlier (0 = mid-swing).
fn foot_at(steps: &[Step], t: f64, height: f64, early: f64) -> (Vec3, Quat) {
    let i = steps.partition_point(|s| s.strike <= t);
    if i == 0 {
        let s = steps[0];
        return rolled(s.place, s.heading, 0.0);
    }
    let s = steps[i - 1];
    if t <= s.lift || i >= steps.len() {
        let settle = s.pitch_strike * (1.0 - smoothstep((t - s.strike) / FLAT_TIME));
        let roll = if s.heel_time > 0.0 {
            let u = ((t - (s.lift - s.heel_time)) / s.heel_time).clamp(0.0, 1.0);
            s.pitch_off * u * u
        } else {
            0.0
        };
        return rolled(s.place, s.heading, settle - roll);
    }
    let n = steps[i];
    let w = ((t - s.lift) / (n.strike - s.lift)).clamp(0.0, 1.0);
    let e = smoothstep(w);
    let (a0, _) = rolled(s.place, s.heading, -s.pitch_off);
    let (a1, _) = rolled(n.place, n.heading, n.pitch_strike);
    let warped = w + early * w * (1.0 - w) * 2.0;
    let lift = height * dmath::sin(std::f64::consts::PI * warped.clamp(0.0, 1.0));
    let mut ankle = a0.lerp(a1, e as f32);
    ankle.y += lift as f32;
    // Pitch: from the toe-off angle through a slight toes-up in mid-swing to the landing.
    let pitch = curve(
        &[(0.0, -s.pitch_off), (0.5, 0.15), (1.0, n.pitch_strike)],
        w,
    );
    let heading = dmath::nlerp(s.heading, n.heading, e as f32);
    (ankle, heading * rx(-pitch))
}

/// Two-bone IK: shoulder/hip `s`, target `t`, lengths, and the direction the middle joint
/// should point. Returns the middle joint and the (reachable) end position.
fn two_bone(s: Vec3, t: Vec3, l1: f32, l2: f32, pole: Vec3) -> (Vec3, Vec3) {
    let v = t - s;
    let len = v.length().max(1e-6);
    let dir = v / len;
    let d = len.clamp((l1 - l2).abs() + 1e-3, (l1 + l2) * 0.9995);
    let a = (l1 * l1 - l2 * l2 + d * d) / (2.0 * d);
    let h = (l1 * l1 - a * a).max(0.0).sqrt();
    let mut pp = pole - dir * pole.dot(dir);
    if pp.length_squared() < 1e-10 {
        pp = dir.any_orthonormal_vector();
    }
    let pp = pp.normalize();
    (s + dir * a + pp * h, s + dir * d)
}

/// The rig geometry the solver needs.
struct Rig {
    parent: Vec<usize>,
    offset: Vec<Vec3>,
    rest: Vec<Vec3>,
}

impl Rig {
    fn new(bones: &[BoneDef]) -> Self {
        let parent: Vec<usize> = bones.iter().map(|d| d.parent.unwrap_or(0)).collect();
        let offset = bones
            .iter()
            .map(|d| d.pos - d.parent.map_or(Vec3::ZERO, |p| bones[p].pos))
            .collect();
        let rest = bones.iter().map(|d| d.pos).collect();
        Self {
            parent,
            offset,
            rest,
        }
    }

    /// Local rotations (and the pelvis translation) for a spec.
    fn solve(&self, spec: &Spec) -> ([Quat; b::COUNT], Vec3) {
        let mut rot = [Quat::IDENTITY; b::COUNT];
        let mut mrot = [Quat::IDENTITY; b::COUNT];
        let mut mpos = [Vec3::ZERO; b::COUNT];
        let fk = |i: usize,
                  rot: &[Quat; b::COUNT],
                  mrot: &mut [Quat; b::COUNT],
                  mpos: &mut [Vec3; b::COUNT]| {
            let p = self.parent[i];
            mrot[i] = (mrot[p] * rot[i]).normalize();
            mpos[i] = mpos[p] + mrot[p] * self.offset[i];
        };
        rot[b::PELVIS] = spec.pelvis_rot;
        mrot[b::PELVIS] = spec.pelvis_rot;
        mpos[b::PELVIS] = spec.pelvis_pos;
        rot[b::SPINE] = spec.spine;
        fk(b::SPINE, &rot, &mut mrot, &mut mpos);
        rot[b::CHEST] = spec.chest;
        fk(b::CHEST, &rot, &mut mrot, &mut mpos);
        let neck_total = mrot[b::CHEST].inverse() * spec.head_look;
        let h = dmath::half(neck_total);
        rot[b::NECK] = h;
        fk(b::NECK, &rot, &mut mrot, &mut mpos);
        rot[b::HEAD] = h;
        fk(b::HEAD, &rot, &mut mrot, &mut mpos);

        // Arms, with targets carried by the chest.
        let chest_now = Frame::new(mrot[b::CHEST], mpos[b::CHEST]);
        let chest_rest = Frame::new(Quat::IDENTITY, self.rest[b::CHEST]);
        let carry = chest_now.mul(&chest_rest.inverse());
        for side in 0..2 {
            let (cl, ua, ut, fa, ft, ha) = (
                b::clavicle(side),
                b::upperarm(side),
                b::upperarm_twist(side),
                b::forearm(side),
                b::forearm_twist(side),
                b::hand(side),
            );
            rot[cl] = spec.clavicle[side];
            fk(cl, &rot, &mut mrot, &mut mpos);
            let shoulder = mpos[cl] + mrot[cl] * self.offset[ua];
            let target = carry.transform_point(spec.hand[side]);
            let pole = carry.rotation * spec.elbow_pole[side];
            let (elbow, wrist) = two_bone(
                shoulder,
                target,
                body::UPPERARM_LEN,
                body::FOREARM_LEN,
                pole,
            );
            let rest_dir = body::arm_dir(side);
            let rest_pole = Vec3::NEG_Z;
            let upper_m = dmath::basis_rotation(rest_dir, rest_pole, elbow - shoulder, pole);
            rot[ua] = (mrot[cl].inverse() * upper_m).normalize();
            fk(ua, &rot, &mut mrot, &mut mpos);
            let fore_m = dmath::basis_rotation(rest_dir, rest_pole, wrist - elbow, pole);
            rot[fa] = (mrot[ua].inverse() * fore_m).normalize();
            fk(fa, &rot, &mut mrot, &mut mpos);
            let roll = spec.hand_roll[side] as f64;
            rot[ft] = dmath::axis_angle(rest_dir, 0.5 * roll);
            rot[ha] = (dmath::axis_angle(rest_dir, roll) * spec.wrist[side]).normalize();
            // The upper-arm twist bone undoes half of the upper arm's twist about its axis.
            let q = rot[ua];
            let axis_part = rest_dir * Vec3::new(q.x, q.y, q.z).dot(rest_dir);
            let twist = Quat::from_xyzw(axis_part.x, axis_part.y, axis_part.z, q.w);
            rot[ut] = if twist.length_squared() > 1e-12 {
                dmath::half(twist.normalize()).inverse()
            } else {
                Quat::IDENTITY
            };
        }

        // Legs reach the feet.
        let to_char = spec.root.inverse();
        for side in 0..2 {
            let (th, ca, fo) = (b::thigh(side), b::calf(side), b::foot(side));
            let hip = mpos[b::PELVIS] + mrot[b::PELVIS] * self.offset[th];
            let ankle = to_char.transform_point(spec.foot[side].0);
            let foot_rot = (to_char.rotation * spec.foot[side].1).normalize();
            let fwd = foot_rot * Vec3::Z + mrot[b::PELVIS] * Vec3::Z;
            let pole = fwd.normalize() + Vec3::X * (0.15 * side_sign(side));
            let (knee, reach) = two_bone(hip, ankle, body::THIGH_LEN, body::CALF_LEN, pole);
            let thigh_m = dmath::basis_rotation(Vec3::NEG_Y, Vec3::Z, knee - hip, pole);
            rot[th] = (mrot[b::PELVIS].inverse() * thigh_m).normalize();
            fk(th, &rot, &mut mrot, &mut mpos);
            let calf_m = dmath::basis_rotation(Vec3::NEG_Y, Vec3::Z, reach - knee, pole);
            rot[ca] = (mrot[th].inverse() * calf_m).normalize();
            fk(ca, &rot, &mut mrot, &mut mpos);
            rot[fo] = (mrot[ca].inverse() * foot_rot).normalize();
        }
        (rot, spec.pelvis_pos)
    }
}

type SpecFn = Box<dyn Fn(f64) -> Spec>;

struct ClipDef {
    name: &'static str,
    duration: f64,
    looping: bool,
    spec: SpecFn,
}

/// The built-in character's clips, in file order: the one list of what it holds.
fn defs() -> Vec<ClipDef> {
    vec![
        idle(),
        gait("walk", Gait::WALK),
        gait("run", Gait::RUN),
        sprint_stop(),
        turn(),
        dodge(),
        jump(),
        arms_raise(),
        aim(),
    ]
}

/// Every clip's name and whether it loops, in file order.
pub fn clip_list() -> Vec<(&'static str, bool)> {
    defs().iter().map(|d| (d.name, d.looping)).collect()
}

/// Bakes every clip.
pub fn clips(bones: &[BoneDef]) -> Vec<BakedClip> {
    let rig = Rig::new(bones);
    defs().into_iter().map(|d| bake(&rig, d)).collect()
}

/// Bakes the clips with these names (in file order); unknown names are skipped.
pub fn clips_named(bones: &[BoneDef], names: &[&str]) -> Vec<BakedClip> {
    let rig = Rig::new(bones);
    defs()
        .into_iter()
        .filter(|d| names.contains(&d.name))
        .map(|d| bake(&rig, d))
        .collect()
}

fn bake(rig: &Rig, def: ClipDef) -> BakedClip {
    let n = (def.duration * KEY_RATE).round().max(1.0) as usize;
    let mut out = BakedClip {
        name: def.name,
        looping: def.looping,
        times: Vec::with_capacity(n + 1),
        root: Vec::with_capacity(n + 1),
        pelvis: Vec::with_capacity(n + 1),
        rotations: Vec::with_capacity(n + 1),
    };
    for i in 0..=n {
        let t = def.duration * i as f64 / n as f64;
        let spec = (def.spec)(t);
        let (mut rot, pelvis) = rig.solve(&spec);
        let mut root = spec.root;
        if def.looping && i == n {
            // The loop closes exactly: the last local pose is the first one.
            rot = out.rotations[0];
        }
        if let Some(prev) = out.rotations.last() {
            for (q, p) in rot.iter_mut().zip(prev.iter()) {
                if q.dot(*p) < 0.0 {
                    *q = -*q;
                }
            }
        }
        if let Some(prev) = out.root.last() {
            if root.rotation.dot(prev.rotation) < 0.0 {
                root.rotation = -root.rotation;
            }
        }
        out.times.push(t as f32);
        out.root.push(root);
        out.pelvis.push(if def.looping && i == n {
            out.pelvis[0]
        } else {
            pelvis
        });
        out.rotations.push(rot);
    }
    out
}

fn straight(z: f64) -> Frame {
    Frame::new(Quat::IDENTITY, Vec3::new(0.0, 0.0, z as f32))
}

const TAU: f64 = std::f64::consts::TAU;

fn idle() -> ClipDef {
    let dur = 4.0;
    ClipDef {
        name: "idle",
        duration: dur,
        looping: true,
        spec: Box::new(move |t| {
            let ph = TAU * t / dur;
            let mut s = Spec::standing(Frame::IDENTITY);
            let shift = dmath::sin(ph);
            let breath = dmath::sin(2.0 * ph);
            s.pelvis_pos = Vec3::new(
                0.025 * shift as f32,
                0.99 - 0.004 * (1.0 - dmath::cos(2.0 * ph)) as f32,
                0.0,
            );
            s.pelvis_rot = rz(deg(2.0) * shift) * ry(deg(2.0) * dmath::sin(ph + 0.7));
            s.spine = rz(-deg(1.5) * shift);
            s.chest = rx(-deg(1.5) * breath) * rz(-deg(1.0) * shift);
            for side in 0..2 {
                let sg = side_sign(side) as f64;
                s.clavicle[side] = rz(sg * deg(1.5) * (0.5 + 0.5 * breath));
                s.hand[side] =
                    hand_rest(side) + Vec3::new(0.0, 0.0, 0.015 * dmath::sin(ph + sg) as f32);
            }
            s.head_look = ry(deg(6.0) * dmath::sin(ph + 1.3)) * rx(deg(2.0) * dmath::sin(2.0 * ph));
            s
        }),
    }
}

/// Parameters of a periodic gait.
#[derive(Clone, Copy)]
struct Gait {
    speed: f64,
    period: f64,
    duty: f64,
    /// Flat-foot ankle ahead of the root at heel strike, metres.
    reach: f64,
    pitch_strike: f64,
    pitch_off: f64,
    heel_frac: f64,
    swing_height: f64,
    swing_early: f64,
    width: f32,
    pelvis_height: f64,
    bob: f64,
    /// Phase of the lowest pelvis point after a strike (fraction of the period).
    bob_phase: f64,
    sway: f64,
    lean: f64,
    pelvis_yaw: f64,
    pelvis_roll: f64,
    chest_yaw: f64,
    arm_swing: f64,
    arm_bias: f64,
    arm_reach: f32,
    arm_out: f32,
}

impl Gait {
    const WALK: Gait = Gait {
        speed: 1.4,
        period: 1.0,
        duty: 0.6,
        reach: 0.36,
        pitch_strike: 0.35,
        pitch_off: 0.6,
        heel_frac: 0.45,
        swing_height: 0.06,
        swing_early: 0.0,
        width: 0.085,
        pelvis_height: 0.965,
        bob: 0.02,
        bob_phase: 0.0,
        sway: 0.022,
        lean: 0.05,
        pelvis_yaw: 0.1,
        pelvis_roll: 0.06,
        chest_yaw: 0.14,
        arm_swing: 0.33,
        arm_bias: 0.05,
        arm_reach: 0.525,
        arm_out: 0.05,
    };
    const RUN: Gait = Gait {
        speed: 3.5,
        period: 0.7,
        duty: 0.32,
        reach: 0.28,
        pitch_strike: 0.08,
        pitch_off: 0.8,
        heel_frac: 0.6,
        swing_height: 0.2,
        swing_early: 0.35,
        width: 0.075,
        pelvis_height: 0.94,
        bob: 0.03,
        bob_phase: 0.16,
        sway: 0.012,
        lean: 0.14,
        pelvis_yaw: 0.14,
        pelvis_roll: 0.05,
        chest_yaw: 0.22,
        arm_swing: 0.6,
        arm_bias: 0.25,
        arm_reach: 0.4,
        arm_out: 0.0,
    };
    const SPRINT: Gait = Gait {
        speed: 5.5,
        period: 0.56,
        duty: 0.25,
        reach: 0.27,
        pitch_strike: 0.0,
        pitch_off: 0.9,
        heel_frac: 0.6,
        swing_height: 0.28,
        swing_early: 0.45,
        width: 0.07,
        pelvis_height: 0.93,
        bob: 0.03,
        bob_phase: 0.14,
        sway: 0.01,
        lean: 0.22,
        pelvis_yaw: 0.16,
        pelvis_roll: 0.05,
        chest_yaw: 0.25,
        arm_swing: 0.85,
        arm_bias: 0.3,
        arm_reach: 0.38,
        arm_out: -0.01,
    };

    /// The steps of one foot over `[from, to]` cycles (left strikes at whole periods).
    fn steps(&self, side: usize, from: i32, to: i32) -> Vec<Step> {
        let offset = if side == 0 { 0.0 } else { 0.5 };
        (from..=to)
            .map(|k| {
                let strike = (k as f64 + offset) * self.period;
                Step {
                    strike,
                    lift: strike + self.duty * self.period,
                    place: Vec3::new(
                        self.width * side_sign(side),
                        ANKLE_H,
                        (self.speed * strike + self.reach) as f32,
                    ),
                    heading: Quat::IDENTITY,
                    pitch_strike: self.pitch_strike,
                    pitch_off: self.pitch_off,
                    heel_time: self.heel_frac * self.duty * self.period,
                }
            })
            .collect()
    }

    /// Body and arms at phase `p` (fraction of the period, 0 = left heel strike).
    fn body(&self, p: f64, s: &mut Spec) {
        let c = dmath::cos(TAU * p);
        let mid = dmath::sin(TAU * (p - self.duty * 0.5 + 0.25));
        s.pelvis_pos = Vec3::new(
            (self.sway * mid) as f32,
            (self.pelvis_height - self.bob * dmath::cos(2.0 * TAU * (p - self.bob_phase))) as f32,
            0.0,
        );
        s.pelvis_rot = ry(-self.pelvis_yaw * c) * rz(self.pelvis_roll * mid) * rx(self.lean * 0.5);
        s.spine = ry(self.chest_yaw * 0.4 * c) * rx(self.lean * 0.3);
        s.chest =
            ry(self.chest_yaw * 0.6 * c) * rz(-self.pelvis_roll * 0.6 * mid) * rx(self.lean * 0.2);
        s.head_look = rx(self.lean * 0.3);
        for side in 0..2 {
            // The arm swings with the opposite leg.
            let sg = if side == 0 { -1.0 } else { 1.0 };
            let a = self.arm_bias + sg * self.arm_swing * c;
            s.hand[side] = swing_hand(side, a, self.arm_reach, self.arm_out);
            s.elbow_pole[side] = Vec3::new(0.15 * side_sign(side), -0.3, -1.0);
            s.hand_roll[side] = (0.2 * sg * c) as f32;
        }
    }
}

fn gait(name: &'static str, g: Gait) -> ClipDef {
    let steps = [g.steps(0, -2, 3), g.steps(1, -2, 3)];
    let height = g.swing_height;
    let early = g.swing_early;
    ClipDef {
        name,
        duration: g.period,
        looping: true,
        spec: Box::new(move |t| {
            let mut s = Spec::standing(straight(g.speed * t));
            g.body(t / g.period, &mut s);
            for side in 0..2 {
                s.foot[side] = foot_at(&steps[side], t, height, early);
            }
            s
        }),
    }
}

fn sprint_stop() -> ClipDef {
    let g = Gait::SPRINT;
    let t_brake = 2.5 * g.period; // a right-foot strike
    let brake = 0.55;
    let root_z = move |t: f64| {
        if t <= t_brake {
            g.speed * t
        } else {
            let tau = (t - t_brake).min(brake);
            g.speed * t_brake + g.speed * tau - g.speed * tau * tau / (2.0 * brake)
        }
    };
    let stop_z = root_z(10.0);
    let mut left = g.steps(0, -1, 2);
    let mut right = g.steps(1, -1, 1);
    let step = |strike: f64, lift: f64, x: f32, z: f64, pitch_strike: f64, pitch_off: f64| Step {
        strike,
        lift,
        place: Vec3::new(x, ANKLE_H, z as f32),
        heading: Quat::IDENTITY,
        pitch_strike,
        pitch_off,
        heel_time: if lift.is_finite() { 0.08 } else { 0.0 },
    };
    // Braking: a long heel plant, two shorter steps, then the feet come together.
    right.push(step(
        t_brake,
        t_brake + 0.18,
        -0.09,
        root_z(t_brake) + 0.4,
        0.45,
        0.3,
    ));
    left.retain(|s| s.strike < t_brake);
    left.push(step(
        t_brake + 0.15,
        t_brake + 0.4,
        0.09,
        root_z(t_brake + 0.15) + 0.42,
        0.4,
        0.2,
    ));
    right.push(step(
        t_brake + 0.32,
        f64::INFINITY,
        -0.11,
        stop_z + 0.03,
        0.3,
        0.0,
    ));
    left.push(step(
        t_brake + 0.65,
        f64::INFINITY,
        0.11,
        stop_z - 0.01,
        0.1,
        0.0,
    ));
    let steps = [left, right];
    let tb = t_brake;
    ClipDef {
        name: "sprint_stop",
        duration: 3.2,
        looping: false,
        spec: Box::new(move |t| {
            let mut s = Spec::standing(straight(root_z(t)));
            g.body((t / g.period).fract(), &mut s);
            let run = Spec { ..s };
            let mut stop = Spec::standing(straight(root_z(t)));
            let k = |keys: &[(f64, f64)]| curve(keys, t - tb);
            stop.pelvis_pos = Vec3::new(
                0.0,
                k(&[
                    (0.0, 0.93),
                    (0.2, 0.86),
                    (0.45, 0.87),
                    (0.75, 0.975),
                    (1.0, 1.0),
                    (1.25, 0.99),
                    (1.5, 0.995),
                ]) as f32,
                k(&[
                    (0.0, 0.0),
                    (0.2, -0.09),
                    (0.45, -0.07),
                    (0.75, 0.035),
                    (1.05, -0.012),
                    (1.4, 0.0),
                ]) as f32,
            );
            let pitch = k(&[
                (0.0, 0.1),
                (0.2, -0.12),
                (0.4, -0.2),
                (0.7, 0.12),
                (1.0, -0.04),
                (1.3, 0.015),
                (1.6, 0.0),
            ]);
            stop.pelvis_rot = rx(pitch * 0.6);
            stop.spine = rx(pitch * 0.5);
            stop.chest = rx(pitch * 0.5);
            stop.head_look = rx(-pitch * 0.3);
            let arm = k(&[
                (0.0, 0.3),
                (0.25, 0.9),
                (0.45, 0.7),
                (0.8, -0.1),
                (1.1, 0.08),
                (1.4, 0.0),
            ]);
            for side in 0..2 {
                let reach = 0.52 - 0.12 * (arm.max(0.0) as f32);
                stop.hand[side] = swing_hand(side, arm, reach, 0.06);
                stop.elbow_pole[side] = Vec3::new(0.2 * side_sign(side), -0.3, -1.0);
            }
            let w = smootherstep((t - tb + 0.05) / 0.2) as f32;
            s = blend(&run, &stop, w);
            for side in 0..2 {
                s.foot[side] = foot_at(&steps[side], t, g.swing_height, g.swing_early);
            }
            s
        }),
    }
}

/// Blends two specs (everything but the root and the feet, which come from `b`).
fn blend(a: &Spec, bb: &Spec, w: f32) -> Spec {
    let q = |x: Quat, y: Quat| dmath::nlerp(x, y, w);
    Spec {
        root: bb.root,
        pelvis_pos: a.pelvis_pos.lerp(bb.pelvis_pos, w),
        pelvis_rot: q(a.pelvis_rot, bb.pelvis_rot),
        spine: q(a.spine, bb.spine),
        chest: q(a.chest, bb.chest),
        head_look: q(a.head_look, bb.head_look),
        clavicle: [
            q(a.clavicle[0], bb.clavicle[0]),
            q(a.clavicle[1], bb.clavicle[1]),
        ],
        hand: [a.hand[0].lerp(bb.hand[0], w), a.hand[1].lerp(bb.hand[1], w)],
        elbow_pole: [
            a.elbow_pole[0].lerp(bb.elbow_pole[0], w),
            a.elbow_pole[1].lerp(bb.elbow_pole[1], w),
        ],
        wrist: [q(a.wrist[0], bb.wrist[0]), q(a.wrist[1], bb.wrist[1])],
        hand_roll: [
            a.hand_roll[0] + (bb.hand_roll[0] - a.hand_roll[0]) * w,
            a.hand_roll[1] + (bb.hand_roll[1] - a.hand_roll[1]) * w,
        ],
        foot: bb.foot,
    }
}

/// A step placed relative to the root frame at time `at`.
fn step_rel(
    root: &dyn Fn(f64) -> Frame,
    strike: f64,
    lift: f64,
    at: f64,
    rel: Vec3,
    yaw_rel: f64,
) -> Step {
    let f = root(at);
    Step {
        strike,
        lift,
        place: f.transform_point(rel + Vec3::Y * ANKLE_H),
        heading: (f.rotation * ry(yaw_rel)).normalize(),
        pitch_strike: 0.05,
        pitch_off: 0.15,
        heel_time: if lift.is_finite() { 0.08 } else { 0.0 },
    }
}

fn turn() -> ClipDef {
    let dur = 1.4;
    let root = move |t: f64| {
        let a = std::f64::consts::PI * smootherstep((t - 0.1) / 1.0);
        Frame::new(ry(a), Vec3::ZERO)
    };
    let left = vec![
        step_rel(&root, -1.0, 0.15, 0.0, Vec3::new(0.11, 0.0, 0.0), 0.0),
        step_rel(&root, 0.45, 0.78, 0.6, Vec3::new(0.12, 0.0, 0.04), 0.1),
        step_rel(
            &root,
            1.05,
            f64::INFINITY,
            1.1,
            Vec3::new(0.11, 0.0, 0.0),
            0.0,
        ),
    ];
    let right = vec![
        step_rel(&root, -1.0, 0.32, 0.0, Vec3::new(-0.11, 0.0, 0.0), 0.0),
        step_rel(&root, 0.68, 0.98, 0.85, Vec3::new(-0.12, 0.0, -0.03), -0.1),
        step_rel(
            &root,
            1.2,
            f64::INFINITY,
            1.1,
            Vec3::new(-0.11, 0.0, 0.0),
            0.0,
        ),
    ];
    let steps = [left, right];
    ClipDef {
        name: "turn",
        duration: dur,
        looping: true,
        spec: Box::new(move |t| {
            let mut s = Spec::standing(root(t));
            let bump = smoothstep(t / 0.35) * (1.0 - smoothstep((t - 0.8) / 0.5));
            s.pelvis_pos = Vec3::new(0.0, (0.995 - 0.03 * bump) as f32, 0.0);
            s.pelvis_rot = ry(0.25 * bump);
            s.spine = ry(0.12 * bump);
            s.chest = ry(0.12 * bump);
            s.head_look = ry(0.8 * bump);
            for side in 0..2 {
                let sg = side_sign(side) as f64;
                s.hand[side] =
                    swing_hand(side, sg * 0.25 * bump, 0.53, (0.05 + 0.05 * bump) as f32);
                s.foot[side] = foot_at(&steps[side], t, 0.06, 0.0);
            }
            s
        }),
    }
}

fn dodge() -> ClipDef {
    let dur = 2.4;
    let root_x = |t: f64| smootherstep((t - 0.33) / 0.24) - smootherstep((t - 1.45) / 0.24);
    let root = move |t: f64| Frame::new(Quat::IDENTITY, Vec3::new(root_x(t) as f32, 0.0, 0.0));
    let lateral = |mut st: Step| {
        st.pitch_strike = 0.0;
        st.pitch_off = 0.1;
        st
    };
    let left = vec![
        lateral(step_rel(
            &root,
            -1.0,
            0.35,
            0.0,
            Vec3::new(0.12, 0.0, 0.0),
            0.0,
        )),
        lateral(step_rel(
            &root,
            0.52,
            1.5,
            0.62,
            Vec3::new(0.17, 0.0, 0.03),
            0.0,
        )),
        lateral(step_rel(
            &root,
            1.74,
            f64::INFINITY,
            2.0,
            Vec3::new(0.12, 0.0, 0.0),
            0.0,
        )),
    ];
    let right = vec![
        lateral(step_rel(
            &root,
            -1.0,
            0.45,
            0.0,
            Vec3::new(-0.12, 0.0, 0.0),
            0.0,
        )),
        lateral(step_rel(
            &root,
            0.64,
            1.4,
            0.9,
            Vec3::new(-0.12, 0.0, -0.02),
            0.0,
        )),
        lateral(step_rel(
            &root,
            1.62,
            f64::INFINITY,
            1.7,
            Vec3::new(-0.17, 0.0, -0.03),
            0.0,
        )),
    ];
    // After the return the right foot is wide; it steps back in before the loop closes.
    let mut right = right;
    right[2].lift = 1.95;
    right.push(lateral(step_rel(
        &root,
        2.15,
        f64::INFINITY,
        2.4,
        Vec3::new(-0.12, 0.0, 0.0),
        0.0,
    )));
    let mut left = left;
    left[2].place = root(2.0).transform_point(Vec3::new(0.12, ANKLE_H, 0.0));
    let steps = [left, right];
    ClipDef {
        name: "dodge",
        duration: dur,
        looping: true,
        spec: Box::new(move |t| {
            let mut s = Spec::standing(root(t));
            // One sidestep each way; the return mirrors the first at +1.12 s.
            let (u, dir) = if t < 1.12 { (t, 1.0) } else { (t - 1.12, -1.0) };
            let k = |keys: &[(f64, f64)]| curve(keys, u);
            let y = k(&[
                (0.0, 0.99),
                (0.25, 0.93),
                (0.42, 0.915),
                (0.6, 0.9),
                (0.85, 0.965),
                (1.12, 0.99),
            ]);
            let x = k(&[
                (0.0, 0.0),
                (0.28, -0.045),
                (0.42, 0.06),
                (0.58, 0.045),
                (0.8, -0.015),
                (1.05, 0.0),
            ]);
            let lean = k(&[
                (0.0, 0.0),
                (0.28, 0.08),
                (0.42, -0.3),
                (0.6, -0.2),
                (0.82, 0.06),
                (1.05, 0.0),
            ]);
            let crouch = k(&[
                (0.0, 0.0),
                (0.28, 0.2),
                (0.6, 0.25),
                (0.9, 0.05),
                (1.1, 0.0),
            ]);
            let arm = k(&[
                (0.0, 0.0),
                (0.3, 0.1),
                (0.45, 0.9),
                (0.65, 0.6),
                (0.9, 0.1),
                (1.1, 0.0),
            ]);
            s.pelvis_pos = Vec3::new((dir * x) as f32, y as f32, 0.0);
            s.pelvis_rot = rz(dir * lean * 0.5) * rx(crouch * 0.6);
            s.spine = rz(dir * lean * 0.5) * rx(crouch * 0.3);
            s.chest = rz(dir * lean * 0.4);
            s.head_look = rz(-dir * lean * 0.3);
            for side in 0..2 {
                let sg = side_sign(side) as f64;
                // The leading arm flies out and up, the other swings across.
                let lead = if sg == dir { 1.0 } else { 0.4 };
                let sh = shoulder_rest(side);
                let out = (0.06 + 0.3 * arm * lead) as f32;
                let down = (0.53 - 0.22 * arm * lead) as f32;
                s.hand[side] = Vec3::new(
                    sh.x + side_sign(side) * out,
                    sh.y - down,
                    0.05 + 0.1 * arm as f32,
                );
                s.elbow_pole[side] = Vec3::new(0.3 * side_sign(side), -0.4, -1.0);
                s.foot[side] = foot_at(&steps[side], t, 0.1, 0.0);
            }
            s
        }),
    }
}

fn jump() -> ClipDef {
    let dur = 1.7;
    let (t_off, t_land) = (0.66, 1.06);
    let fly = t_land - t_off;
    let g = 9.81;
    let v0 = 0.5 * g * fly;
    let steps: [Vec<Step>; 2] = [0, 1].map(|side| {
        let place = Vec3::new(0.11 * side_sign(side), ANKLE_H, 0.0);
        vec![
            Step {
                strike: -1.0,
                lift: t_off,
                place,
                heading: Quat::IDENTITY,
                pitch_strike: 0.0,
                pitch_off: 0.7,
                heel_time: 0.14,
            },
            Step {
                strike: t_land,
                lift: f64::INFINITY,
                place,
                heading: Quat::IDENTITY,
                pitch_strike: -0.35,
                pitch_off: 0.0,
                heel_time: 0.0,
            },
        ]
    });
    ClipDef {
        name: "jump",
        duration: dur,
        looping: true,
        spec: Box::new(move |t| {
            let mut s = Spec::standing(Frame::IDENTITY);
            let y = if t > t_off && t < t_land {
                let tau = t - t_off;
                1.02 + v0 * tau - 0.5 * g * tau * tau
            } else if t <= t_off {
                curve(
                    &[
                        (0.0, 0.995),
                        (0.15, 0.995),
                        (0.45, 0.80),
                        (0.56, 0.84),
                        (t_off, 1.02),
                    ],
                    t,
                )
            } else {
                curve(
                    &[(t_land, 1.02), (1.2, 0.85), (1.45, 0.975), (dur, 0.995)],
                    t,
                )
            };
            let crouch = curve(
                &[
                    (0.0, 0.0),
                    (0.15, 0.0),
                    (0.45, 0.45),
                    (t_off, 0.05),
                    (0.86, -0.05),
                    (t_land, 0.1),
                    (1.2, 0.35),
                    (1.5, 0.03),
                    (dur, 0.0),
                ],
                t,
            );
            let arm = curve(
                &[
                    (0.0, 0.0),
                    (0.15, 0.0),
                    (0.45, -0.8),
                    (0.62, 0.9),
                    (0.78, 2.4),
                    (1.0, 1.2),
                    (1.2, 0.3),
                    (1.5, 0.0),
                    (dur, 0.0),
                ],
                t,
            );
            s.pelvis_pos = Vec3::new(0.0, y as f32, (-0.06 * crouch) as f32);
            s.pelvis_rot = rx(crouch * 0.7);
            s.spine = rx(crouch * 0.3);
            s.chest = rx(crouch * 0.2);
            s.head_look = rx(crouch * 0.3);
            for side in 0..2 {
                s.hand[side] = swing_hand(side, arm, 0.5, 0.07);
                s.elbow_pole[side] = Vec3::new(0.2 * side_sign(side), -0.3, -1.0);
                s.foot[side] = foot_at(&steps[side], t, 0.2, 0.0);
            }
            s
        }),
    }
}

fn arms_raise() -> ClipDef {
    let dur = 3.0;
    ClipDef {
        name: "arms_raise",
        duration: dur,
        looping: true,
        spec: Box::new(move |t| {
            let mut s = Spec::standing(Frame::IDENTITY);
            let up = smootherstep((t - 0.3) / 1.0) - smootherstep((t - 1.8) / 0.9);
            let a = up * 0.93 * std::f64::consts::PI;
            let shrug = smoothstep((a - 1.2) / 1.6);
            s.chest = rx(-0.06 * up);
            s.head_look = rx(-0.12 * up);
            for side in 0..2 {
                let sg = side_sign(side);
                let sh = shoulder_rest(side);
                let reach = 0.53;
                s.hand[side] = sh
                    + Vec3::new(
                        sg * (0.06 + reach * dmath::sin(a) as f32),
                        -reach * dmath::cos(a) as f32,
                        0.04 + 0.05 * dmath::sin(a) as f32,
                    );
                s.elbow_pole[side] = Vec3::new(0.0, -0.2, -1.0);
                s.clavicle[side] = rz(sg as f64 * 0.4 * shrug);
                s.hand_roll[side] = (-(sg as f64) * 1.2 * up) as f32;
            }
            s
        }),
    }
}

fn aim() -> ClipDef {
    let dur = 3.2;
    ClipDef {
        name: "aim",
        duration: dur,
        looping: true,
        spec: Box::new(move |t| {
            let mut s = Spec::standing(Frame::IDENTITY);
            s.foot = [
                (Vec3::new(0.14, ANKLE_H, 0.05), ry(0.15)),
                (Vec3::new(-0.13, ANKLE_H, -0.12), ry(-0.3)),
            ];
            let w = smootherstep((t - 0.35) / 0.35) - smootherstep((t - 2.5) / 0.5);
            let sweep = w * 0.3 * dmath::sin(TAU * (t - 0.7) / 1.8) * smoothstep((t - 0.7) / 0.3);
            let stance = ry(-0.2);
            s.pelvis_pos = Vec3::new(0.0, 0.975, -0.01);
            s.pelvis_rot = stance;
            s.spine = ry(0.08 + 0.4 * sweep) * rx(0.05 * w);
            s.chest = ry(0.12 + 0.18 * w + 0.6 * sweep);
            s.head_look = ry(1.0 * sweep) * rx(0.08 * w);
            let aim_r = Vec3::new(-0.03, 1.37, 0.5);
            let aim_l = Vec3::new(0.02, 1.33, 0.44);
            s.hand = [
                hand_rest(0).lerp(aim_l, w as f32),
                hand_rest(1).lerp(aim_r, w as f32),
            ];
            s.elbow_pole = [
                Vec3::new(0.0, -0.2, -1.0).lerp(Vec3::new(0.6, -1.0, -0.2), w as f32),
                Vec3::new(0.0, -0.2, -1.0).lerp(Vec3::new(-0.5, -1.0, -0.3), w as f32),
            ];
            s
        }),
    }
}
