//! Side-by-side speed benchmarks of shutdown-runtime against the baselines it replaces.
//!
//! Run: `cargo bench -p shutdown-runtime --bench throughput`. Each contender is measured in
//! alternating rounds in one process; the best round is reported (noise on a shared machine
//! only adds time), measured in CPU time where that is meaningful, with ratios.
//!
//! 1. checkpoint in a loop with ~2 ns of work: bare loop vs `shutdown_requested()` vs
//!    `Shutdown::is_requested` vs `tokio_util::sync::CancellationToken::is_cancelled`;
//! 2. spawn + complete + wait of 1,000,000 trivial tasks on a 2-worker runtime: raw
//!    `tokio::spawn` (completion observed with the runtime's alive-task count) vs tokio-util
//!    `TaskTracker` (spawn, close, wait) vs `Shutdown::spawn` + `drain`;
//! 3. drain wake-up latency after the last of 10,000 tasks ends (p50 / p99 / max).

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use shutdown_runtime::Shutdown;
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The best (smallest) of the rounds: on a shared machine noise only ever adds time.
fn best(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[0]
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

// ---------------------------------------------------------------- 1. checkpoint

const ITERS: u64 = 50_000_000;

/// ~2 ns of dependent work on the loop-carried value (xorshift + LCG step: shift, xor,
/// multiply, add ≈ 6 cycles). No `black_box` inside the loop: it would add a store/load round
/// trip whose forwarding latency varies with the surrounding code and skews the baseline; the
/// xorshift keeps LLVM from fusing several LCG steps into one.
#[inline(always)]
fn work(x: u64) -> u64 {
    let x = x ^ (x >> 29);
    x.wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
}

#[inline(never)]
fn loop_bare(n: u64) -> u64 {
    let n = black_box(n);
    let mut x = 1u64;
    for _ in 0..n {
        x = work(x);
    }
    x
}

#[inline(never)]
fn loop_global(n: u64) -> u64 {
    let n = black_box(n);
    let mut x = 1u64;
    for _ in 0..n {
        if shutdown_runtime::shutdown_requested() {
            break;
        }
        x = work(x);
    }
    x
}

#[inline(never)]
fn loop_scope(s: &Shutdown, n: u64) -> u64 {
    let n = black_box(n);
    let mut x = 1u64;
    for _ in 0..n {
        if s.is_requested() {
            break;
        }
        x = work(x);
    }
    x
}

#[inline(never)]
fn loop_token(t: &CancellationToken, n: u64) -> u64 {
    let n = black_box(n);
    let mut x = 1u64;
    for _ in 0..n {
        if t.is_cancelled() {
            break;
        }
        x = work(x);
    }
    x
}

/// CPU time of `clock` (thread or process) in seconds: unlike wall time it does not count the
/// time the thread waits for a core, so it stays meaningful on a shared, loaded machine.
fn cpu_time(clock: libc::clockid_t) -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid clock id and a writable timespec.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn ns_per_iter(n: u64, f: impl FnOnce() -> u64) -> f64 {
    let t = cpu_time(libc::CLOCK_THREAD_CPUTIME_ID);
    black_box(f());
    (cpu_time(libc::CLOCK_THREAD_CPUTIME_ID) - t) * 1e9 / n as f64
}

fn bench_checkpoint(rounds: usize) {
    let scope = Shutdown::new();
    let token = CancellationToken::new();
    let (mut bare, mut global, mut sc, mut tok) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        bare.push(ns_per_iter(ITERS, || loop_bare(ITERS)));
        global.push(ns_per_iter(ITERS, || loop_global(ITERS)));
        sc.push(ns_per_iter(ITERS, || loop_scope(&scope, ITERS)));
        // The token's mutex makes it ~10x slower: fewer iterations keep the run short.
        tok.push(ns_per_iter(ITERS / 10, || loop_token(&token, ITERS / 10)));
    }
    let (b, g, s, t) = (
        median(&mut bare),
        median(&mut global),
        median(&mut sc),
        median(&mut tok),
    );
    println!(
        "## checkpoint in a loop with ~2 ns of work ({ITERS} iterations, best of {rounds} interleaved rounds, thread CPU time)"
    );
    println!("bare loop                          {b:7.3} ns/iter");
    println!(
        "shutdown_requested()               {g:7.3} ns/iter   {:.3}x bare",
        g / b
    );
    println!(
        "Shutdown::is_requested()           {s:7.3} ns/iter   {:.3}x bare",
        s / b
    );
    println!(
        "CancellationToken::is_cancelled()  {t:7.3} ns/iter   {:.3}x bare",
        t / b
    );
    println!(
        "token loop / checkpoint loop: {:.1}x (global), {:.1}x (scope); token overhead / checkpoint overhead: {:.3} ns vs {:.3} ns",
        t / g,
        t / s,
        t - b,
        (g - b).max(s - b)
    );
    println!();
}

