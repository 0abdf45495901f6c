//! The name a tracked task gets in drain reports, derived from the spawned expression:
//! the function or method it runs (`handle_connection(socket)` → `handle_connection`);
//! for an async block, the first call it awaits (`async move { let c = c.clone();
//! worker.run(c).await }` → `run`), else its tail, else its first call; else the variable
//! it spawns (`fut`).

use syn::visit::{self, Visit};

/// Calls that say nothing about what a task does (clones, conversions, unwrapping,
/// instrumentation, nested spawns): skipped when naming.
const NOISE: &[&str] = &[
    "clone",
    "to_owned",
    "to_string",
    "into",
    "from",
    "unwrap",
    "expect",
    "unwrap_or_default",
    "as_ref",
    "as_mut",
    "borrow",
    "borrow_mut",
    "lock",
    "ok",
    "err",
    "map_err",
    "instrument",
    "in_current_span",
    "with_subscriber",
    "with_current_subscriber",
    "err_into",
    "map_ok",
    "fuse",
    "boxed_local",
    "boxed",
    "pin",
    "new",
    "default",
    "Some",
    "Ok",
    "Err",
    "Box",
    "Arc",
    "drop",
    "is_some",
    "is_none",
    "is_ok",
    "is_err",
    "with_context",
    "context",
    "map",
    "and_then",
    // a spawn inside the spawned code: what it spawns names the task
    "spawn",
    "spawn_named",
    "spawn_blocking",
    "spawn_local",
];

struct FirstCall {
    found: Option<String>,
}

impl<'ast> Visit<'ast> for FirstCall {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if self.found.is_some() {
            return;
        }
        match e {
            syn::Expr::Call(c) => {
                if let syn::Expr::Path(p) = &*c.func
                    && let Some(last) = p.path.segments.last()
                {
                    let n = last.ident.to_string();
                    if !NOISE.contains(&n.as_str()) {
                        // arguments run first, but the called function is what the task does
                        self.found = Some(n);
                        return;
                    }
                }
                visit::visit_expr(self, e);
            }
            syn::Expr::MethodCall(m) => {
                // the outermost meaningful method: `server.run().instrument(s)` is `run`
                let n = m.method.to_string();
                if !NOISE.contains(&n.as_str()) {
                    self.found = Some(n);
                    return;
                }
                self.visit_expr(&m.receiver);
                for a in &m.args {
                    self.visit_expr(a);
                }
            }
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The first `.await` (in source order, macro bodies the linter reads included) and the
/// call it awaits.
struct FirstAwait {
    found: Option<String>,
}

impl<'ast> Visit<'ast> for FirstAwait {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if self.found.is_some() {
            return;
        }
        if let syn::Expr::Await(a) = e {
            let mut v = FirstCall { found: None };
            v.visit_expr(&a.base);
            if v.found.is_some() {
                self.found = v.found;
                return;
            }
        }
        visit::visit_expr(self, e);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if crate::macros::is_opaque(&name) {
            return;
        }
        match crate::macros::parse_body(&name, mac.tokens.clone()) {
            Some(crate::macros::MacroBody::Exprs(es)) => es.iter().for_each(|e| self.visit_expr(e)),
            Some(crate::macros::MacroBody::Select(bs)) => {
                for b in &bs {
                    self.visit_expr(&b.future);
                    self.visit_expr(&b.handler);
                }
            }
            Some(crate::macros::MacroBody::Stmts(ss)) => ss.iter().for_each(|s| self.visit_stmt(s)),
            _ => {}
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The block of an async block or a closure.
fn body_block(e: &syn::Expr) -> Option<&syn::Block> {
    match e {
        syn::Expr::Async(a) => Some(&a.block),
        syn::Expr::Closure(c) => match &*c.body {
            syn::Expr::Block(b) => Some(&b.block),
            syn::Expr::Async(a) => Some(&a.block),
            _ => None,
        },
        _ => None,
    }
}

/// Statements of an async block or closure body, the tail first (it is usually what the
/// task is for), then the others in order.
fn body_exprs(e: &syn::Expr) -> Option<Vec<&syn::Stmt>> {
    let block = body_block(e)?;
    let mut stmts: Vec<&syn::Stmt> = block.stmts.iter().collect();
    if let Some(last) = stmts.pop() {
        stmts.insert(0, last);
    }
    Some(stmts)
}

/// A name for the task that runs `e`, if one can be read from it.
///
/// # Examples
/// ```
/// use shutdown_lint::fix::name::task_name;
/// let n = |s: &str| task_name(&syn::parse_str(s).unwrap());
/// assert_eq!(n("handle_connection(socket)").as_deref(), Some("handle_connection"));
/// assert_eq!(n("async move { let s = s.clone(); worker.run(s).await }").as_deref(), Some("run"));
/// assert_eq!(n("fut").as_deref(), Some("fut"));
/// assert_eq!(n("admin.serve.instrument(span)").as_deref(), Some("serve"));
/// assert_eq!(n("async move { let t = now(); s.run().await }.instrument(span)").as_deref(), Some("run"));
/// assert_eq!(n("async {}"), None);
/// ```
pub fn task_name(e: &syn::Expr) -> Option<String> {
    let mut e = e;
    loop {
        e = match e {
            syn::Expr::Paren(p) => &p.expr,
            syn::Expr::Group(g) => &g.expr,
            // `async { .. }.instrument(span)`: the block is what runs
            syn::Expr::MethodCall(m) if NOISE.contains(&m.method.to_string().as_str()) => {
                &m.receiver
            }
            _ => break,
        };
    }
    if let syn::Expr::Path(p) = e {
        return p.path.segments.last().map(|s| s.ident.to_string());
    }
    if let syn::Expr::Field(f) = e
        && let syn::Member::Named(n) = &f.member
    {
        // `admin.serve.instrument(span)`: the field holds the future
        return Some(n.to_string());
    }
    if let Some(block) = body_block(e) {
        let mut a = FirstAwait { found: None };
        a.visit_block(block);
        if let Some(n) = a.found {
            return Some(n.trim_start_matches("r#").to_string());
        }
    }
    let mut v = FirstCall { found: None };
    match body_exprs(e) {
        Some(stmts) => {
            for s in stmts {
                v.visit_stmt(s);
                if v.found.is_some() {
                    break;
                }
            }
        }
        None => v.visit_expr(e),
    }
    v.found.map(|n| n.trim_start_matches("r#").to_string())
}
