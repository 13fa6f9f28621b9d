//! The jacket's guarantees on a character, checked step by step: what `tests/garment/jacket.rs`
//! asserts on the built-in character and `tests/character/import.rs` on imported ones.

use std::path::Path;
use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::preset::{Garment, Preset};
use cloth_tuner::scene::Scene;
use cloth_tuner::sim::ConstraintKind;
use cloth_tuner_assets::test_rig::{test_rig_glb, Naming, RigStyle};

/// The two imported test characters a garment is checked on, written into `dir` and opened:
/// Mixamo names at 1.8 m, and Unreal names at 1.5 m in centimetres.
// Not every test file that includes this module checks imported characters.
#[allow(dead_code)]
pub fn imported_characters(dir: &Path) -> Vec<(&'static str, Arc<Character>)> {
    let styles = [
        (
            "mixamo",
            RigStyle {
                naming: Naming::Mixamo,
                ..RigStyle::default()
            },
        ),
        (
            "unreal",
            RigStyle {
                naming: Naming::Unreal,
                scale: 1.5 / 1.8,
                units_per_metre: 100.0,
                ..RigStyle::default()
            },
        ),
    ];
    styles
        .into_iter()
        .map(|(name, style)| {
            let path = dir.join(format!("{name}.glb"));
            std::fs::write(&path, test_rig_glb(&style)).unwrap();
            let c = Character::open(&path, None).unwrap_or_else(|e| panic!("{e}"));
            (name, Arc::new(c))
        })
        .collect()
}

/// Steps `scene` `steps` times and checks after every step: every particle finite and within
/// its max distance, nothing deeper than 1 cm in a body ellipsoid, every vertical link at its
/// rest length (the hard constraints); at the end no resets and nothing moved after the hard
/// pass. `what` names the run in messages.
pub fn assert_jacket_holds(scene: &mut Scene, steps: usize, what: &str) {
    let vertical: Vec<(usize, usize, f32)> = scene
        .cloth()
        .topology()
        .links
        .iter()
        .filter(|l| l.kind == ConstraintKind::StretchVertical)
        .map(|l| (l.a as usize, l.b as usize, l.rest))
        .collect();
    assert!(vertical.len() > 100, "{what}");
    for step in 0..steps {
        scene.step();
        let cloth = scene.cloth();
        for (i, (p, r)) in cloth.positions().iter().zip(scene.references()).enumerate() {
            assert!(p.is_finite(), "{what} step {step}: particle {i} not finite");
            let over = p.distance(*r) - cloth.max_distances()[i];
            assert!(
                over <= 1e-4,
                "{what} step {step}: particle {i} {over} m past its max distance"
            );
        }
        let depth = scene.frame_stats().max_penetration_m;
        assert!(
            depth <= 0.01,
            "{what} step {step}: {depth} m inside a body ellipsoid"
        );
        let pos = cloth.positions();
        for &(a, b, rest) in &vertical {
            let ratio = pos[a].distance(pos[b]) / rest;
            assert!(
                (ratio - 1.0).abs() <= 1e-3,
                "{what} step {step}: link {a}-{b} at {:.2} % of rest",
                ratio * 100.0
            );
        }
    }
    let stats = scene.cloth().stats();
    assert_eq!(stats.resets, 0, "{what}: resets");
    assert_eq!(
        (stats.post_hard_pushes, stats.post_hard_clamps),
        (0, 0),
        "{what}: nothing moved a particle after the hard pass"
    );
}

/// The three shipped presets.
pub const PRESETS: [&str; 3] = [
    "presets/tweed.json",
    "presets/down_jacket.json",
    "presets/veil.json",
];

/// A shipped preset.
pub fn preset(file: &str) -> Preset {
    Preset::load(file).unwrap_or_else(|e| panic!("{e}"))
}

/// The tweed's jacket on a walk, switched to `garment` for 60 steps (with `check` run on the
/// scene once it wears it) and back: the jacket must play bit for bit as a fresh one. Returns
/// the scene, back in the jacket.
// Not every test file that includes this module switches garments.
#[allow(dead_code)]
pub fn assert_switching_back_gives_the_jacket(
    character: Arc<Character>,
    garment: Garment,
    check: impl Fn(&Scene),
) -> Scene {
    let tweed = Preset::load("presets/tweed.json").unwrap();
    let run = |scene: &mut Scene| -> Vec<glam::Vec3> {
        for _ in 0..60 {
            scene.step();
        }
        scene.cloth().positions().to_vec()
    };
    let fresh = run(&mut Scene::new(character.clone(), &tweed, "walk").unwrap());
    let mut scene = Scene::new(character, &tweed, "walk").unwrap();
    scene.set_garment(garment);
    assert_eq!(scene.worn().template(), Some(garment));
    check(&scene);
    run(&mut scene);
    scene.set_garment(Garment::Jacket);
    assert_eq!(scene.worn().template(), Some(Garment::Jacket));
    assert_eq!(run(&mut scene), fresh, "the jacket after the {garment:?}");
    scene
}
