//! Fix fixtures: every `tests/fixtures/fix/<case>.rs` is copied into a fresh package, fixed
//! (with `--unsafe-fixes` for the cases that need it), and the fixed file plus the summary
//! is an insta snapshot (`snapshots/fix__<case>.snap`); a second run must change nothing.
//! Variants: CRLF line endings, no trailing newline. Also: files that do not parse, the
//! runtime dependency in `Cargo.toml`, `--diff`, the dirty-tree check, `cargo shutdown fix`.

use shutdown_lint::engine::LintOptions;
use shutdown_lint::fix::run::{FixOptions, Outcome, plan, write};
use shutdown_lint::fix::summary::render_summary;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/fix/{name}.rs"));
    std::fs::read_to_string(p).unwrap()
}

const MANIFEST: &str = "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ntokio = { version = \"1\", features = [\"full\"] }\n";

/// A package in a temp dir with `text` as `src/<file>`.
fn package(file: &str, text: &str, config: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).unwrap();
    std::fs::write(dir.path().join("src").join(file), text).unwrap();
    if let Some(c) = config {
        std::fs::write(dir.path().join("shutdown-lint.toml"), c).unwrap();
    }
    dir
}

fn options(dir: &Path, unsafe_fixes: bool) -> FixOptions {
    FixOptions {
        lint: LintOptions {
            cwd: Some(dir.to_path_buf()),
            ..LintOptions::default()
        },
        unsafe_fixes,
        ..FixOptions::default()
    }
}

/// Fixes `text` as `src/<file>`; returns the fixed text and the summary; checks that a
/// second run changes nothing.
fn fix_text(file: &str, text: &str, unsafe_fixes: bool, config: Option<&str>) -> (String, String) {
    let dir = package(file, text, config);
    let paths = [dir.path().to_path_buf()];
    let report = plan(&paths, &options(dir.path(), unsafe_fixes)).unwrap();
    write(&report).unwrap();
    let after = std::fs::read_to_string(dir.path().join("src").join(file)).unwrap();
    let again = plan(&paths, &options(dir.path(), unsafe_fixes)).unwrap();
    let diff: Vec<&PathBuf> = again.changes.iter().map(|c| &c.display).collect();
    assert!(
        diff.is_empty(),
        "second run changed {diff:?}:\n{}",
        again.changes[0].new
    );
    (after, render_summary(&report, true))
}

fn snapshot(case: &str, file: &str, unsafe_fixes: bool, config: Option<&str>) {
    let (after, summary) = fix_text(file, &fixture(case), unsafe_fixes, config);
    insta::assert_snapshot!(case, format!("{after}\n---- summary ----\n{summary}"));
}

#[test]
fn raw_spawn_paths() {
    snapshot("raw_spawn_paths", "lib.rs", false, None);
}

#[test]
fn raw_spawn_macros() {
    snapshot("raw_spawn_macros", "lib.rs", false, None);
}

#[test]
fn raw_spawn_handles() {
    snapshot("raw_spawn_handles", "lib.rs", false, None);
}

#[test]
fn raw_spawn_reexport() {
    let config = "[reexports]\n\"common::rt\" = \"tokio\"\n";
    snapshot("raw_spawn_reexport", "lib.rs", false, Some(config));
}

#[test]
fn detached_thread() {
    snapshot("detached_thread", "lib.rs", false, None);
}

#[test]
fn http_no_timeout_unsafe() {
    snapshot("http_no_timeout", "lib.rs", true, None);
}

#[test]
fn http_timeout_below_the_drain_budget() {
    let (after, _) = fix_text(
        "lib.rs",
        &fixture("http_no_timeout"),
        true,
        Some("drain-budget = \"6s\"\n"),
    );
    assert!(
        after.contains(".timeout(Duration::from_secs(3))"),
        "{after}"
    );
}

#[test]
fn sigterm_main_unsafe() {
    snapshot("sigterm_main", "main.rs", true, None);
}

/// The README's example: the only `use` goes (its import is unused after the fix) and the
/// `Duration` import the timeout needs takes its place.
#[test]
fn readme_orders_unsafe() {
    snapshot("readme_orders", "main.rs", true, None);
}

