//! Writes the generated character to `assets/character.glb` (run from anywhere).
//!
//! `cargo run --features rig --bin make-assets`

use std::path::Path;

fn main() {
    let bytes = cloth_tuner::rig::generate::character_glb();
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(cloth_tuner::rig::generate::CHARACTER_PATH);
    if let Err(e) = std::fs::write(&path, &bytes) {
        eprintln!("make-assets: cannot write {}: {e}", path.display());
        std::process::exit(1);
    }
    println!("wrote {} ({} bytes)", path.display(), bytes.len());
}
