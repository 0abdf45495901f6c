//! `--format json` (**contract**):
//! `{"version": 1, "findings": [{"rule", "severity", "path", "line", "column", "end_line",
//! "end_column", "message", "help"}], "summary": {"files", "findings"}}` — suppressed
//! findings are left out; lines and columns are 1-based. `summary` also holds
//! `"nightly_items_unread": ["path:line", ..]` when some top-level items of a crate that
//! enables nightly features did not parse ([`crate::item_recovery`]).

use crate::engine::LintReport;
use crate::finding::Finding;
use serde::Serialize;

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    findings: Vec<JsonFinding<'a>>,
    summary: Summary<'a>,
}

#[derive(Serialize)]
struct Summary<'a> {
    files: usize,
    findings: usize,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    nightly_items_unread: &'a [String],
}

/// One finding in the JSON contract shape.
#[derive(Debug, Serialize)]
pub struct JsonFinding<'a> {
    rule: &'a str,
    severity: crate::finding::Severity,
    path: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: &'a str,
    help: Option<&'a str>,
}

impl<'a> JsonFinding<'a> {
    /// The contract view of `f` (paths with `/` separators).
    pub fn new(f: &'a Finding) -> Self {
        JsonFinding {
            rule: &f.rule,
            severity: f.severity,
            path: f.path.to_string_lossy().replace('\\', "/"),
            line: f.region.line,
            column: f.region.column,
            end_line: f.region.end_line,
            end_column: f.region.end_column,
            message: &f.message,
            help: f.help.as_deref(),
        }
    }
}

/// The report as pretty-printed JSON, with a trailing newline.
///
/// # Examples
/// ```
/// let s = shutdown_lint::render::render_json(&Default::default());
/// let v: serde_json::Value = serde_json::from_str(&s).unwrap();
/// assert_eq!(v["version"], 1);
/// assert_eq!(v["summary"]["findings"], 0);
/// ```
pub fn render_json(report: &LintReport) -> String {
    let findings: Vec<JsonFinding<'_>> = report.active().map(JsonFinding::new).collect();
    let out = JsonReport {
        version: 1,
        summary: Summary {
            files: report.stats.files_seen,
            findings: findings.len(),
            nightly_items_unread: &report.stats.nightly_items_unread,
        },
        findings,
    };
    let mut s = serde_json::to_string_pretty(&out).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
