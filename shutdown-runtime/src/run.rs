//! The life cycle: [`run`] / [`RunConfig`] → [`Outcome`] → exit code.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::{Instant, timeout_at};

use crate::budgets::Budgets;
use crate::exit::{EXIT_ABORTED, EXIT_CLEAN, EXIT_FAILURE, EXIT_SECOND_SIGNAL};
use crate::observe::ReportFormat;
use crate::phase::{Phase, Phases};
use crate::reason::ShutdownReason;
use crate::report::DrainReport;
use crate::scope::Shutdown;
use crate::signals::{self, SecondSignal};
use crate::tracked::panic_message;

/// What a main future may return: `()` or `Result<(), E: Debug>`.
///
/// ```
/// use shutdown_runtime::MainResult;
/// assert_eq!(().into_exit_code(), 0);
/// assert_eq!(Ok::<(), String>(()).into_exit_code(), 0);
/// assert_eq!(Err::<(), _>("bad config").into_exit_code(), 1); // prints `Error: "bad config"`
/// ```
pub trait MainResult {
    /// The exit code this value stands for ([`EXIT_CLEAN`] or [`EXIT_FAILURE`]); errors are
    /// printed to stderr as `Error: {err:?}`, like `fn main() -> Result<..>`.
    fn into_exit_code(self) -> i32;
}

impl MainResult for () {
    fn into_exit_code(self) -> i32 {
        EXIT_CLEAN
    }
}

impl<E: fmt::Debug> MainResult for Result<(), E> {
    fn into_exit_code(self) -> i32 {
        match self {
            Ok(()) => EXIT_CLEAN,
            Err(e) => {
                eprintln!("Error: {e:?}");
                EXIT_FAILURE
            }
        }
    }
}

/// How the main future (the coordinator) ended.
///
/// ```
/// # async fn demo() {
/// use shutdown_runtime::{Budgets, MainStatus, RunConfig};
/// let cfg = || RunConfig::new(Budgets::from_grace(std::time::Duration::from_secs(1))).install_signals(false);
/// assert_eq!(cfg().run(async {}).await.main, MainStatus::Ok);
/// assert_eq!(cfg().run(async { Err::<(), _>("no") }).await.main, MainStatus::Failed(1));
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MainStatus {
    /// Returned `()` / `Ok(())`.
    Ok,
    /// Returned an error (printed to stderr); the exit code it maps to.
    Failed(i32),
    /// Panicked, with this message.
    Panicked(String),
    /// Dropped: it overran the coordinator budget, or a second signal forced the exit.
    Cancelled,
}

/// The result of the life cycle: the drain report plus how main ended, with the exit code.
///
/// ```
/// # async fn demo() {
/// use std::time::Duration;
/// use shutdown_runtime::{Budgets, RunConfig};
///
/// let outcome = RunConfig::new(Budgets::from_grace(Duration::from_secs(3)))
///     .install_signals(false)
///     .run(async {})
///     .await;
/// assert_eq!(outcome.exit_code(), shutdown_runtime::exit::EXIT_CLEAN);
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[derive(Debug, Clone)]
pub struct Outcome {
    /// What the children's drain did.
    pub report: DrainReport,
    /// How the main future ended.
    pub main: MainStatus,
    /// Why shutdown happened (`Manual` when main simply returned).
    pub reason: Option<ShutdownReason>,
    /// The coordinator did not return within its budget and was dropped.
    pub coordinator_overran: bool,
    /// A second signal under [`SecondSignal::AbortAll`] cut the drain short.
    pub second_signal: bool,
    /// From the shutdown request to the end of the life cycle.
    pub request_to_exit: Duration,
}

