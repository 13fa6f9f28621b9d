//! The character: skeleton, skinned mesh, clips and collision ellipsoids, loaded from glTF.

use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::animation::{Interpolation, Property};

use super::clip::{BoneTrack, Clip, Track};
use super::ellipsoid::Ellipsoid;
use super::mesh::SkinnedMesh;
use super::skeleton::{Bone, Skeleton};
use crate::sim::Frame;

/// The committed character asset, compiled in for a fast start-up.
const BUILTIN_GLB: &[u8] = include_bytes!("../../assets/character.glb");

/// Name prefix of the nodes that carry collision ellipsoids.
const ELLIPSOID_PREFIX: &str = "ellipsoid_";

/// What can go wrong loading a character. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum RigError {
    /// The file could not be read.
    #[error("cannot read character file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The bytes are not a parsable glTF binary.
    #[error("{path}: not a valid glTF binary (.glb): {reason}")]
    Format {
        /// The file.
        path: String,
        /// What the parser said.
        reason: String,
    },
    /// A valid glTF that is not a usable character.
    #[error("{path}: {reason}")]
    Content {
        /// The file.
        path: String,
        /// What is missing or inconsistent.
        reason: String,
    },
}

/// A skinned, animated character.
#[derive(Clone, Debug, PartialEq)]
pub struct Character {
    /// Bones; index 0 is the root.
    pub skeleton: Skeleton,
    /// Body mesh, bind pose in character space; joint indices are skeleton indices.
    pub mesh: SkinnedMesh,
    /// One inverse bind matrix per bone (character space to bone space at bind time).
    pub inverse_bind: Vec<Mat4>,
    /// Animation clips.
    pub clips: Vec<Clip>,
    /// Collision ellipsoids, each bound to a bone.
    pub ellipsoids: Vec<Ellipsoid>,
}

impl Character {
    /// Loads a character from a `.glb` file. Errors (never panics) on a missing, truncated or
    /// inconsistent file; the message names the file and the problem.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, RigError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| RigError::Io {
            path: name.clone(),
            source,
        })?;
        Self::from_glb(&bytes, &name)
    }

    /// The built-in character (`assets/character.glb`, compiled in).
    ///
    /// # Panics
    /// Only if the committed asset is broken, which the test suite rules out
    /// (`tests/rig_assets.rs` loads it and compares it with the generator's output).
    pub fn builtin() -> Self {
        Self::from_glb(BUILTIN_GLB, "assets/character.glb (built in)")
            .expect("the committed character asset loads (checked by tests/rig_assets.rs)")
    }

    /// Parses a character from `.glb` bytes; `source` names them in error messages.
    pub fn from_glb(bytes: &[u8], source: &str) -> Result<Self, RigError> {
        Loader {
            path: source.to_string(),
        }
        .load(bytes)
    }

    /// The clip with this name.
    pub fn clip(&self, name: &str) -> Option<&Clip> {
        self.clips.iter().find(|c| c.name == name)
    }

    /// Height of the top of the body mesh above the root at rest, metres (for framing the
    /// character in a view).
    pub fn height(&self) -> f32 {
        self.mesh
            .positions
            .iter()
            .map(|p| p.y)
            .fold(0.0f32, f32::max)
    }

    /// Names of all clips, in file order.
    pub fn clip_names(&self) -> impl Iterator<Item = &str> {
        self.clips.iter().map(|c| c.name.as_str())
    }

    /// Skinning matrices `model[i] * inverse_bind[i]` for [`crate::rig::skin`]. `out` is
    /// resized (allocating only when too small).
    pub fn skin_matrices(&self, model: &[Mat4], out: &mut Vec<Mat4>) {
        out.clear();
        out.extend(
            model
                .iter()
                .zip(self.inverse_bind.iter())
                .map(|(m, ib)| *m * *ib),
        );
    }

    /// The ellipsoid with this name.
    pub fn ellipsoid(&self, name: &str) -> Option<&Ellipsoid> {
        self.ellipsoids.iter().find(|e| e.name == name)
    }
}

struct Loader {
    path: String,
}

