//! Benchmarks of the drained server (`shutdown_runtime::server`) against plain `axum::serve`.
//!
//! Run: `cargo bench --bench server` (short defaults; `SERVER_BENCH_ROUNDS`,
//! `SERVER_BENCH_REQUESTS`, `SERVER_BENCH_IDLE_CONNS`, `SERVER_BENCH_EXIT_RUNS` scale it).
//!
//! 1. Throughput: the same axum `Router` (`GET /` → `ok`) served by `axum::serve` and by
//!    `Server::serve`; a bounded load generator (32 keep-alive HTTP/1.1 connections over
//!    loopback, a fixed number of requests each, raw TCP so the client costs the same for
//!    both) in its own runtime. Alternating rounds; the best round of each (noise on a shared
//!    machine only removes throughput); the ratio drained / plain (target ≥ 0.95x).
//! 2. Memory per idle keep-alive connection: RSS growth for N connections that made one
//!    request and idle, plain vs drained.
//! 3. Signal-to-exit of the idle `axum_server` example (release build, ready-delay 0): SIGTERM
//!    to exit seen by `waitpid`, p50 / p99 / max over the runs (target p99 < 50 ms), with the
//!    server's own signal-to-exit figure beside it.
//! 4. The same example with an idle keep-alive connection and a slow request (300 ms) in
//!    flight at SIGTERM: exit seen by `waitpid` minus the moment the client had the whole slow
//!    response, p50 / p99 (target: within 100 ms; the bug — the idle connection holding the
//!    drain — would make it the children budget, 20 s).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use axum::Router;
use axum::routing::get;
use shutdown_runtime::Shutdown;
use shutdown_runtime::phase::{Phase, Phases};
use shutdown_runtime::server::Server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

fn app() -> Router {
    Router::new().route("/", get(|| async { "ok" }))
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Plain,
    Drained,
}

/// A server of `kind` on its own runtime; returns its address and a stopper.
struct Running {
    addr: SocketAddr,
    rt: Runtime,
    stop: Box<dyn FnOnce(&Runtime)>,
}

fn start(kind: Kind) -> Running {
    let rt = runtime();
    let listener = rt.block_on(TcpListener::bind("127.0.0.1:0")).expect("bind");
    let addr = listener.local_addr().expect("addr");
    let stop: Box<dyn FnOnce(&Runtime)> = match kind {
        Kind::Plain => {
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            // shutdown-lint: allow(raw-spawn) -- the baseline being measured: plain axum::serve
            let task = rt.spawn(async move {
                axum::serve(listener, app())
                    .with_graceful_shutdown(async move {
                        let _ = rx.await;
                    })
                    .await
            });
            Box::new(move |rt: &Runtime| {
                let _ = tx.send(());
                let _ = rt.block_on(task);
            })
        }
        Kind::Drained => {
            let scope = Shutdown::new();
            let phases = Phases::linked(&scope);
            let server = Server::with(&scope, &phases);
            let serving = rt.spawn(server.serve(listener, app()));
            Box::new(move |rt: &Runtime| {
                scope.request();
                phases.advance(Phase::Stopping);
                let _ = rt.block_on(serving);
                let report = rt.block_on(scope.drain(Duration::from_secs(5)));
                assert!(report.is_clean(), "{report:?}");
            })
        }
    };
    Running { addr, rt, stop }
}

const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nhost: bench\r\n\r\n";

/// Reads one `ok` response (a head with `content-length: 2`, then the body).
async fn read_response(conn: &mut TcpStream, buf: &mut Vec<u8>) {
    buf.clear();
    let mut chunk = [0u8; 512];
    loop {
        let n = conn.read(&mut chunk).await.expect("read");
        assert!(n > 0, "server closed the connection");
        buf.extend_from_slice(&chunk[..n]);
        if buf.ends_with(b"\r\n\r\nok") {
            return;
        }
    }
}

