//! Chains: a call and the methods, `?` and `.await` applied to its result, resolved and
//! recorded when a rule may care; path references that are not called.

use super::state::{BindVal, Collector};
use crate::model::{ArgValue, Chain, ChainUse, PathRef, Step, SymRoot, Usage};
use crate::resolve::{Canon, Resolution, known};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

impl Collector<'_, '_> {
    /// Visits a call / method-call / `?` / `.await` expression as one chain and records it.
    /// Returns the chain (for `let` bindings).
    pub(super) fn visit_chain(&mut self, e: &syn::Expr, usage: Usage) -> Option<Chain> {
        let mut layers: Vec<&syn::Expr> = Vec::new();
        let mut cur = e;
        loop {
            match cur {
                // `opt.map(|o| o.handle())`: the closure's value is the root
                syn::Expr::MethodCall(m) if mapping_closure(m).is_some() => break,
                // `iter.fold(builder, ClientBuilder::proxy)`: the folded value is the root
                syn::Expr::MethodCall(m) if is_fold(m) => break,
                // `h.into().unwrap_or_else(Handle::current)`: the default's runtime handle
                syn::Expr::MethodCall(m) if self.handle_default(m).is_some() => break,
                // `self.client.unwrap_or_else(|| { let mut b = Client::builder(..); .. b })`:
                // a client made here when the option holds none
                syn::Expr::MethodCall(m) if self.made_default(m).is_some() => break,
                syn::Expr::MethodCall(m) => {
                    layers.push(cur);
                    cur = &m.receiver;
                }
                syn::Expr::Try(t) => {
                    layers.push(cur);
                    cur = &t.expr;
                }
                syn::Expr::Await(a) => {
                    layers.push(cur);
                    cur = &a.base;
                }
                syn::Expr::Paren(p) if !layers.is_empty() => cur = &p.expr,
                // `unsafe { STATE.as_ref() }.expect(..)`: the block's value
                syn::Expr::Unsafe(u) if !layers.is_empty() && block_value(&u.block).is_some() => {
                    cur = block_value(&u.block).unwrap_or(cur);
                }
                // `Arc::new(Runtime::new()?)`: a shared pointer's methods are its content's
                syn::Expr::Call(c) if shared_content(c).is_some() => {
                    cur = shared_content(c).unwrap_or(cur);
                }
                // `Arc::clone(&self.ctx)`: what `self.ctx.clone()` is
                syn::Expr::Call(c) if pointer_clone(c).is_some() => {
                    cur = pointer_clone(c).unwrap_or(cur);
                }
                _ => break,
            }
        }
        let mut drop_call = false;
        if let syn::Expr::Call(c) = cur
            && let syn::Expr::Path(p) = &*c.func
        {
            self.record_call_path(&p.path);
            if p.path
                .segments
                .last()
                .is_some_and(|s| known::SIGNAL_SENDERS.contains(&s.ident.to_string().as_str()))
            {
                let args = self.region(c.paren_token.span.join());
                self.model.signal_sends.push(args);
            }
        }
        for layer in &layers {
            if let syn::Expr::MethodCall(m) = layer
                && known::SIGNAL_SENDERS.contains(&m.method.to_string().as_str())
            {
                let args = self.region(m.paren_token.span.join());
                self.model.signal_sends.push(args);
            }
        }
        // a root only the workspace model can tell is worth building when a method that a
        // rule looks at is applied, or when the value is bound
        // .. or when the statement drops what a function named as a spawn returns
        // (`thread::spawn(&nid, "control", f);` of the workspace's own `spawn`, which
        // returns a thread's handle)
        let drops_result =
            usage == Usage::Dropped && drops_spawned(cur, &layers, &self.opts.thread_fns);
        let symbolic_ok = self.want_value
            || drops_result
            || layers.iter().any(
                |l| matches!(l, syn::Expr::MethodCall(m) if is_trigger(&m.method.to_string())),
            );
        self.want_value = false;
        // layers consumed into a symbolic root (`self.pick_handle()`): not steps
        let mut consumed = 0;
        // a field of what a call returns (`self.runtime().0.tokio`, krill): visited here
        let mut base_visited = false;
        let mut chain: Option<Chain> = match cur {
            syn::Expr::Field(f) if symbolic_ok && let Some((base, members)) = field_of_call(f) => {
                base_visited = true;
                self.field_of_value(base, &members)
            }
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => match self.resolve_self(&p.path) {
                    Resolution::Path(root) => {
                        drop_call = root.len() == 1 && root[0] == "drop";
                        // only calls of paths a rule knows become chains: the others
                        // (most calls of a file) cost no regions, steps or argument values
                        if self.is_interesting(&root) {
                            // spelled otherwise than what it resolves to (`task::spawn`)
                            let same = p.path.segments.len() == root.len()
                                && p.path.segments.iter().zip(&root).all(|(s, r)| s.ident == r);
                            let written = (!same).then(|| path_text(&p.path));
                            Some(Chain {
                                root_args: c.args.iter().map(|a| self.eval_arg(a)).collect(),
                                written,
                                ..Chain::at(root, self.region(p.path.span()))
                            })
                        } else if symbolic_ok && !drop_call {
                            let via = path_text(&p.path);
                            let mut ch = self.symbolic(SymRoot::Call(root), p.path.span());
                            ch.via = Some(via);
                            Some(ch)
                        } else {
                            None
                        }
                    }
                    _ => None,
                },
                _ => None,
            },
            syn::Expr::Path(p) if !layers.is_empty() => match self.resolve(&p.path, true) {
                Resolution::Binding(name) => match self.binding_val(&name) {
                    Some(BindVal::Chain(ch)) => {
                        // a method called on the value uses it (`_worker.join()`), not one
                        // a thread's handle only lends by (`joiner.thread().clone()`)
                        let lends = ch.thread_handle_after().is_some()
                            && matches!(layers.last(), Some(syn::Expr::MethodCall(m))
                                if m.method == "thread");
                        let ch = (**ch).clone().through_binding();
                        if !lends {
                            self.mark_used(ch.origin, false);
                        }
                        Some(ch)
                    }
                    Some(BindVal::Typed(t)) if symbolic_ok => {
                        let owner = Some(t.clone());
                        if let Some(syn::Expr::MethodCall(m)) = layers.last()
                            && TRIGGERS.iter().any(|t| m.method == t)
                        {
                            // `runtime.spawn(..)` on `runtime: RuntimeRef`: what the
                            // declared type is, the workspace model tells (an alias)
                            Some(self.symbolic(SymRoot::Typed(t.clone()), p.path.span()))
                        } else {
                            self.method_root(&layers, owner, &mut consumed)
                        }
                    }
                    None if symbolic_ok => self.method_root(&layers, None, &mut consumed),
                    _ => None,
                },
                Resolution::Path(path) if p.path.is_ident("self") => {
                    let _ = path;
                    if symbolic_ok {
                        let owner = self.self_ty.clone();
                        self.method_root(&layers, owner, &mut consumed)
                    } else {
                        None
                    }
                }
                Resolution::Path(path) => {
                    // a static (`QUERY_RUNTIME.spawn(..)`, `HTTP.post(u).timeout(d)`): its
                    // declared type is the workspace model's to tell, as a function's result
                    let is_static = path.last().is_some_and(|l| {
                        l.chars().any(|c| c.is_ascii_uppercase())
                            && !l.chars().any(|c| c.is_ascii_lowercase())
                    });
                    let out = (symbolic_ok && is_static).then(|| {
                        let mut ch = self.symbolic(SymRoot::Call(path.clone()), p.path.span());
                        ch.via = Some(path_text(&p.path));
                        ch
                    });
                    self.record_ref(path, p.path.span());
                    out
                }
                Resolution::Unknown => None,
            },
            syn::Expr::Field(f) if symbolic_ok => self.field_root(f),
            // `if let Some(p) = proxy { ClientBuilder::new().proxy(p) } else {
            // ClientBuilder::new() }.build()` (Plume): the branches' value, as if bound to a
            // name first
            syn::Expr::If(_) | syn::Expr::Match(_) if !layers.is_empty() => {
                self.value_of_expr(cur).map(Chain::through_binding)
            }
            syn::Expr::MethodCall(m) => {
                self.record_method_call(m);
                // recorded inside the closure already: here a value, as if bound to a name
                if is_fold(m) {
                    self.folded_value(m).map(Chain::through_binding)
                } else if let Some(ch) = self.handle_default(m) {
                    self.visit_expr(&m.receiver);
                    Some(ch.through_binding())
                } else if let Some(body) = self.made_default(m) {
                    self.visit_expr(&m.receiver);
                    self.enter_scope_empty();
                    let out = self.value_of_expr(body);
                    self.leave_scope_empty();
                    out.map(Chain::through_binding)
                } else {
                    self.mapped_value(m).map(Chain::through_binding)
                }
            }
            _ => None,
        };
        // the methods applied, as calls for the call graph — but for a known server's own
        // (`Server::builder().add_service(s).serve(addr)`, `warp::serve(f).run(addr)`):
        // inherent methods of its library's type, which no method of the workspace of that
        // name can be, so a call by name must not reach the workspace's `serve` or `run`
        // (and be credited with the signals it handles)
        let server = chain
            .as_ref()
            .and_then(|ch| known::server_api(&ch.root_str()));
        for layer in &layers {
            if let syn::Expr::MethodCall(m) = layer {
                let own = server.is_some_and(|api| {
                    let name = m.method.to_string();
                    api.serve.contains(&name.as_str()) || api.graceful.contains(&name.as_str())
                });
                if own {
                    self.record_library_method(m);
                } else {
                    self.record_method_call(m);
                }
            }
        }
        // the steps, innermost first
        if let Some(ch) = chain.as_mut() {
            for layer in layers.iter().rev().skip(consumed) {
                let step = match layer {
                    syn::Expr::MethodCall(m) => {
                        let region = self.region(m.method.span());
                        let name = m.method.to_string();
                        let mut args = Vec::with_capacity(m.args.len());
                        for (k, a) in m.args.iter().enumerate() {
                            let v = self.eval_arg(a);
                            if matches!(v, ArgValue::Other)
                                && self.opts.value_timeouts
                                && super::deferred::waits(&name)
                            {
                                self.defer_arg(a, region.offset, k);
                            }
                            args.push(v);
                        }
                        Step { name, region, args }
                    }
                    syn::Expr::Try(t) => Step {
                        name: "?".into(),
                        region: self.region(t.question_token.span()),
                        args: Vec::new(),
                    },
                    syn::Expr::Await(a) => Step {
                        name: "await".into(),
                        region: self.region(a.await_token.span()),
                        args: Vec::new(),
                    },
                    _ => continue,
                };
                ch.steps.push(step);
            }
            // a binding of a chain recorded already: every later use counts too
            // (`let t = starter.start();` then `t.await`)
            let triggered = ch.pending.is_none()
                || drops_result
                // a call of a workspace function returning a thread's handle, bound (a `let`
                // whose name is never named again drops it)
                || super::calls_thread_fn(ch, &self.opts.thread_fns)
                || (ch.via_binding && ch.origin.is_some())
                || ch.steps[ch.inherited.min(ch.steps.len())..]
                    .iter()
                    .any(|s| {
                        is_trigger(&s.name)
                            // an empty `Option` filled in with a default value: a client
                            // made here when the option holds one
                            || crate::workspace::fills_default(s)
                            // `prepare(|request| request.timeout(d))` on a wrapper
                            || s.args.iter().any(|a| {
                                matches!(a, ArgValue::Applied(inner)
                                    if inner.iter().any(|i| is_trigger(&i.name)))
                            })
                    });
            if triggered {
                let index = self.model.chains.len();
                if ch.origin.is_none() {
                    ch.origin = Some(index);
                }
                let mut ctx = self.ctx();
                if let syn::Expr::Call(c) = cur
                    && let syn::Expr::Path(p) = &*c.func
                    && !drainable_routes(p)
                {
                    // `#[drainable]` rewrites only the paths it knows, as written
                    ctx.in_drainable = false;
                }
                self.model.chains.push(ChainUse {
                    chain: ch.clone(),
                    usage,
                    ctx,
                    escapes: false,
                    calls_bounded: false,
                });
            }
        }
        if let Some(ch) = chain.as_ref() {
            self.note_spawn_without_work(ch, cur, &layers);
            self.note_tracker_tasks(ch, cur, &layers);
        }
        // visit everything inside: the root's arguments, then each method's arguments
        match cur {
            syn::Expr::Field(_) if base_visited => {}
            syn::Expr::Field(f) => self.visit_expr(&f.base),
            syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(_)) => {
                let mut builders = Vec::new();
                let spawn = chain.as_ref().is_some_and(|ch| {
                    let root = ch.root_str();
                    known::RAW_SPAWN_FNS.contains(&root.as_str())
                        || known::TRACKED_SPAWN_FNS.contains(&root.as_str())
                });
                let bounds = is_timeout_call(c);
                for (k, a) in c.args.iter().enumerate() {
                    self.pending = if drop_call {
                        Usage::Dropped
                    } else {
                        Usage::Kept
                    };
                    self.into_task = spawn && matches!(a, syn::Expr::Path(_));
                    let made_before = self.model.chains.len();
                    let value = self.visit_expr_value(a).or_else(|| self.bound_chain(a));
                    self.into_task = false;
                    if bounds && k == 1 {
                        self.note_bounded_request(value.as_ref());
                        // `timeout(d, async { Client::new().get(u).send().await })`, also
                        // through `let fut = async { .. };`: the requests made in the block
                        let made = match a {
                            syn::Expr::Async(_) => Some(made_before..self.model.chains.len()),
                            syn::Expr::Path(p) => p.path.get_ident().and_then(|i| {
                                let name = i.to_string();
                                self.async_locals
                                    .iter()
                                    .rev()
                                    .find(|(n, f, _)| *n == name && *f == self.cur_fn)
                                    .map(|(_, _, r)| r.clone())
                            }),
                            _ => None,
                        };
                        let bounded: Vec<usize> = made
                            .into_iter()
                            .flatten()
                            .filter_map(|i| request_made_here(&self.model.chains[i].chain))
                            .collect();
                        for o in bounded {
                            self.mark_bounded(o);
                        }
                    }
                    // an executor bound to a name, given to an HTTP client
                    // (`http2::handshake(executor, io)`)
                    if let (Some(ch), Some(v)) = (chain.as_ref(), value.as_ref())
                        && v.via_binding
                        && known::TOKIO_EXECUTOR.contains(&v.root_str().as_str())
                        && known::http_ctor(&ch.root_str()).is_some()
                    {
                        self.model.client_executors.push(v.root_region.offset);
                    }
                    if let Some(b) = value.filter(is_unbuilt_builder) {
                        builders.push((k, b));
                    }
                }
                if let Some(ch) = chain.as_mut() {
                    self.pass_builders(ch, c.args.len(), builders, usage);
                }
            }
            syn::Expr::Path(_) if !layers.is_empty() => {}
            // visited by `mapped_value`, or for their value above
            syn::Expr::MethodCall(_) => {}
            syn::Expr::If(_) | syn::Expr::Match(_) if !layers.is_empty() => {}
            other => {
                if !layers.is_empty() || !matches!(other, syn::Expr::Call(_)) {
                    self.visit_expr(other);
                } else {
                    visit::visit_expr(self, other);
                }
            }
        }
        for (depth, layer) in layers.iter().rev().enumerate() {
            if let syn::Expr::MethodCall(m) = layer {
                // the method a symbolic root stands for (`self.tls(builder)`): builders
                // passed to it, as to a function
                if depth == 0
                    && consumed == 1
                    && let Some(ch) = chain.as_mut()
                    && matches!(ch.pending, Some(SymRoot::Method { .. }))
                {
                    let mut builders = Vec::new();
                    for (k, a) in m.args.iter().enumerate() {
                        self.pending = Usage::Kept;
                        let value = self.visit_expr_value(a).or_else(|| self.bound_chain(a));
                        if let Some(b) = value.filter(is_unbuilt_builder) {
                            builders.push((k, b));
                        }
                    }
                    self.pass_builders(ch, m.args.len(), builders, usage);
                    continue;
                }
                // `rt.block_on(server)`: the bound value awaited, as `server.await`
                if m.method == "block_on"
                    && let [arg] = m.args.iter().collect::<Vec<_>>()[..]
                    && self.block_on_binding(arg)
                {
                    continue;
                }
                for a in &m.args {
                    self.visit_expr(a);
                }
            }
        }
        self.note_timeout_layer(&layers);
        chain
    }

    /// A workspace function called with HTTP client builders of a known library as
    /// arguments (`build_safe_client(reqwest::Client::builder())`): `ch`, its symbolic
    /// chain, holds them as [`ArgValue::Builder`], and is a use of its own (where the
    /// client is made), so the workspace model can judge the build the function does.
    fn pass_builders(
        &mut self,
        ch: &mut Chain,
        arity: usize,
        builders: Vec<(usize, Chain)>,
        usage: Usage,
    ) {
        if builders.is_empty()
            || !matches!(ch.pending, Some(SymRoot::Call(_) | SymRoot::Method { .. }))
            || !ch.root_args.is_empty()
        {
            return;
        }
        let mut args = vec![ArgValue::Other; arity];
        for (k, b) in builders {
            args[k] = ArgValue::Builder(Box::new(b));
        }
        ch.root_args = args;
        match ch.origin {
            // pushed already (a trigger step applied to the result): that use holds them
            Some(o) => {
                if let Some(cu) = self.model.chains.get_mut(o)
                    && cu.chain.root_region == ch.root_region
                {
                    cu.chain.root_args = ch.root_args.clone();
                }
            }
            None => {
                ch.origin = Some(self.model.chains.len());
                self.model.chains.push(ChainUse {
                    chain: ch.clone(),
                    usage,
                    ctx: self.ctx(),
                    escapes: false,
                    calls_bounded: false,
                });
            }
        }
    }

    /// The chain held by the binding `e` names, the name resolved as a value (a local
    /// binding, not an item or import of that name).
    pub(super) fn resolved_chain(&self, e: &syn::Expr) -> Option<Chain> {
        let syn::Expr::Path(p) = e else { return None };
        let Resolution::Binding(name) = self.resolve(&p.path, true) else {
            return None;
        };
        match self.binding_val(&name)? {
            BindVal::Chain(ch) => Some((**ch).clone()),
            _ => None,
        }
    }

    /// The chain a plain binding holds (`helper(builder)`).
    fn bound_chain(&self, e: &syn::Expr) -> Option<Chain> {
        let syn::Expr::Path(p) = e else { return None };
        match self.binding_val(&p.path.get_ident()?.to_string())? {
            BindVal::Chain(ch) => Some((**ch).clone()),
            _ => None,
        }
    }

    /// The future `timeout(d, ..)` bounds, when it is a request on a client made right
    /// there (`timeout(d, hyper::Client::new().request(req))`) or a one-shot request
    /// (tari's `timeout(d, reqwest::get(url))`): that client's one request is bounded, so
    /// its chain is marked bounded. A client bound to a name is the client flow's to judge
    /// (its other requests may not be).
    fn note_bounded_request(&mut self, future: Option<&Chain>) {
        if let Some(o) = future.and_then(request_made_here) {
            self.mark_bounded(o);
        }
    }

    /// Marks the chain recorded at `origin` as one whose requests are all bounded.
    fn mark_bounded(&mut self, origin: usize) {
        if let Some(cu) = self.model.chains.get_mut(origin) {
            cu.calls_bounded = true;
        }
    }

    /// A thread or task started here whose body waits for the process's signals
    /// ([`super::signal_listener`]), or a task with no work ([`super::idle_task`]): its spawn
    /// is recorded in [`crate::model::FileModel::signal_listeners`] or
    /// [`crate::model::FileModel::idle_tasks`].
    fn note_spawn_without_work(&mut self, ch: &Chain, root: &syn::Expr, layers: &[&syn::Expr]) {
        let root_call = match root {
            syn::Expr::Call(c) => Some(c),
            _ => None,
        };
        // a function of the workspace that may start a thread (`thread::spawn(&nid,
        // "signals", move || ..)`): the closure it is given
        if ch.pending.is_some() {
            if root_call.is_some_and(|c| {
                c.args.iter().any(|a| {
                    matches!(a, syn::Expr::Closure(_))
                        && super::signal_listener::listens_for_signals(a)
                })
            }) {
                self.model.signal_listeners.push(ch.root_region.offset);
            }
            return;
        }
        let first_arg = || root_call.and_then(|c| c.args.first());
        // a task whose future first awaits a signal (`tokio::spawn(async { ctrl_c().await;
        // .. })`, `rt.spawn(handle_sigterm(signals))`)
        let task = if !ch.via_binding && known::RAW_SPAWN_FNS.contains(&ch.root_str().as_str()) {
            Some((ch.root_region.offset, first_arg()))
        } else {
            ch.receiver_spawn_step().map(|i| {
                (
                    ch.steps[i].region.offset,
                    self.step_arg(layers, &ch.steps[i]),
                )
            })
        };
        if let Some((at, fut)) = task {
            let Some(fut) = fut.map(uninstrumented) else {
                return;
            };
            let block = match fut {
                syn::Expr::Async(a) => Some(&a.block),
                _ => None,
            };
            // the statements up to its signal wait as written: none blanked by the pruner
            let listens = match block {
                Some(b) => {
                    super::signal_listener::signal_wait_prefix(b)
                        .is_some_and(|n| !pruned_among(self.index, b, n))
                        || self.waits_for_signal_as_written(b)
                }
                None => super::signal_listener::awaits_signal_first(fut),
            };
            if listens {
                self.model.signal_listeners.push(at);
            } else if let Some(name) = match block {
                // as written: a statement naming no rule word is blank by now
                Some(b) => super::signal_listener::first_awaited_local_fn(self.index.text(
                    self.region(b.brace_token.span.open()).offset + 1
                        ..self.region(b.brace_token.span.close()).offset,
                )),
                None => super::signal_listener::spawned_local_fn(fut),
            } {
                if super::signal_listener::is_waiter_name(&name) {
                    // `shutdown_signal().await;` first, a statement the pruner blanked (its
                    // name has no rule word of its own)
                    self.model.signal_listeners.push(at);
                } else {
                    // a function of the file that may wait for the signals: known at the end
                    self.signal_waiter_calls.push((at, name));
                }
            }
            // a stand-in handle (`tokio::spawn(std::future::pending())`); a blocking task that
            // only joins a thread, as a thread that does (effectum's close:
            // `spawn_blocking(|| tasks.db_write_worker.join())`)
            if super::idle_task::is_idle_future(fut)
                || self.imported_idle_future(fut)
                || matches!(fut, syn::Expr::Closure(_)) && self.idles_as_written(fut)
            {
                self.model.idle_tasks.push(at);
            }
            return;
        }
        // a thread: `std::thread::spawn(f)`, or a `Builder`'s `.spawn(f)`
        let Some(after) = ch.thread_handle_after() else {
            return;
        };
        let (at, body) = match after.checked_sub(1) {
            None => (ch.root_region.offset, first_arg()),
            Some(i) => (
                ch.steps[i].region.offset,
                self.step_arg(layers, &ch.steps[i]),
            ),
        };
        if body.is_some_and(super::signal_listener::listens_for_signals) {
            self.model.signal_listeners.push(at);
        } else if body.is_some_and(|b| self.idles_as_written(b)) {
            self.model.idle_tasks.push(at);
        }
    }

    /// The spawns of this chain whose future a `TaskTracker` tracks ([`is_tracker_tracked`]),
    /// at the root call or at a `spawn*` step, recorded in
    /// [`crate::model::FileModel::tracker_tasks`] whatever the receiver turns out to be
    /// (a field's type is known later: `self.inner.as_ref().unwrap().spawn(..)`).
    fn note_tracker_tasks(&mut self, ch: &Chain, root: &syn::Expr, layers: &[&syn::Expr]) {
        if let syn::Expr::Call(c) = root
            && c.args
                .first()
                .is_some_and(|f| is_tracker_tracked(uninstrumented(f)))
        {
            self.model.tracker_tasks.push(ch.root_region.offset);
        }
        for step in ch.steps.iter().filter(|s| s.name.starts_with("spawn")) {
            if self
                .step_arg(layers, step)
                .is_some_and(|f| is_tracker_tracked(uninstrumented(f)))
            {
                self.model.tracker_tasks.push(step.region.offset);
            }
        }
    }

    /// `pending()` imported from a `future` module (`use std::future::pending;` then
    /// `tokio::spawn(pending::<()>())`, subspace's plotters): a stand-in, as
    /// [`super::idle_task::is_idle_future`] reads the path written in full. (`ready(..)`
    /// imported is a task spelled as briefly as can be in tests and examples: still read as
    /// a spawn.)
    fn imported_idle_future(&self, fut: &syn::Expr) -> bool {
        let syn::Expr::Call(c) = fut else {
            return false;
        };
        let syn::Expr::Path(p) = &*c.func else {
            return false;
        };
        if p.path.segments.len() != 1 {
            return false;
        }
        matches!(self.resolve(&p.path, true), Resolution::Path(path)
            if matches!(&path[..], [.., m, f] if m == "future" && f == "pending"))
    }

    /// Whether the thread body `body` only joins another thread or waits for a child
    /// process ([`super::idle_task::is_joiner`]), only ends the process after a delay
    /// ([`super::idle_task::is_exit_timer`]), only looks for deadlocks
    /// ([`super::idle_task::is_deadlock_detector`]), only drops what it was given
    /// ([`super::idle_task::is_dropper`]) or only passes a flag or a cancel on
    /// ([`super::idle_task::is_cancel_relay`]), read as written: its statements name no
    /// word a rule reads, so the pruner has blanked them (a short closure only).
    fn idles_as_written(&self, body: &syn::Expr) -> bool {
        let written = self.index.span_text(body.span());
        if written.len() > 16384 {
            return false;
        }
        let has = |needle: &[u8]| memchr::memmem::find(written.as_bytes(), needle).is_some();
        // short: its code, not its indentation, under 512 bytes (a deadlock detector's
        // report is longer: its needle is rarer)
        let code = written.bytes().filter(|b| !b.is_ascii_whitespace()).count();
        let joins_or_exits =
            code <= 512 && (has(b".join()") || has(b".wait()") || has(b"exit(") || has(b"abort("));
        // a waiter joining the handles it receives logs each one's end: longer
        let joins_received = code <= 2048 && has(b".join()") && has(b".recv()");
        let detects = code <= 2048 && has(b"check_deadlock");
        let drops = code <= 256 && has(b"drop(");
        let relays = code <= 512 && (has(b".cancel()") || has(b".store(") || has(b".set("));
        (joins_or_exits || joins_received || detects || drops || relays)
            && syn::parse_str::<syn::Expr>(written).is_ok_and(|e| {
                super::idle_task::is_joiner(&e)
                    || super::idle_task::is_exit_timer(&e)
                    || super::idle_task::is_deadlock_detector(&e)
                    || super::idle_task::is_dropper(&e)
                    || super::idle_task::is_cancel_relay(&e)
            })
    }

    /// The first argument of the method call of `step`, written among `layers`.
    fn step_arg<'e>(&self, layers: &[&'e syn::Expr], step: &Step) -> Option<&'e syn::Expr> {
        layers.iter().find_map(|l| match l {
            syn::Expr::MethodCall(m)
                if self.region(m.method.span()).offset == step.region.offset =>
            {
                m.args.first()
            }
            _ => None,
        })
    }

    /// A bound value handed to a tower stack that bounds every call
    /// (`ServiceBuilder::new().layer(TimeoutLayer::new(d)).service(client)`, or
    /// `.timeout(d)` in the stack): its chain is marked bounded.
    fn note_timeout_layer(&mut self, layers: &[&syn::Expr]) {
        for (k, layer) in layers.iter().enumerate() {
            let syn::Expr::MethodCall(m) = layer else {
                continue;
            };
            if m.method != "service" || m.args.len() != 1 {
                continue;
            }
            // the layers after this one in `layers` are its receiver's
            if !layers[k + 1..].iter().any(|l| is_timeout_layer(l)) {
                continue;
            }
            let mut arg = &m.args[0];
            loop {
                arg = match arg {
                    syn::Expr::Reference(r) => &r.expr,
                    syn::Expr::Paren(p) => &p.expr,
                    _ => break,
                };
            }
            if let syn::Expr::Path(p) = arg
                && let Some(id) = p.path.get_ident()
                && let Some(BindVal::Chain(ch)) = self.binding_val(&id.to_string())
                && let Some(o) = ch.origin
                && let Some(cu) = self.model.chains.get_mut(o)
            {
                cu.calls_bounded = true;
            }
        }
    }

    /// Whether the async block `b` waits for a signal first as written
    /// ([`super::signal_listener::signal_wait_prefix`] of its text, read again): where the
    /// pruner blanked a statement of the wait (VoltageEMS's `match signal(SignalKind::hangup())
    /// { Ok(mut hup) => loop { hup.recv().await; reopen_logs() }, .. }`: the arm's
    /// statements name no word a rule reads). Only a block whose text names a signal is read.
    fn waits_for_signal_as_written(&self, b: &syn::Block) -> bool {
        let text = self.index.text(
            self.region(b.brace_token.span.open()).offset
                ..self.region(b.brace_token.span.close()).offset + 1,
        );
        (text.contains("signal") || text.contains("ctrl_c"))
            && syn::parse_str::<syn::Block>(text)
                .is_ok_and(|w| super::signal_listener::signal_wait_prefix(&w).is_some())
    }

    /// [`Self::resolve`] of a value's path, where `Self::f` is the `impl`'s type's
    /// (wavesexchange's `impl HttpClient { fn new() -> Self { Self::builder().build() } }`).
    fn resolve_self(&self, path: &syn::Path) -> Resolution {
        match (self.resolve(path, true), &self.self_ty) {
            (Resolution::Unknown, Some(ty))
                if path.leading_colon.is_none()
                    && path.segments.len() > 1
                    && path.segments[0].ident == "Self" =>
            {
                let mut root = ty.clone();
                root.extend(path.segments.iter().skip(1).map(|s| s.ident.to_string()));
                Resolution::Path(root)
            }
            (r, _) => r,
        }
    }

    /// Whether a rule may look at calls of `path`: a known or configured path (configured
    /// ones may be written `crate::..`, which resolves to the crate's own name).
    pub(super) fn is_interesting(&self, path: &[String]) -> bool {
        let set = &self.opts.interesting;
        set.contains(path)
            || (self.crate_relative && path.len() > 1 && {
                let mut p = Vec::with_capacity(path.len());
                p.push("crate".to_string());
                p.extend_from_slice(&path[1..]);
                set.contains(&p)
            })
    }

    pub(super) fn record_ref(&mut self, path: Canon, span: proc_macro2::Span) {
        if self.opts.interesting.contains(&path) {
            let region = self.region(span);
            self.model.refs.push(PathRef {
                path,
                region,
                ctx: self.ctx(),
            });
        }
    }

    /// A chain whose root the workspace model will tell.
    pub(super) fn symbolic(&self, root: SymRoot, span: proc_macro2::Span) -> Chain {
        Chain {
            pending: Some(root),
            ..Chain::at(Vec::new(), self.region(span))
        }
    }

    /// `recv.method(..)..` on a receiver of unknown (or workspace) type: the first method
    /// becomes the root.
    fn method_root(
        &self,
        layers: &[&syn::Expr],
        owner: Option<Canon>,
        consumed: &mut usize,
    ) -> Option<Chain> {
        let syn::Expr::MethodCall(m) = layers.last()? else {
            return None;
        };
        let name = m.method.to_string();
        if TRIGGERS.contains(&name.as_str()) {
            return None; // `x.spawn(..)` on an unknown `x`: nothing to ask
        }
        *consumed = 1;
        let mut ch = self.symbolic(SymRoot::Method { owner, name }, m.method.span());
        ch.via = Some(if m.args.is_empty() {
            format!("{}()", m.method)
        } else {
            format!("{}(..)", m.method)
        });
        Some(ch)
    }

    /// The fields `members` (outermost last) of what `base`, a call, returns
    /// (`self.runtime().0.tokio`: krill's `exec_async`, on the `Handle` its runtime's shared
    /// components hold): the call's chain, then a field step per member for the workspace
    /// model to read once it knows what the call returns. Visits `base`.
    fn field_of_value(&mut self, base: &syn::Expr, members: &[&syn::Member]) -> Option<Chain> {
        // a field of an app's managed state (`app.state::<AppState>().runtime`): the field
        // of that type
        if let Some(BindVal::Typed(owner)) = self.managed_state(base)
            && let Some((first, rest)) = members.split_first()
        {
            self.visit_expr(base);
            let root = SymRoot::Field {
                owner: Some(owner),
                name: member_name(first),
            };
            let mut ch = self.symbolic(root, first.span());
            ch.steps.extend(rest.iter().map(|m| self.field_step(m)));
            return Some(ch);
        }
        self.want_value = true;
        let mut ch = self.visit_chain(base, Usage::Kept)?;
        ch.pending.as_ref()?;
        ch.steps.extend(members.iter().map(|m| self.field_step(m)));
        Some(ch)
    }

    /// The step of a field read (`.server` of `self.services.server`) on a chain whose root
    /// the workspace model types: it reads the field once it knows the type before it.
    fn field_step(&self, m: &syn::Member) -> Step {
        Step {
            name: format!("{}{}", crate::workspace::FIELD_STEP, member_name(m)),
            region: self.region(m.span()),
            args: Vec::new(),
        }
    }

    /// `self.rt`, `state.pool`, `self.inner.rt`: a field whose type the model may know.
    pub(super) fn field_root(&self, f: &syn::ExprField) -> Option<Chain> {
        if let syn::Member::Unnamed(i) = &f.member
            && let syn::Expr::Path(p) = &*f.base
            && let Some(n) = p.path.get_ident()
            && let Some(BindVal::Tuple(vals)) = self.binding_val(&n.to_string())
        {
            // `cfg.1` of a tuple whose elements are known
            return match vals.get(i.index as usize)? {
                Some(BindVal::Chain(ch)) => Some((**ch).clone().through_binding()),
                _ => None,
            };
        }
        let name = member_name(&f.member);
        // `services.clone().server`: a clone (or a borrow) has the type of what it is
        // called on (tuwunel's per-request spawn)
        let base = uncloned(&f.base);
        // a field of a field (`self.services.server`): the inner field's chain, then a
        // field step the workspace model reads once it knows the inner field's type
        if let syn::Expr::Field(inner) = base
            && let Some(mut ch) = self.field_root(inner)
            && ch.pending.is_some()
        {
            ch.steps.push(self.field_step(&f.member));
            return Some(ch);
        }
        // a field of a local bound to such a chain (`let ctx = self.ctx.clone();
        // ctx.runtime.spawn(..)`, cnosdb's compaction job): the same, through the binding —
        // the field's name alone may name fields of other types elsewhere
        if let syn::Expr::Path(p) = base
            && let Some(n) = p.path.get_ident()
            && let Some(BindVal::Chain(bound)) = self.binding_val(&n.to_string())
            && bound.pending.is_some()
        {
            let mut ch = (**bound).clone().through_binding();
            ch.steps.push(self.field_step(&f.member));
            return Some(ch);
        }
        let owner = match base {
            syn::Expr::Path(p) if p.path.is_ident("self") => self.self_ty.clone(),
            syn::Expr::Path(p) => match p.path.get_ident().map(|i| i.to_string()) {
                Some(n) => match self.binding_val(&n) {
                    Some(BindVal::Typed(t)) => Some(t.clone()),
                    _ => None,
                },
                None => None,
            },
            _ => None,
        };
        let root = SymRoot::Field { owner, name };
        Some(self.symbolic(root, f.member.span()))
    }

    /// The value of `recv.map(|x| body)` (or `and_then`): `body` with `x` bound to what
    /// `recv` holds, seen through the `Option` / `Result` (`offload.map(|o|
    /// o.get_runtime(1))` holds what `get_runtime` returns). Visits the receiver and the
    /// closure.
    fn mapped_value(&mut self, m: &syn::ExprMethodCall) -> Option<Chain> {
        let closure = mapping_closure(m)?;
        let recv = self.operand_value(&m.receiver);
        self.enter_scope_empty();
        self.bind_pat(&closure.inputs[0], recv);
        let out = self.value_of_expr(&closure.body);
        self.leave_scope_empty();
        out
    }

    /// A runtime handle an `Option` or `Result` falls back to: `.unwrap_or_else(Handle::current)`,
    /// `.unwrap_or_else(|| Handle::current())`, `.unwrap_or(Handle::current())` — whatever the
    /// receiver is (a generic `H: Into<Option<Handle>>` the rules cannot type), the value is a
    /// runtime's handle, and a spawn on it is the runtime's.
    fn handle_default(&self, m: &syn::ExprMethodCall) -> Option<Chain> {
        if m.args.len() != 1 {
            return None;
        }
        // (compared as an identifier: this is asked of every method call of a chain)
        let path = if m.method == "unwrap_or_else" {
            match &m.args[0] {
                syn::Expr::Path(p) => p,
                syn::Expr::Closure(c) if c.inputs.is_empty() => called_without_args(&c.body)?,
                _ => return None,
            }
        } else if m.method == "unwrap_or" {
            called_without_args(&m.args[0])?
        } else {
            return None;
        };
        let Resolution::Path(root) = self.resolve(&path.path, true) else {
            return None;
        };
        (root.join("::") == known::HANDLE_CURRENT)
            .then(|| Chain::at(root, self.region(path.path.span())))
    }

    /// The body of the closure an `Option` falls back to with `.unwrap_or_else(|| ..)` when
    /// the value it makes is one a rule reads, made by a path the rules know (hudsucker's
    /// `self.client.unwrap_or_else(|| { let mut builder = Client::builder(TokioExecutor::new());
    /// builder.http1_title_case_headers(true); builder }).build(connector)`): the client
    /// made here when the option holds none, whatever the option holds. Read from the code
    /// as written (the closure's last expression, or the `let` of the name it ends with),
    /// before the walk: any other default (`|| panic!(..)`, a workspace call) leaves the
    /// option's own chain as it was.
    fn made_default<'m>(&self, m: &'m syn::ExprMethodCall) -> Option<&'m syn::Expr> {
        if m.method != "unwrap_or_else" || m.args.len() != 1 {
            return None;
        }
        let syn::Expr::Closure(c) = &m.args[0] else {
            return None;
        };
        if !c.inputs.is_empty() {
            return None;
        }
        // the receiver a chain of methods, `?` and `.await` starts from
        let peel = |e: &'m syn::Expr| super::flow::unchain(e).1;
        let root = match &*c.body {
            syn::Expr::Block(b) => {
                let (syn::Stmt::Expr(tail, None), before) = b.block.stmts.split_last()? else {
                    return None;
                };
                match peel(tail) {
                    // a name a `let` of the block binds (`builder`, `builder.x(..)`)
                    syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                        before.iter().rev().find_map(|st| match st {
                            syn::Stmt::Local(l)
                                if matches!(super::attrs::pat_of(&l.pat), syn::Pat::Ident(i)
                                    if p.path.is_ident(&i.ident)) =>
                            {
                                l.init.as_ref().map(|i| peel(&i.expr))
                            }
                            _ => None,
                        })?
                    }
                    e => e,
                }
            }
            e => peel(e),
        };
        let syn::Expr::Call(call) = root else {
            return None;
        };
        let syn::Expr::Path(p) = &*call.func else {
            return None;
        };
        match self.resolve(&p.path, true) {
            Resolution::Path(path) if self.is_interesting(&path) => Some(&c.body),
            _ => None,
        }
    }

    /// The value of `iter.fold(init, f)`: what `f` makes of `init`, for a folding
    /// function that hands back its accumulator changed — a method path of the value's
    /// own type (`fold(builder, ClientBuilder::proxy)`: `builder.proxy(item)` for every
    /// item) or a two-parameter closure (`|b, p| b.proxy(p)`). Visits the iterator and both
    /// arguments.
    fn folded_value(&mut self, m: &syn::ExprMethodCall) -> Option<Chain> {
        let (init, f) = (&m.args[0], &m.args[1]);
        self.visit_expr(&m.receiver);
        let acc = self.operand_value(init);
        match f {
            syn::Expr::Closure(c) if c.inputs.len() == 2 => {
                self.enter_scope_empty();
                self.bind_pat(&c.inputs[0], acc);
                self.bind_pat(&c.inputs[1], None);
                let out = self.value_of_expr(&c.body);
                self.leave_scope_empty();
                out
            }
            syn::Expr::Path(p) if p.path.segments.len() >= 2 => {
                self.visit_expr(f);
                let Some(BindVal::Chain(ch)) = acc else {
                    return None;
                };
                let last = p.path.segments.last()?;
                let mut ch = (*ch).through_binding();
                ch.steps.push(Step {
                    name: last.ident.to_string(),
                    region: self.region(last.ident.span()),
                    args: vec![ArgValue::Other],
                });
                Some(ch)
            }
            other => {
                self.visit_expr(other);
                None
            }
        }
    }

    /// The value an operand holds: a binding's (marked used) or an expression's.
    fn operand_value(&mut self, e: &syn::Expr) -> Option<BindVal> {
        match e {
            // a binding of a declared type (`o: Option<&Offload>`) has no chain
            syn::Expr::Path(p) => match self.resolve(&p.path, true) {
                Resolution::Binding(name) => {
                    let v = self.binding_val(&name).cloned();
                    if let Some(BindVal::Chain(ch)) = &v {
                        self.mark_used(ch.origin, false);
                    }
                    v
                }
                _ => {
                    self.visit_expr(e);
                    None
                }
            },
            _ => self.value_of_expr(e).map(|c| BindVal::Chain(Box::new(c))),
        }
    }

    /// `arg` of `block_on(arg)` names a binding that holds a chain: records its use with an
    /// `await` step (a server's handle run to completion is judged here, not passed on);
    /// `false` when it names none.
    fn block_on_binding(&mut self, arg: &syn::Expr) -> bool {
        let Some(ch) = self.resolved_chain(arg) else {
            return false;
        };
        let mut ch = ch.through_binding();
        if ch.origin.is_none() {
            return false;
        }
        self.mark_used(ch.origin, false);
        ch.steps.push(Step {
            name: "await".into(),
            region: self.region(arg.span()),
            args: Vec::new(),
        });
        let ctx = self.ctx();
        self.model.chains.push(ChainUse {
            chain: ch,
            usage: Usage::Kept,
            ctx,
            escapes: false,
            calls_bounded: false,
        });
        true
    }

    /// A binding made from the chain recorded at `origin` is used: a method is called on
    /// it, or (`escapes`) it is moved or passed on as a plain value. A handle bound as
    /// `let _worker = ..` and used later is not dropped.
    pub(super) fn mark_used(&mut self, origin: Option<usize>, escapes: bool) {
        let Some(i) = origin else { return };
        let bound_unused = self.unused_bindings.contains(&i);
        if let Some(cu) = self.model.chains.get_mut(i) {
            if cu.usage == Usage::Dropped && bound_unused {
                cu.usage = Usage::Kept;
            }
            cu.escapes |= escapes;
        }
    }
}

