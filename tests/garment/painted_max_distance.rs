//! A max distance painted per particle (`max_distance_map` in the preset), as an artist checks
//! it: the painted value is what the cloth uses and what `simulate` shows, the rest keeps the
//! curve, a preset without a map plays exactly as before, the map survives a save, bad maps
//! are refused by name, and every engine export carries the painted values.

use std::sync::Arc;

use cloth_tuner::character::Character;
use cloth_tuner::export::{export_for_engine, Engine};
use cloth_tuner::preset::{MaxDistanceMap, Preset};
use cloth_tuner::scene::metrics::simulate;
use cloth_tuner::scene::Scene;
use serde_json::Value;

const COLS: usize = 17;
const ROWS: usize = 10;

fn character() -> Arc<Character> {
    Arc::new(Character::builtin())
}

fn tweed() -> Preset {
    Preset::load("presets/tweed.json").unwrap()
}

/// The tweed with the hem row painted `metres` (the rest left to the curve).
fn hem_painted(metres: f32) -> Preset {
    let mut map = MaxDistanceMap::new(COLS, ROWS);
    for m in &mut map.metres[(ROWS - 1) * COLS..] {
        *m = Some(metres);
    }
    Preset {
        max_distance_map: Some(map),
        ..tweed()
    }
}

fn hem() -> std::ops::Range<usize> {
    (ROWS - 1) * COLS..ROWS * COLS
}

#[test]
fn painting_the_hem_0_pins_it_in_simulate_and_the_unpainted_particles_keep_the_curve() {
    let plain = Scene::new(character(), &tweed(), "dodge").unwrap();
    let mut painted = Scene::new(character(), &hem_painted(0.0), "dodge").unwrap();
    let (curve, md) = (
        plain.cloth().max_distances(),
        painted.cloth().max_distances(),
    );
    assert_eq!(md.len(), COLS * ROWS);
    for i in 0..md.len() {
        if hem().contains(&i) {
            assert_eq!(md[i], 0.0, "hem particle {i}");
            assert!(curve[i] > 0.1, "the curve gives the hem {}", curve[i]);
        } else if i >= COLS {
            // The hard constraints hold each column at rest length, so nothing above a
            // pinned hem may stray either.
            assert_eq!(md[i], 0.0, "particle {i} above the pinned hem");
        }
    }
    // One particle painted mid-column: the column above it is held as close, the rows below
    // and every other column keep the curve.
    let (col, row) = (5, 4);
    let mut map = MaxDistanceMap::new(COLS, ROWS);
    map.metres[row * COLS + col] = Some(0.01);
    let one = Preset {
        max_distance_map: Some(map),
        ..tweed()
    };
    let scene = Scene::new(character(), &one, "dodge").unwrap();
    let held = scene.cloth().max_distances();
    for i in COLS..held.len() {
        let expected = if i % COLS == col && i / COLS <= row {
            curve[i].min(0.01)
        } else {
            curve[i]
        };
        assert_eq!(held[i], expected, "particle {i}");
    }
    // Stepped through the dodge, the hem never leaves its skinned position.
    for _ in 0..180 {
        painted.step();
        let pos = painted.cloth().positions();
        for i in hem() {
            let d = pos[i].distance(painted.references()[i]);
            assert!(d < 1e-4, "hem particle {i} is {d} m from its reference");
        }
    }
    let swing = |p: &Preset| simulate(character(), p, "dodge", 3.0).unwrap();
    let (before, after) = (swing(&tweed()), swing(&hem_painted(0.0)));
    assert!(
        before.hem_swing_peak_cm > 5.0,
        "{}",
        before.hem_swing_peak_cm
    );
    assert!(
        after.hem_swing_peak_cm < 0.01,
        "{}",
        after.hem_swing_peak_cm
    );
}

#[test]
fn a_hem_painted_close_under_free_rows_keeps_its_columns_at_rest_length() {
    // The hem held within 1 cm, the rows above it on the curve (up to 25 cm): the hard
    // constraints must still hold every column, with nothing clamped after the hard pass.
    let m = simulate(character(), &hem_painted(0.01), "walk", 6.0).unwrap();
    assert!(
        m.max_vertical_stretch_pct < 0.01,
        "columns stretch {} %",
        m.max_vertical_stretch_pct
    );
    assert_eq!(m.post_hard_clamps, 0, "clamped after the hard pass");
}

