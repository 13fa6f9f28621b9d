//! Crash recovery with the real binary under Xvfb, driven by real mouse input (xdotool):
//! a change is autosaved, the file survives SIGKILL and is valid, and the next start offers it
//! back; a panic inside the 3D drawing leaves the window running with the parameters kept.
//! Skips (with a note) without Xvfb or xdotool; fails when `CI=true`.
//!
//! The clicks land on the rail of the Time step slider, the first knob of the parameter panel
//! in a fresh window (1280 x 800 at the screen's corner, default panel sizes, below the name,
//! garment and look rows): if the top of the panel changes, the positions below
//! (`TIMESTEP_HIGH`, `TIMESTEP_LOW`) change with it.
#![cfg(feature = "gui")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cloth_tuner::app::autosave::{Autosave, FILE_NAME};
use common::Reap;

use crate::common;

/// Screen points (x, y) on the Time step slider's rail: near its right end (about 200 Hz) and
/// a third along (about 90 Hz). The shipped tweed runs at 60 Hz.
const TIMESTEP_HIGH: (u32, u32) = (110, 207);
const TIMESTEP_LOW: (u32, u32) = (60, 207);

struct Tuner {
    app: Reap,
    log: PathBuf,
}

impl Tuner {
    fn start(
        display: &str,
        state: &Path,
        preset: &Path,
        log: PathBuf,
        env: &[(&str, &str)],
    ) -> Self {
        let file = std::fs::File::create(&log).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cloth-tuner"));
        cmd.arg("--preset")
            .arg(preset)
            .env("DISPLAY", display)
            .env("CLOTH_TUNER_STATE_DIR", state)
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("CLOTH_TUNER_TEST_PANIC_IN_DRAW")
            .stdout(file.try_clone().unwrap())
            .stderr(file);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let app = Reap(cmd.spawn().expect("the binary starts"));
        let mut t = Tuner { app, log };
        t.wait_for_window(display);
        t
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn assert_running(&mut self, what: &str) {
        if let Ok(Some(status)) = self.app.0.try_wait() {
            panic!("the tuner exited ({status}) {what}:\n{}", self.log());
        }
    }

    fn wait_for_window(&mut self, display: &str) {
        let start = Instant::now();
        loop {
            self.assert_running("before its window appeared");
            let found = Command::new("xdotool")
                .args(["search", "--name", "cloth-tuner"])
                .env("DISPLAY", display)
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if found {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no window after 60 s:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Waits up to `secs` for `what` to hold, clicking at `click` every few seconds (the
    /// first frames may come before the window takes input).
    fn until(
        &mut self,
        display: &str,
        secs: u64,
        click: Option<(u32, u32)>,
        what: &str,
        mut done: impl FnMut(&Self) -> bool,
    ) {
        let start = Instant::now();
        let mut clicked_at: Option<Instant> = None;
        loop {
            if done(self) {
                return;
            }
            self.assert_running(&format!("while waiting for {what}"));
            if let Some((x, y)) = click {
                if clicked_at.is_none_or(|t| t.elapsed() > Duration::from_secs(5)) {
                    let ok = click_at(display, x, y);
                    assert!(ok, "xdotool could not click");
                    clicked_at = Some(Instant::now());
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "{what}: not after {secs} s\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// Press, hold and release the left button (egui ignores a press and release that arrive in
/// the same frame on a slider).
fn click_at(display: &str, x: u32, y: u32) -> bool {
    let xdo = |args: &[&str]| {
        Command::new("xdotool")
            .args(args)
            .env("DISPLAY", display)
            .status()
            .is_ok_and(|s| s.success())
    };
    let ok = xdo(&[
        "mousemove",
        &x.to_string(),
        &y.to_string(),
        "mousedown",
        "1",
    ]);
    std::thread::sleep(Duration::from_millis(300));
    ok && xdo(&["mouseup", "1"])
}

fn shot(display: &str, name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = Command::new("import")
        .args(["-display", display, "-window", "root"])
        .arg(&path)
        .status();
    path
}

fn autosave(state: &Path) -> Option<Autosave> {
    Autosave::load(&state.join(FILE_NAME)).ok().flatten()
}

/// What each test starts from: an X server of its own and a scratch folder holding the state
/// folder and a copy of the shipped tweed.
struct Setup {
    _x: Reap,
    display: String,
    dir: tempfile::TempDir,
    state: PathBuf,
    preset: PathBuf,
    shipped_hz: f32,
}

impl Setup {
    /// `None` when the tools are missing (and `CI` is not set: then it fails).
    fn new() -> Option<Self> {
        if !common::tools_present(&["Xvfb", "xdotool", "import"]) {
            return None;
        }
        let (x, display) = common::xvfb(1280, 800);
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let preset = common::tweed_copy(dir.path());
        let shipped_hz = cloth_tuner::preset::Preset::load(&preset)
            .unwrap()
            .params
            .timestep_hz;
        Some(Self {
            _x: x,
            display,
            dir,
            state,
            preset,
            shipped_hz,
        })
    }

    /// The tuner on the tweed copy, logging to `log` in the scratch folder.
    fn start(&self, log: &str, env: &[(&str, &str)]) -> Tuner {
        Tuner::start(
            &self.display,
            &self.state,
            &self.preset,
            self.dir.path().join(log),
            env,
        )
    }

    /// Clicks the Time step slider's rail near its right end, as an artist would, until an
    /// autosave holds the change (at most `secs`); returns the saved rate.
    fn click_until_autosaved(&self, tuner: &mut Tuner, secs: u64) -> f32 {
        tuner.until(
            &self.display,
            secs,
            Some(TIMESTEP_HIGH),
            "an autosave of the click",
            |_| {
                autosave(&self.state)
                    .is_some_and(|a| a.preset.params.timestep_hz != self.shipped_hz)
            },
        );
        autosave(&self.state).unwrap().preset.params.timestep_hz
    }
}

#[test]
fn a_killed_tuner_leaves_a_valid_autosave_and_the_next_start_offers_it() {
    let Some(setup) = Setup::new() else {
        return;
    };
    let (display, state, preset) = (&setup.display, &setup.state, &setup.preset);
    let mut tuner = setup.start("first.log", &[]);
    setup.click_until_autosaved(&mut tuner, 90);
    let before_kill = autosave(state).unwrap();
    assert!(
        before_kill.preset.params.timestep_hz > 150.0,
        "the click did not move Time step toward its right end: {}",
        before_kill.preset.params.timestep_hz
    );
    assert_eq!(before_kill.source.as_deref(), Some(preset.as_path()));
    // SIGKILL: no chance to clean up.
    tuner.app.0.kill().unwrap();
    let status = tuner.app.0.wait().unwrap();
    assert!(!status.success());
    let after_kill = Autosave::load(&state.join(FILE_NAME))
        .expect("the autosave is valid after the kill")
        .expect("the autosave survives the kill");
    assert_eq!(after_kill, before_kill);
    let leftovers: Vec<_> = std::fs::read_dir(state)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");

    // The next start finds it and offers it back (the dialog itself is tested in
    // tests/gui/recovery.rs).
    let mut again = setup.start("second.log", &[]);
    again.until(display, 60, None, "the restore offer", |t| {
        t.log().contains("autosave found:")
    });
    std::thread::sleep(Duration::from_secs(2));
    let picture = shot(display, "xvfb_restore_offer.png");
    again.assert_running("after offering the autosave");
    assert!(
        autosave(state).is_some_and(|a| a == before_kill),
        "the offered autosave was touched before an answer"
    );
    eprintln!("restore offer: {}", picture.display());
}

#[test]
fn a_panic_inside_the_3d_drawing_keeps_the_window_and_the_params() {
    let Some(setup) = Setup::new() else {
        return;
    };
    let (display, state) = (&setup.display, &setup.state);
    // Drawing panics 45 s after the viewport is made: time enough for a change first.
    let mut tuner = setup.start("panic.log", &[("CLOTH_TUNER_TEST_PANIC_IN_DRAW", "45")]);
    let changed = setup.click_until_autosaved(&mut tuner, 40);
    assert!(changed > 150.0, "{changed}");
    tuner.until(display, 90, None, "the drawing panic", |t| {
        t.log().contains("drawing the 3D view panicked")
    });
    let log = tuner.log();
    assert!(
        log.contains("test panic in drawing") && log.contains("unsaved parameters autosaved to"),
        "{log}"
    );
    std::thread::sleep(Duration::from_secs(2));
    tuner.assert_running("after the drawing panic");
    assert_eq!(autosave(state).unwrap().preset.params.timestep_hz, changed);
    let picture = shot(display, "xvfb_drawing_panic.png");
    // The window still takes input: the slider still changes (and autosaves) the params.
    tuner.until(
        display,
        60,
        Some(TIMESTEP_LOW),
        "a change after the panic",
        |_| autosave(state).is_some_and(|a| a.preset.params.timestep_hz < 120.0),
    );
    tuner.assert_running("after a change following the panic");
    eprintln!("after the panic: {}", picture.display());
}
