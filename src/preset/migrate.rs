//! Migration of older preset files to the current format version ([`super::VERSION`]).
//!
//! [`super::Preset::load`] calls [`migrate`] for any file whose `version` is below the current
//! one, then reads the result exactly like a current file, so every check (unknown fields,
//! types, ranges) applies to old files too. Messages point at the old field in the old file.
//!
//! # Version 0 to version 1
//!
//! Version 0 (the prototype's format) kept the knobs in a `fabric` object, some of them in
//! nested groups and under other names, and stored the time step as `dt` in seconds:
//!
//! | version 0 (`fabric.` ...) | version 1 (`params.` ...) | conversion |
//! |---|---|---|
//! | `dt` (s) | `timestep_hz` (Hz) | `1 / dt`, rounded to 0.001 Hz |
//! | `solver_passes` | `iterations` | |
//! | `gravity` | `gravity` | |
//! | `damping` | `damping` | |
//! | `friction` | `contact_damping` | |
//! | `stretch` | `stretch_stiffness` | |
//! | `bend` | `shear_bend_stiffness` | |
//! | `mass_scale` | `mass_falloff` | |
//! | `hard_constraints` | `hard_constraints` | |
//! | `stretch_limit` (ratio or `null`) | `deformation_limit`, `max_stretch_ratio` | a number turns the limit on with that ratio; `null` turns it off |
//! | `edge.damping` | `edge_damping` | |
//! | `edge.wind` | `edge_wind_scale` | |
//! | `edge.world_fraction` | `edge_world_motion_fraction` | |
//! | `edge.max_distance_scale` | `edge_max_distance_scale` | |
//! | `wind.direction_deg` | `wind_direction_deg` | |
//! | `wind.speed` | `wind_speed` | |
//! | `wind.drag` | `wind_drag` | |
//! | `wind.gust` | `gust_amplitude` | |
//! | `wind.gust_hz` | `gust_frequency` | |
//! | `world_fraction` | `world_motion_fraction` | |
//! | `max_distance.top` | `max_distance_top` | |
//! | `max_distance.hem` | `max_distance_hem` | |
//! | `max_distance.exponent` | `max_distance_exponent` | |
//! | `margin` | `collision_margin` | |
//!
//! Everything else (`format`, `name`, `description`, `garment`) is unchanged; `fabric` becomes
//! `params` and `version` becomes 1. A knob missing from a version 0 file takes its version 1
//! default. The per-step values keep their meaning: version 0 files step at `1 / dt`.
//!
//! # Version 1 to version 2
//!
//! Version 2 stores the fabric's look (`look`: pattern, colour, sheerness). A version 1 file
//! had none: the tuner chose it from the preset's name and file name, so the migration makes
//! the same choice ([`super::Look::from_name`]) and writes it into the document. Nothing else
//! changes; the file looks as it did.
//!
//! # Knobs added within version 2
//!
//! A knob whose default reproduces the old behaviour needs no new version: a file without it
//! loads with that default (`substeps` 1, `hood_stiffness` 0, `hood_swing_limit_deg` 180).
//! `areal_density_gsm` changes no motion (the solver's relative masses come from
//! `mass_falloff`); a file without it loads with 300 g/m², a mid-weight woven fabric, which
//! sets the masses its engine exports get and the total the tuner shows until the artist
//! sets the fabric's own (the shipped presets: tweed 400, down jacket 250, skirt 220, veil
//! 45). One
//! has no such constant: before the hood had its own damping it used the cloth's `damping`, so
//! a file of any version without `hood_damping` takes its `damping`
//! ([`super::Preset::from_json`] does it after reading the file, whatever its version).

use serde_json::{Map, Value};

use super::VERSION;

/// The oldest format version [`migrate`] reads.
pub const OLDEST_VERSION: u32 = 0;

/// Version 0 field paths (under `fabric`) and the version 1 names (under `params`) they
/// become. `dt` and `stretch_limit` are converted, the rest copied.
pub const V0_FIELDS: &[(&str, &str)] = &[
    ("dt", "timestep_hz"),
    ("solver_passes", "iterations"),
    ("gravity", "gravity"),
    ("damping", "damping"),
    ("friction", "contact_damping"),
    ("stretch", "stretch_stiffness"),
    ("bend", "shear_bend_stiffness"),
    ("mass_scale", "mass_falloff"),
    ("hard_constraints", "hard_constraints"),
    ("stretch_limit", "max_stretch_ratio"),
    ("edge.damping", "edge_damping"),
    ("edge.wind", "edge_wind_scale"),
    ("edge.world_fraction", "edge_world_motion_fraction"),
    ("edge.max_distance_scale", "edge_max_distance_scale"),
    ("wind.direction_deg", "wind_direction_deg"),
    ("wind.speed", "wind_speed"),
    ("wind.drag", "wind_drag"),
    ("wind.gust", "gust_amplitude"),
    ("wind.gust_hz", "gust_frequency"),
    ("world_fraction", "world_motion_fraction"),
    ("max_distance.top", "max_distance_top"),
    ("max_distance.hem", "max_distance_hem"),
    ("max_distance.exponent", "max_distance_exponent"),
    ("margin", "collision_margin"),
];

