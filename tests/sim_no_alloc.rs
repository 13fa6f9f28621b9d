//! The step allocates nothing: counted with a global allocator in this test binary, per
//! thread and (for the banded order, which runs on rayon's threads) over all threads.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use cloth_tuner::preset::Preset;
use cloth_tuner::sim::{
    BodyAxis, Cloth, Collider, Frame, LegLines, LegRows, SolveOrder, StepInput, Topology, BAND_ROWS,
};
use glam::{Quat, Vec3};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// Allocations on every thread.
static ALL_THREADS: AtomicUsize = AtomicUsize::new(0);
/// Held by a test while it counts [`ALL_THREADS`], so the other test's allocations stay out.
static COUNTING_ALL: Mutex<()> = Mutex::new(());

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        ALL_THREADS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        ALL_THREADS.fetch_add(1, Ordering::Relaxed);
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
    let _counting = COUNTING_ALL.lock().unwrap_or_else(|e| e.into_inner());
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
                leg_lines: None,
            };
            cloth.step(&input).unwrap();
            // Live parameter changes are allocation-free too.
            params.damping = 0.01 + (step % 10) as f32 * 0.001;
            cloth.set_params(&params);
        }
        assert_eq!(allocations() - before, 0, "{preset}: the step allocated");
    }
}

#[test]
fn the_row_pass_allocates_nothing() {
    // The skirt's knobs on a 17 x 10 tube closed by a seam, its legs striding under it: the
    // seam weld, the leg lines and the sideways hold after every step.
    let _counting = COUNTING_ALL.lock().unwrap_or_else(|e| e.into_inner());
    let params = Preset::load("presets/skirt.json").unwrap().params;
    let (cols, rows) = (17, 10);
    let rest: Vec<Vec3> = (0..rows)
        .flat_map(|r| {
            (0..cols).map(move |c| {
                let a = std::f32::consts::TAU * c as f32 / (cols - 1) as f32;
                let radius = 0.2 + 0.01 * r as f32;
                Vec3::new(radius * a.sin(), 1.0 - 0.05 * r as f32, radius * a.cos())
            })
        })
        .collect();
    let topo = Topology::from_grid(cols, rows, rest.clone())
        .unwrap()
        .with_seam()
        .unwrap();
    let mut cloth = Cloth::new(topo, &params);
    let axis = BodyAxis {
        centre: Vec3::new(0.0, 1.0, 0.0),
        up: Vec3::Y,
        forward: Vec3::Z,
    };
    let rows = LegRows {
        push_from: 0.5,
        lift_from: 0.3,
    };
    let before = allocations();
    for step in 0..300 {
        let swing = (step as f32 * 0.1).sin() * 0.6;
        let leg = |x: f32, s: f32| {
            let hip = Vec3::new(x, 0.95, 0.0);
            let knee = hip + Quat::from_rotation_x(-s) * Vec3::new(0.0, -0.45, 0.0);
            [hip, knee, knee + Vec3::new(0.0, -0.45, 0.0)]
        };
        let lines = LegLines::new([leg(0.09, swing), leg(-0.09, -swing)], 0.08, axis, rows);
        let input = StepInput {
            frame: Frame::new(Quat::IDENTITY, Vec3::new(0.0, 0.0, step as f32 * 0.03)),
            reference: &rest,
            colliders: &[],
            leg_lines: Some(&lines),
        };
        cloth.step(&input).unwrap();
    }
    assert_eq!(allocations() - before, 0, "the row pass allocated");
}

#[test]
fn the_banded_step_on_several_threads_allocates_nothing() {
    let _counting = COUNTING_ALL.lock().unwrap_or_else(|e| e.into_inner());
    let mut params = Preset::load("presets/tweed.json").unwrap().params;
    params.iterations = 4;
    let topo = Topology::flat_grid(24, 2 * BAND_ROWS + 6, 0.04, Vec3::new(-0.5, 1.8, 0.15));
    let rest = topo.rest.clone();
    let mut cloth = Cloth::with_order(topo, &params, SolveOrder::Banded);
    assert_eq!(cloth.solve_order(), SolveOrder::Banded);
    let colliders = [Collider::Ellipsoid {
        center: Vec3::new(0.0, 1.1, 0.0),
        rotation: Quat::IDENTITY,
        radii: Vec3::new(0.2, 0.35, 0.14),
    }];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    // Stepped from a thread of the pool, as an engine's job system would: the bands' hand-overs
    // are then rayon's per-thread queues, which keep their size. (From a thread outside any
    // pool, each solver step's hand-over goes through rayon's shared queue, which allocates a
    // 1.5 KB block of 63 slots every 63 solver steps.)
    pool.install(|| {
        let mut step = |k: usize| {
            let frame = Frame::new(
                Quat::from_rotation_y(k as f32 * 0.01),
                Vec3::new(0.0, 0.0, k as f32 * 0.03),
            );
            let input = StepInput {
                frame,
                reference: &rest,
                colliders: &colliders,
                leg_lines: None,
            };
            cloth.step(&input).unwrap();
        };
        // The first steps let the queues reach their size.
        for k in 0..20 {
            step(k);
        }
        let before = ALL_THREADS.load(Ordering::Relaxed);
        for k in 20..320 {
            step(k);
        }
        let allocated = ALL_THREADS.load(Ordering::Relaxed) - before;
        assert_eq!(allocated, 0, "the banded step allocated");
    });
}

#[test]
fn tearing_allocates_nothing_when_links_tear_or_are_mended() {
    let params = cloth_tuner::sim::FabricParams {
        tear_ratio: 1.3,
        max_distance_top: 1.0,
        max_distance_hem: 1.0,
        ..Default::default()
    };
    let topo = Topology::flat_grid(8, 6, 0.05, Vec3::new(-0.175, 1.2, 0.0));
    let rest = topo.rest.clone();
    let mut cloth = Cloth::new(topo, &params);
    let mut reference = rest.clone();
    let before = allocations();
    for step in 1..=60 {
        // The pinned row pulled apart in the middle, 0.6 m/s each way.
        let spread = 0.6 * step as f32 / 60.0;
        for c in 0..8 {
            let side = if c < 4 { -1.0 } else { 1.0 };
            reference[c] = rest[c] + Vec3::X * side * spread;
        }
        let input = StepInput {
            frame: Frame::IDENTITY,
            reference: &reference,
            colliders: &[],
            leg_lines: None,
        };
        cloth.step(&input).unwrap();
    }
    let torn = cloth.torn_count();
    cloth.reset_to(&rest).unwrap();
    assert_eq!(allocations(), before, "tearing or mending allocated");
    assert!(torn > 0, "nothing tore");
    assert_eq!(cloth.torn_count(), 0);
}
