//! What every per-rule fixer sees of one file ([`FileCx`]): its text, its [`SpanIndex`],
//! the linter's [`FixSite`]s, and the values chosen for the run (runtime crate name, HTTP
//! timeout, grace period); plus the lookups the fixers share.

use super::edit::Edit;
use super::index::{CallSite, MethodSite, SpanIndex};
use super::site::FixSite;
use crate::finding::{Finding, Region};

/// One file, as the fixers see it.
#[derive(Debug)]
pub struct FileCx<'a> {
    /// The file's text.
    pub text: &'a str,
    /// Positions of calls, `use` items, `fn main`.
    pub index: &'a SpanIndex,
    /// The linter's resolved sites of the file.
    pub sites: &'a [FixSite],
    /// How the runtime crate is named in this package (`shutdown_runtime`).
    pub rt: &'a str,
    /// Overall timeout for HTTP clients, in seconds (below the drain budget).
    pub timeout_secs: u64,
    /// Grace period for `#[shutdown_runtime::main(grace = ..)]`, e.g. `30s`.
    pub grace: &'a str,
}

impl<'a> FileCx<'a> {
    /// The site and the part of it (root or step) a finding points at.
    pub fn site_at(&self, f: &Finding) -> Option<(&'a FixSite, Option<usize>)> {
        self.sites
            .iter()
            .find_map(|s| s.part_at(&f.region).map(|p| (s, p)))
    }

    /// The call whose called path is the region `r`.
    pub fn call_at(&self, r: &Region) -> Option<&'a CallSite> {
        self.index
            .calls
            .get(&(r.offset + r.len))
            .filter(|c| c.func.start <= r.offset)
    }

    /// The method call whose name is at region `r`.
    pub fn method_at(&self, r: &Region) -> Option<&'a MethodSite> {
        self.index.methods.get(&r.offset)
    }

    /// Text of a byte range.
    pub fn slice(&self, r: std::ops::Range<usize>) -> &'a str {
        &self.text[r]
    }

    /// The line ending the file uses (`\r\n` when it has any).
    pub fn eol(&self) -> &'static str {
        if self.text.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// `arg` (e.g. `"name",`) written before the first argument of `call`, in the call's
    /// layout: on a line of its own when the argument starts a line, else followed by a space.
    pub fn before_arg(&self, call: &CallSite, arg: &str) -> String {
        let first = call.args[0].start;
        let line_start = self.text[..first].rfind('\n').map_or(0, |i| i + 1);
        let indent = &self.text[line_start..first];
        if line_start > call.lparen && indent.chars().all(|c| c == ' ' || c == '\t') {
            format!("{arg}{}{indent}", self.eol())
        } else {
            format!("{arg} ")
        }
    }

    /// Edits that turn `recv.method(args)` into `{head}recv{mid}args)`: an insertion before
    /// the receiver and a replacement of `.method(` (and what is between), so the receiver
    /// and the arguments are kept as written. A comment between the receiver and the method
    /// would be lost: then no edits.
    pub fn wrap_receiver(
        &self,
        m: &MethodSite,
        head: &str,
        mid: &str,
    ) -> Result<Vec<Edit>, String> {
        if self.text[m.receiver.end..m.lparen].contains('/') {
            return Err("a comment sits between the receiver and the method".into());
        }
        let after = self.text[m.lparen + 1..].chars().next();
        let space = if after.is_some_and(|c| c.is_whitespace() || c == ')') {
            ""
        } else {
            " "
        };
        Ok(vec![
            Edit::insert(m.receiver.start, head),
            Edit::replace(m.receiver.end..m.lparen + 1, format!("{mid}{space}")),
        ])
    }
}
