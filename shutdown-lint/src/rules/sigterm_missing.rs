//! `sigterm-missing`: a binary that listens for Ctrl-C (SIGINT) but never for SIGTERM, or
//! that serves and handles no signal at all.
//!
//! Per file, [`signal_sites`] finds the Ctrl-C registrations and the signal handlers, each
//! with its enclosing function; the engine combines the files of each binary target (its
//! root file, the modules it declares, its package's library and its path dependencies'
//! libraries) and [`verdict`] credits only the handlers of functions that `main` reaches
//! ([`crate::callgraph`]), then reports at the reached Ctrl-C sites (or, when nothing is
//! handled, at the first server reached).

use super::RuleMeta;
use crate::callgraph::{self, Node};
use crate::finding::Region;
use crate::model::{FileModel, FnNode};
use crate::resolve::known;
use std::collections::BTreeSet;

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::SIGTERM_MISSING;

/// Help text of the rule.
pub const HELP: &str = "also listen for SIGTERM (`tokio::signal::unix::signal(SignalKind::terminate())`), or use `#[shutdown_runtime::main]`";

/// A Ctrl-C registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CtrlCSite {
    /// Where.
    pub region: Region,
    /// Enclosing item.
    pub item: String,
    /// What was called, e.g. `tokio::signal::ctrl_c`.
    pub what: String,
    /// A `ctrlc` crate handler (covers SIGTERM with the `termination` feature).
    pub ctrlc_crate: bool,
}

/// A server that serves (any [`known::SERVERS`] API but a metrics exporter's listener,
/// graceful or not): a binary that reaches one and handles no signal at all is reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeSite {
    /// Where (the server's root call).
    pub region: Region,
    /// Enclosing item.
    pub item: String,
    /// The server's framework, e.g. `axum`.
    pub what: &'static str,
}

/// Signal handling found in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignalSites {
    /// Ctrl-C registrations outside Windows-only code.
    pub ctrl_c: Vec<CtrlCSite>,
    /// Servers started in the file.
    pub servers: Vec<ServeSite>,
    /// Whether the file handles SIGTERM.
    pub sigterm: bool,
    /// Every handler: the enclosing function (item path) and the signals it handles.
    pub handled: Vec<(String, &'static [&'static str])>,
}

/// Finds the signal handling of a file.
pub fn signal_sites(model: &FileModel) -> SignalSites {
    let mut s = SignalSites::default();
    // a signal named in a call that sends it (`killpg(pgid, SIGINT)`) is not handled here
    let sent = |region: Region| model.signal_sends.iter().any(|a| a.encloses(region));
    // an actix-web server told `.disable_signals()` handles no signal itself (meilisearch,
    // which exits on Ctrl-C and so is cut by SIGTERM): by the offset of its root call
    let signals_off: Vec<usize> = model
        .chains
        .iter()
        .filter(|cu| cu.chain.steps.iter().any(|s| s.name == "disable_signals"))
        .map(|cu| cu.chain.root_region.offset)
        .collect();
    // `assert_eq!(caught_signal.unwrap(), SIGINT)` after `Signals::new(&[SIGINT])`
    // (omicron's dev tools): the comparison is no second Ctrl-C site
    let compared = |region: Region| model.signal_compares.iter().any(|a| a.encloses(region));
    let mut consider = |path: String, region: Region, item: &str, windows: bool| {
        if sent(region) || signals_off.contains(&region.offset) {
            return;
        }
        if compared(region) && known::CTRL_C.contains(&path.as_str()) {
            return;
        }
        if let Some((_, sigs)) = known::SIGNALS.iter().find(|(p, _)| *p == path)
            && !windows
        {
            s.handled.push((item.to_string(), *sigs));
        }
        if known::SIGTERM.contains(&path.as_str()) {
            s.sigterm = true;
        } else if known::CTRL_C.contains(&path.as_str()) && !windows {
            let ctrlc_crate = known::CTRLC_CRATE.contains(&path.as_str());
            s.ctrl_c.push(CtrlCSite {
                region,
                item: item.to_string(),
                what: path,
                ctrlc_crate,
            });
        }
    };
    for cu in &model.chains {
        // `Toplevel::new(..).catch_signals()`: the handler a known method installs
        let root = cu.chain.root_str();
        for (_, _, path) in known::SIGNAL_METHODS
            .iter()
            .filter(|(r, m, _)| *r == root && cu.chain.steps.iter().any(|s| s.name == *m))
        {
            consider(
                path.to_string(),
                cu.chain.root_region,
                &cu.ctx.item,
                cu.ctx.windows_only,
            );
        }
        if !cu.chain.via_binding {
            consider(
                root,
                cu.chain.root_region,
                &cu.ctx.item,
                cu.ctx.windows_only,
            );
        }
    }
    for r in &model.refs {
        consider(r.path.join("::"), r.region, &r.ctx.item, r.ctx.windows_only);
    }
    s.servers = serve_sites(model);
    s
}

