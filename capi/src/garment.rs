//! The rigged garment for an engine: load a `.glb` written by `cloth-tuner export --rig`,
//! step it each frame from the engine's pose of the body, read the cloth bones' matrices back.
//! A thin layer over `cloth_tuner::export::runtime::GarmentRuntime`, which runs the tool's own
//! scene step with the engine's pose in place of the clip's.
//!
//! Matrices are 4 x 4, column-major (`m[12..15]` the translation), in the file's model space:
//! the character's space (metres, +Y up, facing +Z, the origin on the ground under the pelvis)
//! as the file is written.

use std::ffi::{c_char, CStr, CString};
use std::path::Path;

use cloth_tuner::export::runtime::{GarmentRuntime, RuntimeError};
use cloth_tuner::sim::Frame;
use glam::Mat4;

use crate::{as_mut, as_ref, first_out, guard, null, quat, slice, vec3, CtFrame, CtStatus};

/// A 4 x 4 matrix, column-major: `m[0..4]` the first column, `m[12..15]` the translation.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CtMat4 {
    /// The 16 entries, column after column.
    pub m: [f32; 16],
}

/// A rigged garment loaded for an engine. Opaque to C.
pub struct CtGarment {
    runtime: GarmentRuntime,
    /// The skin's joints' names, for [`ct_garment_joint_name`].
    names: Vec<CString>,
    /// The engine's pose as matrices (scratch, one per joint).
    pose: Vec<Mat4>,
}

/// A UTF-8 path from C, or why not.
///
/// # Safety
/// `ptr` must be null or a NUL-terminated string.
unsafe fn path<'a>(ptr: *const c_char, name: &str) -> Result<&'a Path, (CtStatus, String)> {
    if ptr.is_null() {
        return Err(null(name));
    }
    // SAFETY: non-null, NUL-terminated per the contract.
    let text = unsafe { CStr::from_ptr(ptr) }
        .to_str()
        .map_err(|_| (CtStatus::InvalidArgument, format!("`{name}` is not UTF-8")))?;
    Ok(Path::new(text))
}

fn status_of(e: RuntimeError) -> (CtStatus, String) {
    let status = match e {
        RuntimeError::File { .. } => CtStatus::GarmentError,
        RuntimeError::Preset(_) => CtStatus::PresetError,
        RuntimeError::Input(_) => CtStatus::InvalidArgument,
    };
    (status, e.to_string())
}

/// Loads the rigged garment at `glb_path` (a `.glb` written by `cloth-tuner export --rig`)
/// tuned by the preset at `preset_path`, or by the preset inside the file when
/// `preset_path` is null. On success writes the new garment to `*out`; free it with
/// [`ct_garment_free`]. A file that cannot be read or is not a rigged garment gives
/// `CT_STATUS_GARMENT_ERROR`, a bad preset `CT_STATUS_PRESET_ERROR`; the message names the
/// file and the problem.
///
/// # Safety
/// `glb_path` must be a NUL-terminated string, `preset_path` null or one, `out` writable
/// storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn ct_garment_load(
    glb_path: *const c_char,
    preset_path: *const c_char,
    out: *mut *mut CtGarment,
) -> CtStatus {
    guard(|| {
        // SAFETY: per the contract.
        unsafe { crate::clear_handle_out(out) }?;
        // SAFETY: per the contract.
        let glb = unsafe { path(glb_path, "glb_path") }?;
        let preset = if preset_path.is_null() {
            None
        } else {
            // SAFETY: per the contract.
            Some(unsafe { path(preset_path, "preset_path") }?)
        };
        let runtime = GarmentRuntime::load(glb, preset).map_err(status_of)?;
        let names = runtime
            .joints()
            .iter()
            .map(|j| CString::new(j.name.replace('\0', " ")).unwrap_or_default())
            .collect();
        let pose = vec![Mat4::IDENTITY; runtime.joints().len()];
        let handle = Box::new(CtGarment {
            runtime,
            names,
            pose,
        });
        // SAFETY: checked non-null above.
        unsafe { *out = Box::into_raw(handle) };
        Ok(())
    })
}

