//! Compiles `tests/smoke.c` against the committed header with the system C compiler, links the
//! cdylib this package builds, and runs it on the shipped tweed preset.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder holding the test executable also holds the package's cdylib.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().to_path_buf();
    let name = format!(
        "{}cloth_tuner_capi{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    for candidate in [dir.clone(), dir.parent().unwrap().to_path_buf()] {
        if candidate.join(&name).exists() {
            return candidate;
        }
    }
    panic!("{name} not found next to {}", exe.display());
}

#[test]
fn the_c_smoke_test_compiles_links_and_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let out_dir = tempfile_dir();
    let exe = out_dir.join("smoke");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let status = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join("tests/smoke.c"))
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lcloth_tuner_capi", "-lm", "-o"])
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    assert!(status.success(), "compiling tests/smoke.c failed");
    let preset = root.join("../presets/tweed.json");
    let out = Command::new(&exe).arg(&preset).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stdout}");
    assert!(
        out.status.success(),
        "smoke test failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("smoke: ok"), "{stdout}");
    let _ = std::fs::remove_dir_all(out_dir);
}

/// A fresh folder under the system temp dir for the executable.
fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cloth-tuner-capi-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
