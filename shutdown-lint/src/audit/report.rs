//! The audit's result and its two own renderings: the audit JSON contract and the human
//! per-crate table. (SARIF and GitHub annotations render the report's findings with the
//! lint's renderers.)

use crate::audit::budgets::CodeBudget;
use crate::deploy::{DeployTarget, GraceSource};
use crate::finding::{Finding, Severity};
use crate::manifest::workspace::Workspace;
use serde_json::{Value, json};
use shutdown_duration::format as format_duration;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Audit JSON format version (contract).
///
/// # Examples
///
/// ```
/// assert_eq!(shutdown_lint::audit::report::AUDIT_JSON_VERSION, 1);
/// ```
pub const AUDIT_JSON_VERSION: u32 = 1;

/// Everything `cargo shutdown audit` found.
#[derive(Debug, Clone)]
pub struct AuditReport {
    /// The workspace audited.
    pub workspace: Workspace,
    /// One row per member crate, in workspace order.
    pub crates: Vec<CrateSummary>,
    /// Deploy targets found in the repository.
    pub deploy: Vec<DeployTarget>,
    /// Budgets found in code and config, with the crate they belong to (`None`: config).
    pub budgets: Vec<(CodeBudget, Option<String>)>,
    /// Lint findings of the member crates plus the audit's own, sorted by path and position;
    /// suppressed ones included (with `suppressed` set).
    pub findings: Vec<Finding>,
    /// Rust files linted.
    pub files: usize,
}

/// The audit's numbers for one crate (audit JSON `crates[]`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CrateSummary {
    /// Package name.
    pub name: String,
    /// Directory, as shown to the user (`.` for the root package).
    pub path: PathBuf,
    /// Spawns shutdown can drain (shutdown-runtime spawns, configured tracked spawns, and raw
    /// spawns routed by `#[drainable]`).
    pub tracked_spawns: usize,
    /// Raw spawns (`raw-spawn` findings, suppressed ones included).
    pub raw_spawns: usize,
    /// Functions marked `#[drainable]`.
    pub drainable_fns: usize,
    /// HTTP clients or requests without an overall timeout.
    pub http_clients_without_timeout: usize,
    /// Threads whose `JoinHandle` is dropped.
    pub detached_threads: usize,
    /// Whether its binaries handle SIGTERM (for a library: whether any file does).
    pub handles_sigterm: bool,
    /// Its binary targets and whether each handles SIGTERM.
    pub binaries: Vec<BinarySummary>,
    /// Every suppression comment in the crate.
    pub suppressions: Vec<SuppressionSummary>,
}

/// A binary target's signal coverage.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BinarySummary {
    /// Target name.
    pub name: String,
    /// Entry file, as shown to the user.
    pub path: PathBuf,
    /// Whether the binary (its entry file or the crate's shared code) handles SIGTERM.
    pub handles_sigterm: bool,
}

/// One `// shutdown-lint: allow(..) -- reason` comment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SuppressionSummary {
    /// File, as shown to the user.
    pub path: PathBuf,
    /// 1-based line of the comment.
    pub line: usize,
    /// Rules it names.
    pub rules: Vec<String>,
    /// The reason after `--` (empty when missing, which is itself a finding).
    pub reason: String,
    /// Whether it suppressed a finding.
    pub used: bool,
}

