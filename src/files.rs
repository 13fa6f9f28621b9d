//! Writing files so that no crash, kill or full disk leaves a half-written one behind: every
//! file the crate writes (presets, the autosave, pictures, reports) goes through
//! [`write_atomic`].

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Parses JSON text into `T`; the message names the field where it went wrong
/// (``field `rows`: invalid type ...``).
pub fn from_json_by_field<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let field = e.path().to_string();
        format!("field `{field}`: {}", e.into_inner())
    })
}

/// Writes `value` as pretty JSON with a trailing newline, atomically ([`write_atomic`]).
pub fn write_json_atomic<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), WriteError> {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// A file could not be written; the file that was there (if any) is untouched.
#[derive(Debug, thiserror::Error)]
#[error("{}: {action}: {source}", .path.display())]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// What was being done ("cannot replace").
    pub action: &'static str,
    /// The operating system's reason.
    #[source]
    pub source: std::io::Error,
}

/// Writes `bytes` to `path` durably and atomically: a temporary file in the same folder (a
/// rename across file systems would not be atomic), flushed to disk, then renamed over
/// `path`. A reader sees the old file or the new one, never part of either. The new file
/// keeps the permissions of the one it replaces, or is readable by everyone (temporary files
/// start private).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let fail = |action: &'static str| {
        move |source| WriteError {
            path: path.to_path_buf(),
            action,
            source,
        }
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".cloth-tuner-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(fail("cannot create a temporary file in its folder"))?;
    tmp.write_all(bytes).map_err(fail("cannot write"))?;
    if let Some(permissions) = permissions_for(path) {
        tmp.as_file()
            .set_permissions(permissions)
            .map_err(fail("cannot set the permissions"))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(fail("cannot flush to disk"))?;
    tmp.persist(path)
        .map_err(|e| fail("cannot replace")(e.error))?;
    sync_folder(dir);
    Ok(())
}

/// The permissions of the file being replaced, else (on Unix) read-write for the owner and
/// readable by everyone; `None` leaves the temporary file's own.
fn permissions_for(path: &Path) -> Option<std::fs::Permissions> {
    if let Ok(meta) = std::fs::metadata(path) {
        return Some(meta.permissions());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        Some(std::fs::Permissions::from_mode(0o644))
    }
    #[cfg(not(unix))]
    None
}

/// On Unix the rename is durable only once the folder is flushed too. Best effort: the file
/// itself is complete either way.
fn sync_folder(dir: &Path) {
    #[cfg(unix)]
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replaces_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the file itself is left");
    }

    #[test]
    fn a_failed_write_names_the_file_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-folder").join("a.json");
        let e = write_atomic(&path, b"x").unwrap_err();
        assert!(e.to_string().contains("missing-folder"), "{e}");
        assert!(!path.exists());
    }

    #[cfg(unix)]
    #[test]
    fn new_files_are_readable_by_others_and_replaced_ones_keep_their_mode() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        write_atomic(&path, b"one").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o644);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o664)).unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(mode(&path), 0o664);
    }
}
