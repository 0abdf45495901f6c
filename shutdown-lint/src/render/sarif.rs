//! SARIF 2.1.0 output, as GitHub code scanning ingests it.
//!
//! One run; the driver lists every registered rule (id, name, short and full description,
//! help text and markdown, `helpUri`, default level, tags) and each result points at its rule
//! by `ruleId` and `ruleIndex`. Locations are repository-relative URIs under the
//! `%SRCROOT%` base with 1-based regions; columns count Unicode code points
//! (`columnKind: unicodeCodePoints`) and `endColumn` is exclusive, as in [`Region`]. Findings
//! hidden by a suppression comment carry `suppressions: [{kind: inSource, justification}]`;
//! findings accepted by a baseline carry `kind: external`. Each result also has a
//! `partialFingerprints` entry built from the baseline key (rule, file, item, ordinal), so
//! code scanning tracks an alert across edits above it.
//!
//! [`Region`]: crate::finding::Region

use crate::finding::{Finding, Severity};
use crate::registry::RuleMeta;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The SARIF schema URI written to `$schema`.
///
/// # Examples
///
/// ```
/// assert!(shutdown_lint::render::sarif::SARIF_SCHEMA.ends_with("sarif-2.1.0.json"));
/// ```
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The tool's home page (`informationUri`).
///
/// # Examples
///
/// ```
/// assert!(shutdown_lint::render::sarif::INFORMATION_URI.starts_with("https://"));
/// ```
pub const INFORMATION_URI: &str = "https://github.com/shutdown-discipline/shutdown-discipline";

/// What [`render_sarif`] needs besides the findings.
#[derive(Debug, Clone)]
pub struct SarifOptions {
    /// Repository root: result URIs are made relative to it.
    pub root: PathBuf,
    /// Name of the baseline file, when `baselined` findings are passed.
    pub baseline: Option<String>,
}

/// Renders findings as a SARIF 2.1.0 log (pretty-printed JSON, trailing newline).
///
/// `findings` are reported as they are (suppressed ones with their justification);
/// `baselined` ones are added as externally suppressed results.
///
/// # Examples
///
/// ```
/// use shutdown_lint::finding::{Finding, Region, Severity};
/// use shutdown_lint::render::sarif::{render_sarif, SarifOptions};
///
/// let finding = Finding {
///     rule: "raw-spawn".into(), severity: Severity::Deny, path: "src/main.rs".into(),
///     region: Region { line: 3, column: 5, end_line: 3, end_column: 17, offset: 0, len: 12 },
///     message: "`tokio::spawn` starts a task".into(), help: None, item: "main".into(), suppressed: None,
/// };
/// let opts = SarifOptions { root: std::env::current_dir().unwrap(), baseline: None };
/// let log: serde_json::Value = serde_json::from_str(&render_sarif(&[finding], &[], &opts)).unwrap();
/// let result = &log["runs"][0]["results"][0];
/// assert_eq!(result["ruleId"], "raw-spawn");
/// assert_eq!(result["level"], "error");
/// assert_eq!(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "src/main.rs");
/// assert_eq!(result["locations"][0]["physicalLocation"]["region"]["startLine"], 3);
/// let index = result["ruleIndex"].as_u64().unwrap() as usize;
/// assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][index]["id"], "raw-spawn");
/// ```
pub fn render_sarif(findings: &[Finding], baselined: &[Finding], opts: &SarifOptions) -> String {
    let mut rules: Vec<Value> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for meta in crate::registry::all_rules() {
        index.insert(meta.name.to_owned(), rules.len());
        rules.push(rule_descriptor(meta));
    }
    // a finding of an unregistered rule still gets a descriptor, so ruleIndex stays valid
    for f in findings.iter().chain(baselined) {
        if !index.contains_key(&f.rule) {
            index.insert(f.rule.clone(), rules.len());
            rules.push(json!({
                "id": f.rule,
                "name": pascal_case(&f.rule),
                "shortDescription": {"text": f.rule},
                "defaultConfiguration": {"level": level(f.severity)},
            }));
        }
    }
    let mut ordinals: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    let mut results = Vec::new();
    let mut all: Vec<(&Finding, bool)> = findings
        .iter()
        .map(|f| (f, false))
        .chain(baselined.iter().map(|f| (f, true)))
        .collect();
    all.sort_by(|a, b| {
        (&a.0.path, a.0.region.line, a.0.region.column).cmp(&(
            &b.0.path,
            b.0.region.line,
            b.0.region.column,
        ))
    });
    for (f, is_baselined) in all {
        let uri = relative_uri(&f.path, &opts.root);
        let ordinal = ordinals
            .entry((f.rule.clone(), uri.clone(), f.item.clone()))
            .or_insert(0);
        let fingerprint = format!("{}:{}:{}:{}", f.rule, uri, f.item, ordinal);
        *ordinal += 1;
        let mut text = f.message.clone();
        if let Some(help) = &f.help {
            text.push_str("\nhelp: ");
            text.push_str(help);
        }
        let r = &f.region;
        let mut region = json!({
            "startLine": r.line.max(1),
            "startColumn": r.column.max(1),
            "endLine": r.end_line.max(r.line).max(1),
            "endColumn": r.end_column.max(1),
        });
        if r.end_line <= r.line && r.end_column <= r.column {
            // an empty span: point at the start only
            region.as_object_mut().map(|o| o.remove("endColumn"));
        }
        let mut result = json!({
            "ruleId": f.rule,
            "ruleIndex": index[&f.rule],
            "level": level(f.severity),
            "message": {"text": text},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                    "region": region,
                }
            }],
            "partialFingerprints": {"shutdownLintKey/v1": fingerprint},
        });
        let mut suppressions = Vec::new();
        if let Some(s) = &f.suppressed {
            let justification = if s.reason.is_empty() {
                format!(
                    "`shutdown-lint: allow({})` on line {} (no reason given)",
                    f.rule, s.line
                )
            } else {
                s.reason.clone()
            };
            suppressions.push(
                json!({"kind": "inSource", "status": "accepted", "justification": justification}),
            );
        }
        if is_baselined {
            let file = opts.baseline.as_deref().unwrap_or("the baseline");
            suppressions.push(json!({"kind": "external", "status": "accepted", "justification": format!("accepted in {file}")}));
        }
        if !suppressions.is_empty() {
            result["suppressions"] = Value::Array(suppressions);
        }
        results.push(result);
    }
    let log = json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "shutdown-lint",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}

