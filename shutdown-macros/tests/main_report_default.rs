//! `#[shutdown_runtime::main]` with the defaults (`report = "stderr"`, `second_signal =
//! "reraise"`), as a real process with no logging set up (like a `log`-only service):
//!
//! * SIGTERM → exit 0 and one human line on stderr naming the loop the checkpoint stopped
//!   (`file:line x1`) and the signal-to-exit time;
//! * two SIGTERMs 100 ms apart while a task is stuck → the report (naming the stuck task and
//!   its spawn location) is printed first, then the process dies by SIGTERM (status 143).

mod child;

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use child::{child_mode, say, start};
use shutdown_runtime::drainable;

const LOOP_LINE: u32 = line!() + 5;

#[drainable]
async fn ticker() {
    let mut ticks = 0u64;
    loop {
        ticks += 1;
        tokio::time::sleep(Duration::from_millis(2)).await;
        if ticks == 1 {
            say("ticking");
        }
    }
}

async fn child(mode: &str) {
    match mode {
        "clean" => {
            shutdown_runtime::spawn_named("ticker", ticker());
            say("ready");
            shutdown_runtime::wait_for_shutdown().await;
        }
        _ => {
            shutdown_runtime::spawn_named("stubborn", std::future::pending::<()>());
            say("ready");
            shutdown_runtime::wait_for_shutdown().await;
            say("requested");
            tokio::time::sleep(Duration::from_secs(60)).await; // only the 2nd signal ends it
        }
    }
}

fn parent() {
    // SIGTERM: a clean drain, one human line on stderr.
    let mut p = start("clean");
    p.expect_line("ready");
    p.expect_line("ticking");
    p.signal(libc::SIGTERM);
    let out = p.finish();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = out.report_lines();
    assert_eq!(lines.len(), 1, "{out:?}");
    let line = lines[0];
    assert!(
        line.starts_with("shutdown: exit 0 (clean), reason: SIGTERM, signal-to-exit "),
        "{line}"
    );
    assert!(line.contains("; drained 1; aborted 0;"), "{line}");
    let stopped = format!("; loops stopped early 1: {}:{LOOP_LINE} x1", file!());
    assert!(line.ends_with(&stopped), "{line}\nwanted {stopped}");
    println!("stderr line (SIGTERM): {line}");

    // Two SIGTERMs 100 ms apart: the report first, then death by SIGTERM.
    let mut p = start("stuck");
    p.expect_line("ready");
    p.signal(libc::SIGTERM);
    p.expect_line("requested");
    std::thread::sleep(Duration::from_millis(100)); // the scenario: the operator presses again
    p.signal(libc::SIGTERM);
    let out = p.finish();
    assert_eq!(out.status.signal(), Some(libc::SIGTERM), "{out:?}");
    let lines = out.report_lines();
    assert_eq!(lines.len(), 1, "{out:?}");
    let line = lines[0];
    assert!(
        line.starts_with("shutdown: second SIGTERM (second signal, re-raised: exit status 143)"),
        "{line}"
    );
    assert!(line.contains("aborted 1: stubborn at "), "{line}");
    assert!(line.contains(file!()), "{line}");
    println!("stderr line (two SIGTERMs, reraise): {line}");
    std::process::exit(0);
}

#[shutdown_runtime::main(grace = "10s")]
async fn main() {
    match child_mode() {
        Some(mode) => child(&mode).await,
        None => parent(),
    }
}
