//! The fabric preset file: a versioned JSON document holding a name, a description, the
//! garment it is tuned for, how the fabric looks ([`Look`]) and every [`FabricParams`] knob
//! (the time step included).
//!
//! ```json
//! {
//!   "format": "cloth-tuner-preset",
//!   "version": 2,
//!   "name": "Tweed",
//!   "description": "Heavy wool jacket ...",
//!   "garment": "jacket",
//!   "look": { "pattern": "woven", "colour": "#8e6442", "sheerness": 0.0 },
//!   "params": { "timestep_hz": 60.0, "iterations": 2, "substeps": 2, ... }
//! }
//! ```
//!
//! Older versions are migrated on load (see [`migrate`]); a file from a newer version is refused
//! with a message naming both versions. The full reference, with the solver's formulas, is
//! `docs/preset-format.md`; the JSON Schema is `presets/schema.json` (see `schema`, behind
//! the `schema` feature). [`convert`] rewrites a preset for another time step.
//!
//! ```
//! use cloth_tuner::preset::Preset;
//!
//! let text = r#"{ "format": "cloth-tuner-preset", "version": 2, "name": "Bare",
//!                 "params": { "damping": 0.05 } }"#;
//! let preset = Preset::from_json(text, "bare.json".as_ref())?;
//! assert_eq!(preset.params.damping, 0.05);
//! assert_eq!(preset.params.iterations, 4); // missing knobs take their defaults
//!
//! let bad = text.replace("0.05", "1.5");
//! let e = Preset::from_json(&bad, "bare.json".as_ref()).unwrap_err();
//! assert_eq!(e.field(), Some("params.damping"));
//! assert!(e.to_string().contains("allowed 0 to 1 per step"));
//! # Ok::<(), cloth_tuner::preset::PresetError>(())
//! ```
//!
//! Loading never panics: every problem is a [`PresetError`] naming the file, the line and
//! column, the field and, for a value out of range, the allowed range. Unknown fields are
//! errors. Saving writes a temporary file beside the target and renames it over, so a crash or
//! a full disk never leaves a half-written preset.

// The engine-facing API: every public item is documented.
#![warn(missing_docs)]

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::files::{write_atomic, WriteError};
use crate::sim::{FabricParams, FoldLine};

pub mod convert;
pub mod look;
pub mod max_distance_map;
pub mod migrate;
#[cfg(feature = "schema")]
pub mod schema;

pub use convert::{convert_params, convert_preset, retimed, Change, Conversion, ConvertError};
pub use look::{Colour, Look, Pattern};
pub use max_distance_map::{MapProblem, MaxDistanceMap};

/// The value of the `format` field.
pub const FORMAT: &str = "cloth-tuner-preset";
/// The format version this build reads and writes.
pub const VERSION: u32 = 2;

/// Which garment a preset is tuned for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Garment {
    /// An open jacket, lower part simulated from the chest to mid-thigh.
    #[default]
    Jacket,
    /// The same jacket with a hood on a pendulum.
    HoodedJacket,
    /// A veil worn on the head: a band pinned around the crown, the cloth falling over the
    /// face and the shoulders (the body wears nothing else).
    Veil,
    /// A skirt: a closed tube pinned around the waist, hanging to about the knee over the
    /// hips and the legs (the body wears nothing else).
    Skirt,
}

impl Garment {
    /// Every garment.
    pub const ALL: [Garment; 4] = [
        Garment::Jacket,
        Garment::HoodedJacket,
        Garment::Veil,
        Garment::Skirt,
    ];

    /// The name used in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Garment::Jacket => "jacket",
            Garment::HoodedJacket => "hooded_jacket",
            Garment::Veil => "veil",
            Garment::Skirt => "skirt",
        }
    }

    /// The simulation grid the garment is built on, (columns, rows): what fold lines are
    /// checked against (the jacket rig's default layout is this size).
    pub fn grid(self) -> (usize, usize) {
        match self {
            Garment::Jacket | Garment::HoodedJacket | Garment::Veil | Garment::Skirt => (17, 10),
        }
    }
}

