//! The spawn concern: calls of `tokio::spawn`, `tokio::task::{spawn, spawn_blocking,
//! spawn_local}` and `std::thread::spawn` (with or without a leading `::`) become calls of the
//! tracked equivalents in `__private`, spanned at the user's call so the runtime's
//! `#[track_caller]` records the user's file and line.
//!
//! A routed `tokio::spawn` / `tokio::task::spawn` gets a name in the drain report: what it runs
//! — the called function or method path of the spawned expression (`serve_connection(conn)` →
//! `serve_connection`, `self.handle(req)` → `handle`, `async move { worker(rx).await }` →
//! `worker`) — else the enclosing function's name. The location is recorded anyway.
//!
//! Only these full paths are recognised (no name resolution: `use tokio::spawn; spawn(..)` and
//! calls with turbofish arguments are left alone; `shutdown-lint` reports those).

use syn::visit_mut::VisitMut;
use syn::{Expr, ExprPath};

use super::super::emit::Emitter;
use super::super::errors::Errors;
use super::Stats;

/// The tracked function that replaces the spawn function at `path`, if it is one.
pub(crate) fn route(path: &ExprPath) -> Option<&'static str> {
    if path.qself.is_some() || path.path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let mut names = path.path.segments.iter().map(|s| &s.ident);
    let (Some(first), Some(second)) = (names.next(), names.next()) else {
        return None;
    };
    let third = names.next();
    if names.next().is_some() {
        return None;
    }
    match third {
        None if first == "tokio" && second == "spawn" => Some("spawn"),
        Some(function) if first == "tokio" && second == "task" => {
            if function == "spawn" {
                Some("spawn")
            } else if function == "spawn_blocking" {
                Some("spawn_blocking")
            } else if function == "spawn_local" {
                Some("spawn_local")
            } else {
                None
            }
        }
        Some(function) if first == "std" && second == "thread" && function == "spawn" => {
            Some("spawn_thread")
        }
        _ => None,
    }
}

/// The `VisitMut` that routes spawn calls.
#[derive(Debug)]
pub(crate) struct SpawnRewriter<'a> {
    emit: &'a Emitter,
    errors: &'a mut Errors,
    stats: &'a mut Stats,
}

impl<'a> SpawnRewriter<'a> {
    /// A rewriter that reports to `errors` and counts into `stats`.
    pub(crate) fn new(emit: &'a Emitter, errors: &'a mut Errors, stats: &'a mut Stats) -> Self {
        SpawnRewriter {
            emit,
            errors,
            stats,
        }
    }
}

impl VisitMut for SpawnRewriter<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Const(_) => return,
            Expr::Repeat(r) => return self.visit_expr_mut(&mut r.expr),
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
        let Expr::Call(call) = expr else { return };
        let Expr::Path(path) = &*call.func else {
            return;
        };
        let Some(function) = route(path) else { return };
        let span = path
            .path
            .segments
            .first()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
        let args = std::mem::take(&mut call.args);
        let name = (function == "spawn" && args.len() == 1).then(|| {
            args.first()
                .and_then(runs)
                .unwrap_or_else(|| self.emit.fn_name().to_owned())
        });
        match self
            .emit
            .routed_spawn(function, span, name.as_deref(), args.clone())
        {
            Ok(routed) => {
                *expr = routed;
                self.stats.spawns += 1;
            }
            Err(e) => {
                call.args = args;
                self.errors.push(e);
            }
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_type_mut(&mut self, _: &mut syn::Type) {}
    fn visit_pat_mut(&mut self, _: &mut syn::Pat) {}
    fn visit_generic_argument_mut(&mut self, _: &mut syn::GenericArgument) {}
}

/// What a spawned expression runs: the called function's path or the method's name, looking
/// through `.await`, `?`, parentheses, `async` blocks and closures whose body is one call.
pub(crate) fn runs(expr: &Expr) -> Option<String> {
    match expr {
        // `unit::claimed(f)` / `unit::isolate(f)` only wrap what runs.
        Expr::Call(call)
            if call.args.len() == 1
                && matches!(&*call.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "claimed" || s.ident == "isolate")) =>
        {
            call.args.first().and_then(runs)
        }
        Expr::Call(call) => match &*call.func {
            Expr::Path(p) if p.qself.is_none() => Some(
                p.path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect::<Vec<_>>()
                    .join("::"),
            ),
            _ => None,
        },
        Expr::MethodCall(m) => Some(m.method.to_string()),
        Expr::Await(a) => runs(&a.base),
        Expr::Try(t) => runs(&t.expr),
        Expr::Paren(p) => runs(&p.expr),
        Expr::Async(a) => single(&a.block),
        Expr::Closure(c) => match &*c.body {
            Expr::Block(b) if b.label.is_none() => single(&b.block),
            other => runs(other),
        },
        _ => None,
    }
}

/// The call a block consists of: its only statement (an expression, with or without `;`).
fn single(block: &syn::Block) -> Option<String> {
    match block.stmts.as_slice() {
        [syn::Stmt::Expr(e, _)] => runs(e),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::runs;

    #[test]
    fn names_what_a_spawn_runs() {
        let cases = [
            ("serve_connection(conn)", Some("serve_connection")),
            ("handlers::serve(conn)", Some("handlers::serve")),
            ("self.handle(req)", Some("handle")),
            ("async move { worker(rx).await }", Some("worker")),
            ("async move { worker(rx).await; }", Some("worker")),
            ("move || compute(x)", Some("compute")),
            ("unit::claimed(handle(conn))", Some("handle")),
            ("async move { let a = 1; f(a).await }", None),
            ("fut", None),
        ];
        for (src, want) in cases {
            let expr: syn::Expr = syn::parse_str(src).unwrap();
            assert_eq!(runs(&expr).as_deref(), want, "{src}");
        }
    }
}
