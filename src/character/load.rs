//! The character: skeleton, skinned mesh, clips, bone roles and collision ellipsoids, loaded
//! from glTF. Our own files (the built-in character, written by `tools/make-assets`) are read
//! as they are: bone 0 is the root on the ground carrying the root motion, the ellipsoids are
//! `ellipsoid_*` nodes. Any other file goes through [`super::import`], which brings it into the
//! same form.

use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use gltf::accessor::Dimensions;
use gltf::animation::{Interpolation, Property};

use super::clip::{BoneTrack, Clip, Track};
use super::ellipsoid::Ellipsoid;
use super::ellipsoid_fit::fit_ellipsoids;
use super::look::{Materials, MeshLook};
use super::mesh::{SkinnedMesh, WornMesh};
use super::roles::{Role, Roles};
use super::roles_shape::BindPose;
use super::settings::{CharacterSettings, SettingsError};
use super::skeleton::{Bone, Skeleton};
use super::source::Source;
use crate::sim::Frame;

/// The committed character asset, compiled in for a fast start-up.
const BUILTIN_GLB: &[u8] = include_bytes!("../../assets/character.glb");

/// Name prefix of the nodes that carry collision ellipsoids.
const ELLIPSOID_PREFIX: &str = "ellipsoid_";

/// `asset.generator` of the files written in our own form (`tools/make-assets`).
pub const NATIVE_GENERATOR: &str = "cloth-tuner make-assets";

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
    /// The bytes are not a parsable glTF file (or too large to be a character).
    #[error("{path}: not a valid glTF file: {reason}")]
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
    /// No bone was found for some roles: name them in a bone map.
    #[error(
        "{path}: no bone found for {}{}; name them in a bone map (the character settings file \
         beside it, or --bone-map; see docs/character-settings.md). The file's bones: {}",
        roles_list(.missing), shape_note(&.found.shape), .bones.join(", ")
    )]
    MissingRoles {
        /// The file.
        path: String,
        /// The roles still missing.
        missing: Vec<Role>,
        /// What was found, for the picker.
        found: Box<FoundRoles>,
        /// Every bone of the file, for the picker.
        bones: Vec<String>,
        /// How deep each of `bones` sits below the root (the picker indents by it).
        depths: Vec<usize>,
    },
    /// The bone map names a bone the file does not have.
    #[error(
        "{path}: the bone map gives `{bone}` for {}, but the file has no such bone. The \
         file's bones: {}", .role.name(), .bones.join(", ")
    )]
    UnknownBone {
        /// The file.
        path: String,
        /// The role.
        role: Role,
        /// The name the map gives.
        bone: String,
        /// Every bone of the file.
        bones: Vec<String>,
        /// How deep each of `bones` sits below the root.
        depths: Vec<usize>,
    },
    /// The character's settings file is bad.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The loader itself failed on this file (a defect of ours, caught at the loader's
    /// boundary so the tool keeps running; the checks before reading should have refused it).
    #[error(
        "{path}: the character loader failed on this file ({what}); the file was not loaded. \
         Please report it with the file"
    )]
    Internal {
        /// The file.
        path: String,
        /// The failure's own message.
        what: String,
    },
}

/// What was found of a character's roles when some are missing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FoundRoles {
    /// The roles that were found, each with its bone's name.
    pub roles: Vec<(Role, String)>,
    /// Those of `roles` that the skeleton's shape gave.
    pub by_shape: Vec<Role>,
    /// Why the skeleton's shape gave no roles (empty when it gave some or was not read).
    pub shape: String,
}

/// Why the skeleton's shape did not help, as a clause of the missing-roles message.
fn shape_note(shape: &str) -> String {
    if shape.is_empty() {
        String::new()
    } else {
        format!(" (the names do not say them, nor does the skeleton's shape: {shape})")
    }
}

