//! A task that outlives the drain budget: the scheduler's non-cooperative child is aborted when
//! the children's budget runs out, named in the report with the file:line of its spawn, and
//! the process exits within its grace period with `EXIT_ABORTED`. The cooperative children
//! stop at their checkpoints and record `done (partial)`, never "cancelled".

mod common;

use std::time::Duration;

use common::{Proc, args, example};
use shutdown_discipline::report_line::ReportLine;
use shutdown_runtime::exit::EXIT_ABORTED;

const GRACE_MS: u64 = 1500;

/// The line of `examples/scheduler.rs` that spawns the stubborn child (marked in the source).
fn stubborn_spawn_line() -> u32 {
    let source = include_str!("../examples/scheduler.rs");
    let marker = source
        .lines()
        .position(|line| line.contains("e2e: stubborn spawn"))
        .expect("marker comment in examples/scheduler.rs");
    // The marker comment sits on the line above the call.
    u32::try_from(marker + 2).expect("line fits u32")
}

#[test]
fn stubborn_child_is_aborted_at_the_budget_and_named() {
    let argv = args(&[
        "--grace-ms",
        "1500",
        "--jobs",
        "3",
        "--tick-ms",
        "10",
        "--cards",
        "1000",
        "--card-ms",
        "20",
        "--stubborn",
    ]);
    let mut proc = Proc::spawn(&example("scheduler"), &argv);
    proc.wait_stdout("job 2 started", Duration::from_secs(10));
    let sent = proc.signal(libc::SIGTERM).expect("scheduler is running");
    let out = proc.finish(Duration::from_millis(GRACE_MS) + Duration::from_secs(5));
    let took = out.exited_at - sent;
    assert_eq!(out.status.code(), Some(EXIT_ABORTED), "{}", out.describe());
    assert!(took < Duration::from_millis(GRACE_MS), "exit took {took:?}");
    assert!(
        took >= Duration::from_millis(GRACE_MS * 2 / 3),
        "the stubborn child gets the whole children's budget, exit took {took:?}"
    );

    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert_eq!(report.aborted.len(), 1, "{report:?}");
    let aborted = &report.aborted[0];
    assert_eq!(aborted.name, "stubborn-job-0");
    let (file, line) = aborted.file_line().expect("file:line:col");
    assert!(file.ends_with("examples/scheduler.rs"), "{aborted:?}");
    assert_eq!(line, stubborn_spawn_line(), "{aborted:?}");
    assert!(aborted.age_ms >= (GRACE_MS * 2 / 3) as f64, "{aborted:?}");
    assert!(report.panicked.is_empty(), "{report:?}");
    // The two cooperative jobs ended on their own (their `done (partial)` lines, below):
    // drained counts every tracked task that ended normally since the shutdown request, also
    // one that stopped before the drain began (see tests/drain_accounting.rs).
    assert_eq!(report.drained, 2, "the cooperative jobs drain: {report:?}");

    for job in [1, 2] {
        assert!(
            out.stdout.contains(&format!("job {job} done (partial)")),
            "job {job} must record a partial result: {}",
            out.describe()
        );
    }
    assert!(!out.stdout.contains("job 0 done"), "{}", out.describe());
    assert!(!out.stdout.contains("cancelled"), "{}", out.describe());
}

/// The worker with units longer than the children's budget (1 s units, grace 1.2 s → 800 ms):
/// a SIGTERM mid-unit ends in an abort at the budget, the worker task is named (spawned in
/// `examples/worker.rs`), the exit is within grace with `EXIT_ABORTED`, and the aborted unit
/// is redone by the next run — committed exactly once.
#[test]
fn worker_unit_longer_than_the_budget_is_aborted_and_redone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = dir.path().join("ledger");
    let worker = example("worker");
    let mut proc = Proc::spawn(&worker, &common::worker_args(&ledger, 2, 1, 1000, 1200));
    proc.wait_stderr("will be aborted at the budget", Duration::from_secs(10));
    common::wait_for_begin(&ledger, Duration::from_secs(10));
    let sent = proc.signal(libc::SIGTERM).expect("worker is running");
    let out = proc.finish(Duration::from_secs(10));
    let took = out.exited_at - sent;
    assert_eq!(out.status.code(), Some(EXIT_ABORTED), "{}", out.describe());
    assert!(took < Duration::from_millis(1200), "exit took {took:?}");
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert_eq!(report.aborted.len(), 1, "{report:?}");
    assert_eq!(report.aborted[0].name, "worker-0");
    let (file, _) = report.aborted[0].file_line().expect("file:line:col");
    assert!(file.ends_with("examples/worker.rs"), "{report:?}");
    let check = common::read_ledger(&ledger).check(2);
    assert_eq!(check.half_done, vec![0], "{check:?}");

    let rest = Proc::spawn(&worker, &common::worker_args(&ledger, 2, 1, 5, 1200))
        .finish(Duration::from_secs(10));
    assert_eq!(rest.status.code(), Some(0), "{}", rest.describe());
    let check = common::read_ledger(&ledger).check(2);
    assert!(check.is_complete(), "{check:?}");
    assert_eq!(check.redone, vec![0], "{check:?}");
}
