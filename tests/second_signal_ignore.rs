//! Second signal under `SecondSignal::Ignore`: the drain started by the first SIGTERM goes on
//! undisturbed, the in-flight units commit, and the exit is the clean one.

mod common;

use std::time::Duration;

use common::{SLOW_GRACE_MS, busy_worker, read_ledger};
use shutdown_discipline::report_line::ReportLine;

#[test]
fn second_sigterm_is_ignored_and_the_drain_completes() {
    let (_dir, ledger, mut proc) = busy_worker("ignore");
    let first = proc.signal(libc::SIGTERM).expect("worker is running");
    proc.wait_stderr("worker: shutdown requested", Duration::from_secs(10));
    proc.signal(libc::SIGTERM)
        .expect("worker still draining at the second signal");
    let out = proc.finish(Duration::from_millis(SLOW_GRACE_MS) + Duration::from_secs(5));
    let took = out.exited_at - first;
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
    assert!(
        took < Duration::from_millis(SLOW_GRACE_MS),
        "exit took {took:?}"
    );
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert!(report.is_clean(), "{report:?}");
    let check = read_ledger(&ledger).check(8);
    assert!(
        check.half_done.is_empty(),
        "in-flight units must commit: {check:?}"
    );
    assert!(check.committed >= 1, "{check:?}");
    assert!(check.is_exactly_once(), "{check:?}");
}
