//! A package's targets, read from its `Cargo.toml` the way cargo infers them: the library
//! (`[lib] path` or `src/lib.rs`), the binaries (`[[bin]]`, then `src/main.rs` and
//! `src/bin/*.rs` / `src/bin/*/main.rs` unless `autobins = false`) and the examples
//! (`[[example]]`, then `examples/*.rs` / `examples/*/main.rs` unless
//! `autoexamples = false`). The engine ([`crate::package::Package`]) and the workspace
//! discovery of the audit and `--fix` ([`super::workspace`]) both read targets here.
//!
//! A `[[bin]]` without `path` is found where cargo looks for it: `src/bin/<name>.rs`, else
//! `src/main.rs` when it is named after the package, else `src/bin/<name>/main.rs`. A target
//! listed twice (declared and also discovered) is kept once, as declared.

use std::path::{Path, PathBuf};

/// One binary or example target.
///
/// # Examples
/// ```
/// use shutdown_lint::manifest::targets::Target;
/// let t = Target { name: "worker".into(), path: "examples/worker.rs".into() };
/// assert_eq!(t.path.file_stem().unwrap(), "worker");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Target name (`[[bin]] name`, the file or directory name, or the package name).
    pub name: String,
    /// Its entry file.
    pub path: PathBuf,
}

/// What a package builds.
///
/// # Examples
/// ```
/// use shutdown_lint::manifest::targets::Targets;
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir_all(dir.path().join("examples")).unwrap();
/// std::fs::write(dir.path().join("examples/demo.rs"), "fn main() {}").unwrap();
/// let doc: toml::Table = "[package]\nname = \"lib-only\"\n".parse().unwrap();
/// let t = Targets::read(dir.path(), &doc).unwrap();
/// assert!(t.bins.is_empty());
/// assert_eq!(t.examples[0].name, "demo");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Targets {
    /// The library root, when the file exists.
    pub lib: Option<PathBuf>,
    /// Binary targets, declared ones first, then discovered ones in name order.
    pub bins: Vec<Target>,
    /// Example targets, in the same order.
    pub examples: Vec<Target>,
}

impl Targets {
    /// The targets of the package in `dir` whose manifest is `doc`; `None` when `doc` has no
    /// `package.name`.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::manifest::targets::Targets;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let root = dir.path();
    /// std::fs::create_dir_all(root.join("src/bin/tool")).unwrap();
    /// std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
    /// std::fs::write(root.join("src/bin/tool/main.rs"), "fn main() {}").unwrap();
    /// let doc: toml::Table = "[package]\nname = \"app\"\n[[bin]]\nname = \"tool\"\n".parse().unwrap();
    /// let t = Targets::read(root, &doc).unwrap();
    /// let bins: Vec<_> = t.bins.iter().map(|b| (b.name.as_str(), b.path.strip_prefix(root).unwrap())).collect();
    /// assert_eq!(bins, [("tool", "src/bin/tool/main.rs".as_ref()), ("app", "src/main.rs".as_ref())]);
    /// assert!(t.lib.is_none());
    /// ```
    pub fn read(dir: &Path, doc: &toml::Table) -> Option<Targets> {
        let package = doc.get("package")?;
        let name = package.get("name")?.as_str()?;
        let flag = |key: &str| package.get(key).and_then(|a| a.as_bool()).unwrap_or(true);
        let mut t = Targets::default();

        let declared_lib = doc
            .get("lib")
            .and_then(|l| l.get("path"))
            .and_then(|p| p.as_str());
        let lib = match declared_lib {
            Some(p) => Some(dir.join(p)),
            None if doc.get("lib").is_some() || flag("autolib") => Some(dir.join("src/lib.rs")),
            None => None,
        };
        t.lib = lib.filter(|l| l.is_file());

        for bin in tables(doc, "bin") {
            let bin_name = bin.get("name").and_then(|n| n.as_str()).unwrap_or(name);
            let path = match bin.get("path").and_then(|p| p.as_str()) {
                Some(p) => dir.join(p),
                None => {
                    let single = dir.join("src/bin").join(format!("{bin_name}.rs"));
                    if single.is_file() {
                        single
                    } else if bin_name == name {
                        dir.join("src/main.rs")
                    } else {
                        dir.join("src/bin").join(bin_name).join("main.rs")
                    }
                }
            };
            push(&mut t.bins, bin_name, path);
        }
        if flag("autobins") {
            let main = dir.join("src/main.rs");
            if main.is_file() {
                push(&mut t.bins, name, main);
            }
            for (n, p) in dir_targets(&dir.join("src/bin")) {
                push(&mut t.bins, &n, p);
            }
        }

        for example in tables(doc, "example") {
            let Some(example_name) = example.get("name").and_then(|n| n.as_str()) else {
                continue;
            };
            let path = match example.get("path").and_then(|p| p.as_str()) {
                Some(p) => dir.join(p),
                None => {
                    let single = dir.join("examples").join(format!("{example_name}.rs"));
                    let nested = dir.join("examples").join(example_name).join("main.rs");
                    if !single.is_file() && nested.is_file() {
                        nested
                    } else {
                        single
                    }
                }
            };
            push(&mut t.examples, example_name, path);
        }
        if flag("autoexamples") {
            for (n, p) in dir_targets(&dir.join("examples")) {
                push(&mut t.examples, &n, p);
            }
        }
        Some(t)
    }
}

