//! The character loader under abuse, structure-aware: copies of valid characters whose glTF
//! JSON is damaged the way hand-edited or half-exported files are (a number, an index or an
//! enum changed, a key removed, added or renamed, an array shortened or lengthened, a value of
//! the wrong type) and whose binary chunk has words overwritten, loaded through the public
//! path. None may panic (a panic the loader's boundary catches counts as one), and every
//! refusal names the file. Among the sources are garments, damaged the same ways: a rig
//! wearing a skirt in its own file (the skirt picked by name) and a skirt in a file of its
//! own worn by the built-in character; a garment that loads is also built into its grid and
//! bones, as the commands do. The character settings file is fuzzed the same way.
//!
//! Seeded, so a failure reproduces: the message gives the source and the case number. The
//! suite runs 20,000 cases (shared among the sources); set `CLOTH_TUNER_RIG_FUZZ_CASES` for a longer run (the report
//! line gives cases, loaded, refused, panics and time).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Instant;

use cloth_tuner::character::import::GROUND_BONE;
use cloth_tuner::character::settings::CharacterSettings;
use cloth_tuner::character::{Character, RigError, Role};
use cloth_tuner::cli::outfit_of;
use cloth_tuner_assets::garment::{garment_file_glb, GarmentKind};
use cloth_tuner_assets::test_rig::{self, test_rig_glb, Naming, RigStyle};
use glam::{Quat, Vec3};
use serde_json::Value;

#[path = "../common/rng.rs"]
mod rng;
use rng::Rng;

/// A valid file split into its JSON and its binary chunk, and how it is loaded.
struct Sample {
    name: &'static str,
    json: Value,
    bin: Vec<u8>,
    kind: Kind,
}

/// What a sample file holds.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A character.
    Character,
    /// A character wearing the garment of this name in its own file.
    Wearing(&'static str),
    /// A garment in a file of its own, for the built-in character.
    Garment,
}

impl Sample {
    fn from_glb(name: &'static str, glb: &[u8]) -> Self {
        Self::of_kind(name, glb, Kind::Character)
    }

    fn of_kind(name: &'static str, glb: &[u8], kind: Kind) -> Self {
        let (json, bin) = cloth_tuner_assets::split_glb(glb).expect("the source is a .glb");
        Self {
            name,
            json,
            bin,
            kind,
        }
    }
}

/// The sources: the built-in character (our own form, every clip), test rigs written the ways
/// other tools write a humanoid (the import path, one clip), all with a coarse body so a case
/// is quick; then a rig wearing the generator's skirt in its own file, and the skirt in a file
/// of its own.
fn samples() -> Vec<Sample> {
    let rig = |naming, units_per_metre, rotation, armature| RigStyle {
        naming,
        units_per_metre,
        rotation,
        armature,
        clips: vec!["walk".into()],
        cell: 0.06,
        ..RigStyle::default()
    };
    let z_up = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let armature = Some((Quat::from_rotation_y(0.3), Vec3::splat(1.0)));
    let wearing = RigStyle {
        garments: vec![GarmentKind::Skirt],
        ..rig(Naming::Builtin, 1.0, Quat::IDENTITY, None)
    };
    let skirt = garment_file_glb(GarmentKind::Skirt, &RigStyle::default());
    vec![
        Sample::from_glb("builtin", &cloth_tuner_assets::character_glb_at(0.06)),
        Sample::from_glb(
            "mixamo",
            &test_rig_glb(&rig(Naming::Mixamo, 1.0, Quat::IDENTITY, None)),
        ),
        Sample::from_glb(
            "unreal",
            &test_rig_glb(&rig(Naming::Unreal, 1.0, Quat::IDENTITY, armature)),
        ),
        Sample::from_glb(
            "centimetres",
            &test_rig_glb(&rig(Naming::Builtin, 100.0, z_up, None)),
        ),
        Sample::of_kind("wearing", &test_rig_glb(&wearing), Kind::Wearing("skirt")),
        Sample::of_kind("skirt", &skirt, Kind::Garment),
    ]
}

