//! The library paths the rules know, as data: spawn functions, thread spawns, HTTP client
//! constructors with each library's default timeout, duration constructors, and signal
//! registrations. Paths are canonical (after [`FACADES`] rewrites).

use std::time::Duration;

/// Whether crate `krate` re-exports the whole of crate `name` ([`FACADES`]): a dependency
/// `name = { package = "krate" }` then is `name` itself.
///
/// # Examples
/// ```
/// assert!(shutdown_lint::resolve::known::is_whole_facade("madsim_tokio", "tokio"));
/// assert!(!shutdown_lint::resolve::known::is_whole_facade("tokio", "tokio"));
/// ```
pub fn is_whole_facade(krate: &str, name: &str) -> bool {
    FACADES.iter().any(|(f, t)| *f == krate && *t == name)
}

/// Facade re-exports, applied as prefix rewrites (`from`, `to`) after resolution.
pub const FACADES: &[(&str, &str)] = &[
    ("tokio::task::spawn", "tokio::spawn"),
    ("tokio::runtime::handle::Handle", "tokio::runtime::Handle"),
    (
        "tokio::runtime::runtime::Runtime",
        "tokio::runtime::Runtime",
    ),
    ("tokio::time::Duration", "std::time::Duration"),
    ("core::time::Duration", "std::time::Duration"),
    ("std::mem::drop", "drop"),
    ("core::mem::drop", "drop"),
    ("std::prelude::v1::drop", "drop"),
    ("signal_hook::consts::signal", "signal_hook::consts"),
    (
        "signal_hook::low_level::signal_name",
        "signal_hook::low_level::signal_name",
    ),
    ("nix::sys::signal::Signal", "nix::sys::signal"),
    ("hyper::client::Client", "hyper::Client"),
    ("shutdown_macros", "shutdown_runtime"),
    ("actix_web::rt", "actix_rt"),
    // actix-rt's `task` module is `pub use tokio::task::{spawn_blocking, JoinHandle, ..}`
    // (AppFlowy-Cloud's `actix_web::rt::task::spawn_blocking`)
    ("actix_rt::task", "tokio::task"),
    ("ntex::rt", "ntex_rt"),
    // madsim's simulation shims re-export the real crate outside simulation builds
    // (`tokio = { package = "madsim-tokio" }`, Xline)
    ("madsim_tokio", "tokio"),
    ("madsim_tonic", "tonic"),
    // jsonrpsee's facade re-exports its server crate as a module (before 0.16, one per
    // transport)
    ("jsonrpsee_server", "jsonrpsee::server"),
    ("jsonrpsee_http_server", "jsonrpsee::http_server"),
    ("jsonrpsee_ws_server", "jsonrpsee::ws_server"),
    ("axum::serve::serve", "axum::serve"),
    ("axum::Server", "hyper::Server"),
    ("hyper::server::Server", "hyper::Server"),
    // tonic's `transport::Server` is its `transport::server` module's (cheetah's
    // `tonic::transport::server::Server::builder()`)
    (
        "tonic::transport::server::Server",
        "tonic::transport::Server",
    ),
    (
        "hyper_util::rt::tokio::TokioExecutor",
        "hyper_util::rt::TokioExecutor",
    ),
    (
        "isahc::HttpClientBuilder",
        "isahc::HttpClient::builder_type",
    ),
    // Pingora's facade and preludes re-export pingora-core's server
    ("pingora_core::server", "pingora::server"),
    ("pingora::prelude::Server", "pingora::server::Server"),
    ("pingora_core::prelude::Server", "pingora::server::Server"),
];

/// Crates whose re-exports are looked for in the sources of a package's dependencies
/// (`pub use tokio::spawn;`, `pub use reqwest;`): those a renamed item of is often
/// re-exported (spawns and clients). The [`SERVER_CRATES`] are only followed when
/// re-exported whole under their own name, which needs no scan: scanning every dependency
/// that depends on a web framework cost a small service's run more than its parse.
pub const REEXPORT_SCAN_CRATES: &[&str] = &[
    "tokio",
    "reqwest",
    "wreq",
    "rquest",
    "ureq",
    "hyper",
    "hyper_util",
    "isahc",
    "actix_rt",
    // a prelude's `pub use async_std::{sync::Arc, task};` (my-iot-rs: `task::spawn` after
    // `use crate::prelude::*`)
    "async_std",
    "shutdown_runtime",
];

/// The servers `server-no-graceful-shutdown` knows, as crates (chirpstack's `pub use tonic;`
/// in its API crate, served as `chirpstack_api::tonic::transport::Server`).
pub const SERVER_CRATES: &[&str] = &[
    "tonic",
    "axum",
    "axum_server",
    "warp",
    "poem",
    "salvo",
    "salvo_core",
    "actix_web",
    "actix_server",
    "jsonrpsee",
    "jsonrpsee_server",
    "jsonrpsee_http_server",
    "jsonrpsee_ws_server",
    "dropshot",
    "rouille",
];

/// Whether the rules know paths of crate `name` ([`REEXPORT_SCAN_CRATES`] and
/// [`SERVER_CRATES`]). A path `other::tokio::..` through a crate that re-exports one of them
/// under its own name is that crate's path (`tokio::..`).
///
/// # Examples
/// ```
/// use shutdown_lint::resolve::known::is_known_crate;
/// assert!(is_known_crate("tokio") && is_known_crate("tonic"));
/// assert!(!is_known_crate("serde"));
/// ```
pub fn is_known_crate(name: &str) -> bool {
    REEXPORT_SCAN_CRATES.contains(&name) || SERVER_CRATES.contains(&name)
}

/// Untracked task spawns (`raw-spawn`), called as paths.
pub const RAW_SPAWN_FNS: &[&str] = &[
    "tokio::spawn",
    "tokio::task::spawn_blocking",
    "tokio::task::spawn_local",
    // actix's runtime: `spawn_local` on the current arbiter (also `actix_web::rt::spawn`)
    "actix_rt::spawn",
    // ntex's runtime (its `tokio` feature: a `spawn_local` on tokio; rmqtt's MQTT bridges)
    "ntex_rt::spawn",
    // async-std's own executor, beside tokio (revolt's delta: write-behind workers that
    // lose their buffered writes on every deploy)
    "async_std::task::spawn",
    "async_std::task::spawn_blocking",
    "async_std::task::spawn_local",
];

/// The paths `#[drainable]` rewrites into tracked spawns, as written in a call (with or
/// without a leading `::`, without generic arguments): `shutdown-macros`'
/// `rewrite/spawns.rs`, which resolves no `use`.
pub const DRAINABLE_ROUTED: &[&str] = &[
    "tokio::spawn",
    "tokio::task::spawn",
    "tokio::task::spawn_blocking",
    "tokio::task::spawn_local",
    "std::thread::spawn",
];

/// `tokio::runtime::Handle::current`: the runtime handle a value of type `Handle` stands for.
pub const HANDLE_CURRENT: &str = "tokio::runtime::Handle::current";

/// Receivers whose `.spawn*` methods are untracked spawns (`Handle::current().spawn(..)`).
pub const RAW_SPAWN_RECEIVERS: &[&str] = &[
    HANDLE_CURRENT,
    "tokio::runtime::Handle::try_current",
    "tokio::runtime::Runtime::new",
    "tokio::runtime::Builder::new_multi_thread",
    "tokio::runtime::Builder::new_current_thread",
    "tokio::task::Builder::new",
    // actix's runtime (a tokio runtime with a local set: `Runtime::spawn` is a
    // `spawn_local` on it; feldera's `runtime.spawn(..)` on `&actix_web::rt::Runtime`)
    "actix_rt::Runtime::new",
    // async-std's named-task builder (`task::Builder::new().name(n).spawn(fut)?`: mailcatcher's
    // notifier loops)
    "async_std::task::Builder::new",
    // a `LocalSet`'s own `spawn_local` (`local.spawn_local(fut); local.await`), as the free
    // `tokio::task::spawn_local` (flux-mail's old-mail purge loop)
    "tokio::task::LocalSet::new",
];

