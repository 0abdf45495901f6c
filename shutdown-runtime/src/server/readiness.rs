//! Readiness answers: `200 ready` while running, `503 not ready` from the shutdown request on.

use http::{Response, StatusCode, header};

use crate::phase::Phases;

/// The readiness status and body for `phases`: `(200, "ready")` while
/// [`is_ready`](Phases::is_ready), else `(503, "not ready")`. Sync and lock-free, so a probe
/// never waits behind the drain.
///
/// ```
/// use shutdown_runtime::{Shutdown, phase::Phases, server::readiness};
/// let scope = Shutdown::new();
/// let phases = Phases::linked(&scope);
/// assert_eq!(readiness(&phases), (http::StatusCode::OK, "ready"));
/// scope.request();
/// assert_eq!(readiness(&phases), (http::StatusCode::SERVICE_UNAVAILABLE, "not ready"));
/// ```
pub fn readiness(phases: &Phases) -> (StatusCode, &'static str) {
    if phases.is_ready() {
        (StatusCode::OK, "ready")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}

/// [`readiness`] as a plain-text HTTP response, to mount at `/readyz` in any hyper service.
///
/// ```
/// let resp = shutdown_runtime::server::readiness_response(&shutdown_runtime::phase::Phases::new());
/// assert_eq!(resp.status(), 200);
/// assert_eq!(resp.body(), "ready");
/// ```
pub fn readiness_response(phases: &Phases) -> Response<String> {
    let (status, body) = readiness(phases);
    let mut resp = Response::new(body.to_owned());
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}
