//! `sigterm-missing` credits only the handlers a binary's `main` reaches, across the crates
//! of a workspace (path dependencies), and the audit reads what each binary handles from the
//! same walk: a binary that depends on a crate with a SIGTERM helper (or on a runtime that
//! installs handlers) but never calls it is reported; `#[shutdown_runtime::main]` handles
//! SIGINT too, so `STOPSIGNAL SIGINT` is not `stopsignal-unhandled`.

use shutdown_lint::audit::{AuditOptions, audit};
use shutdown_lint::engine::{LintOptions, lint_paths};
use shutdown_lint::finding::Finding;
use std::path::Path;

/// The `sigterm-missing` findings of linting `path` from `cwd`.
fn sigterm_findings(path: &Path, cwd: &Path) -> Vec<Finding> {
    lint_paths(
        &[path.to_path_buf()],
        &LintOptions {
            cwd: Some(cwd.to_path_buf()),
            ..LintOptions::default()
        },
    )
    .unwrap()
    .findings
    .into_iter()
    .filter(|f| f.rule == "sigterm-missing")
    .collect()
}

/// `path:line message` of each finding.
fn described(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| format!("{}:{} {}", f.path.display(), f.region.line, f.message))
        .collect()
}

/// An empty workspace whose members are `crates/*`.
fn bare_workspace() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n",
    );
    d
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Binaries `src/bin/<name>.rs` of package `app` whose tokio `main` only awaits
/// `app::<call>()` (a file naming no word the byte scan looks for).
fn tokio_bins(root: &Path, bins: &[(&str, &str)]) {
    for (bin, call) in bins {
        write(
            root,
            &format!("src/bin/{bin}.rs"),
            &format!("#[tokio::main]\nasync fn main() {{\n    app::{call}().await\n}}\n"),
        );
    }
}

/// Whether the audit says each binary of the first crate at `root` handles SIGTERM, by
/// name.
fn audited_handles(root: &Path) -> Vec<(String, bool)> {
    let report = audit(&AuditOptions {
        manifest_path: Some(root.to_path_buf()),
        cwd: Some(root.to_path_buf()),
        ..AuditOptions::default()
    })
    .unwrap();
    let mut handles: Vec<(String, bool)> = report.crates[0]
        .binaries
        .iter()
        .map(|b| (b.name.clone(), b.handles_sigterm))
        .collect();
    handles.sort();
    handles
}

/// A temporary directory holding a package `app` (its manifest only).
fn app_package() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "Cargo.toml",
        "[package]\nname = \"app\"\nedition = \"2021\"\n",
    );
    d
}

fn package(root: &Path, name: &str, deps: &[&str]) {
    let deps: String = deps
        .iter()
        .map(|d| format!("{d} = {{ path = \"../{d}\" }}\n"))
        .collect();
    write(
        root,
        &format!("crates/{name}/Cargo.toml"),
        &format!("[package]\nname = \"{name}\"\nedition = \"2021\"\n\n[dependencies]\n{deps}"),
    );
}

