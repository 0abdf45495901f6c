//! What the linter reads from a package's `Cargo.toml`: the crate name (for module paths),
//! its targets (library and binaries, for `sigterm-missing`; found by the one target
//! discovery, [`crate::manifest::targets`]), renamed dependencies (as re-exports) and whether
//! `ctrlc` has its `termination` feature. Manifests are read through [`crate::manifest`]
//! (the package's own with `parse`, workspace roots from the per-run cache).

use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Packages read in this run, by normalised directory: discovery, the re-export scan of
/// path dependencies and the binaries' dependency libraries all ask for the same ones
/// (linkerd2-proxy: 82 packages, each read up to four times). A directory's cell is
/// claimed by the first thread that asks; another asking meanwhile waits for it rather
/// than parsing the same manifest again (the walk and the analyzers' preparer ask for
/// the same packages at the same time).
type PackageCell = Arc<OnceLock<Option<Arc<Package>>>>;
static READ: Mutex<Option<HashMap<PathBuf, PackageCell>>> = Mutex::new(None);

/// One Cargo package.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Package {
    /// Directory holding `Cargo.toml`.
    pub dir: PathBuf,
    /// The library's crate name (`[lib] name`, else the package's), `-` replaced by `_`.
    pub crate_name: String,
    /// Library root, when there is one.
    pub lib: Option<PathBuf>,
    /// Binary roots: `(name, path)`.
    pub bins: Vec<(String, PathBuf)>,
    /// `ctrlc` depended on with the `termination` feature.
    pub ctrlc_termination: bool,
    /// Renamed dependencies: `(local name, crate name)`.
    pub renames: Vec<(String, String)>,
    /// `package.edition` (inherited from `[workspace.package]` when `edition.workspace =
    /// true`; 2015 when absent).
    pub edition: crate::edition::Edition,
    /// Directories of path dependencies (normal and target-specific, also through
    /// `workspace = true`): their libraries are linked into this package's binaries.
    pub path_deps: Vec<PathBuf>,
    /// Linked dependencies (normal and target-specific): `(name in code, package name,
    /// path dependency's directory)`; the workspace model reads their re-exports.
    pub deps: Vec<(String, String, Option<PathBuf>)>,
    /// Some linked dependency can install a signal handler ([`signal_capable`]), or one's
    /// features could not be read: only then can this package's code handle a signal.
    pub may_handle_signals: bool,
    /// A browser's WebAssembly module ([`crate::targetcode::is_browser_package`]): not
    /// linted.
    pub browser: bool,
    /// The package lies in a test-support directory of its workspace
    /// ([`crate::testcode::is_in_test_dir`]: `testing/stress`): test code.
    pub in_test_dir: bool,
}

/// The `features = [..]` of a dependency's table (empty when it has none).
fn features(dep: &toml::Value) -> Vec<String> {
    crate::manifest::strings(dep.get("features"))
}

/// Whether a dependency on package `real` with `features` (its own and the workspace's),
/// at `version` when known, lets code install a signal handler: tokio with `signal` (or
/// `full`), nix with `signal` (or before 0.27, when it was a default feature), and the
/// crates that exist for it or wrap it.
fn signal_capable(real: &str, features: &[String], version: Option<&str>) -> bool {
    let has = |f: &str| features.iter().any(|x| x == f);
    match real {
        "tokio" => has("signal") || has("full"),
        "nix" => {
            has("signal")
                || version.is_none_or(|v| {
                    let mut parts = v.trim_start_matches(['^', '=', '~']).split('.');
                    let major = parts.next().and_then(|m| m.parse::<u32>().ok());
                    let minor = parts.next().and_then(|m| m.parse::<u32>().ok());
                    !matches!((major, minor), (Some(0), Some(27..)) | (Some(1..), _))
                })
        }
        _ => matches!(
            real,
            "libc"
                | "ctrlc"
                | "signal-hook"
                | "signal-hook-tokio"
                | "signal-hook-async-std"
                | "signal-hook-mio"
                | "signal-hook-registry"
                | "async-ctrlc"
                | "tokio-graceful-shutdown"
                | "shutdown-runtime"
                | "shutdown-macros"
                | "actix-web"
                | "actix-server"
                | "actix-rt"
        ),
    }
}

