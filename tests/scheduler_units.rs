//! The scheduler PR's behaviour through `#[drainable]`, end to end: the coordinator hands each
//! job to a detached child; each child's card loop is outermost in its own task, so on SIGTERM
//! it stops between cards (never inside one) and records `done (partial)`. The stops are in
//! the drain report with the loop's `file:line` and a count (JSON on stdout), and the human
//! line on stderr says the same with no logging set up.

mod common;

use std::time::Duration;

use common::{Proc, args, example};

#[test]
fn children_stop_between_cards_and_the_report_lists_the_stopped_loop() {
    let argv = args(&[
        "--grace-ms",
        "3000",
        "--jobs",
        "2",
        "--tick-ms",
        "10",
        "--cards",
        "40",
        "--card-ms",
        "20",
    ]);
    let mut proc = Proc::spawn(&example("scheduler"), &argv);
    proc.wait_stderr("scheduler: ready", Duration::from_secs(20));
    proc.wait_stdout("job 1 started", Duration::from_secs(20));
    proc.signal(libc::SIGTERM).expect("scheduler is running");
    let out = proc.finish(Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(0), "{}", out.describe());
    for id in 0..2 {
        assert!(
            out.stdout.contains(&format!("job {id} done (partial) ")),
            "{}",
            out.describe()
        );
    }
    let last = out.stdout.lines().last().expect("report line");
    let json: serde_json::Value = serde_json::from_str(last).expect("JSON report");
    let stops = json["loops_stopped_early"]
        .as_array()
        .expect("loops listed");
    assert_eq!(stops.len(), 1, "{last}");
    let location = stops[0]["location"].as_str().unwrap();
    assert!(location.starts_with("examples/scheduler.rs:"), "{last}");
    assert_eq!(stops[0]["count"], 2, "{last}");
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with("shutdown: "))
        .expect("the human report line on stderr");
    assert!(
        line.starts_with("shutdown: exit 0 (clean), reason: SIGTERM, signal-to-exit "),
        "{line}"
    );
    assert!(
        line.contains(&format!("loops stopped early 1: {location} x2")),
        "{line}"
    );
}
