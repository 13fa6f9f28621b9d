//! Bones, their hierarchy and poses.

use glam::Mat4;

use crate::sim::Frame;

/// One bone: a name, a parent and the rest transform relative to that parent.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Plain name: `pelvis`, `upperarm_twist_l`, ...
    pub name: String,
    /// Index of the parent bone; `None` only for the root (index 0).
    pub parent: Option<usize>,
    /// Rest transform in the parent's space (metres). No scale.
    pub rest: Frame,
}

/// A bone hierarchy. Invariant: bone 0 is the only root and every parent comes before its
/// children, so a single forward pass computes model matrices.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    bones: Vec<Bone>,
}

impl Skeleton {
    /// Builds a skeleton, checking the ordering invariant. The error says what is wrong.
    pub fn new(bones: Vec<Bone>) -> Result<Self, String> {
        if bones.is_empty() {
            return Err("the skeleton has no bones".into());
        }
        for (i, bone) in bones.iter().enumerate() {
            match (i, bone.parent) {
                (0, None) => {}
                (0, Some(_)) => return Err(format!("root bone '{}' has a parent", bone.name)),
                (_, None) => return Err(format!("bone '{}' has no parent", bone.name)),
                (_, Some(p)) if p >= i => {
                    return Err(format!(
                        "bone '{}' comes before its parent (bones must be listed parent first)",
                        bone.name
                    ))
                }
                _ => {}
            }
            if !bone.rest.is_finite() {
                return Err(format!(
                    "bone '{}' has a non-finite rest transform",
                    bone.name
                ));
            }
        }
        Ok(Self { bones })
    }

    /// All bones, parents before children; index 0 is the root.
    pub fn bones(&self) -> &[Bone] {
        &self.bones
    }

    /// Number of bones.
    pub fn len(&self) -> usize {
        self.bones.len()
    }

    /// Always false for a valid skeleton (there is at least the root).
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
    }

    /// Index of the bone with this exact name.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }

    /// How many bones lie above each bone (0 for the root), for drawing the hierarchy.
    pub fn depths(&self) -> Vec<usize> {
        let mut depth = vec![0; self.bones.len()];
        // Parents come first, so each parent's depth is known when its children are reached.
        for i in 0..self.bones.len() {
            depth[i] = self.parent(i).map_or(0, |p| depth[p] + 1);
        }
        depth
    }

    /// Parent index of bone `i` (`None` for the root or an index out of range).
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.bones.get(i).and_then(|b| b.parent)
    }

    /// Completes a model pose of which the caller gave only some bones (`given[i]`, an
    /// engine's pose of the body without the bones a garment adds): every other bone hangs
    /// from its parent at its rest transform, the root at the identity, as
    /// [`Pose::compute_model`] places a bone with no local transform of its own. `model` and
    /// `given` hold one entry per bone; a bone past their end is left out.
    pub fn complete_model(&self, given: &[bool], model: &mut [Mat4]) {
        for (i, bone) in self
            .bones
            .iter()
            .enumerate()
            .take(model.len().min(given.len()))
        {
            if given[i] {
                continue;
            }
            let local = if i == 0 { Frame::IDENTITY } else { bone.rest };
            model[i] = child_model(bone.parent.map(|p| &model[p]), local);
        }
    }

    /// The rest pose. The root's local transform is the identity: a pose lives in character
    /// space, the root's world placement is root motion.
    pub fn rest_pose(&self) -> Pose {
        let mut local: Vec<Frame> = self.bones.iter().map(|b| b.rest).collect();
        local[0] = Frame::IDENTITY;
        Pose { local }
    }
}

/// A bone's model matrix: its parent's (none for the root) times its local transform.
fn child_model(parent: Option<&Mat4>, local: Frame) -> Mat4 {
    let m = Mat4::from_rotation_translation(local.rotation, local.translation);
    match parent {
        Some(parent) => *parent * m,
        None => m,
    }
}

/// Local transforms of every bone (bone space to parent space); index as in the [`Skeleton`].
/// Entry 0 (the root) is the identity: everything is relative to character space.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// One rigid transform per bone, relative to its parent.
    pub local: Vec<Frame>,
}

impl Pose {
    /// Bone `i`'s local transform, or its rest transform when the pose is short (the root
    /// then stays at the identity).
    fn local_or_rest(&self, i: usize, bone: &Bone) -> Frame {
        match self.local.get(i) {
            Some(f) => *f,
            None if i == 0 => Frame::IDENTITY,
            None => bone.rest,
        }
    }

    /// Model-space (character-space) matrix of every bone: `out[i]` maps bone `i`'s space into
    /// character space. `out` is resized to the skeleton; it allocates only when it is too
    /// small. Bones missing from a short pose keep their rest transform.
    pub fn compute_model(&self, skeleton: &Skeleton, out: &mut Vec<Mat4>) {
        out.clear();
        for (i, bone) in skeleton.bones.iter().enumerate() {
            let local = self.local_or_rest(i, bone);
            let model = child_model(bone.parent.and_then(|p| out.get(p)), local);
            out.push(model);
        }
    }

    /// Model-space rigid frames (same as [`Pose::compute_model`] but as [`Frame`]s).
    pub fn compute_model_frames(&self, skeleton: &Skeleton, out: &mut Vec<Frame>) {
        out.clear();
        for (i, bone) in skeleton.bones.iter().enumerate() {
            let local = self.local_or_rest(i, bone);
            let model = match bone.parent.and_then(|p| out.get(p)) {
                Some(parent) => parent.mul(&local),
                None => local,
            };
            out.push(model);
        }
    }
}

/// The name of the cloth bone on the simulation grid's particle at `row`, `col`, in a rigged
/// garment's file (`cloth_r{row}_c{col}`).
pub fn cloth_bone_name(row: usize, col: usize) -> String {
    format!("cloth_r{row}_c{col}")
}

/// The name of a garment's own driver `k` (a jacket's shoulder pad or side bone, a hood's bone)
/// in a rigged garment's file (`cloth_driver_{k}`).
pub fn cloth_driver_name(k: usize) -> String {
    format!("cloth_driver_{k}")
}

/// Whether `name` is one of the bones a rigged garment's file adds to the character's
/// skeleton ([`cloth_bone_name`], [`cloth_driver_name`]): they are no humanoid role's, so
/// the role finders leave them out.
pub fn is_cloth_bone(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(k) = name.strip_prefix("cloth_driver_") {
        return digits(k);
    }
    name.strip_prefix("cloth_r")
        .and_then(|rest| rest.split_once("_c"))
        .is_some_and(|(r, c)| digits(r) && digits(c))
}

#[cfg(test)]
mod cloth_bone_tests {
    use super::*;

    #[test]
    fn cloth_bone_names_are_told_from_a_riggers_own() {
        assert!(is_cloth_bone(&cloth_bone_name(3, 12)));
        assert!(is_cloth_bone(&cloth_driver_name(0)));
        for other in [
            "cloth_tuner_ground",
            "cloth_r1",
            "cloth_rA_c2",
            "Cloth_Skirt_01",
            "spine",
        ] {
            assert!(!is_cloth_bone(other), "{other}");
        }
    }
}
