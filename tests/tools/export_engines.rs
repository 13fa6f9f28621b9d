//! Engine exports as an engine programmer would check them: every file parses, every property
//! name is exactly the engine's (the checked-in list), every value is inside the engine's
//! range, our numbers come back through each formula, the same fabric at 30 and 60 Hz gives
//! the same engine fabric, per-particle data follows the grid, and bad input is refused or
//! warned about by name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use cloth_tuner::export::units::{
    chaos_stiffness_fraction, damping_from_jolt, per_rate, stiffness_from_compliance,
    wind_drag_from_nvcloth, AIR_DENSITY, CM_PER_M, MAGICA_DAMPING_SCALE,
};
use cloth_tuner::export::{
    does_not_map_table, export_for_engine, particle_table, Engine, GridSize, PropertySpec,
};
use cloth_tuner::preset::Preset;
use cloth_tuner::sim::FabricParams;
use serde_json::Value;

const SHIPPED: [&str; 3] = [
    "presets/tweed.json",
    "presets/down_jacket.json",
    "presets/veil.json",
];

/// The built-in jacket's grid.
fn jacket() -> GridSize {
    cloth_tuner::garment::builtin_grid(cloth_tuner::preset::Garment::Jacket)
}

/// Our envelope of `engine`'s export for `preset` at `hz`, parsed: the settings file itself,
/// or for Magica Cloth 2 (whose settings file holds Magica's fields alone) the envelope
/// beside it.
/// The C++ `export --engine` writes for `engine` (Jolt, NvCloth) and `preset` on the jacket.
fn generated_cpp(engine: Engine, preset: &Preset) -> String {
    let out = export_for_engine(engine, preset, None, jacket()).unwrap();
    out.files
        .into_iter()
        .find(|f| f.extension == "cpp")
        .unwrap()
        .contents
}

fn settings(engine: Engine, preset: &Preset, hz: Option<f32>) -> Value {
    let out = export_for_engine(engine, preset, hz, jacket()).unwrap();
    assert_eq!(out.files[0].extension, "json");
    serde_json::from_str(&out.envelope().contents).unwrap()
}

/// Every leaf of `v` by path (`a.b`, `a[]` for array elements), with its values.
pub(super) fn leaves(v: &Value, path: &str, out: &mut BTreeMap<String, Vec<Value>>) {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match v {
        Value::Object(map) => map.iter().for_each(|(k, x)| leaves(x, &join(k), out)),
        Value::Array(items) => items
            .iter()
            .for_each(|x| leaves(x, &format!("{path}[]"), out)),
        _ => out.entry(path.to_string()).or_default().push(v.clone()),
    }
}

/// Checks that `v`'s leaves are exactly `listed` and every value is in its range.
pub(super) fn check_against(
    engine: Engine,
    what: &str,
    v: &Value,
    listed: &BTreeMap<String, PropertySpec>,
) {
    let mut found = BTreeMap::new();
    leaves(v, "", &mut found);
    let names: BTreeSet<_> = found.keys().cloned().collect();
    let expected: BTreeSet<_> = listed.keys().cloned().collect();
    assert_eq!(
        names, expected,
        "{engine} {what}: names differ from engine_properties.json"
    );
    for (name, values) in &found {
        let spec = &listed[name];
        for x in values {
            match (x, spec.range) {
                (Value::Number(n), _) => {
                    let n = n.as_f64().unwrap();
                    assert!(
                        spec.accepts(n),
                        "{engine} {name} = {n} outside {:?}",
                        spec.range
                    );
                }
                (Value::Bool(_) | Value::String(_), None) => {}
                _ => panic!("{engine} {name}: unexpected {x}"),
            }
        }
    }
}

#[test]
fn every_export_parses_with_exactly_the_engines_names_inside_their_ranges() {
    for file in SHIPPED {
        let preset = Preset::load(file).unwrap();
        for engine in Engine::ALL {
            for hz in [None, Some(30.0), Some(90.0)] {
                let doc = settings(engine, &preset, hz);
                let info = engine.info();
                assert_eq!(doc["engine_version"], info.version.as_str());
                check_against(engine, "properties", &doc["properties"], &info.properties);
                check_against(
                    engine,
                    "per-particle",
                    &doc["per_particle"],
                    &info.per_particle,
                );
            }
        }
    }
}