#[test]
fn a_map_with_nothing_painted_plays_bit_identical_to_no_map() {
    let blank = Preset {
        max_distance_map: Some(MaxDistanceMap::new(COLS, ROWS)),
        ..tweed()
    };
    let mut a = Scene::new(character(), &tweed(), "walk").unwrap();
    let mut b = Scene::new(character(), &blank, "walk").unwrap();
    for _ in 0..120 {
        a.step();
        b.step();
    }
    let bits = |s: &Scene| -> Vec<[u32; 3]> {
        let p = s.cloth().positions();
        p.iter()
            .map(|v| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()])
            .collect()
    };
    assert_eq!(bits(&a), bits(&b));
}

#[test]
fn a_painted_preset_round_trips_and_shipped_presets_load_without_a_map() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("painted.json");
    let mut p = hem_painted(0.05);
    if let Some(m) = p.max_distance_map.as_mut() {
        m.metres[20] = Some(0.0);
    }
    p.save(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"max_distance_map\""), "{text}");
    assert!(text.contains("null"), "unpainted entries are null");
    let back = Preset::load(&path).unwrap();
    assert_eq!(back, p);
    assert_eq!(back.to_json(), text);
    for file in [
        "presets/tweed.json",
        "presets/down_jacket.json",
        "presets/veil.json",
    ] {
        let shipped = Preset::load(file).unwrap();
        assert_eq!(shipped.max_distance_map, None, "{file}");
        assert!(!shipped.to_json().contains("max_distance_map"), "{file}");
    }
}

/// The tweed's text with `map` (JSON) as its `max_distance_map`.
fn with_map(map: &str) -> Result<Preset, cloth_tuner::preset::PresetError> {
    let text = std::fs::read_to_string("presets/tweed.json").unwrap();
    let text = text.replacen(
        "\"params\": {",
        &format!("\"max_distance_map\": {map},\n  \"params\": {{"),
        1,
    );
    Preset::from_json(&text, "mine.json".as_ref())
}

fn map_text(cols: usize, rows: usize, fill: impl Fn(usize) -> String) -> String {
    let entries: Vec<String> = (0..cols * rows).map(fill).collect();
    format!(
        "{{ \"cols\": {cols}, \"rows\": {rows}, \"metres\": [{}] }}",
        entries.join(", ")
    )
}

#[test]
fn bad_maps_are_refused_naming_the_file_the_field_and_the_allowed_range() {
    let ok = map_text(COLS, ROWS, |i| {
        if i == 30 {
            "0.2".into()
        } else {
            "null".into()
        }
    });
    assert!(with_map(&ok).is_ok());

    // Wrong length.
    let short = map_text(COLS, ROWS, |_| "null".into()).replacen("null, ", "", 1);
    let e = with_map(&short).unwrap_err();
    assert_eq!(e.field(), Some("max_distance_map.metres"));
    let msg = e.to_string();
    assert!(
        msg.starts_with("mine.json:") && msg.contains("169 entries") && msg.contains("170"),
        "{msg}"
    );

    // Negative, too large.
    for (bad, value) in [("-0.01", "-0.01"), ("1.5", "1.5")] {
        let text = map_text(
            COLS,
            ROWS,
            |i| if i == 40 { bad.into() } else { "null".into() },
        );
        let e = with_map(&text).unwrap_err();
        assert_eq!(e.field(), Some("max_distance_map.metres[40]"));
        let msg = e.to_string();
        assert!(
            msg.contains(value) && msg.contains("allowed 0 to 1 m, or null for the curve"),
            "{msg}"
        );
    }

    // A grid side out of range.
    let e = with_map(&map_text(1, 5, |_| "null".into())).unwrap_err();
    assert_eq!(e.field(), Some("max_distance_map.cols"));
    assert!(e.to_string().contains("allowed 2 to 1000 particles"), "{e}");

    // NaN: JSON has none, so the file is refused as text; in memory, save refuses it rather
    // than writing it as null.
    let e = with_map(&map_text(COLS, ROWS, |i| {
        if i == 3 {
            "NaN".into()
        } else {
            "null".into()
        }
    }))
    .unwrap_err();
    assert!(e.to_string().starts_with("mine.json:"), "{e}");
    let mut p = hem_painted(0.1);
    if let Some(m) = p.max_distance_map.as_mut() {
        m.metres[50] = Some(f32::NAN);
    }
    let dir = tempfile::tempdir().unwrap();
    let e = p.save(dir.path().join("nan.json")).unwrap_err();
    assert_eq!(e.field(), Some("max_distance_map.metres[50]"));
    assert!(!dir.path().join("nan.json").exists());
}

