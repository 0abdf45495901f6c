//! Benchmarks of `shutdown-macros` (a bench binary; run with
//! `cargo bench -p shutdown-macros --bench expand`):
//!
//! 1. expanding `#[drainable]` on a generated 1,000-line function, side by side with the
//!    baseline it adds to (a plain `syn` parse of the same function); target ≤ 5 ms;
//! 2. how fast an idle wait (`#[drainable(idle)]` on `while let .. = rx.recv().await`) leaves
//!    its loop after `request()`; target ≤ 1 ms.

#[allow(dead_code, unused_imports)]
#[path = "../src/expand/mod.rs"]
mod expand;

use std::time::{Duration, Instant};

use proc_macro2::TokenStream;
use shutdown_runtime::{Shutdown, drainable};

/// One 25-line block of typical service code: every loop kind, a closure, spawns, labels.
const BLOCK: &str = r#"
    'outer: for (i, job) in jobs.iter().enumerate() {
        if job.is_empty() { continue 'outer; }
        let mut tries = 0;
        while tries < 3 && !job.done() {
            tries += 1;
            match job.step(i) {
                Ok(v) => total += v,
                Err(e) if e.retry() => continue,
                Err(_) => break 'outer,
            }
        }
    }
    while let Some(unit) = queue.pop_front() {
        let handle = tokio::spawn(async move { loop { unit.tick().await; } });
        handles.push(handle);
    }
    let f = |xs: &[u32]| { let mut s = 0; for x in xs { s += x; } s };
    total += f(&[1, 2, 3]);
    std::thread::spawn(move || loop { std::thread::park(); });
    let found = loop { if total > 10 { break total; } total += 1; };
    loop {
        if queue.is_empty() { break; }
        total += found;
    }
"#;

/// One 40-line block of ordinary code with a single loop: the common shape of a long handler.
const TYPICAL: &str = r#"
    let request = match parse_request(&input) {
        Ok(request) => request,
        Err(error) => {
            metrics.errors += 1;
            log_error(&error, "parse");
            return Err(error.into());
        }
    };
    let user = if let Some(token) = request.header("authorization") {
        match sessions.lookup(token) {
            Some(user) if user.active => user,
            Some(_) => return Err(Error::Inactive),
            None => return Err(Error::Unauthorized),
        }
    } else {
        User::anonymous()
    };
    let mut response = Response { status: 200, headers: Vec::new(), body: String::new() };
    if request.method == Method::Get {
        response.headers.push(Header { name: "cache-control", value: "no-store".into() });
        response.body = render(&user, &request.path)?;
    } else if request.method == Method::Post {
        let form = Form::decode(&request.body).map_err(Error::from)?;
        if form.fields.len() > LIMIT {
            response.status = 413;
        } else {
            store.save(&user, form).await?;
            response.status = 201;
        }
    }
    for header in request.headers.iter().filter(|h| h.name.starts_with("x-trace")) {
        response.headers.push(header.clone());
    }
    let elapsed = started.elapsed();
    metrics.latency.record(elapsed);
    if elapsed > SLOW {
        warnings.push(Warning { path: request.path.clone(), elapsed, user: user.id });
    }
    total += response.body.len() as u64;
"#;

fn thousand_line_function(block: &str) -> (String, usize) {
    let mut body = String::new();
    while body.lines().count() < 1_000 {
        body.push_str(block);
    }
    let source = format!(
        "async fn service(jobs: Vec<Job>, mut queue: VecDeque<Unit>) -> u64 {{\n    let mut total = 0;\n    let mut handles = Vec::new();\n{body}\n    total\n}}\n"
    );
    let lines = source.lines().count();
    (source, lines)
}

