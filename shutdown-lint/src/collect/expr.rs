//! Expressions: each is visited once; calls become chains, and the value a `let` or an
//! assignment takes is remembered.

use super::MAX_EXPR_DEPTH;
use super::state::{BindVal, Collector};
use crate::model::{Chain, Usage};
use crate::resolve::Resolution;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

impl Collector<'_, '_> {
    /// Visits an expression; for a chain, returns it (so `let` can remember it).
    pub(super) fn visit_expr_value(&mut self, e: &syn::Expr) -> Option<Chain> {
        let usage = std::mem::replace(&mut self.pending, Usage::Kept);
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            self.model.too_deep += 1;
            self.depth -= 1;
            return None;
        }
        let out = self.visit_expr_inner(e, usage);
        self.depth -= 1;
        out
    }

    pub(super) fn visit_expr_inner(&mut self, e: &syn::Expr, usage: Usage) -> Option<Chain> {
        match e {
            syn::Expr::Call(_)
            | syn::Expr::MethodCall(_)
            | syn::Expr::Try(_)
            | syn::Expr::Await(_) => {
                return self.visit_chain(e, usage);
            }
            syn::Expr::Paren(p) => {
                self.pending = usage;
                return self.visit_expr_value(&p.expr);
            }
            syn::Expr::Group(g) => {
                self.pending = usage;
                return self.visit_expr_value(&g.expr);
            }
            syn::Expr::Path(p) => match self.resolve(&p.path, true) {
                Resolution::Path(path) => self.record_ref(path, p.path.span()),
                Resolution::Binding(name) => {
                    if let Some(BindVal::Chain(ch)) = self.binding_val(&name) {
                        let mut ch = ch.clone();
                        ch.inherited = ch.steps.len();
                        ch.via_binding = true;
                        return Some(ch);
                    }
                }
                Resolution::Unknown => {}
            },
            syn::Expr::Assign(a) => {
                // `b = b.timeout(d);` rebinds what `b` holds
                self.visit_expr(&a.left);
                let ch = self.visit_expr_value(&a.right);
                if let syn::Expr::Path(p) = &*a.left
                    && let Some(id) = p.path.get_ident()
                {
                    let name = id.to_string();
                    if self.resolver.is_binding(&name) {
                        // update the binding itself, so an assignment in a nested block
                        // (`if x { b = b.timeout(d); }`) is still seen after the block
                        let val = ch.map(BindVal::Chain);
                        if let Some(entry) =
                            self.values.iter_mut().rev().find(|(n, _, _)| *n == name)
                        {
                            entry.2 = val;
                        }
                    }
                }
            }
            syn::Expr::Block(b) => self.visit_block(&b.block),
            syn::Expr::Closure(c) => {
                self.enter_scope_empty();
                for p in &c.inputs {
                    self.bind_pat(p, None);
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
                self.visit_expr(&l.expr);
                self.bind_pat(&l.pat, None);
            }
            syn::Expr::If(i) => {
                let windows = Self::cfg_windows_macro(&i.cond);
                self.enter_scope_empty();
                self.visit_expr(&i.cond);
                let saved = self.ctx.clone();
                if windows {
                    self.ctx.windows_only = true;
                }
                self.visit_block(&i.then_branch);
                self.ctx = saved;
                self.leave_scope_empty();
                if let Some((_, els)) = &i.else_branch {
                    self.visit_expr(els);
                }
            }
            syn::Expr::Match(m) => {
                self.visit_expr(&m.expr);
                for arm in &m.arms {
                    self.enter_scope_empty();
                    self.bind_pat(&arm.pat, None);
                    if let Some((_, g)) = &arm.guard {
                        self.visit_expr(g);
                    }
                    self.visit_expr(&arm.body);
                    self.leave_scope_empty();
                }
            }
            syn::Expr::Macro(m) => self.visit_macro_body(&m.mac, usage),
            other => visit::visit_expr(self, other),
        }
        None
    }
}