/// Why an old document could not be migrated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("field `{field}`: {message}")]
pub struct MigrateError {
    /// The field in the old document (`fabric.dt`).
    pub field: String,
    /// The key path of that field in the old document, to find it in the text.
    pub location: Vec<String>,
    /// What is wrong.
    pub message: String,
}

impl MigrateError {
    fn new(field: &str, message: String) -> Self {
        Self {
            field: field.to_string(),
            location: field.split('.').map(str::to_string).collect(),
            message,
        }
    }
}

/// Turns a preset document of format version `from` into a current one, one version at a
/// time. The result still has to be read and validated like any current file. A document
/// already at [`VERSION`] is returned unchanged. `file_stem` is the file's name without its
/// extension (a version 1 look was chosen from it).
pub fn migrate(doc: Value, from: u32, file_stem: &str) -> Result<Value, MigrateError> {
    let mut doc = doc;
    let mut version = from;
    while version < VERSION {
        doc = match version {
            0 => v0_to_v1(doc)?,
            1 => v1_to_v2(doc, file_stem)?,
            v => {
                return Err(MigrateError::new(
                    "version",
                    format!("no migration from version {v} (this cloth-tuner reads {OLDEST_VERSION} to {VERSION})"),
                ))
            }
        };
        version += 1;
    }
    Ok(doc)
}

/// Where a current-version field (`params.damping`) came from in a document of version
/// `from`, as a key path (`["fabric", "damping"]`), for messages about migrated files.
pub fn source_path(from: u32, field: &str) -> Vec<String> {
    let split = |s: &str| s.split('.').map(str::to_string).collect::<Vec<_>>();
    if from == 0 {
        if let Some(name) = field.strip_prefix("params.") {
            let name = if name == "deformation_limit" {
                "max_stretch_ratio"
            } else {
                name
            };
            if let Some((old, _)) = V0_FIELDS.iter().find(|(_, new)| *new == name) {
                return split(&format!("fabric.{old}"));
            }
            return vec!["fabric".to_string()];
        }
        if field == "params" {
            return vec!["fabric".to_string()];
        }
    }
    split(field)
}

fn v1_to_v2(doc: Value, file_stem: &str) -> Result<Value, MigrateError> {
    let Value::Object(mut top) = doc else {
        return Err(MigrateError::new(
            "version",
            "a version 1 preset is a JSON object".to_string(),
        ));
    };
    if top.contains_key("look") {
        return Err(MigrateError::new(
            "look",
            "version 1 presets have no `look` (it came in version 2): is the file's `version` \
             right?"
                .to_string(),
        ));
    }
    let name = top.get("name").and_then(Value::as_str).unwrap_or_default();
    let look = super::Look::from_name(&format!("{name} {file_stem}"));
    let look = serde_json::to_value(look)
        .map_err(|e| MigrateError::new("look", format!("cannot write the look: {e}")))?;
    top.insert("look".to_string(), look);
    top.insert("version".to_string(), Value::from(2u32));
    Ok(Value::Object(top))
}

fn v0_to_v1(doc: Value) -> Result<Value, MigrateError> {
    let Value::Object(mut top) = doc else {
        return Err(MigrateError::new(
            "version",
            "a version 0 preset is a JSON object".to_string(),
        ));
    };
    if top.contains_key("params") {
        return Err(MigrateError::new(
            "version",
            "version 0 presets keep their knobs in `fabric`, but this file has `params` (the \
             version 1 layout): is its `version` right?"
                .to_string(),
        ));
    }
    let mut params = Map::new();
    match top.remove("fabric") {
        None => {}
        Some(Value::Object(fabric)) => flatten_v0(&fabric, "", &mut params)?,
        Some(other) => {
            return Err(MigrateError::new(
                "fabric",
                format!("expected an object, found {other}"),
            ))
        }
    }
    top.insert("version".to_string(), Value::from(1u32));
    top.insert("params".to_string(), Value::Object(params));
    Ok(Value::Object(top))
}

