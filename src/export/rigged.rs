//! The rigged garment: one glTF 2.0 binary an engine or a DCC tool takes as it is. It holds
//! the character's skeleton under its own names with the cloth bones the method adds
//! (`cloth_r{row}_c{col}`, each hanging from the one above it, the pinned row's from the body
//! bone its particle follows) and the garment's own drivers (`cloth_driver_{k}`: a template
//! jacket's shoulder pads and side bones, a hood's bone); the garment's mesh skinned to them
//! (at most four weights a vertex, summing to 1) and the body's mesh, each as its file had it
//! (its primitives, texture coordinate sets and materials with their textures and images,
//! [`MeshLook`]; a template's one plain material), one skin with an inverse bind matrix for
//! every joint; and in the root's `extras.cloth_tuner` the simulation grid
//! (rows, columns, loop, pinned row, the particle under each cloth bone, each particle's max
//! distance and edge flag) and the fabric preset. `docs/engines.md` ("The rigged garment")
//! describes it and `docs/rigged-garment.schema.json` is the Schema of its extras.
//!
//! The document is built with `gltf-json`'s types. Everything is written in character space at
//! the rest pose (metres, +Y up, facing +Z); the meshes sit at the scene's root, where a
//! skinned mesh's own transform is ignored.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use gltf::json;
use json::validation::{Checked, USize64};
use serde_json::{json as value, Value};

use crate::character::import::GROUND_BONE;
use crate::character::{
    cloth_bone_name, cloth_driver_name, for_each_texture, Character, Image, Materials, MeshLook,
    Role,
};
use crate::files::{write_atomic, WriteError};
use crate::garment::imported::{GridChoice, ImportedGarment, Seam};
use crate::garment::{Binding, Garment, GarmentRig, RigFrame};
use crate::preset::Preset;
use crate::sim::painted::painted_or_curve;

/// The file's `asset.generator`. Not the built-in character's generator: a rigged file loads
/// through the importer, as any character wearing its garment does, in its own space (it is
/// written in character space).
pub const GENERATOR: &str = crate::character::import::CHARACTER_SPACE_GENERATOR;

/// `extras.cloth_tuner.format` of a rigged garment.
pub const FORMAT: &str = "cloth-tuner-rigged-garment";

/// `extras.cloth_tuner.version` of the files this build writes.
pub const VERSION: u32 = 1;

/// The most joints a skin's `JOINTS_0` (unsigned 16-bit) can name.
const MAX_JOINTS: usize = u16::MAX as usize;

/// Why a rigged garment could not be written or read back.
#[derive(Debug, thiserror::Error)]
pub enum RiggedError {
    #[error("the preset's max_distance_map does not fit the garment's grid: {0}")]
    MaxDistanceMap(String),
    #[error(
        "{joints} joints (skeleton, drivers and cloth bones); a skin holds at most {MAX_JOINTS}"
    )]
    TooManyJoints { joints: usize },
    #[error("cannot encode the glTF: {0}")]
    Encode(String),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("{}: {reason}", .path.display())]
    Read { path: PathBuf, reason: String },
}

/// A rigged garment, encoded.
#[derive(Clone, Debug)]
pub struct Rigged {
    /// The `.glb` file's bytes.
    pub bytes: Vec<u8>,
    /// The garment's mesh's name in the file.
    pub garment: String,
    /// Joints of the skin: the skeleton's bones, the garment's drivers, the cloth bones.
    pub joints: usize,
    /// Cloth bones (`cloth_r{row}_c{col}`).
    pub cloth_bones: usize,
    /// Vertices of the garment's mesh and of the body's.
    pub garment_vertices: usize,
    pub body_vertices: usize,
}

/// One clip's keys for every joint of the skin, in the skin's order (see
/// [`crate::export::baked`]): local translation and rotation, LINEAR.
#[derive(Clone, Debug, Default)]
pub struct ClipKeys {
    /// The animation's name (the clip's).
    pub name: String,
    /// Per joint, its keys.
    pub joints: Vec<JointKeys>,
}

/// One joint's keys: times (seconds, increasing) with the local translation and rotation
/// at each.
#[derive(Clone, Debug, Default)]
pub struct JointKeys {
    pub times: Vec<f32>,
    pub translations: Vec<Vec3>,
    pub rotations: Vec<Quat>,
}