#[test]
fn a_wild_but_valid_fabric_still_exports_inside_the_engines_ranges_with_warnings() {
    let wild = FabricParams {
        gravity: 50.0,
        wind_speed: 100.0,
        wind_drag: 50.0,
        contact_damping: 1.0,
        damping: 1.0,
        iterations: 32,
        substeps: 8,
        timestep_hz: 240.0,
        ..Default::default()
    };
    let preset = Preset::new("Wild", wild);
    for engine in Engine::ALL {
        let out = export_for_engine(engine, &preset, None, jacket()).unwrap();
        let doc: Value = serde_json::from_str(&out.envelope().contents).unwrap();
        let info = engine.info();
        check_against(engine, "properties", &doc["properties"], &info.properties);
        assert!(!out.warnings.is_empty(), "{engine}");
    }
}

#[test]
fn per_particle_data_follows_the_jacket_grid_in_order() {
    let preset = Preset::load("presets/tweed.json").unwrap();
    let table = particle_table(jacket(), &preset.params, &[]);
    let (cols, rows) = (jacket().cols, jacket().rows);
    assert_eq!(table.len(), cols * rows);
    let edges = table.iter().filter(|p| p.edge).count();
    // The hem row and both side columns below the pinned row.
    assert_eq!(edges, cols + 2 * (rows - 2));
    let unity = settings(Engine::Unity, &preset, None);
    let chaos = settings(Engine::Chaos, &preset, None);
    let jolt = settings(Engine::Jolt, &preset, None);
    let nv = settings(Engine::NvCloth, &preset, None);
    for p in &table {
        let i = p.index;
        let md = p.max_distance_m as f64;
        let close =
            |v: &Value, want: f64| (v.as_f64().unwrap() - want).abs() <= 1e-6 * want.max(1.0);
        assert!(close(
            &unity["per_particle"]["coefficients"][i]["maxDistance"],
            md
        ));
        assert!(close(
            &chaos["per_particle"]["MaxDistance"][i],
            md * CM_PER_M
        ));
        assert_eq!(jolt["per_particle"]["mSkinnedConstraints"][i]["mVertex"], i);
        assert!(close(
            &jolt["per_particle"]["mSkinnedConstraints"][i]["mMaxDistance"],
            md
        ));
        assert!(close(
            &nv["per_particle"]["getMotionConstraints"][i]["w"],
            md
        ));
        assert!(close(
            &jolt["per_particle"]["mVertices"][i]["mInvMass"],
            p.inv_mass as f64
        ));
        assert_eq!(unity["grid"]["edge"][i], p.edge);
        assert_eq!(unity["grid"]["pinned"][i], p.pinned);
    }
    // Pinned particles are hard-skinned; the hem swings furthest, its edges further still.
    assert_eq!(table[0].max_distance_m, 0.0);
    let hem = &table[(rows - 1) * cols..];
    assert!(hem
        .iter()
        .all(|p| p.max_distance_m > table[cols + cols / 2].max_distance_m));
}

