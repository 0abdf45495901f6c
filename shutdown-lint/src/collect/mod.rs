//! The one walk over a file's syntax tree that builds its [`FileModel`]: scopes are pushed
//! and popped as the walk enters modules, functions and blocks, so every path is resolved
//! where it is written ([`Resolver`]); bindings remember the chain they were bound to;
//! bodies of common macros are parsed ([`crate::macros`]); test code is skipped unless
//! asked for.
//!
//! The walk is split by concern: [`state`] (the collector's scopes and bindings), [`eval`]
//! (argument values: durations, numbers, consts), [`chain`] (calls and the methods applied
//! to them), [`expr`] (expressions and the values they yield), [`items`] (items, functions,
//! statements, macro bodies), [`attrs`] (test and platform attributes, patterns) and
//! [`budgets`] (shutdown budgets written in code, for the audit). A file that builds an
//! HTTP client is read once more by [`flow`] (where the client goes, by name).

mod attrs;
mod budgets;
mod chain;
mod closure;
mod deferred;
pub(crate) use attrs::is_windows_cfg_text;
pub(crate) use deferred::named_type;
mod eval;
mod expr;
mod fallback;
pub mod flow;
pub mod idle_task;
mod items;
pub mod signal_listener;
mod state;

use crate::model::{Chain, FileModel};
use crate::resolve::scope::ModuleTree;
use crate::resolve::{Aliases, Canon};
use crate::source::LineIndex;
use state::Collector;
use std::collections::HashSet;
use std::sync::Arc;
use syn::visit::{self, Visit};

/// Deepest expression nesting the walk descends into; deeper parts are counted in
/// [`FileModel::too_deep`] and skipped.
pub const MAX_EXPR_DEPTH: usize = 1500;

/// Inputs of the walk that do not come from the file.
#[derive(Debug, Clone)]
pub struct CollectOptions {
    /// Module path of the file from its crate root, e.g. `["app", "net"]`.
    pub file_module: Canon,
    /// Analyse test code too.
    pub include_tests: bool,
    /// Prefix rewrites (facades and `[reexports]`).
    pub aliases: Arc<Aliases>,
    /// Paths worth recording and following through glob imports.
    pub interesting: Arc<foldhash::HashSet<Canon>>,
    /// The byte scan's words: a macro body containing none of them is not parsed.
    pub needles: Arc<Vec<memchr::memmem::Finder<'static>>>,
    /// Timeouts are judged against a drain budget
    /// ([`crate::rules::http_timeout_over_budget::values_timeouts`]): an argument the file
    /// cannot value is looked for in the rest of the file and the workspace. Without, it is
    /// left unvalued.
    pub value_timeouts: bool,
    /// Names of functions of the workspace, not named as a spawn, that return a thread's
    /// `JoinHandle` by value (vsmtp's `init_runtime(..)`, neon's `launch_monitor(..)`): a
    /// statement dropping what one returns is recorded, as for a function named as a spawn
    /// (the engine's second look at the files calling them; empty on the first).
    pub thread_fns: Arc<foldhash::HashSet<String>>,
}

/// Builds the model of a parsed file.
pub fn collect(file: &syn::File, index: &LineIndex<'_>, opts: &CollectOptions) -> FileModel {
    let (c, open) = walk(file, index, opts);
    if open { read_as_written(c) } else { c.model }
}

/// The declarations of a parsed file (struct fields, the return types of functions and
/// methods, type aliases: [`crate::model::Decls`]), for the workspace model's second reads:
/// the walk alone. The reads of the file as written that [`collect`] ends with (where its
/// clients go, the values of timeouts passed on) record no declaration — on wasmCloud the
/// client flow's reads were most of the time its declarations took.
pub(crate) fn declarations(
    file: &syn::File,
    index: &LineIndex<'_>,
    opts: &CollectOptions,
) -> crate::model::Decls {
    walk(file, index, opts).0.model.decls
}

/// [`collect`] of a tree it owns: the tree is dropped (or, when too deep to drop, leaked)
/// before the file is parsed again as written, so the two trees of a large file are never
/// alive together.
pub(crate) fn collect_owned(
    file: syn::File,
    index: &LineIndex<'_>,
    opts: &CollectOptions,
) -> FileModel {
    let (c, open) = walk(&file, index, opts);
    if c.model.too_deep > 0 {
        // dropping a tree this deep recurses as deep: leak it (pathological input only)
        std::mem::forget(file);
    } else {
        drop(file);
    }
    if open { read_as_written(c) } else { c.model }
}