/// `garment` on `character` with `preset`'s fabric, as a rigged glTF binary.
pub fn rigged_glb(
    character: &Character,
    garment: &dyn Garment,
    preset: &Preset,
) -> Result<Rigged, RiggedError> {
    rigged_glb_animated(character, garment, preset, &[])
}

/// [`rigged_glb`] with one glTF animation per clip of `clips` (keys for every joint).
pub fn rigged_glb_animated(
    character: &Character,
    garment: &dyn Garment,
    preset: &Preset,
    clips: &[ClipKeys],
) -> Result<Rigged, RiggedError> {
    let name = garment_name(garment);
    let joints = Joints::new(character, garment);
    if joints.nodes.len() > MAX_JOINTS {
        return Err(RiggedError::TooManyJoints {
            joints: joints.nodes.len(),
        });
    }
    let extras = grid_extras(garment, &joints, preset, &name)?;
    let mut doc = Doc::default();
    let skin = doc.skin(&joints);
    let render = &garment.rig().render;
    let garment_skin = joints.garment_skin(garment);
    let garment_look = garment_look(garment);
    let garment_mesh = MeshData {
        name: &name,
        positions: &render.positions,
        normals: &render.normals,
        indices: &render.indices,
        skin: &garment_skin,
        look: &garment_look,
    };
    let body = &character.mesh;
    let body_skin = joints.body_skin(character);
    let body_name = if name == "body" {
        "character_body"
    } else {
        "body"
    };
    let plain_body;
    let body_look = if character
        .body_look
        .fits(body.positions.len(), body.indices.len())
    {
        &character.body_look
    } else {
        let counts = (body.positions.len(), body.indices.len());
        plain_body = MeshLook::single(counts, Vec::new(), Materials::default());
        &plain_body
    };
    let body_mesh = MeshData {
        name: body_name,
        positions: &body.positions,
        normals: &body.normals,
        indices: &body.indices,
        skin: &body_skin,
        look: body_look,
    };
    let mut scene_nodes = Vec::new();
    for mesh in [&garment_mesh, &body_mesh] {
        scene_nodes.push(doc.mesh_node(mesh, skin));
    }
    scene_nodes.push(doc.skeleton_root(&joints.roots));
    for clip in clips {
        doc.animation(clip);
    }
    let bytes = doc.finish(joints.nodes, scene_nodes, extras)?;
    Ok(Rigged {
        bytes,
        garment: name,
        joints: joints.world.len(),
        cloth_bones: joints.cloth.len(),
        garment_vertices: render.positions.len(),
        body_vertices: body.positions.len(),
    })
}

/// [`rigged_glb`] written atomically to `path`.
pub fn write_rigged(
    path: &Path,
    character: &Character,
    garment: &dyn Garment,
    preset: &Preset,
) -> Result<Rigged, RiggedError> {
    let rigged = rigged_glb(character, garment, preset)?;
    write_atomic(path, &rigged.bytes)?;
    Ok(rigged)
}

/// The grid a rigged file's garment was built on (rows, columns and pin line from its
/// `extras.cloth_tuner.grid`), to lay the same grid over it when it is loaded back
/// ([`ImportedGarment::new`]).
pub fn grid_choice(path: &Path) -> Result<GridChoice, RiggedError> {
    rigged_garment(path).map(|(_, choice)| choice)
}