/// Where `ch`, a future a timeout bounds, was recorded, when it is a request on a client
/// made right there (not bound to a name) or a one-shot request (`reqwest::get(url)`).
fn request_made_here(ch: &Chain) -> Option<usize> {
    if ch.via_binding || ch.pending.is_some() {
        return None;
    }
    let requests = ch
        .steps
        .iter()
        .any(|s| super::flow::is_request_step(&s.name))
        || matches!(
            known::http_ctor(&ch.root_str()),
            Some((known::HttpKind::OneShot, _))
        );
    if requests { ch.origin } else { None }
}

/// A tower stack step that bounds every call through it: `.timeout(d)` or
/// `.layer(TimeoutLayer::new(d))` (tower's or tower-http's).
fn is_timeout_layer(e: &syn::Expr) -> bool {
    let syn::Expr::MethodCall(m) = e else {
        return false;
    };
    if m.args.len() != 1 {
        return false;
    }
    if m.method == "timeout" {
        return true;
    }
    m.method == "layer"
        && matches!(&m.args[0], syn::Expr::Call(c) if matches!(&*c.func,
        syn::Expr::Path(p) if super::attrs::is_new_of(&p.path, &["TimeoutLayer"])))
}

/// Whether a method named `name` makes a chain on a receiver of unknown type worth asking
/// the workspace model about: one of [`TRIGGERS`], or a method that finishes a builder
/// wrapper of the workspace (`build_with_policies`, `danger_build_no_ip_policy`).
pub(super) fn is_trigger(name: &str) -> bool {
    TRIGGERS.contains(&name) || name.split('_').any(|w| w == "build")
}

