//! Fabric presets into the engines artists ship with: Unity's Cloth, Unreal's Chaos Cloth,
//! Jolt's soft bodies, NvCloth and Magica Cloth 2. Each engine is one file with its property
//! names (checked against the engine's headers or docs; the list with source and version is
//! `engine_properties.json`), its mapping from our knobs (the formulas are in [`units`]) and
//! its "does not map" table. A layer above [`crate::preset`]: it reads a preset and never
//! reaches into the solver. The per-particle arrays follow a grid's particles, or, for the
//! artist's own garment (`export_for_garment`, feature `rig`), the vertices of its mesh
//! (`vertices`).
//!
//! ```
//! use cloth_tuner::export::{export_for_engine, Engine, GridSize};
//! use cloth_tuner::preset::Preset;
//!
//! let preset = Preset::default();
//! let out = export_for_engine(Engine::Jolt, &preset, Some(30.0), GridSize::panel(5, 4, 0.1))?;
//! assert!(out.files[0].contents.contains("mNumIterations"));
//! # Ok::<(), cloth_tuner::export::ExportError>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::preset::{convert_preset, ConvertError, Preset};
use crate::sim::FabricParams;

#[cfg(feature = "rig")]
pub mod baked;
mod chaos;
mod jolt;
mod magica2;
mod nvcloth;
pub mod particles;
#[cfg(feature = "rig")]
pub mod rigged;
#[cfg(feature = "rig")]
pub mod runtime;
pub mod units;
mod unity;
#[cfg(feature = "rig")]
pub mod vertices;

pub use particles::{particle_table, GridSize, Particle};

/// The engines a preset can be exported to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// Unity's Cloth component.
    Unity,
    /// Unreal Engine's Chaos Cloth.
    Chaos,
    /// Jolt Physics soft bodies.
    Jolt,
    /// NVIDIA NvCloth.
    NvCloth,
    /// Magica Cloth 2 (Unity asset).
    Magica2,
}

impl Engine {
    /// Every engine, in the order menus list them.
    pub const ALL: [Engine; 5] = [
        Engine::Unity,
        Engine::Chaos,
        Engine::Jolt,
        Engine::NvCloth,
        Engine::Magica2,
    ];

    /// The name a menu shows.
    pub fn label(self) -> &'static str {
        match self {
            Engine::Unity => "Unity (Cloth)",
            Engine::Chaos => "Unreal Engine (Chaos Cloth)",
            Engine::Jolt => "Jolt Physics (soft body)",
            Engine::NvCloth => "NvCloth",
            Engine::Magica2 => "Magica Cloth 2",
        }
    }

    /// The name on the command line and in the property list.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Unity => "unity",
            Engine::Chaos => "chaos",
            Engine::Jolt => "jolt",
            Engine::NvCloth => "nvcloth",
            Engine::Magica2 => "magica2",
        }
    }

    /// The engine called `name` (as [`Engine::name`] writes it, any case).
    pub fn from_name(name: &str) -> Result<Engine, ExportError> {
        Engine::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| ExportError::UnknownEngine(name.to_string()))
    }

    /// Where the engine's names come from and which version: its entry in
    /// `engine_properties.json`.
    pub fn info(self) -> &'static EngineInfo {
        &catalog()[self.name()]
    }

    /// What the engine cannot take from our fabric: the knob, the closest substitute, what
    /// the artist will see differ.
    pub fn does_not_map(self) -> &'static [Lost] {
        match self {
            Engine::Unity => unity::LOST,
            Engine::Chaos => chaos::LOST,
            Engine::Jolt => jolt::LOST,
            Engine::NvCloth => nvcloth::LOST,
            Engine::Magica2 => magica2::LOST,
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One engine's entry in the checked-in property list.
#[derive(Clone, Debug, Deserialize)]
pub struct EngineInfo {
    /// The engine and the classes the names belong to.
    pub engine: String,
    /// The version the names were checked against.
    pub version: String,
    /// Where they were checked.
    pub source: String,
    /// What the mapping assumes about the engine that its names do not say.
    pub assumptions: String,
    /// Every property path the export writes, with its range.
    pub properties: BTreeMap<String, PropertySpec>,
    /// The per-particle arrays, with the range of each element.
    pub per_particle: BTreeMap<String, PropertySpec>,
}

/// A property's allowed values.
#[derive(Clone, Debug, Deserialize)]
pub struct PropertySpec {
    /// `[min, max]`, or none for a name or a switch.
    pub range: Option<[f64; 2]>,
    /// The minimum itself is refused.
    #[serde(default)]
    pub exclusive_min: bool,
    /// The maximum itself is refused.
    #[serde(default)]
    pub exclusive_max: bool,
}

impl PropertySpec {
    /// True when `v` is allowed.
    pub fn accepts(&self, v: f64) -> bool {
        let Some([lo, hi]) = self.range else {
            return true;
        };
        v.is_finite()
            && (v > lo || (!self.exclusive_min && v == lo))
            && (v < hi || (!self.exclusive_max && v == hi))
    }
}

/// The property list, parsed once.
pub fn catalog() -> &'static BTreeMap<String, EngineInfo> {
    static CATALOG: OnceLock<BTreeMap<String, EngineInfo>> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let text = include_str!("engine_properties.json");
        let mut all: BTreeMap<String, Value> =
            serde_json::from_str(text).expect("engine_properties.json is valid JSON");
        all.remove("about");
        all.into_iter()
            .map(|(k, v)| {
                let info = serde_json::from_value(v).expect("engine_properties.json entries");
                (k, info)
            })
            .collect()
    })
}

