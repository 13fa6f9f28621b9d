//! Characters from other tools: test rigs written by the asset generator the ways other tools
//! write a humanoid (Mixamo and Unreal names, unknown names found by shape or by a bone map,
//! 1.5 m and 2.0 m tall, centimetres, Z-up, an armature node, `.gltf` with an external
//! buffer), each loaded through the public path (`Character::open`) and dressed in the jacket; and the bad files a
//! user may open.

use crate::jacket_checks;

use std::f32::consts::FRAC_PI_2;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cloth_tuner::character::{Character, CharacterSettings, Role};
use cloth_tuner::scene::Scene;
use cloth_tuner_assets::test_rig::{
    bone_called, test_rig_glb, test_rig_gltf, Naming, RigStyle, MAPPED_ROLES,
};
use glam::{Quat, Vec3};
use jacket_checks::{assert_jacket_holds, preset, PRESETS};

/// Writes a test rig as `name` in `dir` and returns its path.
fn write_rig(dir: &Path, name: &str, style: &RigStyle) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, test_rig_glb(style)).unwrap();
    path
}

fn open(path: &Path) -> Character {
    Character::open(path, None).unwrap_or_else(|e| panic!("{e}"))
}

/// Stands upright on the ground at `height` metres, facing +Z with its left hand at +X.
fn assert_upright(c: &Character, height: f32, what: &str) {
    let top = c.height();
    assert!(
        (top - height).abs() < 0.03,
        "{what}: {top} m tall, expected {height}"
    );
    let ground = c
        .mesh
        .positions
        .iter()
        .map(|p| p.y)
        .fold(f32::MAX, f32::min);
    assert!(ground.abs() < 1e-3, "{what}: lowest vertex at {ground} m");
    let mut model = Vec::new();
    c.skeleton
        .rest_pose()
        .compute_model(&c.skeleton, &mut model);
    let at = |r: Role| model[c.roles.bone(r)].w_axis.truncate();
    assert!(
        at(Role::Head).y > at(Role::Pelvis).y + 0.3 * height,
        "{what}: head above pelvis"
    );
    assert!(at(Role::HandL).x > 0.1 * height, "{what}: left hand at +X");
    assert!(
        at(Role::HandR).x < -0.1 * height,
        "{what}: right hand at -X"
    );
    // The feet point forward (+Z): the toes are ahead of the ankles.
    let toes = c
        .mesh
        .positions
        .iter()
        .filter(|p| p.y < 0.05 * height)
        .map(|p| p.z)
        .fold(f32::MIN, f32::max);
    assert!(toes > 0.07 * height, "{what}: toes at z = {toes}");
}

/// The walk travels forward: the character frame moves along +Z.
fn assert_walks_forward(c: &Character, height: f32, what: &str) {
    let walk = c
        .clip("walk")
        .unwrap_or_else(|| panic!("{what}: no walk clip"));
    let mut pose = c.skeleton.rest_pose();
    let start = walk.sample(0.0, &mut pose).translation;
    let end = walk.sample(walk.duration, &mut pose).translation;
    let travel = end - start;
    assert!(
        travel.z > 0.4 * height * walk.duration / 1.8 && travel.x.abs() < 0.2 * travel.z,
        "{what}: the walk travels {travel}"
    );
    assert!(walk.looping, "{what}: the walk loops");
}

/// The jacket holds on the walk with every shipped preset for a second and a half.
fn assert_jacket_fits(c: Character, what: &str) {
    let c = Arc::new(c);
    for file in PRESETS {
        let mut scene = Scene::new(c.clone(), &preset(file), "walk").unwrap();
        assert_jacket_holds(&mut scene, 90, &format!("{what} {file}"));
    }
}

