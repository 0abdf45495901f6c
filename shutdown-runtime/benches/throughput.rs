//! Side-by-side speed benchmarks of shutdown-runtime against the baselines it replaces.
//!
//! Run: `cargo bench -p shutdown-runtime --bench throughput`. Each contender is measured in
//! alternating rounds in one process, with ratios.
//!
//! 1. checkpoint in a loop with ~2 ns of work: bare loop vs `shutdown_requested()` vs
//!    `Shutdown::is_requested` vs `tokio_util::sync::CancellationToken::is_cancelled`;
//! 2. spawn + complete + wait of 10k / 100k / 1M trivial tasks on a 2-worker runtime: raw
//!    `tokio::spawn` (completion observed with the runtime's alive-task count) vs tokio-util
//!    `TaskTracker` (spawn, close, wait) vs `JoinSet` vs `Shutdown::spawn` + `drain` (isolated
//!    and global scope), medians of interleaved rounds (`common/spawn.rs`; the same with
//!    mimalloc: `throughput_mimalloc.rs`);
//! 3. drain wake-up latency after the last of 10,000 tasks ends (p50 / p99 / max).

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use shutdown_runtime::Shutdown;
use tokio_util::sync::CancellationToken;

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

#[path = "common/spawn.rs"]
mod spawn;

use spawn::{bench_spawn, runtime};

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

/// Task counts of the spawn comparison.
const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

fn main() {
    // Profiling aid: `SHUTDOWN_BENCH_PROFILE=raw|tracker|tracked` runs only that spawn variant
    // (5 times); `checkpoint` / `spawn` / `wakeup` run only that comparison.
    if let Ok(which) = std::env::var("SHUTDOWN_BENCH_PROFILE") {
        if which == "checkpoint" {
            bench_checkpoint(25);
            return;
        }
        if which == "wakeup" {
            bench_wakeup(1000);
            return;
        }
        if which == "spawn" {
            bench_spawn("system (glibc malloc)", &SIZES, 9);
            return;
        }
        let rt = runtime();
        let v = match which.as_str() {
            "raw" => spawn::Variant::Raw,
            "tracker" => spawn::Variant::TaskTracker,
            "joinset" => spawn::Variant::JoinSet,
            "global" => spawn::Variant::TrackedGlobal,
            _ => spawn::Variant::Tracked,
        };
        for _ in 0..5 {
            let _ = spawn::run(&rt, v, 1_000_000);
        }
        return;
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run tiny sizes then.
    let full = std::env::args().any(|a| a == "--bench");
    if !full {
        println!("(quick mode: run with `cargo bench` for real figures)");
        bench_spawn("system (glibc malloc)", &[1_000], 1);
        bench_wakeup(3);
        return;
    }
    bench_checkpoint(25);
    bench_spawn("system (glibc malloc)", &SIZES, 9);
    bench_wakeup(1000);
}
