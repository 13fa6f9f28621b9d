//! Any glTF 2.0 humanoid as a [`Character`]: the skin's joints, every mesh bound to that
//! skin, every animation, whatever the file's space, units and bone names.
//!
//! The file is evaluated as glTF defines it (every node transform, armature nodes, scales and
//! non-uniform parents included), then brought into character space:
//! - *orientation* from the roles: up from the knees to the head, the character's left from the
//!   right upper arm to the left one, facing left × up (snapped to the file's axes when within
//!   12°, so a Z-up or rotated armature comes out exactly upright);
//! - *units*: a body more than 20 units tall is taken as centimetres, more than 2,000 as
//!   millimetres (files that say metres but mean centimetres, as many exporters write them);
//! - *origin*: on the ground (the lowest vertex at rest) under the pelvis.
//!
//! A file cloth-tuner wrote in character space ([`CHARACTER_SPACE_GENERATOR`]: the rigged
//! garment and its baked clips) is read in its own space, so the matrices an engine poses it
//! with are the character's (the garment runtime, `export::runtime`).
//!
//! Bones become rigid frames (position and orthonormalised orientation), the body mesh is baked
//! into the rest pose, and every clip is resampled at [`SAMPLE_RATE`]. A synthetic root bone on
//! the ground carries the root motion: the pelvis projected on the ground, heading from the
//! pelvis's turn about the vertical (an in-place clip has none). The settings' bone map and
//! the VRM humanoid extension name roles the bone names do not give, and the skeleton's shape
//! in the file's rest pose gives those none of them name. The built-in clips follow
//! the file's own, retargeted through the roles; one whose name the file
//! already uses is called `builtin_<name>` (see `rig/retarget.rs`).

use std::sync::Arc;

use glam::{Mat3, Mat4, Quat, Vec3};
use gltf::accessor::Dimensions;
use gltf::animation::{Interpolation, Property};

use super::clip::{BoneTrack, Clip, Track};
use super::load::{FoundRoles, RigError};
use super::look::{Materials, MeshLook};
use super::mesh::{SkinnedMesh, WornMesh, MAX_GARMENT_VERTICES};
use super::retarget::retarget_clips;
use super::roles::{vrm_roles, Role, Roles, RolesError};
use super::roles_shape::BindPose;
use super::settings::CharacterSettings;
use super::skeleton::{Bone, Skeleton};
use super::source::Source;
use super::Character;
use crate::sim::Frame;

/// Samples per second of resampled clips.
pub const SAMPLE_RATE: f32 = 30.0;

/// Name of the synthetic root bone that carries the root motion.
pub const GROUND_BONE: &str = "cloth_tuner_ground";

/// Prefix of a retargeted built-in clip whose name the file's own clips already use.
pub const BUILTIN_CLIP_PREFIX: &str = "builtin_";

/// `asset.generator` of the files cloth-tuner writes in character space (the rigged garment
/// and its baked clips): read with no placement of their own.
pub const CHARACTER_SPACE_GENERATOR: &str = "cloth-tuner rigged garment";

/// Name of the still clip of a file with no animation.
pub const BIND_POSE_CLIP: &str = "bind_pose";

/// The longest clip the loader resamples, seconds (a key time past it is almost surely a
/// broken file, and resampling it would take the memory of hours of animation).
pub const MAX_CLIP_SECONDS: f32 = 600.0;

/// Largest angle between a measured axis and the file's nearest axis that is snapped to it.
const SNAP_DEGREES: f32 = 12.0;

/// The file's nodes: parents, rest transforms, and the skin's joints in parents-first order.
pub(super) struct Nodes {
    parent: Vec<Option<usize>>,
    rest: Vec<Trs>,
    /// Nodes that are joints or their ancestors, parents first (what a pose evaluates).
    order: Vec<usize>,
    /// The joint node of each bone after the ground bone (bone `i + 1` is `joints[i]`).
    joints: Vec<usize>,
    /// The bone index of each node that is a joint.
    bone_of: Vec<Option<usize>>,
}

/// A node's local transform in glTF's parts.
#[derive(Clone, Copy)]
struct Trs {
    t: Vec3,
    r: Quat,
    s: Vec3,
}

impl Trs {
    fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.s, self.r, self.t)
    }
}

/// The map from the file's world space into character space: `scale * rotation * p + offset`.
#[derive(Clone, Copy)]
struct Placement {
    rotation: Quat,
    scale: f32,
    offset: Vec3,
}

impl Placement {
    fn point(&self, p: Vec3) -> Vec3 {
        self.rotation * p * self.scale + self.offset
    }

    /// A world matrix of the file as a rigid frame in character space.
    fn frame(&self, world: &Mat4) -> Frame {
        let m = Mat3::from_mat4(*world);
        let x = (self.rotation * m.x_axis).normalize_or(Vec3::X);
        let y0 = self.rotation * m.y_axis;
        let y = (y0 - x * x.dot(y0)).normalize_or(x.any_orthonormal_vector());
        let rotation = Quat::from_mat3(&Mat3::from_cols(x, y, x.cross(y))).normalize();
        Frame::new(rotation, self.point(world.w_axis.truncate()))
    }
}

