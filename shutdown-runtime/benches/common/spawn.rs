//! Spawn + complete + wait, side by side: raw `tokio::spawn`, tokio-util `TaskTracker`, tokio
//! `JoinSet`, and the tracked spawn (an isolated `Shutdown::new()` scope and the global scope),
//! at several task counts, on a 2-worker runtime. Shared by `throughput.rs` (the system
//! allocator) and `throughput_mimalloc.rs`.
//!
//! Every round runs every variant once, in an order rotated per round (so no variant always
//! follows the same one); the figures are medians over the rounds, which is what a shared,
//! loaded machine allows (a best-of would favour whichever variant got a quiet moment).
//!
//! Besides the wall time of spawn + complete + wait, each round measures the **spawner's CPU
//! time** per spawn: the thread CPU time (`CLOCK_THREAD_CPUTIME_ID`) of the worker running the
//! spawn loop, which never yields inside the loop. It is the cost a spawn adds to the code
//! that spawns, and it does not count time the thread spent descheduled, so it stays
//! meaningful on a loaded machine where wall-clock ratios swing by ±0.15 between runs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use shutdown_runtime::Shutdown;
use tokio::runtime::Runtime;
use tokio::task::JoinSet;
use tokio_util::task::TaskTracker;

pub(crate) fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Variant {
    Raw,
    TaskTracker,
    JoinSet,
    Tracked,
    TrackedGlobal,
}

pub(crate) const VARIANTS: [Variant; 5] = [
    Variant::Raw,
    Variant::TaskTracker,
    Variant::JoinSet,
    Variant::Tracked,
    Variant::TrackedGlobal,
];

impl Variant {
    fn label(self) -> &'static str {
        match self {
            Variant::Raw => "raw tokio::spawn",
            Variant::TaskTracker => "TaskTracker close+wait",
            Variant::JoinSet => "JoinSet join_next",
            Variant::Tracked => "Shutdown::new().spawn+drain",
            Variant::TrackedGlobal => "global spawn + drain",
        }
    }
}

/// CPU time of the calling thread, in nanoseconds.
fn thread_cpu_ns() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID exists on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

/// Spawns `n` trivial tasks from a worker task and waits until all have completed; returns the
/// spawning thread's CPU time for the spawn loop, in nanoseconds.
pub(crate) fn run(rt: &Runtime, v: Variant, n: usize) -> f64 {
    match v {
        Variant::Raw => {
            let cpu = rt
                .block_on(rt.spawn(async move {
                    let c0 = thread_cpu_ns();
                    for _ in 0..n {
                        // shutdown-lint: allow(raw-spawn) -- the baseline being measured
                        drop(tokio::spawn(async {}));
                    }
                    thread_cpu_ns() - c0
                }))
                .unwrap();
            // Completion observed with the runtime's alive-task count (no per-task cost).
            let m = rt.metrics();
            while m.num_alive_tasks() > 0 {
                std::thread::sleep(Duration::from_micros(20));
            }
            cpu
        }
        Variant::TaskTracker => rt
            .block_on(rt.spawn(async move {
                let tracker = TaskTracker::new();
                let c0 = thread_cpu_ns();
                for _ in 0..n {
                    drop(tracker.spawn(async {}));
                }
                let cpu = thread_cpu_ns() - c0;
                tracker.close();
                tracker.wait().await;
                cpu
            }))
            .unwrap(),
        Variant::JoinSet => rt
            .block_on(rt.spawn(async move {
                let mut set = JoinSet::new();
                let c0 = thread_cpu_ns();
                for _ in 0..n {
                    set.spawn(async {});
                }
                let cpu = thread_cpu_ns() - c0;
                while set.join_next().await.is_some() {}
                cpu
            }))
            .unwrap(),
        Variant::Tracked | Variant::TrackedGlobal => {
            let global = v == Variant::TrackedGlobal;
            let (clean, left, cpu) = rt
                .block_on(rt.spawn(async move {
                    let scope = if global {
                        Shutdown::global().clone()
                    } else {
                        Shutdown::new()
                    };
                    let c0 = thread_cpu_ns();
                    for _ in 0..n {
                        drop(scope.spawn(async {}));
                    }
                    let cpu = thread_cpu_ns() - c0;
                    let report = scope.drain(Duration::from_secs(60)).await;
                    (report.is_clean(), scope.tracked_len(), cpu)
                }))
                .unwrap();
            assert!(clean && left == 0);
            cpu
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Runs the comparison at each size in `sizes` with `rounds` rounds; prints one table per size.
pub(crate) fn bench_spawn(allocator: &str, sizes: &[usize], rounds: usize) {
    let rt = runtime();
    static ROUND: AtomicUsize = AtomicUsize::new(0);
    println!("## spawn + complete + wait, 2 workers, allocator: {allocator}");
    println!(
        "(medians of {rounds} rounds; each round runs every variant once, order rotated per round)"
    );
    for &n in sizes {
        // Fewer tasks → more rounds, so each size takes a similar time.
        let rounds = rounds * (1_000_000 / n).clamp(1, 10);
        for v in VARIANTS {
            let _ = run(&rt, v, n); // warm-up (threads, allocator arenas)
        }
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); VARIANTS.len()];
        let mut cpus: Vec<Vec<f64>> = vec![Vec::new(); VARIANTS.len()];
        for _ in 0..rounds {
            let r = ROUND.fetch_add(1, Ordering::Relaxed);
            for k in 0..VARIANTS.len() {
                let i = (k + r) % VARIANTS.len();
                let t = Instant::now();
                let cpu = run(&rt, VARIANTS[i], n);
                times[i].push(t.elapsed().as_secs_f64());
                cpus[i].push(cpu / n as f64);
            }
        }
        let med: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
        let cpu: Vec<f64> = cpus.iter_mut().map(|t| median(t)).collect();
        println!("### {n} tasks ({rounds} rounds)");
        println!(
            "{:30} {:>10} {:>9} {:>9} {:>14} {:>13} {:>10} {:>9}",
            "variant",
            "median ms",
            "ns/task",
            "x raw",
            "x TaskTracker",
            "spawn CPU ns",
            "CPU x raw",
            "CPU x TT"
        );
        for (i, v) in VARIANTS.iter().enumerate() {
            // Throughput ratios: > 1 means faster (cheaper) than the baseline.
            println!(
                "{:30} {:10.2} {:9.1} {:9.3} {:14.3} {:13.1} {:10.3} {:9.3}",
                v.label(),
                med[i] * 1e3,
                med[i] * 1e9 / n as f64,
                med[0] / med[i],
                med[1] / med[i],
                cpu[i],
                cpu[0] / cpu[i],
                cpu[1] / cpu[i],
            );
        }
    }
    println!();
}
