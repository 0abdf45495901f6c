//! `#[shutdown_runtime::main(report = "json", second_signal = "abort_all")]` as a real
//! process: two SIGTERMs while a task is stuck → every task aborted, exit 4, and the report as
//! one JSON object on stdout (naming the aborted task); no human line on stderr.

mod child;

use child::{child_mode, say, start};

async fn child() {
    shutdown_runtime::spawn_named("stubborn", std::future::pending::<()>());
    say("ready");
    shutdown_runtime::wait_for_shutdown().await;
    say("requested");
    std::future::pending::<()>().await;
}

fn parent() {
    let mut p = start("stuck");
    p.expect_line("ready");
    p.signal(libc::SIGTERM);
    p.expect_line("requested");
    p.signal(libc::SIGTERM);
    let out = p.finish();
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(out.report_lines().is_empty(), "{out:?}");
    let last = out.stdout.last().expect("a JSON line on stdout");
    let json: serde_json::Value = serde_json::from_str(last).expect("JSON");
    assert_eq!(json["exit_code"], 4, "{last}");
    assert_eq!(json["reason"], "SIGTERM", "{last}");
    assert_eq!(json["aborted"][0]["name"], "stubborn", "{last}");
    assert!(json["signal_to_exit_ms"].as_f64().is_some(), "{last}");
    println!("stdout JSON (abort_all): {last}");
    std::process::exit(0);
}

#[shutdown_runtime::main(grace = "10s", report = "json", second_signal = "abort_all")]
async fn main() {
    match child_mode() {
        Some(_) => child().await,
        None => parent(),
    }
}