/// Types whose values the rules know, and the constructor a value of the type stands for
/// (a `Handle` field is treated as `Handle::current()`).
pub const TYPE_CTORS: &[(&str, &str)] = &[
    ("tokio::runtime::Handle", "tokio::runtime::Handle::current"),
    ("tokio::runtime::Runtime", "tokio::runtime::Runtime::new"),
    ("actix_rt::Runtime", "actix_rt::Runtime::new"),
    (
        "shutdown_runtime::Shutdown",
        "shutdown_runtime::Shutdown::new",
    ),
    // a client made elsewhere: its own timeout is unknown (never reported as a client),
    // but a per-request `.timeout(..)` on it is checked against the drain budget
    ("reqwest::Client", "reqwest::Client::new"),
    ("wreq::Client", "wreq::Client::new"),
    ("rquest::Client", "rquest::Client::new"),
    (
        "reqwest::blocking::Client",
        "reqwest::blocking::Client::new",
    ),
    // reqwest-middleware's client around a reqwest client: the same per-request check
    (
        "reqwest_middleware::ClientWithMiddleware",
        "reqwest_middleware::ClientWithMiddleware::new",
    ),
    // a hyper connection builder kept in a field or passed in (rust-rpxy's
    // `self.connection_builder.serve_connection_with_upgrades(..)`): where it serves is
    // judged like a builder made here
    (
        "hyper_util::server::conn::auto::Builder",
        "hyper_util::server::conn::auto::Builder::new",
    ),
    (
        "hyper::server::conn::http1::Builder",
        "hyper::server::conn::http1::Builder::new",
    ),
    (
        "hyper::server::conn::http2::Builder",
        "hyper::server::conn::http2::Builder::new",
    ),
    // a tonic server or router a helper returns (defguard's
    // `build_grpc_service_router(server).await?` then `router.serve(addr)`)
    (
        "tonic::transport::server::Router",
        "tonic::transport::Server::builder",
    ),
    (
        "tonic::transport::Server",
        "tonic::transport::Server::builder",
    ),
    // salvo's and axum-server's servers a helper returns (xanderjakeq.page's
    // `get_server(addr).await.serve(router)` over `fn get_server(..) -> Server<TcpAcceptor>`)
    ("salvo::Server", "salvo::Server::new"),
    ("salvo::server::Server", "salvo::server::Server::new"),
    ("salvo::prelude::Server", "salvo::prelude::Server::new"),
    ("salvo_core::Server", "salvo_core::Server::new"),
    (
        "salvo_core::server::Server",
        "salvo_core::server::Server::new",
    ),
    (
        "salvo_core::prelude::Server",
        "salvo_core::prelude::Server::new",
    ),
    ("axum_server::Server", "axum_server::bind"),
    // a tonic endpoint a helper returns: its `.timeout(..)` is checked against the budget
    (
        "tonic::transport::Endpoint",
        "tonic::transport::Endpoint::new",
    ),
    // axum-server's shutdown handle passed to the task that waits for the signal (conduit's
    // `shutdown_signal(handle)` then `handle.graceful_shutdown(Some(d))`): its drain wait is
    // checked against the budget
    ("axum_server::Handle", "axum_server::Handle::new"),
    // a metrics exporter's builder made by a helper and installed by its caller (TEI's
    // `prom_builder.install()?`)
    (
        "metrics_exporter_prometheus::PrometheusBuilder",
        "metrics_exporter_prometheus::PrometheusBuilder::new",
    ),
    // a dropshot server starter a helper builds and its caller starts (buildomat's lab
    // factory: `minder::server(..).await?.start()`)
    (
        "dropshot::HttpServerStarter",
        "dropshot::HttpServerStarter::new",
    ),
    // a thread a function of the workspace starts and hands back (radicle's
    // `thread::spawn(&nid, "control", f)` over `Builder::spawn`): a caller that drops the
    // handle detaches it; only a function's result, by value, stands for a spawn
    ("std::thread::JoinHandle", THREAD_SPAWN_FN),
];

/// The constructor a value of type `ty` stands for ([`TYPE_CTORS`]).
///
/// # Examples
/// ```
/// use shutdown_lint::resolve::{known::type_ctor, split_path};
/// assert_eq!(type_ctor(&split_path("tokio::runtime::Handle")), Some("tokio::runtime::Handle::current"));
/// ```
pub fn type_ctor(ty: &[String]) -> Option<&'static str> {
    TYPE_CTORS
        .iter()
        .find(|(t, _)| written_as(t, ty))
        .map(|(_, c)| *c)
}

/// Whether the path `written` (`tokio::runtime::Handle`) is `segs` joined by `::`,
/// compared without joining them (the tables are asked on every step of every chain).
fn written_as(written: &str, segs: &[String]) -> bool {
    let mut rest = written;
    for (i, seg) in segs.iter().enumerate() {
        if i > 0 {
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => return false,
            }
        }
        match rest.strip_prefix(seg.as_str()) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    rest.is_empty()
}

/// Every type a chain can be typed as that the rules read ([`TYPE_CTORS`] and the HTTP
/// client builder types), with its constructor, and for a builder type the builder
/// constructor a helper returning one would hold: what a chain's receiver is tried as
/// when the model asks whether typing it could matter at all.
///
/// # Examples
/// ```
/// use shutdown_lint::resolve::known::rule_types;
/// assert!(rule_types().any(|(ty, _)| ty == "tokio::runtime::Handle"));
/// assert!(rule_types().any(|(ty, b)| ty == "reqwest::ClientBuilder" && b.is_some()));
/// ```
pub fn rule_types() -> impl Iterator<Item = (String, Option<&'static str>)> {
    let types = TYPE_CTORS.iter().map(|(t, _)| (t.to_string(), None));
    let builders = HTTP_BUILDER_TYPES
        .iter()
        .map(|(t, c)| (t.to_string(), Some(*c)))
        .chain(
            HTTP_CTORS
                .iter()
                .filter(|(_, k, _)| *k == HttpKind::Builder)
                .filter_map(|(c, _, _)| Some((c.strip_suffix("::new")?.to_string(), Some(*c)))),
        );
    types.chain(builders)
}

/// HTTP client builder types whose constructor is not their own `new`: type, constructor
/// (a builder constructor in [`HTTP_CTORS`]).
const HTTP_BUILDER_TYPES: &[(&str, &str)] = &[
    // ureq 3: `Agent::config_builder()` / `Config::builder()` make a `ConfigBuilder`
    (
        "ureq::config::ConfigBuilder",
        "ureq::config::Config::builder",
    ),
];

/// The constructor of an HTTP client builder type of a known library (its `new` when that
/// is a builder constructor in [`HTTP_CTORS`]), e.g. `reqwest::ClientBuilder::new`.
///
/// # Examples
/// ```
/// use shutdown_lint::resolve::{known::http_builder_ctor, split_path};
/// let ctor = http_builder_ctor(&split_path("reqwest::ClientBuilder"));
/// assert_eq!(ctor.as_deref(), Some("reqwest::ClientBuilder::new"));
/// assert_eq!(
///     http_builder_ctor(&split_path("ureq::config::ConfigBuilder")).as_deref(),
///     Some("ureq::config::Config::builder")
/// );
/// ```
pub fn http_builder_ctor(ty: &[String]) -> Option<&'static str> {
    if let Some((_, ctor)) = HTTP_BUILDER_TYPES.iter().find(|(t, _)| written_as(t, ty)) {
        return Some(ctor);
    }
    HTTP_CTORS
        .iter()
        .find(|(p, k, _)| {
            *k == HttpKind::Builder && p.strip_suffix("::new").is_some_and(|t| written_as(t, ty))
        })
        .map(|(p, _, _)| *p)
}

/// Whether `ty` is an HTTP client builder type of a known library (see
/// [`http_builder_ctor`]), e.g. `reqwest::ClientBuilder`.
///
/// # Examples
/// ```
/// use shutdown_lint::resolve::{known::is_http_builder_type, split_path};
/// assert!(is_http_builder_type(&split_path("reqwest::ClientBuilder")));
/// ```
pub fn is_http_builder_type(ty: &[String]) -> bool {
    http_builder_ctor(ty).is_some()
}

/// Whether `ty` is an HTTP client type of a known library (its constructor in
/// [`TYPE_CTORS`] makes a client), e.g. `reqwest::Client`.
///
/// # Examples
/// ```
/// use shutdown_lint::resolve::{known::is_http_client_type, split_path};
/// assert!(is_http_client_type(&split_path("reqwest::Client")));
/// assert!(!is_http_client_type(&split_path("tokio::runtime::Handle")));
/// ```
pub fn is_http_client_type(ty: &[String]) -> bool {
    type_ctor(ty).is_some_and(|c| {
        HTTP_CTORS
            .iter()
            .any(|(p, k, _)| *p == c && *k == HttpKind::Client)
    })
}

/// Spawn methods on [`RAW_SPAWN_RECEIVERS`].
pub const SPAWN_METHODS: &[&str] = &[
    "spawn",
    "spawn_blocking",
    "spawn_local",
    "spawn_on",
    "spawn_local_on",
    // `tokio::task::Builder`'s blocking task on a given runtime
    "spawn_blocking_on",
];

/// Tracked spawns (counted, never reported), called as paths.
pub const TRACKED_SPAWN_FNS: &[&str] = &[
    "shutdown_runtime::spawn",
    "shutdown_runtime::spawn_named",
    "shutdown_runtime::spawn_blocking",
    "shutdown_runtime::spawn_local",
    "shutdown_runtime::spawn_thread",
    "shutdown_runtime::spawn_on",
    "shutdown_runtime::spawn_blocking_on",
    "shutdown_runtime::spawn_thread_with",
    "shutdown_runtime::Shutdown::spawn",
    "shutdown_runtime::Shutdown::spawn_named",
    "shutdown_runtime::Shutdown::spawn_blocking",
    "shutdown_runtime::Shutdown::spawn_local",
    "shutdown_runtime::Shutdown::spawn_thread",
    "shutdown_runtime::Shutdown::spawn_on",
    "shutdown_runtime::Shutdown::spawn_blocking_on",
    "shutdown_runtime::Shutdown::spawn_thread_with",
];

