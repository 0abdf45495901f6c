//! The driver: expands paths into files, finds each file's configuration and package,
//! analyses files in parallel on all cores ([`crate::analysis`]), combines the files of
//! each binary for `sigterm-missing`, applies suppressions and returns a [`LintReport`].
//! Nothing here prints.

// Config errors carry the TOML text for labelled reports; they happen once per run, so
// their size does not matter.
#![allow(clippy::result_large_err)]

mod binaries;
mod client_pass;
mod field_writes;
mod ignored_targets;
mod made_types;

/// Per-file counts for the audit (defined in [`crate::analysis`]).
pub use crate::analysis::FileFacts;
use crate::analysis::{Analyzer, FileAnalysis, FileContext, parse_error};
use crate::config::{Config, ConfigError};
use crate::finding::{Finding, Region, Severity};
use crate::package::Package;
use crate::prepare::Preparer;
use crate::source::LineIndex;
/// A suppression comment (defined in [`crate::suppress`]).
pub use crate::suppress::SuppressionFact;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How to run.
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// Override the config's `include-tests`.
    pub include_tests: Option<bool>,
    /// Override the config's `include-examples`.
    pub include_examples: Option<bool>,
    /// Ignore suppression comments.
    pub no_suppressions: bool,
    /// Worker threads (default: all cores).
    pub threads: Option<usize>,
    /// Use this config file instead of discovering one per path.
    pub config: Option<PathBuf>,
    /// Directory paths are shown relative to (default: the current directory).
    pub cwd: Option<PathBuf>,
    /// Read the libraries of path dependencies outside the linted paths for every binary's
    /// signal table ([`LintReport::binaries`]), not only when they could decide a
    /// `sigterm-missing` finding (the audit's `stopsignal-unhandled` reads every signal).
    pub all_dependency_signals: bool,
    /// Where registry dependencies' sources are read for their re-exports (default:
    /// `$CARGO_HOME`, else `~/.cargo`); never the network.
    pub cargo_home: Option<PathBuf>,
}

/// Why the linter could not run (exit status 2).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum LintError {
    /// A path given on the command line does not exist.
    #[error("path `{0}` does not exist")]
    #[diagnostic(
        code(shutdown_lint::missing_path),
        help("check the spelling; paths are relative to the current directory")
    )]
    MissingPath(PathBuf),
    /// The configuration is invalid.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Config(#[from] ConfigError),
    /// Something else of the environment (no current directory).
    #[error("{0}")]
    #[diagnostic(code(shutdown_lint::io))]
    Io(String),
}

/// Counters for `--stats`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Rust files found.
    pub files_seen: usize,
    /// Skipped by the byte scan (no rule could match).
    pub files_skipped_by_scan: usize,
    /// Skipped as test code (`tests/`, `benches/`).
    pub files_skipped_as_tests: usize,
    /// Excluded by `exclude` globs.
    pub files_excluded: usize,
    /// Parsed.
    pub files_parsed: usize,
    /// Unreadable or unparsable.
    pub parse_errors: usize,
    /// Top-level items of crates that enable nightly features (`#![feature(..)]`) that did
    /// not parse, as `path:line`: read around, and not reported as `parse-error`
    /// ([`crate::item_recovery`]).
    pub nightly_items_unread: Vec<String>,
    /// Macro bodies parsed and analysed.
    pub macros_analysed: usize,
    /// Macro bodies that are not Rust and were not analysed.
    pub macros_unanalysed: usize,
    /// The same, by macro name.
    pub unanalysed_by_name: BTreeMap<String, usize>,
    /// Expressions nested deeper than the walk's bound (skipped).
    pub exprs_too_deep: usize,
    /// Test items (`#[cfg(test)]`, `#[test]`) skipped.
    pub test_items_skipped: usize,
    /// Bytes read.
    pub bytes: usize,
    /// Linted files read a second time for declarations their first parse hid, because a
    /// chain of another file may need them (the workspace model).
    pub files_read_for_declarations: usize,
    /// Wall time.
    #[serde(skip)]
    pub elapsed: Duration,
    /// Wall time of each phase, in order (`configs and walk`, `analysis`, then each
    /// phase across files), for finding what makes a run slow.
    #[serde(skip)]
    pub phases: Vec<(&'static str, Duration)>,
}

/// What one binary handles, counting only the handlers its `main` reaches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BinaryFacts {
    /// Target name.
    pub name: String,
    /// Root file (absolute).
    pub root: PathBuf,
    /// Directory of its package, when known.
    pub package_dir: Option<PathBuf>,
    /// Signals handled (`SIGTERM`, `SIGINT`, `SIGQUIT`, ..).
    pub handled: BTreeSet<String>,
}

/// The result of a run.
#[derive(Debug, Clone, Default)]
pub struct LintReport {
    /// Sorted by path, line, column; suppressed findings included (`suppressed` set).
    pub findings: Vec<Finding>,
    /// One per linted file.
    pub files: Vec<FileFacts>,
    /// One per binary whose root was linted (for the audit).
    pub binaries: Vec<BinaryFacts>,
    /// Counters.
    pub stats: Stats,
}

impl LintReport {
    /// Findings not covered by a suppression.
    pub fn active(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.suppressed.is_none() && f.severity != Severity::Allow)
    }

    /// Exit status: 1 with an unsuppressed deny-level finding, else 0.
    ///
    /// # Examples
    /// ```
    /// assert_eq!(shutdown_lint::engine::LintReport::default().exit_code(), 0);
    /// ```
    pub fn exit_code(&self) -> i32 {
        i32::from(self.active().any(|f| f.severity == Severity::Deny))
    }
}

struct Job {
    abs: PathBuf,
    display: PathBuf,
    cfg: usize,
    pkg: Option<Arc<Package>>,
    /// What its location below the path it was found from says it is (a `tests/` or
    /// `examples/` directory).
    under: crate::testcode::CodeKind,
}

/// What `file`'s location below `root` says it is.
fn kind_below(file: &Path, root: &Path) -> crate::testcode::CodeKind {
    crate::testcode::classify(file.strip_prefix(root).unwrap_or(Path::new("")))
}

/// Shows `p` relative to `cwd` when under it.
fn display_path(abs: &Path, cwd: &Path) -> PathBuf {
    match abs.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
        _ => abs.to_path_buf(),
    }
}

fn is_build_dir(e: &ignore::DirEntry) -> bool {
    e.file_type().is_some_and(|t| t.is_dir()) && e.path().join("CACHEDIR.TAG").is_file()
}

/// Whether the walk meets a file or directory whose name has a `{{placeholder}}` below the
/// linted path: a project template's (blockscout's `service-template/{{project-name}}-server/`).
/// Its sources are Liquid templates cargo never builds (`{% if database -%}`,
/// `impl {{ProtoExName}} for ..`): not Rust yet, so not linted, as `target/` is not; so is
/// everything under a directory holding `cargo-generate.toml` ([`walk_rust_files`]). A path
/// given to the linter is always read.
fn is_template_placeholder(e: &ignore::DirEntry) -> bool {
    e.depth() > 0 && e.file_name().to_str().is_some_and(|n| n.contains("{{"))
}