#[test]
fn a_mixamo_rig_is_upright_walks_and_wears_the_jacket() {
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        naming: Naming::Mixamo,
        ..RigStyle::default()
    };
    let c = open(&write_rig(dir.path(), "mixamo.glb", &style));
    assert_eq!(
        c.skeleton.bones()[c.roles.bone(Role::ThighL)].name,
        "mixamorig:LeftUpLeg"
    );
    assert_eq!(
        c.skeleton.bones()[c.roles.bone(Role::Chest)].name,
        "mixamorig:Spine1"
    );
    assert!(
        c.ellipsoids.len() >= 9,
        "fitted ellipsoids: {}",
        c.ellipsoids.len()
    );
    assert_upright(&c, 1.8, "mixamo");
    assert_walks_forward(&c, 1.8, "mixamo");
    assert_jacket_fits(c, "mixamo");
}

#[test]
fn an_unreal_rig_of_1_5_m_in_centimetres_under_a_scaled_armature() {
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        naming: Naming::Unreal,
        scale: 1.5 / 1.8,
        units_per_metre: 100.0,
        armature: Some((Quat::IDENTITY, Vec3::splat(0.01))),
        ..RigStyle::default()
    };
    let c = open(&write_rig(dir.path(), "unreal.glb", &style));
    assert_eq!(
        c.skeleton.bones()[c.roles.bone(Role::ForearmR)].name,
        "lowerarm_r"
    );
    assert_upright(&c, 1.5, "unreal 1.5 m");
    assert_walks_forward(&c, 1.5, "unreal 1.5 m");
    assert_jacket_fits(c, "unreal 1.5 m");
}

#[test]
fn a_2_m_z_up_rig_in_centimetres_without_a_scale_node() {
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        naming: Naming::Mixamo,
        scale: 2.0 / 1.8,
        units_per_metre: 100.0,
        rotation: Quat::from_rotation_x(FRAC_PI_2),
        ..RigStyle::default()
    };
    let c = open(&write_rig(dir.path(), "zup_cm.glb", &style));
    assert_upright(&c, 2.0, "Z-up cm 2.0 m");
    assert_walks_forward(&c, 2.0, "Z-up cm 2.0 m");
    assert_jacket_fits(c, "Z-up cm 2.0 m");
}

#[test]
fn the_built_in_clips_play_on_a_shorter_character_with_shorter_strides() {
    // A 1.5 m Unreal rig with only an idle of its own: the walk and the dodge are the
    // built-in ones, retargeted; the walk travels 1.5 / 1.8 as far and the jacket holds.
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        naming: Naming::Unreal,
        scale: 1.5 / 1.8,
        clips: vec!["idle".into()],
        ..RigStyle::default()
    };
    let c = open(&write_rig(dir.path(), "small.glb", &style));
    let builtin = Character::builtin();
    let travel = |c: &Character| {
        let walk = c.clip("walk").unwrap();
        let mut pose = c.skeleton.rest_pose();
        walk.sample(walk.duration, &mut pose).translation - walk.sample(0.0, &mut pose).translation
    };
    let ratio = travel(&c).length() / travel(&builtin).length();
    assert!((ratio - 1.5 / 1.8).abs() < 0.01, "stride ratio {ratio}");
    assert_walks_forward(&c, 1.5, "retargeted walk");
    let c = Arc::new(c);
    for clip in ["walk", "dodge", "arms_raise"] {
        let mut scene = Scene::new(c.clone(), &preset("presets/tweed.json"), clip).unwrap();
        assert_jacket_holds(&mut scene, 120, &format!("retargeted {clip}"));
    }
}

#[test]
fn a_non_uniformly_scaled_armature_stands_at_its_scaled_height() {
    // An armature node stretching the body 10 % taller and 10 % thinner front to back: the
    // bones become rigid frames, the mesh is baked as glTF shows it, and the jacket still fits.
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        naming: Naming::Unreal,
        armature: Some((Quat::IDENTITY, Vec3::new(1.0, 1.1, 0.9))),
        ..RigStyle::default()
    };
    let c = open(&write_rig(dir.path(), "stretched.glb", &style));
    assert_upright(&c, 1.8 * 1.1, "stretched");
    assert_walks_forward(&c, 1.8, "stretched");
    assert_jacket_fits(c, "stretched");
}

