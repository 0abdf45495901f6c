//! The wrapper every tracked task runs in: captures panics and removes its registry slot when
//! it ends (completes, panics, or is dropped by an abort).

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::pin::Pin;
use std::ptr::NonNull;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::registry::{Key, Outcome};
use crate::scope::Inner;

/// Owns a task's registry slot; its drop reports how the task ended.
///
/// It points at the scope without owning a reference count of its own: the live tasks of a
/// scope collectively hold one strong reference (see `registry.rs`), so the pointer stays
/// valid until the last task's guard has returned from `Registry::end`.
pub(crate) struct Guard {
    inner: NonNull<Inner>,
    key: Key,
    outcome: Outcome,
}

// SAFETY: `Inner` is `Send + Sync` (atomics, mutexes, Notify); the guard only reads it through
// shared references, exactly like an `Arc<Inner>` would.
unsafe impl Send for Guard {}
// SAFETY: see above.
unsafe impl Sync for Guard {}

impl Guard {
    /// `inner` must come from `Arc::as_ptr` of the scope whose registry holds `key`.
    pub(crate) fn new(inner: *const Inner, key: Key) -> Guard {
        Guard {
            inner: NonNull::from(
                // SAFETY: `Arc::as_ptr` never returns null.
                unsafe { &*inner },
            ),
            key,
            outcome: Outcome::Cancelled,
        }
    }

    fn inner(&self) -> &Inner {
        // SAFETY: the collective reference keeps `Inner` alive while this guard exists.
        unsafe { self.inner.as_ref() }
    }

    pub(crate) fn completed(&mut self) {
        self.outcome = Outcome::Completed;
    }

    pub(crate) fn panicked(&mut self, payload: &(dyn Any + Send)) {
        self.outcome = Outcome::Panicked;
        self.inner()
            .registry
            .record_panic(self.key, panic_message(payload));
    }

    /// Runs a blocking closure under this guard: panics are recorded, then propagated.
    pub(crate) fn run<R>(mut self, f: impl FnOnce() -> R) -> R {
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(v) => {
                self.completed();
                v
            }
            Err(p) => {
                self.panicked(&*p);
                drop(self);
                resume_unwind(p)
            }
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let idle = self.inner().registry.end(self.key, self.outcome);
        if idle {
            // The registry became idle: drop the collective reference taken when it became
            // busy. Nothing touches `Inner` through this guard afterwards.
            // SAFETY: that reference was taken with `Arc::increment_strong_count` on this
            // very pointer (see `Shutdown::tracked`).
            unsafe { Arc::decrement_strong_count(self.inner.as_ptr().cast_const()) };
        }
    }
}

/// The text of a panic payload (`&str` or `String`), or a placeholder.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_owned()
    }
}

/// A tracked future: polls `fut`, records a panic before letting it propagate (so the
/// `JoinHandle` still reports `JoinError::Panic`), and drops `guard` after `fut`.
pub(crate) struct Tracked<F> {
    // Field order matters: `fut` is dropped before `guard`, so a task counts as ended only
    // after its future (and everything it owns) is gone.
    fut: F,
    guard: Guard,
}

impl<F> Tracked<F> {
    pub(crate) fn new(fut: F, guard: Guard) -> Tracked<F> {
        Tracked { fut, guard }
    }
}

impl<F: Future> Future for Tracked<F> {
    type Output = F::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `fut` is structurally pinned: it is never moved out of `self` and `Tracked`
        // has no `Drop` impl of its own; `guard` is not pinned (it is `Unpin` data).
        let this = unsafe { self.get_unchecked_mut() };
        let fut = unsafe { Pin::new_unchecked(&mut this.fut) };
        match catch_unwind(AssertUnwindSafe(|| fut.poll(cx))) {
            Ok(Poll::Ready(v)) => {
                this.guard.completed();
                Poll::Ready(v)
            }
            Ok(Poll::Pending) => Poll::Pending,
            Err(p) => {
                this.guard.panicked(&*p);
                resume_unwind(p)
            }
        }
    }
}