/// Lints `paths` (files or directories; directories are walked honouring `.gitignore`).
///
/// # Examples
/// ```
/// use shutdown_lint::engine::{lint_paths, LintOptions};
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.rs"), "fn f() { tokio::spawn(async {}); }\n").unwrap();
/// let report = lint_paths(&[dir.path().to_path_buf()], &LintOptions::default()).unwrap();
/// assert_eq!(report.findings[0].rule, "raw-spawn");
/// assert_eq!(report.exit_code(), 1);
/// ```
pub fn lint_paths(paths: &[PathBuf], opts: &LintOptions) -> Result<LintReport, LintError> {
    let start = Instant::now();
    crate::package::clear_manifest_cache();
    crate::workspace::reexports::clear_cache();
    let cwd = match &opts.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir()
            .map_err(|e| LintError::Io(format!("no current directory: {e}")))?,
    };
    let default_paths = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &default_paths[..]
    } else {
        paths
    };
    // phase 1: configs; then the files and packages, while a second thread prepares the
    // analyzer of each package the walk finds
    let Setup {
        configs,
        roots,
        excludes,
    } = configure(paths, opts, &cwd)?;
    let home = opts
        .cargo_home
        .clone()
        .or_else(crate::workspace::reexports::cargo_home);
    let preparer = Preparer::new(&configs, home.as_deref());
    let (discovery, analyzers) = preparer.beside(opts.threads != Some(1), |prep| {
        walk(&configs, &roots, &excludes, &cwd, prep)
    });
    let Discovery {
        jobs,
        walk_errors,
        mut stats,
    } = discovery?;
    let mut clock = PhaseClock::new(start);
    clock.lap("configs and walk");
    // phase 2: one parse per file, in parallel: findings, facts, declarations
    let analyzer_of = |j: &Job| analyzers[&(j.cfg, j.pkg.as_ref().map(|p| p.dir.clone()))].clone();
    let mut analyses = analyze_all(&jobs, &configs, &analyzer_of, opts.threads, &mut stats);
    clock.lap("analysis of each file");
    // phase 3: across files. `sigterm-missing` reads only each file's signal sites,
    // functions and modules: taken out of the analyses, they let it judge the binaries on a
    // thread of its own beside the workspace model and the other cross-file phases
    let test_modules = test_module_files(&jobs, &analyses, &configs);
    // the Ctrl-C handlers and servers of a module declared for Windows only are Windows's
    for i in windows_module_files(&jobs, &analyses) {
        analyses[i].signals.ctrl_c.clear();
        analyses[i].signals.servers.clear();
    }
    let sources: Vec<binaries::BinSource> = analyses
        .iter_mut()
        .enumerate()
        .map(|(i, a)| {
            if test_modules.contains(&i) {
                binaries::BinSource::test_module(a)
            } else {
                binaries::BinSource::take(a)
            }
        })
        .collect();
    let mut cross: Vec<Vec<Finding>> = vec![Vec::new(); jobs.len()];
    let mut read_for_declarations = 0;
    let (binaries, bin_findings) = std::thread::scope(|s| {
        let judge = || {
            binaries::sigterm_across_binaries(
                &jobs,
                &sources,
                &configs,
                &analyzer_of,
                opts.all_dependency_signals,
            )
        };
        // (it may analyse files outside the run: a parser's stack; when no thread starts,
        // it runs after the other phases)
        let beside = (opts.threads != Some(1))
            .then(|| crate::pool::spawn_on_large_stack(s, judge))
            .flatten();
        let (ws, reread) = workspace_model(&jobs, &mut analyses, &analyzer_of);
        read_for_declarations = reread;
        clock.lap("workspace model");
        workspace_phase(
            &jobs,
            &mut analyses,
            &configs,
            &ws,
            &test_modules,
            &sources,
            &mut cross,
        );
        thread_fns_phase(&jobs, &mut analyses, &configs, &analyzer_of, &mut cross);
        for (a, j) in analyses.iter_mut().zip(&jobs) {
            a.keep_judged_opens(&configs[j.cfg]);
        }
        clock.lap("workspace rules");
        param_args_phase(&jobs, &mut analyses, &analyzer_of);
        clock.lap("argument values");
        const_values_phase(&jobs, &mut analyses, &analyzer_of);
        clock.lap("constant values");
        field_writes::nested_owners_phase(&jobs, &mut analyses);
        field_writes::field_writes_phase(&jobs, &mut analyses, &configs, &analyzer_of, &mut cross);
        clock.lap("field writes");
        client_pass::client_pass_phase(&jobs, &mut analyses);
        clock.lap("clients passed on");
        let judged = match beside {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => judge(),
        };
        // what the binaries took beyond the phases beside them
        clock.lap("binaries and signals");
        judged
    });
    for (i, f) in bin_findings {
        cross[i].push(f);
    }
    // phase 4: suppressions, counts, order
    let mut report = finish(analyses, cross, opts, &mut stats);
    stats.files_read_for_declarations = read_for_declarations;
    clock.lap("suppressions and order");
    stats.phases = clock.laps;
    report.binaries = binaries;
    for (path, cfg, msg) in walk_errors {
        stats.parse_errors += 1;
        report.findings.push(parse_error(
            &configs[cfg],
            &display_path(&path, &cwd),
            Region::default_start(),
            msg,
        ));
    }
    report.findings.retain(|f| f.severity != Severity::Allow);
    report.findings.sort_by(|a, b| {
        (&a.path, a.region.line, a.region.column, &a.rule).cmp(&(
            &b.path,
            b.region.line,
            b.region.column,
            &b.rule,
        ))
    });
    stats.elapsed = start.elapsed();
    report.stats = stats;
    Ok(report)
}

/// The wall time of each phase of a run, for `--stats`.
struct PhaseClock {
    last: Instant,
    laps: Vec<(&'static str, Duration)>,
}

impl PhaseClock {
    fn new(start: Instant) -> Self {
        PhaseClock {
            last: start,
            laps: Vec::new(),
        }
    }

    /// Ends the phase called `name`.
    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.laps.push((name, now - self.last));
        self.last = now;
    }
}

/// The configs in force and the paths to walk under each.
struct Setup {
    configs: Vec<Config>,
    /// Each path (absolute) and the index of its config.
    roots: Vec<(PathBuf, usize)>,
    /// Each config's `exclude` globs.
    excludes: Vec<globset::GlobSet>,
}

/// What [`walk`] finds: one job per file, walk errors.
struct Discovery {
    jobs: Vec<Job>,
    walk_errors: Vec<(PathBuf, usize, String)>,
    stats: Stats,
}

/// Phase 1a: the config of each path.
fn configure(paths: &[PathBuf], opts: &LintOptions, cwd: &Path) -> Result<Setup, LintError> {
    // configs, one per path (or the explicit one)
    let explicit = match &opts.config {
        Some(p) => {
            let abs = cwd.join(p);
            if std::fs::symlink_metadata(&abs).is_err() {
                return Err(LintError::MissingPath(p.clone()));
            }
            Some(Config::from_file(&abs)?)
        }
        None => None,
    };
    let mut configs: Vec<Config> = Vec::new();
    let mut cfg_index: HashMap<Option<PathBuf>, usize> = HashMap::new();
    let mut roots = Vec::new();
    for p in paths {
        let abs = crate::paths::normalize(&cwd.join(p));
        if std::fs::symlink_metadata(&abs).is_err() {
            return Err(LintError::MissingPath(p.clone()));
        }
        let mut cfg = match &explicit {
            Some(c) => c.clone(),
            None => Config::discover(&abs)?,
        };
        if let Some(t) = opts.include_tests {
            cfg.include_tests = t;
        }
        if let Some(t) = opts.include_examples {
            cfg.include_examples = t;
        }
        let key = cfg.source.clone();
        let idx = *cfg_index.entry(key).or_insert_with(|| {
            configs.push(cfg);
            configs.len() - 1
        });
        roots.push((abs, idx));
    }
    let excludes: Vec<globset::GlobSet> = configs
        .iter()
        .map(|c| {
            if c.exclude.is_empty() {
                // building even an empty set compiles a matcher: a tenth of a small run
                return globset::GlobSet::empty();
            }
            let mut b = globset::GlobSetBuilder::new();
            for g in &c.exclude {
                if let Ok(g) = globset::Glob::new(g) {
                    b.add(g);
                }
            }
            b.build().unwrap_or_else(|_| globset::GlobSet::empty())
        })
        .collect();
    Ok(Setup {
        configs,
        roots,
        excludes,
    })
}

