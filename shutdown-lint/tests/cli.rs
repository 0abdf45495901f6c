//! The `shutdown-lint` binary end to end, in temporary directories: exit codes (**contract**
//! 0/1/2), the JSON shape, config discovery and errors, and bad input that must not crash.

use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_shutdown-lint"));
    c.env("NO_COLOR", "1");
    c
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin().current_dir(dir).args(args).output().unwrap()
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// One string field of every finding of a `--format json` report, in order.
fn of_findings<'a>(v: &'a serde_json::Value, key: &str) -> Vec<&'a str> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[key].as_str().unwrap())
        .collect()
}

#[test]
fn clean_tree_exits_0_and_defaults_to_current_dir() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "src/lib.rs",
        "pub fn f() { shutdown_runtime::spawn(async {}); }\n",
    );
    let o = run_in(d.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "no findings in 1 file\n");
}

#[test]
fn deny_finding_exits_1_with_json_contract_shape() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "src/lib.rs",
        "use tokio::task;\npub fn f() {\n    task::spawn(async {});\n}\n",
    );
    let o = run_in(d.path(), &["--format", "json", "."]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["summary"], serde_json::json!({"files": 1, "findings": 1}));
    let f = &v["findings"][0];
    let keys: Vec<&str> = f.as_object().unwrap().keys().map(String::as_str).collect();
    let mut want = vec![
        "rule",
        "severity",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "message",
        "help",
    ];
    want.sort();
    let mut keys_sorted = keys.clone();
    keys_sorted.sort();
    assert_eq!(keys_sorted, want);
    assert_eq!(f["rule"], "raw-spawn");
    assert_eq!(f["severity"], "deny");
    assert_eq!(f["path"], "src/lib.rs");
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(3), Some(5))
    );
    assert_eq!(
        (f["end_line"].as_u64(), f["end_column"].as_u64()),
        (Some(3), Some(16))
    );
}

