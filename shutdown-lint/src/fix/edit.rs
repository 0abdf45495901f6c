//! Text edits and how several of them are applied to one file: each [`Fix`] is a group of
//! [`Edit`]s that stand or fall together; fixes whose edits overlap are resolved first come,
//! first served ([`select`]); the chosen edits are applied back to front ([`apply`]), and
//! positions in the old text are mapped into the new one ([`map_offset`]).

use std::ops::Range;

/// Replace `range` of the original text with `text` (an insertion when the range is empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Byte range in the original text.
    pub range: Range<usize>,
    /// Replacement.
    pub text: String,
}

impl Edit {
    /// An insertion at `at`.
    pub fn insert(at: usize, text: impl Into<String>) -> Edit {
        Edit {
            range: at..at,
            text: text.into(),
        }
    }

    /// A replacement of `range`.
    pub fn replace(range: Range<usize>, text: impl Into<String>) -> Edit {
        Edit {
            range,
            text: text.into(),
        }
    }

    /// Whether two edits touch the same text: ranges that intersect, an insertion inside
    /// a replaced range, or two insertions at one point (their order would be a guess).
    pub fn conflicts(&self, other: &Edit) -> bool {
        let (a, b) = (&self.range, &other.range);
        if a.is_empty() && b.is_empty() {
            return a.start == b.start;
        }
        if a.is_empty() {
            return b.start < a.start && a.start < b.end;
        }
        if b.is_empty() {
            return a.start < b.start && b.start < a.end;
        }
        a.start < b.end && b.start < a.end
    }
}

/// Whether a fix changes the program's behaviour (ruff's safe / unsafe distinction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Applicability {
    /// Keeps the program's meaning apart from tracking: applied by `--fix`.
    Safe,
    /// Changes behaviour (a timeout, the runtime's life cycle): needs `--unsafe-fixes`.
    Unsafe,
}

/// One fix of one or more findings of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// Indexes of the findings it fixes (into the run's finding list).
    pub findings: Vec<usize>,
    /// Rule fixed.
    pub rule: String,
    /// What it does, for the summary (e.g. "`tokio::spawn` → `shutdown_runtime::spawn_named`").
    pub title: String,
    /// Safe or unsafe.
    pub applicability: Applicability,
    /// The edits, all or none.
    pub edits: Vec<Edit>,
    /// The code it writes needs `std::time::Duration` in scope.
    pub needs_duration: bool,
    /// The code it writes needs the runtime's `macros` feature.
    pub needs_macros: bool,
}

/// Chooses the fixes to apply together: in order of their first edit, a fix is taken
/// when none of its edits conflicts with an edit already taken. Returns the chosen and the
/// left-out indexes.
///
/// # Examples
/// ```
/// use shutdown_lint::fix::edit::{select, Applicability, Edit, Fix};
/// let fix = |edits| Fix { findings: vec![], rule: "raw-spawn".into(), title: String::new(),
///     applicability: Applicability::Safe, edits, needs_duration: false, needs_macros: false };
/// let fixes = [fix(vec![Edit::replace(0..5, "x")]), fix(vec![Edit::replace(3..8, "y")]),
///              fix(vec![Edit::insert(9, "z")])];
/// assert_eq!(select(&fixes), (vec![0, 2], vec![1]));
/// ```
pub fn select(fixes: &[Fix]) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = (0..fixes.len()).collect();
    order.sort_by_key(|&i| {
        fixes[i]
            .edits
            .iter()
            .map(|e| e.range.start)
            .min()
            .unwrap_or(0)
    });
    let mut taken: Vec<&Edit> = Vec::new();
    let (mut chosen, mut left) = (Vec::new(), Vec::new());
    for i in order {
        let clash = fixes[i]
            .edits
            .iter()
            .any(|e| taken.iter().any(|t| t.conflicts(e)));
        if clash {
            left.push(i);
        } else {
            taken.extend(fixes[i].edits.iter());
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    left.sort_unstable();
    (chosen, left)
}

/// Applies non-conflicting `edits` to `text`.
///
/// # Examples
/// ```
/// use shutdown_lint::fix::edit::{apply, Edit};
/// let out = apply("tokio::spawn(f)", &[Edit::replace(0..12, "shutdown_runtime::spawn_named"),
///                                      Edit::insert(13, "\"f\", ")]);
/// assert_eq!(out, "shutdown_runtime::spawn_named(\"f\", f)");
/// ```
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    sorted.dedup_by(|a, b| a == b);
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for e in sorted {
        if e.range.start < at {
            continue; // a conflict `select` would not have chosen
        }
        out.push_str(&text[at..e.range.start]);
        out.push_str(&e.text);
        at = e.range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Where `offset` of the old text is in the text after `edits`; `None` inside a replaced
/// range.
///
/// # Examples
/// ```
/// use shutdown_lint::fix::edit::{map_offset, Edit};
/// let edits = [Edit::replace(0..3, "abcdef")];
/// assert_eq!(map_offset(10, &edits), Some(13));
/// assert_eq!(map_offset(1, &edits), None);
/// ```
pub fn map_offset(offset: usize, edits: &[Edit]) -> Option<usize> {
    let mut delta: isize = 0;
    for e in edits {
        if e.range.end <= offset {
            // before (an insertion at `offset` itself goes before it too)
            delta += e.text.len() as isize - e.range.len() as isize;
        } else if e.range.start < offset {
            return None;
        }
    }
    Some((offset as isize + delta) as usize)
}
