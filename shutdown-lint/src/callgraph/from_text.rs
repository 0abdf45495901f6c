//! The functions of a file read from its tokens rather than its syntax tree: the files the
//! byte scan skipped (or whose bodies the pruner blanked) still carry call chains from
//! `main` to a signal handler or a server, so `sigterm-missing` reads their functions and
//! the calls in them from [`tokens`](super::tokens).

use super::tokens::{Tok, lex};
use crate::model::{CallRef, Calls, FnNode};
use std::collections::HashMap;

/// The functions of a file that was not walked (the byte scan found nothing a rule looks
/// for), from its tokens: each `fn` with the calls in its body, methods inside `impl` /
/// `trait` blocks, modules' items with their module in the item path. `None` if the text
/// does not lex.
///
/// # Examples
///
/// ```
/// let nodes = shutdown_lint::callgraph::nodes_from_text(
///     "mod app { pub fn run() { start(); } }\nimpl S { fn go(&self) { self.run(); } }",
/// ).unwrap();
/// assert_eq!(nodes[0].item, "app::run");
/// assert_eq!(nodes[0].calls.get(0).unwrap().name, "start");
/// assert!(nodes[1].method && nodes[1].calls.get(0).unwrap().method);
/// ```
pub fn nodes_from_text(text: &str) -> Option<Vec<FnNode>> {
    nodes_from_text_in(text, &|_| false)
}

/// [`nodes_from_text`] knowing which names a path can start with to name a crate
/// (`is_crate`): a call through a path that starts with one (`server::serve(..)`,
/// `server::http::run()`, `axum::serve(..)`) or with a name the file imports from one, or
/// of a function imported from one (`use server::serve_admin as listen;`, then
/// `listen(..)`: `serve_admin`), carries that crate, as the syntax tree's resolved path
/// does, so a walk by path follows it into that crate's functions, and only those; any
/// other path (`http::serve_http(..)`, through a module of the caller's crate) names no
/// crate.
///
/// # Examples
///
/// ```
/// let text = "fn start() { server::serve(1); http::serve_http(); }";
/// let nodes = shutdown_lint::callgraph::nodes_from_text_in(text, &|c| c == "server").unwrap();
/// let calls: Vec<_> = nodes[0].calls.iter().map(|c| (c.name, c.krate)).collect();
/// assert!(calls.contains(&("serve", Some("server"))));
/// assert!(calls.contains(&("serve_http", None)));
/// // a name imported from one, under another
/// let text = "use server::{self as srv, admin::serve_admin as listen};\n\
///             fn start() { listen(srv::port()); }";
/// let nodes = shutdown_lint::callgraph::nodes_from_text_in(text, &|c| c == "server").unwrap();
/// let calls: Vec<_> = nodes[0].calls.iter().map(|c| (c.name, c.krate)).collect();
/// assert!(calls.contains(&("serve_admin", Some("server"))));
/// assert!(calls.contains(&("port", Some("server"))));
/// ```
pub fn nodes_from_text_in(text: &str, is_crate: &dyn Fn(&str) -> bool) -> Option<Vec<FnNode>> {
    let toks = lex(text)?;
    let crates = Crates::of(&toks, is_crate);
    let mut out = Vec::new();
    let mut cx = TextItems {
        crates: &crates,
        out: &mut out,
    };
    items_in(&toks, (0, toks.len()), &mut Vec::new(), false, &mut cx, 0);
    Some(out)
}

/// What [`items_in`] fills, and what it knows of the crates.
struct TextItems<'c, 'a> {
    /// The crates a call's path or name can tell.
    crates: &'c Crates<'c, 'a>,
    /// The functions read so far.
    out: &'c mut Vec<FnNode>,
}

/// What a file's text tells of the crates its calls go to: which names are crates
/// ([`nodes_from_text_in`]'s `is_crate`), and the names its `use` declarations bring in
/// from those, each with its crate and the name it has there (`run_all` → `server`,
/// `run_all` for `use server::{run_all, http};`, `go` → `server`, `run_all` for `use
/// server::run_all as go;`), read from the whole file whatever the module (a file's imports
/// are seldom shadowed); a name the file also defines as a function is left out: a call of
/// it may be the file's own.
struct Crates<'c, 'a> {
    is_crate: &'c dyn Fn(&str) -> bool,
    imports: HashMap<&'a str, (&'a str, &'a str)>,
}

