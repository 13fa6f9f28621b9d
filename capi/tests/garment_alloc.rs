//! `ct_garment_step` allocates nothing once the garment is loaded and has taken its first
//! step: an engine calls it every frame.

mod rigged_file;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::CString;

use cloth_tuner::export::runtime::GarmentRuntime;
use cloth_tuner::garment::imported::ImportedGarment;
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::Scene;
use cloth_tuner_capi::{
    ct_garment_body_joint_count, ct_garment_cloth_bone_count, ct_garment_free, ct_garment_load,
    ct_garment_step, CtFrame, CtMat4, CtQuat, CtStatus, CtVec3,
};

/// Counts this thread's allocations.
struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|n| n.set(n.get() + 1));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn a_garment_step_does_not_allocate_after_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let glb = rigged_file::jacket(dir.path());
    // The walk's poses, sampled before counting (the engine's animation, not ours).
    let runtime = GarmentRuntime::load(&glb, None).unwrap();
    let garment = runtime
        .scene()
        .worn_as::<ImportedGarment>()
        .unwrap()
        .clone();
    let preset = Preset::load(rigged_file::tweed()).unwrap();
    let character = runtime.scene().character_arc().clone();
    let mut scene = Scene::wearing(character, Box::new(garment), &preset, "walk").unwrap();
    let sk = &scene.character().skeleton;
    let body: Vec<usize> = runtime.joints()[..runtime.body_joint_count()]
        .iter()
        .map(|j| sk.find(&j.name).unwrap())
        .collect();
    let mut frames = Vec::new();
    for _ in 0..40 {
        scene.step();
        let pose: Vec<CtMat4> = body
            .iter()
            .map(|&b| CtMat4 {
                m: scene.model()[b].to_cols_array(),
            })
            .collect();
        let r = scene.root();
        let root = CtFrame {
            rotation: CtQuat {
                x: r.rotation.x,
                y: r.rotation.y,
                z: r.rotation.z,
                w: r.rotation.w,
            },
            translation: CtVec3 {
                x: r.translation.x,
                y: r.translation.y,
                z: r.translation.z,
            },
        };
        frames.push((pose, root));
    }

    let path = CString::new(glb.to_str().unwrap()).unwrap();
    let mut g = std::ptr::null_mut();
    assert_eq!(
        unsafe { ct_garment_load(path.as_ptr(), std::ptr::null(), &mut g) },
        CtStatus::Ok
    );
    let n = unsafe { ct_garment_cloth_bone_count(g) };
    assert_eq!(unsafe { ct_garment_body_joint_count(g) }, body.len());
    let mut out = vec![CtMat4 { m: [0.0; 16] }; n];
    let mut step = |(pose, root): &(Vec<CtMat4>, CtFrame)| {
        let s = unsafe {
            ct_garment_step(
                g,
                pose.as_ptr(),
                pose.len(),
                root,
                1.0 / 60.0,
                out.as_mut_ptr(),
                n,
            )
        };
        assert_eq!(s, CtStatus::Ok);
    };
    for frame in &frames[..5] {
        step(frame);
    }
    let before = ALLOCS.with(Cell::get);
    for frame in &frames[5..] {
        step(frame);
    }
    let allocated = ALLOCS.with(Cell::get) - before;
    assert_eq!(allocated, 0, "{allocated} allocations in 35 garment steps");
    unsafe { ct_garment_free(g) };
}