/// The servers a file starts: a chain of a [`known::SERVERS`] API that reaches its serving
/// method (on the chain or on a binding of it), once per root call.
fn serve_sites(model: &FileModel) -> Vec<ServeSite> {
    let mut out: Vec<ServeSite> = Vec::new();
    for cu in &model.chains {
        let root = cu.chain.root_str();
        let Some(api) = known::SERVERS
            .iter()
            .find(|a| a.roots.contains(&root.as_str()))
        else {
            continue;
        };
        // an exporter's own listener is not the service: a tool that installs one is not
        // a daemon for it; a binary never runs test code
        if known::METRICS_EXPORTERS.contains(&api.name) || cu.ctx.windows_only || cu.ctx.test_code {
            continue;
        }
        let serves = api.serve.is_empty()
            || cu.chain.steps.iter().any(|s| {
                let m = s.name.as_str();
                api.serve.contains(&m)
                    || (api.graceful.contains(&m) && known::GRACEFUL_SERVING.contains(&m))
            });
        if serves
            && !out
                .iter()
                .any(|s| s.region.offset == cu.chain.root_region.offset)
        {
            out.push(ServeSite {
                region: cu.chain.root_region,
                item: cu.ctx.item.clone(),
                what: api.name,
            });
        }
    }
    out
}

/// The message for a Ctrl-C site of a binary named `bin`.
pub fn message(site: &CtrlCSite, bin: &str) -> String {
    format!(
        "binary `{bin}` handles Ctrl-C (`{}`) but not SIGTERM, the signal Kubernetes, Docker and \
         systemd stop it with: SIGTERM ends it at once, with no drain",
        site.what
    )
}

/// The message for a binary named `bin` that serves at `site` and handles no signal that
/// stops it ([`Verdict::handles_no_stop_signal`]); `handled` are the signals it does handle.
pub fn no_signal_message(site: &ServeSite, bin: &str, handled: &BTreeSet<String>) -> String {
    let handles = if handled.is_empty() {
        "handles no signal at all".to_string()
    } else {
        let names: Vec<&str> = handled.iter().map(String::as_str).collect();
        format!(
            "handles neither SIGTERM nor Ctrl-C (only {})",
            names.join(", ")
        )
    };
    format!(
        "binary `{bin}` serves ({}) but {handles}: SIGTERM, the signal Kubernetes, Docker \
         and systemd stop it with, ends it at once, cutting every request and task in flight",
        site.what
    )
}

/// Help for [`no_signal_message`].
pub const NO_SIGNAL_HELP: &str = "handle SIGTERM and Ctrl-C (`#[shutdown_runtime::main]`, or `tokio::signal::unix::signal(SignalKind::terminate())` beside `tokio::signal::ctrl_c()`) and shut the server down gracefully when either arrives";

/// Whether `f` is a finding of a binary that serves and handles no signal
/// ([`no_signal_message`]), not one of a Ctrl-C site.
pub fn is_no_signal(f: &crate::finding::Finding) -> bool {
    f.rule == META.name && f.help.as_deref() == Some(NO_SIGNAL_HELP)
}

/// One file of a binary, as [`verdict`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct BinFile<'a> {
    /// The crate of the file (`-` as `_`).
    pub krate: &'a str,
    /// Its signal handling.
    pub signals: &'a SignalSites,
    /// Its functions and their calls.
    pub fns: &'a [FnNode],
    /// The binary's root file (the one with `fn main`).
    pub root: bool,
    /// One of the binary's own modules (its root file and the modules it declares): a
    /// server there makes it a daemon for the no-signal check when `main` reaches it by
    /// name (calls are matched by name, so a CLI of the workspace would seem to reach its
    /// library's server).
    pub own: bool,
    /// A module of the library of the binary's package: a server there makes it a daemon
    /// when `main` calls down to it through paths ([`callgraph::reachable_by_path`]).
    pub package_lib: bool,
    /// A module of a path dependency's library: a server there makes it a daemon the same
    /// way (`server::serve(config)` into a workspace crate `server` whose `serve` runs
    /// `axum::serve`: ensindexer-rs).
    pub dep_lib: bool,
}

impl BinFile<'_> {
    /// Whether the file is a module of a library linked into the binary (its package's or
    /// a path dependency's): a server there counts when `main` calls down to it through
    /// paths.
    pub fn linked_lib(&self) -> bool {
        self.package_lib || self.dep_lib
    }
}

