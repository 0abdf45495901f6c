//! Atomic writes: the new text goes to a temporary file in the same directory, is flushed
//! to disk, gets the original's permissions, and is renamed over the original, so a reader
//! (or a crash) sees the old file or the new one, never half of one.

use std::io::Write;
use std::path::Path;

/// Replaces `path`'s content with `text` atomically.
///
/// # Examples
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let p = dir.path().join("a.rs");
/// std::fs::write(&p, "old").unwrap();
/// shutdown_lint::fix::write::write_atomic(&p, "new").unwrap();
/// assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
/// assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
/// ```
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    let mut tmp = tempfile_in(dir, path)?;
    let result = (|| {
        tmp.1.write_all(text.as_bytes())?;
        tmp.1.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp.0, meta.permissions())?;
        }
        std::fs::rename(&tmp.0, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp.0);
    }
    result
}

/// Creates `.NAME.shutdown-fix.N.tmp` next to `path` (a fresh name, never an existing file).
fn tempfile_in(dir: &Path, path: &Path) -> std::io::Result<(std::path::PathBuf, std::fs::File)> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut n = std::process::id();
    loop {
        let p = dir.join(format!(".{name}.shutdown-fix.{n}.tmp"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => return Ok((p, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n = n.wrapping_add(1),
            Err(e) => return Err(e),
        }
    }
}
