//! Call chains from `main`, by name: which functions of a binary (its files, its library,
//! its path dependencies' libraries) its `main` may reach. `sigterm-missing` credits only the
//! signal handlers installed by reached functions, and the audit reads what each binary
//! handles from the same walk.
//!
//! Calls are matched by name, not by type: a method call `x.name()` or `Type::name()` reaches
//! every method called `name`, a call `name()` / `module::name()` every free function called
//! `name`. That over-approximates (a binary is credited a little too often, never too
//! little), which is what a rule that fails a build needs. A method of a server chain the
//! linter knows (`Server::builder().add_service(s).serve(addr)`) is not recorded as a call:
//! it is its library's own, an inherent method no method of the workspace can be. The servers a binary starts in
//! its libraries are read from the other walk, [`reachable_by_path`], which follows only
//! free functions called through paths that name their crate: a binary is not made a
//! daemon by a library server it only shares a method name with.

mod from_text;
mod mentions;
mod tokens;

pub use from_text::{nodes_from_text, nodes_from_text_in};
pub use mentions::{TypeMentions, type_mentions, types_mentions};

use crate::model::{CallRef, FnNode};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::collections::BTreeSet;

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
/// use shutdown_lint::model::{Call, Calls, FnNode};
/// let call = |n: &str| Call { name: n.into(), method: false, krate: None, with_args: false, ty: None };
/// let main = FnNode { item: "main".into(), method: false, calls: Calls::new(vec![call("serve")]), ..FnNode::default() };
/// let serve = FnNode { item: "net::serve".into(), method: false, ..FnNode::default() };
/// let unused = FnNode { item: "signals".into(), method: false, ..FnNode::default() };
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
    walk(nodes, roots, false).map(|seen| items_of(nodes, &seen))
}

/// [`reachable`] through free functions only, each in the crate its path names: a call
/// through a resolved path (`ballista_scheduler::start_server()`, an imported
/// `start_server()`, `crate::serve()`) reaches the free functions of that name in that crate,
/// a call whose path names no crate (a same-module `serve()`, or one read from the text of
/// a pruned body) those of the caller's crate; never a method, never another crate's
/// function of the same name. A method is followed only when its receiver's type is known
/// ([`crate::model::Call::ty`]: `self`, a binding of a declared type, a value a type's constructor
/// returned), to the methods of that name of that type in that crate (`let s =
/// http::Scheduler::new(..); s.start()?;` reaches `Scheduler::start`). What it reaches,
/// `main` calls (but for a free function of the caller's crate sharing its name with an
/// imported one, read from text).
///
/// # Examples
///
/// ```
/// use shutdown_lint::callgraph::{reachable_by_path, Node};
/// use shutdown_lint::model::{Call, Calls, FnNode};
/// let free = |n: &str, k: &str| Call { name: n.into(), method: false, krate: Some(k.into()), with_args: false, ty: None };
/// let method = Call { name: "run".into(), method: true, krate: None, with_args: false, ty: None };
/// let main = FnNode { item: "main".into(), method: false, calls: Calls::new(vec![free("start", "lib"), method.clone()]), ..FnNode::default() };
/// let start = FnNode { item: "process::start".into(), method: false, calls: Calls::new(vec![free("serve", "crate")]), ..FnNode::default() };
/// let serve = FnNode { item: "process::serve".into(), method: false, ..FnNode::default() };
/// let run = FnNode { item: "Server::run".into(), method: true, ..FnNode::default() };
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
/// let typed = Call { ty: Some("Server".into()), krate: Some("lib".into()), ..method };
/// let main = FnNode { calls: Calls::new(vec![typed]), ..main.clone() };
/// let nodes = [nodes[0], nodes[1], nodes[2], nodes[3]].map(|n| if n.node.item == "main" { Node { node: &main, ..n } } else { n });
/// let r = reachable_by_path(&nodes, &[(0, "main")]).unwrap();
/// assert!(r.contains(&(1, "Server::run".to_string())));
/// ```
pub fn reachable_by_path(
    nodes: &[Node<'_>],
    roots: &[(usize, &str)],
) -> Option<BTreeSet<(usize, String)>> {
    walk(nodes, roots, true).map(|seen| items_of(nodes, &seen))
}

/// [`reachable`] (or, `by_path`, [`reachable_by_path`]) as one flag per node: whether
/// `nodes[i]` is reached. What a caller that goes on to look at the reached nodes wants
/// (no item path copied).
pub(crate) fn reached_nodes(
    nodes: &[Node<'_>],
    roots: &[(usize, &str)],
    by_path: bool,
) -> Option<Vec<bool>> {
    walk(nodes, roots, by_path)
}

/// The `(file, item)` pairs of the nodes flagged in `seen` (by [`reached_nodes`]).
pub(crate) fn flagged_items<'n>(
    nodes: &'n [Node<'_>],
    seen: &'n [bool],
) -> impl Iterator<Item = (usize, &'n str)> {
    nodes
        .iter()
        .zip(seen)
        .filter(|(_, s)| **s)
        .map(|(n, _)| (n.file, n.node.item.as_str()))
}

