//! [`TrackedExecutor`]: a `hyper::rt::Executor` whose tasks (HTTP/2 streams) are tracked.

use std::future::Future;

use crate::scope::Shutdown;

/// A [`hyper::rt::Executor`] that spawns on a [`Shutdown`] scope, so the tasks hyper spawns —
/// one per HTTP/2 stream — are in the registry: the drain waits for them and names them
/// (`http2 stream`) if it has to abort them. hyper-util's `TokioExecutor` spawns them untracked.
///
/// # Examples
///
/// ```
/// # async fn demo() {
/// use hyper::rt::Executor;
/// use shutdown_runtime::{Shutdown, server::TrackedExecutor};
///
/// let scope = Shutdown::new();
/// TrackedExecutor::new(&scope).execute(std::future::pending::<()>());
/// assert_eq!(scope.tracked_len(), 1);
/// let report = scope.drain(std::time::Duration::from_millis(10)).await;
/// assert_eq!(report.aborted[0].name, "http2 stream");
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[derive(Debug, Clone)]
pub struct TrackedExecutor {
    scope: Shutdown,
}

impl TrackedExecutor {
    /// An executor spawning tracked tasks on `scope`.
    ///
    /// ```
    /// let exec = shutdown_runtime::server::TrackedExecutor::new(shutdown_runtime::Shutdown::global());
    /// # let _ = exec;
    /// ```
    pub fn new(scope: &Shutdown) -> TrackedExecutor {
        TrackedExecutor {
            scope: scope.clone(),
        }
    }
}

impl<F> hyper::rt::Executor<F> for TrackedExecutor
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    #[track_caller]
    fn execute(&self, fut: F) {
        // Dropping the handle does not untrack the task: the scope still waits for it.
        drop(self.scope.spawn_named("http2 stream", fut));
    }
}