fn workspace() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    write(
        root,
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n\n\
         [workspace.dependencies]\nctrlc = { version = \"3\", features = [\"termination\"] }\n",
    );
    // a workspace crate with a SIGTERM helper
    package(root, "sigs", &[]);
    write(
        root,
        "crates/sigs/src/lib.rs",
        "use tokio::signal::unix::{signal, SignalKind};\n\
         pub async fn wait_for_terminate() { signal(SignalKind::terminate()).unwrap().recv().await; }\n\
         pub fn unrelated() -> u32 { 7 }\n",
    );
    // calls the helper: handles SIGTERM
    package(root, "app-a", &["sigs"]);
    write(
        root,
        "crates/app-a/src/main.rs",
        "#[tokio::main]\nasync fn main() {\n    tokio::select! {\n        _ = tokio::signal::ctrl_c() => {}\n        _ = sigs::wait_for_terminate() => {}\n    }\n}\n",
    );
    // depends on it, never calls it: reported
    package(root, "app-b", &["sigs"]);
    write(
        root,
        "crates/app-b/src/main.rs",
        "#[tokio::main]\nasync fn main() {\n    let _ = sigs::unrelated();\n    tokio::signal::ctrl_c().await.unwrap();\n}\n",
    );
    // a runtime that installs handlers (shutdown-runtime's shape)
    package(root, "shutdown-runtime", &[]);
    write(
        root,
        "crates/shutdown-runtime/src/lib.rs",
        "pub mod signals { pub fn install() { let _ = libc::SIGTERM; } }\n\
         pub fn spawn<F>(_f: F) {}\n",
    );
    // half-migrated: tracked spawns from the runtime, but waits on ctrl_c only: reported
    package(root, "app-c", &["shutdown-runtime"]);
    write(
        root,
        "crates/app-c/src/main.rs",
        "#[tokio::main]\nasync fn main() {\n    shutdown_runtime::spawn(async {});\n    tokio::signal::ctrl_c().await.unwrap();\n}\n",
    );
    // the runtime's main attribute: SIGTERM and SIGINT
    package(root, "app-d", &["shutdown-runtime"]);
    write(
        root,
        "crates/app-d/src/main.rs",
        "#[shutdown_runtime::main]\nasync fn main() {\n    tokio::signal::ctrl_c().await.ok();\n}\n",
    );
    // files the byte scan skips (no word a rule reads) still lead to their modules: a
    // library that is only `pub mod commands;` (mithril's aggregator) ...
    package(root, "app-e", &[]);
    write(
        root,
        "crates/app-e/src/lib.rs",
        "//! App.\npub mod commands;\n",
    );
    write(
        root,
        "crates/app-e/src/commands.rs",
        "pub async fn run() {\n    tokio::signal::ctrl_c().await.unwrap();\n}\n",
    );
    write(
        root,
        "crates/app-e/src/main.rs",
        "#[tokio::main]\nasync fn main() {\n    app_e::commands::run().await;\n}\n",
    );
    // ... a `main.rs` that is only `mod cli;` and a call ...
    package(root, "app-f", &[]);
    write(
        root,
        "crates/app-f/src/main.rs",
        "mod cli;\n#[tokio::main]\nasync fn main() {\n    cli::run().await;\n}\n",
    );
    write(
        root,
        "crates/app-f/src/cli.rs",
        "pub async fn run() {\n    tokio::signal::ctrl_c().await.unwrap();\n}\n",
    );
    // ... and a module declared inside an inline one, whose handler is credited
    package(root, "app-g", &[]);
    write(
        root,
        "crates/app-g/src/main.rs",
        "mod app {\n    pub mod sig;\n}\n#[tokio::main]\nasync fn main() {\n    app::sig::wait().await;\n}\n",
    );
    write(
        root,
        "crates/app-g/src/app/sig.rs",
        "use tokio::signal::unix::{signal, SignalKind};\n\
         pub async fn wait() {\n    tokio::select! {\n        _ = tokio::signal::ctrl_c() => {}\n        \
         _ = async { signal(SignalKind::terminate()).unwrap().recv().await } => {}\n    }\n}\n",
    );
    // ctrlc's `termination` feature (SIGTERM too) from the workspace's dependency table
    // (iggy's server): credited; the same handler without the feature is not
    for (name, dep) in [
        ("app-h", "ctrlc = { workspace = true }"),
        ("app-i", "ctrlc = \"3\""),
    ] {
        write(
            root,
            &format!("crates/{name}/Cargo.toml"),
            &format!("[package]\nname = \"{name}\"\nedition = \"2021\"\n\n[dependencies]\n{dep}\n"),
        );
        write(
            root,
            &format!("crates/{name}/src/main.rs"),
            "fn main() {\n    ctrlc::set_handler(|| std::process::exit(0)).unwrap();\n}\n",
        );
    }
    // the handler in a path dependency that enables the feature (spin's trigger crate):
    // cargo builds one `ctrlc` for the binary, with `termination`, so it is credited
    for (lib, dep) in [
        ("trig-term", "ctrlc = { workspace = true }"),
        ("trig-plain", "ctrlc = \"3\""),
    ] {
        write(
            root,
            &format!("crates/{lib}/Cargo.toml"),
            &format!("[package]\nname = \"{lib}\"\nedition = \"2021\"\n\n[dependencies]\n{dep}\n"),
        );
        write(
            root,
            &format!("crates/{lib}/src/lib.rs"),
            "pub fn run() {\n    ctrlc::set_handler(|| std::process::exit(0)).unwrap();\n}\n",
        );
    }
    package(root, "app-j", &["trig-term"]);
    write(
        root,
        "crates/app-j/src/main.rs",
        "fn main() {\n    trig_term::run();\n}\n",
    );
    package(root, "app-k", &["trig-plain"]);
    write(
        root,
        "crates/app-k/src/main.rs",
        "fn main() {\n    trig_plain::run();\n}\n",
    );
    write(
        root,
        "crates/app-d/Dockerfile",
        "FROM debian\nSTOPSIGNAL SIGINT\nCMD [\"/app-d\"]\n",
    );
    d
}

