//! The one shape every rule reports in: a [`Finding`] at a [`Region`] of a file.
//!
//! Rules build findings; the renderers (human, JSON, SARIF, GitHub annotations) and the
//! baseline read them. Nothing here prints.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How a finding counts toward the exit status (`deny` → exit 1; `warn` is shown only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Shown, never reported, never counted.
    Allow,
    /// Shown; does not fail the run.
    Warn,
    /// Shown; fails the run (exit status 1).
    Deny,
}

/// A 1-based line/column region plus the byte range it covers in the source.
///
/// Columns count characters (Unicode scalar values), as `proc_macro2` does, starting at 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Region {
    /// First line, 1-based.
    pub line: usize,
    /// First column, 1-based.
    pub column: usize,
    /// Last line, 1-based, inclusive.
    pub end_line: usize,
    /// Column just past the end, 1-based.
    pub end_column: usize,
    /// Byte offset of the start in the file (for labelled snippets).
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
}

/// A suppression that applied to a finding: `// shutdown-lint: allow(rule) -- reason`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suppressed {
    /// The reason written after `--` (empty if none was given).
    pub reason: String,
    /// 1-based line of the suppression comment.
    pub line: usize,
}

/// One finding of one rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Rule name, e.g. `raw-spawn` (contract names in DESIGN.md).
    pub rule: String,
    /// Level after configuration.
    pub severity: Severity,
    /// Path as shown to the user: relative to the current directory when under it.
    pub path: PathBuf,
    /// Where in the file.
    pub region: Region,
    /// Lowercase, code in backticks, no trailing period.
    pub message: String,
    /// What to do instead.
    pub help: Option<String>,
    /// Path of the enclosing item (`module::Type::method`, `""` at file level); baselines
    /// key on it instead of the line number.
    pub item: String,
    /// Set when a suppression comment covers this finding.
    pub suppressed: Option<Suppressed>,
}

impl Region {
    /// The empty region at line 1, column 1 (for whole-file findings).
    ///
    /// # Examples
    /// ```
    /// let r = shutdown_lint::finding::Region::default_start();
    /// assert_eq!((r.line, r.column, r.len), (1, 1, 0));
    /// ```
    pub fn default_start() -> Region {
        Region {
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
            offset: 0,
            len: 0,
        }
    }

    /// Whether `inner` lies within this region, by byte offsets.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::finding::Region;
    /// let at = |offset, len| Region { offset, len, ..Region::default_start() };
    /// assert!(at(10, 20).encloses(at(12, 5)));
    /// assert!(at(10, 20).encloses(at(10, 20)));
    /// assert!(!at(10, 20).encloses(at(25, 10)));
    /// ```
    pub fn encloses(&self, inner: Region) -> bool {
        self.offset <= inner.offset && inner.offset + inner.len <= self.offset + self.len
    }
}
