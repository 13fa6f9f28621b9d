//! The rigged garment's runtime: what an engine runs to drive the cloth bones of a file written
//! by [`super::rigged`] from its own animation. The file loads as the tool loads it (the
//! character wearing its garment, the grid laid again as its `extras.cloth_tuner.grid` says,
//! the colliders fitted to the body), into a [`Scene`]; each frame the engine gives the
//! model-space matrices of the body's joints in the file's joint order, the character's world
//! frame and the frame's time, and the runtime takes the fixed steps due
//! ([`Scene::step_posed`]: the tool's step with the engine's pose in place of the clip's) and
//! hands back the cloth bones' model-space matrices, ready for the file's inverse bind
//! matrices. The C interface (`capi/`, `ct_garment_*`) is a thin layer over it.
//!
//! The file is written in character space (metres, +Y up, facing +Z, the origin on the ground
//! under the pelvis), so the engine's model space of the file is the tool's character space;
//! a file whose skeleton does not load back where its inverse binds put it is refused.

use std::path::Path;
use std::sync::Arc;

use glam::Mat4;
use serde_json::Value;

use super::rigged::{grid_choice, FORMAT};
use crate::character::{is_cloth_bone, Character};
use crate::garment::imported::ImportedGarment;
use crate::garment::Garment;
use crate::preset::Preset;
use crate::scene::{Scene, SceneError};
use crate::sim::{FixedStep, Frame};

/// The most fixed steps one [`GarmentRuntime::step`] takes; the rest of a longer hitch is
/// dropped (as the C cloth's `ct_cloth_advance`).
pub const MAX_STEPS_PER_FRAME: u32 = 8;

/// The largest magnitude accepted in a joint matrix or the root's translation, metres (a
/// character 100 km from its origin is a broken pose, not a level).
pub const MAX_COORDINATE: f32 = 1.0e5;

/// How far a body joint may load from where the file's inverse bind matrix puts it, metres.
const PLACEMENT_TOLERANCE_M: f32 = 1.0e-3;

/// What went wrong loading or stepping a garment. Every loading message names the file.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The rigged garment file could not be read or is not one.
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    /// The preset given for it could not be read or does not fit.
    #[error("{0}")]
    Preset(String),
    /// The engine's input for a step was refused; nothing changed.
    #[error("{0}")]
    Input(String),
}

/// One joint of the file's skin.
#[derive(Clone, Debug)]
pub struct Joint {
    /// Its node's name.
    pub name: String,
    /// Its parent joint, if its node hangs under one.
    pub parent: Option<usize>,
}

/// A cloth bone of the file.
#[derive(Clone, Debug)]
struct ClothBone {
    /// Its joint in the file's skin.
    joint: usize,
    /// The rig's simulation bone on the same grid site.
    site: usize,
    /// From the rig's bone at rest to the file's joint at rest: the file's inverse bind
    /// matrix then skins the garment as the tool's rig does.
    offset: Mat4,
}

/// A rigged garment loaded for an engine, stepped from the engine's pose.
pub struct GarmentRuntime {
    scene: Scene,
    clock: FixedStep,
    joints: Vec<Joint>,
    /// Per body joint (the file's order, before any cloth bone or driver), its bone in the
    /// scene's character.
    body: Vec<usize>,
    /// Per bone of the scene's character, whether the engine's pose gives it.
    given: Vec<bool>,
    cloth: Vec<ClothBone>,
    /// The pose handed to the scene, one matrix per bone (scratch).
    model: Vec<Mat4>,
    /// The cloth bones' model-space matrices after the last step.
    out: Vec<Mat4>,
    /// Whether the cloth has been put at rest on the engine's first pose.
    started: bool,
}

