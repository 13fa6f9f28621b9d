//! Bone roles on test rigs the asset generator writes, loaded through the public path
//! (`Character::open`): names first (Mixamo and Unreal names on skeletons shaped like theirs),
//! then the skeleton's shape where names say nothing (a public rig's `leg_joint_L_1` names,
//! made-up words, joints in a shuffled order, a rig turned to face another way, Z-up), every
//! role compared with the bone the generator built for it; and a skeleton with no humanoid
//! shape, refused with a message naming what is missing and why.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cloth_tuner::character::{Character, CharacterSettings, RigError, Role};
use cloth_tuner_assets::test_rig::{rig_bone_names, role_bones, test_rig_glb, Naming, RigStyle};
use glam::Quat;

fn write_rig(dir: &Path, name: &str, style: &RigStyle) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, test_rig_glb(style)).unwrap();
    path
}

/// A rig with no clip of its own and a coarse skin: the roles and the rest pose are what
/// these tests read.
fn rig(naming: Naming) -> RigStyle {
    RigStyle {
        naming,
        clips: Vec::new(),
        cell: 0.03,
        ..RigStyle::default()
    }
}

/// The bones a Mixamo skeleton has beyond ours: finger chains, toes with an end, a head-top
/// end and a third spine bone.
fn mixamo_like(naming: Naming) -> RigStyle {
    RigStyle {
        fingers: 3,
        toes: 2,
        head_end: true,
        upper_spine: true,
        ..rig(naming)
    }
}

/// The bones an Unreal mannequin has beyond ours: the ball of the foot and a third spine bone
/// (its twist bones are ours too).
fn unreal_like(naming: Naming) -> RigStyle {
    RigStyle {
        toes: 1,
        upper_spine: true,
        ..rig(naming)
    }
}

fn role(name: &str) -> Role {
    *Role::REQUIRED
        .iter()
        .find(|r| r.name() == name)
        .unwrap_or_else(|| panic!("no role {name}"))
}

/// Every required role plays the bone the generator built for it.
fn assert_roles(c: &Character, style: &RigStyle, what: &str) {
    let names = rig_bone_names(style);
    for (r, builtin) in role_bones(style) {
        let want = &names.iter().find(|(_, b)| b == builtin).unwrap().0;
        let got = &c.skeleton.bones()[c.roles.bone(role(r))].name;
        assert_eq!(got, want, "{what}: {r} plays {got}, built as {builtin}");
    }
}

/// Stands facing +Z with its left hand at +X and its toes ahead of its ankles, as it does
/// only when left and right were told apart rightly.
fn assert_faces_forward(c: &Character, what: &str) {
    let mut model = Vec::new();
    c.skeleton
        .rest_pose()
        .compute_model(&c.skeleton, &mut model);
    let at = |r: Role| model[c.roles.bone(r)].w_axis.truncate();
    assert!(
        at(Role::HandL).x > 0.3,
        "{what}: left hand at {}",
        at(Role::HandL)
    );
    assert!(
        at(Role::ThighL).x > 0.05,
        "{what}: left thigh at {}",
        at(Role::ThighL)
    );
    assert!(
        at(Role::Head).y > at(Role::Pelvis).y + 0.4,
        "{what}: head above pelvis"
    );
    let toes = c
        .mesh
        .positions
        .iter()
        .filter(|p| p.y < 0.08)
        .map(|p| p.z)
        .fold(f32::MIN, f32::max);
    assert!(toes > 0.12, "{what}: toes at z = {toes}");
}

