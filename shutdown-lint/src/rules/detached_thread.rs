//! `detached-thread`: an OS thread whose `JoinHandle` is dropped at once.

use super::{RuleContext, RuleMeta};
use crate::finding::{Finding, Region};
use crate::model::{ArgValue, FileModel, Usage};

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::DETACHED_THREAD;

const HELP: &str = "keep the `JoinHandle` and join it on shutdown (a thread that loops must also be told to stop: check `shutdown_runtime::shutdown_requested()` in its loop), use `std::thread::scope`, or `shutdown_runtime::spawn_thread`";
/// Steps that pass the handle on (in the `Result` or `Option` they return): a statement
/// ending with them still drops it (`spawn(..).map_err(..)?;`, `spawn(..).ok();`).
const TRANSPARENT: &[&str] = &[
    "?",
    "unwrap",
    "expect",
    "ok",
    "map_err",
    "context",
    "with_context",
];

/// Steps that read the `Result` and drop the handle with it, as the last step:
/// `let _ = spawn(..).is_ok();`.
const DISCARDING: &[&str] = &["is_ok", "is_err", "err"];

/// Whether a method may come after a call in a statement that drops its thread's handle
/// ([`TRANSPARENT`] or [`DISCARDING`]): a call of a function of the workspace followed by
/// only these is looked up, in case it returns a thread's handle.
pub(crate) fn passes_on(method: &str) -> bool {
    TRANSPARENT.contains(&method) || DISCARDING.contains(&method)
}

/// Whether a chain dropped after `steps` drops the thread's handle.
fn drops_handle(steps: &[crate::model::Step]) -> bool {
    let passed_on = match steps.split_last() {
        Some((last, before)) if DISCARDING.contains(&last.name.as_str()) => before,
        _ => steps,
    };
    passed_on
        .iter()
        .all(|s| TRANSPARENT.contains(&s.name.as_str()))
}

/// Whether the handle is dropped by a `map` (or `and_then`) whose closure ignores it,
/// after only steps that pass it on (`spawn(f).map(|_| ())`, `spawn(f).map_err(..).map(drop)`):
/// whatever is done with the `Result` after that, the handle is gone.
fn discards_handle(steps: &[crate::model::Step]) -> bool {
    steps
        .iter()
        .find(|s| !TRANSPARENT.contains(&s.name.as_str()))
        .is_some_and(|s| {
            (s.name == "map" || s.name == "and_then")
                && matches!(s.args.as_slice(), [ArgValue::Discards])
        })
}

/// Detached threads of a file: region and enclosing item.
pub fn detached_threads(model: &FileModel) -> Vec<(Region, String)> {
    let mut found = Vec::new();
    for cu in model.resolved_chains() {
        let ch = &cu.chain;
        let Some(after) = ch.thread_handle_after() else {
            continue;
        };
        let steps = &ch.steps[after..];
        let dropped = cu.usage == Usage::Dropped && drops_handle(steps);
        if !dropped && !discards_handle(steps) {
            continue;
        }
        let spawned_at = match after.checked_sub(1) {
            // `std::thread::spawn(..)`; routed to a tracked thread by `#[drainable]`
            None if cu.ctx.in_drainable => continue,
            None => ch.root_region,
            // a `Builder`'s `spawn` step
            Some(spawn) => ch.steps[spawn].region,
        };
        // a thread that waits for the process's signals (nothing to join before them), or
        // that holds no work (it joins another thread, waits for a child, times the exit)
        if model.spawns_no_work(spawned_at.offset) {
            continue;
        }
        found.push((spawned_at, cu.ctx.item.clone()));
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
