//! The step allocates nothing: counted with a global allocator in this test binary.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use cloth_tuner::preset::Preset;
use cloth_tuner::sim::{Cloth, Collider, Frame, StepInput, Topology};
use glam::{Quat, Vec3};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(|c| c.get())
}

#[test]
fn stepping_allocates_nothing() {
    for preset in [
        "presets/tweed.json",
        "presets/down_jacket.json",
        "presets/veil.json",
    ] {
        let mut params = Preset::load(preset).unwrap().params;
        params.deformation_limit = true;
        // Substeps interpolate the inputs in buffers made with the cloth.
        if preset.contains("veil") {
            params.substeps = 3;
        }
        let at_start = allocations();
        let topo = Topology::flat_grid(16, 12, 0.05, Vec3::new(-0.4, 1.5, 0.15));
        let rest = topo.rest.clone();
        let mut cloth = Cloth::new(topo, &params);
        let colliders = [
            Collider::Ellipsoid {
                center: Vec3::new(0.0, 1.1, 0.0),
                rotation: Quat::IDENTITY,
                radii: Vec3::new(0.2, 0.35, 0.14),
            },
            Collider::Capsule {
                a: Vec3::new(-0.1, 0.5, 0.0),
                b: Vec3::new(-0.1, 0.9, 0.0),
                radius: 0.08,
            },
        ];
        // The counter works: building the cloth does allocate.
        assert!(allocations() > at_start);
        let before = allocations();
        for step in 0..300 {
            let frame = Frame::new(
                Quat::from_rotation_y(step as f32 * 0.01),
                Vec3::new(0.0, 0.0, step as f32 * 0.03),
            );
            let input = StepInput {
                frame,
                reference: &rest,
                colliders: &colliders,
            };
            cloth.step(&input).unwrap();
            // Live parameter changes are allocation-free too.
            params.damping = 0.01 + (step % 10) as f32 * 0.001;
            cloth.set_params(&params);
        }
        assert_eq!(allocations() - before, 0, "{preset}: the step allocated");
    }
}
