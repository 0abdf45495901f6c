//! [`DrainBody`]: a response body; one of unknown length (a stream) is pumped by a tracked
//! task named by its route, so a stream that outlives the drain budget is aborted *and named*.

use std::borrow::Cow;
use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use tokio::sync::mpsc;

use crate::scope::Shutdown;

/// A boxed error, as hyper takes them.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

pin_project_lite::pin_project! {
    /// The response body served by [`Server`](super::Server).
    ///
    /// A body whose length is known (`size_hint().exact()`: a string, JSON, a file read whole) is
    /// passed through as it is. A body of unknown length — a stream: SSE, a gRPC server stream, a
    /// chunked download — is polled by a tracked task named like the request (`GET /sse`), which
    /// hands each frame over a one-slot channel: the drain waits for the stream, and if the
    /// stream does not end by the children budget, that task is aborted and the report names the
    /// route. The task ends when the stream ends or the client goes away.
    ///
    /// # Examples
    ///
    /// ```
    /// # async fn demo() {
    /// use http_body_util::{BodyExt, Full};
    /// use shutdown_runtime::{Shutdown, server::DrainBody};
    ///
    /// let scope = Shutdown::new();
    /// let body = DrainBody::new(Full::new(bytes::Bytes::from("ok")), &scope, || "GET /".into());
    /// assert_eq!(scope.tracked_len(), 0); // known length: no task
    /// assert_eq!(body.collect().await.unwrap().to_bytes(), "ok");
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    pub struct DrainBody<B> {
        #[pin]
        inner: Inner<B>,
    }
}

pin_project_lite::pin_project! {
    #[project = InnerProj]
    #[project_ref = InnerRef]
    enum Inner<B> {
        Direct { #[pin] body: B },
        Pumped { rx: mpsc::Receiver<Result<Frame<Bytes>, BoxError>> },
    }
}

impl<B> fmt::Debug for DrainBody<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.inner {
            Inner::Direct { .. } => "direct",
            Inner::Pumped { .. } => "pumped",
        };
        f.debug_struct("DrainBody").field("kind", &kind).finish()
    }
}

impl<B> DrainBody<B>
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    /// Wraps `body`; if its length is unknown, spawns the tracked task named `name()` on
    /// `scope` that pumps it.
    ///
    /// # Panics
    ///
    /// A body of unknown length outside a tokio runtime (the pump is a spawned task).
    ///
    /// ```
    /// # async fn demo() {
    /// use http_body_util::{BodyExt, StreamBody};
    /// use shutdown_runtime::{Shutdown, server::DrainBody};
    ///
    /// let scope = Shutdown::new();
    /// let frames = [Ok::<_, std::convert::Infallible>(http_body::Frame::data(bytes::Bytes::from("a")))];
    /// let stream = StreamBody::new(SimpleStream(frames.into_iter()));
    /// let body = DrainBody::new(stream, &scope, || "GET /sse".into());
    /// assert_eq!(body.collect().await.unwrap().to_bytes(), "a");
    /// # struct SimpleStream<I>(I);
    /// # impl<I: Iterator + Unpin> futures_core::Stream for SimpleStream<I> {
    /// #     type Item = I::Item;
    /// #     fn poll_next(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<Option<I::Item>> {
    /// #         std::task::Poll::Ready(self.0.next())
    /// #     }
    /// # }
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    #[track_caller]
    pub fn new(
        body: B,
        scope: &Shutdown,
        name: impl FnOnce() -> Cow<'static, str>,
    ) -> DrainBody<B> {
        if body.size_hint().exact().is_some() || body.is_end_stream() {
            return DrainBody {
                inner: Inner::Direct { body },
            };
        }
        let (tx, rx) = mpsc::channel(1);
        drop(scope.spawn_named(name(), pump(body, tx)));
        DrainBody {
            inner: Inner::Pumped { rx },
        }
    }
}

/// Moves frames from `body` to `tx`, one at a time (back-pressure: the next frame is read once
/// the client took the previous one); ends with the body or when the client is gone.
async fn pump<B>(body: B, tx: mpsc::Sender<Result<Frame<Bytes>, BoxError>>)
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let mut body = std::pin::pin!(body);
    loop {
        let Ok(permit) = tx.reserve().await else {
            return; // the client went away
        };
        let frame = tokio::select! {
            frame = body.frame() => frame,
            () = tx.closed() => return,
        };
        match frame {
            Some(frame) => permit.send(frame.map_err(Into::into)),
            None => return,
        }
    }
}

impl<B> Body for DrainBody<B>
where
    B: Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match self.project().inner.project() {
            InnerProj::Direct { body } => body
                .poll_frame(cx)
                .map(|frame| frame.map(|r| r.map_err(Into::into))),
            InnerProj::Pumped { rx } => rx.poll_recv(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            Inner::Direct { body } => body.is_end_stream(),
            Inner::Pumped { .. } => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.inner {
            Inner::Direct { body } => body.size_hint(),
            Inner::Pumped { .. } => SizeHint::default(),
        }
    }
}