#[test]
fn our_numbers_come_back_through_each_formula() {
    // Values away from 0 and 1 so the single-precision files keep them readable.
    let preset = Preset::new(
        "Moderate",
        FabricParams {
            timestep_hz: 30.0,
            substeps: 1,
            iterations: 2,
            damping: 0.03,
            stretch_stiffness: 0.5,
            shear_bend_stiffness: 0.02,
            mass_falloff: 1.3,
            gravity: 9.0,
            collision_margin: 0.02,
            ..Default::default()
        },
    );
    let p = &preset.params;
    let h = p.timestep_hz as f64 * p.substeps as f64;
    let n = p.iterations as f64;
    let near = |a: f64, b: f64| (a - b).abs() < 1e-5 * b.abs().max(1e-3);
    let num = |v: &Value| v.as_f64().unwrap();

    let u = &settings(Engine::Unity, &preset, None)["properties"];
    assert!(near(
        per_rate(num(&u["damping"]), 10.0, h),
        p.damping as f64
    ));
    assert!(near(
        per_rate(num(&u["bendingStiffness"]), 10.0, n * h),
        p.shear_bend_stiffness as f64
    ));
    assert!(near(num(&u["clothSolverFrequency"]), n * h));

    let c = &settings(Engine::Chaos, &preset, None)["properties"];
    let cc = &c["ChaosClothConfig"];
    assert!(near(
        num(&cc["CollisionThickness"]) / CM_PER_M,
        p.collision_margin as f64
    ));
    assert!(near(-num(&cc["Gravity"]["Z"]) / CM_PER_M, p.gravity as f64));
    let bend = chaos_stiffness_fraction(num(&cc["BendingStiffnessWeighted"]["Low"]));
    assert!(near(
        per_rate(bend, 120.0, n * h),
        p.shear_bend_stiffness as f64
    ));
    assert_eq!(
        c["ChaosClothSharedSimConfig"]["SubdivisionCount"],
        p.substeps
    );

    let j = &settings(Engine::Jolt, &preset, None);
    let sb = &j["properties"]["SoftBodyCreationSettings"];
    let iterations = num(&sb["mNumIterations"]);
    let sub_rate = p.timestep_hz as f64 * iterations;
    assert!(
        near(sub_rate, n * h),
        "Jolt substeps a second are our passes a second"
    );
    assert!(near(
        damping_from_jolt(num(&sb["mLinearDamping"]), h, sub_rate),
        p.damping as f64
    ));
    // Row 5's shear compliance gives back the shear/bend stiffness for its weight.
    let table = particle_table(jacket(), p, &[]);
    let w = 2.0 * table[5 * jacket().cols + jacket().cols / 2].inv_mass as f64;
    let alpha = num(&j["properties"]["VertexAttributes"][5]["mShearCompliance"]);
    let k = stiffness_from_compliance(alpha, w, 1.0 / sub_rate);
    assert!(near(k, p.shear_bend_stiffness as f64), "{k}");

    let v = &settings(Engine::NvCloth, &preset, None)["properties"];
    assert!(near(num(&v["setDamping"]["x"]), p.damping as f64));
    assert!(near(num(&v["setStiffnessFrequency"]), h));
    let shear = num(&v["setPhaseConfig"][2]["mStiffness"]);
    assert!(near(
        per_rate(shear, h, n * h),
        p.shear_bend_stiffness as f64
    ));

    let m = &settings(Engine::Magica2, &preset, None)["properties"];
    assert!(near(
        per_rate(num(&m["damping"]["value"]) * MAGICA_DAMPING_SCALE, 90.0, h),
        p.damping as f64
    ));
    assert!(near(
        num(&m["motionConstraint"]["maxDistance"]["value"]),
        p.max_distance_hem as f64
    ));
    let keys = m["motionConstraint"]["maxDistance"]["curve"]["m_Curve"]
        .as_array()
        .unwrap();
    assert!(near(
        num(&keys[0]["value"]) * p.max_distance_hem as f64,
        p.max_distance_top as f64
    ));
    assert!(near(num(&keys[keys.len() - 1]["value"]), 1.0));
}

#[test]
fn the_same_fabric_at_30_and_60_hz_gives_the_engines_the_same_fabric() {
    for file in SHIPPED {
        let preset = Preset::load(file).unwrap();
        for engine in Engine::ALL {
            let at = |hz: f32| settings(engine, &preset, Some(hz))["properties"].clone();
            let (a, b) = (at(30.0), at(60.0));
            let per_second = per_second_values(engine, &a);
            let other = per_second_values(engine, &b);
            for ((name, x), (_, y)) in per_second.iter().zip(&other) {
                assert!(
                    (x - y).abs() <= 1e-4 * x.abs().max(1e-6),
                    "{file} {engine} {name}: {x} at 30 Hz, {y} at 60 Hz"
                );
            }
        }
    }
}

