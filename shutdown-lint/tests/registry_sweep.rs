//! Valid code of any edition is never a `parse-error`: every crate of the machine's cargo
//! registry (`$CARGO_HOME/registry/src`, filled by building this workspace) is linted as a
//! user would lint it, and every file of its module trees (from `src/lib.rs`, `src/main.rs`
//! and `src/bin/`, following `mod x;` and `#[path]`) is parsed with its edition. Published
//! crates compile, so any parse error or crash here is the linter's. (Files under `src/`
//! that no module declares, such as `include!`d fragments or disabled code, need not be
//! Rust files: serde_json's `features_check/error.rs` is a string literal.)
//!
//! The same files check the byte-level lexer the pruner and the call graph read code
//! through (`lexscan::code_only`, which blanks comments and literals): every identifier
//! `proc_macro2` lexes must be left as code. A literal form it misreads (`br#".."#` was read
//! as a plain string, so the rest of the file looked like one literal) shows up here.
//!
//! Bounded for CI: 2015-edition crates first (the grammar syn does not parse as is), then
//! the others, in name order, until `SWEEP_BYTES` of Rust source have been read
//! (`SHUTDOWN_LINT_SWEEP=all` lifts the bound). With an empty registry the test prints a note
//! and passes.

use shutdown_lint::edition::{Edition, parse_file};
use shutdown_lint::engine::{LintOptions, lint_paths};
use shutdown_lint::package::Package;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Rust source read per run unless `SHUTDOWN_LINT_SWEEP=all`.
const SWEEP_BYTES: u64 = 6 << 20;

fn registry_crates() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry/src")) else {
        return Vec::new();
    };
    let mut crates = Vec::new();
    for index in std::fs::read_dir(&src).into_iter().flatten().flatten() {
        for krate in std::fs::read_dir(index.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if krate.path().join("Cargo.toml").is_file() {
                crates.push(krate.path());
            }
        }
    }
    crates.sort_by_key(|p| {
        let edition = Package::read(p).map(|p| p.edition).unwrap_or_default();
        (
            edition != Edition::E2015,
            p.file_name().map(|n| n.to_os_string()),
        )
    });
    crates
}

/// The files of a crate's module trees: its roots and every file a `mod x;` of a file
/// already found declares (a root and `mod.rs` own their directory; `#[path]` is followed).
fn module_files(krate: &Path, edition: Edition) -> Vec<PathBuf> {
    let src = krate.join("src");
    let mut roots = vec![src.join("lib.rs"), src.join("main.rs")];
    for e in std::fs::read_dir(src.join("bin"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = e.path();
        roots.push(if p.is_dir() { p.join("main.rs") } else { p });
    }
    let mut out = Vec::new();
    let mut stack: Vec<(PathBuf, bool)> = roots
        .into_iter()
        .filter(|r| r.extension().is_some_and(|x| x == "rs") && r.is_file())
        .map(|r| (r, true))
        .collect();
    while let Some((file, owns_dir)) = stack.pop() {
        if out.contains(&file) || out.len() > 5000 {
            continue;
        }
        out.push(file.clone());
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let Ok(parsed) = parse_file(text, edition) else {
            continue; // reported by the caller
        };
        let dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
        let stem = file.file_stem().unwrap_or_default().to_os_string();
        let base = if owns_dir || stem == "mod" {
            dir.clone()
        } else {
            dir.join(stem)
        };
        declared(&parsed.items, &dir, &base, &mut stack);
    }
    out
}

/// Queues the files `items` declare with `mod x;`, inline modules searched in `base/x/`.
fn declared(items: &[syn::Item], dir: &Path, base: &Path, stack: &mut Vec<(PathBuf, bool)>) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        let path_attr = m.attrs.iter().find_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        });
        let name = m.ident.to_string();
        match (&m.content, path_attr) {
            (Some((_, inner)), _) => declared(inner, dir, &base.join(&name), stack),
            (None, Some(p)) => stack.push((dir.join(p), true)),
            (None, None) => {
                let a = base.join(format!("{name}.rs"));
                let b = base.join(&name).join("mod.rs");
                if a.is_file() {
                    stack.push((a, false));
                } else if b.is_file() {
                    stack.push((b, true));
                }
            }
        }
    }
}

