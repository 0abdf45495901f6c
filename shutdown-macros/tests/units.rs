//! Claimed units of work: after a shutdown request, a loop nested inside a claimed unit runs
//! to its end — in sync and async code, through closures, and through a call into another
//! `#[drainable]` function — while the claiming (outermost) loop claims nothing new; a nested
//! loop opted in with `#[drainable(partial)]` stops, unless a caller's unit (or a request
//! being served) encloses it; tasks spawned from a claiming loop stop between their own
//! units; every stop is listed in the drain report with its `file:line`.
//!
//! Each test uses its own scope (`scope = ..`), so the tests run in parallel.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use shutdown_runtime::{Shutdown, drainable, unit};

/// A job of `parts` parts; shutdown is requested while `trigger` (job, part) is processed.
fn jobs(n: u32, parts: u32) -> Vec<Vec<u32>> {
    (0..n).map(|_| (0..parts).collect()).collect()
}

/// What each job recorded: how many of its parts were done.
type Done = Vec<(usize, u32)>;

#[drainable(scope = scope)]
fn process_sync(scope: &Shutdown, jobs: &[Vec<u32>], trigger: (usize, u32)) -> Done {
    let mut done = Vec::new();
    #[drainable(partial)] // the jobs done so far are the result
    for (id, parts) in jobs.iter().enumerate() {
        let mut n = 0;
        for &part in parts {
            if (id, part) == trigger {
                scope.request();
            }
            n += 1;
        }
        done.push((id, n));
    }
    done
}

#[test]
fn sync_a_nested_loop_finishes_its_unit_and_the_outer_loop_claims_nothing_new() {
    let scope = Shutdown::new();
    let line = line!() - 16; // the outer `for`
    let done = process_sync(&scope, &jobs(4, 4), (1, 1));
    assert_eq!(
        done,
        [(0, 4), (1, 4)],
        "job 1 finished all 4 parts; job 2 never claimed"
    );
    let report = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(scope.drain(Duration::from_secs(1)));
    assert_eq!(report.loops_stopped_early.len(), 1);
    let stop = report.loops_stopped_early[0];
    assert_eq!(
        (stop.site.file, stop.site.line, stop.count),
        (file!(), line, 1)
    );
}

#[drainable(scope = scope)]
async fn process_async(scope: &Shutdown, jobs: Vec<Vec<u32>>, trigger: (usize, u32)) -> Done {
    let mut done = Vec::new();
    #[drainable(partial)]
    for (id, parts) in jobs.into_iter().enumerate() {
        let mut n = 0;
        for part in parts {
            tokio::task::yield_now().await; // a step that awaits
            if (id, part) == trigger {
                scope.request();
            }
            n += 1;
        }
        done.push((id, n));
    }
    done
}

#[tokio::test]
async fn async_a_nested_loop_finishes_its_unit() {
    let scope = Shutdown::new();
    let done = process_async(&scope, jobs(4, 4), (2, 0)).await;
    assert_eq!(done, [(0, 4), (1, 4), (2, 4)]);
    let report = scope.drain(Duration::from_secs(1)).await;
    assert_eq!(report.loops_stopped_early.len(), 1);
}

#[drainable(scope = scope)]
fn process_with_closures(scope: &Shutdown, jobs: &[Vec<u32>], trigger: (usize, u32)) -> Done {
    let mut done = Vec::new();
    // A closure defined outside the loop: its loop claims units of its own, but it runs inside
    // the outer loop's unit, so it does not stop there.
    let count_parts = |id: usize, parts: &[u32]| {
        let mut n = 0;
        #[drainable(partial)]
        for &part in parts {
            if (id, part) == trigger {
                scope.request();
            }
            n += 1;
        }
        n
    };
    #[drainable(partial)]
    for (id, parts) in jobs.iter().enumerate() {
        // A closure written inside the unit: its loop is nested, it runs to its end.
        let mut checked = 0;
        parts.iter().for_each(|_| {
            let mut spins = 0;
            while spins < 2 {
                spins += 1;
            }
            checked += spins / 2;
        });
        let n = count_parts(id, parts);
        done.push((id, n.min(checked)));
    }
    done
}

#[test]
fn through_closures_a_unit_is_never_cut() {
    let scope = Shutdown::new();
    let done = process_with_closures(&scope, &jobs(3, 5), (0, 2));
    assert_eq!(done, [(0, 5)]);
}

/// A `#[drainable]` function with its own claiming loop, called from inside another one's unit.
#[drainable(scope = scope)]
async fn copy_parts(scope: &Shutdown, id: usize, parts: Vec<u32>, trigger: (usize, u32)) -> u32 {
    let mut n = 0;
    #[drainable(partial)]
    for part in parts {
        tokio::task::yield_now().await;
        if (id, part) == trigger {
            scope.request();
        }
        n += 1;
    }
    n
}

#[drainable(scope = scope)]
async fn process_calls(scope: &Shutdown, jobs: Vec<Vec<u32>>, trigger: (usize, u32)) -> Done {
    let mut done = Vec::new();
    #[drainable(partial)]
    for (id, parts) in jobs.into_iter().enumerate() {
        let n = copy_parts(scope, id, parts, trigger).await;
        done.push((id, n));
    }
    done
}

