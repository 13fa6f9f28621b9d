//! The artist's garment's settings file: how the simulation grid is laid over the garment (rows,
//! columns or a target spacing, the pin line, the seam). It lives beside the file the garment
//! is in (`hero.glb` wearing `long_coat` → `hero.long_coat.cloth-garment.json`, see
//! [`GridChoice::path_beside`]) and is never written into a fabric preset: a fabric is tuned on
//! a garment, not tied to it. The format is documented in `docs/your-garment.md`, its JSON
//! Schema is `docs/garment-settings.schema.json`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Suffix of the settings file beside a garment's file.
pub const SETTINGS_SUFFIX: &str = ".cloth-garment.json";

/// The grid spacing when none is given, metres: the built-in jacket's (ten rows over 0.66 m).
pub const DEFAULT_SPACING_M: f32 = 0.0733;

/// Allowed rows from the pin line to the hem.
pub const ROWS_RANGE: (usize, usize) = (3, 80);
/// Allowed columns round the body (an even count gets one more: the grid has a middle column).
pub const COLS_RANGE: (usize, usize) = (5, 121);
/// Allowed target spacing between neighbouring particles, metres.
pub const SPACING_RANGE_M: (f32, f32) = (0.01, 0.25);
/// Allowed pin line height, metres above the character's origin.
pub const PIN_RANGE_M: (f32, f32) = (0.0, 3.0);

/// Whether the grid closes round the body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Seam {
    /// Open where the hem has a gap round the body wider than 25° (a coat's front opening),
    /// else closed (a skirt).
    #[default]
    Auto,
    /// Open at the seam: the first and last columns are the opening's two edges.
    Open,
    /// A loop: the first and last columns are one seam, welded every step.
    Closed,
}

/// How the grid is laid over an imported garment, and the settings file that keeps it. A field
/// left out is found from the garment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schema",
    schemars(title = "cloth-tuner garment settings", transform = settings_constraints)
)]
#[serde(default, deny_unknown_fields)]
pub struct GridChoice {
    /// Rows from the pin line to the hem, 3 to 80. Default: from `spacing_m`.
    pub rows: Option<usize>,
    /// Columns round the body, 5 to 121 (an even count gets one more). Default: from
    /// `spacing_m`.
    #[serde(rename = "columns")]
    pub cols: Option<usize>,
    /// Target distance between neighbouring particles, metres, 0.01 to 0.25, where `rows` or
    /// `columns` is not given. Default 0.0733 (the built-in jacket's).
    pub spacing_m: f32,
    /// Height of the pin line at rest, metres above the character's origin, 0 to 3: the cloth
    /// hangs from here; above it the garment stays on the body's bones. Default: where the
    /// garment leaves the chest and shoulders.
    pub pin_height_m: Option<f32>,
    /// Open, closed, or found from the hem. Default `auto`.
    pub seam: Seam,
    /// Where round the body the seam's middle lies, degrees, -180 to 180: 0 at the front, 90 at
    /// the character's left side, 180 at the back. Default: the middle of the opening for an
    /// open garment, the back for a closed one.
    pub seam_at_deg: Option<f32>,
}

impl Default for GridChoice {
    fn default() -> Self {
        Self {
            rows: None,
            cols: None,
            spacing_m: DEFAULT_SPACING_M,
            pin_height_m: None,
            seam: Seam::Auto,
            seam_at_deg: None,
        }
    }
}

/// A settings file that cannot be read, parsed or written.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// Unreadable file.
    #[error("cannot read garment settings {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not valid settings JSON, or a value out of range; names the field.
    #[error("{}: {message}", .path.display())]
    Invalid { path: PathBuf, message: String },
    /// The save failed; the file that was there is untouched.
    #[error(transparent)]
    Write(#[from] crate::files::WriteError),
}

impl GridChoice {
    /// Where the settings of the garment `mesh` in the file `file` (the character's own file,
    /// or the garment's) are kept: beside it, `<stem>.<mesh>.cloth-garment.json`, the mesh's
    /// name with anything but letters, digits, `-` and `_` written as `_`.
    pub fn path_beside(file: &Path, mesh: &str) -> PathBuf {
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mesh: String = mesh
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        file.with_file_name(format!("{stem}.{mesh}{SETTINGS_SUFFIX}"))
    }

