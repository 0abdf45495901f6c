//! SIGTERM + SIGINT handling: the first signal requests shutdown, the second follows a
//! [`SecondSignal`] policy.
//!
//! tokio's signal handlers, once registered, stay for the life of the process and never
//! restore the default disposition (tokio#7905), so a second Ctrl-C would otherwise be
//! swallowed. Policy [`SecondSignal::Reraise`] restores `SIG_DFL` with `sigaction` and
//! re-sends the signal, so the process dies *by the signal* and the parent sees the real status
//! (shell 130 for SIGINT, 143 for SIGTERM).

use std::io;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Weak};

use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::Notify;

use crate::exit::EXIT_SECOND_SIGNAL;
use crate::reason::ShutdownReason;
use crate::scope::Shutdown;

/// What a second SIGTERM/SIGINT does (the first one always requests shutdown).
///
/// ```
/// use shutdown_runtime::signals::SecondSignal;
/// assert_eq!(SecondSignal::default(), SecondSignal::Reraise);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SecondSignal {
    /// Log it and keep draining.
    Ignore,
    /// Abort every tracked task now and exit with
    /// [`EXIT_SECOND_SIGNAL`](crate::exit::EXIT_SECOND_SIGNAL) (via [`run`](crate::run) when
    /// it is running, which still reports; otherwise at once).
    AbortAll,
    /// Restore the default disposition and re-raise: the process dies by the signal
    /// (exit status 130 / 143 in a shell).
    #[default]
    Reraise,
}

impl SecondSignal {
    fn from_u8(v: u8) -> SecondSignal {
        match v {
            0 => SecondSignal::Ignore,
            1 => SecondSignal::AbortAll,
            _ => SecondSignal::Reraise,
        }
    }
}

static POLICY: AtomicU8 = AtomicU8::new(SecondSignal::Reraise as u8);
/// The listener task, if one was started: on which runtime, and whether it still exists.
static LISTENER: Mutex<Option<Listener>> = Mutex::new(None);
/// SIGTERM/SIGINT seen by the listener(s) of this process: the first requests shutdown, later
/// ones follow the policy. Process-wide, so a listener moved to another runtime keeps counting.
static SEEN: AtomicU32 = AtomicU32::new(0);
/// Set when a second signal under `AbortAll` arrived; `run` turns it into exit code 4.
pub(crate) static FORCED: AtomicBool = AtomicBool::new(false);
pub(crate) static FORCED_NOTIFY: Notify = Notify::const_new();
/// Whether `run` is driving the life cycle (then `AbortAll` lets it finish and report).
pub(crate) static RUN_ACTIVE: AtomicBool = AtomicBool::new(false);
/// The signal a second signal under `Reraise` re-raises once `run` has printed its report
/// (0: none); a watchdog re-raises after [`REPORT_DEADLINE`] whatever happens.
pub(crate) static RERAISE: AtomicI32 = AtomicI32::new(0);
/// How long `run` has to report after a second signal under `Reraise` before the watchdog
/// re-raises anyway.
const REPORT_DEADLINE: std::time::Duration = std::time::Duration::from_millis(500);

/// The signal listener task of this process.
struct Listener {
    runtime: tokio::runtime::Id,
    /// Upgradable while the task exists: the task owns the only strong reference, so this dies
    /// when its runtime shuts down (dropping the task) or the task is aborted.
    alive: Weak<()>,
    abort: tokio::task::AbortHandle,
}

/// Installs SIGTERM and SIGINT handlers for the global scope, with a listener task on the
/// current runtime. Idempotent on one runtime: a later call only updates the policy.
///
/// The listener lives on the runtime that installed it. Called on **another** runtime, or after
/// the listener's runtime was shut down, `install` moves the listener to the current runtime
/// (the old one is aborted), so the runtime that calls `install` last — normally the one
/// running [`run`](crate::run) — always has a working listener; the count of signals seen
/// (first vs second) is process-wide and survives the move.
///
/// The handlers are registered before this function returns, so call it first thing (`run` and
/// `#[shutdown_runtime::main]` do). The first signal calls
/// `Shutdown::global().request_with(ShutdownReason::Signal(signo))`; the second follows
/// `policy`.
///
/// # Errors
///
/// Outside a tokio runtime (`ErrorKind::Other`, "must be called inside a tokio runtime"), on a
/// runtime without I/O enabled, or if the OS refuses to register a handler.
///
/// # Examples
///
/// ```standalone_crate
/// # async fn demo() -> std::io::Result<()> {
/// use shutdown_runtime::signals::{self, SecondSignal};
/// signals::install(SecondSignal::Reraise)?;
/// signals::install(SecondSignal::AbortAll)?; // idempotent; updates the policy
/// assert_eq!(signals::policy(), SecondSignal::AbortAll);
/// assert!(!shutdown_runtime::shutdown_requested());
/// # Ok(()) }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo()).unwrap();
/// // outside a runtime: a clear error, not a panic
/// let err = shutdown_runtime::signals::install(shutdown_runtime::signals::SecondSignal::Reraise).unwrap_err();
/// assert!(err.to_string().contains("inside a tokio runtime"), "{err}");
/// ```
pub fn install(policy: SecondSignal) -> io::Result<()> {
    POLICY.store(policy as u8, Ordering::Relaxed);
    let handle = tokio::runtime::Handle::try_current()
        .map_err(|_| io::Error::other("signals::install must be called inside a tokio runtime"))?;
    let mut listener = LISTENER.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(l) = listener.as_ref()
        && l.runtime == handle.id()
        && l.alive.upgrade().is_some()
    {
        return Ok(());
    }
    // Register the new streams before retiring the old listener, so no signal falls between.
    let term = signal(SignalKind::terminate())?;
    let int = signal(SignalKind::interrupt())?;
    let token = Arc::new(());
    let alive = Arc::downgrade(&token);
    // Not a tracked task: the listener must outlive every drain (it handles the 2nd signal).
    // shutdown-lint: allow(raw-spawn) -- the signal listener holds no work and must outlive every drain to apply the second-signal policy
    let task = handle.spawn(listen(term, int, token));
    if let Some(old) = listener.replace(Listener {
        runtime: handle.id(),
        alive,
        abort: task.abort_handle(),
    }) {
        old.abort.abort();
        tracing::debug!(target: "shutdown_runtime", phase = "signals", "signal listener moved to the current runtime");
    }
    tracing::debug!(target: "shutdown_runtime", phase = "signals", ?policy, "SIGTERM and SIGINT handlers installed");
    Ok(())
}

