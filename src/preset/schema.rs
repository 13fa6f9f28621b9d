//! The JSON Schema of the preset file, generated from the Rust types with `schemars` (the
//! `schema` feature). The knobs' ranges come from [`FabricParams::SPECS`](crate::sim::FabricParams::SPECS),
//! the table the loader validates with, so the schema cannot drift from the code.
//! `presets/schema.json` is this output (`cloth-tuner schema > presets/schema.json`); a test
//! fails when the two differ.
//!
//! ```
//! let schema = cloth_tuner::preset::schema::schema();
//! let damping = &schema["$defs"]["FabricParams"]["properties"]["damping"];
//! assert_eq!(damping["minimum"], 0.0);
//! assert_eq!(damping["maximum"], 1.0);
//! ```

use super::{Preset, FORMAT, VERSION};

/// The schema as a JSON value (draft 2020-12).
pub fn schema() -> serde_json::Value {
    schemars::schema_for!(Preset).to_value()
}

/// The schema as pretty JSON with a trailing newline: the text of `presets/schema.json`.
pub fn schema_text() -> String {
    let mut s = serde_json::to_string_pretty(&schema()).unwrap_or_default();
    s.push('\n');
    s
}

/// Pins `format` and `version` to this build's values, and bounds `converted_from_hz` like the
/// time step.
pub(crate) fn preset_constants(schema: &mut schemars::Schema) {
    let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) else {
        return;
    };
    // Each knob carries its own default; the whole object's default would repeat them.
    if let Some(params) = props.get_mut("params").and_then(|p| p.as_object_mut()) {
        params.remove("default");
    }
    if let Some(format) = props.get_mut("format").and_then(|p| p.as_object_mut()) {
        format.insert("const".into(), FORMAT.into());
    }
    if let Some(version) = props.get_mut("version").and_then(|p| p.as_object_mut()) {
        version.insert("const".into(), VERSION.into());
    }
    let rate = crate::sim::FabricParams::spec("timestep_hz");
    if let (Some(hz), Some(rate)) = (
        props
            .get_mut("converted_from_hz")
            .and_then(|p| p.as_object_mut()),
        rate,
    ) {
        hz.insert("minimum".into(), (rate.min as f32).into());
        hz.insert("maximum".into(), (rate.max as f32).into());
    }
}
