//! The character settings file: its schema is the committed one, it round-trips, and bad
//! values name the field and the range.

use std::path::Path;

use cloth_tuner::character::settings::settings_schema_text;
use cloth_tuner::character::{CharacterSettings, Role};

#[test]
fn the_committed_schema_is_the_generated_one() {
    let committed = std::fs::read_to_string("docs/character-settings.schema.json").unwrap();
    assert_eq!(
        committed,
        settings_schema_text(),
        "regenerate: cargo run -- schema --character-settings > docs/character-settings.schema.json"
    );
}

#[test]
fn the_documented_example_is_valid_by_the_schema_and_the_loader() {
    let doc = std::fs::read_to_string("docs/character-settings.md").unwrap();
    let start = doc.find("```json\n").expect("an example") + 8;
    let example = &doc[start..start + doc[start..].find("```").unwrap()];
    let settings = CharacterSettings::from_json(example, Path::new("example.json")).unwrap();
    assert_eq!(settings.bones[&Role::Pelvis], "Joint_Hips");
    assert_eq!(settings.scale(Role::Chest), 0.9);
    let schema: serde_json::Value = serde_json::from_str(&settings_schema_text()).unwrap();
    let instance: serde_json::Value = serde_json::from_str(example).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.add_resource("settings.json", schema).unwrap();
    let id = compiler.compile("settings.json", &mut schemas).unwrap();
    schemas.validate(&instance, id).unwrap();
    // A role the tuner does not know is refused by both.
    let bad: serde_json::Value = serde_json::json!({ "bones": { "tail": "Tail_01" } });
    assert!(schemas.validate(&bad, id).is_err());
    let err = CharacterSettings::from_json(&bad.to_string(), Path::new("x.json")).unwrap_err();
    assert!(
        err.to_string().contains("x.json") && err.to_string().contains("tail"),
        "{err}"
    );
}

#[test]
fn settings_round_trip_and_save_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let character = dir.path().join("hero.glb");
    let path = CharacterSettings::path_beside(&character);
    assert_eq!(path, dir.path().join("hero.cloth-character.json"));
    assert!(CharacterSettings::load_beside(&character)
        .unwrap()
        .is_none());
    let mut s = CharacterSettings::default();
    s.bones.insert(Role::ShinL, "Calf.L".into());
    s.ellipsoid_scale.insert(Role::ThighR, 1.25);
    s.save(&path).unwrap();
    assert_eq!(
        CharacterSettings::load_beside(&character).unwrap(),
        Some(s.clone())
    );
    // An out-of-range scale is refused and leaves the saved file as it was.
    let mut bad = s.clone();
    bad.ellipsoid_scale.insert(Role::Chest, f32::NAN);
    let err = bad.save(&path).unwrap_err().to_string();
    assert!(
        err.contains("ellipsoid_scale.chest") && err.contains("0.5 to 2"),
        "{err}"
    );
    assert_eq!(CharacterSettings::load(&path).unwrap(), s);
    let err = CharacterSettings::from_json("{ \"bones\": 3 }", &path).unwrap_err();
    assert!(
        err.to_string().contains("hero.cloth-character.json"),
        "{err}"
    );
}