fn roles_list(roles: &[Role]) -> String {
    roles
        .iter()
        .map(|r| r.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A skinned, animated character.
#[derive(Clone, Debug, PartialEq)]
pub struct Character {
    /// Bones; index 0 is the root.
    pub skeleton: Skeleton,
    /// Body mesh, bind pose in character space; joint indices are skeleton indices.
    pub mesh: SkinnedMesh,
    /// The body's primitives, texture coordinates and materials as its file had them.
    pub body_look: MeshLook,
    /// One inverse bind matrix per bone (character space to bone space at bind time).
    pub inverse_bind: Vec<Mat4>,
    /// Animation clips.
    pub clips: Vec<Clip>,
    /// Collision ellipsoids, each bound to a bone.
    pub ellipsoids: Vec<Ellipsoid>,
    /// The bone of each humanoid role.
    pub roles: Roles,
}

impl Character {
    /// Loads a character from a `.glb` or `.gltf` file with the settings beside it
    /// ([`CharacterSettings::path_beside`]) or, when `bone_map` is given, from that file.
    /// Errors (never panics) on a missing, truncated, oversized or inconsistent file, a bone
    /// map naming a bone the file lacks, or roles neither the names nor the skeleton's shape
    /// give; the message names the file.
    pub fn open(path: impl AsRef<Path>, bone_map: Option<&Path>) -> Result<Self, RigError> {
        let path = path.as_ref();
        Self::load_with(path, &CharacterSettings::for_character(path, bone_map)?)
    }

    /// [`Character::open`] on `path`, or the built-in character when there is none.
    pub fn open_or_builtin(path: Option<&Path>, bone_map: Option<&Path>) -> Result<Self, RigError> {
        match path {
            Some(p) => Self::open(p, bone_map),
            None => Ok(Self::builtin()),
        }
    }

    /// [`Character::open`] with the settings beside the file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, RigError> {
        Self::open(path, None)
    }

    /// Loads a character with these settings (the tuner's role picker and ellipsoid scale
    /// panel reload through here after changing them).
    pub fn load_with(path: &Path, settings: &CharacterSettings) -> Result<Self, RigError> {
        guarded(&path.display().to_string(), || {
            Self::from_source(&Source::open(path)?, settings)
        })
    }

    /// The built-in character (`assets/character.glb`, compiled in).
    ///
    /// # Panics
    /// Only if the committed asset is broken, which the test suite rules out
    /// (`tests/character/assets.rs` loads it and compares it with the generator's output).
    pub fn builtin() -> Self {
        Self::builtin_ref().clone()
    }

    /// The built-in character, parsed once per process (every imported character retargets
    /// its clips from it).
    ///
    /// # Panics
    /// As [`Character::builtin`].
    pub fn builtin_ref() -> &'static Self {
        static BUILTIN: std::sync::OnceLock<Character> = std::sync::OnceLock::new();
        BUILTIN.get_or_init(|| {
            Self::from_glb(BUILTIN_GLB, "assets/character.glb (built in)").expect(
                "the committed character asset loads (checked by tests/character/assets.rs)",
            )
        })
    }

    /// Parses a character from `.glb` bytes with default settings; `source` names them in
    /// error messages.
    pub fn from_glb(bytes: &[u8], source: &str) -> Result<Self, RigError> {
        guarded(source, || {
            Self::from_source(
                &Source::parse(bytes, source, None)?,
                &CharacterSettings::default(),
            )
        })
    }

    fn from_source(src: &Source, settings: &CharacterSettings) -> Result<Self, RigError> {
        Self::with_worn(src, settings, None).map(|(c, _)| c)
    }

    /// Loads the character from `path` (settings as [`Character::open`]) with the skinned mesh
    /// called `garment` (a node's or its mesh's name) taken out of the body: the garment the
    /// character wears in its own file, in character space at the bind pose. The body's skin,
    /// ellipsoids and coverage come from the body's mesh and the small meshes beside it; the
    /// file's other garments are left out (`import::BODY_PART_SHARE`).
    pub fn open_wearing(
        path: &Path,
        bone_map: Option<&Path>,
        garment: &str,
    ) -> Result<(Self, WornMesh), RigError> {
        let settings = CharacterSettings::for_character(path, bone_map)?;
        Self::load_wearing_with(path, &settings, garment)
    }

    /// [`Character::open_wearing`] with these settings (the tuner's Character window's).
    pub fn load_wearing_with(
        path: &Path,
        settings: &CharacterSettings,
        garment: &str,
    ) -> Result<(Self, WornMesh), RigError> {
        let name = path.display().to_string();
        let (character, worn) = guarded(&name, || {
            Self::with_worn(&Source::open(path)?, settings, Some(garment))
        })?;
        let worn = worn.ok_or_else(|| RigError::Format {
            path: name,
            reason: format!("no skinned mesh called `{garment}`"),
        })?;
        Ok((character, worn))
    }

    /// The names of the skinned meshes in the file at `path` (a node's name, else its mesh's):
    /// the body's parts and any garment, for File > Open garment….
    pub fn skinned_mesh_names(path: &Path) -> Result<Vec<String>, RigError> {
        Ok(super::import::skinned_mesh_names(&Source::open(path)?))
    }

    /// The skinned meshes of the file at `path` that may be a garment: all but the body (the
    /// one whose weights reach the most joints). What File > Open garment… lists.
    pub fn garment_mesh_names(path: &Path) -> Result<Vec<String>, RigError> {
        let name = path.display().to_string();
        guarded(&name, || {
            Ok(super::import::garment_mesh_names(&Source::open(path)?))
        })
    }

    fn with_worn(
        src: &Source,
        settings: &CharacterSettings,
        garment: Option<&str>,
    ) -> Result<(Self, Option<WornMesh>), RigError> {
        settings
            .check()
            .map_err(|reason| src.err(format!("character settings: {reason}")))?;
        let (mut character, worn) = if src.generator() == Some(NATIVE_GENERATOR) {
            if garment.is_some() {
                return Err(src.err(
                    "a garment in a file of cloth-tuner's own form: give the garment in a file of its own",
                ));
            }
            (Loader { src }.load(settings)?, None)
        } else {
            super::import::import(src, settings, garment)?
        };
        if character.ellipsoids.is_empty() {
            character.ellipsoids = fit_ellipsoids(
                &character.skeleton,
                &character.mesh,
                &character.roles,
                settings,
            );
        } else {
            character.scale_ellipsoids(settings);
        }
        Ok((character, worn))
    }

    /// Scales the file's own ellipsoids by their bone's role's factor.
    fn scale_ellipsoids(&mut self, settings: &CharacterSettings) {
        for e in &mut self.ellipsoids {
            if let Some((role, _)) = self.roles.iter().find(|&(_, b)| b == e.bone) {
                e.radii *= settings.scale(role);
            }
        }
    }

    /// The bone names, root first (for a role picker).
    pub fn bone_names(&self) -> impl Iterator<Item = &str> {
        self.skeleton.bones().iter().map(|b| b.name.as_str())
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

    /// Skinning matrices `model[i] * inverse_bind[i]` for [`crate::character::skin`]. `out` is
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

/// Runs a load of the file `path`. The checks before reading refuse a broken file with a
/// message; a panic that still escapes the loader is caught here, as a last line of defence,
/// and becomes [`RigError::Internal`] instead of taking the tool down.
pub(super) fn guarded<T>(
    path: &str,
    load: impl FnOnce() -> Result<T, RigError>,
) -> Result<T, RigError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(load)).unwrap_or_else(|panic| {
        Err(RigError::Internal {
            path: path.to_string(),
            what: crate::panic_message(panic.as_ref()),
        })
    })
}

