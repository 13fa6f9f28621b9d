//! The orbit camera: yaw and pitch around a target, a distance, a field of view. Plain data (no
//! GL, no egui) so the viewport, the headless renderer and the saved window state share it.
//! [`GarmentView`] is a view fitted to a garment's bounds over a clip, for pictures that
//! compare fabrics.

use glam::{Mat4, Vec2, Vec3};
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

    /// Looks from `eye` at `target` (world points, metres), following nothing; the field of
    /// view is left as it is.
    pub fn look_from(&mut self, eye: Vec3, target: Vec3) {
        let d = eye - target;
        let distance = d.length();
        self.follow = false;
        self.offset = target.into();
        self.distance = distance;
        self.pitch = (d.y / distance).clamp(-1.0, 1.0).asin();
        self.yaw = d.x.atan2(d.z);
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

/// A camera fitted to a garment, in character space: it turns and moves with the character, so
/// every frame of a clip frames the garment alike.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GarmentView {
    /// The eye and the point looked at, character space, metres.
    pub eye: Vec3,
    pub target: Vec3,
    /// Vertical field of view, degrees.
    pub fov_deg: f32,
}

/// How far above the horizon a garment view looks down, radians: enough to see the hem's
/// ring, not so much that the front hides the back.
const GARMENT_PITCH: f32 = 0.2;
/// The share of the picture's height and width the garment's bounds may take.
const GARMENT_FILL: f32 = 0.92;
const GARMENT_FOV_DEG: f32 = 30.0;

impl GarmentView {
    /// The view that shows the garment's motion best: looking across the horizontal
    /// direction in which `moving` points (the hem and front edges over a clip, each run's
    /// rows of `per_row` points) move most about their own mean, from the character's front
    /// half, and close enough that every point of `outline` (the whole garment over the same
    /// clip) fits a picture of `aspect` (width / height). `None` with no points.
    pub fn fit(outline: &[Vec3], moving: &[&[Vec3]], per_row: usize, aspect: f32) -> Option<Self> {
        if outline.is_empty() || !outline.iter().all(|p| p.is_finite()) {
            return None;
        }
        let across = widest_motion(moving, per_row);
        // Look along the horizontal perpendicular of the widest motion, so the motion runs
        // across the picture; from the front half, where the front edges are.
        let mut look = Vec2::new(-across.y, across.x);
        if look.y < 0.0 || (look.y == 0.0 && look.x < 0.0) {
            look = -look;
        }
        let back = Vec3::new(
            look.x * GARMENT_PITCH.cos(),
            GARMENT_PITCH.sin(),
            look.y * GARMENT_PITCH.cos(),
        );
        let forward = -back;
        let right = forward.cross(Vec3::Y).normalize_or(Vec3::X);
        let up = right.cross(forward);
        let (lo, hi) = outline
            .iter()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(*p), hi.max(*p))
            });
        // Centre on the middle of the outline as seen along the view, then back off until
        // every point is inside the frustum with the fill's margin.
        let (mut x0, mut x1, mut y0, mut y1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        let mid = (lo + hi) * 0.5;
        for p in outline {
            let d = *p - mid;
            (x0, x1) = (x0.min(d.dot(right)), x1.max(d.dot(right)));
            (y0, y1) = (y0.min(d.dot(up)), y1.max(d.dot(up)));
        }
        let target = mid + right * (x0 + x1) * 0.5 + up * (y0 + y1) * 0.5;
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        let ty = (GARMENT_FOV_DEG.to_radians() * 0.5).tan() * GARMENT_FILL;
        let tx = ty * aspect;
        let distance = outline
            .iter()
            .map(|p| {
                let d = *p - target;
                let depth = d.dot(forward);
                (d.dot(right).abs() / tx).max(d.dot(up).abs() / ty) - depth
            })
            .fold(0.3f32, f32::max);
        Some(Self {
            eye: target + back * distance,
            target,
            fov_deg: GARMENT_FOV_DEG,
        })
    }

    /// The orbit camera for this view with the character placed by `root` (character space
    /// to world).
    pub fn camera(&self, root: Mat4) -> OrbitCamera {
        let mut cam = OrbitCamera {
            fov_deg: self.fov_deg,
            ..OrbitCamera::default()
        };
        cam.look_from(
            root.transform_point3(self.eye),
            root.transform_point3(self.target),
        );
        cam
    }
}

