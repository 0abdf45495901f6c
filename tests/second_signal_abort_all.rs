//! Second signal under `SecondSignal::AbortAll`: everything in flight is abandoned at once and
//! the process exits with `EXIT_SECOND_SIGNAL`; the abandoned units are `begin` without
//! `commit` in the ledger, and a restart redoes them — still exactly once.

mod common;

use std::time::Duration;

use common::{Proc, SLOW_UNIT_MS, busy_worker, example, read_ledger, worker_args};
use shutdown_discipline::report_line::ReportLine;
use shutdown_runtime::exit::EXIT_SECOND_SIGNAL;

#[test]
fn second_sigterm_aborts_everything_with_its_own_exit_code() {
    let (_dir, ledger, mut proc) = busy_worker("abort-all");
    proc.signal(libc::SIGTERM).expect("worker is running");
    proc.wait_stderr("worker: shutdown requested", Duration::from_secs(10));
    let second = proc
        .signal(libc::SIGTERM)
        .expect("worker still draining at the second signal");
    let out = proc.finish(Duration::from_secs(10));
    assert_eq!(
        out.status.code(),
        Some(EXIT_SECOND_SIGNAL),
        "{}",
        out.describe()
    );
    let took = out.exited_at - second;
    assert!(
        took < Duration::from_millis(SLOW_UNIT_MS / 2),
        "abort took {took:?} after the second signal"
    );
    // `run` still reports after a forced exit: the report is the last stdout line.
    ReportLine::from_stdout(&out.stdout).expect("report after a forced exit");
    let check = read_ledger(&ledger).check(8);
    assert!(check.is_exactly_once(), "{check:?}");
    assert!(
        !check.half_done.is_empty(),
        "the in-flight unit was abandoned: {check:?}"
    );

    // Restart with short units: the abandoned units are redone, nothing is committed twice.
    let rest = Proc::spawn(&example("worker"), &worker_args(&ledger, 8, 2, 5, 2000))
        .finish(Duration::from_secs(30));
    assert_eq!(rest.status.code(), Some(0), "{}", rest.describe());
    let check = read_ledger(&ledger).check(8);
    assert!(check.is_complete(), "{check:?}");
}

/// The tasks that the second signal aborted should be named in the report, as a budget abort
/// names them (regression test: `signals` once aborted them directly, before `run`'s
/// zero-budget drain, which then found nothing and reported `"aborted":[]`).
#[test]
fn tasks_aborted_by_the_second_signal_are_named_in_the_report() {
    let (_dir, _ledger, mut proc) = busy_worker("abort-all");
    proc.signal(libc::SIGTERM).expect("worker is running");
    proc.wait_stderr("worker: shutdown requested", Duration::from_secs(10));
    proc.signal(libc::SIGTERM)
        .expect("worker still draining at the second signal");
    let out = proc.finish(Duration::from_secs(10));
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    let mut names: Vec<_> = report.aborted.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["worker-0", "worker-1"], "{}", out.describe());
}
