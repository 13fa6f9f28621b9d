//! Characters for the tuner's import tests: the built-in mannequin written the ways other
//! tools write a humanoid. Bones renamed after a naming convention, the body scaled to another
//! height, the data in centimetres or Z-up, an armature node above the root, a subset of the
//! clips, no collision ellipsoids (the tuner fits them), and a generator string other than
//! ours so the tuner takes the import path. As `.glb` bytes, or as `.gltf` JSON with an
//! external `.bin` buffer.

use glam::{Quat, Vec3};
use serde_json::Value;

use crate::body::{self, BodyMesh};
use crate::frame::Frame;
use crate::garment::{self, GarmentKind};
use crate::motion::{self, BakedClip};

/// The generator string of test rigs.
pub const TEST_GENERATOR: &str = "cloth-tuner make-assets test rig";

/// How bones are named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// The built-in names (`pelvis`, `upperarm_l`).
    Builtin,
    /// Mixamo: `mixamorig:Hips`, `mixamorig:LeftUpLeg`, ...
    Mixamo,
    /// The Unreal mannequin: `pelvis`, `spine_01`, `lowerarm_l`, ...
    Unreal,
    /// Names no convention knows (`Bone.007`): the tuner needs a bone map.
    Unknown,
}

/// How a test rig differs from the built-in character.
#[derive(Clone, Debug)]
pub struct RigStyle {
    pub naming: Naming,
    /// Height of the body relative to the built-in's 1.80 m.
    pub scale: f32,
    /// Length units per metre in the data (100: centimetres).
    pub units_per_metre: f32,
    /// Rotation applied to all the data (`Quat::from_rotation_x(FRAC_PI_2)`: Z-up).
    pub rotation: Quat,
    /// A node above the root bone with this rotation and scale.
    pub armature: Option<(Quat, Vec3)>,
    /// The built-in clips to include, by name (empty: none, the file is only a bind pose).
    pub clips: Vec<String>,
    /// Grid spacing of the body's surface, metres (the built-in's 0.016 gives about 13,000
    /// vertices; 0.009 about 40,000).
    pub cell: f32,
    /// Finger bones added under each hand, in a chain (no vertex follows them): for a
    /// skeleton as large as a production rig's.
    pub fingers: usize,
    /// Garments written into the file beside the body: a mesh node each, named after it,
    /// bound to the body's skin (empty: none).
    pub garments: Vec<GarmentKind>,
}

impl Default for RigStyle {
    fn default() -> Self {
        Self {
            naming: Naming::Builtin,
            scale: 1.0,
            units_per_metre: 1.0,
            rotation: Quat::IDENTITY,
            armature: None,
            clips: vec!["walk".into()],
            cell: 0.016,
            fingers: 0,
            garments: Vec::new(),
        }
    }
}

/// The built-in name of bone `i` in another convention.
pub fn bone_name(naming: Naming, builtin: &str, index: usize) -> String {
    let (base, side) = match builtin.rsplit_once('_') {
        Some((b, "l")) => (b, Some(("Left", "l"))),
        Some((b, "r")) => (b, Some(("Right", "r"))),
        _ => (builtin, None),
    };
    match naming {
        Naming::Builtin => builtin.to_string(),
        Naming::Unknown => format!("Bone.{index:03}"),
        Naming::Mixamo => {
            let name = match base {
                "root" => "Root",
                "pelvis" => "Hips",
                "spine" => "Spine",
                "chest" => "Spine1",
                "neck" => "Neck",
                "head" => "Head",
                "clavicle" => "Shoulder",
                "upperarm" => "Arm",
                "upperarm_twist" => "ArmRoll",
                "forearm" => "ForeArm",
                "forearm_twist" => "ForeArmRoll",
                "hand" => "Hand",
                "thigh" => "UpLeg",
                "calf" => "Leg",
                "foot" => "Foot",
                other => other,
            };
            format!("mixamorig:{}{name}", side.map_or("", |s| s.0))
        }
        Naming::Unreal => {
            let name = match base {
                "spine" => "spine_01",
                "chest" => "spine_02",
                "neck" => "neck_01",
                "upperarm_twist" => "upperarm_twist_01",
                "forearm" => "lowerarm",
                "forearm_twist" => "lowerarm_twist_01",
                other => other,
            };
            match side {
                Some((_, s)) => format!("{name}_{s}"),
                None => name.to_string(),
            }
        }
    }
}

