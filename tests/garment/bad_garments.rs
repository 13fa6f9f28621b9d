//! Bad garments through the commands' own path (`--garment FILE`, [`CharacterArgs::load_outfit`]):
//! each is the asset generator's skirt written as `.gltf` and damaged by editing its JSON or
//! its buffer, and each is refused with a message that names the file and the problem; nothing
//! panics. (A bind pose that disagrees with the body's is `imported.rs`'s test.)

use std::path::{Path, PathBuf};

use cloth_tuner::cli::CharacterArgs;
use cloth_tuner::garment::imported::MAX_VERTICES;
use cloth_tuner_assets::garment::{garment_file_gltf, GarmentKind};
use cloth_tuner_assets::test_rig::RigStyle;
use serde_json::{json, Value};

/// The generator's skirt as `.gltf` JSON and its buffer's bytes.
fn skirt() -> (Value, Vec<u8>) {
    let (doc, bin) = garment_file_gltf(GarmentKind::Skirt, &RigStyle::default(), "bad.bin");
    (serde_json::from_slice(&doc).unwrap(), bin)
}

/// Writes `doc` and `bin` as `dir/<name>.gltf` and the `bad.bin` beside it.
fn write(dir: &Path, name: &str, doc: &Value, bin: &[u8]) -> PathBuf {
    let path = dir.join(format!("{name}.gltf"));
    std::fs::write(&path, serde_json::to_vec(doc).unwrap()).unwrap();
    std::fs::write(dir.join("bad.bin"), bin).unwrap();
    path
}

/// The error the built-in character wearing `file` is refused with, as a command prints it.
fn refusal(file: &Path) -> String {
    let args = CharacterArgs {
        garment: Some(file.to_path_buf()),
        ..Default::default()
    };
    match args.load_outfit() {
        Ok(_) => panic!("{} was taken", file.display()),
        Err(e) => e.to_string(),
    }
}

/// Asserts `e` names the file `name` and says each of `says`.
fn assert_names(e: &str, name: &str, says: &[&str]) {
    assert!(e.contains(name), "the message does not name {name}: {e}");
    for s in says {
        assert!(e.contains(s), "the message does not say `{s}`: {e}");
    }
}

/// The skirt's vertex positions, changed by `f` in place in `bin`.
fn edit_positions(doc: &Value, bin: &mut [u8], f: impl Fn([f32; 3]) -> [f32; 3]) {
    let acc = &doc["accessors"][doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize];
    let view = &doc["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0);
    let stride = view["byteStride"].as_u64().unwrap_or(12) as usize;
    for v in 0..acc["count"].as_u64().unwrap() as usize {
        let at = start as usize + v * stride;
        let mut p = [0f32; 3];
        for (k, c) in p.iter_mut().enumerate() {
            let b = &bin[at + 4 * k..at + 4 * k + 4];
            *c = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        for (k, c) in f(p).iter().enumerate() {
            bin[at + 4 * k..at + 4 * k + 4].copy_from_slice(&c.to_le_bytes());
        }
    }
}

#[test]
fn a_mesh_with_no_skin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (mut doc, bin) = skirt();
    for node in doc["nodes"].as_array_mut().unwrap() {
        node.as_object_mut().unwrap().remove("skin");
    }
    doc.as_object_mut().unwrap().remove("skins");
    let e = refusal(&write(dir.path(), "unskinned", &doc, &bin));
    assert_names(&e, "unskinned.gltf", &["no skin"]);
}

#[test]
fn weighted_joints_the_body_does_not_have_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let (mut doc, bin) = skirt();
    for node in doc["nodes"].as_array_mut().unwrap() {
        if let Some(n @ ("thigh_l" | "thigh_r")) = node["name"].as_str() {
            node["name"] = json!(n.replace("thigh", "tail"));
        }
    }
    let e = refusal(&write(dir.path(), "tailed", &doc, &bin));
    assert_names(
        &e,
        "tailed.gltf",
        &["tail_", "not in the character's skeleton"],
    );
}

#[test]
fn a_mesh_with_no_faces_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (mut doc, bin) = skirt();
    // The same vertices drawn as points (glTF mode 0): not one triangle.
    doc["meshes"][0]["primitives"][0]["mode"] = json!(0);
    let e = refusal(&write(dir.path(), "points", &doc, &bin));
    assert_names(&e, "points.gltf", &["no triangles"]);
}

#[test]
fn a_flat_plane_that_encloses_nothing_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, mut bin) = skirt();
    // Every vertex pressed onto one upright plane in front of the body, like a board.
    edit_positions(&doc, &mut bin, |[x, y, _]| [x, y, 0.3]);
    let e = refusal(&write(dir.path(), "board", &doc, &bin));
    assert_names(&e, "board.gltf", &["round the body"]);
}

#[test]
fn nan_positions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, mut bin) = skirt();
    let first = std::cell::Cell::new(true);
    edit_positions(&doc, &mut bin, |p| {
        if first.replace(false) {
            [f32::NAN, p[1], p[2]]
        } else {
            p
        }
    });
    let e = refusal(&write(dir.path(), "nan", &doc, &bin));
    assert_names(&e, "nan.gltf", &["positions", "NaN"]);
}

#[test]
fn a_two_million_vertex_garment_is_refused_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (mut doc, bin) = skirt();
    // Two million vertices after the skirt's data, in one zeroed view that the position,
    // joint and weight accessors read (the buffer grows as a sparse file: nothing is written).
    const N: usize = 2_000_000;
    let at = bin.len().next_multiple_of(16);
    let len = N * 16;
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(json!({ "buffer": 0, "byteOffset": at, "byteLength": len }));
    let view = views.len() - 1;
    let accessors = doc["accessors"].as_array_mut().unwrap();
    let mut add = |kind: &str, component: u32| {
        let mut a =
            json!({ "bufferView": view, "componentType": component, "count": N, "type": kind });
        if kind == "VEC3" {
            a["min"] = json!([0.0, 0.0, 0.0]);
            a["max"] = json!([0.0, 0.0, 0.0]);
        }
        accessors.push(a);
        accessors.len() - 1
    };
    let attributes = json!({
        "POSITION": add("VEC3", 5126),
        "JOINTS_0": add("VEC4", 5123),
        "WEIGHTS_0": add("VEC4", 5126),
    });
    let primitive = &mut doc["meshes"][0]["primitives"][0];
    primitive["attributes"] = attributes;
    doc["buffers"][0]["byteLength"] = json!(at + len);
    let path = write(dir.path(), "huge", &doc, &bin);
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("bad.bin"))
        .unwrap()
        .set_len((at + len) as u64)
        .unwrap();
    let e = refusal(&path);
    assert_names(
        &e,
        "huge.gltf",
        &["2000000 vertices", &format!("at most {MAX_VERTICES}")],
    );
}
