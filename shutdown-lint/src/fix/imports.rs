//! `use` lines for names the fixes write (`Duration`), in the file's own style: nothing when
//! the name is already imported; an existing `use std::time::{..}` group is extended; a
//! single `use std::time::Instant;` becomes a group; otherwise a new line goes after the
//! last `use std::..` line (else the last `use` line, else before the first item), with
//! the file's line ending. [`remove_unused`] drops the imports of tokio's spawn functions
//! (and of `tokio::task`) that the fixes left unused, so a crate built with `-D warnings`
//! still builds.

use super::edit::Edit;
use super::index::SpanIndex;

/// Whether `name` is brought into file scope by a top-level `use` (or a glob of `module`).
pub fn imported(index: &SpanIndex, name: &str, module: &str) -> bool {
    index.uses.iter().any(|u| {
        u.names.iter().any(|n| n == name) || u.paths.iter().any(|p| p == &format!("{module}::*"))
    })
}

/// The edit that imports `module::name` into `text`, or `None` when it is imported.
///
/// # Examples
/// ```
/// use shutdown_lint::fix::{edit::apply, imports::add_use, index::SpanIndex};
/// let text = "use std::time::Instant;\nuse tokio::net::TcpListener;\n\nfn f() {}\n";
/// let ix = SpanIndex::build(text).unwrap();
/// let e = add_use(text, &ix, "std::time", "Duration").unwrap();
/// assert_eq!(apply(text, &[e]), "use std::time::{Duration, Instant};\nuse tokio::net::TcpListener;\n\nfn f() {}\n");
/// ```
pub fn add_use(text: &str, index: &SpanIndex, module: &str, name: &str) -> Option<Edit> {
    add_use_avoiding(text, index, module, name, &[])
}

/// [`add_use`], with `use` items inside the `removed` ranges (dropped by
/// [`remove_unused`]) neither extended nor used as the anchor of the new line.
pub fn add_use_avoiding(
    text: &str,
    index: &SpanIndex,
    module: &str,
    name: &str,
    removed: &[std::ops::Range<usize>],
) -> Option<Edit> {
    let gone = |u: &&super::index::UseItem| {
        removed
            .iter()
            .any(|r| r.start <= u.range.start && u.range.end <= r.end)
    };
    if imported(index, name, module) {
        return None;
    }
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let prefix = format!("{module}::");
    for u in index.uses.iter().filter(|u| !u.public && !gone(u)) {
        let tree = &text[u.tree.clone()];
        if let Some(rest) = tree.strip_prefix(&prefix) {
            if rest.starts_with('{') {
                // `use std::time::{Instant, ..}`: first in the group
                return Some(Edit::insert(
                    u.tree.start + prefix.len() + 1,
                    format!("{name}, "),
                ));
            }
            if rest.chars().all(|c| c.is_alphanumeric() || c == '_') {
                // `use std::time::Instant;` → a group, in order
                let mut both = [name, rest];
                both.sort_unstable();
                return Some(Edit::replace(
                    u.tree.clone(),
                    format!("{prefix}{{{}, {}}}", both[0], both[1]),
                ));
            }
        }
    }
    let first = module.split("::").next().unwrap_or(module);
    let anchor = index
        .uses
        .iter()
        .rev()
        .filter(|u| !gone(u))
        .find(|u| u.first == first && !u.public)
        .or_else(|| index.uses.iter().rev().find(|u| !gone(u)));
    let line = format!("use {module}::{name};");
    match anchor {
        Some(u) => {
            let line_start = text[..u.range.start].rfind('\n').map_or(0, |i| i + 1);
            let indent: String = text[line_start..u.range.start]
                .chars()
                .take_while(|c| c.is_whitespace())
                .collect();
            // at the end of the anchor's line, after a trailing comment if there is one
            let mut at = text[u.range.end..]
                .find('\n')
                .map_or(text.len(), |i| u.range.end + i);
            if at > 0 && text.as_bytes()[at - 1] == b'\r' {
                at -= 1;
            }
            Some(Edit::insert(at, format!("{eol}{indent}{line}")))
        }
        None => {
            let at = index.first_item.unwrap_or(text.len());
            Some(Edit::insert(at, format!("{line}{eol}{eol}")))
        }
    }
}

/// Whether `word` occurs in `text` as a name of its own (not a path segment after `::`, not
/// a field or method after `.`) outside `skip` ranges.
fn occurs(text: &str, word: &str, skip: &[std::ops::Range<usize>]) -> bool {
    let b = text.as_bytes();
    let is_ident = |c: u8| c == b'_' || c.is_ascii_alphanumeric();
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let end = at + word.len();
        let before_ok = at == 0 || !(is_ident(b[at - 1]) || b[at - 1] == b':' || b[at - 1] == b'.');
        let after_ok = end >= b.len() || !is_ident(b[end]);
        if before_ok && after_ok && !skip.iter().any(|r| r.contains(&at)) {
            return true;
        }
        from = end;
    }
    false
}

