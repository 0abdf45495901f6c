//! The workspace model end to end on temporary workspaces: re-exports read from a
//! registry dependency's sources in a (fake) local cargo registry, with versions from
//! `Cargo.lock`; the documented fallback table when the sources are absent; a crate
//! re-exported under a known crate's own name; a path dependency's own module named like one.

use shutdown_lint::engine::{LintOptions, lint_paths};
use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// `(line, rule)` of every active finding of a lint of `dir` with registry `home`.
fn lint(dir: &Path, home: &Path) -> Vec<(usize, String)> {
    let opts = LintOptions {
        cwd: Some(dir.to_path_buf()),
        cargo_home: Some(home.to_path_buf()),
        threads: Some(2),
        ..LintOptions::default()
    };
    let report = lint_paths(&[dir.to_path_buf()], &opts).unwrap();
    report
        .active()
        .map(|f| (f.region.line, f.rule.clone()))
        .collect()
}

/// A temporary directory holding one package named `name`.
fn one_package(name: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "Cargo.toml",
        &format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
    );
    d
}

/// The report of linting `root` from inside it.
/// Each active finding as `path:line rule message`.
fn active_lines(report: &shutdown_lint::engine::LintReport) -> Vec<String> {
    report
        .active()
        .map(|f| {
            format!(
                "{}:{} {} {}",
                f.path.display(),
                f.region.line,
                f.rule,
                f.message
            )
        })
        .collect()
}

fn lint_here(root: &Path) -> shutdown_lint::engine::LintReport {
    let opts = LintOptions {
        cwd: Some(root.to_path_buf()),
        ..LintOptions::default()
    };
    lint_paths(&[root.to_path_buf()], &opts).unwrap()
}

const APP_MAIN: &str = "\
use task_facade::task;
fn main() {
    task::spawn(async {});
    task_facade::rt::spawn(async {});
    task_facade::local_only();
    actix::spawn(async {});
}
";

fn app(root: &Path, lock_version: &str) {
    write(
        root,
        "app/Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ntask_facade = \"1\"\nactix = \"0.13\"\n",
    );
    write(
        root,
        "app/Cargo.lock",
        &format!(
            "version = 3\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"task_facade\"\nversion = \"{lock_version}\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"
        ),
    );
    write(root, "app/src/main.rs", APP_MAIN);
}

fn registry(home: &Path, version: &str) {
    write(
        home,
        &format!("registry/src/index.crates.io-0000/task_facade-{version}/Cargo.toml"),
        "[package]\nname = \"task_facade\"\n\n[dependencies]\ntokio = \"1\"\n",
    );
    write(
        home,
        &format!("registry/src/index.crates.io-0000/task_facade-{version}/src/lib.rs"),
        "pub mod task { pub use tokio::spawn; }\npub use tokio as rt;\npub fn local_only() {}\n",
    );
}

#[test]
fn registry_dependency_reexports_are_read_from_the_locked_version() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    app(dir.path(), "1.2.3");
    registry(home.path(), "1.2.3");
    // an older unpacked version that does not re-export anything must not be used
    write(
        home.path(),
        "registry/src/index.crates.io-0000/task_facade-1.0.0/src/lib.rs",
        "pub mod task { pub fn spawn<F>(_: F) {} }\n",
    );
    let got = lint(dir.path(), home.path());
    let lines: Vec<usize> = got
        .iter()
        .filter(|(_, r)| r == "raw-spawn")
        .map(|(l, _)| *l)
        .collect();
    // task::spawn (line 3), rt::spawn (4) from the sources; actix::spawn (6) from the table
    assert_eq!(lines, [3, 4, 6], "{got:?}");
}

#[test]
fn absent_sources_fall_back_to_the_table_only() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    app(dir.path(), "1.2.3");
    let got = lint(dir.path(), home.path());
    let lines: Vec<usize> = got.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [6], "only the documented actix re-export: {got:?}");
}

/// n0-future's `task::spawn` is tokio's (iroh's ten spawns through `use n0_future::task;`),
/// from the table when its sources are not in the registry.
#[test]
fn n0_futures_task_spawn_is_tokios_from_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "relay/Cargo.toml",
        "[package]\nname = \"relay\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nn0-future = \"0.3\"\n",
    );
    write(
        dir.path(),
        "relay/src/lib.rs",
        "use n0_future::task::{self, AbortOnDropHandle};\n\n\
         pub fn start() -> AbortOnDropHandle<()> {\n    \
         AbortOnDropHandle::new(task::spawn(async {}))\n}\n\n\
         pub fn other() {\n    n0_future::task::spawn(async {});\n}\n",
    );
    let got = lint(dir.path(), home.path());
    assert_eq!(
        got,
        [(4, "raw-spawn".to_string()), (8, "raw-spawn".to_string())],
        "{got:?}"
    );
}

/// workflow-rs's `task::spawn` hands its future to tokio's (rusty-kaspa's notifier and
/// metrics tasks): a wrapper function, which reading its sources does not find, so the table
/// counts with the sources present too — through a glob import as well.
#[test]
fn workflow_cores_task_spawn_is_tokios_with_its_sources_present() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "notify/Cargo.toml",
        "[package]\nname = \"notify\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nworkflow-core = \"0.18\"\n",
    );
    write(
        dir.path(),
        "notify/Cargo.lock",
        "version = 3\n\n[[package]]\nname = \"notify\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"workflow-core\"\nversion = \"0.18.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
    );
    write(
        home.path(),
        "registry/src/index.crates.io-0000/workflow-core-0.18.0/Cargo.toml",
        "[package]\nname = \"workflow-core\"\n\n[dependencies]\ntokio = \"1\"\n",
    );
    write(
        home.path(),
        "registry/src/index.crates.io-0000/workflow-core-0.18.0/src/lib.rs",
        "pub mod task {\n    pub fn spawn<F>(future: F) { tokio::task::spawn(async { future.await }); }\n    pub use tokio::time::sleep;\n}\n",
    );
    write(
        dir.path(),
        "notify/src/lib.rs",
        "mod collector {\n    pub fn start() {\n        workflow_core::task::spawn(async {});\n    }\n}\n\
         mod metrics {\n    use workflow_core::task::*;\n    pub fn start() {\n        spawn(async {});\n    }\n}\n",
    );
    let got = lint(dir.path(), home.path());
    assert_eq!(
        got,
        [(3, "raw-spawn".to_string()), (9, "raw-spawn".to_string())],
        "{got:?}"
    );
}

