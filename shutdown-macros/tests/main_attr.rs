//! `#[shutdown_runtime::main]` and `#[drainable]` on the global scope, end to end: this test
//! binary has no libtest harness; its `main` is the attribute's expansion, so the test passes
//! when the life cycle ends with exit code 0 (a clean drain). A loop that ignored the request
//! would be aborted at the budget (exit code 3) and fail the test.
//!
//! Compiled under `clippy --all-targets -D warnings` in CI: the `main` expansion and the
//! global-scope expansions are clippy-clean.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use shutdown_runtime::drainable;

static TICKS: AtomicU32 = AtomicU32::new(0);

#[drainable]
fn start_ticker() -> tokio::task::JoinHandle<()> {
    tokio::spawn(async {
        loop {
            TICKS.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
}

#[drainable]
async fn consume(mut rx: tokio::sync::mpsc::Receiver<u32>) -> u32 {
    let mut sum = 0;
    #[drainable(idle)]
    while let Some(job) = rx.recv().await {
        sum += job;
    }
    sum
}

#[drainable]
fn count_until_shutdown(limit: u32) -> u32 {
    let mut n = 0;
    #[drainable(partial)] // a count of what was done is the intended result
    for _ in 0..limit {
        n += 1;
    }
    n
}

#[shutdown_runtime::main(grace = "5s", flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), String> {
    assert_eq!(count_until_shutdown(10), 10);
    let ticker = start_ticker();
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let consumer = shutdown_runtime::spawn(consume(rx));
    tx.send(1).await.map_err(|e| e.to_string())?;
    tx.send(2).await.map_err(|e| e.to_string())?;
    while TICKS.load(Ordering::Relaxed) < 3 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    shutdown_runtime::request_shutdown();
    // The idle wait ends although the channel stays open; the ticker leaves its loop.
    let sum = consumer.await.map_err(|e| e.to_string())?;
    assert!(sum <= 3, "{sum}");
    ticker.await.map_err(|e| e.to_string())?;
    assert_eq!(
        count_until_shutdown(10),
        0,
        "no unit is claimed after the request"
    );
    drop(tx);
    println!("main_attr: ok ({} ticks)", TICKS.load(Ordering::Relaxed));
    Ok(())
}
