//! Characters for the tuner's import tests: the built-in mannequin written the ways other
//! tools write a humanoid. Bones renamed after a naming convention, the body scaled to another
//! height, the data in centimetres or Z-up, an armature node above the root, a subset of the
//! clips, no collision ellipsoids (the tuner fits them), and a generator string other than
//! ours so the tuner takes the import path. Bones other rigs have and ours lacks (toes, finger
//! chains, a head-top end, an upper spine bone) can be added, the file's nodes and joints
//! written in a shuffled order, or the hierarchy flattened into one chain (no humanoid shape
//! at all), for the tests of roles found from the skeleton's shape. The body can take other
//! proportions ([`Proportions`]: a robot, a soldier, a T-pose bind, long arms, ...). As `.glb`
//! bytes, or as `.gltf` JSON with an external `.bin` buffer.

use glam::{Quat, Vec3};
use serde_json::{json, Value};

use crate::body::{self, BodyMesh};
use crate::frame::Frame;
use crate::garment::{self, GarmentKind};
use crate::motion::{self, BakedClip};
use crate::proportions::Proportions;

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
    /// Names no convention knows (`Bone.007`), numbered in the built-in order.
    Unknown,
    /// Words that hint without naming a role, as a public rig writes them:
    /// `Skeleton_torso_joint_1`, `leg_joint_L_1`, `Skeleton_arm_joint_R`,
    /// `Skeleton_neck_joint_2`.
    Joints,
    /// Made-up words with no hint at all (`Kavomi`), in no order.
    Meaningless,
}

/// How a test rig differs from the built-in character.
#[derive(Clone, Debug)]
pub struct RigStyle {
    pub naming: Naming,
    /// Height of the body relative to the built-in's 1.80 m (on top of
    /// [`Proportions::height`]).
    pub scale: f32,
    /// The body's proportions: limb lengths, widths, the bind pose's arm angle, its height
    /// (default: the mannequin's). Write no clips with proportions other than the default (the
    /// built-in clips are solved for the mannequin's limbs; the tuner retargets them).
    pub proportions: Proportions,
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
    /// Toe bones added under each foot, in a chain forward (no vertex follows them), as
    /// Mixamo's `ToeBase` and `Toe_End` or Unreal's `ball`.
    pub toes: usize,
    /// A bone above the head with no vertex (Mixamo's `HeadTop_End`).
    pub head_end: bool,
    /// An upper spine bone between the chest and the neck, below the shoulders (Mixamo's
    /// `Spine2`, Unreal's `spine_03`): the neck hangs from it, so it plays the chest.
    pub upper_spine: bool,
    /// The nodes and the skin's joints written in a shuffled (fixed) order.
    pub shuffled: bool,
    /// Every bone the child of the one before it: one chain, no humanoid shape (write no
    /// clips with it; the clips assume the humanoid hierarchy).
    pub chain: bool,
}

