//! [`Phase`] and [`Phases`]: where the life cycle is (running → not-ready → stopping →
//! aborting → exited), as a watch-style value a server reads to turn not-ready, stop
//! accepting and close idle connections.

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use crate::scope::Shutdown;

/// A phase of the life cycle. Phases only move forward, in this order; a phase may be skipped
/// (an idle program goes from `Stopping` to `Exited` without `Aborting`).
///
/// | phase | entered when | a server |
/// |---|---|---|
/// | `Running` | start | ready, accepting |
/// | `NotReady` | shutdown is requested (first signal) | readiness answers 503, still accepting for the ready-delay |
/// | `Stopping` | the ready-delay is over | stops accepting, closes idle connections, finishes requests in flight, tells streams to end |
/// | `Aborting` | the children budget ran out with tasks left | the rest is aborted and named |
/// | `Exited` | the life cycle is over | |
///
/// ```
/// use shutdown_runtime::phase::Phase;
/// assert!(Phase::Running < Phase::NotReady && Phase::Aborting < Phase::Exited);
/// assert_eq!(Phase::NotReady.to_string(), "not-ready");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// Serving normally.
    Running,
    /// Shutdown requested: readiness is off, new work is still accepted (ready-delay).
    NotReady,
    /// No new work: requests and tasks in flight finish within the children budget.
    Stopping,
    /// The children budget ran out: what is left is being aborted.
    Aborting,
    /// The life cycle is over.
    Exited,
}

impl Phase {
    /// Every phase, in order.
    ///
    /// ```
    /// assert_eq!(shutdown_runtime::phase::Phase::ALL.len(), 5);
    /// ```
    pub const ALL: [Phase; 5] = [
        Phase::Running,
        Phase::NotReady,
        Phase::Stopping,
        Phase::Aborting,
        Phase::Exited,
    ];

    /// The kebab-case name (`running`, `not-ready`, `stopping`, `aborting`, `exited`), also the
    /// `phase` label of the metrics.
    ///
    /// ```
    /// assert_eq!(shutdown_runtime::phase::Phase::Stopping.as_str(), "stopping");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Running => "running",
            Phase::NotReady => "not-ready",
            Phase::Stopping => "stopping",
            Phase::Aborting => "aborting",
            Phase::Exited => "exited",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }

    const fn from_index(i: u8) -> Phase {
        match i {
            0 => Phase::Running,
            1 => Phase::NotReady,
            2 => Phase::Stopping,
            3 => Phase::Aborting,
            _ => Phase::Exited,
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

struct Inner {
    /// A scope whose shutdown request counts as [`Phase::NotReady`] at once, before the life
    /// cycle gets to advance the phase (readiness turns off with the request itself).
    scope: Option<Shutdown>,
    /// The current phase as `Phase as u8`, for the lock-free [`Phases::is_ready`].
    current: AtomicU8,
    tx: watch::Sender<Phase>,
    /// When each phase was entered (skipped phases get the time of the jump).
    entered: Mutex<[Option<Instant>; 5]>,
}

/// The life cycle's phases as a watch-style value: read it at any time
/// ([`current`](Phases::current), [`is_ready`](Phases::is_ready), lock-free), wait for a phase
/// ([`reached`](Phases::reached), no polling, any number of waiters), or
/// [`subscribe`](Phases::subscribe) to every change. A cheap `Clone` handle.
///
/// [`run`](crate::run) drives [`Phases::global`] (or the one given to
/// [`RunConfig::phases`](crate::RunConfig::phases)): `NotReady` at the shutdown request,
/// `Stopping` after [`RunConfig::ready_delay`](crate::RunConfig::ready_delay), `Aborting` when
/// the children budget runs out with tasks left, `Exited` at the end; it then records the time
/// spent in each phase in the metrics (`shutdown_phase_seconds{phase}`, feature `metrics`).
///
/// # Examples
///
/// ```
/// # async fn demo() {
/// use shutdown_runtime::phase::{Phase, Phases};
///
/// let phases = Phases::new();
/// let stopping = phases.reached(Phase::Stopping);
/// assert!(phases.is_ready());
/// assert!(phases.advance(Phase::NotReady));
/// assert!(!phases.is_ready());
/// assert!(phases.advance(Phase::Stopping));
/// assert!(!phases.advance(Phase::NotReady)); // never backwards
/// stopping.await;
/// assert_eq!(phases.current(), Phase::Stopping);
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[derive(Clone)]
pub struct Phases {
    inner: Arc<Inner>,
}

impl fmt::Debug for Phases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Phases")
            .field("current", &self.current())
            .finish()
    }
}

