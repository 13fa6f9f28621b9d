//! The real binary under Xvfb with Mesa's software OpenGL: it must open its window, play, and
//! show the tweed jacket in the viewport, also when the character it was asked for is broken
//! (it plays the built-in one and says why). Skips (with a note) on a developer machine without
//! Xvfb or ImageMagick; fails when `CI=true`, because CI must prove the window renders.
#![cfg(feature = "gui")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cloth_tuner::render::FabricLook;
use common::Reap;

use crate::common;

/// Pixels of the picture that look like lit tweed (warm brown: red over green over blue),
/// inside `area` (x0, y0, x1, y1).
fn tweed_pixels(png_path: &Path, area: (u32, u32, u32, u32)) -> (usize, u32, u32) {
    let file = std::fs::File::open(png_path).unwrap();
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let (w, h) = (info.width, info.height);
    let mut count = 0;
    for y in area.1..area.3.min(h) {
        for x in area.0..area.2.min(w) {
            let i = (y as usize * w as usize + x as usize) * channels;
            let (r, g, b) = (buf[i] as i32, buf[i + 1] as i32, buf[i + 2] as i32);
            if r > 70 && r > g + 14 && g > b + 6 && r - b > 30 {
                count += 1;
            }
        }
    }
    (count, w, h)
}

/// Starts the real binary with `args` on its own X server and waits until the tweed jacket
/// shows in the viewport (at most 60 s); returns the tweed-coloured pixel count and the
/// screenshot's size. Panics with the window's log if it exits or never shows the jacket.
fn window_shows_tweed(args: &[&std::ffi::OsStr], shot_name: &str) -> (usize, u32, u32) {
    let (w, h) = (1280, 800);
    let (xvfb, display) = common::xvfb(w, h);
    let state = tempfile::tempdir().unwrap();
    let log_path = state.path().join("app.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let app = Command::new(env!("CARGO_BIN_EXE_cloth-tuner"))
        .args(args)
        .env("DISPLAY", &display)
        .env("CLOTH_TUNER_STATE_DIR", state.path())
        .env("CLOTH_TUNER_REPORT_FPS", "1")
        .env_remove("WAYLAND_DISPLAY")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("the binary starts");
    let mut app = Reap(app);

    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(shot_name);
    let start = Instant::now();
    let mut last = (0, 0, 0);
    // Give the window a few seconds to open and play, then look until the jacket shows.
    std::thread::sleep(Duration::from_secs(4));
    loop {
        if let Ok(Some(status)) = app.0.try_wait() {
            panic!(
                "the window exited ({status}) before showing anything:\n{}",
                std::fs::read_to_string(&log_path).unwrap_or_default()
            );
        }
        let ok = Command::new("import")
            .args(["-display", &display, "-window", "root"])
            .arg(&shot)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            // The viewport: right of the parameter panel, above the playback panel.
            last = tweed_pixels(&shot, (420, 40, w, h - 300));
            if last.0 > 3000 {
                break;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no tweed in the viewport after 60 s ({} warm pixels, picture {}x{}); see {}\n{}",
            last.0,
            last.1,
            last.2,
            shot.display(),
            std::fs::read_to_string(&log_path).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_secs(2));
    }
    drop(app);
    drop(xvfb);
    eprintln!(
        "jacket visible: {} tweed-coloured pixels in {}",
        last.0,
        shot.display()
    );
    last
}

#[test]
fn the_window_shows_the_jacket_under_xvfb() {
    if !common::tools_present(&["Xvfb", "import"]) {
        return;
    }
    // Make sure the jacket's look in the shipped preset is the one we look for.
    let preset = Path::new(env!("CARGO_MANIFEST_DIR")).join("presets/tweed.json");
    let tweed = cloth_tuner::preset::Preset::load(&preset).unwrap();
    assert_eq!(tweed.look, FabricLook::TWEED);
    window_shows_tweed(&["--preset".as_ref(), preset.as_os_str()], "xvfb_tweed.png");
}

#[test]
fn the_window_opens_on_the_builtin_character_when_the_one_named_is_broken() {
    if !common::tools_present(&["Xvfb", "import"]) {
        return;
    }
    // The built-in character with an animation channel aimed at a node it does not have.
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.glb");
    let glb =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/character.glb")).unwrap();
    std::fs::write(&broken, common::with_channel_at_a_missing_node(&glb, 2, 7)).unwrap();
    let preset = Path::new(env!("CARGO_MANIFEST_DIR")).join("presets/tweed.json");
    window_shows_tweed(
        &[
            "--preset".as_ref(),
            preset.as_os_str(),
            "--character".as_ref(),
            broken.as_os_str(),
        ],
        "xvfb_broken_character.png",
    );
}