impl<'c, 'a> Crates<'c, 'a> {
    fn of(toks: &[Tok<'a>], is_crate: &'c dyn Fn(&str) -> bool) -> Self {
        let mut names = HashMap::new();
        for (i, t) in toks.iter().enumerate() {
            // `use` at the start of a path: `::` before it is part of another path
            if *t != Tok::Ident("use") || (i > 0 && toks[i - 1] == Tok::Punct(b':')) {
                continue;
            }
            // `use ::server::..` (2015)
            let j = if path_sep(toks, i + 1) { i + 3 } else { i + 1 };
            if let Some(Tok::Ident(head)) = toks.get(j)
                && is_crate(head)
            {
                use_tree(toks, j, head, None, &mut names, 0);
            }
        }
        // (most files import nothing from the workspace: no second pass)
        if !names.is_empty() {
            for w in toks.windows(2) {
                if let [Tok::Ident("fn"), Tok::Ident(name)] = w {
                    names.remove(name);
                }
            }
        }
        Crates {
            is_crate,
            imports: names,
        }
    }

    /// The crate a path that starts with `head` names: `head` itself, or the crate the
    /// file imports it from.
    fn of_head(&self, head: &'a str) -> Option<&'a str> {
        if (self.is_crate)(head) {
            Some(head)
        } else {
            self.imports.get(head).map(|&(krate, _)| krate)
        }
    }

    /// The crate a name the file imports comes from, and its name there.
    fn imported(&self, name: &str) -> Option<(&'a str, &'a str)> {
        self.imports.get(name).copied()
    }
}

/// Whether the tokens at `k` are `::`.
fn path_sep(toks: &[Tok<'_>], k: usize) -> bool {
    toks.get(k) == Some(&Tok::Punct(b':')) && toks.get(k + 1) == Some(&Tok::Punct(b':'))
}

/// Reads the use tree at `i` (a path, a `{..}` group of trees, `*`), noting each name it
/// brings in (its last segment, or what `as` renames it to; `self` names the segment
/// before it) as one of crate `head`, with its name there; returns the index after the
/// tree.
fn use_tree<'a>(
    toks: &[Tok<'a>],
    i: usize,
    head: &'a str,
    last: Option<&'a str>,
    names: &mut HashMap<&'a str, (&'a str, &'a str)>,
    depth: usize,
) -> usize {
    if depth > 32 {
        return toks.len();
    }
    match toks.get(i) {
        Some(Tok::Ident(seg)) if path_sep(toks, i + 1) => {
            use_tree(toks, i + 3, head, Some(seg), names, depth + 1)
        }
        Some(Tok::Ident(seg)) => {
            let name = if *seg == "self" { last } else { Some(*seg) };
            if toks.get(i + 1) == Some(&Tok::Ident("as")) {
                if let Some(Tok::Ident(alias)) = toks.get(i + 2)
                    && *alias != "_"
                    && let Some(name) = name
                {
                    names.insert(*alias, (head, name));
                }
                return i + 3;
            }
            if let Some(name) = name {
                names.insert(name, (head, name));
            }
            i + 1
        }
        Some(Tok::Open(b'{', close)) => {
            let close = *close;
            let mut j = i + 1;
            while j < close {
                j = use_tree(toks, j, head, last, names, depth + 1);
                if toks.get(j) == Some(&Tok::Punct(b',')) {
                    j += 1;
                } else if j < close {
                    break;
                }
            }
            close + 1
        }
        _ => i + 1,
    }
}

/// The tokens of one group at its own level (a nested group is one token): indices into
/// the file's token list.
pub(super) struct Level<'t, 'a> {
    toks: &'t [Tok<'a>],
    at: Vec<usize>,
}

impl<'t, 'a> Level<'t, 'a> {
    /// The tokens from `start` to `end` (a group's inside, or the file).
    pub(super) fn new(toks: &'t [Tok<'a>], range: (usize, usize)) -> Self {
        Self::new_in(toks, range, Vec::new())
    }

    /// [`Level::new`] in a buffer of an earlier level ([`Level::into_buffer`]).
    fn new_in(toks: &'t [Tok<'a>], (start, end): (usize, usize), mut at: Vec<usize>) -> Self {
        at.clear();
        let mut i = start;
        while i < end {
            at.push(i);
            i = match toks[i] {
                Tok::Open(_, close) => close + 1,
                _ => i + 1,
            };
        }
        Level { toks, at }
    }

