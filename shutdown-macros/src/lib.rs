//! `#[drainable]` and `#[shutdown_runtime::main]`: checkpoints in the loops that claim units of
//! work (a claimed unit is never cut), tracked and named spawns, signals installed before the
//! first poll, and the drain report printed at exit.
//!
//! Use these through `shutdown_runtime` (feature `macros`): `shutdown_runtime::drainable` and
//! `#[shutdown_runtime::main]`. The expansions call `shutdown_runtime::__private`. The
//! rewrite rules are in the README's `macros` section and in [`macro@drainable`].
#![forbid(unsafe_code)]

mod expand;

use proc_macro::TokenStream;

/// Adds a shutdown checkpoint to the loops of a function that claim units of work, and routes
/// its spawns into the registry of tracked tasks.
///
/// On a `fn` or `async fn` (free, or a method in an `impl`, generic or not):
/// - a loop that **claims units** — an outermost `loop`, `while`, `while let` or `for` of the
///   body, of a closure or async block in it (not written inside a loop), or of a closure /
///   async block passed to a `spawn*` call (its own task) — checks the scope before it claims
///   its next unit (before a `while` condition or `while let` scrutinee is evaluated, before a
///   `for` loop advances its iterator) and leaves *that* loop when shutdown was requested; code
///   after the loop runs, and the stop is listed in the drain report (`file:line`, count);
/// - the loop runs inside a **claimed unit** (`shutdown_runtime::unit`): a `#[drainable]`
///   function called from one of its iterations, or from a request being served, runs its own
///   loops to their end — a claimed unit is never cut;
/// - a loop **nested** in a claiming loop's body (directly, or in a closure or async block
///   written there) has no checkpoint and runs to its end, unless `#[drainable(partial)]`
///   opts it in (it claims units itself and the code after it records a partial result);
/// - in a function returning a value (anything but `()` or `Result<(), E>`) a claiming loop
///   without `partial` or `skip` still gets its checkpoint, and the build shows a deprecation
///   warning at the loop: the function could return a shorter result that looks complete;
/// - `tokio::spawn`, `tokio::task::{spawn, spawn_blocking, spawn_local}` and
///   `std::thread::spawn` calls become tracked spawns recorded at the caller's line; a task
///   spawn is named after what it runs (`serve_connection(conn)` → `serve_connection`), else
///   after the enclosing function.
///
/// Options: `scope = <expr>` (a `Shutdown`, `&Shutdown` or `Arc<Shutdown>`, evaluated once at
/// function entry; default: the global scope) and `crate = <path>` (a renamed
/// `shutdown_runtime`). Markers inside the body: `#[drainable(skip)]` on a loop (no
/// checkpoint), `#[drainable(partial)]` on a loop (a nested loop that stops too; a
/// value-returning function's loop whose partial result is intended),
/// `#[drainable(on_shutdown = <expr>)]` on a `loop` whose value is used (break with this value
/// at the checkpoint), `#[drainable(idle)]` on a `while`/`while let` whose condition ends in
/// `.await`, or on a `let`/expression statement ending in `.await` inside a checkpointed loop:
/// that wait (which must be cancel-safe) ends as soon as shutdown is requested.
///
/// ```
/// use shutdown_runtime::{Shutdown, drainable};
///
/// #[drainable(scope = scope)]
/// async fn consume(scope: &Shutdown, mut rx: tokio::sync::mpsc::Receiver<u64>) -> u64 {
///     let mut done = 0;
///     #[drainable(partial)] // returning how much was done is intended
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
/// At exit the report is printed — by default one human line on stderr, so a service with no
/// logging set up sees it (drained, aborted tasks with names and locations, loops stopped
/// early, signal-to-exit time).
///
/// Options: `grace = "30s"` (default 30 s; units `ms`, `s`, `m`, `h`, e.g. `"1m30s"`),
/// `report = "stderr" | "json" | "tracing" | "none"` (default `"stderr"`; `"json"` prints one
/// JSON object on stdout), `second_signal = "reraise" | "abort_all" | "ignore"` (default
/// `"reraise"`: the report is printed, then the process dies by the signal, status 130/143;
/// `"abort_all"`: every task aborted, report, exit 4), `flavor = "multi_thread" |
/// "current_thread"`, `worker_threads = N`, `crate = <path>`.
///
/// ```no_run
/// #[shutdown_runtime::main(grace = "30s", report = "stderr", second_signal = "reraise")]
/// async fn main() -> Result<(), std::io::Error> {
///     Ok(())
/// }
/// ```
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::main(args.into(), item.into()).into()
}