impl Default for RigStyle {
    fn default() -> Self {
        Self {
            naming: Naming::Builtin,
            scale: 1.0,
            proportions: Proportions::default(),
            units_per_metre: 1.0,
            rotation: Quat::IDENTITY,
            armature: None,
            clips: vec!["walk".into()],
            cell: 0.016,
            fingers: 0,
            garments: Vec::new(),
            toes: 0,
            head_end: false,
            upper_spine: false,
            shuffled: false,
            chain: false,
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
        Naming::Joints => joints_name(base, side.map(|s| s.1.to_uppercase())),
        Naming::Meaningless => made_up_word(index),
        Naming::Mixamo => {
            let name = match base {
                "root" => "Root",
                "pelvis" => "Hips",
                "spine" => "Spine",
                "chest" => "Spine1",
                "chest_upper" => "Spine2",
                "head_end" => "HeadTop_End",
                "toe" => "ToeBase",
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
                "chest_upper" => "spine_03",
                "toe" => "ball",
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

/// A public rig's names: a body part, `joint`, the side and a number along the part
/// (`base` is the built-in name without its side).
fn joints_name(base: &str, side: Option<String>) -> String {
    let (part, number) = match base {
        "root" => ("Skeleton_root", None),
        "pelvis" => ("Skeleton_torso", Some(1)),
        "spine" => ("Skeleton_torso", Some(2)),
        "chest" => ("Skeleton_torso", Some(3)),
        "chest_upper" => ("Skeleton_torso", Some(4)),
        "neck" => ("Skeleton_neck", Some(1)),
        "head" => ("Skeleton_neck", Some(2)),
        "head_end" => ("Skeleton_neck", Some(3)),
        "clavicle" => ("Skeleton_arm", None),
        "upperarm" => ("Skeleton_arm", Some(2)),
        "upperarm_twist" => ("Skeleton_arm_twist", Some(2)),
        "forearm" => ("Skeleton_arm", Some(3)),
        "forearm_twist" => ("Skeleton_arm_twist", Some(3)),
        "hand" => ("Skeleton_hand", None),
        "thigh" => ("leg", Some(1)),
        "calf" => ("leg", Some(2)),
        "foot" => ("leg", Some(3)),
        "toe" => ("leg", Some(4)),
        other => (other, None),
    };
    let mut name = format!("{part}_joint");
    if let Some(s) = side {
        name = format!("{name}_{s}");
    }
    if let Some(n) = number {
        name = format!("{name}_{n}");
    }
    name
}

/// A word of three syllables made from `index`, different for every index below 216,000,
/// with no separator, digit or capital inside it, so it splits into no shorter words.
fn made_up_word(index: usize) -> String {
    const SYLLABLES: [&str; 60] = [
        "ba", "be", "bi", "bo", "bu", "da", "de", "di", "do", "du", "fa", "fe", "fi", "fo", "fu",
        "ga", "ge", "gi", "go", "gu", "ka", "ke", "ki", "ko", "ku", "ma", "me", "mi", "mo", "mu",
        "na", "ne", "ni", "no", "nu", "pa", "pe", "pi", "po", "pu", "sa", "se", "si", "so", "su",
        "ta", "te", "ti", "to", "tu", "va", "ve", "vi", "vo", "vu", "za", "ze", "zi", "zo", "zu",
    ];
    // 7919 is prime and does not divide 60³, so the map from index to code is one to one.
    let code = (index * 7919 + 104_729) % (60 * 60 * 60);
    let word: String = [code / 3600, code / 60 % 60, code % 60]
        .iter()
        .map(|&i| SYLLABLES[i])
        .collect();
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// The test rig's document (buffer without a URI) and binary buffer.
fn styled(style: &RigStyle) -> (Value, Vec<u8>) {
    let mut bones = body::bones_with(&style.proportions);
    let mut mesh = body::body_mesh_with(&bones, style.cell, &style.proportions);
    let mut garments = garment::garment_meshes(&style.garments, &bones, &mesh);
    add_fingers(&mut bones, style.fingers);
    let names: Vec<&str> = style.clips.iter().map(String::as_str).collect();
    let mut clips = motion::clips_named(&bones, &names);
    // After the clips, which solve the built-in hierarchy; an extra bone has no key and
    // stays at rest, so every other bone moves as before.
    add_extras(&mut bones, style);
    let f = style.scale * style.proportions.height_scale() * style.units_per_metre;
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
        if style.chain {
            b.parent = i.checked_sub(1);
        }
    }
    let (mut doc, mut bin) =
        crate::document(&bones, &mesh, &[], &clips, TEST_GENERATOR, style.armature);
    garment::append_garments(&mut doc, &mut bin, &garments);
    if style.shuffled {
        shuffle(&mut doc, &mut bin);
    }
    (doc, bin)
}

/// The bones of `style` the built-in skeleton lacks, after it (no vertex follows them).
fn add_extras(bones: &mut Vec<body::BoneDef>, style: &RigStyle) {
    for side in 0..2 {
        let sfx = if side == 0 { "l" } else { "r" };
        let mut parent = body::b::foot(side);
        for k in 0..style.toes {
            let name = if k == 0 {
                format!("toe_{sfx}")
            } else {
                format!("toe{k}_{sfx}")
            };
            // The ball of the foot, then on along the toes.
            let step = if k == 0 {
                Vec3::new(0.0, -0.07, 0.12)
            } else {
                Vec3::new(0.0, 0.0, 0.05)
            };
            let pos = bones[parent].pos + step;
            bones.push(body::BoneDef {
                name,
                parent: Some(parent),
                pos,
            });
            parent = bones.len() - 1;
        }
    }
    if style.head_end {
        let pos = bones[body::b::HEAD].pos + Vec3::new(0.0, 0.2, 0.0);
        bones.push(body::BoneDef {
            name: "head_end".into(),
            parent: Some(body::b::HEAD),
            pos,
        });
    }
    if style.upper_spine {
        let (chest, neck) = (bones[body::b::CHEST].pos, bones[body::b::NECK].pos);
        bones.push(body::BoneDef {
            name: "chest_upper".into(),
            parent: Some(body::b::CHEST),
            pos: Vec3::new(0.0, chest.y + 0.5 * (neck.y - chest.y), 0.0),
        });
        bones[body::b::NECK].parent = Some(bones.len() - 1);
    }
}

/// A fixed shuffle of `0..n`: where each index goes.
pub(crate) fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state = seed;
    for i in (1..n).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        order.swap(i, (state >> 33) as usize % (i + 1));
    }
    order
}

/// Writes the nodes, and the skin's joint list, in a shuffled order: every index that points
/// at a node or a joint follows (children, the scene, the skin, the animation targets, the
/// inverse bind matrices and the vertices' joints).
fn shuffle(doc: &mut Value, bin: &mut [u8]) {
    let nodes = doc["nodes"].as_array().cloned().unwrap_or_default();
    let to = permutation(nodes.len(), 0x5eed);
    let moved = |v: &Value| json!(v.as_u64().map_or(0, |i| to[i as usize]));
    let mut shuffled = vec![Value::Null; nodes.len()];
    for (i, mut node) in nodes.into_iter().enumerate() {
        if let Some(children) = node.get_mut("children").and_then(Value::as_array_mut) {
            for c in children.iter_mut() {
                *c = moved(c);
            }
        }
        shuffled[to[i]] = node;
    }
    doc["nodes"] = Value::Array(shuffled);
    for list in ["/scenes/0/nodes", "/skins/0/joints"] {
        if let Some(items) = doc.pointer_mut(list).and_then(Value::as_array_mut) {
            for n in items.iter_mut() {
                *n = moved(n);
            }
        }
    }
    if let Some(root) = doc.pointer_mut("/skins/0/skeleton") {
        *root = moved(root);
    }
    if let Some(anims) = doc["animations"].as_array_mut() {
        for channel in anims.iter_mut().flat_map(|a| {
            a["channels"]
                .as_array_mut()
                .map(|c| c.iter_mut())
                .into_iter()
                .flatten()
        }) {
            channel["target"]["node"] = moved(&channel["target"]["node"]);
        }
    }
    shuffle_joints(doc, bin);
}

/// The skin's joint list in a shuffled order, its inverse bind matrices and the vertices'
/// joint indices with it.
fn shuffle_joints(doc: &mut Value, bin: &mut [u8]) {
    let joints = doc["skins"][0]["joints"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let to = permutation(joints.len(), 0xfeed);
    let mut shuffled = vec![Value::Null; joints.len()];
    for (k, j) in joints.into_iter().enumerate() {
        shuffled[to[k]] = j;
    }
    doc["skins"][0]["joints"] = Value::Array(shuffled);
    // Where an accessor's data starts in the buffer.
    let start = |doc: &Value, accessor: &Value| -> Option<usize> {
        let a = &doc["accessors"][accessor.as_u64()? as usize];
        let view = &doc["bufferViews"][a["bufferView"].as_u64()? as usize];
        Some(view["byteOffset"].as_u64().unwrap_or(0) as usize)
    };
    if let Some(at) = start(doc, &doc["skins"][0]["inverseBindMatrices"]) {
        let old: Vec<u8> = bin[at..at + 64 * to.len()].to_vec();
        for (k, &t) in to.iter().enumerate() {
            bin[at + 64 * t..at + 64 * (t + 1)].copy_from_slice(&old[64 * k..64 * (k + 1)]);
        }
    }
    let meshes = doc["meshes"].as_array().cloned().unwrap_or_default();
    for prim in meshes
        .iter()
        .flat_map(|m| m["primitives"].as_array().cloned().unwrap_or_default())
    {
        let accessor = &prim["attributes"]["JOINTS_0"];
        let (Some(at), Some(count)) = (
            start(doc, accessor),
            accessor
                .as_u64()
                .and_then(|a| doc["accessors"][a as usize]["count"].as_u64()),
        ) else {
            continue;
        };
        for v in 0..4 * count as usize {
            let o = at + 2 * v;
            let j = u16::from_le_bytes([bin[o], bin[o + 1]]) as usize;
            bin[o..o + 2].copy_from_slice(&(to[j] as u16).to_le_bytes());
        }
    }
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

/// Every required role (as files write it) with the built-in bone that plays it on a test rig
/// of `style`: the upper spine bone is the chest where the rig has one.
pub fn role_bones(style: &RigStyle) -> [(&'static str, &'static str); 15] {
    let chest = if style.upper_spine {
        "chest_upper"
    } else {
        "chest"
    };
    [
        ("pelvis", "pelvis"),
        ("spine", "spine"),
        ("chest", chest),
        ("neck", "neck"),
        ("head", "head"),
        ("upperarm_l", "upperarm_l"),
        ("upperarm_r", "upperarm_r"),
        ("forearm_l", "forearm_l"),
        ("forearm_r", "forearm_r"),
        ("hand_l", "hand_l"),
        ("hand_r", "hand_r"),
        ("thigh_l", "thigh_l"),
        ("thigh_r", "thigh_r"),
        ("shin_l", "calf_l"),
        ("shin_r", "calf_r"),
    ]
}

/// The names a test rig of `style` gives its bones, in its skeleton's order (the built-in
/// bones, then the fingers and the extras), each with its built-in name.
pub fn rig_bone_names(style: &RigStyle) -> Vec<(String, String)> {
    let mut bones = body::bones();
    add_fingers(&mut bones, style.fingers);
    add_extras(&mut bones, style);
    bones
        .iter()
        .enumerate()
        .map(|(i, b)| (bone_name(style.naming, &b.name, i), b.name.clone()))
        .collect()
}

/// The bone names of a convention, in the built-in skeleton's order.
pub fn bone_names(naming: Naming) -> Vec<String> {
    body::bones()
        .iter()
        .enumerate()
        .map(|(i, b)| bone_name(naming, &b.name, i))
        .collect()
}