// ---------------------------------------------------------------- 2. spawn throughput

const TASKS: usize = 1_000_000;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Wall and process-CPU seconds of one run.
#[derive(Clone, Copy)]
struct Cost {
    wall: f64,
    cpu: f64,
}

fn measure(f: impl FnOnce()) -> Cost {
    let (w, c) = (Instant::now(), cpu_time(libc::CLOCK_PROCESS_CPUTIME_ID));
    f();
    Cost {
        wall: w.elapsed().as_secs_f64(),
        cpu: cpu_time(libc::CLOCK_PROCESS_CPUTIME_ID) - c,
    }
}

fn run_raw(rt: &Runtime) {
    rt.block_on(rt.spawn(async {
        for _ in 0..TASKS {
            drop(tokio::spawn(async {}));
        }
    }))
    .unwrap();
    let m = rt.metrics();
    while m.num_alive_tasks() > 0 {
        std::thread::sleep(Duration::from_micros(20));
    }
}

fn run_tracker(rt: &Runtime) {
    rt.block_on(rt.spawn(async {
        let tracker = TaskTracker::new();
        for _ in 0..TASKS {
            drop(tracker.spawn(async {}));
        }
        tracker.close();
        tracker.wait().await;
    }))
    .unwrap();
}

fn run_tracked(rt: &Runtime) {
    let (report, left) = rt
        .block_on(rt.spawn(async {
            let scope = Shutdown::new();
            for _ in 0..TASKS {
                drop(scope.spawn(async {}));
            }
            let report = scope.drain(Duration::from_secs(60)).await;
            (report, scope.tracked_len())
        }))
        .unwrap();
    assert!(report.is_clean() && left == 0);
}

fn bench_spawn(rounds: usize) {
    let rt = runtime();
    // warm-up (thread creation, allocator arenas)
    run_raw(&rt);
    run_tracker(&rt);
    run_tracked(&rt);
    let mut runs: [Vec<Cost>; 3] = [vec![], vec![], vec![]];
    for _ in 0..rounds {
        runs[0].push(measure(|| run_raw(&rt)));
        runs[1].push(measure(|| run_tracker(&rt)));
        runs[2].push(measure(|| run_tracked(&rt)));
    }
    let pick = |i: usize, f: fn(&Cost) -> f64| {
        let mut v: Vec<f64> = runs[i].iter().map(f).collect();
        (best(&mut v), median(&mut v))
    };
    println!(
        "## spawn + complete + wait, {TASKS} trivial tasks, 2 workers ({rounds} interleaved rounds)"
    );
    println!(
        "                          wall best   wall median   CPU best   (M tasks/s by wall best)"
    );
    let names = [
        "raw tokio::spawn",
        "TaskTracker close+wait",
        "Shutdown::spawn + drain",
    ];
    let mut wall = [0.0; 3];
    let mut cpu = [0.0; 3];
    let mut wall_med = [0.0; 3];
    for i in 0..3 {
        let (wb, wm) = pick(i, |c| c.wall);
        let (cb, _) = pick(i, |c| c.cpu);
        (wall[i], wall_med[i], cpu[i]) = (wb, wm, cb);
        println!(
            "{:25} {:7.1} ms   {:8.1} ms   {:7.1} ms   {:5.2}",
            names[i],
            wb * 1e3,
            wm * 1e3,
            cb * 1e3,
            TASKS as f64 / wb / 1e6
        );
    }
    println!(
        "throughput ratio (wall best):   {:.3}x raw tokio::spawn, {:.3}x TaskTracker",
        wall[0] / wall[2],
        wall[1] / wall[2]
    );
    println!(
        "throughput ratio (wall median): {:.3}x raw tokio::spawn, {:.3}x TaskTracker",
        wall_med[0] / wall_med[2],
        wall_med[1] / wall_med[2]
    );
    println!(
        "throughput ratio (CPU best):    {:.3}x raw tokio::spawn, {:.3}x TaskTracker",
        cpu[0] / cpu[2],
        cpu[1] / cpu[2]
    );
    println!();
}

