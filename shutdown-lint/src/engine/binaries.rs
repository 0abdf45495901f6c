//! `sigterm-missing` across files: each binary's module tree, its package's library and
//! its path dependencies' libraries, judged by what `main` reaches
//! ([`crate::rules::sigterm_missing`]).
//!
//! The phase reads only what each file's analysis found about signals and calls
//! ([`BinSource`], taken from the analyses when the cross-file phases start), so it runs on
//! a thread of its own beside the workspace model and the other cross-file phases, which
//! change other parts of the analyses: on restate its 15 ms ran with the second core mostly
//! idle after them.

use super::made_types::MadeTypes;
use super::{BinaryFacts, Job, file_context};
use crate::analysis::{Analyzer, FileAnalysis, FileContext};
use crate::config::Config;
use crate::finding::{Finding, Region, Severity};
use crate::model::{FnNode, ModDecl};
use crate::package::Package;
use crate::rules::sigterm_missing::{self, SignalSites};
use std::collections::{BTreeSet, HashMap};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What `sigterm-missing` reads of one file's analysis: its signal sites, its functions and
/// their calls, its `mod` declarations.
#[derive(Debug, Default)]
pub(super) struct BinSource {
    /// Signal handling ([`FileAnalysis::signals`]).
    pub(super) signals: SignalSites,
    /// Functions and their calls ([`FileAnalysis::fns`]).
    pub(super) fns: Vec<FnNode>,
    /// `mod x;` declarations.
    mod_decls: Vec<ModDecl>,
    /// A top-level `fn main`.
    has_main: bool,
    /// Skipped by the byte scan: `fns` is empty, read from the text when needed.
    skipped_by_scan: bool,
    /// Parsed pruned: `fns` lacks the blanked bodies' calls.
    pruned: bool,
}

impl BinSource {
    /// Takes the signal sites, functions and `mod` declarations out of `a` (nothing after
    /// the test modules are known reads them there) and copies the flags.
    pub(super) fn take(a: &mut FileAnalysis) -> BinSource {
        BinSource {
            signals: std::mem::take(&mut a.signals),
            fns: std::mem::take(&mut a.fns),
            mod_decls: std::mem::take(&mut a.mod_decls),
            has_main: a.has_main,
            skipped_by_scan: a.skipped_by_scan,
            pruned: a.pruned,
        }
    }

    /// A file that turned out to be test code (declared `#[cfg(test)] mod x;` out of line,
    /// tests not linted): no signal, no function, but its `mod` declarations.
    pub(super) fn test_module(a: &mut FileAnalysis) -> BinSource {
        BinSource {
            mod_decls: std::mem::take(&mut a.mod_decls),
            ..BinSource::default()
        }
    }
}

impl From<FileAnalysis> for BinSource {
    fn from(mut a: FileAnalysis) -> BinSource {
        BinSource::take(&mut a)
    }
}

/// Files of the module tree rooted at `root`, following `mod x;` declarations; `known`
/// tells a file that exists without asking the file system (the walked files: a `stat`
/// per declaration and binary was most of a run's system calls on restate).
fn module_closure(
    root: &Path,
    decls_of: &mut dyn FnMut(&Path) -> Option<Vec<crate::model::ModDecl>>,
    known: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    // one spelling per file (`app/../common/src/lib.rs` is `common/src/lib.rs`), so a file
    // reached from several binaries is read and analysed once
    let root = crate::paths::normalize(root);
    let mut stack = vec![root.clone()];
    while let Some(f) = stack.pop() {
        if !seen.insert(f.clone()) || seen.len() > 10_000 {
            continue;
        }
        out.push(f.clone());
        let Some(decls) = decls_of(&f) else { continue };
        let dir = f.parent().map(Path::to_path_buf).unwrap_or_default();
        let stem = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let owns_dir = f == root || stem == "mod" || stem == "main" || stem == "lib";
        let base = if owns_dir {
            dir.clone()
        } else {
            dir.join(&stem)
        };
        for d in decls {
            if let Some(p) = &d.path_attr {
                stack.push(crate::paths::normalize(&dir.join(p)));
                continue;
            }
            let mut b = base.clone();
            for seg in &d.path[..d.path.len() - 1] {
                b.push(seg);
            }
            let name = &d.path[d.path.len() - 1];
            // `name.rs`, else `name/mod.rs`
            for file in [b.join(format!("{name}.rs")), b.join(name).join("mod.rs")] {
                let normal = crate::paths::normalize(&file);
                if known(&normal) || file.is_file() {
                    stack.push(normal);
                    break;
                }
            }
        }
    }
    out
}

