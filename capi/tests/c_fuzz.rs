//! Compiles `tests/fuzz.c` against the committed header and runs it on the shipped tweed
//! preset: seeded garbage in every field of every struct, and the process survives.

mod c_build;

use std::path::Path;

#[test]
fn seeded_garbage_in_every_field_never_kills_the_host() {
    let preset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../presets/tweed.json");
    let out = c_build::compile_and_run("tests/fuzz.c", &[&preset]);
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