impl Outcome {
    /// The process exit code (see [`exit`](crate::exit)): 4 after a forced second signal, 1 if
    /// main failed or panicked, 3 if the drain aborted tasks, left blocking work running, or
    /// the coordinator overran, else 0. Panics of tracked children are reported in
    /// `report.panicked` and do not change the code.
    ///
    /// ```
    /// # async fn demo() {
    /// use std::time::Duration;
    /// let outcome = shutdown_runtime::RunConfig::new(shutdown_runtime::Budgets::from_grace(Duration::from_secs(1)))
    ///     .install_signals(false)
    ///     .run(async { Err::<(), _>("boom") })
    ///     .await;
    /// assert_eq!(outcome.exit_code(), 1);
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    pub fn exit_code(&self) -> i32 {
        if self.second_signal {
            EXIT_SECOND_SIGNAL
        } else if let MainStatus::Failed(code) = self.main {
            code
        } else if matches!(self.main, MainStatus::Panicked(_)) {
            EXIT_FAILURE
        } else if self.coordinator_overran
            || !self.report.aborted.is_empty()
            || !self.report.still_running_blocking.is_empty()
        {
            EXIT_ABORTED
        } else {
            EXIT_CLEAN
        }
    }

    /// The report as one human line (no trailing newline), as [`run`] prints it on stderr by
    /// default ([`ReportFormat::Stderr`]): exit code, reason, signal-to-exit time, tasks
    /// drained, tasks aborted with names and spawn locations, loops stopped early with
    /// `file:line` and count; panics and blocking work left running when there are some.
    ///
    /// ```
    /// # async fn demo() {
    /// use std::time::Duration;
    /// use shutdown_runtime::{Budgets, RunConfig, observe::ReportFormat};
    ///
    /// let outcome = RunConfig::new(Budgets::from_grace(Duration::from_secs(1)))
    ///     .install_signals(false)
    ///     .report(ReportFormat::None)
    ///     .run(async { shutdown_runtime::spawn_named("stuck", std::future::pending::<()>()); })
    ///     .await;
    /// let line = outcome.summary_line();
    /// assert!(line.starts_with("shutdown: exit 3 (aborted), reason: manual request, signal-to-exit "), "{line}");
    /// assert!(line.contains("; drained 0; aborted 1: stuck at "), "{line}");
    /// assert!(line.ends_with("; loops stopped early 0"), "{line}");
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    pub fn summary_line(&self) -> String {
        use std::fmt::Write as _;
        let r = &self.report;
        let code = self.exit_code();
        let what = match code {
            EXIT_CLEAN => "clean",
            EXIT_FAILURE => "main failed",
            EXIT_ABORTED => "aborted",
            EXIT_SECOND_SIGNAL => "second signal",
            _ => "main failed",
        };
        let mut line = match signals::RERAISE.load(Ordering::SeqCst) {
            0 => format!("shutdown: exit {code} ({what})"),
            signo => format!(
                "shutdown: second {} ({what}, re-raised: exit status {})",
                signal_name(signo),
                128 + signo
            ),
        };
        let reason = match self.reason {
            Some(ShutdownReason::Signal(n)) => signal_name(n),
            Some(ShutdownReason::Manual) | None => "manual request".to_owned(),
        };
        let _ = write!(
            line,
            ", reason: {reason}, signal-to-exit {} ms; drained {}; aborted {}",
            self.request_to_exit.as_millis(),
            r.drained,
            r.aborted.len()
        );
        let task = |t: &crate::TaskInfo| {
            format!(
                "{} at {}:{}:{} (running {} ms)",
                one_line(&t.name),
                t.location.file(),
                t.location.line(),
                t.location.column(),
                t.age.as_millis()
            )
        };
        if !r.aborted.is_empty() {
            let list: Vec<String> = r.aborted.iter().map(task).collect();
            let _ = write!(line, ": {}", list.join(", "));
        }
        let _ = write!(
            line,
            "; loops stopped early {}",
            r.loops_stopped_early.len()
        );
        if !r.loops_stopped_early.is_empty() {
            let list: Vec<String> = r
                .loops_stopped_early
                .iter()
                .map(|l| format!("{} x{}", l.site, l.count))
                .collect();
            let _ = write!(line, ": {}", list.join(", "));
        }
        // Panics and blocking work left running are named only when there are some.
        if !r.panicked.is_empty() {
            let list: Vec<String> = r
                .panicked
                .iter()
                .map(|p| format!("{}: {}", task(&p.task), one_line(&p.message)))
                .collect();
            let _ = write!(line, "; panicked {}: {}", r.panicked.len(), list.join(", "));
        }
        if !r.still_running_blocking.is_empty() {
            let list: Vec<String> = r.still_running_blocking.iter().map(task).collect();
            let _ = write!(
                line,
                "; blocking still running {}: {}",
                r.still_running_blocking.len(),
                list.join(", ")
            );
        }
        if let MainStatus::Panicked(msg) = &self.main {
            let _ = write!(line, "; main panicked: {}", one_line(msg));
        }
        if self.coordinator_overran {
            line.push_str("; the coordinator overran its budget");
        }
        line
    }

