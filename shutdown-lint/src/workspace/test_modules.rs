//! Files that are test code because of where they are declared: `#[cfg(test)] mod x;`
//! makes `x.rs` (and every module below it) test code, although nothing in `x.rs` says so.
//!
//! The declarations come from the walk ([`crate::model::ModDecl::cfg_test`]) for parsed
//! files, and from a lexical scan ([`crate::lexscan::mod_decls`]) for files the
//! byte scan skipped (a `lib.rs` with no spawn in it still declares its test modules).

use crate::model::ModDecl;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The files declared as test modules by `decls` of the file `declaring` (a crate root, a
/// `mod.rs` or a plain module file), with the files below them — not a module also
/// declared outside test code.
///
/// # Examples
/// ```
/// use shutdown_lint::model::ModDecl;
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir_all(dir.path().join("src")).unwrap();
/// std::fs::write(dir.path().join("src/helpers.rs"), "").unwrap();
/// let decl = ModDecl { path: vec!["helpers".into()], path_attr: None, cfg_test: true, wasm_only: false, windows_only: false };
/// let files = shutdown_lint::workspace::test_modules::declared_test_files(&dir.path().join("src/lib.rs"), &[decl]);
/// assert!(files.contains(&dir.path().join("src/helpers.rs")));
/// ```
pub fn declared_test_files(declaring: &Path, decls: &[ModDecl]) -> HashSet<PathBuf> {
    declared_files(declaring, decls, |d| d.cfg_test)
}

/// [`declared_test_files`] for the declarations `picked` selects (the engine also asks for
/// those built only for WebAssembly, [`ModDecl::wasm_only`]): their files, with the files
/// below them — not a module also declared without that mark.
pub fn declared_files(
    declaring: &Path,
    decls: &[ModDecl],
    picked: impl Fn(&ModDecl) -> bool,
) -> HashSet<PathBuf> {
    let mut out = HashSet::new();
    let dir = declaring
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let stem = declaring
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let owns_dir = matches!(stem.as_str(), "mod" | "main" | "lib")
        || declaring
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == "bin");
    let base = if owns_dir {
        dir.clone()
    } else {
        dir.join(&stem)
    };
    // a module declared twice, for tests and for the rest (etl's `#[cfg(any(test, feature =
    // "test-utils"))] pub mod client;` beside `#[cfg(not(..))] pub(crate) mod client;`), is
    // production code
    let production: HashSet<(&[String], Option<&str>)> = decls
        .iter()
        .filter(|d| !picked(d))
        .map(|d| (&d.path[..], d.path_attr.as_deref()))
        .collect();
    for d in decls
        .iter()
        .filter(|d| picked(d) && !production.contains(&(&d.path[..], d.path_attr.as_deref())))
    {
        let target = match &d.path_attr {
            Some(p) => dir.join(p),
            None => {
                let mut b = base.clone();
                for seg in &d.path[..d.path.len().saturating_sub(1)] {
                    b.push(seg);
                }
                let Some(name) = d.path.last() else { continue };
                let a = b.join(format!("{name}.rs"));
                if a.is_file() {
                    a
                } else {
                    b.join(name).join("mod.rs")
                }
            }
        };
        // the module's own directory holds its children
        let sub = if target.file_name().is_some_and(|f| f == "mod.rs") {
            target.parent().map(Path::to_path_buf)
        } else {
            Some(target.with_extension(""))
        };
        if let Some(sub) = sub.filter(|s| s.is_dir()) {
            for e in ignore::WalkBuilder::new(&sub)
                .build()
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
            {
                out.insert(e.into_path());
            }
        }
        out.insert(target);
    }
    out
}