/// CPU time of this whole process (server and client threads), in seconds.
fn cpu_seconds() -> f64 {
    // SAFETY: `getrusage` writes into the zeroed struct we pass and has no other effect.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) }, 0);
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// `conns` keep-alive connections each sending `per_conn` sequential requests; returns
/// (requests per second of wall time, microseconds of process CPU per request).
fn load(addr: SocketAddr, conns: usize, per_conn: usize) -> (f64, f64) {
    let client = runtime();
    let cpu = cpu_seconds();
    let start = Instant::now();
    client.block_on(async {
        let mut tasks = Vec::new();
        for _ in 0..conns {
            // shutdown-lint: allow(raw-spawn) -- the load generator of a benchmark, joined below
            tasks.push(tokio::spawn(async move {
                let mut conn = TcpStream::connect(addr).await.expect("connect");
                conn.set_nodelay(true).expect("nodelay");
                let mut buf = Vec::with_capacity(512);
                for _ in 0..per_conn {
                    conn.write_all(REQUEST).await.expect("write");
                    read_response(&mut conn, &mut buf).await;
                }
            }));
        }
        for t in tasks {
            t.await.expect("client task");
        }
    });
    let requests = (conns * per_conn) as f64;
    (
        requests / start.elapsed().as_secs_f64(),
        (cpu_seconds() - cpu) * 1e6 / requests,
    )
}

fn throughput() {
    let rounds = env_usize("SERVER_BENCH_ROUNDS", 10);
    let per_conn = env_usize("SERVER_BENCH_REQUESTS", 300);
    let conns = 32;
    let (mut plain, mut drained) = (Vec::new(), Vec::new());
    for round in 0..rounds * 2 {
        // Alternate which goes first so drift in machine load hits both.
        let kind = if round % 2 == (round / 2) % 2 {
            Kind::Plain
        } else {
            Kind::Drained
        };
        let server = start(kind);
        let measured = load(server.addr, conns, per_conn);
        (server.stop)(&server.rt);
        drop(server.rt);
        match kind {
            Kind::Plain => plain.push(measured),
            Kind::Drained => drained.push(measured),
        }
    }
    let best_rps = |v: &[(f64, f64)]| v.iter().map(|m| m.0).fold(0.0, f64::max);
    let best_cpu = |v: &[(f64, f64)]| v.iter().map(|m| m.1).fold(f64::INFINITY, f64::min);
    let (p, d) = (best_rps(&plain), best_rps(&drained));
    let (pc, dc) = (best_cpu(&plain), best_cpu(&drained));
    println!(
        "throughput ({conns} keep-alive conns x {per_conn} req, best of {rounds}): plain axum::serve {p:.0} req/s, drained Server {d:.0} req/s: {:.3}x (target >= 0.95x)",
        d / p
    );
    println!(
        "process CPU per request (server + load generator, best of {rounds}): plain {pc:.2} us, drained {dc:.2} us: {:.3}x the plain cost",
        dc / pc
    );
}

/// Resident set size of this process, in bytes (Linux `/proc/self/statm`).
fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("rss pages");
    pages * 4096
}

fn idle_memory(kind: Kind, n: usize) -> f64 {
    let server = start(kind);
    // Warm up allocator arenas and the runtime with a few connections first.
    let mut warm: Vec<std::net::TcpStream> = (0..16).map(|_| idle_conn(server.addr)).collect();
    let before = rss();
    let conns: Vec<std::net::TcpStream> = (0..n).map(|_| idle_conn(server.addr)).collect();
    std::thread::sleep(Duration::from_millis(200));
    let after = rss();
    drop(conns);
    warm.clear();
    (server.stop)(&server.rt);
    (after.saturating_sub(before)) as f64 / n as f64
}

fn idle_conn(addr: SocketAddr) -> std::net::TcpStream {
    let mut conn = std::net::TcpStream::connect(addr).expect("connect");
    conn.write_all(REQUEST).expect("write");
    let mut got = Vec::new();
    let mut chunk = [0u8; 512];
    while !got.ends_with(b"\r\n\r\nok") {
        let n = conn.read(&mut chunk).expect("read");
        assert!(n > 0, "closed");
        got.extend_from_slice(&chunk[..n]);
    }
    conn
}

fn memory() {
    let n = env_usize("SERVER_BENCH_IDLE_CONNS", 2000);
    // Drained first, then plain: a process's RSS rarely shrinks, so the second measurement
    // reuses freed pages and can only look better; the drained server gets the worse spot.
    let drained = idle_memory(Kind::Drained, n);
    let plain = idle_memory(Kind::Plain, n);
    println!(
        "memory per idle keep-alive connection ({n} conns, RSS growth, client sockets included): plain {:.1} KiB, drained {:.1} KiB (+{:.1} KiB)",
        plain / 1024.0,
        drained / 1024.0,
        (drained - plain) / 1024.0
    );
}

