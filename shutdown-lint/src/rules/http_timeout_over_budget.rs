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
                let msg = format!(
                    "`.{}(..)` of {} is longer than the drain budget of {}",
                    s.name,
                    secs(*d),
                    secs(budget)
                );
                let help = "lower the timeout below `drain-budget`, or raise the budget (and the deploy grace period)";
                out.push(cx.finding(&META, *region, &cu.ctx.item, msg, help));
            }
        }
    }
    server_drain_timeouts(cx, budget, out);
}

/// A server's graceful shutdown told to wait for its connections longer than the budget
/// (poem's `run_with_graceful_shutdown(.., Some(d))`, salvo's `stop_graceful(d)`,
/// axum-server's `graceful_shutdown(Some(d))`, actix-web's `shutdown_timeout(secs)`).
fn server_drain_timeouts(cx: &RuleContext<'_>, budget: f64, out: &mut Vec<Finding>) {
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
