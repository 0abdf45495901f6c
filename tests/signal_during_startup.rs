//! A signal while the program is still starting: it exits cleanly (status 0, a clean drain
//! report), promptly, without claiming work — no hang, no crash.
//!
//! "Starting" here is everything after `shutdown_runtime::run` installed the handlers (the
//! programs say `ready` on stderr at that point): a slow start-up step (`--startup-ms`) and the
//! race between the first claims and the signal. Before the handlers exist — inside `exec` and
//! the dynamic loader — the kernel's default disposition applies to every process; no library
//! can change that, which is why the handlers are installed before anything else.

mod common;

use std::time::Duration;

use common::{Proc, Rng, args, example, read_ledger, worker_args};
use shutdown_discipline::report_line::ReportLine;

#[test]
fn sigterm_during_a_slow_startup_exits_cleanly_and_promptly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = dir.path().join("ledger");
    let mut argv = worker_args(&ledger, 10, 2, 20, 3000);
    argv.extend(args(&["--startup-ms", "10000"]));
    let mut proc = Proc::spawn(&example("worker"), &argv);
    proc.wait_stderr("worker: ready", Duration::from_secs(10));
    let sent = proc.signal(libc::SIGTERM).expect("worker is starting");
    let out = proc.finish(Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
    let took = out.exited_at - sent;
    assert!(
        took < Duration::from_secs(2),
        "a 10 s start-up must be cut short, took {took:?}"
    );
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert!(report.is_clean(), "{report:?}");
    let ledger = read_ledger(&ledger);
    assert!(
        ledger.entries().is_empty(),
        "nothing may be claimed: {ledger:?}"
    );
}

#[test]
fn sigterm_racing_the_first_claims_exits_cleanly() {
    let mut rng = Rng::from_env();
    for round in 0..8 {
        let dir = tempfile::tempdir().expect("tempdir");
        let ledger = dir.path().join("ledger");
        let mut proc = Proc::spawn(&example("worker"), &worker_args(&ledger, 10, 2, 20, 3000));
        proc.wait_stderr("worker: ready", Duration::from_secs(10));
        std::thread::sleep(rng.duration_up_to(Duration::from_millis(5)));
        proc.signal(libc::SIGTERM).expect("worker is running");
        let out = proc.finish(Duration::from_secs(10));
        assert_eq!(
            out.status.code(),
            Some(0),
            "round {round}: {}",
            out.describe()
        );
        let report = ReportLine::from_stdout(&out.stdout).expect("report");
        assert!(report.is_clean(), "round {round}: {report:?}");
        let check = read_ledger(&ledger).check(10);
        assert!(
            check.half_done.is_empty() && check.is_exactly_once(),
            "round {round}: {check:?}"
        );
    }
}

#[test]
fn sigint_right_after_the_scheduler_is_ready_exits_cleanly() {
    let mut proc = Proc::spawn(&example("scheduler"), &args(&["--grace-ms", "2000"]));
    proc.wait_stderr("scheduler: ready", Duration::from_secs(10));
    proc.signal(libc::SIGINT).expect("scheduler is running");
    let out = proc.finish(Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert!(report.is_clean(), "{report:?}");
    assert!(!out.stdout.contains("cancelled"), "{}", out.describe());
}