/// The test rig's document (buffer without a URI) and binary buffer.
fn styled(style: &RigStyle) -> (Value, Vec<u8>) {
    let mut bones = body::bones();
    let mut mesh = body::body_mesh_at(&bones, style.cell);
    let mut garments = garment::garment_meshes(&style.garments, &bones, &mesh);
    add_fingers(&mut bones, style.fingers);
    let names: Vec<&str> = style.clips.iter().map(String::as_str).collect();
    let mut clips = motion::clips_named(&bones, &names);
    let f = style.scale * style.units_per_metre;
    let r = style.rotation;
    let point = |p: Vec3| r * p * f;
    transform_mesh(&mut mesh, r, point);
    for g in &mut garments {
        g.transform(r, point);
    }
    for clip in &mut clips {
        transform_clip(clip, r, point);
    }
    for (i, b) in bones.iter_mut().enumerate() {
        b.pos = point(b.pos);
        b.name = bone_name(style.naming, &b.name, i);
    }
    let (mut doc, mut bin) =
        crate::document(&bones, &mesh, &[], &clips, TEST_GENERATOR, style.armature);
    garment::append_garments(&mut doc, &mut bin, &garments);
    (doc, bin)
}

/// `count` bones in a chain below each hand, 2 cm apart along the arm.
pub(crate) fn add_fingers(bones: &mut Vec<body::BoneDef>, count: usize) {
    for side in 0..2 {
        let mut parent = body::b::hand(side);
        for k in 0..count {
            let pos = bones[parent].pos + body::arm_dir(side) * 0.02;
            bones.push(body::BoneDef {
                name: format!("finger{k}_{}", if side == 0 { "l" } else { "r" }),
                parent: Some(parent),
                pos,
            });
            parent = bones.len() - 1;
        }
    }
}

fn transform_mesh(mesh: &mut BodyMesh, r: Quat, point: impl Fn(Vec3) -> Vec3) {
    for p in &mut mesh.positions {
        *p = point(*p);
    }
    for n in &mut mesh.normals {
        *n = r * *n;
    }
}

/// The clip seen through the similarity `point` (rotation `r`): every rotation conjugated,
/// every translation mapped (bones rest unrotated, so local and world axes agree).
fn transform_clip(clip: &mut BakedClip, r: Quat, point: impl Fn(Vec3) -> Vec3) {
    let conj = |q: Quat| (r * q * r.inverse()).normalize();
    for f in &mut clip.root {
        *f = Frame::new(conj(f.rotation), point(f.translation));
    }
    for p in &mut clip.pelvis {
        *p = point(*p);
    }
    for rot in &mut clip.rotations {
        for q in rot.iter_mut() {
            *q = conj(*q);
        }
    }
}

/// A test rig as `.glb` bytes.
pub fn test_rig_glb(style: &RigStyle) -> Vec<u8> {
    let (doc, bin) = styled(style);
    crate::glb(serde_json::to_vec(&doc).unwrap_or_default(), bin)
}

/// A test rig as `.gltf` JSON whose buffer is the external file `bin_uri`, and that file's
/// bytes.
pub fn test_rig_gltf(style: &RigStyle, bin_uri: &str) -> (Vec<u8>, Vec<u8>) {
    let (mut doc, bin) = styled(style);
    doc["buffers"][0]["uri"] = Value::from(bin_uri);
    (serde_json::to_vec_pretty(&doc).unwrap_or_default(), bin)
}

/// The name a convention gives the built-in bone `builtin` (`None`: no such bone).
pub fn bone_called(naming: Naming, builtin: &str) -> Option<String> {
    body::bones()
        .iter()
        .position(|b| b.name == builtin)
        .map(|i| bone_name(naming, builtin, i))
}

/// What a bone map names for a rig whose bone names give no roles: each role as the map
/// writes it, with the built-in bone that plays it. The spine, chest and hands follow from
/// the hierarchy.
pub const MAPPED_ROLES: [(&str, &str); 11] = [
    ("pelvis", "pelvis"),
    ("neck", "neck"),
    ("head", "head"),
    ("upperarm_l", "upperarm_l"),
    ("upperarm_r", "upperarm_r"),
    ("forearm_l", "forearm_l"),
    ("forearm_r", "forearm_r"),
    ("thigh_l", "thigh_l"),
    ("thigh_r", "thigh_r"),
    ("shin_l", "calf_l"),
    ("shin_r", "calf_r"),
];

/// The bone names of a convention, in the built-in skeleton's order.
pub fn bone_names(naming: Naming) -> Vec<String> {
    body::bones()
        .iter()
        .enumerate()
        .map(|(i, b)| bone_name(naming, &b.name, i))
        .collect()
}