#[test]
fn every_registry_crate_parses_and_lints_without_parse_errors() {
    // deep (generated) files need the stack the linter's own workers get
    std::thread::Builder::new()
        .stack_size(shutdown_lint::source::PARSE_STACK_BYTES)
        .spawn(sweep)
        .unwrap()
        .join()
        .unwrap();
}

fn sweep() {
    let crates = registry_crates();
    if crates.is_empty() {
        println!("note: the cargo registry is empty; nothing to sweep (build the workspace first)");
        return;
    }
    let all = std::env::var_os("SHUTDOWN_LINT_SWEEP").is_some_and(|v| v == "all");
    let start = Instant::now();
    let (mut bytes, mut files, mut swept) = (0u64, 0usize, 0usize);
    let mut problems = Vec::new();
    for krate in &crates {
        if !all && bytes >= SWEEP_BYTES {
            break;
        }
        swept += 1;
        let edition = Package::read(krate).map(|p| p.edition).unwrap_or_default();
        for f in module_files(krate, edition) {
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            bytes += text.len() as u64;
            files += 1;
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            if let Some(line) = masked_identifier(text) {
                problems.push(format!(
                    "{}:{line}: lexscan::code_only blanks an identifier",
                    f.display()
                ));
            }
            if let Err(e) = parse_file(text, edition) {
                let at = e.span().start();
                problems.push(format!(
                    "{}:{}:{}: {e} ({edition:?})",
                    f.display(),
                    at.line,
                    at.column + 1
                ));
            }
        }
        let opts = LintOptions {
            threads: Some(2),
            cwd: Some(krate.clone()),
            ..LintOptions::default()
        };
        match lint_paths(std::slice::from_ref(krate), &opts) {
            Ok(report) => {
                for f in report.findings.iter().filter(|f| f.rule == "parse-error") {
                    problems.push(format!(
                        "{}/{}:{}: lint: {}",
                        krate.display(),
                        f.path.display(),
                        f.region.line,
                        f.message
                    ));
                }
            }
            Err(e) => problems.push(format!("{}: lint could not run: {e}", krate.display())),
        }
    }
    println!(
        "registry sweep: {swept} of {} crates, {files} src files, {:.1} MB, {:.1} s",
        crates.len(),
        bytes as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The line of the first identifier `proc_macro2` lexes in `text` that
/// `lexscan::code_only` blanks (takes for part of a comment or a literal); `None` when they
/// agree, or when `text` does not lex.
fn masked_identifier(text: &str) -> Option<usize> {
    use std::str::FromStr;
    fn idents(ts: proc_macro2::TokenStream, out: &mut Vec<usize>) {
        for tt in ts {
            match tt {
                proc_macro2::TokenTree::Ident(i) => out.push(i.span().byte_range().start),
                proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                _ => {}
            }
        }
    }
    let ts = proc_macro2::TokenStream::from_str(text).ok()?;
    let mut starts = Vec::new();
    idents(ts, &mut starts);
    proc_macro2::extra::invalidate_current_thread_spans();
    let code = shutdown_lint::lexscan::code_only(text);
    starts
        .into_iter()
        // a doc comment's `doc` is made up, spanning the comment; a raw identifier's `r#`
        .map(|at| {
            if text[at..].starts_with("r#") {
                at + 2
            } else {
                at
            }
        })
        .find(|&at| {
            let first = text[at..].chars().next();
            first.is_some_and(|c| c.is_alphabetic() || c == '_')
                && !text[at..].starts_with("///")
                && !text[at..].starts_with("//!")
                && !text[at..].starts_with("/**")
                && !text[at..].starts_with("/*!")
                && code[at] == b' '
        })
        .map(|at| text[..at].matches('\n').count() + 1)
}

#[test]
fn the_lexer_agrees_with_proc_macro2_on_every_literal_form() {
    // each followed by code the lexer must see (a misread literal runs over it)
    for src in [
        "fn f() { g(); }",
        "/// doc \"\nfn f() {}",
        "let r#type = 1; f(r#type);",
        "let p = br#\"{ \"a\": 1 }\"#;\nfn f() { spawn(); }",
        "let p = cr\"a\\\";\nfn f() { spawn(); }",
        "let p = r##\"a\"# b\"##;\nfn f() { spawn(); }",
        "let c = ('\"', b'\\'', '\\u{1F600}');\nfn f<'a>(x: &'a str) { spawn(); }",
        "/* a /* nested \" */ */ fn f() { spawn(); }",
    ] {
        assert_eq!(masked_identifier(src), None, "{src}");
    }
}
