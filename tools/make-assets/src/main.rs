//! Writes the generated character to `assets/character.glb`, or to the path given.
//!
//! `cargo run --release -p cloth-tuner-assets [-- OUT.glb]`

use std::path::{Path, PathBuf};

fn main() {
    let path = match std::env::args_os().nth(1) {
        // An option is never an output file name (`--help` would otherwise become one).
        Some(arg) if arg.to_string_lossy().starts_with('-') => {
            println!("usage: make-assets [OUT.glb]   (default: assets/character.glb)");
            return;
        }
        Some(out) => PathBuf::from(out),
        // This crate sits two folders below the workspace root.
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .nth(2)
            .unwrap_or(Path::new("."))
            .join(cloth_tuner_assets::CHARACTER_PATH),
    };
    let bytes = cloth_tuner_assets::character_glb();
    if let Err(e) = std::fs::write(&path, &bytes) {
        eprintln!("make-assets: cannot write {}: {e}", path.display());
        std::process::exit(1);
    }
    println!("wrote {} ({} bytes)", path.display(), bytes.len());
}
