//! End-to-end tests of `examples/axum_server.rs` with a real HTTP client (reqwest, HTTP/1.1
//! keep-alive and HTTP/2 prior knowledge) and real SIGTERMs: requests in flight complete with
//! their full body, idle keep-alive connections do not hold the drain, `/readyz` turns 503
//! while new connections are still accepted during the ready-delay and refused after, SSE
//! streams end at shutdown (or are aborted at the budget and named when they ignore it), a
//! `#[drainable]` loop inside a request is not cut, and an idle server exits at once.
//!
//! Every wait is on an observable event (a stderr line, a response, end of stream, the exit)
//! with a deadline. Budgets are long (grace 30 s: children 20 s) where the bug under test
//! would hold the drain to the budget, and the deadlines a few seconds: a regression fails,
//! a loaded machine does not. Precise timings are in the server bench, not here.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{Proc, args, example};
use shutdown_discipline::report_line::ReportLine;

/// Long enough that an idle connection held to the budget (20 s) fails every deadline below.
const LONG_GRACE_MS: &str = "30000";

/// Starts the server; returns it with its address.
fn start(extra: &[&str]) -> (Proc, String) {
    let mut list = vec!["--addr", "127.0.0.1:0"];
    list.extend_from_slice(extra);
    let proc = Proc::spawn(&example("axum_server"), &args(&list));
    proc.wait_stderr("listening on http://", Duration::from_secs(30));
    let stderr = proc.stderr_text();
    let line = stderr
        .lines()
        .find(|l| l.contains("listening on http://"))
        .expect("listening line");
    let addr = line.rsplit("http://").next().expect("address").trim();
    (proc, addr.to_owned())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// A client with its own connection pool (its connections stay open, idle, between requests).
fn client(http2: bool) -> reqwest::Client {
    let builder = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .pool_idle_timeout(Duration::from_secs(600));
    let builder = if http2 {
        builder.http2_prior_knowledge()
    } else {
        builder.http1_only()
    };
    builder.build().expect("reqwest client")
}

/// A raw HTTP/1.1 keep-alive connection that made one request and now sits idle.
fn idle_keep_alive(addr: &str) -> TcpStream {
    let mut conn = TcpStream::connect(addr).expect("connect");
    conn.write_all(b"GET / HTTP/1.1\r\nhost: test\r\n\r\n")
        .expect("send");
    let mut buf = [0u8; 1024];
    let mut got = Vec::new();
    while !got.ends_with(b"ok") {
        let n = conn.read(&mut buf).expect("read response");
        assert!(n > 0, "connection closed before the response");
        got.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&got);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(!head.to_ascii_lowercase().contains("connection: close"));
    conn
}

/// SIGTERM with a slow request in flight and an idle keep-alive connection open: the slow
/// response arrives whole, the idle connection does not hold the drain.
fn slow_request_and_idle_connection(http2: bool) {
    let (mut proc, addr) = start(&["--grace-ms", LONG_GRACE_MS]);
    let rt = runtime();
    let base = format!("http://{addr}");
    // The idle connection: raw HTTP/1.1, or an HTTP/2 client whose pooled connection idles.
    let idle_h1 = (!http2).then(|| idle_keep_alive(&addr));
    let idle_h2 = client(true);
    if http2 {
        let body = rt.block_on(async {
            let resp = idle_h2.get(format!("{base}/")).send().await.expect("GET /");
            assert_eq!(resp.version(), reqwest::Version::HTTP_2);
            resp.text().await.expect("body")
        });
        assert_eq!(body, "ok");
    }

    let slow = rt.spawn({
        let url = format!("{base}/slow?ms=1500");
        let client = client(http2);
        async move {
            let resp = client.get(url).send().await.expect("GET /slow");
            let status = resp.status();
            let version = resp.version();
            let body = resp.text().await.expect("slow body");
            (status, version, body, Instant::now())
        }
    });
    proc.wait_stderr("GET /slow?ms=1500 in flight", Duration::from_secs(10));
    let sent = proc.signal(libc::SIGTERM).expect("server is running");

    if let Some(mut idle) = idle_h1 {
        // The idle keep-alive connection is closed by the server at once (end of stream).
        idle.set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut buf = [0u8; 64];
        let n = idle
            .read(&mut buf)
            .expect("the server closes the idle connection");
        assert_eq!(n, 0, "unexpected bytes on the idle connection");
    }
    let (status, version, body, answered) = rt.block_on(slow).expect("slow task");
    assert_eq!(status, 200);
    let expected = if http2 {
        reqwest::Version::HTTP_2
    } else {
        reqwest::Version::HTTP_11
    };
    assert_eq!(version, expected);
    assert_eq!(body, "slow 1500", "the full body");

    let out = proc.finish(Duration::from_secs(25));
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
    // Held by the idle connection, the exit would come at the children budget (20 s).
    let after_answer = out.exited_at.saturating_duration_since(answered);
    assert!(
        after_answer < Duration::from_secs(5),
        "exit {after_answer:?} after the last response (an idle connection held the drain?)\n{}",
        out.describe()
    );
    assert!(
        answered - sent >= Duration::from_millis(500),
        "not cut short"
    );
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert!(report.is_clean(), "{report:?}");
    assert!(
        report.drained >= 2,
        "connection + request drained: {report:?}"
    );
    drop(idle_h2);
}

#[test]
fn http1_slow_request_completes_and_idle_keep_alive_does_not_hold_the_drain() {
    slow_request_and_idle_connection(false);
}

#[test]
fn http2_slow_request_completes_and_idle_connection_does_not_hold_the_drain() {
    slow_request_and_idle_connection(true);
}

#[test]
fn readyz_is_503_while_still_accepting_during_the_ready_delay_then_refused() {
    let (mut proc, addr) = start(&["--grace-ms", LONG_GRACE_MS, "--ready-delay-ms", "4000"]);
    let rt = runtime();
    let base = format!("http://{addr}");
    let ready = rt.block_on(async {
        let resp = client(false)
            .get(format!("{base}/readyz"))
            .send()
            .await
            .expect("GET /readyz");
        (resp.status(), resp.text().await.expect("body"))
    });
    assert_eq!((ready.0.as_u16(), ready.1.as_str()), (200, "ready"));

    // A request in flight keeps the process alive past the ready-delay, so a refused
    // connection below proves the listener closed, not that the process is gone.
    let slow = rt.spawn({
        let url = format!("{base}/slow?ms=8000");
        async move {
            let resp = client(false).get(url).send().await.expect("GET /slow");
            (resp.status(), resp.text().await.expect("body"))
        }
    });
    proc.wait_stderr("GET /slow?ms=8000 in flight", Duration::from_secs(10));
    proc.signal(libc::SIGTERM).expect("server is running");
    proc.wait_stderr("not ready (readiness 503)", Duration::from_secs(10));

    // New connections (fresh clients, no pooled connection) are still accepted and served.
    let (readyz, root) = rt.block_on(async {
        let resp = client(false)
            .get(format!("{base}/readyz"))
            .send()
            .await
            .expect("a new connection is accepted during the ready-delay");
        let readyz = (resp.status().as_u16(), resp.text().await.expect("body"));
        let resp = client(false)
            .get(format!("{base}/"))
            .send()
            .await
            .expect("a new connection is served during the ready-delay");
        (
            readyz,
            (resp.status().as_u16(), resp.text().await.expect("body")),
        )
    });
    assert_eq!(readyz, (503, "not ready".to_owned()));
    assert_eq!(root, (200, "ok".to_owned()));
    assert!(
        !proc.stderr_text().contains("stopped accepting"),
        "the listener closed before the ready-delay was over\n{}",
        proc.stderr_text()
    );

    proc.wait_stderr("stopped accepting", Duration::from_secs(10));
    let refused = TcpStream::connect(&addr).is_err();
    assert!(
        !proc.has_exited(),
        "the server exited before the slow request finished"
    );
    assert!(
        refused,
        "a new connection was accepted after the ready-delay"
    );

    let (status, body) = rt.block_on(slow).expect("slow task");
    assert_eq!((status.as_u16(), body.as_str()), (200, "slow 8000"));
    let out = proc.finish(Duration::from_secs(25));
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert!(report.is_clean(), "{report:?}");
}

/// Reads SSE chunks until the stream ends; returns the events seen and whether it ended
/// cleanly (`Ok(None)`) or with an error.
async fn read_sse(
    mut resp: reqwest::Response,
    first: tokio::sync::oneshot::Sender<()>,
) -> (String, bool) {
    let mut text = String::new();
    let mut first = Some(first);
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                text.push_str(&String::from_utf8_lossy(&chunk));
                if text.contains("data: tick 0")
                    && let Some(first) = first.take()
                {
                    let _ = first.send(());
                }
            }
            Ok(None) => return (text, true),
            Err(_) => return (text, false),
        }
    }
}