/// Receivers whose `.spawn*` methods are tracked (`Shutdown::global().spawn(..)`).
pub const TRACKED_SPAWN_RECEIVERS: &[&str] = &[
    "shutdown_runtime::Shutdown::global",
    "shutdown_runtime::Shutdown::new",
];

/// Tracked spawn method names on [`TRACKED_SPAWN_RECEIVERS`].
pub const TRACKED_SPAWN_METHODS: &[&str] = &[
    "spawn",
    "spawn_named",
    "spawn_blocking",
    "spawn_local",
    "spawn_thread",
    "spawn_on",
    "spawn_blocking_on",
    "spawn_thread_with",
];

/// `std::thread::spawn`.
pub const THREAD_SPAWN_FN: &str = "std::thread::spawn";
/// `std::thread::Builder::new`, whose `.spawn(..)` starts a thread.
pub const THREAD_BUILDER_NEW: &str = "std::thread::Builder::new";

/// Attribute paths that make a fn route its spawns and loops (`#[drainable]`).
pub const DRAINABLE_ATTRS: &[&str] = &["shutdown_runtime::drainable"];

/// The attribute whose `grace = ".."` (30 s when not given) is a shutdown budget.
pub const MAIN_ATTR: &str = "shutdown_runtime::main";

/// shutdown-runtime's budget constructors: `(path, argument count, index of the grace
/// argument)` — `Budgets::from_grace(grace)`, `Budgets::new(children, coordinator, grace)`.
pub const BUDGETS_CTORS: &[(&str, usize, usize)] = &[
    ("shutdown_runtime::Budgets::from_grace", 1, 0),
    ("shutdown_runtime::Budgets::new", 3, 2),
];

/// Duration constructors and the factor to seconds of their argument.
pub const DURATION_CTORS: &[(&str, f64)] = &[
    ("std::time::Duration::from_secs", 1.0),
    ("std::time::Duration::from_secs_f64", 1.0),
    ("std::time::Duration::from_secs_f32", 1.0),
    ("std::time::Duration::from_millis", 1e-3),
    ("std::time::Duration::from_micros", 1e-6),
    ("std::time::Duration::from_nanos", 1e-9),
    ("std::time::Duration::from_mins", 60.0),
    ("std::time::Duration::from_hours", 3600.0),
    // chrono's (`TimeDelta`, also named `Duration`) and time's, turned into a
    // `std::time::Duration` by `.to_std()` / `try_into()` where a client takes one
    ("chrono::Duration::milliseconds", 1e-3),
    ("chrono::Duration::seconds", 1.0),
    ("chrono::Duration::minutes", 60.0),
    ("chrono::Duration::hours", 3600.0),
    ("chrono::TimeDelta::milliseconds", 1e-3),
    ("chrono::TimeDelta::seconds", 1.0),
    ("chrono::TimeDelta::minutes", 60.0),
    ("chrono::TimeDelta::hours", 3600.0),
    ("time::Duration::milliseconds", 1e-3),
    ("time::Duration::seconds", 1.0),
    ("time::Duration::minutes", 60.0),
    ("time::Duration::hours", 3600.0),
];

/// The seconds one unit of the argument of the duration constructor `path` is
/// ([`DURATION_CTORS`]).
///
/// # Examples
/// ```
/// use shutdown_lint::resolve::known::duration_factor;
/// assert_eq!(duration_factor("std::time::Duration::from_millis"), Some(1e-3));
/// assert_eq!(duration_factor("std::time::Duration::new"), None);
/// ```
pub fn duration_factor(path: &str) -> Option<f64> {
    DURATION_CTORS
        .iter()
        .find(|(n, _)| *n == path)
        .map(|(_, f)| *f)
}

/// `Duration::new(secs, nanos)`: seconds and nanoseconds.
pub const DURATION_NEW: &str = "std::time::Duration::new";

/// What a call of an HTTP library path produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpKind {
    /// A ready client with the library's default timeouts (`Client::new()`).
    Client,
    /// A client builder: needs an overall-timeout method before `build`.
    Builder,
    /// A one-shot request through a default client (reqwest makes a new one per call, ureq
    /// and isahc share one); no timeout can be set.
    OneShot,
    /// A one-shot request builder: a timeout method may follow in the chain.
    Request,
    /// A gRPC channel's endpoint (tonic's `Endpoint`): a timeout it sets bounds every call
    /// on the channel and is checked against the drain budget, but none is required (a
    /// streaming call lives as long as its stream).
    Channel,
}

/// One HTTP library as data.
#[derive(Debug, Clone, Copy)]
pub struct HttpLib {
    /// Display name, e.g. `reqwest (blocking)`.
    pub name: &'static str,
    /// Overall timeout when none is set (`None`: waits forever).
    pub default_timeout: Option<Duration>,
    /// Methods that set an overall timeout (not `connect_timeout`).
    pub timeout_methods: &'static [&'static str],
    /// Methods that finish a builder.
    pub build_methods: &'static [&'static str],
    /// What to write instead.
    pub help: &'static str,
}

/// reqwest's async client: no timeout by default.
pub const REQWEST: HttpLib = HttpLib {
    name: "reqwest",
    default_timeout: None,
    timeout_methods: &["timeout"],
    build_methods: &["build"],
    help: "build the client with `reqwest::Client::builder().timeout(Duration::from_secs(10)).build()?`, or bound each request where it is sent: `.timeout(d)` on the request, or `tokio::time::timeout(d, req.send())` (for a streamed response, a bound on the wait for its headers)",
};
/// reqwest's blocking client: an implicit 30 s timeout.
pub const REQWEST_BLOCKING: HttpLib = HttpLib {
    name: "reqwest (blocking)",
    default_timeout: Some(Duration::from_secs(30)),
    timeout_methods: &["timeout"],
    build_methods: &["build"],
    help: "set the timeout explicitly: `reqwest::blocking::Client::builder().timeout(Duration::from_secs(10)).build()?`",
};
/// wreq, a fork of reqwest that emulates browsers' TLS and HTTP/2 fingerprints, with
/// reqwest's builder API: no timeout by default.
pub const WREQ: HttpLib = HttpLib {
    name: "wreq",
    default_timeout: None,
    timeout_methods: &["timeout"],
    build_methods: &["build"],
    help: "build the client with `wreq::Client::builder().timeout(Duration::from_secs(10)).build()?`, or bound each request where it is sent: `.timeout(d)` on the request, or `tokio::time::timeout(d, req.send())`",
};
/// rquest, wreq's name before 2025: the same API, no timeout by default.
pub const RQUEST: HttpLib = HttpLib {
    name: "rquest",
    default_timeout: None,
    timeout_methods: &["timeout"],
    build_methods: &["build"],
    help: "build the client with `rquest::Client::builder().timeout(Duration::from_secs(10)).build()?`, or bound each request where it is sent: `.timeout(d)` on the request, or `tokio::time::timeout(d, req.send())`",
};
/// Whether `lib` has reqwest's client API (`Client::builder().timeout(d).build()`, a
/// request's `.timeout(d)`): reqwest's clients and its forks.
pub fn is_reqwest_shaped(lib: &HttpLib) -> bool {
    [REQWEST.name, REQWEST_BLOCKING.name, WREQ.name, RQUEST.name].contains(&lib.name)
}
/// ureq 2 and 3: no overall timeout by default.
pub const UREQ: HttpLib = HttpLib {
    name: "ureq",
    default_timeout: None,
    timeout_methods: &["timeout", "timeout_global", "timeout_per_call"],
    build_methods: &["build"],
    help: "set an overall timeout: ureq 2 `AgentBuilder::new().timeout(d).build()`, ureq 3 `Agent::config_builder().timeout_global(Some(d)).build()`",
};
/// hyper-util's legacy client (and hyper 0.14's): no timeout setting at all.
pub const HYPER: HttpLib = HttpLib {
    name: "hyper",
    default_timeout: None,
    timeout_methods: &[],
    build_methods: &["build", "build_http", "handshake"],
    help: "wrap each request in `tokio::time::timeout(d, ..)`: `client.request(req)`, or `sender.send_request(req)` on a connection; or use a client with a timeout",
};
/// isahc: no timeout by default.
pub const ISAHC: HttpLib = HttpLib {
    name: "isahc",
    default_timeout: None,
    timeout_methods: &["timeout"],
    build_methods: &["build"],
    help: "build the client with `isahc::HttpClient::builder().timeout(Duration::from_secs(10)).build()?`",
};
/// tonic's channel endpoint: `.timeout(d)` bounds each call made on the channel.
pub const TONIC: HttpLib = HttpLib {
    name: "tonic",
    default_timeout: None,
    timeout_methods: &["timeout"],
    build_methods: &["connect", "connect_lazy"],
    help: "lower the endpoint's `.timeout(..)` below `drain-budget` (a call cut by the deploy's SIGKILL is lost), or raise the budget (and the deploy grace period)",
};
/// object_store's `ClientOptions` (the HTTP client of its S3, GCS and Azure stores):
/// `.with_timeout(d)` bounds every request a store makes.
pub const OBJECT_STORE: HttpLib = HttpLib {
    name: "object_store",
    default_timeout: None,
    timeout_methods: &["with_timeout"],
    build_methods: &[],
    help: "lower the client options' `.with_timeout(..)` below `drain-budget` (a request cut by the deploy's SIGKILL is lost), or raise the budget (and the deploy grace period)",
};
/// reqwest-middleware's `ClientWithMiddleware`: the reqwest client it wraps is judged
/// where that is built; a request's `.timeout(d)` on it is checked against the budget.
pub const REQWEST_MIDDLEWARE: HttpLib = HttpLib {
    name: "reqwest-middleware",
    default_timeout: None,
    timeout_methods: &["timeout"],
    build_methods: &["build"],
    help: "lower the request's `.timeout(..)` below `drain-budget` (a request cut by the deploy's SIGKILL is lost), or raise the budget (and the deploy grace period)",
};
/// A wrapper named in config (`[http] no-timeout`).
pub const WRAPPER: HttpLib = HttpLib {
    name: "configured wrapper",
    default_timeout: None,
    timeout_methods: &["timeout"],
    build_methods: &["build"],
    help: "use a client constructor that sets an overall timeout",
};