/// A call of `timeout(d, fut)` by that name (`tokio::time::timeout`, imported or not).
fn is_timeout_call(c: &syn::ExprCall) -> bool {
    c.args.len() == 2
        && matches!(&*c.func, syn::Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "timeout"))
}

/// Whether a statement that ends with `layers` (outermost first) on `root` drops what a
/// function or method named as a known spawn returns ([`crate::prune::is_spawn_name`]:
/// `spawn`, `spawn_thread`, ..), or one of `thread_fns`
/// ([`super::CollectOptions::thread_fns`]): only `?` and the steps that hand a `JoinHandle` on in the
/// `Result` or `Option` they return ([`crate::rules::detached_thread::passes_on`]) come
/// after the call. For a receiver's method, the innermost layer is the call itself. (Any
/// other name would cost a lookup for most statements of a file, and the pruner blanks
/// statements naming no such word anyway.)
fn drops_spawned(
    root: &syn::Expr,
    layers: &[&syn::Expr],
    thread_fns: &foldhash::HashSet<String>,
) -> bool {
    let (name, steps) = match (root, layers.split_last()) {
        (syn::Expr::Call(c), _) => match &*c.func {
            syn::Expr::Path(p) => (p.path.segments.last().map(|s| s.ident.to_string()), layers),
            _ => return false,
        },
        (_, Some((syn::Expr::MethodCall(m), steps))) => (Some(m.method.to_string()), steps),
        _ => return false,
    };
    if !name.is_some_and(|n| crate::prune::is_spawn_name(&n) || thread_fns.contains(&n)) {
        return false;
    }
    steps.iter().all(|l| match l {
        syn::Expr::Try(_) => true,
        syn::Expr::MethodCall(m) => crate::rules::detached_thread::passes_on(&m.method.to_string()),
        _ => false,
    })
}