impl Default for Phases {
    /// Same as [`Phases::new`].
    fn default() -> Phases {
        Phases::new()
    }
}

static GLOBAL: OnceLock<Phases> = OnceLock::new();

impl Phases {
    /// New phases, starting at [`Phase::Running`] now.
    ///
    /// ```
    /// let p = shutdown_runtime::phase::Phases::new();
    /// assert_eq!(p.current(), shutdown_runtime::phase::Phase::Running);
    /// ```
    pub fn new() -> Phases {
        Phases::with_scope(None)
    }

    /// New phases tied to `scope`: from the moment its shutdown is requested they read as at
    /// least [`Phase::NotReady`] (readiness is off with the request itself, even before the
    /// life cycle advances them). [`Phases::global`] is tied to [`Shutdown::global`].
    ///
    /// ```
    /// use shutdown_runtime::{Shutdown, phase::{Phase, Phases}};
    /// let scope = Shutdown::new();
    /// let p = Phases::linked(&scope);
    /// assert!(p.is_ready());
    /// scope.request();
    /// assert!(!p.is_ready());
    /// assert_eq!(p.current(), Phase::NotReady);
    /// ```
    pub fn linked(scope: &Shutdown) -> Phases {
        Phases::with_scope(Some(scope.clone()))
    }

    fn with_scope(scope: Option<Shutdown>) -> Phases {
        let mut entered = [None; 5];
        entered[0] = Some(Instant::now());
        Phases {
            inner: Arc::new(Inner {
                scope,
                current: AtomicU8::new(Phase::Running as u8),
                tx: watch::Sender::new(Phase::Running),
                entered: Mutex::new(entered),
            }),
        }
    }