/// Numbers that break indices, counts, offsets and enums.
const NASTY_NUMBERS: &[f64] = &[
    0.0,
    1.0,
    2.0,
    3.0,
    4.0,
    5.0,
    6.0,
    7.0,
    255.0,
    256.0,
    512.0,
    65535.0,
    65536.0,
    2147483647.0,
    2147483648.0,
    4294967295.0,
    4294967296.0,
    9007199254740993.0,
    1e19,
    1e300,
    -1.0,
    -0.0,
    0.5,
    5120.0,
    5121.0,
    5122.0,
    5123.0,
    5125.0,
    5126.0,
    5127.0,
    34962.0,
    34963.0,
    34964.0,
];

/// Names glTF gives enums and attributes, and some it does not.
const NASTY_STRINGS: &[&str] = &[
    "SCALAR",
    "VEC2",
    "VEC3",
    "VEC4",
    "MAT2",
    "MAT3",
    "MAT4",
    "VEC5",
    "LINEAR",
    "STEP",
    "CUBICSPLINE",
    "translation",
    "rotation",
    "scale",
    "weights",
    "spin",
    "POSITION",
    "NORMAL",
    "JOINTS_0",
    "WEIGHTS_0",
    "JOINTS_1",
    "TEXCOORD_0",
    "_CUSTOM",
    "",
    "bone",
    "data:,",
    "data:application/octet-stream;base64,AAAA",
    "missing.bin",
    "../x.bin",
    "2.0",
    "1.0",
];

/// Keys the format knows, to add where they do not belong.
const KNOWN_KEYS: &[&str] = &[
    "bufferView",
    "byteOffset",
    "byteStride",
    "byteLength",
    "count",
    "componentType",
    "type",
    "sparse",
    "children",
    "skin",
    "mesh",
    "matrix",
    "rotation",
    "translation",
    "scale",
    "joints",
    "inverseBindMatrices",
    "skeleton",
    "indices",
    "mode",
    "material",
    "targets",
    "sampler",
    "target",
    "node",
    "path",
    "input",
    "output",
    "interpolation",
    "uri",
    "buffer",
    "extras",
    "normalized",
    "min",
    "max",
    "weights",
    "scene",
    "nodes",
    "name",
];

/// A random place in `v`: from the root, stop here one time in four (always at a leaf),
/// else go on into a random child. Every level's kinds of item get their share, whatever
/// the size of the lists beside them (a file's 249 accessors do not drown its one skin).
fn random_place<'v>(v: &'v mut Value, rng: &mut Rng) -> &'v mut Value {
    let len = match &*v {
        Value::Object(map) => map.len(),
        Value::Array(items) => items.len(),
        _ => 0,
    };
    if len == 0 || rng.chance(4) {
        return v;
    }
    let pick = rng.below(len);
    match v {
        Value::Object(map) => match map.values_mut().nth(pick) {
            Some(child) => random_place(child, rng),
            None => unreachable!("pick is below the length"),
        },
        Value::Array(items) => random_place(&mut items[pick], rng),
        _ => unreachable!("only containers have children"),
    }
}

/// A value of some type: a nasty number or string, or the wrong kind of thing.
fn nasty_value(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 | 1 => NASTY_NUMBERS[rng.below(NASTY_NUMBERS.len())].into(),
        2 => NASTY_STRINGS[rng.below(NASTY_STRINGS.len())].into(),
        3 => Value::Null,
        4 => serde_json::json!([rng.below(4), rng.below(300)]),
        _ => serde_json::json!({ KNOWN_KEYS[rng.below(KNOWN_KEYS.len())]: rng.below(8) }),
    }
}

