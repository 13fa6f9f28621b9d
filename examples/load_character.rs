//! How long loading a character takes (release build): writes a test rig of the asset
//! generator (the mannequin on a fine grid, with finger chains for a production-sized
//! skeleton, Mixamo names, every built-in clip) and loads it through the public path, as the
//! tuner's File > Open character and `--character` do. Or loads the file given.
//!
//! ```text
//! cargo run --release --example load_character [-- CHARACTER.glb] [--keep OUT.glb]
//! ```

use std::time::Instant;

use cloth_tuner::character::Character;
use cloth_tuner_assets::test_rig::{test_rig_glb, Naming, RigStyle};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let keep = args
        .iter()
        .position(|a| a == "--keep")
        .and_then(|i| args.get(i + 1));
    let path = match args.first().filter(|a| !a.starts_with("--")) {
        Some(p) => std::path::PathBuf::from(p),
        None => {
            let style = RigStyle {
                naming: Naming::Mixamo,
                cell: 0.0088,
                fingers: 18,
                clips: ["idle", "walk", "run", "dodge", "turn"]
                    .map(String::from)
                    .to_vec(),
                ..RigStyle::default()
            };
            let path = keep
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| std::env::temp_dir().join("cloth-tuner-load-test.glb"));
            std::fs::write(&path, test_rig_glb(&style))?;
            path
        }
    };
    let mut times = Vec::new();
    let mut character = None;
    for _ in 0..5 {
        let start = Instant::now();
        character = Some(Character::open(&path, None)?);
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let c = character.ok_or("no run")?;
    println!(
        "{}: {} vertices, {} bones, {} clips, {} ellipsoids, {:.1} MB; load median {:.0} ms (min {:.0}, max {:.0})",
        path.display(),
        c.mesh.vertex_count(),
        c.skeleton.len(),
        c.clips.len(),
        c.ellipsoids.len(),
        std::fs::metadata(&path)?.len() as f64 / 1e6,
        times[2] * 1e3,
        times[0] * 1e3,
        times[4] * 1e3
    );
    Ok(())
}