/// A row of an engine's "does not map" table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lost {
    /// Our knob (a [`FabricParams`] field) or feature.
    pub knob: &'static str,
    /// The closest thing the engine has.
    pub substitute: &'static str,
    /// What the artist will see differ.
    pub differs: &'static str,
}

/// A knob the export could not carry as it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    /// Our knob.
    pub knob: &'static str,
    /// What happened to it, for a person.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// One file of an export.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportFile {
    /// The extension it takes beside the main file: "json" (the settings, the main file),
    /// "particles.csv" (the per-particle table), "cpp" (a snippet that builds the settings)
    /// or "cloth-tuner.json" (our envelope, for an engine whose settings file must hold the
    /// engine's fields alone: Magica Cloth 2).
    pub extension: &'static str,
    /// The file's text.
    pub contents: String,
}

impl ExportFile {
    /// Where this file goes when the settings are saved at `out`: `out` itself for the
    /// settings ("json"), else `out` with its extension replaced (`tweed_jolt.cpp` beside
    /// `tweed_jolt.json`).
    pub fn path_beside(&self, out: &std::path::Path) -> std::path::PathBuf {
        if self.extension == "json" {
            out.to_path_buf()
        } else {
            out.with_extension(self.extension)
        }
    }
}

impl EngineExport {
    /// The file holding our envelope (the engine's properties and per-particle arrays, the
    /// grid, the masses, the warnings): the settings file itself, or beside it for an engine
    /// whose settings file holds the engine's fields alone.
    pub fn envelope(&self) -> &ExportFile {
        self.files
            .iter()
            .find(|f| f.extension == "cloth-tuner.json")
            .unwrap_or(&self.files[0])
    }

    /// Writes every file, the settings at `out` and the others beside it
    /// ([`ExportFile::path_beside`]), each atomically. Returns the paths written, in order; on
    /// an error the files not yet written are left as they were.
    pub fn write(
        &self,
        out: &std::path::Path,
    ) -> Result<Vec<std::path::PathBuf>, crate::files::WriteError> {
        let mut written = Vec::with_capacity(self.files.len());
        for file in &self.files {
            let path = file.path_beside(out);
            crate::files::write_atomic(&path, file.contents.as_bytes())?;
            written.push(path);
        }
        Ok(written)
    }
}

/// What an engine export produced.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineExport {
    /// The engine.
    pub engine: Engine,
    /// The files, the settings JSON first.
    pub files: Vec<ExportFile>,
    /// Every knob that did not carry over as it is.
    pub warnings: Vec<Warning>,
}

/// Why an export was refused.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// No such engine.
    #[error("unknown engine `{0}`; the engines are {list}", list = engine_list())]
    UnknownEngine(String),
    /// The time step or the fabric cannot be converted.
    #[error("{0}")]
    Convert(#[from] ConvertError),
    /// The preset's painted max distances were made for another grid.
    #[error("field `max_distance_map`: {0}")]
    MaxDistanceMap(String),
    /// The grid is too small.
    #[error("a grid needs at least 2 columns and 2 rows, got {cols} x {rows}")]
    Grid {
        /// Columns given.
        cols: usize,
        /// Rows given.
        rows: usize,
    },
    /// The garment's area cannot give masses.
    #[error("the grid's `area_m2` must be a number above 0 m², got {0}")]
    Area(f32),
}

