//! Second signal under policy `AbortAll`: every tracked task is aborted at once, the life
//! cycle still reports (the stuck task is named) and the exit code is `EXIT_SECOND_SIGNAL`.

mod common;

use std::time::Duration;

use common::{child_mode, say, start};
use shutdown_runtime::signals::SecondSignal;
use shutdown_runtime::{Budgets, RunConfig};

fn child() -> ! {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let outcome = rt.block_on(
        RunConfig::new(Budgets::from_grace(Duration::from_secs(30)))
            .second_signal(SecondSignal::AbortAll)
            .run(async {
                shutdown_runtime::spawn_named("stuck", std::future::pending::<()>());
                say("ready");
                shutdown_runtime::wait_for_shutdown().await;
                say("requested");
                tokio::time::sleep(Duration::from_secs(60)).await;
            }),
    );
    say(&outcome.report.to_json_line());
    std::process::exit(outcome.exit_code())
}

fn main() {
    if child_mode().is_some() {
        child();
    }
    let mut p = start("abort-all");
    p.expect_line("ready");
    p.signal(libc::SIGTERM);
    p.expect_line("requested");
    p.signal(libc::SIGINT);
    let (status, lines, elapsed) = p.wait();
    assert_eq!(
        status.code(),
        Some(shutdown_runtime::exit::EXIT_SECOND_SIGNAL),
        "{status:?} {lines:?}"
    );
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    let report: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(report["aborted"][0]["name"], "stuck", "{report}");
    println!("second signal with AbortAll: exit 4 in {elapsed:?}, report {report}");
}
