//! What the window tests share: a paused tuner in egui_kittest, typing a path into the File
//! dialog, and for the real binary an X server of its own and a check for the tools it needs.
//! Each test file uses only part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use cloth_tuner::app::App;
use eframe::egui;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;

/// A harness around the app `make` builds, at 1280 x 900, paused (a playing app repaints
/// forever and the harness would never settle), after its first frames.
pub fn paused_harness(
    make: impl FnOnce(&eframe::CreationContext<'_>) -> App + 'static,
) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 900.0))
        .with_max_steps(64)
        .build_eframe(|cc| {
            let mut app = make(cc);
            app.set_playing(false);
            app
        });
    h.run();
    h
}

/// The tuner as it starts with no options, paused.
pub fn harness() -> Harness<'static, App> {
    paused_harness(App::new)
}

/// A copy of the shipped tweed in `dir`, to be opened, changed and saved.
pub fn tweed_copy(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("tweed.json");
    std::fs::write(&path, cloth_tuner::app::SHIPPED[0].1).unwrap();
    path
}

/// File > `menu_entry`, types `path` into the dialog and presses its Open or Save button.
pub fn type_path(h: &mut Harness<'static, App>, menu_entry: &str, path: &Path) {
    h.get_by_label("File").click();
    h.run();
    h.get_by_label(menu_entry).click();
    h.run();
    h.get_by_role_and_label(Role::TextInput, "Path")
        .set_text_value_accesskit(&path.display().to_string());
    h.run();
    let button = if menu_entry.starts_with("Save") {
        "Save"
    } else {
        "Open"
    };
    // The dialog's button (the File menu is closed by now).
    h.get_all_by_label(button)
        .last()
        .expect("the path dialog has its button")
        .click();
    h.run();
}

/// Kills a child process when dropped (the test may fail half-way).
pub struct Reap(pub Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// True when every tool is installed. Otherwise false after a note on a developer machine, and
/// a failure under `CI=true` (CI must prove the window works; `.ci/run` installs them).
pub fn tools_present(tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !have(t)).collect();
    if missing.is_empty() {
        return true;
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !ci,
        "CI=true but {} missing: .ci/run installs xvfb, xdotool and imagemagick",
        missing.join(" and ")
    );
    eprintln!(
        "skipping: {} not installed (CI=true makes this a failure)",
        missing.join(", ")
    );
    false
}

/// An X server of its own with one `width` x `height` screen that outlives its clients;
/// returns it and its display name.
pub fn xvfb(width: u32, height: u32) -> (Reap, String) {
    let mut x = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            &format!("{width}x{height}x24"),
            "-nolisten",
            "tcp",
            // Without it the server resets when its last client goes (a killed tuner), and a
            // tuner started in that moment cannot connect.
            "-noreset",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb starts");
    let stdout = x.stdout.take().expect("piped");
    let x = Reap(x);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("Xvfb prints its display number");
    assert!(line.trim().parse::<u32>().is_ok(), "Xvfb said {line:?}");
    (x, format!(":{}", line.trim()))
}

/// True when windowless GL works; otherwise skips (or fails under `CI=true`, with the
/// packages to install).
pub fn have_gl(test: &str) -> bool {
    use cloth_tuner::render::headless::{HeadlessGl, GL_PACKAGES};
    match HeadlessGl::new() {
        Ok(_) => true,
        Err(e) => {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true");
            assert!(
                !ci,
                "CI=true and {test} needs windowless OpenGL: {e}\n\
                 (install the Debian packages {GL_PACKAGES}; .ci/run does)"
            );
            eprintln!("skipping {test}: {e} (CI=true makes this a failure)");
            false
        }
    }
}

/// An empty folder of its own under the test target's scratch space.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `glb` with animation `animation`'s channel `channel` aimed at node 512, which no test
/// character has: valid JSON that the `gltf` crate's accessors would panic on.
pub fn with_channel_at_a_missing_node(glb: &[u8], animation: usize, channel: usize) -> Vec<u8> {
    let (mut json, bin) = cloth_tuner_assets::split_glb(glb).expect("a .glb");
    json["animations"][animation]["channels"][channel]["target"]["node"] = 512.into();
    cloth_tuner_assets::glb(serde_json::to_vec(&json).expect("JSON serialises"), bin)
}