/// Imports a character from a parsed file with the given settings (bone map, ellipsoid
/// scales). With `garment`, the skinned mesh of that name (a node's or its mesh's) is not part
/// of the body: it comes back on its own, in character space at the bind pose.
pub(crate) fn import(
    src: &Source,
    settings: &CharacterSettings,
    garment: Option<&str>,
) -> Result<(Character, Option<WornMesh>), RigError> {
    let skin = src
        .doc
        .skins()
        .next()
        .ok_or_else(|| src.err("no skin (the file has no skeleton bound to a mesh)"))?;
    let nodes = read_nodes(src, &skin)?;
    let names = bone_names(src, &nodes);
    let world = world_matrices(&nodes, &nodes.rest);
    let ibm = inverse_binds(src, &skin, nodes.joints.len())?;
    let skinning = Skinning::new(&skin, &nodes, &world, &ibm);
    let (raw_mesh, bind_world, body_look) = read_meshes(src, &skin, &skinning, garment)?;
    let at_rest: Vec<Vec3> = std::iter::once(Vec3::ZERO)
        .chain(nodes.joints.iter().map(|&j| world[j].w_axis.truncate()))
        .collect();
    let bind = BindPose {
        bones: &at_rest,
        vertices: &bind_world,
        vertex_bones: &raw_mesh.joints,
        vertex_weights: &raw_mesh.weights,
    };
    let roles = resolve_roles(src, &nodes, &names, settings, &bind)?;
    let placement = place(src, &nodes, &world, &roles, &bind_world)?;
    let worn = match garment {
        Some(name) => Some(read_worn(src, &skin, &skinning, name, &placement)?),
        None => None,
    };

    let rest_frames: Vec<Frame> = std::iter::once(Frame::IDENTITY)
        .chain(nodes.joints.iter().map(|&j| placement.frame(&world[j])))
        .collect();
    let skeleton = build_skeleton(&nodes, &names, &rest_frames).map_err(|e| src.err(e))?;
    let inverse_bind = rest_frames.iter().map(|f| f.matrix().inverse()).collect();
    let mesh = SkinnedMesh {
        positions: bind_world.iter().map(|p| placement.point(*p)).collect(),
        normals: raw_mesh
            .normals
            .iter()
            .map(|n| (placement.rotation * *n).normalize_or(Vec3::Y))
            .collect(),
        ..raw_mesh
    };
    let rest_locals: Vec<Frame> = skeleton.bones().iter().map(|b| b.rest).collect();
    let mut clips = Vec::new();
    for anim in src.doc.animations() {
        let sampled = sample_animation(src, &anim, &nodes, &placement, &roles)?;
        clips.push(sampled.into_clip(anim_name(&anim), &rest_locals, &skeleton, src)?);
    }
    if clips.is_empty() {
        clips.push(still_clip(&rest_locals).map_err(|e| src.err(e))?);
    }
    // The built-in clips after the file's own; a name the file already uses gets a prefix.
    let builtin = retarget_clips(Character::builtin_ref(), &skeleton, &roles)
        .map_err(|e| src.err(format!("retargeting the built-in clips: {e}")))?;
    for mut clip in builtin {
        if clips.iter().any(|c| c.name == clip.name) {
            clip.name = format!("{BUILTIN_CLIP_PREFIX}{}", clip.name);
        }
        clips.push(clip);
    }
    let character = Character {
        skeleton,
        mesh,
        body_look,
        inverse_bind,
        clips,
        ellipsoids: Vec::new(),
        roles,
    };
    Ok((character, worn))
}

fn anim_name(anim: &gltf::Animation) -> String {
    anim.name()
        .map(str::to_string)
        .unwrap_or_else(|| format!("clip{}", anim.index()))
}

/// Parents, rest transforms, and the skin's joints sorted parents first.
pub(super) fn read_nodes(src: &Source, skin: &gltf::Skin) -> Result<Nodes, RigError> {
    let count = src.doc.nodes().len();
    let mut parent = vec![None; count];
    for node in src.doc.nodes() {
        for child in node.children() {
            if let Some(slot) = parent.get_mut(child.index()) {
                *slot = Some(node.index());
            }
        }
    }
    let rest: Vec<Trs> = src
        .doc
        .nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            Trs {
                t: Vec3::from_array(t),
                r: Quat::from_array(r).normalize(),
                s: Vec3::from_array(s),
            }
        })
        .collect();
    if rest
        .iter()
        .any(|x| !(x.t.is_finite() && x.r.is_finite() && x.s.is_finite()))
    {
        return Err(src.err("a node has a non-finite transform"));
    }
    let depth = |mut n: usize| {
        let mut d = 0;
        while let Some(p) = parent[n] {
            n = p;
            d += 1;
            if d > count {
                return None;
            }
        }
        Some(d)
    };
    let mut joints: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    if joints.is_empty() {
        return Err(src.err("the skin has no joints"));
    }
    if joints.len() >= u16::MAX as usize {
        return Err(src.err("too many joints"));
    }
    let mut depths = Vec::with_capacity(count);
    for n in 0..count {
        depths.push(depth(n).ok_or_else(|| src.err("the node hierarchy has a cycle"))?);
    }
    joints.sort_by_key(|&j| depths[j]);
    let mut bone_of = vec![None; count];
    for (i, &j) in joints.iter().enumerate() {
        if bone_of[j].replace(i + 1).is_some() {
            return Err(src.err("a node is listed twice among the skin joints"));
        }
    }
    let mut needed = vec![false; count];
    for &j in &joints {
        let mut n = Some(j);
        while let Some(i) = n {
            needed[i] = true;
            n = parent[i];
        }
    }
    let mut order: Vec<usize> = (0..count).filter(|&n| needed[n]).collect();
    order.sort_by_key(|&n| depths[n]);
    Ok(Nodes {
        parent,
        rest,
        order,
        joints,
        bone_of,
    })
}