impl AuditReport {
    /// Whether any unsuppressed finding is at `deny` level (exit status 1).
    ///
    /// # Examples
    ///
    /// ```
    /// # use shutdown_lint::audit::report::AuditReport;
    /// # use shutdown_lint::manifest::workspace::Workspace;
    /// let report = AuditReport {
    ///     workspace: Workspace { root: ".".into(), manifest: "Cargo.toml".into(), crates: vec![], excluded: vec![] },
    ///     crates: vec![], deploy: vec![], budgets: vec![], findings: vec![], files: 0,
    /// };
    /// assert!(!report.has_deny());
    /// ```
    pub fn has_deny(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.suppressed.is_none() && f.severity == Severity::Deny)
    }

    /// The audit JSON (contract in DESIGN.md), pretty-printed, trailing newline.
    ///
    /// `findings` is passed separately so a baseline can filter it first.
    ///
    /// # Examples
    ///
    /// ```
    /// # use shutdown_lint::audit::report::AuditReport;
    /// # use shutdown_lint::manifest::workspace::Workspace;
    /// let report = AuditReport {
    ///     workspace: Workspace { root: ".".into(), manifest: "Cargo.toml".into(), crates: vec![], excluded: vec![] },
    ///     crates: vec![], deploy: vec![], budgets: vec![], findings: vec![], files: 0,
    /// };
    /// let v: serde_json::Value = serde_json::from_str(&report.to_json(&report.findings)).unwrap();
    /// assert_eq!(v["version"], 1);
    /// assert!(v["crates"].as_array().unwrap().is_empty());
    /// ```
    pub fn to_json(&self, findings: &[Finding]) -> String {
        let crates: Vec<Value> = self
            .crates
            .iter()
            .map(|c| {
                json!({
                    "name": c.name,
                    "path": slash(&c.path),
                    "raw_spawns": c.raw_spawns,
                    "tracked_spawns": c.tracked_spawns,
                    "drainable_fns": c.drainable_fns,
                    "http_clients_without_timeout": c.http_clients_without_timeout,
                    "detached_threads": c.detached_threads,
                    "handles_sigterm": c.handles_sigterm,
                    "binaries": c.binaries.iter().map(|b| json!({
                        "name": b.name, "path": slash(&b.path), "handles_sigterm": b.handles_sigterm,
                    })).collect::<Vec<_>>(),
                    "suppressions": c.suppressions.iter().map(|s| json!({
                        "path": slash(&s.path), "line": s.line, "rules": s.rules, "reason": s.reason, "used": s.used,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let deploy: Vec<Value> = self
            .deploy
            .iter()
            .map(|t| {
                json!({
                    "path": slash(&t.path),
                    "kind": t.kind,
                    "service": t.service,
                    "object": t.object,
                    "grace_seconds": seconds(t.grace),
                    "source": t.source,
                    "pre_stop_seconds": t.pre_stop.map(seconds),
                    "effective_grace_seconds": seconds(t.effective_grace()),
                    "stop_signal": t.stop_signal.as_ref().map(|s| s.name.clone()),
                    "line": t.region.line,
                })
            })
            .collect();
        let budgets: Vec<Value> = self
            .budgets
            .iter()
            .map(|(b, krate)| {
                json!({
                    "kind": budget_kind(b),
                    "seconds": seconds(b.duration),
                    "path": slash(&b.path),
                    "line": b.line,
                    "column": b.column,
                    "crate": krate,
                })
            })
            .collect();
        let counted = findings
            .iter()
            .filter(|f| f.suppressed.is_none() && f.severity != Severity::Allow)
            .count();
        let v = json!({
            "version": AUDIT_JSON_VERSION,
            "crates": crates,
            "deploy": deploy,
            "budgets": budgets,
            "findings": findings.iter().map(finding_json).collect::<Vec<_>>(),
            "summary": {"crates": self.crates.len(), "files": self.files, "findings": counted},
        });
        let mut out = serde_json::to_string_pretty(&v).unwrap_or_default();
        out.push('\n');
        out
    }

    /// The human report: the per-crate table, suppressions with reasons, deploy targets and
    /// budgets. Findings are rendered separately (by the lint's human renderer).
    ///
    /// # Examples
    ///
    /// ```
    /// # use shutdown_lint::audit::report::{AuditReport, CrateSummary};
    /// # use shutdown_lint::manifest::workspace::Workspace;
    /// let report = AuditReport {
    ///     workspace: Workspace { root: ".".into(), manifest: "Cargo.toml".into(), crates: vec![], excluded: vec![] },
    ///     crates: vec![CrateSummary { name: "api".into(), path: ".".into(), tracked_spawns: 3, ..Default::default() }],
    ///     deploy: vec![], budgets: vec![], findings: vec![], files: 1,
    /// };
    /// let table = report.render_table();
    /// assert!(table.lines().nth(1).unwrap().starts_with("api"));
    /// ```
    pub fn render_table(&self) -> String {
        let mut rows: Vec<[String; 9]> = vec![[
            "crate".into(),
            "path".into(),
            "tracked".into(),
            "raw".into(),
            "drainable".into(),
            "http no timeout".into(),
            "detached threads".into(),
            "SIGTERM".into(),
            "suppressions".into(),
        ]];
        for c in &self.crates {
            let sigterm = if c.binaries.is_empty() {
                "- (lib)".to_owned()
            } else {
                let handled = c.binaries.iter().filter(|b| b.handles_sigterm).count();
                if handled == c.binaries.len() {
                    "yes".to_owned()
                } else {
                    format!("{handled}/{} bins", c.binaries.len())
                }
            };
            rows.push([
                c.name.clone(),
                slash(&c.path),
                c.tracked_spawns.to_string(),
                c.raw_spawns.to_string(),
                c.drainable_fns.to_string(),
                c.http_clients_without_timeout.to_string(),
                c.detached_threads.to_string(),
                sigterm,
                c.suppressions.len().to_string(),
            ]);
        }
        let mut out = table(
            &rows,
            &[false, false, true, true, true, true, true, false, true],
        );
        let sups: Vec<&SuppressionSummary> =
            self.crates.iter().flat_map(|c| &c.suppressions).collect();
        if !sups.is_empty() {
            out.push_str("\nsuppressions:\n");
            for s in sups {
                let reason = if s.reason.is_empty() {
                    "(no reason)"
                } else {
                    &s.reason
                };
                let unused = if s.used { "" } else { "  [suppresses nothing]" };
                let _ = writeln!(
                    out,
                    "  {}:{}  allow({}) -- {reason}{unused}",
                    slash(&s.path),
                    s.line,
                    s.rules.join(", ")
                );
            }
        }
        out.push_str("\ndeploy targets:\n");
        if self.deploy.is_empty() {
            out.push_str("  (no compose file, Kubernetes manifest or Dockerfile found)\n");
        } else {
            let mut rows: Vec<[String; 5]> = vec![[
                "manifest".into(),
                "kind".into(),
                "service".into(),
                "grace".into(),
                "stop signal".into(),
            ]];
            for t in &self.deploy {
                let service = match &t.object {
                    Some(o) => format!("{o}/{}", t.service),
                    None => t.service.clone(),
                };
                let mut grace = format_duration(t.grace);
                if t.source == GraceSource::Default {
                    grace.push_str(" (default)");
                }
                if let Some(p) = t.pre_stop {
                    let _ = write!(grace, " - preStop {}", format_duration(p));
                }
                rows.push([
                    format!("{}:{}", slash(&t.path), t.region.line),
                    serde_json::to_value(t.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                    service,
                    grace,
                    t.stop_signal
                        .as_ref()
                        .map_or("-".to_owned(), |s| s.name.clone()),
                ]);
            }
            out.push_str(&indent(&table(&rows, &[false; 5])));
        }
        out.push_str("\nbudgets in code and config:\n");
        if self.budgets.is_empty() {
            out.push_str("  (none found)\n");
        } else {
            let rows: Vec<[String; 3]> = self
                .budgets
                .iter()
                .map(|(b, _)| {
                    [
                        b.location(),
                        b.origin.describe().to_owned(),
                        format_duration(b.duration),
                    ]
                })
                .collect();
            out.push_str(&indent(&table(&rows, &[false, false, true])));
        }
        out
    }
}

/// A finding in the lint JSON's shape (contract).
pub(crate) fn finding_json(f: &Finding) -> Value {
    let mut v = json!({
        "rule": f.rule,
        "severity": f.severity,
        "path": slash(&f.path),
        "line": f.region.line,
        "column": f.region.column,
        "end_line": f.region.end_line,
        "end_column": f.region.end_column,
        "message": f.message,
        "help": f.help,
    });
    if let Some(s) = &f.suppressed {
        v["suppressed"] = json!({"reason": s.reason, "line": s.line});
    }
    v
}

fn budget_kind(b: &CodeBudget) -> &'static str {
    use crate::audit::budgets::BudgetOrigin::*;
    match b.origin {
        MainAttribute => "main-grace",
        FromGrace => "budgets-from-grace",
        BudgetsNew => "budgets-new",
        ConfigGracePeriod => "config-grace-period",
        ConfigDrainBudget => "config-drain-budget",
    }
}

/// Whole seconds as an integer, fractions as a float.
fn seconds(d: std::time::Duration) -> Value {
    if d.subsec_nanos() == 0 {
        json!(d.as_secs())
    } else {
        json!(d.as_secs_f64())
    }
}

fn slash(p: &std::path::Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    if s.is_empty() { ".".to_owned() } else { s }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}

fn table<const N: usize>(rows: &[[String; N]], right: &[bool; N]) -> String {
    let mut widths = [0usize; N];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i > 0 {
                line.push_str("  ");
            }
            if right[i] {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
