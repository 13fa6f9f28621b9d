//! The built-in character's generator: a mannequin (skeleton, skinned body, collision
//! ellipsoids) and its clips, written as `assets/character.glb` deterministically. For the
//! tuner's import tests it also writes the mannequin as other tools write humanoids
//! ([`test_rig`]) and garments made around it as exporters write them ([`garment`]).
//!
//! A build tool, not part of the tuner: `cargo run --release -p cloth-tuner-assets` writes the
//! file, and the tuner's `tests/character/assets.rs` checks that the committed file equals
//! [`character_glb`]'s output byte for byte. The generator uses only IEEE arithmetic and square
//! roots (no C-library trigonometry, see [`dmath`]), so the bytes do not depend on the
//! machine's libm.

pub mod body;
pub mod dmath;
pub mod frame;
pub mod garment;
pub mod motion;
pub mod proportions;
pub mod test_rig;

use glam::{Mat4, Vec3};
use serde_json::{json, Value};

use body::{BodyMesh, BoneDef, EllipsoidDef};
use motion::BakedClip;

/// Where the generated character lives, relative to the workspace root.
pub const CHARACTER_PATH: &str = "assets/character.glb";

/// Name prefix of the nodes that carry collision ellipsoids. The tuner's loader looks for the
/// same prefix; `tests/character/assets.rs` checks that it finds every ellipsoid written here.
pub const ELLIPSOID_PREFIX: &str = "ellipsoid_";

/// The complete character as glTF 2.0 binary bytes.
pub fn character_glb() -> Vec<u8> {
    let bones = body::bones();
    let mesh = body::body_mesh(&bones);
    let ellipsoids = body::ellipsoids(&bones);
    let clips = motion::clips(&bones);
    let (doc, bin) = document(&bones, &mesh, &ellipsoids, &clips, GENERATOR, None);
    glb(serde_json::to_vec(&doc).unwrap_or_default(), bin)
}

/// The built-in character in its own form with the body's surface sampled every `cell` metres
/// (the committed asset uses 0.016): the same skeleton, ellipsoids, clips and document
/// structure with fewer vertices, for tests that load it thousands of times.
pub fn character_glb_at(cell: f32) -> Vec<u8> {
    let bones = body::bones();
    let mesh = body::body_mesh_at(&bones, cell);
    let ellipsoids = body::ellipsoids(&bones);
    let clips = motion::clips(&bones);
    let (doc, bin) = document(&bones, &mesh, &ellipsoids, &clips, GENERATOR, None);
    glb(serde_json::to_vec(&doc).unwrap_or_default(), bin)
}

/// `asset.generator` of the built-in character: the tuner reads files that say it as they
/// are (root motion on the root bone, `ellipsoid_*` nodes).
pub const GENERATOR: &str = "cloth-tuner make-assets";