/// A fabric preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schema",
    schemars(title = "cloth-tuner fabric preset", transform = schema::preset_constants)
)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    /// Always `"cloth-tuner-preset"` ([`FORMAT`]).
    pub format: String,
    /// The format version: always [`VERSION`] once loaded (older files are migrated).
    pub version: u32,
    /// A short name for menus ("Tweed").
    pub name: String,
    /// What the fabric is and how it should move.
    #[serde(default)]
    pub description: String,
    /// The garment the fabric is tuned on.
    #[serde(default)]
    pub garment: Garment,
    /// The time step (Hz, 15 to 240) of the preset this one was converted from with
    /// `cloth-tuner export --timestep-hz`; absent for a preset tuned at its own step. Only a
    /// record: the simulation reads `params.timestep_hz`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub converted_from_hz: Option<f32>,
    /// How the fabric looks in the tuner and in pictures (no effect on the simulation).
    #[serde(default)]
    pub look: Look,
    /// Every knob.
    #[serde(default)]
    pub params: FabricParams,
    /// The max distance painted per particle ([`MaxDistanceMap`]); absent: the curve
    /// everywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_distance_map: Option<MaxDistanceMap>,
    /// Rows or columns of the garment's simulation grid with no bend links across them, so the
    /// fabric folds there (an inner row 1 to rows - 2 or column 1 to cols - 2 of
    /// [`Garment::grid`]). Absent: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fold_lines: Vec<FoldLine>,
}

impl Default for Preset {
    fn default() -> Self {
        Self::new("Untitled", FabricParams::default())
    }
}

/// Where in a file a problem is (1-based), when known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// Line, from 1.
    pub line: usize,
    /// Column (in bytes), from 1.
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Why a preset could not be loaded or saved. Every message starts with the file.
#[derive(Debug, thiserror::Error)]
pub enum PresetError {
    /// The file could not be read or written.
    #[error("{}: {action}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done ("cannot read").
        action: &'static str,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// Not valid JSON.
    #[error("{}:{at}: not valid JSON: {message}", .path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// Where in the file.
        at: Location,
        /// What is wrong.
        message: String,
    },
    /// Valid JSON, but not a cloth-tuner preset.
    #[error("{}: not a cloth-tuner preset ({found}); expected \"format\": \"cloth-tuner-preset\"", .path.display())]
    NotAPreset {
        /// The file.
        path: PathBuf,
        /// What the file holds instead.
        found: String,
    },
    /// Written by a newer cloth-tuner.
    #[error(
        "{}: preset format version {found} is newer than this cloth-tuner reads (version {supported}); update cloth-tuner",
        .path.display()
    )]
    NewerVersion {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u64,
        /// The newest version this build reads.
        supported: u32,
    },
    /// A field has the wrong type, is unknown, or is missing.
    #[error("{}:{at}: field `{field}`: {message}", .path.display())]
    Field {
        /// The file.
        path: PathBuf,
        /// Where in the file.
        at: Location,
        /// The field, as a path (`params.damping`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A value outside its allowed range (or NaN / infinite).
    #[error("{}:{at}: field `{field}`: {value} is out of range; allowed {range}", .path.display())]
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// Where in the file.
        at: Location,
        /// The field, as a path (`params.damping`).
        field: String,
        /// The value found.
        value: f64,
        /// The allowed range, with unit.
        range: String,
    },
}

impl From<WriteError> for PresetError {
    fn from(e: WriteError) -> Self {
        PresetError::Io {
            path: e.path,
            action: e.action,
            source: e.source,
        }
    }
}

impl PresetError {
    /// The field the error is about, when there is one (`params.damping`).
    pub fn field(&self) -> Option<&str> {
        match self {
            PresetError::Field { field, .. } | PresetError::OutOfRange { field, .. } => Some(field),
            _ => None,
        }
    }

    /// Where in the file, when known.
    pub fn location(&self) -> Option<Location> {
        match self {
            PresetError::Syntax { at, .. }
            | PresetError::Field { at, .. }
            | PresetError::OutOfRange { at, .. } => Some(*at),
            _ => None,
        }
    }
}

