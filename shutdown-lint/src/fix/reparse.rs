//! The re-parse check before anything is written: a file's chosen fixes are applied
//! together (plus the `use` line they need) and the result is parsed; when it does not
//! parse, the fixes that do not parse on their own are dropped and the rest is tried once
//! more; if that still fails, every fix of the file is dropped. A file is never written
//! with code that does not parse.

use super::edit::{self, Edit, Fix};

/// Result of [`apply_checked`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The new text (the old one when every fix was dropped).
    pub text: String,
    /// The edits applied, sorted.
    pub edits: Vec<Edit>,
    /// Indexes (into the `fixes` given) applied.
    pub kept: Vec<usize>,
    /// Indexes dropped because the result would not parse.
    pub dropped: Vec<usize>,
}

/// Whether `text` parses as a Rust file.
pub fn parses(text: &str) -> bool {
    let ok = syn::parse_str::<syn::File>(&crate::analysis::blank_preamble(text)).is_ok();
    proc_macro2::extra::invalidate_current_thread_spans();
    ok
}

/// Applies `fixes` to `text` with `extra(set, fixed)` (edits the set needs, such as a `use`
/// line, given the text with the set's own edits applied), keeping only what parses.
///
/// # Examples
/// ```
/// use shutdown_lint::fix::edit::{Applicability, Edit, Fix};
/// use shutdown_lint::fix::reparse::apply_checked;
/// let fix = |edits| Fix { findings: vec![], rule: "raw-spawn".into(), title: String::new(),
///     applicability: Applicability::Safe, edits, needs_duration: false, needs_macros: false };
/// let text = "fn f() { a(); b(); }";
/// let good = fix(vec![Edit::replace(9..10, "x")]);
/// let bad = fix(vec![Edit::replace(14..15, "(")]);
/// let c = apply_checked(text, &[good, bad], &|_, _| Vec::new());
/// assert_eq!((c.text.as_str(), c.kept, c.dropped), ("fn f() { x(); b(); }", vec![0], vec![1]));
/// ```
pub fn apply_checked(
    text: &str,
    fixes: &[Fix],
    extra: &dyn Fn(&[&Fix], &str) -> Vec<Edit>,
) -> Checked {
    let build = |set: &[usize]| -> (String, Vec<Edit>) {
        let chosen: Vec<&Fix> = set.iter().map(|&i| &fixes[i]).collect();
        let mut edits: Vec<Edit> = chosen
            .iter()
            .flat_map(|f| f.edits.iter().cloned())
            .collect();
        let fixed = edit::apply(text, &edits);
        edits.extend(extra(&chosen, &fixed));
        edits.sort_by_key(|e| (e.range.start, e.range.end));
        (edit::apply(text, &edits), edits)
    };
    let all: Vec<usize> = (0..fixes.len()).collect();
    let (new, edits) = build(&all);
    if parses(&new) {
        return Checked {
            text: new,
            edits,
            kept: all,
            dropped: Vec::new(),
        };
    }
    let (mut kept, mut dropped): (Vec<usize>, Vec<usize>) =
        all.iter().partition(|&&i| parses(&build(&[i]).0));
    let (new, edits) = build(&kept);
    if kept.is_empty() || !parses(&new) {
        dropped.append(&mut kept);
        dropped.sort_unstable();
        return Checked {
            text: text.to_string(),
            edits: Vec::new(),
            kept,
            dropped,
        };
    }
    Checked {
        text: new,
        edits,
        kept,
        dropped,
    }
}
