//! SIGTERM while an HTTP request is in flight: the listener is closed (new connections are
//! refused *while the process still runs*, so a refusal cannot come from a process that has
//! simply exited), the response still arrives in full, and the server exits 0 with a clean
//! drain report.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{Proc, args, example};
use shutdown_discipline::report_line::ReportLine;

#[test]
fn in_flight_request_completes_after_sigterm() {
    let mut proc = Proc::spawn(
        &example("http_server"),
        &args(&["--addr", "127.0.0.1:0", "--grace-ms", "3000"]),
    );
    proc.wait_stderr("listening on http://", Duration::from_secs(10));
    let addr = {
        let out = proc.stderr_text();
        let line = out
            .lines()
            .find(|l| l.contains("listening on http://"))
            .expect("line");
        line.rsplit("http://")
            .next()
            .expect("address")
            .trim()
            .to_owned()
    };

    let mut client = TcpStream::connect(&addr).expect("connect");
    client
        .write_all(b"GET /slow?ms=1500 HTTP/1.1\r\nhost: test\r\n\r\n")
        .expect("send request");
    // The server logs the request line once it has read it: from then on it is in flight.
    proc.wait_stderr("GET /slow?ms=1500", Duration::from_secs(10));
    let sent = proc.signal(libc::SIGTERM).expect("server is running");

    // The server says when the listener is dropped; from then on a connection is refused —
    // checked while the slow request keeps the process alive.
    proc.wait_stderr("stopped accepting", Duration::from_secs(10));
    let refused = TcpStream::connect(&addr).is_err();
    assert!(
        !proc.has_exited(),
        "the server exited before answering the request in flight"
    );
    assert!(refused, "new connections must be refused after SIGTERM");

    let mut response = String::new();
    client.read_to_string(&mut response).expect("read response");
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    assert!(
        response.ends_with("slow done after 1500 ms\n"),
        "{response}"
    );
    let answered = Instant::now();

    let out = proc.finish(Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
    assert!(
        out.exited_at - sent < Duration::from_millis(3000),
        "exit within grace"
    );
    assert!(
        answered - sent >= Duration::from_millis(1000),
        "the response was not cut short"
    );
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert!(report.is_clean(), "{report:?}");
    assert!(
        report.drained >= 1,
        "the connection task drained: {report:?}"
    );
}
