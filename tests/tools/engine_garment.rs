//! Engine exports on the artist's own garment (`export --engine E --character C
//! --garment-mesh M`, `--garment G`): every engine's per-vertex array has one entry per vertex
//! of the garment's mesh, in its file's order, inside the engine's ranges; the vertices above
//! the pin line are pinned with max distance 0, the hem's move further than the pin line's; a
//! file listing the same vertices in another order gets the same values in that order; and a
//! garment that is not there is refused by name.

use std::path::{Path, PathBuf};

use cloth_tuner::character::Character;
use cloth_tuner::export::vertices::MeshVertices;
use cloth_tuner::export::{export_for_garment, Engine, GridSize};
use cloth_tuner::garment::imported::{GridChoice, ImportedGarment};
use cloth_tuner::garment::Garment;
use cloth_tuner_assets::garment::{garment_file_glb, garment_file_glb_shuffled, GarmentKind};
use cloth_tuner_assets::test_rig::{test_rig_glb, RigStyle};
use serde_json::Value;

use super::export_engines::check_against;
use super::rigged::{run_ok, tweed};

/// A coarse test rig with no clips, wearing `garments` in its own file.
fn rig(dir: &Path, garments: Vec<GarmentKind>) -> PathBuf {
    let style = RigStyle {
        garments,
        clips: Vec::new(),
        cell: 0.03,
        ..Default::default()
    };
    let path = dir.join("wearing.glb");
    std::fs::write(&path, test_rig_glb(&style)).unwrap();
    path
}

/// Every engine's envelope for `garment` (tweed), parsed.
fn envelopes(garment: &ImportedGarment) -> Vec<(Engine, Value)> {
    let grid = GridSize::of_topology(&garment.rig().topology);
    let mesh = MeshVertices::of(garment);
    Engine::ALL
        .into_iter()
        .map(|engine| {
            let out = export_for_garment(engine, &tweed(), None, grid, &mesh).unwrap();
            (
                engine,
                serde_json::from_str(&out.envelope().contents).unwrap(),
            )
        })
        .collect()
}

/// Each per-vertex array of an engine's envelope, by name, as numbers (Magica's attributes:
/// 1 for `Fixed`).
fn arrays(engine: Engine, doc: &Value) -> Vec<(&'static str, Vec<f64>)> {
    let pp = &doc["per_particle"];
    let of = |v: &Value, key: &str| -> Vec<f64> {
        v.as_array()
            .unwrap_or_else(|| panic!("{engine}: no array {key}"))
            .iter()
            .map(|x| match x {
                Value::String(s) => (s == "Fixed") as u8 as f64,
                Value::Object(_) => x[key].as_f64().unwrap(),
                _ => x.as_f64().unwrap(),
            })
            .collect()
    };
    match engine {
        Engine::Unity => vec![("coefficients", of(&pp["coefficients"], "maxDistance"))],
        Engine::Chaos => vec![("MaxDistance", of(&pp["MaxDistance"], ""))],
        Engine::Jolt => vec![
            ("mInvMass", of(&pp["mVertices"], "mInvMass")),
            (
                "mMaxDistance",
                of(&pp["mSkinnedConstraints"], "mMaxDistance"),
            ),
        ],
        Engine::NvCloth => vec![
            ("invMass", of(&pp["createCloth"]["particles"], "w")),
            ("maxDistance", of(&pp["getMotionConstraints"], "w")),
        ],
        Engine::Magica2 => vec![
            ("fixed", of(&pp["attributes"], "")),
            ("depth", of(&pp["depth"], "")),
            ("maxDistance", of(&pp["maxDistance"], "")),
        ],
    }
}

#[test]
fn every_engine_covers_the_coats_own_vertices_pinned_above_the_pin_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = rig(dir.path(), vec![GarmentKind::LongCoat]);
    let (character, worn) = Character::open_wearing(&path, None, "long_coat").unwrap();
    let garment = ImportedGarment::new(&character, &worn, &GridChoice::default()).unwrap();
    let n = worn.mesh.positions.len();
    let pin = garment.grid().pin_height;
    let hem = garment.grid().hem_height;
    let ys: Vec<f32> = worn.mesh.positions.iter().map(|p| p.y).collect();
    let above: Vec<usize> = (0..n).filter(|&v| ys[v] > pin).collect();
    let at_hem: Vec<usize> = (0..n).filter(|&v| ys[v] < hem + 0.03).collect();
    let near_pin: Vec<usize> = (0..n)
        .filter(|&v| (pin - 0.03..pin).contains(&ys[v]))
        .collect();
    assert!(!above.is_empty() && !at_hem.is_empty() && !near_pin.is_empty());
    for (engine, doc) in envelopes(&garment) {
        assert_eq!(doc["mesh"]["name"], "long_coat", "{engine}");
        assert_eq!(doc["mesh"]["vertex_count"], n, "{engine}");
        let pinned = doc["mesh"]["pinned"].as_array().unwrap();
        assert_eq!(pinned.len(), n, "{engine}");
        assert!(above.iter().all(|&v| pinned[v] == true), "{engine}");
        if engine != Engine::Magica2 {
            let info = engine.info();
            check_against(
                engine,
                "per-vertex",
                &doc["per_particle"],
                &info.per_particle,
            );
        }
        for (name, values) in arrays(engine, &doc) {
            assert_eq!(values.len(), n, "{engine} {name}");
            assert!(
                values.iter().all(|x| x.is_finite() && *x >= 0.0),
                "{engine} {name}"
            );
            let mean = |vs: &[usize]| vs.iter().map(|&v| values[v]).sum::<f64>() / vs.len() as f64;
            match name {
                "fixed" => assert!(above.iter().all(|&v| values[v] == 1.0), "{engine}"),
                "depth" => assert!(values.iter().all(|&d| d <= 1.0), "{engine}"),
                // Inverse masses: 0 on every pinned vertex, the hem's free.
                "mInvMass" | "invMass" => {
                    assert!(above.iter().all(|&v| values[v] == 0.0), "{engine} {name}");
                    assert!(at_hem.iter().all(|&v| values[v] > 0.0), "{engine} {name}");
                }
                // Max distances: 0 above the pin line, the hem's the largest.
                _ => {
                    assert!(above.iter().all(|&v| values[v] == 0.0), "{engine} {name}");
                    assert!(mean(&at_hem) > 2.0 * mean(&near_pin), "{engine} {name}");
                    let top = values.iter().cloned().fold(0.0, f64::max);
                    let hem_max = at_hem.iter().map(|&v| values[v]).fold(0.0, f64::max);
                    assert_eq!(hem_max, top, "{engine} {name}: the hem moves furthest");
                }
            }
        }
    }
}

