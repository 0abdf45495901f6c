//! Call chains from `main`, by name: which functions of a binary (its files, its library,
//! its path dependencies' libraries) its `main` may reach. `sigterm-missing` credits only the
//! signal handlers installed by reached functions, and the audit reads what each binary
//! handles from the same walk.
//!
//! Calls are matched by name, not by type: a method call `x.name()` or `Type::name()` reaches
//! every method called `name`, a call `name()` / `module::name()` every free function called
//! `name`. That over-approximates (a binary is credited a little too often, never too
//! little), which is what a rule that fails a build needs. The servers a binary starts in
//! its libraries are read from the other walk, [`reachable_by_path`], which follows only
//! free functions called through paths that name their crate: a binary is not made a
//! daemon by a library server it only shares a method name with.

use crate::model::{Call, FnNode};
use std::collections::{BTreeSet, HashMap};

/// One function of the binary: which file (an index the caller chooses), its crate and its
/// node.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    /// The caller's index of the file.
    pub file: usize,
    /// The crate of the file (`-` as `_`).
    pub krate: &'a str,
    /// The function.
    pub node: &'a FnNode,
}

/// The functions reachable from the roots (`(file, item)` pairs, e.g. the binary's `main`),
/// as `(file, item)` pairs; `None` when no root is among `nodes` (then the caller cannot
/// tell and should treat every function as reached).
///
/// # Examples
///
/// ```
/// use shutdown_lint::callgraph::{reachable, Node};
/// use shutdown_lint::model::{Call, FnNode};
/// let call = |n: &str| Call { name: n.into(), method: false, krate: None, with_args: false, ty: None };
/// let main = FnNode { item: "main".into(), method: false, calls: vec![call("serve")] };
/// let serve = FnNode { item: "net::serve".into(), method: false, calls: vec![] };
/// let unused = FnNode { item: "signals".into(), method: false, calls: vec![] };
/// let nodes = [
///     Node { file: 0, krate: "app", node: &main },
///     Node { file: 1, krate: "app", node: &serve },
///     Node { file: 1, krate: "app", node: &unused },
/// ];
/// let r = reachable(&nodes, &[(0, "main")]).unwrap();
/// assert!(r.contains(&(1, "net::serve".to_string())));
/// assert!(!r.contains(&(1, "signals".to_string())));
/// ```
pub fn reachable(nodes: &[Node<'_>], roots: &[(usize, &str)]) -> Option<BTreeSet<(usize, String)>> {
    walk(nodes, roots, false)
}

/// [`reachable`] through free functions only, each in the crate its path names: a call
/// through a resolved path (`ballista_scheduler::start_server()`, an imported
/// `start_server()`, `crate::serve()`) reaches the free functions of that name in that crate,
/// a call whose path names no crate (a same-module `serve()`, or one read from the text of
/// a pruned body) those of the caller's crate; never a method, never another crate's
/// function of the same name. A method is followed only when its receiver's type is known
/// ([`Call::ty`]: `self`, a binding of a declared type, a value a type's constructor
/// returned), to the methods of that name of that type in that crate (`let s =
/// http::Scheduler::new(..); s.start()?;` reaches `Scheduler::start`). What it reaches,
/// `main` calls (but for a free function of the caller's crate sharing its name with an
/// imported one, read from text).
///
/// # Examples
///
/// ```
/// use shutdown_lint::callgraph::{reachable_by_path, Node};
/// use shutdown_lint::model::{Call, FnNode};
/// let free = |n: &str, k: &str| Call { name: n.into(), method: false, krate: Some(k.into()), with_args: false, ty: None };
/// let method = Call { name: "run".into(), method: true, krate: None, with_args: false, ty: None };
/// let main = FnNode { item: "main".into(), method: false, calls: vec![free("start", "lib"), method] };
/// let start = FnNode { item: "process::start".into(), method: false, calls: vec![free("serve", "crate")] };
/// let serve = FnNode { item: "process::serve".into(), method: false, calls: vec![] };
/// let run = FnNode { item: "Server::run".into(), method: true, calls: vec![] };
/// let nodes = [
///     Node { file: 0, krate: "app", node: &main },
///     Node { file: 1, krate: "lib", node: &start },
///     Node { file: 1, krate: "lib", node: &serve },
///     Node { file: 1, krate: "lib", node: &run },
/// ];
/// let r = reachable_by_path(&nodes, &[(0, "main")]).unwrap();
/// assert!(r.contains(&(1, "process::serve".to_string())));
/// assert!(!r.contains(&(1, "Server::run".to_string()))); // a method, matched by name only
///
/// // the same call on a receiver of known type (`let s = lib::Server::new(); s.run()`)
/// let typed = Call { ty: Some("Server".into()), krate: Some("lib".into()), ..main.calls[1].clone() };
/// let main = FnNode { calls: vec![typed], ..main.clone() };
/// let nodes = [nodes[0], nodes[1], nodes[2], nodes[3]].map(|n| if n.node.item == "main" { Node { node: &main, ..n } } else { n });
/// let r = reachable_by_path(&nodes, &[(0, "main")]).unwrap();
/// assert!(r.contains(&(1, "Server::run".to_string())));
/// ```
pub fn reachable_by_path(
    nodes: &[Node<'_>],
    roots: &[(usize, &str)],
) -> Option<BTreeSet<(usize, String)>> {
    walk(nodes, roots, true)
}

fn walk(
    nodes: &[Node<'_>],
    roots: &[(usize, &str)],
    by_path: bool,
) -> Option<BTreeSet<(usize, String)>> {
    // name -> nodes, split by kind
    let mut by_name: HashMap<(&str, bool), Vec<usize>> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let name = n.node.item.rsplit("::").next().unwrap_or(&n.node.item);
        by_name.entry((name, n.node.method)).or_default().push(i);
    }
    let mut stack: Vec<usize> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            roots
                .iter()
                .any(|(f, it)| *f == n.file && *it == n.node.item)
        })
        .map(|(i, _)| i)
        .collect();
    if stack.is_empty() {
        return None;
    }
    let mut seen = vec![false; nodes.len()];
    for &i in &stack {
        seen[i] = true;
    }
    // the functions nested in each item path of a file (`outer::inner` under `outer`), every
    // enclosing path of an item: one lookup per reached node, not a pass over all
    let mut nested: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
    for (j, m) in nodes.iter().enumerate() {
        let item = m.node.item.as_str();
        for (k, _) in item.match_indices("::") {
            nested.entry((m.file, &item[..k])).or_default().push(j);
        }
    }
    while let Some(i) = stack.pop() {
        let n = nodes[i];
        // nested functions are reached with their parent (they can only be called from it)
        for &j in nested
            .get(&(n.file, n.node.item.as_str()))
            .into_iter()
            .flatten()
        {
            if !seen[j] {
                seen[j] = true;
                stack.push(j);
            }
        }
        for Call {
            name,
            method,
            krate,
            ty,
            ..
        } in &n.node.calls
        {
            // by path, a method is followed only on a receiver of known type, to that
            // type's methods; by name, every method of that name (its crate unused)
            let ty = match (by_path, *method, ty) {
                (true, true, None) => continue,
                (true, true, Some(t)) => Some(t.as_str()),
                _ => None,
            };
            let krate = if *method && !by_path { &None } else { krate };
            let Some(candidates) = by_name.get(&(name.as_str(), *method)) else {
                continue;
            };
            let owned: Vec<usize>;
            let candidates = match ty {
                Some(t) => {
                    owned = candidates
                        .iter()
                        .copied()
                        .filter(|&j| owner_of(&nodes[j].node.item) == Some(t))
                        .collect();
                    &owned
                }
                None => candidates,
            };
            // `shutdown_runtime::run()` reaches the runtime's `run`, not a `run` of the
            // binary; a crate that defines no such name (a re-export) falls back to all
            let krate = krate
                .as_deref()
                .map(|k| if k == "crate" { n.krate } else { k })
                // by path, a free call that names no crate (a local or same-module
                // function; a call read from the text of a pruned body) is one of the
                // caller's crate
                .or(by_path.then_some(n.krate));
            let in_crate: Vec<usize> = match krate {
                Some(k) => candidates
                    .iter()
                    .copied()
                    .filter(|&j| nodes[j].krate == k)
                    .collect(),
                None => Vec::new(),
            };
            let targets = if in_crate.is_empty() {
                if by_path {
                    continue;
                }
                candidates
            } else {
                &in_crate
            };
            for &j in targets {
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
    }
    Some(
        nodes
            .iter()
            .enumerate()
            .filter(|(i, _)| seen[*i])
            .map(|(_, n)| (n.file, n.node.item.clone()))
            .collect(),
    )
}

/// The type a method's item path names (`Scheduler` for `http::Scheduler::start`).
fn owner_of(item: &str) -> Option<&str> {
    let mut parts = item.rsplit("::");
    parts.next();
    parts.next()
}

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
/// assert_eq!(nodes[0].calls[0].name, "start");
/// assert!(nodes[1].method && nodes[1].calls[0].method);
/// ```
pub fn nodes_from_text(text: &str) -> Option<Vec<FnNode>> {
    let tokens: proc_macro2::TokenStream = text.parse().ok()?;
    let mut out = Vec::new();
    items_in(tokens, &mut Vec::new(), false, &mut out, 0);
    Some(out)
}

fn items_in(
    tokens: proc_macro2::TokenStream,
    path: &mut Vec<String>,
    in_impl: bool,
    out: &mut Vec<FnNode>,
    depth: usize,
) {
    use proc_macro2::{Delimiter, TokenTree};
    if depth > 64 {
        return;
    }
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tts.len() {
        match &tts[i] {
            TokenTree::Ident(id) if id == "fn" => {
                let Some(TokenTree::Ident(name)) = tts.get(i + 1) else {
                    i += 1;
                    continue;
                };
                // the body: the next brace group (a `;` first: no body)
                let mut j = i + 2;
                let mut body = None;
                while j < tts.len() {
                    match &tts[j] {
                        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                            body = Some(g.stream());
                            break;
                        }
                        TokenTree::Punct(p) if p.as_char() == ';' => break,
                        _ => j += 1,
                    }
                }
                path.push(name.to_string());
                let mut node = FnNode {
                    item: path.join("::"),
                    method: in_impl,
                    calls: Vec::new(),
                };
                if let Some(body) = body {
                    calls_in(
                        body.clone(),
                        &mut node.calls,
                        &mut HashMap::new(),
                        depth + 1,
                    );
                    node.calls.sort();
                    node.calls.dedup();
                    out.push(node);
                    // nested fns
                    items_in(body, path, false, out, depth + 1);
                } else {
                    out.push(node);
                }
                path.pop();
                i = j + 1;
            }
            TokenTree::Ident(id) if id == "mod" || id == "impl" || id == "trait" => {
                let kind = id.to_string();
                let mut j = i + 1;
                let mut name = None;
                // `impl<S: Bound + 'a> Trait<X> for Type<S> where ..`: the last name outside
                // angle brackets before the body (or `where`) wins
                let mut angle = 0usize;
                let mut in_where = false;
                while j < tts.len() {
                    match &tts[j] {
                        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
                        TokenTree::Punct(p) if p.as_char() == ';' => break,
                        TokenTree::Punct(p) if p.as_char() == '<' => angle += 1,
                        TokenTree::Punct(p) if p.as_char() == '>' => {
                            let arrow =
                                matches!(&tts[j - 1], TokenTree::Punct(q) if q.as_char() == '-');
                            if !arrow {
                                angle = angle.saturating_sub(1);
                            }
                        }
                        TokenTree::Ident(n) if n == "where" => in_where = true,
                        TokenTree::Ident(n)
                            if angle == 0 && !in_where && n != "for" && n != "unsafe" =>
                        {
                            let lifetime =
                                matches!(&tts[j - 1], TokenTree::Punct(q) if q.as_char() == '\'');
                            if !lifetime {
                                name = Some(n.to_string());
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if let Some(TokenTree::Group(g)) = tts.get(j) {
                    path.push(name.unwrap_or_else(|| kind.clone()));
                    items_in(g.stream(), path, kind != "mod", out, depth + 1);
                    path.pop();
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
}

/// The calls in a body's tokens. `typed`: the body's bindings whose type the text tells
/// (`let s = http::Scheduler::new(..)`, `let s: Scheduler = ..`), by name, so a method
/// called on one (`s.start()`) carries its receiver's type.
fn calls_in(
    tokens: proc_macro2::TokenStream,
    out: &mut Vec<Call>,
    typed: &mut HashMap<String, String>,
    depth: usize,
) {
    use proc_macro2::{Delimiter, TokenTree};
    if depth > 256 {
        return;
    }
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => calls_in(g.stream(), out, typed, depth + 1),
            TokenTree::Ident(id) if id == "let" => {
                if let Some((name, ty)) = let_type(&tts[i + 1..]) {
                    typed.insert(name, ty);
                } else if let Some(TokenTree::Ident(name)) = tts.get(i + 1) {
                    // shadowed by a value of unknown type
                    typed.remove(&name.to_string());
                }
            }
            TokenTree::Ident(id) => {
                let called = matches!(tts.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
                let prev = |k: usize| i.checked_sub(k).and_then(|j| tts.get(j));
                let after_dot = matches!(prev(1), Some(TokenTree::Punct(p)) if p.as_char() == '.');
                let after_path = matches!(prev(1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                let owner_is_type = after_path
                    && matches!(prev(3), Some(TokenTree::Ident(o)) if o == "Self" || o.to_string().starts_with(|c: char| c.is_ascii_uppercase()));
                let name = id.to_string();
                let fn_like = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
                if called || (fn_like && !after_dot && (after_path || is_value_position(&tts, i))) {
                    let with_args = matches!(tts.get(i + 1), Some(TokenTree::Group(g)) if !g.stream().is_empty());
                    // `Type::name(..)`: the type's own function, of the caller's crate;
                    // `s.name(..)` on a binding of known type
                    let ty = match prev(3) {
                        Some(TokenTree::Ident(o)) if owner_is_type && o != "Self" => {
                            Some(o.to_string())
                        }
                        _ => match prev(2) {
                            Some(TokenTree::Ident(r)) if after_dot => {
                                typed.get(&r.to_string()).cloned()
                            }
                            _ => None,
                        },
                    };
                    out.push(Call {
                        name,
                        method: after_dot || owner_is_type,
                        krate: None,
                        with_args,
                        ty,
                    });
                }
            }
            _ => {}
        }
    }
}

/// The type a `let` binds, from the tokens after `let`: a declared type (`s: Scheduler<u8>`,
/// `s: http::Scheduler`) or a type's associated function called as the whole value (`s =
/// http::Scheduler::new(..)`, also followed by `?`, `.await`, `.unwrap()`).
fn let_type(tts: &[proc_macro2::TokenTree]) -> Option<(String, String)> {
    use proc_macro2::{Delimiter, TokenTree};
    let punct =
        |k: usize, c: char| matches!(tts.get(k), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut k = usize::from(matches!(tts.first(), Some(TokenTree::Ident(m)) if m == "mut"));
    let Some(TokenTree::Ident(name)) = tts.get(k) else {
        return None;
    };
    let name = name.to_string();
    k += 1;
    let declared = punct(k, ':') && !punct(k + 1, ':');
    if !declared && !punct(k, '=') {
        return None;
    }
    k += 1;
    // the path: `a::b::Type` (declared) or `a::b::Type::ctor` (assigned), `::`-separated
    let mut segments = Vec::new();
    while punct(k, '&') {
        k += 1;
    }
    loop {
        match tts.get(k) {
            Some(TokenTree::Ident(s)) if s != "mut" => segments.push(s.to_string()),
            _ => break,
        }
        k += 1;
        if punct(k, ':') && punct(k + 1, ':') {
            k += 2;
        } else {
            break;
        }
    }
    let upper = |s: &String| s.starts_with(|c: char| c.is_ascii_uppercase());
    let ty = if declared {
        segments.last().filter(|s| upper(s))?
    } else {
        // `Type::ctor(..)` and nothing after the call but unwrapping
        let called = matches!(tts.get(k), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
        let n = segments.len();
        if !called || n < 2 || !upper(&segments[n - 2]) || upper(&segments[n - 1]) {
            return None;
        }
        let mut j = k + 1;
        loop {
            if punct(j, '?') {
                j += 1;
            } else if punct(j, '.')
                && matches!(tts.get(j + 1), Some(TokenTree::Ident(m)) if m == "await")
            {
                j += 2;
            } else if punct(j, '.')
                && matches!(tts.get(j + 1), Some(TokenTree::Ident(m)) if m == "unwrap" || m == "expect")
            {
                j += 3;
            } else {
                break;
            }
        }
        if !punct(j, ';') {
            return None;
        }
        &segments[n - 2]
    };
    Some((name, ty.clone()))
}

/// A lowercase identifier passed as a value (`.map(install)`, `spawn(run)`): an argument
/// position between `(`/`,` and `,`/`)`. Keywords never are.
fn is_value_position(tts: &[proc_macro2::TokenTree], i: usize) -> bool {
    use proc_macro2::TokenTree;
    let next_ok = match tts.get(i + 1) {
        None => true,
        Some(TokenTree::Punct(p)) => p.as_char() == ',',
        _ => false,
    };
    let prev_ok = match i.checked_sub(1).and_then(|j| tts.get(j)) {
        None => true,
        Some(TokenTree::Punct(p)) => p.as_char() == ',',
        _ => false,
    };
    next_ok && prev_ok
}
