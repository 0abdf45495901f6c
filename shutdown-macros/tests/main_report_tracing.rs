//! `#[shutdown_runtime::main(report = "tracing", second_signal = "ignore")]` as a real
//! process with a `tracing` subscriber on stderr: a second SIGTERM is ignored (the drain goes
//! on, exit 0), the report is the `tracing` event only (no human line).

mod child;

use std::time::{Duration, Instant};

use child::{child_mode, say, start};

async fn child(go: &str) {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    say("ready");
    shutdown_runtime::wait_for_shutdown().await;
    say("requested");
    // The coordinator finishes its work after the parent's second signal.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !std::path::Path::new(go).exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
}

fn parent() {
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    // SAFETY: set before any thread of this process reads the environment concurrently.
    unsafe { std::env::set_var("GO_FILE", &go) };
    let mut p = start("ignore");
    p.expect_line("ready");
    p.signal(libc::SIGTERM);
    p.expect_line("requested");
    p.signal(libc::SIGTERM);
    std::fs::write(&go, b"").unwrap();
    let out = p.finish();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.report_lines().is_empty(), "{out:?}");
    assert!(out.stderr.contains("second signal ignored"), "{out:?}");
    assert!(out.stderr.contains("shutdown complete"), "{out:?}");
    std::process::exit(0);
}

#[shutdown_runtime::main(grace = "10s", report = "tracing", second_signal = "ignore")]
async fn main() {
    match child_mode() {
        Some(_) => child(&std::env::var("GO_FILE").unwrap()).await,
        None => parent(),
    }
}