/// Bone names: the ground bone, then each joint's node name (or `bone<i>`).
fn bone_names(src: &Source, nodes: &Nodes) -> Vec<String> {
    let all: Vec<gltf::Node> = src.doc.nodes().collect();
    std::iter::once(GROUND_BONE.to_string())
        .chain(nodes.joints.iter().enumerate().map(|(i, &j)| {
            all[j]
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("bone{}", i + 1))
        }))
        .collect()
}

/// The nearest joint above each joint (the ground bone for the top ones).
fn bone_parent(nodes: &Nodes, joint: usize) -> usize {
    let mut n = nodes.parent[joint];
    while let Some(i) = n {
        if let Some(b) = nodes.bone_of[i] {
            return b;
        }
        n = nodes.parent[i];
    }
    0
}

fn build_skeleton(nodes: &Nodes, names: &[String], model: &[Frame]) -> Result<Skeleton, String> {
    let mut bones = vec![Bone {
        name: names[0].clone(),
        parent: None,
        rest: Frame::IDENTITY,
    }];
    for (i, &j) in nodes.joints.iter().enumerate() {
        let p = bone_parent(nodes, j);
        bones.push(Bone {
            name: names[i + 1].clone(),
            parent: Some(p),
            rest: model[p].inverse().mul(&model[i + 1]),
        });
    }
    Skeleton::new(bones)
}

/// Roles from the settings' bone map, the VRM extension and the names, then from the
/// skeleton's shape in `bind`, the rest pose in the file's own space (before the placement,
/// which needs the roles: the shape decides left and right so that the placement's facing,
/// left × up, is the forward it read).
fn resolve_roles(
    src: &Source,
    nodes: &Nodes,
    names: &[String],
    settings: &CharacterSettings,
    bind: &BindPose,
) -> Result<Roles, RigError> {
    let bones: Vec<Bone> = names
        .iter()
        .enumerate()
        .map(|(i, name)| Bone {
            name: name.clone(),
            parent: (i > 0).then(|| bone_parent(nodes, nodes.joints[i - 1])),
            rest: Frame::IDENTITY,
        })
        .collect();
    let skeleton = Skeleton::new(bones).map_err(|e| src.err(e))?;
    let vrm: Vec<(Role, usize)> = vrm_roles(&src.json)
        .into_iter()
        .filter_map(|(r, n)| Some((r, *nodes.bone_of.get(n)?.as_ref()?)))
        .collect();
    Roles::resolve(&skeleton, &settings.bones, &vrm, Some(bind))
        .map_err(|e| roles_error(src, &skeleton, e))
}

/// A role error as the message the user sees: what is missing and the bones there are.
pub(crate) fn roles_error(src: &Source, skeleton: &Skeleton, e: RolesError) -> RigError {
    let (bones, depths): (Vec<String>, Vec<usize>) = skeleton
        .bones()
        .iter()
        .zip(skeleton.depths())
        .filter(|(b, _)| b.name != GROUND_BONE)
        .map(|(b, d)| (b.name.clone(), d))
        .unzip();
    let name = |b: usize| {
        skeleton
            .bones()
            .get(b)
            .map_or(String::new(), |x| x.name.clone())
    };
    match e {
        RolesError::Missing {
            missing,
            found,
            by_shape,
            shape,
        } => RigError::MissingRoles {
            path: src.path.clone(),
            missing,
            found: Box::new(FoundRoles {
                roles: found.into_iter().map(|(r, b)| (r, name(b))).collect(),
                by_shape,
                shape: shape.unwrap_or_default(),
            }),
            bones,
            depths,
        },
        RolesError::UnknownBone { role, bone } => RigError::UnknownBone {
            path: src.path.clone(),
            role,
            bone,
            bones,
            depths,
        },
    }
}

/// Every node's world matrix in the file's rest pose.
pub(super) fn rest_world(nodes: &Nodes) -> Vec<Mat4> {
    world_matrices(nodes, &nodes.rest)
}

/// World matrices of the nodes a pose needs, from local transforms.
fn world_matrices(nodes: &Nodes, local: &[Trs]) -> Vec<Mat4> {
    let mut world = vec![Mat4::IDENTITY; local.len()];
    for &n in &nodes.order {
        let m = local[n].matrix();
        world[n] = match nodes.parent[n] {
            Some(p) => world[p] * m,
            None => m,
        };
    }
    world
}

/// The skin's inverse bind matrices (identity when the file has none, as glTF says).
pub(super) fn inverse_binds(
    src: &Source,
    skin: &gltf::Skin,
    joints: usize,
) -> Result<Vec<Mat4>, RigError> {
    let Some(acc) = skin.inverse_bind_matrices() else {
        return Ok(vec![Mat4::IDENTITY; joints]);
    };
    let v = src.read_f32(&acc, Dimensions::Mat4, "inverse bind matrices")?;
    if v.len() != joints * 16 {
        return Err(src.err("inverse bind matrix count differs from the joint count"));
    }
    Ok(v.chunks_exact(16).map(Mat4::from_cols_slice).collect())
}

