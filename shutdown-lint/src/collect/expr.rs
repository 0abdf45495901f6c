//! Expressions: each is visited once; calls become chains, and the value a `let` or an
//! assignment takes is remembered.

use super::MAX_EXPR_DEPTH;
use super::state::{BindVal, Collector};
use crate::model::{Chain, Usage};
use crate::resolve::Resolution;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

impl Collector<'_, '_> {
    /// A signal constant that is a `match` arm's value (pueue's `InternalSignal::SigTerm =>
    /// libc::SIGTERM`, the signal it then sends to a child): a number chosen, not a handler
    /// installed — recorded like a sender's argument ([`crate::model::FileModel::signal_sends`]).
    fn signal_as_value(&mut self, body: &syn::Expr) {
        let mut e = body;
        while let syn::Expr::Block(b) = e
            && b.label.is_none()
            && let [syn::Stmt::Expr(tail, None)] = b.block.stmts.as_slice()
        {
            e = tail;
        }
        let syn::Expr::Path(p) = e else { return };
        if let Resolution::Path(c) = self.resolve(&p.path, true)
            && crate::resolve::known::SIGNALS
                .iter()
                .any(|(k, _)| *k == c.join("::"))
        {
            let region = self.region(p.span());
            self.model.signal_sends.push(region);
        }
    }

    /// `match handle_res { Ok(_) => {} Err(e) => .. }` (qdrant's shard drop) or `if let
    /// Err(e) = thread_handle { .. }` (zellij's plugin executor) on a binding that holds a
    /// spawned thread's `Result<JoinHandle>`: see [`Self::thread_result_away`]. Looked up
    /// before the scrutinee is visited.
    fn thread_result_bound_away(&mut self, scrutinee: &syn::Expr, pats: &[&syn::Pat]) {
        if let Some(ch) = self.resolved_chain(scrutinee) {
            self.thread_result_away(&ch, pats);
        }
    }

    /// When `ch` spawns a thread and none of `pats` (a `match`'s arms, an `if let`'s
    /// pattern, on the `Result` it returned) keeps the handle: the handle is dropped, so
    /// the thread is detached where it was spawned.
    fn thread_result_away(&mut self, ch: &Chain, pats: &[&syn::Pat]) {
        // what is matched is what the spawn returned, not a later step's value
        // (`if let Err(payload) = handle.join()` joins it)
        let root = ch.root_str();
        // (or a function of the workspace, which may return a thread's handle: the
        // workspace model tells, `detached-thread` reads the usage only then; iris-chat's
        // `if let Err(error) = spawn_core_supervisor(..) { .. }`)
        let spawned = (root == crate::resolve::known::THREAD_SPAWN_FN && ch.steps.is_empty())
            || (root == crate::resolve::known::THREAD_BUILDER_NEW
                && ch.steps.last().is_some_and(|s| s.name == "spawn"))
            || (matches!(ch.pending, Some(crate::model::SymRoot::Call(_))) && ch.steps.is_empty());
        // no arms: the pruner blanked them (or nothing to judge)
        if !spawned || pats.is_empty() || pats.iter().any(|p| keeps_handle(p)) {
            return;
        }
        if let Some(cu) = ch.origin.and_then(|i| self.model.chains.get_mut(i)) {
            cu.usage = Usage::Dropped;
        }
    }