/// Methods a rule looks at: a chain whose root only the workspace model can tell is
/// recorded when one of these is applied to it.
pub(super) const TRIGGERS: &[&str] = &[
    "spawn",
    "spawn_blocking",
    "spawn_local",
    "spawn_on",
    "spawn_local_on",
    "spawn_blocking_on",
    "spawn_named",
    "spawn_thread",
    "build",
    "build_http",
    "handshake",
    "timeout",
    // a hyper connection builder or a tonic router held in a field, passed in or
    // returned by a helper
    "serve_connection",
    "serve_connection_with_upgrades",
    "serve",
    "serve_with_incoming",
    // an axum-server handle held in a field: how long its drain waits
    "graceful_shutdown",
    // a metrics exporter's builder returned by a helper
    "install",
    // a dropshot server starter returned by a helper
    "start",
];

/// The closure of `recv.map(|x| ..)` / `recv.and_then(|x| ..)` (one argument, one
/// parameter). Not one that ignores its parameter (`|_| ()`, [`ArgValue::Discards`]): that
/// is a step of the chain, which drops what it held there
/// (`thread::Builder::new().spawn(f).map(|_| ())`).
fn mapping_closure(m: &syn::ExprMethodCall) -> Option<&syn::ExprClosure> {
    if m.method != "map" && m.method != "and_then" || m.args.len() != 1 {
        return None;
    }
    match m.args.first()? {
        e @ syn::Expr::Closure(c)
            if c.inputs.len() == 1 && !super::eval::discards_its_argument(e) =>
        {
            Some(c)
        }
        _ => None,
    }
}