fn example_binary() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let profile_dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    let target = profile_dir.parent().expect("target");
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "build",
            "--release",
            "--example",
            "axum_server",
            "--target-dir",
        ])
        .arg(target)
        .status()
        .expect("cargo build");
    assert!(
        status.success(),
        "cargo build --release --example axum_server failed"
    );
    target.join("release/examples/axum_server")
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn signal_to_exit() {
    let runs = env_usize("SERVER_BENCH_EXIT_RUNS", 100);
    let bin = example_binary();
    let (mut outside, mut inside) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let (mut child, mut stderr, _addr) = start_example(&bin);
        let pid = libc::pid_t::try_from(child.id()).expect("pid");
        let sent = Instant::now();
        // SAFETY: `kill` has no memory-safety preconditions; `pid` is our unreaped child.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let status = child.wait().expect("wait");
        outside.push(sent.elapsed().as_secs_f64() * 1e3);
        assert_eq!(status.code(), Some(0));
        let mut rest = String::new();
        stderr.read_to_string(&mut rest).expect("stderr");
        if let Some(ms) = rest
            .split("signal to exit ")
            .nth(1)
            .and_then(|s| s.split(" ms").next())
            .and_then(|s| s.parse::<f64>().ok())
        {
            inside.push(ms);
        }
    }
    outside.sort_by(f64::total_cmp);
    inside.sort_by(f64::total_cmp);
    println!(
        "idle axum_server SIGTERM -> exit ({runs} runs, waitpid): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms (target p99 < 50 ms); inside the process (request -> end of life cycle): p50 {:.2} ms, p99 {:.2} ms",
        percentile(&outside, 0.5),
        percentile(&outside, 0.99),
        outside[outside.len() - 1],
        percentile(&inside, 0.5),
        percentile(&inside, 0.99),
    );
}

/// Starts the release example; returns the child, its stderr reader and its address.
fn start_example(
    bin: &std::path::Path,
) -> (
    std::process::Child,
    BufReader<std::process::ChildStderr>,
    String,
) {
    let mut child = Command::new(bin)
        .args(["--addr", "127.0.0.1:0", "--grace-ms", "30000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start axum_server");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    while !line.contains("listening on") {
        line.clear();
        assert!(
            stderr.read_line(&mut line).expect("stderr") > 0,
            "no listening line"
        );
    }
    let addr = line
        .rsplit("http://")
        .next()
        .expect("addr")
        .trim()
        .to_owned();
    (child, stderr, addr)
}

fn exit_after_last_response() {
    let runs = env_usize("SERVER_BENCH_SLOW_RUNS", 20);
    let bin = example_binary();
    let mut after = Vec::new();
    for _ in 0..runs {
        let (mut child, mut stderr, addr) = start_example(&bin);
        let addr: SocketAddr = addr.parse().expect("addr");
        let idle = idle_conn(addr); // made one request, now idle (keep-alive)
        let mut slow = std::net::TcpStream::connect(addr).expect("connect");
        slow.write_all(b"GET /slow?ms=300 HTTP/1.1\r\nhost: bench\r\n\r\n")
            .expect("write");
        let mut line = String::new();
        while !line.contains("in flight") {
            line.clear();
            assert!(
                stderr.read_line(&mut line).expect("stderr") > 0,
                "no in-flight line"
            );
        }
        let pid = libc::pid_t::try_from(child.id()).expect("pid");
        // SAFETY: `kill` has no memory-safety preconditions; `pid` is our unreaped child.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let mut got = Vec::new();
        let mut chunk = [0u8; 512];
        while !got.ends_with(b"slow 300") {
            let n = slow.read(&mut chunk).expect("read");
            assert!(n > 0, "slow response cut");
            got.extend_from_slice(&chunk[..n]);
        }
        let answered = Instant::now();
        let status = child.wait().expect("wait");
        after.push(answered.elapsed().as_secs_f64() * 1e3);
        assert_eq!(status.code(), Some(0));
        drop(idle);
    }
    after.sort_by(f64::total_cmp);
    println!(
        "slow request (300 ms) + idle keep-alive at SIGTERM: exit after the last response ({runs} runs): p50 {:.1} ms, p99 {:.1} ms (target < 100 ms; an idle connection holding the drain: 20 s)",
        percentile(&after, 0.5),
        percentile(&after, 0.99),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument picks one part.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wants = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    if wants("throughput") {
        throughput();
    }
    if wants("memory") {
        memory();
    }
    if wants("exit") {
        signal_to_exit();
    }
    if wants("slow") {
        exit_after_last_response();
    }
}