// ---------------------------------------------------------------- 3. drain wake-up

fn bench_wakeup(iters: usize) {
    const N: usize = 10_000;
    let rt = runtime();
    let mut lat = Vec::with_capacity(iters);
    for _ in 0..iters {
        let l = rt.block_on(async {
            let scope = Shutdown::new();
            let go = Arc::new(tokio::sync::Notify::new());
            let left = Arc::new(AtomicUsize::new(N));
            let ready = Arc::new(AtomicUsize::new(0));
            let last_end = Arc::new(AtomicU64::new(0));
            let epoch = Instant::now();
            for _ in 0..N {
                let (go, left, ready, last_end) =
                    (go.clone(), left.clone(), ready.clone(), last_end.clone());
                scope.spawn(async move {
                    let notified = go.notified();
                    let mut notified = std::pin::pin!(notified);
                    notified.as_mut().enable();
                    ready.fetch_add(1, Ordering::Release);
                    notified.await;
                    if left.fetch_sub(1, Ordering::AcqRel) == 1 {
                        last_end.store(epoch.elapsed().as_nanos() as u64, Ordering::Release);
                    }
                });
            }
            // let every task register on `go`
            while ready.load(Ordering::Acquire) < N {
                tokio::task::yield_now().await;
            }
            let s2 = scope.clone();
            let drainer = tokio::spawn(async move {
                s2.drain(Duration::from_secs(10)).await;
                epoch.elapsed().as_nanos() as u64
            });
            tokio::task::yield_now().await;
            go.notify_waiters();
            let done = drainer.await.unwrap();
            done.saturating_sub(last_end.load(Ordering::Acquire))
        });
        lat.push(l as f64 / 1e3);
    }
    lat.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let p = |q: f64| lat[((lat.len() as f64 - 1.0) * q).round() as usize];
    println!("## drain wake-up after the last of 10,000 tasks ends ({iters} runs, 2 workers)");
    println!(
        "p50 {:.1} us   p90 {:.1} us   p99 {:.1} us   max {:.1} us",
        p(0.5),
        p(0.9),
        p(0.99),
        p(1.0)
    );
    println!();
}

fn main() {
    // Profiling aid: `SHUTDOWN_BENCH_PROFILE=raw|tracker|tracked` runs only that spawn variant
    // (5 times); `checkpoint` / `spawn` run only that comparison.
    if let Ok(which) = std::env::var("SHUTDOWN_BENCH_PROFILE") {
        if which == "checkpoint" {
            bench_checkpoint(25);
            return;
        }
        if which == "spawn" {
            bench_spawn(11);
            return;
        }
        let rt = runtime();
        for _ in 0..5 {
            match which.as_str() {
                "raw" => run_raw(&rt),
                "tracker" => run_tracker(&rt),
                _ => run_tracked(&rt),
            }
        }
        return;
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run tiny sizes then.
    let full = std::env::args().any(|a| a == "--bench");
    if !full {
        println!("(quick mode: run with `cargo bench` for real figures)");
        bench_wakeup(3);
        return;
    }
    bench_checkpoint(25);
    bench_spawn(11);
    bench_wakeup(1000);
}