/// The value of a block that is one expression (`unsafe { STATE.as_ref() }`).
pub(super) fn block_value(b: &syn::Block) -> Option<&syn::Expr> {
    match &b.stmts[..] {
        [syn::Stmt::Expr(e, None)] => Some(e),
        _ => None,
    }
}

/// What `Arc::new(..)`, `Rc::new(..)` or `Box::new(..)` holds when it is made in place by a
/// call (`Arc::new(Runtime::new()?)`, `Box::new(Client::builder().build()?)`): the
/// pointer's methods are its content's, so a chain goes on through it. A name wrapped
/// (`Arc::new(rt)`) is left as it is: its binding is followed where it is used.
fn shared_content(c: &syn::ExprCall) -> Option<&syn::Expr> {
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let arg = c.args.first().filter(|_| c.args.len() == 1)?;
    let wraps = super::attrs::is_new_of(&p.path, super::attrs::POINTERS);
    let made = matches!(
        arg,
        syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Try(_) | syn::Expr::Await(_)
    );
    (wraps && made).then_some(arg)
}

/// What `Arc::clone(&x)` or `Rc::clone(&x)` clones: `x`, whose type the clone has.
fn pointer_clone(c: &syn::ExprCall) -> Option<&syn::Expr> {
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let arg = c.args.first().filter(|_| c.args.len() == 1)?;
    let clones = super::attrs::is_fn_of(&p.path, "clone", &["Arc", "Rc"]);
    match arg {
        syn::Expr::Reference(r) if clones => Some(&r.expr),
        _ => None,
    }
}