/// A rigged (or baked) file's garment: its mesh's name (`extras.cloth_tuner.garment`) and
/// the grid it was built on ([`grid_choice`]).
pub fn rigged_garment(path: &Path) -> Result<(String, GridChoice), RiggedError> {
    let err = |reason: String| RiggedError::Read {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let glb = gltf::Glb::from_slice(&bytes).map_err(|e| err(format!("not a .glb: {e}")))?;
    let root: Value = serde_json::from_slice(&glb.json).map_err(|e| err(e.to_string()))?;
    let ours = &root["extras"]["cloth_tuner"];
    if ours["format"] != FORMAT {
        return Err(err(format!(
            "extras.cloth_tuner.format is not `{FORMAT}`: not a rigged garment"
        )));
    }
    let name = ours["garment"]
        .as_str()
        .filter(|n| !n.is_empty())
        .ok_or_else(|| err("extras.cloth_tuner.garment: the garment mesh's name".into()))?;
    let grid = &ours["grid"];
    let count = |field: &str, min: u64| {
        grid[field]
            .as_u64()
            .filter(|&n| n >= min && n <= 10_000)
            .map(|n| n as usize)
            .ok_or_else(|| {
                err(format!(
                    "extras.cloth_tuner.grid.{field}: a count from {min} to 10000"
                ))
            })
    };
    let pin = grid["pin_height_m"]
        .as_f64()
        .filter(|h| h.is_finite() && h.abs() < 1e3)
        .ok_or_else(|| err("extras.cloth_tuner.grid.pin_height_m: a height in metres".into()))?;
    let seam = match grid["loop"].as_bool() {
        Some(true) => Seam::Closed,
        Some(false) => Seam::Open,
        None => Seam::Auto,
    };
    let choice = GridChoice {
        rows: Some(count("rows", 3)?),
        cols: Some(count("columns", 5)?),
        pin_height_m: Some(pin as f32),
        seam,
        ..GridChoice::default()
    };
    Ok((name.to_string(), choice))
}

/// The garment's name in the file: the artist's mesh's own, or the template's preset name.
fn garment_name(garment: &dyn Garment) -> String {
    match garment.template() {
        Some(t) => serde_json::to_value(t)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "garment".into()),
        None => garment
            .as_any()
            .downcast_ref::<ImportedGarment>()
            .map_or_else(|| "garment".into(), |g| g.name().to_string()),
    }
}

/// How the garment's mesh looks in the file: an imported garment's primitives, texture
/// coordinate sets and materials as its own file had them; a template's (or a mesh whose look
/// does not fit it) one primitive with its texture coordinates and one plain fabric material.
fn garment_look(garment: &dyn Garment) -> MeshLook {
    let render = &garment.rig().render;
    let counts = (render.positions.len(), render.indices.len());
    let imported = garment.as_any().downcast_ref::<ImportedGarment>();
    if let Some(look) = imported.map(ImportedGarment::look) {
        if look.fits(counts.0, counts.1) {
            return look.clone();
        }
    }
    let fabric = json::Material {
        name: Some("fabric".into()),
        double_sided: true,
        pbr_metallic_roughness: json::material::PbrMetallicRoughness {
            base_color_factor: json::material::PbrBaseColorFactor([0.30, 0.33, 0.40, 1.0]),
            metallic_factor: json::material::StrengthFactor(0.0),
            roughness_factor: json::material::StrengthFactor(0.9),
            ..Default::default()
        },
        ..Default::default()
    };
    let materials = Materials {
        materials: vec![fabric],
        ..Materials::default()
    };
    MeshLook::single(counts, vec![render.uvs.clone()], materials)
}

/// Up to four (joint, weight) pairs, weights summing to 1, unused slots (0, 0).
pub(crate) type Influences = ([u16; 4], [f32; 4]);

/// The skin's joints: one node each, in the skin's order (the skeleton's bones, the
/// garment's drivers, the cloth bones), with their world matrices at rest. A joint's parent
/// always comes before it.
pub(crate) struct Joints {
    nodes: Vec<json::Node>,
    /// Per joint, its world matrix as the file's transforms compose it.
    pub(crate) world: Vec<Mat4>,
    /// Per joint, its parent joint.
    pub(crate) parent: Vec<Option<u32>>,
    /// Per skeleton bone, its joint (`None` for the importer's ground bone, which is not the
    /// character's).
    bone: Vec<Option<u32>>,
    /// Per garment driver, its joint.
    driver: Vec<u32>,
    /// Per cloth bone (the rig's bone sites' order), its joint.
    cloth: Vec<u32>,
    /// Joints with no parent joint.
    roots: Vec<u32>,
    /// Where a weight on the ground bone goes: the pelvis.
    fallback: u32,
}

