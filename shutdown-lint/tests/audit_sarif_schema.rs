//! The SARIF output validates against the official SARIF 2.1.0 JSON schema, and carries every
//! field GitHub code scanning requires.
//!
//! The schema is not copied into this repository: the crates.io package `serde-sarif` ships it
//! as `src/schema.json`. It is listed under a never-true `cfg(any())` dev-dependency, so it is
//! never compiled, but `cargo metadata` resolves (and if needed downloads) it and tells us
//! where it lives.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn official_schema() -> Value {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pkg = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "serde-sarif")
        .expect("serde-sarif in the dependency graph");
    let dir = PathBuf::from(pkg["manifest_path"].as_str().unwrap())
        .parent()
        .unwrap()
        .to_path_buf();
    let text =
        std::fs::read_to_string(dir.join("src/schema.json")).expect("schema.json in serde-sarif");
    let mut schema: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        schema["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    );
    // The official schema's `language` patterns (on `run` and `toolComponent`) have a stray
    // `]` that strict ECMA-262 regex engines reject while compiling the schema; we never emit
    // `language`, so those properties get the pattern the authors meant. Nothing else changes.
    let fixed = fix_language_patterns(&mut schema);
    assert_eq!(fixed, 2, "the known defect is where we expect it");
    schema
}

fn fix_language_patterns(v: &mut Value) -> usize {
    const BROKEN: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    match v {
        Value::Object(map) => {
            let mut n = 0;
            for (key, child) in map.iter_mut() {
                if key == "pattern" && child == BROKEN {
                    *child = Value::from("^[a-zA-Z]{2}(-[a-zA-Z]{2})?$");
                    n += 1;
                } else {
                    n += fix_language_patterns(child);
                }
            }
            n
        }
        Value::Array(items) => items.iter_mut().map(fix_language_patterns).sum(),
        _ => 0,
    }
}

fn sarif_of(fixture: &str, args: &[&str]) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/audit")
        .join(fixture);
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-shutdown"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run cargo-shutdown");
    serde_json::from_slice(&out.stdout).expect("SARIF is JSON")
}

#[test]
fn sarif_validates_against_the_official_schema_and_has_what_github_requires() {
    let schema = official_schema();
    let validator = jsonschema::options()
        .build(&schema)
        .expect("schema compiles");
    for (fixture, args) in [
        ("shop", &["shutdown", "audit", "--format", "sarif"][..]),
        ("grace", &["shutdown", "audit", "--format", "sarif"][..]),
        ("malformed", &["audit", "--format", "sarif"][..]),
        ("shop", &["lint", "--format", "sarif", "."][..]),
    ] {
        let log = sarif_of(fixture, args);
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{fixture} {args:?}: {errors:#?}");
        github_requirements(&log);
    }
    // the validator does reject what the schema forbids
    let mut bad = sarif_of("grace", &["audit", "--format", "sarif"]);
    bad["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!validator.is_valid(&bad));
}

/// What GitHub's SARIF upload documents as required or used.
fn github_requirements(log: &Value) {
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif"));
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "shutdown-lint");
    assert!(driver["version"].as_str().is_some_and(|v| !v.is_empty()));
    assert!(
        driver["informationUri"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = driver["rules"].as_array().unwrap();
    assert!(rules.iter().any(|r| r["id"] == "budget-exceeds-grace"));
    for r in rules {
        for key in ["id", "name"] {
            assert!(
                r[key].as_str().is_some_and(|s| !s.is_empty()),
                "rule lacks {key}: {r}"
            );
        }
        assert!(
            r["shortDescription"]["text"]
                .as_str()
                .is_some_and(|s| !s.is_empty()),
            "{r}"
        );
        assert!(
            r["fullDescription"]["text"]
                .as_str()
                .is_some_and(|s| !s.is_empty()),
            "{r}"
        );
        assert!(
            r["help"]["text"]
                .as_str()
                .is_some_and(|s| s.contains("## Why it matters")),
            "{r}"
        );
        assert!(r["help"]["markdown"].is_string());
        assert!(
            r["helpUri"].as_str().unwrap().starts_with("https://"),
            "{r}"
        );
        assert!(
            ["error", "warning", "note"]
                .contains(&r["defaultConfiguration"]["level"].as_str().unwrap())
        );
    }
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for res in results {
        let index = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], res["ruleId"]);
        assert!(["error", "warning", "note"].contains(&res["level"].as_str().unwrap()));
        assert!(
            res["message"]["text"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        );
        let loc = &res["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(
            !uri.starts_with('/') && !uri.contains("://") && !uri.contains('\\'),
            "repo-relative URI: {uri}"
        );
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit");
        let root = shutdown_lint::render::sarif::repo_root(&fixtures);
        let expected = fixtures
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        assert!(
            uri.starts_with(&expected),
            "relative to the repository root: {uri}"
        );
        let region = &loc["region"];
        assert!(region["startLine"].as_u64().unwrap() >= 1);
        assert!(region["startColumn"].as_u64().unwrap() >= 1);
        assert!(region["endLine"].as_u64().unwrap() >= region["startLine"].as_u64().unwrap());
        assert!(
            res["partialFingerprints"]
                .as_object()
                .is_some_and(|o| !o.is_empty())
        );
        if let Some(s) = res.get("suppressions") {
            assert!(
                s[0]["justification"]
                    .as_str()
                    .is_some_and(|j| !j.is_empty())
            );
        }
    }
}
