//! `#[drainable]` and `#[shutdown_runtime::main]`: checkpoints in every loop, tracked spawns,
//! signals installed before the first poll.
//!
//! Use these through `shutdown_runtime` (feature `macros`): `shutdown_runtime::drainable` and
//! `#[shutdown_runtime::main]`. The expansions call `shutdown_runtime::__private`. The
//! rewrite rules are in the README's `macros` section and in [`macro@drainable`].
#![forbid(unsafe_code)]

mod expand;

use proc_macro::TokenStream;

/// Adds a shutdown checkpoint to every loop of a function and routes its spawns into the
/// registry of tracked tasks.
///
/// On a `fn` or `async fn` (free, or a method in an `impl`, generic or not):
/// - every `loop`, `while`, `while let` and `for` in the body, including inside closures and
///   async blocks but never inside nested items, checks the scope before it claims its next
///   unit (before a `while` condition or `while let` scrutinee is evaluated, before a `for`
///   loop advances its iterator) and leaves *that* loop when shutdown was requested; code after
///   the loop runs;
/// - `tokio::spawn`, `tokio::task::{spawn, spawn_blocking, spawn_local}` and
///   `std::thread::spawn` calls become tracked spawns recorded at the caller's line.
///
/// Options: `scope = <expr>` (a `Shutdown`, `&Shutdown` or `Arc<Shutdown>`, evaluated once at
/// function entry; default: the global scope) and `crate = <path>` (a renamed
/// `shutdown_runtime`). Markers inside the body: `#[drainable(skip)]` on a loop (no
/// checkpoint), `#[drainable(on_shutdown = <expr>)]` on a `loop` whose value is used (break
/// with this value at the checkpoint), `#[drainable(idle)]` on a `while`/`while let` whose
/// condition ends in `.await`, or on a `let`/expression statement ending in `.await` inside a
/// loop: that wait (which must be cancel-safe) ends as soon as shutdown is requested.
///
/// ```
/// use shutdown_runtime::{Shutdown, drainable};
///
/// #[drainable(scope = scope)]
/// async fn consume(scope: &Shutdown, mut rx: tokio::sync::mpsc::Receiver<u64>) -> u64 {
///     let mut done = 0;
///     #[drainable(idle)] // `recv` is cancel-safe: waiting for the next job ends on shutdown
///     while let Some(job) = rx.recv().await {
///         done += job; // a claimed job is always finished
///         if job == 2 {
///             scope.request();
///         }
///     }
///     done // runs after shutdown too: record the partial result
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let (tx, rx) = tokio::sync::mpsc::channel(8);
/// for job in 1..=5 {
///     tx.send(job).await.unwrap();
/// }
/// assert_eq!(consume(&Shutdown::new(), rx).await, 1 + 2); // jobs 3..=5 stay queued
/// # });
/// ```
#[proc_macro_attribute]
pub fn drainable(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::drainable(args.into(), item.into()).into()
}

/// Turns `async fn main()` into a program that installs SIGTERM/SIGINT handlers before the
/// body's first poll, runs the shutdown life cycle with `Budgets::from_grace(grace)` and exits
/// with its code.
///
/// Options: `grace = "30s"` (default 30 s; units `ms`, `s`, `m`, `h`, e.g. `"1m30s"`),
/// `flavor = "multi_thread" | "current_thread"`, `worker_threads = N`, `crate = <path>`.
///
/// ```no_run
/// #[shutdown_runtime::main(grace = "30s")]
/// async fn main() -> Result<(), std::io::Error> {
///     Ok(())
/// }
/// ```
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::main(args.into(), item.into()).into()
}