/// The `sigterm-missing` verdict of one binary's files. The functions of files the byte
/// scan skipped or pruned have no calls yet: more calls only make more reachable, so they
/// are read (from the text, on all cores, once per run, into `text_fns`) only while that
/// could change a finding (a SIGTERM handler not reached yet while Ctrl-C sites would be
/// reported, or Ctrl-C sites not reached yet; with nothing handled, a server of the
/// binary's `own_files` or `lib_files` not reached yet, or a handler not reached yet while one is) or,
/// when `complete` (the audit's signal table), any handler not reached yet; and only of the
/// files that define a function the reached ones call, round by round as the reach grows.
/// `still_to_report` tells whether a Ctrl-C site (file, offset) would be reported if
/// reached (it is in a linted file, no earlier binary reported it).
fn verdict_reading_calls(
    loaded: &[(PathBuf, String, &BinSource)],
    unread: &mut UnreadFiles,
    still_to_report: &dyn Fn(&Path, usize) -> bool,
    bin: &BinParts<'_>,
    termination: bool,
    complete: bool,
) -> sigterm_missing::Verdict {
    let BinParts {
        root,
        own_files,
        lib_files,
        dep_files,
    } = *bin;
    let UnreadFiles {
        text_fns,
        fn_names,
        made,
        crates,
    } = unread;
    loop {
        let files = bin_files(loaded, text_fns, bin);
        let mut live =
            |ty: &str, reached: &dyn Fn(usize, &str) -> bool| made.live(loaded, ty, reached);
        let (verdict, called) = sigterm_missing::verdict_and_calls(&files, termination, &mut live);
        let all_handled = loaded
            .iter()
            .flat_map(|(_, _, a)| a.signals.handled.iter())
            .flat_map(|(_, sigs)| sigs.iter())
            .all(|s| verdict.handled.contains(*s));
        // a Ctrl-C site still to report: not reached yet, and (but for the signal table)
        // in a linted file and not reported for an earlier binary (the same finding)
        let sites_unreached = loaded.iter().enumerate().any(|(fi, (f, _, a))| {
            a.signals.ctrl_c.iter().any(|site| {
                let offset = site.region.offset;
                !verdict
                    .ctrl_c
                    .iter()
                    .any(|(i, s)| *i == fi && s.region.offset == offset)
                    && (complete || still_to_report(f, offset))
            })
        });
        // a SIGTERM handler not reached yet would clear the Ctrl-C sites to report; a
        // Ctrl-C site not reached yet would be reported too; any other handler only
        // completes the signal table (when it is asked for)
        let sigterm_unreached = !verdict.handles_sigterm()
            && loaded.iter().any(|(_, _, a)| {
                a.signals
                    .handled
                    .iter()
                    .any(|(_, sigs)| sigs.contains(&"SIGTERM"))
            });
        // nothing handled: a server not reached yet (of the binary's own modules, or of
        // a library linked into it) would be reported, a handler not reached yet would clear
        // the servers reached
        let any_handler = loaded.iter().any(|(_, _, a)| !a.signals.handled.is_empty());
        let unreached_in = |part: &dyn Fn(&sigterm_missing::BinFile<'_>) -> bool| {
            let all: usize = files
                .iter()
                .filter(|f| part(f))
                .map(|f| f.signals.servers.len())
                .sum();
            all > verdict
                .servers
                .iter()
                .filter(|(i, _)| part(&files[*i]))
                .count()
        };
        let own_servers_unreached = unreached_in(&|f| f.own);
        let lib_servers_unreached = unreached_in(&|f| f.linked_lib());
        let no_signal_open = verdict.handles_no_stop_signal()
            && (own_servers_unreached || (any_handler && !verdict.servers.is_empty()));
        let could_change = (complete && !all_handled)
            || no_signal_open
            || (!verdict.handles_sigterm()
                && ((sigterm_unreached && !verdict.ctrl_c.is_empty()) || sites_unreached));
        // only a server of a linked library (its package's, a path dependency's) is open:
        // what `main` calls down to by path decides, so only the binary's and the
        // libraries' files whose functions those calls name are read
        let wide = could_change && (any_handler || no_signal_open);
        let lib_only = !wide && verdict.handles_no_stop_signal() && lib_servers_unreached;
        // no `main` among the functions because the root file was skipped or pruned and
        // not read yet (`#[tokio::main] async fn main() { app::serve().await }` names no
        // word the byte scan looks for): every handler counts then, so the binary would be
        // credited with a SIGTERM handler its library installs for another entry point, or
        // charged with a Ctrl-C wait it never reaches (usg-tftp's `webui`, credited with
        // the worker pool's `ctrl_c()` that only the server binary reaches, its own
        // server left unreported).
        // Its functions are read first (one file); the handlers `main` reaches decide.
        // Linting, only for a binary with Ctrl-C sites still to report (the half-migrated
        // binary: it waits for Ctrl-C while its library handles SIGTERM for another entry
        // point) or one that serves (chroma's `work_queue_service`: its library's SIGTERM
        // handler is `CompactionServer::run`, which `main` reaches by name but no function
        // it reaches makes a `CompactionServer` of, `engine/made_types.rs`).
        let serves = files
            .iter()
            .any(|f| (f.own || f.linked_lib()) && !f.signals.servers.is_empty());
        let root_unread = called.by_name.is_none()
            && (verdict.handles_sigterm() || !verdict.ctrl_c.is_empty())
            && (complete
                || serves
                || verdict
                    .ctrl_c
                    .iter()
                    .any(|(i, site)| still_to_report(&loaded[*i].0, site.region.offset)))
            && loaded.iter().any(|(f, _, a)| {
                f == root && (a.skipped_by_scan || a.pruned) && !text_fns.contains_key(f)
            });
        if !wide && !lib_only && !root_unread {
            return verdict;
        }
        let unread = loaded
            .iter()
            .filter(|(f, _, a)| (a.skipped_by_scan || a.pruned) && !text_fns.contains_key(f))
            .map(|(f, _, _)| f);
        // the files this round may read: each with whether it must first define a function
        // `called` names (the root file need not: nothing calls `main`) and name one that
        // leads toward a site (`toward`)
        let mut toward = None;
        let (candidates, called): (Vec<(&PathBuf, bool)>, Option<foldhash::HashSet<&str>>) =
            if root_unread {
                let root_file = loaded.iter().map(|(f, _, _)| f).filter(|f| *f == root);
                (root_file.take(1).map(|f| (f, false)).collect(), None)
            } else if lib_only {
                match called.by_path {
                    // `main` is in a file not read yet: the binary's own files first
                    None => (
                        unread
                            .filter(|f| own_files.contains(f.as_os_str()))
                            .map(|f| (f, false))
                            .collect(),
                        None,
                    ),
                    Some(called) => (
                        unread
                            .filter(|f| {
                                own_files.contains(f.as_os_str())
                                    || lib_files.contains(f.as_os_str())
                                    || dep_files.contains(f.as_os_str())
                            })
                            .map(|f| (f, f != root))
                            .collect(),
                        Some(called),
                    ),
                }
            } else {
                // a file matters only on a path from `main` to a signal site: it defines a
                // function the reached ones call, and its text names a function that leads
                // to a site (a handler in a method of a type nothing reached makes counts
                // once a function that makes one is reached: toward those instead)
                let makers = made.makers(loaded, &verdict.unmade);
                let wanted = Wanted {
                    every_handler: complete || no_signal_open,
                    servers: no_signal_open && own_servers_unreached,
                    unmade: &verdict.unmade,
                    makers: &makers,
                };
                toward = sites_reached_through(&files, &wanted);
                match called.by_name {
                    // no `main` among the functions: every handler counts already
                    None => (unread.map(|f| (f, false)).collect(), None),
                    // the root file too: nothing calls `main`, so when its body was pruned
                    // (a file the byte scan let through for a word such as `hyper` in
                    // `hyperqueue::run()`) no call names it, and what it calls is unknown
                    Some(called) => (unread.map(|f| (f, f != root)).collect(), Some(called)),
                }
            };
        if candidates.is_empty() {
            return verdict;
        }
        // the binary's own and its package library's files first: `main`'s path to its
        // handler usually runs through them (`main` → `lib::entrypoint` → `Server::run`),
        // and by name alone the reached functions' calls (`new`, `build`, `run`) are
        // defined in most files of a workspace (chroma's `foundation_service`: 187 files
        // read, where its own library's told). The rest only when none of those passes:
        // more files only make more reachable, so the verdict is the one reading them all
        // at once would give, decided by the same conditions above.
        let (near, far): (Vec<_>, Vec<_>) = candidates.into_iter().partition(|(f, _)| {
            own_files.contains(f.as_os_str()) || lib_files.contains(f.as_os_str())
        });
        let mut read = Vec::new();
        for batch in [near, far] {
            if read.is_empty() && !batch.is_empty() {
                read = read_batch(&batch, called.as_ref(), toward.as_ref(), fn_names, crates);
            }
        }
        if read.is_empty() {
            return verdict;
        }
        for (f, nodes) in read {
            let nodes = nodes.map(|n| without_library_methods(n, loaded, &f));
            text_fns.insert(f, nodes);
        }
    }
}

