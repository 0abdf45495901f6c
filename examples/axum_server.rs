//! An axum server that drains by construction: on SIGTERM it turns not-ready, keeps accepting
//! for the ready-delay, then closes the listener and idle keep-alive connections, finishes the
//! requests in flight, ends its SSE streams after their current event, and exits with the
//! drain report.
//!
//! ```text
//! cargo run --release --example axum_server -- [--addr HOST:PORT] [--grace-ms MS] [--ready-delay-ms MS]
//! curl -N http://127.0.0.1:8080/sse &  curl 'http://127.0.0.1:8080/slow?ms=2000' &  kill -TERM <pid>
//! ```
//!
//! Routes (contract in `shared/DESIGN.md`, "Servers"): `GET /` → `ok`; `GET /slow?ms=N` →
//! `slow N` after N ms; `GET /sse` → an event every 100 ms until shutdown ends the stream
//! (`/sse?ignore-shutdown=1`: a stream that ignores the notification, aborted at the children
//! budget); `GET /readyz` → 200 `ready`, 503 `not ready` from the first signal on;
//! `GET /items?n=N[&us=MICROS]` → a JSON array of the N numbers `0..N` built by a
//! `#[drainable]` loop (each item pretending to cost `us` microseconds of async work): the
//! request is one claimed unit, so a signal mid-way never yields a shorter array.
//! HTTP/1.1 keep-alive and HTTP/2 with prior knowledge on the same port.
//!
//! stderr: `axum_server: listening on http://ADDR` when ready, then one line per phase
//! (`not ready`, `stopping`, `stopped accepting`) and the time spent in each phase at exit.
//! stdout: the last line is the drain report as JSON. Exit 0 when nothing was aborted (SSE
//! streams the server ended count as drained), 3 otherwise, 2 for bad arguments.

use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::Query;
use axum::response::IntoResponse;
use axum::response::sse::{Event, Sse};
use axum::routing::get;
use shutdown_discipline::cli::{ArgError, Flags};
use shutdown_runtime::phase::{Phase, Phases};
use shutdown_runtime::server::{self, axum::readyz};
use shutdown_runtime::{Budgets, EarlySignals, RunConfig};

const USAGE: &str = "usage: axum_server [--addr HOST:PORT] [--grace-ms MS] [--ready-delay-ms MS]";

#[derive(Debug, Clone, Copy)]
struct Config {
    addr: SocketAddr,
    budgets: Budgets,
    ready_delay: Duration,
}

impl Config {
    fn from_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Config, ArgError> {
        let mut flags = Flags::parse(args)?;
        let addr: SocketAddr = flags.optional("addr", SocketAddr::from(([127, 0, 0, 1], 8080)))?;
        let grace_ms: u64 = flags.optional("grace-ms", 30_000)?;
        let ready_delay_ms: u64 = flags.optional("ready-delay-ms", 0)?;
        flags.finish()?;
        if grace_ms < 3 {
            return Err(ArgError::new("--grace-ms: must be at least 3"));
        }
        let budgets = Budgets::from_grace(Duration::from_millis(grace_ms));
        let ready_delay = Duration::from_millis(ready_delay_ms);
        if ready_delay > budgets.children() / 2 {
            return Err(ArgError::new(format!(
                "--ready-delay-ms: {ready_delay_ms} is more than half the children budget ({} ms of --grace-ms {grace_ms}); requests need the rest",
                budgets.children().as_millis() / 2
            )));
        }
        Ok(Config {
            addr,
            budgets,
            ready_delay,
        })
    }
}

