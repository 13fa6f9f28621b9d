//! Animation clips: keyframed local transforms plus root motion.

use glam::{Quat, Vec3};

use super::skeleton::Pose;
use crate::sim::Frame;

/// Keyframes of one value: strictly increasing `times` (seconds) and one value per time.
/// Sampled linearly (`Vec3`) or by spherical interpolation (`Quat`), clamped at the ends.
#[derive(Clone, Debug, PartialEq)]
pub struct Track<T> {
    times: Vec<f32>,
    values: Vec<T>,
}

impl<T: Copy> Track<T> {
    /// A track from key times and values. Errors when the lengths differ, there is no key, or
    /// the times are not finite and non-decreasing.
    pub fn new(times: Vec<f32>, values: Vec<T>) -> Result<Self, String> {
        if times.is_empty() {
            return Err("a track has no keys".into());
        }
        if times.len() != values.len() {
            return Err(format!(
                "a track has {} key times but {} values",
                times.len(),
                values.len()
            ));
        }
        if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[1] < w[0]) {
            return Err("key times must be finite and increasing".into());
        }
        Ok(Self { times, values })
    }

    /// Key times, seconds.
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// Key values.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    fn last_time(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// The two keys around `t` and the blend factor between them.
    fn locate(&self, t: f32) -> (T, T, f32) {
        let n = self.times.len();
        let first = self.values[0];
        if n == 1 || t <= self.times[0] {
            return (first, first, 0.0);
        }
        // Index of the first key strictly after t.
        let hi = self.times.partition_point(|&k| k <= t);
        if hi >= n {
            let last = self.values[n - 1];
            return (last, last, 0.0);
        }
        let lo = hi - 1;
        let span = self.times[hi] - self.times[lo];
        let f = if span > 0.0 {
            ((t - self.times[lo]) / span).clamp(0.0, 1.0)
        } else {
            1.0
        };
        (self.values[lo], self.values[hi], f)
    }
}

impl Track<Vec3> {
    /// Linear interpolation at `t` (clamped to the first/last key).
    pub fn sample(&self, t: f32) -> Vec3 {
        let (a, b, f) = self.locate(t);
        a.lerp(b, f)
    }
}

impl Track<Quat> {
    /// Spherical interpolation at `t` (clamped to the first/last key), shortest path.
    pub fn sample(&self, t: f32) -> Quat {
        let (a, b, f) = self.locate(t);
        if f <= 0.0 {
            a
        } else if f >= 1.0 {
            b
        } else {
            a.slerp(b, f).normalize()
        }
    }
}

/// The animated channels of one bone.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneTrack {
    /// Bone index in the skeleton.
    pub bone: usize,
    /// Local translation keys (usually only the pelvis has them).
    pub translation: Option<Track<Vec3>>,
    /// Local rotation keys.
    pub rotation: Option<Track<Quat>>,
}

/// One animation: local bone transforms relative to the root, and root motion in the world.
///
/// Sampling is a pure function of time. A looping clip repeats with period `duration`: its
/// pose at `t` equals its pose at `t + duration`, and its root motion accumulates (each loop
/// applies the displacement from the start frame to the end frame once more). A non-looping
/// clip holds its first pose before 0 and its last pose after `duration`.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// Name: `idle`, `walk`, `run`, ...
    pub name: String,
    /// Length, seconds (> 0).
    pub duration: f32,
    /// Whether the clip repeats.
    pub looping: bool,
    rest: Vec<Frame>,
    root_translation: Option<Track<Vec3>>,
    root_rotation: Option<Track<Quat>>,
    tracks: Vec<BoneTrack>,
    start: Frame,
    per_loop: Frame,
}

impl Clip {
    /// Builds a clip. `rest` is the skeleton's rest pose in character space (root entry is
    /// ignored); bones without a track hold it. The root tracks are the root's world
    /// placement. `duration` is the last key time of all tracks.
    pub fn new(
        name: String,
        looping: bool,
        rest: Vec<Frame>,
        root_translation: Option<Track<Vec3>>,
        root_rotation: Option<Track<Quat>>,
        tracks: Vec<BoneTrack>,
    ) -> Result<Self, String> {
        let mut duration: f32 = 0.0;
        for t in root_translation.iter() {
            duration = duration.max(t.last_time());
        }
        for t in root_rotation.iter() {
            duration = duration.max(t.last_time());
        }
        for bt in &tracks {
            if bt.bone == 0 || bt.bone >= rest.len() {
                return Err(format!("clip '{name}': a track targets bone {}", bt.bone));
            }
            for t in bt.translation.iter() {
                duration = duration.max(t.last_time());
            }
            for t in bt.rotation.iter() {
                duration = duration.max(t.last_time());
            }
        }
        if duration <= 0.0 || !duration.is_finite() {
            return Err(format!("clip '{name}' has zero duration"));
        }
        let mut clip = Self {
            name,
            duration,
            looping,
            rest,
            root_translation,
            root_rotation,
            tracks,
            start: Frame::IDENTITY,
            per_loop: Frame::IDENTITY,
        };
        clip.start = clip.root_at(0.0);
        let end = clip.root_at(duration);
        clip.per_loop = end.mul(&clip.start.inverse());
        if !clip.per_loop.is_finite() {
            return Err(format!("clip '{}' has non-finite root motion", clip.name));
        }
        Ok(clip)
    }

