//! Name resolution shared by every rule: what does `spawn`, `task::spawn` or
//! `rt::Handle::current` refer to at this point of this file?
//!
//! Without compiling, the linter sees one file at a time. Inside it, resolution follows
//! Rust's rules closely enough for the paths rules care about:
//!
//! - `use` trees with groups, `self`, aliases (`as`), globs, leading `::`, `extern crate ..
//!   as ..`, and `use` declarations inside functions and blocks;
//! - `crate::`, `self::`, `super::` across the inline modules of the file (a path that
//!   leaves the file becomes `<crate>::...`, the crate named from `Cargo.toml`);
//! - scoping per module (a nested `mod` does not see its parent's names) and per block;
//! - shadowing: a local item (`fn spawn`) beats a glob import; a `let`, parameter or
//!   pattern binding beats everything for a one-segment value path;
//! - two namespaces: a value item (`fn`, `const`, `static`) starts no path of two or more
//!   segments (`fn rocket()` beside `use rocket::launch;`), and beside an import, type or
//!   module of its name it still answers a one-segment value path (`use tokio::runtime;`
//!   and `fn runtime() -> runtime::Runtime`: `runtime::Runtime` is tokio's, `runtime()` the
//!   function);
//! - facade re-exports of the libraries the rules know ([`known`]) and re-exports named in
//!   the configuration (`[reexports]`), applied as prefix rewrites.
//!
//! [`scope::ModuleTree`] holds the file's modules; [`Resolver`] walks with a stack of
//! block scopes and answers [`Resolver::resolve`].

pub mod known;
pub mod scope;

use crate::resolve::scope::{BlockScope, ModId, ModuleTree, Name};
use foldhash::{HashMap, HashSet};
use std::cell::{Cell, RefCell};
use std::sync::Arc;

/// A resolved path: segments from a crate root, e.g. `["tokio", "spawn"]`.
pub type Canon = Vec<String>;

/// What a path turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A path from a crate root (external crate, or this crate as `<crate>::..`).
    Path(Canon),
    /// A local `let`/parameter binding (one-segment value paths only).
    Binding(String),
    /// Could not tell (e.g. `Self::..`, generic parameters).
    Unknown,
}

/// Prefix rewrites applied after resolution: facade re-exports and `[reexports]` config.
#[derive(Debug, Clone, Default)]
pub struct Aliases {
    rules: Vec<(Canon, Canon)>,
    /// The crate being linted: its own modules are never taken for a re-exported crate.
    own_crate: Option<String>,
}

impl Aliases {
    /// The built-in facade re-exports plus the given `from -> to` prefix rewrites.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::resolve::Aliases;
    /// let a = Aliases::new(&[("my_rt".to_string(), "tokio".to_string())]);
    /// let p = a.canonical(vec!["my_rt".into(), "task".into(), "spawn".into()]);
    /// assert_eq!(p, vec!["tokio".to_string(), "spawn".to_string()]);
    /// ```
    pub fn new(extra: &[(String, String)]) -> Self {
        let mut rules: Vec<(Canon, Canon)> = extra
            .iter()
            .map(|(f, t)| (split_path(f), split_path(t)))
            .filter(|(f, _)| !f.is_empty())
            .collect();
        for (f, t) in known::FACADES {
            rules.push((split_path(f), split_path(t)));
        }
        // longest prefix first
        rules.sort_by_key(|r| std::cmp::Reverse(r.0.len()));
        Aliases {
            rules,
            own_crate: None,
        }
    }

    /// The same, for files of crate `name`: `name::tokio::..` stays a path of the crate
    /// (its own module called `tokio`), not tokio's.
    pub fn for_crate(mut self, name: Option<&str>) -> Self {
        self.own_crate = name.map(str::to_string);
        self
    }

