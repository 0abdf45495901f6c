//! `raw-spawn`: a task started with `tokio::spawn` & co., which shutdown cannot drain.

use super::{RuleContext, RuleMeta};
use crate::finding::Finding;
use crate::model::FileModel;
use crate::resolve::known;

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::RAW_SPAWN;

const HELP: &str = "use `shutdown_runtime::spawn(..)` / `spawn_named(..)` so shutdown can drain the task, or mark the enclosing fn `#[drainable]`";

fn is_configured(root: &[String], entries: &[String]) -> bool {
    let joined = root.join("::");
    entries.iter().any(|e| {
        let e = e.trim_start_matches("::");
        e == joined
            || (e.starts_with("crate::") && root.len() > 1 && e[7..] == root[1..].join("::"))
    })
}

/// Whether a call of `root` is routed by `#[drainable]`.
fn routed_by_drainable(root: &str) -> bool {
    known::RAW_SPAWN_FNS.contains(&root)
}

/// Reports raw spawns.
pub fn check(cx: &RuleContext<'_>, out: &mut Vec<Finding>) {
    for (region, item, name) in raw_spawns(cx.model, &cx.config.spawn_raw) {
        let message = format!("`{name}` starts a task that shutdown cannot drain or abort");
        out.push(cx.finding(&META, region, &item, message, HELP));
    }
}

/// Every raw spawn of a file: region, enclosing item, and what was called.
pub fn raw_spawns(
    model: &FileModel,
    configured_raw: &[String],
) -> Vec<(crate::finding::Region, String, String)> {
    let mut found = Vec::new();
    for cu in model.resolved_chains() {
        let ch = &cu.chain;
        let root = ch.root_str();
        if !ch.via_binding
            && (known::RAW_SPAWN_FNS.contains(&root.as_str())
                || is_configured(&ch.root, configured_raw))
        {
            if !(cu.ctx.in_drainable && routed_by_drainable(&root)) {
                found.push((ch.root_region, cu.ctx.item.clone(), root.clone()));
            }
            continue;
        }
        if known::RAW_SPAWN_RECEIVERS.contains(&root.as_str())
            && let Some(i) = ch
                .steps
                .iter()
                .position(|s| known::SPAWN_METHODS.contains(&s.name.as_str()))
            && ch.is_local_step(i)
        {
            let recv = ch.root.iter().rev().nth(1).cloned().unwrap_or_default();
            found.push((
                ch.steps[i].region,
                cu.ctx.item.clone(),
                format!("{recv}::{}", ch.steps[i].name),
            ));
        }
    }
    for r in &model.refs {
        let p = r.path.join("::");
        if known::RAW_SPAWN_FNS.contains(&p.as_str()) || is_configured(&r.path, configured_raw) {
            found.push((r.region, r.ctx.item.clone(), p));
        }
    }
    found
}

/// Number of tracked spawns: `shutdown_runtime` spawns, `[spawn] tracked` functions, and
/// spawns routed by `#[drainable]`.
pub fn tracked_spawns(model: &FileModel, configured_tracked: &[String]) -> usize {
    let mut n = 0;
    for cu in model.resolved_chains() {
        let ch = &cu.chain;
        let root = ch.root_str();
        if ch.via_binding && !known::TRACKED_SPAWN_RECEIVERS.contains(&root.as_str()) {
            continue;
        }
        if !ch.via_binding
            && (known::TRACKED_SPAWN_FNS.contains(&root.as_str())
                || is_configured(&ch.root, configured_tracked)
                || (cu.ctx.in_drainable && routed_by_drainable(&root)))
        {
            n += 1;
        } else if known::TRACKED_SPAWN_RECEIVERS.contains(&root.as_str())
            && let Some(i) = ch
                .steps
                .iter()
                .position(|s| known::TRACKED_SPAWN_METHODS.contains(&s.name.as_str()))
            && ch.is_local_step(i)
        {
            n += 1;
        }
    }
    n
}
