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

/// Why a manifest could not be read.
///
/// # Examples
/// ```
/// use shutdown_lint::manifest::{read, ReadError};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("Cargo.toml");
/// assert!(matches!(read(&path), Err(ReadError::Io(std::io::ErrorKind::NotFound, _))));
/// std::fs::write(&path, "[package\n").unwrap();
/// assert!(matches!(read(&path), Err(ReadError::Invalid(_))));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The file could not be read: its kind and the OS's message.
    Io(std::io::ErrorKind, String),
    /// The text is not TOML: the parser's message.
    Invalid(String),
}

type Cache = Mutex<HashMap<(PathBuf, Option<SystemTime>), Result<Arc<toml::Table>, ReadError>>>;

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

/// A `Cargo.toml` as a TOML table, parsed once per run (and again if it changes), or why
/// it cannot be: the one manifest reader of the crate (workspace roots for the engine's
/// packages, workspace discovery, `--fix`; [`parse`] reads without keeping). Every `workspace = true` dependency of every package asks for the
/// same workspace manifest (lemmy: 40 crates with ~30 such dependencies each; parsing it
/// each time was 60 % of a run over the five services).
///
/// # Examples
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("Cargo.toml");
/// std::fs::write(&path, "[package]\nname = \"a\"\n").unwrap();
/// let t = shutdown_lint::manifest::read(&path).unwrap();
/// assert_eq!(t["package"]["name"].as_str(), Some("a"));
/// ```
pub fn read(path: &Path) -> Result<Arc<toml::Table>, ReadError> {
    // one entry per file: `a/../b/Cargo.toml` and `b/Cargo.toml` are the same manifest (path
    // dependencies reached through other path dependencies are written like the first)
    let path = &crate::paths::normalize(path);
    let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let key = (path.to_path_buf(), mtime);
    if let Some(hit) = cache().lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return hit.clone();
    }
    let parsed = parse(path).map(Arc::new);
    cache()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, parsed.clone());
    parsed
}

/// A `Cargo.toml` parsed without keeping it: for manifests read once per run (a package's
/// own, and the many registry dependencies whose re-exports are looked up), so the cache
/// holds only what is asked for again (workspace roots).
///
/// # Examples
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("Cargo.toml");
/// std::fs::write(&path, "[package]\nname = \"a\"\n").unwrap();
/// assert_eq!(shutdown_lint::manifest::parse(&path).unwrap()["package"]["name"].as_str(), Some("a"));
/// ```
pub fn parse(path: &Path) -> Result<toml::Table, ReadError> {
    match std::fs::read_to_string(path) {
        Ok(text) => text
            .parse::<toml::Table>()
            .map_err(|e| ReadError::Invalid(e.message().to_owned())),
        Err(e) => Err(ReadError::Io(e.kind(), e.to_string())),
    }
}

/// [`read`], when only success matters.
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
    read(path).ok()
}

/// The `Cargo.toml` of the workspace the package in `pkg_dir` belongs to: its own manifest
/// when it has a `[workspace]` table (a root package), the one `package.workspace` names,
/// else the nearest manifest above with a `[workspace]` table. What `key.workspace = true`
/// and `dep = { workspace = true }` inherit from (the engine's [`crate::package`]) and where
/// `--fix` adds the runtime dependency.
///
/// # Examples
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let root = dir.path();
/// std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"app\"\n[workspace]\n").unwrap();
/// std::fs::create_dir(root.join("sub")).unwrap();
/// std::fs::write(root.join("sub/Cargo.toml"), "[package]\nname = \"sub\"\n").unwrap();
/// let ws = Some(root.join("Cargo.toml"));
/// assert_eq!(shutdown_lint::manifest::workspace_manifest(root), ws);
/// assert_eq!(shutdown_lint::manifest::workspace_manifest(&root.join("sub")), ws);
/// ```
pub fn workspace_manifest(pkg_dir: &Path) -> Option<PathBuf> {
    let own = table(&pkg_dir.join("Cargo.toml"))?;
    WorkspaceLink::of(&own).manifest(pkg_dir)
}

/// What a package's own manifest says about its workspace: it is the root (`[workspace]`),
/// or `package.workspace` names the root; else the root is looked for above. Taken from a
/// manifest read once ([`parse`]), so a package's own manifest need not stay cached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WorkspaceLink {
    is_root: bool,
    path: Option<String>,
}

impl WorkspaceLink {
    pub(crate) fn of(own: &toml::Table) -> WorkspaceLink {
        WorkspaceLink {
            is_root: own.contains_key("workspace"),
            path: own
                .get("package")
                .and_then(|p| p.get("workspace"))
                .and_then(|w| w.as_str())
                .map(str::to_owned),
        }
    }

    /// The workspace's `Cargo.toml` ([`workspace_manifest`]).
    pub(crate) fn manifest(&self, pkg_dir: &Path) -> Option<PathBuf> {
        if self.is_root {
            return Some(crate::paths::normalize(&pkg_dir.join("Cargo.toml")));
        }
        if let Some(rel) = &self.path {
            return Some(crate::paths::normalize(
                &pkg_dir.join(rel).join("Cargo.toml"),
            ));
        }
        pkg_dir
            .ancestors()
            .skip(1)
            .map(|d| d.join("Cargo.toml"))
            .find(|m| table(m).is_some_and(|t| t.contains_key("workspace")))
    }

    /// The workspace's manifest (parsed, shared) and the directory its relative paths start
    /// from.
    pub(crate) fn doc(&self, pkg_dir: &Path) -> Option<(PathBuf, Arc<toml::Table>)> {
        let manifest = self.manifest(pkg_dir)?;
        let doc = table(&manifest)?;
        Some((manifest.parent()?.to_path_buf(), doc))
    }
}

/// The strings of a manifest array (`features = [..]`, `members = [..]`); empty when `v` is
/// absent or not an array, non-strings skipped.
pub(crate) fn strings(v: Option<&toml::Value>) -> Vec<String> {
    v.and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cache_entry_per_file_however_the_path_is_written() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("a/Cargo.toml"), "[workspace]\n").unwrap();
        let plain = read(&dir.path().join("a/Cargo.toml")).unwrap();
        let dotted = read(&dir.path().join("a/b/../Cargo.toml")).unwrap();
        assert!(Arc::ptr_eq(&plain, &dotted));
    }

    #[test]
    fn a_member_finds_its_root_above_and_a_root_is_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("crates/m")).unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/*\"]\n",
        )
        .unwrap();
        std::fs::write(
            root.join("crates/m/Cargo.toml"),
            "[package]\nname = \"m\"\n",
        )
        .unwrap();
        std::fs::write(
            root.join("other/Cargo.toml"),
            "[package]\nname = \"o\"\nworkspace = \"../crates/..\"\n",
        )
        .unwrap();
        let ws = Some(root.join("Cargo.toml"));
        assert_eq!(workspace_manifest(&root.join("crates/m")), ws);
        assert_eq!(workspace_manifest(&root.join("other")), ws);
        assert_eq!(workspace_manifest(root), ws);
    }
}
