//! Servers that drain by construction (feature `hyper`; `axum` and `tonic` build on it).
//!
//! [`Server`] accepts TCP connections and serves HTTP/1.1 and HTTP/2 (prior knowledge or
//! upgrade-free `h2c`) with hyper-util's auto builder, following the life cycle's
//! [`Phases`](crate::phase::Phases):
//!
//! | phase | the server |
//! |---|---|
//! | `running` | ready ([`readiness`] 200 `ready`), accepting |
//! | `not-ready` (the first signal) | [`readiness`] answers 503 at once; still accepting and serving for the ready-delay ([`RunConfig::ready_delay`](crate::RunConfig::ready_delay)) |
//! | `stopping` | the listener is closed (new connections are refused); every connection gets hyper's `graceful_shutdown`: idle keep-alive connections close at once, HTTP/2 sends GOAWAY; requests in flight finish; long-lived streams wrapped in [`until_stopping`] end after their current item |
//! | `aborting` (children budget) | what is left — a stream that ignored the notification, a request that overran — is aborted and named in the report by route |
//!
//! Each connection is a tracked task named `conn PEER`; each request a tracked task named
//! `METHOD /path` run as one claimed unit ([`TrackedService`]); a response body of unknown
//! length is pumped by a tracked task of the same name ([`DrainBody`]); HTTP/2 stream tasks go
//! through a [`TrackedExecutor`].
//!
//! # Examples
//!
//! ```no_run
//! use std::time::Duration;
//! use shutdown_runtime::{Budgets, RunConfig, server::Server};
//!
//! # async fn demo(service: impl tower_service::Service<http::Request<hyper::body::Incoming>, Response = http::Response<http_body_util::Full<bytes::Bytes>>, Error = std::convert::Infallible, Future: Send + 'static> + Clone + Send + 'static) {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await.unwrap();
//! let outcome = RunConfig::new(Budgets::from_grace(Duration::from_secs(30)))
//!     .ready_delay(Duration::from_secs(5))
//!     .run(Server::new().serve(listener, service))
//!     .await;
//! std::process::exit(outcome.exit_code());
//! # }
//! ```

mod body;
mod executor;
mod readiness;
mod request;
mod stream;

#[cfg(feature = "axum")]
pub mod axum;
#[cfg(feature = "tonic")]
pub mod tonic;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use http_body::Body;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::server::conn::auto;
use tokio::net::{TcpListener, TcpStream};

pub use body::{BoxError, DrainBody};
pub use executor::TrackedExecutor;
pub use readiness::{readiness, readiness_response};
pub use request::{RequestFuture, TrackedService};
pub use stream::{UntilPhase, until_phase, until_stopping};

use crate::phase::{Phase, Phases};
use crate::scope::Shutdown;

/// An HTTP/1.1 + HTTP/2 server that drains by construction (see the [module](self) docs).
///
/// # Examples
///
/// ```
/// # async fn demo() {
/// use shutdown_runtime::{Shutdown, phase::{Phase, Phases}, server::Server};
///
/// let (scope, phases) = (Shutdown::new(), Phases::new());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// let addr = listener.local_addr().unwrap();
/// let server = tokio::spawn(Server::with(&scope, &phases).serve(listener, Hello));
/// phases.advance(Phase::Stopping); // what `run` does after the ready-delay
/// server.await.unwrap().unwrap(); // the accept loop ended; the listener is closed
/// assert!(tokio::net::TcpStream::connect(addr).await.is_err());
/// # #[derive(Clone)] struct Hello;
/// # impl tower_service::Service<http::Request<hyper::body::Incoming>> for Hello {
/// #     type Response = http::Response<String>; type Error = std::convert::Infallible;
/// #     type Future = std::future::Ready<Result<http::Response<String>, std::convert::Infallible>>;
/// #     fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> { std::task::Poll::Ready(Ok(())) }
/// #     fn call(&mut self, _: http::Request<hyper::body::Incoming>) -> Self::Future { std::future::ready(Ok(http::Response::new("hi".into()))) }
/// # }
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
pub struct Server {
    scope: Shutdown,
    phases: Phases,
    builder: auto::Builder<TrackedExecutor>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("scope", &self.scope)
            .field("phases", &self.phases)
            .finish_non_exhaustive()
    }
}

impl Default for Server {
    /// Same as [`Server::new`].
    fn default() -> Server {
        Server::new()
    }
}

