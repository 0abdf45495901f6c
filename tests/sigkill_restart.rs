//! SIGKILL at random moments, then restart, until the queue is done: every unit is committed
//! exactly once (a `begin` cut off by the kill is redone, never committed twice).
//!
//! Each trial uses a fresh ledger, kills the worker 1–3 times at random moments (start-up
//! included: SIGKILL cannot be handled, so no moment is special), then lets a last run finish.
//! CI runs 5 trials; the long run (200 by default, `E2E_SIGKILL_TRIALS` to change) is
//! `cargo test --release --test sigkill_restart -- --ignored --nocapture`.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use common::{Proc, Rng, assert_no_failures, count_from_env, example, read_ledger, worker_args};
use shutdown_discipline::report_line::ReportLine;

const UNITS: u64 = 30;
const WORKERS: u64 = 3;
const UNIT_MS: u64 = 10;
const GRACE_MS: u64 = 2000;
const MAX_DELAY: Duration = Duration::from_millis(150);

#[derive(Debug, Default)]
struct Tally {
    trials: usize,
    kills: usize,
    runs_finished_before_kill: usize,
    redone_units: usize,
    failures: Vec<String>,
}

fn trial(index: usize, rng: &mut Rng, tally: &mut Tally) {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = dir.path().join("ledger");
    let worker = example("worker");
    let args = worker_args(&ledger, UNITS, WORKERS, UNIT_MS, GRACE_MS);
    let kills_wanted = 1 + (rng.next_u64() % 3) as usize;
    let mut kills = 0;
    let mut problems = Vec::new();
    tally.trials += 1;
    while kills < kills_wanted {
        let mut proc = Proc::spawn(&worker, &args);
        std::thread::sleep(rng.duration_up_to(MAX_DELAY));
        proc.signal(libc::SIGKILL);
        let out = proc.finish(Duration::from_secs(30));
        match (out.status.signal(), out.status.code()) {
            (Some(libc::SIGKILL), _) => kills += 1,
            // The run finished before the kill (or the kill reached a process already inside
            // `exit`): it must have finished cleanly.
            (None, Some(0)) => tally.runs_finished_before_kill += 1,
            _ => problems.push(format!(
                "expected death by SIGKILL or a clean exit: {}",
                out.describe()
            )),
        }
        let check = read_ledger(&ledger).check(UNITS);
        if !check.is_exactly_once() {
            problems.push(format!("after kill {kills}: not exactly-once: {check:?}"));
        }
        if check.is_complete() || !problems.is_empty() {
            break; // nothing left to interrupt, or already failed
        }
    }
    tally.kills += kills;
    let last = Proc::spawn(&worker, &args).finish(Duration::from_secs(30));
    if last.status.code() != Some(0) {
        problems.push(format!("final run failed: {}", last.describe()));
    }
    if let Err(e) = ReportLine::from_stdout(&last.stdout) {
        problems.push(format!("final run: {e}"));
    }
    let check = read_ledger(&ledger).check(UNITS);
    tally.redone_units += check.redone.len();
    if !check.is_complete() {
        problems.push(format!(
            "final ledger: not every unit exactly once: {check:?}"
        ));
    }
    if !problems.is_empty() {
        tally.failures.push(format!(
            "trial {index}: {}\nledger:\n{}",
            problems.join("\n"),
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
        "sigkill trials: {} run, {} SIGKILLs + restarts, {} runs finished before their kill, \
         {} units redone after a kill, {} failed",
        tally.trials,
        tally.kills,
        tally.runs_finished_before_kill,
        tally.redone_units,
        tally.failures.len()
    );
    assert_no_failures(&tally.failures, tally.trials);
    assert!(tally.kills > 0, "no run was killed");
}

#[test]
fn sigkill_and_restart_commits_every_unit_exactly_once() {
    run_trials(5);
}

#[test]
#[ignore = "long: 200 trials; run with `--release -- --ignored` (E2E_SIGKILL_TRIALS=N)"]
fn sigkill_and_restart_long() {
    run_trials(count_from_env("E2E_SIGKILL_TRIALS", 200));
}