    /// A crate re-exported under a known crate's own name is that crate:
    /// `vendored_common::tokio::spawn` is `tokio::spawn` (issue 10), also from a module of
    /// the re-exporting crate (`alloy::transports::http::reqwest::Client` is
    /// `reqwest::Client`; up to [`KNOWN_NAME_DEPTH`] modules deep). Configured
    /// `[reexports]` entries are applied first and so win.
    fn known_name(&self, path: &[String]) -> Option<Canon> {
        let first = path.first()?.as_str();
        let not_a_crate = matches!(first, "crate" | "self" | "super" | "std" | "core" | "alloc");
        if not_a_crate || known::is_known_crate(first) || self.own_crate.as_deref() == Some(first) {
            return None;
        }
        // modules only (`a::b::tokio`, not a type's associated item `A::tokio`)
        let at = path
            .iter()
            .enumerate()
            .skip(1)
            .take(KNOWN_NAME_DEPTH)
            .take_while(|(_, s)| !s.starts_with(|c: char| c.is_ascii_uppercase()))
            .find(|(_, s)| known::is_known_crate(s))
            .map(|(i, _)| i)?;
        Some(path[at..].to_vec())
    }

    /// Rewrites `path` until no rule applies (bounded, so cyclic config cannot loop).
    pub fn canonical(&self, mut path: Canon) -> Canon {
        for _ in 0..8 {
            let next = match self
                .rules
                .iter()
                .find(|(f, _)| path.len() >= f.len() && path[..f.len()] == f[..])
            {
                Some((from, to)) => {
                    let mut next = to.clone();
                    next.extend_from_slice(&path[from.len()..]);
                    next
                }
                None => match self.known_name(&path) {
                    Some(next) => next,
                    None => break,
                },
            };
            if next == path {
                break;
            }
            path = next;
        }
        path
    }
}

/// How many modules deep inside a crate [`Aliases`] looks for a known crate re-exported
/// under its own name (`alloy::transports::http::reqwest`: 3).
const KNOWN_NAME_DEPTH: usize = 4;

/// Splits `a::b::c` (a leading `::` is dropped) into segments.
///
/// # Examples
/// ```
/// assert_eq!(shutdown_lint::resolve::split_path("::tokio::spawn"), vec!["tokio", "spawn"]);
/// ```
pub fn split_path(s: &str) -> Canon {
    s.split("::")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect()
}

/// Resolves paths at the walker's current position.
#[derive(Debug)]
pub struct Resolver {
    tree: Arc<ModuleTree>,
    aliases: Arc<Aliases>,
    /// Current module.
    module: ModId,
    /// Lexical block scopes, innermost last; a `None` entry is an item boundary (a nested
    /// `fn` cannot see the outer function's bindings or block items).
    blocks: Vec<Option<BlockScope>>,
    /// Let/parameter bindings, innermost last, with the length of `blocks` they belong to.
    bindings: Vec<(String, usize)>,
    /// Interesting paths: a glob import is taken to provide `name` only when `glob::name`
    /// is one of these (we cannot see inside external modules).
    interesting: Arc<HashSet<Canon>>,
    /// Memoised module-level lookups: what `name` is in module `m` (items, imports, globs).
    /// Module scopes never change during the walk, so each (module, name) is looked up once.
    lookups: RefCell<HashMap<(ModId, String), Option<Found>>>,
    /// Memoised targets of each module's glob imports, by (module, glob index).
    glob_bases: RefCell<HashMap<(ModId, usize), Option<GlobBase>>>,
    /// Lookups under way (a cycle of glob imports ends here instead of looping).
    in_progress: RefCell<HashSet<(ModId, String)>>,
    /// Elementary steps done so far (a name checked in one scope or one glob): the
    /// regression test of linear resolution counts these instead of timing.
    ops: Cell<u64>,
}

/// Where a glob import points: a module of this file, or a path outside it.
#[derive(Debug, Clone)]
enum GlobBase {
    Local(ModId),
    Outside(Canon),
}

impl Resolver {
    /// A resolver positioned at the root module of `tree`.
    pub fn new(
        tree: Arc<ModuleTree>,
        aliases: Arc<Aliases>,
        interesting: Arc<HashSet<Canon>>,
    ) -> Self {
        Resolver {
            tree,
            aliases,
            module: ModId(0),
            blocks: Vec::new(),
            bindings: Vec::new(),
            interesting,
            lookups: RefCell::new(HashMap::default()),
            glob_bases: RefCell::new(HashMap::default()),
            in_progress: RefCell::new(HashSet::default()),
            ops: Cell::new(0),
        }
    }