impl GarmentRuntime {
    /// Loads the rigged garment at `glb` (written by `cloth-tuner export --rig`) tuned by the
    /// preset at `preset`, or by the preset in the file's extras when `None`.
    pub fn load(glb: &Path, preset: Option<&Path>) -> Result<Self, RuntimeError> {
        let file_err = |reason: String| RuntimeError::File {
            path: glb.display().to_string(),
            reason,
        };
        let choice = grid_choice(glb).map_err(|e| RuntimeError::File {
            path: glb.display().to_string(),
            reason: strip_path(&e.to_string(), glb),
        })?;
        let bytes = std::fs::read(glb).map_err(|e| file_err(format!("cannot read: {e}")))?;
        let gltf = gltf::Gltf::from_slice(&bytes).map_err(|e| file_err(e.to_string()))?;
        let chunks = gltf::Glb::from_slice(&bytes).map_err(|e| file_err(e.to_string()))?;
        let root: Value =
            serde_json::from_slice(&chunks.json).map_err(|e| file_err(e.to_string()))?;
        let ours = &root["extras"]["cloth_tuner"];
        debug_assert_eq!(ours["format"], FORMAT, "grid_choice checked the format");
        let garment_name = ours["garment"].as_str().ok_or_else(|| {
            file_err("extras.cloth_tuner.garment: the garment mesh's name".into())
        })?;
        let preset = match preset {
            Some(path) => Preset::load(path).map_err(|e| RuntimeError::Preset(e.to_string()))?,
            None => {
                let text = ours["preset"].to_string();
                let source = format!("{}: extras.cloth_tuner.preset", glb.display());
                Preset::from_json(&text, Path::new(&source))
                    .map_err(|e| RuntimeError::Preset(e.to_string()))?
            }
        };
        let (joints, inverse_binds) = read_skin(&gltf, &bytes).map_err(file_err)?;
        let (character, worn) = Character::open_wearing(glb, None, garment_name)
            .map_err(|e| file_err(strip_path(&e.to_string(), glb)))?;
        let garment = ImportedGarment::new(&character, &worn, &choice)
            .map_err(|e| file_err(format!("laying the grid again: {e}")))?;
        let (sites, rest) = (
            garment.rig().sim_bone_sites(),
            garment.rig().rest_sim_bones(),
        );
        let cloth = cloth_bones(&joints, &inverse_binds, sites, &rest).map_err(file_err)?;
        let body = body_bones(&character, &joints, &inverse_binds).map_err(file_err)?;
        let mut given = vec![false; character.skeleton.len()];
        for &b in &body {
            given[b] = true;
        }
        let clip = character.clips[0].name.clone();
        let character = Arc::new(character);
        let scene =
            Scene::wearing(character.clone(), Box::new(garment), &preset, &clip).map_err(|e| {
                match e {
                    SceneError::MaxDistanceMap { .. } | SceneError::Fold(_) => {
                        RuntimeError::Preset(e.to_string())
                    }
                    _ => file_err(e.to_string()),
                }
            })?;
        let mut model = Vec::new();
        let sk = &character.skeleton;
        sk.rest_pose().compute_model(sk, &mut model);
        let out = cloth.iter().map(|c| model_of(&scene, c)).collect();
        Ok(GarmentRuntime {
            clock: FixedStep::new(preset.params.timestep_hz, MAX_STEPS_PER_FRAME),
            scene,
            joints,
            body,
            given,
            cloth,
            model,
            out,
            started: false,
        })
    }

    /// Advances by `dt` seconds of game time with the engine's pose: `joints` the model-space
    /// matrices of the file's joints in its order, at least the body's
    /// ([`GarmentRuntime::body_joint_count`]; entries past them, the garment's own bones,
    /// are not read), `root` the character's world frame. The first call puts the cloth at
    /// rest on this pose; then every call takes the fixed steps due (at most
    /// [`MAX_STEPS_PER_FRAME`]). Returns the steps taken; [`GarmentRuntime::cloth_bones`]
    /// holds the result. Bad input (a count out of range, a non-finite or huge value, a
    /// rotation that is not a unit quaternion, a negative or non-finite `dt`) is refused and
    /// changes nothing.
    pub fn step(&mut self, joints: &[Mat4], root: Frame, dt: f64) -> Result<u32, RuntimeError> {
        self.check_input(joints, root, dt)?;
        for (j, &b) in self.body.iter().enumerate() {
            self.model[b] = joints[j];
        }
        self.scene
            .character()
            .skeleton
            .complete_model(&self.given, &mut self.model);
        let bad = |e: SceneError| RuntimeError::Input(e.to_string());
        if !self.started {
            self.scene.reset_posed(&self.model, root).map_err(bad)?;
            self.clock.reset();
            self.started = true;
        }
        let due = self.clock.advance(dt);
        for _ in 0..due {
            self.scene.step_posed(&self.model, root).map_err(bad)?;
        }
        for (o, c) in self.out.iter_mut().zip(&self.cloth) {
            *o = model_of(&self.scene, c);
        }
        Ok(due)
    }

