//! The wrapper every tracked task runs in: captures panics and frees its registry slot when
//! it ends (completes, panics, or is dropped by an abort).

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use crate::inner::ScopeRef;
use crate::registry::{Key, Kind, TaskEnd};

/// Owns a task's registry slot; its drop reports how the task ended.
pub(crate) struct Guard {
    scope: ScopeRef,
    key: Key,
    kind: Kind,
    how: TaskEnd,
}

impl Guard {
    pub(crate) fn new(scope: ScopeRef, key: Key, kind: Kind) -> Guard {
        Guard {
            scope,
            key,
            kind,
            how: TaskEnd::Cancelled,
        }
    }

    pub(crate) fn completed(&mut self) {
        self.how = TaskEnd::Completed;
    }

    pub(crate) fn panicked(&mut self, payload: &(dyn Any + Send)) {
        self.how = TaskEnd::Panicked;
        self.scope
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
        self.scope.registry.end(self.key, self.kind, self.how);
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

pin_project! {
    /// A tracked future: polls `fut`, records a panic before letting it propagate (so the
    /// `JoinHandle` still reports `JoinError::Panic`), and drops `guard` after `fut`.
    pub(crate) struct Tracked<F> {
        // Field order matters: `fut` is dropped before `guard`, so a task counts as ended only
        // after its future (and everything it owns) is gone — also when that drop panics: the
        // remaining fields are still dropped while unwinding, so the end is never lost.
        #[pin]
        fut: F,
        guard: Guard,
    }
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
        let this = self.project();
        let fut = this.fut;
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