/// What an engine's values mean per second (or per its own fixed period), which must not
/// depend on the step the preset was exported at.
fn per_second_values(engine: Engine, v: &Value) -> Vec<(&'static str, f64)> {
    let num = |x: &Value| x.as_f64().unwrap();
    match engine {
        Engine::Unity => vec![
            ("damping", num(&v["damping"])),
            ("stretchingStiffness", num(&v["stretchingStiffness"])),
            ("bendingStiffness", num(&v["bendingStiffness"])),
            ("clothSolverFrequency", num(&v["clothSolverFrequency"])),
        ],
        Engine::Chaos => vec![
            (
                "EdgeStiffness",
                num(&v["ChaosClothConfig"]["EdgeStiffnessWeighted"]["Low"]),
            ),
            (
                "BendingStiffness",
                num(&v["ChaosClothConfig"]["BendingStiffnessWeighted"]["Low"]),
            ),
        ],
        Engine::Jolt => vec![
            (
                "mLinearDamping",
                num(&v["SoftBodyCreationSettings"]["mLinearDamping"]),
            ),
            (
                "mShearCompliance",
                num(&v["VertexAttributes"][5]["mShearCompliance"]),
            ),
        ],
        Engine::NvCloth => {
            // Velocity kept per second: (1 - damping)^stiffnessFrequency.
            let f = num(&v["setStiffnessFrequency"]);
            let kept = (1.0 - num(&v["setDamping"]["x"])).powf(f);
            let shear_left = (1.0 - num(&v["setPhaseConfig"][2]["mStiffness"])).powf(f);
            vec![
                ("damping per second", kept),
                ("shear per second", shear_left),
            ]
        }
        Engine::Magica2 => vec![
            ("damping", num(&v["damping"]["value"])),
            (
                "distance stiffness",
                num(&v["distanceConstraint"]["stiffness"]["value"]),
            ),
        ],
    }
}

#[test]
fn zero_iterations_exports_with_a_warning_naming_the_knob() {
    let preset = Preset::new(
        "Limp",
        FabricParams {
            iterations: 0,
            ..Default::default()
        },
    );
    for engine in Engine::ALL {
        let out = export_for_engine(engine, &preset, None, jacket()).unwrap();
        let w = out.warnings.iter().find(|w| w.knob == "iterations");
        let w = w.unwrap_or_else(|| panic!("{engine}: no warning for zero iterations"));
        assert!(w.message.contains("`iterations` is 0"), "{w}");
        // The warnings travel in the file too.
        assert!(out.envelope().contents.contains("`iterations` is 0"));
    }
}

#[test]
fn every_engines_does_not_map_table_is_in_the_docs() {
    let docs = std::fs::read_to_string("docs/engines.md").unwrap();
    for engine in Engine::ALL {
        assert!(
            docs.contains(&does_not_map_table(engine)),
            "docs/engines.md: the {engine} table is stale; paste `does_not_map_table` output"
        );
        assert!(
            docs.contains(&engine.info().version),
            "{engine} version missing from docs"
        );
    }
}

#[test]
fn the_example_snippets_are_what_the_exporter_writes_for_tweed() {
    let preset = Preset::load("presets/tweed.json").unwrap();
    for (engine, path) in [
        (Engine::Jolt, "examples/jolt/tweed_soft_body.cpp"),
        (Engine::NvCloth, "examples/nvcloth/tweed_cloth.cpp"),
    ] {
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            generated_cpp(engine, &preset),
            "{path} is stale: cloth-tuner export --engine {engine} --preset presets/tweed.json"
        );
    }
}

