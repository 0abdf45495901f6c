//! `http-timeout-over-budget`: a literal HTTP timeout longer than the drain budget.

use super::http_no_timeout::http_ctor;
use super::{RuleContext, RuleMeta};
use crate::finding::{Finding, Severity};
use crate::model::ArgValue;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    name: "http-timeout-over-budget",
    default_severity: Severity::Deny,
    summary: "HTTP timeout longer than the configured `drain-budget`",
    doc: r#"## What it does
When `drain-budget` is configured, flags an overall HTTP timeout (`.timeout(..)`,
`.timeout_global(Some(..))`, `.timeout_per_call(Some(..))` on a reqwest, ureq or isahc
client or request chain) whose duration is known at lint time and longer than the budget:
`Duration::from_secs`, `from_millis`, `from_secs_f64`, `from_secs_f32`, `from_micros`,
`from_nanos`, `from_mins`, arithmetic on literals, and `const`s or `let` bindings of those
in the same file.

## Why it matters
The drain waits for in-flight requests. A request allowed to take 60 s cannot finish inside
a 25 s drain budget: it is aborted half way, which is what the budget was meant to avoid.

## Example
```rust
// shutdown-lint.toml: drain-budget = "25s"
reqwest::Client::builder().timeout(Duration::from_secs(60)).build()?;
```

## Use instead
```rust
reqwest::Client::builder().timeout(Duration::from_secs(10)).build()?;
```"#,
};

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