fn engine_list() -> String {
    Engine::ALL.map(Engine::name).join(", ")
}

/// The order of a garment mesh's vertices in the per-particle arrays, as the files state it.
pub const MESH_VERTEX_ORDER: &str =
    "the glTF file's vertex order: the mesh's triangle primitives in turn, each in its \
     accessors' order";

/// What every engine mapping reads: the fabric at the export's time step and its grid.
pub(crate) struct Ctx<'a> {
    /// The fabric, already converted to the export's time step.
    pub params: &'a FabricParams,
    /// Our solver rate, steps/s (`timestep_hz x substeps`).
    pub h: f64,
    /// Relaxation passes per solver step.
    pub n: u32,
    /// Every particle.
    pub table: &'a [Particle],
    /// The grid.
    pub grid: GridSize,
    /// The preset paints some particles' max distance (`table` has the painted values).
    pub painted: bool,
    /// What the per-particle arrays cover, in the engine's vertex order: `table` itself, or
    /// the vertices of the artist's garment mesh ([`vertices::vertex_table`]).
    pub vertices: &'a [Particle],
    /// The garment mesh `vertices` are, by its name; `None` when they are the grid's.
    pub mesh: Option<&'a str>,
}

impl Ctx<'_> {
    /// What a C++ snippet's first line says it was made for: the grid, or the garment mesh.
    pub fn made_for(&self) -> String {
        match self.mesh {
            None => format!(
                "a {} x {} grid (row-major, row 0 pinned)",
                self.grid.cols, self.grid.rows
            ),
            Some(name) => format!(
                "the garment mesh `{name}`: {} vertices in the glTF file's order",
                self.vertices.len()
            ),
        }
    }

    /// The mesh whose vertices the arrays follow, as a snippet's instructions name it.
    pub fn mesh_words(&self) -> &'static str {
        match self.mesh {
            None => "the grid mesh",
            Some(_) => "the garment mesh (its vertices in the glTF file's order)",
        }
    }
}

/// What one engine's mapping returns.
pub(crate) struct Mapped {
    /// The properties under the engine's own names.
    pub properties: Value,
    /// The per-particle arrays under the engine's names, in its order.
    pub per_particle: Value,
    /// A C++ snippet that builds the settings, for engines used from C++.
    pub snippet: Option<String>,
}

/// The engine's settings for `preset` at `timestep_hz` (the preset's own step when `None`,
/// converted with [`convert_preset`] otherwise) on a `grid`: the files' contents and every
/// knob that did not carry over. This is what File > Export for engine calls.
pub fn export_for_engine(
    engine: Engine,
    preset: &Preset,
    timestep_hz: Option<f32>,
    grid: GridSize,
) -> Result<EngineExport, ExportError> {
    export_over(engine, preset, timestep_hz, grid, |_, _| None)
}

/// [`export_for_engine`] for the artist's own garment: the fabric and the grid's flags as
/// there, the per-particle arrays over the vertices of the garment's mesh `mesh` in its
/// file's order ([`vertices`]), `grid` the garment's simulation grid
/// ([`GridSize::of_topology`]).
#[cfg(feature = "rig")]
pub fn export_for_garment(
    engine: Engine,
    preset: &Preset,
    timestep_hz: Option<f32>,
    grid: GridSize,
    mesh: &vertices::MeshVertices,
) -> Result<EngineExport, ExportError> {
    export_over(engine, preset, timestep_hz, grid, |table, params| {
        let rows = vertices::vertex_table(grid, table, params, mesh);
        Some((mesh.name.as_str(), rows))
    })
}

