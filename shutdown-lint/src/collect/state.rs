//! The collector's state: position (item path, context), resolver scopes and the values
//! `let` bindings hold; creating a collector and entering/leaving scopes.

use super::CollectOptions;
use super::attrs::{is_test_attrs, pat_idents, path_segs};
use crate::finding::Region;
use crate::model::{Call, Chain, Ctx, FileModel, Usage};
use crate::resolve::scope::{BlockScope, ModuleTree};
use crate::resolve::{Canon, Resolution, Resolver};
use crate::source::LineIndex;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Distinct calls recorded per function (call chains from `main`); more are dropped.
const MAX_CALLS_PER_FN: usize = 4096;

/// The value a binding was bound to.
#[derive(Debug, Clone)]
pub(super) enum BindVal {
    Chain(Box<Chain>),
    Duration(f64),
    Num(f64),
    /// A parameter or binding of a declared type no rule knows (a workspace type): the
    /// owner of its fields and methods.
    Typed(crate::resolve::Canon),
    /// A tuple whose elements' values are known by position (a parameter of type
    /// `Arc<(Option<String>, http1::Builder)>`): `let (_, b) = cfg.as_ref();` and `cfg.1`
    /// see them.
    Tuple(Vec<Option<BindVal>>),
}

pub(super) struct Collector<'a, 'i> {
    pub(super) index: &'a LineIndex<'i>,
    pub(super) opts: &'a CollectOptions,
    pub(super) resolver: Resolver,
    pub(super) model: FileModel,
    pub(super) ctx: Ctx,
    pub(super) item_stack: Vec<String>,
    /// binding name -> value, innermost last (shadowing = later entry wins); entries carry
    /// the block depth so they are dropped with their block.
    pub(super) values: Vec<(String, usize, Option<BindVal>)>,
    /// Locals bound to an `async` block (`let fut = async { .. };`), innermost last, with
    /// the function they are in ([`Self::cur_fn`]) and the chains recorded inside the
    /// block: a `timeout(d, fut)` in that function bounds the requests made there.
    pub(super) async_locals: Vec<(String, Option<usize>, std::ops::Range<usize>)>,
    pub(super) pending: Usage,
    pub(super) depth: usize,
    /// Numeric and duration consts of the file, by name.
    pub(super) consts: HashMap<String, BindVal>,
    /// Functions of the file that hand back a parameter as their fallback, by name: the
    /// parameter's index ([`super::ConstFinder::fallbacks`]).
    pub(super) fallbacks: HashMap<String, usize>,
    pub(super) mod_stack: Vec<String>,
    /// Number of block scopes pushed in the current item (bindings carry it).
    pub(super) resolver_blocks: usize,
    /// Some configured path is written `crate::..` (see [`Collector::is_interesting`]).
    pub(super) crate_relative: bool,
    /// The type of `self` inside an `impl`, resolved.
    pub(super) self_ty: Option<crate::resolve::Canon>,
    /// The expression being visited gives the value of a `let`, an assignment or a branch
    /// (a chain with a root only the workspace model can tell is worth building).
    pub(super) want_value: bool,
    /// The expression being visited is a spawn's own argument (`tokio::spawn(server)`):
    /// a binding moved there becomes the task's future, out of reach of any later call
    /// on it (used, not escaped).
    pub(super) into_task: bool,
    /// Chains (by index) bound as `let _name = ..`, or as `let name = ..` of a thread
    /// whose `name` the function never writes again: dropped unless the name is used later.
    pub(super) unused_bindings: std::collections::HashSet<usize>,
    /// The closing `}` of the body of the function being walked (its offset is looked up
    /// only when asked: a span's offset costs a walk of the text before it).
    pub(super) body_end: Option<proc_macro2::Span>,
    /// The function being walked (an index into `model.fns`).
    pub(super) cur_fn: Option<usize>,
    /// The calls of each function being walked, innermost last (`cur_fn`'s): packed into
    /// its [`crate::model::FnNode`] when its walk ends.
    pub(super) open_calls: Vec<Vec<Call>>,
    /// The next `visit_fn` is a method (inside `impl` / `trait`).
    pub(super) in_impl: bool,
    /// Type aliases declared in this file (`type HttpClient = reqwest::Client;`), by name.
    pub(super) local_aliases: HashMap<String, syn::Type>,
    /// The top-level function (or method) being walked: its name and parameters.
    pub(super) cur_sig: Option<FnSig>,
    /// Timeout arguments to value once the file is walked ([`super::deferred`]).
    pub(super) deferred: Vec<super::deferred::Deferred>,
    /// Functions of the file whose body waits for the process's signals before it does
    /// anything ([`super::ConstFinder::signal_waiters`]), by name.
    pub(super) signal_waiter_fns: HashSet<String>,
    /// Tasks spawned with a call of a function of the file, or that await one first: the
    /// spawn's offset and the function's name; signal listeners when
    /// [`Self::signal_waiter_fns`] has it ([`Self::finish_signal_waiters`]).
    pub(super) signal_waiter_calls: Vec<(usize, String)>,
}

