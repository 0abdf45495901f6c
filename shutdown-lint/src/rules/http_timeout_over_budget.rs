//! `http-timeout-over-budget`: a literal HTTP timeout longer than the drain budget: a
//! client's or a request's, or how long a server's graceful shutdown waits for connections.

use super::http_no_timeout::http_ctor;
use super::{RuleContext, RuleMeta};
use crate::finding::Finding;
use crate::model::ArgValue;
use crate::resolve::known;

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::HTTP_TIMEOUT_OVER_BUDGET;

fn secs(d: f64) -> String {
    if d >= 1.0 && d.fract() == 0.0 {
        format!("{d:.0} s")
    } else {
        format!("{} ms", (d * 1000.0).round())
    }
}

/// Whether the rule can report anything under `config`: a drain budget is set and the rule
/// is not allowed. When it cannot, a timeout's value need not be looked for in other files
/// (the parameters, fields and consts it reads stay unvalued).
///
/// # Examples
///
/// ```
/// use shutdown_lint::config::Config;
/// use shutdown_lint::rules::http_timeout_over_budget::values_timeouts;
/// assert!(!values_timeouts(&Config::default()));
/// let c = Config::from_toml_str("drain-budget = \"25s\"\n", "x.toml".as_ref()).unwrap();
/// assert!(values_timeouts(&c));
/// let off = "drain-budget = \"25s\"\n[rules]\nhttp-timeout-over-budget = \"allow\"\n";
/// assert!(!values_timeouts(&Config::from_toml_str(off, "x.toml".as_ref()).unwrap()));
/// ```
pub fn values_timeouts(config: &crate::config::Config) -> bool {
    config.drain_budget.is_some() && config.severity(&META) != crate::finding::Severity::Allow
}

/// Whether [`check`] judges the timeouts of chain `ch`: an HTTP client of a known library
/// (or a configured wrapper, `wrappers`) or a server whose graceful shutdown waits. A
/// timeout argument of any other chain (a lock request's `.with_acquire_timeout(t)`) is
/// never worth valuing.
pub(crate) fn judges(ch: &crate::model::Chain, wrappers: &[String]) -> bool {
    http_ctor(ch, wrappers).is_some()
        || known::server_api(&ch.root_str()).is_some_and(|api| api.drain_timeout.is_some())
}

/// Reports timeouts over the drain budget (nothing when no budget is configured).
pub fn check(cx: &RuleContext<'_>, out: &mut Vec<Finding>) {
    let Some(budget) = cx.config.drain_budget else {
        return;
    };
    let budget = budget.as_secs_f64();
    for cu in cx.model.resolved_chains() {
        let ch = &cu.chain;
        let Some((_, lib)) = http_ctor(ch, &cx.config.http_no_timeout) else {
            continue;
        };
        for (i, s) in ch.steps.iter().enumerate() {
            if !ch.is_local_step(i) || !lib.timeout_methods.contains(&s.name.as_str()) {
                continue;
            }
            if let Some(ArgValue::Duration(d, region)) = s.args.first()
                && *d > budget
            {
                // valued from elsewhere in the file: say where
                let from = cx
                    .model
                    .arg_origins
                    .iter()
                    .find(|o| o.offset == region.offset)
                    .map(|o| format!(" ({})", o.via))
                    .unwrap_or_default();
                let msg = format!(
                    "`.{}(..)` of {}{from} is longer than the drain budget of {}",
                    s.name,
                    secs(*d),
                    secs(budget)
                );
                let help = "lower the timeout below `drain-budget`, or raise the budget (and the deploy grace period)";
                out.push(cx.finding(&META, *region, &cu.ctx.item, msg, help));
            }
        }
    }
    for t in &cx.model.timeout_sets {
        if t.secs > budget {
            let msg = format!(
                "the request's timeout set through `timeout_mut()` ({}) is longer than the \
                 drain budget of {}",
                secs(t.secs),
                secs(budget)
            );
            let help = "lower the timeout below `drain-budget`, or raise the budget (and the deploy grace period)";
            out.push(cx.finding(&META, t.region, &t.ctx.item, msg, help));
        }
    }
    server_drain_timeouts(cx, budget, out);
}