/// The functions read from the text of `file` without the methods its syntax tree knows
/// to be a server library's own ([`crate::model::FnNode::library_methods`]: `.serve(addr)`
/// on tonic's builder), where the tree saw every call of that name: a name a kept body
/// cannot lose to the pruner (a statement naming `serve` stays). A function whose body was
/// pruned whole has none, and a name the pruner may drop (warp's `.run(addr)`) stays.
fn without_library_methods(
    mut nodes: Vec<crate::model::FnNode>,
    loaded: &[(PathBuf, String, &BinSource)],
    file: &Path,
) -> Vec<crate::model::FnNode> {
    let Some((_, _, a)) = loaded.iter().find(|(f, _, _)| f == file) else {
        return nodes;
    };
    let seen_whole = |name: &str| {
        let written = format!(".{name}(");
        crate::prune::BODY_WORDS.iter().any(|w| {
            w.starts_with(|c: char| c.is_ascii_lowercase() || c == '.') && written.contains(w)
        })
    };
    for node in &mut nodes {
        let Some(tree) = a
            .fns
            .iter()
            .find(|t| t.item == node.item && !t.library_methods.is_empty())
        else {
            continue;
        };
        let drop = |c: &crate::model::CallRef<'_>| {
            c.method
                && tree.library_methods.iter().any(|m| **m == *c.name)
                && seen_whole(c.name)
                && !tree.calls.iter().any(|t| t.method && t.name == c.name)
        };
        if node.calls.iter().any(|c| drop(&c)) {
            let kept: Vec<_> = node.calls.iter().filter(|c| !drop(c)).collect();
            node.calls = crate::model::Calls::from_refs(kept);
        }
    }
    nodes
}