/// Tauri's `async_runtime::{spawn, spawn_blocking}` run on its global tokio runtime
/// (spacedrive's desktop app): raw spawns, from the table.
#[test]
fn tauris_async_runtime_spawns_are_tokios() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "desktop/Cargo.toml",
        "[package]\nname = \"desktop\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ntauri = \"2\"\n",
    );
    write(
        dir.path(),
        "desktop/src/main.rs",
        "use tauri::async_runtime;\n\nfn main() {\n    async_runtime::spawn(async {});\n    \
         tauri::async_runtime::spawn_blocking(|| ());\n    async_runtime::block_on(async {});\n}\n",
    );
    let got = lint(dir.path(), home.path());
    assert_eq!(
        got,
        [(4, "raw-spawn".to_string()), (5, "raw-spawn".to_string())],
        "{got:?}"
    );
}

#[test]
fn crate_reexported_under_a_known_name_is_that_crate() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "svc/Cargo.toml",
        "[package]\nname = \"svc\"\nversion = \"0.1.0\"\n\n[dependencies]\nvendored_common = \"2\"\n",
    );
    write(
        dir.path(),
        "svc/src/main.rs",
        "use vendored_common::tokio;\nmod tokio_wrapper {}\nfn main() {\n    tokio::spawn(async {});\n    vendored_common::reqwest::Client::new();\n}\n",
    );
    let got = lint(dir.path(), home.path());
    assert_eq!(
        got,
        [
            (4, "raw-spawn".to_string()),
            (5, "http-no-timeout".to_string())
        ]
    );
}

#[test]
fn configured_reexport_wins() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "svc/Cargo.toml",
        "[package]\nname = \"svc\"\nversion = \"0.1.0\"\n\n[dependencies]\nvendored_common = \"2\"\n",
    );
    // `vendored_common::tokio` is, by configuration, the crate's own tracked wrapper
    write(
        dir.path(),
        "svc/shutdown-lint.toml",
        "[reexports]\n\"vendored_common::tokio\" = \"shutdown_runtime\"\n",
    );
    write(
        dir.path(),
        "svc/src/main.rs",
        "use vendored_common::tokio;\nfn main() {\n    tokio::spawn(async {});\n}\n",
    );
    assert_eq!(lint(&dir.path().join("svc"), home.path()), []);
}

/// A path dependency's own module named like a known crate (meilisearch's
/// `http_client::reqwest`, whose `Client` and `ClientBuilder` wrap reqwest's and set their
/// timeouts through closures): only what the module re-exports is reqwest's.
#[test]
fn own_module_named_like_a_known_crate_is_not_that_crate() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "http-client/Cargo.toml",
        "[package]\nname = \"http-client\"\nversion = \"0.1.0\"\n\n[dependencies]\nreqwest = \"0.12\"\n",
    );
    write(dir.path(), "http-client/src/lib.rs", "pub mod reqwest;\n");
    write(
        dir.path(),
        "http-client/src/reqwest.rs",
        "pub use ::reqwest::{Body, Client as DangerousClient};\n\
         pub struct Client(::reqwest::Client);\n\
         pub struct ClientBuilder(::reqwest::ClientBuilder);\n",
    );
    write(
        dir.path(),
        "svc/Cargo.toml",
        "[package]\nname = \"svc\"\nversion = \"0.1.0\"\n\n[dependencies]\nhttp-client = { path = \"../http-client\" }\n",
    );
    write(
        dir.path(),
        "svc/src/main.rs",
        "fn main() {\n    \
         let _a = http_client::reqwest::Client::builder().prepare(|b| b.timeout(d())).build();\n    \
         let _b = http_client::reqwest::DangerousClient::new();\n}\n",
    );
    let got = lint(&dir.path().join("svc"), home.path());
    assert_eq!(got, [(3, "http-no-timeout".to_string())], "{got:?}");
}

/// A crate linted alone: the method that returns the runtime handle is declared in a path
/// dependency outside the linted paths (tuwunel's `server.runtime().spawn(..)`, with
/// `runtime()` in `src/core`; qdrant's `lib/storage`), and is read for its declarations.
#[test]
fn unlinted_path_dependency_declarations_type_a_receiver() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "core/Cargo.toml",
        "[package]\nname = \"svc-core\"\nversion = \"0.1.0\"\n\n[dependencies]\ntokio = \"1\"\n",
    );
    write(dir.path(), "core/src/lib.rs", "pub mod server;\n");
    write(
        dir.path(),
        "core/src/server.rs",
        "use tokio::runtime::Handle;\n\
         pub struct Server { rt: Handle }\n\
         impl Server {\n    pub fn runtime(&self) -> &Handle { &self.rt }\n}\n",
    );
    write(
        dir.path(),
        "router/Cargo.toml",
        "[package]\nname = \"router\"\nversion = \"0.1.0\"\n\n[dependencies]\nsvc-core = { path = \"../core\" }\n",
    );
    write(
        dir.path(),
        "router/src/lib.rs",
        "use svc_core::server::Server;\n\
         pub fn run(server: &Server) {\n    server.runtime().spawn(async {});\n}\n",
    );
    let got = lint(&dir.path().join("router"), home.path());
    assert_eq!(got, [(3, "raw-spawn".to_string())], "{got:?}");
}