/// The walk of a file's tree, and whether the file is still to be read as written
/// ([`read_as_written`]; not for a `#![cfg(test)]` file, whose model is empty).
fn walk<'a, 'i>(
    file: &syn::File,
    index: &'a LineIndex<'i>,
    opts: &'a CollectOptions,
) -> (Collector<'a, 'i>, bool) {
    let tree = ModuleTree::build(&file.items, opts.file_module.clone());
    let mut finder = ConstFinder::default();
    for item in &file.items {
        finder.visit_item(item);
    }
    finder.read_blanked_fallbacks(index);
    let mut c = Collector::new(tree, finder, index, opts);
    c.model.has_main = file.items.iter().any(is_main);
    if c.skip_test(&file.attrs) {
        // `#![cfg(test)]`: the whole file is test code
        return (c, false);
    }
    c.mark_test(&file.attrs);
    for item in &file.items {
        c.visit_item(item);
    }
    c.finish_signal_waiters();
    c.model.resolve_ops = c.resolver.ops();
    budgets::finish(&mut c.model);
    (c, true)
}

/// The end of [`collect`]: the file read as written (the pruner's blanked bodies included),
/// once, for what needs it: the values of timeouts passed through parameters and fields,
/// where clients go.
fn read_as_written(mut c: Collector<'_, '_>) -> FileModel {
    let text = c.index.text(0..usize::MAX);
    let deferred = c.deferred_worth_reading(text);
    // (a client's constructor passed as a function too: `LazyLock::new(Client::new)`)
    let ctor_ref =
        |r: &crate::model::PathRef| crate::resolve::known::http_ctor(&r.path.join("::")).is_some();
    let flow = flow::may_clear(text, !c.model.mod_decls.is_empty())
        && (c
            .model
            .chains
            .iter()
            .any(|cu| builds_http_client(&cu.chain))
            || c.model.refs.iter().any(ctor_ref));
    // test code is read only when it can matter: what a test does with a name counts
    // only for the test's own locals (so only when a test builds a client, or when tests
    // are linted and a test may write a timeout's value)
    let tests_matter = c.opts.include_tests
        && (deferred
            || c.model
                .chains
                .iter()
                .any(|cu| cu.ctx.test_code && builds_http_client(&cu.chain)));
    let without_tests = ((deferred || flow) && !tests_matter)
        .then(|| crate::prune::without_test_code(text))
        .flatten();
    let written_text = without_tests.as_ref().map_or(text, |p| p.text.as_str());
    if flow && !deferred {
        // only the bodies that may hold what the file's clients' verdicts read
        let roots: Vec<usize> = c
            .model
            .chains
            .iter()
            .filter(|cu| {
                cu.chain.pending.is_none()
                    && crate::resolve::known::http_ctor(&cu.chain.root_str()).is_some()
            })
            .map(|cu| cu.chain.root_region.offset)
            .chain(
                c.model
                    .refs
                    .iter()
                    .filter(|r| ctor_ref(r))
                    .map(|r| r.region.offset),
            )
            .collect();
        let blank = without_tests.as_ref().map_or(&[][..], |p| &p.blanked[..]);
        c.model.client_flow = read_client_flow(written_text, blank, &roots);
    } else if (deferred || flow)
        && let Ok(written) = syn::parse_file(written_text)
    {
        if deferred {
            c.finish_deferred(&written);
        }
        if flow {
            c.model.client_flow = Some(flow::summarize_file(&written));
        }
    }
    c.open_deferred();
    c.model
}

/// How many times [`read_client_flow`] reads a shrunk text before it reads the whole one.
const FLOW_ROUNDS: usize = 4;

