//! Second signal under the default policy `Reraise`, through `__private::main_entry` (the code
//! path of `#[shutdown_runtime::main]`): the process must die *by the signal* (shell status
//! 143 / 130), although tokio never restores the default disposition (tokio#7905).

mod common;

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use common::{child_mode, say, start};

fn child() -> ! {
    shutdown_runtime::__private::main_entry(
        Duration::from_secs(30),
        tokio::runtime::Builder::new_multi_thread(),
        async {
            say("ready");
            shutdown_runtime::wait_for_shutdown().await;
            say("requested");
            // a coordinator that does not finish: only the second signal ends it
            tokio::time::sleep(Duration::from_secs(60)).await;
        },
    )
}

fn main() {
    if child_mode().is_some() {
        child();
    }
    for signo in [libc::SIGTERM, libc::SIGINT] {
        let mut p = start("reraise");
        p.expect_line("ready");
        p.signal(signo);
        p.expect_line("requested");
        p.signal(signo);
        let (status, _, elapsed) = p.wait();
        assert_eq!(status.signal(), Some(signo), "status {status:?}");
        assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
        println!(
            "second signal {signo}: child died by signal {signo} (shell {}) in {elapsed:?}",
            128 + signo
        );
    }
}
