//! The first SIGTERM requests shutdown of the global scope with reason `Signal(15)`.

use std::time::Duration;

use shutdown_runtime::{Shutdown, ShutdownReason};

#[tokio::test]
async fn first_sigterm_requests_shutdown() {
    shutdown_runtime::signals::install(shutdown_runtime::signals::SecondSignal::Reraise).unwrap();
    let waiter = shutdown_runtime::wait_for_shutdown();
    assert!(!shutdown_runtime::shutdown_requested());
    // SAFETY: sends SIGTERM to this process, whose handler was installed above.
    unsafe { libc::kill(libc::getpid(), libc::SIGTERM) };
    tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .unwrap();
    assert!(shutdown_runtime::shutdown_requested());
    assert_eq!(
        Shutdown::global().reason(),
        Some(ShutdownReason::Signal(libc::SIGTERM))
    );
}
