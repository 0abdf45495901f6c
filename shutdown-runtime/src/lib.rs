//! Graceful shutdown for tokio services: a lock-free checkpoint, tracked spawns, a budgeted
//! drain that names what it had to abort, and SIGTERM/SIGINT handling with escalation.
//!
//! A deploy sends SIGTERM, then SIGKILL after a grace period. With this crate the first
//! signal only *requests* shutdown; loops stop claiming new work at a cheap checkpoint
//! ([`shutdown_requested`], one atomic load); tracked tasks ([`spawn`] & co.) drain within
//! nested [`Budgets`]; what is left is aborted and named in a [`DrainReport`]; the process
//! exits with a code that tells a clean drain from a forced one ([`exit`]).
//!
//! # Examples
//!
//! ```
//! use std::time::Duration;
//! use shutdown_runtime::{Budgets, run, shutdown_requested, spawn};
//!
//! # async fn demo() {
//! let outcome = run(Budgets::from_grace(Duration::from_secs(3)), async {
//!     let worker = spawn(async {
//!         let mut units = 0;
//!         while !shutdown_requested() {
//!             units += 1; // claim and finish one unit
//!             tokio::task::yield_now().await;
//!             if units == 100 { shutdown_runtime::request_shutdown(); }
//!         }
//!         units
//!     });
//!     assert_eq!(worker.await.unwrap(), 100);
//! })
//! .await;
//! assert_eq!(outcome.exit_code(), shutdown_runtime::exit::EXIT_CLEAN);
//! # }
//! # tokio::runtime::Runtime::new().unwrap().block_on(demo());
//! ```
//!
//! # Features
//!
//! * `macros`: re-exports `#[drainable]` and `#[shutdown_runtime::main]` from
//!   `shutdown-macros`;
//! * `metrics`: emits the metrics listed in [`observe`] through the `metrics` facade;
//! * `hyper`: [`server`], HTTP/1.1 + HTTP/2 servers that drain by construction (hyper-util);
//! * `axum`: `server::axum` (serve a `Router`, a `/readyz` handler);
//! * `tonic`: `server::tonic` (serve tonic `Routes`, gRPC).

#![deny(clippy::undocumented_unsafe_blocks)]

mod budgets;
mod clock;
pub mod drain;
mod early_signals;
pub mod exit;
mod inner;
#[cfg(all(test, shutdown_loom))]
mod loom_model;
mod names;
pub mod observe;
mod owner;
pub mod phase;
mod reason;
mod registry;
mod report;
mod run;
mod scope;
#[cfg(feature = "hyper")]
pub mod server;
pub mod signals;
mod sites;
mod slots;
mod stops;
mod sync;
mod tally;
mod tracked;
pub mod unit;
mod wait;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

use std::borrow::Cow;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::time::Duration;

pub use budgets::{BudgetError, Budgets};
pub use early_signals::EarlySignals;
pub use observe::{record_retry, retry_count};
pub use reason::ShutdownReason;
pub use report::{DrainReport, PanicInfo, TaskInfo};
pub use run::{MainResult, MainStatus, Outcome, RunConfig, run};
pub use scope::Shutdown;
pub use stops::{LoopSite, LoopStop};
pub use wait::WaitForShutdown;

#[cfg(feature = "macros")]
pub use shutdown_macros::*;

/// Requests shutdown of the global scope (reason `Manual`). Idempotent.
///
/// ```
/// # // the global scope is process-wide: use an isolated scope in real tests
/// shutdown_runtime::request_shutdown();
/// assert!(shutdown_runtime::shutdown_requested());
/// ```
pub fn request_shutdown() {
    Shutdown::global().request();
}

/// The checkpoint of the global scope: one `Acquire` atomic load of a static — no lock, no
/// allocation, no indirection.
///
/// ```
/// let mut claimed = 0;
/// while !shutdown_runtime::shutdown_requested() && claimed < 3 {
///     claimed += 1;
/// }
/// assert_eq!(claimed, 3);
/// ```
#[inline(always)]
pub fn shutdown_requested() -> bool {
    // Acquire: pairs with the SeqCst store in `Shutdown::request_with`.
    scope::GLOBAL_REQUESTED.load(Ordering::Acquire)
}

