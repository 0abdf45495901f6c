//! axum integration (feature `axum`): [`serve`] a `Router` with the drained [`Server`], and
//! the [`readyz`] handler.

use axum::Router;
use axum::response::IntoResponse;
use tokio::net::TcpListener;

use super::{Server, readiness};
use crate::phase::Phases;

/// Serves `router` on `listener` with [`Server::new`] (global scope and phases): the drained
/// replacement for `axum::serve(listener, router).with_graceful_shutdown(..)`. Returns when
/// the server stops accepting (phase `stopping`); the connections, requests and streams are
/// tracked tasks that [`run`](crate::run) drains.
///
/// # Errors
///
/// Only if `listener` has no local address.
///
/// ```no_run
/// # async fn demo() {
/// use axum::{Router, routing::get};
/// use shutdown_runtime::server::axum::{readyz, serve};
///
/// let app = Router::new().route("/", get(|| async { "ok" })).route("/readyz", get(readyz));
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await.unwrap();
/// let outcome = shutdown_runtime::run(
///     shutdown_runtime::Budgets::from_grace(std::time::Duration::from_secs(30)),
///     serve(listener, app),
/// )
/// .await;
/// std::process::exit(outcome.exit_code());
/// # }
/// ```
pub async fn serve(listener: TcpListener, router: Router) -> std::io::Result<()> {
    Server::new().serve(listener, router).await
}

/// An axum handler for `GET /readyz` on the global phases: 200 `ready` while running, 503
/// `not ready` from the first signal on.
///
/// ```
/// # async fn demo() {
/// use axum::response::IntoResponse;
/// let resp = shutdown_runtime::server::axum::readyz().await.into_response();
/// assert_eq!(resp.status(), 200);
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(demo());
/// ```
pub async fn readyz() -> impl IntoResponse {
    readiness(Phases::global())
}
