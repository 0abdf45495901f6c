//! Units of work: which code is inside a *claimed unit*, so a checkpoint never cuts it.
//!
//! A loop that claims units of work (a job off a queue, a request, a card) must finish the
//! unit it claimed: stopping half-way is the incident this toolkit exists for. Each task (and
//! each thread) has a *unit context*, a depth counter:
//!
//! * [`enter`] marks the current context as inside a claimed unit until the returned
//!   [`UnitGuard`] drops (nesting allowed: the depth counts guards);
//! * [`in_unit`] tells whether the current context is inside one;
//! * [`isolate`] gives a future its own context (tracked spawns, [`run`](crate::run)'s main
//!   future and served connections use it), so units claimed by other tasks polled on the
//!   same thread are not seen;
//! * [`claimed`] runs a future as one claimed unit (isolated, inside a unit for its whole
//!   life): the server integration wraps each request in it.
//!
//! The checkpoints that `#[drainable]` inserts consult the context only after shutdown was
//! requested (their fast path stays one atomic load): inside a claimed unit they do not stop,
//! so the enclosing unit — in the same function, in a caller's loop, or a request being
//! served — runs to its end.
//!
//! Sync code (threads, `spawn_blocking`) uses its thread's own context.
//!
//! # Spawned tasks
//!
//! A task spawned with the tracked spawns is its own unit of work: it starts outside any
//! unit, even when spawned from a loop's claimed unit (a coordinator that hands each job to a
//! detached child: the child's loop stops between its own units and records a partial
//! result). The one exception is a task spawned while a [`claimed`] future runs (a request
//! being served): it belongs to that request and starts inside its unit, so a checkpoint in a
//! task that writes the response body never cuts the response.
//!
//! # Caveat
//!
//! The context lives in a thread-local that [`Isolated`] swaps in and out around each poll.
//! A future that is *not* isolated (an untracked `tokio::spawn`, or two futures joined in the
//! same task) shares the context of whatever polls it: a guard it holds across an `.await` is
//! seen by other code polled on that thread meanwhile. Use the tracked spawns
//! ([`spawn`](crate::spawn) & co.), which isolate every task. A guard dropped outside its
//! context (e.g. moved to another thread) decrements that thread's counter, saturating at 0.
//!
//! # Examples
//!
//! ```
//! use shutdown_runtime::unit;
//!
//! assert!(!unit::in_unit());
//! {
//!     let _unit = unit::enter();
//!     assert!(unit::in_unit()); // a checkpoint reached here would not stop its loop
//! }
//! assert!(!unit::in_unit());
//! ```

use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

thread_local! {
    /// The unit context being run on this thread: the depth in the low 31 bits, plus
    /// [`REQUEST`] when the context is (or was spawned from) a [`claimed`] future.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// The context flag of a [`claimed`] future and of the tasks spawned while it runs.
const REQUEST: u32 = 1 << 31;

/// The number of claimed units the current context is inside (0: none).
///
/// ```
/// use shutdown_runtime::unit;
/// let outer = unit::enter();
/// let inner = unit::enter();
/// assert_eq!(unit::depth(), 2);
/// drop(inner);
/// drop(outer);
/// assert_eq!(unit::depth(), 0);
/// ```
#[inline]
pub fn depth() -> u32 {
    DEPTH.with(Cell::get) & !REQUEST
}

/// Whether the current context is inside a claimed unit (see [`enter`], [`claimed`]).
///
/// ```
/// use shutdown_runtime::unit;
/// assert!(!unit::in_unit());
/// let _unit = unit::enter();
/// assert!(unit::in_unit());
/// ```
#[inline]
pub fn in_unit() -> bool {
    DEPTH.with(Cell::get) != 0
}

/// Marks the current context as inside a claimed unit until the returned guard drops.
///
/// Guards nest (a depth counter). `#[drainable]` takes one for each iteration of a loop that
/// claims units, so a `#[drainable]` function called from inside that iteration does not stop
/// its own loops half-way.
///
/// # Examples
///
/// ```
/// use shutdown_runtime::{Shutdown, unit};
///
/// let scope = Shutdown::new();
/// scope.request();
/// let unit = unit::enter();
/// assert_eq!(unit.depth(), 1);
/// // code that checks `unit::in_unit()` after the request knows it must finish its unit
/// assert!(scope.is_requested() && unit::in_unit());
/// drop(unit);
/// ```
#[must_use = "the unit ends when the guard drops"]
pub fn enter() -> UnitGuard {
    let depth = DEPTH.with(|d| {
        let raw = d.get();
        let depth = (raw & !REQUEST).saturating_add(1).min(!REQUEST);
        d.set((raw & REQUEST) | depth);
        depth
    });
    UnitGuard { depth }
}

/// Keeps the current context inside a claimed unit; see [`enter`].
///
/// `Send` (it may be held across an `.await` in a task that moves between threads: the task's
/// context moves with it when the task is [isolated](isolate)), not `Clone`.
///
/// ```
/// let guard = shutdown_runtime::unit::enter();
/// assert!(format!("{guard:?}").contains("depth: 1"));
/// ```
#[must_use = "the unit ends when the guard drops"]
pub struct UnitGuard {
    depth: u32,
}

impl UnitGuard {
    /// The depth this guard set when it was taken (1 for the outermost unit of a context).
    ///
    /// ```
    /// let a = shutdown_runtime::unit::enter();
    /// let b = shutdown_runtime::unit::enter();
    /// assert_eq!((a.depth(), b.depth()), (1, 2));
    /// ```
    pub fn depth(&self) -> u32 {
        self.depth
    }
}

impl fmt::Debug for UnitGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnitGuard")
            .field("depth", &self.depth)
            .finish()
    }
}