/// One structural edit at a random place of `json`.
fn mutate_json(json: &mut Value, rng: &mut Rng) {
    let v = random_place(json, rng);
    match v {
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            *v = match rng.below(4) {
                0 => (x + 1.0).into(),
                1 => (x - 1.0).into(),
                2 => nasty_value(rng),
                _ => NASTY_NUMBERS[rng.below(NASTY_NUMBERS.len())].into(),
            };
        }
        Value::String(_) | Value::Bool(_) | Value::Null => *v = nasty_value(rng),
        Value::Object(map) => match rng.below(4) {
            0 if !map.is_empty() => {
                let k = map
                    .keys()
                    .nth(rng.below(map.len()))
                    .cloned()
                    .unwrap_or_default();
                map.remove(&k);
            }
            1 if !map.is_empty() => {
                // A renamed key: an attribute semantic, or a field the format does not have.
                let k = map
                    .keys()
                    .nth(rng.below(map.len()))
                    .cloned()
                    .unwrap_or_default();
                if let Some(x) = map.remove(&k) {
                    map.insert(NASTY_STRINGS[rng.below(NASTY_STRINGS.len())].into(), x);
                }
            }
            _ => {
                map.insert(
                    KNOWN_KEYS[rng.below(KNOWN_KEYS.len())].into(),
                    nasty_value(rng),
                );
            }
        },
        Value::Array(items) => match rng.below(5) {
            0 if !items.is_empty() => {
                items.remove(rng.below(items.len()));
            }
            1 => items.truncate(rng.below(items.len().max(1))),
            2 if !items.is_empty() => {
                let x = items[rng.below(items.len())].clone();
                items.insert(rng.below(items.len() + 1), x);
            }
            3 if items.len() > 1 => {
                let (a, b) = (rng.below(items.len()), rng.below(items.len()));
                items.swap(a, b);
            }
            _ => items.push(nasty_value(rng)),
        },
    }
}

/// Words of the binary chunk overwritten with nasty floats, integers or random bytes.
fn mutate_bin(bin: &mut [u8], rng: &mut Rng) {
    const WORDS: &[u32] = &[
        0x7fc0_0000, // NaN
        0x7f80_0000, // +inf
        0xff80_0000, // -inf
        0x7149_f2ca, // 1e30
        0xf149_f2ca, // -1e30
        0x0000_0000,
        0xffff_ffff,
        0x0000_ffff,
        0x0001_0000,
        0x3f80_0000, // 1.0
    ];
    if bin.len() < 4 {
        return;
    }
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(bin.len() / 4) * 4;
        let word = if rng.chance(3) {
            rng.next() as u32
        } else {
            WORDS[rng.below(WORDS.len())]
        };
        bin[at..at + 4].copy_from_slice(&word.to_le_bytes());
    }
}

/// A `.glb` of this JSON and binary chunk, padded as the format says.
fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    cloth_tuner_assets::glb(
        serde_json::to_vec(json).expect("JSON serialises"),
        bin.to_vec(),
    )
}

/// One broken copy of `sample`: one to three JSON edits, sometimes binary words too.
fn broken_copy(sample: &Sample, rng: &mut Rng) -> Vec<u8> {
    let mut json = sample.json.clone();
    let mut bin = sample.bin.clone();
    let binary_only = rng.chance(8);
    if !binary_only {
        for _ in 0..1 + rng.below(3) {
            mutate_json(&mut json, rng);
        }
    }
    if binary_only || rng.chance(5) {
        mutate_bin(&mut bin, rng);
    }
    glb(&json, &bin)
}

/// What a run of cases came to.
#[derive(Default, Debug)]
struct Tally {
    cases: usize,
    loaded: usize,
    refused: usize,
    panics: Vec<String>,
    unnamed: Vec<String>,
}

impl Tally {
    /// One case's outcome; a refusal must name one of `names`.
    fn record(
        &mut self,
        case: String,
        names: &[&str],
        result: std::thread::Result<Result<(), RigError>>,
    ) {
        self.cases += 1;
        match result {
            Ok(Ok(())) => self.loaded += 1,
            // Caught at the loader's boundary: still a panic.
            Ok(Err(e @ RigError::Internal { .. })) => self.panics.push(format!("{case}: {e}")),
            Ok(Err(e)) => {
                self.refused += 1;
                let msg = e.to_string();
                if !names.iter().any(|n| msg.contains(n)) {
                    self.unnamed.push(format!("{case}: {msg}"));
                }
            }
            Err(_) => self.panics.push(format!("{case}: panicked")),
        }
    }

    fn merge(mut self, other: Tally) -> Tally {
        self.cases += other.cases;
        self.loaded += other.loaded;
        self.refused += other.refused;
        self.panics.extend(other.panics);
        self.unnamed.extend(other.unnamed);
        self
    }