/// What a binary handles, counting only what `main` reaches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Signals handled by reached functions (`SIGTERM`, `SIGINT`, ..).
    pub handled: BTreeSet<String>,
    /// Reached Ctrl-C sites: (index into the files, site).
    pub ctrl_c: Vec<(usize, CtrlCSite)>,
    /// Reached servers: of the binary's own modules, or of a library linked into it (its
    /// package's, a path dependency's) when `main` calls down to them through paths (index
    /// into the files, site).
    pub servers: Vec<(usize, ServeSite)>,
    /// Whether call chains from `main` decided it (`false`: no `main` was found among the
    /// walked functions, so every handler counted).
    pub by_reachability: bool,
    /// The types whose methods handle a signal (reached by name or not) but which no
    /// function `main` reaches makes: those handlers did not count.
    pub unmade: BTreeSet<String>,
}

impl Verdict {
    /// Whether the binary handles SIGTERM.
    pub fn handles_sigterm(&self) -> bool {
        self.handled.contains("SIGTERM")
    }

    /// Whether the binary handles no signal that stops it: no Ctrl-C site reached, and no
    /// handler of SIGTERM or SIGINT — a handler of SIGUSR1 alone (api-daemon's state
    /// dump), SIGHUP alone (a reload) or SIGQUIT alone (kld's API server, stopped by
    /// systemd's SIGTERM) leaves SIGTERM ending it at once.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::rules::sigterm_missing::Verdict;
    /// let mut v = Verdict::default();
    /// v.handled.insert("SIGUSR1".into());
    /// assert!(v.handles_no_stop_signal());
    /// v.handled.insert("SIGQUIT".into());
    /// assert!(v.handles_no_stop_signal());
    /// v.handled.insert("SIGINT".into());
    /// assert!(!v.handles_no_stop_signal());
    /// ```
    pub fn handles_no_stop_signal(&self) -> bool {
        self.ctrl_c.is_empty()
            && !self
                .handled
                .iter()
                .any(|s| matches!(s.as_str(), "SIGTERM" | "SIGINT"))
    }
}

fn nodes_of<'a>(files: &[BinFile<'a>]) -> Vec<Node<'a>> {
    files
        .iter()
        .enumerate()
        .flat_map(|(i, f)| {
            f.fns.iter().map(move |n| Node {
                file: i,
                krate: f.krate,
                node: n,
            })
        })
        .collect()
}

fn roots_of(files: &[BinFile<'_>]) -> Vec<(usize, &'static str)> {
    files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.root)
        .map(|(i, _)| (i, "main"))
        .collect()
}

/// Combines the files of one binary. `ctrlc_termination`: the package enables `ctrlc`'s
/// `termination` feature (its handler then catches SIGTERM too).
///
/// # Examples
///
/// ```
/// use shutdown_lint::analysis::analyze_source;
/// use shutdown_lint::config::Config;
/// use shutdown_lint::rules::sigterm_missing::{verdict, BinFile};
/// let src = "fn main() { wait(); }\nasync fn wait() { tokio::signal::ctrl_c().await; }\n\
///            fn unused() { tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()); }\n";
/// let a = analyze_source("src/main.rs".as_ref(), src, &Config::default());
/// let files = [BinFile { krate: "app", signals: &a.signals, fns: &a.fns, root: true, own: true, package_lib: false, dep_lib: false }];
/// let v = verdict(&files, false);
/// assert!(!v.handles_sigterm());
/// assert_eq!(v.ctrl_c.len(), 1);
/// ```
pub fn verdict(files: &[BinFile<'_>], ctrlc_termination: bool) -> Verdict {
    verdict_and_calls(files, ctrlc_termination, &mut |_, _| true).0
}

/// The type of the method `item` of `fns` (`Server` of `net::Server::run`); `None` for a
/// free function.
pub(crate) fn method_type<'i>(fns: &[FnNode], item: &'i str) -> Option<&'i str> {
    fns.iter()
        .any(|n| n.method && n.item == item)
        .then(|| callgraph::owner_of(item))
        .flatten()
}

/// Whether a value of the type named `ty` may exist in a binary, given which functions
/// (file index, item path) `main` reaches: the question [`verdict_and_calls`] asks of the
/// type of a method that handles a signal ([`crate::callgraph::type_mentions`]).
pub(crate) type TypeLive<'a> = dyn FnMut(&str, &dyn Fn(usize, &str) -> bool) -> bool + 'a;

/// The names of what the functions `main` reaches call: a file whose calls are not read
/// yet matters only if it defines one of them. Borrowed from the functions' calls (a
/// round of reading asks it of thousands of functions).
#[derive(Debug, Clone, Default)]
pub(crate) struct Called<'a> {
    /// Called by every function `main` reaches ([`callgraph::reachable`]); `None` when no
    /// `main` is among the files.
    pub by_name: Option<foldhash::HashSet<&'a str>>,
    /// Free functions called by those `main` calls down to through paths
    /// ([`callgraph::reachable_by_path`]); `None` when no `main` is among the files, or
    /// when no module of a linked library (the package's, a path dependency's) starts a
    /// server (the only use of that walk).
    pub by_path: Option<foldhash::HashSet<&'a str>>,
}