/// HTTP constructors: canonical path, what it makes, which library.
pub const HTTP_CTORS: &[(&str, HttpKind, &HttpLib)] = &[
    // tonic's endpoints (arroyo's controller: `grpc_channel_builder(addr).await?
    // .timeout(Duration::from_secs(90)).connect()`)
    (
        "tonic::transport::Endpoint::from_static",
        HttpKind::Channel,
        &TONIC,
    ),
    (
        "tonic::transport::Endpoint::from_shared",
        HttpKind::Channel,
        &TONIC,
    ),
    ("tonic::transport::Endpoint::new", HttpKind::Channel, &TONIC),
    (
        "tonic::transport::Endpoint::try_from",
        HttpKind::Channel,
        &TONIC,
    ),
    (
        "tonic::transport::Endpoint::from",
        HttpKind::Channel,
        &TONIC,
    ),
    (
        "tonic::transport::Channel::from_static",
        HttpKind::Channel,
        &TONIC,
    ),
    (
        "tonic::transport::Channel::from_shared",
        HttpKind::Channel,
        &TONIC,
    ),
    (
        "tonic::transport::Channel::builder",
        HttpKind::Channel,
        &TONIC,
    ),
    // object_store's client options (kellnr's and parseable's S3 stores:
    // `ClientOptions::new().with_timeout(Duration::from_secs(120))`)
    (
        "object_store::ClientOptions::new",
        HttpKind::Channel,
        &OBJECT_STORE,
    ),
    (
        "object_store::ClientOptions::default",
        HttpKind::Channel,
        &OBJECT_STORE,
    ),
    // reqwest-middleware's client (dragonfly's backends: `self.client(..)?.get(url)
    // .timeout(request.timeout)` on a `ClientWithMiddleware`): no timeout of its own to
    // require, its requests' are checked
    (
        "reqwest_middleware::ClientWithMiddleware::new",
        HttpKind::Channel,
        &REQWEST_MIDDLEWARE,
    ),
    (
        "reqwest_middleware::ClientBuilder::new",
        HttpKind::Channel,
        &REQWEST_MIDDLEWARE,
    ),
    ("reqwest::Client::new", HttpKind::Client, &REQWEST),
    ("reqwest::Client::default", HttpKind::Client, &REQWEST),
    ("reqwest::Client::builder", HttpKind::Builder, &REQWEST),
    ("reqwest::ClientBuilder::new", HttpKind::Builder, &REQWEST),
    (
        "reqwest::ClientBuilder::default",
        HttpKind::Builder,
        &REQWEST,
    ),
    ("reqwest::get", HttpKind::OneShot, &REQWEST),
    // redlib's `WreqClient::builder().emulation(e).redirect(Policy::none()).build()`
    ("wreq::Client::new", HttpKind::Client, &WREQ),
    ("wreq::Client::default", HttpKind::Client, &WREQ),
    ("wreq::Client::builder", HttpKind::Builder, &WREQ),
    ("wreq::ClientBuilder::new", HttpKind::Builder, &WREQ),
    ("wreq::ClientBuilder::default", HttpKind::Builder, &WREQ),
    ("rquest::Client::new", HttpKind::Client, &RQUEST),
    ("rquest::Client::default", HttpKind::Client, &RQUEST),
    ("rquest::Client::builder", HttpKind::Builder, &RQUEST),
    ("rquest::ClientBuilder::new", HttpKind::Builder, &RQUEST),
    ("rquest::ClientBuilder::default", HttpKind::Builder, &RQUEST),
    (
        "reqwest::blocking::Client::new",
        HttpKind::Client,
        &REQWEST_BLOCKING,
    ),
    (
        "reqwest::blocking::Client::default",
        HttpKind::Client,
        &REQWEST_BLOCKING,
    ),
    (
        "reqwest::blocking::Client::builder",
        HttpKind::Builder,
        &REQWEST_BLOCKING,
    ),
    (
        "reqwest::blocking::ClientBuilder::new",
        HttpKind::Builder,
        &REQWEST_BLOCKING,
    ),
    (
        "reqwest::blocking::ClientBuilder::default",
        HttpKind::Builder,
        &REQWEST_BLOCKING,
    ),
    (
        "reqwest::blocking::get",
        HttpKind::OneShot,
        &REQWEST_BLOCKING,
    ),
    ("ureq::get", HttpKind::Request, &UREQ),
    ("ureq::post", HttpKind::Request, &UREQ),
    ("ureq::put", HttpKind::Request, &UREQ),
    ("ureq::delete", HttpKind::Request, &UREQ),
    ("ureq::head", HttpKind::Request, &UREQ),
    ("ureq::patch", HttpKind::Request, &UREQ),
    ("ureq::options", HttpKind::Request, &UREQ),
    ("ureq::request", HttpKind::Request, &UREQ),
    ("ureq::request_url", HttpKind::Request, &UREQ),
    ("ureq::agent", HttpKind::Client, &UREQ),
    ("ureq::Agent::new", HttpKind::Client, &UREQ),
    ("ureq::Agent::new_with_defaults", HttpKind::Client, &UREQ),
    ("ureq::Agent::default", HttpKind::Client, &UREQ),
    ("ureq::AgentBuilder::new", HttpKind::Builder, &UREQ),
    ("ureq::builder", HttpKind::Builder, &UREQ),
    ("ureq::Agent::config_builder", HttpKind::Builder, &UREQ),
    ("ureq::config::Config::builder", HttpKind::Builder, &UREQ),
    ("ureq::Config::builder", HttpKind::Builder, &UREQ),
    (
        "hyper_util::client::legacy::Client::builder",
        HttpKind::Builder,
        &HYPER,
    ),
    ("hyper::Client::new", HttpKind::Client, &HYPER),
    // hyperlocal's Unix-socket client: `Client::unix()` (its `UnixClientExt`), a hyper
    // (or hyper-util legacy) client with no timeout setting
    (
        "hyper_util::client::legacy::Client::unix",
        HttpKind::Client,
        &HYPER,
    ),
    ("hyper::Client::unix", HttpKind::Client, &HYPER),
    // hyper 1's connection-level client: `Builder::new(exec).handshake(io)`
    (
        "hyper::client::conn::http1::Builder::new",
        HttpKind::Builder,
        &HYPER,
    ),
    (
        "hyper::client::conn::http2::Builder::new",
        HttpKind::Builder,
        &HYPER,
    ),
    // and its one-call forms: `http1::handshake(io)`, `http2::handshake(exec, io)`
    (
        "hyper::client::conn::http1::handshake",
        HttpKind::Client,
        &HYPER,
    ),
    (
        "hyper::client::conn::http2::handshake",
        HttpKind::Client,
        &HYPER,
    ),
    ("hyper::Client::builder", HttpKind::Builder, &HYPER),
    ("isahc::get", HttpKind::OneShot, &ISAHC),
    ("isahc::get_async", HttpKind::OneShot, &ISAHC),
    ("isahc::post", HttpKind::OneShot, &ISAHC),
    ("isahc::post_async", HttpKind::OneShot, &ISAHC),
    ("isahc::put", HttpKind::OneShot, &ISAHC),
    ("isahc::put_async", HttpKind::OneShot, &ISAHC),
    ("isahc::delete", HttpKind::OneShot, &ISAHC),
    ("isahc::delete_async", HttpKind::OneShot, &ISAHC),
    ("isahc::head", HttpKind::OneShot, &ISAHC),
    ("isahc::head_async", HttpKind::OneShot, &ISAHC),
    ("isahc::send", HttpKind::OneShot, &ISAHC),
    ("isahc::send_async", HttpKind::OneShot, &ISAHC),
    ("isahc::HttpClient::new", HttpKind::Client, &ISAHC),
    ("isahc::HttpClient::builder", HttpKind::Builder, &ISAHC),
    (
        "isahc::HttpClient::builder_type::new",
        HttpKind::Builder,
        &ISAHC,
    ),
];