/// Where the glTF nodes sit in the skeleton.
struct NodeMap {
    /// Each node's parent node.
    parent: Vec<Option<usize>>,
    /// The bone each node is, for the skin's joints.
    bone: Vec<Option<usize>>,
    /// The root bone's node: its channels are the root motion.
    root: usize,
}

impl Loader {
    fn err(&self, reason: impl Into<String>) -> RigError {
        RigError::Content {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    fn format_err(&self, reason: impl Into<String>) -> RigError {
        RigError::Format {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    /// Checks the GLB container before handing it to the parser (some malformed headers
    /// would otherwise trip an arithmetic overflow inside it).
    fn check_container(&self, bytes: &[u8]) -> Result<(), RigError> {
        let u32_at = |o: usize| -> Option<u32> {
            let b = bytes.get(o..o + 4)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        if bytes.len() < 20 || &bytes[0..4] != b"glTF" {
            return Err(self.format_err("missing the 'glTF' magic header"));
        }
        if u32_at(4) != Some(2) {
            return Err(self.format_err("only glTF version 2 is supported"));
        }
        let total = u32_at(8).unwrap_or(0) as usize;
        if total < 20 || total > bytes.len() {
            return Err(self.format_err(format!(
                "header says {} bytes, file has {}",
                total,
                bytes.len()
            )));
        }
        let mut offset = 12usize;
        while offset < total {
            let len =
                u32_at(offset).ok_or_else(|| self.format_err("truncated chunk header"))? as usize;
            let end = offset
                .checked_add(8)
                .and_then(|o| o.checked_add(len))
                .filter(|&e| e <= total)
                .ok_or_else(|| self.format_err("a chunk runs past the end of the file"))?;
            offset = end;
        }
        Ok(())
    }

    fn load(&self, bytes: &[u8]) -> Result<Character, RigError> {
        self.check_container(bytes)?;
        let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| self.format_err(e.to_string()))?;
        let blob: &[u8] = gltf.blob.as_deref().unwrap_or(&[]);
        let doc = &gltf.document;
        let looping = self.looping_flags(bytes)?;

        // The skeleton is the first skin's joints.
        let skin = doc
            .skins()
            .next()
            .ok_or_else(|| self.err("no skin (the file has no skeleton)"))?;
        let (skeleton, nodes) = self.read_skeleton(doc, &skin)?;
        let inverse_bind = self.read_inverse_bind(&skin, blob, skeleton.len())?;

        // Mesh: the first node that has both a mesh and this skin.
        let mesh_node = doc
            .nodes()
            .find(|n| n.mesh().is_some() && n.skin().is_some_and(|s| s.index() == skin.index()))
            .ok_or_else(|| self.err("no skinned mesh node"))?;
        let mesh = self.read_mesh(&mesh_node, blob, skeleton.len())?;

        let rest: Vec<Frame> = skeleton.bones().iter().map(|b| b.rest).collect();
        let clips = doc
            .animations()
            .map(|anim| {
                let is_looping = looping.get(anim.index()).copied().unwrap_or(false);
                self.read_clip(&anim, is_looping, blob, &nodes, &rest)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ellipsoids = self.read_ellipsoids(doc, &nodes)?;

        Ok(Character {
            skeleton,
            mesh,
            inverse_bind,
            clips,
            ellipsoids,
        })
    }

    /// The skin's joints as bones, parents first, and where every node sits among them.
    fn read_skeleton(
        &self,
        doc: &gltf::Document,
        skin: &gltf::Skin,
    ) -> Result<(Skeleton, NodeMap), RigError> {
        let joint_nodes: Vec<usize> = skin.joints().map(|n| n.index()).collect();
        if joint_nodes.is_empty() {
            return Err(self.err("the skin has no joints"));
        }
        if joint_nodes.len() > u16::MAX as usize {
            return Err(self.err("too many joints"));
        }
        let node_count = doc.nodes().len();
        let mut node_parent = vec![None; node_count];
        for node in doc.nodes() {
            for child in node.children() {
                if let Some(slot) = node_parent.get_mut(child.index()) {
                    *slot = Some(node.index());
                }
            }
        }
        let mut node_to_bone = vec![None; node_count];
        for (b, &n) in joint_nodes.iter().enumerate() {
            if node_to_bone[n].is_some() {
                return Err(self.err("a node is listed twice among the skin joints"));
            }
            node_to_bone[n] = Some(b);
        }
        let nodes: Vec<gltf::Node> = doc.nodes().collect();
        let mut bones = Vec::with_capacity(joint_nodes.len());
        for (b, &n) in joint_nodes.iter().enumerate() {
            let node = &nodes[n];
            let name = node
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("bone{b}"));
            let parent = node_parent[n].and_then(|p| node_to_bone[p]);
            let (t, r, s) = node.transform().decomposed();
            if s.iter().any(|v| (v - 1.0).abs() > 1e-4) {
                return Err(self.err(format!("bone '{name}' has a scale; bones must be rigid")));
            }
            let rest = Frame::new(Quat::from_array(r).normalize(), Vec3::from_array(t));
            bones.push(Bone { name, parent, rest });
        }
        let skeleton = Skeleton::new(bones).map_err(|e| self.err(e))?;
        let map = NodeMap {
            parent: node_parent,
            bone: node_to_bone,
            root: joint_nodes[0],
        };
        Ok((skeleton, map))
    }

    /// One inverse bind matrix per bone.
    fn read_inverse_bind(
        &self,
        skin: &gltf::Skin,
        blob: &[u8],
        bone_count: usize,
    ) -> Result<Vec<Mat4>, RigError> {
        let ibm = skin
            .inverse_bind_matrices()
            .ok_or_else(|| self.err("the skin has no inverse bind matrices"))?;
        let ibm = self.read_f32(&ibm, Dimensions::Mat4, blob, "inverse bind matrices")?;
        if ibm.len() != bone_count * 16 {
            return Err(self.err("inverse bind matrix count differs from the joint count"));
        }
        Ok(ibm.chunks_exact(16).map(Mat4::from_cols_slice).collect())
    }

    /// One animation as a clip: the root bone's channels are the root motion, the other
    /// joints' channels their tracks; channels on nodes that are not bones are ignored.
    fn read_clip(
        &self,
        anim: &gltf::Animation,
        looping: bool,
        blob: &[u8],
        nodes: &NodeMap,
        rest: &[Frame],
    ) -> Result<Clip, RigError> {
        let name = anim
            .name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("clip{}", anim.index()));
        let mut root_t = None;
        let mut root_r = None;
        let mut tracks: Vec<BoneTrack> = Vec::new();
        for ch in anim.channels() {
            let sampler = ch.sampler();
            if sampler.interpolation() == Interpolation::CubicSpline {
                return Err(self.err(format!(
                    "clip '{name}': cubic-spline keys are not supported (use LINEAR)"
                )));
            }
            let node = ch.target().node().index();
            let times = self.read_f32(&sampler.input(), Dimensions::Scalar, blob, "key times")?;
            let out = sampler.output();
            let what = format!("clip '{name}' keys");
            match ch.target().property() {
                Property::Translation => {
                    let v = self.read_f32(&out, Dimensions::Vec3, blob, &what)?;
                    let v: Vec<Vec3> = v.chunks_exact(3).map(Vec3::from_slice).collect();
                    let track = Track::new(times, v)
                        .map_err(|e| self.err(format!("clip '{name}': {e}")))?;
                    if node == nodes.root {
                        root_t = Some(track);
                    } else if let Some(b) = nodes.bone[node] {
                        track_for(&mut tracks, b).translation = Some(track);
                    }
                }
                Property::Rotation => {
                    let v = self.read_f32(&out, Dimensions::Vec4, blob, &what)?;
                    let v: Vec<Quat> = v
                        .chunks_exact(4)
                        .map(|q| Quat::from_slice(q).normalize())
                        .collect();
                    let track = Track::new(times, v)
                        .map_err(|e| self.err(format!("clip '{name}': {e}")))?;
                    if node == nodes.root {
                        root_r = Some(track);
                    } else if let Some(b) = nodes.bone[node] {
                        track_for(&mut tracks, b).rotation = Some(track);
                    }
                }
                // Scale and morph weights do not apply to a rigid skeleton.
                _ => {}
            }
        }
        Clip::new(name, looping, rest.to_vec(), root_t, root_r, tracks).map_err(|e| self.err(e))
    }

    /// The collision ellipsoids: nodes named with [`ELLIPSOID_PREFIX`], children of joints.
    fn read_ellipsoids(
        &self,
        doc: &gltf::Document,
        nodes: &NodeMap,
    ) -> Result<Vec<Ellipsoid>, RigError> {
        let mut ellipsoids = Vec::new();
        for node in doc.nodes() {
            let Some(name) = node.name().and_then(|n| n.strip_prefix(ELLIPSOID_PREFIX)) else {
                continue;
            };
            let bone = nodes.parent[node.index()]
                .and_then(|p| nodes.bone[p])
                .ok_or_else(|| self.err(format!("ellipsoid '{name}' is not a child of a bone")))?;
            let (t, r, s) = node.transform().decomposed();
            let radii = Vec3::from_array(s);
            if !radii.is_finite() || radii.min_element() <= 0.0 {
                return Err(self.err(format!("ellipsoid '{name}' needs three positive radii")));
            }
            ellipsoids.push(Ellipsoid {
                name: name.to_string(),
                bone,
                centre: Vec3::from_array(t),
                rotation: Quat::from_array(r).normalize(),
                radii,
            });
        }
        Ok(ellipsoids)
    }

    /// `animations[i].extras.looping` from the JSON chunk (the parser drops extras).
    fn looping_flags(&self, bytes: &[u8]) -> Result<Vec<bool>, RigError> {
        let glb = gltf::Glb::from_slice(bytes).map_err(|e| self.format_err(e.to_string()))?;
        let json: serde_json::Value =
            serde_json::from_slice(&glb.json).map_err(|e| self.format_err(e.to_string()))?;
        let flags = json
            .get("animations")
            .and_then(|a| a.as_array())
            .map(|anims| {
                anims
                    .iter()
                    .map(|a| {
                        a.pointer("/extras/looping")
                            .and_then(|v| v.as_bool())
                            .unwrap_or(false)
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(flags)
    }

    fn read_mesh(
        &self,
        node: &gltf::Node,
        blob: &[u8],
        bone_count: usize,
    ) -> Result<SkinnedMesh, RigError> {
        let mesh = node
            .mesh()
            .ok_or_else(|| self.err("the skinned node has no mesh"))?;
        let prim = mesh
            .primitives()
            .next()
            .ok_or_else(|| self.err("the mesh has no primitive"))?;
        if prim.mode() != gltf::mesh::Mode::Triangles {
            return Err(self.err("the mesh must be a triangle list"));
        }
        use gltf::Semantic;
        let get = |s: Semantic, what: &str| {
            prim.get(&s)
                .ok_or_else(|| self.err(format!("the mesh has no {what}")))
        };
        let pos = self.read_f32(
            &get(Semantic::Positions, "POSITION")?,
            Dimensions::Vec3,
            blob,
            "positions",
        )?;
        let nrm = self.read_f32(
            &get(Semantic::Normals, "NORMAL")?,
            Dimensions::Vec3,
            blob,
            "normals",
        )?;
        let wts = self.read_f32(
            &get(Semantic::Weights(0), "WEIGHTS_0")?,
            Dimensions::Vec4,
            blob,
            "weights",
        )?;
        let jts = self.read_uint(
            &get(Semantic::Joints(0), "JOINTS_0")?,
            Dimensions::Vec4,
            blob,
            "joints",
        )?;
        let idx = match prim.indices() {
            Some(a) => self.read_uint(&a, Dimensions::Scalar, blob, "indices")?,
            None => (0..(pos.len() / 3) as u32).collect(),
        };
        let n = pos.len() / 3;
        if nrm.len() != n * 3 || wts.len() != n * 4 || jts.len() != n * 4 {
            return Err(self.err("mesh attributes have different vertex counts"));
        }
        if idx.len() % 3 != 0 || idx.iter().any(|&i| i as usize >= n) {
            return Err(self.err("mesh indices out of range or not whole triangles"));
        }
        if jts.iter().any(|&j| j as usize >= bone_count) {
            return Err(self.err("a vertex refers to a joint the skin does not have"));
        }
        Ok(SkinnedMesh {
            positions: pos.chunks_exact(3).map(Vec3::from_slice).collect(),
            normals: nrm.chunks_exact(3).map(Vec3::from_slice).collect(),
            indices: idx,
            joints: jts
                .chunks_exact(4)
                .map(|j| [j[0] as u16, j[1] as u16, j[2] as u16, j[3] as u16])
                .collect(),
            weights: wts
                .chunks_exact(4)
                .map(|w| [w[0], w[1], w[2], w[3]])
                .collect(),
        })
    }

    /// Raw bytes of each element of an accessor, bounds-checked against the binary chunk.
    fn elements<'b>(
        &self,
        acc: &gltf::Accessor,
        dims: Dimensions,
        blob: &'b [u8],
        what: &str,
    ) -> Result<(Vec<&'b [u8]>, DataType), RigError> {
        if acc.dimensions() != dims {
            return Err(self.err(format!(
                "{what}: expected {dims:?} elements, found {:?}",
                acc.dimensions()
            )));
        }
        if acc.sparse().is_some() {
            return Err(self.err(format!("{what}: sparse accessors are not supported")));
        }
        let view = acc
            .view()
            .ok_or_else(|| self.err(format!("{what}: accessor has no buffer view")))?;
        if !matches!(view.buffer().source(), gltf::buffer::Source::Bin) {
            return Err(self.err(format!("{what}: external buffers are not supported")));
        }
        let comp = acc.data_type().size();
        let elem = comp * dims.multiplicity();
        let stride = view.stride().unwrap_or(elem).max(elem);
        let count = acc.count();
        let start = view.offset().checked_add(acc.offset());
        let view_end = view.offset().checked_add(view.length());
        let need_end = start.and_then(|s| {
            if count == 0 {
                Some(s)
            } else {
                stride
                    .checked_mul(count - 1)?
                    .checked_add(elem)?
                    .checked_add(s)
            }
        });
        match (start, view_end, need_end) {
            (Some(s), Some(ve), Some(ne)) if ne <= ve && ve <= blob.len() => {
                let out = (0..count)
                    .map(|i| &blob[s + i * stride..s + i * stride + elem])
                    .collect();
                Ok((out, acc.data_type()))
            }
            _ => Err(self.err(format!(
                "{what}: data runs past the end of the binary chunk"
            ))),
        }
    }

    fn read_f32(
        &self,
        acc: &gltf::Accessor,
        dims: Dimensions,
        blob: &[u8],
        what: &str,
    ) -> Result<Vec<f32>, RigError> {
        let (elems, ty) = self.elements(acc, dims, blob, what)?;
        if ty != DataType::F32 {
            return Err(self.err(format!("{what}: expected 32-bit floats, found {ty:?}")));
        }
        let mut out = Vec::with_capacity(elems.len() * dims.multiplicity());
        for e in elems {
            for c in e.chunks_exact(4) {
                let v = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                if !v.is_finite() {
                    return Err(self.err(format!("{what}: non-finite value")));
                }
                out.push(v);
            }
        }
        Ok(out)
    }

    fn read_uint(
        &self,
        acc: &gltf::Accessor,
        dims: Dimensions,
        blob: &[u8],
        what: &str,
    ) -> Result<Vec<u32>, RigError> {
        let (elems, ty) = self.elements(acc, dims, blob, what)?;
        let mut out = Vec::with_capacity(elems.len() * dims.multiplicity());
        for e in elems {
            match ty {
                DataType::U8 => out.extend(e.iter().map(|&b| b as u32)),
                DataType::U16 => out.extend(
                    e.chunks_exact(2)
                        .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32),
                ),
                DataType::U32 => out.extend(
                    e.chunks_exact(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                ),
                _ => {
                    return Err(
                        self.err(format!("{what}: expected unsigned integers, found {ty:?}"))
                    )
                }
            }
        }
        Ok(out)
    }
}

fn track_for(tracks: &mut Vec<BoneTrack>, bone: usize) -> &mut BoneTrack {
    let pos = match tracks.iter().position(|t| t.bone == bone) {
        Some(p) => p,
        None => {
            tracks.push(BoneTrack {
                bone,
                translation: None,
                rotation: None,
            });
            tracks.len() - 1
        }
    };
    &mut tracks[pos]
}