/// The policy currently in force.
///
/// ```standalone_crate
/// # use shutdown_runtime::signals::{self, SecondSignal};
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// signals::install(SecondSignal::Ignore).unwrap();
/// assert_eq!(signals::policy(), SecondSignal::Ignore);
/// # });
/// ```
pub fn policy() -> SecondSignal {
    SecondSignal::from_u8(POLICY.load(Ordering::Relaxed))
}

async fn listen(mut term: Signal, mut int: Signal, _alive: Arc<()>) {
    loop {
        let signo = tokio::select! {
            Some(()) = term.recv() => libc::SIGTERM,
            Some(()) = int.recv() => libc::SIGINT,
            else => return,
        };
        if SEEN.fetch_add(1, Ordering::SeqCst) == 0 {
            tracing::info!(target: "shutdown_runtime", phase = "signal", signo, "first signal: requesting shutdown");
            Shutdown::global().request_with(ShutdownReason::Signal(signo));
            continue;
        }
        match policy() {
            SecondSignal::Ignore => {
                tracing::warn!(target: "shutdown_runtime", phase = "signal", signo, "second signal ignored (policy Ignore); still draining");
            }
            SecondSignal::AbortAll => {
                tracing::warn!(target: "shutdown_runtime", phase = "signal", signo, "second signal: aborting every tracked task");
                FORCED.store(true, Ordering::SeqCst);
                FORCED_NOTIFY.notify_waiters();
                if !RUN_ACTIVE.load(Ordering::SeqCst) {
                    // No life cycle to report: abort and leave at once.
                    Shutdown::global().abort_all();
                    std::process::exit(EXIT_SECOND_SIGNAL);
                }
                // `run` aborts everything (drain with a zero budget), reports, and returns
                // exit code 4.
            }
            SecondSignal::Reraise => {
                if RUN_ACTIVE.load(Ordering::SeqCst)
                    && RERAISE
                        .compare_exchange(0, signo, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                {
                    // `run` aborts everything, prints the report, then re-raises; the
                    // watchdog makes sure the process dies by the signal even if it cannot.
                    tracing::warn!(target: "shutdown_runtime", phase = "signal", signo, "second signal: reporting, then re-raising");
                    FORCED_NOTIFY.notify_waiters();
                    // shutdown-lint: allow(detached-thread) -- the watchdog ends the process: nothing may wait for it
                    let _watchdog = std::thread::spawn(move || {
                        std::thread::sleep(REPORT_DEADLINE);
                        reraise(signo)
                    });
                    continue;
                }
                tracing::warn!(target: "shutdown_runtime", phase = "signal", signo, "second signal: restoring default disposition and re-raising");
                reraise(signo);
            }
        }
    }
}

/// Restores `SIG_DFL` for `signo` and sends it to this process, so the process dies by it.
pub(crate) fn reraise(signo: i32) -> ! {
    // SAFETY: plain libc calls on zero-initialised, properly sized structures.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(signo, &sa, std::ptr::null_mut());
        // The signal may be blocked in this thread (see `EarlySignals`): unblock it here so
        // the process-directed signal below can be delivered to this very thread.
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signo);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::kill(libc::getpid(), signo);
    }
    // Delivery is asynchronous; if it somehow does not kill us, exit with the shell's code.
    std::thread::sleep(std::time::Duration::from_secs(1));
    std::process::exit(128 + signo)
}

/// Resolves when a second signal under `AbortAll` has arrived.
pub(crate) async fn forced() {
    loop {
        let n = FORCED_NOTIFY.notified();
        let mut n = std::pin::pin!(n);
        n.as_mut().enable();
        if FORCED.load(Ordering::SeqCst) || RERAISE.load(Ordering::SeqCst) != 0 {
            return;
        }
        n.await;
    }
}