    /// Elementary resolution steps done so far (one name checked in one scope or through
    /// one glob import). Resolution is linear: each (module, name) pair and each glob
    /// import's target are worked out once and memoised, so a file with `g` globs and `n`
    /// distinct unresolved names costs about `g * n` steps, whatever the nesting.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::resolve::{Aliases, Resolver, scope::ModuleTree};
    /// use std::sync::Arc;
    /// let file: syn::File = syn::parse_str("use a::*; use b::*;").unwrap();
    /// let tree = ModuleTree::build(&file.items, vec!["app".into()]);
    /// let r = Resolver::new(Arc::new(tree), Arc::new(Aliases::default()), Default::default());
    /// let _ = r.resolve(false, &["foo".to_string()], true);
    /// let once = r.ops();
    /// let _ = r.resolve(false, &["foo".to_string()], true);
    /// assert!(r.ops() - once <= 2, "a second lookup of the same name is memoised");
    /// ```
    pub fn ops(&self) -> u64 {
        self.ops.get()
    }

    fn tick(&self) {
        self.ops.set(self.ops.get() + 1);
    }

    /// The module tree.
    pub fn tree(&self) -> &ModuleTree {
        &self.tree
    }

    /// Current module id.
    pub fn module(&self) -> ModId {
        self.module
    }

    /// Enters inline module `id` (an item boundary); returns what to pass to
    /// [`Resolver::leave_module`].
    pub fn enter_module(
        &mut self,
        id: ModId,
    ) -> (ModId, Vec<Option<BlockScope>>, Vec<(String, usize)>) {
        let saved = (
            self.module,
            std::mem::take(&mut self.blocks),
            std::mem::take(&mut self.bindings),
        );
        self.module = id;
        saved
    }

    /// Restores the state saved by [`Resolver::enter_module`].
    pub fn leave_module(&mut self, saved: (ModId, Vec<Option<BlockScope>>, Vec<(String, usize)>)) {
        self.module = saved.0;
        self.blocks = saved.1;
        self.bindings = saved.2;
    }

    /// Pushes a block scope (its items and `use`s, collected beforehand).
    pub fn push_block(&mut self, scope: BlockScope) {
        self.blocks.push(Some(scope));
    }

    /// Pushes an item boundary (entering a nested `fn`, `impl` or `trait`).
    pub fn push_item_boundary(&mut self) {
        self.blocks.push(None);
    }

    /// Pops the innermost block scope or boundary and the bindings made in it.
    pub fn pop_block(&mut self) {
        let depth = self.blocks.len();
        while self.bindings.last().is_some_and(|(_, d)| *d >= depth) {
            self.bindings.pop();
        }
        self.blocks.pop();
    }

    /// Records a binding (let, parameter, pattern) in the innermost scope.
    pub fn bind(&mut self, name: String) {
        self.bindings.push((name, self.blocks.len()));
    }

    /// Whether `name` is a visible binding (not hidden by an item boundary).
    pub fn is_binding(&self, name: &str) -> bool {
        let boundary = self
            .blocks
            .iter()
            .rposition(Option::is_none)
            .map_or(0, |i| i + 1);
        self.bindings
            .iter()
            .rev()
            .take_while(|(_, d)| *d >= boundary)
            .any(|(n, _)| n == name)
    }