#[test]
fn only_handlers_main_reaches_count() {
    let d = workspace();
    let mut got: Vec<String> = sigterm_findings(d.path(), d.path())
        .iter()
        .map(|f| format!("{}:{}", f.path.display(), f.region.line))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            "crates/app-b/src/main.rs:4",
            "crates/app-c/src/main.rs:4",
            "crates/app-e/src/commands.rs:2",
            "crates/app-f/src/cli.rs:2",
            "crates/app-i/src/main.rs:2",
            "crates/trig-plain/src/lib.rs:2",
        ],
    );
}

#[test]
fn the_audit_reads_the_same_verdict() {
    let d = workspace();
    let report = audit(&AuditOptions {
        manifest_path: Some(d.path().to_path_buf()),
        cwd: Some(d.path().to_path_buf()),
        ..AuditOptions::default()
    })
    .unwrap();
    let handles = |name: &str| {
        report
            .crates
            .iter()
            .find(|c| c.name == name)
            .unwrap()
            .handles_sigterm
    };
    assert!(handles("app-a"));
    assert!(!handles("app-b"));
    assert!(!handles("app-c"));
    assert!(handles("app-d"));
    assert!(!handles("app-e"));
    assert!(!handles("app-f"));
    assert!(handles("app-g"));
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.rule == "stopsignal-unhandled"),
        "{:#?}",
        report.findings
    );
}

#[test]
fn a_dependency_outside_the_linted_paths_is_read_when_it_decides() {
    let d = workspace();
    let lint = |app: &str, all: bool| {
        lint_paths(
            &[d.path().join("crates").join(app)],
            &LintOptions {
                cwd: Some(d.path().to_path_buf()),
                all_dependency_signals: all,
                ..LintOptions::default()
            },
        )
        .unwrap()
    };
    let sigterm = |r: &shutdown_lint::engine::LintReport| {
        r.findings
            .iter()
            .filter(|f| f.rule == "sigterm-missing")
            .count()
    };
    // app-a's SIGTERM handler lives in `sigs`, which is not linted: it is read because
    // app-a's Ctrl-C site would be reported otherwise
    let a = lint("app-a", false);
    assert_eq!(sigterm(&a), 0, "{:#?}", a.findings);
    assert!(a.binaries[0].handled.contains("SIGTERM"));
    // app-b depends on it without calling it
    assert_eq!(sigterm(&lint("app-b", false)), 1);
    // app-d handles SIGTERM itself: its dependency is read for the whole table only when
    // asked (the audit)
    let d_all = lint("app-d", true);
    assert_eq!(sigterm(&d_all), 0);
    assert!(d_all.binaries[0].handled.contains("SIGINT"));
}