/// What the HTTP constructor `path` makes, and its library ([`HTTP_CTORS`]; every path is
/// there once).
///
/// # Examples
/// ```
/// use shutdown_lint::resolve::known::{http_ctor, HttpKind};
/// let (kind, lib) = http_ctor("reqwest::Client::builder").unwrap();
/// assert_eq!(kind, HttpKind::Builder);
/// assert!(lib.timeout_methods.contains(&"timeout"));
/// assert!(http_ctor("reqwest::Client::get").is_none());
/// ```
pub fn http_ctor(path: &str) -> Option<(HttpKind, &'static HttpLib)> {
    HTTP_CTORS
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|&(_, k, lib)| (k, lib))
}

/// Paths whose use means the program listens for Ctrl-C (SIGINT).
pub const CTRL_C: &[&str] = &[
    "tokio::signal::ctrl_c",
    "tokio::signal::unix::SignalKind::interrupt",
    "ctrlc::set_handler",
    "ctrlc::try_set_handler",
    "signal_hook::consts::SIGINT",
    "libc::SIGINT",
    "nix::sys::signal::SIGINT",
    "async_ctrlc::CtrlC::new",
];

/// Functions and methods that send a signal to a process (nix's and libc's `kill`,
/// `killpg`, `raise`, a supervisor's `send_signal` helper), or choose the one the kernel
/// sends when the parent dies (`prctl(PR_SET_PDEATHSIG, SIGTERM)`, nix's `set_pdeathsig`:
/// zebra-rs's eBPF engine, started as a child): a signal named in their arguments is not
/// handled by this program (hyperqueue's `send_signal(signal::SIGINT)` to a child's
/// process group).
pub const SIGNAL_SENDERS: &[&str] = &[
    "kill",
    "killpg",
    "raise",
    "pthread_kill",
    "tgkill",
    "sigqueue",
    "send_signal",
    "prctl",
    "set_pdeathsig",
];

/// `ctrlc` handlers: they also catch SIGTERM when the crate's `termination` feature is on.
pub const CTRLC_CRATE: &[&str] = &["ctrlc::set_handler", "ctrlc::try_set_handler"];

/// Paths whose use means the program handles SIGTERM.
pub const SIGTERM: &[&str] = &[
    "tokio::signal::unix::SignalKind::terminate",
    "signal_hook::consts::SIGTERM",
    // `Signals::new(TERM_SIGNALS)`: SIGTERM, SIGQUIT and SIGINT
    "signal_hook::consts::TERM_SIGNALS",
    "libc::SIGTERM",
    "nix::sys::signal::SIGTERM",
    "shutdown_runtime::signals::install",
    "shutdown_runtime::run",
    "shutdown_runtime::main",
    // actix-web's server stops gracefully on SIGTERM (and SIGINT, SIGQUIT) by itself
    "actix_web::HttpServer::new",
    "actix_server::Server::build",
    // NLnet Labs' daemonbase: returns when SIGTERM or SIGINT arrives (cascade)
    "daemonbase::process::exit_signalled",
    // tokio-graceful-shutdown's `Toplevel::new(..).catch_signals()` ([`SIGNAL_METHODS`])
    "tokio_graceful_shutdown::Toplevel::catch_signals",
    PINGORA_RUN,
    ROCKET_LAUNCH,
];

/// Methods that install signal handlers on what a known constructor made: `(constructor,
/// method, path)`, the path standing for the handler in [`SIGTERM`] and [`SIGNALS`].
/// tokio-graceful-shutdown's `Toplevel::new(..).catch_signals()` starts the subsystems'
/// shutdown on SIGINT or SIGTERM (sqd's worker); a `Toplevel` not told so handles none.
///
/// ```
/// use shutdown_lint::resolve::known::{SIGNAL_METHODS, SIGTERM};
/// let (_, method, path) = SIGNAL_METHODS[0];
/// assert_eq!(method, "catch_signals");
/// assert!(SIGTERM.contains(&path));
/// ```
pub const SIGNAL_METHODS: &[(&str, &str, &str)] = &[
    (
        "tokio_graceful_shutdown::Toplevel::new",
        "catch_signals",
        "tokio_graceful_shutdown::Toplevel::catch_signals",
    ),
    // Pingora's `Server` runs a main loop that listens for SIGTERM (graceful shutdown),
    // SIGINT (fast shutdown) and SIGQUIT (graceful upgrade) (mini-gateway-rs's router)
    ("pingora::server::Server::new", "run_forever", PINGORA_RUN),
    ("pingora::server::Server::new", "run", PINGORA_RUN),
    (
        "pingora::server::Server::new_with_opt_and_conf",
        "run_forever",
        PINGORA_RUN,
    ),
    (
        "pingora::server::Server::new_with_opt_and_conf",
        "run",
        PINGORA_RUN,
    ),
    // Rocket 0.5's `rocket::build()..launch().await` (0.4 had `ignite()`): see
    // [`ROCKET_LAUNCH`]
    ("rocket::build", "launch", ROCKET_LAUNCH),
];

/// Rocket 0.5's `#[launch]` (and a `rocket::build()` that is launched, [`SIGNAL_METHODS`]):
/// its `Shutdown` config's defaults stop the server gracefully on Ctrl-C, SIGTERM and
/// SIGHUP (devhub-cache-api-rs).
pub const ROCKET_LAUNCH: &str = "rocket::launch";

/// What [`SIGNAL_METHODS`] credits a Pingora `Server` that is run with.
const PINGORA_RUN: &str = "pingora::server::Server::run";

/// A server API whose serving future needs a shutdown signal (`server-no-graceful-shutdown`).
#[derive(Debug, Clone, Copy)]
pub struct ServerApi {
    /// Display name, e.g. `axum`.
    pub name: &'static str,
    /// Calls that start the chain (canonical paths).
    pub roots: &'static [&'static str],
    /// Methods that start serving; empty: the root call itself serves (`axum::serve(..)`).
    pub serve: &'static [&'static str],
    /// Methods that make the serving graceful (in the chain or on a binding of it).
    pub graceful: &'static [&'static str],
    /// How a message names what is missing; `None`: the `graceful` methods.
    pub missing: Option<&'static str>,
    /// What to write instead.
    pub help: &'static str,
    /// Whether `shutdown_runtime::server` can serve what this API serves (a hyper or tower
    /// service); frameworks with their own server types get only their own advice.
    pub runtime_server: bool,
    /// Where the graceful shutdown is told how long to wait for open connections
    /// (`http-timeout-over-budget`).
    pub drain_timeout: Option<DrainTimeout>,
    /// A server that drains on SIGTERM by itself unless this method turns that off
    /// (actix-web's `.disable_signals()`): only then does it need a shutdown signal.
    pub drains_unless: Option<&'static str>,
    /// A method that waits for the drain a `graceful` method only starts (jsonrpsee's
    /// `stop()` asks the server to stop; `stopped()` waits until its connections are
    /// done): both are needed.
    pub drain_wait: Option<&'static str>,
    /// Whether the serving method returns a handle that controls the server (jsonrpsee's
    /// `start(..)` returns a `ServerHandle`): a handle that leaves the function (returned,
    /// stored, passed on) is judged where it goes, and one this function never uses is
    /// not judged here.
    pub serve_returns_handle: bool,
    /// A blocking server that serves on threads of its own (rouille's `run()`), not a
    /// future: nothing can drop it, and it serves until the process exits.
    pub blocking: bool,
    /// Whether the `graceful` methods take an argument (axum-server's `.handle(h)`): called
    /// without one on a value the chains lost track of, it is another method of that name
    /// (tokio's `Runtime::handle()`).
    pub graceful_takes_arg: bool,
}

/// A method that bounds a server's graceful shutdown: its argument number `arg` is the
/// longest wait for open connections (a `Duration`, or `Some` of one).
#[derive(Debug, Clone, Copy)]
pub struct DrainTimeout {
    /// The method, called on the server's chain or on a binding of it.
    pub method: &'static str,
    /// Which argument (0-based).
    pub arg: usize,
    /// Whether the argument is a number of seconds (actix's `shutdown_timeout(30)`), not a
    /// `Duration`.
    pub in_secs: bool,
    /// How long the server waits when the method is never called (actix-web: 30 s), when
    /// it waits at all by default.
    pub default_secs: Option<f64>,
}

/// Methods of a server, client or handle that return plain data about it (an address, a
/// port, a thread handle's `Thread`), not the value itself: a binding of their result does
/// not move the value on.
pub const PLAIN_DATA_ACCESSORS: &[&str] = &["local_addr", "local_addrs", "local_port", "thread"];

/// The name of metrics-exporter-prometheus's entry in [`SERVERS`]: its listener is not the
/// service's own server.
pub const METRICS_EXPORTER: &str = "metrics-exporter-prometheus";

/// The name of the `prometheus_exporter` crate's entries in [`SERVERS`].
pub const PROMETHEUS_EXPORTER: &str = "prometheus_exporter";