/// The path of `e` when it is a call of one with no arguments (`Handle::current()`).
fn called_without_args(e: &syn::Expr) -> Option<&syn::ExprPath> {
    match e {
        syn::Expr::Call(c) if c.args.is_empty() => match &*c.func {
            syn::Expr::Path(p) => Some(p),
            _ => None,
        },
        _ => None,
    }
}

/// `recv.fold(init, f)` (two arguments).
fn is_fold(m: &syn::ExprMethodCall) -> bool {
    m.method == "fold" && m.args.len() == 2
}

/// Whether `#[drainable]` rewrites a call of `p` into a tracked spawn: only the paths of
/// [`known::DRAINABLE_ROUTED`], as written.
fn drainable_routes(p: &syn::ExprPath) -> bool {
    if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_none()) {
        return false;
    }
    let names = super::attrs::path_segs(&p.path).join("::");
    known::DRAINABLE_ROUTED.contains(&names.as_str())
}

fn path_text(p: &syn::Path) -> String {
    p.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// A chain on an HTTP client builder of a known library that is not built yet.
fn is_unbuilt_builder(ch: &Chain) -> bool {
    ch.pending.is_none()
        && match crate::resolve::known::http_ctor(&ch.root_str()) {
            Some((crate::resolve::known::HttpKind::Builder, lib)) => !ch
                .steps
                .iter()
                .any(|s| lib.build_methods.contains(&s.name.as_str())),
            _ => false,
        }
}

/// Whether the pruner blanked statements among the first `n` statements left in `block`
/// (`drain_queue(rx).await;`, naming no rule word, before `ctrl_c().await`): the written
/// text before one of them, from the block's `{`, holds more than whitespace and line
/// comments.
pub(super) fn pruned_among(
    index: &crate::source::LineIndex<'_>,
    block: &syn::Block,
    n: usize,
) -> bool {
    let written = |from: usize, to: usize| {
        index
            .text(from..to.max(from))
            .lines()
            .any(|l| !l.split("//").next().unwrap_or("").trim().is_empty())
    };
    let mut from = index.span_region(block.brace_token.span.open()).offset + 1;
    for st in block.stmts.iter().take(n) {
        let r = index.span_region(st.span());
        if written(from, r.offset) {
            return true;
        }
        // a block of its own the wait is in (`#[cfg(unix)] { .. }`): its statements too
        if let syn::Stmt::Expr(syn::Expr::Block(b), _) = st
            && let Some(inner) = super::signal_listener::signal_wait_prefix(&b.block)
            && pruned_among(index, &b.block, inner)
        {
            return true;
        }
        from = r.offset + r.len;
    }
    false
}

/// The future a task is spawned with, without tracing's instrumentation around it
/// (`async move { .. }.instrument(span)`, `.in_current_span()`: indexify's server).
/// Whether `fut`, the future a task is spawned with, is tracked by a tokio-util
/// `TaskTracker`: `tracker.track_future(fut)` (blockscout's service launcher,
/// `tokio::spawn(graceful_shutdown.task_trackers.track_future(stop_on_cancel(..)))`; it is
/// how `TaskTracker::spawn` is written).
fn is_tracker_tracked(fut: &syn::Expr) -> bool {
    matches!(fut, syn::Expr::MethodCall(m) if m.method == "track_future" && m.args.len() == 1)
}

fn uninstrumented(mut fut: &syn::Expr) -> &syn::Expr {
    while let syn::Expr::MethodCall(m) = fut
        && (m.method == "instrument" && m.args.len() == 1
            || m.method == "in_current_span" && m.args.is_empty())
    {
        fut = &m.receiver;
    }
    fut
}

/// The value fields of `f` are read from, when it is what a call returns (a method call, a
/// call, `?` or `.await` on one), with the fields read, innermost first
/// (`self.runtime().0.tokio`: `self.runtime()`, then `0`, `tokio`).
fn field_of_call(f: &syn::ExprField) -> Option<(&syn::Expr, Vec<&syn::Member>)> {
    let mut members = vec![&f.member];
    let mut base = &*f.base;
    while let syn::Expr::Field(inner) = base {
        members.push(&inner.member);
        base = &inner.base;
    }
    members.reverse();
    // (a clone or a borrow of a name or a field is what [`Collector::field_root`] reads)
    matches!(
        uncloned(base),
        syn::Expr::MethodCall(_) | syn::Expr::Call(_) | syn::Expr::Try(_) | syn::Expr::Await(_)
    )
    .then_some((base, members))
}

/// A field's name; a tuple struct's field (`self.0`) by its position.
fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(name) => name.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

/// `e` without the clones and borrows applied to it (`services.clone()`: `services`), which
/// have the type of what they are called on.
fn uncloned(mut e: &syn::Expr) -> &syn::Expr {
    while let syn::Expr::MethodCall(m) = e
        && m.args.is_empty()
        && matches!(
            m.method.to_string().as_str(),
            "clone" | "as_ref" | "borrow" | "to_owned"
        )
    {
        e = &m.receiver;
    }
    e
}
