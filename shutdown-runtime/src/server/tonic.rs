//! tonic integration (feature `tonic`): [`serve`] gRPC services (tonic `Routes`) with the
//! drained [`Server`](super::Server).
//!
//! tonic's own `Server::serve_with_shutdown` stops accepting and then waits for every call
//! and stream with no limit and no names (a server stream that never ends holds it forever,
//! tonic#1820). Served here instead, each connection and call is a tracked task (calls named
//! `POST /package.Service/Method`), HTTP/2 connections get GOAWAY at the `stopping` phase, a
//! unary call in flight completes, a server stream wrapped in
//! [`until_stopping`](super::until_stopping) ends after its current message with status OK,
//! and a stream that does not end is aborted at the children budget and named.
//!
//! The recipe, tested end to end in `tests/tonic_recipe.rs` (a unary call in flight completes,
//! a server stream ends at shutdown, the drain is clean):
//!
//! ```no_run
//! # async fn demo(my_service: axum::Router) {
//! use std::time::Duration;
//! use shutdown_runtime::{Budgets, RunConfig};
//!
//! let routes = tonic::service::Routes::from(my_service); // or Routes::new(GreeterServer::new(..))
//! let listener = tokio::net::TcpListener::bind("0.0.0.0:50051").await.unwrap();
//! let outcome = RunConfig::new(Budgets::from_grace(Duration::from_secs(30)))
//!     .ready_delay(Duration::from_secs(5))
//!     .run(shutdown_runtime::server::tonic::serve(listener, routes))
//!     .await;
//! std::process::exit(outcome.exit_code());
//! # }
//! ```

use tokio::net::TcpListener;
use tonic::service::Routes;

use super::Server;

/// Serves the gRPC `routes` on `listener` with [`Server::new`] (global scope and phases),
/// HTTP/2 with prior knowledge (what gRPC clients speak) and HTTP/1.1 on the same port.
/// Returns when the server stops accepting; the calls and streams are tracked tasks that
/// [`run`](crate::run) drains.
///
/// # Errors
///
/// Only if `listener` has no local address.
///
/// ```
/// # async fn demo() {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// let serving = shutdown_runtime::server::tonic::serve(listener, tonic::service::Routes::default());
/// # drop(serving);
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
pub async fn serve(listener: TcpListener, routes: Routes) -> std::io::Result<()> {
    Server::new().serve(listener, routes).await
}
