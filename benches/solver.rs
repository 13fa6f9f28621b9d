//! Solver throughput: median time per step and constraint projections per second for square
//! grids (top row pinned; stretch, both shear diagonals, skip-one bend links) at 5 and 10
//! iterations, and the stretch left after settling with our link order versus plain index
//! order. `cargo bench --bench solver`; a name filter runs a subset (`cargo bench -- 64`).

use std::hint::black_box;
use std::time::Instant;

use cloth_tuner::sim::{
    Cloth, ConstraintKind, FabricParams, Frame, SolveOrder, StepInput, Topology,
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
    let links: Vec<_> = cloth
        .topology()
        .links
        .iter()
        .filter(|l| l.kind.is_stretch())
        .collect();
    let sum: f64 = links
        .iter()
        .map(|l| (p[l.a as usize].distance(p[l.b as usize]) / l.rest - 1.0).abs() as f64)
        .sum();
    100.0 * sum / links.len() as f64
}

fn settle(n: usize, iterations: u32, order: SolveOrder) -> f64 {
    // Relaxation alone: no hard pass to hide the stretch.
    let p = FabricParams {
        hard_constraints: false,
        ..params(iterations)
    };
    let topo = grid(n);
    let rest = topo.rest.clone();
    let mut cloth = Cloth::with_order(topo, &p, order);
    let input = StepInput {
        frame: Frame::IDENTITY,
        reference: &rest,
        colliders: &[],
    };
    for _ in 0..600 {
        cloth.step(&input).unwrap();
    }
    stretch_error(&cloth)
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
            };
            // Settle first, so the timing is of a cloth in its working state.
            for _ in 0..120 {
                cloth.step(&input).unwrap();
            }
            let target = 0.4; // seconds of samples per configuration
            let mut samples = Vec::new();
            let start = Instant::now();
            while start.elapsed().as_secs_f64() < target || samples.len() < 20 {
                let t = Instant::now();
                black_box(cloth.step(black_box(&input)).unwrap());
                samples.push(t.elapsed().as_secs_f64());
            }
            samples.sort_by(f64::total_cmp);
            let median = samples[samples.len() / 2];
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
}