/// A dependency renamed only in `[workspace.dependencies]` (neon's `hyper0 = { package =
/// "hyper", .. }`, inherited as `hyper0.workspace = true`) is the crate it names.
#[test]
fn dependency_renamed_in_the_workspace_table_is_that_crate() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Cargo.toml",
        "[workspace]\nmembers = [\"proxy\"]\n\n[workspace.dependencies]\n\
         hyper0 = { package = \"hyper\", version = \"0.14\", features = [\"server\"] }\n",
    );
    write(
        dir.path(),
        "proxy/Cargo.toml",
        "[package]\nname = \"proxy\"\nversion = \"0.1.0\"\n\n[dependencies]\nhyper0.workspace = true\n",
    );
    write(
        dir.path(),
        "proxy/src/lib.rs",
        "pub async fn health(addr: std::net::SocketAddr, svc: Svc) {\n    \
         let _ = hyper0::Server::bind(&addr).serve(svc).await;\n}\n",
    );
    let got = lint(&dir.path().join("proxy"), home.path());
    assert_eq!(
        got,
        [(2, "server-no-graceful-shutdown".to_string())],
        "{got:?}"
    );
}

/// A crate linted alone whose clients are built through a builder wrapper of a path
/// dependency outside the linted paths (meilisearch's `http-client`, linted with its
/// server crates only): the wrapper's type, methods and the client type its build returns
/// are read from the dependency's declarations, the struct holding the client included.
#[test]
fn builder_wrapper_of_an_unlinted_path_dependency() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rules/http-no-timeout/wrapped/svc");
    let home = tempfile::tempdir().unwrap();
    let got = lint(&fixture, home.path());
    let lines: Vec<usize> = got.iter().map(|(l, _)| *l).collect();
    assert!(got.iter().all(|(_, r)| r == "http-no-timeout"), "{got:?}");
    // the `//~ http-no-timeout` markers of `svc/src/main.rs`; none in `proxy.rs`, whose
    // client's every request sets a timeout through the request wrapper's `prepare`
    assert_eq!(lines, [10, 11, 14, 29], "{got:?}");
}

/// A timeout read from a field of a struct that another file fills in (stalwart's webhook
/// tracer: `.timeout(settings.timeout)`, the config parser writes `WebhookSettings {
/// timeout: ..unwrap_or_else(|| Duration::from_secs(30)) }`): the field takes the longest
/// duration the workspace writes to it, even from a file the byte scan skipped (not a
/// test's value).
#[test]
fn a_field_filled_in_by_another_file_values_the_timeout_that_reads_it() {
    let d = one_package("hooks");
    let root = d.path();
    write(root, "shutdown-lint.toml", "drain-budget = \"25s\"\n");
    write(
        root,
        "src/lib.rs",
        "pub mod config;\npub mod webhook;\n\n\
         pub struct WebhookSettings {\n    pub url: String,\n    pub timeout: std::time::Duration,\n    pub quick: std::time::Duration,\n}\n\n\
         pub struct Unset {\n    pub timeout: std::time::Duration,\n}\n",
    );
    // names no word a rule reads: skipped by the byte scan
    write(
        root,
        "src/config.rs",
        "use std::time::Duration;\nuse crate::WebhookSettings;\n\n\
         pub fn parse(secs: Option<u64>) -> WebhookSettings {\n    WebhookSettings {\n        url: String::new(),\n        \
         timeout: secs.map(Duration::from_secs).unwrap_or_else(|| Duration::from_secs(30)),\n        \
         quick: Duration::from_secs(5),\n    }\n}\n\n\
         #[cfg(test)]\nmod tests {\n    fn slow() -> crate::WebhookSettings {\n        \
         crate::WebhookSettings { url: String::new(), timeout: std::time::Duration::from_secs(3600), quick: std::time::Duration::ZERO }\n    }\n}\n",
    );
    write(
        root,
        "src/webhook.rs",
        "use crate::{Unset, WebhookSettings};\n\n\
         pub fn client(settings: &WebhookSettings) -> reqwest::Result<reqwest::Client> {\n    \
         reqwest::Client::builder().timeout(settings.timeout).build()\n}\n\n\
         pub fn quick(settings: &WebhookSettings) -> reqwest::Result<reqwest::Client> {\n    \
         reqwest::Client::builder().timeout(settings.quick).build()\n}\n\n\
         pub fn unset(u: &Unset) -> reqwest::Result<reqwest::Client> {\n    \
         reqwest::Client::builder().timeout(u.timeout).build()\n}\n",
    );
    let report = lint_here(root);
    let got = active_lines(&report);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with(
            "src/webhook.rs:4 http-timeout-over-budget `.timeout(..)` of 30 s (the field `timeout` of `WebhookSettings`, set on line 7 of src/config.rs)"
        ),
        "{got:#?}"
    );
}