/// A server's graceful shutdown told to wait for its connections longer than the budget
/// (poem's `run_with_graceful_shutdown(.., Some(d))`, salvo's `stop_graceful(d)`,
/// axum-server's `graceful_shutdown(Some(d))`, actix-web's `shutdown_timeout(secs)`).
fn server_drain_timeouts(cx: &RuleContext<'_>, budget: f64, out: &mut Vec<Finding>) {
    // servers whose default wait is longer than the budget, by the offset of their root:
    // reported unless one of the chains of that server sets the wait
    let mut defaults: std::collections::BTreeMap<
        usize,
        (&known::ServerApi, f64, &crate::model::ChainUse, bool),
    > = std::collections::BTreeMap::new();
    // servers told not to drain by themselves (`.disable_signals()`) that nothing stops
    // gracefully either: `server-no-graceful-shutdown`'s; one whose handle is told to
    // `stop(true)` waits its default like any other
    let mut off = std::collections::BTreeSet::new();
    let mut ungraceful = None;
    for cu in cx.model.resolved_chains() {
        let ch = &cu.chain;
        let Some(api) = known::server_api(&ch.root_str()) else {
            continue;
        };
        let Some((dt, d)) = api
            .drain_timeout
            .and_then(|dt| Some((dt, dt.default_secs?)))
        else {
            continue;
        };
        let e = defaults
            .entry(ch.root_region.offset)
            .or_insert((api, d, cu, false));
        // set here, or never draining at all (`.disable_signals()` with no handle to stop it
        // gracefully: `server-no-graceful-shutdown`'s finding)
        e.3 |= ch.steps.iter().any(|s| s.name == dt.method);
        if ch
            .steps
            .iter()
            .any(|s| api.drains_unless.is_some_and(|o| s.name == o))
        {
            let ungraceful = ungraceful.get_or_insert_with(|| {
                super::server_no_graceful_shutdown::sites(cx.model)
                    .into_iter()
                    .map(|s| s.root)
                    .collect::<std::collections::BTreeSet<_>>()
            });
            if ungraceful.contains(&ch.root_region.offset) {
                off.insert(ch.root_region.offset);
            }
        }
        if !ch.via_binding {
            e.2 = cu;
        }
    }
    // functions where some server sets the wait in its own chain
    let claimed: Vec<String> = defaults
        .values()
        .filter(|e| e.3)
        .map(|e| e.2.ctx.item.clone())
        .collect();
    for (root, (api, d, cu, set)) in defaults {
        if off.contains(&root) {
            continue;
        }
        let method = api.drain_timeout.map_or("", |dt| dt.method);
        // also set on a value the chains lost track of (miniserve's server folded over its
        // listeners, then `srv.shutdown_timeout(0)`), unless another server of the function
        // sets it in its own chain (rauthy's metrics server beside its main one)
        let set = set
            || (super::server_no_graceful_shutdown::item_calls_any(
                cx.model,
                &cu.ctx.item,
                &[method],
                false,
            ) && !claimed.contains(&cu.ctx.item));
        if set || d <= budget {
            continue;
        }
        let msg = format!(
            "{}'s graceful shutdown waits up to its default {} for open connections (no \
             `.{method}(..)`), longer than the drain budget of {}",
            api.name,
            secs(d),
            secs(budget)
        );
        let help = format!(
            "set `.{method}(..)` below `drain-budget` (the deploy's SIGKILL ends a longer wait, \
             cutting what it waited for), or raise the budget (and the deploy grace period)"
        );
        out.push(cx.finding(&META, cu.chain.root_region, &cu.ctx.item, msg, &help));
    }
    for cu in cx.model.resolved_chains() {
        let ch = &cu.chain;
        let Some((api, dt)) = known::server_api(&ch.root_str()).and_then(|api| {
            let dt = api.drain_timeout?;
            Some((api, dt))
        }) else {
            continue;
        };
        for (i, s) in ch.steps.iter().enumerate() {
            if !ch.is_local_step(i) || s.name != dt.method {
                continue;
            }
            let (d, region) = match s.args.get(dt.arg) {
                Some(ArgValue::Duration(d, region)) if !dt.in_secs => (*d, *region),
                Some(ArgValue::Num(n)) if dt.in_secs => (*n, s.region),
                _ => continue,
            };
            if d > budget {
                let msg = format!(
                    "{}'s graceful shutdown (`.{}(..)`) waits up to {} for open connections, \
                     longer than the drain budget of {}",
                    api.name,
                    s.name,
                    secs(d),
                    secs(budget)
                );
                let help = "let it wait less than `drain-budget` (the deploy's SIGKILL ends a \
                            longer wait, cutting what it waited for), or raise the budget (and \
                            the deploy grace period)";
                out.push(cx.finding(&META, region, &cu.ctx.item, msg, help));
            }
        }
    }
}
