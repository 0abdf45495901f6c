//! Declarations of path dependencies that lie outside the linted paths.
//!
//! Linting one crate of a workspace (`shutdown-lint src/`) leaves its path dependencies
//! unread, so `toc.general_runtime_handle().spawn(..)` cannot be typed when the method is
//! declared in `lib/storage` (qdrant). When the workspace model still asks for names
//! after the linted files are read, the library sources of those dependencies are
//! searched for the names, and only the files that declare one (`fn name` or `name:`) are
//! read, for their declarations alone. A dependency that a linted file belongs to is never
//! read here: its files are in the run already.

use crate::analysis::{Analyzer, FileContext};
use crate::model::Decls;
use crate::package::Package;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most files listed per dependency.
const MAX_FILES_PER_DEP: usize = 4000;

/// The path dependencies of `linted` (each package with the analyzer of its files) that no
/// linted file belongs to, with the analyzer of a package that depends on each.
pub(crate) fn unlinted_deps(
    linted: &[(Arc<Package>, Arc<Analyzer>)],
) -> Vec<(Arc<Package>, Arc<Analyzer>)> {
    let linted_dirs: HashSet<PathBuf> = linted
        .iter()
        .map(|(p, _)| crate::paths::normalize(&p.dir))
        .collect();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut out = Vec::new();
    for (pkg, analyzer) in linted {
        for (_, _, dir) in &pkg.deps {
            let Some(dir) = dir else { continue };
            let dir = crate::paths::normalize(dir);
            if linted_dirs.contains(&dir) || !seen.insert(dir.clone()) {
                continue;
            }
            if let Some(dep) = Package::read_cached(&dir) {
                out.push((dep, analyzer.clone()));
            }
        }
    }
    out
}

/// The declarations, in the library sources of `deps`, of the names the model still asks
/// for (`need`: `Type::name` or `name`); files in `read` are skipped, and the files read
/// are added to it.
pub(crate) fn declarations(
    deps: &[(Arc<Package>, Arc<Analyzer>)],
    need: &HashSet<String>,
    read: &mut HashSet<PathBuf>,
) -> Vec<Decls> {
    let names: HashSet<&str> = need
        .iter()
        .filter_map(|k| k.rsplit("::").next())
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        return Vec::new();
    }
    let needles: Vec<String> = names
        .iter()
        .flat_map(|n| [format!("fn {n}"), format!("{n}:")])
        .collect();
    let Ok(finder) = aho_corasick::AhoCorasick::new(&needles) else {
        return Vec::new();
    };
    let mut todo: Vec<(PathBuf, &Package, &Arc<Analyzer>)> = Vec::new();
    for (dep, analyzer) in deps {
        for file in library_files(dep) {
            if read.insert(file.clone()) {
                todo.push((file, dep, analyzer));
            }
        }
    }
    let found = crate::pool::map_on_large_stacks(&todo, None, |(file, dep, analyzer)| {
        let text = std::fs::read_to_string(file).ok()?;
        if !finder.is_match(&text) {
            return None;
        }
        let fctx = context(dep, file);
        analyzer.declarations(&text, &fctx, need).map(|(d, _)| d)
    });
    found.into_iter().flatten().flatten().collect()
}

/// The `.rs` files under the package's library directory (`src/`, or the directory of
/// `[lib] path`), bounded.
fn library_files(pkg: &Package) -> Vec<PathBuf> {
    let Some(lib) = &pkg.lib else {
        return Vec::new();
    };
    let Some(root) = lib.parent() else {
        return Vec::new();
    };
    ignore::WalkBuilder::new(root)
        .build()
        .filter_map(Result::ok)
        .map(ignore::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|e| e == "rs") && p.is_file())
        .take(MAX_FILES_PER_DEP)
        .collect()
}

/// How a file of the dependency `dep` is read: its crate, edition and module path.
fn context(dep: &Package, file: &Path) -> FileContext {
    let rel = file.strip_prefix(&dep.dir).unwrap_or(file);
    let mut ctx = FileContext::from_path(rel);
    if dep.lib.as_deref() == Some(file) {
        ctx.module_path = Vec::new();
    }
    ctx.crate_name = Some(dep.crate_name.clone());
    ctx.edition = dep.edition;
    ctx
}

/// The packages the linted files belong to, once each, with the analyzer of their files.
pub(crate) fn linted_packages<'a>(
    packages: impl IntoIterator<Item = (&'a Arc<Package>, Arc<Analyzer>)>,
) -> Vec<(Arc<Package>, Arc<Analyzer>)> {
    let mut by_dir: HashMap<PathBuf, (Arc<Package>, Arc<Analyzer>)> = HashMap::new();
    for (pkg, analyzer) in packages {
        by_dir
            .entry(pkg.dir.clone())
            .or_insert_with(|| (pkg.clone(), analyzer));
    }
    let mut out: Vec<_> = by_dir.into_values().collect();
    out.sort_by(|a, b| a.0.dir.cmp(&b.0.dir));
    out
}
