//! The rigged garment the C tests load: the built-in character's jacket with tweed, written by
//! the function `cloth-tuner export --rig` calls (`write_rigged`; this package's tests cannot
//! run the other package's binary), into the test's temp dir.

use std::path::{Path, PathBuf};

use cloth_tuner::character::Character;
use cloth_tuner::export::rigged::write_rigged;
use cloth_tuner::garment::{dress, fitted_layout};
use cloth_tuner::preset::Preset;

/// The shipped tweed preset.
pub fn tweed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../presets/tweed.json")
}

/// Writes `jacket.glb` into `dir` and returns its path.
pub fn jacket(dir: &Path) -> PathBuf {
    let character = Character::builtin();
    let preset = Preset::load(tweed()).unwrap();
    let layout = fitted_layout(&character, preset.garment);
    let garment = dress(&character, preset.garment, &layout).unwrap();
    let out = dir.join("jacket.glb");
    write_rigged(&out, &character, garment.as_ref(), &preset).unwrap();
    out
}