#[derive(Debug, Deserialize, Default)]
struct Manifest {
    package: Option<PkgSection>,
    /// `[lib]`: only its `crate-type` is read here (the targets are read by
    /// [`crate::manifest::targets`]); any value, so a malformed one loses nothing else.
    #[serde(default)]
    lib: Option<toml::Value>,
    #[serde(default)]
    dependencies: BTreeMap<String, toml::Value>,
    #[serde(default, rename = "dev-dependencies")]
    dev_dependencies: BTreeMap<String, toml::Value>,
    #[serde(default)]
    target: BTreeMap<String, TargetDeps>,
}

#[derive(Debug, Deserialize, Default)]
struct TargetDeps {
    #[serde(default)]
    dependencies: BTreeMap<String, toml::Value>,
}

#[derive(Debug, Deserialize)]
struct PkgSection {
    name: String,
    edition: Option<toml::Value>,
}

impl Package {
    /// [`Package::read`], once per directory and run ([`clear_manifest_cache`] starts a
    /// new run).
    ///
    /// # Examples
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"app\"\n").unwrap();
    /// let a = shutdown_lint::package::Package::read_cached(dir.path()).unwrap();
    /// let b = shutdown_lint::package::Package::read_cached(&dir.path().join(".")).unwrap();
    /// assert!(std::sync::Arc::ptr_eq(&a, &b));
    /// ```
    pub fn read_cached(dir: &Path) -> Option<Arc<Package>> {
        let dir = crate::paths::normalize(dir);
        let cell = READ
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(HashMap::new)
            .entry(dir.clone())
            .or_default()
            .clone();
        // read without the lock: packages are read on all cores
        cell.get_or_init(|| Package::read(&dir).map(Arc::new))
            .clone()
    }

    /// Reads the package at `dir` (`None` if there is no readable `[package]` manifest).
    ///
    /// # Examples
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"my-app\"\n").unwrap();
    /// std::fs::create_dir(dir.path().join("src")).unwrap();
    /// std::fs::write(dir.path().join("src/main.rs"), "fn main() {}").unwrap();
    /// let p = shutdown_lint::package::Package::read(dir.path()).unwrap();
    /// assert_eq!(p.crate_name, "my_app");
    /// assert_eq!(p.bins[0].0, "my-app");
    /// // a library named apart from its package is used by that name
    /// let toml = "[package]\nname = \"my-app\"\n[lib]\nname = \"app_lib\"\npath = \"src/main.rs\"\n";
    /// std::fs::write(dir.path().join("Cargo.toml"), toml).unwrap();
    /// let p = shutdown_lint::package::Package::read(dir.path()).unwrap();
    /// assert_eq!(p.crate_name, "app_lib");
    /// ```
    pub fn read(dir: &Path) -> Option<Package> {
        // read once per package and run: not kept in the manifest cache
        let doc = crate::manifest::parse(&dir.join("Cargo.toml")).ok()?;
        let targets = crate::manifest::targets::Targets::read(dir, &doc)?;
        let link = crate::manifest::WorkspaceLink::of(&doc);
        // the library's crate is named by `[lib] name` when given (`home_server_lib`)
        let lib_name = doc
            .get("lib")
            .and_then(|l| l.get("name"))
            .and_then(toml::Value::as_str)
            .map(|n| n.replace('-', "_"));
        // the workspace's manifest, found once per package (each inherited dependency asks)
        let ws_doc = std::cell::OnceCell::new();
        let ws = || ws_doc.get_or_init(|| link.doc(dir)).as_ref();
        let m: Manifest = toml::Value::Table(doc).try_into().ok()?;
        let pkg = m.package?;
        let mut p = Package {
            dir: dir.to_path_buf(),
            crate_name: lib_name.unwrap_or_else(|| pkg.name.replace('-', "_")),
            ..Package::default()
        };
        p.edition = match &pkg.edition {
            Some(toml::Value::String(e)) => crate::edition::Edition::from_manifest(Some(e)),
            Some(_) => workspace_package_key(ws(), "edition")
                .map_or(crate::edition::Edition::Unknown, |e| {
                    crate::edition::Edition::from_manifest(Some(&e))
                }),
            None => crate::edition::Edition::E2015,
        };
        p.lib = targets.lib;
        p.bins = targets.bins.into_iter().map(|t| (t.name, t.path)).collect();
        let all_deps = m
            .dependencies
            .iter()
            .chain(&m.dev_dependencies)
            .chain(m.target.values().flat_map(|t| t.dependencies.iter()));
        let linked: Vec<&String> = m
            .dependencies
            .keys()
            .chain(m.target.values().flat_map(|t| t.dependencies.keys()))
            .collect();
        for (name, v) in all_deps {
            let t = v.as_table();
            // `name = { workspace = true }`: the rest is in `[workspace.dependencies]`
            let inherited =
                t.and_then(|t| t.get("workspace")).and_then(|x| x.as_bool()) == Some(true);
            // read once per dependency: its path, features and version
            let ws_dep = if inherited {
                workspace_dep(ws(), name)
            } else {
                None
            };
            // the package it is, also when only `[workspace.dependencies]` renames it
            // (neon's `hyper0 = { package = "hyper", .. }`, used as `hyper0.workspace = true`)
            let real = t
                .and_then(|t| t.get("package"))
                .or_else(|| ws_dep.as_ref().and_then(|(_, d)| d.get("package")))
                .and_then(|x| x.as_str())
                .unwrap_or(name);
            // its own features and (`workspace = true`) the workspace's
            let mut feats = features(v);
            if let Some((_, d)) = &ws_dep {
                feats.extend(features(d));
            }
            if linked.contains(&name) {
                let local = t.and_then(|t| t.get("path")).and_then(|x| x.as_str());
                let dep_dir = match local {
                    Some(rel) => Some(crate::paths::normalize(&dir.join(rel))),
                    None => ws_dep
                        .as_ref()
                        .and_then(|(root, dep)| dep_path(root, dep))
                        .or_else(|| patched_dep(ws(), real)),
                };
                let dep_dir = dep_dir.filter(|d| d.join("Cargo.toml").is_file());
                if let Some(d) = &dep_dir {
                    p.path_deps.push(d.clone());
                }
                p.deps
                    .push((name.replace('-', "_"), real.to_string(), dep_dir));
            }
            if real != name {
                p.renames
                    .push((name.replace('-', "_"), real.replace('-', "_")));
            }
            if linked.contains(&name) && !p.may_handle_signals {
                let version = |dep: &toml::Value| -> Option<String> {
                    dep.as_str()
                        .or_else(|| dep.get("version").and_then(|x| x.as_str()))
                        .map(str::to_string)
                };
                let ver = version(v).or_else(|| ws_dep.as_ref().and_then(|(_, d)| version(d)));
                // an inherited dependency whose workspace entry cannot be read: able
                let unread = inherited && ws_dep.is_none();
                p.may_handle_signals = unread || signal_capable(real, &feats, ver.as_deref());
            }
            // `ctrlc = { workspace = true }` adds its features to the workspace's
            if real == "ctrlc" && feats.iter().any(|f| f == "termination") {
                p.ctrlc_termination = true;
            }
        }
        // only a member of that workspace: a fixture crate below a workspace's directory
        // belongs to none
        p.in_test_dir = ws().is_some_and(|(root, doc)| {
            dir.strip_prefix(root).is_ok_and(|rel| {
                crate::testcode::is_in_test_dir(rel)
                    && crate::manifest::workspace::lists_member(doc, rel)
            })
        });
        let unconditional: Vec<&str> = m.dependencies.keys().map(String::as_str).collect();
        // a file looked for only in a package that could be one
        let app_file = || {
            crate::targetcode::BROWSER_APP_FILES
                .iter()
                .any(|f| dir.join(f).is_file())
        };
        p.browser = crate::targetcode::is_browser_package(
            &crate::manifest::strings(m.lib.as_ref().and_then(|l| l.get("crate-type"))),
            !p.bins.is_empty(),
            &unconditional,
            app_file,
        );
        Some(p)
    }

    /// The libraries of this package's path dependencies, transitively (bounded).
    pub fn dependency_libs(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut seen = vec![self.dir.clone()];
        let mut stack: Vec<(PathBuf, usize)> =
            self.path_deps.iter().map(|d| (d.clone(), 1)).collect();
        while let Some((dir, depth)) = stack.pop() {
            if seen.contains(&dir) || seen.len() > 64 {
                continue;
            }
            seen.push(dir.clone());
            let Some(dep) = Package::read_cached(&dir) else {
                continue;
            };
            if let Some(lib) = &dep.lib {
                out.push(lib.clone());
            }
            if depth < 4 {
                stack.extend(dep.path_deps.iter().map(|d| (d.clone(), depth + 1)));
            }
        }
        out
    }

    /// Whether code of this package or of its path dependencies (transitively) can install
    /// a signal handler ([`Package::may_handle_signals`]).
    pub fn signals_possible(&self) -> bool {
        self.may_handle_signals
            || self
                .dependency_libs()
                .iter()
                .any(|l| Package::find(l).is_none_or(|p| p.may_handle_signals))
    }

    /// The nearest package containing `path` (walking up from it).
    pub fn find(path: &Path) -> Option<Package> {
        let mut dir = if path.is_dir() {
            Some(path)
        } else {
            path.parent()
        };
        while let Some(d) = dir {
            if d.join("Cargo.toml").is_file()
                && let Some(p) = Package::read_cached(d)
            {
                return Some((*p).clone());
            }
            dir = d.parent();
        }
        None
    }
}