    fn check_input(&self, joints: &[Mat4], root: Frame, dt: f64) -> Result<(), RuntimeError> {
        let (min, max) = (self.body.len(), self.joints.len());
        if joints.len() < min || joints.len() > max {
            return Err(RuntimeError::Input(format!(
                "`joint_count` is {}; the file's skin has {max} joints, the body's {min} first \
                 (give from {min} to {max})",
                joints.len()
            )));
        }
        let fits = |x: f32| x.is_finite() && x.abs() <= MAX_COORDINATE;
        if let Some(j) = joints[..min]
            .iter()
            .position(|m| !m.to_cols_array().into_iter().all(fits))
        {
            return Err(RuntimeError::Input(format!(
                "joint {j} (`{}`): a matrix entry is not finite or past {MAX_COORDINATE} m",
                self.joints[j].name
            )));
        }
        let q = root.rotation;
        if !q.is_finite() || (q.length() - 1.0).abs() > 1.0e-3 {
            return Err(RuntimeError::Input(format!(
                "`root.rotation` is {q}: a unit quaternion (x, y, z, w) is needed"
            )));
        }
        if !root.translation.to_array().into_iter().all(fits) {
            return Err(RuntimeError::Input(format!(
                "`root.translation` is {}: finite, within {MAX_COORDINATE} m",
                root.translation
            )));
        }
        if !dt.is_finite() || dt < 0.0 {
            return Err(RuntimeError::Input(format!(
                "`dt` is {dt}: seconds, 0 or more"
            )));
        }
        Ok(())
    }

    /// The cloth bones' model-space matrices after the last step (at rest before the first),
    /// one per cloth bone in the file's joint order.
    pub fn cloth_bones(&self) -> &[Mat4] {
        &self.out
    }

    /// The file's skin joints in its order.
    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    /// How many of the first joints are the body's (the engine's pose must give them).
    pub fn body_joint_count(&self) -> usize {
        self.body.len()
    }

    /// Per cloth bone, its joint in the file's skin.
    pub fn cloth_bone_joints(&self) -> impl Iterator<Item = usize> + '_ {
        self.cloth.iter().map(|c| c.joint)
    }

    /// The scene the garment runs in (the character, the rebuilt garment, the cloth).
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The scene's simulation bone each cloth bone sits on, with the constant matrix taking
    /// it to the file's bone: a cloth bone's matrix is `scene.sim_bones()[site] * offset`.
    pub fn cloth_bone_sites(&self) -> impl Iterator<Item = (usize, Mat4)> + '_ {
        self.cloth.iter().map(|c| (c.site, c.offset))
    }

    /// The fixed rate the cloth steps at (the preset's), Hz.
    pub fn timestep_hz(&self) -> f32 {
        self.scene.params().timestep_hz
    }
}

/// A cloth bone's model-space matrix as of the scene's last step.
fn model_of(scene: &Scene, c: &ClothBone) -> Mat4 {
    scene.sim_bones()[c.site] * c.offset
}

/// `message` without a leading `path: ` (the runtime's own error names the file once).
fn strip_path(message: &str, path: &Path) -> String {
    let prefix = format!("{}: ", path.display());
    message.strip_prefix(&prefix).unwrap_or(message).to_string()
}