/// The repository root for `dir`: the nearest directory at or above it with a `.git`, else
/// `dir` itself. SARIF URIs must be relative to the repository for code scanning.
///
/// # Examples
///
/// ```
/// use shutdown_lint::render::sarif::repo_root;
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir_all(dir.path().join(".git")).unwrap();
/// std::fs::create_dir_all(dir.path().join("crates/a")).unwrap();
/// assert_eq!(repo_root(&dir.path().join("crates/a")), dir.path());
/// ```
pub fn repo_root(dir: &Path) -> PathBuf {
    let dir = crate::paths::absolute(dir);
    let mut d = Some(dir.as_path());
    while let Some(p) = d {
        if p.join(".git").exists() {
            return p.to_path_buf();
        }
        d = p.parent();
    }
    dir
}

fn rule_descriptor(meta: &RuleMeta) -> Value {
    json!({
        "id": meta.name,
        "name": pascal_case(meta.name),
        "shortDescription": {"text": meta.summary},
        "fullDescription": {"text": full_description(meta)},
        "help": {"text": meta.doc, "markdown": meta.doc},
        "helpUri": meta.help_uri(),
        "defaultConfiguration": {"level": level(meta.default_severity)},
        "properties": {"tags": ["shutdown", "reliability"], "precision": "high"},
    })
}

/// The doc's "What it does" paragraph as one line of plain text.
fn full_description(meta: &RuleMeta) -> String {
    let body: Vec<&str> = meta
        .doc
        .lines()
        .skip_while(|l| l.starts_with("## What"))
        .take_while(|l| !l.starts_with("## "))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if body.is_empty() {
        meta.summary.to_owned()
    } else {
        body.join(" ")
    }
}

/// SARIF level of a severity.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Deny => "error",
        Severity::Warn => "warning",
        Severity::Allow => "note",
    }
}

/// `budget-exceeds-grace` → `BudgetExceedsGrace`.
fn pascal_case(name: &str) -> String {
    name.split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
        })
        .collect()
}

/// The path relative to `root`, `/`-separated and percent-encoded as a URI reference.
fn relative_uri(path: &Path, root: &Path) -> String {
    let abs = crate::paths::absolute(path);
    let root = crate::paths::absolute(root);
    let rel = abs
        .strip_prefix(&root)
        .map(Path::to_path_buf)
        .unwrap_or(abs);
    let text = rel.to_string_lossy().replace('\\', "/");
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_relative_and_encoded() {
        let root = Path::new("/repo");
        assert_eq!(
            relative_uri(Path::new("/repo/src/a b#.rs"), root),
            "src/a%20b%23.rs"
        );
        assert_eq!(
            relative_uri(Path::new("/elsewhere/x.rs"), root),
            "/elsewhere/x.rs"
        );
    }

    #[test]
    fn names() {
        assert_eq!(pascal_case("budget-exceeds-grace"), "BudgetExceedsGrace");
        assert_eq!(level(Severity::Warn), "warning");
    }
}
