//! The relaxation's kernels (plain Rust, SSE2, AVX2 where the CPU has it) and its banded order
//! on 1, 2 and 3 threads give the same positions, bit for bit, after many steps: on a grid
//! with a moving body and wind, and on the jacket fitted to the built-in character, fed the
//! very inputs its scene gives it on a dodge.

use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::Scene;
use cloth_tuner::sim::{
    Cloth, Collider, FabricParams, Frame, Kernel, SolveOrder, StepInput, Topology, BAND_ROWS,
};
use glam::{Quat, Vec3};

fn bits(v: &[Vec3]) -> Vec<[u32; 3]> {
    v.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
}

/// One step's inputs, owned.
struct Input {
    frame: Frame,
    reference: Vec<Vec3>,
    colliders: Vec<Collider>,
}

/// A character walking forward and turning, with a body ellipsoid that sways into the cloth.
fn grid_inputs(topo: &Topology, steps: usize) -> Vec<Input> {
    (0..steps)
        .map(|step| {
            let t = step as f32 / 60.0;
            Input {
                frame: Frame::new(
                    Quat::from_rotation_y((t * 2.0).sin()),
                    Vec3::new((t * 3.0).sin(), 0.0, 2.0 * t),
                ),
                reference: topo.rest.clone(),
                colliders: vec![Collider::Ellipsoid {
                    center: Vec3::new(0.1 * (t * 4.0).sin(), 1.1, 0.05),
                    rotation: Quat::from_rotation_y(0.2),
                    radii: Vec3::new(0.2, 0.35, 0.14),
                }],
            }
        })
        .collect()
}

fn fabric() -> FabricParams {
    FabricParams {
        iterations: 6,
        wind_speed: 8.0,
        ..Preset::load("presets/veil.json").unwrap().params
    }
}

/// Positions after putting `cloth` at rest on the first of `inputs` ([`Cloth::reset_on`], as a
/// scene starts) and stepping it through the others.
fn run(mut cloth: Cloth, inputs: &[Input]) -> Vec<Vec3> {
    fn as_step(input: &Input) -> StepInput<'_> {
        StepInput {
            frame: input.frame,
            reference: &input.reference,
            colliders: &input.colliders,
            leg_lines: None,
        }
    }
    cloth.reset_on(&as_step(&inputs[0])).unwrap();
    for input in &inputs[1..] {
        cloth.step(&as_step(input)).unwrap();
    }
    cloth.positions().to_vec()
}

/// Every kernel the CPU runs, each stepping a fresh cloth from `make` through `inputs`, gives
/// the scalar kernel's positions bit for bit; returns them.
fn every_kernel_agrees(make: impl Fn() -> Cloth, inputs: &[Input]) -> Vec<Vec3> {
    let mut scalar = make();
    assert!(scalar.set_kernel(Kernel::Scalar));
    let expected = run(scalar, inputs);
    let mut tried = Vec::new();
    for kernel in [Kernel::Sse2, Kernel::Avx2] {
        let mut cloth = make();
        if !cloth.set_kernel(kernel) {
            continue;
        }
        let got = run(cloth, inputs);
        assert!(
            bits(&got) == bits(&expected),
            "{} differs from the scalar kernel",
            kernel.name()
        );
        tried.push(kernel.name());
    }
    // On x86-64 SSE2 always runs; AVX2 where the CPU has it.
    if cfg!(target_arch = "x86_64") {
        assert!(tried.contains(&"sse2"));
        assert_eq!(tried.contains(&"avx2"), Kernel::Avx2.is_available());
    }
    expected
}

#[test]
fn every_kernel_gives_the_same_positions_on_a_grid() {
    let topo = Topology::flat_grid(23, 19, 0.05, Vec3::new(-0.55, 1.5, 0.2));
    let inputs = grid_inputs(&topo, 240);
    let params = fabric();
    let end = every_kernel_agrees(|| Cloth::new(topo.clone(), &params), &inputs);
    // The cloth moved: this is not the rest pose compared with itself.
    assert!(end
        .iter()
        .zip(&topo.rest)
        .any(|(p, r)| p.distance(*r) > 0.05));
    // The banded order too (two and more bands).
    let tall = Topology::flat_grid(17, 2 * BAND_ROWS + 5, 0.04, Vec3::new(-0.3, 1.6, 0.2));
    let inputs = grid_inputs(&tall, 120);
    every_kernel_agrees(
        || Cloth::with_order(tall.clone(), &params, SolveOrder::Banded),
        &inputs,
    );
}