    /// Resolves a path written at the current position.
    ///
    /// `value` says the path is in value position (a call or expression), where a
    /// one-segment path can name a binding.
    pub fn resolve(&self, leading_colon: bool, segs: &[String], value: bool) -> Resolution {
        if segs.is_empty() {
            return Resolution::Unknown;
        }
        if leading_colon {
            return Resolution::Path(self.aliases.canonical(segs.to_vec()));
        }
        if value && segs.len() == 1 && self.is_binding(&segs[0]) {
            return Resolution::Binding(segs[0].clone());
        }
        // `runtime()` beside `use tokio::runtime;`: the value item of that name
        if value && segs.len() == 1 && self.shadowed_value(&segs[0]) {
            let mut p = self.tree.module_path(self.module);
            p.push(segs[0].clone());
            return Resolution::Path(self.aliases.canonical(p));
        }
        match self.lookup_lexical(&segs[0]) {
            // `rocket::launch` beside a `fn rocket()`: a value names no path's start
            Some(Found::Item(_)) if segs.len() > 1 && self.declared_as_value(&segs[0]) => {
                Resolution::Path(self.aliases.canonical(segs.to_vec()))
            }
            Some(found) => self.finish(found, &segs[1..], 0),
            None => match segs[0].as_str() {
                "Self" => Resolution::Unknown,
                _ => self.resolve_in_module(self.module, segs, 0),
            },
        }
    }

    /// Resolves a path that is relative to module `m` (the path of a `use` declared in `m`,
    /// or a path written in `m`).
    fn resolve_in_module(&self, m: ModId, segs: &[String], depth: usize) -> Resolution {
        if depth > 16 || segs.is_empty() {
            return Resolution::Unknown;
        }
        let tree = &self.tree;
        match segs[0].as_str() {
            "::" => return Resolution::Path(self.aliases.canonical(segs[1..].to_vec())),
            "crate" => return self.walk_from(tree.crate_root(), &segs[1..], depth),
            "self" => return self.walk_from(ModRef::Local(m), &segs[1..], depth),
            "super" => {
                let mut cur = ModRef::Local(m);
                let mut rest = segs;
                while rest.first().is_some_and(|s| s == "super") {
                    cur = tree.parent(cur);
                    rest = &rest[1..];
                }
                return self.walk_from(cur, rest, depth);
            }
            "Self" => return Resolution::Unknown,
            _ => {}
        }
        if let Some(found) = self.lookup_in(m, &segs[0], depth)
            // `use rocket::launch;` beside a `fn rocket()` in the same module: the crate
            && !(matches!(found, Found::Item(_))
                && segs.len() > 1
                && self.tree.get(m).names.get(&segs[0]) == Some(&Name::Value))
        {
            // `use tokio;` names the crate itself: do not look it up again
            let is_self_import = matches!(&found, Found::Import { path, .. } if path.len() == 1 && path[0] == segs[0]);
            if !is_self_import {
                return self.finish(found, &segs[1..], depth);
            }
        }
        // an external crate, the prelude, or something unknown: take it literally
        Resolution::Path(self.aliases.canonical(segs.to_vec()))
    }

    /// Walks `segs` starting at module `start` (used for `crate::`, `self::`, `super::`).
    fn walk_from(&self, start: ModRef, segs: &[String], depth: usize) -> Resolution {
        match start {
            ModRef::Local(m) => {
                if segs.is_empty() {
                    return Resolution::Path(self.tree.module_path(m));
                }
                match self.lookup_in(m, &segs[0], depth) {
                    Some(found) => self.finish(found, &segs[1..], depth),
                    None => {
                        let mut p = self.tree.module_path(m);
                        p.extend_from_slice(segs);
                        Resolution::Path(self.aliases.canonical(p))
                    }
                }
            }
            ModRef::Outside(mut p) => {
                // the path leaves this file: maybe it comes back into it
                let file = self.tree.file_module_path();
                let mut full = p.clone();
                full.extend_from_slice(segs);
                if full.len() > file.len() && full[..file.len()] == file[..] && !file.is_empty() {
                    return self.walk_from(ModRef::Local(ModId(0)), &full[file.len()..], depth + 1);
                }
                p.extend_from_slice(segs);
                Resolution::Path(self.aliases.canonical(p))
            }
        }
    }

