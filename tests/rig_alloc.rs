//! Per-frame character work does not allocate once the buffers exist.
#![cfg(feature = "rig")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use cloth_tuner::rig::{skin, Character};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::SeqCst);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn sample_pose_and_skin_do_not_allocate() {
    let ch = Character::builtin();
    let mut pose = ch.skeleton.rest_pose();
    let (mut model, mut sk, mut pos, mut nrm) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut posed = Vec::with_capacity(ch.ellipsoids.len());
    // Size the buffers once.
    let walk = ch.clip("walk").unwrap();
    walk.sample(0.0, &mut pose);
    pose.compute_model(&ch.skeleton, &mut model);
    ch.skin_matrices(&model, &mut sk);
    skin(&ch.mesh, &sk, &mut pos, &mut nrm);
    let before = ALLOCS.load(Ordering::SeqCst);
    for clip in &ch.clips {
        for i in 0..50 {
            let root = clip.sample(i as f32 * 0.093, &mut pose);
            pose.compute_model(&ch.skeleton, &mut model);
            ch.skin_matrices(&model, &mut sk);
            skin(&ch.mesh, &sk, &mut pos, &mut nrm);
            posed.clear();
            posed.extend(ch.ellipsoids.iter().map(|e| e.posed(&model)));
            assert!(root.is_finite());
        }
    }
    let after = ALLOCS.load(Ordering::SeqCst);
    assert_eq!(
        after,
        before,
        "per-frame work allocated {} times",
        after - before
    );
}
