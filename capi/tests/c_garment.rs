//! The rigged garment's C runtime plays a clip as the tool does: `examples/garment_player.c`
//! drives a jacket rigged by `export --rig`'s writer through `ct_garment_step` with the walk
//! sampled by cloth-tuner (the engine's side: model-space joint matrices and the root's world
//! frame, one pose a frame), and every cloth bone it writes on every frame is the bone of the
//! tool's scene (`Scene::step` on the same character and garment, what `simulate` runs), bit
//! for bit.

mod c_build;
mod rigged_file;

use cloth_tuner::export::runtime::GarmentRuntime;
use cloth_tuner::garment::imported::ImportedGarment;
use cloth_tuner::preset::Preset;
use cloth_tuner::scene::Scene;
use cloth_tuner::sim::Frame;
use glam::Mat4;

/// The first pose, then a second of walking at 60 Hz.
const FRAMES: usize = 61;

fn push_f32s(out: &mut Vec<u8>, values: impl IntoIterator<Item = f32>) {
    for v in values {
        out.extend_from_slice(&v.to_ne_bytes());
    }
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap())
}

#[test]
fn the_c_player_walks_the_rigged_jacket_bit_for_bit_as_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let glb = rigged_file::jacket(dir.path());
    let preset_path = rigged_file::tweed();
    let runtime = GarmentRuntime::load(&glb, Some(&preset_path)).unwrap();
    let loaded = runtime.scene();
    let garment = loaded.worn_as::<ImportedGarment>().unwrap().clone();
    let preset = Preset::load(&preset_path).unwrap();
    let character = loaded.character_arc().clone();
    let mut scene = Scene::wearing(character, Box::new(garment), &preset, "walk").unwrap();
    let sk = &scene.character().skeleton;
    let body: Vec<usize> = runtime.joints()[..runtime.body_joint_count()]
        .iter()
        .map(|j| sk.find(&j.name).unwrap())
        .collect();
    let sites: Vec<(usize, Mat4)> = runtime.cloth_bone_sites().collect();
    let hz = runtime.timestep_hz() as f64;

    let mut poses = Vec::new();
    poses.extend_from_slice(&(FRAMES as u32).to_ne_bytes());
    poses.extend_from_slice(&(body.len() as u32).to_ne_bytes());
    let mut expected: Vec<Mat4> = Vec::new();
    for k in 0..FRAMES {
        if k > 0 {
            scene.step();
        }
        let dt = if k == 0 { 0.0 } else { 1.0 / hz };
        poses.extend_from_slice(&dt.to_ne_bytes());
        let root = scene.root();
        push_f32s(&mut poses, root.rotation.to_array());
        push_f32s(&mut poses, root.translation.to_array());
        for &b in &body {
            push_f32s(&mut poses, scene.model()[b].to_cols_array());
        }
        expected.extend(
            sites
                .iter()
                .map(|&(s, offset)| scene.sim_bones()[s] * offset),
        );
    }
    let poses_path = dir.path().join("poses.bin");
    let bones_path = dir.path().join("bones.bin");
    std::fs::write(&poses_path, &poses).unwrap();

    let out = c_build::compile_and_run(
        "examples/garment_player.c",
        &[&glb, &preset_path, &poses_path, &bones_path],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stdout}");
    assert!(
        out.status.success(),
        "garment_player failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("garment_player: ok"), "{stdout}");

    let bytes = std::fs::read(&bones_path).unwrap();
    assert_eq!(read_u32(&bytes, 0) as usize, FRAMES);
    assert_eq!(read_u32(&bytes, 4) as usize, sites.len());
    let got: Vec<f32> = bytes[8..]
        .chunks_exact(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        got.len(),
        expected.len() * 16,
        "the player wrote every frame"
    );
    for (i, (m, want)) in got.chunks_exact(16).zip(&expected).enumerate() {
        let want = want.to_cols_array();
        let same = m.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(
            same,
            "frame {}, cloth bone {}: the C runtime gives {m:?}, the tool {want:?}",
            i / sites.len(),
            i % sites.len()
        );
    }
    // The clip moved the cloth: the hem's bones travel, so the match is not of a still cloth.
    // Measured over every frame, as the walk comes back round to where it started.
    let moved = (sites.len()..expected.len())
        .map(|k| {
            let a = expected[k % sites.len()].w_axis.truncate();
            a.distance(expected[k].w_axis.truncate())
        })
        .fold(0f32, f32::max);
    assert!(
        moved > 0.05,
        "the cloth bones moved only {moved} m in a second of walking"
    );
}

#[test]
fn at_the_files_bind_pose_the_cloth_bones_sit_where_the_file_binds_them() {
    // What an engine sees first: its skeleton at the file's bind pose (each joint at the
    // inverse of its inverse bind matrix) gives back the cloth bones where the file binds
    // them, so the garment does not jump when the runtime takes over. Within a centimetre: as
    // in the tool, the cloth at rest sits on reference points kept out of the body, which
    // turns a few bones over the hips by some degrees.
    let dir = tempfile::tempdir().unwrap();
    let glb = rigged_file::jacket(dir.path());
    let (doc, buffers, _) = gltf::import(&glb).unwrap();
    let skin = doc.skins().next().unwrap();
    let bind: Vec<Mat4> = skin
        .reader(|b| Some(&buffers[b.index()]))
        .read_inverse_bind_matrices()
        .unwrap()
        .map(|m| Mat4::from_cols_array_2d(&m).inverse())
        .collect();
    let mut runtime = GarmentRuntime::load(&glb, None).unwrap();
    let body = &bind[..runtime.body_joint_count()];
    assert_eq!(runtime.step(body, Frame::IDENTITY, 0.0).unwrap(), 0);
    let joints: Vec<usize> = runtime.cloth_bone_joints().collect();
    assert_eq!(joints.len(), runtime.cloth_bones().len());
    let worst = runtime
        .cloth_bones()
        .iter()
        .zip(&joints)
        .map(|(m, &j)| m.w_axis.truncate().distance(bind[j].w_axis.truncate()))
        .fold(0f32, f32::max);
    println!("at the bind pose the cloth bones are within {worst} m of the file's");
    assert!(
        worst < 0.01,
        "a cloth bone lies {worst} m off its bind pose"
    );
}

#[test]
fn bad_files_and_poses_are_refused_with_messages_naming_what_and_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let glb = rigged_file::jacket(dir.path());
    let character =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/character.glb");
    let e = GarmentRuntime::load(&character, None)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("character.glb") && e.contains("not a rigged garment"),
        "{e}"
    );
    let mut runtime = GarmentRuntime::load(&glb, None).unwrap();
    let (body, all) = (runtime.body_joint_count(), runtime.joints().len());
    let e = runtime.step(&[Mat4::IDENTITY; 3], Frame::IDENTITY, 0.0);
    let e = e.err().unwrap().to_string();
    assert!(
        e.contains("`joint_count` is 3") && e.contains(&format!("from {body} to {all}")),
        "{e}"
    );
    let mut pose = vec![Mat4::IDENTITY; body];
    pose[2].w_axis.y = f32::NAN;
    let e = runtime
        .step(&pose, Frame::IDENTITY, 0.0)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("joint 2") && e.contains(&runtime.joints()[2].name),
        "{e}"
    );
    pose[2].w_axis.y = 0.0;
    let e = runtime
        .step(&pose, Frame::IDENTITY, -1.0)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("`dt` is -1"), "{e}");
}