fn main() {
    // First of all: a SIGTERM before `run` has installed its handlers stays pending.
    let early = EarlySignals::block()
        .inspect_err(|e| eprintln!("axum_server: cannot block signals during start-up: {e}"))
        .ok();
    let config = match Config::from_args(std::env::args_os().skip(1)) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("axum_server: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("axum_server: cannot start the tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    let outcome = runtime.block_on(
        RunConfig::new(config.budgets)
            .ready_delay(config.ready_delay)
            .run(serve(config, early)),
    );
    let phases = Phases::global();
    let ms = |p| phases.time_in(p).unwrap_or_default().as_secs_f64() * 1e3;
    eprintln!(
        "axum_server: phases: not-ready {:.1} ms, stopping {:.1} ms, aborting {:.1} ms; signal to exit {:.1} ms",
        ms(Phase::NotReady),
        ms(Phase::Stopping),
        ms(Phase::Aborting),
        outcome.request_to_exit.as_secs_f64() * 1e3
    );
    println!("{}", outcome.report.to_json_line());
    std::process::exit(outcome.exit_code());
}

/// The coordinator: serves until the server stops accepting, logging each phase.
async fn serve(config: Config, early: Option<EarlySignals>) -> std::io::Result<()> {
    // `run` installed the signal handlers before polling this future: deliver any signal
    // that arrived during start-up to them.
    if let Some(early) = early {
        early.release();
    }
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .inspect_err(|e| eprintln!("axum_server: cannot listen on {}: {e}", config.addr))?;
    eprintln!(
        "axum_server: listening on http://{}",
        listener.local_addr()?
    );
    let phases = Phases::global();
    let log_phases = async {
        phases.reached(Phase::NotReady).await;
        eprintln!("axum_server: not ready (readiness 503), still accepting");
        phases.reached(Phase::Stopping).await;
        eprintln!("axum_server: stopping");
    };
    let serve = async {
        let served = server::axum::serve(listener, app()).await;
        eprintln!("axum_server: stopped accepting (listener closed)");
        served
    };
    let (served, ()) = tokio::join!(serve, log_phases);
    served
}

fn app() -> Router {
    Router::new()
        .route("/", get(|| async { "ok" }))
        .route("/slow", get(slow))
        .route("/sse", get(sse))
        .route("/readyz", get(readyz))
        .route("/items", get(items))
}

#[derive(Debug, serde::Deserialize)]
struct SlowParams {
    ms: u64,
}

async fn slow(Query(SlowParams { ms }): Query<SlowParams>) -> String {
    eprintln!("axum_server: GET /slow?ms={ms} in flight");
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slow {ms}")
}

#[derive(Debug, serde::Deserialize)]
struct SseParams {
    #[serde(rename = "ignore-shutdown", default)]
    ignore_shutdown: u8,
}

async fn sse(Query(params): Query<SseParams>) -> impl IntoResponse {
    let ticks = Ticks::new(Duration::from_millis(100));
    if params.ignore_shutdown == 0 {
        eprintln!("axum_server: GET /sse streaming");
        // The shutdown notification: the stream ends after its current event.
        Sse::new(EitherStream::Until(server::until_stopping(ticks))).into_response()
    } else {
        eprintln!("axum_server: GET /sse streaming (ignoring the shutdown notification)");
        Sse::new(EitherStream::Plain(ticks)).into_response()
    }
}

/// An event every `period`, numbered from 0.
struct Ticks {
    interval: tokio::time::Interval,
    n: u64,
}

impl Ticks {
    fn new(period: Duration) -> Ticks {
        let mut interval = tokio::time::interval(period);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Ticks { interval, n: 0 }
    }
}

impl futures_core::Stream for Ticks {
    type Item = Result<Event, std::convert::Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        this.interval.poll_tick(cx).map(|_| {
            this.n += 1;
            Some(Ok(Event::default().data(format!("tick {}", this.n - 1))))
        })
    }
}

/// The two kinds of `/sse` stream behind one type.
enum EitherStream {
    Until(server::UntilPhase<Ticks>),
    Plain(Ticks),
}

impl futures_core::Stream for EitherStream {
    type Item = Result<Event, std::convert::Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match &mut *self {
            EitherStream::Until(s) => Pin::new(s).poll_next(cx),
            EitherStream::Plain(s) => Pin::new(s).poll_next(cx),
        }
    }
}

#[derive(Debug, serde::Deserialize)]
struct ItemsParams {
    n: u64,
    #[serde(default)]
    us: u64,
}

async fn items(Query(ItemsParams { n, us }): Query<ItemsParams>) -> axum::response::Response {
    eprintln!("axum_server: GET /items?n={n} in flight");
    let items = build_items(n, Duration::from_micros(us)).await;
    if items.len() as u64 == n {
        axum::Json(items).into_response()
    } else {
        // Only reachable outside a claimed unit: never a shorter array with a 200.
        (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            format!("shutting down: built {} of {n} items", items.len()),
        )
            .into_response()
    }
}

/// Builds `0..n`, one unit per item. The loop has a checkpoint and may stop early (`partial`),
/// but a request being served is one claimed unit, so a signal mid-way does not cut it: the
/// array is whole (the handler still refuses to answer 200 with a shorter one).
#[shutdown_runtime::drainable]
async fn build_items(n: u64, cost: Duration) -> Vec<u64> {
    let mut items = Vec::with_capacity(usize::try_from(n).unwrap_or(0).min(1 << 20));
    #[drainable(partial)]
    for i in 0..n {
        if !cost.is_zero() {
            tokio::time::sleep(cost).await;
        }
        items.push(i);
    }
    items
}