impl Joints {
    pub(crate) fn new(character: &Character, garment: &dyn Garment) -> Self {
        let mut j = Joints {
            nodes: Vec::new(),
            world: Vec::new(),
            parent: Vec::new(),
            bone: Vec::new(),
            driver: Vec::new(),
            cloth: Vec::new(),
            roots: Vec::new(),
            fallback: 0,
        };
        for (b, bone) in character.skeleton.bones().iter().enumerate() {
            if b == 0 && bone.name == GROUND_BONE {
                j.bone.push(None);
                continue;
            }
            let parent = bone.parent.and_then(|p| j.bone[p]);
            let local = bone.rest.matrix();
            let joint = j.add(bone.name.clone(), parent, local);
            j.bone.push(Some(joint));
        }
        j.fallback = j.bone[character.roles.bone(Role::Pelvis)].unwrap_or(0);
        let rig = garment.rig();
        let nc = rig.character_bones();
        for k in 0..rig.rest_drivers().len() - nc {
            let parent = j.bone[rig.driver_parent(k)].unwrap_or(j.fallback);
            let local = j.world[parent as usize].inverse() * rig.rest_drivers()[nc + k];
            let joint = j.add(cloth_driver_name(k), Some(parent), local);
            j.driver.push(joint);
        }
        let sites = rig.sim_bone_sites();
        let rest = rig.rest_sim_bones();
        for (s, &(r, c)) in sites.iter().enumerate() {
            let parent = if r == 0 {
                j.followed(rig.particle_binding(c), nc)
            } else {
                // The bone above, or (a hem bone between the article's columns) the one
                // above to its left.
                let above = (sites.iter().position(|&x| x == (r - 1, c)))
                    .or_else(|| sites.iter().position(|&x| x == (r - 1, c.wrapping_sub(1))));
                above.map_or(j.fallback, |a| j.cloth[a])
            };
            let local = j.world[parent as usize].inverse() * rest[s];
            let joint = j.add(cloth_bone_name(r, c), Some(parent), local);
            j.cloth.push(joint);
        }
        j
    }

    /// Adds a joint named `name` under `parent` at `local` (its rigid part: rotation and
    /// translation; the bones here carry no scale).
    fn add(&mut self, name: String, parent: Option<u32>, local: Mat4) -> u32 {
        let (_, r, t) = local.to_scale_rotation_translation();
        let r = r.normalize();
        let joint = self.nodes.len() as u32;
        self.parent.push(parent);
        let base = parent.map_or(Mat4::IDENTITY, |p| self.world[p as usize]);
        self.world
            .push(base * Mat4::from_rotation_translation(r, t));
        self.nodes.push(json::Node {
            name: Some(name),
            rotation: (r != Quat::IDENTITY).then_some(json::scene::UnitQuaternion(r.to_array())),
            translation: (t != Vec3::ZERO).then_some(t.to_array()),
            ..Default::default()
        });
        match parent {
            Some(p) => self.nodes[p as usize]
                .children
                .get_or_insert_with(Vec::new)
                .push(json::Index::new(joint)),
            None => self.roots.push(joint),
        }
        joint
    }

    /// Every joint's world (character-space) matrix for a posed scene: the skeleton's bones
    /// from `model`, the garment's drivers and cloth bones from `frame` (the rig's pose of
    /// this step), into `out` (one per joint).
    pub(crate) fn posed(
        &self,
        model: &[Mat4],
        rig: &GarmentRig,
        frame: &RigFrame,
        out: &mut [Mat4],
    ) {
        for (b, joint) in self.bone.iter().enumerate() {
            if let Some(j) = joint {
                out[*j as usize] = model[b];
            }
        }
        let nc = rig.character_bones();
        for (k, &j) in self.driver.iter().enumerate() {
            out[j as usize] = frame.driver_skin[nc + k] * rig.rest_drivers()[nc + k];
        }
        for (s, &j) in self.cloth.iter().enumerate() {
            out[j as usize] = frame.sim_bones[s];
        }
    }

    /// The garment's render vertices' skinning as joints, as the file writes it.
    pub(crate) fn garment_skin(&self, garment: &dyn Garment) -> Vec<Influences> {
        let rig = garment.rig();
        rig.render
            .binding()
            .iter()
            .map(|b| self.influences(b, rig.sim_bone_sites().len(), rig.character_bones()))
            .collect()
    }

    /// The body's vertices' skinning as joints, as the file writes it.
    pub(crate) fn body_skin(&self, character: &Character) -> Vec<Influences> {
        let body = &character.mesh;
        body.joints
            .iter()
            .zip(&body.weights)
            .map(|(j, w)| self.body_influences(j, w))
            .collect()
    }

    /// The inverse bind matrices the file writes: each joint's world matrix at rest,
    /// inverted as an affine map (its last row exactly (0, 0, 0, 1), as glTF requires).
    pub(crate) fn inverse_binds(&self) -> Vec<Mat4> {
        self.world
            .iter()
            .map(|m| Mat4::from(glam::Affine3A::from_mat4(*m).inverse()))
            .collect()
    }