fn sse_scenario(grace_ms: &str, query: &str) -> (Proc, String, bool, Instant, Instant) {
    let (mut proc, addr) = start(&["--grace-ms", grace_ms]);
    let rt = runtime();
    let url = format!("http://{addr}/sse{query}");
    let (tx, rx) = tokio::sync::oneshot::channel();
    let stream = rt.spawn(async move {
        let resp = client(false).get(url).send().await.expect("GET /sse");
        assert_eq!(resp.status(), 200);
        let kind = resp.headers()["content-type"]
            .to_str()
            .unwrap_or("")
            .to_owned();
        assert!(kind.starts_with("text/event-stream"), "{kind}");
        let (text, clean) = read_sse(resp, tx).await;
        (text, clean, Instant::now())
    });
    rt.block_on(async { tokio::time::timeout(Duration::from_secs(10), rx).await })
        .expect("first event within 10 s")
        .expect("first event");
    let sent = proc.signal(libc::SIGTERM).expect("server is running");
    let (text, clean, ended) = rt.block_on(stream).expect("sse task");
    (proc, text, clean, sent, ended)
}

#[test]
fn sse_stream_ends_at_shutdown_and_the_exit_is_clean() {
    let (proc, text, clean, sent, ended) = sse_scenario(LONG_GRACE_MS, "");
    assert!(clean, "the stream ended cleanly: {text}");
    assert!(
        ended - sent < Duration::from_secs(5),
        "the stream ended {:?} after SIGTERM (budget 20 s)",
        ended - sent
    );
    assert!(text.ends_with("\n\n"), "the last event is whole: {text:?}");
    let out = proc.finish(Duration::from_secs(25));
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert!(report.is_clean(), "{report:?}");
    assert!(
        report.drained >= 2,
        "stream + connection drained: {report:?}"
    );
}