    /// The settings beside the garment, or the defaults when there is no such file.
    pub fn load_beside(file: &Path, mesh: &str) -> Result<Self, SettingsError> {
        let path = Self::path_beside(file, mesh);
        if path.exists() {
            Self::load(&path)
        } else {
            Ok(Self::default())
        }
    }

    /// Reads and checks a settings file. Errors name the file and the field.
    pub fn load(path: &Path) -> Result<Self, SettingsError> {
        let text = std::fs::read_to_string(path).map_err(|source| SettingsError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(&text, path)
    }

    /// Parses settings JSON; `path` names it in errors.
    pub fn from_json(text: &str, path: &Path) -> Result<Self, SettingsError> {
        let invalid = |message: String| SettingsError::Invalid {
            path: path.to_path_buf(),
            message,
        };
        let settings: Self = crate::files::from_json_by_field(text).map_err(invalid)?;
        settings.check().map_err(invalid)?;
        Ok(settings)
    }

    /// Checks every value against its range; the message names the field and the range.
    pub fn check(&self) -> Result<(), String> {
        fn within<T: PartialOrd + std::fmt::Display + Copy>(
            field: &str,
            value: T,
            (lo, hi): (T, T),
            unit: &str,
        ) -> Result<(), String> {
            // NaN fails both comparisons and is refused with the range.
            if value >= lo && value <= hi {
                Ok(())
            } else {
                Err(format!(
                    "field `{field}`: {value}{unit} is outside {lo}{unit} to {hi}{unit}"
                ))
            }
        }
        if let Some(rows) = self.rows {
            within("rows", rows, ROWS_RANGE, "")?;
        }
        if let Some(cols) = self.cols {
            within("columns", cols, COLS_RANGE, "")?;
        }
        within("spacing_m", self.spacing_m, SPACING_RANGE_M, " m")?;
        if let Some(pin) = self.pin_height_m {
            within("pin_height_m", pin, PIN_RANGE_M, " m")?;
        }
        if let Some(at) = self.seam_at_deg {
            within("seam_at_deg", at, (-180.0, 180.0), "°")?;
        }
        Ok(())
    }

    /// Writes the settings as pretty JSON, atomically (a crash never leaves half a file).
    pub fn save(&self, path: &Path) -> Result<(), SettingsError> {
        self.check().map_err(|message| SettingsError::Invalid {
            path: path.to_path_buf(),
            message,
        })?;
        crate::files::write_json_atomic(path, self)?;
        Ok(())
    }
}

/// The ranges of the numbers (the derive knows none of them).
#[cfg(feature = "schema")]
fn settings_constraints(schema: &mut schemars::Schema) {
    let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) else {
        return;
    };
    let ranges = [
        ("rows", ROWS_RANGE.0 as f64, ROWS_RANGE.1 as f64),
        ("columns", COLS_RANGE.0 as f64, COLS_RANGE.1 as f64),
        (
            "spacing_m",
            SPACING_RANGE_M.0 as f64,
            SPACING_RANGE_M.1 as f64,
        ),
        ("pin_height_m", PIN_RANGE_M.0 as f64, PIN_RANGE_M.1 as f64),
        ("seam_at_deg", -180.0, 180.0),
    ];
    for (field, lo, hi) in ranges {
        if let Some(f) = props.get_mut(field).and_then(|p| p.as_object_mut()) {
            f.insert("minimum".into(), serde_json::json!(lo));
            f.insert("maximum".into(), serde_json::json!(hi));
        }
    }
}

/// The JSON Schema of the settings file, as pretty JSON with a trailing newline: the text of
/// `docs/garment-settings.schema.json`.
#[cfg(feature = "schema")]
pub fn settings_schema_text() -> String {
    let schema = schemars::schema_for!(GridChoice).to_value();
    let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
    s.push('\n');
    s
}
