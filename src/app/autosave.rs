//! The autosave: a copy of the working preset (and the file it came from) written atomically
//! at most every [`MIN_INTERVAL`] seconds while unsaved changes exist, removed when there is
//! nothing unsaved (after a save) and on a clean exit. After a crash or a kill the next start
//! finds it and offers to restore it.
//!
//! The file is `autosave.json` in `CLOTH_TUNER_STATE_DIR` when that is set, else in the
//! platform's data folder (`$XDG_DATA_HOME/cloth-tuner` or `~/.local/share/cloth-tuner` on
//! Linux, `~/Library/Application Support/cloth-tuner` on macOS, `%APPDATA%\cloth-tuner\data` on
//! Windows; the folder eframe keeps the window state in).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::files::write_atomic;
use crate::preset::Preset;

/// `"format"` of an autosave file.
pub const FORMAT: &str = "cloth-tuner-autosave";
/// `"version"` of an autosave file.
pub const VERSION: u32 = 1;
/// The file's name inside the autosave folder.
pub const FILE_NAME: &str = "autosave.json";
/// At most one write per this many seconds while the parameters keep changing.
pub const MIN_INTERVAL: f64 = 3.0;
/// Largest autosave file read (a preset is a few kB).
const MAX_BYTES: u64 = 4 << 20;

/// What an autosave file holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Autosave {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// The preset file the work started from (`None`: a new preset never saved).
    pub source: Option<PathBuf>,
    /// When it was written, seconds since the Unix epoch.
    pub written_unix: u64,
    /// The whole working preset, unsaved changes included.
    pub preset: Preset,
}

impl Autosave {
    /// An autosave of `preset`, written now.
    pub fn new(preset: &Preset, source: Option<&Path>) -> Self {
        Self {
            format: FORMAT.to_string(),
            version: VERSION,
            source: source.map(Path::to_path_buf),
            written_unix: unix_now(),
            preset: preset.clone(),
        }
    }

    /// Reads an autosave file: `Ok(None)` when there is none, an error naming the file when it
    /// is unreadable or not a valid autosave (the preset inside is checked like a preset file).
    pub fn load(path: &Path) -> Result<Option<Autosave>, String> {
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
        };
        if meta.len() > MAX_BYTES {
            return Err(format!(
                "{}: {} bytes is too large for an autosave",
                path.display(),
                meta.len()
            ));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not valid JSON: {e}", path.display()))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(format!(
                "{}: not a cloth-tuner autosave (no \"format\": \"{FORMAT}\")",
                path.display()
            ));
        }
        // The preset goes through the preset loader's own checks (ranges, version).
        let preset_text = value
            .get("preset")
            .map(|p| p.to_string())
            .ok_or_else(|| format!("{}: no `preset` in the autosave", path.display()))?;
        Preset::from_json(&preset_text, path).map_err(|e| format!("in the autosave: {e}"))?;
        let save: Autosave = serde_json::from_value(value)
            .map_err(|e| format!("{}: not a valid autosave: {e}", path.display()))?;
        if save.version != VERSION {
            return Err(format!(
                "{}: autosave version {} (this cloth-tuner writes version {VERSION})",
                path.display(),
                save.version
            ));
        }
        Ok(Some(save))
    }

    /// Writes the autosave atomically (temporary file and rename in the same folder).
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let mut text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        text.push('\n');
        write_atomic(path, text.as_bytes()).map_err(|e| e.to_string())
    }
}

/// The folder autosaves go in: `state_dir` (from `CLOTH_TUNER_STATE_DIR`) when given, else the
/// platform's data folder for cloth-tuner.
pub fn default_dir(state_dir: Option<&Path>) -> Option<PathBuf> {
    match state_dir {
        Some(d) => Some(d.to_path_buf()),
        None => eframe::storage_dir("cloth-tuner"),
    }
}

