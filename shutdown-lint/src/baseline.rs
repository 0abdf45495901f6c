//! Baselines: let a legacy code base adopt the linter by recording today's findings, so CI
//! fails only on new ones.
//!
//! An entry is keyed by **rule + file + enclosing item path + ordinal** (the n-th finding of
//! that rule in that item), never by line number, so edits above a finding do not invalidate
//! it. Within one key group, findings are matched to entries by message first, then in order;
//! entries left over are *stale* (the finding was fixed) and are reported so the baseline can
//! be shrunk with `--write-baseline`.
//!
//! The file is JSON, sorted, one entry per line, so diffs stay small:
//! ```json
//! {"version": 1, "entries": [
//!   {"rule": "raw-spawn", "path": "src/main.rs", "item": "worker::run", "ordinal": 0, "message": "..."}
//! ]}
//! ```

use crate::finding::{Finding, Severity};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Format version written to and accepted from baseline files.
///
/// # Examples
///
/// ```
/// assert_eq!(shutdown_lint::baseline::BASELINE_VERSION, 1);
/// ```
pub const BASELINE_VERSION: u32 = 1;

/// A set of accepted findings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// Always [`BASELINE_VERSION`].
    pub version: u32,
    /// Accepted findings, sorted by path, rule, item, ordinal.
    pub entries: Vec<BaselineEntry>,
}

/// One accepted finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BaselineEntry {
    /// Rule name.
    pub rule: String,
    /// File, relative to the baseline file's directory, with `/` separators.
    pub path: String,
    /// Enclosing item path (`""` at file level).
    pub item: String,
    /// Index among the findings of this rule in this item, in source order.
    pub ordinal: usize,
    /// The finding's message when recorded (used to match before falling back to order).
    pub message: String,
}

/// Result of [`Baseline::apply`].
#[derive(Debug, Clone, Default)]
pub struct BaselineOutcome {
    /// Findings not in the baseline: these are reported and count toward the exit status.
    pub new: Vec<Finding>,
    /// Findings the baseline accepts.
    pub baselined: Vec<Finding>,
    /// Entries that matched no finding (fixed since the baseline was written).
    pub stale: Vec<BaselineEntry>,
}

/// Why a baseline file could not be used. Maps to exit status 2.
///
/// # Examples
///
/// ```
/// use shutdown_lint::baseline::{Baseline, BaselineError};
/// assert!(matches!(Baseline::load("no/such/file.json".as_ref()), Err(BaselineError::Io(..))));
/// ```
#[derive(Debug)]
pub enum BaselineError {
    /// Reading or writing the file failed.
    Io(PathBuf, std::io::Error),
    /// Not a baseline (bad JSON or wrong version).
    Invalid(PathBuf, String),
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaselineError::Io(p, e) => write!(f, "baseline `{}`: {e}", p.display()),
            BaselineError::Invalid(p, why) => {
                write!(f, "baseline `{}` is not valid: {why}", p.display())
            }
        }
    }
}

impl std::error::Error for BaselineError {}

type Key = (String, String, String);

impl Baseline {
    /// Records every finding that counts (not suppressed, not `allow`), with paths made
    /// relative to `base` (the directory the baseline file will live in).
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::baseline::Baseline;
    /// use shutdown_lint::finding::{Finding, Region, Severity};
    ///
    /// let finding = |line| Finding {
    ///     rule: "raw-spawn".into(), severity: Severity::Deny, path: "src/main.rs".into(),
    ///     region: Region { line, column: 5, end_line: line, end_column: 17, offset: 0, len: 12 },
    ///     message: "raw `tokio::spawn`".into(), help: None, item: "run".into(), suppressed: None,
    /// };
    /// let base = std::env::current_dir().unwrap();
    /// let baseline = Baseline::from_findings(&[finding(10), finding(20)], &base);
    /// assert_eq!(baseline.entries[1].ordinal, 1);
    ///
    /// // three lines were inserted above both: still baselined; a third one is new
    /// let outcome = baseline.apply(vec![finding(13), finding(23), finding(40)], &base);
    /// assert_eq!((outcome.baselined.len(), outcome.new.len(), outcome.stale.len()), (2, 1, 0));
    /// assert_eq!(outcome.new[0].region.line, 40);
    /// ```
    pub fn from_findings(findings: &[Finding], base: &Path) -> Baseline {
        let mut entries = Vec::new();
        for (key, group) in groups(findings.iter().filter(|f| counts(f)), base) {
            for (ordinal, f) in group.into_iter().enumerate() {
                entries.push(BaselineEntry {
                    rule: key.0.clone(),
                    path: key.1.clone(),
                    item: key.2.clone(),
                    ordinal,
                    message: f.message.clone(),
                });
            }
        }
        entries.sort_by(|a, b| {
            (&a.path, &a.rule, &a.item, a.ordinal).cmp(&(&b.path, &b.rule, &b.item, b.ordinal))
        });
        Baseline {
            version: BASELINE_VERSION,
            entries,
        }
    }

