//! Compiles `tests/smoke.c` against the committed header with the system C compiler, links the
//! cdylib this package builds, and runs it on the shipped tweed preset.

mod c_build;

use std::path::Path;

#[test]
fn the_c_smoke_test_compiles_links_and_passes() {
    let preset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../presets/tweed.json");
    let out = c_build::compile_and_run("tests/smoke.c", &[&preset]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stdout}");
    assert!(
        out.status.success(),
        "smoke test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("smoke: ok"), "{stdout}");
}