/// The client flow of `text` (the file as written) for the chains whose root paths start
/// at `roots`: read from the function bodies that may hold an occurrence those clients'
/// verdicts read, the others dropped before the parse ([`crate::prune::FnBodies::unnamed`];
/// which names count, and where, is known from the flow read, so the read is repeated until
/// the names it reads are all among those kept, [`flow::ClientFlow::names_read`]), and from
/// the whole text when most of it stays, it does not parse, or the names keep growing. A
/// flow read that way is [`flow::ClientFlow::partial`]: it answers for those chains only. `None` when
/// `text` does not parse. rustfs's 815 KB `site_replication.rs`, whose handlers make
/// requests on fresh clients, reads a few functions instead of half a megabyte.
///
/// `blank` are braces whose contents `text` already has blanked (test code the flow does
/// not read, [`crate::prune::without_test_code`]), outermost only: no read parses them,
/// and they do not count towards the whole text's length.
pub(crate) fn read_client_flow(
    text: &str,
    blank: &[(usize, usize)],
    roots: &[usize],
) -> Option<flow::ClientFlow> {
    client_flow_counting_parses(text, blank, roots).0
}

/// [`read_client_flow`], and how many times it parsed a text.
fn client_flow_counting_parses(
    text: &str,
    blank: &[(usize, usize)],
    roots: &[usize],
) -> (Option<flow::ClientFlow>, usize) {
    let mut parses = 0;
    // an `include!` in a dropped body would go unseen (it makes every name unknown)
    if memchr::memmem::find(text.as_bytes(), b"include!").is_some() {
        let whole = syn::parse_file(text).ok().map(|f| flow::summarize_file(&f));
        return (whole, 1);
    }
    let bodies = crate::prune::FnBodies::of(text);
    // what every read leaves out: the doc comments and what is blank already
    let left_out = [bodies.doc_comments(), blank].concat();
    // the length of the whole text without them (what compacting removes; the doc
    // comments are outside the blank bodies, whose contents hold no comment any more)
    let whole_len = text.len().saturating_sub(
        left_out
            .iter()
            .map(|&(open, close)| close.saturating_sub(open + 1))
            .sum::<usize>(),
    );
    let mut words = flow::FlowNames::default();
    let mut timeable: Option<std::collections::BTreeSet<String>> = None;
    let mut timeable_fns: Option<std::collections::BTreeSet<String>> = None;
    // the last round's dropped bodies and its flow
    let mut last: Option<(Vec<(usize, usize)>, flow::ClientFlow)> = None;
    for _ in 0..FLOW_ROUNDS {
        let drop = bodies.unnamed(&words, roots);
        // the names the last round read kept no other body: the same text would read
        // the same names, now all among those kept
        if let Some((last_drop, mut flow)) = last.take()
            && last_drop == drop
        {
            flow.partial = true;
            return (Some(flow), parses);
        }
        if drop.is_empty() {
            break;
        }
        let kept = crate::compact::compact(text, &[&drop[..], &left_out[..]].concat());
        if kept.text.len() * 3 > whole_len * 2 {
            break;
        }
        parses += 1;
        let Some(mut flow) = summarize_compacted(&kept) else {
            break;
        };
        // the methods whose every mention is worth reading: those the text may call
        // inside `timeout(d, ..)` (their signatures, and so the set, are the same in
        // every round)
        if !flow.boundable_methods.is_empty() {
            let timeable = timeable.get_or_insert_with(|| {
                let code = crate::lexscan::code_only(text);
                let mut timed: std::collections::BTreeSet<String> = flow
                    .boundable_methods
                    .iter()
                    .filter(|m| flow::may_be_timed_call(&code, m))
                    .cloned()
                    .collect();
                // and those only such a method calls, through as many calls as it takes
                if !timed.is_empty() {
                    bodies.called_from(&mut timed, &flow.boundable_methods);
                }
                timed
            });
            flow.timeable_methods = Some(timeable.clone());
        }
        if !flow.boundable_fns.is_empty() {
            let timeable = timeable_fns.get_or_insert_with(|| {
                let code = crate::lexscan::code_only(text);
                flow.boundable_fns
                    .iter()
                    .filter(|f| flow::may_be_timed_fn_call(&code, f))
                    .cloned()
                    .collect()
            });
            flow.timeable_fns = Some(timeable.clone());
        }
        let names = flow.names_read(roots);
        if names.within(&words) {
            flow.partial = true;
            return (Some(flow), parses);
        }
        words.extend(names);
        last = Some((drop, flow));
    }
    let whole = crate::compact::compact(text, &left_out);
    let flow = summarize_compacted(&whole)
        .or_else(|| Some(flow::summarize_file(&syn::parse_file(text).ok()?)));
    (flow, parses + 1)
}