    /// Splits `findings` into new and baselined ones and lists stale entries. Suppressed and
    /// `allow` findings pass through into `new` untouched (they do not count anyway).
    ///
    /// # Examples
    ///
    /// See [`Baseline::from_findings`].
    pub fn apply(&self, findings: Vec<Finding>, base: &Path) -> BaselineOutcome {
        let mut by_key: BTreeMap<Key, Vec<&BaselineEntry>> = BTreeMap::new();
        for e in &self.entries {
            by_key
                .entry((e.rule.clone(), e.path.clone(), e.item.clone()))
                .or_default()
                .push(e);
        }
        for list in by_key.values_mut() {
            list.sort_by_key(|e| e.ordinal);
        }
        let mut accepted = vec![false; findings.len()];
        let mut used: BTreeMap<Key, Vec<bool>> = by_key
            .iter()
            .map(|(k, v)| (k.clone(), vec![false; v.len()]))
            .collect();
        let indexed: Vec<(usize, &Finding)> = findings
            .iter()
            .enumerate()
            .filter(|(_, f)| counts(f))
            .collect();
        let mut grouped: BTreeMap<Key, Vec<(usize, &Finding)>> = BTreeMap::new();
        for (i, f) in indexed {
            grouped.entry(key_of(f, base)).or_default().push((i, f));
        }
        for (key, mut group) in grouped {
            group.sort_by_key(|(_, f)| (f.region.line, f.region.column));
            let (Some(entries), Some(flags)) = (by_key.get(&key), used.get_mut(&key)) else {
                continue;
            };
            // first pass: same message; second pass: any unused entry, in order
            for exact in [true, false] {
                for (i, f) in &group {
                    if accepted[*i] {
                        continue;
                    }
                    if let Some(slot) = (0..entries.len())
                        .find(|&s| !flags[s] && (!exact || entries[s].message == f.message))
                    {
                        flags[slot] = true;
                        accepted[*i] = true;
                    }
                }
            }
        }
        let mut outcome = BaselineOutcome::default();
        for (f, ok) in findings.into_iter().zip(accepted) {
            if ok {
                outcome.baselined.push(f);
            } else {
                outcome.new.push(f);
            }
        }
        for (key, entries) in &by_key {
            for (e, u) in entries.iter().zip(&used[key]) {
                if !u {
                    outcome.stale.push((*e).clone());
                }
            }
        }
        outcome
    }

    /// Reads a baseline file.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::baseline::Baseline;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("baseline.json");
    /// Baseline::from_findings(&[], dir.path()).write(&path).unwrap();
    /// assert!(Baseline::load(&path).unwrap().entries.is_empty());
    /// std::fs::write(&path, "{").unwrap();
    /// assert!(Baseline::load(&path).is_err());
    /// ```
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| BaselineError::Io(path.to_path_buf(), e))?;
        let baseline: Baseline = serde_json::from_str(&text)
            .map_err(|e| BaselineError::Invalid(path.to_path_buf(), e.to_string()))?;
        if baseline.version != BASELINE_VERSION {
            return Err(BaselineError::Invalid(
                path.to_path_buf(),
                format!(
                    "version {} (this tool reads version {BASELINE_VERSION})",
                    baseline.version
                ),
            ));
        }
        Ok(baseline)
    }

    /// Writes the baseline file (see the module docs for the format).
    ///
    /// # Examples
    ///
    /// See [`Baseline::load`].
    pub fn write(&self, path: &Path) -> Result<(), BaselineError> {
        std::fs::write(path, self.to_json()).map_err(|e| BaselineError::Io(path.to_path_buf(), e))
    }

    /// The file's text: one entry per line.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::baseline::Baseline;
    /// assert_eq!(Baseline::from_findings(&[], ".".as_ref()).to_json(), "{\"version\": 1, \"entries\": [\n]}\n");
    /// ```
    pub fn to_json(&self) -> String {
        let mut out = format!("{{\"version\": {}, \"entries\": [\n", self.version);
        for (i, e) in self.entries.iter().enumerate() {
            out.push_str("  ");
            out.push_str(&serde_json::to_string(e).unwrap_or_default());
            out.push_str(if i + 1 < self.entries.len() {
                ",\n"
            } else {
                "\n"
            });
        }
        out.push_str("]}\n");
        out
    }
}