fn open(path: &Path) -> Character {
    Character::open(path, None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn mixamo_and_unreal_names_give_every_role_and_the_shape_is_not_asked() {
    let dir = tempfile::tempdir().unwrap();
    for (what, style) in [
        ("mixamo", mixamo_like(Naming::Mixamo)),
        ("unreal", unreal_like(Naming::Unreal)),
    ] {
        let c = open(&write_rig(dir.path(), &format!("{what}.glb"), &style));
        assert_roles(&c, &style, what);
        assert_eq!(c.roles.by_shape(), [], "{what}");
        assert_faces_forward(&c, what);
    }
}

#[test]
fn a_public_rigs_joint_names_give_every_role_by_shape() {
    let dir = tempfile::tempdir().unwrap();
    let style = mixamo_like(Naming::Joints);
    let path = write_rig(dir.path(), "public.glb", &style);
    let c = open(&path);
    assert!(c.skeleton.find("leg_joint_L_1").is_some());
    assert_roles(&c, &style, "joints");
    assert_eq!(c.roles.by_shape(), Role::REQUIRED.to_vec());
    assert_faces_forward(&c, "joints");
    // Twist roles come from names only; these names do not give them.
    for r in Role::OPTIONAL {
        assert_eq!(c.roles.get(r), None, "{r:?}");
    }
}

#[test]
fn made_up_names_give_every_role_by_shape_on_mixamo_and_unreal_like_skeletons() {
    let dir = tempfile::tempdir().unwrap();
    for (what, style) in [
        ("mixamo-like", mixamo_like(Naming::Meaningless)),
        ("unreal-like", unreal_like(Naming::Meaningless)),
        ("built-in shape", rig(Naming::Meaningless)),
    ] {
        let c = open(&write_rig(dir.path(), "made_up.glb", &style));
        assert_roles(&c, &style, what);
        assert_eq!(c.roles.by_shape(), Role::REQUIRED.to_vec(), "{what}");
        assert_faces_forward(&c, what);
    }
}

#[test]
fn joints_in_a_shuffled_order_give_the_same_roles() {
    let dir = tempfile::tempdir().unwrap();
    for (what, naming) in [("made up", Naming::Meaningless), ("mixamo", Naming::Mixamo)] {
        let style = RigStyle {
            shuffled: true,
            clips: vec!["walk".into()],
            ..mixamo_like(naming)
        };
        let plain = RigStyle {
            shuffled: false,
            ..style.clone()
        };
        let shuffled = open(&write_rig(dir.path(), "shuffled.glb", &style));
        let ordered = open(&write_rig(dir.path(), "ordered.glb", &plain));
        // The file's order differs, so does the skeleton's: the roles follow the bones.
        let order = |c: &Character| c.bone_names().map(str::to_string).collect::<Vec<_>>();
        assert_ne!(order(&shuffled), order(&ordered), "{what}: not shuffled");
        assert_roles(&shuffled, &style, what);
        assert_faces_forward(&shuffled, what);
        let at_rest = |c: &Character| {
            let mut model = Vec::new();
            c.skeleton
                .rest_pose()
                .compute_model(&c.skeleton, &mut model);
            model
        };
        let (a, b) = (at_rest(&shuffled), at_rest(&ordered));
        for r in Role::REQUIRED {
            let (pa, pb) = (
                a[shuffled.roles.bone(r)].w_axis,
                b[ordered.roles.bone(r)].w_axis,
            );
            assert!((pa - pb).length() < 1e-4, "{what}: {r:?} at {pa} and {pb}");
        }
    }
}

#[test]
fn a_rig_facing_another_way_or_z_up_is_read_from_its_feet_and_axes() {
    let dir = tempfile::tempdir().unwrap();
    // Facing +X or -X in the file, no toe bones: the feet's skin says where forward is
    // (glTF's +Z would leave the sides a tie; in the shuffled file the right leg comes first).
    let turn = |angle: f32, shuffled: bool| RigStyle {
        rotation: Quat::from_rotation_y(angle),
        shuffled,
        ..rig(Naming::Meaningless)
    };
    let quarter = std::f32::consts::FRAC_PI_2;
    // Blender's axes in centimetres: up +Z, facing -Y.
    let z_up = RigStyle {
        rotation: Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        units_per_metre: 100.0,
        ..rig(Naming::Meaningless)
    };
    for (what, style) in [
        ("facing +X", turn(quarter, false)),
        ("facing -X", turn(-quarter, false)),
        ("facing +X, shuffled", turn(quarter, true)),
        ("z-up", z_up),
    ] {
        let c = open(&write_rig(dir.path(), &format!("{what}.glb"), &style));
        assert_roles(&c, &style, what);
        assert_faces_forward(&c, what);
    }
}

#[test]
fn a_skeleton_with_no_humanoid_shape_is_refused_naming_what_is_missing_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        chain: true,
        ..rig(Naming::Meaningless)
    };
    let path = write_rig(dir.path(), "chain.glb", &style);
    let err = Character::open(&path, None).unwrap_err();
    let RigError::MissingRoles { missing, found, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(missing, &Role::REQUIRED.to_vec());
    assert_eq!(found.roles, []);
    assert!(found.shape.contains("leg chains"), "{}", found.shape);
    let msg = err.to_string();
    for words in [
        "chain.glb",
        "no bone found for pelvis, spine, chest",
        "nor does the skeleton's shape",
        "bone map",
    ] {
        assert!(msg.contains(words), "expected `{words}` in: {msg}");
    }
}

#[test]
fn a_bone_map_keeps_priority_and_its_side_decides_the_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let style = rig(Naming::Meaningless);
    let path = write_rig(dir.path(), "mapped.glb", &style);
    let names = rig_bone_names(&style);
    let called = |builtin: &str| names.iter().find(|(_, b)| b == builtin).unwrap().0.clone();
    // The map calls the right thigh the left one (the artist's choice, say).
    let mut settings = CharacterSettings::default();
    settings.bones.insert(Role::ThighL, called("thigh_r"));
    settings.bones.insert(Role::Head, called("head"));
    settings
        .save(&CharacterSettings::path_beside(&path))
        .unwrap();
    let c = open(&path);
    let bone = |r: Role| c.skeleton.bones()[c.roles.bone(r)].name.clone();
    assert_eq!(bone(Role::ThighL), called("thigh_r"));
    assert_eq!(bone(Role::ThighR), called("thigh_l"));
    assert_eq!(
        bone(Role::ShinL),
        called("calf_r"),
        "the shape follows the map's side"
    );
    // The arms follow the same left, so the body stays one mirror image or the other.
    assert_eq!(bone(Role::UpperarmL), called("upperarm_r"));
    assert_eq!(bone(Role::Head), called("head"));
    let by_shape = c.roles.by_shape();
    assert!(!by_shape.contains(&Role::ThighL) && !by_shape.contains(&Role::Head));
    assert!(by_shape.contains(&Role::ShinL) && by_shape.contains(&Role::Pelvis));
    assert_eq!(by_shape.len(), Role::REQUIRED.len() - 2);
}

