//! Onion-skin trails over a picture: where the hem and the front edges were over the last
//! second, drawn as lines that fade with age, so one still shows how the fabric moved. The
//! paths are in character space (the cloth against the body), placed with the character's
//! current root, and drawn over the finished picture with tiny-skia (anti-aliased strokes with
//! alpha), so they show through the body and the garment alike.

use glam::{Mat4, Vec3};
use tiny_skia::{LineCap, LineJoin, Paint, PathBuilder, PixmapMut, Stroke, Transform};

use super::OrbitCamera;
use crate::picture::Rgba;
use crate::scene::motion::TrailBuffer;

/// How many bands of age the trail is drawn in, oldest (faintest) first.
const BANDS: usize = 6;
/// The trails' colour: a warm yellow that reads on the fabrics, the body and the floor.
const COLOUR: [u8; 3] = [255, 200, 40];
/// The newest band's opacity (the oldest's is a sixth of it).
const OPACITY: f32 = 0.95;

/// Draws `trail` (rows of the followed particles, oldest first) over `image` as `camera` sees
/// it with the character placed by `root` (character space to world). A point behind the eye
/// breaks its line there.
pub fn draw_trails(image: &mut Rgba, camera: &OrbitCamera, root: Mat4, trail: &TrailBuffer) {
    let (w, h) = (image.width, image.height);
    let aspect = w as f32 / h.max(1) as f32;
    let followed = root.w_axis.truncate();
    let to_pixel = |p: Vec3| {
        let ndc = camera.project(followed, aspect, root.transform_point3(p))?;
        let (x, y) = (
            (ndc[0] + 1.0) * 0.5 * w as f32,
            (1.0 - ndc[1]) * 0.5 * h as f32,
        );
        (x.is_finite() && y.is_finite()).then_some((x, y))
    };
    let rows: Vec<Vec<Option<(f32, f32)>>> = trail
        .rows()
        .map(|row| row.iter().map(|&p| to_pixel(p)).collect())
        .collect();
    if rows.len() < 2 {
        return;
    }
    let Some(mut pixmap) = PixmapMut::from_bytes(image.pixels.as_flattened_mut(), w, h) else {
        return;
    };
    let stroke = Stroke {
        width: (h as f32 / 200.0).clamp(1.0, 6.0),
        line_cap: LineCap::Round,
        line_join: LineJoin::Round,
        ..Stroke::default()
    };
    let segments = rows.len() - 1;
    for band in 0..BANDS {
        // The segments of this band of age, every particle's in one path, so where they
        // cross the band's opacity is not doubled.
        let (from, to) = (segments * band / BANDS, segments * (band + 1) / BANDS);
        let mut path = PathBuilder::new();
        for k in 0..trail.particles() {
            let mut pen_down = false;
            for row in &rows[from..=to] {
                match row[k] {
                    Some((x, y)) if pen_down => path.line_to(x, y),
                    Some((x, y)) => {
                        path.move_to(x, y);
                        pen_down = true;
                    }
                    None => pen_down = false,
                }
            }
        }
        let Some(path) = path.finish() else {
            continue;
        };
        let mut paint = Paint::default();
        let alpha = OPACITY * (band + 1) as f32 / BANDS as f32;
        paint.set_color_rgba8(
            COLOUR[0],
            COLOUR[1],
            COLOUR[2],
            (alpha * 255.0).round() as u8,
        );
        paint.anti_alias = true;
        pixmap.stroke_path(&path, &paint, &stroke, Transform::identity(), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::character::Character;
    use crate::preset::Preset;
    use crate::render::headless::CameraSpec;
    use crate::scene::Scene;
    use std::sync::Arc;

    #[test]
    fn a_moving_hem_leaves_a_trail_and_a_still_one_almost_none() {
        let mut scene =
            Scene::new(Arc::new(Character::builtin()), &Preset::default(), "dodge").unwrap();
        let mut trail = TrailBuffer::new(&scene, 60);
        let blank = Rgba {
            width: 320,
            height: 180,
            pixels: vec![[0, 0, 0, 255]; 320 * 180],
        };
        let lit = |trail: &TrailBuffer, scene: &Scene| {
            let mut img = blank.clone();
            let cam = CameraSpec::Garment(None).camera(scene);
            draw_trails(&mut img, &cam, scene.root().matrix(), trail);
            assert!(
                img.pixels.iter().all(|p| p[3] == 255),
                "the picture stays opaque"
            );
            img.pixels.iter().filter(|p| p[0] > 40).count()
        };
        trail.push(&scene);
        trail.push(&scene);
        let still = lit(&trail, &scene);
        for _ in 0..60 {
            scene.step();
            trail.push(&scene);
        }
        let moving = lit(&trail, &scene);
        assert!(
            moving > 20 * still.max(1),
            "{moving} lit pixels moving, {still} still"
        );
    }
}
