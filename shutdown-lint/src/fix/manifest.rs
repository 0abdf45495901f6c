//! The `shutdown-runtime` dependency, added to the `Cargo.toml` of each package a fix
//! touched, with `toml_edit` so the rest of the file keeps its formatting and comments:
//! as `{ workspace = true }` when the workspace has a `[workspace.dependencies]` table
//! (which then gets the entry too), else directly; the `macros` feature is added when a
//! fix writes `#[shutdown_runtime::main]`.

use std::path::{Path, PathBuf};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

/// The package name of the runtime.
pub const RUNTIME_PACKAGE: &str = "shutdown-runtime";

/// Where the dependency comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeSource {
    /// A registry version requirement, e.g. `0.1`.
    Version(String),
    /// A local checkout of the `shutdown-runtime` crate.
    Path(PathBuf),
}

impl Default for RuntimeSource {
    fn default() -> Self {
        RuntimeSource::Version("0.1".into())
    }
}

/// Why a manifest could not be changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ManifestError {
    /// The manifest.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

/// The nearest `Cargo.toml` above `file` that has a `[package]`.
pub fn package_manifest(file: &Path) -> Option<PathBuf> {
    file.ancestors().skip(1).find_map(|d| {
        let m = d.join("Cargo.toml");
        let doc = crate::manifest::table(&m)?;
        doc.contains_key("package").then_some(m)
    })
}

/// The workspace manifest of the package at `pkg` (`package.workspace`, else the nearest
/// `Cargo.toml` above it with a `[workspace]`), when there is one; `pkg` itself when it is
/// the workspace root.
pub fn workspace_manifest(pkg: &Path) -> Option<PathBuf> {
    crate::manifest::workspace_manifest(pkg.parent()?)
}

fn dep_entry(deps: &Item) -> Option<(&str, &Item)> {
    let t = deps.as_table_like()?;
    t.iter().find(|(k, v)| {
        *k == RUNTIME_PACKAGE || v.get("package").and_then(|p| p.as_str()) == Some(RUNTIME_PACKAGE)
    })
}

/// The crate name the package at `manifest_text` uses for the runtime, when it depends on
/// it already (`shutdown_runtime`, or a rename).
///
/// # Examples
/// ```
/// use shutdown_lint::fix::manifest::runtime_crate_name;
/// let toml = "[package]\nname = \"a\"\n[dependencies]\nsr = { package = \"shutdown-runtime\", version = \"0.1\" }\n";
/// assert_eq!(runtime_crate_name(toml).as_deref(), Some("sr"));
/// ```
pub fn runtime_crate_name(manifest_text: &str) -> Option<String> {
    let doc = manifest_text.parse::<DocumentMut>().ok()?;
    let (k, _) = dep_entry(doc.get("dependencies")?)?;
    Some(k.replace('-', "_"))
}

fn source_value(source: &RuntimeSource) -> Value {
    match source {
        RuntimeSource::Version(v) => Value::from(v.as_str()),
        RuntimeSource::Path(p) => {
            let mut t = InlineTable::new();
            t.insert("path", Value::from(p.to_string_lossy().as_ref()));
            Value::InlineTable(t)
        }
    }
}

/// Adds `feature` to a dependency entry (a version string becomes an inline table).
fn add_feature(entry: &mut Item, feature: &str) {
    if let Some(v) = entry.as_str().map(str::to_string) {
        let mut t = InlineTable::new();
        t.insert("version", Value::from(v));
        *entry = Item::Value(Value::InlineTable(t));
    }
    let Some(t) = entry.as_table_like_mut() else {
        return;
    };
    if t.get("features").is_none() {
        t.insert("features", Item::Value(Value::Array(Array::new())));
    }
    if let Some(arr) = t.get_mut("features").and_then(|f| f.as_array_mut())
        && !arr.iter().any(|v| v.as_str() == Some(feature))
    {
        arr.push(feature);
    }
}

/// What [`add_runtime`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManifestEdit {
    /// New text of the package manifest, when it changed.
    pub package: Option<String>,
    /// New text of the workspace manifest, when it changed.
    pub workspace: Option<String>,
}

/// Makes the package depend on the runtime (and on its `macros` feature when `macros`).
///
/// # Examples
/// ```
/// use shutdown_lint::fix::manifest::{add_runtime, RuntimeSource};
/// let pkg = "[package]\nname = \"app\"\n\n[dependencies]\ntokio = { workspace = true } # rt\n";
/// let ws = "[workspace]\nmembers = [\"app\"]\n\n[workspace.dependencies]\ntokio = \"1\"\n";
/// let e = add_runtime(pkg, Some(ws), &RuntimeSource::default(), false).unwrap();
/// assert_eq!(e.package.unwrap(), format!("{pkg}shutdown-runtime = {{ workspace = true }}\n"));
/// assert_eq!(e.workspace.unwrap(), format!("{ws}shutdown-runtime = \"0.1\"\n"));
/// ```
pub fn add_runtime(
    package: &str,
    workspace: Option<&str>,
    source: &RuntimeSource,
    macros: bool,
) -> Result<ManifestEdit, String> {
    let mut pkg = package
        .parse::<DocumentMut>()
        .map_err(|e| format!("does not parse as TOML: {e}"))?;
    let mut out = ManifestEdit::default();
    if pkg.get("dependencies").is_none() {
        pkg.insert("dependencies", Item::Table(Table::new()));
    }
    let existing = pkg
        .get("dependencies")
        .and_then(dep_entry)
        .map(|(k, _)| k.to_string());
    if let Some(key) = existing {
        if macros {
            let deps = pkg["dependencies"]
                .as_table_like_mut()
                .ok_or("`dependencies` is not a table")?;
            let entry = deps.get_mut(&key).ok_or("dependency vanished")?;
            let before = entry.to_string();
            add_feature(entry, "macros");
            if entry.to_string() != before {
                out.package = Some(pkg.to_string());
            }
        }
        return Ok(out);
    }
    // through the workspace table when there is one (in this manifest when it is the root)
    let mut ws_doc = match workspace {
        Some(w) => Some(
            w.parse::<DocumentMut>()
                .map_err(|e| format!("workspace manifest does not parse as TOML: {e}"))?,
        ),
        None => None,
    };
    let own_ws = ws_doc.is_none();
    let ws_root = match ws_doc.as_mut() {
        Some(d) => d,
        None => &mut pkg,
    };
    let ws_table = ws_root
        .get_mut("workspace")
        .and_then(|w| w.as_table_like_mut())
        .and_then(|w| w.get_mut("dependencies"))
        .and_then(|d| d.as_table_like_mut());
    let mut entry = match ws_table {
        Some(t) => {
            if !t.contains_key(RUNTIME_PACKAGE) {
                t.insert(RUNTIME_PACKAGE, Item::Value(source_value(source)));
                if !own_ws {
                    out.workspace = ws_doc.as_ref().map(|d| d.to_string());
                }
            }
            let mut t = InlineTable::new();
            t.insert("workspace", Value::from(true));
            Item::Value(Value::InlineTable(t))
        }
        None => Item::Value(source_value(source)),
    };
    if macros {
        add_feature(&mut entry, "macros");
    }
    let deps = pkg["dependencies"]
        .as_table_like_mut()
        .ok_or("`dependencies` is not a table")?;
    deps.insert(RUNTIME_PACKAGE, entry);
    out.package = Some(pkg.to_string());
    Ok(out)
}
