//! [`Shutdown`]: a scope = a shutdown flag + a registry of tracked tasks.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use crate::inner::{Inner, ScopeRef};
use crate::reason::ShutdownReason;
use crate::registry::{Key, Kind, NewTask};
use crate::report::DrainReport;
use crate::tracked::{Guard, Tracked};
use crate::wait::WaitForShutdown;

/// The global scope's flag, readable with one atomic load and no indirection
/// (see [`shutdown_requested`](crate::shutdown_requested)).
pub(crate) static GLOBAL_REQUESTED: AtomicBool = AtomicBool::new(false);

static GLOBAL: OnceLock<Shutdown> = OnceLock::new();

/// The global scope's state (what a task of the global scope refers to).
#[inline]
pub(crate) fn global_inner() -> &'static Inner {
    &Shutdown::global().inner
}

/// A shutdown scope: a cheap `Clone` handle to a flag and a registry of tracked tasks.
///
/// * [`request`](Shutdown::request) raises the flag (idempotent; the first reason wins);
/// * [`is_requested`](Shutdown::is_requested) is the checkpoint: one atomic load;
/// * [`wait`](Shutdown::wait) resolves once requested, without polling;
/// * [`spawn`](Shutdown::spawn) & co. run tasks the scope tracks, returning real tokio
///   `JoinHandle`s (dropping a handle does not untrack the task);
/// * [`drain`](Shutdown::drain) waits for tracked tasks within a budget, aborts the rest and
///   reports what happened.
///
/// [`Shutdown::global`] is the process-wide scope used by the free functions and
/// `#[drainable]`; [`Shutdown::new`] makes isolated scopes (libraries, tests).
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
/// scope.spawn_named("poller", async move {
///     while !s.is_requested() {
///         tokio::task::yield_now().await; // one unit of work
///     }
/// });
/// scope.request();
/// let report = scope.drain(Duration::from_secs(1)).await;
/// assert_eq!(report.drained, 1);
/// assert!(report.aborted.is_empty());
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[derive(Clone)]
pub struct Shutdown {
    pub(crate) inner: Arc<Inner>,
}

impl Default for Shutdown {
    /// Same as [`Shutdown::new`].
    fn default() -> Shutdown {
        Shutdown::new()
    }
}

impl fmt::Debug for Shutdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shutdown")
            .field("global", &self.inner.is_global)
            .field("requested", &self.is_requested())
            .field("reason", &self.reason())
            .field("tracked", &self.tracked_len())
            .finish()
    }
}

impl Shutdown {
    /// Creates an isolated scope (its own flag and registry).
    ///
    /// ```
    /// let a = shutdown_runtime::Shutdown::new();
    /// let b = shutdown_runtime::Shutdown::new();
    /// a.request();
    /// assert!(a.is_requested() && !b.is_requested());
    /// ```
    pub fn new() -> Shutdown {
        Shutdown {
            inner: Arc::new(Inner::new(false)),
        }
    }