#[test]
fn a_server_that_handles_no_signal_reads_only_dependencies_that_could() {
    let d = bare_workspace();
    let root = d.path();
    // a helper crate that installs the SIGTERM handler (tokio with `signal`)
    write(
        root,
        "crates/sigs/Cargo.toml",
        "[package]\nname = \"sigs\"\nedition = \"2021\"\n\n[dependencies]\ntokio = { version = \"1\", features = [\"signal\"] }\n",
    );
    write(
        root,
        "crates/sigs/src/lib.rs",
        "use tokio::signal::unix::{signal, SignalKind};\n\
         pub async fn wait_for_terminate() { signal(SignalKind::terminate()).unwrap().recv().await; }\n",
    );
    // an SDK that cannot install one (tokio without `signal`)
    write(
        root,
        "crates/sdk/Cargo.toml",
        "[package]\nname = \"sdk\"\nedition = \"2021\"\n\n[dependencies]\ntokio = { version = \"1\", features = [\"time\"] }\n",
    );
    write(
        root,
        "crates/sdk/src/lib.rs",
        "pub fn version() -> u32 { 1 }\n",
    );
    let server = |name: &str, deps: &str, wait: &str| {
        write(
            root,
            &format!("crates/{name}/Cargo.toml"),
            &format!("[package]\nname = \"{name}\"\nedition = \"2021\"\n\n[dependencies]\n{deps}"),
        );
        write(
            root,
            &format!("crates/{name}/src/main.rs"),
            &format!(
                "#[tokio::main]\nasync fn main() {{\n    let _ = sdk::version();\n    let l = tokio::net::TcpListener::bind(\"0.0.0.0:80\").await.unwrap();\n    axum::serve(l, app()).with_graceful_shutdown({wait}).await.unwrap();\n}}\n"
            ),
        );
    };
    // graceful on the helper's SIGTERM: handled, though the helper is outside the linted path
    server(
        "served",
        "sdk = { path = \"../sdk\" }\nsigs = { path = \"../sigs\" }\n",
        "sigs::wait_for_terminate()",
    );
    // graceful on a channel only, nothing handles a signal
    server("unhandled", "sdk = { path = \"../sdk\" }\n", "stop()");
    let sigterm = |app: &str| {
        sigterm_findings(&root.join("crates").join(app), root)
            .into_iter()
            .map(|f| f.message)
            .collect::<Vec<_>>()
    };
    assert!(sigterm("served").is_empty(), "{:?}", sigterm("served"));
    let unhandled = sigterm("unhandled");
    assert_eq!(unhandled.len(), 1, "{unhandled:?}");
    assert!(unhandled[0].contains("serves (axum) but handles no signal at all"));
}

#[test]
fn a_library_server_main_calls_down_to_by_path_is_a_daemon() {
    // DataFusion Ballista's scheduler: `main` calls its package's library, whose
    // `start_server` (a body no rule reads) calls `start_grpc_service`, which serves
    let d = bare_workspace();
    let root = d.path();
    write(
        root,
        "crates/sched/Cargo.toml",
        "[package]\nname = \"sched\"\nedition = \"2021\"\n\n[[bin]]\nname = \"sched\"\npath = \"src/bin/main.rs\"\n",
    );
    write(root, "crates/sched/src/lib.rs", "pub mod process;\n");
    write(
        root,
        "crates/sched/src/process.rs",
        "pub async fn start_grpc_service(addr: std::net::SocketAddr) {\n    \
         let l = tokio::net::TcpListener::bind(addr).await.unwrap();\n    \
         axum::serve(l, axum::Router::new()).await.unwrap();\n}\n\
         pub async fn start_server(addr: std::net::SocketAddr) {\n    \
         check(&addr);\n    start_grpc_service(addr).await\n}\n\
         fn check(_: &std::net::SocketAddr) {}\n\
         pub struct Server;\n\
         impl Server {\n    pub async fn run(self) {\n        \
         let l = tokio::net::TcpListener::bind(\"0.0.0.0:1\").await.unwrap();\n        \
         axum::serve(l, axum::Router::new()).await.unwrap();\n    }\n}\n\
         pub fn version() -> u32 { 1 }\n",
    );
    write(
        root,
        "crates/sched/src/bin/main.rs",
        "use sched::process::start_server;\n\
         #[tokio::main]\nasync fn main() {\n    start_server(\"0.0.0.0:50050\".parse().unwrap()).await;\n}\n",
    );
    // a CLI of the workspace that shares only names with the library's server: a method
    // `run` (of its own type) and a free `version()` of the library
    write(
        root,
        "crates/cli/Cargo.toml",
        "[package]\nname = \"cli\"\nedition = \"2021\"\n\n[dependencies]\nsched = { path = \"../sched\" }\n",
    );
    write(
        root,
        "crates/cli/src/main.rs",
        "struct Cmd;\nimpl Cmd { async fn run(self) -> u32 { sched::process::version() } }\n\
         #[tokio::main]\nasync fn main() {\n    println!(\"{}\", Cmd.run().await);\n}\n",
    );
    let got = described(&sigterm_findings(root, root));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("crates/sched/src/process.rs:3 binary `sched` serves (axum)"),
        "{got:#?}"
    );
}

