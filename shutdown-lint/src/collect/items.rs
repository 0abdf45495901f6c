//! Items, functions, statements and macro bodies: where scopes start and end, what is test
//! code, and which `mod x;` declarations the file makes.

use super::attrs::{expr_attrs, is_test_attrs, is_windows_cfg_text, is_windows_only, pat_of};
use super::eval::duration_of_chain;
use super::state::{BindVal, Collector};
use crate::macros::{self, MacroBody};
use crate::model::{Chain, ChainUse, FnDecl, ModDecl, Usage};
use crate::resolve::known;
use crate::resolve::{Canon, Resolution};
use syn::spanned::Spanned;
use syn::visit::Visit;

impl Collector<'_, '_> {
    pub(super) fn visit_fn(
        &mut self,
        attrs: &[syn::Attribute],
        sig: &syn::Signature,
        block: Option<&syn::Block>,
    ) {
        if self.skip_test(attrs) {
            return;
        }
        let saved_ctx = self.ctx.clone();
        if is_windows_only(attrs) {
            self.ctx.windows_only = true;
        }
        self.mark_test(attrs);
        let method = std::mem::replace(&mut self.in_impl, false);
        self.item_stack.push(sig.ident.to_string());
        let saved_fn = self.cur_fn.replace(self.model.fns.len());
        self.model.fns.push(crate::model::FnNode {
            item: self.item_path(),
            method,
            ..crate::model::FnNode::default()
        });
        self.open_calls.push(Vec::new());
        let mut drainable = false;
        for a in attrs {
            let res = self.resolve(a.path(), false);
            if let Resolution::Path(p) = res {
                let s = p.join("::");
                if known::DRAINABLE_ATTRS.contains(&s.as_str())
                    || p.last().is_some_and(|l| l == "drainable")
                {
                    drainable = true;
                }
                self.record_main_grace(a, &p);
                let span = a.path().span();
                self.record_ref(p, span);
            }
        }
        if drainable {
            self.model.drainable_fns += 1;
        }
        self.ctx.in_drainable = drainable;
        self.resolver.push_item_boundary();
        self.resolver_blocks += 1;
        let top_level = self.resolver_blocks == 1;
        let saved_sig = self.cur_sig.take();
        if top_level {
            self.cur_sig = Some(super::state::FnSig {
                name: sig.ident.to_string(),
                owner: self
                    .self_ty
                    .as_ref()
                    .filter(|_| method)
                    .and_then(|t| t.last().cloned()),
                receiver: sig.receiver().is_some(),
                params: sig
                    .inputs
                    .iter()
                    .filter(|a| matches!(a, syn::FnArg::Typed(_)))
                    .map(super::attrs::plain_param_name)
                    .collect(),
            });
        }
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                match newtype_param(&t.pat, &t.ty) {
                    // `State(services): State<Arc<Services>>`: the inner value's type
                    Some((inner, ty)) => {
                        let val = self.type_value(ty);
                        self.bind_pat(inner, val);
                    }
                    None => {
                        let val = self.type_value(&t.ty);
                        self.bind_pat(&t.pat, val);
                    }
                }
            }
        }
        let ret = match &sig.output {
            syn::ReturnType::Type(_, ty) if self.resolver_blocks == 1 => self
                .type_canon(ty)
                // a borrowed thread handle (`fn worker(&self) -> &JoinHandle<()>`) is no
                // thread its caller started: a caller dropping it detaches nothing
                .filter(|c| !(is_thread_handle(c) && is_borrowed(ty))),
            _ => None,
        };
        let returns_builder = ret.as_ref().is_some_and(|r| known::is_http_builder_type(r));
        let saved_end = self.body_end;
        let tail = match block {
            Some(block) => {
                self.body_end = Some(block.brace_token.span.close());
                self.visit_block_value(block, returns_builder)
            }
            None => None,
        };
        self.body_end = saved_end;
        if let Some(ret) = ret {
            let builds_param = block.and_then(|b| self.builds_from_param(sig, b, &ret));
            let returns_param = block
                .filter(|_| returns_builder)
                .and_then(|b| self.returns_builder_param(sig, b));
            let builder = tail.filter(|t| {
                returns_builder
                    && match &t.pending {
                        None => matches!(
                            known::http_ctor(&t.root_str()),
                            Some((known::HttpKind::Builder, _))
                        ),
                        // a builder handed through another function that returns it
                        // (`let b = self.tls(b); Ok(b)`): the workspace model tells
                        Some(_) => t
                            .root_args
                            .iter()
                            .any(|a| matches!(a, crate::model::ArgValue::Builder(_))),
                    }
            });
            let name = sig.ident.to_string();
            let path = match &self.self_ty {
                Some(o) => {
                    let mut p = o.clone();
                    p.push(name.clone());
                    p
                }
                None => {
                    let mut p = self.resolver.tree().module_path(self.resolver.module());
                    p.push(name.clone());
                    p
                }
            };
            let sets_timeout = self.open_calls.last().is_some_and(|calls| {
                calls
                    .iter()
                    .any(|c| c.method && c.with_args && &*c.name == "timeout")
            });
            self.model.decls.fns.push(FnDecl {
                path,
                owner: self.self_ty.clone(),
                name,
                ret,
                builder,
                builds_param,
                returns_param,
                sets_timeout,
            });
        }
        self.resolver_blocks -= 1;
        self.pop_scope_raw();
        self.cur_sig = saved_sig;
        if let (Some(i), Some(calls)) = (self.cur_fn, self.open_calls.pop()) {
            self.model.fns[i].calls = crate::model::Calls::new(calls);
        }
        self.cur_fn = saved_fn;
        self.item_stack.pop();
        self.in_impl = method;
        self.ctx = saved_ctx;
    }

    /// A type with its references and wrappers peeled (`&`, `Arc`, `Rc`, `Box`, `Option`,
    /// `Result` and aliases of it named `..Result<T>`, the lazy statics `Lazy`, `LazyLock`, `LazyCell`, which deref to what they
    /// hold, and `OnceLock` / `OnceCell`, read through `get_or_init`), resolved where it is
    /// written; `Self` is the `impl`'s type.
    pub(super) fn type_canon(&self, ty: &syn::Type) -> Option<Canon> {
        let syn::Type::Path(p) = self.peel_type(ty)? else {
            return None;
        };
        if p.qself.is_none() && p.path.is_ident("Self") {
            return self.self_ty.clone();
        }
        match self.resolve(&p.path, false) {
            Resolution::Path(c) => Some(c),
            _ => None,
        }
    }

    /// `ty` without its references, parentheses, the wrappers [`Self::type_canon`] sees
    /// through and the file's own aliases; `None` when that does not end.
    fn peel_type<'t>(&'t self, ty: &'t syn::Type) -> Option<&'t syn::Type> {
        let mut ty = ty;
        for _ in 0..8 {
            match ty {
                syn::Type::Reference(r) => ty = &r.elem,
                syn::Type::Paren(p) => ty = &p.elem,
                syn::Type::Group(g) => ty = &g.elem,
                syn::Type::Path(p) => {
                    let last = p.path.segments.last()?;
                    let name = last.ident.to_string();
                    // a crate's own `Result` alias (`type AppResult<T> = Result<T, AppError>`,
                    // `anyhow::Result<T>`) holds its first argument, wherever it is declared
                    let wrapper = name.ends_with("Result")
                        || matches!(
                            name.as_str(),
                            "Arc"
                                | "Rc"
                                | "Box"
                                | "Pin"
                                | "Mutex"
                                | "RwLock"
                                | "Option"
                                | "Result"
                                | "Lazy"
                                | "LazyLock"
                                | "LazyCell"
                                | "OnceLock"
                                | "OnceCell"
                        );
                    if wrapper
                        && let syn::PathArguments::AngleBracketed(a) = &last.arguments
                        && let Some(syn::GenericArgument::Type(inner)) = a.args.first()
                    {
                        ty = inner;
                        continue;
                    }
                    if p.qself.is_none()
                        && let Some(id) = p.path.get_ident()
                        && let Some(aliased) = self.local_aliases.get(&id.to_string())
                    {
                        // a file-local alias: what it names, as if written here
                        ty = aliased;
                        continue;
                    }
                    return Some(ty);
                }
                other => return Some(other),
            }
        }
        None
    }

    /// What a parameter or annotated binding of type `ty` holds: a spawner the rules know
    /// (`Handle`, `&Runtime`, `Arc<Runtime>`: its `.spawn*(..)` calls are raw spawns, as on
    /// `Handle::current()`), or a value of a workspace type (the owner of its fields and
    /// methods).
    pub(super) fn type_value(&self, ty: &syn::Type) -> Option<BindVal> {
        if let syn::Type::Tuple(t) = self.peel_type(ty)? {
            // `Arc<(Option<String>, http1::Builder)>`: each element by position
            let vals: Vec<_> = t.elems.iter().map(|e| self.type_value(e)).collect();
            return vals
                .iter()
                .any(Option::is_some)
                .then_some(BindVal::Tuple(vals));
        }
        let canon = self.type_canon(ty)?;
        match known::type_ctor(&canon) {
            Some(root) => Some(BindVal::Chain(Box::new(Chain {
                received: true,
                ..Chain::at(crate::resolve::split_path(root), self.region(ty.span()))
            }))),
            None if canon.len() > 1 => Some(BindVal::Typed(canon)),
            None => None,
        }
    }

    /// For a function returning an HTTP client that its body's tail builds from a parameter
    /// declared as a builder of a known library (`fn f(b: reqwest::ClientBuilder) ->
    /// reqwest::Result<Client> { b.redirect(..).build() }`, also `Ok(b.build()?)`): the
    /// parameter's index and the steps the tail applies to it, innermost first.
    fn builds_from_param(
        &self,
        sig: &syn::Signature,
        block: &syn::Block,
        ret: &Canon,
    ) -> Option<(usize, Vec<crate::model::Step>)> {
        let client = known::type_ctor(ret)
            .is_some_and(|c| matches!(known::http_ctor(c), Some((known::HttpKind::Client, _))));
        if !client {
            return None;
        }
        let Some(syn::Stmt::Expr(tail, None)) = block.stmts.last() else {
            return None;
        };
        // `Ok(..)` around the tail, then down the chain to its root
        let mut e: &syn::Expr = tail;
        if let syn::Expr::Call(c) = e
            && let syn::Expr::Path(p) = &*c.func
            && p.path.is_ident("Ok")
            && c.args.len() == 1
        {
            e = &c.args[0];
        }
        let mut steps = Vec::new();
        while let Some(next) = super::flow::spine_step(e) {
            match e {
                syn::Expr::MethodCall(m) => steps.push(crate::model::Step {
                    name: m.method.to_string(),
                    region: self.region(m.method.span()),
                    args: m.args.iter().map(|a| self.eval_arg(a)).collect(),
                }),
                syn::Expr::Try(t) => steps.push(crate::model::Step {
                    name: "?".into(),
                    region: self.region(t.question_token.span()),
                    args: Vec::new(),
                }),
                _ => {}
            }
            e = next;
        }
        steps.reverse();
        let syn::Expr::Path(root) = e else {
            return None;
        };
        let (index, ty) = typed_param(sig, root.path.get_ident()?)?;
        let ctor = known::http_builder_ctor(&self.type_canon(&ty.ty)?)?;
        let (_, lib) = known::http_ctor(ctor)?;
        steps
            .iter()
            .any(|s| lib.build_methods.contains(&s.name.as_str()))
            .then_some((index, steps))
    }

    /// For a function returning a builder: the index of the builder-typed parameter its
    /// body hands back (its tail, `Ok(..)` around it or not), when nothing in the body
    /// names a timeout step ([`FnDecl::returns_param`](crate::model::FnDecl::returns_param)).
    fn returns_builder_param(&self, sig: &syn::Signature, block: &syn::Block) -> Option<usize> {
        let Some(syn::Stmt::Expr(tail, None)) = block.stmts.last() else {
            return None;
        };
        let tail = ok_or_some_arg(tail).unwrap_or(tail);
        let syn::Expr::Path(p) = tail else {
            return None;
        };
        let (index, ty) = typed_param(sig, p.path.get_ident()?)?;
        known::http_builder_ctor(&self.type_canon(&ty.ty)?)?;
        let mut timeouts = NamesTimeout(false);
        timeouts.visit_block(block);
        (!timeouts.0).then_some(index)
    }

    /// Visits a block; returns the value of its tail expression when it is a chain.
    pub(super) fn visit_block_value(&mut self, b: &syn::Block, want: bool) -> Option<Chain> {
        self.push_block_scope(&b.stmts);
        self.resolver_blocks += 1;
        let mut out = None;
        let n = b.stmts.len();
        for (i, s) in b.stmts.iter().enumerate() {
            match s {
                syn::Stmt::Expr(e, None) if i + 1 == n && expr_attrs(e).is_empty() => {
                    // a helper returning `Result<ClientBuilder, _>` ends in `Ok(builder)`
                    let e = if want {
                        ok_or_some_arg(e).unwrap_or(e)
                    } else {
                        e
                    };
                    self.want_value = want;
                    out = self.visit_expr_value(e);
                }
                _ => self.visit_stmt(s),
            }
        }
        self.resolver_blocks -= 1;
        self.pop_scope_raw();
        out
    }

    /// A `macro_rules!` definition: the spawns its bodies write through a path
    /// ([`crate::macro_definition`]), each visited as a call of the file
    /// made in the macro (`name!` is the enclosing item), with its value dropped when the
    /// call is a statement of its own.
    fn visit_macro_definition(&mut self, name: &str, mac: &syn::Macro) {
        let calls = crate::macro_definition::spawn_calls(mac.tokens.clone());
        if calls.is_empty() {
            return;
        }
        let saved = self.ctx.clone();
        let pending = self.pending;
        self.ctx.in_drainable = false;
        self.ctx.macro_definition = Some(name.to_string());
        self.item_stack.push(format!("{name}!"));
        for c in &calls {
            self.pending = if c.dropped {
                Usage::Dropped
            } else {
                Usage::Kept
            };
            self.visit_expr(&c.call);
        }
        self.item_stack.pop();
        self.pending = pending;
        self.ctx = saved;
    }

    pub(super) fn visit_macro_body(&mut self, mac: &syn::Macro) {
        self.visit_macro_value(mac, None);
    }

    /// Visits a macro invocation's body; when `rebinds` names the binding the invocation is
    /// assigned to and the macro's first argument transforms that very binding
    /// (`builder = whatever!(builder.tls_config(cfg), "tls");`, snafu; `try!(..)`), returns
    /// that argument's value. An assignment cannot change a binding's type, so such a macro
    /// can only pass its argument through (wrapping an error): the builder is still the
    /// builder it was, with the argument's steps.
    pub(super) fn visit_macro_value(
        &mut self,
        mac: &syn::Macro,
        rebinds: Option<&str>,
    ) -> Option<Chain> {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        // the macro itself, as `name!` (no function is named so): a rule can see that a
        // method spawns through a macro of the workspace (`background_spawn!(..)`)
        self.record_call(format!("{name}!"), false);
        // `assert_eq!(caught_signal.unwrap(), SIGINT)` (omicron's dev tools, after their
        // `Signals::new(&[SIGINT])`): a signal compared, not a handler installed
        if matches!(
            name.as_str(),
            "assert_eq" | "assert_ne" | "debug_assert_eq" | "debug_assert_ne" | "matches"
        ) {
            let region = self.region(mac.delimiter.span().join());
            self.model.signal_compares.push(region);
        }
        if mac.tokens.is_empty() || macros::is_opaque(&name) {
            return None;
        }
        let mut out = None;
        // most bodies (asserts, format arguments, logging) name nothing a rule knows:
        // re-parsing them would cost about as much as parsing the file
        let body = self.index.span_text(mac.delimiter.span().join());
        if rebinds.is_none()
            && !self
                .opts
                .needles
                .iter()
                .any(|f| f.find(body.as_bytes()).is_some())
            && !MACRO_BODY_WORDS
                .iter()
                .any(|w| memchr::memmem::find(body.as_bytes(), w.as_bytes()).is_some())
            && !macros::is_runtime_lazy_static(&name, body.as_bytes())
        {
            self.record_calls_in_tokens(mac.tokens.clone());
            return None;
        }
        let saved = self.ctx.clone();
        // `#[drainable]` rewrites no call inside a macro's tokens (`tokio::select!`, `vec!`):
        // a spawn there stays raw
        self.ctx.in_drainable = false;
        match macros::parse_body(&name, mac.tokens.clone()) {
            Some(MacroBody::Exprs(exprs)) => {
                self.model.macros_analysed += 1;
                for (i, e) in exprs.iter().enumerate() {
                    if i == 0 && rebinds.is_some() && chain_root_ident(e).as_deref() == rebinds {
                        out = self.value_of_expr(e);
                    } else {
                        self.visit_expr(e);
                    }
                }
            }
            Some(MacroBody::Select(branches)) => {
                self.model.macros_analysed += 1;
                for b in &branches {
                    // a branch polls its future to the end: `_ = server_task => ..` is
                    // `server_task.await` (a dropshot server awaited beside other tasks)
                    match &b.future {
                        syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                            let span = p.path.span();
                            let awaited = syn::Expr::Await(syn::ExprAwait {
                                attrs: Vec::new(),
                                base: Box::new(b.future.clone()),
                                dot_token: syn::Token![.](span),
                                await_token: syn::Token![await](span),
                            });
                            self.visit_expr(&awaited);
                        }
                        f => self.visit_expr(f),
                    }
                    if let Some(g) = &b.guard {
                        self.visit_expr(g);
                    }
                    self.enter_scope_empty();
                    if let Some(p) = &b.pat {
                        self.bind_pat(p, None);
                    }
                    self.visit_expr(&b.handler);
                    self.leave_scope_empty();
                }
            }
            Some(MacroBody::Stmts(stmts)) => {
                self.model.macros_analysed += 1;
                self.push_block_scope(&stmts);
                self.resolver_blocks += 1;
                for s in &stmts {
                    self.visit_stmt(s);
                }
                self.resolver_blocks -= 1;
                self.pop_scope_raw();
            }
            Some(MacroBody::Items(items)) => {
                self.model.macros_analysed += 1;
                for i in &items {
                    self.visit_item(i);
                }
            }
            None => {
                self.record_calls_in_tokens(mac.tokens.clone());
                self.model.macros_unanalysed += 1;
                *self.model.unanalysed_by_name.entry(name).or_insert(0) += 1;
            }
        }
        self.ctx = saved;
        out
    }

    /// Whether `name` is written anywhere in the function being walked after `init` ends
    /// (as a whole word of the file as written, comments and strings too: a use in a
    /// macro, a struct's shorthand field or a closure counts, whatever the walk sees of
    /// it), other than to borrow the thread of a thread's handle (`name.thread()`:
    /// crater's reports worker keeps `joiner.thread().clone()` to unpark it, and drops the
    /// handle; `name.is_finished()` in a wait loop is as good as a join). Outside a
    /// function body, it is taken as written.
    fn named_later(&self, name: &str, init: &syn::Expr) -> bool {
        let Some(end) = self.body_end.map(|s| self.region(s).offset) else {
            return true;
        };
        let r = self.region(init.span());
        let from = r.offset + r.len;
        let text = self.index.text(from..end.max(from)).as_bytes();
        let mut at = 0;
        while let Some(found) = crate::lexscan::find_word(text, name.as_bytes(), at) {
            at = found + name.len();
            let (before, after) = (
                text[..found].trim_ascii_end(),
                text[at..].trim_ascii_start(),
            );
            // dropped by name (`drop(worker);`, `std::mem::drop(worker)`): detached there,
            // as at the end of its block (CodSpeed's memtrack IPC thread)
            let dropped = before.ends_with(b"drop(") && after.starts_with(b")");
            if !after.starts_with(b".thread()") && !dropped {
                return true;
            }
        }
        false
    }

    /// Binds the names of `let pat = init else { diverge };` to what `init` is (a chain,
    /// a duration, a number; the declared type where that says less).
    fn bind_local(
        &mut self,
        pat: &syn::Pat,
        init: Option<&syn::Expr>,
        diverge: Option<&syn::Expr>,
    ) {
        // `let (active, runtime) = { let s = window.state::<AppState>(); (s.active.clone(),
        // s.runtime.clone()) };`: each name bound to its element, valued in the block
        if let (syn::Pat::Tuple(t), Some(syn::Expr::Block(b)), None) = (pat_of(pat), init, diverge)
            && let Some(vals) = self.block_tuple_values(&b.block, t.elems.len())
        {
            return self.bind_pat(pat, Some(BindVal::Tuple(vals)));
        }
        // `let (req, mem) = if let Some(p) = proxy { (req.proxy(p.clone()), mem.proxy(p)) }
        // else { (req, mem) };` (live777's two client builders): each name bound to its
        // element of the first branch that values it
        if let (syn::Pat::Tuple(t), Some(syn::Expr::If(i)), None) = (pat_of(pat), init, diverge)
            && if_tuple_arity(i) == Some(t.elems.len())
        {
            let vals = self.if_tuple_values(i, t.elems.len());
            return self.bind_pat(pat, Some(BindVal::Tuple(vals)));
        }
        let mut val = None;
        if let Some(init) = init {
            // `let _ = ..` drops at once; `let _name = ..` says "unused": the
            // handle is dropped at the end of the block, never joined
            let dropped = match pat_of(pat) {
                syn::Pat::Wild(_) => true,
                syn::Pat::Ident(i) => i.ident.to_string().starts_with('_'),
                _ => false,
            };
            let underscore = dropped && !matches!(pat_of(pat), syn::Pat::Wild(_));
            self.pending = if dropped { Usage::Dropped } else { Usage::Kept };
            let made_before = self.model.chains.len();
            let chain = self.value_of_expr(init).map(|mut c| {
                // a request made from a bound client (`let r = client.get(u)..send().await`)
                // holds a response, not the client, and an address read from a server
                // (`let addr = server.local_addr()?`) is not the server: later uses of
                // either are not the value's
                let made_here = &c.steps[c.inherited.min(c.steps.len())..];
                if c.via_binding
                    && made_here.iter().any(|s| {
                        super::flow::is_request_step(&s.name)
                            || known::PLAIN_DATA_ACCESSORS.contains(&s.name.as_str())
                    })
                {
                    c.origin = None;
                }
                c
            });
            if let (syn::Expr::Async(_), syn::Pat::Ident(i)) = (init, pat_of(pat)) {
                let made = made_before..self.model.chains.len();
                self.async_locals
                    .push((i.ident.to_string(), self.cur_fn, made));
            }
            if underscore && let Some(i) = chain.as_ref().and_then(|c| c.origin) {
                self.unused_bindings.insert(i);
            }
            // `let init = thread::spawn(..);` and `init` never written again in the
            // function: the handle is dropped at the end of its block, never joined, as
            // with `let _init`
            if !dropped
                && let syn::Pat::Ident(i) = pat_of(pat)
                && i.by_ref.is_none()
                && i.subpat.is_none()
                && let Some(c) = chain.as_ref()
                && let Some(origin) = c.origin
                && (c.thread_handle_after().is_some()
                    || super::calls_thread_fn(c, &self.opts.thread_fns))
                && !self.named_later(&i.ident.to_string(), init)
            {
                self.model.chains[origin].usage = Usage::Dropped;
                self.unused_bindings.insert(origin);
            }
            let known_value = || {
                self.eval_duration(init, 0)
                    .map(BindVal::Duration)
                    .or_else(|| self.eval_number(init, 0).map(BindVal::Num))
            };
            val = match chain {
                Some(ch) => match duration_of_chain(&ch) {
                    Some(d) => Some(BindVal::Duration(d)),
                    // a number or duration with a default, whatever it is read from
                    // (`let secs = env::var(..).ok().and_then(..).unwrap_or(30);`)
                    None => known_value().or(Some(BindVal::Chain(Box::new(ch)))),
                },
                None => known_value(),
            };
            if let Some(e) = diverge {
                self.visit_expr(e);
            }
        }
        let vague = match &val {
            None => true,
            Some(BindVal::Chain(c)) => c.pending.is_some(),
            Some(_) => false,
        };
        if vague && let Some(t) = init.and_then(|e| self.alias_value(e)) {
            // `let (_, http1) = cfg.as_ref();` of a tuple whose elements are known, `let
            // dispatcher = dispatcher.clone();` of a workspace type
            val = Some(t);
        }
        if let syn::Pat::Type(t) = pat {
            // the declared type, where the value says less: a runtime handle or
            // runtime is one whatever its (`Some(h)`, a helper's) expression
            let declared = self.type_value(&t.ty);
            let spawner = matches!(&declared, Some(BindVal::Chain(c))
                if known::RAW_SPAWN_RECEIVERS.contains(&c.root.join("::").as_str()));
            let vague = match &val {
                None => true,
                Some(BindVal::Chain(c)) => c.pending.is_some(),
                Some(_) => false,
            };
            if val.is_none() || (spawner && vague) {
                val = declared;
            } else if is_plain_type(&t.ty)
                && let Some(BindVal::Chain(c)) = &mut val
            {
                // a `String`, a number: no rule's type, whatever the receiver is
                let n = c.steps.len();
                c.plain_after = Some(n);
                if let Some(made) = c.origin.and_then(|i| self.model.chains.get_mut(i))
                    && made.chain.steps.len() == n
                    && made.chain.pending == c.pending
                {
                    made.chain.plain_after = Some(n);
                }
            }
        }
        self.bind_unwrapped(pat, val);
    }

    /// The values of the elements of the tuple a block ends with (`{ ..; (a, b) }`), each
    /// valued in the block's scope (kftray's `let (active, runtime) = { let app_state =
    /// window.state::<AppState>(); .. (app_state.active.clone(), app_state.runtime.clone())
    /// };`); `None` (and nothing visited) unless the block ends with a tuple of `arity`.
    fn block_tuple_values(&mut self, b: &syn::Block, arity: usize) -> Option<Vec<Option<BindVal>>> {
        let (syn::Stmt::Expr(syn::Expr::Tuple(tail), None), before) = b.stmts.split_last()? else {
            return None;
        };
        if tail.elems.len() != arity {
            return None;
        }
        self.push_block_scope(&b.stmts);
        self.resolver_blocks += 1;
        for st in before {
            self.visit_stmt(st);
        }
        let vals = tail
            .elems
            .iter()
            .map(|e| match self.value_of_expr(e) {
                Some(ch) => Some(BindVal::Chain(Box::new(ch.through_binding()))),
                None => self.alias_value(e),
            })
            .collect();
        self.resolver_blocks -= 1;
        self.pop_scope_raw();
        Some(vals)
    }

    /// The elements of the tuples an `if`'s branches end in ([`if_tuple_arity`]), each the
    /// first branch's that values it; visits the condition and the branches.
    fn if_tuple_values(&mut self, i: &syn::ExprIf, arity: usize) -> Vec<Option<BindVal>> {
        self.enter_scope_empty();
        self.visit_expr(&i.cond);
        let mut vals = self
            .block_tuple_values(&i.then_branch, arity)
            .unwrap_or_default();
        self.leave_scope_empty();
        let els = match i.else_branch.as_ref().map(|(_, e)| &**e) {
            Some(syn::Expr::Block(b)) => self.block_tuple_values(&b.block, arity),
            Some(syn::Expr::If(inner)) => Some(self.if_tuple_values(inner, arity)),
            _ => None,
        };
        for (k, v) in els.into_iter().flatten().enumerate() {
            match vals.get_mut(k) {
                Some(slot @ None) => *slot = v,
                Some(Some(_)) => {}
                None => vals.push(v),
            }
        }
        vals
    }

    /// The tuple, or value of a workspace type, a binding holds, also through `&x`, `*x`,
    /// `x.as_ref()`, `x.clone()`, `x.deref()`, `x.borrow()` (`let dispatcher =
    /// dispatcher.clone();` of a `dispatcher: &Dispatcher`); the runtime or handle a binding
    /// holds, shared (`Arc::new(runtime)`); or the managed state an app hands out
    /// ([`Self::managed_state`]).
    pub(super) fn alias_value(&self, e: &syn::Expr) -> Option<BindVal> {
        if let Some(v) = self.managed_state(e) {
            return Some(v);
        }
        match e {
            syn::Expr::Paren(p) => self.alias_value(&p.expr),
            syn::Expr::Reference(r) => self.alias_value(&r.expr),
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.alias_value(&u.expr),
            syn::Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(
                        m.method.to_string().as_str(),
                        "as_ref" | "clone" | "deref" | "borrow"
                    ) =>
            {
                self.alias_value(&m.receiver)
            }
            syn::Expr::Path(p) => match self.bound_to(p)? {
                t @ (BindVal::Tuple(_) | BindVal::Typed(_)) => Some(t.clone()),
                _ => None,
            },
            // a runtime or handle bound first, then shared (vss-server: `Ok(runtime) =>
            // Arc::new(runtime)` of its builder's `Result`): what the name holds
            syn::Expr::Call(c)
                if c.args.len() == 1
                    && matches!(&*c.func, syn::Expr::Path(f)
                        if super::attrs::is_new_of(&f.path, super::attrs::POINTERS)) =>
            {
                let syn::Expr::Path(p) = c.args.first()? else {
                    return None;
                };
                match self.bound_to(p)? {
                    BindVal::Chain(ch)
                        if known::RAW_SPAWN_RECEIVERS.contains(&ch.root_str().as_str()) =>
                    {
                        Some(BindVal::Chain(Box::new(
                            ch.as_ref().clone().through_binding(),
                        )))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// What the local binding a plain name `p` reads holds.
    fn bound_to(&self, p: &syn::ExprPath) -> Option<&BindVal> {
        let name = p.path.get_ident()?.to_string();
        self.resolver
            .is_binding(&name)
            .then(|| self.binding_val(&name))?
    }

    /// The value an application manages for its handlers, asked for by type with a
    /// turbofish: `app.state::<AppState>()` (Tauri's `Manager::state`, whose `State`
    /// dereferences to it; Rocket's `Rocket::state`), `app.try_state::<AppState>()`
    /// unwrapped (`?`, `.unwrap()`, `.expect(..)`): a value of the type it names (kftray's
    /// `window.state::<AppState>().runtime`, the runtime its tray and window handlers spawn
    /// on).
    pub(super) fn managed_state(&self, e: &syn::Expr) -> Option<BindVal> {
        let syn::Expr::MethodCall(m) = super::flow::unwrapped(e) else {
            return None;
        };
        if !m.args.is_empty() || !(m.method == "state" || m.method == "try_state") {
            return None;
        }
        let turbofish = m.turbofish.as_ref()?;
        match turbofish.args.iter().collect::<Vec<_>>()[..] {
            [syn::GenericArgument::Type(ty)] => match self.type_value(ty)? {
                t @ BindVal::Typed(_) => Some(t),
                _ => None,
            },
            _ => None,
        }
    }

    pub(super) fn cfg_windows_macro(e: &syn::Expr) -> bool {
        if let syn::Expr::Macro(m) = e
            && m.mac.path.is_ident("cfg")
        {
            return is_windows_cfg_text(&m.mac.tokens.to_string());
        }
        false
    }
}

impl<'ast> Visit<'ast> for Collector<'_, '_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Trait(t) => &t.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Macro(m) => &m.attrs,
            _ => &[],
        };
        if let syn::Item::Mod(m) = item
            && m.content.is_none()
            && self.resolver_blocks == 0
        {
            // recorded even when test code is skipped: the declared file is test code
            let mut path = self.mod_stack.clone();
            path.push(m.ident.to_string());
            self.model.mod_decls.push(ModDecl {
                path,
                path_attr: path_attr(&m.attrs),
                cfg_test: is_test_attrs(&m.attrs),
                wasm_only: crate::targetcode::is_wasm_only_attrs(&m.attrs),
                windows_only: is_windows_only(&m.attrs),
            });
        }
        if self.skip_test(attrs) {
            return;
        }
        let saved = self.ctx.clone();
        if is_windows_only(attrs) {
            self.ctx.windows_only = true;
        }
        self.mark_test(attrs);
        match item {
            syn::Item::Fn(f) => match super::attrs::implement_receiver(&f.attrs) {
                // `#[implement(super::Service)] fn f(&self)`: a method of that type, as
                // the attribute expands it
                Some(ty) => {
                    let saved_self = self.self_ty.take();
                    self.self_ty = self.type_canon(&ty);
                    let name = self.self_ty.as_ref().and_then(|t| t.last().cloned());
                    self.item_stack.push(name.unwrap_or_else(|| "impl".into()));
                    self.in_impl = true;
                    self.visit_fn(&f.attrs, &f.sig, Some(&f.block));
                    self.in_impl = false;
                    self.item_stack.pop();
                    self.self_ty = saved_self;
                }
                None => self.visit_fn(&f.attrs, &f.sig, Some(&f.block)),
            },
            syn::Item::Mod(m) => {
                let name = m.ident.to_string();
                // `mod x;` out of line: recorded above
                if let Some((_, items)) = &m.content {
                    let child = self
                        .resolver
                        .tree()
                        .get(self.resolver.module())
                        .children
                        .get(&name)
                        .copied();
                    let saved_values = std::mem::take(&mut self.values);
                    let saved_blocks = std::mem::replace(&mut self.resolver_blocks, 0);
                    let saved_res = child.map(|c| self.resolver.enter_module(c));
                    self.item_stack.push(name.clone());
                    self.mod_stack.push(name);
                    self.ctx.in_drainable = false;
                    for i in items {
                        self.visit_item(i);
                    }
                    self.mod_stack.pop();
                    self.item_stack.pop();
                    if let Some(s) = saved_res {
                        self.resolver.leave_module(s);
                    }
                    self.values = saved_values;
                    self.resolver_blocks = saved_blocks;
                }
            }
            syn::Item::Struct(st) => self.record_fields(st),
            syn::Item::Enum(en) => self.record_variant_fields(en),
            syn::Item::Type(t) => {
                if let Some(ty) = self.type_canon(&t.ty) {
                    let mut p = self.resolver.tree().module_path(self.resolver.module());
                    p.push(t.ident.to_string());
                    self.model.decls.aliases.push((p, ty));
                }
            }
            syn::Item::Impl(i) => {
                let ty = match &*i.self_ty {
                    syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                }
                .unwrap_or_else(|| "impl".into());
                let saved_self = self.self_ty.take();
                self.self_ty = self.type_canon(&i.self_ty);
                self.item_stack.push(ty);
                self.ctx.in_drainable = false;
                for it in &i.items {
                    match it {
                        syn::ImplItem::Fn(f) => {
                            self.in_impl = true;
                            self.visit_fn(&f.attrs, &f.sig, Some(&f.block));
                            self.in_impl = false;
                        }
                        syn::ImplItem::Const(c) => {
                            self.visit_expr(&c.expr);
                        }
                        syn::ImplItem::Macro(m) => self.visit_macro_body(&m.mac),
                        _ => {}
                    }
                }
                self.record_deref_target(i);
                self.item_stack.pop();
                self.self_ty = saved_self;
            }
            syn::Item::Trait(t) => {
                self.item_stack.push(t.ident.to_string());
                self.ctx.in_drainable = false;
                for it in &t.items {
                    if let syn::TraitItem::Fn(f) = it {
                        self.in_impl = true;
                        self.visit_fn(&f.attrs, &f.sig, f.default.as_ref());
                        self.in_impl = false;
                    }
                }
                self.item_stack.pop();
            }
            syn::Item::Const(c) => {
                self.ctx.in_drainable = false;
                self.visit_expr(&c.expr);
            }
            syn::Item::Static(st) => {
                // `static RT: LazyLock<Runtime> = ..;` read like a function returning its
                // type: `RT.spawn(..)` is asked of the workspace model as `RT()` would be
                if let Some(ret) = self.type_canon(&st.ty) {
                    let mut path = self.resolver.tree().module_path(self.resolver.module());
                    path.push(st.ident.to_string());
                    self.model.decls.fns.push(FnDecl {
                        path,
                        owner: None,
                        name: st.ident.to_string(),
                        ret,
                        builder: None,
                        builds_param: None,
                        returns_param: None,
                        sets_timeout: false,
                    });
                }
                self.ctx.in_drainable = false;
                self.visit_expr(&st.expr);
            }
            syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                if let Some(name) = &m.ident {
                    self.visit_macro_definition(&name.to_string(), &m.mac);
                }
            }
            syn::Item::Macro(m) if m.ident.is_none() => {
                self.ctx.in_drainable = false;
                self.visit_macro_body(&m.mac);
            }
            _ => {}
        }
        self.ctx = saved;
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        let _ = self.visit_block_value(b, false);
    }

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        match s {
            syn::Stmt::Local(l) => {
                if self.skip_test(&l.attrs) {
                    return;
                }
                let saved = self.ctx.clone();
                if is_windows_only(&l.attrs) {
                    self.ctx.windows_only = true;
                }
                self.mark_test(&l.attrs);
                match &l.init {
                    // `let (a, b) = (x.clone(), y);`: each name is bound to its own value
                    Some(init)
                        if init.diverge.is_none()
                            && let Some(pairs) = tuple_pairs(&l.pat, &init.expr) =>
                    {
                        for (pat, expr) in pairs {
                            self.bind_local(pat, Some(expr), None);
                        }
                    }
                    Some(init) => {
                        let diverge = init.diverge.as_ref().map(|(_, e)| &**e);
                        self.bind_local(&l.pat, Some(&init.expr), diverge);
                    }
                    None => self.bind_local(&l.pat, None, None),
                }
                self.ctx = saved;
            }
            syn::Stmt::Item(i) => {
                let saved_drainable = self.ctx.in_drainable;
                self.ctx.in_drainable = false;
                self.visit_item(i);
                self.ctx.in_drainable = saved_drainable;
            }
            syn::Stmt::Expr(e, semi) => {
                let attrs = expr_attrs(e);
                if self.skip_test(attrs) {
                    return;
                }
                let saved = self.ctx.clone();
                if is_windows_only(attrs) {
                    self.ctx.windows_only = true;
                }
                self.mark_test(attrs);
                self.pending = if semi.is_some() {
                    Usage::Dropped
                } else {
                    Usage::Kept
                };
                self.visit_expr(e);
                self.ctx = saved;
            }
            syn::Stmt::Macro(m) => {
                if self.skip_test(&m.attrs) {
                    return;
                }
                let saved = self.ctx.clone();
                if is_windows_only(&m.attrs) {
                    self.ctx.windows_only = true;
                }
                self.mark_test(&m.attrs);
                self.visit_macro_body(&m.mac);
                self.ctx = saved;
            }
        }
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        let _ = self.visit_expr_value(e);
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}
}

