//! The committed character asset: generated, loadable, and robust loading.
#![cfg(feature = "rig")]

use cloth_tuner::character::{Character, RigError};
use cloth_tuner_assets::{body, motion, CHARACTER_PATH};

fn committed_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CHARACTER_PATH)
}

fn committed() -> Vec<u8> {
    std::fs::read(committed_path()).expect("assets/character.glb is committed")
}

#[test]
fn committed_asset_equals_generator_output() {
    let generated = cloth_tuner_assets::character_glb();
    let committed = committed();
    assert!(
        generated == committed,
        "assets/character.glb is stale: run `cargo run --release -p cloth-tuner-assets` \
         (generated {} bytes, committed {} bytes)",
        generated.len(),
        committed.len()
    );
    assert!(
        committed.len() < 2 * 1024 * 1024,
        "asset too large: {} bytes",
        committed.len()
    );
}

#[test]
fn builtin_loads_and_has_the_expected_contents() {
    let ch = Character::builtin();
    let bones: Vec<&str> = ch
        .skeleton
        .bones()
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    for name in [
        "root",
        "pelvis",
        "spine",
        "chest",
        "neck",
        "head",
        "clavicle_l",
        "clavicle_r",
        "upperarm_l",
        "upperarm_twist_l",
        "forearm_l",
        "forearm_twist_l",
        "hand_l",
        "upperarm_r",
        "upperarm_twist_r",
        "forearm_r",
        "forearm_twist_r",
        "hand_r",
        "thigh_l",
        "calf_l",
        "foot_l",
        "thigh_r",
        "calf_r",
        "foot_r",
    ] {
        assert!(bones.contains(&name), "missing bone {name}");
    }
    assert_eq!(
        ch.skeleton
            .find("pelvis")
            .and_then(|i| ch.skeleton.parent(i)),
        Some(0)
    );
    for name in ["chest", "belly", "hips"] {
        assert!(ch.ellipsoid(name).is_some(), "missing ellipsoid {name}");
    }
    for side in ["l", "r"] {
        for limb in ["thigh", "calf", "upperarm"] {
            for part in ["upper", "lower"] {
                let name = format!("{limb}_{side}_{part}");
                assert!(ch.ellipsoid(&name).is_some(), "missing ellipsoid {name}");
            }
        }
    }
    assert_eq!(ch.inverse_bind.len(), ch.skeleton.len());
    assert!(ch.mesh.vertex_count() > 2000 && ch.mesh.vertex_count() < 20000);
    // Loading from disk gives the same character as the compiled-in copy.
    assert_eq!(Character::load(committed_path()).unwrap(), ch);
}

/// The generator and the loader agree on the file's conventions (node naming, the ellipsoids'
/// prefix and parenting, the looping flag): everything written is read back where it belongs.
#[test]
fn the_loader_reads_what_the_generator_writes() {
    let ch = Character::builtin();
    let bones = body::bones();
    let loaded: Vec<(&str, Option<usize>)> = ch
        .skeleton
        .bones()
        .iter()
        .map(|b| (b.name.as_str(), b.parent))
        .collect();
    let written: Vec<(&str, Option<usize>)> =
        bones.iter().map(|b| (b.name.as_str(), b.parent)).collect();
    assert_eq!(loaded, written, "bones (name, parent)");

    let ellipsoids = body::ellipsoids(&bones);
    assert_eq!(ch.ellipsoids.len(), ellipsoids.len(), "ellipsoid count");
    for (got, def) in ch.ellipsoids.iter().zip(&ellipsoids) {
        assert_eq!((got.name.as_str(), got.bone), (def.name.as_str(), def.bone));
        let centre = def.centre - bones[def.bone].pos;
        assert!(got.centre.distance(centre) < 1e-6, "{}: centre", def.name);
        assert!(got.radii.distance(def.radii) < 1e-6, "{}: radii", def.name);
    }

    let loaded: Vec<(&str, bool)> = ch
        .clips
        .iter()
        .map(|c| (c.name.as_str(), c.looping))
        .collect();
    assert_eq!(loaded, motion::clip_list(), "clips (name, looping)");
}