/// A workspace's root directory and manifest ([`crate::manifest::WorkspaceLink::doc`]).
type WorkspaceDoc = (PathBuf, Arc<toml::Table>);

/// `key` of the `[workspace.package]` of the workspace `ws` (for `key.workspace = true`).
fn workspace_package_key(ws: Option<&WorkspaceDoc>, key: &str) -> Option<String> {
    let (_, doc) = ws?;
    let ws = doc.get("workspace")?;
    ws.get("package")?.get(key)?.as_str().map(str::to_owned)
}

/// The entry of `name` in the `[workspace.dependencies]` of the workspace `ws`, with the
/// workspace's root directory (its `path` is relative to it).
fn workspace_dep(ws: Option<&WorkspaceDoc>, name: &str) -> Option<(PathBuf, toml::Value)> {
    let (root, doc) = ws?;
    let dep = doc
        .get("workspace")?
        .get("dependencies")?
        .get(name)?
        .clone();
    Some((root.clone(), dep))
}

/// The directory a `[patch.<registry>]` table of the workspace's manifest points the
/// package `real` to (cargolifter's `cargolifter-web = "0.2"` with `[patch.crates-io]
/// cargolifter-web = { path = "web" }`): cargo builds that directory's sources, as it
/// does a path dependency's.
fn patched_dep(ws: Option<&WorkspaceDoc>, real: &str) -> Option<PathBuf> {
    let (root, doc) = ws?;
    doc.get("patch")?
        .as_table()?
        .values()
        .find_map(|registry| dep_path(root, registry.get(real)?))
}

