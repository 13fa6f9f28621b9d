//! The veil on the character: worn on the head, pinned at the crown, over the face and the
//! shoulders, never inside the head. (The jacket's guarantees on every clip of the built-in
//! character run on the veil preset in `tests/garment/jacket.rs`; here on imported characters.)

#[allow(dead_code)] // the shipped presets list is for the other test files
use crate::jacket_checks;

use std::sync::Arc;

use cloth_tuner::character::head_and_shoulders;
use cloth_tuner::character::Character;
use cloth_tuner::export::{export_for_engine, particle_table, Engine, GridSize};
use cloth_tuner::preset::{Garment, Preset};
use cloth_tuner::scene::Scene;
use cloth_tuner::sim::Collider;

fn character() -> Arc<Character> {
    Arc::new(Character::builtin())
}

fn veil() -> Preset {
    let p = Preset::load("presets/veil.json").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.garment, Garment::Veil, "the veil preset wears the veil");
    p
}

/// The hood's head this step (the first of what the hooded jacket's hood keeps out of),
/// fitted inside the skin.
fn hood_head(scene: &Scene) -> Collider {
    head_and_shoulders(scene.character())[0].posed_collider(scene.model())
}

/// The head's collider this step (the veil's first): the hood's head (fitted inside the
/// skin), grown to hold the nose and the chin.
fn head(scene: &Scene) -> Collider {
    let (
        Collider::Ellipsoid {
            center: a,
            radii: ra,
            ..
        },
        Collider::Ellipsoid {
            center: b,
            radii: rb,
            ..
        },
    ) = (scene.colliders()[0], hood_head(scene))
    else {
        panic!("the head is an ellipsoid");
    };
    assert!(
        a.distance(b) < 1e-5,
        "the veil's first collider is the head"
    );
    let grow = ra / rb;
    assert!(
        grow.min_element() >= 1.0 && grow.max_element() < 1.4,
        "the veil's head is {grow} times the hood's"
    );
    scene.colliders()[0]
}

#[test]
fn the_veil_hangs_from_the_crown_over_the_face_to_below_the_shoulders() {
    let scene = Scene::new(character(), &veil(), "idle").unwrap();
    let Collider::Ellipsoid { center, radii, .. } = head(&scene) else {
        panic!("the head is an ellipsoid");
    };
    let topo = scene.cloth().topology();
    let pos = scene.cloth().positions();
    // The top row is pinned around the crown: above the head's centre, around it.
    for (i, p) in pos[..topo.cols].iter().enumerate() {
        assert!(topo.pinned[i]);
        assert!(
            p.y > center.y + 0.3 * radii.y && p.y < center.y + radii.y,
            "crown particle {i} at {p}, head centre {center} radii {radii}"
        );
    }
    // Something hangs in front of the face, at the head's centre height.
    let face = pos
        .iter()
        .any(|p| (p.y - center.y).abs() < 0.05 && p.z > center.z + radii.z && p.x.abs() < 0.03);
    assert!(face, "no particle in front of the face");
    // The hem hangs below the shoulders and spreads wider than the head.
    let hem = &pos[topo.hem()];
    assert!(hem.iter().all(|p| p.y < center.y - 0.15), "{hem:?}");
    let width = hem.iter().map(|p| p.x).fold(f32::MIN, f32::max)
        - hem.iter().map(|p| p.x).fold(f32::MAX, f32::min);
    assert!(width > 3.0 * radii.x, "the hem is {width} m wide");
}

#[test]
fn the_veil_stays_outside_the_head_in_every_step_of_every_clip() {
    // The hard pass runs top-down from the crown: near the face it must swing a particle
    // round the head, not drag it through. Every particle, pinned ones too, every step.
    let c = character();
    for clip in c.clip_names().map(str::to_string).collect::<Vec<_>>() {
        let mut scene = Scene::new(c.clone(), &veil(), &clip).unwrap();
        let mut deepest = 0f32;
        for _ in 0..240 {
            scene.step();
            let head = head(&scene);
            for p in scene.cloth().positions() {
                deepest = deepest.max(head.penetration(*p, 0.0));
            }
        }
        assert!(deepest <= 0.002, "{clip}: {deepest} m inside the head");
    }
}