#[test]
fn a_rotated_armature_node_is_undone() {
    // Blender's usual export of a Z-up scene: the data Z-up, an armature node turning it up.
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        rotation: Quat::from_rotation_x(FRAC_PI_2),
        armature: Some((Quat::from_rotation_x(-FRAC_PI_2), Vec3::ONE)),
        clips: Vec::new(),
        ..RigStyle::default()
    };
    let c = open(&write_rig(dir.path(), "armature.glb", &style));
    assert_upright(&c, 1.8, "rotated armature");
    // No animation: the bind pose is a still clip, and the built-in clips follow.
    let names: Vec<&str> = c.clip_names().collect();
    let builtin = Character::builtin();
    let mut expected = vec!["bind_pose"];
    expected.extend(builtin.clip_names());
    assert_eq!(names, expected);
}

#[test]
fn unknown_names_are_found_by_shape_and_a_bone_map_confirms_them() {
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        naming: Naming::Unknown,
        ..RigStyle::default()
    };
    let path = write_rig(dir.path(), "custom.glb", &style);
    // No name says a role: every one comes from the skeleton's shape, and says so.
    let c = open(&path);
    assert_eq!(c.roles.by_shape(), Role::REQUIRED.to_vec());
    assert_eq!(
        c.skeleton.bones()[c.roles.bone(Role::ShinR)].name,
        bone_called(Naming::Unknown, "calf_r").unwrap()
    );

    // The bone map beside the file, as the tuner's picker would save it.
    let mut settings = CharacterSettings::default();
    for (role, b) in MAPPED_ROLES {
        let role = *Role::REQUIRED.iter().find(|r| r.name() == role).unwrap();
        settings
            .bones
            .insert(role, bone_called(Naming::Unknown, b).unwrap());
    }
    settings
        .save(&CharacterSettings::path_beside(&path))
        .unwrap();
    let c = open(&path);
    assert_eq!(
        c.roles.bone(Role::HandL),
        c.skeleton
            .find(&bone_called(Naming::Unknown, "hand_l").unwrap())
            .unwrap()
    );
    assert_eq!(
        c.roles.by_shape(),
        [],
        "the map and the hierarchy give them all"
    );
    assert_upright(&c, 1.8, "bone map");
    assert_jacket_fits(c, "bone map");
}

#[test]
fn a_gltf_with_an_external_buffer_loads_and_a_missing_buffer_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        naming: Naming::Unreal,
        clips: vec!["idle".into(), "dodge".into()],
        ..RigStyle::default()
    };
    let (json, bin) = test_rig_gltf(&style, "hero_data.bin");
    let path = dir.path().join("hero.gltf");
    std::fs::write(&path, &json).unwrap();
    let err = Character::open(&path, None).unwrap_err().to_string();
    assert!(
        err.contains("hero.gltf") && err.contains("hero_data.bin"),
        "{err}"
    );
    std::fs::write(dir.path().join("hero_data.bin"), &bin).unwrap();
    let c = open(&path);
    let names: Vec<&str> = c.clip_names().collect();
    assert_eq!(&names[..3], ["idle", "dodge", "builtin_idle"]);
    assert!(
        names.contains(&"walk") && names.contains(&"builtin_dodge"),
        "{names:?}"
    );
    // The looping flags our files carry in the animations' extras survive the import.
    let builtin = Character::builtin();
    for clip in ["idle", "dodge"] {
        assert_eq!(
            c.clip(clip).unwrap().looping,
            builtin.clip(clip).unwrap().looping
        );
    }
}