#[test]
fn a_map_painted_on_another_grid_is_refused_by_simulate_the_scene_and_the_exports() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small_grid.json");
    let mut p = tweed();
    p.max_distance_map = Some(MaxDistanceMap::new(9, 6));
    p.save(&path).unwrap();

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
        .args([
            "simulate",
            "--preset",
            path.to_str().unwrap(),
            "--clip",
            "walk",
        ])
        .args(["--seconds", "0.5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("small_grid.json")
            && err.contains("max_distance_map")
            && err.contains("9 x 6")
            && err.contains("17 x 10"),
        "{err}"
    );
    let e = Scene::new(character(), &p, "walk")
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("max_distance_map") && e.contains("9 x 6"), "{e}");
    let grid = cloth_tuner::garment::builtin_grid(cloth_tuner::preset::Garment::Jacket);
    let e = export_for_engine(Engine::Unity, &p, None, grid)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("max_distance_map") && e.contains("17 x 10"),
        "{e}"
    );
}

/// The painted particle's value in `engine`'s settings, where the engine reads it.
fn engine_value(engine: Engine, doc: &Value, i: usize) -> f64 {
    let pp = &doc["per_particle"];
    let v = match engine {
        Engine::Unity => &pp["coefficients"][i]["maxDistance"],
        Engine::Chaos => &pp["MaxDistance"][i],
        Engine::Jolt => &pp["mSkinnedConstraints"][i]["mMaxDistance"],
        Engine::NvCloth => &pp["getMotionConstraints"][i]["w"],
        Engine::Magica2 => &pp["maxDistance"][i],
    };
    v.as_f64()
        .unwrap_or_else(|| panic!("{engine}: no value for particle {i} in {pp}"))
}

#[test]
fn every_engine_export_carries_the_painted_values() {
    let mut p = tweed();
    let mut map = MaxDistanceMap::new(COLS, ROWS);
    let (edge, inner) = (5 * COLS, 5 * COLS + 8);
    map.metres[edge] = Some(0.0625);
    map.metres[inner] = Some(0.5);
    p.max_distance_map = Some(map);
    let plain = tweed();
    for engine in Engine::ALL {
        let out = export_for_engine(
            engine,
            &p,
            None,
            cloth_tuner::garment::builtin_grid(cloth_tuner::preset::Garment::Jacket),
        )
        .unwrap();
        let doc: Value = serde_json::from_str(&out.envelope().contents).unwrap();
        // Chaos reads centimetres.
        let unit = if engine == Engine::Chaos { 100.0 } else { 1.0 };
        for (i, m) in [(edge, 0.0625), (inner, 0.5)] {
            let got = engine_value(engine, &doc, i);
            assert!(
                (got - m * unit).abs() < 1e-5,
                "{engine}: particle {i} is {got}"
            );
        }
        let csv = out
            .files
            .iter()
            .find(|f| f.extension == "particles.csv")
            .unwrap();
        let line = csv.contents.lines().nth(1 + inner).unwrap();
        assert!(
            line.starts_with(&format!("{inner},5,8,0,0,0.5,")),
            "{engine}: {line}"
        );
        // An unpainted particle keeps the curve's value.
        let base = export_for_engine(
            engine,
            &plain,
            None,
            cloth_tuner::garment::builtin_grid(cloth_tuner::preset::Garment::Jacket),
        )
        .unwrap();
        let base: Value = serde_json::from_str(&base.envelope().contents).unwrap();
        if engine != Engine::Magica2 {
            assert_eq!(
                engine_value(engine, &doc, inner + 1),
                engine_value(engine, &base, inner + 1),
                "{engine}"
            );
        }
    }
    let magica = export_for_engine(
        Engine::Magica2,
        &p,
        None,
        cloth_tuner::garment::builtin_grid(cloth_tuner::preset::Garment::Jacket),
    )
    .unwrap();
    assert!(
        magica.warnings.iter().any(|w| w.knob == "max_distance_map"),
        "Magica's curve cannot hold the paint: the artist is told"
    );
}
