//! The hooded jacket's hood: its own knobs (damping, stiffness toward its rest pose, swing
//! limit) each change what an artist sees, and the hood stays out of the head, the neck and
//! the shoulders on every clip.

use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::garment::hood::HoodedJacket;
use cloth_tuner::preset::{Garment, Preset};
use cloth_tuner::scene::Scene;
use cloth_tuner::sim::FabricParams;

fn character() -> Arc<Character> {
    Arc::new(Character::builtin())
}

fn down_jacket() -> Preset {
    let preset = Preset::load("presets/down_jacket.json").unwrap();
    assert_eq!(preset.garment, Garment::HoodedJacket);
    preset
}

/// The down jacket with some hood knobs changed.
fn with_hood(f: impl FnOnce(&mut FabricParams)) -> Preset {
    let mut preset = down_jacket();
    f(&mut preset.params);
    preset
}

/// The hood's swing angle from its rest pose (degrees) at every step of `seconds` of `clip`.
fn swing(character: &Arc<Character>, preset: &Preset, clip: &str, seconds: f32) -> Vec<f32> {
    let mut scene = Scene::new(character.clone(), preset, clip).unwrap();
    let steps = (seconds * preset.params.timestep_hz) as usize;
    (0..steps)
        .map(|_| {
            scene.step();
            scene.hood_swing_deg().expect("the preset has a hood")
        })
        .collect()
}

fn max(v: &[f32]) -> f32 {
    v.iter().copied().fold(0.0, f32::max)
}

#[test]
fn the_hood_stays_out_of_the_head_neck_and_shoulders_on_every_clip() {
    // Before the hood collided it sank up to 20 cm into the upper back in a dodge, a jump and
    // a sprint stop (the chest ellipsoid), and 3 cm into the neck's margin in a dodge.
    let character = character();
    let preset = down_jacket();
    let margin = preset.params.collision_margin;
    for clip in character.clip_names() {
        let mut scene = Scene::new(character.clone(), &preset, clip).unwrap();
        assert_eq!(
            scene.hood_colliders().len(),
            5,
            "head, neck, chest and both upper arms"
        );
        let mut worst = (0.0f32, 0usize);
        for step in 0..=(3.0 * preset.params.timestep_hz) as usize {
            if step > 0 {
                scene.step();
            }
            let bone = scene.hood_bone().expect("the down jacket has a hood");
            let hooded = scene.worn_as::<HoodedJacket>().unwrap();
            for local in hooded.hood_points() {
                let p = bone.transform_point3(*local);
                for c in scene.hood_colliders() {
                    // Inside the margin, not the body: the hood's surface may come closer
                    // to the body than the gap the jacket keeps, never into it.
                    assert_eq!(
                        c.penetration(p, 0.0),
                        0.0,
                        "{clip} step {step}: a hood point is inside the body"
                    );
                    let d = c.penetration(p, margin);
                    if d > worst.0 {
                        worst = (d, step);
                    }
                }
            }
        }
        // The turn out of a collider is capped per step, so a hood point can end a step a
        // little inside the margin (8 mm at most on the shipped clips).
        assert!(
            worst.0 < 0.012,
            "{clip}: a hood point came {} m into the {margin} m margin at step {}",
            worst.0,
            worst.1
        );
    }
}

#[test]
fn more_hood_damping_settles_the_hood_sooner_after_a_sprint_stop() {
    let character = character();
    let settle_step = |damping: f32| {
        let preset = with_hood(|p| p.hood_damping = damping);
        let angles = swing(&character, &preset, "sprint_stop", 4.0);
        let last = *angles.last().unwrap();
        // The last step at which the hood is still more than 2° from where it comes to rest.
        angles
            .iter()
            .rposition(|a| (a - last).abs() > 2.0)
            .unwrap_or(0)
    };
    let (loose, damped) = (settle_step(0.005), settle_step(0.1));
    assert!(
        damped + 30 < loose,
        "damping 0.1 settles at step {damped}, 0.005 at step {loose}"
    );
}