#[test]
fn the_ellipsoid_scales_of_the_settings_file_scale_the_fitted_ellipsoids() {
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        naming: Naming::Mixamo,
        clips: Vec::new(),
        ..RigStyle::default()
    };
    let path = write_rig(dir.path(), "m.glb", &style);
    let plain = open(&path);
    let mut settings = CharacterSettings::default();
    settings.ellipsoid_scale.insert(Role::Chest, 1.2);
    let map = dir.path().join("map.json");
    settings.save(&map).unwrap();
    let scaled = Character::open(&path, Some(&map)).unwrap();
    let chest = |c: &Character| c.ellipsoid("chest").unwrap().radii;
    assert!((chest(&scaled) - chest(&plain) * 1.2).length() < 1e-5);
    assert_eq!(scaled.ellipsoid("hips"), plain.ellipsoid("hips"));
    // Fitted inside the skin: no body vertex is inside any ellipsoid at rest.
    let mut model = Vec::new();
    plain
        .skeleton
        .rest_pose()
        .compute_model(&plain.skeleton, &mut model);
    for e in &plain.ellipsoids {
        let posed = e.posed(&model);
        let inside = plain
            .mesh
            .positions
            .iter()
            .filter(|p| posed.contains(**p))
            .count();
        assert_eq!(inside, 0, "{}: {inside} skin vertices inside", e.name);
        assert!(
            e.radii.min_element() > 0.02,
            "{}: radii {}",
            e.name,
            e.radii
        );
    }
}

#[test]
fn bad_files_are_clear_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let expect = |path: &Path, words: &[&str]| {
        let err = Character::open(path, None).unwrap_err().to_string();
        for w in words {
            assert!(err.contains(w), "expected `{w}` in: {err}");
        }
    };
    let text = write("notes.glb", b"these are my notes, not a character");
    expect(&text, &["notes.glb", "neither a glTF binary"]);
    let no_skin = write(
        "box.gltf",
        br#"{"asset":{"version":"2.0"},"nodes":[{"name":"box"}],"scenes":[{"nodes":[0]}]}"#,
    );
    expect(&no_skin, &["box.gltf", "no skin"]);
    expect(&dir.path().join("missing.glb"), &["missing.glb"]);

    // A clip with a NaN key.
    let style = RigStyle {
        naming: Naming::Mixamo,
        ..RigStyle::default()
    };
    let (json, mut bin) = test_rig_gltf(&style, "nan.bin");
    let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let acc = doc["animations"][0]["samplers"][1]["output"]
        .as_u64()
        .unwrap() as usize;
    let view = doc["accessors"][acc]["bufferView"].as_u64().unwrap() as usize;
    let offset = doc["bufferViews"][view]["byteOffset"].as_u64().unwrap() as usize;
    bin[offset + 8..offset + 12].copy_from_slice(&f32::NAN.to_le_bytes());
    write("nan.bin", &bin);
    let nan = write("nan.gltf", &json);
    expect(&nan, &["nan.gltf", "clip 'walk'", "non-finite"]);

    // A bone map naming a bone the file does not have.
    let rig = write_rig(dir.path(), "hero.glb", &style);
    std::fs::write(
        CharacterSettings::path_beside(&rig),
        r#"{ "bones": { "pelvis": "mixamorig:Pelvis" } }"#,
    )
    .unwrap();
    expect(
        &rig,
        &["hero.glb", "mixamorig:Pelvis", "pelvis", "mixamorig:Hips"],
    );
    // A settings file with a scale out of range names the field and the range.
    std::fs::write(
        CharacterSettings::path_beside(&rig),
        r#"{ "ellipsoid_scale": { "chest": 7 } }"#,
    )
    .unwrap();
    expect(
        &rig,
        &[
            "hero.cloth-character.json",
            "ellipsoid_scale.chest",
            "0.5 to 2",
        ],
    );

    // A 200 MB file is refused before it is read.
    let huge = dir.path().join("huge.glb");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(200_000_000)
        .unwrap();
    expect(&huge, &["huge.glb", "200 MB"]);
}