#[test]
fn a_path_dependency_server_main_calls_down_to_is_a_daemon() {
    // ensindexer-rs: the server lives in a workspace crate that `main` calls into, through
    // a path (`web::serve_public`), a name imported under another (`use web::serve_admin
    // as listen;`) or a module imported from it; a binary that only asks the crate for
    // its port is no daemon
    let d = bare_workspace();
    let root = d.path();
    package(root, "web", &[]);
    write(
        root,
        "crates/web/src/lib.rs",
        "pub mod listen;\npub use listen::*;\n",
    );
    write(
        root,
        "crates/web/src/listen.rs",
        "pub fn port() -> u16 { 8080 }\n\
         pub async fn serve_admin(port: u16) {\n    \
         let l = tokio::net::TcpListener::bind((\"127.0.0.1\", port)).await.unwrap();\n    \
         axum::serve(l, axum::Router::new()).await.unwrap();\n}\n\
         pub async fn serve_public(port: u16) {\n    \
         let l = tokio::net::TcpListener::bind((\"0.0.0.0\", port)).await.unwrap();\n    \
         axum::serve(l, axum::Router::new()).await.unwrap();\n}\n",
    );
    package(root, "app", &["web"]);
    // read as a syntax tree (it names `spawn`): the import's alias is resolved
    write(
        root,
        "crates/app/src/bin/admin.rs",
        "use web::serve_admin as listen;\n\
         #[tokio::main]\nasync fn main() {\n    tokio::spawn(async {}).await.unwrap();\n    \
         listen(web::port()).await\n}\n",
    );
    // a root and a module the byte scan skips: read from their text
    write(
        root,
        "crates/app/src/bin/public/main.rs",
        "mod cmd;\nfn main() {\n    tokio::runtime::Runtime::new().unwrap().block_on(cmd::start())\n}\n",
    );
    write(
        root,
        "crates/app/src/bin/public/cmd.rs",
        "use web::{self as w, serve_public as listen};\n\
         pub async fn start() {\n    listen(w::port()).await\n}\n",
    );
    write(
        root,
        "crates/app/src/bin/port.rs",
        "use web::port as p;\nfn main() {\n    println!(\"{}\", p());\n}\n",
    );
    let mut got = described(&sigterm_findings(root, root));
    got.sort();
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].starts_with("crates/web/src/listen.rs:4 binary `admin` serves (axum)"),
        "{got:#?}"
    );
    assert!(
        got[1].starts_with("crates/web/src/listen.rs:8 binary `public` serves (axum)"),
        "{got:#?}"
    );
}

#[test]
fn a_function_imported_under_another_name_is_called_by_its_own() {
    // the call graph matches calls to functions by name: `listen(..)` after `use
    // web::serve_admin as listen;` calls `serve_admin` of crate `web`
    let src = "use web::serve_admin as listen;\n\
               async fn main() {\n    listen(tokio::spawn(async { 8080 }).await.unwrap()).await;\n}\n";
    let a = shutdown_lint::analysis::analyze_source(
        "src/main.rs".as_ref(),
        src,
        &shutdown_lint::config::Config::default(),
    );
    let main = a.fns.iter().find(|n| n.item == "main").unwrap();
    let calls: Vec<_> = main.calls.iter().map(|c| (c.name, c.krate)).collect();
    assert!(calls.contains(&("serve_admin", Some("web"))), "{calls:?}");
    assert!(
        !calls.iter().any(|(name, _)| *name == "listen"),
        "{calls:?}"
    );
}