    fn assert_clean(&self, what: &str, seconds: f64) {
        eprintln!(
            "{what}: {} cases, {} loaded, {} refused, {} panics, {} refusals not naming the file, {seconds:.1} s",
            self.cases,
            self.loaded,
            self.refused,
            self.panics.len(),
            self.unnamed.len()
        );
        assert!(
            self.panics.is_empty(),
            "{what}: panics:\n{}",
            self.panics.join("\n")
        );
        assert!(
            self.unnamed.is_empty(),
            "{what}: refusals that do not name the file:\n{}",
            self.unnamed.join("\n")
        );
    }
}

fn case_count(default: usize) -> usize {
    std::env::var("CLOTH_TUNER_RIG_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Loads `bytes` as `sample` is loaded, through the public path: a character from its bytes;
/// a character wearing its garment, or a garment worn by `builtin`, from a file in `dir`
/// (the garment then built into its grid and bones).
fn load(
    sample: &Sample,
    bytes: &[u8],
    name: &str,
    dir: &Path,
    builtin: &Character,
) -> Result<(), RigError> {
    if sample.kind == Kind::Character {
        return Character::from_glb(bytes, name).map(drop);
    }
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write the case");
    let result = match sample.kind {
        Kind::Wearing(mesh) => Character::open_wearing(&path, None, mesh)
            .and_then(|(c, worn)| outfit_of(&c, &worn, &path).map(drop)),
        _ => builtin
            .read_garment(&path, None)
            .and_then(|worn| outfit_of(builtin, &worn, &path).map(drop)),
    };
    let _ = std::fs::remove_file(&path);
    result
}

/// Cases `from..to` of the character fuzzer, every source in turn.
fn character_cases(samples: &[Sample], from: usize, to: usize) -> Tally {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let builtin = Character::builtin();
    let mut tally = Tally::default();
    for case in from..to {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (case as u64).wrapping_mul(0x1000_0000_01b3));
        let sample = &samples[case % samples.len()];
        let bytes = broken_copy(sample, &mut rng);
        let name = format!("fuzz-{}-{case}.glb", sample.name);
        let result = catch_unwind(AssertUnwindSafe(|| {
            load(sample, &bytes, &name, dir.path(), &builtin)
        }));
        tally.record(format!("{} case {case}", sample.name), &[&name], result);
    }
    tally
}

/// Runs `cases` on both cores (fixed halves, so the cases do not depend on the machine).
fn on_two_cores(total: usize, run: impl Fn(usize, usize) -> Tally + Sync) -> Tally {
    let half = total / 2;
    let (a, b) = std::thread::scope(|s| {
        let first = s.spawn(|| run(0, half));
        let second = run(half, total);
        (first.join().expect("the fuzz thread"), second)
    });
    a.merge(b)
}

#[test]
fn broken_characters_are_refused_by_name_and_never_panic() {
    let samples = samples();
    let total = case_count(20_000);
    let start = Instant::now();
    let tally = on_two_cores(total, |from, to| character_cases(&samples, from, to));
    tally.assert_clean("character fuzz", start.elapsed().as_secs_f64());
    // The cases must reach the loader's reading, not only its parser: some still load, and
    // most are refused by the checks on the document rather than by JSON syntax.
    assert!(
        tally.loaded * 20 > tally.cases,
        "too few cases load: {tally:?}"
    );
    assert!(
        tally.refused * 4 > tally.cases,
        "too few cases are refused: {tally:?}"
    );
}

/// A settings file with every field used, as the fuzzer's source.
const SETTINGS: &str = r#"{
  "bones": { "pelvis": "pelvis", "chest": "chest", "hand_l": "hand_l", "upperarm_twist_r": "upperarm_twist_r" },
  "ellipsoid_scale": { "chest": 1.2, "thigh_l": 0.8, "pelvis": 2.0 }
}"#;