impl Server {
    /// A server on the global scope and the global phases (driven by [`run`](crate::run)).
    ///
    /// ```
    /// let server = shutdown_runtime::server::Server::new();
    /// # let _ = server;
    /// ```
    pub fn new() -> Server {
        Server::with(Shutdown::global(), crate::phase::Phases::global())
    }

    /// A server whose tasks are tracked on `scope` and that follows `phases`.
    ///
    /// ```
    /// use shutdown_runtime::{Shutdown, phase::Phases, server::Server};
    /// let scope = Shutdown::new();
    /// let server = Server::with(&scope, &Phases::linked(&scope));
    /// # let _ = server;
    /// ```
    pub fn with(scope: &Shutdown, phases: &Phases) -> Server {
        // Configured like `axum::serve` (no timer, so no header read timeout: it costs a timer
        // registration per request; add one with `builder_mut().http1().timer(..)`).
        let builder = auto::Builder::new(TrackedExecutor::new(scope));
        Server {
            scope: scope.clone(),
            phases: phases.clone(),
            builder,
        }
    }

    /// hyper-util's builder, to tune HTTP/1 and HTTP/2 (`.http1()`, `.http2()`), e.g. a header
    /// read timeout against clients that never finish their request head.
    ///
    /// ```
    /// use std::time::Duration;
    /// let mut server = shutdown_runtime::server::Server::new();
    /// server
    ///     .builder_mut()
    ///     .http1()
    ///     .timer(hyper_util::rt::TokioTimer::new())
    ///     .header_read_timeout(Duration::from_secs(10));
    /// ```
    pub fn builder_mut(&mut self) -> &mut auto::Builder<TrackedExecutor> {
        &mut self.builder
    }

    /// Accepts connections on `listener` and serves each with `service` (any tower service:
    /// an axum `Router`, tonic `Routes`, a `tower::service_fn`) until the phases reach
    /// [`Phase::Stopping`]; then closes the listener and returns. The connections, requests
    /// and streams it started are tracked tasks: the drain of the scope waits for them.
    ///
    /// Accept errors (a peer that reset before it was accepted, too many open files) are
    /// logged with `tracing` and do not end the loop (after a resource error it pauses 10 ms).
    ///
    /// # Errors
    ///
    /// Only if `listener` has no local address.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future closes the listener; connections already accepted keep running.
    pub async fn serve<S, B>(self, listener: TcpListener, service: S) -> std::io::Result<()>
    where
        S: tower_service::Service<Request<Incoming>, Response = Response<B>>
            + Clone
            + Send
            + 'static,
        S::Future: Send + 'static,
        S::Error: Into<BoxError>,
        B: Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        let local = listener.local_addr()?;
        let Server {
            scope,
            phases,
            builder,
        } = self;
        let builder = Arc::new(builder);
        let service = TrackedService::new(service, &scope);
        let mut stopping = std::pin::pin!(phases.reached(Phase::Stopping));
        let mut accepted = 0u64;
        loop {
            let (stream, peer) = tokio::select! {
                biased;
                () = &mut stopping => break,
                conn = listener.accept() => match conn {
                    Ok(conn) => conn,
                    Err(e) => {
                        tracing::warn!(target: "shutdown_runtime", %local, error = %e, "accept failed");
                        if !is_per_connection(&e) {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        }
                        continue;
                    }
                },
            };
            accepted += 1;
            let connection = connection(
                stream,
                builder.clone(),
                service.clone(),
                phases.reached(Phase::Stopping),
            );
            drop(scope.spawn_named(format!("conn {peer}"), connection));
        }
        drop(listener); // from here on, new connections are refused
        tracing::info!(target: "shutdown_runtime", phase = "stopping", %local, accepted, "stopped accepting");
        Ok(())
    }
}

/// Serves one connection; at `stopping`, asks hyper to shut it down gracefully (an idle
/// keep-alive connection closes at once, HTTP/2 sends GOAWAY, requests in flight finish).
async fn connection<S, B>(
    stream: TcpStream,
    builder: Arc<auto::Builder<TrackedExecutor>>,
    service: TrackedService<S>,
    stopping: impl std::future::Future<Output = ()>,
) where
    S: tower_service::Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let _ = stream.set_nodelay(true);
    let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    let result = tokio::select! {
        result = conn.as_mut() => result,
        () = stopping => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = result {
        tracing::debug!(target: "shutdown_runtime", error = %e, "connection ended with an error");
    }
}

/// Accept errors that concern one connection only (retry at once), as opposed to resource
/// errors such as EMFILE (pause before retrying).
fn is_per_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset | Interrupted | WouldBlock
    )
}
