//! An HTTP server that finishes the requests in flight on SIGTERM and accepts no new ones.
//!
//! Demonstrates the shutdown discipline for a server: the accept loop's idle wait (waiting for
//! the next connection) wakes at once on shutdown, the listener is closed so new connections
//! are refused, and every connection runs in a tracked task (`spawn_named`) that the drain
//! waits for — a slow request started before the signal still gets its full response. Reading
//! a request has a timeout shorter than the drain budget, so a silent client cannot hold the
//! drain hostage. A minimal HTTP/1.1 subset (one request per connection, `Connection: close`)
//! keeps the example free of extra dependencies. It shows what a server must do by hand;
//! `examples/axum_server.rs` gets all of it (plus readiness, a ready-delay, idle keep-alive
//! connections closed at once, HTTP/2 and streams) from `shutdown_runtime::server`.
//!
//! ```text
//! cargo run --release --example http_server -- [--addr 127.0.0.1:8080] [--grace-ms 3000]
//! curl 'http://127.0.0.1:8080/slow?ms=2000' &  kill -TERM <pid>   # the response still arrives
//! ```
//!
//! Routes: `/` answers `ok`; `/slow?ms=N` answers after N ms (N below the children's budget).
//! `http_server: listening on http://ADDR` on stderr means it is ready (`--addr` with port 0
//! picks a free port). The last stdout line is the drain report as one JSON object; exit 0
//! for a clean drain, 2 for bad arguments.

use std::net::SocketAddr;
use std::time::Duration;

use shutdown_discipline::cli::{ArgError, Flags};
use shutdown_runtime::EarlySignals;
use shutdown_runtime::{Budgets, RunConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const USAGE: &str = "usage: http_server [--addr HOST:PORT] [--grace-ms MS]";

/// Upper bound on a request head; longer heads get `431`.
const MAX_HEAD: usize = 8 * 1024;

#[derive(Debug, Clone, Copy)]
struct Config {
    addr: SocketAddr,
    budgets: Budgets,
}

impl Config {
    fn from_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Config, ArgError> {
        let mut flags = Flags::parse(args)?;
        let addr: SocketAddr = flags.optional("addr", SocketAddr::from(([127, 0, 0, 1], 8080)))?;
        let grace_ms: u64 = flags.optional("grace-ms", 3000)?;
        flags.finish()?;
        if grace_ms < 3 {
            return Err(ArgError::new("--grace-ms: must be at least 3"));
        }
        Ok(Config {
            addr,
            budgets: Budgets::from_grace(Duration::from_millis(grace_ms)),
        })
    }

    /// Reading a request head must end well inside the children's drain budget.
    fn read_timeout(&self) -> Duration {
        self.budgets.children() / 2
    }
}

fn main() {
    // First of all: a SIGTERM before `run` has installed its handlers stays pending.
    let early = EarlySignals::block()
        .inspect_err(|e| eprintln!("http_server: cannot block signals during start-up: {e}"))
        .ok();
    let config = match Config::from_args(std::env::args_os().skip(1)) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("http_server: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("http_server: cannot start the tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    let outcome = runtime.block_on(RunConfig::new(config.budgets).run(serve(config, early)));
    println!("{}", outcome.report.to_json_line());
    std::process::exit(outcome.exit_code());
}

/// The accept loop (the coordinator): one tracked task per connection until shutdown.
async fn serve(config: Config, early: Option<EarlySignals>) -> std::io::Result<()> {
    // `run` installed the signal handlers before polling this future: deliver any signal
    // that arrived during start-up to them.
    if let Some(early) = early {
        early.release();
    }
    let listener = TcpListener::bind(config.addr).await.inspect_err(|e| {
        eprintln!("http_server: cannot listen on {}: {e}", config.addr);
    })?;
    eprintln!(
        "http_server: listening on http://{}",
        listener.local_addr()?
    );
    let mut served = 0u64;
    loop {
        // The checkpoint before accepting the next connection.
        if shutdown_runtime::shutdown_requested() {
            break;
        }
        // Idle wait: `accept` is cancel-safe, so shutdown may interrupt it at once.
        let accepted = tokio::select! {
            biased;
            () = shutdown_runtime::wait_for_shutdown() => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => {
                served += 1;
                let _detached = shutdown_runtime::spawn_named(
                    format!("conn-{served}-{peer}"),
                    connection(stream, config),
                );
            }
            // Per-connection errors (e.g. the peer reset before we accepted) are not fatal.
            Err(e) => eprintln!("http_server: accept failed: {e}"),
        }
    }
    drop(listener); // from here on, new connections are refused
    eprintln!("http_server: stopped accepting after {served} connections");
    Ok(())
}

/// Serves one request on one connection.
async fn connection(mut stream: TcpStream, config: Config) {
    let response = match tokio::time::timeout(config.read_timeout(), read_head(&mut stream)).await {
        Ok(Ok(Some(head))) => {
            // A one-line access log: the request is in flight from here on.
            eprintln!("http_server: {}", head.lines().next().unwrap_or_default());
            respond(&head, config).await
        }
        Ok(Ok(None)) => return, // the client went away without a request
        Ok(Err(e)) => {
            eprintln!("http_server: reading a request failed: {e}");
            return;
        }
        Err(_) => reply(408, "request timeout\n"),
    };
    if let Err(e) = stream.write_all(response.as_bytes()).await {
        eprintln!("http_server: writing a response failed: {e}");
    }
    let _ = stream.shutdown().await;
}

/// Reads up to the end of the request head (`\r\n\r\n`); `None` if the peer closed first.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<String>> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        if head.len() > MAX_HEAD {
            return Ok(Some(String::new()));
        }
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(None);
        }
        head.extend_from_slice(&buf[..n]);
    }
    Ok(Some(String::from_utf8_lossy(&head).into_owned()))
}

async fn respond(head: &str, config: Config) -> String {
    let Some(request_line) = head.lines().next().filter(|line| !line.is_empty()) else {
        return reply(431, "request head too large or empty\n");
    };
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return reply(400, "malformed request line\n");
    };
    if method != "GET" {
        return reply(405, "only GET is supported\n");
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    match path {
        "/" => reply(200, "ok\n"),
        "/slow" => {
            let ms = query
                .split('&')
                .find_map(|pair| pair.strip_prefix("ms="))
                .and_then(|v| v.parse::<u64>().ok());
            match ms {
                Some(ms) if Duration::from_millis(ms) < config.budgets.children() => {
                    // Stands in for real work; it always finishes inside the drain budget.
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    reply(200, &format!("slow done after {ms} ms\n"))
                }
                Some(ms) => reply(
                    400,
                    &format!(
                        "ms={ms} exceeds the drain budget of {} ms\n",
                        config.budgets.children().as_millis()
                    ),
                ),
                None => reply(400, "expected /slow?ms=N\n"),
            }
        }
        _ => reply(404, "not found\n"),
    }
}

fn reply(status: u16, body: &str) -> String {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        _ => "Request Header Fields Too Large",
    };
    format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}