/// A timeout read from a parameter whose callers are in other files (atuin's
/// `Client::new(.., timeout: u64, ..)`, given `settings.network_timeout`, 30 s by the `config`
/// crate's `set_default`, and ten times that by one caller): the longest value any caller
/// passes; a call with another number of arguments is of another function.
#[test]
fn a_parameter_passed_by_callers_in_other_files_values_the_timeout_that_reads_it() {
    let d = one_package("sync");
    let root = d.path();
    write(root, "shutdown-lint.toml", "drain-budget = \"25s\"\n");
    write(
        root,
        "src/lib.rs",
        "pub mod api_client;\npub mod settings;\npub mod status;\npub mod push;\npub mod other;\n",
    );
    write(
        root,
        "src/settings.rs",
        "pub struct Settings {\n    pub network_timeout: u64,\n    pub quick_timeout: u64,\n}\n\n\
         impl Settings {\n    pub fn builder() -> Result<config::ConfigBuilder<config::builder::DefaultState>, config::ConfigError> {\n        \
         config::Config::builder()\n            .set_default(\"network_timeout\", 30)?\n            .set_default(\"quick_timeout\", 2)\n    }\n}\n",
    );
    write(
        root,
        "src/api_client.rs",
        "use std::time::Duration;\n\n\
         pub struct Client {\n    inner: reqwest::Client,\n}\n\n\
         impl Client {\n    pub fn new(address: &str, timeout: u64) -> reqwest::Result<Self> {\n        \
         let inner = reqwest::Client::builder()\n            .timeout(Duration::from_secs(timeout))\n            .build()?;\n        \
         let _ = address;\n        Ok(Self { inner })\n    }\n\n    \
         pub fn quick(address: &str, timeout: u64) -> reqwest::Result<Self> {\n        \
         let inner = reqwest::Client::builder()\n            .timeout(Duration::from_secs(timeout))\n            .build()?;\n        \
         let _ = address;\n        Ok(Self { inner })\n    }\n}\n",
    );
    write(
        root,
        "src/status.rs",
        "use crate::settings::Settings;\n\n\
         pub fn run(settings: &Settings) {\n    let _ = crate::api_client::Client::new(\"u\", settings.network_timeout);\n    \
         let _ = crate::api_client::Client::quick(\"u\", settings.quick_timeout);\n}\n",
    );
    write(
        root,
        "src/push.rs",
        "use crate::api_client::Client;\nuse crate::settings::Settings;\n\n\
         pub fn run(settings: &Settings) {\n    let _ = Client::new(\"u\", settings.network_timeout * 10);\n}\n",
    );
    // another type's `Client::new`, of one argument
    write(
        root,
        "src/other.rs",
        "pub fn run() {\n    let _ = Client::new(3600);\n}\n\n\
         pub struct Client;\n\nimpl Client {\n    pub fn new(_: u64) -> Self {\n        Client\n    }\n}\n",
    );
    let report = lint_here(root);
    let got = active_lines(&report);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with(
            "src/api_client.rs:10 http-timeout-over-budget `.timeout(..)` of 300 s (passed by `Client::new(..)` on line 5 of src/push.rs: the field `network_timeout` of `Settings`, set on line 9 of src/settings.rs)"
        ),
        "{got:#?}"
    );
}

/// A parameter passed on by its caller's own parameter (qdrant's `make_grpc_channel(timeout,
/// ..)` called from `DynamicChannelPool::new(.., timeout, ..)`, which another file calls with
/// a 24 h constant) is followed to that caller's callers.
#[test]
fn a_parameter_passed_on_by_its_caller_is_valued_by_the_callers_of_that_caller() {
    let d = one_package("pool");
    let root = d.path();
    write(root, "shutdown-lint.toml", "drain-budget = \"25s\"\n");
    write(root, "src/lib.rs", "pub mod pool;\npub mod transport;\n");
    write(
        root,
        "src/pool.rs",
        "use std::time::Duration;\nuse tonic::transport::{Channel, Uri};\n\n\
         pub async fn make_grpc_channel(timeout: Duration, uri: Uri) -> Result<Channel, tonic::transport::Error> {\n    \
         Channel::builder(uri).timeout(timeout).connect().await\n}\n\n\
         pub struct DynamicChannelPool;\n\n\
         impl DynamicChannelPool {\n    pub async fn new(uri: Uri, timeout: Duration) -> Result<Self, tonic::transport::Error> {\n        \
         make_grpc_channel(timeout, uri).await?;\n        Ok(Self)\n    }\n}\n",
    );
    write(
        root,
        "src/transport.rs",
        "use std::time::Duration;\nuse crate::pool::DynamicChannelPool;\n\n\
         pub const MAX_GRPC_CHANNEL_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);\n\n\
         pub async fn init(uri: tonic::transport::Uri) {\n    \
         let _ = DynamicChannelPool::new(uri, MAX_GRPC_CHANNEL_TIMEOUT).await;\n}\n",
    );
    let report = lint_here(root);
    let got = active_lines(&report);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with(
            "src/pool.rs:5 http-timeout-over-budget `.timeout(..)` of 86400 s (passed by `DynamicChannelPool::new(..)` on line 7 of src/transport.rs)"
        ),
        "{got:#?}"
    );
}

/// A timeout read from a const declared in another file (parseable's
/// `with_timeout(Duration::from_secs(REQUEST_TIMEOUT_SECS))`, the const in the parent module,
/// 120 s): the declaration at the path the name resolves to; a same-named const elsewhere
/// does not count.
#[test]
fn a_const_declared_in_another_file_values_the_timeout_that_reads_it() {
    let d = one_package("store");
    let root = d.path();
    write(root, "shutdown-lint.toml", "drain-budget = \"25s\"\n");
    write(
        root,
        "src/lib.rs",
        "pub mod storage;\npub mod quick;\n\npub const REQUEST_TIMEOUT_SECS: u64 = 5;\n",
    );
    write(
        root,
        "src/storage/mod.rs",
        "pub mod s3;\n\nconst REQUEST_TIMEOUT_SECS: u64 = 120;\npub const CONNECT: std::time::Duration = std::time::Duration::from_secs(60);\n",
    );
    write(
        root,
        "src/storage/s3.rs",
        "use std::time::Duration;\nuse object_store::ClientOptions;\nuse super::{CONNECT, REQUEST_TIMEOUT_SECS};\n\n\
         pub fn options() -> ClientOptions {\n    ClientOptions::new()\n        .with_timeout(Duration::from_secs(REQUEST_TIMEOUT_SECS))\n}\n\n\
         pub fn client() -> reqwest::Result<reqwest::Client> {\n    reqwest::Client::builder().timeout(CONNECT).build()\n}\n",
    );
    write(
        root,
        "src/quick.rs",
        "use std::time::Duration;\nuse crate::REQUEST_TIMEOUT_SECS;\n\n\
         pub fn client() -> reqwest::Result<reqwest::Client> {\n    \
         reqwest::Client::builder().timeout(Duration::from_secs(REQUEST_TIMEOUT_SECS)).build()\n}\n",
    );
    let report = lint_here(root);
    let got = active_lines(&report);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].starts_with(
            "src/storage/s3.rs:7 http-timeout-over-budget `.with_timeout(..)` of 120 s (the const `REQUEST_TIMEOUT_SECS`, line 3 of src/storage/mod.rs)"
        ),
        "{got:#?}"
    );
    assert!(
        got[1].starts_with(
            "src/storage/s3.rs:11 http-timeout-over-budget `.timeout(..)` of 60 s (the const `CONNECT`, line 4 of src/storage/mod.rs)"
        ),
        "{got:#?}"
    );
}

