//! `#[shutdown_runtime::main(report = "none")]` as a real process: SIGTERM → exit 0 and
//! nothing printed (no human line on stderr, no JSON on stdout).

mod child;

use child::{child_mode, say, start};

async fn child() {
    say("ready");
    shutdown_runtime::wait_for_shutdown().await;
}

fn parent() {
    let mut p = start("quiet");
    p.expect_line("ready");
    p.signal(libc::SIGTERM);
    let out = p.finish();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    assert_eq!(out.stdout, ["ready"], "{out:?}");
    std::process::exit(0);
}

#[shutdown_runtime::main(grace = "10s", report = "none")]
async fn main() {
    match child_mode() {
        Some(_) => child().await,
        None => parent(),
    }
}
