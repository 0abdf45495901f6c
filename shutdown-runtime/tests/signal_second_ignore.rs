//! Second signal under policy `Ignore`: the drain goes on and the process exits cleanly (0).

mod common;

use std::time::Duration;

use common::{child_mode, say, start};
use shutdown_runtime::signals::SecondSignal;
use shutdown_runtime::{Budgets, RunConfig};

fn child() -> ! {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let outcome = rt.block_on(
        RunConfig::new(Budgets::from_grace(Duration::from_secs(30)))
            .second_signal(SecondSignal::Ignore)
            .run(async {
                say("ready");
                shutdown_runtime::wait_for_shutdown().await;
                say("requested");
                // finishing the current unit takes a while; the second signal arrives meanwhile
                tokio::time::sleep(Duration::from_millis(500)).await;
                say("finished");
            }),
    );
    std::process::exit(outcome.exit_code())
}

fn main() {
    if child_mode().is_some() {
        child();
    }
    let mut p = start("ignore");
    p.expect_line("ready");
    p.signal(libc::SIGTERM);
    p.expect_line("requested");
    p.signal(libc::SIGTERM);
    let (status, lines, _) = p.wait();
    assert_eq!(status.code(), Some(0), "{status:?} {lines:?}");
    assert!(lines.iter().any(|l| l == "finished"), "{lines:?}");
    println!("second signal with Ignore: drained and exited 0");
}