/// The client flow of a compacted text, its sinks at the file's offsets; `None` when the
/// text does not parse.
fn summarize_compacted(kept: &crate::compact::Compacted) -> Option<flow::ClientFlow> {
    let file = syn::parse_file(&kept.text).ok()?;
    let mut flow = flow::summarize_file(&file);
    // chains are found by their roots' offsets in the file
    flow.sinks = std::mem::take(&mut flow.sinks)
        .into_iter()
        .map(|(at, sink)| (kept.shifts.start(at), sink))
        .collect();
    // and a private function's calls by theirs, the keys of the sinks of what it returns
    for calls in flow.fn_calls.values_mut() {
        for at in calls.iter_mut() {
            *at = kept.shifts.start(*at);
        }
    }
    Some(flow)
}

/// A collector over a whole file as written (its modules and consts), for the cross-file
/// reads below, which look at the file without walking it.
fn whole_file<'a, 'i>(
    file: &syn::File,
    index: &'a LineIndex<'i>,
    opts: &'a CollectOptions,
) -> Collector<'a, 'i> {
    let tree = ModuleTree::build(&file.items, opts.file_module.clone());
    let mut finder = ConstFinder::default();
    for item in &file.items {
        finder.visit_item(item);
    }
    Collector::new(tree, finder, index, opts)
}

/// The calls of [`CollectOptions::thread_fns`] a file makes whose result its statement
/// drops (`init_runtime(..)?;`, `let _tasks = init_runtime(..)?;`, a `let` whose name the
/// function never names again): their chains, waiting for the workspace model to type
/// them (a thread's handle, detached). `file` is the whole file, as written.
pub fn thread_fn_calls(
    file: &syn::File,
    index: &LineIndex<'_>,
    opts: &CollectOptions,
) -> Vec<crate::model::ChainUse> {
    let (c, _) = walk(file, index, opts);
    c.model
        .chains
        .into_iter()
        .filter(|cu| {
            cu.usage == crate::model::Usage::Dropped && calls_thread_fn(&cu.chain, &opts.thread_fns)
        })
        .collect()
}

/// Whether a chain's pending root calls one of `thread_fns` by its path: a function or an
/// associated function (`init_runtime(..)`, `Pool::start(..)`), which the workspace model
/// types by that path. Not a method: the model knows a receiver's type by its name at
/// best, and one type's `stop()` returning a thread's handle (tikv's `future::Worker`) says
/// nothing of another's (its `pool::Worker`, whose `stop()` returns nothing).
pub(super) fn calls_thread_fn(ch: &Chain, thread_fns: &foldhash::HashSet<String>) -> bool {
    matches!(&ch.pending, Some(crate::model::SymRoot::Call(path))
        if path.last().is_some_and(|n| thread_fns.contains(n)))
}

/// The known durations a file writes to the `wanted` fields (`(owner type's last segment,
/// field)`), each with its line: what a timeout reading such a field in another file waits
/// when this file filled the struct in (a config parser's default); and the fields of
/// other types it fills them from. `file` is the whole file, as written.
pub fn field_writes(
    file: &syn::File,
    index: &LineIndex<'_>,
    opts: &CollectOptions,
    wanted: &[crate::model::FieldKey],
) -> crate::model::FieldWrites {
    whole_file(file, index, opts).field_writes(file, wanted)
}

/// What the getters of a file named in `wanted` (`(method, factor)`) return: `(index into
/// wanted, seconds, line)` for each method taking only `&self` whose one expression is a
/// known duration, or a number of the factor's units. `file` is the whole file, as written.
pub fn getter_values(
    file: &syn::File,
    index: &LineIndex<'_>,
    opts: &CollectOptions,
    wanted: &[(String, Option<f64>)],
) -> Vec<(usize, f64, usize)> {
    whole_file(file, index, opts).getter_values(file, wanted)
}

/// What a file passes to the `wanted` parameters of functions declared elsewhere: `(index
/// into wanted, what, line, how)` for each call passing a known duration or number, or a
/// field of a binding of a known type. `file` is the whole file, as written.
pub fn param_args(
    file: &syn::File,
    index: &LineIndex<'_>,
    opts: &CollectOptions,
    wanted: &[crate::model::ParamKey],
) -> Vec<(usize, crate::model::PassedArg, usize, String)> {
    whole_file(file, index, opts).param_args(file, wanted)
}