#[test]
fn hood_stiffness_holds_the_hood_near_its_rest_pose() {
    let character = character();
    let free = max(&swing(&character, &down_jacket(), "dodge", 3.0));
    let stiff = with_hood(|p| p.hood_stiffness = 0.1);
    let held = max(&swing(&character, &stiff, "dodge", 3.0));
    assert!(
        held < free * 0.5,
        "stiffness 0.1 swings {held}°, 0 swings {free}°"
    );
    // At 1 the hood moves rigidly with the neck: only the collisions turn it off its rest
    // pose (where a dodge bends the back into it), and on a walk nothing does.
    let rigid = with_hood(|p| p.hood_stiffness = 1.0);
    let still = max(&swing(&character, &rigid, "dodge", 3.0));
    assert!(still < held, "stiffness 1 swings {still}°, 0.1 {held}°");
    let walking = max(&swing(&character, &rigid, "walk", 3.0));
    assert!(walking < 0.5, "stiffness 1 swings {walking}° on a walk");
}

#[test]
fn the_swing_limit_caps_the_hoods_angle() {
    let character = character();
    for clip in ["dodge", "jump", "sprint_stop"] {
        let free = max(&swing(&character, &down_jacket(), clip, 3.0));
        assert!(free > 25.0, "{clip}: the free hood swings only {free}°");
        let capped = with_hood(|p| p.hood_swing_limit_deg = 20.0);
        let angles = swing(&character, &capped, clip, 3.0);
        // The collisions run after the limit and win where they disagree: a little over
        // (0.6° on the sprint stop, where the hood is pushed off the back).
        assert!(
            max(&angles) <= 21.0,
            "{clip}: limited to 20°, the hood swings {}°",
            max(&angles)
        );
    }
}

#[test]
fn bad_hood_values_are_refused_naming_the_field_and_range() {
    let cases = [
        ("hood_damping", "1.5", "allowed 0 to 1 per step"),
        ("hood_stiffness", "-0.1", "allowed 0 to 1 per step"),
        ("hood_swing_limit_deg", "200", "allowed 0 to 180 °"),
    ];
    for (field, value, range) in cases {
        let text = format!(
            r#"{{ "format": "cloth-tuner-preset", "version": 2, "name": "x",
                 "garment": "hooded_jacket", "params": {{ "{field}": {value} }} }}"#
        );
        let e = Preset::from_json(&text, "bad.json".as_ref()).unwrap_err();
        assert_eq!(e.field(), Some(format!("params.{field}").as_str()));
        assert!(e.to_string().contains(range), "{field}: {e}");
        assert!(e.to_string().contains("bad.json"), "{e}");
    }
    let p = FabricParams {
        hood_swing_limit_deg: f32::NAN,
        ..Default::default()
    };
    let e = p.validate().unwrap_err();
    assert_eq!(e.field, "hood_swing_limit_deg");
    assert!(e.to_string().contains("0 to 180 °"), "{e}");
}

#[test]
fn a_preset_saved_before_the_hood_knobs_loads_and_swings_as_before() {
    // The shipped down jacket without its hood fields: what a file saved before them holds.
    let shipped = down_jacket();
    let text = std::fs::read_to_string("presets/down_jacket.json").unwrap();
    let old: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("\"hood_"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!old.contains("hood_"));
    let loaded = Preset::from_json(&old, "old_down.json".as_ref()).unwrap();
    // The hood took the cloth's damping, had no pull and no limit.
    assert_eq!(loaded.params.hood_damping, loaded.params.damping);
    assert_eq!(loaded.params.hood_stiffness, 0.0);
    assert_eq!(loaded.params.hood_swing_limit_deg, 180.0);
    assert_eq!(loaded, shipped);
    // And a version 1 file (migrated) the same.
    let v1 = old.replace("\"version\": 2", "\"version\": 1").replace(
        &old[old.find("  \"look\"").unwrap()..old.find("  \"params\"").unwrap()],
        "",
    );
    let migrated = Preset::from_json(&v1, "old_down.json".as_ref()).unwrap();
    assert_eq!(migrated.params, shipped.params);
    // The same knobs, the same hood, step for step.
    let character = character();
    assert_eq!(
        swing(&character, &loaded, "dodge", 1.0),
        swing(&character, &shipped, "dodge", 1.0)
    );
}
