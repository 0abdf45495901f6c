//! `--format human`: each finding as a miette report (rule, message, the labelled source
//! line, help, link), then a one-line summary.

use super::file_source::FileSource;
use crate::engine::LintReport;
use crate::finding::{Finding, Severity};
use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// How to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HumanOptions {
    /// Terminal width to wrap at.
    pub width: usize,
    /// ANSI colours.
    pub colour: bool,
    /// Also list suppressed findings.
    pub show_suppressed: bool,
}

impl Default for HumanOptions {
    fn default() -> Self {
        HumanOptions {
            width: 100,
            colour: false,
            show_suppressed: false,
        }
    }
}

struct Diag<'a> {
    f: &'a Finding,
    src: Option<FileSource>,
}

impl fmt::Debug for Diag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Diag").field("finding", &self.f).finish()
    }
}

impl fmt::Display for Diag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.f.message)
    }
}

impl std::error::Error for Diag<'_> {}

fn label_for(f: &Finding) -> &'static str {
    match f.rule.as_str() {
        "sigterm-missing" if crate::rules::sigterm_missing::is_no_signal(f) => {
            "no stop signal handled"
        }
        "raw-spawn" => "untracked spawn",
        "http-no-timeout" => "no overall timeout",
        "http-timeout-over-budget" => "longer than the drain budget",
        "detached-thread" => "handle dropped here",
        "sigterm-missing" => "Ctrl-C only",
        "server-no-graceful-shutdown" => "no graceful shutdown",
        "parse-error" => "here",
        "suppression-without-reason" => "no `-- reason`",
        "unused-suppression" => "suppresses nothing",
        _ => "here",
    }
}

impl Diagnostic for Diag<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(&self.f.rule))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.f.severity {
            Severity::Deny => miette::Severity::Error,
            _ => miette::Severity::Warning,
        })
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        let mut h = self.f.help.clone().unwrap_or_default();
        if let Some(s) = &self.f.suppressed {
            h = format!("suppressed on line {}: {}", s.line, s.reason);
        }
        (!h.is_empty()).then(|| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn url<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        crate::registry::rule(&self.f.rule).map(|m| Box::new(m.help_uri()) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.src.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.src.as_ref()?;
        let r = &self.f.region;
        let span = LabeledSpan::new(Some(label_for(self.f).to_string()), r.offset, r.len.max(1));
        Some(Box::new(std::iter::once(span)))
    }
}

/// Renders findings as miette reports; source snippets are read from `f.path` (relative to
/// `base`), or drawn without a snippet when unreadable.
pub fn render_findings(findings: &[&Finding], base: &Path, opts: HumanOptions) -> String {
    let theme = if opts.colour {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(opts.width)
        .with_links(false);
    // each file read, and its lines counted, once
    let mut sources: HashMap<PathBuf, Option<FileSource>> = HashMap::new();
    let mut out = String::new();
    for f in findings {
        let source = sources
            .entry(f.path.clone())
            .or_insert_with(|| {
                let bytes = std::fs::read(base.join(&f.path)).ok()?;
                let text = String::from_utf8_lossy(&bytes).into_owned();
                Some(FileSource::new(f.path.display().to_string(), text.into()))
            })
            .as_ref();
        let valid =
            source.is_some_and(|s| f.region.offset + f.region.len <= s.len() && f.region.line > 0);
        let src = source.filter(|_| valid).cloned();
        let no_src = src.is_none();
        let d = Diag { f, src };
        let mut s = String::new();
        if handler.render_report(&mut s, &d).is_err() {
            s = format!("{}: {}\n", f.rule, f.message);
        }
        if no_src {
            s = format!(
                "{}:{}:{}\n{s}",
                f.path.display(),
                f.region.line,
                f.region.column
            );
        }
        out.push_str(&s);
        out.push('\n');
    }
    out
}

/// The report for a terminal: every active finding, then a summary line.
///
/// # Examples
/// ```
/// use shutdown_lint::render::{render_human, HumanOptions};
/// let s = render_human(&Default::default(), HumanOptions::default());
/// assert_eq!(s, "no findings in 0 files\n");
/// ```
pub fn render_human(report: &LintReport, opts: HumanOptions) -> String {
    let shown: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| {
            f.severity != Severity::Allow && (opts.show_suppressed || f.suppressed.is_none())
        })
        .collect();
    let base = std::env::current_dir().unwrap_or_default();
    let mut out = render_findings(&shown, &base, opts);
    let deny = report
        .active()
        .filter(|f| f.severity == Severity::Deny)
        .count();
    let warn = report
        .active()
        .filter(|f| f.severity == Severity::Warn)
        .count();
    let suppressed = report
        .findings
        .iter()
        .filter(|f| f.suppressed.is_some())
        .count();
    let files = report.stats.files_seen;
    let files_word = if files == 1 { "file" } else { "files" };
    if deny + warn == 0 {
        out.push_str(&format!("no findings in {files} {files_word}"));
    } else {
        let total = deny + warn;
        let findings_word = if total == 1 { "finding" } else { "findings" };
        out.push_str(&format!(
            "{total} {findings_word} ({deny} deny, {warn} warn) in {files} {files_word}"
        ));
    }
    if suppressed > 0 {
        out.push_str(&format!(", {suppressed} suppressed"));
    }
    out.push('\n');
    let unread = &report.stats.nightly_items_unread;
    if !unread.is_empty() {
        let items_word = if unread.len() == 1 { "item" } else { "items" };
        let shown: Vec<&str> = unread.iter().take(5).map(String::as_str).collect();
        let more = unread.len() - shown.len();
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "not read: {} {items_word} of nightly syntax in crates with `#![feature(..)]`: {}{more}\n",
            unread.len(),
            shown.join(", ")
        ));
    }
    out
}
