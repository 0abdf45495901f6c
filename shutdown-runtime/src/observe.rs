//! Observability at exit: the report a finished life cycle prints ([`ReportFormat`]: by
//! default one human line on stderr, so a service without any logging set up still sees what
//! the drain did), the final `tracing` event and (feature `metrics`) the metrics.
//!
//! Metric names (all emitted before exit, also when zero):
//!
//! | name | kind | meaning |
//! |---|---|---|
//! | `shutdown_signal_to_exit_seconds` | histogram | from the shutdown request (signal) to the end of the life cycle |
//! | `shutdown_last_signal_to_exit_seconds` | gauge | the same, last value |
//! | `shutdown_tasks_drained_total` | counter | tracked tasks that ended on their own during the drain |
//! | `shutdown_tasks_aborted_total` | counter | tracked tasks aborted at the budget |
//! | `shutdown_tasks_panicked_total` | counter | tracked tasks that panicked |
//! | `shutdown_retries_total` | counter | idempotent re-runs recorded with [`record_retry`] |

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::run::Outcome;

/// Where [`run`](crate::run) and `#[shutdown_runtime::main]` put the report at exit
/// (`RunConfig::report`, `#[shutdown_runtime::main(report = "..")]`).
///
/// The `tracing` event (`phase = "exit"`) is emitted with every format but `None`.
///
/// ```
/// use shutdown_runtime::observe::ReportFormat;
/// assert_eq!(ReportFormat::default(), ReportFormat::Stderr);
/// assert_eq!("json".parse::<ReportFormat>(), Ok(ReportFormat::Json));
/// assert!("xml".parse::<ReportFormat>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReportFormat {
    /// One human line on stderr ([`Outcome::summary_line`]): seen with no logging set up.
    #[default]
    Stderr,
    /// One JSON object on stdout ([`Outcome::to_json_line`]): the drain report's fields plus
    /// `exit_code`, `reason` and `signal_to_exit_ms`.
    Json,
    /// Only the `tracing` event.
    Tracing,
    /// Nothing at all.
    None,
}

impl std::str::FromStr for ReportFormat {
    type Err = String;

    /// `"stderr"`, `"json"`, `"tracing"` or `"none"`.
    fn from_str(s: &str) -> Result<ReportFormat, String> {
        match s {
            "stderr" => Ok(ReportFormat::Stderr),
            "json" => Ok(ReportFormat::Json),
            "tracing" => Ok(ReportFormat::Tracing),
            "none" => Ok(ReportFormat::None),
            other => Err(format!(
                "unknown report format `{other}`; expected \"stderr\", \"json\", \"tracing\" or \"none\""
            )),
        }
    }
}

/// Name of the request-to-exit histogram (seconds).
pub const SIGNAL_TO_EXIT_SECONDS: &str = "shutdown_signal_to_exit_seconds";
/// Name of the request-to-exit gauge (seconds, last value).
pub const LAST_SIGNAL_TO_EXIT_SECONDS: &str = "shutdown_last_signal_to_exit_seconds";
/// Name of the drained-tasks counter.
pub const TASKS_DRAINED_TOTAL: &str = "shutdown_tasks_drained_total";
/// Name of the aborted-tasks counter.
pub const TASKS_ABORTED_TOTAL: &str = "shutdown_tasks_aborted_total";
/// Name of the panicked-tasks counter.
pub const TASKS_PANICKED_TOTAL: &str = "shutdown_tasks_panicked_total";
/// Name of the retries counter.
pub const RETRIES_TOTAL: &str = "shutdown_retries_total";

static RETRIES: AtomicU64 = AtomicU64::new(0);

/// Counts one idempotent re-run of a unit of work (e.g. a unit found `begin` without
/// `commit` after a restart). With feature `metrics` it increments
/// `shutdown_retries_total`; the count is also readable with [`retry_count`].
///
/// ```
/// shutdown_runtime::record_retry();
/// assert!(shutdown_runtime::retry_count() >= 1);
/// ```
pub fn record_retry() {
    RETRIES.fetch_add(1, Ordering::Relaxed);
    #[cfg(feature = "metrics")]
    metrics::counter!(RETRIES_TOTAL).increment(1);
}

/// How many times [`record_retry`] was called in this process.
///
/// ```
/// let before = shutdown_runtime::retry_count();
/// shutdown_runtime::record_retry();
/// assert_eq!(shutdown_runtime::retry_count(), before + 1);
/// ```
pub fn retry_count() -> u64 {
    RETRIES.load(Ordering::Relaxed)
}

/// Prints the report in `format`, then emits the final event and metrics of a life cycle.
pub(crate) fn emit(outcome: &Outcome, format: ReportFormat) {
    let r = &outcome.report;
    // Write errors (a closed stderr/stdout) are ignored: reporting must never kill the exit.
    match format {
        ReportFormat::Stderr => {
            let _ = writeln!(std::io::stderr().lock(), "{}", outcome.summary_line());
        }
        ReportFormat::Json => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", outcome.to_json_line());
            let _ = out.flush();
        }
        ReportFormat::Tracing | ReportFormat::None => {}
    }
    if format != ReportFormat::None {
        tracing::info!(
            target: "shutdown_runtime",
            phase = "exit",
            exit_code = outcome.exit_code(),
            request_to_exit_ms = outcome.request_to_exit.as_millis() as u64,
            report = %r.to_json_line(),
            "shutdown complete"
        );
    }
    #[cfg(feature = "metrics")]
    {
        let secs = outcome.request_to_exit.as_secs_f64();
        metrics::histogram!(SIGNAL_TO_EXIT_SECONDS).record(secs);
        metrics::gauge!(LAST_SIGNAL_TO_EXIT_SECONDS).set(secs);
        metrics::counter!(TASKS_DRAINED_TOTAL).increment(r.drained as u64);
        metrics::counter!(TASKS_ABORTED_TOTAL).increment(r.aborted.len() as u64);
        metrics::counter!(TASKS_PANICKED_TOTAL).increment(r.panicked.len() as u64);
        // Registers the counter even when no retry happened.
        metrics::counter!(RETRIES_TOTAL).increment(0);
    }
}