/// The directory a dependency's table in the manifest at `root` names with `path`.
fn dep_path(root: &Path, dep: &toml::Value) -> Option<PathBuf> {
    let path = dep.get("path")?.as_str()?;
    Some(crate::paths::normalize(&root.join(path)))
}

/// Forgets the manifests read so far ([`crate::engine::lint_paths`] calls it at the start
/// of every run, so each run reads each manifest once).
///
/// # Examples
/// ```
/// shutdown_lint::package::clear_manifest_cache();
/// ```
pub fn clear_manifest_cache() {
    crate::manifest::clear_cache();
    READ.lock().unwrap_or_else(|e| e.into_inner()).take();
}

#[cfg(test)]
mod tests {
    use super::signal_capable;

    #[test]
    fn which_dependencies_can_install_a_signal_handler() {
        let f = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(signal_capable("tokio", &f(&["signal"]), Some("1")));
        assert!(signal_capable("tokio", &f(&["full"]), None));
        assert!(!signal_capable("tokio", &f(&["time", "macros"]), Some("1")));
        // nix: `signal` became opt-in in 0.27
        assert!(!signal_capable("nix", &f(&["feature"]), Some("0.31")));
        assert!(signal_capable("nix", &f(&["signal"]), Some("0.31")));
        assert!(signal_capable("nix", &[], Some("0.26.2")));
        assert!(signal_capable("nix", &[], None));
        assert!(signal_capable("signal-hook", &[], Some("0.3")));
        assert!(signal_capable("libc", &[], Some("0.2")));
        assert!(!signal_capable("serde", &[], Some("1")));
    }
}
