//! The budgeted drain behind [`Shutdown::drain`](crate::Shutdown::drain).

use std::time::Duration;

use tokio::time::{Instant, timeout_at};

use crate::registry::Aborted;
use crate::report::{DrainReport, TaskInfo};
use crate::scope::Inner;

/// How long a drain waits, after aborting at the budget, for the aborts to land (an aborted
/// task is dropped the next time the runtime gets to it, normally within microseconds).
///
/// ```
/// assert_eq!(shutdown_runtime::drain::ABORT_LANDING, std::time::Duration::from_millis(100));
/// ```
pub const ABORT_LANDING: Duration = Duration::from_millis(100);

pub(crate) async fn drain(inner: &Inner, budget: Duration) -> DrainReport {
    let _one_at_a_time = inner.drain_lock.lock().await;
    let reg = &inner.registry;
    let start = Instant::now();
    let deadline = start + budget;
    let base_ok = reg.ended_ok();
    reg.set_draining(true);
    tracing::info!(
        target: "shutdown_runtime",
        phase = "drain",
        tracked = reg.live(),
        budget_ms = budget.as_millis() as u64,
        "draining tracked tasks"
    );

    let finished = timeout_at(deadline, reg.wait_idle()).await.is_ok();

    let mut aborted: Vec<Aborted> = Vec::new();
    if !finished {
        reg.notify_each();
        let landing = Instant::now() + ABORT_LANDING;
        // Two passes: the second catches tasks spawned while the first aborts landed.
        for _pass in 0..2 {
            let mut batch = reg.abort_all();
            if batch.is_empty() {
                break;
            }
            for a in &batch {
                tracing::warn!(
                    target: "shutdown_runtime",
                    phase = "abort",
                    task = %a.info.name,
                    location = %a.info.location,
                    age_ms = a.info.age.as_millis() as u64,
                    "budget exhausted: aborting tracked task"
                );
            }
            aborted.append(&mut batch);
            let _ = timeout_at(landing, reg.wait_until(|r| r.pending_aborts(&aborted) == 0)).await;
        }
    }

    let spawned_during_drain = reg.set_draining(false);
    let still_running_blocking: Vec<TaskInfo> = reg.running_blocking();
    let report = DrainReport {
        drained: reg.ended_ok().saturating_sub(base_ok) as usize,
        aborted: aborted.into_iter().map(|a| a.info).collect(),
        panicked: reg.take_panics(),
        still_running_blocking,
        spawned_during_drain,
        elapsed: start.elapsed(),
    };
    tracing::info!(
        target: "shutdown_runtime",
        phase = "drained",
        drained = report.drained,
        aborted = report.aborted.len(),
        panicked = report.panicked.len(),
        still_running_blocking = report.still_running_blocking.len(),
        spawned_during_drain = report.spawned_during_drain,
        elapsed_ms = report.elapsed.as_millis() as u64,
        "drain finished"
    );
    report
}
