//! `detached-thread`: an OS thread whose `JoinHandle` is dropped at once.

use super::{RuleContext, RuleMeta};
use crate::finding::{Finding, Region, Severity};
use crate::model::{FileModel, Usage};
use crate::resolve::known;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    name: "detached-thread",
    default_severity: Severity::Warn,
    summary: "`std::thread::spawn` / `Builder::spawn` whose `JoinHandle` is dropped",
    doc: r#"## What it does
Flags `std::thread::spawn(..)` and `std::thread::Builder::new()..spawn(..)` whose
`JoinHandle` is thrown away on the spot: an expression statement, `let _ = ..`, `..?;`,
`.unwrap();`, `.expect(..);` or `drop(..)`. A handle that is kept (bound to a name, pushed,
returned, joined) is fine, and so are scoped threads (`std::thread::scope`).

## Why it matters
A detached thread cannot be joined. At exit it is killed wherever it is — in the middle of
a write or a transaction — and nothing reports that it was still running.

## Example
```rust
std::thread::spawn(move || loop { poll_queue(&q) });
```

## Use instead
```rust
let worker = std::thread::spawn(move || while !shutdown_requested() { poll_queue(&q) });
// .. on shutdown:
worker.join().expect("worker panicked");
```
or `shutdown_runtime::spawn_thread(..)`, which the drain waits for."#,
};

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
