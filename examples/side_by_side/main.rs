//! Side by side with Jolt: the same hanging panel and the same three motions (released from
//! 30°, a 1 Hz sway that stops, a 1.5 m/s move that stops), run in our solver with a preset
//! and in Jolt's soft body with what `export --engine jolt` writes for it. Prints settle
//! time, hem swing and stretch for both.
//!
//! The Jolt side is Jolt's WebAssembly build run in Node (`--jolt-wasm tools/jolt-wasm`, after
//! `npm ci` there; the same run is `tests/tools/jolt_wasm.rs` in CI), fed the settings file export
//! writes, or a native C++ program (`--jolt`, `tools/jolt-compare/`) that needs a Jolt Physics
//! build. Without either only our side runs.
//!
//! ```text
//! cargo run --release --example side_by_side -- --preset presets/tweed.json \
//!     [--jolt-wasm tools/jolt-wasm | --jolt tools/jolt-compare/build/jolt_compare] \
//!     [--work target/side_by_side] [--set KNOB=VALUE ...]
//! ```
//!
//! The motions, the panel and the measurements are defined once (`panel.rs`): the Jolt
//! program reads the panel, the settings and each motion from files this writes, and writes
//! back the positions of every frame, which are measured by the same code as ours.

mod panel;

use std::path::PathBuf;

use cloth_tuner::export::{export_for_engine, Engine, GridSize};
use cloth_tuner::preset::Preset;
use serde_json::Value;

use panel::*;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut preset, mut jolt, mut work) = (None, None, PathBuf::from("target/side_by_side"));
    let mut wasm = None;
    let mut overrides = Vec::new();
    while let Some(a) = args.next() {
        let value = args.next().ok_or_else(|| format!("{a} needs a value"))?;
        match a.as_str() {
            "--preset" => preset = Some(PathBuf::from(value)),
            "--jolt" => jolt = Some(PathBuf::from(value)),
            "--jolt-wasm" => wasm = Some(PathBuf::from(value)),
            "--work" => work = PathBuf::from(value),
            "--set" => overrides.push(value),
            _ => {
                return Err(format!(
                    "unknown option {a}; options: --preset, --jolt, --jolt-wasm, --work, --set"
                ))
            }
        }
    }
    let path = preset.ok_or("--preset is required")?;
    let loaded = Preset::load(&path).map_err(|e| e.to_string())?;
    let mut params = comparable(&loaded.params);
    for o in &overrides {
        let (name, value) = o
            .split_once('=')
            .ok_or(format!("--set {o}: expected KNOB=VALUE"))?;
        let v: f64 = value
            .parse()
            .map_err(|_| format!("--set {o}: not a number"))?;
        if !params.set(name, v) {
            return Err(format!("--set {o}: no knob `{name}`"));
        }
    }
    params.validate().map_err(|e| format!("--set: {e}"))?;
    let export = export_for_engine(
        Engine::Jolt,
        &Preset {
            params: params.clone(),
            ..loaded.clone()
        },
        None,
        GridSize::panel(COLS, ROWS, SPACING),
    )
    .map_err(|e| e.to_string())?;
    let settings: Value =
        serde_json::from_str(&export.files[0].contents).map_err(|e| e.to_string())?;
    println!(
        "{} on a {} x {} panel, 5 cm apart, {FPS} Hz frames",
        loaded.name, COLS, ROWS
    );
    println!("| motion | solver | settle s | hem swing peak cm | vertical stretch max % |\n|---|---|---|---|---|");
    for (i, m) in motions().iter().enumerate() {
        println!(
            "{}",
            measure(&run_ours(&params, m), m).row(m.name, "cloth-tuner")
        );
        if let Some(bin) = &jolt {
            let dir = work.join(format!("motion{i}"));
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            write_jolt_inputs(&dir, &settings, m).map_err(|e| format!("{}: {e}", dir.display()))?;
            println!("{}", measure(&run_jolt(bin, &dir)?, m).row(m.name, "Jolt"));
        }
        if let Some(tool) = &wasm {
            let dir = work.join(format!("motion{i}"));
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            write_jolt_inputs(&dir, &settings, m).map_err(|e| format!("{}: {e}", dir.display()))?;
            let run = run_jolt_wasm(tool, &dir, &export.files[0].contents)?;
            println!("{}", measure(&run.frames, m).row(m.name, "Jolt 5.6 (wasm)"));
        }
    }
    Ok(())
}