/// An export whose per-particle arrays cover what `over` returns for the grid's particle
/// table and the converted fabric (a mesh's name and its vertices' rows), else the grid.
fn export_over<'m>(
    engine: Engine,
    preset: &Preset,
    timestep_hz: Option<f32>,
    grid: GridSize,
    over: impl FnOnce(&[Particle], &FabricParams) -> Option<(&'m str, Vec<Particle>)>,
) -> Result<EngineExport, ExportError> {
    if grid.cols < 2 || grid.rows < 2 {
        return Err(ExportError::Grid {
            cols: grid.cols,
            rows: grid.rows,
        });
    }
    if !(grid.area_m2.is_finite() && grid.area_m2 > 0.0) {
        return Err(ExportError::Area(grid.area_m2));
    }
    let preset = match timestep_hz {
        Some(hz) => convert_preset(preset, hz)?.0,
        None => {
            preset.params.validate().map_err(ConvertError::from)?;
            preset.clone()
        }
    };
    let params = &preset.params;
    let painted = match &preset.max_distance_map {
        None => &[][..],
        Some(map) => match map.grid_mismatch(grid.cols, grid.rows) {
            Some(why) => return Err(ExportError::MaxDistanceMap(why)),
            None => &map.metres[..],
        },
    };
    let table = particle_table(grid, params, painted);
    let (mesh, rows) = over(&table, params).unzip();
    let ctx = Ctx {
        params,
        h: params.timestep_hz as f64 * params.substeps.max(1) as f64,
        n: params.iterations,
        table: &table,
        grid,
        painted: painted.iter().any(Option::is_some),
        vertices: rows.as_deref().unwrap_or(&table),
        mesh,
    };
    let mut warnings = lost_warnings(engine, params);
    let mapped = match engine {
        Engine::Unity => unity::map(&ctx, &mut warnings),
        Engine::Chaos => chaos::map(&ctx, &mut warnings),
        Engine::Jolt => jolt::map(&ctx, &mut warnings),
        Engine::NvCloth => nvcloth::map(&ctx, &mut warnings),
        Engine::Magica2 => magica2::map(&ctx, &mut warnings),
    };
    let mut doc = envelope(engine, &preset, &ctx, &mapped, &warnings);
    tidy_numbers(&mut doc);
    let pretty = |v: &Value| serde_json::to_string_pretty(v).expect("a JSON value prints") + "\n";
    let mut files = if engine == Engine::Magica2 {
        // FromJsonOverwrite reads ClothSerializeData's own fields at the top level.
        vec![
            ExportFile {
                extension: "json",
                contents: pretty(&doc["properties"]),
            },
            ExportFile {
                extension: "cloth-tuner.json",
                contents: pretty(&doc),
            },
        ]
    } else {
        vec![ExportFile {
            extension: "json",
            contents: pretty(&doc),
        }]
    };
    files.push(ExportFile {
        extension: "particles.csv",
        contents: particles::to_csv(ctx.vertices),
    });
    if let Some(snippet) = mapped.snippet {
        files.push(ExportFile {
            extension: "cpp",
            contents: snippet,
        });
    }
    Ok(EngineExport {
        engine,
        files,
        warnings,
    })
}

/// The settings file: where the names come from, the fabric it was made from, the engine's
/// properties and per-particle arrays, the grid's flags and the warnings.
fn envelope(engine: Engine, preset: &Preset, ctx: &Ctx, m: &Mapped, warnings: &[Warning]) -> Value {
    let info = engine.info();
    let mut doc = json!({
        "format": "cloth-tuner-engine-export",
        "engine": engine.name(),
        "engine_name": info.engine,
        "engine_version": info.version,
        "names_checked_against": info.source,
        "preset": preset.name,
        "timestep_hz": ctx.params.timestep_hz,
        "substeps": ctx.params.substeps,
        "solver_hz": ctx.h,
        "areal_density_gsm": ctx.params.areal_density_gsm,
        "area_m2": ctx.grid.area_m2,
        "total_mass_kg": ctx.table.iter().map(|q| q.mass_kg as f64).sum::<f64>(),
        "properties": m.properties,
        "per_particle": m.per_particle,
        "grid": {
            "cols": ctx.grid.cols,
            "rows": ctx.grid.rows,
            "order": "row-major: index = row * cols + col, row 0 the pinned top row",
            "pinned": ctx.table.iter().map(|p| p.pinned).collect::<Vec<_>>(),
            "edge": ctx.table.iter().map(|p| p.edge).collect::<Vec<_>>(),
        },
        "warnings": warnings.iter().map(|w| w.message.clone()).collect::<Vec<_>>(),
    });
    if let Some(name) = ctx.mesh {
        doc["mesh"] = json!({
            "name": name,
            "vertex_count": ctx.vertices.len(),
            "order": MESH_VERTEX_ORDER,
            "pinned": ctx.vertices.iter().map(|p| p.pinned).collect::<Vec<_>>(),
            "edge": ctx.vertices.iter().map(|p| p.edge).collect::<Vec<_>>(),
        });
    }
    doc
}