/// The names the reached `nodes` (flagged in `reach`) call (only free calls and methods
/// of a known receiver type when `free_only`).
fn names_called<'a>(
    nodes: &[Node<'a>],
    reach: &[bool],
    free_only: bool,
) -> foldhash::HashSet<&'a str> {
    nodes
        .iter()
        .zip(reach)
        .filter(|(_, r)| **r)
        .flat_map(|(n, _)| {
            n.node
                .calls
                .iter()
                .filter(move |c| !(free_only && c.method && c.ty.is_none()))
        })
        .map(|c| c.name)
        .collect()
}

/// [`verdict`], and what the functions `main` reaches call. The reachability walks give
/// both; the walk along paths runs only when a module of a library linked into the binary
/// (its package's, a path dependency's) starts a server.
///
/// A handler in a method reached by name counts only when `live` says a value of the
/// method's type may exist: `executor.run(rx)` reaches every method `run`, a server's
/// `run` that waits for SIGTERM among them, but the server runs only if something `main`
/// reaches makes one. The types of the handlers `main` does not reach are asked too: what
/// to read next looks toward what makes those types, not toward the handlers.
pub(crate) fn verdict_and_calls<'a>(
    files: &[BinFile<'a>],
    ctrlc_termination: bool,
    live: &mut TypeLive<'_>,
) -> (Verdict, Called<'a>) {
    let nodes = nodes_of(files);
    let roots = roots_of(files);
    let reach = callgraph::reached_nodes(&nodes, &roots, false);
    // a library's server counts when `main` calls down to it through paths
    let lib_serves = files
        .iter()
        .any(|f| f.linked_lib() && !f.signals.servers.is_empty());
    let by_path = lib_serves
        .then(|| callgraph::reached_nodes(&nodes, &roots, true))
        .flatten();
    // the reached functions by (file, item)
    let items = |flags| -> foldhash::HashSet<(usize, &str)> {
        callgraph::flagged_items(&nodes, flags).collect()
    };
    let reached_items = reach.as_deref().map(items);
    let by_path_items = by_path.as_deref().map(items);
    let called = Called {
        by_name: reach.as_ref().map(|set| names_called(&nodes, set, false)),
        by_path: by_path.as_ref().map(|set| names_called(&nodes, set, true)),
    };
    let reached = |file: usize, item: &str| match &reached_items {
        None => true,
        // a site outside any function (a `static`, an `impl` const) counts
        Some(set) => set.contains(&(file, item)) || !files[file].fns.iter().any(|n| n.item == item),
    };
    let mut v = Verdict {
        by_reachability: reach.is_some(),
        ..Verdict::default()
    };
    let reached_fn = |file: usize, item: &str| match &reached_items {
        None => true,
        Some(set) => set.contains(&(file, item)),
    };
    // a site in a method of a type nothing reached makes does not count; the type is
    // noted, so that what to read next looks toward what makes one
    let mut in_unmade =
        |fns: &[FnNode], item: &str, unmade: &mut BTreeSet<String>| match method_type(fns, item) {
            Some(ty) if reached_items.is_some() && !live(ty, &reached_fn) => {
                unmade.insert(ty.to_string());
                true
            }
            _ => false,
        };
    for (i, f) in files.iter().enumerate() {
        for (item, sigs) in &f.signals.handled {
            // reached or not: a handler of a type nothing reached makes is looked for
            // through what makes one
            if !in_unmade(f.fns, item, &mut v.unmade) && reached(i, item) {
                v.handled.extend(sigs.iter().map(|s| s.to_string()));
            }
        }
        for site in &f.signals.ctrl_c {
            // a Ctrl-C site counts the same way as a handler (thin-edge's
            // `TermSignals::new`, which listens for SIGTERM too, reached by the name `new`
            // from a binary that never makes one)
            if !reached(i, &site.item) || in_unmade(f.fns, &site.item, &mut v.unmade) {
                continue;
            }
            if site.ctrlc_crate && ctrlc_termination {
                v.handled.insert("SIGTERM".into());
            }
            v.ctrl_c.push((i, site.clone()));
        }
        for site in &f.signals.servers {
            let served = if f.own {
                reached(i, &site.item)
            } else {
                f.linked_lib()
                    && by_path_items
                        .as_ref()
                        .is_some_and(|set| set.contains(&(i, site.item.as_str())))
            };
            if served {
                v.servers.push((i, site.clone()));
            }
        }
    }
    (v, called)
}
