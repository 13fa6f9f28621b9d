use std::path::Path;

use super::*;

const SHIPPED: [&str; 3] = [
    "presets/tweed.json",
    "presets/down_jacket.json",
    "presets/veil.json",
];

fn parse(text: &str) -> Result<Preset, PresetError> {
    Preset::from_json(text, Path::new("my/fabric.json"))
}

fn tweed_text() -> String {
    std::fs::read_to_string("presets/tweed.json").unwrap()
}

#[test]
fn every_shipped_preset_loads_validates_and_round_trips_byte_for_byte() {
    for file in SHIPPED {
        let text = std::fs::read_to_string(file).unwrap();
        let preset = Preset::load(file).unwrap_or_else(|e| panic!("{e}"));
        assert!(preset.params.validate().is_ok());
        assert!(!preset.name.is_empty() && !preset.description.is_empty());
        assert_eq!(preset.to_json(), text, "{file} is not in canonical form");
        // Through a real save and load too.
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("copy.json");
        preset.save(&out).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
        assert_eq!(Preset::load(&out).unwrap(), preset);
    }
}

#[test]
fn the_shipped_fabrics_are_tuned_as_the_article_describes_them() {
    let [tweed, down, veil] = SHIPPED.map(|f| Preset::load(f).unwrap());
    // Tweed is heavy: low damping keeps it swinging; stickier on the body than in the air.
    assert!(
        tweed.params.damping < down.params.damping && tweed.params.damping < veil.params.damping
    );
    assert!(tweed.params.contact_damping > tweed.params.damping * 10.0);
    assert!(tweed.params.hard_constraints);
    // The down jacket is the stiffest and has the hood.
    assert!(down.params.shear_bend_stiffness > tweed.params.shear_bend_stiffness);
    assert_eq!(down.garment, Garment::HoodedJacket);
    // The veil is light: most damping (settles slowly and softly), softest, and by far the
    // most wind-driven (its drag catches nearly five times the tweed's wind, seven the down
    // jacket's). It is worn on the head.
    assert_eq!(veil.garment, Garment::Veil);
    assert!(veil.params.damping > down.params.damping);
    assert!(veil.params.shear_bend_stiffness < tweed.params.shear_bend_stiffness);
    assert!(veil.params.wind_drag > 4.0 * tweed.params.wind_drag);
    assert!(veil.params.wind_drag > 4.0 * down.params.wind_drag);
    // Remedy's range for the world-motion fraction, and under their 40 cm max distance.
    for p in [&tweed, &down, &veil] {
        assert!(
            (0.1..=0.35).contains(&p.params.world_motion_fraction),
            "{}",
            p.name
        );
        assert!(p.params.max_distance_hem <= 0.45);
    }
}

#[test]
fn out_of_range_names_file_line_field_and_range() {
    let text = tweed_text().replace("\"damping\": 0.0096", "\"damping\": 1.5");
    let e = parse(&text).unwrap_err();
    assert_eq!(e.field(), Some("params.damping"));
    let line = text
        .lines()
        .position(|l| l.contains("\"damping\": 1.5"))
        .unwrap()
        + 1;
    assert_eq!(e.location().unwrap().line, line);
    assert_eq!(
        e.to_string(),
        format!("my/fabric.json:{line}:16: field `params.damping`: 1.5 is out of range; allowed 0 to 1 per step")
    );
    // A number too big for f32 becomes infinity and is out of range, not a panic.
    let e = parse(&tweed_text().replace("\"gravity\": 9.81", "\"gravity\": 1e300")).unwrap_err();
    assert_eq!(e.field(), Some("params.gravity"));
    assert!(e.to_string().contains("allowed 0 to 50 m/s²"), "{e}");
    // Whole numbers only where whole numbers belong.
    let text = tweed_text().replace("\"iterations\": 2", "\"iterations\": -2");
    assert!(text.contains("\"iterations\": -2"));
    let e = parse(&text).unwrap_err();
    assert_eq!(e.field(), Some("params.iterations"));
}

#[test]
fn unknown_fields_are_named() {
    let text = tweed_text().replace(
        "\"gravity\": 9.81",
        "\"gravity\": 9.81,\n    \"stifness\": 0.5",
    );
    let e = parse(&text).unwrap_err();
    let msg = e.to_string();
    assert!(msg.starts_with("my/fabric.json:"), "{msg}");
    assert!(msg.contains("unknown field `stifness`"), "{msg}");
    assert_eq!(e.field(), Some("params.stifness"));
    let e =
        parse(&tweed_text().replace("\"garment\"", "\"colour\": 3,\n  \"garment\"")).unwrap_err();
    assert!(e.to_string().contains("unknown field `colour`"), "{e}");
}

