//! The body's skinning per frame on the built-in character and on a production-sized test rig
//! (about 30,000 vertices and 60 bones): the fastest and the median of many calls to
//! `character::skin` on the walk's poses. `cargo bench --bench character`.

use std::hint::black_box;
use std::time::Instant;

use cloth_tuner::character::{skin, Character};
use cloth_tuner_assets::test_rig::{test_rig_glb, Naming, RigStyle};
use glam::Vec3;

/// Microseconds per call of `character::skin` over 60 frames of the walk: (fastest, median).
fn skinning_us(c: &Character) -> (f64, f64) {
    let clip = c.clip("walk").expect("a walk");
    let mut pose = c.skeleton.rest_pose();
    let (mut model, mut mats) = (Vec::new(), Vec::new());
    let (mut pos, mut nrm) = (Vec::<Vec3>::new(), Vec::<Vec3>::new());
    let mut times = Vec::new();
    for round in 0..10 {
        for f in 0..60 {
            clip.sample(f as f32 / 60.0, &mut pose);
            pose.compute_model(&c.skeleton, &mut model);
            c.skin_matrices(&model, &mut mats);
            let t = Instant::now();
            skin(&c.mesh, black_box(&mats), &mut pos, &mut nrm);
            black_box(&pos);
            if round > 0 {
                times.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
    }
    times.sort_by(f64::total_cmp);
    (times[0], times[times.len() / 2])
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let production = RigStyle {
        naming: Naming::Mixamo,
        cell: 0.009,
        fingers: 18,
        ..RigStyle::default()
    };
    let rigs = [
        ("built-in", Character::builtin()),
        (
            "production-sized test rig",
            Character::from_glb(&test_rig_glb(&production), "production.glb").expect("loads"),
        ),
    ];
    println!("body skinning per frame (walk), µs");
    for (name, c) in &rigs {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let (fastest, median) = skinning_us(c);
        println!(
            "  {name:28} {:>6} vertices {:>3} bones: fastest {fastest:7.1}  median {median:7.1}",
            c.mesh.vertex_count(),
            c.skeleton.len()
        );
    }
}