/// How the file's skinned vertices reach its world space at the rest pose: each skin joint's
/// matrix (world x inverse bind) and bone index, in the skin's joint order.
pub(super) struct Skinning {
    matrices: Vec<Mat4>,
    pub(super) joint_bone: Vec<u16>,
}

impl Skinning {
    pub(super) fn new(skin: &gltf::Skin, nodes: &Nodes, world: &[Mat4], ibm: &[Mat4]) -> Self {
        Self {
            matrices: skin
                .joints()
                .zip(ibm)
                .map(|(n, ib)| world[n.index()] * *ib)
                .collect(),
            joint_bone: skin
                .joints()
                .map(|n| nodes.bone_of[n.index()].unwrap_or(0) as u16)
                .collect(),
        }
    }

    /// A primitive's vertex `v` in the file's world space at the rest pose, and its normal.
    pub(super) fn place(&self, part: &SkinnedMesh, v: usize) -> (Vec3, Vec3) {
        let (j, w) = (part.joints[v], part.weights[v]);
        let mut acc = Vec3::ZERO;
        let mut nrm = Vec3::ZERO;
        for k in (0..4).filter(|&k| w[k] > 0.0) {
            let m = self.matrices[j[k] as usize];
            acc += m.transform_point3(part.positions[v]) * w[k];
            nrm += m.transform_vector3(part.normals[v]) * w[k];
        }
        (acc, nrm.normalize_or(Vec3::Y))
    }
}

/// Whether skinned mesh node `node` is the one called `name` (by the node's name or its
/// mesh's).
pub(super) fn is_named(node: &gltf::Node, name: &str) -> bool {
    node.name() == Some(name)
        || node
            .mesh()
            .and_then(|m| m.name().map(str::to_string))
            .as_deref()
            == Some(name)
}

/// The nodes with a mesh bound to `skin`.
pub(super) fn skinned_nodes<'a>(
    src: &'a Source,
    skin: &'a gltf::Skin,
) -> impl Iterator<Item = gltf::Node<'a>> + 'a {
    src.doc
        .nodes()
        .filter(move |n| n.mesh().is_some() && n.skin().is_some_and(|s| s.index() == skin.index()))
}

/// The names of the file's skinned meshes (a node's name, else its mesh's), in file order:
/// what File > Open garment… lists.
pub(crate) fn skinned_mesh_names(src: &Source) -> Vec<String> {
    let Some(skin) = src.doc.skins().next() else {
        return Vec::new();
    };
    skinned_nodes(src, &skin)
        .filter_map(|n| {
            n.name()
                .or_else(|| n.mesh().and_then(|m| m.name()))
                .map(str::to_string)
        })
        .collect()
}

/// The file's skinned meshes that may be a garment, in file order: all but the body
/// ([`body_of`]). A file with one skinned mesh has none.
pub(crate) fn garment_mesh_names(src: &Source) -> Vec<String> {
    let Some(skin) = src.doc.skins().next() else {
        return Vec::new();
    };
    let joints = skin.joints().count();
    let reach: Vec<usize> = skinned_nodes(src, &skin)
        .map(|n| {
            let parts = n.mesh().into_iter().flat_map(|m| m.primitives());
            let parts: Vec<SkinnedMesh> = parts
                .filter_map(|p| read_primitive(src, &p, joints).ok())
                .collect();
            joint_reach(&parts, joints)
        })
        .collect();
    let body = body_of(&reach);
    skinned_nodes(src, &skin)
        .enumerate()
        .filter(|&(i, _)| Some(i) != body)
        .filter_map(|(_, n)| {
            n.name()
                .or_else(|| n.mesh().and_then(|m| m.name()))
                .map(str::to_string)
        })
        .collect()
}

/// How many of the skin's `joints` the weights of a mesh's `parts` reach.
fn joint_reach<'a>(parts: impl IntoIterator<Item = &'a SkinnedMesh>, joints: usize) -> usize {
    let mut used = vec![false; joints];
    for part in parts {
        for (j, w) in part.joints.iter().zip(&part.weights) {
            for k in 0..4 {
                if w[k] > 0.0 {
                    if let Some(u) = used.get_mut(j[k] as usize) {
                        *u = true;
                    }
                }
            }
        }
    }
    used.iter().filter(|&&u| u).count()
}

/// Which of the skinned meshes, by how many joints each `reach`es, is the body: the one
/// reaching the most (a body moves with every limb, a garment with the few it covers), the
/// first of equals.
fn body_of(reach: &[usize]) -> Option<usize> {
    (0..reach.len()).max_by_key(|&i| (reach[i], std::cmp::Reverse(i)))
}

/// Beside a garment picked from the character's file, a skinned mesh other than the body
/// ([`body_of`]) stays part of the body when the diagonal of its box at rest is less than this
/// share of the body's: eyes, teeth, lashes, a hair bun. A larger one (a second garment: a
/// skirt beside the coat picked) is left out of the body, so no ellipsoid is fitted round it
/// and the coverage does not count it as skin; it is not drawn either.
pub(crate) const BODY_PART_SHARE: f32 = 0.2;

/// One triangle primitive of a skinned mesh node: what was read, each vertex placed at the
/// rest pose in the file's world space (position, normal), and the file's primitive (for its
/// look).
type PlacedPart<'a> = (SkinnedMesh, Vec<(Vec3, Vec3)>, gltf::Primitive<'a>);

