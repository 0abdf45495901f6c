//! Finds the Cargo workspace to audit: the root manifest, its members (globs expanded,
//! `exclude` honoured), or a single package, and each crate's binary targets.
//!
//! Only `Cargo.toml` files are read (no `cargo metadata`, so no network, no lock file and no
//! build): what cargo would call the workspace's *members* is reconstructed from
//! `[workspace] members`/`exclude`, `package.workspace`, and the rule that a package inside a
//! workspace root's directory belongs to it only when a `members` entry names it.

use super::ReadError;
use super::targets::Targets;
use crate::paths::{absolute, normalize};
use globset::{Glob, GlobMatcher};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A workspace (or a single package treated as a one-crate workspace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// Directory of the root `Cargo.toml`.
    pub root: PathBuf,
    /// The root manifest itself.
    pub manifest: PathBuf,
    /// Member crates, sorted by directory.
    pub crates: Vec<CrateInfo>,
    /// Absolute directories listed in `[workspace] exclude`.
    pub excluded: Vec<PathBuf>,
}

/// One member crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateInfo {
    /// `package.name`.
    pub name: String,
    /// Directory holding its `Cargo.toml`.
    pub dir: PathBuf,
    /// Its binary targets (`src/main.rs`, `src/bin/*`, `[[bin]]`) and examples
    /// (`examples/*`, `[[example]]`), which are programs too.
    pub bins: Vec<BinTarget>,
}

/// A binary or example target of a crate ([`super::targets::Target`]).
pub use super::targets::Target as BinTarget;

/// Why no workspace could be read. Maps to exit status 2.
///
/// # Examples
///
/// ```
/// use shutdown_lint::manifest::workspace::{Workspace, WorkspaceError};
/// let dir = tempfile::tempdir().unwrap();
/// let err = Workspace::discover(&dir.path().join("Cargo.toml")).unwrap_err();
/// assert!(matches!(err, WorkspaceError::NotFound(_)));
/// ```
#[derive(Debug)]
pub enum WorkspaceError {
    /// No `Cargo.toml` at or above the start directory.
    NotFound(PathBuf),
    /// A manifest could not be read.
    Io(PathBuf, std::io::Error),
    /// A manifest is not valid TOML or lacks what a manifest needs.
    Invalid(PathBuf, String),
}

impl fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkspaceError::NotFound(p) => {
                write!(
                    f,
                    "no `Cargo.toml` found in `{}` or any parent directory",
                    p.display()
                )
            }
            WorkspaceError::Io(p, e) => write!(f, "cannot read `{}`: {e}", p.display()),
            WorkspaceError::Invalid(p, why) => {
                write!(f, "invalid manifest `{}`: {why}", p.display())
            }
        }
    }
}

impl std::error::Error for WorkspaceError {}

