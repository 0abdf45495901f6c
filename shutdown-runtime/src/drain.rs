//! The budgeted drain behind [`Shutdown::drain`](crate::Shutdown::drain).

use std::time::Duration;

use tokio::time::{Instant, timeout_at};

use crate::inner::Inner;
use crate::registry::Aborted;
use crate::report::{DrainReport, TaskInfo};

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
    let base_ok = reg.drain_base();
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
                    task = %a.info().name,
                    location = %a.info().location,
                    age_ms = a.info().age.as_millis() as u64,
                    "budget exhausted: aborting tracked task"
                );
            }
            aborted.append(&mut batch);
            let _ = timeout_at(landing, reg.wait_until(|r| r.pending_aborts(&aborted) == 0)).await;
        }
    }

    let spawned_during_drain = reg.set_draining(false);
    let still_running_blocking: Vec<TaskInfo> = reg.running_blocking();
    let ended_ok = reg.ended_ok();
    reg.set_drain_base(ended_ok);
    let report = DrainReport {
        drained: ended_ok.saturating_sub(base_ok) as usize,
        aborted: aborted.into_iter().map(Aborted::into_info).collect(),
        panicked: reg.take_panics(),
        still_running_blocking,
        spawned_during_drain,
        elapsed: start.elapsed(),
        loops_stopped_early: crate::stops::take(std::ptr::from_ref(inner) as usize),
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use crate::Shutdown;

    const SEC: Duration = Duration::from_secs(1);

    #[tokio::test(start_paused = true)]
    async fn returns_when_the_last_task_ends_not_at_the_budget() {
        let s = Shutdown::new();
        s.spawn(tokio::time::sleep(3 * SEC));
        s.spawn(tokio::time::sleep(SEC));
        let r = s.drain(10 * SEC).await;
        assert_eq!(r.elapsed, 3 * SEC);
        assert_eq!((r.drained, r.aborted.len()), (2, 0));
        assert!(r.is_clean());
        assert_eq!(s.tracked_len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_stopped_at_a_checkpoint_is_drained_not_cancelled() {
        let s = Shutdown::new();
        let s2 = s.clone();
        let h = s.spawn_named("loop", async move {
            let mut units = 0u32;
            while !s2.is_requested() {
                tokio::time::sleep(Duration::from_millis(100)).await;
                units += 1;
            }
            units
        });
        tokio::time::sleep(Duration::from_millis(450)).await;
        s.request();
        let r = s.drain(5 * SEC).await;
        assert_eq!((r.drained, r.aborted.len()), (1, 0));
        assert!(r.elapsed <= Duration::from_millis(100));
        assert_eq!(h.await.unwrap(), 5); // it finished its unit and recorded the result
    }

    #[tokio::test(start_paused = true)]
    async fn aborts_at_the_budget_and_names_the_task() {
        let s = Shutdown::new();
        let line = line!() + 1;
        let h = s.spawn_named("stuck", std::future::pending::<()>());
        s.spawn(tokio::time::sleep(SEC));
        let r = s.drain(2 * SEC).await;
        assert_eq!(r.drained, 1);
        assert_eq!(r.aborted.len(), 1);
        let a = &r.aborted[0];
        assert_eq!(a.name, "stuck");
        assert_eq!((a.location.file(), a.location.line()), (file!(), line));
        assert_eq!(r.elapsed, 2 * SEC); // aborts land at once: no extra wait
        assert!(h.await.unwrap_err().is_cancelled());
        assert_eq!(s.tracked_len(), 0);
        assert!(!r.is_clean());
        let json = r.to_json_line();
        assert!(
            json.contains(r#""aborted":[{"name":"stuck","location":""#),
            "{json}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn zero_budget_aborts_everything_at_once() {
        let s = Shutdown::new();
        for _ in 0..100 {
            s.spawn(std::future::pending::<()>());
        }
        let r = s.drain(Duration::ZERO).await;
        assert_eq!((r.drained, r.aborted.len()), (0, 100));
        assert_eq!(s.tracked_len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn panics_are_reported_and_do_not_block_the_drain() {
        let s = Shutdown::new();
        let line = line!() + 1;
        let h = s.spawn_named("bad", async {
            tokio::time::sleep(SEC).await;
            panic!("unit 7 failed")
        });
        s.spawn(tokio::time::sleep(2 * SEC));
        let r = s.drain(10 * SEC).await;
        assert_eq!(r.elapsed, 2 * SEC);
        assert_eq!(r.drained, 1);
        assert_eq!(r.panicked.len(), 1);
        let p = &r.panicked[0];
        assert_eq!(
            (p.task.name.as_ref(), p.message.as_str()),
            ("bad", "unit 7 failed")
        );
        assert_eq!(p.task.location.line(), line);
        assert!(h.await.unwrap_err().is_panic());
        // reported once
        assert!(s.drain(SEC).await.panicked.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn spawns_during_a_drain_are_tracked_counted_and_aborted_at_the_budget() {
        let s = Shutdown::new();
        let s2 = s.clone();
        s.spawn(async move {
            tokio::time::sleep(SEC).await;
            s2.spawn_named("late-ok", tokio::time::sleep(SEC));
            s2.spawn_named("late-stuck", std::future::pending::<()>());
        });
        let r = s.drain(5 * SEC).await;
        assert_eq!(r.spawned_during_drain, 2);
        assert_eq!(r.drained, 2);
        assert_eq!(r.aborted.len(), 1);
        assert_eq!(r.aborted[0].name, "late-stuck");
        assert_eq!(r.elapsed, 5 * SEC);
    }

    // Real time: tokio's paused clock does not auto-advance while a blocking job runs.
    #[tokio::test]
    async fn running_blocking_work_and_threads_are_reported() {
        let s = Shutdown::new();
        let release = Arc::new(AtomicBool::new(false));
        let (r1, r2) = (release.clone(), release.clone());
        let job = s.spawn_blocking(move || {
            while !r1.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let thread = s.spawn_thread(move || {
            while !r2.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        let r = s.drain(Duration::from_millis(50)).await;
        let mut names: Vec<_> = r
            .still_running_blocking
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        names.sort();
        // unnamed: named after the enclosing function of the closures they run
        let here = "shutdown_runtime::drain::tests::running_blocking_work_and_threads_are_reported";
        assert_eq!(names, [here, here]);
        assert!(r.aborted.is_empty());
        release.store(true, Ordering::Release);
        job.await.unwrap();
        thread.join().unwrap();
        assert_eq!(s.tracked_len(), 0);
        assert!(s.drain(SEC).await.is_clean());
    }

    #[tokio::test(start_paused = true)]
    async fn dropping_the_join_handle_does_not_untrack() {
        let s = Shutdown::new();
        drop(s.spawn(tokio::time::sleep(SEC)));
        assert_eq!(s.tracked_len(), 1);
        let r = s.drain(5 * SEC).await;
        assert_eq!((r.drained, r.elapsed), (1, SEC));
    }

    #[test]
    fn a_task_dropped_inside_spawn_by_a_closed_runtime_is_rolled_back() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let handle = rt.handle().clone();
        drop(rt);
        let s = Shutdown::new();
        let _enter = handle.enter();
        let h = s.spawn(async {});
        assert_eq!(s.tracked_len(), 0);
        drop(h);
        let weak = Arc::downgrade(&s.inner);
        drop(s);
        assert!(weak.upgrade().is_none(), "scope leaked");
    }

    #[test]
    fn the_scope_outlives_its_last_task_and_no_longer() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let s = Shutdown::new();
        let weak = Arc::downgrade(&s.inner);
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let _g = rt.enter();
        let h = s.spawn(async move { rx.await.ok() });
        drop(s);
        assert!(weak.upgrade().is_some(), "a live task keeps the scope");
        tx.send(()).unwrap();
        rt.block_on(h).unwrap();
        assert!(weak.upgrade().is_none(), "freed after the last task");
    }
}
