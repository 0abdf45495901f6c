//! `detached-thread`: an OS thread whose `JoinHandle` is dropped at once.

use super::{RuleContext, RuleMeta};
use crate::finding::{Finding, Region};
use crate::model::{FileModel, Usage};
use crate::resolve::known;

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::DETACHED_THREAD;

const HELP: &str = "keep the `JoinHandle` and join it on shutdown, use `std::thread::scope`, or `shutdown_runtime::spawn_thread`";
const TRANSPARENT: &[&str] = &["?", "unwrap", "expect"];

/// Detached threads of a file: region and enclosing item.
pub fn detached_threads(model: &FileModel) -> Vec<(Region, String)> {
    let mut found = Vec::new();
    for cu in model.resolved_chains() {
        if cu.usage != Usage::Dropped {
            continue;
        }
        let ch = &cu.chain;
        let root = ch.root_str();
        if root == known::THREAD_SPAWN_FN && !ch.via_binding {
            if cu.ctx.in_drainable {
                continue; // routed to a tracked thread by #[drainable]
            }
            if ch
                .steps
                .iter()
                .all(|s| TRANSPARENT.contains(&s.name.as_str()))
            {
                found.push((ch.root_region, cu.ctx.item.clone()));
            }
        } else if root == known::THREAD_BUILDER_NEW
            && let Some(i) = ch.steps.iter().position(|s| s.name == "spawn")
            && ch.is_local_step(i)
            && ch.steps[i + 1..]
                .iter()
                .all(|s| TRANSPARENT.contains(&s.name.as_str()))
        {
            found.push((ch.steps[i].region, cu.ctx.item.clone()));
        }
    }
    found
}

/// Reports detached threads.
pub fn check(cx: &RuleContext<'_>, out: &mut Vec<Finding>) {
    for (region, item) in detached_threads(cx.model) {
        let message =
            "the thread's `JoinHandle` is dropped, so shutdown cannot wait for it".to_string();
        out.push(cx.finding(&META, region, &item, message, HELP));
    }
}
