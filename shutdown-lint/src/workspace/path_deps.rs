//! Declarations of path dependencies that lie outside the linted paths.
//!
//! Linting one crate of a workspace (`shutdown-lint src/`) leaves its path dependencies
//! unread, so `toc.general_runtime_handle().spawn(..)` cannot be typed when the method is
//! declared in `lib/storage` (qdrant). When the workspace model still asks for names
//! after the linted files are read, the library sources of those dependencies are
//! searched for the names, and only the files that declare one (`fn name` or `name:`) are
//! read, for their declarations alone; each round searches only for the names no earlier
//! round asked for. A dependency that a linted file belongs to is never read here: its
//! files are in the run already.

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

/// The library sources of the unlinted path dependencies, listed once per run, and the
/// names already searched for in them.
pub(crate) struct DepSources {
    /// Each `.rs` file, with its package and the analyzer that reads it.
    files: Vec<(PathBuf, Arc<Package>, Arc<Analyzer>)>,
    /// Names searched for in an earlier round: a file that declares one was read then.
    asked: HashSet<String>,
}

impl DepSources {
    /// The library files of `deps` ([`unlinted_deps`]).
    pub(crate) fn list(deps: &[(Arc<Package>, Arc<Analyzer>)]) -> DepSources {
        let files = deps
            .iter()
            .flat_map(|(dep, analyzer)| {
                library_files(dep)
                    .into_iter()
                    .map(|f| (f, dep.clone(), analyzer.clone()))
            })
            .collect();
        DepSources {
            files,
            asked: HashSet::new(),
        }
    }

    /// The declarations of the files that declare (`fn name` or `name:`) a name the model
    /// asks for (`need`: `Type::name` or `name`) and no earlier round searched for; each
    /// such file is read for every name of `need`.
    pub(crate) fn declarations(&mut self, need: &HashSet<String>) -> Vec<Decls> {
        let new: HashSet<String> = need
            .iter()
            .filter_map(|k| k.rsplit("::").next())
            .filter(|n| !n.is_empty() && !self.asked.contains(*n))
            .map(str::to_string)
            .collect();
        // a type asked for whole (`Client::`, kept as such in `asked`): the file that
        // declares it
        let types: Vec<&String> = need
            .iter()
            .filter(|k| {
                k.strip_suffix("::")
                    .is_some_and(|t| !t.is_empty() && !t.contains("::"))
                    && !self.asked.contains(*k)
            })
            .collect();
        if (new.is_empty() && types.is_empty()) || self.files.is_empty() {
            return Vec::new();
        }
        let needles: Vec<String> = new
            .iter()
            .flat_map(|n| [format!("fn {n}"), format!("{n}:")])
            .chain(
                types
                    .iter()
                    .map(|k| format!("struct {}", &k[..k.len() - 2])),
            )
            .collect();
        self.asked.extend(new);
        self.asked.extend(types.into_iter().cloned());
        let Ok(finder) = aho_corasick::AhoCorasick::new(&needles) else {
            return Vec::new();
        };
        let found = crate::pool::map_on_large_stacks(&self.files, None, |(file, dep, analyzer)| {
            let text = std::fs::read_to_string(file).ok()?;
            if !finder.is_match(&text) {
                return None;
            }
            analyzer
                .declarations(&text, &context(dep, file), need)
                .map(|(d, _)| d)
        });
        found.into_iter().flatten().flatten().collect()
    }
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