/// Phase 1b: the files under each path (`.gitignore` honoured, `exclude` applied) and the
/// package of each file. Every manifest seen, and the package of every file, is offered to
/// `prep` as soon as it is known.
fn walk(
    configs: &[Config],
    roots: &[(PathBuf, usize)],
    excludes: &[globset::GlobSet],
    cwd: &Path,
    prep: &Preparer<'_>,
) -> Result<Discovery, LintError> {
    let mut stats = Stats::default();
    let mut walk_errors: Vec<(PathBuf, usize, String)> = Vec::new();
    let mut files: BTreeMap<PathBuf, (usize, crate::testcode::CodeKind)> = BTreeMap::new();
    for (root, cfg) in roots {
        // the package the path itself lies in (its manifest may be above the path, where
        // the walk does not go): first, so a one-package tree's analyzer starts at once
        if let Some(dir) = root.ancestors().find(|d| d.join("Cargo.toml").is_file()) {
            prep.offer_dir(*cfg, dir);
        }
        let excluded = |p: &Path| -> bool {
            let base = configs[*cfg].root_dir().map(Path::to_path_buf);
            base.and_then(|b| p.strip_prefix(&b).ok().map(|r| excludes[*cfg].is_match(r)))
                .unwrap_or(false)
        };
        let meta =
            std::fs::symlink_metadata(root).map_err(|_| LintError::MissingPath(root.clone()))?;
        if !meta.is_dir() && !root.is_dir() {
            files
                .entry(root.clone())
                .or_insert((*cfg, crate::testcode::CodeKind::Normal));
            continue;
        }
        let manifests = std::sync::Mutex::new(Vec::new());
        let walked = walk_rust_files(root, |dir| {
            prep.offer_dir(*cfg, dir);
            let mut m = manifests.lock().unwrap_or_else(|e| e.into_inner());
            m.push(dir.to_path_buf());
        });
        let mut add = |p: PathBuf| {
            if excluded(&p) {
                stats.files_excluded += 1;
            } else {
                let kind = kind_below(&p, root);
                files.entry(p).or_insert((*cfg, kind));
            }
        };
        let mut here: HashSet<PathBuf> = HashSet::new();
        for entry in walked {
            match entry {
                Ok(p) => {
                    here.insert(p.clone());
                    add(p);
                }
                Err(err) => {
                    let path = walk_error_path(&err).unwrap_or_else(|| root.clone());
                    walk_errors.push((path, *cfg, format!("cannot read: {err}")));
                }
            }
        }
        // what cargo builds, also where a `.gitignore` pattern matched it
        let manifests = manifests.into_inner().unwrap_or_else(|e| e.into_inner());
        for p in ignored_targets::ignored_targets(&manifests, root, &|p| here.contains(p)) {
            add(p);
        }
    }

    let mut pkg_cache: HashMap<PathBuf, Option<Arc<Package>>> = HashMap::new();
    let pkgs: Vec<Option<Arc<Package>>> = files
        .keys()
        .map(|abs| find_package(abs, &mut pkg_cache))
        .collect();
    let mut jobs: Vec<Job> = Vec::new();
    for ((abs, (cfg, under)), pkg) in files.into_iter().zip(linked_natively(pkgs)) {
        prep.offer_package(cfg, pkg.as_ref());
        jobs.push(Job {
            display: display_path(&abs, cwd),
            abs,
            cfg,
            pkg,
            under,
        });
    }
    stats.files_seen = jobs.len();
    Ok(Discovery {
        jobs,
        walk_errors,
        stats,
    })
}

/// Phase 2: every job analysed on `threads` threads (default: all cores).
fn analyze_all(
    jobs: &[Job],
    configs: &[Config],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
    threads: Option<usize>,
    stats: &mut Stats,
) -> Vec<FileAnalysis> {
    // each file's metadata, read once: its size orders the work, its kind decides
    // whether it is read (`analyze_job`)
    let items: Vec<(&Job, Option<std::fs::Metadata>)> = jobs
        .iter()
        .map(|j| (j, std::fs::metadata(&j.abs).ok()))
        .collect();
    // the largest files first: the last file left running alone on one core is then a
    // small one (screenpipe's 11 ms `main.rs` came last of its 225 files)
    let size = |(_, meta): &(&Job, Option<std::fs::Metadata>)| meta.as_ref().map_or(0, |m| m.len());
    let results = crate::pool::map_largest_first(&items, size, threads, |(job, meta)| {
        analyze_job(job, meta.as_ref(), &analyzer_of(job), &configs[job.cfg])
    });
    let mut analyses: Vec<FileAnalysis> = Vec::with_capacity(jobs.len());
    for (i, r) in results.into_iter().enumerate() {
        let (a, bytes) = r.unwrap_or_else(|| {
            let j = &jobs[i];
            let f = parse_error(
                &configs[j.cfg],
                &j.display,
                Region::default_start(),
                "internal error while analysing this file".into(),
            );
            (FileAnalysis::failed(&j.display, f), 0)
        });
        stats.bytes += bytes;
        analyses.push(a);
    }
    analyses
}

/// The names a chain whose receiver the file could not type asks the workspace model
/// for: a called function, a field, a method.
fn pending_names(analyses: &[FileAnalysis]) -> crate::workspace::NameSet {
    let mut names = crate::workspace::NameSet::default();
    for cu in analyses.iter().flat_map(|a| a.pending.iter()) {
        match &cu.chain.pending {
            Some(crate::model::SymRoot::Call(path) | crate::model::SymRoot::Typed(path)) => {
                names.extend(path.last().cloned())
            }
            Some(
                crate::model::SymRoot::Field { name, .. }
                | crate::model::SymRoot::Method { name, .. },
            ) => {
                names.insert(name.clone());
            }
            None => {}
        }
        names.extend(cu.chain.steps.iter().map(|s| {
            let n = s.name.as_str();
            n.strip_prefix(crate::workspace::FIELD_STEP)
                .unwrap_or(n)
                .to_string()
        }));
    }
    names
}