/// The functions of the files of `batch`, read from their texts (on all cores, each file
/// once, its text dropped after): each `(file, check)` with `check` only when it defines a
/// function `called` names and its text names one `toward` a site (`None`: a file that
/// does not lex). The names of the functions a checked file defines are kept in
/// `fn_names` (once per run). A call through a path that starts with one of `crates` is
/// that crate's.
fn read_batch(
    batch: &[(&PathBuf, bool)],
    called: Option<&foldhash::HashSet<&str>>,
    toward: Option<&crate::lexscan::WholeWords>,
    fn_names: &mut HashMap<PathBuf, BTreeSet<String>>,
    crates: &foldhash::HashSet<String>,
) -> Vec<(PathBuf, Option<Vec<crate::model::FnNode>>)> {
    let known_names: &HashMap<PathBuf, BTreeSet<String>> = fn_names;
    let read = crate::pool::map_on_large_stacks(batch, None, |&(f, check)| {
        let read_text = || std::fs::read_to_string(f).unwrap_or_default();
        // a file whose names are known is read only when it defines a called function
        let mut text = None;
        let mut names = None;
        if check {
            let defined = match known_names.get(f) {
                Some(n) => n,
                None => names.insert(crate::lexscan::fn_names(text.insert(read_text()))),
            };
            let defines_called =
                called.is_some_and(|c| defined.iter().any(|n| c.contains(n.as_str())));
            if !defines_called {
                return (names, None);
            }
        }
        let text = text.unwrap_or_else(read_text);
        if check && !toward.is_none_or(|t| t.any_in(&text)) {
            return (names, None);
        }
        (
            names,
            Some(crate::callgraph::nodes_from_text_in(&text, &|c| {
                crates.contains(c)
            })),
        )
    });
    let mut out = Vec::new();
    for (&(f, _), r) in batch.iter().zip(read) {
        let Some((names, nodes)) = r else { continue };
        if let Some(names) = names {
            fn_names.insert(f.clone(), names);
        }
        if let Some(nodes) = nodes {
            out.push((f.clone(), nodes));
        }
    }
    out
}