#[test]
fn the_veils_render_sheet_follows_the_cloth_and_the_crown_rides_on_the_head() {
    let c = character();
    let mut scene = Scene::new(c.clone(), &veil(), "dodge").unwrap();
    let layout = scene.rig().layout().clone();
    let cols = layout.cols;
    let nu = (cols - 1) * layout.render_cols_per_sim + 1;
    let sites = scene.rig().sim_bone_sites().to_vec();
    let sim = scene.cloth().positions().len();
    scene.skin_meshes();
    assert!(scene.jacket().positions.len() >= 10 * sim);
    // Only the veil: far fewer vertices than the jacket with its yoke, collar and sleeves.
    let mut jacket = Scene::new(c, &Preset::load("presets/tweed.json").unwrap(), "dodge").unwrap();
    jacket.skin_meshes();
    assert!(scene.jacket().positions.len() < jacket.jacket().positions.len());
    for _ in 0..90 {
        scene.step();
        scene.skin_meshes();
        for &(r, col) in &sites {
            let v = r * layout.render_rows_per_sim * nu + col * layout.render_cols_per_sim;
            let particle = scene.cloth().positions()[r * cols + col];
            let d = scene.jacket().positions[v].distance(particle);
            assert!(
                d < layout.thickness,
                "vertex {v} is {d} m off particle ({r}, {col})"
            );
        }
        // The crown cap is carried by the head: it never enters it.
        let head = head(&scene);
        let n = scene.jacket().positions.len();
        let cap = &scene.jacket().positions
            [2 * nu * ((layout.rows - 1) * layout.render_rows_per_sim + 1)..n];
        assert!(!cap.is_empty());
        for p in cap {
            assert!(
                head.penetration(*p, 0.0) < 1e-4,
                "cap vertex {p} in the head"
            );
        }
    }
    assert!(scene.jacket().positions.iter().all(|p| p.is_finite()));
}

#[test]
fn switching_to_the_veil_and_back_gives_the_jacket_it_had() {
    jacket_checks::assert_switching_back_gives_the_jacket(character(), Garment::Veil, |s| {
        head(s);
    });
}

#[test]
fn on_imported_characters_the_veil_keeps_the_jacket_guarantees_on_every_clip() {
    // Mixamo names at 1.8 m and Unreal names at 1.5 m in centimetres: the head and neck
    // ellipsoids are fitted to their skin, the veil to those.
    let dir = tempfile::tempdir().unwrap();
    for (name, c) in jacket_checks::imported_characters(dir.path()) {
        for clip in c.clip_names().map(str::to_string).collect::<Vec<_>>() {
            let mut scene = Scene::new(c.clone(), &veil(), &clip).unwrap();
            let what = format!("{name} {clip}");
            jacket_checks::assert_jacket_holds(&mut scene, 150, &what);
            let head = head(&scene);
            let deepest = scene
                .cloth()
                .positions()
                .iter()
                .map(|p| head.penetration(*p, 0.0))
                .fold(0f32, f32::max);
            assert!(deepest <= 0.002, "{what}: {deepest} m inside the head");
        }
    }
}

#[test]
fn the_engines_get_the_veils_grid_pinned_row_and_edges() {
    // `export --engine` and the C interface take a grid: the default one is the veil's own,
    // and its per-particle table pins the crown band and flags the same edges as the scene.
    let scene = Scene::new(character(), &veil(), "idle").unwrap();
    let grid = GridSize::of_topology(scene.cloth().topology());
    assert_eq!(
        grid,
        cloth_tuner::garment::builtin_grid(cloth_tuner::preset::Garment::Veil)
    );
    let topo = scene.cloth().topology();
    let table = particle_table(grid, scene.params(), &[]);
    assert_eq!(table.len(), topo.len());
    for (q, i) in table.iter().zip(0..) {
        assert_eq!(
            (q.pinned, q.edge),
            (topo.pinned[i], topo.edge[i]),
            "particle {i}"
        );
        // A pinned particle is skinned, never free: its max distance is 0 for an engine.
        if !q.pinned {
            assert_eq!(
                q.max_distance_m,
                scene.cloth().max_distances()[i],
                "particle {i}"
            );
        }
    }
    for engine in Engine::ALL {
        let out = export_for_engine(engine, &veil(), None, grid)
            .unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert!(!out.files.is_empty(), "{engine}");
    }
}