/// Paths whose imports a fix can leave unused.
const SPAWN_IMPORTS: &[&str] = &[
    "tokio::spawn",
    "tokio::task",
    "tokio::task::spawn",
    "tokio::task::spawn_blocking",
    "tokio::task::spawn_local",
];

/// Public names of `tokio::task`, for telling whether a `use tokio::task::*;` is still used.
const TASK_NAMES: &[&str] = &[
    "spawn",
    "spawn_blocking",
    "spawn_local",
    "block_in_place",
    "yield_now",
    "unconstrained",
    "consume_budget",
    "id",
    "try_id",
    "coop",
    "futures",
    "join_set",
    "task_local",
    "AbortHandle",
    "Builder",
    "Id",
    "JoinError",
    "JoinHandle",
    "JoinSet",
    "LocalEnterGuard",
    "LocalKey",
    "LocalSet",
    "Unconstrained",
];

/// Edits (in `old`'s coordinates) that remove imports of [`SPAWN_IMPORTS`] which `old`
/// uses and `new` (the text after the fixes, whose `use` items are unchanged) no longer does.
///
/// # Examples
/// ```
/// use shutdown_lint::fix::{edit::apply, imports::remove_unused, index::SpanIndex};
/// let old = "use std::io;\nuse tokio::task::{self, spawn_blocking};\nfn f() { task::yield_now(); spawn_blocking(g); }\n";
/// let new = "use std::io;\nuse tokio::task::{self, spawn_blocking};\nfn f() { task::yield_now(); shutdown_runtime::spawn_blocking(g); }\n";
/// let ix = SpanIndex::build(old).unwrap();
/// let edits = remove_unused(old, new, &ix);
/// assert_eq!(apply(old, &edits), "use std::io;\nuse tokio::task::{self};\nfn f() { task::yield_now(); spawn_blocking(g); }\n");
/// // (the edits apply to the old text; the fixes' own edits are applied with them)
/// ```
pub fn remove_unused(old: &str, new: &str, index: &SpanIndex) -> Vec<Edit> {
    let uses: Vec<std::ops::Range<usize>> = index.uses.iter().map(|u| u.range.clone()).collect();
    // `use` items keep their offsets up to the first edit before them; compare by text
    let new_index = match SpanIndex::build(new) {
        Ok(ix) => ix,
        Err(_) => return Vec::new(),
    };
    let new_uses: Vec<std::ops::Range<usize>> =
        new_index.uses.iter().map(|u| u.range.clone()).collect();
    let mut edits = Vec::new();
    for u in index.uses.iter().filter(|u| !u.public) {
        let dead: Vec<&super::index::UseLeaf> = u
            .leaves
            .iter()
            .filter(|l| {
                if l.path == "tokio::task::*" {
                    // a glob the fixes emptied: it brought a spawn function that was used,
                    // and nothing of `tokio::task` is used any more
                    return ["spawn", "spawn_blocking", "spawn_local"]
                        .iter()
                        .any(|n| occurs(old, n, &uses))
                        && !TASK_NAMES.iter().any(|n| occurs(new, n, &new_uses));
                }
                SPAWN_IMPORTS.contains(&l.path.as_str())
                    && occurs(old, &l.name, &uses)
                    && !occurs(new, &l.name, &new_uses)
            })
            .collect();
        if dead.is_empty() {
            continue;
        }
        if dead.len() == u.leaves.len() {
            // the whole item, with its line when it is alone on it
            let line_start = old[..u.range.start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = old[u.range.end..]
                .find('\n')
                .map_or(old.len(), |i| u.range.end + i + 1);
            let alone = old[line_start..u.range.start].trim().is_empty()
                && old[u.range.end..line_end].trim().is_empty();
            // a blank line left at the top of the file, or doubled, goes too
            let prev_blank = line_start == 0
                || old[..line_start].ends_with("\n\n")
                || old[..line_start].ends_with("\n\r\n");
            let next_blank = ["\n", "\r\n"]
                .into_iter()
                .find(|nl| old[line_end..].starts_with(nl));
            edits.push(if alone {
                let end = match next_blank {
                    Some(nl) if prev_blank => line_end + nl.len(),
                    _ => line_end,
                };
                Edit::replace(line_start..end, "")
            } else {
                Edit::replace(u.range.clone(), "")
            });
            continue;
        }
        for l in dead.iter().filter(|l| l.in_group) {
            // the leaf and the comma after it (or before it, for the last one)
            let after = &old[l.range.end..];
            let comma = after.find(|c: char| !c.is_whitespace());
            let range = match comma {
                Some(i) if after[i..].starts_with(',') => {
                    let rest = &after[i + 1..];
                    let ws = rest.len() - rest.trim_start().len();
                    l.range.start..l.range.end + i + 1 + ws
                }
                _ => {
                    let before = old[..l.range.start].trim_end();
                    match before.strip_suffix(',') {
                        Some(b) => b.len()..l.range.end,
                        None => l.range.clone(),
                    }
                }
            };
            edits.push(Edit::replace(range, ""));
        }
    }
    edits
}