/// The [`SERVERS`] entries whose listener only exports metrics: not the service's own
/// server, so a tool that starts one is not a daemon for it (`sigterm-missing`).
///
/// ```
/// use shutdown_lint::resolve::known::{METRICS_EXPORTERS, SERVERS};
/// assert!(METRICS_EXPORTERS.iter().all(|n| SERVERS.iter().any(|s| s.name == *n)));
/// ```
pub const METRICS_EXPORTERS: &[&str] = &[METRICS_EXPORTER, PROMETHEUS_EXPORTER];

/// metrics-exporter-prometheus: `install()` starts the exporter's own HTTP listener (or
/// push loop) as an untracked task or thread, with no way to stop it
/// (text-embeddings-inference).
const METRICS_EXPORTER_API: ServerApi = ServerApi {
    name: METRICS_EXPORTER,
    roots: &["metrics_exporter_prometheus::PrometheusBuilder::new"],
    serve: &["install"],
    graceful: &[],
    missing: Some("way to stop it at all: its listener runs until the process exits"),
    help: "install only the recorder (`PrometheusBuilder::new().install_recorder()?` \
           returns a `PrometheusHandle`) and serve `handle.render()` from a route of the \
           service's own server, which drains on shutdown",
    runtime_server: false,
    drain_timeout: None,
    drains_unless: None,
    drain_wait: None,
    serve_returns_handle: false,
    blocking: false,
    graceful_takes_arg: false,
};

/// `prometheus_exporter::Builder::new(addr)..start()`: the crate's listener, configured;
/// like [`METRICS_EXPORTER_API`]'s, nothing stops it.
const PROMETHEUS_EXPORTER_BUILDER: ServerApi = ServerApi {
    name: PROMETHEUS_EXPORTER,
    roots: &["prometheus_exporter::Builder::new"],
    serve: &["start"],
    help: "serve the registry's text (`prometheus::TextEncoder`) from a route of the \
           service's own server, which drains on shutdown",
    ..METRICS_EXPORTER_API
};

/// What to write instead of a rouille server that never returns.
const ROUILLE_HELP: &str = "build the server with `rouille::Server::new(addr, handler)?` \
    (not `start_server`) and serve it with `let (thread, stop) = server.stoppable();`; once \
    `shutdown_runtime::shutdown_requested()`, `stop.send(())` and `thread.join()`; or loop on \
    `server.poll_timeout(d)` until shutdown is requested";

/// rouille's `Server::new(..)` served with `.run()`; its `start_server` entry in [`SERVERS`]
/// differs only in how it serves.
const ROUILLE: ServerApi = ServerApi {
    name: "rouille",
    // a blocking server on tiny-http: `run()` (and `start_server`, which is
    // `Server::new(..).run()`) serves until the process exits; `stoppable()` returns
    // its thread and a sender that stops it, `poll()` / `poll_timeout(d)` serve one
    // round in a loop of the caller's (sccache-dist's scheduler and build servers)
    roots: &["rouille::Server::new", "rouille::Server::new_ssl"],
    serve: &["run"],
    graceful: &[],
    missing: Some("way to stop it: `.run()` returns only when the process exits"),
    help: ROUILLE_HELP,
    runtime_server: false,
    drain_timeout: None,
    drains_unless: None,
    drain_wait: None,
    serve_returns_handle: false,
    blocking: true,
    graceful_takes_arg: false,
};

/// jsonrpsee-server (0.16 on), also through the `jsonrpsee::server` facade.
const JSONRPSEE: ServerApi = ServerApi {
    name: "jsonrpsee",
    roots: &[
        "jsonrpsee::server::Server::builder",
        "jsonrpsee::server::ServerBuilder::new",
        "jsonrpsee::server::ServerBuilder::default",
        "jsonrpsee::server::ServerBuilder::with_config",
    ],
    serve: &["start"],
    graceful: &["stop"],
    missing: Some("`stop()` on its `ServerHandle` followed by a wait for `stopped()`"),
    help: "keep the `ServerHandle` that `.start(..)` returns; once \
           `shutdown_runtime::wait_for_shutdown()` returns, call `handle.stop()` and then \
           await `handle.stopped()`, which returns when its connections are done",
    runtime_server: false,
    drain_timeout: None,
    drains_unless: None,
    drain_wait: Some("stopped"),
    serve_returns_handle: true,
    blocking: false,
    graceful_takes_arg: false,
};

/// actix-web's `HttpServer`: it handles SIGTERM itself unless `.disable_signals()`.
const ACTIX_WEB: ServerApi = ServerApi {
    name: "actix-web",
    roots: &["actix_web::HttpServer::new"],
    serve: &["run"],
    graceful: &["handle"],
    missing: Some(
        "signal handling of its own (`.disable_signals()`), nor a `.handle()` told to `stop(true)`",
    ),
    help: "keep actix's own signal handling (drop `.disable_signals()`), or take \
           `let handle = server.handle();` and call `handle.stop(true).await` once \
           `shutdown_runtime::wait_for_shutdown()` returns",
    runtime_server: false,
    drain_timeout: Some(DrainTimeout {
        method: "shutdown_timeout",
        arg: 0,
        in_secs: true,
        // actix-web's `ServerBuilder::shutdown_timeout` default
        default_secs: Some(30.0),
    }),
    drains_unless: Some("disable_signals"),
    drain_wait: None,
    serve_returns_handle: false,
    blocking: false,
    graceful_takes_arg: false,
};

/// The [`ServerApi::graceful`] methods that serve by themselves, the shutdown future one of
/// their arguments (tonic's `serve_with_shutdown(addr, signal)`, warp 0.3's
/// `bind_with_graceful_shutdown(addr, signal)`, poem's `run_with_graceful_shutdown(app,
/// signal, timeout)`): a chain that calls one serves, as with a [`ServerApi::serve`] method
/// (`sigterm-missing`: a graceful server whose signal is the program's own channel serves
/// all the same).
///
/// # Examples
/// ```
/// use shutdown_lint::resolve::known::GRACEFUL_SERVING;
/// assert!(GRACEFUL_SERVING.contains(&"serve_with_shutdown"));
/// assert!(!GRACEFUL_SERVING.contains(&"with_graceful_shutdown"));
/// ```
pub const GRACEFUL_SERVING: &[&str] = &[
    "serve_with_shutdown",
    "serve_with_incoming_shutdown",
    "bind_with_graceful_shutdown",
    "try_bind_with_graceful_shutdown",
    "serve_incoming_with_graceful_shutdown",
    "run_with_graceful_shutdown",
    "serve_with_graceful_shutdown",
    "try_serve_with_graceful_shutdown",
];