#[test]
fn every_kernel_gives_the_same_positions_on_the_jacket() {
    let character = Arc::new(Character::builtin());
    for file in ["presets/tweed.json", "presets/down_jacket.json"] {
        let preset = Preset::load(file).unwrap();
        let mut scene = Scene::new(character.clone(), &preset, "dodge").unwrap();
        // The pose the scene put its cloth at rest on, then every step's.
        let mut inputs = Vec::new();
        for step in 0..=150 {
            if step > 0 {
                scene.step();
            }
            inputs.push(Input {
                frame: scene.root(),
                reference: scene.references().to_vec(),
                colliders: scene.colliders().to_vec(),
            });
        }
        let topo = scene.rig().topology.clone();
        let end = every_kernel_agrees(|| Cloth::new(topo.clone(), &preset.params), &inputs);
        // The replay is the scene's own cloth, which ran the default kernel.
        assert!(bits(&end) == bits(scene.cloth().positions()), "{file}");
    }
}

#[test]
fn banded_order_gives_the_same_positions_on_one_two_and_three_threads() {
    // 70 columns: three blocks of columns for the hard pass.
    let topo = Topology::flat_grid(70, 3 * BAND_ROWS + 3, 0.02, Vec3::new(-0.7, 1.8, 0.2));
    let inputs = grid_inputs(&topo, 120);
    // With the deformation limit on the hard pass runs row by row; off, by blocks of columns
    // side by side.
    for limit in [true, false] {
        let params = FabricParams {
            deformation_limit: limit,
            ..fabric()
        };
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let cloth = Cloth::with_order(topo.clone(), &params, SolveOrder::Banded);
            assert_eq!(cloth.solve_order(), SolveOrder::Banded);
            pool.install(|| run(cloth, &inputs))
        };
        let one = on(1);
        for threads in [2, 3] {
            assert!(bits(&on(threads)) == bits(&one), "{threads} threads");
        }
        assert!(one
            .iter()
            .zip(&topo.rest)
            .any(|(p, r)| p.distance(*r) > 0.05));
    }
    // Banded is a different sweep from the serial one (the windy, moving veil above is chaotic
    // enough that any change of order moves it centimetres), but it holds the cloth as well:
    // hanging under gravity with the hard pass off, the stretch links end as stretched.
    let still: Vec<Input> = (0..240)
        .map(|_| Input {
            frame: Frame::IDENTITY,
            reference: topo.rest.clone(),
            colliders: Vec::new(),
        })
        .collect();
    let hanging = FabricParams {
        iterations: 10,
        hard_constraints: false,
        max_distance_top: 2.0,
        max_distance_hem: 2.0,
        ..FabricParams::default()
    };
    let stretch = |order| {
        let end = run(Cloth::with_order(topo.clone(), &hanging, order), &still);
        let links = topo.links.iter().filter(|l| l.kind.is_stretch());
        let sum: f32 = links
            .clone()
            .map(|l| (end[l.a as usize].distance(end[l.b as usize]) / l.rest - 1.0).abs())
            .sum();
        sum / links.count() as f32
    };
    let (banded, serial) = (
        stretch(SolveOrder::Banded),
        stretch(SolveOrder::Interleaved),
    );
    assert!(
        banded > 0.0 && (banded - serial).abs() <= 0.05 * serial,
        "mean stretch {banded} banded, {serial} serial"
    );
}

#[test]
fn small_cloths_stay_serial_and_large_ones_are_banded() {
    let params = FabricParams::default();
    let jacket_sized = Topology::flat_grid(17, 10, 0.05, Vec3::ZERO);
    assert_eq!(
        Cloth::new(jacket_sized.clone(), &params).solve_order(),
        SolveOrder::Interleaved
    );
    // Too short for two bands: the banded request falls back to the serial sweep.
    assert_eq!(
        Cloth::with_order(jacket_sized, &params, SolveOrder::Banded).solve_order(),
        SolveOrder::Interleaved
    );
    let large = Topology::flat_grid(256, 256, 0.005, Vec3::ZERO);
    assert_eq!(Cloth::new(large, &params).solve_order(), SolveOrder::Banded);
}
