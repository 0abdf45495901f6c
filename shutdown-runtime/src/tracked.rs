//! The wrapper every tracked task runs in ([`Tracked`]: its own unit context, panics recorded,
//! its registry slot freed when it ends) and the guard of blocking jobs and threads ([`Guard`]).

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
    /// A tracked task's future, one wrapper for everything a task needs (so a small future's
    /// tokio task cell stays in tokio's 128-byte size class: `F` + 24 bytes at most):
    ///
    /// * its own unit context (`ctx`, see `unit.rs`), swapped in around every poll and around
    ///   the drop of `fut`, exactly like [`unit::Isolated`](crate::unit::Isolated);
    /// * a panic is recorded before it propagates (the `JoinHandle` still reports
    ///   `JoinError::Panic`);
    /// * the registry slot (`scope`, `key`), freed after `fut` is dropped, however the task
    ///   ends (completed, panicked, aborted, dropped by the runtime).
    pub(crate) struct Tracked<F> {
        // `None` only while being dropped (see the drop below).
        #[pin]
        fut: Option<F>,
        scope: ScopeRef,
        key: Key,
        ctx: u32,
        how: TaskEnd,
    }

    impl<F> PinnedDrop for Tracked<F> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            // Declared first, dropped last: the task counts as ended only after its future
            // (and everything it owns) is gone — also when that drop panics, so the end is
            // never lost.
            let _end = End {
                scope: this.scope,
                key: *this.key,
                how: *this.how,
            };
            let mut fut = this.fut;
            // Dropped inside the task's own unit context, so a unit guard it holds (a task
            // aborted mid-unit) decrements the task's counter, not the dropper's.
            crate::unit::with_context(this.ctx, || fut.set(None));
        }
    }
}

/// Reports a task's end when dropped (see [`Tracked`]'s drop).
struct End<'a> {
    scope: &'a ScopeRef,
    key: Key,
    how: TaskEnd,
}

impl Drop for End<'_> {
    fn drop(&mut self) {
        self.scope.registry.end(self.key, Kind::Task, self.how);
    }
}

impl<F> Tracked<F> {
    /// Wraps `fut` for the slot `key` of `scope`'s registry, in the unit context a task
    /// spawned now starts in.
    #[inline]
    pub(crate) fn new(fut: F, scope: ScopeRef, key: Key) -> Tracked<F> {
        Tracked {
            fut: Some(fut),
            scope,
            key,
            ctx: crate::unit::spawned_context(),
            how: TaskEnd::Cancelled,
        }
    }
}

impl<F: Future> Future for Tracked<F> {
    type Output = F::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let mut fut = this.fut;
        let polled = crate::unit::with_context(this.ctx, || {
            catch_unwind(AssertUnwindSafe(|| match fut.as_mut().as_pin_mut() {
                Some(fut) => fut.poll(cx),
                // Only reachable after drop began; a future is never polled then.
                None => Poll::Pending,
            }))
        });
        match polled {
            Ok(Poll::Ready(v)) => {
                *this.how = TaskEnd::Completed;
                Poll::Ready(v)
            }
            Ok(Poll::Pending) => Poll::Pending,
            Err(p) => {
                *this.how = TaskEnd::Panicked;
                this.scope
                    .registry
                    .record_panic(*this.key, panic_message(&*p));
                resume_unwind(p)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_future_stays_in_tokios_128_byte_task_cell() {
        // tokio's task cell holds futures of up to 24 bytes in its 128-byte class (measured
        // with tokio 1.54: 25 bytes and more take 256); `benches/memory.rs` measures the cell.
        assert!(std::mem::size_of::<Tracked<std::future::Pending<()>>>() <= 24);
        assert!(std::mem::size_of::<ScopeRef>() == 8);
    }
}