/// Every number as the shortest text of its `f32` (the engines read single precision), so
/// `0.2` reads 0.2 and not its `f64` widening.
fn tidy_numbers(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            let short = n
                .as_f64()
                .and_then(|x| format!("{}", x as f32).parse::<f64>().ok())
                .and_then(serde_json::Number::from_f64);
            if let Some(short) = short {
                *n = short;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy_numbers),
        Value::Object(map) => map.values_mut().for_each(tidy_numbers),
        _ => {}
    }
}

/// A warning for every row of the engine's "does not map" table whose knob is set so that
/// the difference shows, plus zero iterations, which no engine can express.
fn lost_warnings(engine: Engine, p: &FabricParams) -> Vec<Warning> {
    let mut out = Vec::new();
    if p.iterations == 0 {
        out.push(Warning {
            knob: "iterations",
            message: format!(
                "`iterations` is 0: {engine} always solves its constraints at least once a \
                 step; the export keeps the stretch and shear/bend as weak as the engine allows, \
                 but the fabric will hold its shape more than in the tuner"
            ),
        });
    }
    for lost in engine.does_not_map() {
        if knob_shows(lost.knob, p) {
            let value = p
                .get(lost.knob)
                .map(|v| format!(" = {}", v as f32))
                .unwrap_or_default();
            out.push(Warning {
                knob: lost.knob,
                message: format!(
                    "`{}`{value} does not map to {engine}: {} (exported as: {})",
                    lost.knob, lost.differs, lost.substitute
                ),
            });
        }
    }
    out
}

/// True when the knob's value would make the fabric look different from what the engine's
/// substitute gives. Rows for features rather than knobs (ellipsoids) are scene matters and
/// never warn.
fn knob_shows(knob: &str, p: &FabricParams) -> bool {
    let windy = p.wind_speed > 0.0;
    match knob {
        "edge_damping" => p.edge_damping != p.damping,
        "edge_world_motion_fraction" => p.edge_world_motion_fraction != p.world_motion_fraction,
        "world_motion_fraction" => p.world_motion_fraction != 1.0,
        "edge_wind_scale" => windy && p.edge_wind_scale != 1.0,
        "edge_max_distance_scale" => p.edge_max_distance_scale != 1.0,
        "contact_damping" => p.contact_damping != p.damping,
        "mass_falloff" => p.mass_falloff != 1.0,
        "hard_constraints" => p.hard_constraints,
        "deformation_limit" => p.deformation_limit,
        "tear_ratio" => p.tear_ratio > 0.0,
        "wind_speed" | "wind_drag" => windy,
        "gust_amplitude" | "gust_frequency" => windy && p.gust_amplitude > 0.0,
        "timestep_hz" => p.timestep_hz as f64 * p.substeps.max(1) as f64 != 90.0,
        _ => false,
    }
}

/// `value` pulled into `[lo, hi]`, with a warning naming our knob and the engine's property
/// when it had to move.
pub(crate) fn clamp_warn(
    warnings: &mut Vec<Warning>,
    knob: &'static str,
    property: &str,
    value: f64,
    lo: f64,
    hi: f64,
) -> f64 {
    let clamped = value.clamp(lo, hi);
    if clamped != value {
        warnings.push(Warning {
            knob,
            message: format!(
                "`{knob}` maps to {property} = {value}, outside the engine's {lo} to {hi}; \
                 exported as {clamped}"
            ),
        });
    }
    clamped
}

/// Writes one engine's "does not map" table as Markdown (the rows of `docs/engines.md`).
pub fn does_not_map_table(engine: Engine) -> String {
    let mut out = String::from(
        "| our knob | closest substitute | what the artist will see differ |\n|---|---|---|\n",
    );
    for l in engine.does_not_map() {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            l.knob, l.substitute, l.differs
        ));
    }
    out
}

/// The same value three times, as an engine's vector with lower-case axes.
pub(crate) fn xyz(v: f64) -> Value {
    json!({ "x": v, "y": v, "z": v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_has_a_catalog_entry() {
        for e in Engine::ALL {
            let info = e.info();
            assert!(!info.version.is_empty() && !info.source.is_empty(), "{e}");
            assert_eq!(Engine::from_name(&e.name().to_uppercase()).unwrap(), e);
        }
    }

    #[test]
    fn an_unknown_engine_lists_the_engines() {
        let e = Engine::from_name("godot").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown engine `godot`; the engines are unity, chaos, jolt, nvcloth, magica2"
        );
    }
}