/// Phase 2b: the workspace model. A file's pruned declarations may hide a field or
/// method a chain asks for (`rt: Rt` names no word a rule reads, yet `self.rt.spawn(..)`
/// needs it): files hiding a name some lookup depends on
/// ([`crate::workspace::WorkspaceModel::needed_names`]) are read again for those
/// declarations only ([`Analyzer::declarations`]), on all cores, and the model rebuilt,
/// until no lookup needs a hidden name (a revealed type leads the chain one step
/// further). Blanked declarations hold no chain of their own (a body naming a word keeps
/// its whole impl), so the pending chains and findings of the first analysis stand.
fn workspace_model(
    jobs: &[Job],
    analyses: &mut [FileAnalysis],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
) -> (crate::workspace::WorkspaceModel, usize) {
    let names = pending_names(analyses);
    let mut reread = 0;
    // what the skipped files may declare (read by the byte-scan pass), for the search of
    // them below; dropped with this function whether or not it gets that far
    let mut skipped_names: Vec<_> = analyses
        .iter_mut()
        .map(|a| a.declared_names.take())
        .collect();
    // the declarations of the linted files (those read later are added to it)
    let build = |analyses: &[FileAnalysis]| {
        crate::workspace::WorkspaceModel::build_for(analyses.iter().map(|a| &a.decls), Some(&names))
    };
    let mut ws = build(analyses);
    let asks = asking_chains(jobs, analyses, &ws, &skipped_names, analyzer_of);
    let mut need = crate::workspace::NameSet::default();
    // what the final model asks for, when the last round asked it
    let mut asked = None;
    // a chain is at most a few steps long: each round reveals at least one more step
    for _ in 0..8 {
        let now = ws.needed_names(asking(analyses, &asks));
        need.extend(now.iter().cloned());
        // a type asked for once is asked for again on the next step (`T::default()`
        // then `.with_x()`): every declaration of it is read at once
        let owners: Vec<String> = need
            .iter()
            .filter_map(|k| k.rsplit_once("::").map(|(o, _)| format!("{o}::")))
            .collect();
        need.extend(owners);
        let redo: Vec<usize> = analyses
            .iter()
            .enumerate()
            .filter(|(_, a)| a.hidden_decls.iter().any(|n| need.contains(n)))
            .map(|(i, _)| i)
            .collect();
        if redo.is_empty() {
            asked = Some(now);
            break;
        }
        reread += redo.len();
        let size = |&i: &usize| std::fs::metadata(&jobs[i].abs).map_or(0, |m| m.len());
        let results = crate::pool::map_largest_first(&redo, size, None, |&i| {
            let job = &jobs[i];
            let text = std::fs::read_to_string(&job.abs).ok()?;
            analyzer_of(job).declarations(&text, &file_context(job), &need)
        });
        for (i, r) in redo.into_iter().zip(results) {
            let a = &mut analyses[i];
            match r.flatten() {
                Some((decls, hidden)) => {
                    a.decls.merge(decls);
                    a.hidden_decls = hidden;
                }
                // read or parsed no longer: what it hides stays hidden
                None => a.hidden_decls.clear(),
            }
        }
        ws = build(analyses);
    }
    // names still asked for: declared, perhaps, by a file the byte scan skipped or by a
    // path dependency outside the linted paths (a crate of the workspace linted alone)
    need = asked.unwrap_or_else(|| ws.needed_names(asking(analyses, &asks)));
    if need.is_empty() {
        return (ws, reread);
    }
    let linted = crate::workspace::path_deps::linted_packages(
        jobs.iter()
            .filter_map(|j| j.pkg.as_ref().map(|p| (p, analyzer_of(j)))),
    );
    let deps = crate::workspace::path_deps::unlinted_deps(&linted);
    let mut sources = crate::workspace::path_deps::DepSources::list(&deps);
    // and the linted files the byte scan skipped: never parsed, so nothing of theirs is
    // known (a struct whose fields name no word: `services: Arc<OnceServices>`)
    sources.add_skipped(
        jobs.iter()
            .zip(analyses.iter())
            .zip(skipped_names.iter_mut())
            .filter(|((_, a), _)| a.skipped_by_scan)
            .map(|((j, _), names)| {
                let source = (j.abs.clone(), file_context(j), analyzer_of(j));
                (source, names.take())
            }),
    );
    if sources.is_empty() {
        return (ws, reread);
    }

    // each round types one more step of a chain (a method of the type the last returned)
    for _ in 0..6 {
        let found = sources.declarations(&need);
        if found.is_empty() {
            break;
        }
        ws.extend_for(found.iter(), Some(&names));
        need = ws.needed_names(asking(analyses, &asks));
        if need.is_empty() {
            break;
        }
    }
    (ws, reread)
}

/// The pending chains [`asking_chains`] marked as asking for declarations.
fn asking<'a>(
    analyses: &'a [FileAnalysis],
    asks: &'a [Vec<bool>],
) -> impl Iterator<Item = &'a crate::model::ChainUse> {
    analyses
        .iter()
        .zip(asks)
        .flat_map(|(a, asks)| a.pending.iter().zip(asks).filter(|(_, ask)| **ask))
        .map(|(cu, _)| cu)
}

/// For each file's pending chains, whether declarations the model does not hold could
/// change what the rules find on it: not when typing the chain's receiver can only make
/// it one of the types the rules read ([`crate::workspace::Probe::typed_as_known`]: no
/// step names a method or field a file declares, visible, hidden or in a file the byte
/// scan skipped) and the rules read none of those typings (`let arr: String =
/// ctx.get(0).unwrap_or_default();` — whatever `get` returns). Such a chain asks for no
/// declaration: the files hiding its root's name are not read again for it.
fn asking_chains(
    jobs: &[Job],
    analyses: &[FileAnalysis],
    ws: &crate::workspace::WorkspaceModel,
    skipped: &[Option<crate::workspace::skipped_index::DeclaredNames>],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
) -> Vec<Vec<bool>> {
    // asked once per step name (the probe remembers): a search of each file's hidden
    // names (sorted) rather than a set of them all
    let declared = |name: &str| {
        ws.declares_member(name)
            || analyses.iter().any(|a| {
                a.hidden_decls
                    .binary_search_by(|h| h.as_str().cmp(name))
                    .is_ok()
            })
            || skipped.iter().flatten().any(|d| d.declares_member(name))
    };
    let mut probe = crate::workspace::Probe::new(ws, &declared);
    jobs.iter()
        .zip(analyses)
        .map(|(job, a)| {
            if a.pending.is_empty() {
                return Vec::new();
            }
            let analyzer = analyzer_of(job);
            a.pending
                .iter()
                .map(|cu| match probe.typed_as_known(cu) {
                    Some(typed) => a.rules_read(typed, analyzer.config()),
                    None => true,
                })
                .collect()
        })
        .collect()
}

/// The files the out-of-line module declarations of `jobs` that `picked` selects declare,
/// with the files below them ([`crate::workspace::test_modules::declared_files`]).
fn files_declared(
    jobs: &[Job],
    analyses: &[FileAnalysis],
    picked: impl Fn(&crate::model::ModDecl) -> bool + Copy,
) -> HashSet<PathBuf> {
    let mut out: HashSet<PathBuf> = HashSet::new();
    for (j, a) in jobs.iter().zip(analyses) {
        if a.mod_decls.iter().any(picked) {
            out.extend(crate::workspace::test_modules::declared_files(
                &j.abs,
                &a.mod_decls,
                picked,
            ));
        }
    }
    out
}

/// The jobs whose files are modules declared for Windows only (`#[cfg(windows)] mod
/// windows;` and the files below it: crosvm's `src/crosvm/sys/windows/broker.rs`, whose
/// `ctrlc::set_handler` is the Windows broker's), as an item under `#[cfg(windows)]` is.
fn windows_module_files(jobs: &[Job], analyses: &[FileAnalysis]) -> Vec<usize> {
    let windows = files_declared(jobs, analyses, |d| d.windows_only);
    if windows.is_empty() {
        return Vec::new();
    }
    jobs.iter()
        .enumerate()
        .filter(|(_, j)| windows.contains(&j.abs))
        .map(|(i, _)| i)
        .collect()
}