/// The server APIs `server-no-graceful-shutdown` knows.
pub const SERVERS: &[ServerApi] = &[
    ServerApi {
        name: "axum",
        roots: &["axum::serve"],
        serve: &[],
        graceful: &["with_graceful_shutdown"],
        missing: None,
        help: "add `.with_graceful_shutdown(shutdown_runtime::wait_for_shutdown())`",
        runtime_server: true,
        drain_timeout: None,
        drains_unless: None,
        drain_wait: None,
        serve_returns_handle: false,
        blocking: false,
        graceful_takes_arg: false,
    },
    ServerApi {
        name: "hyper",
        roots: &[
            "hyper::Server::bind",
            "hyper::Server::try_bind",
            "hyper::Server::from_tcp",
            "hyper::Server::builder",
        ],
        serve: &["serve"],
        graceful: &["with_graceful_shutdown"],
        missing: None,
        help: "add `.with_graceful_shutdown(shutdown_runtime::wait_for_shutdown())` after `.serve(..)`",
        runtime_server: true,
        drain_timeout: None,
        drains_unless: None,
        drain_wait: None,
        serve_returns_handle: false,
        blocking: false,
        graceful_takes_arg: false,
    },
    ServerApi {
        name: "hyper",
        roots: &[
            "hyper::server::conn::http1::Builder::new",
            "hyper::server::conn::http2::Builder::new",
            "hyper::server::conn::Http::new",
            "hyper_util::server::conn::auto::Builder::new",
        ],
        serve: &["serve_connection", "serve_connection_with_upgrades"],
        graceful: &["graceful_shutdown", "watch"],
        missing: None,
        help: "keep the connection and call `graceful_shutdown()` on it when shutdown is requested (or `hyper_util::server::graceful::GracefulShutdown::watch` it)",
        runtime_server: true,
        drain_timeout: None,
        drains_unless: None,
        drain_wait: None,
        serve_returns_handle: false,
        blocking: false,
        graceful_takes_arg: false,
    },
    ServerApi {
        name: "tonic",
        roots: &["tonic::transport::Server::builder"],
        serve: &["serve", "serve_with_incoming"],
        graceful: &["serve_with_shutdown", "serve_with_incoming_shutdown"],
        missing: None,
        help: "use `.serve_with_shutdown(addr, shutdown_runtime::wait_for_shutdown())` (or `serve_with_incoming_shutdown`)",
        runtime_server: true,
        drain_timeout: None,
        drains_unless: None,
        drain_wait: None,
        serve_returns_handle: false,
        blocking: false,
        graceful_takes_arg: false,
    },
    ServerApi {
        name: "axum-server",
        roots: &[
            "axum_server::bind",
            "axum_server::bind_rustls",
            "axum_server::bind_openssl",
            "axum_server::from_tcp",
            "axum_server::from_tcp_rustls",
            "axum_server::from_tcp_openssl",
            // a std `UnixListener` (unix only)
            "axum_server::from_unix",
            // the same through `Server`'s associated functions (mcgill.wtf, ord)
            "axum_server::Server::bind",
            "axum_server::Server::from_tcp",
            // the same, through the TLS modules they are re-exported from
            "axum_server::tls_rustls::bind_rustls",
            "axum_server::tls_rustls::from_tcp_rustls",
            "axum_server::tls_openssl::bind_openssl",
            "axum_server::tls_openssl::from_tcp_openssl",
            // its shutdown handle (never serves by itself)
            "axum_server::Handle::new",
        ],
        serve: &["serve"],
        graceful: &["handle"],
        missing: None,
        help: "pass an `axum_server::Handle` with `.handle(h)` and call `h.graceful_shutdown(..)` on shutdown",
        runtime_server: true,
        drain_timeout: Some(DrainTimeout {
            method: "graceful_shutdown",
            arg: 0,
            in_secs: false,
            default_secs: None,
        }),
        drains_unless: None,
        drain_wait: None,
        serve_returns_handle: false,
        blocking: false,
        graceful_takes_arg: true,
    },
    ServerApi {
        name: "warp",
        roots: &["warp::serve"],
        serve: &[
            "run",
            "bind",
            "try_bind",
            "bind_ephemeral",
            "try_bind_ephemeral",
            "run_incoming",
            "serve_incoming",
        ],
        graceful: &[
            "bind_with_graceful_shutdown",
            "try_bind_with_graceful_shutdown",
            "serve_incoming_with_graceful_shutdown",
            // warp 0.4: `warp::serve(f).bind(addr).await.graceful(signal).run().await`
            "graceful",
        ],
        missing: Some(
            "`.graceful(signal)` before `.run()` (warp 0.4), nor `bind_with_graceful_shutdown(..)` (warp 0.3)",
        ),
        help: "add `.graceful(shutdown_runtime::wait_for_shutdown())` before `.run()` (warp 0.4), \
               or use `.bind_with_graceful_shutdown(addr, shutdown_runtime::wait_for_shutdown())` \
               (warp 0.3)",
        runtime_server: true,
        drain_timeout: None,
        drains_unless: None,
        drain_wait: None,
        serve_returns_handle: false,
        blocking: false,
        graceful_takes_arg: false,
    },
    ServerApi {
        name: "poem",
        // `poem::Server::run(ep)` is `run_with_graceful_shutdown(ep, pending(), None)`
        roots: &["poem::Server::new", "poem::Server::new_with_acceptor"],
        serve: &["run"],
        graceful: &["run_with_graceful_shutdown"],
        missing: None,
        help: "use `.run_with_graceful_shutdown(app, shutdown_runtime::wait_for_shutdown(), \
               Some(Duration::from_secs(20)))`, with a timeout shorter than the drain budget",
        runtime_server: false,
        drain_timeout: Some(DrainTimeout {
            method: "run_with_graceful_shutdown",
            arg: 2,
            in_secs: false,
            default_secs: None,
        }),
        drains_unless: None,
        drain_wait: None,
        serve_returns_handle: false,
        blocking: false,
        graceful_takes_arg: false,
    },
    ServerApi {
        name: "salvo",
        // salvo re-exports salvo_core's server at its root and in its prelude
        roots: &[
            "salvo::Server::new",
            "salvo::Server::with_http_builder",
            "salvo::server::Server::new",
            "salvo::server::Server::with_http_builder",
            "salvo::prelude::Server::new",
            "salvo::prelude::Server::with_http_builder",
            "salvo_core::Server::new",
            "salvo_core::Server::with_http_builder",
            "salvo_core::server::Server::new",
            "salvo_core::server::Server::with_http_builder",
            "salvo_core::prelude::Server::new",
            "salvo_core::prelude::Server::with_http_builder",
        ],
        serve: &["serve", "try_serve"],
        graceful: &[
            "handle",
            "stop_graceful",
            // salvo before 0.38
            "serve_with_graceful_shutdown",
            "try_serve_with_graceful_shutdown",
        ],
        missing: Some("`.handle()` told to `stop_graceful(..)`"),
        help: "take `let handle = server.handle();` before `.serve(..)` and call \
               `handle.stop_graceful(Duration::from_secs(20))` once \
               `shutdown_runtime::wait_for_shutdown()` returns",
        runtime_server: false,
        drain_timeout: Some(DrainTimeout {
            method: "stop_graceful",
            arg: 0,
            in_secs: false,
            default_secs: None,
        }),
        drains_unless: None,
        drain_wait: None,
        serve_returns_handle: false,
        blocking: false,
        graceful_takes_arg: false,
    },
    ACTIX_WEB,
    ServerApi {
        // the server actix-web's `HttpServer` wraps, built directly (`Server::build()
        // .bind(name, addr, factory)?.run()`, autopush's autoconnect): the same signal
        // handling, handle and 30 s default wait
        name: "actix-server",
        roots: &[
            "actix_server::Server::build",
            "actix_server::ServerBuilder::new",
            "actix_server::ServerBuilder::default",
        ],
        ..ACTIX_WEB
    },
    METRICS_EXPORTER_API,
    ServerApi {
        // the `prometheus_exporter` crate: `start(addr)` runs a tiny_http listener on a
        // thread of its own, with no way to stop it (freebox-exporter, trin)
        roots: &["prometheus_exporter::start"],
        serve: &[],
        ..PROMETHEUS_EXPORTER_BUILDER
    },
    PROMETHEUS_EXPORTER_BUILDER,
    JSONRPSEE,
    ServerApi {
        name: "jsonrpsee",
        // before 0.16: one server per transport (mango-v4's `service-mango-pnl`,
        // `http_server::HttpServerBuilder::default().build(addr)?.start(module)?`); the
        // handle's `stop()` hands back what to wait on
        roots: &[
            "jsonrpsee::http_server::HttpServerBuilder::new",
            "jsonrpsee::http_server::HttpServerBuilder::default",
            "jsonrpsee::ws_server::WsServerBuilder::new",
            "jsonrpsee::ws_server::WsServerBuilder::default",
        ],
        serve: &["start"],
        graceful: &["stop"],
        missing: Some("`stop()` on the handle `.start(..)` returns, and a wait for it"),
        help: "keep the handle that `.start(..)` returns; once \
               `shutdown_runtime::wait_for_shutdown()` returns, call `handle.stop()` and await \
               what it hands back (or, from jsonrpsee 0.16, `handle.stopped()`)",
        drain_wait: None,
        ..JSONRPSEE
    },
    ServerApi {
        name: "dropshot",
        // `start()` returns the running `HttpServer`; it installs no signal handler and
        // stops (finishing the requests in flight) only when `close()` is awaited
        // (buildomat)
        roots: &[
            "dropshot::HttpServerStarter::new",
            "dropshot::HttpServerStarter::new_with_tls",
            "dropshot::ServerBuilder::new",
        ],
        serve: &["start"],
        graceful: &["close"],
        missing: Some("`close()` on the `HttpServer` that `.start()` returns"),
        help: "keep the `HttpServer` that `.start()` returns; once \
               `shutdown_runtime::wait_for_shutdown()` returns, await `server.close()`, which \
               stops accepting and returns when the requests in flight are done",
        runtime_server: false,
        drain_timeout: None,
        drains_unless: None,
        drain_wait: None,
        serve_returns_handle: true,
        blocking: false,
        graceful_takes_arg: false,
    },
    ServerApi {
        // Rocket 0.4: `rocket::ignite()..launch()` blocks serving on threads of its own
        // until the process exits, with no way to stop it (rfcbot); Rocket 0.5's
        // `rocket::build()..launch().await` drains on SIGTERM and Ctrl-C by itself
        name: "rocket 0.4",
        roots: &["rocket::ignite"],
        serve: &["launch"],
        graceful: &[],
        missing: Some(
            "way to stop it: Rocket 0.4's `launch()` returns only when the process exits",
        ),
        help: "move to Rocket 0.5 (`rocket::build()..launch().await`), whose `Shutdown` \
               configuration drains requests in flight on SIGTERM and Ctrl-C, within a grace \
               period shorter than the deploy's",
        // the rest as rouille's: a blocking server of its own, not a future
        ..ROUILLE
    },
    ROUILLE,
    ServerApi {
        // `start_server(addr, handler)` is `Server::new(..).run()`: it never returns
        roots: &["rouille::start_server", "rouille::start_server_with_pool"],
        serve: &[],
        missing: Some("way to stop it: `start_server` returns only when the process exits"),
        ..ROUILLE
    },
];

/// The server API whose serving chains start at `root` (a canonical path).
///
/// # Examples
/// ```
/// use shutdown_lint::resolve::known::server_api;
/// assert_eq!(server_api("poem::Server::new").map(|a| a.name), Some("poem"));
/// assert!(server_api("tokio::spawn").is_none());
/// ```
pub fn server_api(root: &str) -> Option<&'static ServerApi> {
    SERVERS.iter().find(|api| api.roots.contains(&root))
}

