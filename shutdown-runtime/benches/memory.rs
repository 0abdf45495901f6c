//! Memory per parked task: raw `tokio::spawn` vs `Shutdown::spawn` (and `spawn_named` with a
//! `&'static str` name and with a name built at run time), 1,000,000 tasks, counted with a
//! counting global allocator (bytes requested and still live).
//!
//! Run: `cargo bench -p shutdown-runtime --bench memory`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};

use shutdown_runtime::Shutdown;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator; only adds bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new as isize - l.size() as isize, Ordering::Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

#[derive(Clone, Copy, PartialEq)]
enum Parked {
    /// `std::future::pending()`: the smallest possible parked task.
    Pending,
    /// waits on a shared `tokio::sync::Notify` (a realistic idle task).
    Notify,
    /// `pending()` spawned with `spawn_named("worker", ..)`: a `&'static str` name.
    NamedStatic,
    /// `pending()` spawned with `spawn_named(format!("conn {i}"), ..)`: a name built at run time.
    NamedOwned,
}

/// Bytes per task still allocated after spawning `n` parked tasks and letting each be polled.
fn per_task(n: usize, tracked: bool, parked: Parked) -> f64 {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let scope = Shutdown::new();
    let notify = Arc::new(tokio::sync::Notify::new());
    // settle the runtime, then take the baseline
    rt.block_on(async { tokio::task::yield_now().await });
    let before = LIVE.load(Ordering::SeqCst);
    rt.block_on(async {
        for i in 0..n {
            match (tracked, parked) {
                (false, Parked::Pending | Parked::NamedStatic | Parked::NamedOwned) => {
                    drop(tokio::spawn(std::future::pending::<()>()))
                }
                (true, Parked::Pending) => drop(scope.spawn(std::future::pending::<()>())),
                (true, Parked::NamedStatic) => {
                    drop(scope.spawn_named("worker", std::future::pending::<()>()))
                }
                (true, Parked::NamedOwned) => {
                    drop(scope.spawn_named(format!("conn {i}"), std::future::pending::<()>()))
                }
                (false, Parked::Notify) => {
                    let nt = notify.clone();
                    drop(tokio::spawn(async move { nt.notified().await }))
                }
                (true, Parked::Notify) => {
                    let nt = notify.clone();
                    drop(scope.spawn(async move { nt.notified().await }))
                }
            }
        }
    });
    // let every task be polled once (so it is parked, its waiter registered)
    let m = rt.metrics();
    for _ in 0..200 {
        std::thread::sleep(std::time::Duration::from_millis(5));
        if m.num_alive_tasks() == n && m.global_queue_depth() == 0 {
            break;
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(50));
    let after = LIVE.load(Ordering::SeqCst);
    assert_eq!(m.num_alive_tasks(), n);
    drop(rt); // drops every task
    (after - before) as f64 / n as f64
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let n = if full { 1_000_000 } else { 10_000 };
    println!("## memory per parked task, {n} tasks (counting global allocator, live bytes)");
    for parked in [
        Parked::Pending,
        Parked::Notify,
        Parked::NamedStatic,
        Parked::NamedOwned,
    ] {
        let raw = per_task(n, false, parked);
        let ours = per_task(n, true, parked);
        let label = match parked {
            Parked::Pending => "std::future::pending()",
            Parked::Notify => "Notify::notified().await",
            Parked::NamedStatic => "pending(), name \"worker\"",
            Parked::NamedOwned => "pending(), name format!()",
        };
        println!(
            "{label:26} raw tokio::spawn {raw:7.1} B/task   Shutdown::spawn {ours:7.1} B/task   overhead {:+.1} B/task",
            ours - raw
        );
    }
}
