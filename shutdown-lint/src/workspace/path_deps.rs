//! Declarations of path dependencies that lie outside the linted paths.
//!
//! Linting one crate of a workspace (`shutdown-lint src/`) leaves its path dependencies
//! unread, so `toc.general_runtime_handle().spawn(..)` cannot be typed when the method is
//! declared in `lib/storage` (qdrant). When the workspace model still asks for names
//! after the linted files are read, the library sources of those dependencies are
//! searched for the names, and only the files that declare one (`fn name` or `name:`) are
//! read, for their declarations alone; each round searches only for the names no earlier
//! round asked for. A dependency that a linted file belongs to is never read here: its
//! files are in the run already. Linted files the byte scan skipped are searched the same
//! way, through [`super::skipped_index`] (a key `Type::name` reads only the files that may
//! declare both).

use super::skipped_index::{DeclaredNames, declared_names};
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

/// One source file read for declarations only: its path, where it sits in its crate, and
/// the analyzer that reads it.
pub(crate) type Source = (PathBuf, FileContext, Arc<Analyzer>);

/// Sources read for declarations only, listed once per run, and the keys already searched
/// for in them: the library sources of the unlinted path dependencies, searched by name;
/// and linted files the byte scan skipped (they name no word a rule reads, yet may declare
/// a field a chain goes through: `services: Arc<OnceServices>`), searched only for what
/// the types they declare are asked (a key `Type::name`, or `Type::`), through an index of
/// those types built on the first search.
pub(crate) struct DepSources {
    /// The unlinted path dependencies' library files.
    files: Vec<Source>,
    /// Linted files the byte scan skipped.
    skipped: Vec<Source>,
    /// What each of those may declare, when the byte scan read it off the text (taken by
    /// the index).
    skipped_names: Vec<Option<DeclaredNames>>,
    /// What the skipped files may declare, built on the first search.
    skipped_index: Option<super::skipped_index::SkippedIndex>,
    /// Keys searched for in an earlier round: a file that declares one was read then.
    asked: super::NameSet,
    /// For each file read, the types it was read with whole (a key `Type::`: every
    /// declaration of `Type` in it revealed): asked a member of one later, it has nothing
    /// more to give (iroh's `quic.rs` was read a third time for builder methods a macro
    /// declares).
    read_whole: HashMap<PathBuf, HashSet<String>>,
}

impl DepSources {
    /// The library files of `deps` ([`unlinted_deps`]).
    pub(crate) fn list(deps: &[(Arc<Package>, Arc<Analyzer>)]) -> DepSources {
        let files = deps
            .iter()
            .flat_map(|(dep, analyzer)| {
                library_files(dep).into_iter().map(|f| {
                    let ctx = context(dep, &f);
                    (f, ctx, analyzer.clone())
                })
            })
            .collect();
        DepSources {
            files,
            skipped: Vec::new(),
            skipped_names: Vec::new(),
            skipped_index: None,
            asked: super::NameSet::default(),
            read_whole: HashMap::new(),
        }
    }

    /// Adds linted files the byte scan skipped, with what they may declare when that was
    /// read off their text already (`None`: read on the first search).
    pub(crate) fn add_skipped(
        &mut self,
        files: impl IntoIterator<Item = (Source, Option<DeclaredNames>)>,
    ) {
        for (source, names) in files {
            self.skipped.push(source);
            self.skipped_names.push(names);
        }
    }

