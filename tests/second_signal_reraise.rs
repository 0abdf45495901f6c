//! Second signal under `SecondSignal::Reraise` (the default): the default disposition is
//! restored and the signal re-raised, so the process dies *by that signal* — a real 143
//! (SIGTERM) or 130 (SIGINT) for the shell — and does so at once, without waiting for the
//! in-flight unit.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use common::{SLOW_UNIT_MS, busy_worker};

fn dies_by(signal: libc::c_int) {
    let (_dir, _ledger, mut proc) = busy_worker("reraise");
    proc.signal(signal).expect("worker is running");
    proc.wait_stderr("worker: shutdown requested", Duration::from_secs(10));
    let second = proc
        .signal(signal)
        .expect("worker still draining at the second signal");
    let out = proc.finish(Duration::from_secs(10));
    assert_eq!(out.status.signal(), Some(signal), "{}", out.describe());
    assert_eq!(out.status.code(), None, "{}", out.describe());
    let took = out.exited_at - second;
    assert!(
        took < Duration::from_millis(SLOW_UNIT_MS / 2),
        "death by signal took {took:?} after the second signal"
    );
}

#[test]
fn second_sigterm_kills_with_sigterm_status_143() {
    dies_by(libc::SIGTERM);
}

#[test]
fn second_sigint_kills_with_sigint_status_130() {
    dies_by(libc::SIGINT);
}
