//! The orbit camera: yaw and pitch around a target, a distance, a field of view. Plain data (no
//! GL, no egui) so the viewport, the headless renderer and the saved window state share it.

use glam::{Mat4, Vec3};
use serde::{Deserialize, Serialize};

/// A camera orbiting a target point. World space: metres, +Y up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OrbitCamera {
    /// Angle around the vertical axis, radians. 0 looks at the target from +Z (the character's
    /// front at rest).
    pub yaw: f32,
    /// Angle above the horizon, radians, within ±1.5.
    pub pitch: f32,
    /// Distance from the target, metres (0.3 to 30).
    pub distance: f32,
    /// Offset of the target from the followed point (the character), metres.
    pub offset: [f32; 3],
    /// Vertical field of view, degrees.
    pub fov_deg: f32,
    /// Follow the character as it moves through the world.
    pub follow: bool,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            yaw: 0.6,
            pitch: 0.18,
            distance: 3.6,
            offset: [0.0, 1.0, 0.0],
            fov_deg: 40.0,
            follow: true,
        }
    }
}

/// Standard views an artist asks for by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Front,
    Side,
    Back,
}

impl OrbitCamera {
    /// Turns the camera by a drag in pixels.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(-1.5, 1.5);
        if !self.yaw.is_finite() {
            self.yaw = 0.0;
        }
        if !self.pitch.is_finite() {
            self.pitch = 0.0;
        }
    }

    /// Moves the target in the view plane by a drag in pixels (viewport `height` in pixels).
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let (right, up, _) = self.basis();
        let scale = 2.0 * self.distance * (self.fov_deg.to_radians() * 0.5).tan() / height.max(1.0);
        let t = Vec3::from(self.offset) - right * dx * scale + up * dy * scale;
        if t.is_finite() {
            self.offset = t.into();
        }
    }

    /// Zooms by wheel steps (positive: closer).
    pub fn zoom(&mut self, steps: f32) {
        let d = self.distance * (-steps * 0.1).exp();
        if d.is_finite() {
            self.distance = d.clamp(0.3, 30.0);
        }
    }

    /// Frames a standing character: target at chest height, whole body in view.
    pub fn frame_character(&mut self, height: f32) {
        let h = if height.is_finite() && height > 0.1 {
            height
        } else {
            1.8
        };
        self.offset = [0.0, h * 0.55, 0.0];
        self.distance = h * 1.15 / (self.fov_deg.to_radians() * 0.5).tan() * 0.5 + 0.4;
    }

    /// Looks from the front, side or back of a character facing `facing_yaw` (radians around Y,
    /// 0 = facing +Z).
    pub fn set_view(&mut self, view: View, facing_yaw: f32) {
        self.yaw = facing_yaw
            + match view {
                View::Front => 0.0,
                View::Side => std::f32::consts::FRAC_PI_2,
                View::Back => std::f32::consts::PI,
            };
        self.pitch = 0.08;
    }

    /// Unit vectors right, up and forward (from the eye to the target).
    pub fn basis(&self) -> (Vec3, Vec3, Vec3) {
        let forward = -self.eye_direction();
        let right = forward.cross(Vec3::Y).normalize_or(Vec3::X);
        let up = right.cross(forward).normalize_or(Vec3::Y);
        (right, up, forward)
    }

    /// Direction from the target to the eye.
    pub fn eye_direction(&self) -> Vec3 {
        Vec3::new(
            self.yaw.sin() * self.pitch.cos(),
            self.pitch.sin(),
            self.yaw.cos() * self.pitch.cos(),
        )
    }

    /// The point looked at, given the followed point.
    pub fn target(&self, followed: Vec3) -> Vec3 {
        let base = if self.follow {
            Vec3::new(followed.x, 0.0, followed.z)
        } else {
            Vec3::ZERO
        };
        base + Vec3::from(self.offset)
    }

    /// Eye position given the followed point.
    pub fn eye(&self, followed: Vec3) -> Vec3 {
        self.target(followed) + self.eye_direction() * self.distance
    }

    /// View and projection matrices (OpenGL clip space) for an aspect ratio.
    pub fn matrices(&self, followed: Vec3, aspect: f32) -> (Mat4, Mat4) {
        let view = Mat4::look_at_rh(self.eye(followed), self.target(followed), Vec3::Y);
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        let proj = Mat4::perspective_rh_gl(self.fov_deg.to_radians(), aspect, 0.05, 200.0);
        (view, proj)
    }

    /// The world-space ray through a point of the viewport given in normalised device
    /// coordinates (x, y in -1..1, y up): origin and unit direction.
    pub fn ray(&self, followed: Vec3, aspect: f32, ndc: [f32; 2]) -> (Vec3, Vec3) {
        let (view, proj) = self.matrices(followed, aspect);
        let inv = (proj * view).inverse();
        let near = inv.project_point3(Vec3::new(ndc[0], ndc[1], -1.0));
        let far = inv.project_point3(Vec3::new(ndc[0], ndc[1], 1.0));
        (near, (far - near).normalize_or(Vec3::NEG_Z))
    }

    /// Projects a world point to normalised device coordinates (None when behind the eye).
    pub fn project(&self, followed: Vec3, aspect: f32, p: Vec3) -> Option<[f32; 2]> {
        let (view, proj) = self.matrices(followed, aspect);
        let c = proj * view * p.extend(1.0);
        (c.w > 1e-4).then(|| [c.x / c.w, c.y / c.w])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_projected_point_lies_on_its_ray() {
        let cam = OrbitCamera::default();
        let followed = Vec3::new(1.0, 0.0, 2.0);
        let p = Vec3::new(1.2, 1.1, 2.1);
        let ndc = cam.project(followed, 1.6, p).unwrap();
        let (o, d) = cam.ray(followed, 1.6, ndc);
        let closest = o + d * (p - o).dot(d);
        assert!(closest.distance(p) < 1e-3, "{closest} vs {p}");
    }

    #[test]
    fn bad_input_keeps_the_camera_finite() {
        let mut cam = OrbitCamera::default();
        cam.orbit(f32::NAN, f32::INFINITY);
        cam.zoom(f32::NAN);
        cam.pan(f32::NAN, 1.0, 0.0);
        assert!(cam.eye(Vec3::ZERO).is_finite());
    }
}
