//! Rule fixtures: every `tests/fixtures/rules/<rule>/*.rs` file marks the findings it expects
//! with `//~ rule` (this line) or `//~^ rule` (the line above); the harness lints each rule's
//! directory and compares. Rendered human output per rule is an insta snapshot. The registry
//! test checks names are unique and every rule has a fixture and a snapshot.

use shutdown_lint::engine::{LintOptions, lint_paths};
use shutdown_lint::finding::Finding;
use shutdown_lint::render::HumanOptions;
use shutdown_lint::render::human::render_findings;
use shutdown_lint::rules::{AUDIT_ONLY, all_rules};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

/// Every file under `dir`, subdirectories included (multi-crate fixture workspaces).
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// `(path, line, rule)` triples expected by the markers of the files in `dir` (and in its
/// subdirectories: fixture workspaces of several crates).
fn markers(dir: &Path) -> BTreeSet<(String, usize, String)> {
    let mut out = BTreeSet::new();
    let mut files = Vec::new();
    files_under(dir, &mut files);
    files.sort();
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|x| x == "rs"))
    {
        let text = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
        let rel = f
            .strip_prefix(fixtures())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for (i, line) in text.lines().enumerate() {
            for chunk in line.split("//~").skip(1) {
                let (above, names) = match chunk.strip_prefix('^') {
                    Some(rest) => (true, rest),
                    None => (false, chunk),
                };
                let target = if above { i } else { i + 1 };
                for name in names.split_whitespace() {
                    out.insert((rel.clone(), target, name.to_string()));
                }
            }
        }
    }
    out
}

fn lint_dir(dir: &Path) -> Vec<Finding> {
    let opts = LintOptions {
        cwd: Some(fixtures()),
        threads: Some(2),
        ..LintOptions::default()
    };
    let report = lint_paths(&[dir.to_path_buf()], &opts).unwrap();
    report.active().cloned().collect()
}

fn rule_dirs() -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    v.sort();
    v
}

#[test]
fn findings_match_markers() {
    let mut failures = Vec::new();
    for (_, dir) in rule_dirs() {
        let want = markers(&dir);
        let found = lint_dir(&dir);
        let mut places = BTreeSet::new();
        for f in &found {
            let place = (
                f.path.clone(),
                f.region.line,
                f.region.column,
                f.rule.clone(),
            );
            if !places.insert(place.clone()) {
                failures.push(format!("reported twice: {place:?}"));
            }
        }
        let got: BTreeSet<(String, usize, String)> = found
            .iter()
            .map(|f| {
                (
                    f.path.to_string_lossy().into_owned(),
                    f.region.line,
                    f.rule.clone(),
                )
            })
            .collect();
        for missing in want.difference(&got) {
            failures.push(format!("missing (false negative): {missing:?}"));
        }
        for extra in got.difference(&want) {
            failures.push(format!("unexpected (false positive): {extra:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rendered_output_per_rule() {
    for (rule, dir) in rule_dirs() {
        let findings = lint_dir(&dir);
        let refs: Vec<&Finding> = findings.iter().collect();
        let text = render_findings(
            &refs,
            &fixtures(),
            HumanOptions {
                width: 100,
                colour: false,
                show_suppressed: false,
            },
        );
        insta::assert_snapshot!(rule, text);
    }
}

#[test]
fn registry_names_unique_and_every_rule_has_fixture_and_snapshot() {
    let names: Vec<&str> = all_rules().iter().map(|r| r.name).collect();
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(
        unique.len(),
        names.len(),
        "duplicate rule names in {names:?}"
    );
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    for r in all_rules() {
        assert!(
            r.doc.contains("## What it does")
                && r.doc.contains("## Why it matters")
                && r.doc.contains("## Example")
                && r.doc.contains("## Use instead"),
            "rule `{}` doc lacks a section",
            r.name
        );
        assert!(
            !r.summary.ends_with('.'),
            "summary of `{}` ends with a period",
            r.name
        );
        if AUDIT_ONLY.contains(&r.name) {
            continue;
        }
        let dir = fixtures().join(r.name);
        let has_fixture = std::fs::read_dir(&dir).is_ok_and(|mut d| {
            d.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "rs")))
        });
        assert!(
            has_fixture,
            "rule `{}` has no fixture in {}",
            r.name,
            dir.display()
        );
        let snap = snapshots.join(format!("rules__{}.snap", r.name));
        assert!(
            snap.is_file(),
            "rule `{}` has no snapshot {}",
            r.name,
            snap.display()
        );
        let markers = markers(&dir);
        assert!(
            markers.iter().any(|(_, _, rule)| rule == r.name),
            "fixture of `{}` marks no finding of it",
            r.name
        );
    }
    for (dir, _) in rule_dirs() {
        assert!(
            names.contains(&dir.as_str()),
            "fixture directory `{dir}` is not a registered rule"
        );
    }
}