    /// The joint of the driver a pinned particle's binding weighs most (the body bone it
    /// follows).
    fn followed(&self, binding: &Binding, character_bones: usize) -> u32 {
        let heaviest = binding
            .iter()
            .filter(|e| e.1 > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match heaviest {
            Some(&(d, _)) => self.driver_joint(d as usize, character_bones),
            None => self.fallback,
        }
    }

    /// The joint of rig driver `d` (the character's bones, then the garment's own).
    fn driver_joint(&self, d: usize, character_bones: usize) -> u32 {
        if d < character_bones {
            self.bone.get(d).copied().flatten().unwrap_or(self.fallback)
        } else {
            self.driver
                .get(d - character_bones)
                .copied()
                .unwrap_or(self.fallback)
        }
    }

    /// A render vertex's skinning (indices into the rig's render skin: `sim_bones` cloth
    /// bones, then the drivers) as joints.
    fn influences(&self, b: &Binding, sim_bones: usize, character_bones: usize) -> Influences {
        let entries = b.iter().map(|&(i, w)| {
            let i = i as usize;
            let joint = if i < sim_bones {
                self.cloth[i]
            } else {
                self.driver_joint(i - sim_bones, character_bones)
            };
            (joint, w)
        });
        self.normalised(entries)
    }

    /// A body vertex's skinning (skeleton bones) as joints.
    fn body_influences(&self, joints: &[u16; 4], weights: &[f32; 4]) -> Influences {
        let entries = joints.iter().zip(weights).map(|(&b, &w)| {
            let joint = self.bone.get(b as usize).copied().flatten();
            (joint.unwrap_or(self.fallback), w)
        });
        self.normalised(entries)
    }

    /// The same joint merged, the four heaviest kept, weights normalised so that they sum to
    /// 1 in `f32` (the heaviest takes what rounding leaves); no weight at all goes to the
    /// pelvis.
    fn normalised(&self, entries: impl Iterator<Item = (u32, f32)>) -> Influences {
        let mut merged: Vec<(u32, f32)> = Vec::with_capacity(4);
        for (j, w) in entries.filter(|e| e.1.is_finite() && e.1 > 0.0) {
            match merged.iter_mut().find(|e| e.0 == j) {
                Some(e) => e.1 += w,
                None => merged.push((j, w)),
            }
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        merged.truncate(4);
        if merged.is_empty() {
            merged.push((self.fallback, 1.0));
        }
        let sum: f32 = merged.iter().map(|e| e.1).sum();
        let (mut joints, mut weights) = ([0u16; 4], [0f32; 4]);
        for (k, e) in merged.iter().enumerate() {
            joints[k] = e.0 as u16;
            weights[k] = e.1 / sum;
        }
        let rest: f64 = weights[1..].iter().map(|&w| w as f64).sum();
        weights[0] = (1.0 - rest) as f32;
        (joints, weights)
    }
}

/// The grid and the fabric, for the root's `extras.cloth_tuner`.
fn grid_extras(
    garment: &dyn Garment,
    joints: &Joints,
    preset: &Preset,
    name: &str,
) -> Result<Value, RiggedError> {
    let rig = garment.rig();
    let topo = &rig.topology;
    let painted = match &preset.max_distance_map {
        None => &[][..],
        Some(map) => match map.grid_mismatch(topo.cols, topo.rows) {
            Some(why) => return Err(RiggedError::MaxDistanceMap(why)),
            None => &map.metres[..],
        },
    };
    let max_distance: Vec<f32> = (0..topo.len())
        .map(|i| {
            if topo.pinned[i] {
                0.0
            } else {
                let paint = painted.get(i).copied().flatten();
                painted_or_curve(&preset.params, paint, topo.row_fraction(i), topo.edge[i])
            }
        })
        .collect();
    let bones: Vec<Value> = rig
        .sim_bone_sites()
        .iter()
        .zip(&joints.cloth)
        .map(|(&(r, c), &joint)| {
            value!({
                "name": cloth_bone_name(r, c),
                "node": joint,
                "row": r,
                "column": c,
                "particle": r * topo.cols + c,
            })
        })
        .collect();
    let layout = rig.layout();
    Ok(value!({
        "cloth_tuner": {
            "format": FORMAT,
            "version": VERSION,
            "garment": name,
            "template": garment.template(),
            "grid": {
                "rows": topo.rows,
                "columns": topo.cols,
                "loop": topo.seam,
                "pinned_row": 0,
                "pin_height_m": layout.top_height,
                "hem_height_m": layout.hem_height,
                "bones": bones,
                "drivers": joints.driver,
                "max_distance_m": max_distance,
                "edge": topo.edge,
                "pinned": topo.pinned,
            },
            "preset": preset,
        }
    }))
}

/// A mesh to write: its vertices in character space at rest, their skinning, and how it
/// looks (its primitives, texture coordinate sets and materials, which [`MeshLook::fits`]).
struct MeshData<'a> {
    name: &'a str,
    positions: &'a [Vec3],
    normals: &'a [Vec3],
    indices: &'a [u32],
    skin: &'a [Influences],
    look: &'a MeshLook,
}

/// The document being built and its binary chunk.
#[derive(Default)]
struct Doc {
    root: json::Root,
    bin: Vec<u8>,
    /// How many joints the skin has (their nodes come first).
    joints: usize,
    /// The nodes after the joints: the meshes' and any node above the skeleton's roots.
    mesh_nodes: Vec<json::Node>,
}

impl Doc {
    /// The one skin: every joint with the inverse of its world matrix at rest.
    fn skin(&mut self, joints: &Joints) -> json::Index<json::Skin> {
        let ibm: Vec<f32> = joints
            .inverse_binds()
            .iter()
            .flat_map(|m| m.to_cols_array())
            .collect();
        self.joints = joints.world.len();
        let view = self.view(bytemuck_f32(&ibm), None);
        let ibm = self.accessor(
            view,
            joints.world.len(),
            F32,
            json::accessor::Type::Mat4,
            None,
        );
        self.root.push(json::Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: Some(ibm),
            joints: (0..joints.world.len() as u32)
                .map(json::Index::new)
                .collect(),
            name: Some("character".into()),
            skeleton: None,
        })
    }