#[tokio::test]
async fn through_a_call_the_callees_loop_finishes_the_callers_unit() {
    let scope = Shutdown::new();
    let done = process_calls(&scope, jobs(3, 6), (1, 2)).await;
    assert_eq!(
        done,
        [(0, 6), (1, 6)],
        "the callee ran all parts; job 2 never claimed"
    );
    // called on its own (no caller's unit), the same function does stop
    let alone = Shutdown::new();
    assert_eq!(copy_parts(&alone, 0, (0..6).collect(), (0, 2)).await, 3);
}

#[drainable(scope = scope)]
fn process_partial(scope: &Shutdown, jobs: &[Vec<u32>], trigger: (usize, u32)) -> Done {
    let mut done = Vec::new();
    #[drainable(partial)]
    for (id, parts) in jobs.iter().enumerate() {
        let mut n = 0;
        // This nested loop claims units itself, and the code after it records how far it got.
        #[drainable(partial)]
        for &part in parts {
            n += 1;
            if (id, part) == trigger {
                scope.request();
            }
        }
        done.push((id, n)); // "done (partial) n/len"
    }
    done
}

#[test]
fn an_opted_in_nested_loop_stops_and_records_its_partial_result() {
    let scope = Shutdown::new();
    assert_eq!(
        process_partial(&scope, &jobs(3, 5), (1, 1)),
        [(0, 5), (1, 2)]
    );
}

#[test]
fn an_opted_in_nested_loop_does_not_stop_inside_a_callers_unit() {
    let scope = Shutdown::new();
    let _callers_unit = unit::enter();
    assert_eq!(
        process_partial(&scope, &jobs(3, 5), (1, 1)),
        [(0, 5), (1, 5), (2, 5)],
        "inside a caller's unit every loop runs to its end"
    );
}

#[tokio::test]
async fn a_request_being_served_is_never_cut() {
    let scope = Shutdown::new();
    let s = scope.clone();
    let done = unit::claimed(async move { process_async(&s, jobs(3, 3), (0, 1)).await }).await;
    assert_eq!(done, [(0, 3), (1, 3), (2, 3)]);
    assert!(
        scope
            .drain(Duration::from_secs(1))
            .await
            .loops_stopped_early
            .is_empty()
    );
}

/// The scheduler PR: the coordinator's loop spawns detached children; each child's card loop
/// is outermost in its own task, so it stops between cards and records `done (partial)`.
#[drainable(scope = scope)]
async fn coordinator(scope: &Shutdown, jobs: u32, log: Arc<Mutex<Vec<String>>>) {
    for id in 0..jobs {
        let log = log.clone();
        let child_scope = scope.clone();
        tokio::spawn(async move {
            let mut cards = 0;
            for _card in 0..40 {
                tokio::time::sleep(Duration::from_millis(10)).await;
                cards += 1;
                if id == 0 && cards == 3 {
                    child_scope.request();
                }
            }
            let state = if cards == 40 {
                "done"
            } else {
                "done (partial)"
            };
            log.lock()
                .unwrap()
                .push(format!("job {id} {state} {cards}/40"));
        });
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

#[tokio::test(start_paused = true)]
async fn spawned_children_stop_between_their_own_units() {
    let scope = Shutdown::new();
    let log = Arc::new(Mutex::new(Vec::new()));
    coordinator(&scope, 2, log.clone()).await;
    let report = scope.drain(Duration::from_secs(5)).await;
    assert_eq!(report.drained, 2);
    assert!(report.aborted.is_empty());
    let mut lines = log.lock().unwrap().clone();
    lines.sort();
    assert_eq!(
        lines,
        ["job 0 done (partial) 3/40", "job 1 done (partial) 3/40"]
    );
    assert_eq!(report.loops_stopped_early.len(), 1, "one site");
    assert_eq!(report.loops_stopped_early[0].count, 2, "stopped twice");
}

#[drainable]
fn global_scope_loop(units: u32, stop_after: u32) -> u32 {
    let mut n = 0;
    #[drainable(partial)]
    for _ in 0..units {
        n += 1;
        if n == stop_after {
            shutdown_runtime::request_shutdown();
        }
    }
    n
}

#[test]
fn the_global_scope_checkpoint_stops_too() {
    // The only test of this binary that touches the global scope.
    assert_eq!(global_scope_loop(10, 4), 4);
}

async fn serve_connection(id: u32) {
    let _ = id;
    std::future::pending::<()>().await;
}

#[drainable(scope = scope)]
fn accept_two(scope: &Shutdown) {
    tokio::spawn(serve_connection(1));
    tokio::spawn(async move {
        let idle = std::future::pending::<()>();
        idle.await
    });
}

#[tokio::test]
async fn routed_spawns_are_named_after_what_they_run_else_the_enclosing_fn() {
    let scope = Shutdown::new();
    accept_two(&scope);
    let report = scope.drain(Duration::from_millis(20)).await;
    let mut names: Vec<_> = report.aborted.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(names, ["accept_two", "serve_connection"]);
}