#[test]
fn unsafe_fixes_wait_for_the_flag() {
    let text = fixture("http_no_timeout");
    let (after, summary) = fix_text("lib.rs", &text, false, None);
    assert_eq!(after, text);
    assert!(
        summary.contains("8 more are fixable with `--unsafe-fixes` (http-no-timeout 8)"),
        "{summary}"
    );
}

#[test]
fn grace_comes_from_the_deploy_manifests() {
    let dir = package("main.rs", &fixture("sigterm_main"), None);
    std::fs::write(
        dir.path().join("compose.yaml"),
        "services:\n  fixture:\n    build: .\n    stop_grace_period: 45s\n",
    )
    .unwrap();
    let report = plan(&[dir.path().to_path_buf()], &options(dir.path(), true)).unwrap();
    assert!(
        report.changes[0]
            .new
            .contains("#[shutdown_runtime::main(grace = \"45s\", flavor = \"current_thread\")]"),
        "{}",
        report.changes[0].new
    );
}

#[test]
fn crlf_line_endings_are_kept() {
    let text = fixture("http_no_timeout").replace('\n', "\r\n");
    let (after, summary) = fix_text("lib.rs", &text, true, None);
    assert!(
        !after.replace("\r\n", "").contains('\n'),
        "a bare LF was written"
    );
    insta::assert_snapshot!(
        "http_no_timeout_crlf",
        format!(
            "{}\n---- summary ----\n{summary}",
            after.replace("\r\n", "⏎\n")
        )
    );
    let text = fixture("raw_spawn_paths").replace('\n', "\r\n");
    let (after, _) = fix_text("lib.rs", &text, false, None);
    let (lf, _) = fix_text("lib.rs", &fixture("raw_spawn_paths"), false, None);
    assert_eq!(after, lf.replace('\n', "\r\n"));
}

#[test]
fn no_trailing_newline_is_kept() {
    let text = fixture("detached_thread");
    let text = text.trim_end().to_string();
    let (after, _) = fix_text("lib.rs", &text, false, None);
    assert!(after.ends_with("fn poll() {}"), "{after:?}");
    let (with_nl, _) = fix_text("lib.rs", &fixture("detached_thread"), false, None);
    assert_eq!(after, with_nl.trim_end());
}

#[test]
fn a_file_that_does_not_parse_is_left_untouched() {
    let dir = package(
        "lib.rs",
        "mod broken;\nfn f() { tokio::spawn(g()); }\n",
        None,
    );
    let broken = "fn broken( { tokio::spawn(g()); }\n";
    std::fs::write(dir.path().join("src/broken.rs"), broken).unwrap();
    let report = plan(&[dir.path().to_path_buf()], &options(dir.path(), false)).unwrap();
    write(&report).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/broken.rs")).unwrap(),
        broken
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        "mod broken;\nfn f() { shutdown_runtime::spawn_named(\"g\", g()); }\n"
    );
    let summary = render_summary(&report, true);
    assert!(
        summary.contains("left untouched (do not parse): src/broken.rs"),
        "{summary}"
    );
    // the parse error itself remains, so the exit status says so
    assert_eq!(report.exit_code(), 1);
}

#[test]
fn the_runtime_dependency_is_added_once() {
    let dir = package("lib.rs", "fn f() { tokio::spawn(g()); }\n", None);
    let report = plan(&[dir.path().to_path_buf()], &options(dir.path(), false)).unwrap();
    write(&report).unwrap();
    let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    assert_eq!(manifest, format!("{MANIFEST}shutdown-runtime = \"0.1\"\n"));
    let again = plan(&[dir.path().to_path_buf()], &options(dir.path(), false)).unwrap();
    assert!(again.changes.is_empty());
}

#[test]
fn workspace_dependency_when_the_workspace_has_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let root =
        "[workspace]\nmembers = [\"app\"]\n\n[workspace.dependencies]\n# shared\ntokio = \"1\"\n";
    std::fs::write(dir.path().join("Cargo.toml"), root).unwrap();
    std::fs::create_dir_all(dir.path().join("app/src")).unwrap();
    let app = "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ntokio.workspace = true\n";
    std::fs::write(dir.path().join("app/Cargo.toml"), app).unwrap();
    std::fs::write(dir.path().join("app/src/main.rs"), fixture("sigterm_main")).unwrap();
    let report = plan(&[dir.path().to_path_buf()], &options(dir.path(), true)).unwrap();
    write(&report).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap(),
        format!("{root}shutdown-runtime = \"0.1\"\n")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("app/Cargo.toml")).unwrap(),
        format!("{app}shutdown-runtime = {{ workspace = true, features = [\"macros\"] }}\n")
    );
}