/// The consts a file declares among `wanted` (names). `file` is the whole file, as
/// written.
pub fn const_values(
    file: &syn::File,
    index: &LineIndex<'_>,
    opts: &CollectOptions,
    wanted: &[String],
) -> Vec<crate::model::ConstDecl> {
    whole_file(file, index, opts).const_values(file, wanted)
}

/// A chain that makes an HTTP client or client builder of a library the rules know.
/// A builder whose chain sets a timeout is not reported, so it needs no flow (the parse
/// that reads it costs as much as the file's own). A chain on a receiver only the
/// workspace model can type does not count: whether it builds a client (a builder a
/// workspace function returns, `reqwest_client_builder(..).build()`, or a builder
/// wrapper's `ClientBuilder::new().prepare(|inner| ..).build_with_policies(..)`) is known
/// once it is resolved, and the file is read for its flow then, only when the rule
/// reports it ([`crate::analysis::FileAnalysis::apply_workspace`]). Guessing from the
/// chain's method names read 815 KB of rustfs as written, tests included, for one test's
/// `usecase.build_get_object_output_context(..)`.
fn builds_http_client(ch: &crate::model::Chain) -> bool {
    use crate::resolve::known::{HttpKind, http_ctor};
    if ch.pending.is_some() {
        return false;
    }
    match http_ctor(&ch.root_str()) {
        Some((HttpKind::Client, _)) => true,
        Some((HttpKind::Builder, lib)) => !ch
            .steps
            .iter()
            .any(|s| lib.timeout_methods.contains(&s.name.as_str())),
        _ => false,
    }
}

/// Files larger than this are parsed item by item, twice (names first, then the walk), so
/// only one item's syntax tree is alive at a time.
pub const STREAMING_THRESHOLD: usize = 1 << 20;

/// Like [`collect`], for a large file: parses `text` twice, one item at a time, instead of
/// keeping the whole tree. Returns the parse error if the text is not a Rust file.
pub fn collect_streaming(
    text: &str,
    index: &LineIndex<'_>,
    opts: &CollectOptions,
) -> syn::Result<FileModel> {
    let mut tree = ModuleTree::new(opts.file_module.clone());
    let mut finder = ConstFinder::default();
    let mut has_main = false;
    for_each_item(text, |item, len| {
        tree.add_items(std::slice::from_ref(&item));
        finder.visit_item(&item);
        has_main |= is_main(&item);
        forget_if_deep(item, len);
    })?;
    let mut c = Collector::new(tree, finder, index, opts);
    c.model.has_main = has_main;
    for_each_item(text, |item, _| {
        let before = c.model.too_deep;
        c.visit_item(&item);
        if c.model.too_deep > before {
            std::mem::forget(item);
        }
    })?;
    c.finish_signal_waiters();
    c.model.resolve_ops = c.resolver.ops();
    budgets::finish(&mut c.model);
    Ok(c.model)
}

fn is_main(item: &syn::Item) -> bool {
    matches!(item, syn::Item::Fn(f) if f.sig.ident == "main")
}

/// Drops an item unless a quick look says it may be deep (then it is leaked: dropping a
/// very deep tree recurses as deep as it is).
fn forget_if_deep(item: syn::Item, len: usize) {
    if len < 64 * 1024 {
        return;
    }
    let mut probe = DepthProbe {
        depth: 0,
        deep: false,
    };
    probe.visit_item(&item);
    if probe.deep {
        std::mem::forget(item);
    }
}

struct DepthProbe {
    depth: usize,
    deep: bool,
}

impl<'ast> Visit<'ast> for DepthProbe {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if self.deep || self.depth >= MAX_EXPR_DEPTH {
            self.deep = true;
            return;
        }
        self.depth += 1;
        visit::visit_expr(self, e);
        self.depth -= 1;
    }
}

/// Parses the items of a file one at a time; `f` gets each item and its length in bytes.
fn for_each_item(text: &str, mut f: impl FnMut(syn::Item, usize)) -> syn::Result<()> {
    use syn::parse::Parser;
    let parser = |input: syn::parse::ParseStream<'_>| -> syn::Result<()> {
        input.call(syn::Attribute::parse_inner)?;
        while !input.is_empty() {
            let start = input.span().byte_range().start;
            let item: syn::Item = input.parse()?;
            let end = if input.is_empty() {
                text.len()
            } else {
                input.span().byte_range().start
            };
            f(item, end.saturating_sub(start));
        }
        Ok(())
    };
    parser.parse_str(text)
}