impl Collector<'_, '_> {
    /// `impl Deref for T { type Target = U; }`: `T::deref` returns `U`, so the workspace
    /// model can look a field or method up on what `T` dereferences to (tuwunel's
    /// `OnceServices`, whose `services.server` is `Services`' field).
    fn record_deref_target(&mut self, i: &syn::ItemImpl) {
        let Some(owner) = self.self_ty.clone() else {
            return;
        };
        let is_deref = i
            .trait_
            .as_ref()
            .and_then(|(_, p, _)| p.segments.last())
            .is_some_and(|s| s.ident == "Deref");
        if !is_deref {
            return;
        }
        let target = i.items.iter().find_map(|it| match it {
            syn::ImplItem::Type(t) if t.ident == "Target" => self.type_canon(&t.ty),
            _ => None,
        });
        if let Some(ret) = target {
            let mut path = owner.clone();
            path.push("deref".to_string());
            self.model.decls.fns.push(FnDecl {
                path,
                owner: Some(owner),
                name: "deref".to_string(),
                ret,
                builder: None,
                builds_param: None,
                returns_param: None,
                sets_timeout: false,
            });
        }
    }

    /// Field types of a struct, for `self.rt` in another file; a tuple struct's fields are
    /// named by their position (`self.0`).
    fn record_fields(&mut self, st: &syn::ItemStruct) {
        if matches!(st.fields, syn::Fields::Unit) {
            return;
        }
        let mut owner = self.resolver.tree().module_path(self.resolver.module());
        owner.push(st.ident.to_string());
        let saved = self.self_ty.replace(owner.clone());
        self.record_fields_of(&owner, &st.fields);
        self.record_derived_default_clients(st);
        self.self_ty = saved;
    }