/// Frees a garment made by [`ct_garment_load`]. Null is ignored.
///
/// # Safety
/// `garment` must be null or a pointer from [`ct_garment_load`] not yet freed.
#[no_mangle]
pub unsafe extern "C" fn ct_garment_free(garment: *mut CtGarment) {
    // SAFETY: made by Box::into_raw in ct_garment_load and not freed yet (contract).
    unsafe { crate::free_boxed(garment) }
}

/// Advances the garment by `dt` seconds of game time (the frame's) on the engine's pose and
/// writes the cloth bones' model-space matrices to `out_bone_matrices` (room for `out_count`
/// matrices, at least [`ct_garment_cloth_bone_count`]; the cloth bones in the file's joint
/// order, ready for the file's inverse bind matrices).
///
/// `joint_matrices` holds `joint_count` model-space matrices in the file's joint order: at
/// least the body's joints ([`ct_garment_body_joint_count`], which come first), at most every
/// joint of the skin ([`ct_garment_joint_count`]); the entries of the garment's own bones
/// (drivers and cloth bones) are not read. `root` is the character's frame in the world, for
/// the cloth's share of the world motion.
///
/// The first call puts the cloth at rest on its pose. Each call takes the fixed steps due
/// (1 / the preset's `timestep_hz` each, at most 8 a call; the rest of a longer hitch is
/// dropped), all on this pose. A count out of range, a non-finite or huge matrix entry, a
/// root rotation that is not a unit quaternion or a negative `dt` is refused
/// (`CT_STATUS_INVALID_ARGUMENT`) and changes nothing.
///
/// # Safety
/// `garment` from [`ct_garment_load`]; `joint_matrices` readable for `joint_count` values,
/// `root` readable, `out_bone_matrices` writable for `out_count` values.
#[no_mangle]
pub unsafe extern "C" fn ct_garment_step(
    garment: *mut CtGarment,
    joint_matrices: *const CtMat4,
    joint_count: usize,
    root: *const CtFrame,
    dt: f64,
    out_bone_matrices: *mut CtMat4,
    out_count: usize,
) -> CtStatus {
    guard(|| {
        // SAFETY: per the contract, valid or null.
        let g = unsafe { as_mut(garment, "garment") }?;
        // SAFETY: per the contract, valid or null.
        let root = unsafe { as_ref(root, "root") }?;
        let bones = g.runtime.cloth_bones().len();
        let names = ("out_bone_matrices", "out_count");
        let has = || format!("the garment has {bones} cloth bones");
        // SAFETY: writable for `out_count` values per the contract.
        let out = unsafe { first_out(out_bone_matrices, out_count, bones, names, has) }?;
        if joint_count > g.pose.len() {
            return Err((
                CtStatus::InvalidArgument,
                format!(
                    "`joint_count` is {joint_count}; the file's skin has {} joints",
                    g.pose.len()
                ),
            ));
        }
        // SAFETY: `joint_count` readable values per the contract.
        let given = unsafe { slice(joint_matrices, joint_count, "joint_matrices") }?;
        let pose = &mut g.pose[..joint_count];
        for (p, m) in pose.iter_mut().zip(given) {
            *p = Mat4::from_cols_array(&m.m);
        }
        let frame = Frame::new(quat(root.rotation), vec3(root.translation));
        g.runtime.step(pose, frame, dt).map_err(status_of)?;
        for (o, m) in out.iter_mut().zip(g.runtime.cloth_bones()) {
            o.m = m.to_cols_array();
        }
        Ok(())
    })
}