impl Drop for UnitGuard {
    fn drop(&mut self) {
        // Saturating: a guard dropped in another context must not wrap that one's counter.
        DEPTH.with(|d| {
            let raw = d.get();
            let depth = (raw & !REQUEST).saturating_sub(1);
            d.set((raw & REQUEST) | depth);
        });
    }
}

/// Swaps `depth` into the thread's context for the duration of `f`, and back afterwards, also
/// when `f` panics. (The tracked task wrapper, `tracked.rs`, calls it around every poll and
/// around the drop of its future, as [`Isolated`] does.)
#[inline]
pub(crate) fn with_context<R>(saved: &mut u32, f: impl FnOnce() -> R) -> R {
    struct Restore<'a> {
        saved: &'a mut u32,
        outer: u32,
    }
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            *self.saved = DEPTH.with(|d| d.replace(self.outer));
        }
    }
    let outer = DEPTH.with(|d| d.replace(*saved));
    let _restore = Restore { saved, outer };
    f()
}

pin_project! {
    /// A future with its own unit context; see [`isolate`].
    #[must_use = "futures do nothing unless polled"]
    pub struct Isolated<F> {
        depth: u32,
        #[pin]
        fut: Option<F>,
    }

    impl<F> PinnedDrop for Isolated<F> {
        fn drop(this: Pin<&mut Self>) {
            // The future is dropped inside its own context too, so a guard it holds (e.g.
            // a task aborted mid-unit) decrements its own counter, not the dropper's.
            let this = this.project();
            let mut fut = this.fut;
            with_context(this.depth, || fut.set(None));
        }
    }
}

impl<F> fmt::Debug for Isolated<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Isolated")
            .field("depth", &(self.depth & !REQUEST))
            .field("request", &(self.depth & REQUEST != 0))
            .finish_non_exhaustive()
    }
}

/// Gives `fut` its own unit context: on every poll (and on drop) the thread's context is
/// swapped with the future's saved one and swapped back afterwards, also on panic.
///
/// The future starts outside any unit, whatever the context of the code that created it:
/// a spawned task is its own unit of work. Tracked spawns, [`run`](crate::run)'s main future
/// and served connections are isolated this way.
///
/// # Examples
///
/// ```
/// # async fn demo() {
/// use shutdown_runtime::unit;
///
/// let _unit = unit::enter();
/// let seen = unit::isolate(async { unit::in_unit() }).await;
/// assert!(!seen); // its own context: the caller's unit is not seen
/// assert!(unit::in_unit()); // and the caller's context is restored
/// # }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(demo());
/// ```
///
/// # Cancel safety
///
/// Dropping an `Isolated` drops the inner future inside its own context.
pub fn isolate<F: Future>(fut: F) -> Isolated<F> {
    Isolated {
        depth: 0,
        fut: Some(fut),
    }
}

/// The context of a task spawned now (used by the tracked spawns, whose wrapper carries it
/// and swaps it in like [`Isolated`]): its own, starting outside any unit — unless it is
/// spawned while a [`claimed`] future (a request being served) runs, in which case it belongs
/// to that request and starts inside a unit.
///
/// Units claimed by a *loop* ([`enter`]) do not pass to spawned tasks: a coordinator that
/// hands each job to a child task leaves the child free to stop between its own units and
/// record a partial result. Work spawned to serve a request (a task writing the response body
/// into a pipe) is part of the request, and a checkpoint in it does not cut the response.
#[inline]
pub(crate) fn spawned_context() -> u32 {
    let raw = DEPTH.with(Cell::get);
    if raw & REQUEST != 0 { REQUEST | 1 } else { 0 }
}

