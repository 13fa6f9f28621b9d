//! The drawn garment covers the body: `skin_showing_pct`, the share of the body's vertices the
//! garment's grid should cover that show through the drawn garment.

use std::sync::Arc;

use cloth_tuner::character::{Character, Role};
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::metrics::simulate;
use cloth_tuner::scene::Scene;
use glam::Vec3;

fn preset(name: &str) -> Preset {
    Preset::load(format!("presets/{name}.json")).unwrap()
}

#[test]
fn the_jackets_and_the_skirt_cover_the_body_at_rest_and_on_the_walk() {
    let character = Arc::new(Character::builtin());
    for name in ["tweed", "down_jacket", "skirt"] {
        let p = preset(name);
        let mut scene = Scene::new(character.clone(), &p, "idle").unwrap();
        scene.skin_meshes();
        assert_eq!(scene.skin_showing_pct(), 0.0, "{name} at rest");
        let m = simulate(character.clone(), &p, "walk", 2.0).unwrap();
        let showing = m.skin_showing_pct.expect("a run that draws measures it");
        assert!(
            showing < 2.0,
            "{name} on the walk: {showing} % of the skin shows"
        );
    }
}

/// The tweed at rest on the built-in character, with its body grown by `scale` about its
/// vertical axis and moved `drop` metres down: the share of the skin showing through, percent.
fn showing_of_a_body_moved(scale: f32, drop: f32) -> f32 {
    let character = Arc::new(Character::builtin());
    let mut scene = Scene::new(character, &preset("tweed"), "idle").unwrap();
    scene.skin_meshes();
    let axis = scene.model()[scene.character().roles.bone(Role::Pelvis)].w_axis;
    let moved: Vec<Vec3> = scene
        .body()
        .positions
        .iter()
        .map(|p| {
            Vec3::new(
                axis.x + (p.x - axis.x) * scale,
                p.y - drop,
                axis.z + (p.z - axis.z) * scale,
            )
        })
        .collect();
    let mut coverage = scene.coverage().clone();
    coverage.showing_pct(&moved, scene.jacket().positions, (axis.x, axis.z))
}

#[test]
fn a_body_wider_than_its_jacket_shows_through_it() {
    // Grown by two fifths: it reaches through the jacket.
    let showing = showing_of_a_body_moved(1.4, 0.0);
    assert!(
        showing > 20.0,
        "only {showing} % of a wider body shows through the jacket"
    );
    // The same body below the jacket's hem: nothing of the jacket is in front of it there, so
    // none of it shows through (a thigh raised past a hem, a front swung open).
    assert_eq!(showing_of_a_body_moved(1.4, 1.0), 0.0);
    let character = Arc::new(Character::builtin());
    let scene = Scene::new(character, &preset("tweed"), "idle").unwrap();
    assert!(
        scene.coverage().len() > 1000,
        "{} body vertices covered",
        scene.coverage().len()
    );
}