fn flatten_v0(
    group: &Map<String, Value>,
    prefix: &str,
    out: &mut Map<String, Value>,
) -> Result<(), MigrateError> {
    for (key, value) in group {
        let old = format!("{prefix}{key}");
        if let Value::Object(inner) = value {
            if V0_FIELDS
                .iter()
                .any(|(f, _)| f.starts_with(&format!("{old}.")))
            {
                flatten_v0(inner, &format!("{old}."), out)?;
                continue;
            }
        }
        let field = format!("fabric.{old}");
        let Some((_, new)) = V0_FIELDS.iter().find(|(f, _)| *f == old) else {
            return Err(MigrateError::new(
                &field,
                format!("unknown field `{key}` in a version 0 preset"),
            ));
        };
        match *new {
            "timestep_hz" => {
                let hz = value
                    .as_f64()
                    .filter(|dt| dt.is_finite() && *dt > 0.0)
                    .map(|dt| (1000.0 / dt).round() / 1000.0)
                    .ok_or_else(|| {
                        MigrateError::new(
                            &field,
                            format!(
                                "expected the time step in seconds (1/240 to 1/15), found {value}"
                            ),
                        )
                    })?;
                out.insert(new.to_string(), Value::from(hz));
            }
            "max_stretch_ratio" => {
                let on = !value.is_null();
                out.insert("deformation_limit".to_string(), Value::Bool(on));
                if on {
                    out.insert(new.to_string(), value.clone());
                }
            }
            _ => {
                out.insert(new.to_string(), value.clone());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::FabricParams;

    const NEWER_THAN_V0: [&str; 7] = [
        "areal_density_gsm",
        "deformation_limit",
        "substeps",
        "hood_damping",
        "hood_stiffness",
        "hood_swing_limit_deg",
        "tear_ratio",
    ];

    #[test]
    fn every_current_knob_has_a_version_0_source() {
        for spec in FabricParams::SPECS {
            // The switch comes from `stretch_limit`; version 0 had no substeps (1 each), no
            // hood knobs (the hood took the cloth's damping, no pull, no limit), no tearing and
            // no areal density (its default).
            let found = NEWER_THAN_V0.contains(&spec.name)
                || V0_FIELDS.iter().any(|(_, new)| *new == spec.name);
            assert!(found, "{} has no version 0 field", spec.name);
        }
        assert_eq!(
            V0_FIELDS.len() + NEWER_THAN_V0.len(),
            FabricParams::SPECS.len()
        );
    }

    #[test]
    fn dt_becomes_hz_and_the_stretch_limit_becomes_a_switch() {
        let doc = serde_json::json!({
            "format": "cloth-tuner-preset", "version": 0, "name": "x",
            "fabric": { "dt": 0.016666668, "stretch_limit": null, "edge": { "wind": 2.0 } }
        });
        let v1 = migrate(doc, 0, "old").unwrap();
        assert_eq!(v1["version"], 2);
        assert_eq!(v1["params"]["timestep_hz"], 60.0);
        assert_eq!(v1["params"]["deformation_limit"], false);
        assert_eq!(v1["params"]["edge_wind_scale"], 2.0);
        assert!(v1.get("fabric").is_none());
        let doc = serde_json::json!({ "version": 0, "fabric": { "dt": 0.0333333, "stretch_limit": 1.05 } });
        let v1 = migrate(doc, 0, "old").unwrap();
        assert_eq!(v1["params"]["timestep_hz"], 30.0);
        assert_eq!(v1["params"]["deformation_limit"], true);
        assert_eq!(v1["params"]["max_stretch_ratio"], 1.05);
    }

    #[test]
    fn bad_version_0_fields_are_named() {
        let e = migrate(serde_json::json!({ "fabric": { "dt": -1 } }), 0, "old").unwrap_err();
        assert_eq!(e.field, "fabric.dt");
        let e = migrate(
            serde_json::json!({ "fabric": { "edge": { "colour": 1 } } }),
            0,
            "old",
        )
        .unwrap_err();
        assert_eq!(e.field, "fabric.edge.colour");
        assert_eq!(e.location, vec!["fabric", "edge", "colour"]);
        assert_eq!(
            source_path(0, "params.gust_frequency"),
            vec!["fabric", "wind", "gust_hz"]
        );
        assert_eq!(source_path(1, "params.damping"), vec!["params", "damping"]);
    }

    #[test]
    fn a_version_1_file_gets_the_look_its_name_or_file_name_gave_it() {
        let doc = |name: &str| serde_json::json!({ "version": 1, "name": name, "params": {} });
        let look = |v: Value| serde_json::from_value::<super::super::Look>(v["look"].clone());
        let v2 = migrate(doc("Veil"), 1, "anything").unwrap();
        assert_eq!(v2["version"], 2);
        assert_eq!(look(v2).unwrap(), super::super::Look::VEIL);
        let v2 = migrate(doc("Untitled"), 1, "my_down_coat").unwrap();
        assert_eq!(look(v2).unwrap(), super::super::Look::DOWN);
        let v2 = migrate(doc("My wool"), 1, "my_wool").unwrap();
        assert_eq!(look(v2).unwrap(), super::super::Look::TWEED);
        let mut bad = doc("x");
        bad["look"] = serde_json::json!({});
        assert_eq!(migrate(bad, 1, "x").unwrap_err().field, "look");
    }
}
