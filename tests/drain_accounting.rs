//! In-process check of the drain report's accounting through `run` (no signals: the request is
//! manual, `install_signals(false)`): a child that stops at its checkpoint after the shutdown
//! request is *drained* (DESIGN.md: "a task that ends by observing the flag is drained, not
//! cancelled"), even if it stops before `run` gets to start the drain.

use std::time::Duration;

use shutdown_runtime::{Budgets, RunConfig};

/// Regression test: `drained` once counted only tasks that ended after `Shutdown::drain` had
/// started, so a child that observed the flag while the coordinator was still busy (here: 100
/// ms of synchronous clean-up, or a panic hook printing a backtrace while holding the stderr
/// lock) appeared nowhere in the report (`drained: 0, aborted: []`).
#[test]
fn a_child_stopping_before_the_drain_starts_is_counted_as_drained() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let outcome = runtime.block_on(
        RunConfig::new(Budgets::from_grace(Duration::from_secs(3)))
            .install_signals(false)
            .run(async {
                let _child = shutdown_runtime::spawn_named("child", async {
                    shutdown_runtime::wait_for_shutdown().await;
                });
                shutdown_runtime::request_shutdown();
                // Synchronous clean-up in the coordinator after the request.
                std::thread::sleep(Duration::from_millis(100));
            }),
    );
    assert!(outcome.report.aborted.is_empty(), "{:?}", outcome.report);
    assert_eq!(outcome.report.drained, 1, "{:?}", outcome.report);
}
