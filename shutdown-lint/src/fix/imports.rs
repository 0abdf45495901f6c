//! `use` lines for names the fixes write (`Duration`), in the file's own style: nothing when
//! the name is already imported; an existing `use std::time::{..}` group is extended; a
//! single `use std::time::Instant;` becomes a group; otherwise a new line goes after the
//! last `use std::..` line (else the last `use` line, else before the first item), with
//! the file's line ending.

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
    if imported(index, name, module) {
        return None;
    }
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let prefix = format!("{module}::");
    for u in index.uses.iter().filter(|u| !u.public) {
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
        .find(|u| u.first == first && !u.public)
        .or_else(|| index.uses.last());
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