/// Decides when to write and when to remove the autosave. Knows nothing of the window: the app
/// calls [`Autosaver::tick`] every frame with its clock.
#[derive(Debug, Default)]
pub struct Autosaver {
    /// The file (`None`: autosave off, as in tests that do not ask for it).
    path: Option<PathBuf>,
    /// What was written last (the preset and its source), while the file is ours.
    written: Option<(Preset, Option<PathBuf>)>,
    /// Clock time of the last write.
    written_at: Option<f64>,
    /// Not touching the file (an autosave from an earlier run waits for the artist's answer).
    held: bool,
    /// The last write error, reported once.
    failed: Option<String>,
}

/// What a tick did.
#[derive(Clone, Debug, PartialEq)]
pub enum Tick {
    /// Nothing to do.
    Idle,
    /// Unsaved changes wait for the interval to pass: call again after this many seconds.
    Wait(f64),
    /// Wrote the autosave.
    Wrote,
    /// Removed the autosave (nothing unsaved).
    Removed,
    /// Writing failed (reported once per failure streak).
    Failed(String),
}

impl Autosaver {
    /// An autosaver writing `dir/autosave.json`.
    pub fn in_dir(dir: &Path) -> Self {
        Self {
            path: Some(dir.join(FILE_NAME)),
            ..Default::default()
        }
    }

    /// The autosave file, when autosave is on.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Stops (or resumes) touching the file.
    pub fn hold(&mut self, held: bool) {
        self.held = held;
    }

    /// Treats the file on disk as already holding `preset` from `source` (after a restore).
    pub fn adopt(&mut self, preset: &Preset, source: Option<&Path>, now: f64) {
        self.written = Some((preset.clone(), source.map(Path::to_path_buf)));
        self.written_at = Some(now);
    }

    /// Called every frame. With unsaved changes (`dirty`) that differ from the last write, writes
    /// once [`MIN_INTERVAL`] has passed since the last write; with nothing unsaved, removes the
    /// file this autosaver wrote.
    pub fn tick(&mut self, now: f64, preset: &Preset, source: Option<&Path>, dirty: bool) -> Tick {
        if self.held || self.path.is_none() {
            return Tick::Idle;
        }
        if !dirty {
            return if self.written.is_some() {
                self.clear();
                Tick::Removed
            } else {
                Tick::Idle
            };
        }
        let same = self
            .written
            .as_ref()
            .is_some_and(|(p, s)| p == preset && s.as_deref() == source);
        if same {
            return Tick::Idle;
        }
        if let Some(at) = self.written_at {
            let wait = at + MIN_INTERVAL - now;
            if wait > 0.0 {
                return Tick::Wait(wait);
            }
        }
        match self.write_now(now, preset, source) {
            Ok(()) => Tick::Wrote,
            Err(e) => {
                // Try again after the interval; report only the first failure of a streak.
                self.written_at = Some(now);
                if self.failed.as_deref() == Some(e.as_str()) {
                    Tick::Idle
                } else {
                    self.failed = Some(e.clone());
                    Tick::Failed(e)
                }
            }
        }
    }