/// The glTF document and its binary buffer. `armature`: a node (rotation, scale) above the
/// root bone.
fn document(
    bones: &[BoneDef],
    mesh: &BodyMesh,
    ellipsoids: &[EllipsoidDef],
    clips: &[BakedClip],
    generator: &str,
    armature: Option<(glam::Quat, Vec3)>,
) -> (Value, Vec<u8>) {
    // Bone nodes first, then the body, then the ellipsoids: node i is bone i, so joint
    // indices and animation targets are bone indices.
    let mut nodes = bone_nodes(bones);
    let body_node = nodes.len();
    nodes.push(json!({ "name": "body", "mesh": 0, "skin": 0 }));
    add_ellipsoid_nodes(&mut nodes, bones, ellipsoids);
    let mut top = body::b::ROOT;
    if let Some((r, s)) = armature {
        top = nodes.len();
        nodes.push(json!({
            "name": "Armature",
            "rotation": [r.x, r.y, r.z, r.w],
            "scale": vec3(s),
            "children": [body::b::ROOT],
        }));
    }

    let mut bin = Bin::default();
    let primitive = mesh_primitive(&mut bin, mesh);
    // The bind pose is the rest pose, every bone unrotated: each inverse bind matrix undoes
    // its bone's position.
    let ibm: Vec<f32> = bones
        .iter()
        .flat_map(|b| Mat4::from_translation(-b.pos).to_cols_array())
        .collect();
    let a_ibm = bin.floats(&ibm, "MAT4", None, None);
    let animations: Vec<Value> = clips.iter().map(|clip| animation(&mut bin, clip)).collect();

    let joints: Vec<usize> = (0..bones.len()).collect();
    let doc = json!({
        "asset": {
            "version": "2.0",
            "generator": generator,
            "extras": {
                "units": "metres, +Y up, facing +Z; character space = the root bone's frame",
            },
        },
        "scene": 0,
        "scenes": [{ "name": "character", "nodes": [top, body_node] }],
        "nodes": nodes,
        "skins": [{ "name": "skeleton", "joints": joints, "skeleton": body::b::ROOT, "inverseBindMatrices": a_ibm }],
        "meshes": [{ "name": "body", "primitives": [primitive] }],
        "materials": [{
            "name": "mannequin",
            "pbrMetallicRoughness": { "baseColorFactor": [0.72, 0.70, 0.66, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.7 },
        }],
        "animations": animations,
        "buffers": [{ "byteLength": bin.data.len() }],
        "bufferViews": bin.views,
        "accessors": bin.accessors,
    });
    (doc, bin.data)
}

/// One node per bone, its rest transform a translation from the parent (every bone's rest
/// orientation is the identity).
fn bone_nodes(bones: &[BoneDef]) -> Vec<Value> {
    let mut nodes = Vec::with_capacity(bones.len());
    for (i, bone) in bones.iter().enumerate() {
        let local = bone.pos - bone.parent.map_or(Vec3::ZERO, |p| bones[p].pos);
        let mut node = json!({ "name": bone.name });
        if local != Vec3::ZERO {
            node["translation"] = vec3(local);
        }
        let children: Vec<usize> = (0..bones.len())
            .filter(|&c| bones[c].parent == Some(i))
            .collect();
        if !children.is_empty() {
            node["children"] = json!(children);
        }
        nodes.push(node);
    }
    nodes
}

/// Appends the collision ellipsoids as children of their bones: translation, rotation and
/// scale are the centre, orientation and radii in the bone's space.
fn add_ellipsoid_nodes(nodes: &mut Vec<Value>, bones: &[BoneDef], ellipsoids: &[EllipsoidDef]) {
    for e in ellipsoids {
        let node_index = nodes.len();
        let bone_pos = bones[e.bone].pos;
        nodes.push(json!({
            "name": format!("{ELLIPSOID_PREFIX}{}", e.name),
            "translation": vec3(e.centre - bone_pos),
            "rotation": [e.rotation.x, e.rotation.y, e.rotation.z, e.rotation.w],
            "scale": vec3(e.radii),
            "extras": { "cloth_tuner": "collision ellipsoid: unit sphere scaled by the radii" },
        }));
        let parent = &mut nodes[e.bone];
        match parent.get_mut("children").and_then(|c| c.as_array_mut()) {
            Some(list) => list.push(json!(node_index)),
            None => parent["children"] = json!([node_index]),
        }
    }
}

/// Writes the body mesh's vertex attributes and indices; returns its glTF primitive.
fn mesh_primitive(bin: &mut Bin, mesh: &BodyMesh) -> Value {
    let pos: Vec<f32> = mesh.positions.iter().flat_map(|p| p.to_array()).collect();
    let (lo, hi) = mesh.positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let a_pos = bin.floats(&pos, "VEC3", Some(ARRAY_BUFFER), Some((vec3(lo), vec3(hi))));
    let nrm: Vec<f32> = mesh.normals.iter().flat_map(|p| p.to_array()).collect();
    let a_nrm = bin.floats(&nrm, "VEC3", Some(ARRAY_BUFFER), None);
    let jts: Vec<u16> = mesh.joints.iter().flatten().copied().collect();
    let a_jts = bin.u16s(&jts, "VEC4", Some(ARRAY_BUFFER));
    let wts: Vec<f32> = mesh.weights.iter().flatten().copied().collect();
    let a_wts = bin.floats(&wts, "VEC4", Some(ARRAY_BUFFER), None);
    let a_idx = if mesh.positions.len() <= u16::MAX as usize {
        let idx: Vec<u16> = mesh.indices.iter().map(|&i| i as u16).collect();
        bin.u16s(&idx, "SCALAR", Some(ELEMENT_ARRAY_BUFFER))
    } else {
        bin.u32s(&mesh.indices, "SCALAR", Some(ELEMENT_ARRAY_BUFFER))
    };
    json!({
        "attributes": { "POSITION": a_pos, "NORMAL": a_nrm, "JOINTS_0": a_jts, "WEIGHTS_0": a_wts },
        "indices": a_idx,
        "material": 0,
    })
}

/// One clip as a glTF animation with linear keys: root motion on the root node, the pelvis
/// translation, every bone's rotation. The looping flag goes in the extras.
fn animation(bin: &mut Bin, clip: &BakedClip) -> Value {
    let t_min = clip.times.first().copied().unwrap_or(0.0);
    let t_max = clip.times.last().copied().unwrap_or(0.0);
    let a_time = bin.floats(
        &clip.times,
        "SCALAR",
        None,
        Some((json!([t_min]), json!([t_max]))),
    );
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    let mut add = |bin: &mut Bin, node: usize, path: &str, data: Vec<f32>, ty: &str| {
        let out = bin.floats(&data, ty, None, None);
        channels
            .push(json!({ "sampler": samplers.len(), "target": { "node": node, "path": path } }));
        samplers.push(json!({ "input": a_time, "output": out, "interpolation": "LINEAR" }));
    };
    add(
        bin,
        body::b::ROOT,
        "translation",
        clip.root
            .iter()
            .flat_map(|f| f.translation.to_array())
            .collect(),
        "VEC3",
    );
    add(
        bin,
        body::b::ROOT,
        "rotation",
        clip.root
            .iter()
            .flat_map(|f| f.rotation.to_array())
            .collect(),
        "VEC4",
    );
    add(
        bin,
        body::b::PELVIS,
        "translation",
        clip.pelvis.iter().flat_map(|p| p.to_array()).collect(),
        "VEC3",
    );
    for bone in 1..body::b::COUNT {
        let data = clip
            .rotations
            .iter()
            .flat_map(|r| r[bone].to_array())
            .collect();
        add(bin, bone, "rotation", data, "VEC4");
    }
    json!({
        "name": clip.name,
        "channels": channels,
        "samplers": samplers,
        "extras": { "looping": clip.looping },
    })
}

fn vec3(v: Vec3) -> Value {
    json!([v.x, v.y, v.z])
}

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// The binary chunk under construction: one buffer view per accessor, 4-byte aligned.
#[derive(Default)]
struct Bin {
    data: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn push(
        &mut self,
        bytes: &[u8],
        count: usize,
        component: u32,
        ty: &str,
        target: Option<u32>,
        minmax: Option<(Value, Value)>,
    ) -> usize {
        while self.data.len() % 4 != 0 {
            self.data.push(0);
        }
        let mut view =
            json!({ "buffer": 0, "byteOffset": self.data.len(), "byteLength": bytes.len() });
        if let Some(t) = target {
            view["target"] = json!(t);
        }
        self.data.extend_from_slice(bytes);
        self.views.push(view);
        let mut acc = json!({ "bufferView": self.views.len() - 1, "componentType": component, "count": count, "type": ty });
        if let Some((lo, hi)) = minmax {
            acc["min"] = lo;
            acc["max"] = hi;
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    fn floats(
        &mut self,
        v: &[f32],
        ty: &str,
        target: Option<u32>,
        minmax: Option<(Value, Value)>,
    ) -> usize {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.push(&bytes, v.len() / components(ty), 5126, ty, target, minmax)
    }

    fn u16s(&mut self, v: &[u16], ty: &str, target: Option<u32>) -> usize {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.push(&bytes, v.len() / components(ty), 5123, ty, target, None)
    }

    fn u32s(&mut self, v: &[u32], ty: &str, target: Option<u32>) -> usize {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.push(&bytes, v.len() / components(ty), 5125, ty, target, None)
    }
}

fn components(ty: &str) -> usize {
    match ty {
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        _ => 1,
    }
}

/// Wraps a JSON document and a binary chunk into a GLB container.
pub fn glb(mut json: Vec<u8>, mut bin: Vec<u8>) -> Vec<u8> {
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

/// A `.glb` written by [`glb`] taken apart again: its JSON document and its binary chunk
/// (empty when it has none), for tests that edit a written file. `None` when the bytes are
/// not such a file.
pub fn split_glb(bytes: &[u8]) -> Option<(Value, Vec<u8>)> {
    let u32_at = |o: usize| -> Option<usize> {
        let b = bytes.get(o..o + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let json_len = u32_at(12)?;
    let json = serde_json::from_slice(bytes.get(20..20 + json_len)?).ok()?;
    let bin_at = 20 + json_len;
    let bin = match u32_at(bin_at) {
        Some(len) => bytes.get(bin_at + 8..bin_at + 8 + len)?.to_vec(),
        None => Vec::new(),
    };
    Some((json, bin))
}