#[test]
fn a_library_server_main_reaches_through_a_typed_method_is_a_daemon() {
    // sccache-dist's scheduler: `main` builds its library's `http::Scheduler` and calls its
    // `start()`, a method that runs a rouille server; the binary handles no signal
    let d = bare_workspace();
    let root = d.path();
    write(
        root,
        "crates/dist/Cargo.toml",
        "[package]\nname = \"dist\"\nedition = \"2021\"\n\n[[bin]]\nname = \"dist-sched\"\npath = \"src/bin/sched/main.rs\"\n",
    );
    write(root, "crates/dist/src/lib.rs", "pub mod http;\n");
    write(
        root,
        "crates/dist/src/http.rs",
        "mod server {\n    \
         pub struct Scheduler<S> { s: S }\n    \
         impl<S: Send + 'static> Scheduler<S> {\n        \
         pub fn new(s: S) -> Self { Scheduler { s } }\n        \
         pub fn start(self) -> Result<(), ()> {\n            \
         rouille::Server::new(\"0.0.0.0:10600\", |_r| rouille::Response::empty_404()).unwrap().run();\n            \
         Ok(())\n        }\n    }\n    \
         pub struct Other;\n    \
         impl Other {\n        pub fn start(self) {\n            \
         rouille::Server::new(\"0.0.0.0:1\", |_r| rouille::Response::empty_404()).unwrap().run();\n        }\n    }\n}\n\
         pub use server::{Other, Scheduler};\n",
    );
    write(
        root,
        "crates/dist/src/bin/sched/main.rs",
        "use dist::http;\n\
         fn main() {\n    let scheduler = http::Scheduler::new(1u8);\n    scheduler.start().unwrap();\n}\n",
    );
    // a second daemon whose `main` the byte scan lets through (it names a thread spawn), its
    // receiver typed by a declaration
    write(
        root,
        "crates/dist/src/bin/other.rs",
        "fn main() {\n    std::thread::spawn(|| {}).join().unwrap();\n    let o: dist::http::Other = dist::http::Other;\n    o.start();\n}\n",
    );
    // a tool of the same package that calls `start()` on a value of another type, and one
    // that calls it on a value of unknown type: neither reaches the scheduler
    write(
        root,
        "crates/dist/src/bin/tool.rs",
        "struct Job;\nimpl Job { fn start(self) {} }\n\
         fn main() {\n    let job = Job;\n    job.start();\n    let t = std::thread::current();\n    t.start();\n}\n",
    );
    let got = described(&sigterm_findings(root, root));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].starts_with("crates/dist/src/http.rs:6 binary `dist-sched` serves (rouille)"),
        "{got:#?}"
    );
    assert!(
        got[1].starts_with("crates/dist/src/http.rs:13 binary `other` serves (rouille)"),
        "{got:#?}"
    );
}

/// A binary whose `main` only calls into its package's library, where Ctrl-C is handled
/// and SIGTERM is not (hyperqueue's `hq`): the crate's name has the word `hyper` in it, so
/// the byte scan lets the root file through and its body, which names no rule's word, is
/// pruned. What `main` calls must still be read, since nothing calls `main`.
#[test]
fn a_pruned_main_still_calls_into_its_library() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    for name in ["hyperx", "fooxy"] {
        write(
            root,
            &format!("{name}/Cargo.toml"),
            &format!("[package]\nname = \"{name}\"\nedition = \"2021\"\n"),
        );
        write(
            root,
            &format!("{name}/src/lib.rs"),
            "pub async fn probe() {\n    let _ = tokio::signal::ctrl_c().await;\n}\n",
        );
        write(
            root,
            &format!("{name}/src/bin/hq.rs"),
            &format!("#[tokio::main]\nasync fn main() {{\n    {name}::probe().await;\n}}\n"),
        );
    }
    let got: Vec<String> = sigterm_findings(root, root)
        .iter()
        .map(|f| format!("{}:{}", f.path.display(), f.region.line))
        .collect();
    assert_eq!(
        got,
        ["fooxy/src/lib.rs:2", "hyperx/src/lib.rs:2"],
        "{got:#?}"
    );
}