#[test]
fn simulate_names_the_roles_found_by_shape_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let style = RigStyle {
        clips: vec!["walk".into()],
        ..rig(Naming::Joints)
    };
    let c = Arc::new(open(&write_rig(dir.path(), "public.glb", &style)));
    let preset = cloth_tuner::preset::Preset::load(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("presets/tweed.json"),
    )
    .unwrap();
    let m = cloth_tuner::scene::metrics::simulate(c, &preset, "walk", 0.1).unwrap();
    assert_eq!(m.roles_by_shape, Role::REQUIRED.to_vec());
    let json = serde_json::to_value(&m).unwrap();
    assert_eq!(json["roles_by_shape"][0], "pelvis");
    assert_eq!(json["roles_by_shape"].as_array().map(Vec::len), Some(15));
    let text = m.to_text();
    assert!(
        text.contains("roles by shape          pelvis, spine"),
        "{text}"
    );
    // Names say every role of the built-in character: nothing to report.
    let builtin = Arc::new(Character::builtin());
    let m = cloth_tuner::scene::metrics::simulate(builtin, &preset, "walk", 0.1).unwrap();
    assert!(serde_json::to_value(&m)
        .unwrap()
        .get("roles_by_shape")
        .is_none());
    assert!(!m.to_text().contains("roles by shape"));
}