    /// The report as one JSON object (no trailing newline), as [`run`] prints it on stdout with
    /// [`ReportFormat::Json`]: the fields of [`DrainReport::to_json_line`] plus `exit_code`,
    /// `reason` and `signal_to_exit_ms`.
    ///
    /// ```
    /// # async fn demo() {
    /// use std::time::Duration;
    /// use shutdown_runtime::{Budgets, RunConfig, observe::ReportFormat};
    /// let outcome = RunConfig::new(Budgets::from_grace(Duration::from_secs(1)))
    ///     .install_signals(false)
    ///     .report(ReportFormat::None)
    ///     .run(async {})
    ///     .await;
    /// let json: serde_json::Value = serde_json::from_str(&outcome.to_json_line()).unwrap();
    /// assert_eq!(json["exit_code"], 0);
    /// assert_eq!(json["drained"], 0);
    /// assert_eq!(json["reason"], "manual request");
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    pub fn to_json_line(&self) -> String {
        let mut value = serde_json::to_value(&self.report)
            .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }));
        if let Some(map) = value.as_object_mut() {
            map.insert("exit_code".into(), self.exit_code().into());
            let reason = match self.reason {
                Some(ShutdownReason::Signal(n)) => signal_name(n),
                Some(ShutdownReason::Manual) | None => "manual request".to_owned(),
            };
            map.insert("reason".into(), reason.into());
            map.insert(
                "signal_to_exit_ms".into(),
                ((self.request_to_exit.as_micros() as f64) / 1000.0).into(),
            );
        }
        value.to_string()
    }
}

/// `SIGTERM`, `SIGINT`, or `signal N`.
fn signal_name(signo: i32) -> String {
    match signo {
        libc::SIGTERM => "SIGTERM".to_owned(),
        libc::SIGINT => "SIGINT".to_owned(),
        n => format!("signal {n}"),
    }
}

/// `text` with line breaks escaped, so the report stays one line.
fn one_line(text: &str) -> String {
    text.replace('\r', "\\r").replace('\n', "\\n")
}

/// Options of the life cycle; [`run`] is `RunConfig::new(budgets).run(main)`.
///
/// ```
/// use std::time::Duration;
/// use shutdown_runtime::{Budgets, RunConfig, signals::SecondSignal};
/// let cfg = RunConfig::new(Budgets::from_grace(Duration::from_secs(30)))
///     .second_signal(SecondSignal::AbortAll);
/// assert_eq!(cfg.budgets().grace(), Duration::from_secs(30));
/// ```
#[derive(Debug, Clone)]
pub struct RunConfig {
    budgets: Budgets,
    second_signal: SecondSignal,
    report: ReportFormat,
    install_signals: bool,
    ready_delay: Duration,
    phases: Option<Phases>,
}