/// What `sigterm-missing` read, once per run, of the files the byte scan skipped or the
/// pruner blanked.
struct UnreadFiles {
    /// The functions read from each file's text (`None`: it does not lex).
    text_fns: HashMap<PathBuf, Option<Vec<crate::model::FnNode>>>,
    /// The files looked at before their functions were read: the names of the functions
    /// each defines (`fn name`). Not their texts: on a large workspace those of the files
    /// looked at and never needed added 50 MB to the peak (rustfs).
    fn_names: HashMap<PathBuf, BTreeSet<String>>,
    /// Where the files name the types whose methods handle a signal.
    made: MadeTypes,
    /// The names a path can start with to name a crate ([`crate_names`]): a call read
    /// from a text through a path that starts with one (`server::serve(..)`) is that
    /// crate's ([`crate::callgraph::nodes_from_text_in`]).
    crates: foldhash::HashSet<String>,
}

/// The names a path of the run's code can start with to name a crate: its packages' own
/// (`-` as `_`), their dependencies' as the code names them, and `std`, `core`, `alloc`.
/// A call read from a text through a path that starts with another name is one of a
/// module of the caller's crate (`http::serve_http(..)`); one through `axum::serve(..)`
/// names a crate outside the run, so a walk by path does not take it for the caller's
/// own `serve`.
fn crate_names(jobs: &[Job]) -> foldhash::HashSet<String> {
    let mut names: foldhash::HashSet<String> = ["std", "core", "alloc"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut seen: foldhash::HashSet<*const Package> = foldhash::HashSet::default();
    for pkg in jobs.iter().filter_map(|j| j.pkg.as_ref()) {
        if !seen.insert(Arc::as_ptr(pkg)) {
            continue;
        }
        names.insert(pkg.crate_name.clone());
        names.extend(pkg.deps.iter().map(|(name, _, _)| name.replace('-', "_")));
    }
    names
}

/// A set of files by their paths' bytes.
type PathSet = foldhash::HashSet<OsString>;

/// One binary's files, as the verdict tells them apart.
#[derive(Clone, Copy)]
struct BinParts<'a> {
    /// The crate root holding `main`.
    root: &'a Path,
    /// The binary's own modules.
    own_files: &'a PathSet,
    /// Its package's library's modules.
    lib_files: &'a PathSet,
    /// The modules of its path dependencies' libraries in the run.
    dep_files: &'a PathSet,
}

/// Which signal sites a round of reading looks for ([`sites_reached_through`]).
struct Wanted<'a> {
    /// Every handler, not only SIGTERM's (the audit's signal table, or a binary that
    /// handles nothing so far: any handler clears its servers).
    every_handler: bool,
    /// Servers (a binary that handles nothing, with servers of its own not reached yet).
    servers: bool,
    /// The types whose methods' handlers `main` reaches but nothing reached makes
    /// ([`sigterm_missing::Verdict::unmade`]): their handlers are not looked for...
    unmade: &'a BTreeSet<String>,
    /// ... but the functions that make one are (their names).
    makers: &'a BTreeSet<&'a str>,
}

