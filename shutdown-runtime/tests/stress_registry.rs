//! Multi-threaded stress of the tracked spawn: many workers spawn short, parked, panicking,
//! blocking and nested tasks from several tasks at once while other tasks call `abort_all`,
//! request shutdown and drain; every round checks the counts and the report against what the
//! tasks themselves observed. Bounded: `STRESS_ROUNDS` rounds (default 40), each with a
//! deadline.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use shutdown_runtime::Shutdown;
use tokio::sync::Notify;

const SPAWNERS: usize = 4;
const PER_SPAWNER: usize = 300;

#[derive(Default)]
struct Seen {
    spawned: AtomicUsize,
    aborted_by_abort_all: AtomicUsize,
}

/// What a spawned task does, by index.
fn job(
    i: usize,
    scope: &Shutdown,
    wake: &Arc<Notify>,
    seen: &Arc<Seen>,
) -> tokio::task::JoinHandle<usize> {
    seen.spawned.fetch_add(1, Ordering::Relaxed);
    match i % 6 {
        // ends in its first poll
        0 => scope.spawn_named(format!("short-{i}"), async move { i }),
        // parked until woken (some never are before the drain's budget)
        1 => {
            let wake = wake.clone();
            scope.spawn_named(format!("parked-{i}"), async move {
                wake.notified().await;
                i
            })
        }
        // parked for good: only an abort ends it
        2 => scope.spawn_named(format!("stuck-{i}"), async move {
            std::future::pending::<()>().await;
            i
        }),
        // yields a few times, then ends
        3 => scope.spawn(async move {
            for _ in 0..(i % 5) {
                tokio::task::yield_now().await;
            }
            i
        }),
        // panics in its first poll
        4 => scope.spawn_named(format!("panics-{i}"), async move {
            if i < usize::MAX {
                panic!("task {i} failed");
            }
            i
        }),
        // spawns a child (tracked by the same scope), waits for it
        _ => {
            let (s, seen) = (scope.clone(), seen.clone());
            scope.spawn_named(format!("parent-{i}"), async move {
                seen.spawned.fetch_add(1, Ordering::Relaxed);
                let child = s.spawn_named(format!("child-{i}"), async move { i });
                child.await.unwrap_or(0)
            })
        }
    }
}

async fn round(r: usize) {
    let scope = Shutdown::new();
    let wake = Arc::new(Notify::new());
    let seen = Arc::new(Seen::default());
    scope.request(); // every normal completion from now on counts as drained

    // Spawn from several tasks (on several workers) at once; one of them also spawns blocking
    // jobs; meanwhile an aborter calls abort_all a few times.
    let spawners: Vec<_> = (0..SPAWNERS)
        .map(|k| {
            let (scope, wake, seen) = (scope.clone(), wake.clone(), seen.clone());
            tokio::spawn(async move {
                let mut handles = Vec::with_capacity(PER_SPAWNER);
                for j in 0..PER_SPAWNER {
                    let i = k * PER_SPAWNER + j;
                    handles.push(job(i, &scope, &wake, &seen));
                    if j % 50 == 0 {
                        tokio::task::yield_now().await;
                    }
                    if k == 0 && j % 100 == 0 {
                        seen.spawned.fetch_add(1, Ordering::Relaxed);
                        handles.push(scope.spawn_blocking(move || i));
                    }
                }
                handles
            })
        })
        .collect();
    let aborter = {
        let (scope, seen) = (scope.clone(), seen.clone());
        tokio::spawn(async move {
            for _ in 0..(r % 3) {
                tokio::task::yield_now().await;
                let n = scope.abort_all();
                seen.aborted_by_abort_all.fetch_add(n, Ordering::Relaxed);
            }
        })
    };
    let mut handles = Vec::new();
    for s in spawners {
        handles.extend(s.await.unwrap());
    }
    aborter.await.unwrap();
    wake.notify_waiters(); // parked tasks registered by now end; later ones stay parked

    let report = tokio::time::timeout(
        Duration::from_secs(30),
        scope.drain(Duration::from_millis(20)),
    )
    .await
    .expect("drain finished within its budget plus the abort landing");

    // Every handle resolves; tally what the tasks did.
    let (mut ok, mut cancelled, mut panicked) = (0, 0, 0);
    for h in handles {
        match tokio::time::timeout(Duration::from_secs(30), h)
            .await
            .expect("handle resolved")
        {
            Ok(_) => ok += 1,
            Err(e) if e.is_cancelled() => cancelled += 1,
            Err(e) if e.is_panic() => panicked += 1,
            Err(e) => panic!("unexpected join error {e}"),
        }
    }
    let spawned = seen.spawned.load(Ordering::Relaxed);
    // children are not in `handles`: their parents awaited them
    let children = spawned - (SPAWNERS * PER_SPAWNER + PER_SPAWNER.div_ceil(100));
    assert_eq!(scope.tracked_len(), 0, "round {r}: nothing left tracked");
    assert_eq!(ok + cancelled + panicked + children, spawned, "round {r}");
    assert_eq!(
        report.panicked.len(),
        panicked,
        "round {r}: every panic reported once"
    );
    for p in &report.panicked {
        assert!(p.task.name.starts_with("panics-"), "{p:?}");
        assert_eq!(p.message, format!("task {} failed", &p.task.name[7..]));
    }
    // No named task listed twice; unnamed ones carry the path of what they run.
    let named: Vec<_> = report
        .aborted
        .iter()
        .map(|t| t.name.to_string())
        .filter(|n| n.contains('-'))
        .collect();
    let names: HashSet<_> = named.iter().cloned().collect();
    assert_eq!(names.len(), named.len(), "round {r}: listed once");
    for t in &report.aborted {
        assert!(
            t.name.contains('-') || t.name.ends_with("stress_registry::job"),
            "round {r}: unnamed task reported as {}",
            t.name
        );
        assert_eq!(t.location.file(), file!());
    }
    // Stuck tasks never complete: each was cancelled, by the drain (listed) or an abort_all.
    let stuck_listed = names.iter().filter(|n| n.starts_with("stuck-")).count();
    let stuck = (0..SPAWNERS * PER_SPAWNER).filter(|i| i % 6 == 2).count();
    let by_abort_all = seen.aborted_by_abort_all.load(Ordering::Relaxed);
    assert!(
        stuck_listed <= stuck && stuck_listed + by_abort_all >= stuck,
        "round {r}"
    );
    // Normal completions are drained unless an abort reached the task first (then its
    // abort was listed by the drain or counted by abort_all).
    let ended_normally = ok + children;
    assert!(report.drained <= ended_normally, "round {r}: {report:?}");
    assert!(
        ended_normally - report.drained <= by_abort_all + report.aborted.len(),
        "round {r}: drained {} of {ended_normally}",
        report.drained
    );
    // A blocking job still queued at the budget is cancelled, but may not have left the pool's
    // queue when the report is made: then it is listed as still running. Nothing else is.
    for b in &report.still_running_blocking {
        assert!(
            b.name.ends_with("stress_registry::round"),
            "round {r}: {b:?}"
        );
    }
}