    /// The process-wide phases, driven by [`run`](crate::run) on the global scope and read by
    /// the servers of [`server`](crate::server) (feature `hyper`) by default.
    ///
    /// ```
    /// let g = shutdown_runtime::phase::Phases::global();
    /// assert!(std::ptr::eq(g, shutdown_runtime::phase::Phases::global()));
    /// ```
    pub fn global() -> &'static Phases {
        GLOBAL.get_or_init(|| Phases::linked(Shutdown::global()))
    }

    /// The current phase.
    ///
    /// ```
    /// use shutdown_runtime::phase::{Phase, Phases};
    /// let p = Phases::new();
    /// p.advance(Phase::Aborting);
    /// assert_eq!(p.current(), Phase::Aborting);
    /// ```
    pub fn current(&self) -> Phase {
        // Acquire: pairs with the Release store in `advance`; the phase value is all a reader
        // needs (the timestamps are read under the mutex).
        let stored = Phase::from_index(self.inner.current.load(Ordering::Acquire));
        if stored == Phase::Running && self.requested() {
            Phase::NotReady
        } else {
            stored
        }
    }

    #[inline]
    fn requested(&self) -> bool {
        self.inner
            .scope
            .as_ref()
            .is_some_and(Shutdown::is_requested)
    }

    /// Readiness: `true` only while [`Phase::Running`]. One atomic load, so a sync health
    /// check can call it on every probe.
    ///
    /// ```
    /// use shutdown_runtime::phase::{Phase, Phases};
    /// let p = Phases::new();
    /// assert!(p.is_ready());
    /// p.advance(Phase::NotReady);
    /// assert!(!p.is_ready());
    /// ```
    #[inline]
    pub fn is_ready(&self) -> bool {
        self.inner.current.load(Ordering::Acquire) == Phase::Running as u8 && !self.requested()
    }

    /// Moves to `to` if it is later than the current phase; returns whether it moved. Phases
    /// skipped on the way are recorded as entered at the same instant (zero time spent).
    ///
    /// ```
    /// use shutdown_runtime::phase::{Phase, Phases};
    /// let p = Phases::new();
    /// assert!(p.advance(Phase::Stopping));
    /// assert_eq!(p.time_in(Phase::NotReady), Some(std::time::Duration::ZERO));
    /// assert!(!p.advance(Phase::Stopping));
    /// ```
    pub fn advance(&self, to: Phase) -> bool {
        self.advance_at(to, Instant::now())
    }

    /// [`advance`](Phases::advance) recording `at` as the time `to` was entered (e.g. the time
    /// of the shutdown request for [`Phase::NotReady`]).
    pub(crate) fn advance_at(&self, to: Phase, at: Instant) -> bool {
        // The mutex orders concurrent advances; `current` is only written under it.
        let mut entered = self.inner.entered.lock().unwrap_or_else(|p| p.into_inner());
        let from = Phase::from_index(self.inner.current.load(Ordering::Acquire));
        let now = entered[from.index()].map_or(at, |prev| at.max(prev));
        if to <= from {
            return false;
        }
        for phase in &Phase::ALL[from.index() + 1..=to.index()] {
            entered[phase.index()] = Some(now);
        }
        // Release: a reader that sees the new phase sees everything done before the advance.
        self.inner.current.store(to as u8, Ordering::Release);
        drop(entered);
        self.inner.tx.send_replace(to);
        tracing::info!(target: "shutdown_runtime", phase = to.as_str(), from = from.as_str(), "phase");
        true
    }

    /// Resolves once the current phase is `phase` or later (at once if it already is). No
    /// polling; `'static`, so it can be moved into tasks.
    ///
    /// ```
    /// # async fn demo() {
    /// use shutdown_runtime::phase::{Phase, Phases};
    /// let p = Phases::new();
    /// let waiter = tokio::spawn(p.reached(Phase::Stopping));
    /// p.advance(Phase::Aborting); // later phases count as reached
    /// waiter.await.unwrap();
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: dropping it changes nothing.
    pub fn reached(&self, phase: Phase) -> impl Future<Output = ()> + Send + 'static + use<> {
        let mut rx = self.inner.tx.subscribe();
        // Not-ready starts with the linked scope's request, before `advance` records it.
        let request = self
            .inner
            .scope
            .as_ref()
            .filter(|_| phase == Phase::NotReady)
            .map(Shutdown::wait);
        async move {
            let advanced = async move {
                // The sender lives in `Inner`, which this receiver does not keep alive; if
                // every handle is gone no phase can be reached any more: wait forever.
                if rx.wait_for(|p| *p >= phase).await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            match request {
                Some(request) => tokio::select! {
                    () = request => {}
                    () = advanced => {}
                },
                None => advanced.await,
            }
        }
    }

    /// A `tokio::sync::watch` receiver of the phase, for code that reacts to every change.
    ///
    /// ```
    /// use shutdown_runtime::phase::{Phase, Phases};
    /// let p = Phases::new();
    /// let rx = p.subscribe();
    /// p.advance(Phase::NotReady);
    /// assert_eq!(*rx.borrow(), Phase::NotReady);
    /// ```
    pub fn subscribe(&self) -> watch::Receiver<Phase> {
        self.inner.tx.subscribe()
    }

    /// When `phase` was entered, or `None` if it was not (yet).
    ///
    /// ```
    /// use shutdown_runtime::phase::{Phase, Phases};
    /// let p = Phases::new();
    /// assert!(p.entered_at(Phase::Running).is_some());
    /// assert!(p.entered_at(Phase::Exited).is_none());
    /// ```
    pub fn entered_at(&self, phase: Phase) -> Option<std::time::Instant> {
        self.inner.entered.lock().unwrap_or_else(|p| p.into_inner())[phase.index()]
            .map(Instant::into_std)
    }

    /// How long the life cycle spent in `phase`: from entering it to entering the next phase
    /// that was reached (so far, for the current phase); `None` if it was never entered.
    ///
    /// ```
    /// use shutdown_runtime::phase::{Phase, Phases};
    /// let p = Phases::new();
    /// p.advance(Phase::NotReady);
    /// p.advance(Phase::Exited);
    /// assert!(p.time_in(Phase::NotReady).is_some());
    /// assert_eq!(p.time_in(Phase::Exited), Some(std::time::Duration::ZERO));
    /// ```
    pub fn time_in(&self, phase: Phase) -> Option<Duration> {
        let entered = *self.inner.entered.lock().unwrap_or_else(|p| p.into_inner());
        let start = entered[phase.index()]?;
        if phase == Phase::Exited {
            return Some(Duration::ZERO);
        }
        let end = entered[phase.index() + 1..]
            .iter()
            .flatten()
            .next()
            .copied()
            .unwrap_or_else(Instant::now);
        Some(end.saturating_duration_since(start))
    }

    /// Records the time spent in each shutdown phase (`not-ready`, `stopping`, `aborting`)
    /// in the histogram [`PHASE_SECONDS`] with a `phase` label (feature `metrics`; zero for
    /// phases that were skipped), and logs them in one `tracing` event.
    pub(crate) fn emit(&self) {
        let spent: Vec<(Phase, Duration)> = [Phase::NotReady, Phase::Stopping, Phase::Aborting]
            .into_iter()
            .map(|p| (p, self.time_in(p).unwrap_or_default()))
            .collect();
        tracing::info!(
            target: "shutdown_runtime",
            phase = "exit",
            not_ready_ms = spent[0].1.as_secs_f64() * 1e3,
            stopping_ms = spent[1].1.as_secs_f64() * 1e3,
            aborting_ms = spent[2].1.as_secs_f64() * 1e3,
            "time spent in each phase"
        );
        #[cfg(feature = "metrics")]
        for (phase, d) in spent {
            metrics::histogram!(PHASE_SECONDS, "phase" => phase.as_str()).record(d.as_secs_f64());
        }
    }
}

