//! `cloth-tuner export` and `cloth-tuner schema`: take a preset to an engine, as our own JSON
//! or as an engine's settings (see [`crate::export`]), or the garment rigged with its cloth
//! bones as glTF ([`crate::export::rigged`]).

use std::path::Path;

use anyhow::Context;

use super::CharacterArgs;
use crate::export::baked::{frame_count, write_baked, BakeSettings};
use crate::export::rigged::write_rigged;
use crate::export::vertices::MeshVertices;
use crate::export::{export_for_engine, export_for_garment, Engine, GridSize};
use crate::garment::{dress, fitted_layout, Garment};
use crate::preset::{convert_preset, Preset};
use crate::scene::Outfit;

/// `export --rig`: the garment `character` names (or the preset's template) on that
/// character, rigged, written atomically to `out`. Returns the report.
pub fn export_rig(preset: &Path, character: &CharacterArgs, out: &Path) -> anyhow::Result<String> {
    let fabric = Preset::load(preset)?;
    let (body, outfit) = character.load_outfit()?;
    let template;
    let garment: &dyn Garment = match &outfit {
        Outfit::Garment(g) => g.as_ref(),
        Outfit::Template => {
            let layout = fitted_layout(&body, fabric.garment);
            template = dress(&body, fabric.garment, &layout)
                .with_context(|| format!("{:?} on this character", fabric.garment))?;
            template.as_ref()
        }
    };
    let rigged = write_rigged(out, &body, garment, &fabric)
        .with_context(|| format!("--rig {}", out.display()))?;
    let topo = &garment.rig().topology;
    Ok(format!(
        "{} -> {} (rigged garment `{}`: {} x {} grid, {} cloth bones, {} joints, {} garment and \
         {} body vertices)\n",
        preset.display(),
        out.display(),
        rigged.garment,
        topo.cols,
        topo.rows,
        rigged.cloth_bones,
        rigged.joints,
        rigged.garment_vertices,
        rigged.body_vertices,
    ))
}

/// `bake`: the clips of `settings` baked onto the rigged garment, written atomically to
/// `out`, with a progress bar unless `quiet`. Returns the report: the file and a table of
/// each clip's error against the live simulation.
pub fn bake(
    preset: &Path,
    character: &CharacterArgs,
    settings: &BakeSettings,
    out: &Path,
    quiet: bool,
) -> anyhow::Result<String> {
    let fabric = Preset::load(preset)?;
    let (body, outfit) = character.load_outfit()?;
    let frames = frame_count(&fabric, settings.seconds)?;
    let bar = super::progress_bar_of(frames * settings.clips.len(), "frames", quiet);
    let baked = write_baked(out, &body, &outfit, &fabric, settings, &|n| bar.inc(n))
        .with_context(|| format!("bake --out {}", out.display()))?;
    bar.finish_and_clear();
    let mut text = format!(
        "{} -> {} (baked clips on the rigged garment `{}`: {} joints, {} clips, tolerance \
         {} mm)\n{:<16} {:>7} {:>9} {:>8} {:>8}\n",
        preset.display(),
        out.display(),
        baked.rigged.garment,
        baked.rigged.joints,
        baked.clips.len(),
        settings.tolerance_mm,
        "clip",
        "frames",
        "keys %",
        "max mm",
        "rms mm",
    );
    for c in &baked.clips {
        text += &format!(
            "{:<16} {:>7} {:>9.1} {:>8.3} {:>8.3}\n",
            c.clip,
            c.frames,
            100.0 * c.keys as f64 / c.all_keys.max(1) as f64,
            c.max_mm,
            c.rms_mm
        );
    }
    Ok(text)
}

/// The character options are for `--rig` and `--engine`: refuses them on a preset export.
pub fn refuse_character(character: &CharacterArgs) -> anyhow::Result<()> {
    let CharacterArgs {
        character,
        bone_map,
        garment_mesh,
        garment,
    } = character;
    if character.is_some() || bone_map.is_some() || garment_mesh.is_some() || garment.is_some() {
        anyhow::bail!(
            "--character, --bone-map, --garment and --garment-mesh are for `export --rig` and \
             `export --engine`; a preset export does not depend on the character"
        );
    }
    Ok(())
}