/// A skinned mesh node's triangle primitives ([`PlacedPart`]).
struct NodeParts<'a> {
    parts: Vec<PlacedPart<'a>>,
}

impl NodeParts<'_> {
    /// The diagonal of the box round the placed vertices (0 with none).
    fn diagonal(&self) -> f32 {
        let placed = || {
            self.parts
                .iter()
                .flat_map(|(_, v, _)| v.iter().map(|&(p, _)| p))
        };
        let lo = placed().fold(Vec3::INFINITY, Vec3::min);
        let hi = placed().fold(Vec3::NEG_INFINITY, Vec3::max);
        if lo.cmple(hi).all() {
            lo.distance(hi)
        } else {
            0.0
        }
    }
}

/// Which of the skinned meshes `nodes` (the picked garment already left out) make the body
/// beside a garment picked from the file: the body ([`body_of`]) and those smaller than
/// [`BODY_PART_SHARE`] of it.
fn body_beside_garment(nodes: &[NodeParts], joints: usize) -> Vec<bool> {
    let reach: Vec<usize> = nodes
        .iter()
        .map(|n| joint_reach(n.parts.iter().map(|(p, _, _)| p), joints))
        .collect();
    let Some(body) = body_of(&reach) else {
        return Vec::new();
    };
    let size = nodes[body].diagonal();
    (0..nodes.len())
        .map(|i| i == body || nodes[i].diagonal() < BODY_PART_SHARE * size)
        .collect()
}

/// Every triangle primitive of every mesh node bound to the skin but the garment's, merged,
/// with joints as bone indices; and each vertex in the file's world space at the rest pose.
/// Beside a picked garment, only the meshes [`body_beside_garment`] keeps.
fn read_meshes(
    src: &Source,
    skin: &gltf::Skin,
    skinning: &Skinning,
    garment: Option<&str>,
) -> Result<(SkinnedMesh, Vec<Vec3>, MeshLook), RigError> {
    let mut nodes = Vec::new();
    for node in skinned_nodes(src, skin).filter(|n| !garment.is_some_and(|g| is_named(n, g))) {
        let Some(m) = node.mesh() else { continue };
        let mut parts = Vec::new();
        for prim in m.primitives() {
            if prim.mode() != gltf::mesh::Mode::Triangles {
                continue;
            }
            let part = read_primitive(src, &prim, skinning.joint_bone.len())?;
            let placed = (0..part.positions.len())
                .map(|v| skinning.place(&part, v))
                .collect();
            parts.push((part, placed, prim));
        }
        nodes.push(NodeParts { parts });
    }
    let keep = match garment {
        Some(_) => body_beside_garment(&nodes, skinning.joint_bone.len()),
        None => vec![true; nodes.len()],
    };
    let mut mesh = SkinnedMesh::default();
    let mut bind_world = Vec::new();
    let mut look = MeshLook::default();
    let kept = nodes
        .into_iter()
        .zip(keep)
        .filter_map(|(n, k)| k.then_some(n));
    for (part, placed, prim) in kept.flat_map(|n| n.parts) {
        let base = mesh.positions.len() as u32;
        for (v, (p, n)) in placed.into_iter().enumerate() {
            bind_world.push(p);
            mesh.normals.push(n);
            mesh.joints
                .push(part.joints[v].map(|x| skinning.joint_bone[x as usize]));
            mesh.weights.push(part.weights[v]);
        }
        let first_index = mesh.indices.len();
        mesh.indices.extend(part.indices.iter().map(|i| i + base));
        let vertices = (base as usize, part.positions.len());
        look.add_primitive(src, &prim, vertices, (first_index, part.indices.len()))?;
        mesh.positions.extend(part.positions);
    }
    if mesh.positions.is_empty() {
        return Err(src.err("no triangle mesh is bound to the skin"));
    }
    look.materials = Arc::new(Materials::read(src));
    Ok((mesh, bind_world, look))
}

/// The skinned mesh called `name` in character space at the bind pose, with its texture
/// coordinates: a garment in the character's own file.
fn read_worn(
    src: &Source,
    skin: &gltf::Skin,
    skinning: &Skinning,
    name: &str,
    placement: &Placement,
) -> Result<WornMesh, RigError> {
    let node = skinned_nodes(src, skin)
        .find(|n| is_named(n, name))
        .ok_or_else(|| {
            let names = skinned_mesh_names(src).join(", ");
            src.err(format!(
                "no skinned mesh called `{name}`; the skinned meshes are: {names}"
            ))
        })?;
    let bone = |j: usize| Ok(skinning.joint_bone[j]);
    read_node(
        src,
        &node,
        skinning,
        name,
        |p, n| (placement.point(p), placement.rotation * n),
        bone,
    )
}