    /// The index in the file's tokens of the token at `k`.
    pub(super) fn index(&self, k: usize) -> usize {
        self.at[k]
    }

    pub(super) fn len(&self) -> usize {
        self.at.len()
    }

    /// The level's buffer, for the next one.
    fn into_buffer(self) -> Vec<usize> {
        self.at
    }

    pub(super) fn get(&self, k: usize) -> Option<Tok<'a>> {
        self.at.get(k).map(|&i| self.toks[i])
    }

    /// The inside of the group at `k`, if it is one.
    pub(super) fn inside(&self, k: usize) -> Option<(usize, usize)> {
        match self.get(k)? {
            Tok::Open(_, close) => Some((self.at[k] + 1, close)),
            _ => None,
        }
    }

    /// Whether the token at `k` is the punctuation `c`.
    pub(super) fn punct(&self, k: usize, c: u8) -> bool {
        self.get(k) == Some(Tok::Punct(c))
    }

    /// Whether the token at `k` is a parenthesised group, and a non-empty one.
    fn parens(&self, k: usize) -> Option<bool> {
        match self.get(k)? {
            Tok::Open(b'(', close) => Some(close > self.at[k] + 1),
            _ => None,
        }
    }
}

fn items_in<'a>(
    toks: &[Tok<'a>],
    range: (usize, usize),
    path: &mut Vec<String>,
    in_impl: bool,
    cx: &mut TextItems<'_, 'a>,
    depth: usize,
) {
    if depth > 64 {
        return;
    }
    let tts = Level::new(toks, range);
    let mut i = 0;
    while i < tts.len() {
        match tts.get(i) {
            Some(Tok::Ident("fn")) => {
                let Some(Tok::Ident(name)) = tts.get(i + 1) else {
                    i += 1;
                    continue;
                };
                // the body: the next brace group (a `;` first: no body)
                let mut j = i + 2;
                let mut body = None;
                while j < tts.len() {
                    match tts.get(j) {
                        Some(Tok::Open(b'{', _)) => {
                            body = tts.inside(j);
                            break;
                        }
                        Some(Tok::Punct(b';')) => break,
                        _ => j += 1,
                    }
                }
                path.push(name.to_string());
                let mut node = FnNode {
                    item: path.join("::"),
                    method: in_impl,
                    ..FnNode::default()
                };
                if let Some(body) = body {
                    let mut calls = Vec::new();
                    let mut bufs = Vec::new();
                    calls_in(
                        toks,
                        body,
                        &mut BodyCalls {
                            out: &mut calls,
                            typed: &mut HashMap::new(),
                            bufs: &mut bufs,
                            crates: cx.crates,
                        },
                        depth + 1,
                    );
                    // packed straight from the text (no owned string per call)
                    node.calls = Calls::from_refs(calls);
                    cx.out.push(node);
                    // nested fns
                    items_in(toks, body, path, false, cx, depth + 1);
                } else {
                    cx.out.push(node);
                }
                path.pop();
                i = j + 1;
            }
            Some(Tok::Ident(kind @ ("mod" | "impl" | "trait"))) => {
                let (name, j) = block_name(&tts, i + 1);
                if let Some(inside) = tts.inside(j) {
                    path.push(name.map_or_else(|| kind.to_string(), str::to_string));
                    items_in(toks, inside, path, kind != "mod", cx, depth + 1);
                    path.pop();
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
}

/// The name a `mod` / `impl` / `trait` block's functions are filed under, read from the
/// tokens after the keyword (from `from` on), and the index of its body (or of the `;` /
/// the level's end). `impl<S: Bound + 'a> Trait<X> for Type<S> where ..`: the last name
/// outside angle brackets before the body (or `where`) wins, `Type`.
pub(super) fn block_name<'a>(tts: &Level<'_, 'a>, from: usize) -> (Option<&'a str>, usize) {
    let mut j = from;
    let mut name = None;
    let mut angle = 0usize;
    let mut in_where = false;
    while j < tts.len() {
        match tts.get(j) {
            Some(Tok::Open(b'{', _) | Tok::Punct(b';')) => break,
            Some(Tok::Punct(b'<')) => angle += 1,
            // `->` is no closing bracket
            Some(Tok::Punct(b'>')) if !tts.punct(j - 1, b'-') => {
                angle = angle.saturating_sub(1);
            }
            Some(Tok::Ident("where")) => in_where = true,
            // a lifetime's name is none
            Some(Tok::Ident(n))
                if angle == 0
                    && !in_where
                    && n != "for"
                    && n != "unsafe"
                    && !tts.punct(j - 1, b'\'') =>
            {
                name = Some(n);
            }
            _ => {}
        }
        j += 1;
    }
    (name, j)
}

/// What [`calls_in`] fills and keeps while it walks one body.
struct BodyCalls<'b, 'a> {
    /// The calls found.
    out: &'b mut Vec<CallRef<'a>>,
    /// The body's bindings whose type the text tells (`let s = http::Scheduler::new(..)`,
    /// `let s: Scheduler = ..`), by name, so a method called on one (`s.start()`) carries
    /// its receiver's type.
    typed: &'b mut HashMap<&'a str, &'a str>,
    /// The buffers of the levels walked before, reused.
    bufs: &'b mut Vec<Vec<usize>>,
    /// The crates a call's path or name can tell.
    crates: &'b Crates<'b, 'a>,
}

/// The calls in a body's tokens, into `cx`.
fn calls_in<'a>(toks: &[Tok<'a>], range: (usize, usize), cx: &mut BodyCalls<'_, 'a>, depth: usize) {
    if depth > 256 {
        return;
    }
    let tts = Level::new_in(toks, range, cx.bufs.pop().unwrap_or_default());
    for i in 0..tts.len() {
        match tts.get(i) {
            Some(Tok::Open(..)) => {
                if let Some(inside) = tts.inside(i) {
                    calls_in(toks, inside, cx, depth + 1);
                }
            }
            Some(Tok::Ident("let")) => {
                if let Some((name, ty)) = let_type(&tts, i + 1) {
                    cx.typed.insert(name, ty);
                } else if let Some(Tok::Ident(name)) = tts.get(i + 1) {
                    // shadowed by a value of unknown type
                    cx.typed.remove(name);
                }
            }
            Some(Tok::Ident(id)) => {
                let called = tts.parens(i + 1).is_some();
                let prev = |k: usize| i.checked_sub(k).and_then(|j| tts.get(j));
                let after_dot = prev(1) == Some(Tok::Punct(b'.'));
                let after_path = prev(1) == Some(Tok::Punct(b':'));
                let owner_is_type = after_path
                    && matches!(prev(3), Some(Tok::Ident(o)) if o == "Self" || o.starts_with(|c: char| c.is_ascii_uppercase()));
                let fn_like = id.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
                if called || (fn_like && !after_dot && (after_path || is_value_position(&tts, i))) {
                    let with_args = match tts.get(i + 1) {
                        Some(Tok::Open(_, close)) => close > tts.at[i + 1] + 1,
                        _ => false,
                    };
                    // `Type::name(..)`: the type's own function, of the caller's crate;
                    // `s.name(..)` on a binding of known type
                    let ty = match prev(3) {
                        Some(Tok::Ident(o)) if owner_is_type && o != "Self" => Some(o),
                        _ => match prev(2) {
                            Some(Tok::Ident(r)) if after_dot => cx.typed.get(r).copied(),
                            _ => None,
                        },
                    };
                    // a free function through a path that starts with a crate of the
                    // workspace or a name imported from one, or imported from one
                    // itself: that crate's; otherwise the text does not tell
                    // (a name imported under another is called by the one it has there)
                    // (a type imported from a crate of the workspace, `use
                    // websvc::WebService;` before `WebService::new(..)` or `web.run()` on
                    // `let web = WebService::new(..)`: that crate's, by its name there)
                    let imported_ty = ty.and_then(|t| cx.crates.imported(t));
                    let ty = imported_ty.map_or(ty, |(_, t)| Some(t));
                    let (krate, name) = if owner_is_type || after_dot {
                        (imported_ty.map(|(k, _)| k), id)
                    } else if after_path {
                        (
                            path_head(&tts, i).and_then(|head| cx.crates.of_head(head)),
                            id,
                        )
                    } else {
                        cx.crates
                            .imported(id)
                            .map_or((None, id), |(krate, name)| (Some(krate), name))
                    };
                    cx.out.push(CallRef {
                        name,
                        method: after_dot || owner_is_type,
                        krate,
                        with_args,
                        ty,
                    });
                }
            }
            _ => {}
        }
    }
    cx.bufs.push(tts.into_buffer());
}

/// The first segment of the path that ends at `i` (`server` of `server::http::run`), if it
/// has more than one (a leading `::` has none).
fn path_head<'a>(tts: &Level<'_, 'a>, i: usize) -> Option<&'a str> {
    let mut head = None;
    let mut k = i;
    while k >= 3 && tts.punct(k - 1, b':') && tts.punct(k - 2, b':') {
        match tts.get(k - 3) {
            Some(Tok::Ident(seg)) => {
                head = Some(seg);
                k -= 3;
            }
            _ => return None,
        }
    }
    head
}

/// The type a `let` binds, from the tokens after `let` (from `from` on): a declared type
/// (`s: Scheduler<u8>`, `s: http::Scheduler`) or a type's associated function called as
/// the whole value (`s = http::Scheduler::new(..)`, also followed by `?`, `.await`,
/// `.unwrap()`).
fn let_type<'a>(tts: &Level<'_, 'a>, from: usize) -> Option<(&'a str, &'a str)> {
    let punct = |k: usize, c: u8| tts.punct(from + k, c);
    let ident = |k: usize| match tts.get(from + k) {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    };
    let mut k = usize::from(ident(0) == Some("mut"));
    let name = ident(k)?;
    k += 1;
    let declared = punct(k, b':') && !punct(k + 1, b':');
    if !declared && !punct(k, b'=') {
        return None;
    }
    k += 1;
    // the path: `a::b::Type` (declared) or `a::b::Type::ctor` (assigned), `::`-separated
    let mut segments = Vec::new();
    while punct(k, b'&') {
        k += 1;
    }
    while let Some(s) = ident(k).filter(|s| *s != "mut") {
        segments.push(s);
        k += 1;
        if punct(k, b':') && punct(k + 1, b':') {
            k += 2;
        } else {
            break;
        }
    }
    let upper = |s: &str| s.starts_with(|c: char| c.is_ascii_uppercase());
    let ty = if declared {
        segments.last().filter(|s| upper(s))?
    } else {
        // `Type::ctor(..)` and nothing after the call but unwrapping
        let called = tts.parens(from + k).is_some();
        let n = segments.len();
        if !called || n < 2 || !upper(segments[n - 2]) || upper(segments[n - 1]) {
            return None;
        }
        let mut j = k + 1;
        loop {
            if punct(j, b'?') {
                j += 1;
            } else if punct(j, b'.') && ident(j + 1) == Some("await") {
                j += 2;
            } else if punct(j, b'.') && matches!(ident(j + 1), Some("unwrap" | "expect")) {
                j += 3;
            } else {
                break;
            }
        }
        if !punct(j, b';') {
            return None;
        }
        &segments[n - 2]
    };
    Some((name, ty))
}

/// A lowercase identifier passed as a value (`.map(install)`, `spawn(run)`): an argument
/// position between `(`/`,` and `,`/`)`. Keywords never are.
fn is_value_position(tts: &Level<'_, '_>, i: usize) -> bool {
    let next_ok = match tts.get(i + 1) {
        None => true,
        Some(Tok::Punct(p)) => p == b',',
        _ => false,
    };
    let prev_ok = match i.checked_sub(1).and_then(|j| tts.get(j)) {
        None => true,
        Some(Tok::Punct(p)) => p == b',',
        _ => false,
    };
    next_ok && prev_ok
}