    /// The HTTP clients a `#[derive(Default)]` struct's derived `default()` makes in its
    /// fields, with their library's defaults (musicflow's `#[derive(Default)] struct
    /// MetaClient { client: reqwest::Client }` made by `Self::default()`): a client made at
    /// the field's type, when the file calls `Type::default()` or `Self::default()` (a
    /// struct that only derives it is not known to be made so).
    fn record_derived_default_clients(&mut self, st: &syn::ItemStruct) {
        if !super::attrs::derives_default(&st.attrs) || self.ctx.test_code {
            return;
        }
        let clients: Vec<(&syn::Field, String)> = st
            .fields
            .iter()
            .filter_map(|f| {
                let ctor = known::type_ctor(&self.type_canon(defaulted_type(&f.ty)?)?)?;
                let default = format!("{}::default", ctor.trim_end_matches("::new"));
                matches!(
                    known::http_ctor(&default),
                    Some((known::HttpKind::Client, _))
                )
                .then_some((f, default))
            })
            .collect();
        // (the file's text is read only for a struct holding a client)
        if clients.is_empty()
            || !made_by_default(self.index.text(0..usize::MAX), &st.ident.to_string())
        {
            return;
        }
        for (f, default) in clients {
            // (the flow keys the field's sink by the same place: `attrs::field_type_offset`)
            let region = self.region(f.ty.span());
            let mut chain = Chain::at(crate::resolve::split_path(&default), region);
            chain.written = Some(format!("{}::default", st.ident));
            self.model.chains.push(ChainUse {
                chain,
                usage: Usage::Kept,
                ctx: self.ctx.clone(),
                escapes: false,
                calls_bounded: false,
            });
        }
    }

