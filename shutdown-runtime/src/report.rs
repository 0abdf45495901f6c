//! What a drain did: [`DrainReport`], [`TaskInfo`], [`PanicInfo`] (serialized as one JSON line).

use std::borrow::Cow;
use std::panic::Location;
use std::time::Duration;

use serde::{Serialize, Serializer};

use crate::stops::LoopStop;

/// A tracked task (or blocking job, or thread) named in a report.
///
/// Serializes as `{"name": "...", "location": "file:line:col", "age_ms": 12.5}`.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use shutdown_runtime::TaskInfo;
///
/// let info = TaskInfo {
///     name: "poller".into(),
///     location: std::panic::Location::caller(),
///     age: Duration::from_millis(1500),
/// };
/// let json = serde_json::to_string(&info).unwrap();
/// assert!(json.starts_with(r#"{"name":"poller","location":""#));
/// assert!(json.ends_with(r#","age_ms":1500.0}"#));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskInfo {
    /// The name given to `spawn_named`; otherwise the path of what the task runs (the
    /// `async fn` called, e.g. `my_crate::serve_connection`, else the function enclosing the
    /// spawned `async` block or closure), or the kind (`task`, `blocking`, `thread`) when the
    /// type has no path.
    pub name: Cow<'static, str>,
    /// Where the task was spawned (`#[track_caller]`), serialized as `"file:line:col"`.
    #[serde(serialize_with = "ser_location")]
    pub location: &'static Location<'static>,
    /// How long the task had been running when the report was made.
    #[serde(rename = "age_ms", serialize_with = "ser_ms")]
    pub age: Duration,
}

/// A tracked task that panicked: which task, and the panic message.
///
/// # Examples
///
/// ```
/// # async fn demo() {
/// use shutdown_runtime::Shutdown;
///
/// let scope = Shutdown::new();
/// let handle = scope.spawn_named("bad", async { panic!("boom") });
/// assert!(handle.await.unwrap_err().is_panic()); // the JoinHandle keeps its meaning
/// let report = scope.drain(std::time::Duration::from_secs(1)).await;
/// assert_eq!(report.panicked[0].task.name, "bad");
/// assert_eq!(report.panicked[0].message, "boom");
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PanicInfo {
    /// The task that panicked (its `age` is its run time until the panic).
    #[serde(flatten)]
    pub task: TaskInfo,
    /// The panic payload when it is a string, else `"<non-string panic payload>"`.
    pub message: String,
}

/// What [`Shutdown::drain`](crate::Shutdown::drain) did.
///
/// * `drained`: tasks that ended on their own since shutdown was requested (or since the drain
///   started, if it was not requested; or since the previous drain) — including tasks that
///   stopped because they observed the shutdown flag at a checkpoint (a drain, not a cancel);
/// * `aborted`: tasks hard-cancelled at the budget, with name, spawn location and age;
/// * `panicked`: every panic of a tracked task not reported before (panics before the drain
///   are reported too: a panic is never lost);
/// * `still_running_blocking`: `spawn_blocking` jobs and tracked threads that were still running
///   when the report was made (they cannot be aborted);
/// * `spawned_during_drain`: tasks spawned while the drain ran (accepted, tracked, counted, and
///   aborted at the budget like the others);
/// * `elapsed`: wall time of the drain, serialized as `elapsed_ms`;
/// * `loops_stopped_early`: loops that a `#[drainable]` checkpoint stopped before they ran out
///   of work (their code after the loop recorded a partial result), with `file:line` and how
///   many times; serialized only when not empty.
///
/// # Examples
///
/// ```
/// # async fn demo() {
/// use std::time::Duration;
/// use shutdown_runtime::Shutdown;
///
/// let scope = Shutdown::new();
/// let s = scope.clone();
/// scope.spawn(async move { s.wait().await }); // cooperative: stops when asked
/// scope.request();
/// let report = scope.drain(Duration::from_secs(5)).await;
/// assert_eq!(report.drained, 1);
/// assert!(report.is_clean());
/// let line = report.to_json_line();
/// assert!(line.starts_with(r#"{"drained":1,"aborted":[],"panicked":[]"#));
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DrainReport {
    /// Tasks that ended on their own since the request / drain start (incl. those stopped at a
    /// checkpoint).
    pub drained: usize,
    /// Tasks hard-cancelled at the budget.
    pub aborted: Vec<TaskInfo>,
    /// Tasks that panicked (reported once).
    pub panicked: Vec<PanicInfo>,
    /// Blocking jobs and threads still running at the end.
    pub still_running_blocking: Vec<TaskInfo>,
    /// Tasks spawned while the drain was running.
    pub spawned_during_drain: usize,
    /// Wall time of the drain.
    #[serde(rename = "elapsed_ms", serialize_with = "ser_ms")]
    pub elapsed: Duration,
    /// Loops stopped early by a checkpoint (site and count), in the order they first stopped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub loops_stopped_early: Vec<LoopStop>,
}

impl DrainReport {
    /// `true` when nothing was aborted, nothing panicked and no blocking work is left running.
    ///
    /// ```
    /// assert!(shutdown_runtime::DrainReport::default().is_clean());
    /// ```
    pub fn is_clean(&self) -> bool {
        self.aborted.is_empty()
            && self.panicked.is_empty()
            && self.still_running_blocking.is_empty()
    }

    /// The report as one line of JSON (no trailing newline).
    ///
    /// ```
    /// let line = shutdown_runtime::DrainReport::default().to_json_line();
    /// assert_eq!(
    ///     line,
    ///     r#"{"drained":0,"aborted":[],"panicked":[],"still_running_blocking":[],"spawned_during_drain":0,"elapsed_ms":0.0}"#
    /// );
    /// ```
    pub fn to_json_line(&self) -> String {
        // Serializing plain data (strings, numbers) into a String cannot fail.
        serde_json::to_string(self).unwrap_or_else(|e| format!(r#"{{"error":"{e}"}}"#))
    }
}

fn ser_location<S: Serializer>(loc: &&'static Location<'static>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!(
        "{}:{}:{}",
        loc.file(),
        loc.line(),
        loc.column()
    ))
}

fn ser_ms<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    // Milliseconds with microsecond precision.
    s.serialize_f64((d.as_micros() as f64) / 1000.0)
}