/// A function's name and parameter names, for [`super::deferred`].
#[derive(Debug, Clone)]
pub(super) struct FnSig {
    pub(super) name: String,
    /// The last segment of the `impl`'s type, for a method or associated function.
    pub(super) owner: Option<String>,
    /// It takes `self`.
    pub(super) receiver: bool,
    /// Plain parameter names by position (the receiver not counted).
    pub(super) params: Vec<Option<String>>,
}

impl<'a, 'i> Collector<'a, 'i> {
    pub(super) fn region(&self, span: proc_macro2::Span) -> Region {
        self.index.span_region(span)
    }

    pub(super) fn item_path(&self) -> String {
        self.item_stack.join("::")
    }

    pub(super) fn ctx(&self) -> Ctx {
        Ctx {
            item: self.item_path(),
            ..self.ctx.clone()
        }
    }

    pub(super) fn resolve(&self, p: &syn::Path, value: bool) -> Resolution {
        self.resolver
            .resolve(p.leading_colon.is_some(), &path_segs(p), value)
    }

    /// Whether what `attrs` are on is not linted: test code when tests are not (counted),
    /// code built only for WebAssembly always ([`crate::targetcode`]).
    pub(super) fn skip_test(&mut self, attrs: &[syn::Attribute]) -> bool {
        if !self.opts.include_tests && is_test_attrs(attrs) {
            self.model.test_items_skipped += 1;
            return true;
        }
        crate::targetcode::is_wasm_only_attrs(attrs)
    }

    /// Marks what follows as test code when `attrs` make it so and tests are analysed (when
    /// they are not, [`Self::skip_test`] skipped it); the caller restores the context.
    pub(super) fn mark_test(&mut self, attrs: &[syn::Attribute]) {
        if self.opts.include_tests && is_test_attrs(attrs) {
            self.ctx.test_code = true;
        }
    }

    // ---- scopes and bindings -------------------------------------------------------------

    pub(super) fn push_block_scope(&mut self, stmts: &[syn::Stmt]) {
        self.resolver.push_block(BlockScope::collect(stmts));
    }

    pub(super) fn bind_pat(&mut self, pat: &syn::Pat, val: Option<BindVal>) {
        if let Some(BindVal::Tuple(vals)) = &val
            && let Some(elems) = tuple_pat_elems(pat, vals.len())
        {
            for (p, v) in elems.iter().zip(vals) {
                self.bind_pat(p, v.clone());
            }
            return;
        }
        let mut names = Vec::new();
        pat_idents(pat, &mut names);
        let single = matches!(pat, syn::Pat::Ident(_))
            || matches!(pat, syn::Pat::Type(t) if matches!(&*t.pat, syn::Pat::Ident(_)));
        for n in names {
            self.resolver.bind(n.clone());
            let v = if single { val.clone() } else { None };
            self.values.push((n, self.resolver_blocks, v));
        }
    }