/// The unit horizontal direction (x, z) in which the points move most about their own
/// means: the principal axis of their displacements' covariance. Sideways (+x) when nothing
/// moves, so a still garment is seen from the front.
fn widest_motion(runs: &[&[Vec3]], per_row: usize) -> Vec2 {
    let (mut xx, mut xz, mut zz) = (0.0f64, 0.0f64, 0.0f64);
    for run in runs {
        let rows = run.len().checked_div(per_row).unwrap_or(0);
        for k in 0..per_row.min(run.len()) {
            let mean = (0..rows).map(|t| run[t * per_row + k]).sum::<Vec3>() / rows as f32;
            for t in 0..rows {
                let d = run[t * per_row + k] - mean;
                let (x, z) = (d.x as f64, d.z as f64);
                xx += x * x;
                xz += x * z;
                zz += z * z;
            }
        }
    }
    // The larger eigenvalue's eigenvector of [[xx, xz], [xz, zz]].
    let angle = 0.5 * (2.0 * xz).atan2(xx - zz);
    let v = Vec2::new(angle.cos() as f32, angle.sin() as f32);
    if v.is_finite() && xx + zz > 0.0 {
        v
    } else {
        Vec2::X
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

    /// A garment-like cloud: a tube round the Y axis from y 0.6 to 1.4, 0.2 m across.
    fn tube() -> Vec<Vec3> {
        (0..200)
            .map(|i| {
                let a = i as f32 * 0.7;
                Vec3::new(0.2 * a.cos(), 0.6 + 0.8 * (i as f32 / 199.0), 0.2 * a.sin())
            })
            .collect()
    }

    #[test]
    fn a_garment_view_fills_the_picture_and_looks_across_the_motion() {
        let outline = tube();
        // A hem swinging sideways (x): seen from the front (+z).
        let swing: Vec<Vec3> = (0..40)
            .map(|t| Vec3::new(0.15 * (t as f32 * 0.3).sin(), 0.6, 0.2))
            .collect();
        let view = GarmentView::fit(&outline, &[&swing], 1, 16.0 / 9.0).unwrap();
        let dir = (view.eye - view.target).normalize();
        assert!(dir.z > 0.9 && dir.x.abs() < 0.1, "{dir}");
        // The tube fills the picture's height (within the fill's margin) and stays inside.
        let cam = view.camera(Mat4::IDENTITY);
        let ys: Vec<f32> = outline
            .iter()
            .map(|&p| cam.project(Vec3::ZERO, 16.0 / 9.0, p).unwrap()[1])
            .collect();
        let (lo, hi) = ys
            .iter()
            .fold((1.0f32, -1.0f32), |(a, b), &y| (a.min(y), b.max(y)));
        assert!(lo >= -1.0 && hi <= 1.0, "{lo} {hi}");
        assert!(
            hi - lo > 1.6,
            "the garment spans {} of the height",
            (hi - lo) / 2.0
        );
        // A hem swinging forward and back (z): seen from the side.
        let swing: Vec<Vec3> = swing.iter().map(|p| Vec3::new(0.2, p.y, p.x)).collect();
        let view = GarmentView::fit(&outline, &[&swing], 1, 16.0 / 9.0).unwrap();
        let dir = (view.eye - view.target).normalize();
        assert!(dir.x.abs() > 0.9, "{dir}");
        // The view turns and moves with the character.
        let root = Mat4::from_rotation_translation(
            glam::Quat::from_rotation_y(1.0),
            Vec3::new(3.0, 0.0, -2.0),
        );
        let moved = view.camera(root);
        let p = Vec3::new(0.1, 1.0, 0.0);
        let a = view
            .camera(Mat4::IDENTITY)
            .project(Vec3::ZERO, 1.5, p)
            .unwrap();
        let b = moved
            .project(Vec3::ZERO, 1.5, root.transform_point3(p))
            .unwrap();
        assert!((a[0] - b[0]).abs() < 1e-4 && (a[1] - b[1]).abs() < 1e-4);
        assert_eq!(GarmentView::fit(&[], &[], 1, 1.0), None);
    }
}