    fn finish(&self, found: Found, rest: &[String], depth: usize) -> Resolution {
        match found {
            Found::Module(m) => self.walk_from(ModRef::Local(m), rest, depth + 1),
            Found::Item(mut p) => {
                p.extend_from_slice(rest);
                Resolution::Path(self.aliases.canonical(p))
            }
            Found::BlockImport(path) => {
                let resolved = match path.split_first() {
                    // `use tokio;` in a block names the crate, not itself; `use
                    // signal::unix::{signal, SignalKind};` after the module's `use
                    // tokio::signal;`: the path's first name is not the one the group
                    // declares (an import whose path starts with that same name)
                    Some((first, tail)) if depth <= 16 => match self.lookup_lexical(first) {
                        Some(Found::BlockImport(p)) if p == path || p.first() == Some(first) => {
                            self.resolve_in_module(self.module, &path, depth + 1)
                        }
                        Some(found) => self.finish(found, tail, depth + 1),
                        None => self.resolve_in_module(self.module, &path, depth + 1),
                    },
                    _ => Resolution::Unknown,
                };
                self.past_import(resolved, rest, depth)
            }
            Found::Import { from, path } => {
                let resolved = self.resolve_in_module(from, &path, depth + 1);
                self.past_import(resolved, rest, depth)
            }
            Found::Resolved(mut p) => {
                p.extend_from_slice(rest);
                Resolution::Path(self.aliases.canonical(p))
            }
        }
    }

    /// What an import resolved to, followed by the `rest` of the path: into a module of
    /// this file when the import names one, else appended.
    fn past_import(&self, resolved: Resolution, rest: &[String], depth: usize) -> Resolution {
        match resolved {
            Resolution::Path(mut p) => {
                if !rest.is_empty()
                    && let Some(m) = self.tree.local_module(&p)
                {
                    return self.walk_from(ModRef::Local(m), rest, depth + 1);
                }
                p.extend_from_slice(rest);
                Resolution::Path(self.aliases.canonical(p))
            }
            other => other,
        }
    }

    /// The names and shadowed value items of the innermost scope that declares `name`: a
    /// block (innermost first, stopping at an item boundary), else the current module.
    fn declaring_scope(&self, name: &str) -> (&HashMap<String, Name>, &[String]) {
        for block in self.blocks.iter().rev() {
            let Some(block) = block else { continue };
            if block.names.contains_key(name) {
                return (&block.names, &block.values);
            }
        }
        let m = self.tree.get(self.module);
        (&m.names, &m.values)
    }

    /// Whether the innermost scope that declares `name` declares it only as a value
    /// (`fn`, `const`, `static`).
    fn declared_as_value(&self, name: &str) -> bool {
        self.declaring_scope(name).0.get(name) == Some(&Name::Value)
    }

    /// Whether the innermost scope that declares `name` also declares a value item of
    /// that name beside an import, type or module ([`scope::Module::values`]).
    fn shadowed_value(&self, name: &str) -> bool {
        self.declaring_scope(name).1.iter().any(|v| v == name)
    }

    /// Looks `name` up through the block scopes (innermost first, stopping at an item
    /// boundary), then the current module.
    fn lookup_lexical(&self, name: &str) -> Option<Found> {
        for block in self.blocks.iter().rev() {
            let Some(block) = block else { continue };
            if let Some(n) = block.names.get(name) {
                return Some(self.found_from_name(self.module, n));
            }
        }
        if let Some(found) = self.lookup_in(self.module, name, 0) {
            return Some(found);
        }
        // globs declared in blocks
        for block in self.blocks.iter().rev().flatten() {
            for g in &block.globs {
                if let Some(f) = self.glob_provides(self.module, g, name, 0) {
                    return Some(f);
                }
            }
        }
        None
    }

    /// A name declared in a block scope of module `m`: a `use` there is relative to the
    /// block's scope, which sees the block's other imports (`use signal::unix; use
    /// unix::SignalKind;` inside a function, tuwunel's signal handler).
    fn found_from_name(&self, m: ModId, n: &Name) -> Found {
        match n {
            Name::Module(id) => Found::Module(*id),
            Name::Item | Name::Value => Found::Item(Vec::new()),
            Name::Import(path) => Found::BlockImport(path.clone()),
        }
        .with_item_path(&self.tree, m)
    }