/// What a command line did with `--baseline FILE` / `--write-baseline FILE`.
#[derive(Debug, Clone, Default)]
pub struct BaselineRun {
    /// Findings accepted by the baseline (removed from the reported ones).
    pub baselined: Vec<Finding>,
    /// The baseline file, as given.
    pub file: Option<String>,
}

/// The `--baseline` / `--write-baseline` step shared by `shutdown-lint` and
/// `cargo shutdown audit`: with `write`, records every counted finding and moves them all to
/// `baselined` (so the run passes); with `read`, keeps only new findings in `findings` and
/// reports stale entries on `stderr`. `Err` (already reported on `stderr`) means exit
/// status 2.
///
/// # Examples
///
/// ```
/// use shutdown_lint::baseline::run_cli;
/// use shutdown_lint::finding::{Finding, Region, Severity};
///
/// let dir = tempfile::tempdir().unwrap();
/// let file = dir.path().join("baseline.json");
/// let f = Finding {
///     rule: "raw-spawn".into(), severity: Severity::Deny, path: dir.path().join("src/a.rs"),
///     region: Region { line: 1, column: 1, end_line: 1, end_column: 2, offset: 0, len: 1 },
///     message: "m".into(), help: None, item: "f".into(), suppressed: None,
/// };
/// let mut err = Vec::new();
/// let mut findings = vec![f.clone()];
/// run_cli(&mut findings, None, Some(&file), &mut err).unwrap();
/// assert!(findings.is_empty());
/// let mut findings = vec![f];
/// let run = run_cli(&mut findings, Some(&file), None, &mut err).unwrap();
/// assert_eq!((findings.len(), run.baselined.len()), (0, 1));
/// ```
#[allow(clippy::result_unit_err)]
pub fn run_cli(
    findings: &mut Vec<Finding>,
    read: Option<&Path>,
    write: Option<&Path>,
    stderr: &mut dyn std::io::Write,
) -> Result<BaselineRun, ()> {
    if let Some(path) = write {
        let base = parent_dir(path);
        let baseline = Baseline::from_findings(findings, &base);
        if let Err(e) = baseline.write(path) {
            let _ = writeln!(stderr, "error: {e}");
            return Err(());
        }
        let _ = writeln!(
            stderr,
            "wrote {} baseline entries to `{}`",
            baseline.entries.len(),
            path.display()
        );
        let (accepted, kept): (Vec<Finding>, Vec<Finding>) =
            std::mem::take(findings).into_iter().partition(counts);
        *findings = kept;
        return Ok(BaselineRun {
            baselined: accepted,
            file: Some(path.display().to_string()),
        });
    }
    let Some(path) = read else {
        return Ok(BaselineRun::default());
    };
    let baseline = match Baseline::load(path) {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(stderr, "error: {e}");
            return Err(());
        }
    };
    let outcome = baseline.apply(std::mem::take(findings), &parent_dir(path));
    if !outcome.stale.is_empty() {
        let n = outcome.stale.len();
        let _ = writeln!(
            stderr,
            "warning: {n} stale baseline entr{} in `{}` (fixed since it was written; refresh with `--write-baseline`):",
            if n == 1 { "y" } else { "ies" },
            path.display()
        );
        for e in &outcome.stale {
            let _ = writeln!(stderr, "  {e}");
        }
    }
    *findings = outcome.new;
    Ok(BaselineRun {
        baselined: outcome.baselined,
        file: Some(path.display().to_string()),
    })
}