/// Runs the binary's `export` with `args`.
fn cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
        .arg("export")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_command_line_writes_all_files_and_refuses_bad_input_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tweed_jolt.json");
    let o = cli(&[
        "--engine",
        "jolt",
        "--preset",
        "presets/tweed.json",
        "--timestep-hz",
        "30",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("warning: `hard_constraints`"), "{report}");
    assert!(out.exists());
    assert!(out.with_extension("cpp").exists());
    let csv = std::fs::read_to_string(dir.path().join("tweed_jolt.particles.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 17 * 10);

    let bad = |args: &[&str], needle: &str| {
        let o = cli(args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(!o.status.success(), "{args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
    };
    let x = dir.path().join("x.json");
    let x = x.to_str().unwrap();
    bad(
        &[
            "--engine",
            "godot",
            "--preset",
            "presets/tweed.json",
            "--out",
            x,
        ],
        "unknown engine `godot`; the engines are unity, chaos, jolt, nvcloth, magica2",
    );
    bad(
        &[
            "--engine",
            "unity",
            "--grid",
            "1x4",
            "--preset",
            "presets/tweed.json",
            "--out",
            x,
        ],
        "--grid: `1x4` is not a grid size",
    );
    bad(
        &[
            "--engine",
            "unity",
            "--preset",
            "presets/none.json",
            "--out",
            x,
        ],
        "presets/none.json: cannot read",
    );
    bad(
        &[
            "--engine",
            "chaos",
            "--preset",
            "presets/tweed.json",
            "--timestep-hz",
            "500",
            "--out",
            x,
        ],
        "allowed 15 to 240 Hz",
    );
    let missing = dir.path().join("no/such/dir/x.json");
    bad(
        &[
            "--engine",
            "nvcloth",
            "--preset",
            "presets/tweed.json",
            "--out",
            missing.to_str().unwrap(),
        ],
        "no/such/dir/x.json",
    );
    assert!(!Path::new(x).exists());
    // Without --engine, today's export.
    let own = dir.path().join("own.json");
    let o = cli(&[
        "--preset",
        "presets/tweed.json",
        "--out",
        own.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(Preset::load(&own).is_ok());
}

// ---- Regression tests, each named after what broke (issue 38) ----

/// The tweed and the veil, the presets the issue measured.
fn tweed_and_veil() -> [Preset; 2] {
    ["presets/tweed.json", "presets/veil.json"].map(|p| Preset::load(p).unwrap())
}

#[test]
fn chaos_bending_was_written_as_the_fraction_and_came_out_ten_times_too_soft() {
    for preset in tweed_and_veil() {
        let p = &preset.params;
        let doc = settings(Engine::Chaos, &preset, None);
        let input = doc["properties"]["ChaosClothConfig"]["BendingStiffnessWeighted"]["Low"]
            .as_f64()
            .unwrap();
        // What Chaos applies per 1/120 s after its curve is our bending per 1/120 s.
        let n_h = p.iterations as f64 * p.timestep_hz as f64 * p.substeps as f64;
        let ours = per_rate(p.shear_bend_stiffness as f64, n_h, 120.0);
        let applied = chaos_stiffness_fraction(input);
        assert!(
            (applied - ours).abs() < 1e-5,
            "{}: {applied} vs {ours}",
            preset.name
        );
        // Written as the fraction itself, Chaos would apply ten times less or worse.
        assert!(
            chaos_stiffness_fraction(ours) < ours / 8.0,
            "{}",
            preset.name
        );
    }
    // The worked example: the tweed's 0.58 per 1/120 s needs about 0.92.
    let tweed = settings(Engine::Chaos, &tweed_and_veil()[0], None);
    let bend = tweed["properties"]["ChaosClothConfig"]["BendingStiffnessWeighted"]["Low"]
        .as_f64()
        .unwrap();
    assert!((bend - 0.92).abs() < 0.01, "{bend}");
}

#[test]
fn chaos_iteration_count_was_per_substep_and_wrong_at_any_rate_but_60() {
    let tweed = &tweed_and_veil()[0];
    for hz in [30.0f32, 60.0, 120.0] {
        let out = export_for_engine(Engine::Chaos, tweed, Some(hz), jacket()).unwrap();
        let doc: Value = serde_json::from_str(&out.envelope().contents).unwrap();
        let shared = &doc["properties"]["ChaosClothSharedSimConfig"];
        let count = shared["IterationCount"].as_f64().unwrap();
        let max = shared["MaxIterationCount"].as_f64().unwrap();
        // Chaos runs IterationCount x 60 / frame rate a substep: our passes a substep.
        let converted = cloth_tuner::preset::convert_preset(tweed, hz).unwrap().0;
        let runs = count * 60.0 / hz as f64;
        assert_eq!(runs, converted.params.iterations as f64, "{hz} Hz");
        assert!(max >= runs, "{hz} Hz: MaxIterationCount {max} caps {runs}");
    }
}

#[test]
fn jolt_set_inverse_masses_after_create_constraints_and_lost_its_tethers() {
    for preset in tweed_and_veil() {
        let cpp = &generated_cpp(Engine::Jolt, &preset);
        // Jolt builds the tethers from the anchored vertices inside CreateConstraints.
        let last_mass = cpp.rfind(".mInvMass = ").unwrap();
        let create = cpp.find("CreateConstraints(").unwrap();
        assert!(
            last_mass < create,
            "{}: masses after CreateConstraints",
            preset.name
        );
    }
    let example = std::fs::read_to_string("examples/jolt/tweed_soft_body.cpp").unwrap();
    assert!(example.rfind(".mInvMass = ").unwrap() < example.find("CreateConstraints(").unwrap());
}

#[test]
fn jolt_deformation_limit_maps_to_the_lra_multiplier() {
    let preset = Preset::new(
        "Limited",
        FabricParams {
            hard_constraints: false,
            deformation_limit: true,
            max_stretch_ratio: 1.08,
            ..Default::default()
        },
    );
    let doc = settings(Engine::Jolt, &preset, None);
    for row in doc["properties"]["VertexAttributes"].as_array().unwrap() {
        assert_eq!(row["mLRAType"], "GeodesicDistance");
        assert_eq!(row["mLRAMaxDistanceMultiplier"].as_f64().unwrap(), 1.08);
    }
    let cpp = &generated_cpp(Engine::Jolt, &preset);
    assert!(
        cpp.contains("ELRAType::GeodesicDistance, 1.08f }"),
        "{}",
        &cpp[..600]
    );
}

#[test]
fn magica_nested_its_fields_under_properties_so_import_preset_read_nothing() {
    let tweed = &tweed_and_veil()[0];
    let out = export_for_engine(Engine::Magica2, tweed, None, jacket()).unwrap();
    assert_eq!(out.files[0].extension, "json");
    let file: Value = serde_json::from_str(&out.files[0].contents).unwrap();
    // FromJsonOverwrite reads ClothSerializeData's own fields at the top level: the file is
    // exactly the properties, with nothing of ours around them.
    let envelope: Value = serde_json::from_str(&out.envelope().contents).unwrap();
    assert_eq!(file, envelope["properties"]);
    for ours in ["format", "properties", "per_particle", "warnings", "grid"] {
        assert!(file.get(ours).is_none(), "{ours} in the Magica file");
    }
    for magica in [
        "gravity",
        "damping",
        "motionConstraint",
        "distanceConstraint",
    ] {
        assert!(
            file.get(magica).is_some(),
            "{magica} missing at the top level"
        );
    }
    // Written beside it: tweed_magica.cloth-tuner.json.
    let dir = tempfile::tempdir().unwrap();
    let paths = out.write(&dir.path().join("tweed_magica.json")).unwrap();
    assert!(paths
        .iter()
        .any(|p| p.ends_with("tweed_magica.cloth-tuner.json")));
}

#[test]
fn magica_max_distance_keys_sat_at_plain_depth_where_magica_reads_the_squared_depth() {
    for preset in tweed_and_veil() {
        let p = &preset.params;
        let m = settings(Engine::Magica2, &preset, None);
        let md = &m["properties"]["motionConstraint"]["maxDistance"];
        let hem = md["value"].as_f64().unwrap();
        for key in md["curve"]["m_Curve"].as_array().unwrap() {
            // Magica evaluates the curve at depth²: the key at time τ is read for depth √τ.
            let tau = key["time"].as_f64().unwrap();
            let depth = tau.sqrt() as f32;
            let want = p.max_distance_at(depth, false) as f64;
            let got = key["value"].as_f64().unwrap() * hem;
            assert!(
                (got - want).abs() < 1e-5,
                "{} depth {depth}: {got} vs {want}",
                preset.name
            );
        }
    }
}

#[test]
fn masses_were_relative_to_the_hem_and_the_tweed_weighed_a_tonne_in_jolt() {
    for preset in tweed_and_veil() {
        let out = export_for_engine(Engine::Jolt, &preset, None, jacket()).unwrap();
        let doc: Value = serde_json::from_str(&out.envelope().contents).unwrap();
        let table = particle_table(jacket(), &preset.params, &[]);
        // Every particle's kilograms add up to the area times the areal density.
        let total: f64 = table.iter().map(|q| q.mass_kg as f64).sum();
        let want = jacket().area_m2 as f64 * preset.params.areal_density_gsm as f64 / 1000.0;
        assert!((total - want).abs() < 1e-4 * want, "{total} vs {want}");
        assert!((doc["total_mass_kg"].as_f64().unwrap() - want).abs() < 1e-4 * want);
        // Jolt's free particles: 1 / mInvMass is their mass in kilograms.
        let free: f64 = doc["per_particle"]["mVertices"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v["mInvMass"].as_f64().filter(|w| *w > 0.0))
            .map(|w| 1.0 / w)
            .sum();
        let pinned: f64 = table
            .iter()
            .filter(|q| q.pinned)
            .map(|q| q.mass_kg as f64)
            .sum();
        assert!(
            (free + pinned - want).abs() < 1e-3 * want,
            "{}",
            preset.name
        );
        // A jacket's lower part weighs a few hundred grams, a veil a few tens.
        assert!(want > 0.01 && want < 1.0, "{}: {want} kg", preset.name);
    }
}

#[test]
fn nvcloth_wind_depended_on_the_meshs_scale() {
    // The same fabric on a panel twice the size: NvCloth's drag coefficient is the same, and
    // it gives back our wind drag for the fabric's areal density.
    let tweed = &tweed_and_veil()[0];
    let drag = |grid: GridSize| {
        let out = export_for_engine(Engine::NvCloth, tweed, None, grid).unwrap();
        let doc: Value = serde_json::from_str(&out.envelope().contents).unwrap();
        let p = &doc["properties"];
        assert_eq!(p["setFluidDensity"].as_f64().unwrap(), AIR_DENSITY);
        (
            p["setDragCoefficient"].as_f64().unwrap(),
            p["setStiffnessFrequency"].as_f64().unwrap(),
        )
    };
    let (small, f_s) = drag(GridSize::panel(9, 10, 0.05));
    let (large, _) = drag(GridSize::panel(9, 10, 0.1));
    assert_eq!(small, large);
    let sigma = tweed.params.areal_density_gsm as f64 / 1000.0;
    let k_w = wind_drag_from_nvcloth(small, sigma, AIR_DENSITY, f_s);
    assert!((k_w - tweed.params.wind_drag as f64).abs() < 1e-3, "{k_w}");
}

#[test]
fn nvcloth_snippet_took_uint32_phase_types_and_never_asked_for_the_cookers_inverse_masses() {
    let cpp = std::fs::read_to_string("examples/nvcloth/tweed_cloth.cpp").unwrap();
    // The cooker fills a nv::cloth::Vector<int32_t>::Type (NvClothExt/ClothFabricCooker.h).
    assert!(cpp.contains("const nv::cloth::Vector<int32_t>::Type &phaseTypes"));
    assert!(!cpp.contains("const uint32_t *phaseTypes"));
    // The tethers are cooked from the mesh description's inverse masses.
    assert!(cpp.contains("desc.invMasses.data = kInvMass;"));
    assert!(cpp.contains("cloth.setFluidDensity(1.225f);"));
}

#[test]
fn unity_and_nvcloth_sent_different_friction_to_the_same_solver() {
    for preset in tweed_and_veil() {
        let u = settings(Engine::Unity, &preset, None);
        let n = settings(Engine::NvCloth, &preset, None);
        assert_eq!(
            u["properties"]["friction"], n["properties"]["setFriction"],
            "{}",
            preset.name
        );
        // Both are the contact damping per collision pass.
        let p = &preset.params;
        let h = p.timestep_hz as f64 * p.substeps as f64;
        let passes = h * p.iterations as f64;
        let mu = n["properties"]["setFriction"].as_f64().unwrap();
        assert!((per_rate(mu, passes, h) - p.contact_damping as f64).abs() < 1e-5);
    }
}

#[test]
fn a_bad_areal_density_or_grid_area_is_refused_by_name() {
    let bad = Preset::new(
        "Weightless",
        FabricParams {
            areal_density_gsm: 0.0,
            ..Default::default()
        },
    );
    let e = export_for_engine(Engine::Jolt, &bad, None, jacket())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("areal_density_gsm") && e.contains("10 to 2000 g/m²"),
        "{e}"
    );
    let flat = GridSize {
        area_m2: f32::NAN,
        ..GridSize::panel(9, 10, 0.05)
    };
    let e = export_for_engine(Engine::Jolt, &Preset::default(), None, flat)
        .unwrap_err()
        .to_string();
    assert!(e.contains("area_m2"), "{e}");
}

#[test]
fn the_unreal_script_said_it_applied_values_it_never_set() {
    // Every Chaos property the export writes is either set by the script or listed by it as
    // a manual step (the weighted values: FChaosClothWeightedValue is not a BlueprintType).
    let script = std::fs::read_to_string("examples/unreal/apply_cloth_tuner.py").unwrap();
    let doc = settings(Engine::Chaos, &tweed_and_veil()[0], None);
    for config in ["ChaosClothConfig", "ChaosClothSharedSimConfig"] {
        for key in doc["properties"][config].as_object().unwrap().keys() {
            assert!(
                script.contains(&format!("\"{key}\"")) || script.contains(&format!("{key} = ")),
                "{key} is neither set nor listed as manual by the script"
            );
        }
    }
    assert!(!script.contains("ChaosClothWeightedValue()"));
}