    /// The fields of each variant of an enum, as a struct's of the variant's path
    /// (`Handle::Tokio` holding `0: TokioHandle`): what a pattern binds in `match self {
    /// Self::Tokio(handle) => handle.spawn(future), .. }` (SpacetimeDB's runtime handle,
    /// a Tokio handle or a simulator's).
    fn record_variant_fields(&mut self, en: &syn::ItemEnum) {
        let mut owner = self.resolver.tree().module_path(self.resolver.module());
        owner.push(en.ident.to_string());
        let saved = self.self_ty.replace(owner.clone());
        for v in &en.variants {
            let mut path = owner.clone();
            path.push(v.ident.to_string());
            self.record_fields_of(&path, &v.fields);
        }
        self.self_ty = saved;
    }

    fn record_fields_of(&mut self, owner: &Canon, fields: &syn::Fields) {
        for (i, f) in fields.iter().enumerate() {
            let name = f
                .ident
                .as_ref()
                .map_or_else(|| i.to_string(), ToString::to_string);
            if let Some(ty) = self.type_canon(&f.ty) {
                self.model.decls.fields.push((owner.clone(), name, ty));
            }
        }
    }
}

/// The `#[path = ".."]` of a module declaration.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| {
        if !a.path().is_ident("path") {
            return None;
        }
        match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        }
    })
}

