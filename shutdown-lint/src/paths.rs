//! The one path normaliser of the linter and the audit: lexical (no file system access, no
//! symlink resolution), so a path is shown and compared the same way everywhere — in
//! findings, baselines, SARIF and the audit's crate table.

use std::path::{Component, Path, PathBuf};

/// Removes `.` components and resolves `..` lexically: `a/./b/../c` → `a/c`. A `..` that
/// climbs above a relative start is kept (`../x` stays), one above the root is dropped
/// (`/..` → `/`).
///
/// # Examples
///
/// ```
/// use shutdown_lint::paths::normalize;
/// use std::path::Path;
/// assert_eq!(normalize(Path::new("a/./b/../c")), Path::new("a/c"));
/// assert_eq!(normalize(Path::new("../x/..")), Path::new(".."));
/// assert_eq!(normalize(Path::new("/../etc")), Path::new("/etc"));
/// ```
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    out
}

/// `path` made absolute against the current directory (when relative) and normalised.
///
/// # Examples
///
/// ```
/// use shutdown_lint::paths::absolute;
/// let cwd = std::env::current_dir().unwrap();
/// assert_eq!(absolute("x/../y".as_ref()), cwd.join("y"));
/// ```
pub fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        normalize(path)
    } else {
        let cwd = std::env::current_dir().unwrap_or_default();
        normalize(&cwd.join(path))
    }
}