/// A timeout read from a function of another module that takes nothing and returns one
/// value (zellij's `.timeout(connection_timeout())`, `fn connection_timeout() -> Duration {
/// Duration::from_secs(CONNECTION_TIMEOUT_SECS) }`, 30 s): valued like a const, at the path
/// the call resolves to; a same-named function elsewhere does not count, nor one with a
/// body of more than one expression.
#[test]
fn a_function_returning_a_duration_in_another_file_values_the_timeout_that_calls_it() {
    let d = one_package("remote");
    let root = d.path();
    write(root, "shutdown-lint.toml", "drain-budget = \"25s\"\n");
    write(root, "src/lib.rs", "pub mod attach;\npub mod other;\n");
    write(
        root,
        "src/attach/mod.rs",
        "pub mod config;\npub mod http;\n",
    );
    write(
        root,
        "src/attach/config.rs",
        "use std::time::Duration;\n\npub const CONNECTION_TIMEOUT_SECS: u64 = 30;\n\n\
         pub fn connection_timeout() -> Duration {\n    Duration::from_secs(CONNECTION_TIMEOUT_SECS)\n}\n\n\
         pub fn read_timeout() -> Duration {\n    let d = Duration::from_secs(90);\n    d\n}\n",
    );
    write(
        root,
        "src/other.rs",
        "use std::time::Duration;\n\npub fn connection_timeout() -> Duration {\n    Duration::from_secs(5)\n}\n",
    );
    write(
        root,
        "src/attach/http.rs",
        "use super::config::{connection_timeout, read_timeout};\n\n\
         pub fn client() -> reqwest::Result<reqwest::Client> {\n    \
         reqwest::Client::builder().timeout(connection_timeout()).build()\n}\n\n\
         pub fn slow() -> reqwest::Result<reqwest::Client> {\n    \
         reqwest::Client::builder().timeout(read_timeout()).build()\n}\n",
    );
    let report = lint_here(root);
    let got = active_lines(&report);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with(
            "src/attach/http.rs:4 http-timeout-over-budget `.timeout(..)` of 30 s (the function `connection_timeout()`, line 5 of src/attach/config.rs)"
        ),
        "{got:#?}"
    );
}

/// A timeout read from a field of a field (kellnr's
/// `with_timeout(Duration::from_secs(settings.s3.request_timeout_seconds))`): the middle
/// field's type comes from the outer struct's declaration in another file, and that type's
/// writes value it (`impl Default for S3`: 30 s).
#[test]
fn a_field_of_a_field_is_valued_from_the_writes_of_the_inner_type() {
    let d = one_package("registry");
    let root = d.path();
    write(root, "shutdown-lint.toml", "drain-budget = \"25s\"\n");
    write(root, "src/lib.rs", "pub mod settings;\npub mod storage;\n");
    write(
        root,
        "src/settings.rs",
        "pub struct Settings {\n    pub s3: S3,\n}\n\n\
         pub struct S3 {\n    pub request_timeout_seconds: u64,\n    pub connect_timeout_seconds: u64,\n}\n\n\
         impl Default for S3 {\n    fn default() -> Self {\n        \
         Self { request_timeout_seconds: 30, connect_timeout_seconds: 5 }\n    }\n}\n",
    );
    write(
        root,
        "src/storage.rs",
        "use std::time::Duration;\nuse object_store::ClientOptions;\nuse crate::settings::Settings;\n\n\
         pub fn options((_bucket, settings): (&str, &Settings)) -> ClientOptions {\n    ClientOptions::new()\n        \
         .with_timeout(Duration::from_secs(settings.s3.request_timeout_seconds))\n}\n\n\
         pub fn quick(settings: &Settings) -> ClientOptions {\n    \
         ClientOptions::new().with_timeout(Duration::from_secs(settings.s3.connect_timeout_seconds))\n}\n",
    );
    let got = active_lines(&lint_here(root));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with(
            "src/storage.rs:7 http-timeout-over-budget `.with_timeout(..)` of 30 s (the field `request_timeout_seconds` of `S3`, set on line 12 of src/settings.rs)"
        ),
        "{got:#?}"
    );
}