#[test]
fn wrong_types_and_broken_json_give_positions() {
    let e = parse(&tweed_text().replace(
        "\"hard_constraints\": true",
        "\"hard_constraints\": \"yes\"",
    ))
    .unwrap_err();
    assert_eq!(e.field(), Some("params.hard_constraints"));
    assert!(e.to_string().contains("expected a boolean"), "{e}");
    let text = tweed_text();
    let truncated = &text[..text.len() / 2];
    let e = parse(truncated).unwrap_err();
    assert!(matches!(e, PresetError::Syntax { .. }), "{e}");
    assert!(e.location().unwrap().line > 1);
    // NaN is not JSON.
    let e = parse(&tweed_text().replace("9.81", "NaN")).unwrap_err();
    assert!(matches!(e, PresetError::Syntax { .. }), "{e}");
    let e = parse("").unwrap_err();
    assert!(matches!(e, PresetError::Syntax { .. }), "{e}");
}

#[test]
fn files_that_are_not_presets_or_too_new_say_so() {
    let e = parse("[1, 2, 3]").unwrap_err();
    assert!(
        e.to_string()
            .contains("not a cloth-tuner preset (the top level is an array"),
        "{e}"
    );
    let e = parse("{\"name\": \"x\"}").unwrap_err();
    assert!(e.to_string().contains("no \"format\" field"), "{e}");
    let e = parse(&tweed_text().replace("\"version\": 2", "\"version\": 7")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "my/fabric.json: preset format version 7 is newer than this cloth-tuner reads (version 2); update cloth-tuner"
    );
    let e = parse(&tweed_text().replace("\"version\": 2", "\"version\": 0")).unwrap_err();
    assert_eq!(e.field(), Some("version"));
}

#[test]
fn missing_knobs_take_their_defaults() {
    let p = parse(r#"{"format": "cloth-tuner-preset", "version": 1, "name": "Bare"}"#).unwrap();
    assert_eq!(p.params, FabricParams::default());
    assert_eq!(p.garment, Garment::Jacket);
}

#[test]
fn load_errors_name_the_file() {
    let e = Preset::load("no/such/dir/fabric.json").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("no/such/dir/fabric.json: cannot read"),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin.json");
    std::fs::write(&bin, b"{\"format\": \"\xff\xfe\"}").unwrap();
    let e = Preset::load(&bin).unwrap_err();
    assert!(
        e.to_string()
            .contains("1:13: not valid JSON: the file is not UTF-8 text"),
        "{e}"
    );
}

#[test]
fn save_is_atomic_and_refuses_invalid_presets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.json");
    let good = Preset::load("presets/tweed.json").unwrap();
    good.save(&path).unwrap();
    let before = std::fs::read(&path).unwrap();
    // An invalid preset is refused and the file on disk is untouched.
    let mut bad = good.clone();
    bad.params.iterations = 1000;
    let e = bad.save(&path).unwrap_err();
    assert_eq!(e.field(), Some("params.iterations"));
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // A missing folder is an error naming the file, not a panic.
    let e = good.save(dir.path().join("missing/mine.json")).unwrap_err();
    assert!(
        e.to_string()
            .contains("missing/mine.json: cannot create a temporary file"),
        "{e}"
    );
    // No temporary files left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("mine.json")]);
}

const V0: &str = "tests/fixtures/preset_v0.json";
/// The same fabric as a version 1 file: the tweed as it shipped before the presets moved to a
/// 120 Hz solver (version 0 had no substeps, so its fabrics solve at their step rate).
const V1_OF_V0: &str = "tests/fixtures/preset_v1_tweed_60hz.json";

