//! Process exit codes of the life cycle ([`run`](crate::run) and `#[shutdown_runtime::main]`).
//!
//! | code | constant | meaning |
//! |---|---|---|
//! | 0 | [`EXIT_CLEAN`] | main returned `Ok`/`()` and every tracked task drained in time |
//! | 1 | [`EXIT_FAILURE`] | main returned an error or panicked |
//! | 3 | [`EXIT_ABORTED`] | the drain had to abort tasks, or the coordinator overran its budget |
//! | 4 | [`EXIT_SECOND_SIGNAL`] | a second signal arrived under [`SecondSignal::AbortAll`](crate::signals::SecondSignal::AbortAll) |
//! | 130 / 143 | — | a second SIGINT / SIGTERM under [`SecondSignal::Reraise`](crate::signals::SecondSignal::Reraise): the process dies *by the signal* (the shell shows 128 + signo) |

/// Clean exit: the main future finished successfully and every tracked task drained.
///
/// ```
/// assert_eq!(shutdown_runtime::exit::EXIT_CLEAN, 0);
/// ```
pub const EXIT_CLEAN: i32 = 0;

/// The main future returned an error or panicked.
///
/// ```
/// assert_eq!(shutdown_runtime::exit::EXIT_FAILURE, 1);
/// ```
pub const EXIT_FAILURE: i32 = 1;

/// The drain hit its budget and aborted tasks, or the coordinator overran its budget.
///
/// ```
/// assert_eq!(shutdown_runtime::exit::EXIT_ABORTED, 3);
/// ```
pub const EXIT_ABORTED: i32 = 3;

/// A second signal arrived and the policy was [`AbortAll`](crate::signals::SecondSignal::AbortAll).
///
/// ```
/// assert_eq!(shutdown_runtime::exit::EXIT_SECOND_SIGNAL, 4);
/// ```
pub const EXIT_SECOND_SIGNAL: i32 = 4;
