//! The cost of `#[drainable]`'s checkpoint, side by side with a bare loop, in one run.
//!
//! Run: `cargo bench -p shutdown-runtime --bench checkpoint`. The checkpointed loops are the
//! exact expansion of `#[drainable]` (see the `for_loop` / `nested_partial_marker` snapshots
//! in `shutdown-macros/tests/snapshots`): the claimed unit taken once before the loop
//! (`__private::claim()`), then `__private::checkpoint_at_global(&LoopSite { .. }, claimed)`
//! before each iteration — one atomic load until shutdown is requested. Contenders run in
//! interleaved rounds in one process; the best round of each (thread CPU time) is reported,
//! with the ratio to the bare loop. Target: <= 1.05x.
//!
//! Loops: (1) ~2 ns of dependent arithmetic per iteration, the cheapest unit of work there is
//! (a real unit — a queue pop, a parse, a write — is 10-1000x longer, and the ratio smaller);
//! (2) an outer claiming loop with a nested loop (no checkpoint, as the macro leaves it) and a
//! nested loop opted in with `#[drainable(partial)]`.
//!
//! `SHUTDOWN_BENCH_ITERS` sets the iterations per round (default 50,000,000), and
//! `SHUTDOWN_BENCH_ROUNDS` the rounds (default 15).

use std::hint::black_box;

use shutdown_runtime::__private::{LoopSite, checkpoint_at_global, claim};

/// ~2 ns of dependent work on the loop-carried value (xorshift + LCG step).
#[inline(always)]
fn work(x: u64) -> u64 {
    let x = x ^ (x >> 29);
    x.wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
}

static SITE: LoopSite = LoopSite {
    file: file!(),
    line: 1,
    column: 1,
};

#[inline(never)]
fn bare(n: u64) -> u64 {
    let n = black_box(n);
    let mut x = 1u64;
    for _ in 0..n {
        x = work(x);
    }
    x
}

/// `#[drainable] fn f(n) { for _ in 0..n { x = work(x); } }`, expanded.
#[inline(never)]
fn checkpointed(n: u64) -> u64 {
    let n = black_box(n);
    let mut x = 1u64;
    {
        let (_unit, claimed) = claim();
        let mut iter = 0..n;
        loop {
            if checkpoint_at_global(&SITE, claimed) {
                break;
            }
            match iter.next() {
                Some(_) => x = work(x),
                None => break,
            }
        }
    }
    x
}

#[inline(never)]
fn bare_nested(n: u64) -> u64 {
    let n = black_box(n);
    let mut x = 1u64;
    for _ in 0..n / 16 {
        for _ in 0..8 {
            x = work(x);
        }
        for _ in 0..8 {
            x = work(x);
        }
    }
    x
}

/// An outer claiming loop, a nested loop left alone and a nested `partial` loop, expanded.
#[inline(never)]
fn checkpointed_nested(n: u64) -> u64 {
    let n = black_box(n);
    let mut x = 1u64;
    {
        let (_unit, claimed) = claim();
        let mut jobs = 0..n / 16;
        loop {
            if checkpoint_at_global(&SITE, claimed) {
                break;
            }
            match jobs.next() {
                Some(_) => {
                    for _ in 0..8 {
                        x = work(x);
                    }
                    let mut cards = 0..8;
                    loop {
                        if checkpoint_at_global(&SITE, claimed) {
                            break;
                        }
                        match cards.next() {
                            Some(_) => x = work(x),
                            None => break,
                        }
                    }
                }
                None => break,
            }
        }
    }
    x
}

/// A measured loop: iterations in, the loop-carried value out.
type LoopFn = fn(u64) -> u64;

fn thread_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn measure(f: LoopFn, n: u64) -> f64 {
    let t = thread_cpu();
    black_box(f(n));
    (thread_cpu() - t) / n as f64 * 1e9
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let iters = env("SHUTDOWN_BENCH_ITERS", 50_000_000);
    let rounds = env("SHUTDOWN_BENCH_ROUNDS", 15) as usize;
    assert_eq!(bare(1000), checkpointed(1000), "same work");
    assert_eq!(bare_nested(1600), checkpointed_nested(1600), "same work");
    let contenders: [(&str, LoopFn); 4] = [
        ("bare loop", bare),
        ("#[drainable] loop", checkpointed),
        ("bare nested loops", bare_nested),
        ("#[drainable] nested + partial", checkpointed_nested),
    ];
    let mut best = [f64::INFINITY; 4];
    for _ in 0..rounds {
        for (i, (_, f)) in contenders.iter().enumerate() {
            best[i] = best[i].min(measure(*f, iters));
        }
    }
    println!(
        "## checkpoint cost: {iters} iterations of ~2 ns of work, best of {rounds} interleaved rounds, thread CPU time"
    );
    println!("| loop | ns / iteration | vs bare |");
    println!("|---|---|---|");
    for (i, (name, _)) in contenders.iter().enumerate() {
        let base = if i < 2 { best[0] } else { best[2] };
        println!("| {name} | {:.3} | {:.3}x |", best[i], best[i] / base);
    }
}