/// CPU time of the calling thread: unlike wall time, it does not grow when other processes
/// share the cores (the CI machine has 2 cores shared by several jobs).
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID is always supported on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Median thread CPU time of one call of `f`.
fn time_per_iter(iterations: u32, mut f: impl FnMut()) -> Duration {
    f(); // warm-up
    let mut samples = Vec::with_capacity(iterations as usize);
    for _ in 0..iterations {
        let start = thread_cpu_time();
        f();
        samples.push(thread_cpu_time().saturating_sub(start));
    }
    samples.sort();
    samples[samples.len() / 2]
}

fn bench_expansion(name: &str, block: &str) {
    let (source, lines) = thousand_line_function(block);
    let tokens: TokenStream = source.parse().unwrap();
    let args = TokenStream::new();
    let (_, stats) = expand::drainable_with_stats(args.clone(), tokens.clone());
    let iterations = 200;
    let parse = time_per_iter(iterations, || {
        let f: syn::ItemFn = syn::parse2(tokens.clone()).unwrap();
        std::hint::black_box(f);
    });
    let expand_global = time_per_iter(iterations, || {
        std::hint::black_box(expand::drainable(args.clone(), tokens.clone()));
    });
    let full = time_per_iter(iterations, || {
        std::hint::black_box(expand::drainable::expand_full(args.clone(), tokens.clone()));
    });
    let scope_args: TokenStream = "scope = self.scope".parse().unwrap();
    let expand_scope = time_per_iter(iterations, || {
        std::hint::black_box(expand::drainable(scope_args.clone(), tokens.clone()));
    });
    println!(
        "{name}: expansion of a {lines}-line function ({} loops, {} with a checkpoint, {} spawns routed), median thread CPU time of {iterations}:",
        stats.loops, stats.rewritten, stats.spawns
    );
    println!("  syn parse only (baseline)        {parse:>10.2?}   1.00x");

    println!(
        "  #[drainable] (global scope)      {expand_global:>10.2?}   {:.2}x   target <= 5 ms: {}",
        expand_global.as_secs_f64() / parse.as_secs_f64(),
        if expand_global <= Duration::from_millis(5) {
            "met"
        } else {
            "NOT met"
        }
    );
    println!(
        "  full expansion (no fast path)    {full:>10.2?}   {:.2}x",
        full.as_secs_f64() / parse.as_secs_f64()
    );
    println!(
        "  #[drainable(scope = self.scope)] {expand_scope:>10.2?}   {:.2}x   target <= 5 ms: {}",
        expand_scope.as_secs_f64() / parse.as_secs_f64(),
        if expand_scope <= Duration::from_millis(5) {
            "met"
        } else {
            "NOT met"
        }
    );
}

#[drainable(scope = scope)]
async fn idle_consumer(scope: Shutdown, mut rx: tokio::sync::mpsc::Receiver<u32>) -> Instant {
    #[drainable(idle)]
    while let Some(job) = rx.recv().await {
        std::hint::black_box(job);
    }
    Instant::now()
}

fn bench_idle_wake() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let trials = 500;
    let mut latencies = runtime.block_on(async {
        let mut latencies = Vec::with_capacity(trials);
        for _ in 0..trials {
            let scope = Shutdown::new();
            let (tx, rx) = tokio::sync::mpsc::channel::<u32>(1);
            let consumer = tokio::spawn(idle_consumer(scope.clone(), rx));
            tokio::time::sleep(Duration::from_micros(200)).await; // the consumer is parked in recv
            let requested = Instant::now();
            scope.request();
            let left = consumer.await.unwrap();
            latencies.push(left.saturating_duration_since(requested));
            drop(tx);
        }
        latencies
    });
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    println!("idle wait: request() -> loop left, {trials} trials on a 2-worker runtime:");
    println!(
        "  p50 {:.1?}   p99 {:.1?}   max {:.1?}   target p99 <= 1 ms: {}",
        at(0.5),
        at(0.99),
        at(1.0),
        if at(0.99) <= Duration::from_millis(1) {
            "met"
        } else {
            "NOT met"
        }
    );
}

fn main() {
    bench_expansion("loop-dense", BLOCK);
    bench_expansion("typical", TYPICAL);
    bench_idle_wake();
}