#[test]
fn a_version_0_preset_loads_through_the_migration() {
    // The fixture is the tweed preset as the version 0 prototype wrote it.
    let (old, version) = Preset::load_versioned(V0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(version, 0);
    assert_eq!(old.version, VERSION);
    let tweed = Preset::load(V1_OF_V0).unwrap();
    assert_eq!(old, tweed);
    // Saved, it is byte for byte that version 1 file saved (both migrated to the current
    // version, the look chosen from the name as version 1 did).
    assert_eq!(old.to_json(), tweed.to_json());
    assert!(old.to_json().contains("\"pattern\": \"woven\""));
    assert_eq!(
        Preset::load_versioned("presets/tweed.json").unwrap().1,
        VERSION
    );
}

#[test]
fn version_0_problems_point_at_the_old_field() {
    let text = std::fs::read_to_string(V0).unwrap();
    let line_of = |t: &str, needle: &str| t.lines().position(|l| l.contains(needle)).unwrap() + 1;
    // Out of range after migration: named by its new name, located at its old one.
    let bad = text.replace("\"friction\": 0.3", "\"friction\": 3.0");
    let e = parse(&bad).unwrap_err();
    assert_eq!(e.field(), Some("params.contact_damping"));
    assert_eq!(e.location().unwrap().line, line_of(&bad, "\"friction\""));
    // A time step that is no time step.
    let bad = text.replace("\"dt\": 0.016666668", "\"dt\": 0");
    let e = parse(&bad).unwrap_err();
    assert_eq!(e.field(), Some("fabric.dt"));
    assert_eq!(e.location().unwrap().line, line_of(&bad, "\"dt\""));
    // dt too long: 1/10 s is 10 Hz, below the range.
    let e = parse(&text.replace("\"dt\": 0.016666668", "\"dt\": 0.1")).unwrap_err();
    assert_eq!(e.field(), Some("params.timestep_hz"));
    assert!(e.to_string().contains("allowed 15 to 240 Hz"), "{e}");
    // Unknown and mistyped old fields.
    let bad = text.replace("\"gust_hz\"", "\"gust_rate\"");
    let e = parse(&bad).unwrap_err();
    assert_eq!(e.field(), Some("fabric.wind.gust_rate"));
    assert_eq!(e.location().unwrap().line, line_of(&bad, "gust_rate"));
    let bad = text.replace("\"solver_passes\": 4", "\"solver_passes\": \"four\"");
    let e = parse(&bad).unwrap_err();
    assert_eq!(e.field(), Some("params.iterations"));
    assert!(e.to_string().contains("in a version 0 preset"), "{e}");
    assert_eq!(e.location().unwrap().line, line_of(&bad, "solver_passes"));
}

#[test]
fn converted_from_hz_is_optional_and_range_checked() {
    let text = tweed_text().replace(
        "\"garment\": \"jacket\",",
        "\"garment\": \"jacket\",\n  \"converted_from_hz\": 60.0,",
    );
    let p = parse(&text).unwrap();
    assert_eq!(p.converted_from_hz, Some(60.0));
    assert_eq!(p.to_json(), text);
    let e = parse(&text.replace(
        "\"converted_from_hz\": 60.0",
        "\"converted_from_hz\": 1000.0",
    ))
    .unwrap_err();
    assert_eq!(e.field(), Some("converted_from_hz"));
    assert!(e.to_string().contains("allowed 15 to 240 Hz"), "{e}");
}

#[test]
fn the_format_reference_table_is_current() {
    let doc = std::fs::read_to_string("docs/preset-format.md").unwrap();
    assert!(
        doc.contains(&FabricParams::reference_table()),
        "docs/preset-format.md's parameter table is stale: paste `cloth-tuner params` into it"
    );
}

#[test]
fn save_refuses_to_replace_a_read_only_file_even_for_root() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("locked.json");
    std::fs::write(&path, "checked in\n").unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    let e = Preset::default().save(&path).unwrap_err().to_string();
    assert!(e.contains("locked.json") && e.contains("read-only"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "checked in\n");
    // Nothing left behind in the folder either.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn the_shipped_skirt_is_canonical_worn_at_the_waist_and_tuned_as_the_article_says() {
    let file = "presets/skirt.json";
    let text = std::fs::read_to_string(file).unwrap();
    let skirt = Preset::load(file).unwrap_or_else(|e| panic!("{e}"));
    assert!(skirt.params.validate().is_ok());
    assert_eq!(skirt.to_json(), text, "{file} is not in canonical form");
    assert_eq!(skirt.garment, Garment::Skirt);
    // Edges livelier than the body, calmer while touching it; heavy rows near the waist.
    assert!(skirt.params.edge_damping < skirt.params.damping);
    assert!(skirt.params.contact_damping > skirt.params.damping);
    assert!(skirt.params.mass_falloff > 1.0);
}

#[test]
fn a_file_without_an_areal_density_loads_with_the_documented_300_gsm() {
    // Files written before the knob existed: the migration's documented default, and the
    // shipped presets keep their own.
    let text = std::fs::read_to_string("presets/tweed.json").unwrap();
    let old: String = text
        .lines()
        .filter(|l| !l.contains("areal_density_gsm"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(parse(&old).unwrap().params.areal_density_gsm, 300.0);
    let shipped = |f: &str| Preset::load(f).unwrap().params.areal_density_gsm;
    assert!((350.0..=450.0).contains(&shipped("presets/tweed.json")));
    assert!((200.0..=300.0).contains(&shipped("presets/down_jacket.json")));
    assert!((30.0..=60.0).contains(&shipped("presets/veil.json")));
    let e = parse(&text.replace("\"areal_density_gsm\": 400.0", "\"areal_density_gsm\": 5.0"))
        .unwrap_err();
    assert_eq!(e.field(), Some("params.areal_density_gsm"));
    assert!(e.to_string().contains("10 to 2000 g/m²"), "{e}");
}