/// The files declared `#[cfg(test)] mod x;` out of line, by their index in `jobs`, whose
/// config does not lint tests: test code, whatever their path says; and those declared for
/// WebAssembly only (`#[cfg(target_arch = "wasm32")] mod x;`), never linted.
fn test_module_files(
    jobs: &[Job],
    analyses: &[FileAnalysis],
    configs: &[Config],
) -> HashSet<usize> {
    let declared = files_declared(jobs, analyses, |d| d.cfg_test);
    let wasm = files_declared(jobs, analyses, |d| d.wasm_only);
    jobs.iter()
        .enumerate()
        .filter(|(_, j)| {
            wasm.contains(&j.abs) || (!configs[j.cfg].include_tests && declared.contains(&j.abs))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Phase 3a: the workspace model from every file's declarations; chains whose receiver it
/// types are checked by the per-file rules (their findings join the file's); the files of
/// `test_modules` ([`test_module_files`]) become test code. `sources` holds each file's
/// functions ([`binaries::BinSource::take`]).
fn workspace_phase(
    jobs: &[Job],
    analyses: &mut [FileAnalysis],
    configs: &[Config],
    ws: &crate::workspace::WorkspaceModel,
    test_modules: &HashSet<usize>,
    sources: &[binaries::BinSource],
    cross: &mut [Vec<Finding>],
) {
    // the files with chains the model may type, each analysis behind its own lock so the
    // pool can hand it out
    let mut open: Vec<(usize, std::sync::Mutex<&mut FileAnalysis>)> = Vec::new();
    for (i, a) in analyses.iter_mut().enumerate() {
        if test_modules.contains(&i) {
            let skipped = FileAnalysis {
                path: a.path.clone(),
                facts: crate::analysis::FileFacts {
                    path: a.facts.path.clone(),
                    ..Default::default()
                },
                skipped_as_test: true,
                allowed_rules: std::mem::take(&mut a.allowed_rules),
                suppression_levels: a.suppression_levels,
                ..FileAnalysis::default()
            };
            *a = skipped;
        } else if !a.pending.is_empty() {
            open.push((i, std::sync::Mutex::new(a)));
        }
    }
    // on all cores: a typed chain may read its file again, for the client flow (iroh: two
    // files, 4.5 ms, with the other core idle)
    let found = crate::pool::map_on_large_stacks(&open, None, |(i, a)| {
        let j = &jobs[*i];
        let text = || std::fs::read_to_string(&j.abs).ok();
        let mut a = a.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        a.apply_workspace(ws, &configs[j.cfg], &sources[*i].fns, &text)
    });
    for ((i, _), f) in open.iter().zip(found) {
        cross[*i].extend(f.into_iter().flatten());
    }
}

/// Phase 3a'': threads started by a function of the workspace that is not named as a spawn
/// and returns the thread's `JoinHandle` by value (vsmtp's `init_runtime(..)`, which starts
/// a runtime on a thread of its own; neon's `launch_monitor(..)`), whose callers drop the
/// handle (`let _tasks_delivery = init_runtime(..)?;` never joined). Only when the
/// workspace declares such a function: the files whose text names one (test code skipped)
/// are read again, on all cores, with those names standing for spawns
/// ([`Analyzer::thread_fn_calls`]); the calls whose handle is dropped are typed by the
/// workspace model and judged as the first analysis judges typed chains. (Read on the first
/// analysis, such a call names no word a rule reads: the pruner blanks its statement.)
fn thread_fns_phase(
    jobs: &[Job],
    analyses: &mut [FileAnalysis],
    configs: &[Config],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
    cross: &mut [Vec<Finding>],
) {
    let thread_fns: crate::workspace::NameSet = analyses
        .iter()
        .flat_map(|a| &a.decls.fns)
        .filter(|f| {
            f.ret == ["std", "thread", "JoinHandle"] && !crate::prune::is_spawn_name(&f.name)
        })
        .map(|f| f.name.clone())
        .collect();
    if thread_fns.is_empty() {
        return;
    }
    let needles: Vec<String> = thread_fns.iter().cloned().collect();
    let calls = read_files_naming(jobs, analyses, &needles, |job, text, here| {
        let names = here.iter().map(|&k| needles[k].clone()).collect();
        analyzer_of(job)
            .thread_fn_calls(text, &file_context(job), &names)
            .filter(|c| !c.is_empty())
    });
    if calls.is_empty() {
        return;
    }
    let ws = crate::workspace::WorkspaceModel::build_for(
        analyses.iter().map(|a| &a.decls),
        Some(&thread_fns),
    );
    for (i, chains) in calls {
        let a = &mut analyses[i];
        let first = std::mem::replace(&mut a.pending, chains);
        let found = a.apply_workspace(&ws, &configs[jobs[i].cfg], &[], &|| None);
        a.pending = first;
        for f in found {
            let seen = |g: &Finding| g.rule == f.rule && g.region == f.region;
            if !a.findings.iter().any(seen) && !cross[i].iter().any(seen) {
                cross[i].push(f);
            }
        }
    }
}

/// Reads, on all cores, each file of the run that is not skipped as test code and whose text
/// contains one of `needles`, and gives `read` the file, its text and the positions (in
/// `needles`) of those it contains; returns what `read` gives, by the file's index in `jobs`.
/// What the cross-file phases (parameters, consts, fields of fields) share.
fn read_files_naming<R: Send>(
    jobs: &[Job],
    analyses: &[FileAnalysis],
    needles: &[String],
    read: impl Fn(&Job, &str, &[usize]) -> Option<R> + Sync,
) -> Vec<(usize, R)> {
    let readers: Vec<usize> = (0..jobs.len())
        .filter(|&i| !analyses[i].skipped_as_test)
        .collect();
    let results = crate::pool::map_on_large_stacks(&readers, None, |&i| {
        let text = std::fs::read_to_string(&jobs[i].abs).ok()?;
        let here: Vec<usize> = (0..needles.len())
            .filter(|&k| crate::lexscan::contains_tokens(&text, &needles[k]))
            .collect();
        if here.is_empty() {
            return None;
        }
        read(&jobs[i], &text, &here)
    });
    readers
        .into_iter()
        .zip(results)
        .filter_map(|(i, r)| Some((i, r.flatten()?)))
        .collect()
}

/// Phase 3a: timeouts that read a parameter no call in their own file passes a known value
/// to (`Client::new(.., timeout: u64)` building a client with
/// `.timeout(Duration::from_secs(timeout))`, called from other crates of the workspace).
/// Only when some file has one: the files whose text calls such a function (`Client::new(`,
/// `.name(`, `name(`; test code skipped) are read for what they pass, on all cores: a known
/// duration or number values the argument (the longest), a field of a binding of a known
/// type (`settings.network_timeout` with `settings: &Settings`) opens that field for
/// [`field_writes::field_writes_phase`], and a caller's own parameter passed on is followed to that
/// caller's callers ([`PARAM_HOPS`] times).
fn param_args_phase(
    jobs: &[Job],
    analyses: &mut [FileAnalysis],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
) {
    use crate::model::{FieldKey, OpenField, ParamKey, PassedArg};
    let opened: BTreeSet<ParamKey> = analyses
        .iter()
        .flat_map(|a| &a.open_params)
        .map(|o| o.key.clone())
        .collect();
    if opened.is_empty() {
        return;
    }
    // by parameter: the longest known value, the fields and the parameters callers pass
    let mut values: HashMap<ParamKey, (f64, String)> = HashMap::new();
    let mut fields: HashMap<ParamKey, Vec<(FieldKey, String)>> = HashMap::new();
    let mut forwards: HashMap<ParamKey, Vec<ParamKey>> = HashMap::new();
    let mut asked: BTreeSet<ParamKey> = BTreeSet::new();
    let mut wanted: Vec<ParamKey> = opened.iter().cloned().collect();
    // a caller passing its own parameter on is followed to its callers, a few hops
    for _ in 0..PARAM_HOPS {
        if wanted.is_empty() {
            break;
        }
        asked.extend(wanted.iter().cloned());
        let needles: Vec<String> = wanted.iter().map(ParamKey::needle).collect();
        let results = read_files_naming(jobs, analyses, &needles, |job, text, here| {
            let keys: Vec<ParamKey> = here.iter().map(|&k| wanted[k].clone()).collect();
            let found = analyzer_of(job).param_args(text, &file_context(job), &keys)?;
            Some(
                found
                    .into_iter()
                    .map(|(k, passed, line, how)| (here[k], passed, line, how))
                    .collect::<Vec<_>>(),
            )
        });
        let mut next: BTreeSet<ParamKey> = BTreeSet::new();
        for (i, r) in results {
            for (k, passed, _, how) in r {
                let key = wanted[k].clone();
                let how = format!("{how} of {}", analyses[i].path.display());
                match passed {
                    PassedArg::Seconds(secs) => {
                        let e = values.entry(key).or_insert_with(|| (secs, how.clone()));
                        if secs > e.0 {
                            *e = (secs, how);
                        }
                    }
                    PassedArg::Field(field) => {
                        let f = fields.entry(key).or_default();
                        if !f.iter().any(|(w, _)| *w == field) {
                            f.push((field, how));
                        }
                    }
                    PassedArg::Param(p) => {
                        if !asked.contains(&p) {
                            next.insert(p.clone());
                        }
                        let f = forwards.entry(key).or_default();
                        if !f.contains(&p) {
                            f.push(p);
                        }
                    }
                }
            }
        }
        wanted = next.into_iter().collect();
    }
    // what reaches each opened parameter, through the parameters it is passed on from
    let reach = |k: &ParamKey| {
        let mut seen: BTreeSet<&ParamKey> = BTreeSet::new();
        let mut todo = vec![k];
        let mut best: Option<&(f64, String)> = None;
        let mut found: Vec<&(FieldKey, String)> = Vec::new();
        while let Some(p) = todo.pop() {
            if !seen.insert(p) {
                continue;
            }
            if let Some(v) = values.get(p)
                && best.is_none_or(|b| v.0 > b.0)
            {
                best = Some(v);
            }
            for f in fields.get(p).into_iter().flatten() {
                if !found.iter().any(|g| g.0 == f.0) {
                    found.push(f);
                }
            }
            todo.extend(forwards.get(p).into_iter().flatten());
        }
        (best, found)
    };
    for a in analyses.iter_mut() {
        for o in std::mem::take(&mut a.open_params) {
            let (best, found) = reach(&o.key);
            if let Some((secs, via)) = best {
                a.passed_values
                    .push((o.step, o.arg, o.region, *secs, via.clone()));
            }
            for (key, how) in found {
                a.open_fields.push(OpenField {
                    step: o.step,
                    arg: o.arg,
                    region: o.region,
                    owner: key.owner.clone(),
                    field: key.field.clone(),
                    factor: key.factor(),
                    passed: Some(how.clone()),
                    read_here: false,
                });
            }
        }
    }
}

/// Phase 3a': timeouts that read a const declared in another file (`Duration::from_secs(
/// REQUEST_TIMEOUT_SECS)` after `use super::{.., REQUEST_TIMEOUT_SECS}`). Only when some file
/// has one: the files whose text declares such a name (`const NAME`; test code skipped) are
/// read, on all cores. The declaration at the path the name resolves to counts; when no
/// declaration is at that path (a re-export between them), the name's declarations count
/// only if they all agree.
fn const_values_phase(
    jobs: &[Job],
    analyses: &mut [FileAnalysis],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
) {
    let wanted: BTreeSet<String> = analyses
        .iter()
        .flat_map(|a| &a.open_consts)
        .map(|o| o.name.clone())
        .collect();
    if wanted.is_empty() {
        return;
    }
    let wanted: Vec<String> = wanted.into_iter().collect();
    // a const, or a function taking nothing (`fn connection_timeout() -> Duration`): two
    // needles per name, needle `k` naming `wanted[k / 2]`
    let needles: Vec<String> = wanted
        .iter()
        .flat_map(|n| [format!("const {n}"), format!("fn {n}()")])
        .collect();
    let results = read_files_naming(jobs, analyses, &needles, |job, text, here| {
        let names: Vec<String> = here.iter().map(|&k| wanted[k / 2].clone()).collect();
        analyzer_of(job).const_values(text, &file_context(job), &names)
    });
    // by name: every declaration, with where (for the message)
    let mut decls: HashMap<String, Vec<(crate::model::ConstDecl, String)>> = HashMap::new();
    for (i, r) in results {
        for c in r {
            let what = if c.function {
                format!("the function `{}()`", c.name)
            } else {
                format!("the const `{}`", c.name)
            };
            let via = format!("{what}, line {} of {}", c.line, analyses[i].path.display());
            decls.entry(c.name.clone()).or_default().push((c, via));
        }
    }
    for a in analyses.iter_mut() {
        for o in std::mem::take(&mut a.open_consts) {
            let Some(all) = decls.get(&o.name) else {
                continue;
            };
            let exact = all.iter().find(|d| d.0.path == o.canon);
            // a const of that name wherever declared when every declaration agrees; a
            // function only where the call resolves (`timeout()` is a common name)
            let agreed = all
                .iter()
                .all(|d| {
                    !d.0.function
                        && d.0.duration == all[0].0.duration
                        && d.0.value == all[0].0.value
                })
                .then(|| &all[0]);
            let Some((c, via)) = exact.or(agreed) else {
                continue;
            };
            let secs = match (o.factor, c.duration) {
                (None, true) => c.value,
                (Some(f), false) => c.value * f,
                _ => continue,
            };
            a.passed_values
                .push((o.step, o.arg, o.region, secs, via.clone()));
        }
    }
}

/// How many times a parameter passed on by a caller is followed to that caller's callers.
const PARAM_HOPS: usize = 3;

/// Phase 4: cross-file findings joined, suppressions applied, counts summed.
fn finish(
    analyses: Vec<FileAnalysis>,
    mut cross: Vec<Vec<Finding>>,
    opts: &LintOptions,
    stats: &mut Stats,
) -> LintReport {
    let mut report = LintReport::default();
    for (i, mut a) in analyses.into_iter().enumerate() {
        stats.files_skipped_by_scan += usize::from(a.skipped_by_scan);
        stats.files_skipped_as_tests += usize::from(a.skipped_as_test);
        stats.files_parsed += usize::from(a.parsed);
        stats.macros_analysed += a.macros_analysed;
        stats.macros_unanalysed += a.macros_unanalysed;
        for (k, v) in std::mem::take(&mut a.unanalysed_by_name) {
            *stats.unanalysed_by_name.entry(k).or_insert(0) += v;
        }
        stats.exprs_too_deep += a.too_deep;
        stats.test_items_skipped += a.test_items_skipped;
        for (region, _) in std::mem::take(&mut a.unread_items) {
            let at = format!("{}:{}", a.path.display(), region.line);
            stats.nightly_items_unread.push(at);
        }
        let extra = std::mem::take(&mut cross[i]);
        let findings = a.finish(extra, !opts.no_suppressions);
        stats.parse_errors += findings.iter().filter(|f| f.rule == "parse-error").count();
        report.findings.extend(findings);
        report.files.push(a.facts);
    }
    report
}

/// The `.rs` files under the directory `root` (`.gitignore` honoured without git, hidden
/// entries and build directories skipped, symlinks not followed), in no particular order,
/// and the errors met; `manifest` is called with each directory holding a `Cargo.toml` as
/// soon as it is seen. Below `root`, what cargo does not build as this tree's code is
/// skipped too: project templates (a directory holding `cargo-generate.toml`, a name with a
/// `{{placeholder}}`: [`is_template_placeholder`]) and crates `cargo vendor` copied (a
/// package directory holding `.cargo-checksum.json`: api-daemon's 784 crates under
/// `third-party/`, its dependencies' sources).
///
/// `ignore`'s parallel walker, on one thread: it finds a directory's ignore files in the
/// directory's listing, where the sequential one probes for each (`.gitignore`, `.ignore`,
/// `.git`) with a `stat` per directory — 4 % of a CLI run on lemmy's 554 directories.
fn walk_rust_files(
    root: &Path,
    manifest: impl Fn(&Path) + Sync,
) -> Vec<Result<PathBuf, ignore::Error>> {
    let found = std::sync::Mutex::new(Vec::new());
    // directories whose files are not this tree's code
    let skipped = std::sync::Mutex::new(std::collections::HashSet::new());
    let skip = |dir: &Path| {
        let mut s = skipped.lock().unwrap_or_else(|e| e.into_inner());
        s.insert(dir.to_path_buf());
    };
    let visit = |entry: Result<ignore::DirEntry, ignore::Error>| {
        let keep = match entry {
            Ok(e) => {
                let p = e.path();
                let below_root = e.depth() > 1;
                if below_root && p.file_name().is_some_and(|n| n == "cargo-generate.toml") {
                    // known from the listing, where a `stat` per directory would cost
                    if let Some(dir) = p.parent() {
                        skip(dir);
                    }
                    None
                } else if p.file_name().is_some_and(|n| n == "Cargo.toml") {
                    if let Some(dir) = p.parent() {
                        // (a hidden file: the walk does not list it; a `stat` per package)
                        if below_root && dir.join(".cargo-checksum.json").is_file() {
                            skip(dir);
                        } else {
                            manifest(dir);
                        }
                    }
                    None
                } else if p.extension().is_some_and(|x| x == "rs")
                    && e.file_type().is_some_and(|t| t.is_file() || t.is_symlink())
                {
                    Some(Ok(e.into_path()))
                } else {
                    None
                }
            }
            Err(err) => Some(Err(err)),
        };
        if let Some(k) = keep {
            found.lock().unwrap_or_else(|e| e.into_inner()).push(k);
        }
        ignore::WalkState::Continue
    };
    ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| !is_build_dir(e) && !is_template_placeholder(e))
        .threads(1)
        .build_parallel()
        .run(|| Box::new(visit));
    let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
    let skipped = skipped.into_inner().unwrap_or_else(|e| e.into_inner());
    if !skipped.is_empty() {
        found.retain(|f| match f {
            Ok(p) => !p
                .ancestors()
                .skip(1)
                .take_while(|a| a.starts_with(root) && *a != root)
                .any(|a| skipped.contains(a)),
            Err(_) => true,
        });
    }
    found
}

fn walk_error_path(err: &ignore::Error) -> Option<PathBuf> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
}

/// The files' packages, a browser package ([`Package::browser`]) that a package of the run
/// with a binary links as a path dependency made a native one: its library runs in that
/// binary (flagfile's `cdylib` + `rlib` SDK, whose `remote` feature's blocking client and
/// thread its CLI's server uses).
fn linked_natively(pkgs: Vec<Option<Arc<Package>>>) -> Vec<Option<Arc<Package>>> {
    if !pkgs.iter().flatten().any(|p| p.browser) {
        return pkgs;
    }
    let linked: HashSet<&PathBuf> = pkgs
        .iter()
        .flatten()
        .filter(|p| !p.browser && !p.bins.is_empty())
        .flat_map(|p| &p.path_deps)
        .collect();
    let mut native: HashMap<PathBuf, Arc<Package>> = HashMap::new();
    pkgs.iter()
        .map(|p| match p {
            Some(p) if p.browser && linked.contains(&p.dir) => Some(
                native
                    .entry(p.dir.clone())
                    .or_insert_with(|| {
                        Arc::new(Package {
                            browser: false,
                            ..Package::clone(p)
                        })
                    })
                    .clone(),
            ),
            p => p.clone(),
        })
        .collect()
}

fn find_package(
    abs: &Path,
    cache: &mut HashMap<PathBuf, Option<Arc<Package>>>,
) -> Option<Arc<Package>> {
    let dir = abs.parent()?.to_path_buf();
    if let Some(p) = cache.get(&dir) {
        return p.clone();
    }
    let found = if dir.join("Cargo.toml").is_file() {
        Package::read_cached(&dir)
    } else {
        None
    };
    let found = match found {
        Some(p) => Some(p),
        None => match dir.parent() {
            Some(_) => find_package(&dir, cache),
            None => None,
        },
    };
    cache.insert(dir, found.clone());
    found
}

/// The module path of `file` from the directory of the library or binary root of `pkg`
/// that holds it (the innermost such directory), when that root is not in a `src/`
/// directory, which [`FileContext::from_path`] reads alone.
fn module_path_under_root(pkg: &crate::package::Package, file: &Path) -> Option<Vec<String>> {
    let root = pkg
        .lib
        .iter()
        .chain(pkg.bins.iter().map(|(_, b)| b))
        .filter_map(|r| r.parent())
        .filter(|d| file.starts_with(d) && !d.ends_with("src"))
        .max_by_key(|d| d.components().count())?;
    let rel = file.strip_prefix(root).ok()?;
    let mut path: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let last = path.pop()?;
    let stem = last.strip_suffix(".rs").unwrap_or(&last);
    if stem != "mod" {
        path.push(stem.to_string());
    }
    Some(path)
}

fn file_context(job: &Job) -> FileContext {
    let mut ctx = FileContext::default();
    if let Some(pkg) = &job.pkg {
        ctx.crate_name = Some(pkg.crate_name.clone());
        ctx.edition = pkg.edition;
        let rel = job.abs.strip_prefix(&pkg.dir).unwrap_or(&job.abs);
        let is_root =
            pkg.lib.as_deref() == Some(&job.abs) || pkg.bins.iter().any(|(_, b)| *b == job.abs);
        let guess = FileContext::from_path(rel);
        ctx.module_path = if is_root {
            Vec::new()
        } else {
            // under the directory of the crate root it belongs to (tuwunel's crates have
            // `[lib] path = "mod.rs"`, with no `src/`): the path from there
            module_path_under_root(pkg, &job.abs).unwrap_or(guess.module_path)
        };
        // a build script (`build.rs` beside `Cargo.toml`) runs at compile time, never in
        // the service a deploy stops, and a test-support package (`integration-tests`,
        // `e2e`) never ships: skipped with test code
        ctx.is_test_file = guess.is_test_file
            || crate::testcode::is_build_script(rel)
            || crate::testcode::is_test_package(&pkg.crate_name, &pkg.dir)
            || pkg.in_test_dir;
        ctx.is_example_file = guess.is_example_file;
        // a browser's WebAssembly module: no process a deploy stops
        ctx.is_wasm_file = pkg.browser;
    } else {
        let guess = FileContext::from_path(&job.display);
        ctx.module_path = guess.module_path;
        ctx.is_test_file = guess.is_test_file;
        ctx.is_example_file = guess.is_example_file;
    }
    ctx.is_test_file |= job.under == crate::testcode::CodeKind::Test;
    ctx.is_example_file |= job.under == crate::testcode::CodeKind::Example;
    ctx
}

/// Whether the crate of `job` (its text: `text`) enables nightly features: the file is a
/// crate root that does, or its package's library or a binary root does.
fn enables_nightly_features(job: &Job, text: &str) -> bool {
    use crate::item_recovery::enables_nightly_features as declares;
    let Some(pkg) = &job.pkg else {
        return declares(text);
    };
    let roots = pkg.lib.iter().chain(pkg.bins.iter().map(|(_, b)| b));
    declares(text)
        || roots
            .filter(|r| **r != job.abs)
            .any(|r| std::fs::read_to_string(r).is_ok_and(|t| declares(&t)))
}

/// Analyses one file; `meta`: its metadata (symlinks followed), `None` when it could not
/// be read (the read then reports why).
fn analyze_job(
    job: &Job,
    meta: Option<&std::fs::Metadata>,
    analyzer: &Analyzer,
    config: &Config,
) -> (FileAnalysis, usize) {
    let fail = |msg: String, region: Region| {
        let f = parse_error(config, &job.display, region, msg);
        FileAnalysis::failed(&job.display, f)
    };
    let ctx = file_context(job);
    if ctx.skipped(config) {
        // test code by location: not even read (its bytes may be anything)
        return (analyzer.analyze(&job.display, "", &ctx), 0);
    }
    // a FIFO would block the read forever and a device (`/dev/zero`) never ends: read
    // regular files only (symlinks are followed)
    if meta.is_some_and(|m| !m.is_file()) {
        let msg = "not a regular file (a FIFO, socket or device); not read";
        return (fail(msg.into(), Region::default_start()), 0);
    }
    let bytes = match std::fs::read(&job.abs) {
        Ok(b) => b,
        Err(e) => {
            return (
                fail(format!("cannot read: {e}"), Region::default_start()),
                0,
            );
        }
    };
    let len = bytes.len();
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let prefix_len = String::from_utf8_lossy(&e.as_bytes()[..at]).len();
            let region = LineIndex::new(&lossy).region(prefix_len, prefix_len + 1);
            return (
                fail(format!("not UTF-8: invalid byte at offset {at}"), region),
                len,
            );
        }
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut a = analyzer.analyze(&job.display, &text, &ctx);
        if !a.unread_items.is_empty() {
            // valid code only where a nightly toolchain reads it: otherwise the user's own
            // build fails on it too
            let nightly = enables_nightly_features(job, &text);
            a.report_unread_items(config, nightly);
        }
        if a.skipped_by_scan {
            // the workspace model may search it for a declaration: read what it may
            // declare now, not by reading the file again
            a.declared_names = Some(crate::workspace::skipped_index::DeclaredNames::of(&text));
        }
        a
    }));
    match run {
        Ok(a) => (a, len),
        Err(_) => {
            proc_macro2::extra::invalidate_current_thread_spans();
            (
                fail(
                    "internal error while analysing this file (please report it)".into(),
                    Region::default_start(),
                ),
                len,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `text` to `rel` below `root`, making the directories on the way (also for
    /// the tests of this module's own modules).
    pub(super) fn write_file(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn the_walk_honours_gitignore_and_skips_hidden_build_template_and_vendored_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| write_file(root, rel, text);
        write("src/main.rs", "fn main() {}\n");
        write("src/notes.txt", "not rust\n");
        write(".gitignore", "generated.rs\n");
        write("src/generated.rs", "fn g() {}\n");
        write("crates/a/.gitignore", "/local/\n");
        write("crates/a/local/x.rs", "fn x() {}\n");
        write("crates/a/Cargo.toml", "[package]\nname = \"a\"\n");
        write("crates/a/src/lib.rs", "pub fn a() {}\n");
        write(".hidden/h.rs", "fn h() {}\n");
        write(
            "target/CACHEDIR.TAG",
            "Signature: 8a477f597d28d172789f06886806bc55\n",
        );
        write("target/debug/build/out.rs", "fn o() {}\n");
        write("service-template/cargo-generate.toml", "[template]\n");
        write(
            "service-template/src/lib.rs",
            "{% if db -%}\nmod db;\n{% endif -%}\n",
        );
        write(
            "templates/{{project-name}}-server/src/main.rs",
            "fn main() {}\n",
        );
        write("src/{{name}}.rs", "pub struct {{Name}};\n");
        write("third-party/tokio/.cargo-checksum.json", "{\"files\":{}}\n");
        write(
            "third-party/tokio/Cargo.toml",
            "[package]\nname = \"tokio\"\n",
        );
        write("third-party/tokio/src/lib.rs", "pub fn spawn() {}\n");
        let manifests = std::sync::Mutex::new(Vec::new());
        let found = walk_rust_files(root, |d| manifests.lock().unwrap().push(d.to_path_buf()));
        let mut files: Vec<PathBuf> = found
            .into_iter()
            .map(|r| r.unwrap().strip_prefix(root).unwrap().to_path_buf())
            .collect();
        files.sort();
        assert_eq!(
            files,
            [
                PathBuf::from("crates/a/src/lib.rs"),
                PathBuf::from("src/main.rs")
            ]
        );
        assert_eq!(manifests.into_inner().unwrap(), [root.join("crates/a")]);
    }

    #[test]
    fn a_binary_a_gitignore_pattern_matches_is_linted() {
        // freeq's root `.gitignore` has Visual Studio's `[Bb]in/`: every `src/bin/` matched
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| write_file(root, rel, text);
        write(".gitignore", "[Bb]in/\ngenerated.rs\n");
        write(
            "Cargo.toml",
            "[package]\nname = \"chat\"\n[[bin]]\nname = \"issuer\"\npath = \"src/bin/issuer.rs\"\n",
        );
        write("src/lib.rs", "pub fn l() {}\n");
        write("src/generated.rs", "fn g() { tokio::spawn(async {}); }\n");
        write(
            "src/bin/issuer.rs",
            "mod routes;\n#[tokio::main]\nasync fn main() { tokio::spawn(async {}); }\n",
        );
        write(
            "src/bin/issuer/routes.rs",
            "pub fn r() { tokio::spawn(async {}); }\n",
        );
        let report = lint_paths(&[root.to_path_buf()], &LintOptions::default()).unwrap();
        let mut at: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.rule == "raw-spawn")
            .map(|f| f.path.to_string_lossy().replace('\\', "/"))
            .collect();
        at.sort();
        // the binary and its module are read; the generated file the pattern meant is not
        assert_eq!(at.len(), 2, "{at:?}");
        assert!(at[0].ends_with("src/bin/issuer.rs"), "{at:?}");
        assert!(at[1].ends_with("src/bin/issuer/routes.rs"), "{at:?}");
    }
}