impl Workspace {
    /// Finds the workspace containing `start` (a directory or a `Cargo.toml`, as given to
    /// `--manifest-path`).
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::manifest::workspace::Workspace;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("Cargo.toml"), "[workspace]\nmembers = [\"crates/*\"]\n").unwrap();
    /// for name in ["a", "b"] {
    ///     let krate = dir.path().join("crates").join(name);
    ///     std::fs::create_dir_all(krate.join("src")).unwrap();
    ///     std::fs::write(krate.join("Cargo.toml"), format!("[package]\nname = \"{name}\"\n")).unwrap();
    ///     std::fs::write(krate.join("src/main.rs"), "fn main() {}").unwrap();
    /// }
    /// let ws = Workspace::discover(dir.path()).unwrap();
    /// let names: Vec<_> = ws.crates.iter().map(|c| c.name.as_str()).collect();
    /// assert_eq!(names, ["a", "b"]);
    /// assert_eq!(ws.crates[0].bins[0].name, "a");
    /// ```
    pub fn discover(start: &Path) -> Result<Workspace, WorkspaceError> {
        let start = absolute(start);
        let names_a_file = start.extension().is_some_and(|e| e == "toml");
        let manifest = if start.is_file() {
            start.clone()
        } else if names_a_file {
            return Err(WorkspaceError::NotFound(start));
        } else {
            find_upwards(&start).ok_or_else(|| WorkspaceError::NotFound(start.clone()))?
        };
        let doc = read_manifest(&manifest)?;
        let dir = parent_dir(&manifest);
        if doc.get("workspace").is_some() {
            return Workspace::from_root(&manifest, &doc);
        }
        // A package: `package.workspace` points at its root, else look upward for a
        // workspace whose members include it.
        if let Some(rel) = doc
            .get("package")
            .and_then(|p| p.get("workspace"))
            .and_then(|w| w.as_str())
        {
            let root_manifest = normalize(&dir.join(rel).join("Cargo.toml"));
            let root_doc = read_manifest(&root_manifest)?;
            return Workspace::from_root(&root_manifest, &root_doc);
        }
        let mut up = dir.parent();
        while let Some(candidate_dir) = up {
            let candidate = candidate_dir.join("Cargo.toml");
            if candidate.is_file()
                && let Ok(root_doc) = read_manifest(&candidate)
                && root_doc.get("workspace").is_some()
            {
                let ws = Workspace::from_root(&candidate, &root_doc)?;
                if ws.crates.iter().any(|c| c.dir == dir) {
                    return Ok(ws);
                }
            }
            up = candidate_dir.parent();
        }
        let krate = crate_info(&dir, &doc, &manifest)?;
        Ok(Workspace {
            root: dir,
            manifest,
            crates: vec![krate],
            excluded: Vec::new(),
        })
    }

    fn from_root(manifest: &Path, doc: &toml::Table) -> Result<Workspace, WorkspaceError> {
        let root = parent_dir(manifest);
        let ws = doc.get("workspace").and_then(|w| w.as_table());
        let strings = |key: &str| super::strings(ws.and_then(|w| w.get(key)));
        let excluded: Vec<PathBuf> = strings("exclude")
            .iter()
            .map(|e| normalize(&root.join(e)))
            .collect();
        let mut dirs: Vec<PathBuf> = Vec::new();
        if doc.get("package").is_some() {
            dirs.push(root.clone());
        }
        for member in strings("members") {
            for dir in expand_member(&root, &member) {
                if !excluded.iter().any(|e| dir.starts_with(e)) && !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
        dirs.sort();
        let mut crates = Vec::new();
        for dir in dirs {
            let m = dir.join("Cargo.toml");
            let krate = if m == manifest {
                crate_info(&dir, doc, &m)?
            } else {
                crate_info(&dir, &*read_manifest(&m)?, &m)?
            };
            crates.push(krate);
        }
        Ok(Workspace {
            root,
            manifest: manifest.to_path_buf(),
            crates,
            excluded,
        })
    }

    /// The member crate that owns `file` (the deepest crate directory containing it), if any.
    ///
    /// Files under an excluded directory, or under a nested package that is not a member,
    /// belong to no crate.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::manifest::workspace::{CrateInfo, Workspace};
    /// use std::path::PathBuf;
    ///
    /// let ws = Workspace {
    ///     root: "/ws".into(),
    ///     manifest: "/ws/Cargo.toml".into(),
    ///     crates: vec![
    ///         CrateInfo { name: "app".into(), dir: "/ws".into(), bins: vec![] },
    ///         CrateInfo { name: "lib".into(), dir: "/ws/lib".into(), bins: vec![] },
    ///     ],
    ///     excluded: vec![PathBuf::from("/ws/vendor")],
    /// };
    /// assert_eq!(ws.crate_of("/ws/lib/src/lib.rs".as_ref()).unwrap().name, "lib");
    /// assert_eq!(ws.crate_of("/ws/src/main.rs".as_ref()).unwrap().name, "app");
    /// assert!(ws.crate_of("/ws/vendor/x/src/lib.rs".as_ref()).is_none());
    /// ```
    pub fn crate_of(&self, file: &Path) -> Option<&CrateInfo> {
        if self.excluded.iter().any(|e| file.starts_with(e)) {
            return None;
        }
        let owner = self
            .crates
            .iter()
            .filter(|c| file.starts_with(&c.dir))
            .max_by_key(|c| c.dir.components().count())?;
        // A nested package between the owner and the file that is not a member owns it.
        let mut dir = file.parent();
        while let Some(d) = dir {
            if d == owner.dir {
                break;
            }
            if d.join("Cargo.toml").is_file() {
                return None;
            }
            dir = d.parent();
        }
        Some(owner)
    }

    /// Whether `dir` is a member crate's directory or the workspace root.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::manifest::workspace::Workspace;
    ///
    /// let ws = Workspace { root: "/ws".into(), manifest: "/ws/Cargo.toml".into(), crates: vec![], excluded: vec![] };
    /// assert!(ws.is_member_dir("/ws".as_ref()));
    /// assert!(!ws.is_member_dir("/ws/other".as_ref()));
    /// ```
    pub fn is_member_dir(&self, dir: &Path) -> bool {
        dir == self.root || self.crates.iter().any(|c| c.dir == dir)
    }
}

/// Whether the workspace manifest `doc` lists the package at `rel` (relative to the
/// workspace's root) as a member — by path or by glob in `members`, and not under
/// `exclude` — read without touching the disk: a package that only lies below a
/// workspace's directory (a fixture crate) is not one of its members.
///
/// # Examples
/// ```
/// let doc: toml::Table = toml::from_str("[workspace]\nmembers = [\"crates/*\", \"testing/stress\"]\nexclude = [\"crates/old\"]").unwrap();
/// use shutdown_lint::manifest::workspace::lists_member;
/// assert!(lists_member(&doc, "testing/stress".as_ref()));
/// assert!(lists_member(&doc, "crates/server".as_ref()));
/// assert!(!lists_member(&doc, "crates/old".as_ref()));
/// assert!(!lists_member(&doc, "shutdown-lint/tests/fixtures".as_ref()));
/// ```
pub fn lists_member(doc: &toml::Table, rel: &Path) -> bool {
    let ws = doc.get("workspace").and_then(|w| w.as_table());
    let strings = |key: &str| super::strings(ws.and_then(|w| w.get(key)));
    let matches = |pattern: &str| {
        let pattern = normalize(Path::new(pattern.trim_end_matches('/')));
        pattern == rel
            || Glob::new(&pattern.to_string_lossy())
                .is_ok_and(|g| g.compile_matcher().is_match(rel))
    };
    strings("members").iter().any(|m| matches(m))
        && !strings("exclude")
            .iter()
            .any(|e| rel.starts_with(normalize(Path::new(e))))
}

fn expand_member(root: &Path, member: &str) -> Vec<PathBuf> {
    if !member.contains(['*', '?', '[']) {
        let dir = normalize(&root.join(member));
        return if dir.join("Cargo.toml").is_file() {
            vec![dir]
        } else {
            Vec::new()
        };
    }
    let pattern = normalize(&root.join(member));
    let Ok(glob) = Glob::new(&pattern.to_string_lossy()) else {
        return Vec::new();
    };
    let matcher: GlobMatcher = glob.compile_matcher();
    // Walk only as deep as the pattern has components below the root.
    let depth = Path::new(member).components().count();
    let mut found = Vec::new();
    let mut frontier = vec![root.to_path_buf()];
    for _ in 0..depth {
        let mut next = Vec::new();
        for dir in frontier {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    next.push(path);
                }
            }
        }
        frontier = next;
    }
    for dir in frontier {
        if matcher.is_match(&dir) && dir.join("Cargo.toml").is_file() {
            found.push(dir);
        }
    }
    found.sort();
    found
}