/// Loads `preset`, converts it to `timestep_hz` when given, and saves it atomically to `out`.
/// Returns the report printed for the user.
pub fn export(preset: &Path, timestep_hz: Option<f64>, out: &Path) -> anyhow::Result<String> {
    let original = Preset::load(preset)?;
    let from_hz = original.params.timestep_hz;
    let (exported, changes) = match timestep_hz {
        None => (original, Vec::new()),
        Some(hz) => convert_preset(&original, rate_f32(hz)?)
            .with_context(|| format!("--timestep-hz {hz}: cannot convert {}", preset.display()))?,
    };
    exported.save(out)?;
    let to_hz = exported.params.timestep_hz;
    let mut report = format!(
        "{} ({from_hz} Hz) -> {} ({to_hz} Hz)\n",
        preset.display(),
        out.display()
    );
    if changes.is_empty() {
        report.push_str("  no time-step-dependent knob changed\n");
    }
    for c in changes.iter().filter(|c| c.field != "timestep_hz") {
        report.push_str(&format!(
            "  {:<22} {} -> {}\n",
            c.field, c.from as f32, c.to as f32
        ));
    }
    Ok(report)
}

/// What an engine export's per-particle arrays are for: `--grid`, and the character options
/// (the garment they name, or the template on their character).
pub struct EngineTarget<'a> {
    /// `--grid COLSxROWS[@SPACING]`, for a template.
    pub grid: Option<&'a str>,
    /// `--character`, `--bone-map`, `--garment`, `--garment-mesh`.
    pub character: &'a CharacterArgs,
}

/// `export --engine`: the engine's settings at `out`, the per-particle table and any C++
/// snippet beside it (same name, their own extension), each written atomically; with the
/// artist's garment, the per-particle arrays over its mesh's vertices. Returns the report: the
/// files and every warning.
pub fn export_engine(
    engine: &str,
    target: &EngineTarget,
    preset: &Path,
    timestep_hz: Option<f64>,
    out: &Path,
) -> anyhow::Result<String> {
    let engine = Engine::from_name(engine).context("--engine")?;
    let original = Preset::load(preset)?;
    let (grid, mesh) = engine_grid(target, &original)?;
    let hz = timestep_hz.map(rate_f32).transpose()?;
    let result = match &mesh {
        None => export_for_engine(engine, &original, hz, grid),
        Some(mesh) => export_for_garment(engine, &original, hz, grid, mesh),
    };
    let result = result.with_context(|| {
        let rate = timestep_hz
            .map(|h| format!(" --timestep-hz {h}:"))
            .unwrap_or_default();
        format!("{rate} cannot export {} for {engine}", preset.display())
    })?;
    let on = match &mesh {
        None => String::new(),
        Some(m) => format!("garment `{}`: {} vertices on a ", m.name, m.len()),
    };
    let mut report = format!(
        "{} -> {engine} ({}, {on}{} x {} grid, {:.3} m², {:.3} kg)\n",
        preset.display(),
        engine.info().version,
        grid.cols,
        grid.rows,
        grid.area_m2,
        crate::sim::mass::total_mass_kg(&original.params, grid.area_m2 as f64),
    );
    for path in result.write(out)? {
        report.push_str(&format!("  wrote {}\n", path.display()));
    }
    for w in &result.warnings {
        report.push_str(&format!("  warning: {w}\n"));
    }
    Ok(report)
}

