//! Collision ellipsoids bound to bones.

use glam::{Mat4, Quat, Vec3};

/// An ellipsoid attached to a bone: the image of the unit sphere under
/// `translate(centre) · rotate(rotation) · scale(radii)`, in the bone's space.
#[derive(Clone, Debug, PartialEq)]
pub struct Ellipsoid {
    /// Plain name: `chest`, `thigh_l_upper`, ...
    pub name: String,
    /// Index of the bone it follows.
    pub bone: usize,
    /// Centre in the bone's space, metres.
    pub centre: Vec3,
    /// Orientation of the principal axes in the bone's space.
    pub rotation: Quat,
    /// Semi-axes along the rotated x, y, z, metres (> 0).
    pub radii: Vec3,
}

/// An ellipsoid placed in character space for one pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PosedEllipsoid {
    /// Centre, character space.
    pub centre: Vec3,
    /// Orientation of the principal axes, character space.
    pub rotation: Quat,
    /// Semi-axes, metres.
    pub radii: Vec3,
}

impl Ellipsoid {
    /// Places the ellipsoid for a pose given the model matrices of
    /// [`crate::character::Pose::compute_model`]. A bone index with no matrix counts as identity.
    pub fn posed(&self, model: &[Mat4]) -> PosedEllipsoid {
        let m = model.get(self.bone).copied().unwrap_or(Mat4::IDENTITY);
        let (_, bone_rot, _) = m.to_scale_rotation_translation();
        PosedEllipsoid {
            centre: m.transform_point3(self.centre),
            rotation: (bone_rot * self.rotation).normalize(),
            radii: self.radii,
        }
    }

    /// The ellipsoid posed by `model`, as a collider of the cloth.
    pub fn posed_collider(&self, model: &[Mat4]) -> crate::sim::Collider {
        let p = self.posed(model);
        crate::sim::Collider::Ellipsoid {
            center: p.centre,
            rotation: p.rotation,
            radii: p.radii,
        }
    }
}

impl PosedEllipsoid {
    /// Maps a point into the ellipsoid's unit-sphere space (inside ⇔ length < 1).
    pub fn to_unit_sphere(&self, p: Vec3) -> Vec3 {
        (self.rotation.inverse() * (p - self.centre)) / self.radii
    }

    /// Maps a point from unit-sphere space back to character space.
    pub fn from_unit_sphere(&self, q: Vec3) -> Vec3 {
        self.rotation * (q * self.radii) + self.centre
    }

    /// True when `p` is strictly inside.
    pub fn contains(&self, p: Vec3) -> bool {
        self.to_unit_sphere(p).length_squared() < 1.0
    }

    /// The unit-sphere-to-character-space matrix (translate · rotate · scale).
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.radii, self.rotation, self.centre)
    }
}
