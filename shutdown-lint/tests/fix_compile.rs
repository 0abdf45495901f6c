//! Compile proof: `tests/fixtures/fix/workspace` (two crates, a binary and a library, with
//! every hazard the fixers rewrite) is copied to a temp dir, `cargo check`ed as it is,
//! fixed with `--unsafe-fixes` against the local `shutdown-runtime` (a path dependency),
//! `cargo check`ed again (offline: every dependency is already in the registry cache, the
//! lock file is the workspace's; without warnings, so no import is left unused), and
//! linted again: no finding of a fixed rule is left,
//! and a second fix changes nothing.
//!
//! The target dir is reused across runs (`CARGO_TARGET_TMPDIR/fix-compile-proof`), so only
//! the first run compiles tokio and the runtime.

use shutdown_lint::engine::{LintOptions, lint_paths};
use shutdown_lint::fix::manifest::RuntimeSource;
use shutdown_lint::fix::run::{FIXABLE, FixOptions, Outcome, plan, write};
use shutdown_lint::fix::summary::render_summary;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn cargo_check(dir: &Path, target: &Path) -> (bool, String) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["check", "--offline", "--workspace", "--quiet"])
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_fixed_workspace_builds_and_lints_clean() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    copy_dir(&manifest_dir.join("tests/fixtures/fix/workspace"), &ws);
    // the versions this repository builds with, all in the registry cache
    std::fs::copy(manifest_dir.join("../Cargo.lock"), ws.join("Cargo.lock")).unwrap();
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fix-compile-proof");

    let t = Instant::now();
    let (ok, err) = cargo_check(&ws, &target);
    assert!(ok, "the fixture does not build before fixing:\n{err}");
    assert!(
        !err.contains("warning"),
        "the fixture has warnings before fixing:\n{err}"
    );
    eprintln!("cargo check before: {:.1} s", t.elapsed().as_secs_f64());

    let runtime = manifest_dir
        .join("../shutdown-runtime")
        .canonicalize()
        .unwrap();
    let opts = FixOptions {
        lint: LintOptions {
            cwd: Some(ws.clone()),
            ..LintOptions::default()
        },
        unsafe_fixes: true,
        runtime: RuntimeSource::Path(runtime),
    };
    let report = plan(std::slice::from_ref(&ws), &opts).unwrap();
    let summary = render_summary(&report, true);
    eprintln!("{summary}");
    let not_fixed: Vec<_> = report
        .outcomes
        .iter()
        .filter(|(i, o)| {
            FIXABLE.contains(&report.before.findings[**i].rule.as_str())
                && !matches!(o, Outcome::Fixed(_))
        })
        .collect();
    assert!(not_fixed.is_empty(), "not fixed: {not_fixed:?}");
    assert_eq!(report.fixed(), 22, "{summary}");
    write(&report).unwrap();
    let root = std::fs::read_to_string(ws.join("Cargo.toml")).unwrap();
    assert!(root.contains("shutdown-runtime = { path = "), "{root}");

    let t = Instant::now();
    let (ok, err) = cargo_check(&ws, &target);
    let changed: String = report
        .changes
        .iter()
        .map(|c| format!("==== {}\n{}", c.display.display(), c.new))
        .collect();
    assert!(ok, "the fixed workspace does not build:\n{err}\n{changed}");
    eprintln!("cargo check after: {:.1} s", t.elapsed().as_secs_f64());
    // no warning either: imports the fixes left unused are gone
    assert!(!err.contains("warning"), "{err}\n{changed}");

    let after = lint_paths(
        std::slice::from_ref(&ws),
        &LintOptions {
            cwd: Some(ws.clone()),
            ..LintOptions::default()
        },
    )
    .unwrap();
    let left: Vec<_> = after
        .active()
        .filter(|f| FIXABLE.contains(&f.rule.as_str()))
        .collect();
    assert!(left.is_empty(), "findings left after fixing: {left:#?}");
    // the audit counts every fixed spawn and thread as tracked (14 raw spawns, 2 threads)
    let tracked: usize = after.files.iter().map(|f| f.tracked_spawns).sum();
    assert_eq!(tracked, 16);
    let again = plan(std::slice::from_ref(&ws), &opts).unwrap();
    assert!(again.changes.is_empty(), "a second fix changed files");
}