/// The file's `const`s (and immutable `static`s) and type aliases, found before the walk so
/// a use may precede them.
#[derive(Default)]
pub(super) struct ConstFinder {
    pub(super) out: Vec<(String, syn::Expr)>,
    /// Free functions of the file that hand back one of their parameters when nothing
    /// else is found (`Err(VarError::NotPresent) => default`): name, parameter index.
    pub(super) fallbacks: Vec<(String, usize)>,
    /// Free functions whose body the pruner blanked: name, the item's span (read again
    /// as written when a `static` or `const` initializer calls one).
    pub(super) blanked_fns: Vec<(String, proc_macro2::Span)>,
    /// Functions called by name in `static` and `const` initializers.
    pub(super) init_calls: HashSet<String>,
    /// `type Name = Ty;` anywhere in the file, by name.
    pub(super) aliases: Vec<(String, syn::Type)>,
    /// Functions and methods whose body waits for the process's signals before it does
    /// anything (`signal_listener::signal_wait_prefix`): name, body, and how many of its
    /// statements that takes (checked against the written text by the collector).
    pub(super) signal_waiters: Vec<(String, syn::Block, usize)>,
}

impl ConstFinder {
    /// A function a `static` or `const` initializer calls, whose body the pruner blanked
    /// (it names no word a rule reads: `fn fetch_or_default(key, default) { match
    /// env::var(key) { .., Err(NotPresent) => default } }`), read again as written for the
    /// parameter it hands back.
    fn read_blanked_fallbacks(&mut self, index: &LineIndex<'_>) {
        for (name, span) in std::mem::take(&mut self.blanked_fns) {
            if !self.init_calls.contains(&name) {
                continue;
            }
            let text = index.span_text(span);
            if let Ok(f) = syn::parse_str::<syn::ItemFn>(text)
                && let Some(i) = fallback::returned_param(&f)
            {
                self.fallbacks.push((name, i));
            }
        }
    }

    /// Records a function or method whose body waits for the process's signals before it
    /// does anything ([`Self::signal_waiters`]).
    fn note_signal_waiter(&mut self, sig: &syn::Signature, block: &syn::Block) {
        if let Some(n) = signal_listener::signal_wait_prefix(block) {
            self.signal_waiters
                .push((sig.ident.to_string(), block.clone(), n));
        }
    }
}

