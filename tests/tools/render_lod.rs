//! The window's cheaper quality levels draw the character with coarser triangle sets
//! (`render::lod`): as an artist would check it, a picture drawn that way has far fewer
//! triangles and looks the same as one with every triangle, and close up every triangle is
//! drawn again.

use crate::common;

use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::picture::Rgba;
use cloth_tuner::preset::Preset;
use cloth_tuner::render::headless::{CameraSpec, HeadlessGl, Offscreen};
use cloth_tuner::render::{scene_data, OrbitCamera, Overlays};
use cloth_tuner::scene::Scene;
use common::have_gl;

/// Windowless GL and the tweed on walk after half a second, as the window shows it; `None`
/// (a skip, or a failure under CI=true) without GL.
fn walking_tweed(test: &str) -> Option<(HeadlessGl, Scene, Preset)> {
    if !have_gl(test) {
        return None;
    }
    let preset = Preset::load("presets/tweed.json").unwrap();
    let mut scene = Scene::new(Arc::new(Character::builtin()), &preset, "walk").unwrap();
    while scene.steps() < 30 {
        scene.step();
    }
    Some((HeadlessGl::new().unwrap(), scene, preset))
}

/// A picture of the scene and the triangles of the character in it.
fn picture(
    off: &mut Offscreen,
    scene: &mut Scene,
    preset: &Preset,
    camera: &OrbitCamera,
    coarse: bool,
) -> (Rgba, usize) {
    off.renderer_mut().coarse_meshes = coarse;
    let image = off.draw(
        camera,
        &scene_data(scene, preset.look),
        &Overlays::default(),
    );
    (image, off.renderer_mut().character_triangles())
}

/// Pixels whose colour differs by more than `tolerance` (0..255) in some channel.
fn differing(a: &Rgba, b: &Rgba, tolerance: u8) -> usize {
    a.pixels
        .iter()
        .zip(&b.pixels)
        .filter(|(p, q)| {
            p.iter()
                .zip(q.iter())
                .any(|(x, y)| x.abs_diff(*y) > tolerance)
        })
        .count()
}

#[test]
fn the_fast_views_coarse_character_looks_like_the_full_one_with_a_fraction_of_the_triangles() {
    let Some((gl, mut scene, preset)) = walking_tweed("the coarse character's picture") else {
        return;
    };
    // The size of the window's Fast view at 1280 x 800.
    let mut off = Offscreen::new(&gl, 436, 278).unwrap();
    let camera = CameraSpec::ThreeQuarter.camera(&scene);
    let (full, all) = picture(&mut off, &mut scene, &preset, &camera, false);
    let (coarse, fewer) = picture(&mut off, &mut scene, &preset, &camera, true);
    assert!(
        fewer * 3 <= all,
        "the coarse character has {fewer} triangles of {all}"
    );
    // The character covers about a tenth of the picture; the coarse one may move its
    // outline and shading by a shade here and there, not change its shape.
    let changed = differing(&full, &coarse, 24);
    let share = changed as f64 / full.pixels.len() as f64;
    eprintln!("{changed} pixels of {} differ visibly", full.pixels.len());
    assert!(
        share < 0.005,
        "{changed} pixels differ visibly ({:.3} %)",
        share * 100.0
    );
    let (again, all_again) = picture(&mut off, &mut scene, &preset, &camera, false);
    assert_eq!(all_again, all, "turned off, every triangle again");
    assert_eq!(again.pixels, full.pixels, "and the very same picture");
}

#[test]
fn close_up_the_coarse_setting_draws_every_triangle() {
    let Some((gl, mut scene, preset)) = walking_tweed("the close-up picture") else {
        return;
    };
    let mut off = Offscreen::new(&gl, 1280, 720).unwrap();
    let mut camera = CameraSpec::ThreeQuarter.camera(&scene);
    let (_, all) = picture(&mut off, &mut scene, &preset, &camera, false);
    camera.distance = 1.2;
    let (_, close) = picture(&mut off, &mut scene, &preset, &camera, true);
    assert_eq!(close, all, "a half-pixel error would show this close");
}