/// Name of the per-phase histogram (seconds spent in `not-ready`, `stopping`, `aborting`,
/// label `phase`), emitted at exit by [`run`](crate::run).
///
/// ```
/// assert_eq!(shutdown_runtime::phase::PHASE_SECONDS, "shutdown_phase_seconds");
/// ```
pub const PHASE_SECONDS: &str = "shutdown_phase_seconds";

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_waiter_wakes_on_a_jump_past_its_phase() {
        let p = Phases::new();
        let waiters: Vec<_> = [Phase::NotReady, Phase::Stopping, Phase::Aborting]
            .into_iter()
            .map(|ph| tokio::spawn(p.reached(ph)))
            .collect();
        tokio::task::yield_now().await;
        assert!(p.advance(Phase::Aborting));
        for w in waiters {
            w.await.unwrap();
        }
        p.reached(Phase::Running).await; // already reached: at once
        assert_eq!(p.time_in(Phase::NotReady), Some(Duration::ZERO));
        assert_eq!(p.time_in(Phase::Stopping), Some(Duration::ZERO));
        assert!(p.entered_at(Phase::Exited).is_none());
    }

    #[test]
    fn concurrent_advances_keep_the_order() {
        let p = Phases::new();
        std::thread::scope(|s| {
            for ph in Phase::ALL.into_iter().rev() {
                let p = p.clone();
                s.spawn(move || p.advance(ph));
            }
        });
        assert_eq!(p.current(), Phase::Exited);
        let times: Vec<std::time::Instant> = Phase::ALL
            .iter()
            .map(|&ph| p.entered_at(ph).unwrap())
            .collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    }
}
