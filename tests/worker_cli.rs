//! The worker without signals: its command-line contract (bad arguments → a clear message and
//! status 2), a full run (every unit committed once, a clean report as the last stdout line),
//! an idempotent rerun, and a corrupt ledger (a located error, status 1, no panic).

mod common;

use std::time::Duration;

use common::{Proc, args, example, read_ledger, worker_args};
use shutdown_discipline::report_line::ReportLine;

fn run(argv: &[String]) -> common::Finished {
    Proc::spawn(&example("worker"), argv).finish(Duration::from_secs(30))
}

#[test]
fn bad_arguments_exit_2_with_a_message() {
    let cases: [(&[&str], &str); 5] = [
        (&[], "--ledger: required"),
        (
            &[
                "--ledger",
                "l",
                "--units",
                "x",
                "--workers",
                "1",
                "--unit-ms",
                "1",
                "--grace-ms",
                "9",
            ],
            "--units: invalid value `x`",
        ),
        (
            &[
                "--ledger",
                "l",
                "--units",
                "1",
                "--workers",
                "0",
                "--unit-ms",
                "1",
                "--grace-ms",
                "900",
            ],
            "--workers: must be at least 1",
        ),
        (
            &[
                "--ledger",
                "l",
                "--units",
                "1",
                "--workers",
                "1",
                "--unit-ms",
                "900",
                "--grace-ms",
                "900",
            ],
            "is not shorter than --grace-ms 900",
        ),
        (
            &[
                "--ledger",
                "l",
                "--units",
                "1",
                "--workers",
                "1",
                "--unit-ms",
                "1",
                "--grace-ms",
                "900",
                "--colour",
                "red",
            ],
            "unknown flag --colour",
        ),
    ];
    for (argv, message) in cases {
        let out = run(&args(argv));
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {}", out.describe());
        assert!(
            out.stderr.contains(message),
            "{argv:?}: expected {message:?}: {}",
            out.describe()
        );
        assert!(out.stderr.contains("usage: worker"), "{}", out.describe());
        assert!(out.stdout.trim().is_empty(), "{}", out.describe());
    }
}

#[test]
fn full_run_commits_everything_once_and_a_rerun_does_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = dir.path().join("ledger");
    let argv = worker_args(&ledger, 12, 3, 4, 2000);
    let out = run(&argv);
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
    let report = ReportLine::from_stdout(&out.stdout).expect("report");
    assert!(report.is_clean(), "{report:?}");
    let check = read_ledger(&ledger).check(12);
    assert!(check.is_complete() && check.redone.is_empty(), "{check:?}");

    let again = run(&argv);
    assert_eq!(again.status.code(), Some(0), "{}", again.describe());
    assert!(
        again
            .stderr
            .contains("12 of 12 units already committed, 0 to do"),
        "{}",
        again.describe()
    );
    assert_eq!(
        read_ledger(&ledger).entries().len(),
        24,
        "the rerun appended nothing"
    );
}

#[test]
fn corrupt_ledger_is_a_located_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = dir.path().join("ledger");
    std::fs::write(&ledger, "begin 0\ncommit 0\nbeginn 1\n").expect("write");
    let out = run(&worker_args(&ledger, 3, 1, 4, 2000));
    assert_eq!(
        out.status.code(),
        Some(shutdown_runtime::exit::EXIT_FAILURE),
        "{}",
        out.describe()
    );
    assert!(
        out.stderr.contains(&format!(
            "{}:3: expected `begin <id>` or `commit <id>`, found `beginn 1`",
            ledger.display()
        )),
        "{}",
        out.describe()
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.describe());
}