impl RunConfig {
    /// Defaults: second signal [`SecondSignal::Reraise`], signals installed.
    ///
    /// ```
    /// let cfg = shutdown_runtime::RunConfig::new(shutdown_runtime::Budgets::from_grace(std::time::Duration::from_secs(1)));
    /// # let _ = cfg;
    /// ```
    pub fn new(budgets: Budgets) -> RunConfig {
        RunConfig {
            budgets,
            second_signal: SecondSignal::default(),
            report: ReportFormat::default(),
            install_signals: true,
            ready_delay: Duration::ZERO,
            phases: None,
        }
    }

    /// How long to stay in [`Phase::NotReady`] after the shutdown request before
    /// [`Phase::Stopping`] (default zero): readiness already answers 503 and a server still
    /// accepts, so load balancers and endpoint lists catch up before the listener closes. The
    /// main future and the children keep running meanwhile; the delay counts against the
    /// children budget (both run from the request) and is capped at half of it.
    ///
    /// ```
    /// # use shutdown_runtime::{RunConfig, Budgets};
    /// # use std::time::Duration;
    /// let cfg = RunConfig::new(Budgets::from_grace(Duration::from_secs(30)))
    ///     .ready_delay(Duration::from_secs(5));
    /// assert_eq!(cfg.get_ready_delay(), Duration::from_secs(5));
    /// ```
    pub fn ready_delay(mut self, delay: Duration) -> RunConfig {
        self.ready_delay = delay;
        self
    }

    /// The ready-delay (see [`ready_delay`](RunConfig::ready_delay)), capped at half the
    /// children budget.
    ///
    /// ```
    /// # use shutdown_runtime::{RunConfig, Budgets};
    /// # use std::time::Duration;
    /// let cfg = RunConfig::new(Budgets::from_grace(Duration::from_secs(3))) // children: 2 s
    ///     .ready_delay(Duration::from_secs(60));
    /// assert_eq!(cfg.get_ready_delay(), Duration::from_secs(1));
    /// ```
    pub fn get_ready_delay(&self) -> Duration {
        self.ready_delay.min(self.budgets.children() / 2)
    }

    /// The [`Phases`] this life cycle drives (default: [`Phases::global`] for [`run`] and
    /// [`RunConfig::run`]).
    ///
    /// ```
    /// # use shutdown_runtime::{RunConfig, Budgets, phase::Phases};
    /// let phases = Phases::new();
    /// let cfg = RunConfig::new(Budgets::from_grace(std::time::Duration::from_secs(1))).phases(&phases);
    /// # let _ = cfg;
    /// ```
    pub fn phases(mut self, phases: &Phases) -> RunConfig {
        self.phases = Some(phases.clone());
        self
    }

    /// The policy for a second signal.
    ///
    /// ```
    /// # use shutdown_runtime::{RunConfig, Budgets, signals::SecondSignal};
    /// let cfg = RunConfig::new(Budgets::from_grace(std::time::Duration::from_secs(1))).second_signal(SecondSignal::Ignore);
    /// # let _ = cfg;
    /// ```
    pub fn second_signal(mut self, policy: SecondSignal) -> RunConfig {
        self.second_signal = policy;
        self
    }

    /// Where the report goes at exit (default [`ReportFormat::Stderr`]: one human line on
    /// stderr, seen with no logging set up).
    ///
    /// ```
    /// # use shutdown_runtime::{RunConfig, Budgets, observe::ReportFormat};
    /// let cfg = RunConfig::new(Budgets::from_grace(std::time::Duration::from_secs(1))).report(ReportFormat::Json);
    /// assert_eq!(cfg.report_format(), ReportFormat::Json);
    /// ```
    pub fn report(mut self, format: ReportFormat) -> RunConfig {
        self.report = format;
        self
    }

    /// The report format.
    ///
    /// ```
    /// # use shutdown_runtime::{RunConfig, Budgets, observe::ReportFormat};
    /// let cfg = RunConfig::new(Budgets::from_grace(std::time::Duration::from_secs(1)));
    /// assert_eq!(cfg.report_format(), ReportFormat::Stderr);
    /// ```
    pub fn report_format(&self) -> ReportFormat {
        self.report
    }

