//! A rigid transform: the root's place in the world, and the chest's carry of the hands.
//!
//! The generator's own, so that this crate does not depend on the tuner. Every operation here
//! reaches the committed asset's bytes: change one and `assets/character.glb` changes.

use glam::{Quat, Vec3};

/// Maps a point `p` to `rotation * p + translation`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Orientation (unit quaternion).
    pub rotation: Quat,
    /// Position, metres.
    pub translation: Vec3,
}

impl Frame {
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

    /// Maps a point from this frame into its parent.
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    /// The inverse transform.
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
}