/// The `[[key]]` tables of a manifest.
fn tables<'a>(doc: &'a toml::Table, key: &str) -> impl Iterator<Item = &'a toml::Value> {
    doc.get(key)
        .and_then(|b| b.as_array())
        .into_iter()
        .flatten()
}

fn push(list: &mut Vec<Target>, name: &str, path: PathBuf) {
    if !list.iter().any(|t| t.path == path) {
        list.push(Target {
            name: name.to_owned(),
            path,
        });
    }
}

/// The `dir/x.rs` and `dir/x/main.rs` targets, in path order.
fn dir_targets(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    let mut out = Vec::new();
    for path in entries {
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if path.extension().is_some_and(|e| e == "rs") {
            out.push((name, path));
        } else if path.join("main.rs").is_file() {
            let main = path.join("main.rs");
            out.push((name, main));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(root: &Path, manifest: &str) -> Targets {
        Targets::read(root, &manifest.parse().unwrap()).unwrap()
    }

    fn names(list: &[Target], root: &Path) -> Vec<(String, String)> {
        list.iter()
            .map(|t| {
                let rel = t.path.strip_prefix(root).unwrap();
                (t.name.clone(), rel.display().to_string().replace('\\', "/"))
            })
            .collect()
    }

    #[test]
    fn autobins_false_keeps_only_declared_binaries() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(&root.join("src/main.rs"), "fn main() {}");
        write(&root.join("src/bin/extra.rs"), "fn main() {}");
        write(&root.join("src/tool.rs"), "fn main() {}");
        let t = read(
            root,
            "[package]\nname = \"app\"\nautobins = false\n[[bin]]\nname = \"t\"\npath = \"src/tool.rs\"\n",
        );
        assert_eq!(names(&t.bins, root), [("t".into(), "src/tool.rs".into())]);
    }

    #[test]
    fn declared_binary_named_after_the_package_is_src_main() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(&root.join("src/main.rs"), "fn main() {}");
        let t = read(root, "[package]\nname = \"app\"\n[[bin]]\nname = \"app\"\n");
        assert_eq!(names(&t.bins, root), [("app".into(), "src/main.rs".into())]);
    }

    #[test]
    fn lib_path_autolib_and_examples() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(&root.join("src/lib.rs"), "");
        write(&root.join("core.rs"), "");
        write(&root.join("examples/demo.rs"), "fn main() {}");
        write(&root.join("examples/big/main.rs"), "fn main() {}");
        write(&root.join("examples/named/main.rs"), "fn main() {}");
        let t = read(
            root,
            "[package]\nname = \"app\"\n[lib]\npath = \"core.rs\"\n[[example]]\nname = \"named\"\n",
        );
        assert_eq!(t.lib, Some(root.join("core.rs")));
        assert_eq!(
            names(&t.examples, root),
            [
                ("named".into(), "examples/named/main.rs".into()),
                ("big".into(), "examples/big/main.rs".into()),
                ("demo".into(), "examples/demo.rs".into()),
            ]
        );
        let t = read(
            root,
            "[package]\nname = \"app\"\nautolib = false\nautoexamples = false\n",
        );
        assert!(t.lib.is_none());
        assert!(t.examples.is_empty());
    }

    #[test]
    fn no_package_name_is_none() {
        let doc: toml::Table = "[workspace]\nmembers = []\n".parse().unwrap();
        assert!(Targets::read(Path::new("."), &doc).is_none());
    }
}
