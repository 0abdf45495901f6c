//! What the tool reads from `Cargo.toml` files, in one place: a package's targets
//! ([`targets`], cargo's inference rules), the workspace and its members ([`workspace`], for
//! the audit and `--fix`), and the parsed manifests themselves ([`table`], cached per run).
//! The engine's per-package facts ([`crate::package::Package`]) are built from these.
//!
//! # Examples
//! ```
//! use shutdown_lint::manifest::workspace::Workspace;
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"solo\"\n").unwrap();
//! assert_eq!(Workspace::discover(dir.path()).unwrap().crates[0].name, "solo");
//! ```

pub mod targets;
pub mod workspace;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

type Cache = Mutex<HashMap<(PathBuf, Option<SystemTime>), Option<Arc<toml::Table>>>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Forgets the manifests read so far ([`crate::engine::lint_paths`] calls it at the start
/// of every run, so each run reads each manifest once).
///
/// # Examples
/// ```
/// shutdown_lint::manifest::clear_cache();
/// ```
pub fn clear_cache() {
    cache().lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// A `Cargo.toml` as a TOML table, parsed once per run (and again if it changes); `None`
/// when it cannot be read or is not TOML. Every `workspace = true` dependency of every
/// package asks for the same workspace manifest (lemmy: 40 crates with ~30 such
/// dependencies each; parsing it each time was 60 % of a run over the five services).
///
/// # Examples
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("Cargo.toml");
/// std::fs::write(&path, "[package]\nname = \"a\"\n").unwrap();
/// let t = shutdown_lint::manifest::table(&path).unwrap();
/// assert_eq!(t["package"]["name"].as_str(), Some("a"));
/// assert!(shutdown_lint::manifest::table(&dir.path().join("nope.toml")).is_none());
/// ```
pub fn table(path: &Path) -> Option<Arc<toml::Table>> {
    let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let key = (path.to_path_buf(), mtime);
    if let Some(hit) = cache().lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return hit.clone();
    }
    let parsed = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| toml::from_str::<toml::Table>(&text).ok())
        .map(Arc::new);
    cache()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, parsed.clone());
    parsed
}
