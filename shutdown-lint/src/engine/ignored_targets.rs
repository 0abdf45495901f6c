//! Cargo's targets a `.gitignore` hides. The walk honours `.gitignore`, which keeps build
//! output and generated files out; but a pattern written for something else can match a
//! target cargo builds: Visual Studio's template line `[Bb]in/` matches every `src/bin/`,
//! so freeq's `src/bin/credential-issuer.rs` — a `[[bin]]` serving axum — went unread, its
//! server, its client and its signal handling with it. A file cargo builds as a library or
//! binary root is this tree's code whatever `.gitignore` says: it is read, and so are the
//! `.rs` files below its directory that the walk skipped (its modules).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The `.rs` files of the packages in `manifests` (their directories) lying under `root`
/// that the walk did not find (`found`) because a `.gitignore` matched them: each target
/// root (library and binaries, [`crate::package::Package`]) missing from `found`, and every
/// `.rs` file below that root's directory missing from it too (hidden entries and build
/// directories still skipped). Empty when nothing was hidden.
pub(super) fn ignored_targets(
    manifests: &[PathBuf],
    root: &Path,
    found: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
    for dir in manifests {
        let Some(pkg) = crate::package::Package::read_cached(dir) else {
            continue;
        };
        let roots = pkg.lib.iter().chain(pkg.bins.iter().map(|(_, b)| b));
        for target in roots {
            let target = crate::paths::normalize(target);
            if target.starts_with(root)
                && !found(&target)
                && target.is_file()
                && let Some(parent) = target.parent()
            {
                dirs.insert(parent.to_path_buf());
            }
        }
    }
    let mut files = Vec::new();
    // a directory below another is walked with it
    let mut walked: Vec<&PathBuf> = Vec::new();
    for dir in &dirs {
        if walked.iter().any(|w| dir.starts_with(w)) {
            continue;
        }
        walked.push(dir);
        let walk = ignore::WalkBuilder::new(dir)
            .standard_filters(false)
            .hidden(true)
            .follow_links(false)
            .filter_entry(|e| !super::is_build_dir(e) && !super::is_template_placeholder(e))
            .build();
        for entry in walk.flatten() {
            let p = entry.path();
            if p.extension().is_some_and(|x| x == "rs")
                && entry.file_type().is_some_and(|t| t.is_file())
                && !found(p)
            {
                files.push(entry.into_path());
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_a_gitignore_pattern_matches_is_found_with_its_modules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| crate::engine::tests::write_file(root, rel, text);
        write(
            "Cargo.toml",
            "[package]\nname = \"app\"\n[[bin]]\nname = \"issuer\"\npath = \"./src/bin/issuer/main.rs\"\n",
        );
        write("src/main.rs", "fn main() {}\n");
        write("src/bin/issuer/main.rs", "mod routes;\nfn main() {}\n");
        write("src/bin/issuer/routes.rs", "pub fn r() {}\n");
        write("src/bin/notes.txt", "");
        let found: BTreeSet<PathBuf> = [root.join("src/main.rs")].into();
        let mut got = ignored_targets(&[root.to_path_buf()], root, &|p| found.contains(p));
        got.sort();
        assert_eq!(
            got,
            [
                root.join("src/bin/issuer/main.rs"),
                root.join("src/bin/issuer/routes.rs")
            ]
        );
        // nothing hidden: nothing added
        let all: BTreeSet<PathBuf> = found.iter().cloned().chain(got).collect();
        assert!(ignored_targets(&[root.to_path_buf()], root, &|p| all.contains(p)).is_empty());
    }
}