/// The half-migrated binary of a package with two entry points: `admin` drains on SIGTERM
/// (its library function installs the handler), `worker` waits only for Ctrl-C. Both
/// `main`s name no word the byte scan looks for, so neither root file is parsed; with no
/// `main` among the functions every handler used to count, and `worker` was credited with
/// `admin`'s SIGTERM handler. Its `main` is read first now: only what it reaches counts,
/// for the lint and for the audit's table.
#[test]
fn a_skipped_main_is_read_before_any_handler_is_credited() {
    let d = app_package();
    let root = d.path();
    write(
        root,
        "src/lib.rs",
        "use tokio::signal::unix::{signal, SignalKind};\n\
         pub async fn serve_admin() {\n    let mut term = signal(SignalKind::terminate()).unwrap();\n    term.recv().await;\n}\n\
         pub async fn work() {\n    tokio::signal::ctrl_c().await.unwrap();\n}\n",
    );
    tokio_bins(root, &[("admin", "serve_admin"), ("worker", "work")]);
    let got = described(&sigterm_findings(root, root));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("src/lib.rs:7 binary `worker` handles Ctrl-C"),
        "{got:#?}"
    );
    assert_eq!(
        audited_handles(root),
        [("admin".to_string(), true), ("worker".to_string(), false)]
    );
}

/// A file declared `#[cfg(test)] mod harness;` out of line is test code when tests are not
/// linted: its `fn main` is no binary and its Ctrl-C no finding (the binaries are judged
/// beside the other cross-file phases, from what was taken of the analyses before those
/// phases mark such files as test code). With `--include-tests` it is linted as written.
#[test]
fn an_out_of_line_test_module_is_no_binary() {
    let d = app_package();
    let root = d.path();
    write(
        root,
        "src/main.rs",
        "#[cfg(test)]\nmod harness;\n\nuse tokio::signal::unix::{signal, SignalKind};\n\n\
         #[tokio::main]\nasync fn main() {\n    let mut term = signal(SignalKind::terminate()).unwrap();\n    term.recv().await;\n}\n",
    );
    write(
        root,
        "src/harness.rs",
        "#[tokio::main]\nasync fn main() {\n    tokio::signal::ctrl_c().await.unwrap();\n}\n",
    );
    let run = |include_tests: bool| {
        lint_paths(
            &[root.to_path_buf()],
            &LintOptions {
                cwd: Some(root.to_path_buf()),
                include_tests: Some(include_tests),
                ..LintOptions::default()
            },
        )
        .unwrap()
    };
    let names = |r: &shutdown_lint::engine::LintReport| -> Vec<String> {
        r.binaries.iter().map(|b| b.name.clone()).collect()
    };
    let report = run(false);
    assert_eq!(names(&report), ["app"]);
    assert!(
        described(&report.findings).is_empty(),
        "{:#?}",
        report.findings
    );
    let report = run(true);
    assert_eq!(names(&report), ["app", "harness"]);
    let found: Vec<String> = described(&report.findings);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].starts_with("src/harness.rs:3 "), "{found:#?}");
}