fn items_of(nodes: &[Node<'_>], seen: &[bool]) -> BTreeSet<(usize, String)> {
    flagged_items(nodes, seen)
        .map(|(f, item)| (f, item.to_string()))
        .collect()
}

fn walk(nodes: &[Node<'_>], roots: &[(usize, &str)], by_path: bool) -> Option<Vec<bool>> {
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
    // name -> nodes, split by kind, each group numbered
    let mut by_name: HashMap<(&str, bool), (usize, Vec<usize>)> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let name = last_segment(&n.node.item);
        let groups = by_name.len();
        by_name
            .entry((name, n.node.method))
            .or_insert_with(|| (groups, Vec::new()))
            .1
            .push(i);
    }
    // the targets of a call depend on its name, kind, crate and receiver type alone: one
    // already followed from another node reaches nothing new (`Type::new()` by name:
    // every `new` of the workspace, once, not once per caller). Followed unfiltered: by
    // group; filtered by crate or type: by those too
    let mut followed_all = vec![false; by_name.len()];
    let mut followed: HashSet<(usize, Option<&str>, Option<&str>)> = HashSet::new();
    let mut seen = vec![false; nodes.len()];
    for &i in &stack {
        seen[i] = true;
    }
    // the functions nested in each function of a file (`outer::inner` under `outer`, at any
    // depth): one lookup per reached node, not a pass over all. Only an enclosing path that
    // is a function's is kept (most are a type's or a module's: `Server` of `Server::run`)
    let items: HashSet<(usize, &str)> = nodes
        .iter()
        .map(|m| (m.file, m.node.item.as_str()))
        .collect();
    let mut nested: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
    for (j, m) in nodes.iter().enumerate() {
        let item = m.node.item.as_str();
        let mut end = item.len();
        while let Some(k) = enclosing_end(&item[..end]) {
            if items.contains(&(m.file, &item[..k])) {
                nested.entry((m.file, &item[..k])).or_default().push(j);
            }
            end = k;
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
        for CallRef {
            name,
            method,
            krate,
            ty,
            ..
        } in &n.node.calls
        {
            // by path, a method is followed only on a receiver of known type, to that
            // type's methods; by name, every method of that name (its crate unused)
            let ty = match (by_path, method, ty) {
                (true, true, None) => continue,
                (true, true, Some(t)) => Some(t),
                _ => None,
            };
            let krate = if method && !by_path { None } else { krate };
            // `shutdown_runtime::run()` reaches the runtime's `run`, not a `run` of the
            // binary; a crate that defines no such name (a re-export) falls back to all
            let krate = krate
                .map(|k| if k == "crate" { n.krate } else { k })
                // by path, a free call that names no crate (a local or same-module
                // function; a call read from the text of a pruned body) is one of the
                // caller's crate
                .or(by_path.then_some(n.krate));
            let Some((group, candidates)) = by_name.get(&(name, method)) else {
                continue;
            };
            let first = if krate.is_none() && ty.is_none() {
                !std::mem::replace(&mut followed_all[*group], true)
            } else {
                followed.insert((*group, krate, ty))
            };
            if !first {
                continue;
            }
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
    Some(seen)
}

/// The last segment of an item path (`start` of `http::Scheduler::start`).
pub(crate) fn last_segment(item: &str) -> &str {
    enclosing_end(item).map_or(item, |k| &item[k + 2..])
}

/// Where the enclosing path of an item path ends (the index of its last `::`), if it has
/// one.
fn enclosing_end(item: &str) -> Option<usize> {
    let b = item.as_bytes();
    let mut end = b.len();
    while let Some(k) = memchr::memrchr(b':', &b[..end]) {
        if k > 0 && b[k - 1] == b':' {
            return Some(k - 1);
        }
        end = k;
    }
    None
}

/// The type a method's item path names (`Scheduler` for `http::Scheduler::start`).
pub(crate) fn owner_of(item: &str) -> Option<&str> {
    let mut parts = item.rsplit("::");
    parts.next();
    parts.next()
}
