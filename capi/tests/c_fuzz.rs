//! Compiles `tests/fuzz.c` against the committed header and runs it on the shipped tweed
//! preset and a rigged jacket: seeded garbage in every field of every struct and every
//! argument of the garment's calls (poses, roots, counts, truncated and garbage files), and
//! the process survives.

mod c_build;
mod rigged_file;

use cloth_tuner::export::runtime::GarmentRuntime;

#[test]
fn seeded_garbage_in_every_field_never_kills_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let glb = rigged_file::jacket(dir.path());
    // The body's rest pose in the file's joint order, the good pose the fuzz returns to.
    let runtime = GarmentRuntime::load(&glb, None).unwrap();
    let sk = &runtime.scene().character().skeleton;
    let mut rest = Vec::new();
    sk.rest_pose().compute_model(sk, &mut rest);
    let body = &runtime.joints()[..runtime.body_joint_count()];
    let mut pose = (body.len() as u32).to_ne_bytes().to_vec();
    for joint in body {
        let m = rest[sk.find(&joint.name).unwrap()];
        pose.extend(m.to_cols_array().iter().flat_map(|v| v.to_ne_bytes()));
    }
    let pose_path = dir.path().join("pose.bin");
    std::fs::write(&pose_path, pose).unwrap();
    // Bad files: the garment cut short, its bytes scrambled past the header, not there.
    let bytes = std::fs::read(&glb).unwrap();
    let truncated = dir.path().join("truncated.glb");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let mut scrambled = bytes.clone();
    for (i, b) in scrambled.iter_mut().enumerate().skip(20).step_by(7) {
        *b = b.wrapping_mul(31).wrapping_add(i as u8);
    }
    let garbage = dir.path().join("garbage.glb");
    std::fs::write(&garbage, scrambled).unwrap();
    let missing = dir.path().join("missing.glb");
    let body_only = rigged_file::tweed().with_file_name("../assets/character.glb");

    let out = c_build::compile_and_run(
        "tests/fuzz.c",
        &[
            &rigged_file::tweed(),
            &glb,
            &pose_path,
            &truncated,
            &garbage,
            &missing,
            &body_only,
            dir.path(),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stdout}");
    assert!(
        out.status.success(),
        "the fuzz run failed or died ({:?}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("fuzz: ok"), "{stdout}");
}