fn cli(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shutdown-lint"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn diff_prints_and_writes_nothing() {
    let text = "fn f() {\n    tokio::spawn(g());\n}\n";
    let dir = package("lib.rs", text, None);
    let (code, out, err) = cli(&["--diff", "."], dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n fn f() {\n-    tokio::spawn(g());\n+    shutdown_runtime::spawn_named(\"g\", g());\n }\n"), "{out}");
    assert!(out.contains("+shutdown-runtime = \"0.1\""), "{out}");
    assert!(
        err.starts_with("would fix 1 finding in 1 file (raw-spawn 1)"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        text
    );
}

#[test]
fn exit_status_is_the_lints_for_what_remains() {
    let dir = package(
        "lib.rs",
        "fn f() {\n    tokio::task::Builder::new().spawn(g()).unwrap();\n    tokio::spawn(g());\n}\n",
        None,
    );
    let (code, out, err) = cli(&["--fix", "--format", "json", "."], dir.path());
    assert_eq!(code, 1, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["line"], 2);
    assert!(
        err.contains("no fix (1):\n  src/lib.rs:2:33: raw-spawn:"),
        "{err}"
    );
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(fixed.contains("shutdown_runtime::spawn_named(\"g\", g());"));
    let (code, _, err) = cli(&["--fix", "--unsafe-fixes", "."], dir.path());
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("nothing to fix"), "{err}");
}

#[test]
fn unsafe_fixes_alone_is_an_error() {
    let dir = package("lib.rs", "fn f() {}\n", None);
    let (code, _, err) = cli(&["--unsafe-fixes", "."], dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("`--unsafe-fixes` only applies with `--fix` or `--diff`"));
}

fn git(dir: &Path, args: &[&str]) -> bool {
    std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_dirty_git_tree_is_refused_unless_allowed() {
    let text = "fn f() { tokio::spawn(g()); }\n";
    let dir = package("lib.rs", text, None);
    if !git(dir.path(), &["init", "-q"]) {
        eprintln!("git is not available: skipped");
        return;
    }
    std::fs::write(dir.path().join("notes.txt"), "draft\n").unwrap();
    let (code, _, err) = cli(&["--fix", "."], dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("uncommitted changes"), "{err}");
    assert!(err.contains("?? notes.txt"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        text
    );
    // committed: the fix runs
    assert!(git(dir.path(), &["add", "-A"]) && git(dir.path(), &["commit", "-qm", "x"]));
    let (code, _, err) = cli(&["--fix", "."], dir.path());
    assert_eq!(code, 0, "{err}");
    assert_ne!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        text
    );
    // dirty again (the fix's own changes): refused, then allowed
    std::fs::write(dir.path().join("src/lib.rs"), text).unwrap();
    assert_eq!(cli(&["--fix", "."], dir.path()).0, 2);
    let (code, _, err) = cli(&["--fix", "--allow-dirty", "."], dir.path());
    assert_eq!(code, 0, "{err}");
}

#[test]
fn cargo_shutdown_fix_is_the_same_engine() {
    let text = "fn f() { std::thread::spawn(|| ()); }\n";
    let dir = package("lib.rs", text, None);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-shutdown"))
        .args(["shutdown", "fix", "--diff"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("+fn f() { shutdown_runtime::spawn_thread(|| ()); }"),
        "{stdout}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-shutdown"))
        .args(["shutdown", "fix", "--allow-dirty"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).unwrap(),
        "fn f() { shutdown_runtime::spawn_thread(|| ()); }\n"
    );
}

#[test]
fn every_finding_gets_an_outcome() {
    let dir = package("lib.rs", &fixture("raw_spawn_handles"), None);
    let report = plan(&[dir.path().to_path_buf()], &options(dir.path(), false)).unwrap();
    let active = report.before.active().count();
    assert_eq!(report.outcomes.len(), active);
    assert!(
        report
            .outcomes
            .values()
            .any(|o| matches!(o, Outcome::NoFix(w) if w.contains("io::Result")))
    );
}

#[test]
fn a_spawn_on_actix_runtime_is_reported_and_left_as_written() {
    // a tracked spawn would run on tokio's runtime, not on actix's local set
    let text = "fn start(runtime: &actix_web::rt::Runtime) {\n    runtime.spawn(async {});\n}\n";
    let dir = package("lib.rs", text, None);
    let report = plan(&[dir.path().to_path_buf()], &options(dir.path(), true)).unwrap();
    assert_eq!(report.before.active().count(), 1);
    assert!(
        report
            .outcomes
            .values()
            .all(|o| matches!(o, Outcome::NoFix(w) if w.contains("actix's local set"))),
        "{:?}",
        report.outcomes
    );
    let (fixed, _) = fix_text("lib.rs", text, true, None);
    assert_eq!(fixed, text);
}

/// A thread started by the workspace's own function (radicle's `thread::spawn(nid,
/// label, f)` returning the `JoinHandle`) is reported where the handle is dropped and left
/// with the reason: the call is the workspace's function, not `std::thread::spawn`.
#[test]
fn a_thread_a_workspace_function_starts_is_reported_and_left_as_written() {
    let text = "mod thread {\n    pub fn spawn(label: &str, f: fn()) -> std::thread::JoinHandle<()> {\n        std::thread::Builder::new().name(label.into()).spawn(f).expect(\"no NUL\")\n    }\n}\n\npub fn listen() {\n    thread::spawn(\"control\", || ());\n}\n";
    let dir = package("lib.rs", text, None);
    let report = plan(&[dir.path().to_path_buf()], &options(dir.path(), true)).unwrap();
    assert_eq!(report.before.active().count(), 1);
    assert!(
        report.outcomes.values().all(|o| matches!(o,
            Outcome::NoFix(w) if w.contains("`thread::spawn(..)` is the workspace's own function"))),
        "{:?}",
        report.outcomes
    );
    let (fixed, _) = fix_text("lib.rs", text, true, None);
    assert_eq!(fixed, text);
}

#[test]
fn a_binary_that_serves_and_handles_no_signal_is_left_to_the_user() {
    // the runtime's signals alone would not reach this server's shutdown (an admin channel)
    let text = "#[tokio::main]\nasync fn main() {\n    let (tx, rx) = tokio::sync::oneshot::channel::<()>();\n    let l = tokio::net::TcpListener::bind(\"0.0.0.0:8080\").await.unwrap();\n    axum::serve(l, routes(tx))\n        .with_graceful_shutdown(async { rx.await.ok(); })\n        .await\n        .unwrap();\n}\n";
    let dir = package("main.rs", text, None);
    let (code, _, err) = cli(&["--fix", "--unsafe-fixes", "."], dir.path());
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("src/main.rs:5:5: sigterm-missing: the binary handles no signal"),
        "{err}"
    );
    let after = std::fs::read_to_string(dir.path().join("src/main.rs")).unwrap();
    assert_eq!(after, text);
}

/// A client built through a builder wrapper of the workspace (`build_with_policies(..)`)
/// is reported but not rewritten: the wrapper has no `.timeout(..)` of its own, and the
/// fixer says where to set one instead of writing code that does not compile.
#[test]
fn builder_wrappers_are_not_rewritten() {
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules/http-no-timeout/wrapped");
    let dir = tempfile::tempdir().unwrap();
    for rel in [
        "http_wrap/Cargo.toml",
        "http_wrap/src/lib.rs",
        "http_wrap/src/reqwest.rs",
        "http_wrap/src/ureq.rs",
        "svc/Cargo.toml",
        "svc/src/main.rs",
        "svc/src/proxy.rs",
    ] {
        let to = dir.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(src.join(rel), to).unwrap();
    }
    let paths = [dir.path().join("svc")];
    let report = plan(&paths, &options(dir.path(), true)).unwrap();
    let main: Vec<&PathBuf> = report
        .changes
        .iter()
        .map(|c| &c.display)
        .filter(|d| d.ends_with("main.rs"))
        .collect();
    assert!(main.is_empty(), "{main:?}");
    let summary = render_summary(&report, true);
    assert!(summary.contains("builder wrapper"), "{summary}");
}
