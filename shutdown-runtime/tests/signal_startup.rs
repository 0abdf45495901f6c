//! A SIGTERM that arrives while the process is still starting (before the runtime exists and
//! before main's first poll) must make it exit cleanly after its initialisation, not kill it
//! with the default disposition, hang, or crash.

mod common;

use std::time::Duration;

use common::{child_mode, say, start};

fn child() -> ! {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    // Printed by the runtime's threads as they start: while `main_entry` builds the runtime
    // (signals blocked, handlers not yet installed) or just after.
    builder
        .worker_threads(2)
        .on_thread_start(|| say("starting"));
    shutdown_runtime::__private::main_entry(Duration::from_secs(5), builder, async {
        // initialisation that does not look at the flag
        tokio::time::sleep(Duration::from_millis(300)).await;
        say("initialised");
        shutdown_runtime::wait_for_shutdown().await;
        say(&format!(
            "reason {:?}",
            shutdown_runtime::Shutdown::global().reason()
        ));
        Ok::<(), String>(())
    })
}

fn main() {
    if child_mode().is_some() {
        child();
    }
    let mut p = start("startup");
    p.expect_line("starting");
    p.signal(libc::SIGTERM); // the runtime is being built right now
    let (status, lines, elapsed) = p.wait();
    assert_eq!(status.code(), Some(0), "{status:?} {lines:?}");
    assert!(lines.iter().any(|l| l == "initialised"), "{lines:?}");
    assert!(
        lines.iter().any(|l| l == "reason Some(Signal(15))"),
        "{lines:?}"
    );
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    println!("signal during start-up: clean exit 0 in {elapsed:?}");
}