/// Cases `from..to` of the settings fuzzer: broken settings files, and the built-in
/// character loaded with those that parse.
fn settings_cases(glb_path: &Path, from: usize, to: usize) -> Tally {
    let source: Value = serde_json::from_str(SETTINGS).expect("the settings source");
    let roles: Vec<String> = Role::REQUIRED
        .iter()
        .chain(&Role::OPTIONAL)
        .map(|r| r.name())
        .collect();
    let mut bones = test_rig::bone_names(Naming::Mixamo);
    bones.push(GROUND_BONE.to_string());
    let mut tally = Tally::default();
    for case in from..to {
        let mut rng = Rng(0x51_7cc1_b727_220a ^ (case as u64).wrapping_mul(0x1000_0000_01b3));
        let mut json = source.clone();
        if rng.chance(2) {
            // A well-formed map that gives roles bones that do not play them (the synthetic
            // ground bone among them), or scales at the ends of their range.
            for _ in 0..1 + rng.below(4) {
                let role = roles[rng.below(roles.len())].clone();
                if rng.chance(3) {
                    json["ellipsoid_scale"][role] = [0.5, 2.0][rng.below(2)].into();
                } else {
                    json["bones"][role] = bones[rng.below(bones.len())].clone().into();
                }
            }
        } else {
            for _ in 0..1 + rng.below(3) {
                mutate_json(&mut json, &mut rng);
            }
        }
        let text = serde_json::to_string_pretty(&json).expect("JSON serialises");
        let name = format!("fuzz-settings-{case}.cloth-character.json");
        let result = catch_unwind(AssertUnwindSafe(|| {
            let settings = CharacterSettings::from_json(&text, Path::new(&name))?;
            // Settings that parse are used on a real load: a bone map naming any bone, a
            // scale at the ends of the range.
            Character::load_with(glb_path, &settings).map(drop)
        }));
        // A refusal names the settings file (it does not parse) or the character (it cannot
        // be loaded with these settings).
        let character = glb_path.display().to_string();
        tally.record(
            format!("settings case {case}"),
            &[&name, &character],
            result,
        );
    }
    tally
}

#[test]
fn broken_character_settings_are_refused_by_name_and_never_panic() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let samples = samples();
    let rig = dir.path().join("mixamo.glb");
    std::fs::write(&rig, glb(&samples[1].json, &samples[1].bin)).expect("write the rig");
    let total = case_count(20_000);
    let start = Instant::now();
    let tally = on_two_cores(total, |from, to| settings_cases(&rig, from, to));
    tally.assert_clean("settings fuzz", start.elapsed().as_secs_f64());
    assert!(tally.loaded > 0 && tally.refused > 0, "{tally:?}");
}