    /// Whether there is no file to search.
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty() && self.skipped.is_empty()
    }

    /// The declarations of the files that declare (`fn name` or `name:`) a name the model
    /// asks for (`need`: `Type::name` or `name`; `Type::` for a type's own declaration) and
    /// no earlier round asked for — of a dependency's file, naming `Type` where it may
    /// declare it (`struct Type`, `impl Type`, `for Type`, ..); of a skipped file, only one
    /// that may declare `Type` —; each such file is read for every key of `need`.
    pub(crate) fn declarations(&mut self, need: &super::NameSet) -> Vec<Decls> {
        // keys no earlier round asked for: a name asked of another type (`Services::server`
        // after `OnceServices::server`) reads its files again, revealing that type's
        let new: Vec<&String> = need.iter().filter(|k| !self.asked.contains(*k)).collect();
        if new.is_empty() || self.is_empty() {
            return Vec::new();
        }
        // each needle, and the types one of which a file holding it must declare too (`fn
        // new` asked as `Command::new` reads only files declaring `Command`, as
        // [`declared_names`] reads them); `None`: any
        let mut needles: Vec<(String, Option<Vec<String>>)> = Vec::new();
        let mut add = |needle: String, owner: Option<&str>| match needles
            .iter_mut()
            .find(|(n, _)| *n == needle)
        {
            Some((_, v)) => match (v.as_mut(), owner) {
                (Some(v), Some(o)) => v.push(o.to_string()),
                _ => *v = None,
            },
            None => needles.push((needle, owner.map(|o| vec![o.to_string()]))),
        };
        for k in &new {
            match k.strip_suffix("::") {
                // a type asked for whole (`Client::`): the file that declares it
                Some(t) if !t.is_empty() && !t.contains("::") => {
                    add(format!("struct {t}"), None);
                }
                Some(_) => {}
                None => {
                    let (owner, n) = match k.rsplit_once("::") {
                        Some((o, n)) => (Some(o), n),
                        None => (None, k.as_str()),
                    };
                    add(format!("fn {n}"), owner);
                    add(format!("{n}:"), owner);
                    // a tuple struct's or variant's field, by position (`W::0` of `struct
                    // W(Handle)`, `Tokio::0` of an enum's `Tokio(TokioHandle)`): written
                    // nowhere as a name, its type is where the fields open
                    if let Some(o) = owner
                        && n.bytes().all(|b| b.is_ascii_digit())
                    {
                        add(format!("{o}("), owner);
                    }
                }
            }
        }
        let Ok(finder) = aho_corasick::AhoCorasick::new(needles.iter().map(|(n, _)| n)) else {
            return Vec::new();
        };
        // the skipped files that may declare what is asked
        if !self.skipped.is_empty() && self.skipped_index.is_none() {
            let known = std::mem::take(&mut self.skipped_names);
            self.skipped_index = Some(super::skipped_index::SkippedIndex::build(
                &self.skipped,
                known,
            ));
        }
        let mut picked: Vec<usize> = match &self.skipped_index {
            Some(index) => new.iter().flat_map(|k| index.files_for(k)).collect(),
            None => Vec::new(),
        };
        picked.sort_unstable();
        picked.dedup();
        // a file read before with every new key's type whole would give nothing new
        let covered = |file: &PathBuf| {
            self.read_whole.get(file).is_some_and(|whole| {
                new.iter().all(|k| {
                    k.rsplit_once("::")
                        .is_some_and(|(owner, _)| whole.contains(owner))
                })
            })
        };
        let candidates: Vec<&Source> = self
            .files
            .iter()
            .chain(picked.iter().map(|&i| &self.skipped[i]))
            .filter(|(file, _, _)| !covered(file))
            .collect();
        let size = |(file, _, _): &&Source| std::fs::metadata(file).map_or(0, |m| m.len());
        let found =
            crate::pool::map_largest_first(&candidates, size, None, |(file, ctx, analyzer)| {
                let text = std::fs::read_to_string(file).ok()?;
                // the types the file may declare, read once it matters (sorted)
                let mut types: Option<Vec<String>> = None;
                let wanted = finder.find_overlapping_iter(&text).any(|m| {
                    needles[m.pattern().as_usize()]
                        .1
                        .as_ref()
                        .is_none_or(|owners| {
                            let types = types.get_or_insert_with(|| declared_names(&text).0);
                            owners.iter().any(|o| types.binary_search(o).is_ok())
                        })
                });
                if !wanted {
                    return None;
                }
                analyzer.declarations(&text, ctx, need).map(|(d, _)| d)
            });
        let whole: Vec<&str> = need
            .iter()
            .filter_map(|k| k.strip_suffix("::"))
            .filter(|t| !t.is_empty())
            .collect();
        for ((file, _, _), r) in candidates.iter().zip(&found) {
            // (only a file actually read: one no needle matched was not)
            if matches!(r, Some(Some(_))) {
                let types = self.read_whole.entry(file.clone()).or_default();
                types.extend(whole.iter().map(|t| t.to_string()));
            }
        }
        let new: Vec<String> = new.into_iter().cloned().collect();
        self.asked.extend(new);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn need(keys: &[&str]) -> crate::workspace::NameSet {
        keys.iter().map(|k| k.to_string()).collect()
    }

    #[test]
    fn a_file_read_with_a_type_whole_is_not_read_again_for_its_members() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("quic.rs");
        std::fs::write(
            &file,
            "pub struct Builder;\n\
             impl Builder {\n    pub fn new() -> Builder { Builder }\n    \
             pub fn handle(self) -> tokio::runtime::Handle { todo!() }\n}\n",
        )
        .unwrap();
        let analyzer = Arc::new(Analyzer::new(&Config::default()));
        let mut sources = DepSources::list(&[]);
        sources.files.push((file, FileContext::default(), analyzer));
        // asked for the type whole: every method of it is read at once
        let first = sources.declarations(&need(&["Builder::new", "Builder::"]));
        let names: Vec<&str> = first
            .iter()
            .flat_map(|d| d.fns.iter().map(|f| f.path.last().unwrap().as_str()))
            .collect();
        assert!(names.contains(&"handle"), "{names:?}");
        // a member asked later is not read again from that file: it has nothing more
        let again = sources.declarations(&need(&["Builder::handle"]));
        assert!(again.is_empty(), "{again:?}");
        // a name of no known type still reads it
        let other = sources.declarations(&need(&["new"]));
        assert_eq!(other.len(), 1);
    }
}