    /// Writes now, whatever the interval (after a drawing failure). Returns the file written.
    pub fn write_now(
        &mut self,
        now: f64,
        preset: &Preset,
        source: Option<&Path>,
    ) -> Result<(), String> {
        let Some(path) = self.path.clone() else {
            return Err("autosave is off".to_string());
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))?;
        }
        Autosave::new(preset, source).write(&path)?;
        self.written = Some((preset.clone(), source.map(Path::to_path_buf)));
        self.written_at = Some(now);
        self.failed = None;
        Ok(())
    }

    /// Removes the autosave file (a clean exit, a save, or the artist discarded it).
    pub fn clear(&mut self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
        self.written = None;
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tweaked(damping: f32) -> Preset {
        let mut p = Preset::default();
        p.params.damping = damping;
        p
    }

    /// The damping in the autosave file.
    fn saved_damping(file: &Path) -> f32 {
        Autosave::load(file).unwrap().unwrap().preset.params.damping
    }

    #[test]
    fn writes_at_most_once_per_interval_and_always_the_latest() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = Autosaver::in_dir(dir.path());
        let file = dir.path().join(FILE_NAME);
        let src = Path::new("presets/tweed.json");
        assert_eq!(a.tick(0.0, &tweaked(0.1), Some(src), true), Tick::Wrote);
        let first = Autosave::load(&file).unwrap().unwrap();
        assert_eq!(first.preset.params.damping, 0.1);
        assert_eq!(first.source.as_deref(), Some(src));
        // Changes within the interval wait.
        assert!(matches!(
            a.tick(1.0, &tweaked(0.2), Some(src), true),
            Tick::Wait(w) if (w - 2.0).abs() < 1e-9
        ));
        assert!(matches!(
            a.tick(2.9, &tweaked(0.3), Some(src), true),
            Tick::Wait(_)
        ));
        assert_eq!(saved_damping(&file), 0.1);
        // After it, the latest state is written.
        assert_eq!(a.tick(3.0, &tweaked(0.3), Some(src), true), Tick::Wrote);
        assert_eq!(saved_damping(&file), 0.3);
        // Nothing new: nothing written.
        assert_eq!(a.tick(10.0, &tweaked(0.3), Some(src), true), Tick::Idle);
        // Saved (not dirty): removed.
        assert_eq!(a.tick(11.0, &tweaked(0.3), Some(src), false), Tick::Removed);
        assert!(!file.exists());
    }

    #[test]
    fn a_held_autosaver_leaves_an_earlier_runs_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(FILE_NAME);
        Autosave::new(&tweaked(0.5), None).write(&file).unwrap();
        let mut a = Autosaver::in_dir(dir.path());
        a.hold(true);
        assert_eq!(a.tick(0.0, &tweaked(0.1), None, true), Tick::Idle);
        assert_eq!(saved_damping(&file), 0.5);
        // Not ours and nothing unsaved: not removed either.
        a.hold(false);
        assert_eq!(a.tick(1.0, &tweaked(0.1), None, false), Tick::Idle);
        assert!(file.exists());
    }

    #[test]
    fn a_write_failure_is_reported_once_and_retried() {
        let dir = tempfile::tempdir().unwrap();
        // The folder is a regular file: creating it fails, for root too.
        let blocker = dir.path().join("not_a_folder");
        std::fs::write(&blocker, "x").unwrap();
        let mut a = Autosaver::in_dir(&blocker.join("sub"));
        let e = match a.tick(0.0, &tweaked(0.1), None, true) {
            Tick::Failed(e) => e,
            t => panic!("{t:?}"),
        };
        assert!(e.contains("not_a_folder"), "{e}");
        assert!(matches!(
            a.tick(1.0, &tweaked(0.2), None, true),
            Tick::Wait(_)
        ));
        assert_eq!(a.tick(4.0, &tweaked(0.2), None, true), Tick::Idle);
    }

    #[test]
    fn broken_autosave_files_are_errors_that_name_the_file_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(FILE_NAME);
        assert_eq!(Autosave::load(&file), Ok(None));
        let good = serde_json::to_string(&Autosave::new(&tweaked(0.5), None)).unwrap();
        let cases = [
            String::new(),
            "[1, 2]".to_string(),
            "{\"format\": \"cloth-tuner-preset\"}".to_string(),
            good[..good.len() / 2].to_string(),
            good.replace("\"damping\":0.5", "\"damping\":7.5"),
            good.replace("\"version\":1", "\"version\":99"),
        ];
        for text in cases {
            std::fs::write(&file, &text).unwrap();
            let e = Autosave::load(&file).expect_err(&text);
            assert!(e.contains(FILE_NAME), "{e}");
        }
        std::fs::write(&file, &good).unwrap();
        assert!(Autosave::load(&file).unwrap().is_some());
    }
}