    /// A node at the scene's root holding `m` skinned by `skin`: one primitive per part of
    /// its look, each with its own vertices, indices and material.
    fn mesh_node(&mut self, m: &MeshData, skin: json::Index<json::Skin>) -> u32 {
        let materials = self.copy_materials(m.look);
        let mut primitives = Vec::new();
        for part in &m.look.parts {
            let first = part.first_vertex as usize;
            let vertices = first..first + part.vertex_count as usize;
            let firsti = part.first_index as usize;
            let corners = &m.indices[firsti..firsti + part.index_count as usize];
            let material = part.material.and_then(|k| materials[k as usize]);
            primitives.push(self.primitive(m, vertices, corners, material));
        }
        let mesh = self.root.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some(m.name.to_string()),
            primitives,
            weights: None,
        });
        // The joints come first, at the indices the skin names; the mesh nodes after them.
        self.mesh_nodes.push(json::Node {
            name: Some(m.name.to_string()),
            mesh: Some(mesh),
            skin: Some(skin),
            ..Default::default()
        });
        (self.joints + self.mesh_nodes.len() - 1) as u32
    }

    /// The primitive of `m`'s `vertices` (each attribute in a buffer view of its own) and
    /// `corners` (the mesh's indices, made the primitive's own), with `material`.
    fn primitive(
        &mut self,
        m: &MeshData,
        vertices: std::ops::Range<usize>,
        corners: &[u32],
        material: Option<json::Index<json::Material>>,
    ) -> json::mesh::Primitive {
        use json::accessor::{ComponentType, Type};
        use json::mesh::Semantic;
        let (first, n) = (vertices.start, vertices.len());
        let positions = &m.positions[vertices.clone()];
        let (lo, hi) = positions.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let bounds = Some((lo.to_array().to_vec(), hi.to_array().to_vec()));
        let mut attribute = |bytes: Vec<u8>, component, type_, bounds| {
            let view = self.view(bytes, Some(json::buffer::Target::ArrayBuffer));
            self.accessor(view, n, component, type_, bounds)
        };
        let flat =
            |v: &[Vec3]| bytemuck_f32(&v.iter().flat_map(|p| p.to_array()).collect::<Vec<_>>());
        let normals: Vec<Vec3> = m.normals[vertices.clone()]
            .iter()
            .map(|v| v.normalize_or(Vec3::Y))
            .collect();
        let mut attributes = BTreeMap::new();
        let pos = attribute(flat(positions), F32, Type::Vec3, bounds);
        attributes.insert(Checked::Valid(Semantic::Positions), pos);
        let nrm = attribute(flat(&normals), F32, Type::Vec3, None);
        attributes.insert(Checked::Valid(Semantic::Normals), nrm);
        for (k, set) in m.look.uv_sets.iter().enumerate() {
            let uv: Vec<f32> = set[vertices.clone()].iter().flatten().copied().collect();
            let uv = attribute(bytemuck_f32(&uv), F32, Type::Vec2, None);
            attributes.insert(Checked::Valid(Semantic::TexCoords(k as u32)), uv);
        }
        let skin = &m.skin[vertices];
        let joints: Vec<u8> = skin
            .iter()
            .flat_map(|(j, _)| j.iter().flat_map(|x| x.to_le_bytes()))
            .collect();
        let j = attribute(joints, ComponentType::U16, Type::Vec4, None);
        attributes.insert(Checked::Valid(Semantic::Joints(0)), j);
        let weights: Vec<f32> = skin.iter().flat_map(|(_, w)| *w).collect();
        let w = attribute(bytemuck_f32(&weights), F32, Type::Vec4, None);
        attributes.insert(Checked::Valid(Semantic::Weights(0)), w);
        let base = first as u32;
        let bytes: Vec<u8> = corners
            .iter()
            .flat_map(|i| (i - base).to_le_bytes())
            .collect();
        let view = self.view(bytes, Some(json::buffer::Target::ElementArrayBuffer));
        let indices = self.accessor(view, corners.len(), ComponentType::U32, Type::Scalar, None);
        json::mesh::Primitive {
            attributes,
            extensions: None,
            extras: Default::default(),
            indices: Some(indices),
            material,
            mode: Checked::Valid(json::mesh::Mode::Triangles),
            targets: None,
        }
    }

    /// The materials `look`'s parts use, copied with the textures, samplers and images they
    /// show (each image's bytes into the binary chunk), every index remapped; per material
    /// of `look`, its index in the file (`None` where no part uses it).
    fn copy_materials(&mut self, look: &MeshLook) -> Vec<Option<json::Index<json::Material>>> {
        let source = &look.materials;
        let mut material = vec![None; source.materials.len()];
        let mut texture = vec![None; source.textures.len()];
        let mut sampler = vec![None; source.samplers.len()];
        let mut image = vec![None; source.images.len()];
        for part in &look.parts {
            let Some(k) = part.material.map(|k| k as usize) else {
                continue;
            };
            if material[k].is_some() {
                continue;
            }
            let mut copy = source.materials[k].clone();
            for_each_texture(&mut copy, &mut |t| {
                let t = t.value();
                if texture[t].is_none() {
                    let mut tex = source.textures[t].clone();
                    let i = tex.source.value();
                    let bytes = source.images[i].as_ref()?;
                    if image[i].is_none() {
                        image[i] = Some(self.image(bytes));
                    }
                    tex.source = image[i]?;
                    tex.sampler = match tex.sampler.map(|s| s.value()) {
                        Some(s) if s < sampler.len() => {
                            let copy = source.samplers[s].clone();
                            Some(*sampler[s].get_or_insert_with(|| self.root.push(copy)))
                        }
                        _ => None,
                    };
                    texture[t] = Some(self.root.push(tex));
                }
                texture[t]
            });
            material[k] = Some(self.root.push(copy));
        }
        material
    }

    /// `image`'s bytes in a buffer view of the binary chunk, as an image of the file.
    fn image(&mut self, image: &Image) -> json::Index<json::Image> {
        let view = self.view(image.bytes.clone(), None);
        self.root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType(image.mime_type.clone())),
            name: image.name.clone(),
            uri: None,
            extensions: None,
            extras: Default::default(),
        })
    }

    /// `clip` as a glTF animation: per joint one sampler input (its key times), LINEAR
    /// samplers of its local translation and rotation, a channel each.
    fn animation(&mut self, clip: &ClipKeys) {
        use json::accessor::Type;
        use json::animation::{Channel, Interpolation, Property, Sampler, Target};
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for (j, keys) in clip.joints.iter().enumerate() {
            let n = keys.times.len();
            let first = keys.times.first().copied().unwrap_or(0.0);
            let last = keys.times.last().copied().unwrap_or(0.0);
            let view = self.view(bytemuck_f32(&keys.times), None);
            let bounds = Some((vec![first], vec![last]));
            let input = self.accessor(view, n, F32, Type::Scalar, bounds);
            let t: Vec<f32> = keys
                .translations
                .iter()
                .flat_map(|v| v.to_array())
                .collect();
            let view = self.view(bytemuck_f32(&t), None);
            let t = self.accessor(view, n, F32, Type::Vec3, None);
            let r: Vec<f32> = keys.rotations.iter().flat_map(|q| q.to_array()).collect();
            let view = self.view(bytemuck_f32(&r), None);
            let r = self.accessor(view, n, F32, Type::Vec4, None);
            for (output, path) in [(t, Property::Translation), (r, Property::Rotation)] {
                let sampler = json::Index::new(samplers.len() as u32);
                samplers.push(Sampler {
                    extensions: None,
                    extras: Default::default(),
                    input,
                    interpolation: Checked::Valid(Interpolation::Linear),
                    output,
                });
                channels.push(Channel {
                    sampler,
                    target: Target {
                        extensions: None,
                        extras: Default::default(),
                        node: json::Index::new(j as u32),
                        path: Checked::Valid(path),
                    },
                    extensions: None,
                    extras: Default::default(),
                });
            }
        }
        self.root.push(json::Animation {
            extensions: None,
            extras: Default::default(),
            channels,
            name: Some(clip.name.clone()),
            samplers,
        });
    }

    /// The node the skeleton hangs from: its root joint, or, for a skeleton with several
    /// roots, a node above them all (glTF wants a skin's joints under one root).
    fn skeleton_root(&mut self, roots: &[u32]) -> u32 {
        if let [root] = roots {
            return *root;
        }
        self.mesh_nodes.push(json::Node {
            name: Some("cloth_tuner_armature".into()),
            children: Some(roots.iter().map(|&r| json::Index::new(r)).collect()),
            ..Default::default()
        });
        (self.joints + self.mesh_nodes.len() - 1) as u32
    }

    /// A buffer view over `bytes`, appended to the binary chunk at a 4-byte boundary.
    fn view(
        &mut self,
        bytes: Vec<u8>,
        target: Option<json::buffer::Target>,
    ) -> json::Index<json::buffer::View> {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(&bytes);
        self.root.push(json::buffer::View {
            buffer: json::Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    /// An accessor of `count` elements over `view`, with its bounds when given.
    fn accessor(
        &mut self,
        view: json::Index<json::buffer::View>,
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> json::Index<json::Accessor> {
        let (min, max) = match bounds {
            Some((lo, hi)) => (Some(value!(lo)), Some(value!(hi))),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Checked::Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Checked::Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// The `.glb`: the joints, then the mesh nodes, one scene, the extras and the buffer.
    fn finish(
        mut self,
        joints: Vec<json::Node>,
        scene_nodes: Vec<u32>,
        extras: Value,
    ) -> Result<Vec<u8>, RiggedError> {
        let encode = |e: serde_json::Error| RiggedError::Encode(e.to_string());
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        self.root.nodes = joints;
        self.root.nodes.append(&mut self.mesh_nodes);
        let nodes = scene_nodes.into_iter().map(json::Index::new).collect();
        let scene = self.root.push(json::Scene {
            extensions: None,
            extras: Default::default(),
            name: Some("rigged garment".into()),
            nodes,
        });
        self.root.scene = Some(scene);
        self.root.buffers.push(json::Buffer {
            byte_length: USize64::from(self.bin.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
        self.root.asset = json::Asset {
            generator: Some(GENERATOR.into()),
            version: "2.0".into(),
            ..Default::default()
        };
        self.root.extras = Some(serde_json::value::to_raw_value(&extras).map_err(encode)?);
        let text = json::serialize::to_vec(&self.root).map_err(encode)?;
        gltf::Glb {
            header: gltf::binary::Header {
                magic: *b"glTF",
                version: 2,
                length: 0,
            },
            json: Cow::Owned(text),
            bin: Some(Cow::Owned(self.bin)),
        }
        .to_vec()
        .map_err(|e| RiggedError::Encode(e.to_string()))
    }
}

/// `f32` component type.
const F32: json::accessor::ComponentType = json::accessor::ComponentType::F32;

/// Little-endian bytes of `values`.
fn bytemuck_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