impl Preset {
    /// A preset for the jacket with the given name and knobs.
    pub fn new(name: &str, params: FabricParams) -> Self {
        Self {
            format: FORMAT.to_string(),
            version: VERSION,
            name: name.to_string(),
            description: String::new(),
            garment: Garment::Jacket,
            look: Look::default(),
            converted_from_hz: None,
            params,
            max_distance_map: None,
            fold_lines: Vec::new(),
        }
    }

    /// Reads and validates a preset file.
    pub fn load(path: impl AsRef<Path>) -> Result<Preset, PresetError> {
        Self::load_versioned(path).map(|(preset, _)| preset)
    }

    /// Parses and validates preset text; `path` is only used in messages. A file of an older
    /// format version is migrated (see [`migrate`]).
    pub fn from_json(text: &str, path: &Path) -> Result<Preset, PresetError> {
        Self::from_json_versioned(text, path).map(|(preset, _)| preset)
    }

    /// Reads and validates a preset file like [`Preset::load`], and also returns the format
    /// version the file was written in (less than [`VERSION`] when it was migrated).
    pub fn load_versioned(path: impl AsRef<Path>) -> Result<(Preset, u32), PresetError> {
        let path = path.as_ref();
        let text = read_text(path)?;
        Self::from_json_versioned(&text, path)
    }