/// The names of the functions holding the signal sites that matter (every Ctrl-C site;
/// SIGTERM handlers, or every handler; servers; the functions that make a value of a type
/// whose handler is reached: [`Wanted`]) and of every function known to call one of them,
/// transitively: a call toward a site names one of these. `None` when a site lies outside
/// any function (nothing narrows the search then).
fn sites_reached_through(
    files: &[sigterm_missing::BinFile<'_>],
    wanted: &Wanted<'_>,
) -> Option<crate::lexscan::WholeWords> {
    let Wanted {
        every_handler,
        servers,
        unmade,
        makers,
    } = *wanted;
    let mut names: BTreeSet<String> = makers.iter().map(|m| m.to_string()).collect();
    for f in files {
        // a handler the verdict put down to an unmade type, as it judged it
        let of_unmade = |item: &str| {
            sigterm_missing::method_type(f.fns, item).is_some_and(|ty| unmade.contains(ty))
        };
        let items = f
            .signals
            .ctrl_c
            .iter()
            .map(|c| c.item.as_str())
            .chain(
                f.signals
                    .handled
                    .iter()
                    .filter(|(_, sigs)| every_handler || sigs.contains(&"SIGTERM"))
                    .map(|(item, _)| item.as_str())
                    .filter(|item| !of_unmade(item)),
            )
            .chain(
                f.signals
                    .servers
                    .iter()
                    .filter(|_| servers)
                    .map(|s| s.item.as_str()),
            );
        for item in items {
            let last = crate::callgraph::last_segment(item);
            if last.is_empty() {
                return None;
            }
            names.insert(last.to_string());
        }
    }
    // callers by callee name, then one walk from the sites' names up
    let mut callers: HashMap<&str, Vec<&str>> = HashMap::new();
    for f in files {
        for n in f.fns {
            let last = crate::callgraph::last_segment(&n.item);
            for c in &n.calls {
                callers.entry(c.name).or_default().push(last);
            }
        }
    }
    let mut stack: Vec<String> = names.iter().cloned().collect();
    while let Some(name) = stack.pop() {
        for &caller in callers.get(name.as_str()).into_iter().flatten() {
            if names.insert(caller.to_string()) {
                stack.push(caller.to_string());
            }
        }
    }
    Some(crate::lexscan::WholeWords::new(names))
}

/// The files of one binary as the `sigterm-missing` verdict reads them: a file the byte
/// scan skipped or pruned gives the functions read from its text, once they are.
fn bin_files<'a>(
    loaded: &'a [(PathBuf, String, &'a BinSource)],
    text_fns: &'a HashMap<PathBuf, Option<Vec<crate::model::FnNode>>>,
    bin: &BinParts<'_>,
) -> Vec<sigterm_missing::BinFile<'a>> {
    loaded
        .iter()
        .map(|(f, krate, a)| sigterm_missing::BinFile {
            krate,
            signals: &a.signals,
            fns: match text_fns.get(f) {
                Some(Some(nodes)) if a.skipped_by_scan || a.pruned => nodes,
                _ => &a.fns,
            },
            root: f == bin.root,
            own: bin.own_files.contains(f.as_os_str()),
            package_lib: bin.lib_files.contains(f.as_os_str()),
            dep_lib: bin.dep_files.contains(f.as_os_str()),
        })
        .collect()
}