/// A future that resolves once the global scope's shutdown is requested.
///
/// ```
/// # async fn demo() {
/// let w = shutdown_runtime::wait_for_shutdown();
/// shutdown_runtime::request_shutdown();
/// w.await;
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
pub fn wait_for_shutdown() -> WaitForShutdown {
    Shutdown::global().wait()
}

/// Tracked `tokio::spawn` on the global scope (see [`Shutdown::spawn`]).
///
/// ```
/// # async fn demo() {
/// assert_eq!(shutdown_runtime::spawn(async { 1 }).await.unwrap(), 1);
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[track_caller]
pub fn spawn<F>(fut: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    Shutdown::global().spawn(fut)
}

/// Tracked named spawn on the global scope (see [`Shutdown::spawn_named`]).
///
/// ```
/// # async fn demo() {
/// assert_eq!(shutdown_runtime::spawn_named("job", async { 2 }).await.unwrap(), 2);
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[track_caller]
pub fn spawn_named<F>(
    name: impl Into<Cow<'static, str>>,
    fut: F,
) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    Shutdown::global().spawn_named(name, fut)
}

/// Tracked `spawn_blocking` on the global scope (see [`Shutdown::spawn_blocking`]).
///
/// ```
/// # async fn demo() {
/// assert_eq!(shutdown_runtime::spawn_blocking(|| 3).await.unwrap(), 3);
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> tokio::task::JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    Shutdown::global().spawn_blocking(f)
}

/// Tracked `spawn_local` on the global scope (see [`Shutdown::spawn_local`]).
///
/// ```
/// # async fn demo() {
/// let local = tokio::task::LocalSet::new();
/// let v = local.run_until(async { shutdown_runtime::spawn_local(async { 4 }).await }).await;
/// assert_eq!(v.unwrap(), 4);
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[track_caller]
pub fn spawn_local<F>(fut: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    Shutdown::global().spawn_local(fut)
}

/// Tracked `std::thread::spawn` on the global scope (see [`Shutdown::spawn_thread`]).
///
/// ```
/// assert_eq!(shutdown_runtime::spawn_thread(|| 5).join().unwrap(), 5);
/// ```
#[track_caller]
pub fn spawn_thread<F, T>(f: F) -> std::thread::JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    Shutdown::global().spawn_thread(f)
}

/// Tracked spawn onto the runtime behind `handle`, on the global scope (see
/// [`Shutdown::spawn_on`]).
///
/// ```
/// let rt = tokio::runtime::Runtime::new().unwrap();
/// let h = shutdown_runtime::spawn_on(rt.handle(), async { 8 });
/// assert_eq!(rt.block_on(h).unwrap(), 8);
/// ```
#[track_caller]
pub fn spawn_on<F>(handle: &tokio::runtime::Handle, fut: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    Shutdown::global().spawn_on(handle, fut)
}

/// Tracked `spawn_blocking` on the runtime behind `handle`, on the global scope (see
/// [`Shutdown::spawn_blocking_on`]).
///
/// ```
/// let rt = tokio::runtime::Runtime::new().unwrap();
/// let h = shutdown_runtime::spawn_blocking_on(rt.handle(), || 9);
/// assert_eq!(rt.block_on(h).unwrap(), 9);
/// ```
#[track_caller]
pub fn spawn_blocking_on<F, R>(handle: &tokio::runtime::Handle, f: F) -> tokio::task::JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    Shutdown::global().spawn_blocking_on(handle, f)
}

/// Tracked thread from a [`std::thread::Builder`], on the global scope (see
/// [`Shutdown::spawn_thread_with`]).
///
/// # Errors
///
/// If the OS cannot create the thread.
///
/// ```
/// let t = shutdown_runtime::spawn_thread_with(std::thread::Builder::new().name("io".into()), || 10)?;
/// assert_eq!(t.join().unwrap(), 10);
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn spawn_thread_with<F, T>(
    builder: std::thread::Builder,
    f: F,
) -> std::io::Result<std::thread::JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    Shutdown::global().spawn_thread_with(builder, f)
}

/// Drains the global scope (see [`Shutdown::drain`]).
///
/// ```
/// # async fn demo() {
/// let report = shutdown_runtime::drain(std::time::Duration::from_secs(1)).await;
/// assert!(report.is_clean());
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
pub async fn drain(budget: Duration) -> DrainReport {
    Shutdown::global().drain(budget).await
}
