//! The crate's layering, pinned: the rule registry is a leaf (it uses nothing of the crate
//! but `finding::Severity`), and the core (engine, rules, config, fix, renderers, …) never
//! calls audit code — only `src/audit/` itself and the `cargo-shutdown` binary do. The check
//! reads the source files, skipping comments (intra-doc links are no calls).

use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The lines of `path` that are code, not comments, with their 1-based numbers.
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l.to_string()))
        .collect()
}

#[test]
fn the_registry_is_a_leaf() {
    let registry = src().join("registry.rs");
    let mut uses = Vec::new();
    for (n, line) in code_lines(&registry) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let module: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if module != "finding" {
                uses.push(format!("registry.rs:{n}: crate::{module}"));
            }
            rest = after;
        }
        assert!(
            !line.contains("super::"),
            "registry.rs:{n} reaches a parent module"
        );
    }
    assert!(
        uses.is_empty(),
        "the registry must depend on nothing but `finding`: {uses:#?}"
    );
}

#[test]
fn core_code_never_calls_audit_code() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(
        files.len() > 20,
        "source files not found under {}",
        root.display()
    );
    let mut offenders = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap();
        if rel.starts_with("audit") || rel == Path::new("bin/cargo-shutdown.rs") {
            continue;
        }
        for (n, line) in code_lines(f) {
            if line.contains("crate::audit") || line.contains("shutdown_lint::audit") {
                offenders.push(format!("{}:{n}: {}", rel.display(), line.trim()));
            }
        }
    }
    // `lib.rs` declares the module; that is no call
    offenders.retain(|o| !o.starts_with("lib.rs:") || !o.contains("pub mod audit"));
    assert!(
        offenders.is_empty(),
        "core code calls audit code: {offenders:#?}"
    );
}

#[test]
fn rules_do_not_reach_into_the_audit_or_the_cli() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root.join("rules"), &mut files);
    for f in &files {
        for (n, line) in code_lines(f) {
            for bad in ["crate::audit", "crate::cli", "crate::fix", "crate::engine"] {
                assert!(
                    !line.contains(bad),
                    "{}:{n} uses `{bad}`: rules are below the engine",
                    f.display()
                );
            }
        }
    }
}

#[test]
fn shared_foundations_depend_only_on_each_other() {
    // what both the lint core and the audit stand on: Cargo manifests, deploy manifests,
    // paths, findings and the registry; none of them may reach up into the core
    const FOUNDATIONS: &[&str] = &["paths", "finding", "registry", "manifest", "deploy"];
    let root = src();
    let mut files = Vec::new();
    for m in FOUNDATIONS {
        let dir = root.join(m);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        } else {
            files.push(root.join(format!("{m}.rs")));
        }
    }
    let mut offenders = Vec::new();
    for f in &files {
        for (n, line) in code_lines(f) {
            let mut rest = line.as_str();
            while let Some(at) = rest.find("crate::") {
                let after = &rest[at + "crate::".len()..];
                let module: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !FOUNDATIONS.contains(&module.as_str()) {
                    let rel = f.strip_prefix(&root).unwrap();
                    offenders.push(format!("{}:{n}: crate::{module}", rel.display()));
                }
                rest = after;
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "foundation code reaches into the core: {offenders:#?}"
    );
}