    /// `name` declared in module `m`: an item, an inline module, an import, or provided by a
    /// glob import of `m`. Memoised per (module, name).
    fn lookup_in(&self, m: ModId, name: &str, depth: usize) -> Option<Found> {
        self.tick();
        let module = self.tree.get(m);
        if let Some(n) = module.names.get(name) {
            let f = match n {
                Name::Item | Name::Value => {
                    let mut p = self.tree.module_path(m);
                    p.push(name.to_string());
                    Found::Item(p)
                }
                Name::Module(id) => Found::Module(*id),
                Name::Import(path) => Found::Import {
                    from: m,
                    path: path.clone(),
                },
            };
            return Some(f);
        }
        if module.globs.is_empty() || depth > 64 {
            return None;
        }
        let key = (m, name.to_string());
        if let Some(f) = self.lookups.borrow().get(&key) {
            return f.clone();
        }
        if !self.in_progress.borrow_mut().insert(key.clone()) {
            return None; // a cycle of glob imports: nothing more is found this way
        }
        let mut found = None;
        for i in 0..module.globs.len() {
            self.tick();
            let f = match self.glob_base(m, i, depth) {
                Some(GlobBase::Local(target)) if target != m => {
                    self.lookup_in(target, name, depth + 1)
                }
                Some(GlobBase::Local(_)) | None => None,
                Some(GlobBase::Outside(base)) => self.outside_glob_provides(base, name),
            };
            if f.is_some() {
                found = f;
                break;
            }
        }
        self.in_progress.borrow_mut().remove(&key);
        self.lookups.borrow_mut().insert(key, found.clone());
        found
    }

    /// Where glob import number `i` of module `m` points; memoised.
    fn glob_base(&self, m: ModId, i: usize, depth: usize) -> Option<GlobBase> {
        if let Some(b) = self.glob_bases.borrow().get(&(m, i)) {
            return b.clone();
        }
        let glob = self.tree.get(m).globs[i].clone();
        let base = self.glob_target(m, &glob, depth);
        self.glob_bases.borrow_mut().insert((m, i), base.clone());
        base
    }

    fn glob_target(&self, m: ModId, glob: &[String], depth: usize) -> Option<GlobBase> {
        match self.resolve_in_module(m, glob, depth + 1) {
            Resolution::Path(base) => Some(match self.tree.local_module(&base) {
                Some(target) => GlobBase::Local(target),
                None => GlobBase::Outside(base),
            }),
            _ => None,
        }
    }

    /// A glob of a module outside this file provides `name` when `base::name` is a path the
    /// rules know (we cannot see inside other files here).
    fn outside_glob_provides(&self, mut base: Canon, name: &str) -> Option<Found> {
        base.push(name.to_string());
        let cand = self.aliases.canonical(base);
        self.interesting
            .contains(&cand)
            .then_some(Found::Resolved(cand))
    }

    /// Whether glob import `glob::*` declared in a block of module `m` provides `name`.
    fn glob_provides(&self, m: ModId, glob: &[String], name: &str, depth: usize) -> Option<Found> {
        self.tick();
        match self.glob_target(m, glob, depth)? {
            GlobBase::Local(target) if target != m => self.lookup_in(target, name, depth + 1),
            GlobBase::Local(_) => None,
            GlobBase::Outside(base) => self.outside_glob_provides(base, name),
        }
    }
}

/// A module reference: one of this file, or a path outside it.
#[derive(Debug, Clone)]
pub(crate) enum ModRef {
    Local(ModId),
    Outside(Canon),
}

#[derive(Debug, Clone)]
enum Found {
    Module(ModId),
    Item(Canon),
    Import {
        from: ModId,
        path: Canon,
    },
    /// A `use` of a block scope: its path is looked up through the block scopes first.
    BlockImport(Canon),
    Resolved(Canon),
}

impl Found {
    fn with_item_path(self, _tree: &ModuleTree, _m: ModId) -> Found {
        match self {
            // a block-local item: it shadows, and is nothing the rules know
            Found::Item(_) => Found::Item(vec!["{local}".to_string()]),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests;