/// The type whose own `default()` a field's derived `Default` calls: through `Arc`, `Rc`,
/// `Box`, `Mutex`, `RwLock` (each defaults to its content's default); `None` for any other
/// generic type (an `Option<Client>` defaults to `None`, making no client).
fn defaulted_type(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    match &last.arguments {
        syn::PathArguments::None => Some(ty),
        syn::PathArguments::AngleBracketed(a)
            if matches!(
                last.ident.to_string().as_str(),
                "Arc" | "Rc" | "Box" | "Mutex" | "RwLock"
            ) =>
        {
            match a.args.first()? {
                syn::GenericArgument::Type(inner) => defaulted_type(inner),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `text` (a file as written: a pruned body's calls too) makes a `name` by its
/// `Default`: `name::default()`, or `Self::default()` in an `impl` of `name` (the nearest
/// `impl` header before it names that type, after `for` when it has one).
/// Test code ([`crate::prune::without_test_code`]: the bodies of `#[cfg(test)]` modules and
/// test functions) does not count, nor comments and literals (rustfs's
/// `BucketTargetSys::default()` only in its tests).
fn made_by_default(text: &str, name: &str) -> bool {
    let pruned = crate::prune::without_test_code(text);
    let text = pruned.as_ref().map_or(text, |p| p.text.as_str());
    let code = crate::lexscan::code_only(text);
    if memchr::memmem::find(&code, format!("{name}::default()").as_bytes()).is_some() {
        return true;
    }
    memchr::memmem::find_iter(&code, b"Self::default()").any(|at| {
        memchr::memmem::rfind(&code[..at], b"impl")
            .is_some_and(|h| impl_header_type(&text[h + 4..at]) == Some(name))
    })
}

/// The name of the type an `impl` header is for (`<T> Meta<T> {`, `Default for Meta {`:
/// `Meta`); `after` is the text after `impl`.
fn impl_header_type(after: &str) -> Option<&str> {
    let header = &after[..after.find('{')?];
    let mut ty = header.rsplit(" for ").next()?.trim_start();
    // `impl<T>`: its generics come first
    if ty.starts_with('<') {
        let mut depth = 0usize;
        let end = ty.char_indices().find_map(|(i, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth = depth.saturating_sub(1),
                _ => {}
            }
            (depth == 0).then_some(i + 1)
        })?;
        ty = ty[end..].trim_start();
    }
    let path = ty
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .next()?;
    path.rsplit("::").next().filter(|n| !n.is_empty())
}

/// The arity of the tuples every branch of an `if` with an `else` ends in, when they agree
/// (`if c { (a.x(), 1) } else if d { (a, 2) } else { (a, 0) }`: 2).
fn if_tuple_arity(i: &syn::ExprIf) -> Option<usize> {
    let tail = |b: &syn::Block| match b.stmts.last() {
        Some(syn::Stmt::Expr(syn::Expr::Tuple(t), None)) => Some(t.elems.len()),
        _ => None,
    };
    let then = tail(&i.then_branch)?;
    let els = match &*i.else_branch.as_ref()?.1 {
        syn::Expr::Block(b) => tail(&b.block)?,
        syn::Expr::If(inner) => if_tuple_arity(inner)?,
        _ => return None,
    };
    (then == els).then_some(then)
}

/// The pairs of `let (a, b) = (x, y);` (parentheses around the tuple allowed): a pattern
/// and an expression of the same arity, no `..` in the pattern.
fn tuple_pairs<'p>(
    pat: &'p syn::Pat,
    expr: &'p syn::Expr,
) -> Option<Vec<(&'p syn::Pat, &'p syn::Expr)>> {
    let mut expr = expr;
    while let syn::Expr::Paren(p) = expr {
        expr = &p.expr;
    }
    let (syn::Pat::Tuple(pt), syn::Expr::Tuple(et)) = (pat, expr) else {
        return None;
    };
    if pt.elems.len() != et.elems.len() || pt.elems.iter().any(|p| matches!(p, syn::Pat::Rest(_))) {
        return None;
    }
    Some(pt.elems.iter().zip(et.elems.iter()).collect())
}

/// Types a binding may declare that hold no runtime, client or builder a rule reads,
/// whatever the value's chain: text, numbers, paths.
const PLAIN_TYPES: &[&str] = &[
    "String", "str", "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16",
    "i32", "i64", "i128", "isize", "f32", "f64", "PathBuf", "Path", "OsString",
];

/// Whether `ty` is one of [`PLAIN_TYPES`], also behind references (`&str`), named alone
/// or by a `std` path, without generic arguments.
fn is_plain_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => is_plain_type(&r.elem),
        syn::Type::Paren(p) => is_plain_type(&p.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let segs = &p.path.segments;
            let std_path = segs.len() == 1
                || segs
                    .first()
                    .is_some_and(|s| s.ident == "std" || s.ident == "core" || s.ident == "alloc");
            segs.last().is_some_and(|last| {
                std_path && last.arguments.is_none() && PLAIN_TYPES.iter().any(|t| last.ident == t)
            })
        }
        _ => false,
    }
}

/// Words that make a macro body worth parsing besides the byte scan's needles: a server
/// served inside a spawn helper's macro (`bg!(async move { http.serve_connection(..) })`),
/// a request bounded inside `select!` (`client.get(u).timeout(d).send()`).
const MACRO_BODY_WORDS: &[&str] = &["serve", "timeout"];

/// The local a method chain starts from: `b` of `b.tls_config(c)?.layer(l)`.
fn chain_root_ident(e: &syn::Expr) -> Option<String> {
    match super::flow::unchain(e).1 {
        syn::Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        _ => None,
    }
}

/// The value wrapped by a tail `Ok(x)` or `Some(x)`.
fn ok_or_some_arg(e: &syn::Expr) -> Option<&syn::Expr> {
    let syn::Expr::Call(call) = e else {
        return None;
    };
    let syn::Expr::Path(f) = &*call.func else {
        return None;
    };
    let wraps = f.qself.is_none()
        && f.path.segments.len() == 1
        && ["Ok", "Some"].iter().any(|w| f.path.is_ident(w));
    match (wraps, call.args.len()) {
        (true, 1) => call.args.first(),
        _ => None,
    }
}

/// A parameter that unwraps a one-field wrapper generic over its content, the way axum's
/// extractors are written (`State(services): State<Arc<Services>>`, `Extension(rt):
/// Extension<Handle>`): the inner pattern and the type argument it holds. The wrapper is
/// recognised by the pattern naming the parameter's own type with one type argument.
fn newtype_param<'p>(
    pat: &'p syn::Pat,
    ty: &'p syn::Type,
) -> Option<(&'p syn::Pat, &'p syn::Type)> {
    let syn::Pat::TupleStruct(p) = pat else {
        return None;
    };
    let syn::Type::Path(t) = ty else {
        return None;
    };
    let (Some(named), Some(wrapper)) = (p.path.segments.last(), t.path.segments.last()) else {
        return None;
    };
    if p.elems.len() != 1 || named.ident != wrapper.ident {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &wrapper.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    match (types.next(), types.next()) {
        (Some(inner), None) => Some((&p.elems[0], inner)),
        _ => None,
    }
}

/// The parameter of `sig` named `name` (a plain name) and its index among the typed ones
/// (a method's receiver not counted: the index of a call's argument).
fn typed_param<'s>(
    sig: &'s syn::Signature,
    name: &syn::Ident,
) -> Option<(usize, &'s syn::PatType)> {
    sig.inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => Some(t),
            syn::FnArg::Receiver(_) => None,
        })
        .enumerate()
        .find(|(_, t)| matches!(&*t.pat, syn::Pat::Ident(i) if i.ident == *name))
}

