//! A character's settings file: the bone map (which bone plays which humanoid role, where the
//! names do not say it) and the scale of each role's collision ellipsoids. It lives beside the
//! character (`hero.glb` → `hero.cloth-character.json`, see [`CharacterSettings::path_beside`])
//! or is given by `--bone-map`, and is never written into a fabric preset: a fabric is tuned on
//! a body, not tied to it. The format is documented in `docs/character-settings.md`, its JSON
//! Schema is `docs/character-settings.schema.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Role;

/// Suffix of the settings file that sits beside a character file.
pub const SETTINGS_SUFFIX: &str = ".cloth-character.json";

/// Smallest and largest ellipsoid scale factor.
pub const ELLIPSOID_SCALE_RANGE: (f32, f32) = (0.5, 2.0);

/// The settings of one character.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "schema",
    schemars(title = "cloth-tuner character settings", transform = settings_constraints)
)]
#[serde(default, deny_unknown_fields)]
pub struct CharacterSettings {
    /// The bone for a role, by its exact name in the character file, where automatic matching
    /// finds none or the wrong one. Roles: pelvis, spine, chest, neck, head, upperarm_l/_r,
    /// forearm_l/_r, hand_l/_r, thigh_l/_r, shin_l/_r (required), upperarm_twist_l/_r,
    /// forearm_twist_l/_r (optional). Default: empty (every role found by name, else by the
    /// skeleton's shape).
    pub bones: BTreeMap<Role, String>,
    /// Scale of the collision ellipsoids fitted for a role, 0.5 to 2 (1 = as fitted inside
    /// the skin). Default: empty (every role 1).
    pub ellipsoid_scale: BTreeMap<Role, f32>,
}

/// A settings file that cannot be read, parsed or written.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// Missing or unreadable file.
    #[error("cannot read character settings {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not valid settings JSON; names the field.
    #[error("{}: {message}", .path.display())]
    Invalid { path: PathBuf, message: String },
    /// The save failed; the file that was there is untouched.
    #[error(transparent)]
    Write(#[from] crate::files::WriteError),
}

impl CharacterSettings {
    /// Where the settings of `character` (a `.glb` or `.gltf` path) are looked for: the same
    /// folder and file stem with [`SETTINGS_SUFFIX`].
    pub fn path_beside(character: &Path) -> PathBuf {
        let stem = character
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        character.with_file_name(format!("{stem}{SETTINGS_SUFFIX}"))
    }

    /// Reads and checks a settings file. Errors name the file and the field.
    pub fn load(path: &Path) -> Result<Self, SettingsError> {
        let text = std::fs::read_to_string(path).map_err(|source| SettingsError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(&text, path)
    }

    /// The settings file a character uses: `bone_map` when given, else the one beside it.
    pub fn file_for(character: &Path, bone_map: Option<&Path>) -> PathBuf {
        bone_map.map_or_else(|| Self::path_beside(character), Path::to_path_buf)
    }

    /// The settings a character uses: `bone_map` (which must exist) when given, else the file
    /// beside it, else the defaults.
    pub fn for_character(character: &Path, bone_map: Option<&Path>) -> Result<Self, SettingsError> {
        match bone_map {
            Some(map) => Self::load(map),
            None => Ok(Self::load_beside(character)?.unwrap_or_default()),
        }
    }

    /// The settings beside `character`, or `None` when there is no such file.
    pub fn load_beside(character: &Path) -> Result<Option<Self>, SettingsError> {
        let path = Self::path_beside(character);
        if path.exists() {
            Self::load(&path).map(Some)
        } else {
            Ok(None)
        }
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

    /// Checks the values: every scale finite and in [`ELLIPSOID_SCALE_RANGE`], no empty bone
    /// name. The message names the field and the allowed range.
    pub fn check(&self) -> Result<(), String> {
        let (lo, hi) = ELLIPSOID_SCALE_RANGE;
        for (role, &s) in &self.ellipsoid_scale {
            if !(lo..=hi).contains(&s) {
                return Err(format!(
                    "field `ellipsoid_scale.{}`: {s} is outside {lo} to {hi}",
                    role.name()
                ));
            }
        }
        for (role, bone) in &self.bones {
            if bone.trim().is_empty() {
                return Err(format!(
                    "field `bones.{}`: the bone name is empty",
                    role.name()
                ));
            }
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

    /// The scale for `role`'s ellipsoids (1 when not set).
    pub fn scale(&self, role: Role) -> f32 {
        self.ellipsoid_scale.get(&role).copied().unwrap_or(1.0)
    }
}

/// Map keys are roles and scales lie in [`ELLIPSOID_SCALE_RANGE`] (the derive knows neither).
#[cfg(feature = "schema")]
fn settings_constraints(schema: &mut schemars::Schema) {
    let roles: Vec<String> = Role::REQUIRED
        .iter()
        .chain(&Role::OPTIONAL)
        .map(|r| r.name())
        .collect();
    let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) else {
        return;
    };
    for field in ["bones", "ellipsoid_scale"] {
        if let Some(f) = props.get_mut(field).and_then(|p| p.as_object_mut()) {
            f.insert("propertyNames".into(), serde_json::json!({ "enum": roles }));
        }
    }
    if let Some(f) = props
        .get_mut("ellipsoid_scale")
        .and_then(|p| p.as_object_mut())
    {
        let (lo, hi) = ELLIPSOID_SCALE_RANGE;
        f.insert(
            "additionalProperties".into(),
            serde_json::json!({ "type": "number", "minimum": lo, "maximum": hi }),
        );
    }
    if let Some(f) = props.get_mut("bones").and_then(|p| p.as_object_mut()) {
        f.insert(
            "additionalProperties".into(),
            serde_json::json!({ "type": "string", "minLength": 1 }),
        );
    }
}

/// The JSON Schema of the settings file, as pretty JSON with a trailing newline: the text of
/// `docs/character-settings.schema.json`.
#[cfg(feature = "schema")]
pub fn settings_schema_text() -> String {
    let schema = schemars::schema_for!(CharacterSettings).to_value();
    let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
    s.push('\n');
    s
}