    /// Like [`Preset::from_json`], and also returns the format version of the text.
    pub fn from_json_versioned(text: &str, path: &Path) -> Result<(Preset, u32), PresetError> {
        let p = || path.to_path_buf();
        // First as a plain value: so a file that is not a preset, or one from a newer version,
        // gets that message rather than a complaint about some field.
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| PresetError::Syntax {
                path: p(),
                at: Location {
                    line: e.line(),
                    column: e.column(),
                },
                message: strip_position(&e.to_string()),
            })?;
        let Some(obj) = value.as_object() else {
            return Err(PresetError::NotAPreset {
                path: p(),
                found: format!("the top level is {}, not an object", json_kind(&value)),
            });
        };
        match obj.get("format") {
            Some(serde_json::Value::String(f)) if f == FORMAT => {}
            Some(other) => {
                return Err(PresetError::NotAPreset {
                    path: p(),
                    found: format!("\"format\" is {other}"),
                })
            }
            None => {
                return Err(PresetError::NotAPreset {
                    path: p(),
                    found: "no \"format\" field".to_string(),
                })
            }
        }
        let file_version = obj.get("version").and_then(|v| v.as_u64());
        if let Some(v) = file_version {
            if v > VERSION as u64 {
                return Err(PresetError::NewerVersion {
                    path: p(),
                    found: v,
                    supported: VERSION,
                });
            }
        }
        if let Some(from) = file_version.filter(|&v| v < VERSION as u64) {
            // An older version: migrate the document, then read it as this version. Positions
            // in messages point at the old field in the original text.
            let from = from as u32;
            let stem = path.file_stem().map(|s| s.to_string_lossy().to_string());
            let migrated = migrate::migrate(value, from, stem.as_deref().unwrap_or_default())
                .map_err(|e| PresetError::Field {
                    path: p(),
                    at: locate_path(text, &e.location),
                    field: e.field,
                    message: e.message,
                })?;
            let locate = |field: &str| locate_path(text, &migrate::source_path(from, field));
            let had_hood_damping = has_param(&migrated, "hood_damping");
            let mut preset: Preset = serde_path_to_error::deserialize(migrated).map_err(|e| {
                let field = e.path().to_string();
                PresetError::Field {
                    path: p(),
                    at: locate(&field),
                    message: format!(
                        "{} (in a version {from} preset, after migrating it to version {VERSION})",
                        strip_position(&e.into_inner().to_string())
                    ),
                    field,
                }
            })?;
            if !had_hood_damping {
                preset.params.hood_damping = preset.params.damping;
            }
            preset.check_ranges(path, locate)?;
            return Ok((preset, from));
        }
        let de = &mut serde_json::Deserializer::from_str(text);
        let mut preset: Preset = serde_path_to_error::deserialize(de).map_err(|e| {
            let field = e.path().to_string();
            let inner = e.into_inner();
            PresetError::Field {
                path: p(),
                at: Location {
                    line: inner.line(),
                    column: inner.column(),
                },
                field,
                message: strip_position(&inner.to_string()),
            }
        })?;
        // Before the hood had its own damping it used the cloth's: a file without the knob
        // keeps that (migrate.rs, "Knobs added within version 2").
        if !has_param(&value, "hood_damping") {
            preset.params.hood_damping = preset.params.damping;
        }
        if preset.version != VERSION {
            return Err(PresetError::Field {
                path: p(),
                at: locate_key(text, &[], "version"),
                field: "version".to_string(),
                message: format!(
                    "version {} is not one this cloth-tuner reads (it reads {VERSION})",
                    preset.version
                ),
            });
        }
        preset.check_ranges(path, |field| {
            let mut parts: Vec<&str> = field.split('.').collect();
            let key = parts.pop().unwrap_or_default();
            locate_key(text, &parts, key)
        })?;
        Ok((preset, VERSION))
    }

    /// Every value in its range: the knobs, and the time step a conversion was made from.
    fn check_ranges(
        &self,
        path: &Path,
        locate: impl Fn(&str) -> Location,
    ) -> Result<(), PresetError> {
        if let Some((spec, value)) = self.params.out_of_range().first() {
            let field = format!("params.{}", spec.name);
            return Err(PresetError::OutOfRange {
                path: path.to_path_buf(),
                at: locate(&field),
                field,
                value: *value,
                range: spec.range_text(),
            });
        }
        if !self.look.in_range() {
            let field = "look.sheerness".to_string();
            return Err(PresetError::OutOfRange {
                path: path.to_path_buf(),
                at: locate(&field),
                field,
                value: self.look.sheerness as f64,
                range: Look::SHEERNESS_RANGE.to_string(),
            });
        }
        self.check_map(path, &locate)?;
        let (cols, rows) = self.garment.grid();
        for (k, line) in self.fold_lines.iter().enumerate() {
            if line.check(cols, rows).is_err() {
                let field = format!("fold_lines[{k}].index");
                return Err(PresetError::OutOfRange {
                    path: path.to_path_buf(),
                    at: locate("fold_lines"),
                    field,
                    value: line.index as f64,
                    range: crate::sim::fold::allowed_text(line.axis, cols, rows),
                });
            }
        }
        if let Some(hz) = self.converted_from_hz {
            let spec = FabricParams::spec("timestep_hz").unwrap_or(&FabricParams::SPECS[0]);
            if !spec.accepts(hz as f64) {
                let field = "converted_from_hz".to_string();
                return Err(PresetError::OutOfRange {
                    path: path.to_path_buf(),
                    at: locate(&field),
                    field,
                    value: hz as f64,
                    range: spec.range_text(),
                });
            }
        }
        Ok(())
    }

    /// The painted max distances, when there are any: a grid of 2 to 1000 a side, one entry
    /// per particle, each 0 to the knobs' top or null.
    fn check_map(&self, path: &Path, locate: impl Fn(&str) -> Location) -> Result<(), PresetError> {
        let Some(problem) = self
            .max_distance_map
            .as_ref()
            .and_then(MaxDistanceMap::problem)
        else {
            return Ok(());
        };
        let path = path.to_path_buf();
        Err(match problem {
            MapProblem::Side { field, value } => {
                let field = format!("max_distance_map.{field}");
                PresetError::OutOfRange {
                    path,
                    at: locate(&field),
                    field,
                    value: value as f64,
                    range: format!(
                        "{} to {} particles",
                        max_distance_map::GRID_SIDE.start(),
                        max_distance_map::GRID_SIDE.end()
                    ),
                }
            }
            MapProblem::Length { found, expected } => PresetError::Field {
                path,
                at: locate("max_distance_map.metres"),
                field: "max_distance_map.metres".to_string(),
                message: format!(
                    "{found} entries; the map's grid needs {expected} (cols x rows, one per \
                     particle, row-major)"
                ),
            },
            MapProblem::Value { index, value } => PresetError::OutOfRange {
                path,
                at: locate("max_distance_map.metres"),
                field: format!("max_distance_map.metres[{index}]"),
                // As written in the file (0.01, not the f32's widening 0.0099999997...).
                value: value.to_string().parse().unwrap_or(value as f64),
                range: MaxDistanceMap::range_text(),
            },
        })
    }

    /// Refuses a painted map made for another grid than the garment's `cols` x `rows` (the
    /// scene's), naming the file and the field.
    pub fn check_map_grid(&self, path: &Path, cols: usize, rows: usize) -> Result<(), PresetError> {
        match self
            .max_distance_map
            .as_ref()
            .and_then(|m| m.grid_mismatch(cols, rows))
        {
            None => Ok(()),
            Some(message) => Err(PresetError::Field {
                path: path.to_path_buf(),
                at: Location { line: 1, column: 1 },
                field: "max_distance_map".to_string(),
                message,
            }),
        }
    }

    /// The canonical text of the preset: pretty JSON with a trailing newline. Shipped presets
    /// are stored exactly like this, so load-then-save is byte-for-byte.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Checks the preset as [`Preset::load`] would, without a file.
    pub fn validate(&self, path: &Path) -> Result<(), PresetError> {
        // Before the text: JSON has no NaN, a painted NaN would be written as `null`.
        self.check_map(path, |_| Location { line: 1, column: 1 })?;
        Self::from_json(&self.to_json(), path).map(|_| ())
    }

    /// Writes the preset atomically: a temporary file in the same folder, flushed to disk, then
    /// renamed over `path`. An invalid preset is refused before anything is written, and so is
    /// a read-only file (the rename would replace it, root or not: a version-control checkout
    /// marks files read-only on purpose). On any failure the file on disk is what it was before.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), PresetError> {
        let path = path.as_ref();
        self.validate(path)?;
        if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().readonly()) {
            return Err(PresetError::Io {
                path: path.to_path_buf(),
                action: "cannot replace a read-only file",
                source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            });
        }
        Ok(write_atomic(path, self.to_json().as_bytes())?)
    }
}