#[test]
fn sse_handler_ignoring_the_notification_is_aborted_at_the_budget_and_named() {
    // grace 3 s: children budget 2 s.
    let (proc, text, _clean, sent, ended) = sse_scenario("3000", "?ignore-shutdown=1");
    assert!(
        ended - sent >= Duration::from_millis(1500),
        "the stream lasted until the budget: {:?}",
        ended - sent
    );
    assert!(text.contains("data: tick 3"), "it kept streaming: {text}");
    let out = proc.finish(Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(3), "{}", out.describe());
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert!(
        report.aborted.iter().any(|t| t.name == "GET /sse"),
        "the aborted stream is named by its route: {report:?}"
    );
}

#[test]
fn items_built_by_a_drainable_loop_are_not_cut_by_a_signal() {
    let (mut proc, addr) = start(&["--grace-ms", LONG_GRACE_MS]);
    let rt = runtime();
    let items = rt.spawn(async move {
        let resp = client(false)
            .get(format!("http://{addr}/items?n=300&us=3000"))
            .send()
            .await
            .expect("GET /items");
        (resp.status(), resp.text().await.expect("body"))
    });
    proc.wait_stderr("GET /items?n=300 in flight", Duration::from_secs(10));
    proc.signal(libc::SIGTERM).expect("server is running");
    let (status, body) = rt.block_on(items).expect("items task");
    assert_eq!(status, 200);
    let got: Vec<u64> = serde_json::from_str(&body).expect("a JSON array");
    assert_eq!(got, (0..300).collect::<Vec<u64>>(), "the whole array");
    let out = proc.finish(Duration::from_secs(25));
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
}

#[test]
fn idle_server_exits_at_once_on_sigterm() {
    let (mut proc, _addr) = start(&["--grace-ms", LONG_GRACE_MS]);
    let sent = proc.signal(libc::SIGTERM).expect("server is running");
    let out = proc.finish(Duration::from_secs(25));
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
    // The target (50 ms) is measured by the bench; here: far from the 20 s budget.
    assert!(
        out.exited_at - sent < Duration::from_secs(5),
        "idle server took {:?}",
        out.exited_at - sent
    );
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert!(report.is_clean(), "{report:?}");
}

#[test]
fn bad_arguments_exit_2_with_the_flag_named() {
    let proc = Proc::spawn(
        &example("axum_server"),
        &args(&["--grace-ms", "3000", "--ready-delay-ms", "5000"]),
    );
    let out = proc.finish(Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2), "{}", out.describe());
    assert!(
        out.stderr.contains("--ready-delay-ms"),
        "{}",
        out.describe()
    );
}
