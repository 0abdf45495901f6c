//! The tonic recipe (`shutdown_runtime::server::tonic`), tested: a gRPC service (written by
//! hand with prost messages, so no `protoc` is needed) served by the drained server; at
//! shutdown a unary call in flight completes, a server stream wrapped in `until_phase` ends
//! after its current message with status OK, the HTTP/2 connection is closed with GOAWAY
//! (new calls fail), and the drain is clean. A stream that ignores the notification is
//! aborted at the budget and named by its method path.
//!
//! In-process, on an isolated scope and phases (what `run` does on a signal is replayed by
//! hand: request, advance to `stopping`, drain), so no signal is sent.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_core::Stream;
use shutdown_runtime::Shutdown;
use shutdown_runtime::phase::{Phase, Phases};
use shutdown_runtime::server::{Server, until_phase};
use tonic::body::Body;
use tonic::server::{Grpc, NamedService, ServerStreamingService, UnaryService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;

#[derive(Clone, PartialEq, prost::Message)]
struct Ask {
    /// Unary: how long to work; stream: period between messages.
    #[prost(uint64, tag = "1")]
    ms: u64,
    /// Stream: keep streaming after the shutdown notification.
    #[prost(bool, tag = "2")]
    ignore_shutdown: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
struct Reply {
    #[prost(string, tag = "1")]
    text: String,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;
type ReplyStream = Pin<Box<dyn Stream<Item = Result<Reply, Status>> + Send>>;

/// The service `demo.Demo` with `Slow` (unary) and `Ticks` (server streaming): what
/// `tonic-build` would generate, by hand.
#[derive(Clone)]
struct Demo {
    phases: Phases,
}

impl NamedService for Demo {
    const NAME: &'static str = "demo.Demo";
}

struct Slow;

impl UnaryService<Ask> for Slow {
    type Response = Reply;
    type Future = BoxFuture<Result<Response<Reply>, Status>>;

    fn call(&mut self, request: Request<Ask>) -> Self::Future {
        let ms = request.into_inner().ms;
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(Response::new(Reply {
                text: format!("slow {ms}"),
            }))
        })
    }
}

struct Ticks(Phases);

/// A message every `period`.
struct Every {
    interval: tokio::time::Interval,
    n: u64,
}

impl Stream for Every {
    type Item = Result<Reply, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        this.interval.poll_tick(cx).map(|_| {
            this.n += 1;
            Some(Ok(Reply {
                text: format!("tick {}", this.n - 1),
            }))
        })
    }
}

impl ServerStreamingService<Ask> for Ticks {
    type Response = Reply;
    type ResponseStream = ReplyStream;
    type Future = BoxFuture<Result<Response<ReplyStream>, Status>>;

    fn call(&mut self, request: Request<Ask>) -> Self::Future {
        let ask = request.into_inner();
        let every = Every {
            interval: tokio::time::interval(Duration::from_millis(ask.ms)),
            n: 0,
        };
        let stream: ReplyStream = if ask.ignore_shutdown {
            Box::pin(every)
        } else {
            // The shutdown notification: the stream ends after its current message.
            Box::pin(until_phase(every, &self.0, Phase::Stopping))
        };
        Box::pin(async move { Ok(Response::new(stream)) })
    }
}

impl tower_service::Service<http::Request<Body>> for Demo {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<http::Response<Body>, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        let phases = self.phases.clone();
        match req.uri().path() {
            "/demo.Demo/Slow" => {
                Box::pin(async move { Ok(Grpc::new(ProstCodec::default()).unary(Slow, req).await) })
            }
            "/demo.Demo/Ticks" => Box::pin(async move {
                Ok(Grpc::new(ProstCodec::default())
                    .server_streaming(Ticks(phases), req)
                    .await)
            }),
            _ => Box::pin(async { Ok(Status::unimplemented("no such method").into_http()) }),
        }
    }
}