#[test]
fn missing_file_is_an_error_naming_the_file() {
    let err = Character::load("/nonexistent/dir/character.glb").unwrap_err();
    assert!(matches!(err, RigError::Io { .. }));
    assert!(
        err.to_string().contains("/nonexistent/dir/character.glb"),
        "{err}"
    );
}

#[test]
fn garbage_and_truncated_files_are_errors() {
    let good = committed();
    for (what, bytes) in [
        ("empty", Vec::new()),
        ("text", b"hello, I am not a glTF file".to_vec()),
        ("header only", good[..12].to_vec()),
        ("half", good[..good.len() / 2].to_vec()),
        ("no binary chunk", good[..good.len() - 1000].to_vec()),
    ] {
        let err = Character::from_glb(&bytes, "bad.glb").expect_err(what);
        assert!(err.to_string().contains("bad.glb"), "{what}: {err}");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("corrupt.glb");
    std::fs::write(&path, &good[..5000]).unwrap();
    let err = Character::load(&path).unwrap_err();
    assert!(err.to_string().contains("corrupt.glb"), "{err}");
}

#[test]
fn header_lengths_that_would_underflow_are_errors() {
    let mut bytes = committed();
    bytes[8..12].copy_from_slice(&3u32.to_le_bytes());
    assert!(Character::from_glb(&bytes, "x.glb").is_err());
    let mut bytes = committed();
    bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Character::from_glb(&bytes, "x.glb").is_err());
}

#[test]
fn inconsistent_json_is_an_error_not_a_panic() {
    let good = committed();
    let json_len = u32::from_le_bytes([good[12], good[13], good[14], good[15]]) as usize;
    let json = std::str::from_utf8(&good[20..20 + json_len])
        .unwrap()
        .to_string();
    let rebuild = |json: &str| {
        let mut j = json.as_bytes().to_vec();
        while j.len() % 4 != 0 {
            j.push(b' ');
        }
        let bin = &good[20 + json_len..];
        let mut out = Vec::new();
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&((12 + 8 + j.len() + bin.len()) as u32).to_le_bytes());
        out.extend_from_slice(&(j.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&j);
        out.extend_from_slice(bin);
        out
    };
    // Sanity: rebuilding unchanged JSON loads.
    assert!(Character::from_glb(&rebuild(&json), "same.glb").is_ok());
    let edits = [
        ("\"count\":", "\"count\":9999999,\"x\":"),
        ("\"byteOffset\":", "\"byteOffset\":999999999,\"x\":"),
        ("\"componentType\":5126", "\"componentType\":5121"),
        ("\"type\":\"VEC3\"", "\"type\":\"VEC2\""),
        ("\"skins\"", "\"skinz\""),
        ("\"JOINTS_0\"", "\"JOINTS_7\""),
        ("\"type\":\"MAT4\"", "\"type\":\"VEC4\""),
        (
            "\"interpolation\":\"LINEAR\"",
            "\"interpolation\":\"CUBICSPLINE\"",
        ),
    ];
    for (from, to) in edits {
        assert!(json.contains(from), "test edit {from} does not apply");
        let bad = json.replacen(from, to, 1);
        let res = Character::from_glb(&rebuild(&bad), "edited.glb");
        let err = res.expect_err(from);
        assert!(err.to_string().contains("edited.glb"), "{err}");
    }
}

#[test]
fn random_corruption_never_panics() {
    let good = committed();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let json_len = u32::from_le_bytes([good[12], good[13], good[14], good[15]]) as usize;
    for _ in 0..60 {
        let mut bytes = good.clone();
        for _ in 0..(1 + next() % 8) {
            // Mostly hit the JSON chunk, where structure lives.
            let limit = if next() % 4 == 0 {
                bytes.len()
            } else {
                20 + json_len
            };
            let i = (next() as usize) % limit;
            bytes[i] = next() as u8;
        }
        let _ = Character::from_glb(&bytes, "fuzz.glb");
    }
}
