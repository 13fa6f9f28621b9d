//! What drives a character: the skeleton and its clips with root motion, CPU skinning, the
//! bone roles, the character settings file, and the collision ellipsoids fitted to its skin.
//! What dresses it is [`crate::garment`]; what plays and measures it, [`crate::scene`].
//!
//! A character is data: a glTF 2.0 file holding the skeleton, the skinned body mesh and the
//! animation clips. [`Character`] loads it. Our own files (the built-in mannequin,
//! `assets/character.glb`, written by the build tool in `tools/make-assets/`) carry root motion
//! on the root node and collision ellipsoids as nodes named `ellipsoid_*` parented to bones
//! (translation, rotation and scale: the centre, orientation and three radii in the bone's
//! space). Any other humanoid goes through [`import`]: whatever its space, units and bone
//! names, it comes out in the same form, with [`Roles`] naming its bones (by the bone map of
//! its [`CharacterSettings`], VRM or name, else by the skeleton's shape), ellipsoids fitted to
//! its skin, root motion from its pelvis and the built-in clips retargeted onto it.
//!
//! Spaces:
//! - *world*: metres, right-handed, +Y up.
//! - *character space*: the root bone's local frame. The root sits on the ground between the
//!   feet; at rest the character faces +Z and its left hand is at +X. A clip's root motion
//!   ([`Clip::sample`]'s return value) maps character space into the world.
//! - *model matrices* ([`Pose::compute_model`]) map each bone's space into character space.
//!
//! Typical use, per frame and without allocation once the buffers exist:
//!
//! ```
//! use cloth_tuner::character::{skin, Character};
//! let character = Character::builtin();
//! let walk = character.clip("walk").expect("the built-in character has a walk");
//! let mut pose = character.skeleton.rest_pose();
//! let (mut model, mut skin_mats) = (Vec::new(), Vec::new());
//! let (mut pos, mut nrm) = (Vec::new(), Vec::new());
//! let root_in_world = walk.sample(0.25, &mut pose);
//! pose.compute_model(&character.skeleton, &mut model);
//! character.skin_matrices(&model, &mut skin_mats);
//! skin(&character.mesh, &skin_mats, &mut pos, &mut nrm);
//! let world_point = root_in_world.transform_point(pos[0]);
//! assert!(world_point.is_finite());
//! ```

mod check;
mod clip;
mod ellipsoid;
mod ellipsoid_fit;
pub mod import;
mod load;
mod look;
mod mesh;
mod retarget;
mod roles;
mod roles_shape;
pub mod settings;
mod skeleton;
mod source;
mod worn;

pub use crate::sim::BodyAxis;
pub use clip::{Clip, Track};
pub use ellipsoid::{Ellipsoid, PosedEllipsoid};
pub use ellipsoid_fit::head_and_shoulders;
pub(crate) use ellipsoid_fit::vertex_roles;
pub use ellipsoid_fit::MAX_ELONGATION;
pub use load::{Character, FoundRoles, RigError, NATIVE_GENERATOR};
pub use look::{for_each_texture, Image, LookPart, Materials, MeshLook};
pub use mesh::{skin, SkinnedMesh, WornMesh, MAX_GARMENT_VERTICES};
pub use roles::{Role, Roles};
pub use roles_shape::BindPose;
pub use settings::CharacterSettings;
pub use skeleton::{cloth_bone_name, cloth_driver_name, is_cloth_bone, Bone, Pose, Skeleton};
pub use source::MAX_FILE_BYTES;
pub use worn::BIND_TOLERANCE_M;
