//! The fabric preset file: a versioned JSON document holding a name, a description, the
//! garment it is tuned for, and every [`FabricParams`] knob (the time step included).
//!
//! ```json
//! {
//!   "format": "cloth-tuner-preset",
//!   "version": 1,
//!   "name": "Tweed",
//!   "description": "Heavy wool jacket ...",
//!   "garment": "jacket",
//!   "params": { "timestep_hz": 60.0, "iterations": 4, ... }
//! }
//! ```
//!
//! Loading never panics: every problem is a [`PresetError`] naming the file, the line and
//! column, the field and, for a value out of range, the allowed range. Unknown fields are
//! errors. Saving writes a temporary file beside the target and renames it over, so a crash or
//! a full disk never leaves a half-written preset.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sim::FabricParams;

/// The value of the `format` field.
pub const FORMAT: &str = "cloth-tuner-preset";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;

/// Which garment a preset is tuned for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Garment {
    /// An open jacket, lower part simulated from the chest to mid-thigh.
    #[default]
    Jacket,
    /// The same jacket with a hood on a pendulum.
    HoodedJacket,
}

impl Garment {
    /// Every garment.
    pub const ALL: [Garment; 2] = [Garment::Jacket, Garment::HoodedJacket];

    /// The name used in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Garment::Jacket => "jacket",
            Garment::HoodedJacket => "hooded_jacket",
        }
    }
}

/// A fabric preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`] once loaded.
    pub version: u32,
    /// A short name for menus ("Tweed").
    pub name: String,
    /// What the fabric is and how it should move.
    #[serde(default)]
    pub description: String,
    /// The garment the fabric is tuned on.
    #[serde(default)]
    pub garment: Garment,
    /// Every knob.
    #[serde(default)]
    pub params: FabricParams,
}

impl Default for Preset {
    fn default() -> Self {
        Self::new("Untitled", FabricParams::default())
    }
}

/// Where in a file a problem is (1-based), when known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Location {
    pub line: usize,
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
        path: PathBuf,
        action: &'static str,
        source: std::io::Error,
    },
    /// Not valid JSON.
    #[error("{}:{at}: not valid JSON: {message}", .path.display())]
    Syntax {
        path: PathBuf,
        at: Location,
        message: String,
    },
    /// Valid JSON, but not a cloth-tuner preset.
    #[error("{}: not a cloth-tuner preset ({found}); expected \"format\": \"cloth-tuner-preset\"", .path.display())]
    NotAPreset { path: PathBuf, found: String },
    /// Written by a newer cloth-tuner.
    #[error(
        "{}: preset format version {found} is newer than this cloth-tuner reads (version {supported}); update cloth-tuner",
        .path.display()
    )]
    NewerVersion {
        path: PathBuf,
        found: u64,
        supported: u32,
    },
    /// A field has the wrong type, is unknown, or is missing.
    #[error("{}:{at}: field `{field}`: {message}", .path.display())]
    Field {
        path: PathBuf,
        at: Location,
        field: String,
        message: String,
    },
    /// A value outside its allowed range (or NaN / infinite).
    #[error("{}:{at}: field `{field}`: {value} is out of range; allowed {range}", .path.display())]
    OutOfRange {
        path: PathBuf,
        at: Location,
        field: String,
        value: f64,
        range: String,
    },
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
            params,
        }
    }

    /// Reads and validates a preset file.
    pub fn load(path: impl AsRef<Path>) -> Result<Preset, PresetError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| PresetError::Io {
            path: path.to_path_buf(),
            action: "cannot read",
            source,
        })?;
        let text = match std::str::from_utf8(&bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = location_of_offset(&bytes, e.valid_up_to());
                return Err(PresetError::Syntax {
                    path: path.to_path_buf(),
                    at,
                    message: "the file is not UTF-8 text".to_string(),
                });
            }
        };
        Self::from_json(text, path)
    }

    /// Parses and validates preset text; `path` is only used in messages.
    pub fn from_json(text: &str, path: &Path) -> Result<Preset, PresetError> {
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
        if let Some(v) = obj.get("version").and_then(|v| v.as_u64()) {
            if v > VERSION as u64 {
                return Err(PresetError::NewerVersion {
                    path: p(),
                    found: v,
                    supported: VERSION,
                });
            }
        }
        let de = &mut serde_json::Deserializer::from_str(text);
        let preset: Preset = serde_path_to_error::deserialize(de).map_err(|e| {
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
        if let Some((spec, value)) = preset.params.out_of_range().first() {
            return Err(PresetError::OutOfRange {
                path: p(),
                at: locate_key(text, &["params"], spec.name),
                field: format!("params.{}", spec.name),
                value: *value,
                range: spec.range_text(),
            });
        }
        Ok(preset)
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
        Self::from_json(&self.to_json(), path).map(|_| ())
    }

    /// Writes the preset atomically: a temporary file in the same folder, flushed to disk, then
    /// renamed over `path`. An invalid preset is refused before anything is written. On any
    /// failure the file on disk is what it was before.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), PresetError> {
        let path = path.as_ref();
        self.validate(path)?;
        write_atomic(path, self.to_json().as_bytes())
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PresetError> {
    let io = |action: &'static str| {
        let path = path.to_path_buf();
        move |source| PresetError::Io {
            path,
            action,
            source,
        }
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".cloth-tuner-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io("cannot create a temporary file in its folder"))?;
    tmp.write_all(bytes).map_err(io("cannot write"))?;
    tmp.as_file()
        .sync_all()
        .map_err(io("cannot flush to disk"))?;
    tmp.persist(path).map_err(|e| PresetError::Io {
        path: path.to_path_buf(),
        action: "cannot replace",
        source: e.error,
    })?;
    Ok(())
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
