//! The name a tracked task gets in drain reports, derived from the spawned expression:
//! the function or method it runs (`handle_connection(socket)` → `handle_connection`,
//! `async move { worker.run().await }` → `run`), else the variable it spawns (`fut`).

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

/// Statements of an async block or closure body, the tail first (it is usually what the
/// task is for), then the others in order.
fn body_exprs(e: &syn::Expr) -> Option<Vec<&syn::Stmt>> {
    let block = match e {
        syn::Expr::Async(a) => &a.block,
        syn::Expr::Closure(c) => match &*c.body {
            syn::Expr::Block(b) => &b.block,
            syn::Expr::Async(a) => &a.block,
            _ => return None,
        },
        _ => return None,
    };
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
/// assert_eq!(n("async {}"), None);
/// ```
pub fn task_name(e: &syn::Expr) -> Option<String> {
    let mut e = e;
    loop {
        e = match e {
            syn::Expr::Paren(p) => &p.expr,
            syn::Expr::Group(g) => &g.expr,
            _ => break,
        };
    }
    if let syn::Expr::Path(p) = e {
        return p.path.segments.last().map(|s| s.ident.to_string());
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
