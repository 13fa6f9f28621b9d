//! The garment settings file: its schema is the committed one, the documented example is valid
//! by the schema and the loader, it round-trips, bad values name the file, the field and the
//! range; and the seam it sets is the grid's.

use std::path::Path;

use cloth_tuner::character::Character;
use cloth_tuner::garment::imported::{GridChoice, ImportedGarment, Seam};
use cloth_tuner::garment::settings::settings_schema_text;
use cloth_tuner_assets::garment::GarmentKind;
use cloth_tuner_assets::test_rig::{test_rig_glb, RigStyle};

#[test]
fn the_committed_schema_is_the_generated_one() {
    let committed = std::fs::read_to_string("docs/garment-settings.schema.json").unwrap();
    assert_eq!(
        committed,
        settings_schema_text(),
        "regenerate: cargo run -- schema --garment-settings > docs/garment-settings.schema.json"
    );
}

#[test]
fn the_documented_example_is_valid_by_the_schema_and_the_loader() {
    let doc = std::fs::read_to_string("docs/your-garment.md").unwrap();
    let start = doc.find("```json\n").expect("an example") + 8;
    let example = &doc[start..start + doc[start..].find("```").unwrap()];
    let settings = GridChoice::from_json(example, Path::new("example.json")).unwrap();
    assert_eq!(settings.rows, Some(12));
    assert_eq!(settings.seam, Seam::Open);
    let schema: serde_json::Value = serde_json::from_str(&settings_schema_text()).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.add_resource("schema.json", schema).unwrap();
    let index = compiler.compile("schema.json", &mut schemas).unwrap();
    let valid = |text: &str| {
        let instance: serde_json::Value = serde_json::from_str(text).unwrap();
        schemas.validate(&instance, index).is_ok()
    };
    assert!(valid(example));
    // The schema and the loader refuse the same things.
    for bad in [
        r#"{ "rows": 1000 }"#,
        r#"{ "columns": 2 }"#,
        r#"{ "spacing_m": 0 }"#,
        r#"{ "pin_height_m": -1 }"#,
        r#"{ "seam": "zipped" }"#,
        r#"{ "seam_at_deg": 270 }"#,
        r#"{ "colums": 9 }"#,
    ] {
        assert!(!valid(bad), "the schema takes {bad}");
        assert!(
            GridChoice::from_json(bad, Path::new("x.json")).is_err(),
            "the loader takes {bad}"
        );
    }
}

#[test]
fn bad_values_name_the_file_the_field_and_the_range() {
    let cases = [
        (r#"{ "rows": 1000 }"#, "`rows`", "3 to 80"),
        (r#"{ "spacing_m": 2.5 }"#, "`spacing_m`", "0.01 m to 0.25 m"),
        (
            r#"{ "seam_at_deg": -200 }"#,
            "`seam_at_deg`",
            "-180° to 180°",
        ),
        (r#"{ "seam": "zipped" }"#, "`seam`", "auto"),
        (r#"{ "rows": "many" }"#, "`rows`", "invalid type"),
    ];
    for (text, field, range) in cases {
        let e = GridChoice::from_json(text, Path::new("hero.coat.cloth-garment.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("hero.coat.cloth-garment.json"), "{e}");
        assert!(e.contains(field) && e.contains(range), "{text}: {e}");
    }
}

#[test]
fn settings_round_trip_beside_the_garment() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hero.glb");
    let path = GridChoice::path_beside(&file, "Coat|long 01");
    assert_eq!(
        path,
        dir.path().join("hero.Coat_long_01.cloth-garment.json")
    );
    assert_eq!(
        GridChoice::load_beside(&file, "Coat|long 01").unwrap(),
        GridChoice::default(),
        "no file: the defaults"
    );
    let choice = GridChoice {
        cols: Some(15),
        pin_height_m: Some(1.05),
        seam: Seam::Closed,
        ..GridChoice::default()
    };
    choice.save(&path).unwrap();
    assert_eq!(
        GridChoice::load_beside(&file, "Coat|long 01").unwrap(),
        choice
    );
    // A value out of range is never written; the file stays as it was.
    let bad = GridChoice {
        rows: Some(1),
        ..choice.clone()
    };
    assert!(bad.save(&path).unwrap_err().to_string().contains("`rows`"));
    assert_eq!(GridChoice::load(&path).unwrap(), choice);
}

#[test]
fn the_seam_setting_opens_closes_and_turns_the_grid() {
    let style = RigStyle {
        clips: Vec::new(),
        garments: vec![GarmentKind::Skirt],
        cell: 0.04,
        ..RigStyle::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rig.glb");
    std::fs::write(&path, test_rig_glb(&style)).unwrap();
    let (character, worn) = Character::open_wearing(&path, None, "skirt").unwrap();
    let lay = |choice: GridChoice| {
        ImportedGarment::new(&character, &worn, &choice)
            .unwrap()
            .grid()
            .clone()
    };
    let found = lay(GridChoice::default());
    assert!(found.closed, "the skirt is found closed");
    let turned = lay(GridChoice {
        seam_at_deg: Some(90.0),
        ..GridChoice::default()
    });
    assert!(turned.closed);
    assert!((turned.start - 90f32.to_radians()).abs() < 1e-6);
    let opened = lay(GridChoice {
        seam: Seam::Open,
        seam_at_deg: Some(0.0),
        ..GridChoice::default()
    });
    assert!(!opened.closed, "opened at the front");
    assert!(opened.span < std::f32::consts::TAU);
    // The opening's middle is at the front: its edges lie half the gap either side of 0°.
    let gap = std::f32::consts::TAU - opened.span;
    assert!((opened.start - gap * 0.5).abs() < 1e-5, "{}", opened.start);
}