fn crate_info(dir: &Path, doc: &toml::Table, manifest: &Path) -> Result<CrateInfo, WorkspaceError> {
    let name = doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .ok_or_else(|| WorkspaceError::Invalid(manifest.to_path_buf(), "no `package.name`".into()))?
        .to_owned();
    // the one target discovery, shared with the engine's `Package`
    let targets = Targets::read(dir, doc).unwrap_or_default();
    let mut bins = targets.bins;
    for example in targets.examples {
        if !bins.iter().any(|b| b.path == example.path) {
            bins.push(example);
        }
    }
    Ok(CrateInfo {
        name,
        dir: dir.to_path_buf(),
        bins,
    })
}

fn read_manifest(path: &Path) -> Result<Arc<toml::Table>, WorkspaceError> {
    super::read(path).map_err(|e| match e {
        ReadError::Io(kind, message) => {
            WorkspaceError::Io(path.to_path_buf(), std::io::Error::new(kind, message))
        }
        ReadError::Invalid(message) => WorkspaceError::Invalid(path.to_path_buf(), message),
    })
}

fn find_upwards(start: &Path) -> Option<PathBuf> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        let candidate = d.join("Cargo.toml");
        if candidate.is_file() {
            return Some(candidate);
        }
        dir = d.parent();
    }
    None
}

fn parent_dir(manifest: &Path) -> PathBuf {
    manifest.parent().map(Path::to_path_buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn members_globs_exclude_and_root_package() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            &root.join("Cargo.toml"),
            "[package]\nname = \"root\"\n[workspace]\nmembers = [\"crates/*\", \"tool\"]\nexclude = [\"crates/old\"]\n",
        );
        write(&root.join("src/main.rs"), "fn main() {}");
        for name in ["a", "old"] {
            write(
                &root.join(format!("crates/{name}/Cargo.toml")),
                &format!("[package]\nname = \"{name}\"\n"),
            );
        }
        write(&root.join("crates/notes/README"), "no manifest here");
        write(
            &root.join("tool/Cargo.toml"),
            "[package]\nname = \"tool\"\n[[bin]]\nname = \"t\"\npath = \"src/t.rs\"\n",
        );
        write(&root.join("tool/src/bin/extra.rs"), "fn main() {}");
        let ws = Workspace::discover(&root.join("crates/a")).unwrap();
        let names: Vec<_> = ws.crates.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["root", "a", "tool"]);
        let tool = &ws.crates[2];
        let bins: Vec<_> = tool.bins.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(bins, ["t", "extra"]);
        assert!(ws.crate_of(&root.join("crates/old/src/lib.rs")).is_none());
        assert_eq!(
            ws.crate_of(&root.join("crates/a/src/lib.rs")).unwrap().name,
            "a"
        );
    }

    #[test]
    fn single_package_and_manifest_path() {
        let dir = tempfile::tempdir().unwrap();
        write(
            &dir.path().join("pkg/Cargo.toml"),
            "[package]\nname = \"solo\"\n",
        );
        let ws = Workspace::discover(&dir.path().join("pkg/Cargo.toml")).unwrap();
        assert_eq!(ws.crates.len(), 1);
        assert_eq!(ws.root, dir.path().join("pkg"));
    }

    #[test]
    fn bad_manifest_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("Cargo.toml"), "[package\nname = ");
        let err = Workspace::discover(dir.path()).unwrap_err();
        assert!(err.to_string().contains("invalid manifest"), "{err}");
        let err = Workspace::discover(&dir.path().join("nope/Cargo.toml")).unwrap_err();
        assert!(
            matches!(err, WorkspaceError::NotFound(_) | WorkspaceError::Io(..)),
            "{err}"
        );
    }
}
