//! Solver throughput: median time per step and constraint projections per second for square
//! grids (top row pinned; stretch, both shear diagonals, skip-one bend links) at 5 and 10
//! iterations, and the stretch left after settling with our link order versus plain index
//! order. Then, for 64x64 swinging side to side, the cheapest settings (passes against
//! substeps, with and without the hard pass) that keep the mean stretch at 1 % or less, and
//! their time per step. Then each relaxation kernel (plain, SSE2, AVX2) at 64x64 and 128x128,
//! and a 256x256 cloth (banded order) on one core and on all cores.
//! `cargo bench --bench solver`; a name filter runs a subset (`cargo bench -- 64`).

use std::hint::black_box;
use std::time::Instant;

use cloth_tuner::sim::{
    Cloth, ConstraintKind, FabricParams, Frame, Kernel, SolveOrder, StepInput, Topology,
};
use glam::Vec3;

fn grid(n: usize) -> Topology {
    // A 1.2 m square of cloth whatever the resolution.
    Topology::flat_grid(n, n, 1.2 / (n - 1) as f32, Vec3::new(-0.6, 1.6, 0.0))
}

fn params(iterations: u32) -> FabricParams {
    FabricParams {
        iterations,
        damping: 0.02,
        stretch_stiffness: 1.0,
        shear_bend_stiffness: 0.3,
        max_distance_top: 2.0,
        max_distance_hem: 2.0,
        ..Default::default()
    }
}

/// Mean |length / rest - 1| of the stretch links, percent.
fn stretch_error(cloth: &Cloth) -> f64 {
    let p = cloth.positions();
    let (sum, count) = cloth
        .topology()
        .links
        .iter()
        .filter(|l| l.kind.is_stretch())
        .fold((0.0f64, 0usize), |(sum, count), l| {
            let s = (p[l.a as usize].distance(p[l.b as usize]) / l.rest - 1.0).abs();
            (sum + s as f64, count + 1)
        });
    100.0 * sum / count as f64
}

fn settle(n: usize, iterations: u32, order: SolveOrder) -> f64 {
    // Relaxation alone: no hard pass to hide the stretch.
    let p = FabricParams {
        hard_constraints: false,
        ..params(iterations)
    };
    settle_with(n, &p, order, 600, false).0
}

/// Mean stretch (percent) after `steps` fixed steps hanging under gravity, and the median time
/// of a step after that. With `swing`, the pinned row swings 0.3 m side to side once a second
/// (all of it world motion), which loads the horizontal and shear links as a garment in
/// motion does, and the stretch is the mean over the second half of the run.
fn settle_with(
    n: usize,
    p: &FabricParams,
    order: SolveOrder,
    steps: usize,
    swing: bool,
) -> (f64, f64) {
    let p = &FabricParams {
        world_motion_fraction: if swing { 1.0 } else { p.world_motion_fraction },
        edge_world_motion_fraction: if swing {
            1.0
        } else {
            p.edge_world_motion_fraction
        },
        ..p.clone()
    };
    let topo = grid(n);
    let rest = topo.rest.clone();
    let mut cloth = Cloth::with_order(topo, p, order);
    let (mut sum, mut count) = (0.0, 0);
    for k in 0..steps {
        let t = k as f32 / p.timestep_hz;
        let x = if swing {
            0.3 * (std::f32::consts::TAU * t).sin()
        } else {
            0.0
        };
        let input = StepInput {
            frame: Frame {
                translation: Vec3::new(x, 0.0, 0.0),
                ..Frame::IDENTITY
            },
            reference: &rest,
            colliders: &[],
            leg_lines: None,
        };
        cloth.step(&input).unwrap();
        if swing && k >= steps / 2 {
            sum += stretch_error(&cloth);
            count += 1;
        }
    }
    let stretch = if swing {
        sum / count as f64
    } else {
        stretch_error(&cloth)
    };
    let input = StepInput {
        frame: Frame::IDENTITY,
        reference: &rest,
        colliders: &[],
        leg_lines: None,
    };
    (stretch, median_step(&mut cloth, &input, 0.2))
}

/// Median seconds per step over at least `seconds` of samples (and at least 20).
fn median_step(cloth: &mut Cloth, input: &StepInput, seconds: f64) -> f64 {
    step_times(cloth, input, seconds).1
}

