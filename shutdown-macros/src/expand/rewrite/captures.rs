//! The capture concern (only with `scope = ..`): closures and async blocks that use the scope
//! binding get their own handle, so a spawned `async move { .. }` owns it and stays `'static`.
//!
//! - an async block (`move` or not) becomes `{ let s = Clone::clone(&s); async { let s = s; .. } }`
//!   (the inner `let` makes a non-`move` block capture its handle by value);
//! - a `move` closure becomes `{ let s = Clone::clone(&s); move || .. }`;
//! - a non-`move` closure passed straight to a routed `spawn_thread` / `spawn_blocking` (which
//!   take `FnOnce + 'static`) gets both; any other non-`move` closure borrows the binding.

use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, ExprClosure};

use super::super::emit::{Emitter, is_scope_ident};
use super::super::errors::Errors;

/// `true` if `expr` mentions the scope binding (outside nested items).
pub(crate) fn uses_scope_expr(expr: &Expr) -> bool {
    let mut finder = Finder(false);
    finder.visit_expr(expr);
    finder.0
}

/// `true` if `block` mentions the scope binding (outside nested items).
pub(crate) fn uses_scope_block(block: &syn::Block) -> bool {
    let mut finder = Finder(false);
    finder.visit_block(block);
    finder.0
}

struct Finder(bool);

impl<'ast> Visit<'ast> for Finder {
    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        if path.qself.is_none() && path.path.get_ident().is_some_and(is_scope_ident) {
            self.0 = true;
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The `VisitMut` that gives closures and async blocks their own scope handle.
#[derive(Debug)]
pub(crate) struct CaptureRewriter<'a> {
    emit: &'a Emitter,
    errors: &'a mut Errors,
}

impl<'a> CaptureRewriter<'a> {
    /// A rewriter that reports to `errors`.
    pub(crate) fn new(emit: &'a Emitter, errors: &'a mut Errors) -> Self {
        CaptureRewriter { emit, errors }
    }

    fn wrap(&mut self, expr: &mut Expr) {
        let inner = std::mem::replace(expr, Expr::Verbatim(Default::default()));
        match self.emit.with_scope_clone(inner) {
            Ok(wrapped) => *expr = wrapped,
            Err(e) => self.errors.push(e),
        }
    }

    fn move_in_closure(&mut self, closure: &mut ExprClosure) {
        let Some(stmt) = self.errors.ok(self.emit.scope_move_in()) else {
            return;
        };
        match &mut *closure.body {
            Expr::Block(b) if b.label.is_none() => b.block.stmts.insert(0, stmt),
            body => {
                let old = std::mem::replace(body, Expr::Verbatim(Default::default()));
                *body = Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: syn::Block {
                        brace_token: Default::default(),
                        stmts: vec![stmt, syn::Stmt::Expr(old, None)],
                    },
                });
            }
        }
    }
}

fn is_routed_once_call(call: &syn::ExprCall) -> bool {
    let Expr::Path(p) = &*call.func else {
        return false;
    };
    let segments: Vec<_> = p.path.segments.iter().collect();
    matches!(segments.as_slice(), [.., private, function]
        if private.ident == "__private"
            && (function.ident == "spawn_thread" || function.ident == "spawn_blocking"))
}

impl VisitMut for CaptureRewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Const(_) => return,
            Expr::Repeat(r) => return self.visit_expr_mut(&mut r.expr),
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
        match expr {
            Expr::Async(a) if uses_scope_block(&a.block) => {
                if a.capture.is_none()
                    && let Some(stmt) = self.errors.ok(self.emit.scope_move_in())
                {
                    a.block.stmts.insert(0, stmt);
                }
                self.wrap(expr);
            }
            Expr::Closure(c) if c.capture.is_some() && uses_scope_expr(&c.body) => self.wrap(expr),
            Expr::Call(call) if is_routed_once_call(call) => {
                for arg in call.args.iter_mut() {
                    if let Expr::Closure(c) = arg
                        && c.capture.is_none()
                        && uses_scope_expr(&c.body)
                    {
                        self.move_in_closure(c);
                        self.wrap(arg);
                    }
                }
            }
            _ => {}
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_type_mut(&mut self, _: &mut syn::Type) {}
    fn visit_pat_mut(&mut self, _: &mut syn::Pat) {}
    fn visit_generic_argument_mut(&mut self, _: &mut syn::GenericArgument) {}
}