    /// Binds `pat` to `val`, seeing through `Ok(x)` / `Some(x)` (`if let Ok(h) =
    /// Handle::try_current()`, `let Some(b) = .. else { .. }`, match arms).
    pub(super) fn bind_unwrapped(&mut self, pat: &syn::Pat, val: Option<BindVal>) {
        if let syn::Pat::Struct(ps) = pat {
            return self.bind_struct_fields(ps);
        }
        if let syn::Pat::TupleStruct(t) = pat {
            if t.elems.len() == 1
                && t.path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "Ok" || s.ident == "Some")
            {
                return self.bind_pat(&t.elems[0], val);
            }
            // a tuple struct's or an enum variant's fields, by position (`Self::Tokio(h)`,
            // `Mode::Owned(rt)`, `Wrapped(inner, _)`), of a type the file names by a path
            // (`Err(e)`, `Poll::Ready(v)`: nothing the model declares)
            let owner = self.pattern_owner(&t.path).filter(|o| {
                o.len() > 1
                    && !matches!(
                        o.first().map(String::as_str),
                        Some("std" | "core" | "alloc")
                    )
            });
            if owner.is_none() {
                return self.bind_pat(pat, val);
            }
            for (i, p) in t.elems.iter().enumerate() {
                let val = self.field_binding(p, &owner, i.to_string(), p);
                self.bind_pat(p, val);
            }
            return;
        }
        self.bind_pat(pat, val)
    }

    /// `let Self { handle, pool: p, .. } = self;`, `Self::Owned { rt } =>`: each bound
    /// field holds what the field of the struct (or variant) is (typed by the workspace
    /// model).
    fn bind_struct_fields(&mut self, ps: &syn::PatStruct) {
        let owner = self.pattern_owner(&ps.path);
        for f in &ps.fields {
            let field = match &f.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(_) => {
                    self.bind_pat(&f.pat, None);
                    continue;
                }
            };
            let val = self.field_binding(&f.pat, &owner, field, &f.member);
            self.bind_pat(&f.pat, val);
        }
    }

    /// The type a struct or tuple-struct pattern's path names: `Self` (the `impl`'s type),
    /// `Self::Variant` (a variant of it), or a path resolved where it is written.
    fn pattern_owner(&self, path: &syn::Path) -> Option<Canon> {
        match path.segments.first() {
            Some(first) if first.ident == "Self" => {
                let mut owner = self.self_ty.clone()?;
                owner.extend(path.segments.iter().skip(1).map(|s| s.ident.to_string()));
                Some(owner)
            }
            _ => match self.resolve(path, false) {
                Resolution::Path(p) => Some(p),
                _ => None,
            },
        }
    }

    /// What a name bound by `pat` to the field `field` of `owner` holds: that field, typed
    /// by the workspace model (a name only: a nested pattern binds nothing known).
    fn field_binding(
        &self,
        pat: &syn::Pat,
        owner: &Option<Canon>,
        field: String,
        at: &dyn syn::spanned::Spanned,
    ) -> Option<BindVal> {
        match pat {
            syn::Pat::Ident(i) if i.subpat.is_none() => {
                let root = crate::model::SymRoot::Field {
                    owner: owner.clone(),
                    name: field,
                };
                Some(BindVal::Chain(Box::new(self.symbolic(root, at.span()))))
            }
            _ => None,
        }
    }

    /// The known value of a single-segment name: a local binding in scope shadows a const of
    /// the file.
    pub(super) fn value_of(&self, name: &str) -> Option<&BindVal> {
        if self.resolver.is_binding(name) {
            self.binding_val(name)
        } else {
            self.consts.get(name)
        }
    }

    pub(super) fn binding_val(&self, name: &str) -> Option<&BindVal> {
        self.values
            .iter()
            .rev()
            .find(|(n, _, _)| n == name)
            .and_then(|(_, _, v)| v.as_ref())
    }

    pub(super) fn new(
        tree: ModuleTree,
        found: super::ConstFinder,
        index: &'a LineIndex<'i>,
        opts: &'a CollectOptions,
    ) -> Self {
        let resolver = Resolver::new(
            Arc::new(tree),
            opts.aliases.clone(),
            opts.interesting.clone(),
        );
        let mut c = Collector {
            index,
            opts,
            resolver,
            model: FileModel::default(),
            ctx: Ctx::default(),
            item_stack: Vec::new(),
            values: Vec::new(),
            pending: Usage::Kept,
            depth: 0,
            consts: HashMap::new(),
            fallbacks: found.fallbacks.iter().cloned().collect(),
            mod_stack: Vec::new(),
            resolver_blocks: 0,
            crate_relative: opts.interesting.contains(&["crate".to_string()][..]),
            self_ty: None,
            want_value: false,
            into_task: false,
            async_locals: Vec::new(),
            unused_bindings: Default::default(),
            body_end: None,
            cur_fn: None,
            open_calls: Vec::new(),
            in_impl: false,
            local_aliases: found.aliases.into_iter().collect(),
            cur_sig: None,
            deferred: Vec::new(),
            signal_waiter_fns: found
                .signal_waiters
                .iter()
                .filter(|(_, block, n)| !super::chain::pruned_among(index, block, *n))
                .map(|(name, _, _)| name.clone())
                .collect(),
            signal_waiter_calls: Vec::new(),
        };
        c.collect_consts(&found.out);
        c
    }

    /// The tasks spawned with a call of a function of the file that waits for the
    /// process's signals first (namada's `tokio::spawn(async move { shutdown_send(announce)
    /// .await; })`) are signal listeners
    /// ([`crate::model::FileModel::signal_listeners`]).
    pub(super) fn finish_signal_waiters(&mut self) {
        for (at, name) in std::mem::take(&mut self.signal_waiter_calls) {
            if self.signal_waiter_fns.contains(&name) {
                self.model.signal_listeners.push(at);
            }
        }
    }

    /// Records a call of the function being walked (for call chains from `main`).
    pub(super) fn record_call(&mut self, name: String, method: bool) {
        self.record_call_in(name, method, None, false, None);
    }

    /// [`Self::record_call`] of a method called with arguments or without, with its
    /// receiver's type when the file tells it ([`Self::receiver_type`]).
    pub(super) fn record_method_call(&mut self, m: &syn::ExprMethodCall) {
        if self.cur_fn.is_none() {
            return;
        }
        let (krate, ty) = self
            .receiver_type(&m.receiver)
            .map_or((None, None), type_owner);
        self.record_call_in(m.method.to_string(), true, krate, !m.args.is_empty(), ty);
    }

    /// Notes a method of a known server's chain the function being walked calls
    /// ([`crate::model::FnNode::library_methods`]): its library's own, not a call of the
    /// workspace's.
    pub(super) fn record_library_method(&mut self, m: &syn::ExprMethodCall) {
        let Some(i) = self.cur_fn else { return };
        let name = m.method.to_string();
        let known = &mut self.model.fns[i].library_methods;
        if !known.iter().any(|k| **k == *name) {
            known.push(name.into());
        }
    }

    /// The type of a method call's receiver, when the file tells it: `self` in an `impl`, a
    /// binding of a declared workspace type, or one bound to what a type's associated
    /// function returns (`let s = http::Scheduler::new(..)?;`: a constructor's value is
    /// taken to be of its type).
    fn receiver_type(&self, recv: &syn::Expr) -> Option<&[String]> {
        let mut e = recv;
        while let syn::Expr::Paren(syn::ExprParen { expr, .. })
        | syn::Expr::Reference(syn::ExprReference { expr, .. }) = e
        {
            e = expr;
        }
        let syn::Expr::Path(p) = e else { return None };
        if p.path.is_ident("self") {
            return self.self_ty.as_deref();
        }
        match self.binding_val(&p.path.get_ident()?.to_string())? {
            BindVal::Typed(t) => Some(t),
            BindVal::Chain(ch) => {
                let Some(crate::model::SymRoot::Call(path)) = &ch.pending else {
                    return None;
                };
                let unwrapped = ch
                    .steps
                    .iter()
                    .all(|s| matches!(s.name.as_str(), "?" | "await" | "unwrap" | "expect"));
                let n = path.len();
                (unwrapped && n >= 3 && starts_upper(&path[n - 2])).then(|| &path[..n - 1])
            }
            _ => None,
        }
    }

    fn record_call_in(
        &mut self,
        name: String,
        method: bool,
        krate: Option<String>,
        with_args: bool,
        ty: Option<String>,
    ) {
        let Some(calls) = self.open_calls.last_mut() else {
            return;
        };
        let call = Call {
            name: name.into(),
            method,
            krate: krate.map(Box::from),
            with_args,
            ty: ty.map(Box::from),
        };
        // `x.f().f().f()..`: a repeat of the last call adds nothing; a body with thousands
        // of distinct calls is kept bounded (the rest count as seen)
        if calls.last() == Some(&call) {
            return;
        }
        if calls.len() >= MAX_CALLS_PER_FN {
            calls.sort();
            calls.dedup();
            if calls.len() >= MAX_CALLS_PER_FN {
                return;
            }
        }
        calls.push(call);
    }

    /// Records a call (or a use by name) of `path`: `Type::f` and `Self::f` are associated
    /// functions, `f` and `module::f` free ones.
    pub(super) fn record_call_path(&mut self, path: &syn::Path) {
        if self.cur_fn.is_none() {
            return;
        }
        let n = path.segments.len();
        let Some(last) = path.segments.last() else {
            return;
        };
        let method = n >= 2 && {
            let owner = path.segments[n - 2].ident.to_string();
            owner == "Self" || starts_upper(&owner)
        };
        let resolved = self.resolve(path, true);
        // a free function: of its path's crate, called by the name it has there (one
        // imported under another: `use server::admin::serve_admin as listen; listen(port)`)
        if let Resolution::Path(c) = &resolved
            && !method
            && c.len() >= 2
        {
            self.record_call_in(
                c[c.len() - 1].clone(),
                false,
                Some(c[0].clone()),
                false,
                None,
            );
            return;
        }
        let (krate, ty) = match resolved {
            // `http::Scheduler::start(s)`, `Self::serve(..)`: the type's methods
            Resolution::Path(c) if method && c.len() >= 3 => type_owner(&c[..c.len() - 1]),
            _ if method && n == 2 && path.segments[0].ident == "Self" => {
                self.self_ty.as_deref().map_or((None, None), type_owner)
            }
            _ => (None, None),
        };
        self.record_call_in(last.ident.to_string(), method, krate, false, ty);
    }

    /// The calls in a macro body that is not walked (`name(..)`, `x.name(..)`,
    /// `Type::name(..)`), by a token scan: enough for call chains from `main`.
    pub(super) fn record_calls_in_tokens(&mut self, tokens: proc_macro2::TokenStream) {
        use proc_macro2::{Delimiter, TokenTree};
        if self.cur_fn.is_none() {
            return;
        }
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tt) in tts.iter().enumerate() {
            match tt {
                TokenTree::Group(g) => self.record_calls_in_tokens(g.stream()),
                TokenTree::Ident(id) if matches!(tts.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis) =>
                {
                    let prev = |k: usize| i.checked_sub(k).and_then(|j| tts.get(j));
                    let method = match prev(1) {
                        Some(TokenTree::Punct(p)) if p.as_char() == '.' => true,
                        Some(TokenTree::Punct(p)) if p.as_char() == ':' => matches!(
                            prev(3),
                            Some(TokenTree::Ident(o)) if o == "Self" || o.to_string().starts_with(|c: char| c.is_ascii_uppercase())
                        ),
                        _ => false,
                    };
                    let with_args = matches!(tts.get(i + 1), Some(TokenTree::Group(g)) if !g.stream().is_empty());
                    self.record_call_in(id.to_string(), method, None, with_args, None);
                }
                _ => {}
            }
        }
    }

    pub(super) fn pop_scope_raw(&mut self) {
        self.resolver.pop_block();
        let depth = self.resolver_blocks;
        while self.values.last().is_some_and(|(_, d, _)| *d > depth) {
            self.values.pop();
        }
    }

    pub(super) fn enter_scope_empty(&mut self) {
        self.resolver.push_block(BlockScope::default());
        self.resolver_blocks += 1;
    }

    pub(super) fn leave_scope_empty(&mut self) {
        self.resolver_blocks -= 1;
        self.pop_scope_raw();
    }
}