/// [`spawned_context`] for sync work (tracked `spawn_blocking` and threads): `f` runs in the
/// context a task spawned now would start in, and the thread's context is restored afterwards.
pub(crate) fn spawned_fn<R>(f: impl FnOnce() -> R) -> impl FnOnce() -> R {
    let mut depth = spawned_context();
    move || with_context(&mut depth, f)
}

impl<F: Future> Future for Isolated<F> {
    type Output = F::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let fut = this.fut;
        with_context(this.depth, || match fut.as_pin_mut() {
            Some(fut) => fut.poll(cx),
            // Only reachable after drop began; a future is never polled then.
            None => Poll::Pending,
        })
    }
}

pin_project! {
    /// A future run as one claimed unit; see [`claimed`].
    #[must_use = "futures do nothing unless polled"]
    pub struct Claimed<F> {
        #[pin]
        inner: Isolated<F>,
    }
}

impl<F> fmt::Debug for Claimed<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Claimed").finish_non_exhaustive()
    }
}

/// Runs `fut` as one claimed unit: isolated (see [`isolate`]) and inside a unit for its whole
/// life, so no checkpoint reached while it runs stops its loop — e.g. a request being served,
/// whatever `#[drainable]` functions its handler calls.
///
/// # Examples
///
/// ```
/// # async fn demo() {
/// use shutdown_runtime::unit;
///
/// let served = unit::claimed(async { unit::in_unit() }).await;
/// assert!(served);
/// assert!(!unit::in_unit());
/// # }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(demo());
/// ```
///
/// # Cancel safety
///
/// As [`isolate`]: dropping it drops the inner future inside its own context.
pub fn claimed<F: Future>(fut: F) -> Claimed<F> {
    Claimed {
        inner: Isolated {
            depth: REQUEST | 1,
            fut: Some(fut),
        },
    }
}

impl<F: Future> Future for Claimed<F> {
    type Output = F::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.project().inner.poll(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn guards_nest_and_restore() {
        assert_eq!(depth(), 0);
        let a = enter();
        let b = enter();
        assert_eq!((a.depth(), b.depth(), depth()), (1, 2, 2));
        drop(b);
        assert!(in_unit());
        drop(a);
        assert!(!in_unit());
    }

    #[test]
    fn a_guard_dropped_in_another_context_saturates() {
        let g = enter();
        let other = std::thread::spawn(move || {
            drop(g);
            depth()
        })
        .join()
        .unwrap();
        assert_eq!(other, 0);
        // this thread's counter is still 1: the caveat documented in the module
        assert_eq!(depth(), 1);
        DEPTH.with(|d| d.set(0));
    }

    #[tokio::test]
    async fn isolated_tasks_do_not_see_each_others_units() {
        let rt_seen = Arc::new(AtomicU32::new(0));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let holder = isolate(async move {
            let _unit = enter();
            rx.await.ok();
            depth()
        });
        let seen = rt_seen.clone();
        let observer = isolate(async move {
            seen.store(depth() + 1, Ordering::SeqCst);
            tx.send(()).ok();
        });
        let (held, ()) = tokio::join!(holder, observer);
        assert_eq!(held, 1);
        assert_eq!(rt_seen.load(Ordering::SeqCst), 1, "observer saw depth 0");
        assert_eq!(depth(), 0);
    }

    #[tokio::test]
    async fn claimed_is_a_unit_for_its_whole_life_and_nests() {
        let v = claimed(async {
            let before = depth();
            let inner = enter();
            tokio::task::yield_now().await;
            let during = inner.depth();
            drop(inner);
            (before, during, depth())
        })
        .await;
        assert_eq!(v, (1, 2, 1));
        assert_eq!(depth(), 0);
    }

    #[test]
    fn a_panic_inside_a_poll_restores_the_context() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.block_on(claimed(async {
                let _g = enter();
                if depth() == 2 {
                    panic!("inside a unit");
                }
            }))
        }));
        assert!(r.is_err());
        assert_eq!(depth(), 0);
    }

    #[test]
    fn dropping_an_isolated_future_mid_unit_leaves_the_dropper_alone() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut fut = Box::pin(isolate(async {
            let _g = enter();
            std::future::pending::<()>().await;
        }));
        rt.block_on(async {
            let waker = std::task::Waker::noop();
            let mut cx = Context::from_waker(waker);
            assert!(fut.as_mut().poll(&mut cx).is_pending());
        });
        let outer = enter();
        drop(fut); // the guard inside is dropped in the future's own context
        assert_eq!(depth(), 1);
        drop(outer);
        assert_eq!(depth(), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_unit_moves_with_its_task_across_threads() {
        let h = tokio::spawn(isolate(async {
            let _g = enter();
            for _ in 0..50 {
                tokio::task::yield_now().await;
                assert_eq!(depth(), 1);
            }
        }));
        h.await.unwrap();
    }
}