/// chroma's worker: the package's servers run their components through a framework whose
/// `executor.run()` reaches, by name, every method `run` of the workspace, among them
/// `CompactionServer::run`, which waits for SIGTERM. The queue binary serves and handles no
/// signal, and nothing it reaches makes a `CompactionServer`: that handler is not its own.
/// The compaction binary makes one and runs it: handled. The audit's table says the same.
#[test]
fn a_handler_in_a_method_counts_only_when_something_reached_makes_its_type() {
    let d = app_package();
    let root = d.path();
    write(
        root,
        "src/lib.rs",
        "pub mod compaction;\npub mod queue;\npub mod system;\n",
    );
    write(
        root,
        "src/system.rs",
        "pub struct Executor<C>(C);\n\
         impl<C: Component> Executor<C> {\n    pub async fn run(&mut self) { self.0.handle().await }\n}\n\
         pub trait Component { async fn handle(&mut self); }\n\
         pub async fn start<C: Component>(c: C) {\n    let mut executor = Executor(c);\n    executor.run().await\n}\n",
    );
    write(
        root,
        "src/compaction.rs",
        "use tokio::signal::unix::{signal, SignalKind};\n\
         pub struct CompactionServer { pub port: u16 }\n\
         impl CompactionServer {\n    pub async fn run(self) {\n        \
         let l = tokio::net::TcpListener::bind((\"0.0.0.0\", self.port)).await.unwrap();\n        \
         let mut term = signal(SignalKind::terminate()).unwrap();\n        \
         axum::serve(l, axum::Router::new())\n            .with_graceful_shutdown(async move { term.recv().await; })\n            .await\n            .unwrap();\n    }\n}\n\
         pub async fn compaction_entrypoint() {\n    CompactionServer { port: 50051 }.run().await\n}\n",
    );
    write(
        root,
        "src/queue.rs",
        "pub struct Queue;\n\
         impl crate::system::Component for Queue { async fn handle(&mut self) {} }\n\
         pub async fn queue_entrypoint() {\n    crate::system::start(Queue).await;\n    \
         let l = tokio::net::TcpListener::bind(\"0.0.0.0:50052\").await.unwrap();\n    \
         axum::serve(l, axum::Router::new()).await.unwrap();\n}\n",
    );
    tokio_bins(
        root,
        &[
            ("queue", "queue::queue_entrypoint"),
            ("compaction", "compaction::compaction_entrypoint"),
        ],
    );
    let got = described(&sigterm_findings(root, root));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("src/queue.rs:6 binary `queue` serves (axum) but handles no signal"),
        "{got:#?}"
    );
    assert_eq!(
        audited_handles(root),
        [
            ("compaction".to_string(), true),
            ("queue".to_string(), false)
        ]
    );
}

/// thin-edge's `tedge-write`: a binary that never touches signals reaches, by the name
/// `new`, `TermSignals::new` of a path dependency, which listens for SIGINT and SIGTERM.
/// Nothing it reaches makes a `TermSignals`, so neither handler is its own: it is not
/// reported as handling Ctrl-C without SIGTERM. The binary that makes one handles both.
#[test]
fn a_ctrl_c_site_in_a_method_counts_only_when_something_reached_makes_its_type() {
    let d = bare_workspace();
    let root = d.path();
    package(root, "utils", &[]);
    write(
        root,
        "crates/utils/src/lib.rs",
        "pub mod atomic;\npub mod signals;\n",
    );
    write(
        root,
        "crates/utils/src/signals.rs",
        "use tokio::signal::unix;\n\
         pub struct TermSignals { sigint: Option<unix::Signal>, sigterm: Option<unix::Signal> }\n\
         impl TermSignals {\n    pub fn new() -> TermSignals {\n        \
         let sigint = unix::signal(unix::SignalKind::interrupt()).ok();\n        \
         let sigterm = unix::signal(unix::SignalKind::terminate()).ok();\n        \
         TermSignals { sigint, sigterm }\n    }\n}\n",
    );
    write(
        root,
        "crates/utils/src/atomic.rs",
        "pub struct Permissions(u32);\n\
         impl Permissions {\n    pub fn new(mode: u32) -> Self { Permissions(mode) }\n}\n\
         pub fn write_file(mode: u32) {\n    let _p = Permissions::new(mode);\n}\n",
    );
    package(root, "write", &["utils"]);
    write(
        root,
        "crates/write/src/main.rs",
        "fn main() {\n    utils::atomic::write_file(0o644);\n}\n",
    );
    package(root, "tedge", &["utils"]);
    write(
        root,
        "crates/tedge/src/main.rs",
        "#[tokio::main]\nasync fn main() {\n    let _signals = utils::signals::TermSignals::new();\n}\n",
    );
    let got = described(&sigterm_findings(root, root));
    assert!(got.is_empty(), "{got:#?}");
}