impl<'ast> Visit<'ast> for ConstFinder {
    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        self.out.push((c.ident.to_string(), (*c.expr).clone()));
        self.init_calls.extend(fallback::called_names(&c.expr));
    }
    fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
        self.out.push((c.ident.to_string(), c.expr.clone()));
    }
    // an immutable `static` holds its value as a `const` does (qdrant's
    // `static DEFAULT_INFERENCE_TIMEOUT_SECS: u64 = 10 * 60;`)
    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        if matches!(s.mutability, syn::StaticMutability::None) {
            self.out.push((s.ident.to_string(), (*s.expr).clone()));
            self.init_calls.extend(fallback::called_names(&s.expr));
        }
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.note_signal_waiter(&f.sig, &f.block);
        visit::visit_impl_item_fn(self, f);
    }
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.note_signal_waiter(&f.sig, &f.block);
        if let Some(i) = fallback::returned_param(f) {
            self.fallbacks.push((f.sig.ident.to_string(), i));
        } else if f.block.stmts.is_empty() {
            use syn::spanned::Spanned;
            self.blanked_fns.push((f.sig.ident.to_string(), f.span()));
        }
    }
    fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
        if t.generics.params.is_empty() {
            self.aliases.push((t.ident.to_string(), (*t.ty).clone()));
        }
    }
    fn visit_expr(&mut self, _: &'ast syn::Expr) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client stored in a field: the flow is read from the bodies naming it, and answers
    /// as the whole file does, whether another body's request on it is timed or not.
    #[test]
    fn the_client_flow_reads_the_bodies_naming_what_the_client_reaches() {
        let file = |other: &str| {
            format!(
                "struct S {{ client: reqwest::Client }}\n\
                 impl S {{\n\
                 fn new() -> Self {{ let c = reqwest::Client::new(); S {{ client: c }} }}\n\
                 fn go(&self) {{ let _ = self.client.get(u).timeout(D).send(); }}\n\
                 fn other(&self) {{ {other} }}\n\
                 fn unrelated(&self) {{ {unrelated} }}\n\
                 }}\n",
                unrelated = "parse(input);\n".repeat(100)
            )
        };
        for (other, timed) in [
            ("let _ = self.client.post(u).timeout(D).send();", true),
            ("let _ = self.client.post(u).send();", false),
        ] {
            let text = file(other);
            let root = text.find("reqwest::Client::new").unwrap();
            let flow = read_client_flow(&text, &[], &[root]).unwrap();
            assert!(flow.partial, "read from the bodies naming the client");
            assert_eq!(flow.per_request_timeouts(root), timed, "{other}");
            let whole = flow::summarize(&text).unwrap();
            assert_eq!(whole.per_request_timeouts(root), timed);
        }
    }

    /// The second read (the bodies naming `client`, which the first one read) reads a
    /// new name, `request`, that no other body names: those bodies would be read again
    /// for nothing, so the second read is the answer (two parses; a third, of the same
    /// text, before).
    #[test]
    fn the_client_flow_is_not_read_again_from_the_same_bodies() {
        let text = format!(
            "struct S {{ client: reqwest::Client }}\n\
             impl S {{\n\
             fn new() -> Self {{ let c = reqwest::Client::new(); S {{ client: c }} }}\n\
             fn go(&self) {{ let request = self.client.get(u); let _ = request.send(); }}\n\
             fn unrelated(&self) {{ {} }}\n\
             }}\n",
            "parse(input);\n".repeat(100)
        );
        let root = text.find("reqwest::Client::new").unwrap();
        let (flow, parses) = client_flow_counting_parses(&text, &[], &[root]);
        let flow = flow.unwrap();
        assert!(flow.partial);
        assert!(!flow.per_request_timeouts(root));
        assert_eq!(parses, 2);
    }

    /// A private function whose requests are untimed but which is only called inside
    /// `timeout(d, ..)` (iroh's `check_captive_portal`): the body calling it names no
    /// client, and is read all the same.
    #[test]
    fn the_client_flow_reads_where_a_function_making_requests_is_called() {
        let text = format!(
            "async fn probe(u: Url) -> Result<()> {{\n    let c = reqwest::Client::new();\n    \
             c.get(u).send().await?;\n    Ok(())\n}}\n\
             async fn run(u: Url) {{ let _ = tokio::time::timeout(D, probe(u)).await; }}\n\
             fn unrelated() {{ {} }}\n",
            "parse(input);\n".repeat(100)
        );
        let root = text.find("reqwest::Client::new").unwrap();
        let flow = read_client_flow(&text, &[], &[root]).unwrap();
        assert!(flow.partial);
        assert!(flow::summarize(&text).unwrap().per_request_timeouts(root));
        assert!(flow.per_request_timeouts(root));
    }

    /// The same, where the function is called from a long `main`: `main` is read as the
    /// statements naming it (or `timeout`), not whole — the read is of a few lines, not
    /// the whole file (which it was before: `main` kept whole was most of the file) — and
    /// answers as the whole file does, whether the call is bounded or not.
    #[test]
    fn a_long_body_calling_a_function_making_requests_is_read_as_that_call() {
        for (call, timed) in [
            ("let _ = tokio::time::timeout(D, probe(u)).await;", true),
            (
                "if let Some(d) = cfg.limit { let _ = timeout(d, other()).await; } \
                 else { let _ = probe(u).await; }",
                true,
            ),
            ("let _ = probe(u).await;", false),
        ] {
            let text = format!(
                "async fn probe(u: Url) -> Result<()> {{\n    let c = reqwest::Client::new();\n    \
                 c.get(u).send().await?;\n    Ok(())\n}}\n\
                 async fn main() {{\n{noise}    {call}\n{noise}}}\n",
                noise = "    let x = parse(input);\n    log(x);\n".repeat(100)
            );
            let root = text.find("reqwest::Client::new").unwrap();
            let flow = read_client_flow(&text, &[], &[root]).unwrap();
            assert!(
                flow.partial,
                "{call}: read from the statements calling `probe`"
            );
            let whole = flow::summarize(&text).unwrap();
            assert_eq!(whole.per_request_timeouts(root), timed, "{call}");
            assert_eq!(flow.per_request_timeouts(root), timed, "{call}");
        }
    }

    /// The names grow from one read to the next (`c`, then `d` it is copied into, used in
    /// a body that names only `d`): the answer is the whole file's.
    #[test]
    fn the_client_flow_follows_names_found_on_the_way() {
        let text = format!(
            "fn run() {{\n    let c = reqwest::Client::new();\n    let d = c.clone();\n    \
             send(&d);\n}}\n\
             fn send(d: &reqwest::Client) {{ let _ = d.get(u).send(); }}\n\
             fn unrelated() {{ {} }}\n",
            "parse(input);\n".repeat(100)
        );
        let root = text.find("reqwest::Client::new").unwrap();
        let flow = read_client_flow(&text, &[], &[root]).unwrap();
        assert!(flow.partial);
        let whole = flow::summarize(&text).unwrap();
        assert_eq!(flow.timed_given(root), whole.timed_given(root));
        assert!(!flow.per_request_timeouts(root));
    }

    /// A file documented line by line (wasmCloud's `http_client.rs`: a quarter of its
    /// bytes are `///` lines) is read without its doc comments, which the parser would make
    /// attributes the flow does not read: the bodies naming the client are then less than
    /// two thirds of the rest, so they are read alone — before, the doc comments counted
    /// and the whole file was read — and the sinks are still at the file's offsets.
    #[test]
    fn the_client_flow_reads_no_doc_comment() {
        for (request, timed) in REQUESTS_TIMED_OR_NOT {
            let text = format!(
                "/// A client.\nstruct Api {{ client: reqwest::Client }}\nimpl Api {{\n\
                 {docs}    fn new() -> Self {{ Api {{ client: reqwest::Client::new() }} }}\n\
                 {docs}    fn call(&self) {{ let _ = {request}; }}\n\
                 {docs}    fn other(&self) {{ {noise} }}\n}}\n",
                docs =
                    "    /// Explains, at length, what the method below does and why.\n".repeat(20),
                noise = "log(self.name);\n".repeat(30)
            );
            assert_read_by_rounds(&text, &[], request, timed);
        }
    }

    /// A request on the field `client`, with its own timeout or not.
    const REQUESTS_TIMED_OR_NOT: [(&str, bool); 2] = [
        ("self.client.get(u).timeout(D).send()", true),
        ("self.client.get(u).send()", false),
    ];

    /// `text`'s client (its `reqwest::Client::new()`) is read from the bodies naming it
    /// (two parses: its own body, then those naming its field), with the whole file's
    /// verdict: `timed` for its `request`.
    fn assert_read_by_rounds(text: &str, blank: &[(usize, usize)], request: &str, timed: bool) {
        let root = text.find("reqwest::Client::new").unwrap();
        let (flow, parses) = client_flow_counting_parses(text, blank, &[root]);
        let flow = flow.unwrap();
        assert!(
            flow.partial,
            "{request}: read from the bodies naming `client`"
        );
        assert_eq!(parses, 2, "{request}");
        let whole = flow::summarize(text).unwrap();
        assert_eq!(whole.per_request_timeouts(root), timed, "{request}");
        assert_eq!(flow.per_request_timeouts(root), timed, "{request}");
        assert_eq!(flow.timed_given(root), whole.timed_given(root), "{request}");
    }

    /// A file whose test module was blanked before the flow's read (the tests do not
    /// matter for its clients; wasmCloud's `http_client.rs`: 40 KB of its 96 KB) is read
    /// without that module's blank contents: the bodies naming the client are read alone
    /// — before, the blank bytes counted towards the two thirds and the whole file was
    /// read, blank bytes included — and the sinks are still at the file's offsets.
    #[test]
    fn the_client_flow_reads_no_blanked_test_code() {
        for (request, timed) in REQUESTS_TIMED_OR_NOT {
            let text = format!(
                "struct Api {{ client: reqwest::Client }}\nimpl Api {{\n\
                 fn new() -> Self {{ Api {{ client: reqwest::Client::new() }} }}\n\
                 fn call(&self) {{ let _ = {request}; }}\n\
                 fn other(&self) {{ {noise} }}\n}}\n\
                 #[cfg(test)]\nmod tests {{\n{tests}}}\n",
                tests =
                    "    #[test]\n    fn t() { let api = Api::new(); api.call(); }\n".repeat(30),
                noise = "log(self.name);\n".repeat(30)
            );
            let without = crate::prune::without_test_code(&text).unwrap();
            assert_read_by_rounds(&without.text, &without.blanked, request, timed);
        }
    }
}
