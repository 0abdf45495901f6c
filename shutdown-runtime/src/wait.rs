//! [`WaitForShutdown`]: the future returned by [`Shutdown::wait`](crate::Shutdown::wait).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{Ordering, fence};
use std::task::{Context, Poll};

use pin_project_lite::pin_project;
use tokio::sync::futures::OwnedNotified;

use crate::inner::Inner;

pin_project! {
    /// Resolves once shutdown of its scope has been requested.
    ///
    /// Created by [`Shutdown::wait`](crate::Shutdown::wait) or
    /// [`wait_for_shutdown`](crate::wait_for_shutdown). It registers for the wake-up when it is
    /// created, so a request between creation and the first poll is never lost; it never polls a
    /// timer; any number of waiters are woken by one request. If shutdown was already requested it
    /// is ready at once. It is `'static`, so it can be moved into spawned tasks.
    ///
    /// # Examples
    ///
    /// ```
    /// # async fn demo() {
    /// use shutdown_runtime::Shutdown;
    ///
    /// let scope = Shutdown::new();
    /// let waiter = tokio::spawn(scope.wait());
    /// scope.request();
    /// waiter.await.unwrap();
    /// scope.wait().await; // already requested: ready at once
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
    /// ```
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: dropping it has no effect on the scope; a new `wait()` observes the same flag.
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct WaitForShutdown {
        inner: Arc<Inner>,
        #[pin]
        notified: Option<OwnedNotified>,
    }
}

impl WaitForShutdown {
    pub(crate) fn new(inner: Arc<Inner>) -> WaitForShutdown {
        let notified = if inner.is_requested() {
            None
        } else {
            // Created (and thus registered for `notify_waiters`) before the flag is re-read
            // in `poll`; the SeqCst fence there pairs with the SeqCst store in `request_with`.
            Some(inner.notify.clone().notified_owned())
        };
        WaitForShutdown { inner, notified }
    }
}

impl fmt::Debug for WaitForShutdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaitForShutdown")
            .field("requested", &self.inner.is_requested())
            .finish()
    }
}

impl Future for WaitForShutdown {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        fence(Ordering::SeqCst);
        if this.inner.is_requested() {
            return Poll::Ready(());
        }
        match this.notified.as_pin_mut() {
            Some(n) => n.poll(cx),
            None => Poll::Ready(()),
        }
    }
}
