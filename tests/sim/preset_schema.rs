//! The committed JSON Schema (`presets/schema.json`) is the one the code generates, and every
//! shipped preset validates against it with an independent validator (the `boon` crate).
#![cfg(feature = "schema")]

use cloth_tuner::preset::{schema, Preset};
use serde_json::Value;
use std::path::Path;

const SCHEMA_FILE: &str = "presets/schema.json";

fn shipped_presets() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir("presets")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("schema.json"))
        .collect();
    files.sort();
    files
}

/// The committed schema, compiled by an independent validator.
struct Validator {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl Validator {
    fn errors(&self, doc: &Value) -> Vec<String> {
        match self.schemas.validate(doc, self.index) {
            Ok(()) => Vec::new(),
            Err(e) => vec![format!("{e:#}")],
        }
    }

    fn is_valid(&self, doc: &Value) -> bool {
        self.schemas.validate(doc, self.index).is_ok()
    }
}

fn validator() -> Validator {
    let text = std::fs::read_to_string(SCHEMA_FILE).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler
        .add_resource("file:///presets/schema.json", schema)
        .unwrap();
    let index = compiler
        .compile("file:///presets/schema.json", &mut schemas)
        .unwrap_or_else(|e| panic!("{SCHEMA_FILE}: {e:#}"));
    Validator { schemas, index }
}

#[test]
fn the_committed_schema_is_current() {
    let generated = schema::schema_text();
    if std::env::var_os("CLOTH_TUNER_UPDATE_SCHEMA").is_some() {
        std::fs::write(SCHEMA_FILE, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(SCHEMA_FILE).unwrap_or_default();
    assert!(
        committed == generated,
        "{SCHEMA_FILE} differs from the schema the code generates: regenerate it with \
         `cargo run -- schema > {SCHEMA_FILE}` (or `CLOTH_TUNER_UPDATE_SCHEMA=1 cargo test --test sim preset_schema::`)"
    );
}

#[test]
fn every_shipped_preset_validates_against_the_schema() {
    let v = validator();
    let files = shipped_presets();
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(v.errors(&doc), Vec::<String>::new(), "{}", file.display());
        // And the loader agrees.
        Preset::load(&file).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn the_schema_refuses_what_the_loader_refuses() {
    let v = validator();
    let tweed: Value =
        serde_json::from_str(&std::fs::read_to_string("presets/tweed.json").unwrap()).unwrap();
    let with = |pointer: &str, value: Value| {
        let mut doc = tweed.clone();
        *doc.pointer_mut(pointer).unwrap() = value;
        doc
    };
    // Out of range, per the ranges table.
    let e = v.errors(&with("/params/damping", 1.5.into()));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("/params/damping"), "{e:?}");
    assert!(!v.is_valid(&with("/params/timestep_hz", 300.0.into())));
    assert!(!v.is_valid(&with("/params/iterations", 33.into())));
    assert!(!v.is_valid(&with("/params/iterations", 2.5.into())));
    assert!(!v.is_valid(&with("/params/collision_margin", 0.051.into())));
    assert!(v.is_valid(&with("/params/collision_margin", 0.05.into())));
    // Wrong type, wrong version, wrong garment, unknown field.
    assert!(!v.is_valid(&with("/params/hard_constraints", "yes".into())));
    assert!(!v.is_valid(&with("/version", 3.into())));
    assert!(!v.is_valid(&with("/garment", "cape".into())));
    let mut unknown = tweed.clone();
    unknown["params"]["stifness"] = 0.5.into();
    assert!(!v.is_valid(&unknown));
    // The conversion record is optional and bounded like the time step.
    let mut converted = tweed.clone();
    converted["converted_from_hz"] = 60.0.into();
    assert!(v.is_valid(&converted));
    converted["converted_from_hz"] = 500.0.into();
    assert!(!v.is_valid(&converted));
    // The look: a colour is "#rrggbb", sheerness 0 to 1, the patterns by name.
    assert!(v.is_valid(&with("/look/colour", "#A0b0C0".into())));
    assert!(!v.is_valid(&with("/look/colour", "brown".into())));
    assert!(!v.is_valid(&with("/look/sheerness", 1.5.into())));
    assert!(!v.is_valid(&with("/look/pattern", "lace".into())));
}

#[test]
fn a_bad_look_is_named_with_its_field_and_range_and_a_version_1_file_keeps_its_look() {
    let tweed = std::fs::read_to_string("presets/tweed.json").unwrap();
    let load = |text: &str| cloth_tuner::preset::Preset::from_json(text, "mine.json".as_ref());
    let e = load(&tweed.replace("\"sheerness\": 0.0", "\"sheerness\": 1.5")).unwrap_err();
    assert_eq!(e.field(), Some("look.sheerness"));
    assert!(e.to_string().contains("0 to 1"), "{e}");
    let e = load(&tweed.replace("#8e6442", "#8e64")).unwrap_err();
    assert_eq!(e.field(), Some("look.colour"));
    assert!(e.to_string().contains("#rrggbb"), "{e}");
    // A version 1 veil saved under another name is still drawn as a veil, and the shipped
    // version 2 files carry the looks version 1 gave them.
    let v1 = std::fs::read_to_string("tests/fixtures/veil_before_retune.json").unwrap();
    assert!(v1.contains("\"version\": 1"));
    let old = cloth_tuner::preset::Preset::from_json(&v1, "old.json".as_ref()).unwrap();
    assert_eq!(old.look, cloth_tuner::preset::Look::VEIL);
    for (file, look) in [
        ("tweed", cloth_tuner::preset::Look::TWEED),
        ("down_jacket", cloth_tuner::preset::Look::DOWN),
        ("veil", cloth_tuner::preset::Look::VEIL),
    ] {
        let p = cloth_tuner::preset::Preset::load(format!("presets/{file}.json")).unwrap();
        assert_eq!(p.look, look, "{file}");
    }
}

#[test]
fn schema_ranges_come_from_the_parameter_table() {
    let s = schema::schema();
    let props = &s["$defs"]["FabricParams"]["properties"];
    for spec in cloth_tuner::sim::FabricParams::SPECS {
        let p = &props[spec.name];
        assert!(p.is_object(), "{} missing from the schema", spec.name);
        if spec.kind != cloth_tuner::sim::ParamKind::Bool {
            let min = p["minimum"].as_f64().unwrap();
            let max = p["maximum"].as_f64().unwrap();
            assert_eq!((min as f32, max as f32), (spec.min as f32, spec.max as f32));
        }
    }
}

/// `doc` written as `name` in `dir` and checked by `cloth-tuner validate`: whether it passed,
/// and what it printed on stderr.
fn validate_cli(dir: &Path, name: &str, doc: &Value) -> (bool, String) {
    let path = dir.join(name);
    std::fs::write(&path, doc.to_string()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
        .args(["validate", path.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), text)
}

#[test]
fn a_tear_ratio_between_off_and_its_first_tearing_value_is_refused_by_schema_and_loader() {
    let v = validator();
    let dir = tempfile::tempdir().unwrap();
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string("presets/tweed.json").unwrap()).unwrap();
    for (ratio, valid) in [
        (0.0, true),
        (0.5, false),
        (1.0, false),
        (1.1, true),
        (3.0, true),
    ] {
        doc["params"]["tear_ratio"] = serde_json::json!(ratio);
        assert_eq!(v.is_valid(&doc), valid, "schema, tear_ratio {ratio}");
        let (passed, text) = validate_cli(dir.path(), "torn.json", &doc);
        assert_eq!(passed, valid, "tear_ratio {ratio}: {text}");
        if !valid {
            let said = format!(
                "field `params.tear_ratio`: {ratio} is out of range; \
                 allowed 0 (off) or 1.1 to 5 x rest"
            );
            assert!(
                text.contains("torn.json:1:") && text.contains(&said),
                "{text}"
            );
        }
    }
}

#[test]
fn shipped_presets_follow_the_article_and_validate_warns_when_one_does_not() {
    for path in shipped_presets() {
        let p = Preset::load(&path).unwrap();
        assert_eq!(
            p.params.article_departures(),
            Vec::<String>::new(),
            "{}",
            path.display()
        );
    }
    // Edges damped more than the body and contact damping below the base: both named, and
    // the file still validates (a warning, not a failure).
    let dir = tempfile::tempdir().unwrap();
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string("presets/tweed.json").unwrap()).unwrap();
    doc["params"]["edge_damping"] = serde_json::json!(0.05);
    doc["params"]["contact_damping"] = serde_json::json!(0.005);
    let (passed, text) = validate_cli(dir.path(), "inverted.json", &doc);
    assert!(passed, "{text}");
    assert!(
        text.contains("inverted.json: warning: edge_damping 0.05 is above damping 0.0096"),
        "{text}"
    );
    assert!(
        text.contains("inverted.json: warning: contact_damping 0.005 is below damping 0.0096"),
        "{text}"
    );
}

#[test]
fn the_schema_bounds_a_painted_max_distance_map_like_the_loader() {
    let v = validator();
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string("presets/tweed.json").unwrap()).unwrap();
    let mut metres = vec![Value::Null; 170];
    metres[30] = 0.25.into();
    doc["max_distance_map"] = serde_json::json!({ "cols": 17, "rows": 10, "metres": metres });
    assert_eq!(v.errors(&doc), Vec::<String>::new());
    let path = std::env::temp_dir().join(format!("painted-{}.json", std::process::id()));
    std::fs::write(&path, doc.to_string()).unwrap();
    let loaded = Preset::load(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        loaded.unwrap().max_distance_map.unwrap().metres[30],
        Some(0.25)
    );
    for (pointer, bad) in [
        ("/max_distance_map/metres/30", Value::from(1.5)),
        ("/max_distance_map/metres/31", Value::from(-0.1)),
        ("/max_distance_map/cols", Value::from(1)),
    ] {
        let mut d = doc.clone();
        *d.pointer_mut(pointer).unwrap() = bad;
        assert!(!v.is_valid(&d), "{pointer}");
    }
}