/// hyper-util's executor: every connection task it starts is a raw `tokio::spawn`.
pub const TOKIO_EXECUTOR: &[&str] = &[
    "hyper_util::rt::TokioExecutor::new",
    "hyper_util::rt::TokioExecutor::default",
];

/// Words one of which a file must contain to handle a signal ([`SIGNALS`]): a file outside
/// the linted paths that names none is read only for its modules and calls.
pub const SIGNAL_WORDS: &[&str] = &[
    "ctrl_c",
    "CtrlC",
    "set_handler",
    "SignalKind",
    "SIGINT",
    "SIGTERM",
    "SIGQUIT",
    "SIGHUP",
    "SIGUSR",
    "SIGALRM",
    "SIGPIPE",
    "SIGCHLD",
    "SIGWINCH",
    "shutdown_runtime",
    "shutdown_macros",
    "HttpServer",
    "actix_server",
    "signal",
    "run_forever",
    "RunArgs",
    "launch",
];

/// Paths whose use means the program handles these signals (the audit's
/// `stopsignal-unhandled` and per-binary signal table).
pub const SIGNALS: &[(&str, &[&str])] = &[
    ("tokio::signal::ctrl_c", &["SIGINT"]),
    ("ctrlc::set_handler", &["SIGINT"]),
    ("ctrlc::try_set_handler", &["SIGINT"]),
    ("async_ctrlc::CtrlC::new", &["SIGINT"]),
    ("shutdown_runtime::main", &["SIGTERM", "SIGINT"]),
    ("shutdown_runtime::run", &["SIGTERM", "SIGINT"]),
    ("shutdown_runtime::signals::install", &["SIGTERM", "SIGINT"]),
    (
        "daemonbase::process::exit_signalled",
        &["SIGTERM", "SIGINT"],
    ),
    (
        "tokio_graceful_shutdown::Toplevel::catch_signals",
        &["SIGTERM", "SIGINT"],
    ),
    (PINGORA_RUN, &["SIGTERM", "SIGINT", "SIGQUIT"]),
    (ROCKET_LAUNCH, &["SIGTERM", "SIGINT", "SIGHUP"]),
    ("tokio::signal::unix::SignalKind::terminate", &["SIGTERM"]),
    (
        "actix_web::HttpServer::new",
        &["SIGTERM", "SIGINT", "SIGQUIT"],
    ),
    (
        "actix_server::Server::build",
        &["SIGTERM", "SIGINT", "SIGQUIT"],
    ),
    ("tokio::signal::unix::SignalKind::interrupt", &["SIGINT"]),
    ("tokio::signal::unix::SignalKind::quit", &["SIGQUIT"]),
    ("tokio::signal::unix::SignalKind::hangup", &["SIGHUP"]),
    (
        "tokio::signal::unix::SignalKind::user_defined1",
        &["SIGUSR1"],
    ),
    (
        "tokio::signal::unix::SignalKind::user_defined2",
        &["SIGUSR2"],
    ),
    ("tokio::signal::unix::SignalKind::alarm", &["SIGALRM"]),
    ("tokio::signal::unix::SignalKind::pipe", &["SIGPIPE"]),
    ("tokio::signal::unix::SignalKind::child", &["SIGCHLD"]),
    (
        "tokio::signal::unix::SignalKind::window_change",
        &["SIGWINCH"],
    ),
    ("libc::SIGTERM", &["SIGTERM"]),
    ("libc::SIGINT", &["SIGINT"]),
    ("libc::SIGQUIT", &["SIGQUIT"]),
    ("libc::SIGHUP", &["SIGHUP"]),
    ("libc::SIGUSR1", &["SIGUSR1"]),
    ("libc::SIGUSR2", &["SIGUSR2"]),
    ("signal_hook::consts::SIGTERM", &["SIGTERM"]),
    ("signal_hook::consts::SIGINT", &["SIGINT"]),
    ("signal_hook::consts::SIGQUIT", &["SIGQUIT"]),
    ("signal_hook::consts::SIGHUP", &["SIGHUP"]),
    ("signal_hook::consts::SIGUSR1", &["SIGUSR1"]),
    ("signal_hook::consts::SIGUSR2", &["SIGUSR2"]),
    // signal-hook's set of the signals that ask a program to end
    (
        "signal_hook::consts::TERM_SIGNALS",
        &["SIGTERM", "SIGQUIT", "SIGINT"],
    ),
    ("nix::sys::signal::SIGTERM", &["SIGTERM"]),
    ("nix::sys::signal::SIGINT", &["SIGINT"]),
    ("nix::sys::signal::SIGQUIT", &["SIGQUIT"]),
    ("nix::sys::signal::SIGHUP", &["SIGHUP"]),
    ("nix::sys::signal::SIGUSR1", &["SIGUSR1"]),
    ("nix::sys::signal::SIGUSR2", &["SIGUSR2"]),
];

/// Words at least one of which a file must contain (outside `//` comments) for any rule to
/// possibly report in it: every path a rule matches ends in, or is imported through, one
/// of these (aliases keep the original name in their `use`); config adds the last segments
/// of its paths and the roots of its re-exports.
pub const NEEDLES: &[&str] = &[
    "spawn",
    "ctrl_c",
    "CtrlC",
    "interrupt",
    "terminate",
    "set_handler",
    "exit_signalled",
    "catch_signals",
    // Pingora's `server.run_forever()` / `server.run(RunArgs::default())`
    "run_forever",
    "RunArgs",
    // Rocket 0.5's `#[launch]` / `.launch().await` (its route files name neither)
    "launch",
    "SIGINT",
    "SIGTERM",
    "SignalKind",
    "SIGQUIT",
    "SIGHUP",
    "SIGUSR",
    "shutdown_runtime",
    "shutdown_macros",
    "drainable",
    "reqwest",
    "wreq",
    "rquest",
    "ureq",
    "hyper",
    "isahc",
    "axum",
    "tonic",
    "warp",
    "poem",
    "salvo",
    "jsonrpsee",
    "dropshot",
    "rouille",
    // Rocket 0.4's `rocket::ignite()` (not the crate's name: Rocket 0.5's route files are
    // many, and need nothing read)
    "ignite",
    "PrometheusBuilder",
    "prometheus_exporter",
    "HttpServer",
    "actix_server",
    "TokioExecutor",
    "object_store",
    "shutdown-lint",
    // a server a function of another file returns, served here
    // (xanderjakeq.page's `main.rs`: `get_server(address).await.serve(router).await`)
    ".serve(",
];

/// Every path any rule matches (glob imports are only followed to these).
pub fn all_paths() -> impl Iterator<Item = &'static str> {
    RAW_SPAWN_FNS
        .iter()
        .chain(RAW_SPAWN_RECEIVERS)
        .chain(TRACKED_SPAWN_FNS)
        .chain(TRACKED_SPAWN_RECEIVERS)
        .chain([THREAD_SPAWN_FN, THREAD_BUILDER_NEW].iter())
        .chain(DRAINABLE_ATTRS)
        .chain(DURATION_CTORS.iter().map(|(p, _)| p))
        .chain([DURATION_NEW].iter())
        .chain(HTTP_CTORS.iter().map(|(p, _, _)| p))
        .chain(CTRL_C)
        .chain(SIGTERM)
        .chain(SIGNALS.iter().map(|(p, _)| p))
        .chain(SIGNAL_METHODS.iter().map(|(root, _, _)| root))
        .chain(SERVERS.iter().flat_map(|s| s.roots))
        .chain(TOKIO_EXECUTOR)
        .chain(BUDGETS_CTORS.iter().map(|(p, _, _)| p))
        .copied()
        .chain([
            "std::thread::Builder",
            "std::time::Duration",
            "tokio::runtime::Handle",
            "tokio::runtime::Runtime",
            "tokio::signal::unix::SignalKind",
            "reqwest::Client",
            "reqwest::blocking::Client",
            "wreq::Client",
            "rquest::Client",
            "ureq::Agent",
            "isahc::HttpClient",
            "shutdown_runtime::Shutdown",
            "hyper::Server",
            "hyper_util::rt::TokioExecutor",
            "tonic::transport::Server",
        ])
}

#[cfg(test)]
mod tests {
    use super::written_as;
    use crate::resolve::split_path;

    #[test]
    fn a_path_is_compared_segment_by_segment() {
        let segs = split_path("tokio::runtime::Handle");
        assert!(written_as("tokio::runtime::Handle", &segs));
        for other in [
            "tokio::runtime",
            "tokio::runtime::Handles",
            "tokio::runtime::Handle::current",
            "tokio::runtimeHandle",
            "tokio:::runtime::Handle",
            "",
        ] {
            assert!(!written_as(other, &segs), "{other}");
        }
        assert!(written_as("", &[]));
        assert!(!written_as("a", &[]));
        // a segment that is a prefix of the written one is not it
        assert!(!written_as(
            "reqwest::ClientBuilder",
            &split_path("reqwest::Client")
        ));
    }
}