    /// The process-wide scope, used by the free functions, `#[drainable]`, signals and
    /// [`run`](crate::run).
    ///
    /// ```
    /// let g = shutdown_runtime::Shutdown::global();
    /// assert!(std::ptr::eq(g, shutdown_runtime::Shutdown::global()));
    /// ```
    pub fn global() -> &'static Shutdown {
        GLOBAL.get_or_init(|| Shutdown {
            inner: Arc::new(Inner::new(true)),
        })
    }

    /// Requests shutdown with reason [`ShutdownReason::Manual`]. Idempotent.
    ///
    /// ```
    /// let s = shutdown_runtime::Shutdown::new();
    /// s.request();
    /// s.request();
    /// assert!(s.is_requested());
    /// ```
    pub fn request(&self) {
        self.request_with(ShutdownReason::Manual);
    }

    /// Requests shutdown, recording `reason` and the time if this is the first request.
    /// Wakes every [`wait`](Shutdown::wait)er. Later calls change nothing.
    ///
    /// ```
    /// use shutdown_runtime::{Shutdown, ShutdownReason};
    /// let s = Shutdown::new();
    /// s.request_with(ShutdownReason::Signal(2));
    /// assert_eq!(s.reason(), Some(ShutdownReason::Signal(2)));
    /// assert!(s.requested_at().is_some());
    /// ```
    pub fn request_with(&self, reason: ShutdownReason) {
        let inner = &*self.inner;
        // AcqRel CAS: exactly one caller wins and records the time.
        if inner
            .reason
            .compare_exchange(0, reason.encode() + 1, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return;
        }
        let _ = inner.requested_at.set(Instant::now());
        inner.registry.mark_request();
        if inner.is_global {
            GLOBAL_REQUESTED.store(true, Ordering::SeqCst);
        }
        // SeqCst: pairs with the fence in `WaitForShutdown::poll` (a waiter either sees the
        // flag or was registered before `notify_waiters` below).
        inner.requested.store(true, Ordering::SeqCst);
        inner.notify.notify_waiters();
        tracing::info!(
            target: "shutdown_runtime",
            phase = "requested",
            %reason,
            tracked = self.tracked_len(),
            "shutdown requested"
        );
    }

    /// The checkpoint: whether shutdown has been requested. One `Acquire` atomic load — no
    /// lock, no allocation.
    ///
    /// ```
    /// let s = shutdown_runtime::Shutdown::new();
    /// let mut done = 0;
    /// for _unit in 0..10 {
    ///     if s.is_requested() { break; }
    ///     done += 1;
    ///     if done == 3 { s.request(); }
    /// }
    /// assert_eq!(done, 3);
    /// ```
    #[inline(always)]
    pub fn is_requested(&self) -> bool {
        self.inner.is_requested()
    }

    /// Why shutdown was requested, or `None` if it was not.
    ///
    /// ```
    /// let s = shutdown_runtime::Shutdown::new();
    /// assert_eq!(s.reason(), None);
    /// s.request();
    /// assert_eq!(s.reason(), Some(shutdown_runtime::ShutdownReason::Manual));
    /// ```
    pub fn reason(&self) -> Option<ShutdownReason> {
        match self.inner.reason.load(Ordering::Acquire) {
            0 => None,
            w => Some(ShutdownReason::decode(w - 1)),
        }
    }

    /// When shutdown was first requested, or `None`.
    ///
    /// ```
    /// let s = shutdown_runtime::Shutdown::new();
    /// let before = std::time::Instant::now();
    /// s.request();
    /// assert!(s.requested_at().unwrap() >= before);
    /// ```
    pub fn requested_at(&self) -> Option<Instant> {
        self.inner.requested_at.get().copied()
    }

    /// A future that resolves once shutdown is requested (at once if it already was).
    ///
    /// No polling; any number of waiters; `'static`. See [`WaitForShutdown`].
    ///
    /// ```
    /// # async fn demo() {
    /// let s = shutdown_runtime::Shutdown::new();
    /// let w = s.wait();
    /// s.request();
    /// w.await;
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    pub fn wait(&self) -> WaitForShutdown {
        WaitForShutdown::new(self.inner.clone())
    }

    /// Number of tracked tasks, blocking jobs and threads still alive.
    ///
    /// ```
    /// assert_eq!(shutdown_runtime::Shutdown::new().tracked_len(), 0);
    /// ```
    pub fn tracked_len(&self) -> usize {
        self.inner.registry.live()
    }

    /// How this scope's tasks refer to it: nothing for the global scope (no reference count
    /// per task), an `Arc` clone otherwise.
    #[inline]
    fn scope_ref(&self) -> ScopeRef {
        if self.inner.is_global {
            ScopeRef::Global
        } else {
            ScopeRef::Local(self.inner.clone())
        }
    }

    /// Tracks what `spawn(scope, key)` starts: the registry reserves slot `key`, `spawn` runs
    /// (no lock held), then the slot is armed with `abort(&value)`.
    #[inline]
    fn tracked<T>(
        &self,
        kind: Kind,
        name: Option<Cow<'static, str>>,
        type_name: fn() -> &'static str,
        location: &'static Location<'static>,
        spawn: impl FnOnce(ScopeRef, Key) -> T,
        abort: impl FnOnce(&T) -> Option<tokio::task::AbortHandle>,
    ) -> T {
        let scope = self.scope_ref();
        self.inner.registry.insert(
            NewTask {
                kind,
                location,
                name,
                type_name,
            },
            |key| spawn(scope, key),
            abort,
        )
    }

    /// Spawns a tracked task on the current tokio runtime, like `tokio::spawn`.
    ///
    /// The scope records the caller's location and start time and keeps an abort handle; the
    /// task removes itself from the scope when it ends. A panic is recorded (name, location,
    /// message) for the next [`DrainReport`] and still surfaces through the `JoinHandle` as
    /// `JoinError::Panic`. Dropping the `JoinHandle` does not untrack the task.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime, like `tokio::spawn`.
    ///
    /// ```
    /// # async fn demo() {
    /// let s = shutdown_runtime::Shutdown::new();
    /// let h = s.spawn(async { 40 + 2 });
    /// assert_eq!(h.await.unwrap(), 42);
    /// assert_eq!(s.tracked_len(), 0); // removed itself
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    #[track_caller]
    pub fn spawn<F>(&self, fut: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.tracked(
            Kind::Task,
            None,
            std::any::type_name::<F>,
            Location::caller(),
            // shutdown-lint: allow(raw-spawn) -- this is the tracked spawn itself: the task's registry slot is reserved before it starts and freed when it ends
            |scope, key| tokio::spawn(Tracked::new(fut, scope, key)),
            |h| Some(h.abort_handle()),
        )
    }

    /// Spawns a tracked task with a name shown in reports (see [`spawn`](Shutdown::spawn)).
    ///
    /// ```
    /// # async fn demo() {
    /// let s = shutdown_runtime::Shutdown::new();
    /// s.spawn_named("forever", std::future::pending::<()>());
    /// let report = s.drain(std::time::Duration::from_millis(10)).await;
    /// assert_eq!(report.aborted[0].name, "forever");
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    #[track_caller]
    pub fn spawn_named<F>(
        &self,
        name: impl Into<Cow<'static, str>>,
        fut: F,
    ) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.tracked(
            Kind::Task,
            Some(name.into()),
            std::any::type_name::<F>,
            Location::caller(),
            // shutdown-lint: allow(raw-spawn) -- this is the tracked spawn itself: the task's registry slot is reserved before it starts and freed when it ends
            |scope, key| tokio::spawn(Tracked::new(fut, scope, key)),
            |h| Some(h.abort_handle()),
        )
    }

    /// Runs a tracked blocking job on tokio's blocking pool, like `tokio::task::spawn_blocking`.
    ///
    /// A job that has not started when the drain budget runs out is cancelled; a running one
    /// cannot be stopped and is listed in [`DrainReport::still_running_blocking`].
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    ///
    /// ```
    /// # async fn demo() {
    /// let s = shutdown_runtime::Shutdown::new();
    /// assert_eq!(s.spawn_blocking(|| 6 * 7).await.unwrap(), 42);
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.tracked(
            Kind::Blocking,
            None,
            std::any::type_name::<F>,
            Location::caller(),
            |scope, key| {
                let g = Guard::new(scope, key, Kind::Blocking);
                let f = crate::unit::spawned_fn(f);
                // shutdown-lint: allow(raw-spawn) -- this is the tracked spawn itself: the task's registry slot is reserved before it starts and freed when it ends
                tokio::task::spawn_blocking(move || g.run(f))
            },
            |h| Some(h.abort_handle()),
        )
    }

    /// Spawns a tracked `!Send` task on the current `LocalSet`, like `tokio::task::spawn_local`.
    ///
    /// # Panics
    ///
    /// Outside a `LocalSet`.
    ///
    /// ```
    /// # async fn demo() {
    /// let s = shutdown_runtime::Shutdown::new();
    /// let local = tokio::task::LocalSet::new();
    /// let rc = std::rc::Rc::new(5);
    /// let v = local.run_until(async move { s.spawn_local(async move { *rc + 1 }).await }).await.unwrap();
    /// assert_eq!(v, 6);
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    #[track_caller]
    pub fn spawn_local<F>(&self, fut: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        self.tracked(
            Kind::Task,
            None,
            std::any::type_name::<F>,
            Location::caller(),
            // shutdown-lint: allow(raw-spawn) -- this is the tracked spawn itself: the task's registry slot is reserved before it starts and freed when it ends
            |scope, key| tokio::task::spawn_local(Tracked::new(fut, scope, key)),
            |h| Some(h.abort_handle()),
        )
    }

    /// Spawns a tracked OS thread, like `std::thread::spawn`.
    ///
    /// A thread cannot be aborted: if it outlives a drain it is listed in
    /// [`DrainReport::still_running_blocking`]. Check [`is_requested`](Shutdown::is_requested)
    /// in its loop.
    ///
    /// # Panics
    ///
    /// If the OS cannot create a thread, like `std::thread::spawn`.
    ///
    /// ```
    /// let s = shutdown_runtime::Shutdown::new();
    /// let s2 = s.clone();
    /// let t = s.spawn_thread(move || { while !s2.is_requested() { std::thread::yield_now(); } 7 });
    /// s.request();
    /// assert_eq!(t.join().unwrap(), 7);
    /// ```
    #[track_caller]
    pub fn spawn_thread<F, T>(&self, f: F) -> std::thread::JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.tracked(
            Kind::Thread,
            None,
            std::any::type_name::<F>,
            Location::caller(),
            |scope, key| {
                let g = Guard::new(scope, key, Kind::Thread);
                let f = crate::unit::spawned_fn(f);
                std::thread::spawn(move || g.run(f))
            },
            |_| None,
        )
    }

    /// Spawns a tracked task onto the runtime behind `handle`, like
    /// [`Handle::spawn`](tokio::runtime::Handle::spawn) (see [`spawn`](Shutdown::spawn)).
    ///
    /// Works from any thread, inside or outside a runtime: the task runs on `handle`'s runtime
    /// and is tracked by this scope like any other.
    ///
    /// ```
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// let s = shutdown_runtime::Shutdown::new();
    /// // not inside the runtime: spawn onto it through its handle
    /// let h = s.spawn_on(rt.handle(), async { 6 * 7 });
    /// assert_eq!(rt.block_on(h).unwrap(), 42);
    /// assert_eq!(s.tracked_len(), 0);
    /// ```
    #[track_caller]
    pub fn spawn_on<F>(&self, handle: &tokio::runtime::Handle, fut: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.tracked(
            Kind::Task,
            None,
            std::any::type_name::<F>,
            Location::caller(),
            // shutdown-lint: allow(raw-spawn) -- this is the tracked spawn itself: the task's registry slot is reserved before it starts and freed when it ends
            |scope, key| handle.spawn(Tracked::new(fut, scope, key)),
            |h| Some(h.abort_handle()),
        )
    }

    /// Runs a tracked blocking job on the blocking pool of `handle`'s runtime, like
    /// [`Handle::spawn_blocking`](tokio::runtime::Handle::spawn_blocking) (see
    /// [`spawn_blocking`](Shutdown::spawn_blocking)).
    ///
    /// ```
    /// let rt = tokio::runtime::Runtime::new().unwrap();
    /// let s = shutdown_runtime::Shutdown::new();
    /// let h = s.spawn_blocking_on(rt.handle(), || "done");
    /// assert_eq!(rt.block_on(h).unwrap(), "done");
    /// ```
    #[track_caller]
    pub fn spawn_blocking_on<F, R>(&self, handle: &tokio::runtime::Handle, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.tracked(
            Kind::Blocking,
            None,
            std::any::type_name::<F>,
            Location::caller(),
            |scope, key| {
                let g = Guard::new(scope, key, Kind::Blocking);
                let f = crate::unit::spawned_fn(f);
                // shutdown-lint: allow(raw-spawn) -- this is the tracked spawn itself: the task's registry slot is reserved before it starts and freed when it ends
                handle.spawn_blocking(move || g.run(f))
            },
            |h| Some(h.abort_handle()),
        )
    }

    /// Spawns a tracked OS thread from a [`std::thread::Builder`] (name, stack size), like
    /// [`Builder::spawn`](std::thread::Builder::spawn) (see
    /// [`spawn_thread`](Shutdown::spawn_thread)).
    ///
    /// # Errors
    ///
    /// If the OS cannot create the thread (the error of `Builder::spawn`); nothing stays
    /// tracked then.
    ///
    /// ```
    /// let s = shutdown_runtime::Shutdown::new();
    /// let builder = std::thread::Builder::new().name("compactor".into());
    /// let t = s.spawn_thread_with(builder, || std::thread::current().name().map(str::to_owned))?;
    /// assert_eq!(t.join().unwrap().as_deref(), Some("compactor"));
    /// assert_eq!(s.tracked_len(), 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn spawn_thread_with<F, T>(
        &self,
        builder: std::thread::Builder,
        f: F,
    ) -> std::io::Result<std::thread::JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.tracked(
            Kind::Thread,
            None,
            std::any::type_name::<F>,
            Location::caller(),
            |scope, key| {
                let g = Guard::new(scope, key, Kind::Thread);
                let f = crate::unit::spawned_fn(f);
                builder.spawn(move || g.run(f))
            },
            |_| None,
        )
    }

    /// Waits for tracked tasks to end, at most `budget`; then aborts the rest and reports.
    ///
    /// * Returns as soon as the last tracked task ends (it is woken, it does not poll).
    /// * At the budget, every tracked async task still alive is aborted (`AbortHandle::abort`),
    ///   and the drain waits up to [`ABORT_LANDING`](crate::drain::ABORT_LANDING) for the
    ///   aborts to land. Blocking jobs that have not started are cancelled; running blocking
    ///   jobs and threads are reported in `still_running_blocking`.
    /// * A task that ends by itself — including by observing the flag at a checkpoint — counts
    ///   as `drained`.
    /// * **Spawns during a drain** are accepted and tracked like any other (the drain waits for
    ///   them, and aborts them at the budget); they are counted in `spawned_during_drain`.
    /// * The drain does not request shutdown itself: call [`request`](Shutdown::request) first
    ///   if the tasks should stop.
    ///
    /// Drains of one scope run one at a time.
    ///
    /// ```
    /// # async fn demo() {
    /// use std::time::Duration;
    /// let s = shutdown_runtime::Shutdown::new();
    /// s.spawn(tokio::time::sleep(Duration::from_millis(5)));
    /// let report = s.drain(Duration::from_secs(1)).await;
    /// assert_eq!((report.drained, report.aborted.len()), (1, 0));
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    ///
    /// # Cancel safety
    ///
    /// If the future is dropped early, nothing is aborted; a later drain starts afresh.
    pub async fn drain(&self, budget: Duration) -> DrainReport {
        crate::drain::drain(&self.inner, budget).await
    }

    /// Aborts every tracked async task now (the "abort everything" escalation); returns how
    /// many were aborted.
    ///
    /// ```
    /// # async fn demo() {
    /// let s = shutdown_runtime::Shutdown::new();
    /// let h = s.spawn(std::future::pending::<()>());
    /// assert_eq!(s.abort_all(), 1);
    /// assert!(h.await.unwrap_err().is_cancelled());
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    pub fn abort_all(&self) -> usize {
        self.inner.registry.abort_all().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_waiter_wakes_and_late_waiters_return_at_once() {
        let s = Shutdown::new();
        let early = s.wait(); // created before the request, polled after: not lost
        let waiters: Vec<_> = (0..50).map(|_| tokio::spawn(s.wait())).collect();
        tokio::task::yield_now().await;
        s.request();
        for w in waiters {
            w.await.unwrap();
        }
        early.await;
        s.wait().await;
        assert!(format!("{:?}", s.wait()).contains("requested: true"));
    }

    #[test]
    fn the_first_reason_wins_and_the_time_is_recorded() {
        let s = Shutdown::new();
        assert!(s.requested_at().is_none());
        s.request_with(ShutdownReason::Signal(15));
        let t = s.requested_at().unwrap();
        s.request_with(ShutdownReason::Signal(2));
        s.request();
        assert_eq!(s.reason(), Some(ShutdownReason::Signal(15)));
        assert_eq!(s.requested_at(), Some(t));
    }

    #[tokio::test]
    async fn tasks_remove_themselves_when_done() {
        let s = Shutdown::new();
        let handles: Vec<_> = (0..1000).map(|i| s.spawn(async move { i })).collect();
        let mut sum = 0;
        for h in handles {
            sum += h.await.unwrap();
        }
        assert_eq!(sum, 999 * 1000 / 2);
        assert_eq!(s.tracked_len(), 0);
        assert!(format!("{s:?}").contains("tracked: 0"));
    }

    #[test]
    fn spawn_outside_a_runtime_panics_like_tokio_and_leaves_no_trace() {
        let s = Shutdown::new();
        let r = std::panic::catch_unwind(AssertUnwindSafe(|| drop(s.spawn(async {}))));
        assert!(r.is_err());
        assert_eq!(s.tracked_len(), 0);
    }

    use std::panic::AssertUnwindSafe;
}