#[test]
fn warn_only_exits_0_and_suppression_with_reason_silences() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "src/lib.rs",
        "pub fn f() {\n    std::thread::spawn(|| ());\n    tokio::spawn(async {}); // shutdown-lint: allow(raw-spawn) -- metrics only\n}\n",
    );
    let o = run_in(d.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("detached-thread"));
    assert!(stdout(&o).contains("1 suppressed"));
    let o = run_in(d.path(), &["--no-suppressions"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn missing_path_exits_2_with_a_clear_message() {
    let d = tempfile::tempdir().unwrap();
    let o = run_in(d.path(), &["no/such/dir"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("path `no/such/dir` does not exist"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_arguments_exit_2() {
    let d = tempfile::tempdir().unwrap();
    assert_eq!(
        run_in(d.path(), &["--format", "xml"]).status.code(),
        Some(2)
    );
    assert_eq!(run_in(d.path(), &["--threads", "0"]).status.code(), Some(2));
    let o = run_in(d.path(), &["explain", "no-such-rule"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown rule `no-such-rule`"));
}

#[test]
fn bad_config_exits_2_pointing_into_the_toml() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "shutdown-lint.toml",
        "drain-budget = \"25s\"\n[rules]\nraw-spwan = \"deny\"\n",
    );
    write(d.path(), "src/lib.rs", "pub fn f() {}\n");
    let o = run_in(d.path(), &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("unknown rule `raw-spwan`"), "{e}");
    assert!(e.contains("shutdown-lint.toml:3:1"), "{e}");
    assert!(e.contains("unknown rule"), "{e}");

    write(d.path(), "shutdown-lint.toml", "drain-budget = \"25\"\n");
    let o = run_in(d.path(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("needs a unit"), "{}", stderr(&o));

    write(d.path(), "shutdown-lint.toml", "drain-budjet = \"25s\"\n");
    let o = run_in(d.path(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("drain-budjet"), "{}", stderr(&o));
}

#[test]
fn config_from_workspace_metadata_sets_levels_and_budget() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "Cargo.toml",
        "[workspace]\nmembers = []\n[workspace.metadata.shutdown-lint]\ndrain-budget = \"5s\"\n[workspace.metadata.shutdown-lint.rules]\nraw-spawn = \"warn\"\n",
    );
    write(
        d.path(),
        "svc/src/lib.rs",
        "use std::time::Duration;\npub fn f() {\n    tokio::spawn(async {});\n    let _c = reqwest::Client::builder().timeout(Duration::from_secs(9)).build();\n}\n",
    );
    let o = run_in(d.path(), &["--format", "json", "svc"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rules: Vec<(&str, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["severity"].as_str().unwrap()))
        .collect();
    assert_eq!(
        rules,
        [("raw-spawn", "warn"), ("http-timeout-over-budget", "deny")]
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn tests_are_skipped_unless_included_and_excludes_apply() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "shutdown-lint.toml",
        "exclude = [\"vendor/**\"]\n",
    );
    write(
        d.path(),
        "tests/it.rs",
        "#[test]\nfn t() { tokio::spawn(async {}); }\n",
    );
    write(
        d.path(),
        "src/lib.rs",
        "#[cfg(test)]\nmod tests {\n    fn t() { tokio::spawn(async {}); }\n}\n",
    );
    write(
        d.path(),
        "vendor/x.rs",
        "fn v() { tokio::spawn(async {}); }\n",
    );
    let o = run_in(d.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = run_in(d.path(), &["--include-tests", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["summary"]["findings"], 2, "{v}");
    assert!(!v.to_string().contains("vendor"), "{v}");
}

#[test]
fn examples_are_skipped_unless_included_also_in_a_directory_named_for_them() {
    let d = tempfile::tempdir().unwrap();
    let spawn = "pub fn f() { tokio::spawn(async {}); }\n";
    write(d.path(), "examples/demo.rs", spawn);
    write(d.path(), "plugin_examples/jwt/src/lib.rs", spawn);
    write(d.path(), "crates/etl-examples/src/lib.rs", spawn);
    write(d.path(), "crates/exampleservice/src/lib.rs", spawn);
    // a module of a crate, whatever its name (`pub mod example;`)
    write(d.path(), "crates/indexer/src/example/run.rs", spawn);
    let o = run_in(d.path(), &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let paths = of_findings(&v, "path");
    assert_eq!(
        paths,
        [
            "crates/exampleservice/src/lib.rs",
            "crates/indexer/src/example/run.rs"
        ],
        "{v}"
    );
    let o = run_in(d.path(), &["--include-examples", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["summary"]["findings"], 5, "{v}");
}

#[test]
fn build_scripts_are_skipped_with_test_code() {
    // a build script runs at compile time: its request or spawn never holds a drain
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        d.path(),
        "build.rs",
        "fn main() {\n    let _ = ureq::get(\"https://example.com\").call();\n    tokio::spawn(async {});\n}\n",
    );
    write(d.path(), "src/lib.rs", "pub fn f() {}\n");
    let o = run_in(d.path(), &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["summary"]["findings"], 0, "{v}");
    assert_eq!(o.status.code(), Some(0), "{v}");
    let o = run_in(d.path(), &["--include-tests", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rules = of_findings(&v, "rule");
    assert!(
        rules.contains(&"http-no-timeout") && rules.contains(&"raw-spawn"),
        "{v}"
    );
}

#[test]
fn explain_and_list_rules() {
    let d = tempfile::tempdir().unwrap();
    let o = run_in(d.path(), &["explain", "http-no-timeout"]);
    assert_eq!(o.status.code(), Some(0));
    let s = stdout(&o);
    for section in [
        "## What it does",
        "## Why it matters",
        "## Example",
        "## Use instead",
        "implicit",
    ] {
        assert!(s.contains(section), "{s}");
    }
    let o = run_in(d.path(), &["--list-rules"]);
    let s = stdout(&o);
    for r in [
        "raw-spawn",
        "http-no-timeout",
        "http-timeout-over-budget",
        "detached-thread",
        "sigterm-missing",
        "parse-error",
    ] {
        assert!(s.lines().any(|l| l.starts_with(r)), "{r} missing in {s}");
    }
}

#[test]
fn sigterm_missing_follows_the_binary_module_tree() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "Cargo.toml",
        "[package]\nname = \"svc\"\nversion = \"0.1.0\"\n",
    );
    write(
        d.path(),
        "src/main.rs",
        "mod signals;\n#[tokio::main]\nasync fn main() { tokio::signal::ctrl_c().await.ok(); }\n",
    );
    write(d.path(), "src/signals.rs", "pub fn x() {}\n");
    let o = run_in(d.path(), &["src/main.rs"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("binary `svc` handles Ctrl-C"),
        "{}",
        stdout(&o)
    );
    // SIGTERM handled in a module of the binary (not linted itself) that `main` never
    // calls: still reported
    write(
        d.path(),
        "src/signals.rs",
        "use tokio::signal::unix::{signal, SignalKind};\npub fn x() { let _ = signal(SignalKind::terminate()); }\n",
    );
    let o = run_in(d.path(), &["src/main.rs"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    // ... and fine once `main` calls it
    write(
        d.path(),
        "src/main.rs",
        "mod signals;\n#[tokio::main]\nasync fn main() { signals::x(); tokio::signal::ctrl_c().await.ok(); }\n",
    );
    let o = run_in(d.path(), &["src/main.rs"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn sigterm_handled_in_a_path_dependency_counts() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "Cargo.toml",
        "[workspace]\nmembers = [\"app\", \"signals\"]\n[workspace.dependencies]\nsignals = { path = \"signals\" }\n",
    );
    write(
        d.path(),
        "app/Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\n[dependencies]\nsignals = { workspace = true }\n",
    );
    write(
        d.path(),
        "app/src/main.rs",
        "#[tokio::main]\nasync fn main() { signals::install(); tokio::signal::ctrl_c().await.ok(); }\n",
    );
    write(
        d.path(),
        "signals/Cargo.toml",
        "[package]\nname = \"signals\"\nversion = \"0.1.0\"\n",
    );
    write(d.path(), "signals/src/lib.rs", "pub fn install() {}\n");
    let o = run_in(d.path(), &["app"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    write(
        d.path(),
        "signals/src/lib.rs",
        "use tokio::signal::unix::{signal, SignalKind};\npub fn install() { let _ = signal(SignalKind::terminate()); }\n",
    );
    let o = run_in(d.path(), &["app"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn bad_input_is_reported_and_the_run_goes_on() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("latin1.rs"),
        b"fn f() { let s = \"caf\xe9\"; tokio::spawn(async {}); }\n",
    )
    .unwrap();
    write(d.path(), "syntax.rs", "fn f() { tokio::spawn(; }\n");
    write(d.path(), "ok.rs", "fn f() { tokio::spawn(async {}); }\n");
    // 10,000-deep nesting
    let deep = format!(
        "fn f() {{ tokio::spawn({}1{}); }}\n",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    write(d.path(), "deep.rs", &deep);
    let unary = format!(
        "fn f() {{ let x = {}true; tokio::spawn(x); }}\n",
        "!".repeat(10_000)
    );
    write(d.path(), "unary.rs", &unary);
    // a flat chain too long for the pre-parse bound, and one the walker bounds (3,000 deep:
    // skipped, and the tree leaked rather than dropped recursively)
    let chain = format!(
        "fn f() {{ let x = 1{}; tokio::spawn(x); }}\n",
        " + 1".repeat(200_000)
    );
    write(d.path(), "chain.rs", &chain);
    let walk = format!(
        "fn f() {{ let x = 1{}; tokio::spawn(x); }}\n",
        " + 1".repeat(3_000)
    );
    write(d.path(), "walk.rs", &walk);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("loop_b.rs", d.path().join("loop_a.rs")).unwrap();
        std::os::unix::fs::symlink("loop_a.rs", d.path().join("loop_b.rs")).unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::os::unix::fs::symlink("..", d.path().join("sub/up")).unwrap();
    }
    let o = run_in(d.path(), &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let got: Vec<(String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for (path, rule) in [
        ("latin1.rs", "parse-error"),
        ("syntax.rs", "parse-error"),
        ("ok.rs", "raw-spawn"),
        ("deep.rs", "parse-error"),
        ("unary.rs", "parse-error"),
        ("chain.rs", "parse-error"),
        ("walk.rs", "raw-spawn"),
    ] {
        assert!(
            got.contains(&(path.to_string(), rule.to_string())),
            "{path} {rule} not in {got:?}"
        );
    }
    #[cfg(unix)]
    assert!(
        got.iter()
            .any(|(p, r)| p.starts_with("loop_") && r == "parse-error"),
        "{got:?}"
    );
}

/// Each finding's rule and line, in order.
fn rules_and_lines(v: &serde_json::Value) -> Vec<(String, u64)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// chainflip's runtime (`#![feature(lazy_type_alias)]`): a free type alias with a trailing
/// `where`, which `syn` does not read. The rest of the file is linted; in a crate that
/// enables nightly features the item is listed as not read, elsewhere it is a `parse-error`.
#[test]
fn an_item_of_nightly_syntax_is_read_around() {
    let alias = "pub type Items<B: Tr> = <B as Tr>::Out\nwhere\n    B: Default;\n";
    let module = format!("{alias}pub fn f() {{\n    tokio::spawn(async {{}});\n}}\n");
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "Cargo.toml",
        "[package]\nname = \"rt\"\nedition = \"2021\"\n",
    );
    write(
        d.path(),
        "src/lib.rs",
        "//! Runtime.\n#![feature(lazy_type_alias)]\npub mod types;\n",
    );
    write(d.path(), "src/types.rs", &module);
    let o = run_in(d.path(), &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rules = rules_and_lines(&v);
    assert_eq!(rules, [("raw-spawn".to_string(), 5)], "{v}");
    assert_eq!(
        v["summary"]["nightly_items_unread"],
        serde_json::json!(["src/types.rs:2"])
    );
    let o = run_in(d.path(), &[]);
    assert!(
        stdout(&o).contains(
            "not read: 1 item of nightly syntax in crates with `#![feature(..)]`: src/types.rs:2"
        ),
        "{}",
        stdout(&o)
    );

    // without the feature the build fails on it too: reported where it fails, and the
    // rest of the file still linted
    write(d.path(), "src/lib.rs", "pub mod types;\n");
    let o = run_in(d.path(), &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rules = rules_and_lines(&v);
    assert_eq!(
        rules,
        [("parse-error".to_string(), 2), ("raw-spawn".to_string(), 5)],
        "{v}"
    );
    assert!(v["summary"].get("nightly_items_unread").is_none(), "{v}");
}

fn big_file_is_linted(megabytes: usize) {
    let d = tempfile::tempdir().unwrap();
    let mut text = String::with_capacity(megabytes << 20);
    let mut i = 0;
    while text.len() < megabytes << 20 {
        text.push_str(&format!("pub fn f{i}(x: u64) -> u64 {{ let y = x * {i} + 1; if y > 3 {{ y - 1 }} else {{ y }} }}\n"));
        i += 1;
    }
    text.push_str("pub fn last() { tokio::spawn(async {}); }\n");
    write(d.path(), "big.rs", &text);
    let o = run_in(d.path(), &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["findings"][0]["line"].as_u64(), Some(i as u64 + 1));
}

/// Over the streaming threshold (1 MiB): parsed item by item.
#[test]
fn a_two_megabyte_file_is_linted() {
    big_file_is_linted(2);
}

/// The 10 MB case of the issue; slow in a debug build, so run on demand:
/// `cargo test -p shutdown-lint --release --test cli -- --ignored`.
#[test]
#[ignore]
fn a_ten_megabyte_file_is_linted() {
    big_file_is_linted(10);
}

#[cfg(unix)]
#[test]
fn unreadable_file_is_a_parse_error_not_a_crash() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    // A symlink loop cannot be read by anyone, root included (CI runs as root, where mode 000
    // does not stop a read): ELOOP.
    std::os::unix::fs::symlink("loop.rs", d.path().join("loop.rs")).unwrap();
    // Mode 000 stops everyone but root: checked too when it applies.
    write(
        d.path(),
        "secret.rs",
        "fn f() { tokio::spawn(async {}); }\n",
    );
    let p = d.path().join("secret.rs");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut unreadable = vec!["loop.rs"];
    if std::fs::read(&p).is_err() {
        unreadable.push("secret.rs");
    }
    let o = run_in(d.path(), &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let findings = v["findings"].as_array().unwrap();
    for name in unreadable {
        let f = findings
            .iter()
            .find(|f| f["path"] == name)
            .unwrap_or_else(|| panic!("no finding for {name}: {v}"));
        assert_eq!(f["rule"], "parse-error", "{v}");
        assert!(
            f["message"].as_str().unwrap().contains("cannot read"),
            "{v}"
        );
    }
}
