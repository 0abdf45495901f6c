//! SIGTERM at random moments: the worker leaves no unit half done, exits 0 within its grace
//! period, prints a parseable drain report as its last stdout line, and a restart finishes the
//! queue with every unit committed exactly once.
//!
//! CI runs 10 trials; the long run (1,000 by default, `E2E_SIGTERM_TRIALS` to change) is
//! `cargo test --release --test sigterm_trials -- --ignored --nocapture`
//! (or `scripts/long-trials.sh`).

mod common;

use std::time::Duration;

use common::{Proc, Rng, assert_no_failures, count_from_env, example, read_ledger, worker_args};
use shutdown_discipline::report_line::ReportLine;

const UNITS: u64 = 40;
const WORKERS: u64 = 4;
const UNIT_MS: u64 = 20;
const GRACE_MS: u64 = 2000;
/// Signals land anywhere from "just ready" to a little after a typical run would have ended.
const MAX_DELAY: Duration = Duration::from_millis(220);
/// Extra time allowed to notice the exit before declaring the process hung.
const SLACK: Duration = Duration::from_secs(5);

#[derive(Debug, Default)]
struct Tally {
    trials: usize,
    signalled: usize,
    finished_before_signal: usize,
    half_done: usize,
    over_grace: usize,
    max_signal_to_exit: Duration,
    failures: Vec<String>,
}

fn trial(index: usize, rng: &mut Rng, tally: &mut Tally) {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = dir.path().join("ledger");
    let worker = example("worker");
    let args = worker_args(&ledger, UNITS, WORKERS, UNIT_MS, GRACE_MS);
    let mut proc = Proc::spawn(&worker, &args);
    proc.wait_stderr("worker: ready", Duration::from_secs(10));
    std::thread::sleep(rng.duration_up_to(MAX_DELAY));
    let sent = proc.signal(libc::SIGTERM);
    let out = proc.finish(Duration::from_millis(GRACE_MS) + SLACK);
    tally.trials += 1;
    let mut problems = Vec::new();
    match sent {
        Some(sent) => {
            tally.signalled += 1;
            let took = out.exited_at.saturating_duration_since(sent);
            tally.max_signal_to_exit = tally.max_signal_to_exit.max(took);
            if took > Duration::from_millis(GRACE_MS) {
                tally.over_grace += 1;
                problems.push(format!(
                    "exit took {took:?} after SIGTERM (grace {GRACE_MS} ms)"
                ));
            }
        }
        None => tally.finished_before_signal += 1,
    }
    if out.status.code() != Some(shutdown_runtime::exit::EXIT_CLEAN) {
        problems.push(format!("exit status {:?}, expected 0", out.status));
    }
    match ReportLine::from_stdout(&out.stdout) {
        Ok(report) if report.is_clean() => {}
        Ok(report) => problems.push(format!("drain report not clean: {report:?}")),
        Err(e) => problems.push(e.to_string()),
    }
    let check = read_ledger(&ledger).check(UNITS);
    if !check.half_done.is_empty() {
        tally.half_done += check.half_done.len();
        problems.push(format!(
            "half-done units after SIGTERM: {:?}",
            check.half_done
        ));
    }
    if !check.is_exactly_once() {
        problems.push(format!("ledger not exactly-once after SIGTERM: {check:?}"));
    }
    // Restart without a signal: the rest of the queue is done, nothing twice.
    let rest = Proc::spawn(&worker, &args).finish(Duration::from_secs(30));
    if rest.status.code() != Some(0) {
        problems.push(format!("restart failed: {}", rest.describe()));
    }
    let check = read_ledger(&ledger).check(UNITS);
    if !check.is_complete() {
        problems.push(format!("ledger incomplete after restart: {check:?}"));
    }
    if !problems.is_empty() {
        tally.failures.push(format!(
            "trial {index}: {}\n{}\nledger:\n{}",
            problems.join("; "),
            out.describe(),
            std::fs::read_to_string(&ledger).unwrap_or_default()
        ));
    }
}

fn run_trials(count: usize) {
    let mut rng = Rng::from_env();
    let mut tally = Tally::default();
    for index in 0..count {
        trial(index, &mut rng, &mut tally);
    }
    eprintln!(
        "sigterm trials: {} run, {} signalled mid-run, {} finished before the signal, \
         {} half-done units, {} exits over grace, max signal-to-exit {:?}, {} failed",
        tally.trials,
        tally.signalled,
        tally.finished_before_signal,
        tally.half_done,
        tally.over_grace,
        tally.max_signal_to_exit,
        tally.failures.len()
    );
    assert_no_failures(&tally.failures, tally.trials);
    assert!(tally.signalled > 0, "no trial received its signal mid-run");
}

#[test]
fn sigterm_at_random_moments_leaves_nothing_half_done() {
    run_trials(10);
}

#[test]
#[ignore = "long: 1,000 trials; run with `--release -- --ignored` (E2E_SIGTERM_TRIALS=N)"]
fn sigterm_at_random_moments_long() {
    run_trials(count_from_env("E2E_SIGTERM_TRIALS", 1000));
}