    /// The second-signal policy.
    ///
    /// ```
    /// # use shutdown_runtime::{RunConfig, Budgets, signals::SecondSignal};
    /// let cfg = RunConfig::new(Budgets::from_grace(std::time::Duration::from_secs(1)));
    /// assert_eq!(cfg.second_signal_policy(), SecondSignal::Reraise);
    /// ```
    pub fn second_signal_policy(&self) -> SecondSignal {
        self.second_signal
    }

    /// Whether [`run`](RunConfig::run) installs the signal handlers (default `true`; turn off
    /// in tests that must not touch process-wide signal dispositions).
    ///
    /// ```
    /// # use shutdown_runtime::{RunConfig, Budgets};
    /// let cfg = RunConfig::new(Budgets::from_grace(std::time::Duration::from_secs(1))).install_signals(false);
    /// # let _ = cfg;
    /// ```
    pub fn install_signals(mut self, yes: bool) -> RunConfig {
        self.install_signals = yes;
        self
    }

    /// The budgets.
    ///
    /// ```
    /// # use shutdown_runtime::{RunConfig, Budgets};
    /// # use std::time::Duration;
    /// assert_eq!(RunConfig::new(Budgets::from_grace(Duration::from_secs(6))).budgets().children(), Duration::from_secs(4));
    /// ```
    pub fn budgets(&self) -> Budgets {
        self.budgets
    }

    /// Runs the life cycle on the global scope (see [`run`]).
    ///
    /// ```
    /// # async fn demo() {
    /// use std::time::Duration;
    /// use shutdown_runtime::{Budgets, RunConfig};
    /// let outcome = RunConfig::new(Budgets::from_grace(Duration::from_secs(1)))
    ///     .install_signals(false)
    ///     .run(async { shutdown_runtime::spawn(async {}); })
    ///     .await;
    /// assert!(outcome.report.is_clean());
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    pub async fn run<Fut>(self, main: Fut) -> Outcome
    where
        Fut: Future,
        Fut::Output: MainResult,
    {
        lifecycle(self, Shutdown::global(), main).await
    }
}

/// Runs `main` as the coordinator of the global scope, through the whole life cycle:
///
/// 1. installs SIGTERM/SIGINT handlers ([`signals::install`]) **before** `main` is first
///    polled;
/// 2. runs `main` until it returns or shutdown is requested (signal or
///    [`request_shutdown`](crate::request_shutdown));
/// 3. on request: `main` keeps running until the `coordinator` budget while tracked children
///    drain within the `children` budget (both measured from the request); at the children
///    budget the rest are aborted and named; a coordinator that overruns is dropped;
/// 4. if `main` returns first, shutdown is requested (reason `Manual`) and the children drain
///    within `children`;
/// 5. reports through `tracing` (and `metrics` with the feature) and returns the [`Outcome`];
///    [`Outcome::exit_code`] is the code to exit with.
///
/// Must be called inside a tokio runtime with I/O and time enabled.
///
/// # Examples
///
/// ```
/// # async fn demo() {
/// use std::time::Duration;
/// use shutdown_runtime::{Budgets, run};
///
/// let outcome = run(Budgets::from_grace(Duration::from_secs(3)), async {
///     shutdown_runtime::spawn(async { /* a child */ });
///     Ok::<(), std::io::Error>(())
/// })
/// .await;
/// assert_eq!(outcome.exit_code(), 0);
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
pub async fn run<Fut>(budgets: Budgets, main: Fut) -> Outcome
where
    Fut: Future,
    Fut::Output: MainResult,
{
    RunConfig::new(budgets).run(main).await
}

/// Polls a future, turning a panic into `Err(message)`.
struct CatchUnwind<F>(F);

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: the inner future is structurally pinned and never moved.
        let fut = unsafe { self.map_unchecked_mut(|s| &mut s.0) };
        match catch_unwind(AssertUnwindSafe(|| fut.poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(p) => Poll::Ready(Err(panic_message(&*p))),
        }
    }
}