#[test]
fn a_channel_aimed_at_a_missing_node_names_the_item() {
    let samples = samples();
    // The sources with a clip (a garment in a file of its own has none).
    let animated: Vec<&Sample> = samples
        .iter()
        .filter(|s| {
            s.json["animations"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
        })
        .collect();
    assert!(animated.len() >= 4, "the character sources carry clips");
    for sample in animated {
        let mut json = sample.json.clone();
        json["animations"][0]["channels"][0]["target"]["node"] = 512.into();
        let name = format!("{}-bad-target.glb", sample.name);
        let err = Character::from_glb(&glb(&json, &sample.bin), &name).expect_err(&name);
        let msg = err.to_string();
        assert!(msg.contains(&name), "{msg}");
        assert!(
            msg.contains("animations[0].channels[0].target.node: 512 is not a node"),
            "{msg}"
        );
    }
}

#[test]
fn an_invalid_enum_names_the_item() {
    let sample = &samples()[0];
    let mut json = sample.json.clone();
    json["animations"][0]["channels"][1]["target"]["path"] = "spin".into();
    let err = Character::from_glb(&glb(&json, &sample.bin), "spin.glb").expect_err("spin");
    assert!(
        err.to_string()
            .contains("animations[0].channels[1].target.path"),
        "{err}"
    );
    let mut json = sample.json.clone();
    json["accessors"][3]["type"] = "VEC7".into();
    let err = Character::from_glb(&glb(&json, &sample.bin), "vec7.glb").expect_err("vec7");
    assert!(err.to_string().contains("accessors[3].type"), "{err}");
}

#[test]
fn a_clip_of_absurd_length_is_refused_not_resampled() {
    // A key time of 1e30 s on an imported character: resampling it would ask for more memory
    // than there is.
    let sample = &samples()[1];
    let json = &sample.json;
    let input = json["animations"][0]["samplers"][0]["input"]
        .as_u64()
        .expect("input") as usize;
    let acc = &json["accessors"][input];
    let view = &json["bufferViews"][acc["bufferView"].as_u64().expect("view") as usize];
    let count = acc["count"].as_u64().expect("count") as usize;
    let at = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize
        + (count - 1) * 4;
    let mut bin = sample.bin.clone();
    bin[at..at + 4].copy_from_slice(&1e30f32.to_le_bytes());
    let err = Character::from_glb(&glb(json, &bin), "long.glb").expect_err("a clip of 1e30 s");
    assert!(err.to_string().contains("long.glb"), "{err}");
    assert!(err.to_string().contains("a clip may last"), "{err}");
}

#[test]
fn simulate_refuses_a_broken_character_with_a_message_not_a_crash() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let sample = &samples()[1];
    let mut json = sample.json.clone();
    json["animations"][0]["channels"][7]["target"]["node"] = 512.into();
    let broken = dir.path().join("broken.glb");
    std::fs::write(&broken, glb(&json, &sample.bin)).expect("write the file");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
        .args(["simulate", "--seconds", "1", "--preset"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("presets/tweed.json"))
        .arg("--character")
        .arg(&broken)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an error, not a panic (101): {stderr}"
    );
    assert!(stderr.contains("broken.glb"), "{stderr}");
    assert!(
        stderr.contains("animations[0].channels[7].target.node: 512 is not a node"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A garment settings file with every field used, as the fuzzer's source.
const GARMENT_SETTINGS: &str = r#"{
  "rows": 9,
  "columns": 15,
  "spacing_m": 0.06,
  "pin_height_m": 1.0,
  "seam": "open",
  "seam_at_deg": 30.0
}"#;

/// Cases `from..to` of the garment settings fuzzer: broken settings files beside a garment,
/// read and laid by the commands' path (`outfit_of`), which builds the grid on those that
/// parse.
fn garment_settings_cases(
    dir: &Path,
    (character, worn): &(Character, cloth_tuner::character::WornMesh),
    from: usize,
    to: usize,
) -> Tally {
    let source: Value = serde_json::from_str(GARMENT_SETTINGS).expect("the settings source");
    // The settings file sits beside the garment's file, named after it and the mesh; each
    // thread has a file name of its own.
    let file = dir.join(format!("rig{from}.glb"));
    let settings = cloth_tuner::garment::settings::GridChoice::path_beside(&file, &worn.name);
    let name = settings.display().to_string();
    let mut tally = Tally::default();
    for case in from..to {
        let mut rng = Rng(0x9a7e_57c1_0b2d_4e11 ^ (case as u64).wrapping_mul(0x1000_0000_01b3));
        let mut json = source.clone();
        for _ in 0..1 + rng.below(3) {
            mutate_json(&mut json, &mut rng);
        }
        let text = serde_json::to_string_pretty(&json).expect("JSON serialises");
        std::fs::write(&settings, text).expect("write the settings");
        let result = catch_unwind(AssertUnwindSafe(|| {
            outfit_of(character, worn, &file).map(drop)
        }));
        // A refusal names the settings file (it does not parse) or the garment's file (no
        // grid can be laid as it says).
        let garment = file.display().to_string();
        tally.record(
            format!("garment settings case {case}"),
            &[&name, &garment],
            result,
        );
    }
    tally
}

#[test]
fn broken_garment_settings_are_refused_by_name_and_never_panic() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let style = RigStyle {
        clips: Vec::new(),
        garments: vec![GarmentKind::Skirt],
        cell: 0.06,
        ..RigStyle::default()
    };
    let rig = dir.path().join("skirt.glb");
    std::fs::write(&rig, test_rig_glb(&style)).expect("write the rig");
    let wearing = Character::open_wearing(&rig, None, "skirt").expect("the skirt rig loads");
    let total = case_count(1_000);
    let start = Instant::now();
    let tally = on_two_cores(total, |from, to| {
        garment_settings_cases(dir.path(), &wearing, from, to)
    });
    tally.assert_clean("garment settings fuzz", start.elapsed().as_secs_f64());
    assert!(tally.loaded > 0 && tally.refused > 0, "{tally:?}");
}
