//! Reading back the drain report that an example prints as its last stdout line.
//!
//! The examples print `shutdown_runtime::DrainReport::to_json_line()`; this module is the
//! reader's side, used by the end-to-end tests and handy for scripts: it takes a process's
//! whole stdout, insists that the *last* non-empty line is the report, and deserializes it.

use std::fmt;

use serde::Deserialize;

/// A task named in a report: `{"name", "location": "file:line:col", "age_ms"}`.
///
/// # Examples
///
/// ```
/// use shutdown_discipline::report_line::TaskLine;
///
/// let task: TaskLine = serde_json::from_str(
///     r#"{"name":"job-1","location":"examples/scheduler.rs:140:25","age_ms":12.5}"#,
/// ).unwrap();
/// assert_eq!(task.file_line(), Some(("examples/scheduler.rs", 140)));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TaskLine {
    /// The task's name (from `spawn_named`, or its kind).
    pub name: String,
    /// Where it was spawned, `file:line:col`.
    pub location: String,
    /// How long it had run when the report was made.
    pub age_ms: f64,
}

impl TaskLine {
    /// The `file` and `line` parts of [`TaskLine::location`], if it has the expected shape.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::report_line::TaskLine;
    ///
    /// let task = TaskLine { name: "t".into(), location: "src/a.rs:3:9".into(), age_ms: 0.0 };
    /// assert_eq!(task.file_line(), Some(("src/a.rs", 3)));
    /// let bad = TaskLine { location: "nowhere".into(), ..task };
    /// assert_eq!(bad.file_line(), None);
    /// ```
    pub fn file_line(&self) -> Option<(&str, u32)> {
        let (rest, _column) = self.location.rsplit_once(':')?;
        let (file, line) = rest.rsplit_once(':')?;
        Some((file, line.parse().ok()?))
    }
}

/// A panicked task in a report: the task's fields plus `message`.
///
/// # Examples
///
/// ```
/// use shutdown_discipline::report_line::PanicLine;
///
/// let p: PanicLine = serde_json::from_str(
///     r#"{"name":"bad","location":"a.rs:1:1","age_ms":1.0,"message":"boom"}"#,
/// ).unwrap();
/// assert_eq!((p.task.name.as_str(), p.message.as_str()), ("bad", "boom"));
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PanicLine {
    /// The task that panicked.
    #[serde(flatten)]
    pub task: TaskLine,
    /// The panic message.
    pub message: String,
}

/// The drain report as printed by the examples.
///
/// # Examples
///
/// ```
/// use shutdown_discipline::report_line::ReportLine;
///
/// let stdout = "job 0 started\n\
///     {\"drained\":2,\"aborted\":[],\"panicked\":[],\"still_running_blocking\":[],\
///     \"spawned_during_drain\":0,\"elapsed_ms\":3.5}\n";
/// let report = ReportLine::from_stdout(stdout).unwrap();
/// assert_eq!(report.drained, 2);
/// assert!(report.is_clean());
/// assert!(ReportLine::from_stdout("no report here\n").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ReportLine {
    /// Tasks that ended on their own during the drain.
    pub drained: usize,
    /// Tasks hard-cancelled at the budget.
    pub aborted: Vec<TaskLine>,
    /// Tasks that panicked.
    pub panicked: Vec<PanicLine>,
    /// Blocking jobs and threads still running at the end.
    pub still_running_blocking: Vec<TaskLine>,
    /// Tasks spawned while the drain ran.
    pub spawned_during_drain: usize,
    /// Wall time of the drain.
    pub elapsed_ms: f64,
}

/// Why [`ReportLine::from_stdout`] found no report.
///
/// # Examples
///
/// ```
/// use shutdown_discipline::report_line::ReportLine;
///
/// let err = ReportLine::from_stdout("").unwrap_err();
/// assert_eq!(err.to_string(), "stdout is empty: no drain report");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportLineError {
    message: String,
}

impl fmt::Display for ReportLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ReportLineError {}

impl ReportLine {
    /// Parses the last non-empty line of `stdout` as the report.
    ///
    /// # Errors
    ///
    /// Empty output, or a last line that is not a complete report (quoted in the message).
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::report_line::ReportLine;
    ///
    /// let err = ReportLine::from_stdout("{\"drained\":1}\n").unwrap_err();
    /// assert!(err.to_string().starts_with("last stdout line is not a drain report"));
    /// ```
    pub fn from_stdout(stdout: &str) -> Result<ReportLine, ReportLineError> {
        let last = stdout
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .ok_or_else(|| ReportLineError {
                message: "stdout is empty: no drain report".to_owned(),
            })?;
        serde_json::from_str(last).map_err(|e| ReportLineError {
            message: format!("last stdout line is not a drain report ({e}): {last}"),
        })
    }

    /// Nothing aborted, nothing panicked, no blocking work left running.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::report_line::ReportLine;
    ///
    /// let report = ReportLine::from_stdout(r#"{"drained":0,"aborted":[{"name":"t","location":"a.rs:1:1","age_ms":9.0}],"panicked":[],"still_running_blocking":[],"spawned_during_drain":0,"elapsed_ms":1.0}"#).unwrap();
    /// assert!(!report.is_clean());
    /// ```
    pub fn is_clean(&self) -> bool {
        self.aborted.is_empty()
            && self.panicked.is_empty()
            && self.still_running_blocking.is_empty()
    }
}