/// True when the document's `params` holds the field `name`.
fn has_param(doc: &serde_json::Value, name: &str) -> bool {
    doc.get("params").and_then(|p| p.get(name)).is_some()
}

/// The file's text, or an error naming it.
fn read_text(path: &Path) -> Result<String, PresetError> {
    let bytes = std::fs::read(path).map_err(|source| PresetError::Io {
        path: path.to_path_buf(),
        action: "cannot read",
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = location_of_offset(e.as_bytes(), e.utf8_error().valid_up_to());
        PresetError::Syntax {
            path: path.to_path_buf(),
            at,
            message: "the file is not UTF-8 text".to_string(),
        }
    })
}

/// Where the value at a key path (`["params", "damping"]`) starts; 1:1 when not found.
fn locate_path(text: &str, path: &[String]) -> Location {
    match path.split_last() {
        Some((key, parents)) => {
            let parents: Vec<&str> = parents.iter().map(String::as_str).collect();
            locate_key(text, &parents, key)
        }
        None => Location { line: 1, column: 1 },
    }
}

/// serde_json appends " at line L column C"; the location is reported separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

fn location_of_offset(bytes: &[u8], offset: usize) -> Location {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    Location { line, column }
}

/// Where the value of `"key"` starts, looking inside the objects named by `parents` in turn.
/// A best effort for messages: falls back to the start of the file.
fn locate_key(text: &str, parents: &[&str], key: &str) -> Location {
    let mut from = 0;
    for parent in parents {
        if let Some(i) = text[from..].find(&format!("\"{parent}\"")) {
            from += i;
        }
    }
    let needle = format!("\"{key}\"");
    let Some(i) = text[from..].find(&needle) else {
        return Location { line: 1, column: 1 };
    };
    let mut at = from + i + needle.len();
    // Past the colon and spaces to the value.
    let rest = &text.as_bytes()[at..];
    at += rest
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b':'))
        .unwrap_or(0);
    location_of_offset(text.as_bytes(), at)
}

#[cfg(test)]
mod tests;
