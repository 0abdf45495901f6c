//! End-to-end tests of `cargo shutdown audit` (and the CI formats of `shutdown-lint`) on the
//! fixture workspaces in `tests/fixtures/audit/`, through the real binaries.
//!
//! - `grace/`: the done-criterion — code asks for 120 s, compose gives 10 s and a
//!   Kubernetes Deployment the default 30 s; both are reported, located in the manifests;
//! - `shop/`: root package + glob members + `exclude`, config budgets, compose with
//!   `stop_signal` and a third-party service, Kubernetes stream with `preStop`, Dockerfile
//!   `STOPSIGNAL`: snapshots of the human, JSON, SARIF and annotation output;
//! - `malformed/`: broken YAML, bad values, tabs, non-UTF-8 — findings, never a crash;
//! - baselines: round trip on a copy of `shop/`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/audit")
        .join(name)
}

fn cargo_shutdown(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-shutdown"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run cargo-shutdown")
}

fn shutdown_lint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shutdown-lint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run shutdown-lint")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(o)))
}

/// `dir` relative to its repository root, with a trailing `/` (`""` at the root).
fn repo_prefix(dir: &Path) -> String {
    let root = shutdown_lint::render::sarif::repo_root(dir);
    let rel = dir
        .strip_prefix(&root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/");
    if rel.is_empty() {
        rel
    } else {
        format!("{rel}/")
    }
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({snapshot_path => "fixtures/audit/snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn done_criterion_120s_grace_vs_compose_10s_and_kubernetes_default_30s() {
    let out = cargo_shutdown(
        &fixture("grace"),
        &["shutdown", "audit", "--format", "json"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    let findings: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "budget-exceeds-grace")
        .collect();
    assert_eq!(findings.len(), 2, "{findings:#?}");
    let compose = findings
        .iter()
        .find(|f| f["path"] == "docker-compose.yml")
        .expect("compose finding");
    assert_eq!(
        (compose["line"].as_u64(), compose["column"].as_u64()),
        (Some(4), Some(24))
    );
    let kube = findings
        .iter()
        .find(|f| f["path"] == "k8s/worker.yaml")
        .expect("kubernetes finding");
    assert_eq!(kube["line"].as_u64(), Some(2));
    for f in [compose, kube] {
        let message = f["message"].as_str().unwrap();
        assert!(message.contains("120s"), "{message}");
        assert!(
            message.contains("crates/worker/src/main.rs:3:34"),
            "names the budget's code location: {message}"
        );
        assert_eq!(f["severity"], "deny");
    }
    assert!(kube["message"].as_str().unwrap().contains("30s"));
    // the deploy section of the contract
    let deploy = v["deploy"].as_array().unwrap();
    assert_eq!(deploy.len(), 2);
    assert_eq!(deploy[0]["kind"], "compose");
    assert_eq!(deploy[0]["grace_seconds"], 10);
    assert_eq!(deploy[0]["source"], "explicit");
    assert_eq!(deploy[1]["kind"], "kubernetes");
    assert_eq!(deploy[1]["service"], "worker");
    assert_eq!(deploy[1]["grace_seconds"], 30);
    assert_eq!(deploy[1]["source"], "default");
    // crates section
    let krate = &v["crates"][0];
    assert_eq!(krate["name"], "worker");
    assert_eq!(krate["handles_sigterm"], true);
    assert_eq!(krate["tracked_spawns"], 1);
}

#[test]
fn shop_human_table_and_findings() {
    let out = cargo_shutdown(&fixture("shop"), &["shutdown", "audit"]);
    assert_eq!(out.status.code(), Some(1));
    snapshot("shop_human", &stdout(&out));
}

#[test]
fn shop_audit_json_contract() {
    let out = cargo_shutdown(&fixture("shop"), &["audit", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["version"], 1);
    for krate in v["crates"].as_array().unwrap() {
        for key in [
            "name",
            "path",
            "raw_spawns",
            "tracked_spawns",
            "drainable_fns",
            "http_clients_without_timeout",
            "detached_threads",
            "handles_sigterm",
            "suppressions",
        ] {
            assert!(krate.get(key).is_some(), "crates[] lacks `{key}`: {krate}");
        }
    }
    for target in v["deploy"].as_array().unwrap() {
        for key in ["path", "kind", "service", "grace_seconds", "source"] {
            assert!(
                target.get(key).is_some(),
                "deploy[] lacks `{key}`: {target}"
            );
        }
        assert!(target["source"] == "explicit" || target["source"] == "default");
    }
    let names: Vec<&str> = v["crates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["shop", "api", "jobs"], "`legacy` is excluded");
    snapshot("shop_json", &stdout(&out));
}

#[test]
fn shop_github_annotations() {
    let out = cargo_shutdown(&fixture("shop"), &["audit", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.lines()
            .all(|l| l.starts_with("::error ") || l.starts_with("::warning ")),
        "{text}"
    );
    snapshot("shop_github", &text);
}

#[test]
fn shop_sarif_results() {
    let out = cargo_shutdown(&fixture("shop"), &["audit", "--format", "sarif"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "shutdown-lint");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for r in run["results"].as_array().unwrap() {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], r["ruleId"]);
    }
    // the suppressed raw spawn is carried with its justification
    let suppressed: Vec<&Value> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .collect();
    assert_eq!(suppressed.len(), 1);
    assert_eq!(
        suppressed[0]["suppressions"][0]["justification"],
        "metrics flusher, losing one batch is acceptable"
    );
    // URIs are relative to the repository root (the nearest `.git`); the snapshot holds them
    // relative to the fixture, so it does not depend on where the checkout sits
    let text = serde_json::to_string_pretty(&run["results"]).unwrap();
    snapshot(
        "shop_sarif_results",
        &text.replace(&repo_prefix(&fixture("shop")), ""),
    );
}

#[test]
fn malformed_manifests_are_findings_not_crashes() {
    let out = cargo_shutdown(&fixture("malformed"), &["audit", "--format", "json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    let errors: Vec<(String, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "parse-error")
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        errors,
        [
            ("compose.yml".to_owned(), 5),
            ("k8s/bad-values.yaml".to_owned(), 6),
            ("k8s/latin1.yaml".to_owned(), 1),
            ("k8s/tabs.yaml".to_owned(), 4),
        ]
    );
    snapshot(
        "malformed_human",
        &stdout(&cargo_shutdown(&fixture("malformed"), &["audit"])),
    );
}

#[test]
fn manifest_path_and_bad_arguments() {
    let manifest = fixture("grace").join("Cargo.toml");
    let out = cargo_shutdown(
        &fixture("shop"),
        &[
            "audit",
            "--format",
            "json",
            "--manifest-path",
            manifest.to_str().unwrap(),
        ],
    );
    assert_eq!(json(&out)["crates"][0]["name"], "worker");
    let out = cargo_shutdown(&fixture("shop"), &["audit", "--format", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
    let out = cargo_shutdown(
        &fixture("shop"),
        &["audit", "--manifest-path", "/nonexistent/Cargo.toml"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `Cargo.toml`"));
    let out = cargo_shutdown(&fixture("shop"), &["shutdown", "frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    let out = cargo_shutdown(
        &fixture("shop"),
        &["shutdown", "lint", "--format", "json", "crates/jobs"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["summary"]["findings"], 2);
}

#[test]
fn config_exclude_applies_to_manifests() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("malformed");
    copy_dir(&fixture("malformed"), &ws);
    std::fs::write(ws.join("shutdown-lint.toml"), "exclude = [\"k8s/**\"]\n").unwrap();
    let v = json(&cargo_shutdown(&ws, &["audit", "--format", "json"]));
    let paths: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["compose.yml"]);
    assert!(v["deploy"].as_array().unwrap().is_empty());
}

#[test]
fn suppression_comments_in_manifests() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("grace");
    copy_dir(&fixture("grace"), &ws);
    let compose = ws.join("docker-compose.yml");
    let text = std::fs::read_to_string(&compose).unwrap();
    let text = text.replace(
        "    stop_grace_period: 10s\n",
        "    # shutdown-lint: allow(budget-exceeds-grace) -- local development only\n    stop_grace_period: 10s\n",
    );
    std::fs::write(&compose, text).unwrap();
    let kube = ws.join("k8s/worker.yaml");
    let text = std::fs::read_to_string(&kube).unwrap();
    std::fs::write(
        &kube,
        format!("# shutdown-lint: allow(stopsignal-unhandled)\n{text}"),
    )
    .unwrap();
    let v = json(&cargo_shutdown(&ws, &["audit", "--format", "json"]));
    let got: Vec<(&str, &str, u64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap(),
                f["path"].as_str().unwrap(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("suppression-without-reason", "k8s/worker.yaml", 1),
            ("unused-suppression", "k8s/worker.yaml", 1),
            ("budget-exceeds-grace", "k8s/worker.yaml", 3),
        ]
    );
    let v = json(&cargo_shutdown(
        &ws,
        &["audit", "--format", "json", "--no-suppressions"],
    ));
    let budget = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "budget-exceeds-grace")
        .count();
    assert_eq!(budget, 2);
}

#[test]
fn no_suppressions_reports_what_they_hide() {
    let out = cargo_shutdown(
        &fixture("shop"),
        &["audit", "--format", "json", "--no-suppressions"],
    );
    let v = json(&out);
    let raw_in_api = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "raw-spawn" && f["path"] == "crates/api/src/main.rs")
        .count();
    assert_eq!(raw_in_api, 1);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn baseline_round_trip_audit() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("shop");
    copy_dir(&fixture("shop"), &ws);
    let out = cargo_shutdown(
        &ws,
        &["audit", "--write-baseline", "shutdown-baseline.json"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote 8 baseline entries"));
    let out = cargo_shutdown(&ws, &["audit", "--baseline", "shutdown-baseline.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("8 baselined"));

    // edits above findings (code and manifest) keep them baselined
    let main = ws.join("src/main.rs");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(
        &main,
        format!("// a new header\n// spanning lines\n\n{text}"),
    )
    .unwrap();
    let compose = ws.join("deploy/compose.yaml");
    let text = std::fs::read_to_string(&compose).unwrap();
    std::fs::write(&compose, format!("# the shop's services\n\n{text}")).unwrap();
    let out = cargo_shutdown(
        &ws,
        &[
            "audit",
            "--baseline",
            "shutdown-baseline.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(json(&out)["findings"].as_array().unwrap().is_empty());

    // a new finding fails the run, and only it is reported
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(
        &main,
        text.replace(
            "async fn refresh_prices() {}",
            "async fn refresh_prices() {\n    tokio::spawn(async {});\n}",
        ),
    )
    .unwrap();
    let out = cargo_shutdown(
        &ws,
        &[
            "audit",
            "--baseline",
            "shutdown-baseline.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["rule"], "raw-spawn");
    assert_eq!(findings[0]["line"], 16);

    // fixing a baselined finding leaves a stale entry, reported on stderr
    let text = std::fs::read_to_string(&compose).unwrap();
    std::fs::write(&compose, text.replace("    stop_signal: SIGQUIT\n", "")).unwrap();
    let out = cargo_shutdown(&ws, &["audit", "--baseline", "shutdown-baseline.json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("1 stale baseline entry"), "{err}");
    assert!(
        err.contains("stopsignal-unhandled in `deploy/compose.yaml` at services.jobs #0"),
        "{err}"
    );
}

#[test]
fn baseline_round_trip_lint_and_ci_formats() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("shop");
    copy_dir(&fixture("shop"), &ws);
    let out = shutdown_lint(&ws, &["--write-baseline", "b.json", "crates"]);
    assert_eq!(out.status.code(), Some(0));
    let out = shutdown_lint(
        &ws,
        &["--baseline", "b.json", "--format", "sarif", "crates"],
    );
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    let results = v["runs"][0]["results"].as_array().unwrap();
    let external = results
        .iter()
        .filter(|r| r["suppressions"][0]["kind"] == "external")
        .count();
    assert_eq!(
        external, 3,
        "baselined findings ride along as externally suppressed results"
    );
    let out = shutdown_lint(
        &ws,
        &["--baseline", "b.json", "--format", "github", "crates"],
    );
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), String::new()));
    let out = shutdown_lint(&ws, &["--baseline", "missing.json", "crates"]);
    assert_eq!(out.status.code(), Some(2));
}