/// A timeout read from a request's field that callers in other files fill from a field of
/// the service's config (dragonfly's backends: `.timeout(request.timeout)`, with
/// `GetRequest { timeout: self.config.download.piece_timeout }` in the client crate and
/// `Download`'s serde default of 360 s in the config crate): the field it is filled from is
/// followed through the middle fields' declarations to that type's writes. A field filled
/// in the timeout's own file is followed too; one filled from a field no file writes stays
/// silent.
#[test]
fn a_field_filled_from_a_field_of_another_type_is_valued_by_that_fields_writes() {
    let d = one_package("dfdaemon");
    let root = d.path();
    write(root, "shutdown-lint.toml", "drain-budget = \"25s\"\n");
    write(
        root,
        "src/lib.rs",
        "pub mod backend;\npub mod config;\npub mod piece;\n",
    );
    write(
        root,
        "src/config.rs",
        "use std::time::Duration;\n\n\
         fn default_download_piece_timeout() -> Duration {\n    Duration::from_secs(360)\n}\n\n\
         #[derive(serde::Deserialize)]\npub struct Download {\n    \
         #[serde(default = \"default_download_piece_timeout\")]\n    pub piece_timeout: Duration,\n    \
         pub stat_timeout: Duration,\n}\n\n\
         #[derive(serde::Deserialize)]\npub struct Config {\n    pub download: Download,\n}\n",
    );
    write(
        root,
        "src/backend.rs",
        "use std::time::Duration;\n\n\
         pub struct GetRequest {\n    pub url: String,\n    pub timeout: Duration,\n}\n\n\
         pub struct StatRequest {\n    pub url: String,\n    pub timeout: Duration,\n}\n\n\
         pub struct Backend {\n    client: reqwest::Client,\n    config: std::sync::Arc<crate::config::Config>,\n}\n\n\
         impl Backend {\n    \
         pub async fn get(&self, request: GetRequest) -> reqwest::Result<reqwest::Response> {\n        \
         self.client.get(&request.url).timeout(request.timeout).send().await\n    }\n\n    \
         pub async fn stat(&self, request: StatRequest) -> reqwest::Result<reqwest::Response> {\n        \
         self.client.head(&request.url).timeout(request.timeout).send().await\n    }\n\n    \
         async fn again(&self, request: Local) -> reqwest::Result<reqwest::Response> {\n        \
         self.client.get(&request.url).timeout(request.timeout).send().await\n    }\n\n    \
         pub async fn retry(&self, url: String) -> reqwest::Result<reqwest::Response> {\n        \
         self.again(Local { url, timeout: self.config.download.piece_timeout }).await\n    }\n}\n\n\
         struct Local {\n    url: String,\n    timeout: Duration,\n}\n",
    );
    write(
        root,
        "src/piece.rs",
        "use std::sync::Arc;\nuse crate::backend::{Backend, GetRequest, StatRequest};\nuse crate::config::Config;\n\n\
         pub struct Piece {\n    config: Arc<Config>,\n}\n\n\
         impl Piece {\n    pub async fn fetch(&self, backend: &Backend, url: String) {\n        \
         let _ = backend.get(GetRequest { url: url.clone(), timeout: self.config.download.piece_timeout }).await;\n        \
         let _ = backend.stat(StatRequest { url, timeout: self.config.download.stat_timeout }).await;\n    }\n}\n",
    );
    let got = active_lines(&lint_here(root));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].starts_with(
            "src/backend.rs:20 http-timeout-over-budget `.timeout(..)` of 360 s (the field `piece_timeout` of `Download`, set on line 9 of src/config.rs, which fills the field `timeout` of `GetRequest` on line 11 of src/piece.rs)"
        ),
        "{got:#?}"
    );
    assert!(
        got[1].starts_with(
            "src/backend.rs:28 http-timeout-over-budget `.timeout(..)` of 360 s (the field `timeout`, set on line 32: the field `piece_timeout` of `Download`, set on line 9 of src/config.rs)"
        ),
        "{got:#?}"
    );
}

/// A timeout read from a field that another file fills from a getter of a third
/// (tailcall's upstream: `.timeout(Duration::from_secs(upstream.timeout))`, with `Upstream {
/// timeout: config.get_timeout() }` in the blueprint and `fn get_timeout(&self) -> u64 {
/// self.timeout.unwrap_or(60) }` in the config): the getter's value is the field's. A getter
/// whose name two types declare with two values is not guessed between; one under the
/// budget is not reported.
#[test]
fn a_field_filled_from_a_getter_of_another_file_is_valued_by_its_body() {
    let d = one_package("gateway");
    let root = d.path();
    write(root, "shutdown-lint.toml", "drain-budget = \"25s\"\n");
    write(
        root,
        "src/lib.rs",
        "pub mod blueprint;\npub mod config;\npub mod http;\n",
    );
    write(
        root,
        "src/config.rs",
        "pub struct UpstreamConfig {\n    pub timeout: Option<u64>,\n    pub keep_alive: Option<u64>,\n    pub pool: Option<u64>,\n}\n\n\
         impl UpstreamConfig {\n    \
         pub fn get_timeout(&self) -> u64 {\n        self.timeout.unwrap_or(60)\n    }\n\n    \
         pub fn get_keep_alive(&self) -> u64 {\n        self.keep_alive.unwrap_or(10)\n    }\n\n    \
         pub fn get_pool(&self) -> u64 {\n        self.pool.unwrap_or(90)\n    }\n}\n\n\
         pub struct Other {\n    pub pool: Option<u64>,\n}\n\n\
         impl Other {\n    pub fn get_pool(&self) -> u64 {\n        self.pool.unwrap_or(5)\n    }\n}\n",
    );
    write(
        root,
        "src/blueprint.rs",
        "use crate::config::UpstreamConfig;\n\n\
         pub struct Upstream {\n    pub timeout: u64,\n    pub keep_alive: u64,\n    pub pool: u64,\n}\n\n\
         impl Upstream {\n    pub fn new(config: &UpstreamConfig) -> Self {\n        \
         Upstream {\n            timeout: (config).get_timeout(),\n            \
         keep_alive: config.get_keep_alive(),\n            pool: config.get_pool(),\n        }\n    }\n}\n",
    );
    write(
        root,
        "src/http.rs",
        "use std::time::Duration;\nuse crate::blueprint::Upstream;\n\n\
         pub fn init(upstream: &Upstream) -> reqwest::Client {\n    \
         reqwest::Client::builder()\n        \
         .timeout(Duration::from_secs(upstream.timeout))\n        \
         .build()\n        .unwrap()\n}\n\n\
         pub fn quick(upstream: &Upstream) -> reqwest::Client {\n    \
         reqwest::Client::builder()\n        \
         .timeout(Duration::from_secs(upstream.keep_alive))\n        \
         .build()\n        .unwrap()\n}\n\n\
         pub fn pooled(upstream: &Upstream) -> reqwest::Client {\n    \
         reqwest::Client::builder()\n        \
         .timeout(Duration::from_secs(upstream.pool))\n        \
         .build()\n        .unwrap()\n}\n",
    );
    let got = active_lines(&lint_here(root));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with(
            "src/http.rs:6 http-timeout-over-budget `.timeout(..)` of 60 s (`get_timeout()` on line 9 of src/config.rs, which fills the field `timeout` of `Upstream` on line 12 of src/blueprint.rs)"
        ),
        "{got:#?}"
    );
}

