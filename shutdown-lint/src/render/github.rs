//! GitHub Actions workflow annotations: one `::error`/`::warning` command per finding.
//!
//! ```text
//! ::error file=src/main.rs,line=12,endLine=12,col=5,endColumn=17,title=raw-spawn::raw `tokio::spawn` …
//! ```
//! Escaping follows `@actions/core`: in messages `%`, `\r`, `\n` become `%25`, `%0D`, `%0A`;
//! in properties `:` and `,` are escaped too. Columns are given only for single-line spans (GitHub
//! ignores or misplaces them otherwise). GitHub shows at most 10 annotations of each type per
//! step; when there are more, a final `::notice` says how many are only in the log.

use crate::finding::{Finding, Severity};
use std::fmt::Write as _;

/// How many annotations of one type GitHub shows per step.
///
/// # Examples
///
/// ```
/// assert_eq!(shutdown_lint::render::github::GITHUB_ANNOTATION_LIMIT, 10);
/// ```
pub const GITHUB_ANNOTATION_LIMIT: usize = 10;

/// Renders the findings that count (not suppressed, not `allow`) as workflow commands, one
/// per line, in the order given.
///
/// # Examples
///
/// ```
/// use shutdown_lint::finding::{Finding, Region, Severity};
/// use shutdown_lint::render::github::render_github;
///
/// let finding = Finding {
///     rule: "raw-spawn".into(), severity: Severity::Deny, path: "src/main.rs".into(),
///     region: Region { line: 3, column: 5, end_line: 3, end_column: 17, offset: 0, len: 12 },
///     message: "100% raw: `tokio::spawn`".into(), help: Some("use `shutdown_runtime::spawn`".into()),
///     item: String::new(), suppressed: None,
/// };
/// assert_eq!(
///     render_github(&[finding]),
///     "::error file=src/main.rs,line=3,endLine=3,col=5,endColumn=17,title=raw-spawn::100%25 raw: `tokio::spawn`%0Ahelp: use `shutdown_runtime::spawn`\n"
/// );
/// ```
pub fn render_github(findings: &[Finding]) -> String {
    let mut out = String::new();
    let (mut errors, mut warnings) = (0usize, 0usize);
    for f in findings {
        if f.suppressed.is_some() {
            continue;
        }
        let command = match f.severity {
            Severity::Deny => {
                errors += 1;
                "error"
            }
            Severity::Warn => {
                warnings += 1;
                "warning"
            }
            Severity::Allow => continue,
        };
        let path = f.path.to_string_lossy().replace('\\', "/");
        let r = &f.region;
        let _ = write!(
            out,
            "::{command} file={},line={},endLine={}",
            escape_property(&path),
            r.line,
            r.end_line.max(r.line)
        );
        if r.end_line <= r.line {
            let _ = write!(
                out,
                ",col={},endColumn={}",
                r.column,
                r.end_column.max(r.column)
            );
        }
        let mut message = f.message.clone();
        if let Some(help) = &f.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let _ = writeln!(
            out,
            ",title={}::{}",
            escape_property(&f.rule),
            escape_data(&message)
        );
    }
    let hidden_errors = errors.saturating_sub(GITHUB_ANNOTATION_LIMIT);
    let hidden_warnings = warnings.saturating_sub(GITHUB_ANNOTATION_LIMIT);
    if hidden_errors + hidden_warnings > 0 {
        let message = format!(
            "{errors} error(s) and {warnings} warning(s); GitHub shows only {GITHUB_ANNOTATION_LIMIT} annotations of each type per step, so {hidden_errors} error(s) and {hidden_warnings} warning(s) appear only in this log (or upload the SARIF output to code scanning)"
        );
        let _ = writeln!(
            out,
            "::notice title={}::{}",
            escape_property("shutdown-lint summary"),
            escape_data(&message)
        );
    }
    out
}

/// Escapes a command's message (`%`, `\r`, `\n`).
///
/// # Examples
///
/// ```
/// use shutdown_lint::render::github::escape_data;
/// assert_eq!(escape_data("50%\r\nok: a,b"), "50%25%0D%0Aok: a,b");
/// ```
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command property value (`%`, `\r`, `\n`, `:`, `,`).
///
/// # Examples
///
/// ```
/// use shutdown_lint::render::github::escape_property;
/// assert_eq!(escape_property("C:\\a,b%"), "C%3A\\a%2Cb%25");
/// ```
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Region, Suppressed};

    fn finding(severity: Severity, line: usize, end_line: usize) -> Finding {
        Finding {
            rule: "detached-thread".into(),
            severity,
            path: "src/a,b:c.rs".into(),
            region: Region {
                line,
                column: 2,
                end_line,
                end_column: 4,
                offset: 0,
                len: 2,
            },
            message: "m".into(),
            help: None,
            item: String::new(),
            suppressed: None,
        }
    }

    #[test]
    fn multi_line_spans_have_no_columns_and_properties_are_escaped() {
        let out = render_github(&[finding(Severity::Warn, 3, 5)]);
        assert_eq!(
            out,
            "::warning file=src/a%2Cb%3Ac.rs,line=3,endLine=5,title=detached-thread::m\n"
        );
    }

    #[test]
    fn suppressed_and_allowed_are_not_annotated() {
        let mut s = finding(Severity::Deny, 1, 1);
        s.suppressed = Some(Suppressed {
            reason: "ok".into(),
            line: 1,
        });
        assert_eq!(render_github(&[s, finding(Severity::Allow, 1, 1)]), "");
    }

    #[test]
    fn summary_when_github_would_hide_some() {
        let many: Vec<_> = (1..=12).map(|l| finding(Severity::Deny, l, l)).collect();
        let out = render_github(&many);
        let lines: Vec<_> = out.lines().collect();
        assert_eq!(lines.len(), 13);
        assert!(
            lines[12]
                .starts_with("::notice title=shutdown-lint summary::12 error(s) and 0 warning(s)"),
            "{}",
            lines[12]
        );
        assert!(lines[12].contains("2 error(s) and 0 warning(s) appear only in this log"));
        let ten: Vec<_> = (1..=10).map(|l| finding(Severity::Deny, l, l)).collect();
        assert!(!render_github(&ten).contains("::notice"));
    }
}