    /// Visits an expression; for a chain, returns it (so `let` can remember it).
    pub(super) fn visit_expr_value(&mut self, e: &syn::Expr) -> Option<Chain> {
        let usage = std::mem::replace(&mut self.pending, Usage::Kept);
        let want = std::mem::take(&mut self.want_value);
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            self.model.too_deep += 1;
            self.depth -= 1;
            return None;
        }
        let out = self.visit_expr_inner(e, usage, want);
        self.depth -= 1;
        out
    }

    /// Visits `e` as the value of a binding, an assignment or a branch.
    pub(super) fn value_of_expr(&mut self, e: &syn::Expr) -> Option<Chain> {
        self.want_value = true;
        self.visit_expr_value(e)
    }

    pub(super) fn visit_expr_inner(
        &mut self,
        e: &syn::Expr,
        usage: Usage,
        want: bool,
    ) -> Option<Chain> {
        match e {
            syn::Expr::Call(_)
            | syn::Expr::MethodCall(_)
            | syn::Expr::Try(_)
            | syn::Expr::Await(_) => {
                self.want_value = want;
                return self.visit_chain(e, usage);
            }
            // `sig == SIGINT`: a signal compared, not a handler installed
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_)) => {
                let region = self.region(b.span());
                self.model.signal_compares.push(region);
                visit::visit_expr(self, e);
            }
            syn::Expr::Paren(p) => {
                self.pending = usage;
                self.want_value = want;
                return self.visit_expr_value(&p.expr);
            }
            syn::Expr::Group(g) => {
                self.pending = usage;
                self.want_value = want;
                return self.visit_expr_value(&g.expr);
            }
            // `unsafe { STATE.as_ref() }`: the value of its one expression
            syn::Expr::Unsafe(u) if want && super::chain::block_value(&u.block).is_some() => {
                self.pending = usage;
                self.want_value = want;
                return self.visit_expr_value(super::chain::block_value(&u.block)?);
            }
            syn::Expr::Reference(r) if want => {
                self.want_value = true;
                return self.visit_expr_value(&r.expr);
            }
            syn::Expr::Field(f) if want => {
                self.visit_expr(&f.base);
                return self.field_root(f);
            }
            syn::Expr::Path(p) => match self.resolve(&p.path, true) {
                Resolution::Path(path) => {
                    // a function passed by name (`.map(install)`) may be called
                    if p.path.segments.last().is_some_and(|s| {
                        s.ident
                            .to_string()
                            .starts_with(|c: char| c.is_ascii_lowercase())
                    }) {
                        self.record_call_path(&p.path);
                    }
                    self.record_ref(path, p.path.span())
                }
                Resolution::Binding(name) => {
                    if let Some(BindVal::Chain(ch)) = self.binding_val(&name) {
                        let ch = (**ch).clone().through_binding();
                        if usage == Usage::Kept {
                            // moved, stored or passed on (`Recorder { tx, _worker }`); moved
                            // into a task as its future, only used
                            let escapes = !std::mem::take(&mut self.into_task);
                            self.mark_used(ch.origin, escapes);
                        }
                        return Some(ch);
                    }
                }
                Resolution::Unknown => {}
            },
            syn::Expr::Assign(a) => {
                // `*req.timeout_mut() = Some(d);` (reqwest's `Request`)
                if let syn::Expr::Unary(u) = &*a.left
                    && matches!(u.op, syn::UnOp::Deref(_))
                    && let syn::Expr::MethodCall(m) = &*u.expr
                    && m.method == "timeout_mut"
                    && m.args.is_empty()
                    && let crate::model::ArgValue::Duration(secs, region) = self.eval_arg(&a.right)
                {
                    let ctx = self.ctx();
                    self.model
                        .timeout_sets
                        .push(crate::model::TimeoutSet { secs, region, ctx });
                }
                // `b = b.timeout(d);` rebinds what `b` holds; `_ = spawn(..);` drops it
                self.visit_expr(&a.left);
                let ch = if matches!(&*a.left, syn::Expr::Infer(_)) {
                    self.pending = Usage::Dropped;
                    self.visit_expr_value(&a.right)
                } else if let syn::Expr::Macro(m) = &*a.right
                    && let syn::Expr::Path(p) = &*a.left
                    && let Some(id) = p.path.get_ident()
                {
                    // `builder = whatever!(builder.tls_config(cfg), "tls");`
                    self.visit_macro_value(&m.mac, Some(&id.to_string()))
                } else {
                    self.value_of_expr(&a.right)
                };
                if let syn::Expr::Path(p) = &*a.left
                    && let Some(id) = p.path.get_ident()
                {
                    let name = id.to_string();
                    if self.resolver.is_binding(&name) {
                        // update the binding itself, so an assignment in a nested block
                        // (`if x { b = b.timeout(d); }`) is still seen after the block
                        let val = ch.map(|c| BindVal::Chain(Box::new(c)));
                        if let Some(entry) =
                            self.values.iter_mut().rev().find(|(n, _, _)| *n == name)
                        {
                            entry.2 = val;
                        }
                    }
                }
            }
            syn::Expr::Block(b) => {
                let out = self.visit_block_value(&b.block, want);
                // `{ let inner = Arc::clone(&inner); thread::spawn(move || ..) };`
                // (datenlord's io_uring completer): the block's value, dropped by its statement
                if usage == Usage::Dropped
                    && b.label.is_none()
                    && let Some(cu) = out
                        .as_ref()
                        .and_then(|c| c.origin)
                        .and_then(|i| self.model.chains.get_mut(i))
                {
                    cu.usage = Usage::Dropped;
                }
                return out;
            }
            syn::Expr::Closure(c) => {
                self.enter_scope_empty();
                for p in &c.inputs {
                    // a parameter with a declared type is a value of it (`|handle:
                    // &tokio::runtime::Handle| handle.spawn(..)`, restate's task dump)
                    match p {
                        syn::Pat::Type(t) => {
                            let val = self.type_value(&t.ty);
                            self.bind_pat(&t.pat, val);
                        }
                        p => self.bind_pat(p, None),
                    }
                }
                self.visit_expr(&c.body);
                self.leave_scope_empty();
            }
            syn::Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                self.enter_scope_empty();
                self.bind_pat(&f.pat, None);
                self.visit_block(&f.body);
                self.leave_scope_empty();
            }
            syn::Expr::While(w) => {
                self.enter_scope_empty();
                self.visit_expr(&w.cond);
                self.visit_block(&w.body);
                self.leave_scope_empty();
            }
            syn::Expr::Let(l) => {
                let pats = [&*l.pat];
                self.thread_result_bound_away(&l.expr, &pats);
                // `if let Ok(h) = Handle::try_current()`: `h` holds the handle
                let val = self.value_of_expr(&l.expr);
                // `if let Err(e) = thread::Builder::new().spawn(..)`: spawned in place
                if !matches!(&*l.expr, syn::Expr::Path(_))
                    && let Some(ch) = &val
                {
                    self.thread_result_away(ch, &pats);
                }
                self.bind_unwrapped(&l.pat, val.map(|c| BindVal::Chain(Box::new(c))));
            }
            syn::Expr::If(i) => {
                // the value of an `if` is the first branch that yields a known one
                let windows = Self::cfg_windows_macro(&i.cond);
                self.enter_scope_empty();
                self.visit_expr(&i.cond);
                let saved = self.ctx.clone();
                if windows {
                    self.ctx.windows_only = true;
                }
                let mut out = self.visit_block_value(&i.then_branch, want);
                self.ctx = saved;
                self.leave_scope_empty();
                if let Some((_, els)) = &i.else_branch {
                    self.want_value = want;
                    let e = self.visit_expr_value(els);
                    out = out.or(e);
                }
                return out;
            }
            syn::Expr::Match(m) => {
                let pats: Vec<&syn::Pat> = m.arms.iter().map(|a| &a.pat).collect();
                self.thread_result_bound_away(&m.expr, &pats);
                // `match Handle::try_current() { Ok(h) => h.spawn(..), .. }`; the value of
                // the match is the first arm that yields a known one
                let scrutinee = self.value_of_expr(&m.expr);
                // `match thread::Builder::new().spawn(..) { Ok(_) => .., Err(e) => .. }`:
                // the same, spawned in the scrutinee itself
                if !matches!(&*m.expr, syn::Expr::Path(_))
                    && let Some(ch) = &scrutinee
                {
                    self.thread_result_away(ch, &pats);
                }
                let scrutinee = scrutinee.map(|c| BindVal::Chain(Box::new(c)));
                let mut out = None;
                for arm in &m.arms {
                    // an arm built only for tests or WebAssembly (omicron's
                    // `#[cfg(any(test, feature = "testing"))] Mode::Test { .. } =>
                    // reqwest::Client::new()`)
                    if self.skip_test(&arm.attrs) {
                        continue;
                    }
                    let saved = self.ctx.clone();
                    self.mark_test(&arm.attrs);
                    self.signal_as_value(&arm.body);
                    self.enter_scope_empty();
                    self.bind_unwrapped(&arm.pat, scrutinee.clone());
                    if let Some((_, g)) = &arm.guard {
                        self.visit_expr(g);
                    }
                    self.want_value = want;
                    let mut v = self.visit_expr_value(&arm.body);
                    // a runtime the arm binds, shared (`Ok(runtime) => Arc::new(runtime)`)
                    if v.as_ref().is_none_or(|c| c.pending.is_some())
                        && let Some(BindVal::Chain(c)) = self.alias_value(&arm.body)
                    {
                        v = Some(*c);
                    }
                    out = out.or(v);
                    self.leave_scope_empty();
                    self.ctx = saved;
                }
                return out;
            }
            syn::Expr::Macro(m) => self.visit_macro_body(&m.mac),
            other => visit::visit_expr(self, other),
        }
        None
    }
}

/// Whether a `match` arm's pattern may keep a `Result<JoinHandle>`'s handle: anything but
/// `_`, `Err(..)` and `Ok(_)`.
fn keeps_handle(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::Wild(_) => false,
        syn::Pat::TupleStruct(t) => match t.path.segments.last() {
            Some(s) if s.ident == "Err" => false,
            Some(s) if s.ident == "Ok" => !t.elems.iter().all(|e| matches!(e, syn::Pat::Wild(_))),
            _ => true,
        },
        syn::Pat::Or(o) => o.cases.iter().any(keeps_handle),
        _ => true,
    }
}