/// Skinned mesh `node` as the worn mesh `name`: each vertex at the file's rest pose
/// (`skinning`), carried into character space by `to_character` (position, normal), its
/// weighted joints made bones by `bone` (an error message for a joint the character lacks).
pub(super) fn read_node(
    src: &Source,
    node: &gltf::Node,
    skinning: &Skinning,
    name: &str,
    to_character: impl Fn(Vec3, Vec3) -> (Vec3, Vec3),
    bone: impl Fn(usize) -> Result<u16, String>,
) -> Result<WornMesh, RigError> {
    let mut out = WornMesh {
        name: name.to_string(),
        ..WornMesh::default()
    };
    check_vertex_count(src, node, name)?;
    for prim in node.mesh().into_iter().flat_map(|m| m.primitives()) {
        if prim.mode() != gltf::mesh::Mode::Triangles {
            continue;
        }
        let part = read_primitive(src, &prim, skinning.joint_bone.len())?;
        let base = out.mesh.positions.len() as u32;
        for v in 0..part.positions.len() {
            let (p, n) = skinning.place(&part, v);
            let (p, n) = to_character(p, n);
            out.mesh.positions.push(p);
            out.mesh.normals.push(n.normalize_or(Vec3::Y));
            let (j, w) = (part.joints[v], part.weights[v]);
            let mut bones = [0u16; 4];
            for k in (0..4).filter(|&k| w[k] > 0.0) {
                bones[k] = bone(j[k] as usize).map_err(|e| src.err(e))?;
            }
            out.mesh.joints.push(bones);
            out.mesh.weights.push(w);
        }
        let first_index = out.mesh.indices.len();
        out.mesh
            .indices
            .extend(part.indices.iter().map(|i| i + base));
        out.look.add_primitive(
            src,
            &prim,
            (base as usize, part.positions.len()),
            (first_index, part.indices.len()),
        )?;
    }
    out.uvs = out.look.first_uvs(out.mesh.positions.len());
    out.look.materials = Arc::new(Materials::read(src));
    if out.mesh.indices.is_empty() {
        return Err(src.err(format!("the garment `{name}` has no triangles")));
    }
    Ok(out)
}

/// One primitive's attributes with skin-list joint indices and weights summing to 1 (a mesh
/// without normals gets +Y, which the tuner's lighting shows as flat).
/// Refuses a garment of more than [`MAX_GARMENT_VERTICES`] vertices in its triangle primitives
/// (as their position accessors count them) before any is read.
fn check_vertex_count(src: &Source, node: &gltf::Node, name: &str) -> Result<(), RigError> {
    let count: usize = node
        .mesh()
        .into_iter()
        .flat_map(|m| m.primitives())
        .filter(|p| p.mode() == gltf::mesh::Mode::Triangles)
        .filter_map(|p| p.get(&gltf::Semantic::Positions))
        .map(|a| a.count())
        .fold(0, usize::saturating_add);
    if count > MAX_GARMENT_VERTICES {
        return Err(src.err(format!(
            "the garment `{name}` has {count} vertices; at most {MAX_GARMENT_VERTICES} are read"
        )));
    }
    Ok(())
}

pub(crate) fn read_primitive(
    src: &Source,
    prim: &gltf::Primitive,
    joints: usize,
) -> Result<SkinnedMesh, RigError> {
    use gltf::Semantic;
    let get = |s: Semantic, what: &str| {
        prim.get(&s)
            .ok_or_else(|| src.err(format!("a skinned mesh has no {what}")))
    };
    let pos = src.read_f32(
        &get(Semantic::Positions, "POSITION")?,
        Dimensions::Vec3,
        "positions",
    )?;
    let n = pos.len() / 3;
    let nrm = match prim.get(&Semantic::Normals) {
        Some(a) => src.read_f32(&a, Dimensions::Vec3, "normals")?,
        None => [0.0, 1.0, 0.0].repeat(n),
    };
    let wts = src.read_unit_or_f32(
        &get(Semantic::Weights(0), "WEIGHTS_0")?,
        Dimensions::Vec4,
        "weights",
    )?;
    let jts = src.read_uint(
        &get(Semantic::Joints(0), "JOINTS_0")?,
        Dimensions::Vec4,
        "joints",
    )?;
    let idx = match prim.indices() {
        Some(a) => src.read_uint(&a, Dimensions::Scalar, "indices")?,
        None => (0..n as u32).collect(),
    };
    if nrm.len() != n * 3 || wts.len() != n * 4 || jts.len() != n * 4 {
        return Err(src.err("mesh attributes have different vertex counts"));
    }
    if idx.len() % 3 != 0 || idx.iter().any(|&i| i as usize >= n) {
        return Err(src.err("mesh indices out of range or not whole triangles"));
    }
    if jts.iter().any(|&j| j as usize >= joints) {
        return Err(src.err("a vertex refers to a joint the skin does not have"));
    }
    // Weights that do not sum to 1 (quantised or sloppy exports) are normalised; weights that
    // do are kept to the bit.
    let weights = wts
        .chunks_exact(4)
        .map(|w| {
            let sum: f32 = w.iter().sum();
            if (sum - 1.0).abs() <= 1e-4 {
                [w[0], w[1], w[2], w[3]]
            } else if sum > 0.0 {
                [w[0] / sum, w[1] / sum, w[2] / sum, w[3] / sum]
            } else {
                [1.0, 0.0, 0.0, 0.0]
            }
        })
        .collect();
    Ok(SkinnedMesh {
        positions: pos.chunks_exact(3).map(Vec3::from_slice).collect(),
        normals: nrm.chunks_exact(3).map(Vec3::from_slice).collect(),
        indices: idx,
        joints: jts
            .chunks_exact(4)
            .map(|j| [j[0] as u16, j[1] as u16, j[2] as u16, j[3] as u16])
            .collect(),
        weights,
    })
}

