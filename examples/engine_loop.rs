//! A minimal game loop around the cloth library, as an engine would write it: load a fabric
//! preset, build a cloth from a grid of its own, and every frame advance a fixed-step clock and
//! step the cloth with the character's frame, the pinned row's reference points and a body
//! collider. Uses nothing but the simulation library (`cloth_tuner::sim` and `preset`, what an
//! engine gets from `cloth_tuner` with `default-features = false`; `.ci/run` checks it):
//!
//! ```text
//! cargo run --example engine_loop [-- presets/veil.json]
//! ```
//!
//! (Not with `--no-default-features`: Cargo builds every dev-dependency for an example, and the
//! tuner's UI tests' `egui_kittest` does not build without the default features.)

use std::error::Error;

use cloth_tuner::preset::Preset;
use cloth_tuner::sim::{Cloth, Collider, FixedStep, Frame, StepInput, Topology};
use glam::{Quat, Vec3};

/// Columns around the body and rows from the waist down.
const COLS: usize = 12;
const ROWS: usize = 8;

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/presets/tweed.json").to_string());
    let preset = Preset::load(&path)?;
    let params = &preset.params;
    println!(
        "{}: {} at {} Hz, {} passes",
        path, preset.name, params.timestep_hz, params.iterations
    );

    // The topology: the lower half of a coat as a half cylinder around the hips (character
    // space: +Y up, the character faces +Z), 5 cm between rows, top row at the waist.
    let rest: Vec<Vec3> = (0..ROWS)
        .flat_map(|r| {
            (0..COLS).map(move |c| {
                let a = (c as f32 / (COLS - 1) as f32 - 0.5) * 3.4; // about 195 degrees
                let radius = 0.19 + 0.01 * r as f32; // flaring a little toward the hem
                Vec3::new(radius * a.sin(), 1.0 - 0.05 * r as f32, radius * a.cos())
            })
        })
        .collect();
    let topology = Topology::from_grid(COLS, ROWS, rest.clone())?;
    let mut cloth = Cloth::new(topology, params);
    let hem = (ROWS - 1) * COLS..ROWS * COLS;

    // The body the coat falls over: one ellipsoid for the hips and thighs.
    let colliders = [Collider::Ellipsoid {
        center: Vec3::new(0.0, 0.8, 0.0),
        rotation: Quat::IDENTITY,
        radii: Vec3::new(0.17, 0.35, 0.14),
    }];

    // The engine's clock: variable frame times in, whole fixed steps out.
    let mut clock = FixedStep::new(params.timestep_hz, 8);
    let mut reference = rest.clone();
    let mut sim_time = 0.0f64;
    for frame_index in 0..150 {
        // An uneven frame rate, as a real game has.
        let elapsed = if frame_index % 3 == 0 {
            1.0 / 40.0
        } else {
            1.0 / 75.0
        };
        for _ in 0..clock.advance(elapsed) {
            sim_time += clock.dt();
            let t = sim_time as f32;
            // The character's frame in the world: walking forward along +Z, then turning.
            let heading = if t > 1.0 { (t - 1.0).min(0.8) } else { 0.0 };
            let frame = Frame::new(
                Quat::from_rotation_y(heading),
                Vec3::new(0.0, 0.0, 1.5 * t.min(1.5)),
            );
            // The hips sway and bob with the gait: the pinned row (the waist) follows them,
            // the other reference points are the rest pose carried along the same way.
            let hips = Frame::new(
                Quat::from_rotation_y(0.12 * (t * 6.0).sin()),
                Vec3::new(0.0, 0.02 * (t * 12.0).sin(), 0.0),
            );
            for (r, p) in reference.iter_mut().zip(&rest) {
                *r = hips.transform_point(*p);
            }
            let report = cloth.step(&StepInput {
                frame,
                reference: &reference,
                colliders: &colliders,
                leg_lines: None,
            })?;
            if report.reset {
                println!("t = {t:.3} s: the cloth exploded and was reset");
            }
        }
        if frame_index % 25 == 24 {
            let hem_pos = &cloth.positions()[hem.clone()];
            let mean_height = hem_pos.iter().map(|p| p.y).sum::<f32>() / hem_pos.len() as f32;
            let front = hem_pos[COLS / 2];
            println!(
                "t = {:.3} s  hem mean height {:.3} m  hem front (x, y, z) = ({:.3}, {:.3}, {:.3}) m",
                cloth.time(),
                mean_height,
                front.x,
                front.y,
                front.z
            );
        }
    }
    let stats = cloth.stats();
    println!(
        "{} steps, {} resets, {} teleports, {} post-hard clamps (largest {:.4} m)",
        stats.steps,
        stats.resets,
        stats.teleports,
        stats.post_hard_clamps,
        stats.post_hard_clamp_max
    );
    Ok(())
}