/// Reads a file in our own form (see the module doc).
struct Loader<'s> {
    src: &'s Source,
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

impl Loader<'_> {
    fn err(&self, reason: impl Into<String>) -> RigError {
        self.src.err(reason)
    }

    fn load(&self, settings: &CharacterSettings) -> Result<Character, RigError> {
        let doc = &self.src.doc;
        let looping = self.looping_flags();

        // The skeleton is the first skin's joints.
        let skin = doc
            .skins()
            .next()
            .ok_or_else(|| self.err("no skin (the file has no skeleton)"))?;
        let (skeleton, nodes) = self.read_skeleton(doc, &skin)?;
        let inverse_bind = self.read_inverse_bind(&skin, skeleton.len())?;

        // Mesh: the first node that has both a mesh and this skin.
        let mesh_node = doc
            .nodes()
            .find(|n| n.mesh().is_some() && n.skin().is_some_and(|s| s.index() == skin.index()))
            .ok_or_else(|| self.err("no skinned mesh node"))?;
        let (mesh, body_look) = self.read_mesh(&mesh_node, skeleton.len())?;

        let rest: Vec<Frame> = skeleton.bones().iter().map(|b| b.rest).collect();
        let clips = doc
            .animations()
            .map(|anim| {
                let is_looping = looping.get(anim.index()).copied().unwrap_or(false);
                self.read_clip(&anim, is_looping, &nodes, &rest)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ellipsoids = self.read_ellipsoids(doc, &nodes)?;
        // The shape's rules read the rest pose, where our files bind the mesh.
        let mut model = Vec::new();
        skeleton.rest_pose().compute_model(&skeleton, &mut model);
        let at_rest: Vec<Vec3> = model.iter().map(|m| m.w_axis.truncate()).collect();
        let bind = BindPose {
            bones: &at_rest,
            vertices: &mesh.positions,
            vertex_bones: &mesh.joints,
            vertex_weights: &mesh.weights,
        };
        let roles = Roles::resolve(&skeleton, &settings.bones, &[], Some(&bind))
            .map_err(|e| super::import::roles_error(self.src, &skeleton, e))?;

        Ok(Character {
            skeleton,
            mesh,
            body_look,
            inverse_bind,
            clips,
            ellipsoids,
            roles,
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
        bone_count: usize,
    ) -> Result<Vec<Mat4>, RigError> {
        let ibm = skin
            .inverse_bind_matrices()
            .ok_or_else(|| self.err("the skin has no inverse bind matrices"))?;
        let ibm = self
            .src
            .read_f32(&ibm, Dimensions::Mat4, "inverse bind matrices")?;
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
            let times = self
                .src
                .read_f32(&sampler.input(), Dimensions::Scalar, "key times")?;
            let out = sampler.output();
            let what = format!("clip '{name}' keys");
            match ch.target().property() {
                Property::Translation => {
                    let v = self.src.read_f32(&out, Dimensions::Vec3, &what)?;
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
                    let v = self.src.read_f32(&out, Dimensions::Vec4, &what)?;
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

    /// `animations[i].extras.looping` from the JSON (the parser drops extras).
    fn looping_flags(&self) -> Vec<bool> {
        self.src
            .json
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
            .unwrap_or_default()
    }

    /// The skinned node's first primitive and how it looks.
    fn read_mesh(
        &self,
        node: &gltf::Node,
        bone_count: usize,
    ) -> Result<(SkinnedMesh, MeshLook), RigError> {
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
        let mesh = super::import::read_primitive(self.src, &prim, bone_count)?;
        let mut look = MeshLook::default();
        let counts = (mesh.positions.len(), mesh.indices.len());
        look.add_primitive(self.src, &prim, (0, counts.0), (0, counts.1))?;
        look.materials = std::sync::Arc::new(Materials::read(self.src));
        Ok((mesh, look))
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
