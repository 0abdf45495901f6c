//! Suppression comments (**contract**): `// shutdown-lint: allow(rule[, rule]) -- reason`
//! on the line of a finding or on the line above it.

use crate::finding::{Finding, Region, Suppressed};
use crate::source::LineIndex;
use serde::{Deserialize, Serialize};

/// Marker that starts a suppression comment.
pub const MARKER: &str = "shutdown-lint:";

/// One suppression comment of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuppressionFact {
    /// 1-based line of the comment.
    pub line: usize,
    /// Rules named in `allow(..)`.
    pub rules: Vec<String>,
    /// Text after `--` (empty when missing).
    pub reason: String,
    /// Whether it suppressed at least one finding.
    pub used: bool,
    /// Where the comment is.
    pub region: Region,
    /// Set when the comment could not be read (`allow(..)` missing or unclosed).
    pub malformed: bool,
}

/// Finds the suppression comments of `text`.
///
/// # Examples
/// ```
/// use shutdown_lint::{source::LineIndex, suppress::parse_suppressions};
/// let src = "x(); // shutdown-lint: allow(raw-spawn, detached-thread) -- flushed elsewhere\n";
/// let s = parse_suppressions(src, &LineIndex::new(src));
/// assert_eq!(s[0].rules, ["raw-spawn", "detached-thread"]);
/// assert_eq!(s[0].reason, "flushed elsewhere");
/// ```
pub fn parse_suppressions(text: &str, index: &LineIndex<'_>) -> Vec<SuppressionFact> {
    let mut out = Vec::new();
    if memchr::memmem::find(text.as_bytes(), MARKER.as_bytes()).is_none() {
        return out;
    }
    crate::lexscan::scan(text, |kind, start, end| {
        if kind != crate::lexscan::Piece::LineComment {
            return;
        }
        let body = &text[start..end];
        let trimmed = body.trim_start();
        let Some(rest) = trimmed.strip_prefix(MARKER) else {
            return;
        };
        let comment_start = start - 2;
        let region = index.region(comment_start, end);
        let (line, _) = index.line_col(comment_start);
        let rest = rest.trim_start();
        let mut fact = SuppressionFact {
            line,
            rules: Vec::new(),
            reason: String::new(),
            used: false,
            region,
            malformed: false,
        };
        match rest
            .strip_prefix("allow(")
            .and_then(|r| r.find(')').map(|i| (&r[..i], &r[i + 1..])))
        {
            Some((names, after)) => {
                fact.rules = names
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                if let Some(reason) = after.trim_start().strip_prefix("--") {
                    fact.reason = reason.trim().to_string();
                }
                fact.malformed = fact.rules.is_empty();
            }
            None => fact.malformed = true,
        }
        out.push(fact);
    });
    out
}

/// Marks findings covered by a suppression (same line, or the comment on the line above)
/// and the suppressions used.
pub fn apply(findings: &mut [Finding], sups: &mut [SuppressionFact]) {
    for f in findings.iter_mut().filter(|f| f.suppressed.is_none()) {
        let line = f.region.line;
        if let Some(s) = sups.iter_mut().find(|s| {
            !s.malformed && (s.line == line || s.line + 1 == line) && s.rules.contains(&f.rule)
        }) {
            s.used = true;
            f.suppressed = Some(Suppressed {
                reason: s.reason.clone(),
                line: s.line,
            });
        }
    }
}