/// The fastest and the median seconds per step over at least `seconds` of samples (and at
/// least 20). On a shared machine the fastest is the one other work did not interrupt.
fn step_times(cloth: &mut Cloth, input: &StepInput, seconds: f64) -> (f64, f64) {
    let mut samples = Vec::new();
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds || samples.len() < 20 {
        let t = Instant::now();
        black_box(cloth.step(black_box(input)).unwrap());
        samples.push(t.elapsed().as_secs_f64());
    }
    samples.sort_by(f64::total_cmp);
    (samples[0], samples[samples.len() / 2])
}

/// The fewest passes reaching `goal` % mean stretch at 64x64 for each substep count, with and
/// without the hard pass, and which of them costs least per step.
fn stretch_per_cost(goal: f64) {
    println!(
        "\n64x64 swinging 0.3 m at 1 Hz: the fewest passes keeping <= {goal} % mean stretch \
         (mean over steps 300 to 600 at 60 Hz)"
    );
    println!(
        "{:>10} {:>8} {:>7} {:>9} {:>12}",
        "hard pass", "substeps", "passes", "stretch", "median/step"
    );
    for hard in [false, true] {
        let mut best: Option<(f64, u32, u32)> = None;
        for substeps in [1u32, 2, 4, 8] {
            let found = [0u32, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32]
                .into_iter()
                .find_map(|iterations| {
                    let p = FabricParams {
                        hard_constraints: hard,
                        substeps,
                        ..params(iterations)
                    };
                    let (stretch, t) = settle_with(64, &p, SolveOrder::Interleaved, 600, true);
                    (stretch <= goal).then_some((iterations, stretch, t))
                });
            match found {
                Some((iterations, stretch, t)) => {
                    println!(
                        "{:>10} {:>8} {:>7} {:>8.3}% {:>10.1}us",
                        if hard { "on" } else { "off" },
                        substeps,
                        iterations,
                        stretch,
                        t * 1e6
                    );
                    if best.is_none_or(|(bt, _, _)| t < bt) {
                        best = Some((t, substeps, iterations));
                    }
                }
                None => println!(
                    "{:>10} {:>8} {:>7} {:>9} {:>12}",
                    if hard { "on" } else { "off" },
                    substeps,
                    "> 32",
                    "-",
                    "-"
                ),
            }
        }
        if let Some((t, substeps, iterations)) = best {
            println!(
                "  cheapest with the hard pass {}: {substeps} substep(s) x {iterations} passes, {:.1}us per step",
                if hard { "on" } else { "off" },
                t * 1e6
            );
        }
    }
}

/// A settled cloth of `n` x `n` at `iterations` and the input that holds it still.
fn settled(n: usize, iterations: u32, order: SolveOrder, kernel: Kernel) -> (Cloth, Vec<Vec3>) {
    let topo = grid(n);
    let rest = topo.rest.clone();
    let mut cloth = Cloth::with_order(topo, &params(iterations), order);
    assert!(cloth.set_kernel(kernel));
    let input = StepInput {
        frame: Frame::IDENTITY,
        reference: &rest,
        colliders: &[],
        leg_lines: None,
    };
    for _ in 0..120 {
        cloth.step(&input).unwrap();
    }
    (cloth, rest)
}

/// Median step time and projections per second for each kernel this CPU runs.
fn kernels(selected: &dyn Fn(&str) -> bool) {
    if !["64x64", "128x128"].iter().any(|name| selected(name)) {
        return;
    }
    println!(
        "\nrelaxation kernels (10 iterations; the default is {})",
        Kernel::best().name()
    );
    println!(
        "{:>9} {:>7} {:>12} {:>14} {:>10} {:>12} {:>10}",
        "grid", "kernel", "median/step", "projections/s", "vs scalar", "fastest", "vs scalar"
    );
    for n in [64usize, 128] {
        let name = format!("{n}x{n}");
        if !selected(&name) {
            continue;
        }
        let mut scalar = None;
        for kernel in Kernel::ALL.into_iter().filter(|k| k.is_available()) {
            let (mut cloth, rest) = settled(n, 10, SolveOrder::Interleaved, kernel);
            let input = StepInput {
                frame: Frame::IDENTITY,
                reference: &rest,
                colliders: &[],
                leg_lines: None,
            };
            let (fastest, median) = step_times(&mut cloth, &input, 0.4);
            let (base_fastest, base_median) = *scalar.get_or_insert((fastest, median));
            println!(
                "{:>9} {:>7} {:>10.1}us {:>14.3e} {:>9.2}x {:>10.1}us {:>9.2}x",
                name,
                kernel.name(),
                median * 1e6,
                cloth.projections_per_step() as f64 / median,
                base_median / median,
                fastest * 1e6,
                base_fastest / fastest
            );
        }
    }
}