/// The grid an engine export is for and, for the artist's garment, its mesh's vertices: the
/// garment the character options name on its own grid; else `--grid`, else the preset's
/// template on the character (the built-in one when none is named).
fn engine_grid(
    target: &EngineTarget,
    preset: &Preset,
) -> anyhow::Result<(GridSize, Option<MeshVertices>)> {
    let given = target
        .grid
        .map(|text| GridSize::parse(text).map_err(|e| anyhow::anyhow!("--grid: {e}")))
        .transpose()?;
    let args = target.character;
    if *args == CharacterArgs::default() {
        let grid = given.unwrap_or_else(|| crate::garment::builtin_grid(preset.garment));
        return Ok((grid, None));
    }
    if given.is_some() && (args.garment.is_some() || args.garment_mesh.is_some()) {
        anyhow::bail!(
            "--grid is for a template garment: the garment --garment or --garment-mesh names \
             has its per-vertex data on its own vertices, from the grid found on it"
        );
    }
    let (body, outfit) = args.load_outfit()?;
    match (&outfit, given) {
        (Outfit::Garment(g), _) => {
            let grid = GridSize::of_topology(&g.rig().topology);
            Ok((grid, MeshVertices::of_worn(g.as_ref())))
        }
        (Outfit::Template, Some(grid)) => Ok((grid, None)),
        (Outfit::Template, None) => {
            let layout = fitted_layout(&body, preset.garment);
            let template = dress(&body, preset.garment, &layout)
                .with_context(|| format!("{:?} on this character", preset.garment))?;
            Ok((GridSize::of_topology(&template.rig().topology), None))
        }
    }
}

/// The rate as the `f32` the preset holds; a rate the `f32` only rounds to is refused rather
/// than silently changed.
fn rate_f32(hz: f64) -> anyhow::Result<f32> {
    let r = hz as f32;
    if r.is_finite() && (r as f64 - hz).abs() > 1e-3 * hz.abs().max(1.0) {
        anyhow::bail!("--timestep-hz {hz}: not a representable time step");
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_converts_records_and_saves() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("tweed_30hz.json");
        let report = export(Path::new("presets/tweed.json"), Some(30.0), &out).unwrap();
        assert!(report.contains("(60 Hz) ->"), "{report}");
        // Half the rate: the tuned 120 Hz solver (60 Hz x 2) as four substeps, the per-step
        // knobs as they are.
        assert!(report.contains("substeps               2 -> 4"), "{report}");
        assert!(!report.contains("iterations"), "{report}");
        let p = Preset::load(&out).unwrap();
        assert_eq!(p.params.timestep_hz, 30.0);
        assert_eq!((p.params.substeps, p.params.iterations), (4, 2));
        assert_eq!(p.converted_from_hz, Some(60.0));
        // Twice the rate: the same solver, one substep.
        let report = export(Path::new("presets/tweed.json"), Some(120.0), &out).unwrap();
        assert!(report.contains("substeps               2 -> 1"), "{report}");
        assert!(!report.contains("damping"), "{report}");
        // A rate that does not divide the solver's rewrites the per-step knobs.
        let report = export(Path::new("presets/tweed.json"), Some(90.0), &out).unwrap();
        assert!(report.contains("iterations"), "{report}");
        assert!(report.contains("damping"), "{report}");
        // Without a rate: the preset as it is, canonical.
        let same = dir.path().join("tweed.json");
        export(Path::new("presets/tweed.json"), None, &same).unwrap();
        assert_eq!(
            std::fs::read_to_string(&same).unwrap(),
            std::fs::read_to_string("presets/tweed.json").unwrap()
        );
    }

    #[test]
    fn export_errors_name_the_file_the_flag_and_the_range() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.json");
        let e = export(Path::new("presets/tweed.json"), Some(300.0), &out).unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains("--timestep-hz 300"), "{msg}");
        assert!(msg.contains("allowed 15 to 240 Hz"), "{msg}");
        assert!(!out.exists());
        let missing = dir.path().join("no/such/folder/x.json");
        let e = export(Path::new("presets/tweed.json"), Some(30.0), &missing).unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains("no/such/folder/x.json"), "{msg}");
        assert!(msg.contains("cannot create a temporary file"), "{msg}");
        let e = export(Path::new("presets/none.json"), Some(30.0), &out).unwrap_err();
        assert!(
            format!("{e:#}").contains("presets/none.json: cannot read"),
            "{e:#}"
        );
    }
}
