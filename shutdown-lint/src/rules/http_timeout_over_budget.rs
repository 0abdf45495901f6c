//! `http-timeout-over-budget`: a literal HTTP timeout longer than the drain budget.

use super::http_no_timeout::http_ctor;
use super::{RuleContext, RuleMeta};
use crate::finding::Finding;
use crate::model::ArgValue;

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
}
