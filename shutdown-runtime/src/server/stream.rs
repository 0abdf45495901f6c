//! [`UntilPhase`]: ends a long-lived response stream (SSE, gRPC server streaming) when the
//! server starts stopping: between two items, never in the middle of one.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;

use crate::phase::{Phase, Phases};

/// A stream that ends once its [`Phases`] reach a phase (by default
/// [`Phase::Stopping`]): the shutdown notification of a long-lived response. It ends between
/// items — an item is a whole value, so an SSE event already sent is complete and none is ever
/// cut — and the response then ends cleanly (for gRPC: with its trailers), so its connection
/// can close. The notification is checked before each poll of the inner stream, and it wakes
/// a stream that is waiting for its next item. Made by
/// [`until_stopping`] / [`until_phase`].
///
/// # Examples
///
/// ```
/// # async fn demo() {
/// use futures_core::Stream;
/// use shutdown_runtime::phase::{Phase, Phases};
/// use shutdown_runtime::server::until_phase;
///
/// let phases = Phases::new();
/// let mut events = Box::pin(until_phase(tokio_stream_iter(), &phases, Phase::Stopping));
/// assert_eq!(next(&mut events).await, Some(0));
/// phases.advance(Phase::Stopping);
/// assert_eq!(next(&mut events).await, None); // told to end: no new event starts
/// # fn tokio_stream_iter() -> impl Stream<Item = u32> { Counter(0) }
/// # struct Counter(u32);
/// # impl Stream for Counter {
/// #     type Item = u32;
/// #     fn poll_next(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<Option<u32>> {
/// #         self.0 += 1; std::task::Poll::Ready(Some(self.0 - 1))
/// #     }
/// # }
/// # async fn next<S: Stream + Unpin>(s: &mut S) -> Option<S::Item> {
/// #     std::future::poll_fn(|cx| std::pin::Pin::new(&mut *s).poll_next(cx)).await
/// # }
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[must_use = "streams do nothing unless polled"]
pub struct UntilPhase<S> {
    stream: Pin<Box<S>>,
    /// `None` once the phase was reached (the stream is over).
    reached: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl<S> fmt::Debug for UntilPhase<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UntilPhase")
            .field("ended", &self.reached.is_none())
            .finish()
    }
}

/// Ends `stream` when the global [`Phases`] reach [`Phase::Stopping`] (see [`UntilPhase`]).
///
/// ```
/// # async fn demo() {
/// use shutdown_runtime::server::until_stopping;
/// let events = until_stopping(empty());
/// # let _ = events;
/// # fn empty() -> impl futures_core::Stream<Item = ()> { struct E; impl futures_core::Stream for E { type Item = (); fn poll_next(self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<Option<()>> { std::task::Poll::Ready(None) } } E }
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
pub fn until_stopping<S: Stream>(stream: S) -> UntilPhase<S> {
    until_phase(stream, Phases::global(), Phase::Stopping)
}

/// Ends `stream` when `phases` reach `phase` (see [`UntilPhase`]).
///
/// ```
/// use shutdown_runtime::phase::{Phase, Phases};
/// # fn empty() -> impl futures_core::Stream<Item = ()> { struct E; impl futures_core::Stream for E { type Item = (); fn poll_next(self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<Option<()>> { std::task::Poll::Ready(None) } } E }
/// let events = shutdown_runtime::server::until_phase(empty(), &Phases::new(), Phase::NotReady);
/// # let _ = events;
/// ```
pub fn until_phase<S: Stream>(stream: S, phases: &Phases, phase: Phase) -> UntilPhase<S> {
    UntilPhase {
        stream: Box::pin(stream),
        reached: Some(Box::pin(phases.reached(phase))),
    }
}

impl<S: Stream> Stream for UntilPhase<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = &mut *self;
        let Some(reached) = this.reached.as_mut() else {
            return Poll::Ready(None);
        };
        // Polled first (and so registered for the wake-up) every time: between two items the
        // notification wins.
        if reached.as_mut().poll(cx).is_ready() {
            this.reached = None;
            return Poll::Ready(None);
        }
        let next = this.stream.as_mut().poll_next(cx);
        if let Poll::Ready(None) = next {
            this.reached = None;
        }
        next
    }
}