/// Number of joints in the file's skin (the body's, the garment's drivers, the cloth bones);
/// 0 for a null or misaligned pointer.
///
/// # Safety
/// `garment` must be null or from [`ct_garment_load`].
#[no_mangle]
pub unsafe extern "C" fn ct_garment_joint_count(garment: *const CtGarment) -> usize {
    // SAFETY: per the contract, valid or null.
    unsafe { as_ref(garment, "garment") }.map_or(0, |g| g.names.len())
}

/// Number of the body's joints, which come first in the file's joint order: the fewest
/// matrices [`ct_garment_step`] takes. 0 for a null or misaligned pointer.
///
/// # Safety
/// `garment` must be null or from [`ct_garment_load`].
#[no_mangle]
pub unsafe extern "C" fn ct_garment_body_joint_count(garment: *const CtGarment) -> usize {
    // SAFETY: per the contract, valid or null.
    unsafe { as_ref(garment, "garment") }.map_or(0, |g| g.runtime.body_joint_count())
}

/// The name of joint `index` (the file's node name), or null when `index` is out of range
/// or `garment` is null. The string lives as long as the garment.
///
/// # Safety
/// `garment` must be null or from [`ct_garment_load`].
#[no_mangle]
pub unsafe extern "C" fn ct_garment_joint_name(
    garment: *const CtGarment,
    index: usize,
) -> *const c_char {
    // SAFETY: per the contract, valid or null.
    unsafe { as_ref(garment, "garment") }
        .ok()
        .and_then(|g| g.names.get(index))
        .map_or(std::ptr::null(), |n| n.as_ptr())
}

/// The parent joint of joint `index`, or -1 for a joint with no parent joint, an index out
/// of range or a null `garment`.
///
/// # Safety
/// `garment` must be null or from [`ct_garment_load`].
#[no_mangle]
pub unsafe extern "C" fn ct_garment_joint_parent(garment: *const CtGarment, index: usize) -> i64 {
    // SAFETY: per the contract, valid or null.
    unsafe { as_ref(garment, "garment") }
        .ok()
        .and_then(|g| g.runtime.joints().get(index))
        .and_then(|j| j.parent)
        .map_or(-1, |p| p as i64)
}

/// Number of cloth bones (`cloth_r{row}_c{col}`): the matrices [`ct_garment_step`] writes.
/// 0 for a null or misaligned pointer.
///
/// # Safety
/// `garment` must be null or from [`ct_garment_load`].
#[no_mangle]
pub unsafe extern "C" fn ct_garment_cloth_bone_count(garment: *const CtGarment) -> usize {
    // SAFETY: per the contract, valid or null.
    unsafe { as_ref(garment, "garment") }.map_or(0, |g| g.runtime.cloth_bones().len())
}

/// The joint (index in the file's skin) of cloth bone `index` (the order of
/// [`ct_garment_step`]'s output), or -1 when `index` is out of range or `garment` is null.
/// Its name and parent come from [`ct_garment_joint_name`] and [`ct_garment_joint_parent`].
///
/// # Safety
/// `garment` must be null or from [`ct_garment_load`].
#[no_mangle]
pub unsafe extern "C" fn ct_garment_cloth_bone_joint(
    garment: *const CtGarment,
    index: usize,
) -> i64 {
    // SAFETY: per the contract, valid or null.
    unsafe { as_ref(garment, "garment") }
        .ok()
        .and_then(|g| g.runtime.cloth_bone_joints().nth(index))
        .map_or(-1, |j| j as i64)
}

/// The fixed rate the garment's cloth steps at (the preset's), Hz; 0 for a null pointer.
///
/// # Safety
/// `garment` must be null or from [`ct_garment_load`].
#[no_mangle]
pub unsafe extern "C" fn ct_garment_timestep_hz(garment: *const CtGarment) -> f32 {
    // SAFETY: per the contract, valid or null.
    unsafe { as_ref(garment, "garment") }.map_or(0.0, |g| g.runtime.timestep_hz())
}