fn parent_dir(file: &Path) -> PathBuf {
    let abs = crate::paths::absolute(file);
    abs.parent().map(Path::to_path_buf).unwrap_or(abs)
}

impl fmt::Display for BaselineEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let item = if self.item.is_empty() {
            "(file)"
        } else {
            &self.item
        };
        write!(
            f,
            "{} in `{}` at {} #{}",
            self.rule, self.path, item, self.ordinal
        )
    }
}

fn counts(f: &Finding) -> bool {
    f.suppressed.is_none() && f.severity != Severity::Allow
}

fn key_of(f: &Finding, base: &Path) -> Key {
    (f.rule.clone(), relative_key(&f.path, base), f.item.clone())
}

fn groups<'a>(
    findings: impl Iterator<Item = &'a Finding>,
    base: &Path,
) -> BTreeMap<Key, Vec<&'a Finding>> {
    let mut map: BTreeMap<Key, Vec<&'a Finding>> = BTreeMap::new();
    for f in findings {
        map.entry(key_of(f, base)).or_default().push(f);
    }
    for group in map.values_mut() {
        group.sort_by_key(|f| (f.region.line, f.region.column));
    }
    map
}

/// The path of a finding relative to `base`, with `/` separators.
fn relative_key(path: &Path, base: &Path) -> String {
    let abs = crate::paths::absolute(path);
    let base = crate::paths::absolute(base);
    let rel = abs
        .strip_prefix(&base)
        .map(Path::to_path_buf)
        .unwrap_or(abs);
    rel.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Region;

    fn f(rule: &str, item: &str, line: usize, message: &str) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Deny,
            path: "src/lib.rs".into(),
            region: Region {
                line,
                column: 1,
                end_line: line,
                end_column: 2,
                offset: 0,
                len: 1,
            },
            message: message.into(),
            help: None,
            item: item.into(),
            suppressed: None,
        }
    }

    #[test]
    fn new_finding_before_old_ones_is_the_one_reported() {
        let base = Path::new("/repo");
        let old = [
            f("raw-spawn", "a", 10, "raw `tokio::spawn`"),
            f("raw-spawn", "a", 12, "raw `tokio::spawn`"),
        ];
        let baseline = Baseline::from_findings(&old, base);
        let now = vec![
            f("raw-spawn", "a", 5, "raw `tokio::task::spawn_blocking`"),
            f("raw-spawn", "a", 20, "raw `tokio::spawn`"),
            f("raw-spawn", "a", 22, "raw `tokio::spawn`"),
        ];
        let outcome = baseline.apply(now, base);
        assert_eq!(outcome.new.len(), 1);
        assert_eq!(outcome.new[0].region.line, 5);
    }

    #[test]
    fn fixed_findings_leave_stale_entries_and_other_items_do_not_match() {
        let cwd = std::env::current_dir().unwrap();
        let base = cwd.as_path();
        let baseline = Baseline::from_findings(
            &[
                f("raw-spawn", "a", 1, "m"),
                f("detached-thread", "b", 2, "m"),
            ],
            base,
        );
        let outcome = baseline.apply(vec![f("raw-spawn", "c", 1, "m")], base);
        assert_eq!(outcome.new.len(), 1);
        assert_eq!(outcome.stale.len(), 2);
        assert_eq!(
            outcome.stale[0].to_string(),
            "detached-thread in `src/lib.rs` at b #0"
        );
    }

    #[test]
    fn json_round_trip_and_version_check() {
        let dir = tempfile::tempdir().unwrap();
        let b = Baseline::from_findings(
            &[f("raw-spawn", "", 1, "quote \" and\nnewline")],
            dir.path(),
        );
        let path = dir.path().join("b.json");
        b.write(&path).unwrap();
        assert_eq!(Baseline::load(&path).unwrap(), b);
        std::fs::write(&path, "{\"version\": 9, \"entries\": []}").unwrap();
        assert!(
            Baseline::load(&path)
                .unwrap_err()
                .to_string()
                .contains("version 9")
        );
    }
}