/// A timeout read from a parameter whose caller passes a field of a clap subcommand bound
/// by a `match` arm (symbolicator's `Command::Healthcheck { timeout } =>
/// healthcheck(timeout)`, `#[arg(long, default_value_t = 30)] timeout: u64`): the variant's
/// field default values it.
#[test]
fn an_enum_variant_field_bound_by_a_match_arm_is_valued_by_its_default() {
    let d = one_package("symbolicator");
    let root = d.path();
    write(root, "shutdown-lint.toml", "drain-budget = \"25s\"\n");
    write(root, "src/lib.rs", "pub mod cli;\npub mod healthcheck;\n");
    write(
        root,
        "src/cli.rs",
        "#[derive(clap::Subcommand)]\nenum Command {\n    Run,\n    Healthcheck {\n        \
         #[arg(long, default_value_t = 30)]\n        timeout: u64,\n    },\n    Ping {\n        \
         #[arg(long, default_value_t = 5)]\n        timeout: u64,\n    },\n}\n\n\
         pub fn execute(command: Command) {\n    match command {\n        \
         Command::Run => {}\n        \
         Command::Healthcheck { timeout } => crate::healthcheck::healthcheck(timeout),\n        \
         Command::Ping { timeout: t } => crate::healthcheck::ping(t),\n    }\n}\n",
    );
    write(
        root,
        "src/healthcheck.rs",
        "use std::time::Duration;\n\n\
         pub fn healthcheck(timeout: u64) {\n    \
         let client = reqwest::blocking::Client::builder()\n        \
         .timeout(Duration::from_secs(timeout))\n        .build()\n        .unwrap();\n    \
         let _ = client.get(\"http://127.0.0.1:3021/healthcheck\").send();\n}\n\n\
         pub fn ping(timeout: u64) {\n    \
         let client = reqwest::blocking::Client::builder()\n        \
         .timeout(Duration::from_secs(timeout))\n        .build()\n        .unwrap();\n    \
         let _ = client.get(\"http://127.0.0.1:3021/ping\").send();\n}\n",
    );
    let got = active_lines(&lint_here(root));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with(
            "src/healthcheck.rs:5 http-timeout-over-budget `.timeout(..)` of 30 s (passed by `crate::healthcheck::healthcheck(..)` on line 17 of src/cli.rs: the field `timeout` of `Healthcheck`, set on line 5 of src/cli.rs)"
        ),
        "{got:#?}"
    );
}

#[test]
fn a_client_passed_to_a_function_of_another_file_that_bounds_its_requests_is_not_reported() {
    let d = one_package("cluster");
    let root = d.path();
    write(
        root,
        "src/lib.rs",
        "pub mod health;\npub mod nodes;\npub mod twice;\n",
    );
    // no `timeout` in the file, and a child module in a file of its own
    write(
        root,
        "src/nodes.rs",
        "use crate::health::*;\nuse crate::twice::*;\n\nmod nats;\n\n\
         pub async fn watch() {\n    let client = reqwest::ClientBuilder::new().build().unwrap();\n    \
         loop {\n        check_nodes(&client).await;\n    }\n}\n\n\
         pub async fn watch_untimed() {\n    let client = reqwest::ClientBuilder::new().build().unwrap();\n    \
         ping(&client).await;\n}\n\n\
         pub async fn watch_either() {\n    let client = reqwest::Client::new();\n    either(&client).await;\n}\n\n\
         pub async fn watch_elsewhere() {\n    let client = reqwest::Client::new();\n    \
         other_crate::check_nodes(&client).await;\n    check_nodes(&client).await;\n}\n",
    );
    write(root, "src/nodes/nats.rs", "pub fn register() {}\n");
    write(
        root,
        "src/health.rs",
        "use std::time::Duration;\n\n\
         pub async fn check_nodes(client: &reqwest::Client) {\n    let c = client.clone();\n    \
         let _ = c.get(\"http://n/healthz\").timeout(Duration::from_secs(5)).send().await;\n}\n\n\
         pub async fn ping(client: &reqwest::Client) {\n    let _ = client.get(\"http://n/ping\").send().await;\n}\n\n\
         pub async fn list(client: &Coordinator) {\n    let _ = client.list_values(\"nodes\").await;\n}\n\n\
         #[cfg(test)]\nmod tests {\n    async fn ping(client: &reqwest::Client) {\n        client.get(\"u\").send().await.ok();\n    }\n}\n",
    );
    write(
        root,
        "src/twice.rs",
        "pub mod a {\n    pub async fn either(client: &reqwest::Client) {\n        \
         let _ = client.get(\"u\").timeout(std::time::Duration::from_secs(1)).send().await;\n    }\n}\n\
         pub mod b {\n    pub async fn either(client: &reqwest::Client) {\n        let _ = client.get(\"u\").send().await;\n    }\n}\n\
         pub use a::*;\n",
    );
    let report = lint_here(root);
    let got: Vec<String> = report
        .active()
        .map(|f| format!("{}:{} {}", f.path.display(), f.region.line, f.rule))
        .collect();
    // `watch`'s client (line 7) is bounded by `check_nodes`; `ping` sends unbounded,
    // `either` is declared twice (one unbounded), `other_crate::check_nodes` is not in the
    // workspace
    assert_eq!(
        got,
        [
            "src/nodes.rs:14 http-no-timeout",
            "src/nodes.rs:19 http-no-timeout",
            "src/nodes.rs:24 http-no-timeout",
        ],
        "{got:#?}"
    );
    assert_eq!(
        report
            .files
            .iter()
            .map(|f| f.http_clients_without_timeout)
            .sum::<usize>(),
        3
    );
}

