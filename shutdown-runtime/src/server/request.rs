//! [`TrackedService`]: serves each request as one claimed unit of work (a checkpoint reached
//! while serving it does not cut it), as a tracked task named by method and path as soon as
//! it has to wait.

use std::borrow::Cow;
use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Method, Request, Response, Uri};
use http_body::Body;
use tokio::task::JoinHandle;

use super::body::{BoxError, DrainBody};
use crate::scope::Shutdown;

/// A hyper service that serves each request of the tower service `S` inside
/// [`unit::claimed`](crate::unit::claimed): a `#[drainable]` loop or any checkpoint reached
/// while serving the request does not stop early, so a request is never cut by the shutdown.
///
/// The request is polled once where hyper polls it (the connection's task); a request that
/// answers at once is done. One that has to wait (a timer, a database, a slow body) is moved
/// into a tracked task named `METHOD /path` (query left out): the drain waits for it within
/// the children budget and names it if it has to abort it. The response body is a
/// [`DrainBody`]. Used by [`Server`](super::Server); public for servers built by hand.
///
/// A request whose client goes away is not cancelled once it runs in its own task: it runs
/// to its end.
///
/// # Examples
///
/// ```
/// # async fn demo() {
/// use http_body_util::{BodyExt, Full};
/// use std::future::Future as _;
/// use hyper::service::Service as _;
/// use shutdown_runtime::{Shutdown, server::TrackedService};
///
/// let scope = Shutdown::new();
/// let svc = TrackedService::new(Slow, &scope);
/// let mut resp = svc.call(http::Request::get("/slow?ms=10").body(()).unwrap());
/// let waits = std::future::poll_fn(|cx| {
///     std::task::Poll::Ready(std::pin::Pin::new(&mut resp).poll(cx).is_pending())
/// });
/// assert!(waits.await); // it had to wait: it is a tracked task of its own now
/// assert_eq!(scope.tracked_len(), 1);
/// let report = scope.drain(std::time::Duration::from_millis(1)).await;
/// assert_eq!(report.aborted[0].name, "GET /slow");
/// assert!(resp.await.is_err()); // aborted at the budget: hyper would close the connection
/// # #[derive(Clone)] struct Slow;
/// # impl tower_service::Service<http::Request<()>> for Slow {
/// #     type Response = http::Response<Full<bytes::Bytes>>; type Error = std::convert::Infallible;
/// #     type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>>;
/// #     fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> { std::task::Poll::Ready(Ok(())) }
/// #     fn call(&mut self, _: http::Request<()>) -> Self::Future {
/// #         Box::pin(async { tokio::time::sleep(std::time::Duration::from_secs(60)).await; Ok(http::Response::new(Full::default())) })
/// #     }
/// # }
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
#[derive(Clone)]
pub struct TrackedService<S> {
    inner: S,
    scope: Shutdown,
}

impl<S> fmt::Debug for TrackedService<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrackedService")
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl<S> TrackedService<S> {
    /// Wraps the tower service `inner`; requests are tracked on `scope`.
    ///
    /// ```
    /// # #[derive(Clone)] struct Svc;
    /// let svc = shutdown_runtime::server::TrackedService::new(Svc, shutdown_runtime::Shutdown::global());
    /// # let _ = svc;
    /// ```
    pub fn new(inner: S, scope: &Shutdown) -> TrackedService<S> {
        TrackedService {
            inner,
            scope: scope.clone(),
        }
    }
}

/// `METHOD /path`: the name of a request's task (and of its streamed body's task).
fn request_name(method: &Method, uri: &Uri) -> Cow<'static, str> {
    let (method, path) = (method.as_str(), uri.path());
    let mut name = String::with_capacity(method.len() + 1 + path.len());
    name.push_str(method);
    name.push(' ');
    name.push_str(path);
    Cow::Owned(name)
}

type Served<B> = Result<Response<DrainBody<B>>, BoxError>;
type Handled<B> = Result<Response<B>, BoxError>;
type BoxServe<B> = Pin<Box<dyn Future<Output = Handled<B>> + Send>>;

impl<S, ReqBody, ResBody> hyper::service::Service<Request<ReqBody>> for TrackedService<S>
where
    S: tower_service::Service<Request<ReqBody>, Response = Response<ResBody>>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError>,
    ReqBody: Send + 'static,
    ResBody: Body<Data = Bytes> + Send + 'static,
    ResBody::Error: Into<BoxError>,
{
    type Response = Response<DrainBody<ResBody>>;
    type Error = BoxError;
    type Future = RequestFuture<ResBody>;

    fn call(&self, req: Request<ReqBody>) -> RequestFuture<ResBody> {
        // Cheap clones (a method is an enum, a URI shares its bytes): the name is only built
        // if the request has to become a task or streams its body.
        let (method, uri) = (req.method().clone(), req.uri().clone());
        let mut svc = self.inner.clone();
        let serve = async move {
            poll_fn(|cx| svc.poll_ready(cx)).await.map_err(Into::into)?;
            svc.call(req).await.map_err(Into::into)
        };
        RequestFuture {
            state: State::Inline(Box::pin(crate::unit::claimed(serve))),
            method,
            uri,
            scope: self.scope.clone(),
        }
    }
}

/// The response of a [`TrackedService`] request: the request polled in place, then (if it had
/// to wait) its tracked task. A panic or an abort of that task becomes an error (hyper then
/// closes the connection).
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct RequestFuture<B> {
    state: State<B>,
    method: Method,
    uri: Uri,
    scope: Shutdown,
}

enum State<B> {
    Inline(BoxServe<B>),
    Task(JoinHandle<Handled<B>>),
    Done,
}

impl<B> fmt::Debug for RequestFuture<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Inline(_) => "inline",
            State::Task(_) => "task",
            State::Done => "done",
        };
        f.debug_struct("RequestFuture")
            .field("state", &state)
            .field("method", &self.method)
            .field("uri", &self.uri)
            .finish()
    }
}

impl<B> Future for RequestFuture<B>
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Output = Served<B>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Served<B>> {
        // `RequestFuture` is `Unpin`: the request's future is boxed, so it keeps its address
        // when it moves into its own task.
        let this = &mut *self;
        let handled = loop {
            match &mut this.state {
                State::Inline(serve) => match serve.as_mut().poll(cx) {
                    Poll::Ready(handled) => break handled,
                    Poll::Pending => {
                        // It has to wait: from now on it is a tracked task of its own, named
                        // by route (its first poll there re-registers its wake-ups with that
                        // task); then wait for that task (next turn of the loop).
                        let State::Inline(serve) = std::mem::replace(&mut this.state, State::Done)
                        else {
                            return Poll::Ready(Err("request state changed while polled".into()));
                        };
                        let name = request_name(&this.method, &this.uri);
                        this.state = State::Task(this.scope.spawn_named(name, serve));
                    }
                },
                State::Task(handle) => match Pin::new(handle).poll(cx) {
                    Poll::Ready(joined) => {
                        break joined.unwrap_or_else(|e| Err(Box::new(e) as BoxError));
                    }
                    Poll::Pending => return Poll::Pending,
                },
                State::Done => return Poll::Ready(Err("request polled after completion".into())),
            }
        };
        this.state = State::Done;
        let (method, uri) = (&this.method, &this.uri);
        Poll::Ready(handled.map(|response| {
            response.map(|body| DrainBody::new(body, &this.scope, || request_name(method, uri)))
        }))
    }
}
