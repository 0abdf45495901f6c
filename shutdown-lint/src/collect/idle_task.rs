//! Tasks spawned with a future that holds no work: `std::future::pending()`,
//! `futures::future::ready(Err(..))`.
//!
//! A service spawns one as a stand-in `JoinHandle` for a part that is switched off, so the
//! code that selects over its tasks' handles stays the same (pathfinder's node: a
//! `pending()` task for each disabled component, a `ready(Err(..))` for one that failed to
//! start; sail's task monitor). Nothing in it is cut when it is dropped, and a tracked
//! `pending()` task would hold a drain for its whole budget and then be reported as a
//! straggler: it is no raw spawn to route through the registry.

/// Whether `fut`, the future a task is spawned with, holds no work: a call of `pending` or
/// `ready` from a `future` module (`std::future::pending::<T>()`, `future::ready(x)` — the
/// value is computed before the spawn). An `async {}` block is not read as empty: the
/// pruner may have blanked its statements ([`crate::prune`]).
///
/// # Examples
/// ```
/// use shutdown_lint::collect::idle_task::is_idle_future;
/// let idle = |s: &str| is_idle_future(&syn::parse_str(s).unwrap());
/// assert!(idle("std::future::pending::<anyhow::Result<()>>()"));
/// assert!(idle("futures::future::ready(Err(anyhow::anyhow!(\"disabled\")))"));
/// assert!(idle("future::pending()"));
/// assert!(!idle("pending()")); // a function of the crate's own, perhaps
/// assert!(!idle("poll_pending(rx)"));
/// assert!(!idle("async move { work().await }"));
/// ```
pub fn is_idle_future(fut: &syn::Expr) -> bool {
    match fut {
        syn::Expr::Paren(p) => is_idle_future(&p.expr),
        syn::Expr::Call(c) => {
            let syn::Expr::Path(p) = &*c.func else {
                return false;
            };
            let mut segs = p.path.segments.iter().rev();
            matches!(
                (segs.next(), segs.next()),
                (Some(f), Some(module))
                    if module.ident == "future" && (f.ident == "pending" || f.ident == "ready")
            )
        }
        _ => false,
    }
}