/// `let app = App::new(); app.workers.handle().spawn(..)` where `App` (its `new` and its
/// `workers` field) is declared in a file the byte scan skips (it names no word a rule
/// reads): the field is looked for by its name among the few skipped files that name it.
#[test]
fn a_field_of_a_type_declared_in_a_skipped_file_types_the_receiver() {
    let d = one_package("fleet");
    let root = d.path();
    write(
        root,
        "src/main.rs",
        "mod rt;\nmod state;\nuse state::App;\n\n#[tokio::main]\nasync fn main() {\n    \
         let app = App::new();\n    app.workers.handle().spawn(async {});\n}\n",
    );
    write(
        root,
        "src/state.rs",
        "pub struct App {\n    pub workers: crate::rt::Workers,\n}\n\nimpl App {\n    \
         pub fn new() -> Self {\n        App { workers: crate::rt::Workers::default() }\n    }\n}\n",
    );
    write(
        root,
        "src/rt.rs",
        "#[derive(Default)]\npub struct Workers {\n    rt: Option<tokio::runtime::Runtime>,\n}\n\n\
         impl Workers {\n    pub fn handle(&self) -> &tokio::runtime::Handle {\n        \
         self.rt.as_ref().unwrap().handle()\n    }\n}\n",
    );
    let lines = active_lines(&lint_here(root));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("src/main.rs:8 raw-spawn")),
        "{lines:#?}"
    );
}

/// A package whose `src/pg.rs` reads a row in a closure (`ctx`: a receiver of unknown
/// type) as `let_line` into `s`, then spawns when `s` starts with `[`, and whose `src/row.rs` declares a `get` its first
/// parse hides (the declaration names no word a rule reads; the file has a spawn).
fn row_reader(let_line: &str) -> tempfile::TempDir {
    let d = one_package("pg");
    let root = d.path();
    write(root, "src/lib.rs", "mod pg;\nmod row;\n");
    write(
        root,
        "src/pg.rs",
        &format!(
            "pub fn register(conn: &Conn) {{\n    conn.create_function(|ctx| {{\n        \
             {let_line}\n        if s.starts_with('[') {{\n            tokio::spawn(async {{}});\n        }}\n    }});\n}}\n"
        ),
    );
    write(
        root,
        "src/row.rs",
        "pub struct Row { cells: Vec<String> }\n\nimpl Row {\n    \
         pub fn get(&self, i: usize) -> Option<Cell> {\n        self.cells.get(i).cloned()\n    }\n}\n\n\
         pub fn refresh() {\n    tokio::spawn(async {});\n}\n",
    );
    d
}

/// corrosion's `let arr: String = ctx.get(0).unwrap_or_default();`: whatever `get`
/// returns, the value bound is a `String` — no runtime, client or builder — so the file
/// declaring a hidden `get` is not read again for it; unbound to a declared type, the
/// same chain could make a client (`unwrap_or_default()` on an `Option` of one), and the
/// file is read. The findings are the same either way.
#[test]
fn a_chain_bound_to_a_declared_string_reads_no_hidden_declaration() {
    let typed = row_reader("let s: String = ctx.get(0).unwrap_or_default();");
    let report = lint_here(typed.path());
    assert_eq!(report.stats.files_read_for_declarations, 0);
    let typed_lines = active_lines(&report);
    let untyped = row_reader("let s = ctx.get(0).unwrap_or_default();");
    let report = lint_here(untyped.path());
    assert_eq!(report.stats.files_read_for_declarations, 1);
    assert_eq!(typed_lines, active_lines(&report));
    assert_eq!(typed_lines.len(), 2, "{typed_lines:#?}");
    // a step some file declares may lead on through the type `get` returns (`Option<Cell>`,
    // and `Cell::unwrap_or_default`): both files are read
    let led = row_reader("let s: String = ctx.get(0).unwrap_or_default();");
    write(
        led.path(),
        "src/cell.rs",
        "pub struct Cell;\nimpl Cell {\n    \
         pub fn unwrap_or_default(&self) -> String { String::new() }\n}\n\
         pub fn tick() {\n    tokio::spawn(async {});\n}\n",
    );
    write(led.path(), "src/lib.rs", "mod cell;\nmod pg;\nmod row;\n");
    assert_eq!(lint_here(led.path()).stats.files_read_for_declarations, 2);
}

/// A runtime held in an enum variant of another file, bound by a pattern (SpacetimeDB's
/// runtime handle: `match self { Self::Tokio(handle) => handle.spawn(future), .. }`): the
/// file declaring the enum names no word a rule reads (the byte scan skips it), so the
/// model reads it for the variant's fields, by position (`Tokio::0`), and the alias it
/// names from a third file. A tuple struct's field in such a file is found the same way.
#[test]
fn a_runtime_in_an_enum_variant_of_a_skipped_file_is_typed() {
    let dir = one_package("rt_enum");
    write(
        dir.path(),
        "src/lib.rs",
        "mod alias;\nmod kinds;\nmod rt;\npub use kinds::{Rt, Wrapped};\n",
    );
    write(
        dir.path(),
        "src/alias.rs",
        "pub type TokioHandle = tokio::runtime::Handle;\n",
    );
    write(
        dir.path(),
        "src/kinds.rs",
        "use crate::alias::TokioHandle;\n\npub enum Rt {\n    #[cfg(unix)]\n    Tokio(TokioHandle),\n    \
         Sim(u8),\n}\n\npub struct Wrapped(pub TokioHandle, pub u8);\n",
    );
    write(
        dir.path(),
        "src/rt.rs",
        "use crate::kinds::{Rt, Wrapped};\n\nimpl Rt {\n    pub fn spawn(&self) {\n        match self {\n            \
         Self::Tokio(handle) => drop(handle.spawn(async {})),\n            Self::Sim(n) => n.spawn(),\n        \
         }\n    }\n}\n\npub fn on(w: &Wrapped) {\n    w.0.spawn(async {});\n    let Wrapped(inner, _) = w;\n    \
         inner.spawn(async {});\n}\n",
    );
    let report = lint_here(dir.path());
    assert_eq!(
        active_lines(&report)
            .iter()
            .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>(),
        [
            "src/rt.rs:6 raw-spawn",
            "src/rt.rs:13 raw-spawn",
            "src/rt.rs:15 raw-spawn"
        ],
    );
}