/// The skin's joints (names and parents) and inverse bind matrices.
fn read_skin(gltf: &gltf::Gltf, bytes: &[u8]) -> Result<(Vec<Joint>, Vec<Mat4>), String> {
    let skin = gltf.skins().next().ok_or("no skin: not a rigged garment")?;
    let mut node_parent = vec![None; gltf.nodes().count()];
    for node in gltf.nodes() {
        for child in node.children() {
            node_parent[child.index()] = Some(node.index());
        }
    }
    let joint_of: Vec<usize> = skin.joints().map(|n| n.index()).collect();
    let joints: Vec<Joint> = skin
        .joints()
        .map(|n| Joint {
            name: n.name().unwrap_or("").to_string(),
            parent: node_parent[n.index()].and_then(|p| joint_of.iter().position(|&j| j == p)),
        })
        .collect();
    let blob = glb_bin(bytes)?;
    let reader = skin.reader(|b| (b.index() == 0).then_some(&blob[..]));
    let ibm: Vec<Mat4> = reader
        .read_inverse_bind_matrices()
        .ok_or("the skin has no inverse bind matrices")?
        .map(|m| Mat4::from_cols_array_2d(&m))
        .collect();
    if ibm.len() != joints.len() || ibm.iter().any(|m| !m.is_finite()) {
        return Err(format!(
            "the skin's inverse bind matrices: {} finite ones are needed, one per joint",
            joints.len()
        ));
    }
    Ok((joints, ibm))
}

/// The binary chunk of a `.glb`.
fn glb_bin(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let glb = gltf::Glb::from_slice(bytes).map_err(|e| format!("not a .glb: {e}"))?;
    glb.bin
        .map(|b| b.into_owned())
        .ok_or_else(|| "the .glb has no binary chunk".to_string())
}

/// The body's joints (those before the first cloth bone or driver, all of them the
/// character's bones), each checked to rest where its inverse bind matrix puts it.
fn body_bones(
    character: &Character,
    joints: &[Joint],
    inverse_binds: &[Mat4],
) -> Result<Vec<usize>, String> {
    let count = joints
        .iter()
        .position(|j| is_cloth_bone(&j.name))
        .unwrap_or(joints.len());
    if let Some(j) = joints[count..].iter().find(|j| !is_cloth_bone(&j.name)) {
        return Err(format!(
            "the body's joint `{}` comes after the garment's bones: a rigged garment lists the \
             body's joints first",
            j.name
        ));
    }
    let sk = &character.skeleton;
    let mut rest = Vec::new();
    sk.rest_pose().compute_model(sk, &mut rest);
    joints[..count]
        .iter()
        .zip(inverse_binds)
        .map(|(j, ibm)| {
            let b = sk
                .find(&j.name)
                .ok_or_else(|| format!("the joint `{}` did not load as a bone", j.name))?;
            let at = ibm.inverse().w_axis.truncate();
            let d = at.distance(rest[b].w_axis.truncate());
            if d > PLACEMENT_TOLERANCE_M {
                return Err(format!(
                    "the joint `{}` loads {d} m from where its inverse bind matrix puts it: the \
                     file is not in character space (metres, +Y up, the origin on the ground \
                     under the pelvis) as `cloth-tuner export --rig` writes it",
                    j.name
                ));
            }
            Ok(b)
        })
        .collect()
}

/// The file's cloth bones, each on the rebuilt rig's simulation bone of the same grid site.
fn cloth_bones(
    joints: &[Joint],
    inverse_binds: &[Mat4],
    sites: &[(usize, usize)],
    rest: &[Mat4],
) -> Result<Vec<ClothBone>, String> {
    let mut out = Vec::new();
    for (j, joint) in joints.iter().enumerate() {
        if !is_cloth_bone(&joint.name) || joint.name.starts_with("cloth_driver_") {
            continue;
        }
        let site = sites
            .iter()
            .position(|&(r, c)| crate::character::cloth_bone_name(r, c) == joint.name)
            .ok_or_else(|| {
                format!(
                    "the cloth bone `{}` is not on the grid laid again from the file's \
                     extras.cloth_tuner.grid",
                    joint.name
                )
            })?;
        out.push(ClothBone {
            joint: j,
            site,
            offset: rest[site].inverse() * inverse_binds[j].inverse(),
        });
    }
    if out.is_empty() {
        return Err("no cloth bones (`cloth_r{row}_c{col}` joints) in the skin".into());
    }
    Ok(out)
}