fn status<T: MainResult>(r: Result<T, String>) -> MainStatus {
    match r {
        Ok(v) => match v.into_exit_code() {
            EXIT_CLEAN => MainStatus::Ok,
            code => MainStatus::Failed(code),
        },
        Err(msg) => {
            tracing::error!(target: "shutdown_runtime", phase = "main", message = %msg, "main panicked");
            MainStatus::Panicked(msg)
        }
    }
}

enum First<T> {
    Main(Result<T, String>),
    Requested,
    Forced,
}

pub(crate) async fn lifecycle<Fut>(cfg: RunConfig, scope: &Shutdown, main: Fut) -> Outcome
where
    Fut: Future,
    Fut::Output: MainResult,
{
    if cfg.install_signals
        && let Err(e) = signals::install(cfg.second_signal)
    {
        tracing::error!(target: "shutdown_runtime", phase = "signals", error = %e, "could not install signal handlers");
    }
    signals::RUN_ACTIVE.store(true, Ordering::SeqCst);
    let budgets = cfg.budgets;
    let ready_delay = cfg.get_ready_delay();
    let phases = match cfg.phases {
        Some(phases) => phases,
        None if std::ptr::eq(scope, Shutdown::global()) => Phases::global().clone(),
        None => Phases::linked(scope),
    };
    tracing::info!(target: "shutdown_runtime", phase = "run", grace_ms = budgets.grace().as_millis() as u64, "running");

    // Its own unit context: units the coordinator claims are seen only by its own code.
    let mut main = pin!(CatchUnwind(crate::unit::isolate(main)));
    let first = tokio::select! {
        biased;
        _ = signals::forced() => First::Forced,
        r = &mut main => First::Main(r),
        _ = scope.wait() => First::Requested,
    };

    let mut status_ = None;
    let mut forced = false;
    let mut overran = false;
    match first {
        First::Main(r) => {
            status_ = Some(status(r));
            scope.request();
        }
        First::Forced => forced = true,
        First::Requested => {}
    }
    // Budgets run from the request, which may predate this point (e.g. a signal at start-up).
    let since = scope
        .requested_at()
        .map(|t| t.elapsed())
        .unwrap_or_default();
    let now = Instant::now();
    let t0 = now.checked_sub(since).unwrap_or(now);
    phases.advance_at(Phase::NotReady, t0);
    if !forced && !ready_delay.is_zero() {
        // Not ready, still serving: main keeps running through the ready-delay.
        let mut until = pin!(tokio::time::sleep_until(t0 + ready_delay));
        tokio::select! {
            biased;
            _ = signals::forced() => forced = true,
            r = &mut main, if status_.is_none() => {
                status_ = Some(status(r));
                tokio::select! {
                    biased;
                    _ = signals::forced() => forced = true,
                    () = &mut until => {}
                }
            }
            () = &mut until => {}
        }
    }
    phases.advance(Phase::Stopping);
    tracing::info!(target: "shutdown_runtime", phase = "shutdown", reason = ?scope.reason(), "shutdown: coordinator and children draining");

    let children_budget = if forced {
        Duration::ZERO
    } else {
        (t0 + budgets.children()).saturating_duration_since(Instant::now())
    };
    let mut report = {
        let drain = async {
            let drain = scope.drain(children_budget);
            let mut drain = pin!(drain);
            tokio::select! {
                report = &mut drain => report,
                () = tokio::time::sleep(children_budget) => {
                    // The drain is aborting what is left (it reports it).
                    phases.advance(Phase::Aborting);
                    drain.await
                }
            }
        };
        let coordinator = async {
            if status_.is_none() && !forced {
                match timeout_at(t0 + budgets.coordinator(), &mut main).await {
                    Ok(r) => status_ = Some(status(r)),
                    Err(_) => {
                        overran = true;
                        tracing::warn!(target: "shutdown_runtime", phase = "coordinator", budget_ms = budgets.coordinator().as_millis() as u64, "coordinator overran its budget: dropping it");
                    }
                }
            }
        };
        tokio::select! {
            biased;
            _ = signals::forced(), if !forced => {
                forced = true;
                phases.advance(Phase::Aborting);
                scope.drain(Duration::ZERO).await
            }
            (report, ()) = async { tokio::join!(drain, coordinator) } => report,
        }
    };
    // Children spawned by the coordinator after the first drain finished: drain them too,
    // within what is left of the grace period.
    if scope.tracked_len() > 0 {
        let left = (t0 + budgets.grace())
            .saturating_duration_since(Instant::now())
            .saturating_sub(crate::drain::ABORT_LANDING * 2);
        let budget = if forced {
            Duration::ZERO
        } else {
            left.min(budgets.children())
        };
        let late = scope.drain(budget).await;
        if !late.aborted.is_empty() {
            phases.advance(Phase::Aborting);
        }
        report.drained += late.drained;
        report.aborted.extend(late.aborted);
        report.panicked.extend(late.panicked);
        report.still_running_blocking = late.still_running_blocking;
        report.spawned_during_drain += late.spawned_during_drain;
        report.elapsed += late.elapsed;
        crate::stops::merge(&mut report.loops_stopped_early, late.loops_stopped_early);
    }
    // Loops stopped after the last drain (e.g. the coordinator's own) are reported too.
    crate::stops::merge(
        &mut report.loops_stopped_early,
        crate::stops::take(std::sync::Arc::as_ptr(&scope.inner) as usize),
    );
    forced |= signals::FORCED.load(Ordering::SeqCst);
    signals::RUN_ACTIVE.store(false, Ordering::SeqCst);
    phases.advance(Phase::Exited);
    phases.emit();

    let outcome = Outcome {
        report,
        main: status_.unwrap_or(MainStatus::Cancelled),
        reason: scope.reason(),
        coordinator_overran: overran,
        second_signal: forced,
        request_to_exit: t0.elapsed(),
    };
    crate::observe::emit(&outcome, cfg.report);
    // A second signal under `Reraise` (only the signal listener sets it): the report is out,
    // now die by the signal.
    let signo = signals::RERAISE.load(Ordering::SeqCst);
    if signo != 0 {
        signals::reraise(signo);
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: Duration = Duration::from_secs(1);

    fn cfg(grace_secs: u64) -> RunConfig {
        RunConfig::new(Budgets::from_grace(Duration::from_secs(grace_secs))).install_signals(false)
    }

    #[tokio::test(start_paused = true)]
    async fn clean_when_main_returns_and_children_drain() {
        let s = Shutdown::new();
        let s2 = s.clone();
        let o = lifecycle(cfg(30), &s, async move {
            let s3 = s2.clone();
            s2.spawn(async move { s3.wait().await });
        })
        .await;
        assert_eq!(o.main, MainStatus::Ok);
        assert_eq!(o.reason, Some(ShutdownReason::Manual));
        assert_eq!(o.report.drained, 1);
        assert_eq!(o.exit_code(), EXIT_CLEAN);
    }

    #[tokio::test(start_paused = true)]
    async fn coordinator_gets_its_budget_children_theirs() {
        // grace 30 s: children 20 s, coordinator 25 s
        let s = Shutdown::new();
        let (s2, s3) = (s.clone(), s.clone());
        tokio::spawn(async move {
            tokio::time::sleep(SEC).await;
            s3.request();
        });
        let o = lifecycle(cfg(30), &s, async move {
            s2.spawn_named("stuck-child", std::future::pending::<()>());
            s2.wait().await;
            tokio::time::sleep(22 * SEC).await; // finishes its own work within 25 s
        })
        .await;
        assert_eq!(o.main, MainStatus::Ok);
        assert_eq!(o.report.aborted.len(), 1);
        assert_eq!(o.report.aborted[0].name, "stuck-child");
        assert!(!o.coordinator_overran);
        assert_eq!(o.exit_code(), EXIT_ABORTED);
    }

    #[tokio::test(start_paused = true)]
    async fn a_coordinator_that_overruns_is_dropped() {
        let s = Shutdown::new();
        let s2 = s.clone();
        let start = Instant::now();
        let o = lifecycle(cfg(6), &s, async move {
            s2.request();
            std::future::pending::<()>().await;
        })
        .await;
        assert!(o.coordinator_overran);
        assert_eq!(o.main, MainStatus::Cancelled);
        assert_eq!(start.elapsed(), 5 * SEC);
        assert_eq!(o.exit_code(), EXIT_ABORTED);
    }

    fn s2_never() -> bool {
        std::hint::black_box(false)
    }

    #[tokio::test(start_paused = true)]
    async fn main_errors_and_panics_exit_with_failure() {
        let s = Shutdown::new();
        let o = lifecycle(cfg(3), &s, async { Err::<(), _>("bad") }).await;
        assert_eq!(
            (o.main.clone(), o.exit_code()),
            (MainStatus::Failed(EXIT_FAILURE), EXIT_FAILURE)
        );
        let s = Shutdown::new();
        let o = lifecycle(cfg(3), &s, async {
            if s2_never() {
                return;
            }
            panic!("main blew up")
        })
        .await;
        assert_eq!(o.main, MainStatus::Panicked("main blew up".into()));
        assert_eq!(o.exit_code(), EXIT_FAILURE);
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_before_run_starts_counts_from_the_request() {
        let s = Shutdown::new();
        s.request_with(ShutdownReason::Signal(libc::SIGTERM)); // e.g. during start-up
        let o = lifecycle(cfg(3), &s, async {}).await;
        assert_eq!(o.reason, Some(ShutdownReason::Signal(libc::SIGTERM)));
        assert_eq!(o.exit_code(), EXIT_CLEAN);
    }

    #[tokio::test(start_paused = true)]
    async fn phases_follow_the_life_cycle_and_main_runs_through_the_ready_delay() {
        let s = Shutdown::new();
        let phases = Phases::linked(&s);
        let (s2, p2) = (s.clone(), phases.clone());
        let o = lifecycle(
            cfg(30).ready_delay(3 * SEC).phases(&phases),
            &s,
            async move {
                s2.spawn_named("stuck", std::future::pending::<()>());
                s2.wait().await;
                let asked = Instant::now();
                assert!(!p2.is_ready());
                assert_eq!(p2.current(), Phase::NotReady);
                p2.reached(Phase::Stopping).await; // main is still polled during the delay
                assert_eq!(asked.elapsed(), 3 * SEC);
            },
        );
        let t0 = Instant::now();
        s.request();
        let o = o.await;
        assert_eq!(o.main, MainStatus::Ok);
        assert_eq!(o.report.aborted[0].name, "stuck");
        let took = t0.elapsed();
        assert!(
            took >= 20 * SEC && took <= 20 * SEC + crate::drain::ABORT_LANDING,
            "{took:?}"
        );
        assert_eq!(phases.current(), Phase::Exited);
        assert_eq!(phases.time_in(Phase::NotReady), Some(3 * SEC));
        assert_eq!(phases.time_in(Phase::Stopping), Some(17 * SEC));
        assert!(phases.time_in(Phase::Aborting).is_some());
    }

    #[tokio::test(start_paused = true)]
    async fn children_spawned_late_by_the_coordinator_are_drained_too() {
        let s = Shutdown::new();
        let s2 = s.clone();
        let o = lifecycle(cfg(30), &s, async move {
            s2.wait().await;
            tokio::time::sleep(SEC).await;
            s2.spawn_named("late", tokio::time::sleep(SEC));
        });
        s.request();
        let o = o.await;
        assert_eq!(o.report.drained, 1);
        assert_eq!(o.exit_code(), EXIT_CLEAN);
    }
}
