//! What the C tests share: compile a C file of this package (`tests/`, `examples/`) against the
//! committed header with the system C compiler (`CC`, else `cc`), link the cdylib this package
//! builds, and run it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// Compiles `<source>` (a path in this package, C99, every warning an error), runs it with
/// `args` and returns its output. Panics when it does not compile.
pub fn compile_and_run(source: &str, args: &[&Path]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let stem = Path::new(source).file_stem().unwrap().to_str().unwrap();
    let out_dir =
        std::env::temp_dir().join(format!("cloth-tuner-capi-{stem}-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let exe = out_dir.join(stem);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let status = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join(source))
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lcloth_tuner_capi", "-lm", "-o"])
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    assert!(status.success(), "compiling {source} failed");
    // Cargo runs tests with `LD_LIBRARY_PATH` naming `target/<profile>` too, where an older
    // copy of the library from a `cargo build` may sit; it overrides the run path, so the
    // library just built goes first.
    let mut search = std::ffi::OsString::from(&lib);
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        search.push(":");
        search.push(old);
    }
    let out = Command::new(&exe)
        .args(args)
        .env("LD_LIBRARY_PATH", search)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(out_dir);
    out
}