/// 256x256 at 10 iterations: the serial sweep on one core, the banded order on one core and
/// on all cores (rayon's global pool), and the stretch each leaves after settling.
fn large_cloth() {
    let n = 256;
    let cores = rayon::current_num_threads();
    println!("\n{n}x{n}, 10 iterations, kernel {}", Kernel::best().name());
    println!(
        "{:>26} {:>12} {:>14} {:>12} {:>13}",
        "", "median/step", "projections/s", "fastest", "stretch"
    );
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let rows: [(&str, SolveOrder, bool); 3] = [
        ("serial sweep, 1 core", SolveOrder::Interleaved, false),
        ("banded, 1 core", SolveOrder::Banded, false),
        ("banded, all cores", SolveOrder::Banded, true),
    ];
    for (label, order, all) in rows {
        let label = if all {
            format!("banded, {cores} cores")
        } else {
            label.to_string()
        };
        let measure = || {
            let (mut cloth, rest) = settled(n, 10, order, Kernel::best());
            let input = StepInput {
                frame: Frame::IDENTITY,
                reference: &rest,
                colliders: &[],
                leg_lines: None,
            };
            let (fastest, median) = step_times(&mut cloth, &input, 2.0);
            (
                fastest,
                median,
                cloth.projections_per_step() as f64 / median,
            )
        };
        let (fastest, median, projections) = if all { measure() } else { one.install(measure) };
        // The same bits on any number of cores: the stretch once per order.
        let stretch = if all {
            "as 1 core".to_string()
        } else {
            let p = FabricParams {
                hard_constraints: false,
                ..params(10)
            };
            format!("{:.3}%", settle_with(n, &p, order, 600, false).0)
        };
        println!(
            "{:>26} {:>10.1}us {:>14.3e} {:>10.1}us {:>13}",
            label,
            median * 1e6,
            projections,
            fastest * 1e6,
            stretch
        );
    }
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    println!(
        "{:>9} {:>5} {:>8} {:>12} {:>14} {:>13} {:>13}",
        "grid", "iters", "links", "median/step", "projections/s", "stretch ours", "stretch index"
    );
    for n in [16usize, 32, 64, 128] {
        for iterations in [5u32, 10] {
            let name = format!("{n}x{n}");
            if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
                continue;
            }
            let topo = grid(n);
            let rest = topo.rest.clone();
            let links = topo.links.len();
            debug_assert!(topo.links.iter().any(|l| l.kind == ConstraintKind::Bend));
            let mut cloth = Cloth::new(topo, &params(iterations));
            let input = StepInput {
                frame: Frame::IDENTITY,
                reference: &rest,
                colliders: &[],
                leg_lines: None,
            };
            // Settle first, so the timing is of a cloth in its working state.
            for _ in 0..120 {
                cloth.step(&input).unwrap();
            }
            let median = median_step(&mut cloth, &input, 0.4);
            let projections = cloth.projections_per_step() as f64 / median;
            let ours = settle(n, iterations, SolveOrder::Interleaved);
            let index = settle(n, iterations, SolveOrder::Index);
            println!(
                "{:>9} {:>5} {:>8} {:>10.1}us {:>14.3e} {:>12.3}% {:>12.3}%",
                name,
                iterations,
                links,
                median * 1e6,
                projections,
                ours,
                index
            );
        }
    }
    if filter.is_empty() || filter.iter().any(|f| f.contains("cost")) {
        stretch_per_cost(1.0);
    }
    let selected =
        |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    kernels(&selected);
    if selected("256x256") {
        large_cloth();
    }
}