/// The element patterns of `(a, b)` (also `&(a, b)` and `(a, b): T`) when there are `n` and
/// none is `..`.
fn tuple_pat_elems(pat: &syn::Pat, n: usize) -> Option<Vec<&syn::Pat>> {
    match pat {
        syn::Pat::Type(t) => tuple_pat_elems(&t.pat, n),
        syn::Pat::Reference(r) => tuple_pat_elems(&r.pat, n),
        syn::Pat::Paren(p) => tuple_pat_elems(&p.pat, n),
        syn::Pat::Tuple(t)
            if t.elems.len() == n && !t.elems.iter().any(|p| matches!(p, syn::Pat::Rest(_))) =>
        {
            Some(t.elems.iter().collect())
        }
        _ => None,
    }
}

/// A type path's crate and name (`["app", "http", "Scheduler"]`: `app`, `Scheduler`); a path
/// of one segment (a type of the file's own module) has no crate.
fn type_owner(ty: &[String]) -> (Option<String>, Option<String>) {
    match ty {
        [] => (None, None),
        [only] => (None, Some(only.clone())),
        [krate, .., last] => (Some(krate.clone()), Some(last.clone())),
    }
}

fn starts_upper(segment: &str) -> bool {
    segment.starts_with(|c: char| c.is_ascii_uppercase())
}
