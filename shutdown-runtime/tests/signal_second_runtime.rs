//! Signal installation follows the runtime: a runtime that calls `signals::install` after the
//! first installing runtime was shut down — or while that runtime still exists but is no
//! longer driven — gets a working listener (a SIGTERM requests shutdown), instead of an `Ok`
//! with no listener that swallows the signal. One process for this file: dispositions are
//! process-wide.

use std::time::Duration;

use shutdown_runtime::signals::{self, SecondSignal};
use shutdown_runtime::{Shutdown, ShutdownReason};

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn the_runtime_that_installs_last_gets_a_working_listener() {
    // Outside any runtime: a clear error, not a panic and not a silent Ok.
    let err = signals::install(SecondSignal::Ignore).unwrap_err();
    assert!(err.to_string().contains("inside a tokio runtime"), "{err}");

    // 1. A first runtime installs, then is shut down: its listener is gone with it.
    let first = current_thread();
    first.block_on(async { signals::install(SecondSignal::Ignore).unwrap() });
    drop(first);

    // 2. A second runtime installs and stays alive without being driven (a helper runtime).
    let idle = current_thread();
    idle.block_on(async { signals::install(SecondSignal::Ignore).unwrap() });

    // 3. The runtime that runs the service installs last and must see the signal.
    let main = tokio::runtime::Runtime::new().unwrap();
    main.block_on(async {
        signals::install(SecondSignal::Ignore).unwrap();
        let waiter = shutdown_runtime::wait_for_shutdown();
        assert!(!shutdown_runtime::shutdown_requested());
        // SAFETY: sends SIGTERM to this process, whose handler was installed above.
        unsafe { libc::kill(libc::getpid(), libc::SIGTERM) };
        tokio::time::timeout(Duration::from_secs(10), waiter)
            .await
            .expect("the SIGTERM reached the listener of the running runtime");
    });
    assert_eq!(
        Shutdown::global().reason(),
        Some(ShutdownReason::Signal(libc::SIGTERM))
    );
    drop(idle);
}
