//! The character's rigid frame in the world.

use glam::{Mat4, Quat, Vec3};

/// A rigid transform: where the character (its root) is in the world, or any other rigid
/// placement. Maps a point `p` to `rotation * p + translation`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Orientation (unit quaternion).
    pub rotation: Quat,
    /// Position, metres.
    pub translation: Vec3,
}

impl Default for Frame {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Frame {
    /// The frame as a matrix from its space to its parent's (rotation, then translation).
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_rotation_translation(self.rotation, self.translation)
    }

    /// No rotation, at the origin.
    pub const IDENTITY: Frame = Frame {
        rotation: Quat::IDENTITY,
        translation: Vec3::ZERO,
    };

    /// A frame from rotation and translation.
    pub fn new(rotation: Quat, translation: Vec3) -> Self {
        Self {
            rotation,
            translation,
        }
    }

    /// Maps a point from this frame into its parent (local to world).
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    /// Maps a direction from this frame into its parent.
    pub fn transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation * v
    }

    /// The inverse transform (world to local).
    pub fn inverse(&self) -> Frame {
        let r = self.rotation.inverse();
        Frame {
            rotation: r,
            translation: -(r * self.translation),
        }
    }

    /// `self * other`: apply `other` first, then `self`.
    pub fn mul(&self, other: &Frame) -> Frame {
        Frame {
            rotation: (self.rotation * other.rotation).normalize(),
            translation: self.rotation * other.translation + self.translation,
        }
    }

    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        self.rotation.is_finite() && self.translation.is_finite()
    }

    /// The frame `t` of the way from `self` to `other` (0 is `self`, 1 is `other`):
    /// translation linearly, rotation along the shortest arc.
    pub fn lerp(&self, other: &Frame, t: f32) -> Frame {
        Frame {
            rotation: self.rotation.slerp(other.rotation, t).normalize(),
            translation: self.translation.lerp(other.translation, t),
        }
    }
}