/// Orientation, units and origin of character space (see the module doc).
fn place(
    src: &Source,
    nodes: &Nodes,
    world: &[Mat4],
    roles: &Roles,
    bind_world: &[Vec3],
) -> Result<Placement, RigError> {
    if src.generator() == Some(CHARACTER_SPACE_GENERATOR) {
        return Ok(Placement {
            rotation: Quat::IDENTITY,
            scale: 1.0,
            offset: Vec3::ZERO,
        });
    }
    let at = |role: Role| world[nodes.joints[roles.bone(role) - 1]].w_axis.truncate();
    let knees = (at(Role::ShinL) + at(Role::ShinR)) * 0.5;
    let up = (at(Role::Head) - knees).normalize_or_zero();
    let left = at(Role::UpperarmL) - at(Role::UpperarmR);
    let left = (left - up * left.dot(up)).normalize_or_zero();
    if up == Vec3::ZERO || left == Vec3::ZERO {
        return Err(src.err(
            "cannot tell up and left: the head must be above the knees and the upper arms apart",
        ));
    }
    let (left, up) = (snap(left), snap(up));
    let forward = left.cross(up);
    // The rotation taking (left, up, forward) to (+X, +Y, +Z).
    let rotation = Quat::from_mat3(&Mat3::from_cols(left, up, forward).transpose()).normalize();
    let (lo, hi) = bind_world.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        let y = (rotation * *p).y;
        (lo.min(y), hi.max(y))
    });
    let height = hi - lo;
    let scale = if height > 2000.0 {
        0.001
    } else if height > 20.0 {
        0.01
    } else {
        1.0
    };
    let pelvis = rotation * at(Role::Pelvis) * scale;
    let offset = Vec3::new(-pelvis.x, -lo * scale, -pelvis.z);
    Ok(Placement {
        rotation,
        scale,
        offset,
    })
}

/// `v` replaced by the nearest signed axis when within [`SNAP_DEGREES`] of it.
fn snap(v: Vec3) -> Vec3 {
    let axes = [Vec3::X, Vec3::Y, Vec3::Z];
    for a in axes {
        for s in [1.0, -1.0] {
            if v.dot(a * s) >= SNAP_DEGREES.to_radians().cos() {
                return a * s;
            }
        }
    }
    v
}

/// One animation resampled: per sample time, every bone's frame in character space.
struct Sampled {
    times: Vec<f32>,
    /// Per sample, the root motion (ground frame) then each bone's model frame.
    frames: Vec<Vec<Frame>>,
    /// `extras.looping` of the animation, when the file says.
    looping: Option<bool>,
}

/// The animated channels of one node.
#[derive(Default)]
struct NodeTracks {
    t: Option<Track<Vec3>>,
    r: Option<Track<Quat>>,
    s: Option<Track<Vec3>>,
}

fn sample_animation(
    src: &Source,
    anim: &gltf::Animation,
    nodes: &Nodes,
    placement: &Placement,
    roles: &Roles,
) -> Result<Sampled, RigError> {
    let name = anim_name(anim);
    let tracks = read_channels(src, anim, nodes.rest.len(), &name)?;
    let duration = tracks
        .iter()
        .flat_map(|t| {
            [
                t.t.as_ref().map(|x| x.times()),
                t.r.as_ref().map(|x| x.times()),
                t.s.as_ref().map(|x| x.times()),
            ]
        })
        .flatten()
        .filter_map(|times| times.last().copied())
        .fold(0.0f32, f32::max);
    if duration > MAX_CLIP_SECONDS {
        return Err(src.err(format!(
            "clip '{name}': its keys run to {duration} s, more than the {MAX_CLIP_SECONDS} s a \
             clip may last"
        )));
    }
    let count = (duration * SAMPLE_RATE).ceil().max(1.0) as usize;
    let times: Vec<f32> = (0..=count)
        .map(|k| (k as f32 / SAMPLE_RATE).min(duration))
        .collect();
    let pelvis_bone = roles.bone(Role::Pelvis);
    let pelvis_rest =
        placement.frame(&world_matrices(nodes, &nodes.rest)[nodes.joints[pelvis_bone - 1]]);
    let mut local = nodes.rest.clone();
    let mut frames = Vec::with_capacity(times.len());
    for &t in &times {
        for (l, (tr, rest)) in local.iter_mut().zip(tracks.iter().zip(&nodes.rest)) {
            l.t = tr.t.as_ref().map_or(rest.t, |x| x.sample(t));
            l.r = tr.r.as_ref().map_or(rest.r, |x| x.sample(t));
            l.s = tr.s.as_ref().map_or(rest.s, |x| x.sample(t));
        }
        let world = world_matrices(nodes, &local);
        let mut f: Vec<Frame> = Vec::with_capacity(nodes.joints.len() + 1);
        f.push(Frame::IDENTITY);
        f.extend(nodes.joints.iter().map(|&j| placement.frame(&world[j])));
        f[0] = ground_frame(&f[pelvis_bone], &pelvis_rest);
        frames.push(f);
    }
    let looping = src
        .json
        .pointer(&format!("/animations/{}/extras/looping", anim.index()))
        .and_then(|v| v.as_bool());
    Ok(Sampled {
        times,
        frames,
        looping,
    })
}

/// The character frame under the pelvis: its position projected on the ground, turned about
/// the vertical as far as the pelvis turned from its rest heading.
fn ground_frame(pelvis: &Frame, rest: &Frame) -> Frame {
    let turn = pelvis.rotation * rest.rotation.inverse();
    let f = turn * Vec3::Z;
    let heading = if f.x * f.x + f.z * f.z > 1e-8 {
        f.x.atan2(f.z)
    } else {
        0.0
    };
    Frame::new(
        Quat::from_rotation_y(heading),
        Vec3::new(pelvis.translation.x, 0.0, pelvis.translation.z),
    )
}