/// A multi-thread runtime with `workers` workers, timers and I/O enabled.
fn multi_thread(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn spawn_end_abort_and_drain_concurrently_keep_every_count_right() {
    let rounds: usize = std::env::var("STRESS_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let rt = multi_thread(8);
    // Panicking tasks are expected: keep their messages off the test output (other panics,
    // e.g. a failed assertion, are printed as usual).
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info.payload().downcast_ref::<String>().map(String::as_str);
        if !msg.is_some_and(|m| m.starts_with("task ") && m.ends_with(" failed")) {
            default(info);
        }
    }));
    for r in 0..rounds {
        rt.block_on(round(r));
    }
}

/// The global scope, hammered from many threads (not only runtime workers): tracked threads
/// and `spawn_on` from plain threads race with tasks ending on the workers.
#[test]
fn spawn_on_from_plain_threads_while_tasks_end_on_the_workers() {
    let rt = multi_thread(4);
    let scope = Shutdown::new();
    let threads: Vec<_> = (0..6)
        .map(|t| {
            let (scope, handle) = (scope.clone(), rt.handle().clone());
            std::thread::spawn(move || {
                let hs: Vec<_> = (0..2000)
                    .map(|i| scope.spawn_on(&handle, async move { i * t }))
                    .collect();
                hs.into_iter()
                    .map(|h| handle.block_on(h).unwrap())
                    .sum::<usize>()
            })
        })
        .collect();
    let total: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(total, (0..6).map(|t| t * 1999 * 2000 / 2).sum::<usize>());
    assert_eq!(scope.tracked_len(), 0);
    let report = rt.block_on(scope.drain(Duration::from_secs(5)));
    assert!(report.is_clean() && report.aborted.is_empty(), "{report:?}");
}

/// More threads alive at once than the first chunk of registry shards holds (owner ids beyond
/// 16 live in later chunks, created on first use): 40 plain threads each park 25 tasks in one
/// scope; every one of them is counted, listed by name and aborted by the drain, and the
/// threads that spawned them are gone by then (their owner ids returned to the pool).
#[test]
fn tasks_spawned_by_many_threads_are_all_counted_listed_and_aborted() {
    const THREADS: usize = 40;
    const EACH: usize = 25;
    let rt = multi_thread(2);
    let scope = Shutdown::new();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(THREADS));
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let (scope, handle, barrier) = (scope.clone(), rt.handle().clone(), barrier.clone());
            std::thread::spawn(move || {
                // all alive at once: 40 distinct owner ids
                barrier.wait();
                let _rt = handle.enter();
                for i in 0..EACH {
                    drop(
                        scope.spawn_named(format!("parked {t}/{i}"), std::future::pending::<()>()),
                    );
                }
                barrier.wait();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(scope.tracked_len(), THREADS * EACH);
    let report = rt.block_on(scope.drain(Duration::from_millis(50)));
    assert_eq!(report.aborted.len(), THREADS * EACH, "{report:?}");
    assert_eq!(report.drained, 0);
    let mut names: Vec<_> = report.aborted.iter().map(|a| a.name.to_string()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), THREADS * EACH, "every task listed once");
    // An aborted task leaves the registry when a worker next gets to it: within the drain's
    // landing window (`ABORT_LANDING`) on an idle machine, later on a loaded one (CI ran
    // 1,000 aborts on two workers beside other test binaries, and one was still landing
    // when the drain returned). Every slot must be released: waited for, with a deadline.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while scope.tracked_len() != 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        scope.tracked_len(),
        0,
        "every aborted task released its slot"
    );
}
