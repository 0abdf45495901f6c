//! A child that panics: the panic is captured and named in the drain report (task name and
//! message), and the drain of the other children is unaffected — they stop at their
//! checkpoints, record `done (partial)`, and nothing is aborted.

mod common;

use std::time::Duration;

use common::{Proc, args, example};
use shutdown_discipline::report_line::ReportLine;
use shutdown_runtime::exit::EXIT_CLEAN;

const GRACE_MS: u64 = 2000;

#[test]
fn panicking_child_is_reported_and_the_others_drain() {
    let argv = args(&[
        "--grace-ms",
        "2000",
        "--jobs",
        "3",
        "--tick-ms",
        "10",
        "--cards",
        "1000",
        "--card-ms",
        "20",
        "--panic",
    ]);
    let mut proc = Proc::spawn(&example("scheduler"), &argv);
    proc.wait_stdout("job 2 started", Duration::from_secs(10));
    proc.wait_stderr("simulated bug in job 1", Duration::from_secs(10));
    let sent = proc.signal(libc::SIGTERM).expect("scheduler is running");
    let out = proc.finish(Duration::from_millis(GRACE_MS) + Duration::from_secs(5));
    let took = out.exited_at - sent;
    assert!(
        took < Duration::from_millis(GRACE_MS / 2),
        "a panic must not slow the drain: {took:?}"
    );

    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert_eq!(report.panicked.len(), 1, "{report:?}");
    let panicked = &report.panicked[0];
    assert_eq!(panicked.task.name, "panicky-job-1");
    assert_eq!(panicked.message, "simulated bug in job 1");
    let (file, _line) = panicked.task.file_line().expect("file:line:col");
    assert!(file.ends_with("examples/scheduler.rs"), "{panicked:?}");
    assert!(report.aborted.is_empty(), "{report:?}");
    // Both cooperative jobs ended on their own (they print just before returning): drained
    // counts every tracked task that ended normally since the shutdown request.
    assert_eq!(report.drained, 2, "{report:?}");
    for job in [0, 2] {
        assert!(
            out.stdout.contains(&format!("job {job} done (partial)")),
            "job {job}: {}",
            out.describe()
        );
    }
    assert!(!out.stdout.contains("cancelled"), "{}", out.describe());
    // Documented by `Outcome::exit_code`: a child's panic is reported, the code stays 0.
    assert_eq!(out.status.code(), Some(EXIT_CLEAN), "{}", out.describe());
}