/// The translation, rotation and scale keys of every node in an animation.
fn read_channels(
    src: &Source,
    anim: &gltf::Animation,
    node_count: usize,
    name: &str,
) -> Result<Vec<NodeTracks>, RigError> {
    let mut out: Vec<NodeTracks> = (0..node_count).map(|_| NodeTracks::default()).collect();
    let what = format!("clip '{name}' keys");
    let bad = |e: String| src.err(format!("clip '{name}': {e}"));
    for ch in anim.channels() {
        let sampler = ch.sampler();
        let times = src.read_f32(
            &sampler.input(),
            Dimensions::Scalar,
            &format!("clip '{name}' key times"),
        )?;
        let cubic = sampler.interpolation() == Interpolation::CubicSpline;
        let node = ch.target().node().index();
        let Some(slot) = out.get_mut(node) else {
            continue;
        };
        // Cubic-spline keys store (in-tangent, value, out-tangent): the values are kept and
        // interpolated linearly, close enough at the rates exporters bake.
        let values = |dims: Dimensions, v: Vec<f32>| -> Vec<f32> {
            let d = dims.multiplicity();
            if cubic {
                v.chunks_exact(3 * d)
                    .flat_map(|c| c[d..2 * d].to_vec())
                    .collect()
            } else {
                v
            }
        };
        match ch.target().property() {
            Property::Translation | Property::Scale => {
                let v = values(
                    Dimensions::Vec3,
                    src.read_f32(&sampler.output(), Dimensions::Vec3, &what)?,
                );
                let track = Track::new(times, v.chunks_exact(3).map(Vec3::from_slice).collect())
                    .map_err(bad)?;
                if ch.target().property() == Property::Translation {
                    slot.t = Some(track);
                } else {
                    slot.s = Some(track);
                }
            }
            Property::Rotation => {
                let v = values(
                    Dimensions::Vec4,
                    src.read_unit_or_f32(&sampler.output(), Dimensions::Vec4, &what)?,
                );
                let q = v
                    .chunks_exact(4)
                    .map(|q| Quat::from_slice(q).normalize())
                    .collect();
                slot.r = Some(Track::new(times, q).map_err(bad)?);
            }
            Property::MorphTargetWeights => {}
        }
    }
    Ok(out)
}

/// Largest difference between a clip's first and last local bone rotations for which it
/// counts as looping, radians (glTF has no loop flag; an `extras.looping` boolean on the
/// animation, as our own files carry, overrides this).
const LOOP_TOLERANCE: f32 = 0.05;

impl Sampled {
    /// The samples as a clip: root motion on the root, every bone's local frame as tracks.
    fn into_clip(
        self,
        name: String,
        rest: &[Frame],
        skeleton: &Skeleton,
        src: &Source,
    ) -> Result<Clip, RigError> {
        let bones = skeleton.len();
        let local = |f: &[Frame], b: usize| {
            let p = skeleton.parent(b).unwrap_or(0);
            f[p].inverse().mul(&f[b])
        };
        let first = &self.frames[0];
        let last = &self.frames[self.frames.len() - 1];
        let looping = self.looping.unwrap_or_else(|| {
            (1..bones).all(|b| {
                local(first, b)
                    .rotation
                    .angle_between(local(last, b).rotation)
                    < LOOP_TOLERANCE
            })
        });
        let mut tracks = Vec::with_capacity(bones - 1);
        for b in 1..bones {
            let l: Vec<Frame> = self.frames.iter().map(|f| local(f, b)).collect();
            let bad = |e: String| src.err(format!("clip '{name}': {e}"));
            tracks.push(BoneTrack {
                bone: b,
                translation: Some(
                    Track::new(
                        self.times.clone(),
                        l.iter().map(|x| x.translation).collect(),
                    )
                    .map_err(bad)?,
                ),
                rotation: Some(
                    Track::new(self.times.clone(), l.iter().map(|x| x.rotation).collect())
                        .map_err(bad)?,
                ),
            });
        }
        let bad = |e: String| src.err(format!("clip '{name}': {e}"));
        if self.times.last().copied().unwrap_or(0.0) <= 0.0 {
            // Keys at one instant only: a pose, held like a file with no animation.
            let mut clip = still_clip(rest).map_err(bad)?;
            clip.name = name;
            return Ok(clip);
        }
        let root_t = Track::new(
            self.times.clone(),
            self.frames.iter().map(|f| f[0].translation).collect(),
        )
        .map_err(bad)?;
        let root_r = Track::new(
            self.times.clone(),
            self.frames.iter().map(|f| f[0].rotation).collect(),
        )
        .map_err(bad)?;
        Clip::new(
            name,
            looping,
            rest.to_vec(),
            Some(root_t),
            Some(root_r),
            tracks,
        )
        .map_err(|e| src.err(e))
    }
}

/// The rest pose held for a second: the clip of a file with no animation.
fn still_clip(rest: &[Frame]) -> Result<Clip, String> {
    let root = Track::new(vec![0.0, 1.0], vec![Vec3::ZERO; 2])?;
    Clip::new(
        BIND_POSE_CLIP.to_string(),
        true,
        rest.to_vec(),
        Some(root),
        None,
        Vec::new(),
    )
}