    /// Root placement at a time inside `[0, duration]`, no looping.
    fn root_at(&self, t: f32) -> Frame {
        let translation = self
            .root_translation
            .as_ref()
            .map_or(Vec3::ZERO, |tr| tr.sample(t));
        let rotation = self
            .root_rotation
            .as_ref()
            .map_or(Quat::IDENTITY, |tr| tr.sample(t));
        Frame::new(rotation, translation)
    }

    /// World displacement of the root over one loop (`end * start⁻¹`). Identity for clips
    /// that end where they start.
    pub fn root_motion_per_loop(&self) -> Frame {
        self.per_loop
    }

    /// The bone tracks (for inspection and tests).
    pub fn tracks(&self) -> &[BoneTrack] {
        &self.tracks
    }

    /// Samples the clip at time `t` (seconds, any finite value): writes every bone's local
    /// transform into `pose` (root entry = identity, untracked bones = rest) and returns the
    /// root's world frame (root motion). Does not allocate. A non-finite `t` is treated as 0.
    pub fn sample(&self, t: f32, pose: &mut Pose) -> Frame {
        let t = if t.is_finite() { t } else { 0.0 };
        let (local_t, loops) = if self.looping {
            let k = (t / self.duration).floor();
            let lt = (t - k * self.duration).clamp(0.0, self.duration);
            (lt, k)
        } else {
            (t.clamp(0.0, self.duration), 0.0)
        };
        for (dst, rest) in pose.local.iter_mut().zip(self.rest.iter()) {
            *dst = *rest;
        }
        if let Some(root) = pose.local.first_mut() {
            *root = Frame::IDENTITY;
        }
        for bt in &self.tracks {
            if let Some(dst) = pose.local.get_mut(bt.bone) {
                if let Some(tr) = &bt.translation {
                    dst.translation = tr.sample(local_t);
                }
                if let Some(rot) = &bt.rotation {
                    dst.rotation = rot.sample(local_t);
                }
            }
        }
        let root = self.root_at(local_t);
        if loops == 0.0 {
            root
        } else {
            frame_pow(&self.per_loop, loops).mul(&root)
        }
    }
}

/// `f` composed with itself `k` times (negative `k`: the inverse), by repeated squaring.
fn frame_pow(f: &Frame, k: f32) -> Frame {
    let mut base = if k < 0.0 { f.inverse() } else { *f };
    // Clips are at least a few frames long; the loop count fits easily in a u64.
    let mut n = k.abs().min(1.0e15) as u64;
    let mut acc = Frame::IDENTITY;
    while n > 0 {
        if n & 1 == 1 {
            acc = acc.mul(&base);
        }
        base = base.mul(&base);
        n >>= 1;
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_pow_matches_repeated_product() {
        let f = Frame::new(Quat::from_rotation_y(0.3), Vec3::new(0.1, 0.0, 1.0));
        let mut acc = Frame::IDENTITY;
        for _ in 0..7 {
            acc = acc.mul(&f);
        }
        let p = frame_pow(&f, 7.0);
        assert!((p.translation - acc.translation).length() < 1e-5);
        assert!(p.rotation.dot(acc.rotation).abs() > 0.99999);
        let back = frame_pow(&f, -7.0).mul(&p);
        assert!(back.translation.length() < 1e-5);
    }

    #[test]
    fn track_clamps_and_interpolates() {
        let tr = Track::new(vec![0.0, 1.0], vec![Vec3::ZERO, Vec3::X]).unwrap();
        assert_eq!(tr.sample(-1.0), Vec3::ZERO);
        assert_eq!(tr.sample(2.0), Vec3::X);
        assert!((tr.sample(0.25).x - 0.25).abs() < 1e-6);
        assert!(Track::<Vec3>::new(vec![1.0, 0.0], vec![Vec3::ZERO; 2]).is_err());
        assert!(Track::<Vec3>::new(vec![], vec![]).is_err());
    }
}