/// Finds a method call that sets a timeout (`.timeout(..)`, `.timeout_global(..)`, ..), or
/// a macro that may (its tokens are not read).
struct NamesTimeout(bool);

impl<'ast> syn::visit::Visit<'ast> for NamesTimeout {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.0 |= m.method.to_string().contains("timeout");
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.0 |= m.tokens.to_string().contains("timeout");
    }
}

/// Whether `ty` is `std::thread::JoinHandle`.
fn is_thread_handle(ty: &[String]) -> bool {
    known::type_ctor(ty) == Some(known::THREAD_SPAWN_FN)
}

/// Whether `ty` is a reference, or holds one where [`Collector::type_canon`] peels it
/// (`Option<&T>`, `Result<&T, E>`).
fn is_borrowed(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(_) => true,
        syn::Type::Paren(p) => is_borrowed(&p.elem),
        syn::Type::Group(g) => is_borrowed(&g.elem),
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|last| {
            matches!(&last.arguments, syn::PathArguments::AngleBracketed(a)
                if a.args.first().is_some_and(|g| matches!(g, syn::GenericArgument::Type(t) if is_borrowed(t))))
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_struct_is_made_by_default_by_its_own_name_or_in_its_own_impl() {
        let own = "impl Meta { fn new() -> Self { Self::default() } }";
        assert!(made_by_default(own, "Meta"));
        assert!(!made_by_default(own, "Other"));
        assert!(made_by_default(
            "fn f() -> Meta { Meta::default() }",
            "Meta"
        ));
        let generic =
            "impl<T: Clone> crate::meta::Meta<T> {\n fn new() -> Self { Self::default() } }";
        assert!(made_by_default(generic, "Meta"));
        let traited = "impl From<u8> for Meta { fn from(_: u8) -> Self { Self::default() } }";
        assert!(made_by_default(traited, "Meta"));
        assert!(!made_by_default("struct Meta; fn f() {}", "Meta"));
        // only tests (or a comment) make it so
        let tests = "struct Meta { #[cfg(test)] probe: u8, c: C }\n\
                     impl Meta { fn new() -> Self { Meta { c: C::new() } } }\n\
                     // Meta::default() in a comment\n\
                     #[cfg(test)]\nmod tests { fn t() { let m = Meta::default(); } }";
        assert!(!made_by_default(tests, "Meta"));
        let unit = "#[test]\nfn made(a: u8, b: u8) { Meta::default(); }";
        assert!(!made_by_default(unit, "Meta"));
    }
}