#[test]
fn a_file_listing_the_vertices_in_another_order_gets_the_values_in_its_order() {
    let dir = tempfile::tempdir().unwrap();
    let body = rig(dir.path(), Vec::new());
    let character = Character::open_or_builtin(Some(&body), None).unwrap();
    let style = RigStyle {
        cell: 0.03,
        ..Default::default()
    };
    let plain = dir.path().join("coat.glb");
    std::fs::write(&plain, garment_file_glb(GarmentKind::LongCoat, &style)).unwrap();
    let (bytes, at) = garment_file_glb_shuffled(GarmentKind::LongCoat, &style, 7);
    let shuffled = dir.path().join("shuffled.glb");
    std::fs::write(&shuffled, bytes).unwrap();
    let wear = |file: &Path| {
        let worn = character.read_garment(file, None).unwrap();
        ImportedGarment::new(&character, &worn, &GridChoice::default()).unwrap()
    };
    let (a, b) = (envelopes(&wear(&plain)), envelopes(&wear(&shuffled)));
    assert!(at.iter().enumerate().any(|(i, &k)| i != k), "not shuffled");
    for ((engine, x), (_, y)) in a.iter().zip(&b) {
        for ((name, xs), (_, ys)) in arrays(*engine, x).into_iter().zip(arrays(*engine, y)) {
            assert_eq!(xs.len(), ys.len());
            for (i, &k) in at.iter().enumerate() {
                assert_eq!(xs[i], ys[k], "{engine} {name}: vertex {i}, listed at {k}");
            }
        }
    }
}

#[test]
fn the_command_line_writes_the_garments_vertices_and_names_a_missing_garment() {
    let dir = tempfile::tempdir().unwrap();
    let path = rig(dir.path(), vec![GarmentKind::LongCoat]);
    let rig = path.to_str().unwrap();
    let out = dir.path().join("coat_unity.json");
    let base = [
        "export",
        "--engine",
        "unity",
        "--preset",
        "presets/tweed.json",
    ];
    let args = ["--character", rig, "--garment-mesh", "long_coat", "--out"];
    let report = run_ok(&[&base[..], &args[..]].concat(), &out, &[]);
    let n = Character::open_wearing(&path, None, "long_coat")
        .unwrap()
        .1
        .mesh
        .positions
        .len();
    assert!(
        report.contains(&format!("garment `long_coat`: {n} vertices on a ")),
        "{report}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(
        doc["per_particle"]["coefficients"]
            .as_array()
            .unwrap()
            .len(),
        n
    );
    let csv = std::fs::read_to_string(out.with_extension("particles.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + n);
    // The character alone: the preset's template fitted to it, its arrays over the grid.
    let jacket = dir.path().join("jacket_unity.json");
    let report = run_ok(
        &[&base[..], &["--character", rig, "--out"]].concat(),
        &jacket,
        &[],
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&jacket).unwrap()).unwrap();
    let cells = doc["grid"]["cols"].as_u64().unwrap() * doc["grid"]["rows"].as_u64().unwrap();
    assert!(
        doc.get("mesh").is_none() && !report.contains("garment `"),
        "{report}"
    );
    assert_eq!(
        doc["per_particle"]["coefficients"]
            .as_array()
            .unwrap()
            .len() as u64,
        cells
    );
    // A garment the file does not have, and --grid on the artist's garment.
    let run = |extra: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
            .args(base)
            .args(["--character", rig, "--out"])
            .arg(dir.path().join("x.json"))
            .args(extra)
            .output()
            .unwrap();
        assert!(!o.status.success(), "{extra:?}");
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let e = run(&["--garment-mesh", "no_such_coat"]);
    assert!(
        e.contains("wearing.glb") && e.contains("no skinned mesh called `no_such_coat`"),
        "{e}"
    );
    assert!(e.contains("long_coat"), "the meshes there are named: {e}");
    let e = run(&["--garment-mesh", "long_coat", "--grid", "9x9"]);
    assert!(e.contains("--grid is for a template garment"), "{e}");
    assert!(!dir.path().join("x.json").exists());
}