/// Judges every binary whose root is linted: its facts (for the audit) and the
/// `sigterm-missing` findings, each with the index in `jobs` of the file it is in. Files
/// outside the run that a binary links are read on demand, once per run.
pub(super) fn sigterm_across_binaries(
    jobs: &[Job],
    sources: &[BinSource],
    configs: &[Config],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
    all_dependency_signals: bool,
) -> (Vec<BinaryFacts>, Vec<(usize, Finding)>) {
    let mut facts = Vec::new();
    // the findings, by the index of the file in `jobs`
    let mut found: Vec<(usize, Finding)> = Vec::new();
    let by_path: HashMap<&Path, usize> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| (j.abs.as_path(), i))
        .collect();
    // files outside the job set, read on demand (once per run) for their signals and mod
    // decls (`None`: unreadable)
    let mut extra: HashMap<PathBuf, Option<BinSource>> = HashMap::new();
    let mut bins: Vec<(String, PathBuf, Option<Arc<Package>>, usize)> = Vec::new();
    let mut seen_roots = BTreeSet::new();
    for j in jobs {
        if let Some(pkg) = &j.pkg {
            for (name, root) in &pkg.bins {
                if seen_roots.insert(root.clone()) {
                    bins.push((name.clone(), root.clone(), Some(pkg.clone()), j.cfg));
                }
            }
        }
    }
    for (i, j) in jobs.iter().enumerate() {
        let is_lib = j
            .pkg
            .as_ref()
            .is_some_and(|p| p.lib.as_deref() == Some(&j.abs));
        if sources[i].has_main && !is_lib && seen_roots.insert(j.abs.clone()) {
            let name = j
                .abs
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            bins.push((name, j.abs.clone(), j.pkg.clone(), j.cfg));
        }
    }
    let mut reported = BTreeSet::new();
    // functions of files the byte scan skipped, read once per run (call chains need them)
    let mut unread = UnreadFiles {
        text_fns: HashMap::new(),
        fn_names: HashMap::new(),
        made: MadeTypes::new(sources),
        crates: crate_names(jobs),
    };
    // the module tree below each crate root walked so far
    let mut closures: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    // the package of each dependency's library, looked up once (every binary of a
    // workspace links the same ones; each lookup `stat`s the directories up to a manifest)
    let mut packages: HashMap<PathBuf, Option<Arc<Package>>> = HashMap::new();
    let mut package_of = |lib: &Path| {
        packages
            .entry(lib.to_path_buf())
            .or_insert_with(|| Package::find(lib).map(Arc::new))
            .clone()
    };
    for (name, root, pkg, cfg) in bins {
        let root = crate::paths::normalize(&root);
        if !by_path.contains_key(root.as_path()) {
            continue; // only binaries whose root is being linted
        }
        // the module declarations of a file, analysing it first when it is not linted
        let decls_of = |p: &Path,
                        extra: &mut HashMap<PathBuf, Option<BinSource>>|
         -> Option<Vec<crate::model::ModDecl>> {
            if let Some(&i) = by_path.get(p) {
                return Some(sources[i].mod_decls.clone());
            }
            if let Some(a) = extra.get(p) {
                return a.as_ref().map(|a| a.mod_decls.clone());
            }
            let read = std::fs::read_to_string(p).ok().map(|text| {
                if crate::resolve::known::SIGNAL_WORDS
                    .iter()
                    .any(|w| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some())
                {
                    let job = Job {
                        abs: p.to_path_buf(),
                        display: p.to_path_buf(),
                        cfg,
                        pkg: pkg.clone(),
                        under: crate::testcode::CodeKind::Normal,
                    };
                    let ctx = FileContext {
                        is_test_file: false,
                        is_example_file: false,
                        ..file_context(&job)
                    };
                    BinSource::from(analyzer_of(&job).analyze(p, &text, &ctx))
                } else {
                    // outside the linted paths the verdict needs a file's signals, its
                    // calls and its modules: one naming no signal word has no signal, its
                    // calls are read with the skipped files' when they matter, and its
                    // modules come from its text (not analysing it: a path dependency's
                    // generated API is hundreds of files)
                    BinSource {
                        skipped_by_scan: true,
                        mod_decls: crate::lexscan::mod_decls(&text),
                        ..BinSource::default()
                    }
                }
            });
            let decls = read.as_ref().map(|a| a.mod_decls.clone());
            extra.insert(p.to_path_buf(), read);
            decls
        };
        // the files below `start`, as files of crate `krate` (a library's, once per run:
        // every binary of a workspace links the same ones)
        let closure = |start: &Path,
                       krate: &str,
                       files: &mut Vec<(PathBuf, String)>,
                       extra: &mut HashMap<PathBuf, Option<BinSource>>,
                       closures: &mut HashMap<PathBuf, Vec<PathBuf>>| {
            let found = closures.entry(start.to_path_buf()).or_insert_with(|| {
                module_closure(start, &mut |p| decls_of(p, extra), &|p| {
                    by_path.contains_key(p)
                })
            });
            files.extend(found.iter().map(|f| (f.clone(), krate.to_string())));
        };
        let own = pkg
            .as_ref()
            .map(|p| p.crate_name.clone())
            .unwrap_or_default();
        let mut files: Vec<(PathBuf, String)> = Vec::new();
        closure(&root, &own, &mut files, &mut extra, &mut closures);
        // the binary's own modules (`BinFile::own`)
        // (by the paths' bytes: the verdict asks of every file, every round, and comparing
        // or hashing a `Path` walks its components)
        let own_files: PathSet = files
            .iter()
            .map(|(f, _)| f.as_os_str().to_owned())
            .collect();
        if let Some(lib) = pkg.as_ref().and_then(|p| p.lib.clone()) {
            closure(&lib, &own, &mut files, &mut extra, &mut closures);
        }
        // its package's library (`BinFile::package_lib`)
        let lib_files: PathSet = files
            .iter()
            .map(|(f, _)| f.as_os_str())
            .filter(|f| !own_files.contains(*f))
            .map(OsStr::to_owned)
            .collect();
        // libraries of path dependencies are linked in too: a `shutdown` crate of the
        // workspace may install the SIGTERM handler (credited when `main` calls into it).
        // Those outside the linted paths are read only when they could decide something:
        // a SIGTERM handler for Ctrl-C sites that would be reported, or the whole signal
        // table when it is asked for (`LintOptions::all_dependency_signals`)
        let mut deferred: Vec<(PathBuf, String)> = Vec::new();
        // cargo unifies features: `ctrlc` built with `termination` for any package linked
        // into the binary (the path dependency whose handler it runs: spin's trigger
        // crate) handles SIGTERM for all of them
        let mut termination = pkg.as_ref().is_some_and(|p| p.ctrlc_termination);
        for lib in pkg
            .as_ref()
            .map(|p| p.dependency_libs())
            .unwrap_or_default()
        {
            let dep = package_of(&lib);
            termination |= dep.as_ref().is_some_and(|d| d.ctrlc_termination);
            let krate = dep.map(|p| p.crate_name.clone()).unwrap_or_default();
            if by_path.contains_key(crate::paths::normalize(&lib).as_path()) {
                closure(&lib, &krate, &mut files, &mut extra, &mut closures);
            } else {
                deferred.push((lib, krate));
            }
        }
        // the path dependencies' libraries in the run (`BinFile::dep_lib`)
        let dep_files: PathSet = files
            .iter()
            .map(|(f, _)| f.as_os_str())
            .filter(|f| !own_files.contains(*f) && !lib_files.contains(*f))
            .map(OsStr::to_owned)
            .collect();
        let (verdict, paths) = loop {
            let mut seen_files = BTreeSet::new();
            let loaded: Vec<(PathBuf, String, &BinSource)> = files
                .iter()
                .filter(|(f, _)| seen_files.insert(f.clone()))
                .filter_map(|(f, krate)| {
                    let a = match by_path.get(f.as_path()) {
                        Some(&i) => Some(&sources[i]),
                        None => extra.get(f).and_then(Option::as_ref),
                    };
                    a.map(|a| (f.clone(), krate.clone(), a))
                })
                .collect();
            let verdict = verdict_reading_calls(
                &loaded,
                &mut unread,
                &|f: &Path, offset: usize| {
                    by_path.contains_key(f) && !reported.contains(&(f.to_path_buf(), offset))
                },
                &BinParts {
                    root: &root,
                    own_files: &own_files,
                    lib_files: &lib_files,
                    dep_files: &dep_files,
                },
                termination,
                all_dependency_signals,
            );
            let paths: Vec<PathBuf> = loaded.into_iter().map(|(f, _, _)| f).collect();
            // a dependency's handler could clear a finding: Ctrl-C sites, or servers
            // reached with nothing handled
            let for_ctrl_c = all_dependency_signals
                || (!verdict.handles_sigterm() && !verdict.ctrl_c.is_empty());
            let for_servers = verdict.handles_no_stop_signal() && !verdict.servers.is_empty();
            if deferred.is_empty() || !(for_ctrl_c || for_servers) {
                break (verdict, paths);
            }
            for (lib, krate) in std::mem::take(&mut deferred) {
                // for the servers alone, only a dependency whose manifests let it install a
                // handler is worth its walk (svix-bridge's out-of-tree SDK: 290 files)
                if !for_ctrl_c && package_of(&lib).is_some_and(|p| !p.signals_possible()) {
                    continue;
                }
                closure(&lib, &krate, &mut files, &mut extra, &mut closures);
            }
        };
        facts.push(BinaryFacts {
            name: name.clone(),
            root: root.clone(),
            package_dir: pkg.as_ref().map(|p| p.dir.clone()),
            handled: verdict.handled.clone(),
        });
        if verdict.handles_sigterm() {
            continue;
        }
        let mut sites: Vec<(usize, Region, String, String, &str)> = verdict
            .ctrl_c
            .iter()
            .map(|(fi, site)| {
                let message = sigterm_missing::message(site, &name);
                (
                    *fi,
                    site.region,
                    site.item.clone(),
                    message,
                    sigterm_missing::HELP,
                )
            })
            .collect();
        // the first server reached that no earlier binary was reported at (the binaries of
        // a workspace share their libraries' servers)
        if verdict.handles_no_stop_signal()
            && let Some((fi, site)) = verdict
                .servers
                .iter()
                .find(|(fi, site)| !reported.contains(&(paths[*fi].clone(), site.region.offset)))
        {
            let message = sigterm_missing::no_signal_message(site, &name, &verdict.handled);
            sites.push((
                *fi,
                site.region,
                site.item.clone(),
                message,
                sigterm_missing::NO_SIGNAL_HELP,
            ));
        }
        for (fi, region, item, message, help) in sites {
            let f = paths[fi].clone();
            let Some(&i) = by_path.get(f.as_path()) else {
                continue;
            };
            if !reported.insert((f.clone(), region.offset)) {
                continue;
            }
            let config = &configs[jobs[i].cfg];
            let sev = config.severity(&sigterm_missing::META);
            if sev == Severity::Allow {
                continue;
            }
            found.push((
                i,
                Finding {
                    rule: sigterm_missing::META.name.to_string(),
                    severity: sev,
                    path: jobs[i].display.clone(),
                    region,
                    message,
                    help: Some(help.to_string()),
                    item,
                    suppressed: None,
                },
            ));
        }
    }
    // the functions read from text are many small allocations (18 ms of rustfs's run to
    // free, with the other core idle): freed beside the rest of the run
    crate::pool::drop_detached((unread, extra));
    (facts, found)
}