struct Running {
    scope: Shutdown,
    phases: Phases,
    url: String,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn start() -> Running {
    let scope = Shutdown::new();
    let phases = Phases::linked(&scope);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let routes = tonic::service::Routes::new(Demo {
        phases: phases.clone(),
    });
    // The recipe: `shutdown_runtime::server::tonic::serve(listener, routes)` on the global
    // scope; here the same server on an isolated scope.
    let serving = tokio::spawn(Server::with(&scope, &phases).serve(listener, routes));
    Running {
        scope,
        phases,
        url,
        serving,
    }
}

async fn client(url: &str) -> tonic::client::Grpc<tonic::transport::Channel> {
    let channel = tonic::transport::Endpoint::from_shared(url.to_owned())
        .expect("url")
        .timeout(Duration::from_secs(30))
        .connect_timeout(Duration::from_secs(10))
        .connect()
        .await
        .expect("connect");
    tonic::client::Grpc::new(channel)
}

async fn unary(
    mut grpc: tonic::client::Grpc<tonic::transport::Channel>,
    ms: u64,
) -> Result<Reply, Status> {
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let path = http::uri::PathAndQuery::from_static("/demo.Demo/Slow");
    let ask = Ask {
        ms,
        ignore_shutdown: false,
    };
    grpc.unary(Request::new(ask), path, ProstCodec::default())
        .await
        .map(Response::into_inner)
}

async fn ticks(
    mut grpc: tonic::client::Grpc<tonic::transport::Channel>,
    ignore_shutdown: bool,
) -> tonic::Streaming<Reply> {
    grpc.ready().await.expect("ready");
    let path = http::uri::PathAndQuery::from_static("/demo.Demo/Ticks");
    let ask = Ask {
        ms: 50,
        ignore_shutdown,
    };
    grpc.server_streaming(Request::new(ask), path, ProstCodec::default())
        .await
        .expect("stream starts")
        .into_inner()
}

/// What `run` does on the first signal: not ready, (no ready-delay) stopping, drain.
async fn shut_down(r: &Running, budget: Duration) -> shutdown_runtime::DrainReport {
    r.scope.request();
    r.phases.advance(Phase::Stopping);
    r.scope.drain(budget).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unary_call_in_flight_completes_and_server_stream_ends_at_shutdown() {
    let r = start().await;
    let grpc = client(&r.url).await;
    let mut stream = ticks(grpc.clone(), false).await;
    let first = stream.message().await.expect("first message");
    assert_eq!(first.map(|m| m.text), Some("tick 0".to_owned()));

    let call = tokio::spawn(unary(grpc.clone(), 500));
    // The call is in flight once the server tracks its task (`POST /demo.Demo/Slow`).
    let deadline = Instant::now() + Duration::from_secs(10);
    while r.scope.tracked_len() < 4 {
        assert!(
            Instant::now() < deadline,
            "the call never reached the server"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let asked = Instant::now();
    let report = tokio::spawn({
        let scope = r.scope.clone();
        let phases = r.phases.clone();
        async move {
            scope.request();
            phases.advance(Phase::Stopping);
            scope.drain(Duration::from_secs(20)).await
        }
    });

    // The stream ends cleanly (status OK) after its current message.
    let mut seen = 1;
    let ended = loop {
        match stream.message().await {
            Ok(Some(_)) => seen += 1,
            Ok(None) => break Ok(()),
            Err(status) => break Err(status),
        }
    };
    assert!(
        ended.is_ok(),
        "the stream ended with status OK after {seen} messages: {ended:?}"
    );
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "ended at the notification"
    );

    // The unary call in flight completes with its full answer.
    let reply = call.await.expect("call task").expect("unary call");
    assert_eq!(reply.text, "slow 500");

    // The listener is closed and the connection got GOAWAY: a new call fails.
    r.serving.await.expect("accept loop").expect("serve");
    assert!(unary(grpc, 1).await.is_err(), "a new call after shutdown");

    let report = report.await.expect("drain");
    assert!(report.is_clean(), "{report:?}");
    assert!(
        report.drained >= 3,
        "connection, call and stream drained: {report:?}"
    );
    assert!(report.elapsed < Duration::from_secs(10), "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_stream_ignoring_the_notification_is_aborted_at_the_budget_and_named() {
    let r = start().await;
    let grpc = client(&r.url).await;
    let mut stream = ticks(grpc, true).await;
    assert!(stream.message().await.expect("first").is_some());
    let report = shut_down(&r, Duration::from_millis(500)).await;
    let names: Vec<&str> = report.aborted.iter().map(|t| &*t.name).collect();
    assert!(
        names.contains(&"POST /demo.Demo/Ticks"),
        "the stream is named by its method: {report:?}"
    );
    // The client sees the stream cut (an error), not a clean end.
    let mut end = stream.message().await;
    while let Ok(Some(_)) = end {
        end = stream.message().await;
    }
    assert!(
        end.is_err(),
        "an aborted stream is not a clean end: {end:?}"
    );
}
