//! Per-frame character work does not allocate once the buffers exist: sampling, posing and
//! skinning, and a whole scene's step (rig, hood, cloth, bones) for every shipped preset.
#![cfg(feature = "rig")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use cloth_tuner::character::{skin, Character};
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::Scene;

/// Counts each thread's allocations: the tests run side by side and must not see each
/// other's.
struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCS.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // `try_with`: a thread being torn down has no counter left, and nothing to count.
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
    let before = allocations();
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
    let after = allocations();
    assert_eq!(
        after,
        before,
        "per-frame work allocated {} times",
        after - before
    );
}

#[test]
fn a_scene_step_does_not_allocate_after_its_first_steps() {
    let ch = Arc::new(Character::builtin());
    for name in ["tweed", "down_jacket", "veil", "skirt"] {
        let preset = Preset::load(format!("presets/{name}.json")).unwrap();
        // The dodge: contacts, the hood thrown about, the skirt's leg lines at work.
        let mut scene = Scene::new(Arc::clone(&ch), &preset, "dodge").unwrap();
        for _ in 0..5 {
            scene.step();
        }
        let before = allocations();
        for _ in 0..240 {
            scene.step();
        }
        let after = allocations();
        assert_eq!(
            after,
            before,
            "{name}: 240 steps allocated {} times",
            after - before
        );
    }
}
