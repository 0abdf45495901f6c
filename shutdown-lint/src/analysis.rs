//! The per-file analysis, a pure function of a file's path, text and configuration:
//! [`analyze_source`] (or [`Analyzer::analyze`] to reuse the prepared tables across files).
//!
//! Steps: skip test files unless asked; a byte scan for needles (outside `//` comments)
//! that skips files no rule can match; a depth check; the `syn` parse; the model walk
//! ([`crate::collect`]); the per-file rules; suppressions. Cross-file work
//! (`sigterm-missing`) and unused suppressions are finished by [`FileAnalysis::finish`].

use crate::collect::{self, CollectOptions};
use crate::config::Config;
use crate::finding::{Finding, Region, Severity};
use crate::model::{ChainUse, Decls, FileModel, ModDecl};
use crate::resolve::{Aliases, Canon, known, split_path};
use crate::rules::{self, RuleContext, sigterm_missing::SignalSites};
use crate::source::{self, LineIndex};
use crate::suppress::{self, SuppressionFact};
use crate::workspace::WorkspaceModel;
use foldhash::HashSet;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Counts the audit needs, per file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FileFacts {
    /// Path as shown.
    pub path: PathBuf,
    /// `shutdown_runtime` spawns, `[spawn] tracked` calls, and raw spawns routed by `#[drainable]`.
    pub tracked_spawns: usize,
    /// Raw spawns (suppressed or not, whatever the rule's level).
    pub raw_spawns: usize,
    /// Functions marked `#[drainable]`.
    pub drainable_fns: usize,
    /// HTTP clients/requests without an overall timeout.
    pub http_clients_without_timeout: usize,
    /// Threads whose handle is dropped.
    pub detached_threads: usize,
    /// The file registers a SIGTERM handler.
    pub handles_sigterm: bool,
    /// The file registers a Ctrl-C (SIGINT) handler.
    pub handles_ctrl_c: bool,
    /// Every suppression comment.
    pub suppressions: Vec<SuppressionFact>,
    /// Call chains and references a fixer may rewrite (`--fix`), with their resolved paths.
    #[serde(skip)]
    pub fix_sites: Vec<crate::fix::site::FixSite>,
    /// Shutdown budgets written in the file ([`crate::model::FileModel::budgets`]), for the
    /// audit.
    #[serde(skip)]
    pub budgets: Vec<crate::model::BudgetSite>,
}

/// Where a file sits in its crate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileContext {
    /// Crate name (`-` replaced by `_`), when known from `Cargo.toml`.
    pub crate_name: Option<String>,
    /// Module path below the crate root (`[]` for `lib.rs`/`main.rs`/a bin root).
    pub module_path: Vec<String>,
    /// The file is test code by location (`tests/`, `benches/`).
    pub is_test_file: bool,
    /// The file is an example by location (`examples/`).
    pub is_example_file: bool,
    /// The file is built only for WebAssembly (a browser package's:
    /// [`crate::targetcode`]): skipped in every mode.
    pub is_wasm_file: bool,
    /// Its package's edition (how to parse it).
    pub edition: crate::edition::Edition,
}

impl FileContext {
    /// Guesses the context from a path alone: modules after the last `src/`, test code
    /// under `tests/` or `benches/`, or in a module named for tests (`tests.rs`, the usual
    /// target of `#[cfg(test)] mod tests;`, `test/`, `test_utils.rs`:
    /// [`crate::testcode::classify`]).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::analysis::FileContext;
    /// let c = FileContext::from_path("app/src/net/mod.rs".as_ref());
    /// assert_eq!(c.module_path, ["net"]);
    /// assert!(FileContext::from_path("app/tests/it.rs".as_ref()).is_test_file);
    /// ```
    pub fn from_path(path: &Path) -> FileContext {
        let comps: Vec<String> = path
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let kind = crate::testcode::classify(path);
        let mut module_path = Vec::new();
        if let Some(src) = comps.iter().rposition(|c| c == "src") {
            let rest = &comps[src + 1..];
            if rest.first().is_some_and(|c| c == "bin") {
                // src/bin/x.rs and src/bin/x/main.rs are roots
                if rest.len() > 2 {
                    module_path.extend(rest[2..].iter().cloned());
                }
            } else {
                module_path.extend(rest.iter().cloned());
            }
            if let Some(last) = module_path.pop() {
                let stem = last.strip_suffix(".rs").unwrap_or(&last).to_string();
                let is_root = module_path.is_empty() && (stem == "lib" || stem == "main");
                if stem != "mod" && !is_root {
                    module_path.push(stem);
                }
            }
        }
        FileContext {
            crate_name: None,
            module_path,
            is_test_file: kind == crate::testcode::CodeKind::Test,
            is_example_file: kind == crate::testcode::CodeKind::Example,
            is_wasm_file: false,
            edition: crate::edition::Edition::Unknown,
        }
    }
}

impl FileContext {
    /// Whether `config` skips this file: test code without `include-tests`, an example
    /// without `include-examples`, WebAssembly-only code always.
    pub fn skipped(&self, config: &Config) -> bool {
        (self.is_test_file && !config.include_tests)
            || (self.is_example_file && !config.include_examples)
            || self.is_wasm_file
    }
}

/// What [`analyze_source`] found in one file.
#[derive(Debug, Clone, Default)]
pub struct FileAnalysis {
    /// Path as shown.
    pub path: PathBuf,
    /// Findings of the per-file rules (with suppressions applied).
    pub findings: Vec<Finding>,
    /// Counts for the audit.
    pub facts: FileFacts,
    /// Signal handling (for `sigterm-missing`).
    pub signals: SignalSites,
    /// A top-level `fn main`.
    pub has_main: bool,
    /// Functions and the calls they make (call chains from `main`).
    pub fns: Vec<crate::model::FnNode>,
    /// `mod x;` declarations.
    pub mod_decls: Vec<ModDecl>,
    /// Skipped by the byte scan (no rule can match).
    pub skipped_by_scan: bool,
    /// What a file the byte scan skipped may declare, read off its text by the engine
    /// while it held it, for the workspace model's search of skipped files.
    pub(crate) declared_names: Option<crate::workspace::skipped_index::DeclaredNames>,
    /// Parsed with the bodies no rule reads blanked ([`crate::prune`]): `fns` lacks their
    /// calls (read from the text when a call graph needs them).
    pub pruned: bool,
    /// Fields and methods of declarations the pruner blanked because they name no word
    /// ([`crate::prune::Pruned::hidden`], sorted); the engine reads those declarations again
    /// ([`Analyzer::declarations`]) when a lookup of the workspace model needs one.
    pub hidden_decls: Vec<String>,
    /// Skipped as test code by location.
    pub skipped_as_test: bool,
    /// Parsed with `syn`.
    pub parsed: bool,
    /// Top-level items that did not parse, the rest of the file read without them
    /// ([`crate::item_recovery`]): where, and the parser's message. The engine reports each
    /// as a `parse-error`, or lists it in the run's [`crate::engine::Stats`] when the crate
    /// enables nightly features (syntax `syn` may not know).
    pub unread_items: Vec<(Region, String)>,
    /// Macro bodies analysed / not analysed.
    pub macros_analysed: usize,
    /// Macro bodies that did not parse as Rust.
    pub macros_unanalysed: usize,
    /// The same, by macro name.
    pub unanalysed_by_name: std::collections::BTreeMap<String, usize>,
    /// Expressions nested deeper than the walk's bound.
    pub too_deep: usize,
    /// Test items skipped.
    pub test_items_skipped: usize,
    /// Elementary name-resolution steps (linear in the file: see
    /// [`crate::resolve::Resolver::ops`]).
    pub resolve_ops: u64,
    /// Rules set to `allow` (their suppressions are never "unused").
    pub allowed_rules: Vec<String>,
    /// Levels of `suppression-without-reason` and `unused-suppression`.
    pub suppression_levels: Option<(Severity, Severity)>,
    /// Chains whose receiver only the workspace model can type
    /// ([`FileAnalysis::apply_workspace`]).
    pub pending: Vec<ChainUse>,
    /// [`crate::model::FileModel::signal_listeners`], kept for the pending chains (a thread
    /// started through a function of the workspace, its body waiting for signals).
    pub signal_listeners: Vec<usize>,
    /// [`crate::model::FileModel::tracker_tasks`], kept for the pending chains (a spawn on a
    /// field's runtime, `self.inner.spawn(tracker.track_future(fut))`).
    pub tracker_tasks: Vec<usize>,
    /// Where the file's HTTP clients go, kept for the pending chains when it was read with
    /// the file (a client built in it); otherwise read by
    /// [`FileAnalysis::apply_workspace`] when a typed chain turns out to build a client
    /// the rule reports.
    pub client_flow: Option<crate::collect::flow::ClientFlow>,
    /// What the file declares for the workspace model.
    pub decls: Decls,
    /// Timeout arguments reading a field whose writes are in other files
    /// ([`FileAnalysis::apply_field_writes`]).
    pub open_fields: Vec<crate::model::OpenField>,
    /// Timeout arguments reading a parameter whose callers are in other files.
    pub open_params: Vec<crate::model::OpenParam>,
    /// Timeout arguments reading a const another file declares.
    pub open_consts: Vec<crate::model::OpenConst>,
    /// Those parameters' arguments valued by the callers of other files: step, argument,
    /// region, seconds and where (for the message).
    pub passed_values: Vec<(usize, usize, Region, f64, String)>,
    /// The chains that carry those arguments.
    pub open_chains: Vec<ChainUse>,
    /// Clients reported by `http-no-timeout` that functions of other files may clear
    /// ([`FileAnalysis::clear_clients`]).
    pub open_clients: Vec<crate::model::OpenClient>,
}

/// `text` parsed as `edition` reads it; when it does not parse as a whole, its statements
/// (a fragment: [`crate::item_recovery::parse_fragment`]), or the top-level items that parse
/// ([`crate::item_recovery`]) and where each item left out failed.
fn parse_or_recover(
    text: &str,
    edition: crate::edition::Edition,
    index: &LineIndex<'_>,
) -> syn::Result<(syn::File, Vec<(Region, String)>)> {
    let err = match crate::edition::parse_file(text, edition) {
        Ok(file) => return Ok((file, Vec::new())),
        Err(e) => e,
    };
    if let Some(fragment) = crate::item_recovery::parse_fragment(text) {
        return Ok((fragment, Vec::new()));
    }
    let Some(r) = crate::item_recovery::parse_items(text, edition) else {
        return Err(err);
    };
    let unread = r
        .skipped
        .iter()
        .map(|e| {
            let b = e.span().byte_range();
            (index.region(b.start, b.end), format!("syntax error: {e}"))
        })
        .collect();
    Ok((r.file, unread))
}

/// Configuration prepared for many files: resolution tables and the byte scan.
#[derive(Debug, Clone)]
pub struct Analyzer {
    config: Arc<Config>,
    aliases: Arc<Aliases>,
    interesting: Arc<HashSet<Canon>>,
    needles: Arc<Vec<memchr::memmem::Finder<'static>>>,
    /// The same needles as one leftmost-longest automaton, shared by the packages that ask
    /// for the same words: the byte scan reads every file once with it instead of once per
    /// needle (see [`Analyzer::may_match`]).
    scan: Option<Arc<aho_corasick::AhoCorasick>>,
    /// Words that make a file worth parsing for the workspace model only (it may declare
    /// a field, return type or alias of a type the rules know): they count at the start
    /// of a word (`Handle`, not `JoinHandle`).
    model_words: Arc<Vec<memchr::memmem::Finder<'static>>>,
    /// Which function bodies are worth parsing.
    body_filter: Arc<crate::prune::BodyFilter>,
}

/// Every path a rule matches (known and configured) and each of its prefixes: what a
/// resolved path must be to matter. Built once per configuration and run (every package
/// of a workspace asks for the same set).
fn interesting_paths(config: &Config) -> Arc<HashSet<Canon>> {
    type Key = (Vec<String>, Vec<String>, Vec<String>);
    static BUILT: std::sync::Mutex<Vec<(Key, Arc<HashSet<Canon>>)>> =
        std::sync::Mutex::new(Vec::new());
    let key: Key = (
        config.spawn_tracked.clone(),
        config.spawn_raw.clone(),
        config.http_no_timeout.clone(),
    );
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, set)) = built.iter().find(|(k, _)| *k == key) {
        return set.clone();
    }
    let mut interesting = HashSet::default();
    let configured = key.0.iter().chain(&key.1).chain(&key.2);
    for p in known::all_paths()
        .map(split_path)
        .chain(configured.map(|s| split_path(s)))
    {
        for n in 1..=p.len() {
            interesting.insert(p[..n].to_vec());
        }
    }
    let set = Arc::new(interesting);
    if built.len() < 64 {
        built.push((key, set.clone()));
    }
    set
}

/// Type names a declaration the workspace model needs contains (see
/// [`Analyzer::may_match`]).
const MODEL_WORDS: &[&str] = &["Handle", "Runtime", "ClientBuilder"];

/// Whether `text` declares a struct or enum named `name` (`struct Handle {`, `enum Handle`;
/// not `HandleOpts`).
fn declares_type(text: &[u8], name: &[u8]) -> bool {
    [&b"struct "[..], b"enum "].iter().any(|kw| {
        let mut word = kw.to_vec();
        word.extend_from_slice(name);
        memchr::memmem::find_iter(text, &word).any(|at| {
            let end = at + word.len();
            let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
            text.get(end).is_none_or(|&c| !ident(c)) && (at == 0 || !ident(text[at - 1]))
        })
    })
}

impl Analyzer {
    /// Prepares `config`.
    pub fn new(config: &Config) -> Analyzer {
        Self::with_reexports(config, &[])
    }

    /// Prepares `config` plus extra re-exports (e.g. renamed dependencies of a package).
    pub fn with_reexports(config: &Config, extra: &[(String, String)]) -> Analyzer {
        Self::for_crate(config, extra, None)
    }

    /// Prepares `config` for the files of crate `own_crate`, plus extra re-exports (renamed
    /// dependencies, and what dependencies re-export: [`crate::workspace::reexports`]).
    /// Configured `[reexports]` come first and so win.
    pub fn for_crate(
        config: &Config,
        extra: &[(String, String)],
        own_crate: Option<&str>,
    ) -> Analyzer {
        let mut re = config.reexports.clone();
        re.extend_from_slice(extra);
        let aliases = Aliases::new(&re).for_crate(own_crate);
        let interesting = interesting_paths(config);
        let mut words: Vec<String> = known::NEEDLES.iter().map(|s| s.to_string()).collect();
        for p in config
            .spawn_tracked
            .iter()
            .chain(&config.spawn_raw)
            .chain(&config.http_no_timeout)
        {
            if let Some(last) = split_path(p).last() {
                words.push(last.clone());
            }
        }
        // a body is kept for a re-export only when it names the re-exported path
        // (`rocket::tokio`), not for every item of the crate (`rocket::State`)
        let mut body_words: Vec<String> = words.clone();
        body_words.extend(
            re.iter()
                .map(|(from, _)| from.trim_start_matches("::").to_string()),
        );
        // a renamed dependency is a needle only when it is a crate the rules know (`http =
        // { package = "reqwest" }`): rsky's `ws = { package = "rocket_ws" }` made every file
        // naming `ws` anywhere (`news`, `views`) pass the byte scan; what such a crate
        // re-exports of a known one comes as its own entry
        let known_target = |to: &str| {
            split_path(to)
                .first()
                .is_some_and(|c| known::is_known_crate(c))
        };
        for (from, _) in config
            .reexports
            .iter()
            .chain(extra.iter().filter(|(_, to)| known_target(to)))
        {
            if let Some(first) = split_path(from).first() {
                words.push(first.clone());
            }
        }
        words.sort();
        words.dedup();
        let needles = words
            .iter()
            .map(|w| memchr::memmem::Finder::new(w.as_bytes()).into_owned())
            .collect();
        let scan = crate::prune::needle_automaton(words).map(|(_, a)| a);
        let aliases = Arc::new(aliases);
        let (a, i) = (aliases.clone(), interesting.clone());
        // an imported name keeps a body only when it can reach a path a rule knows
        // (`reqwest::Client`, `rocket::tokio`), not for any item of that crate (`reqwest::Url`);
        // the model's type names keep one as whole identifiers (`prune::BODY_WORDS`), not
        // inside another name (`RuntimeError`, `HandleOpts`)
        let body_filter = crate::prune::BodyFilter::new(
            body_words
                .iter()
                .map(String::as_str)
                .filter(|w| !crate::prune::FILE_ONLY_NEEDLES.contains(w)),
        )
        .with_imports(move |path| i.contains(&a.canonical(split_path(path))));
        let model_words = MODEL_WORDS
            .iter()
            .map(|w| memchr::memmem::Finder::new(w.as_bytes()).into_owned())
            .collect();
        Analyzer {
            config: Arc::new(config.clone()),
            aliases,
            interesting,
            needles: Arc::new(needles),
            scan,
            model_words: Arc::new(model_words),
            body_filter: Arc::new(body_filter),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Whether any needle occurs in `text` outside a `//` comment, or a declaration names a
    /// type the workspace model reads (`rt: Handle`) that the file does not declare itself.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::analysis::Analyzer;
    /// use shutdown_lint::config::Config;
    /// let plain = Analyzer::new(&Config::default());
    /// assert!(plain.may_match("struct Worker {\n    rt: Handle,\n}\n"));
    /// // its own `Handle` (a generated lexicon), not tokio's
    /// assert!(!plain.may_match("pub struct Handle {\n    x: u8,\n}\npub struct A {\n    pub handle: Handle,\n}\n"));
    /// // a renamed dependency is a needle only when it is a crate the rules know
    /// let renamed = [("ws".to_string(), "rocket_ws".to_string()), ("http".to_string(), "reqwest".to_string())];
    /// let pkg = Analyzer::with_reexports(&Config::default(), &renamed);
    /// assert!(!pkg.may_match("fn views() -> News { News }\n"));
    /// assert!(pkg.may_match("fn f() { let _ = http::get(u); }\n"));
    /// ```
    pub fn may_match(&self, text: &str) -> bool {
        let b = text.as_bytes();
        let outside_comment = |pos: usize, needle: &[u8]| {
            let line_start = memchr::memrchr(b'\n', &b[..pos]).map_or(0, |i| i + 1);
            memchr::memmem::find(&b[line_start..pos], b"//").is_none()
                || needle == suppress::MARKER.as_bytes()
        };
        match self.scan.as_ref() {
            // one pass: an occurrence the leftmost-longest search steps over overlaps the
            // one it reports, on the same line, so it is in a comment when that one is
            Some(scan) => {
                for m in scan.find_iter(b) {
                    if outside_comment(m.start(), &b[m.range()]) {
                        return true;
                    }
                }
            }
            None => {
                for f in self.needles.iter() {
                    if f.find_iter(b).any(|pos| outside_comment(pos, f.needle())) {
                        return true;
                    }
                }
            }
        }
        for f in self.model_words.iter() {
            // a file that declares a type of that name itself means its own type (rsky's
            // generated lexicon: 570 KB of declarations, one of them `pub struct Handle`)
            if declares_type(b, f.needle()) {
                continue;
            }
            for pos in f.find_iter(b) {
                let word_start = pos == 0 || {
                    let c = b[pos - 1];
                    !(c.is_ascii_alphanumeric() || c == b'_')
                };
                let line_start = memchr::memrchr(b'\n', &b[..pos]).map_or(0, |i| i + 1);
                let before = &b[line_start..pos];
                // a declaration: a field or parameter type (`rt: Handle`), a return type
                // (`-> &Handle`) or an alias (`type Rt = ..`); not an import or a call
                let declares = memchr::memmem::find(before, b": ").is_some()
                    || memchr::memmem::find(before, b"->").is_some()
                    || memchr::memmem::find(before, b"type ").is_some();
                if word_start && declares && memchr::memmem::find(before, b"//").is_none() {
                    return true;
                }
            }
        }
        false
    }

    /// How the model walk of a file of `fctx` is set up: its module path, the tables.
    fn collect_options(&self, fctx: &FileContext) -> CollectOptions {
        let mut module = vec![
            fctx.crate_name
                .clone()
                .unwrap_or_else(|| "crate".to_string()),
        ];
        module.extend(fctx.module_path.iter().cloned());
        CollectOptions {
            file_module: module,
            include_tests: self.config.include_tests,
            aliases: self.aliases.clone(),
            interesting: self.interesting.clone(),
            needles: self.needles.clone(),
            value_timeouts: rules::http_timeout_over_budget::values_timeouts(&self.config),
            thread_fns: Default::default(),
        }
    }

    /// The second look at a file whose first analysis hid declarations
    /// ([`FileAnalysis::hidden_decls`]): what it declares with the declarations of the
    /// `reveal` keys parsed (every function body blanked: those declarations name no word,
    /// so their bodies were blanked the first time too), and what it still hides. `None`
    /// when the file no longer parses that way (the caller keeps the first analysis).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::analysis::{Analyzer, FileContext};
    /// use shutdown_lint::config::Config;
    /// let src = "struct W { rt: Rt, n: u8 }\nfn go(w: &W) { w.rt.spawn(f); }\n";
    /// let an = Analyzer::new(&Config::default());
    /// let first = an.analyze("src/w.rs".as_ref(), src, &FileContext::default());
    /// assert!(first.hidden_decls.contains(&"rt".to_string()));
    /// let reveal = ["W::rt".to_string()].into_iter().collect();
    /// let (decls, hidden) = an
    ///     .declarations(src, &FileContext::default(), &reveal)
    ///     .unwrap();
    /// assert!(decls.fields.iter().any(|(_, name, _)| name == "rt"));
    /// assert!(hidden.is_empty());
    /// ```
    pub fn declarations(
        &self,
        text: &str,
        fctx: &FileContext,
        reveal: &crate::workspace::NameSet,
    ) -> Option<(Decls, Vec<String>)> {
        let config = &*self.config;
        let cleaned = blank_preamble(text);
        let opts = crate::prune::PruneOptions {
            skip_tests: !config.include_tests,
            declarations: true,
            reveal: Some(reveal),
            declarations_only: true,
            ..crate::prune::PruneOptions::default()
        };
        // nothing to blank (no function body, every declaration revealed): the whole text
        let pruned = self
            .body_filter
            .prune_with(&cleaned, opts)
            .unwrap_or_else(|| crate::prune::Pruned {
                text: cleaned.to_string(),
                hidden: Vec::new(),
                blanked: Vec::new(),
            });
        let c = crate::compact::compact(&pruned.text, &pruned.blanked);
        let file = crate::edition::parse_file(&c.text, fctx.edition).ok();
        let Some(file) = file else {
            proc_macro2::extra::invalidate_current_thread_spans();
            return None;
        };
        let index = LineIndex::new(text).with_shifts(c.shifts);
        let copts = self.collect_options(fctx);
        let decls = collect::declarations(&file, &index, &copts);
        proc_macro2::extra::invalidate_current_thread_spans();
        Some((decls, pruned.hidden))
    }

    /// The known durations `text` (a whole file) writes to the `wanted` fields (the owner
    /// type's last segment, the field, and whether it holds a duration or a number of
    /// units), as `(index into wanted, seconds, line)`, and the fields of other types it
    /// fills them from; `None` if it does not parse.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::analysis::{Analyzer, FileContext};
    /// use shutdown_lint::config::Config;
    /// use shutdown_lint::model::FieldKey;
    /// let src = "use std::time::Duration;\n\
    ///            fn parse(c: Option<u64>) -> Hook {\n    \
    ///                Hook { timeout: c.map(Duration::from_secs).unwrap_or_else(|| Duration::from_secs(30)), \
    ///                       secs: 45 }\n}\n\
    ///            impl Piece {\n    \
    ///                fn get(&self) -> Get { Get { timeout: self.config.download.piece_timeout } }\n}\n";
    /// let key = |owner: &str, field: &str, unit: Option<u64>| FieldKey {
    ///     owner: owner.into(),
    ///     field: field.into(),
    ///     unit,
    /// };
    /// let wanted = [
    ///     key("Hook", "timeout", None),
    ///     key("Hook", "secs", Some(1.0f64.to_bits())),
    ///     key("Get", "timeout", None),
    /// ];
    /// let writes = Analyzer::new(&Config::default())
    ///     .field_writes(src, &FileContext::default(), &wanted)
    ///     .unwrap();
    /// assert_eq!(writes.values, [(0, 30.0, 3), (1, 45.0, 3)]);
    /// // filled from `Download.piece_timeout`, once the middle fields' types are known
    /// assert_eq!(writes.forwards, [(2, key("Piece.config.download", "piece_timeout", None), 6)]);
    /// ```
    pub fn field_writes(
        &self,
        text: &str,
        fctx: &FileContext,
        wanted: &[crate::model::FieldKey],
    ) -> Option<crate::model::FieldWrites> {
        self.read_whole(text, fctx, |file, index, copts| {
            collect::field_writes(file, index, copts, wanted)
        })
    }

    /// What the getters `text` (a whole file) declares among `wanted` (`(method, factor)`)
    /// return: `(index into wanted, seconds, line)`; `None` if it does not parse.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::analysis::{Analyzer, FileContext};
    /// use shutdown_lint::config::Config;
    /// let src = "impl Upstream {\n    pub fn get_timeout(&self) -> u64 {\n        \
    ///                self.timeout.unwrap_or(60)\n    }\n}\n";
    /// let found = Analyzer::new(&Config::default())
    ///     .getter_values(src, &FileContext::default(), &[("get_timeout".into(), Some(1.0))])
    ///     .unwrap();
    /// assert_eq!(found, [(0, 60.0, 3)]);
    /// ```
    pub fn getter_values(
        &self,
        text: &str,
        fctx: &FileContext,
        wanted: &[(String, Option<f64>)],
    ) -> Option<Vec<(usize, f64, usize)>> {
        self.read_whole(text, fctx, |file, index, copts| {
            collect::getter_values(file, index, copts, wanted)
        })
    }

    /// What `text` (a whole file) passes to the `wanted` parameters of functions declared
    /// elsewhere, as `(index into wanted, what, line, how)`; `None` if it does not parse.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::analysis::{Analyzer, FileContext};
    /// use shutdown_lint::config::Config;
    /// use shutdown_lint::model::{FieldKey, ParamKey, PassedArg};
    /// let src = "fn sync(settings: &Settings) {\n    \
    ///                let a = Client::new(settings.network_timeout);\n    \
    ///                let b = Client::new(settings.network_timeout * 10);\n    \
    ///                let c = Client::new(60);\n}\n";
    /// let wanted = [ParamKey {
    ///     name: "new".into(),
    ///     owner: Some("Client".into()),
    ///     receiver: false,
    ///     index: 0,
    ///     arity: 1,
    ///     unit: Some(1.0f64.to_bits()),
    /// }];
    /// let passed = Analyzer::new(&Config::default())
    ///     .param_args(src, &FileContext::default(), &wanted)
    ///     .unwrap();
    /// let field = |unit: f64| PassedArg::Field(FieldKey {
    ///     owner: "Settings".into(),
    ///     field: "network_timeout".into(),
    ///     unit: Some(unit.to_bits()),
    /// });
    /// let what: Vec<_> = passed.into_iter().map(|(_, p, line, _)| (p, line)).collect();
    /// assert_eq!(what, [(field(1.0), 2), (field(10.0), 3), (PassedArg::Seconds(60.0), 4)]);
    /// ```
    pub fn param_args(
        &self,
        text: &str,
        fctx: &FileContext,
        wanted: &[crate::model::ParamKey],
    ) -> Option<Vec<(usize, crate::model::PassedArg, usize, String)>> {
        self.read_whole(text, fctx, |file, index, copts| {
            collect::param_args(file, index, copts, wanted)
        })
    }

    /// The consts `text` (a whole file) declares among `wanted` (names), with their paths
    /// from the crate root; `None` if it does not parse.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::analysis::{Analyzer, FileContext};
    /// use shutdown_lint::config::Config;
    /// let src = "use std::time::Duration;\nconst REQUEST_TIMEOUT_SECS: u64 = 120;\n\
    ///            pub mod http {\n    pub const DEFAULT: std::time::Duration = std::time::Duration::from_secs(900);\n}\n";
    /// let wanted = ["REQUEST_TIMEOUT_SECS".to_string(), "DEFAULT".to_string()];
    /// let found = Analyzer::new(&Config::default())
    ///     .const_values(src, &FileContext::default(), &wanted)
    ///     .unwrap();
    /// let values: Vec<_> = found.iter().map(|c| (c.name.as_str(), c.path.join("::"), c.duration, c.value)).collect();
    /// assert_eq!(values, [
    ///     ("REQUEST_TIMEOUT_SECS", "crate::REQUEST_TIMEOUT_SECS".to_string(), false, 120.0),
    ///     ("DEFAULT", "crate::http::DEFAULT".to_string(), true, 900.0),
    /// ]);
    /// ```
    pub fn const_values(
        &self,
        text: &str,
        fctx: &FileContext,
        wanted: &[String],
    ) -> Option<Vec<crate::model::ConstDecl>> {
        self.read_whole(text, fctx, |file, index, copts| {
            collect::const_values(file, index, copts, wanted)
        })
    }

    /// The calls of `thread_fns` (functions of the workspace returning a thread's
    /// `JoinHandle` by value, not named as a spawn) in `text` (a whole file, as written)
    /// whose statements drop what they return, waiting for the workspace model to type
    /// them ([`collect::thread_fn_calls`]); `None` if it does not parse.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::analysis::{Analyzer, FileContext};
    /// use shutdown_lint::config::Config;
    /// let src = "fn main() -> anyhow::Result<()> {\n    let _delivery = init_runtime(\"delivery\")?;\n    \
    ///            let receiver = init_runtime(\"receiver\")?;\n    receiver.join().ok();\n    \
    ///            init_runtime(\"x\")?;\n    Ok(())\n}\n";
    /// let names = ["init_runtime".to_string()].into_iter().collect();
    /// let calls = Analyzer::new(&Config::default())
    ///     .thread_fn_calls(src, &FileContext::default(), &names)
    ///     .unwrap();
    /// let steps: Vec<(usize, Vec<&str>)> = calls
    ///     .iter()
    ///     .map(|cu| (cu.chain.root_region.line, cu.chain.steps.iter().map(|s| s.name.as_str()).collect()))
    ///     .collect();
    /// // `receiver`'s statement joins it: `detached-thread` reads its steps as keeping it
    /// assert_eq!(steps, [(2, vec!["?"]), (3, vec!["?", "join", "ok"]), (5, vec!["?"])]);
    /// ```
    pub fn thread_fn_calls(
        &self,
        text: &str,
        fctx: &FileContext,
        thread_fns: &foldhash::HashSet<String>,
    ) -> Option<Vec<crate::model::ChainUse>> {
        self.read_whole(text, fctx, |file, index, copts| {
            let opts = CollectOptions {
                thread_fns: Arc::new(thread_fns.clone()),
                ..copts.clone()
            };
            collect::thread_fn_calls(file, index, &opts)
        })
    }

    /// Parses `text` (a whole file, as written) and runs `read` over it, for the cross-file
    /// phases; `None` if it does not parse.
    fn read_whole<T>(
        &self,
        text: &str,
        fctx: &FileContext,
        read: impl FnOnce(&syn::File, &LineIndex<'_>, &collect::CollectOptions) -> T,
    ) -> Option<T> {
        let cleaned = blank_preamble(text);
        let file = crate::edition::parse_file(&cleaned, fctx.edition).ok();
        let out = file.map(|file| {
            let index = LineIndex::new(text);
            read(&file, &index, &self.collect_options(fctx))
        });
        proc_macro2::extra::invalidate_current_thread_spans();
        out
    }

    /// Analyses one file.
    pub fn analyze(&self, path: &Path, text: &str, fctx: &FileContext) -> FileAnalysis {
        let config = &*self.config;
        let mut a = FileAnalysis {
            path: path.to_path_buf(),
            facts: FileFacts {
                path: path.to_path_buf(),
                ..FileFacts::default()
            },
            allowed_rules: rules::all_rules()
                .iter()
                .filter(|r| config.severity(r) == Severity::Allow)
                .map(|r| r.name.to_string())
                .collect(),
            suppression_levels: Some((
                config.severity(&rules::suppression_without_reason::META),
                config.severity(&rules::unused_suppression::META),
            )),
            ..FileAnalysis::default()
        };
        if fctx.skipped(config) {
            a.skipped_as_test = true;
            return a;
        }
        if !self.may_match(text) {
            a.skipped_by_scan = true;
            // its test modules are still test code, and a binary's module tree goes on
            // through it (`main.rs` that is only `mod commands;` and a call)
            a.mod_decls = crate::lexscan::mod_decls(text);
            return a;
        }
        let index = LineIndex::new(text);
        a.facts.suppressions = suppress::parse_suppressions(text, &index);
        // the parser recurses once per level: what it is given is bounded first (the pruned
        // text when bodies were blanked: what no rule reads is not parsed, however deep)
        let too_deep = |a: &mut FileAnalysis, depth: usize| {
            let msg = format!(
                "nesting is {depth} levels deep, over the linter's bound of {}; not analysed",
                source::MAX_NESTING
            );
            a.findings
                .push(parse_error(config, path, index.region(0, 0), msg));
        };
        let cleaned = blank_preamble(text);
        let opts = self.collect_options(fctx);
        let model = if cleaned.len() > collect::STREAMING_THRESHOLD {
            let depth = source::nesting_depth(text);
            if depth > source::MAX_NESTING {
                too_deep(&mut a, depth);
                return a;
            }
            collect::collect_streaming(&cleaned, &index, &opts)
        } else {
            // bodies no rule reads are blanked; should that ever not parse, the whole file is
            let prune = crate::prune::PruneOptions {
                skip_tests: !config.include_tests,
                test_file: fctx.is_test_file,
                test_code_macros: true,
                ..crate::prune::PruneOptions::default()
            };
            // and removed before the parse (the parser walks every blank byte); spans map
            // back through the shifts
            let mut deep = None;
            let pruned = self.body_filter.prune_with(&cleaned, prune).and_then(|p| {
                let c = crate::compact::compact(&p.text, &p.blanked);
                let depth = source::nesting_depth(&c.text);
                if depth > source::MAX_NESTING {
                    deep = Some(depth); // the whole text is at least as deep
                    return None;
                }
                let file = crate::edition::parse_file(&c.text, fctx.edition).ok()?;
                a.hidden_decls = p.hidden;
                Some((file, c.shifts))
            });
            if pruned.is_none() && deep.is_none() {
                deep = Some(source::nesting_depth(&cleaned)).filter(|&d| d > source::MAX_NESTING);
            }
            if let Some(depth) = deep {
                too_deep(&mut a, depth);
                return a;
            }
            a.pruned = pruned.is_some();
            let parsed = match pruned {
                Some(p) => Ok(p),
                None => parse_or_recover(&cleaned, fctx.edition, &index).map(|(file, unread)| {
                    a.unread_items = unread;
                    (file, crate::compact::Shifts::default())
                }),
            };
            parsed.map(|(file, shifts)| {
                // the file's own index unless bytes were removed (it is used again below)
                let shifted;
                let index = if shifts.is_empty() {
                    &index
                } else {
                    shifted = index.clone().with_shifts(shifts);
                    &shifted
                };
                collect::collect_owned(file, index, &opts)
            })
        };
        let mut model = match model {
            Ok(m) => m,
            Err(e) => {
                let r = e.span().byte_range();
                let region = index.region(r.start, r.end);
                a.findings.push(parse_error(
                    config,
                    path,
                    region,
                    format!("syntax error: {e}"),
                ));
                drop(e);
                proc_macro2::extra::invalidate_current_thread_spans();
                return a;
            }
        };
        a.parsed = true;
        proc_macro2::extra::invalidate_current_thread_spans();

        let cx = RuleContext {
            model: &model,
            config,
            path,
        };
        rules::check_file(&cx, &mut a.findings);
        a.facts.raw_spawns = rules::raw_spawn::raw_spawns(&model, &config.spawn_raw).len();
        a.facts.tracked_spawns = rules::raw_spawn::tracked_spawns(&model, &config.spawn_tracked);
        a.facts.drainable_fns = model.drainable_fns;
        let clients = rules::http_no_timeout::client_roots(&model, &config.http_no_timeout);
        a.facts.http_clients_without_timeout = clients.len();
        a.facts.detached_threads = rules::detached_thread::detached_threads(&model).len();
        a.open_clients = open_clients(&model, clients, &a.findings, text);
        // bounded in the file after all (its flow read after the rules: no `timeout` word
        // where the client is made)
        a.clear_clients(|o| o.outs.is_empty() && o.child_fields.is_empty());
        a.signals = rules::sigterm_missing::signal_sites(&model);
        if fctx.is_test_file {
            // a binary never runs a test file's servers (`--include-tests`)
            a.signals.servers.clear();
        }
        a.facts.fix_sites = crate::fix::site::from_model(&model);
        // the rules are done with the model (dropped at the end): what the analysis keeps
        // of it is moved out, not copied
        a.facts.budgets = std::mem::take(&mut model.budgets);
        a.facts.handles_sigterm = a.signals.sigterm;
        a.facts.handles_ctrl_c = !a.signals.ctrl_c.is_empty();
        a.has_main = model.has_main;
        // a pruned file that handles signals gets its whole call graph (whether `main`
        // reaches the handler), blanked bodies included
        let whole = (a.pruned && !a.signals.handled.is_empty())
            .then(|| crate::callgraph::nodes_from_text(text))
            .flatten();
        a.pruned &= whole.is_none();
        a.fns = whole.unwrap_or_else(|| std::mem::take(&mut model.fns));
        a.mod_decls = std::mem::take(&mut model.mod_decls);
        a.macros_analysed = model.macros_analysed;
        a.macros_unanalysed = model.macros_unanalysed;
        a.unanalysed_by_name = std::mem::take(&mut model.unanalysed_by_name);
        a.too_deep = model.too_deep;
        a.test_items_skipped = model.test_items_skipped;
        a.resolve_ops = model.resolve_ops;
        a.pending = model
            .chains
            .iter()
            .filter(|cu| cu.chain.pending.is_some())
            .cloned()
            .collect();
        if !model.open_fields.is_empty()
            || !model.open_params.is_empty()
            || !model.open_consts.is_empty()
        {
            a.open_fields = std::mem::take(&mut model.open_fields);
            a.open_params = std::mem::take(&mut model.open_params);
            a.open_consts = std::mem::take(&mut model.open_consts);
            a.open_chains =
                a.waiting_chains(model.chains.iter().filter(|cu| cu.chain.pending.is_none()));
        }
        if !a.pending.is_empty() {
            // a flow read for the file's own clients only cannot answer for a chain typed
            // later ([`FileAnalysis::apply_workspace`] reads it whole if need be)
            a.client_flow = model.client_flow.take().filter(|f| !f.partial);
            a.signal_listeners = std::mem::take(&mut model.signal_listeners);
            a.tracker_tasks = std::mem::take(&mut model.tracker_tasks);
        }
        a.decls = std::mem::take(&mut model.decls);
        suppress::apply(&mut a.findings, &mut a.facts.suppressions);
        a
    }
}

/// What the audit counts of a file's typed chains ([`FileFacts`]).
struct TypedCounts {
    raw_spawns: usize,
    tracked_spawns: usize,
    http_clients_without_timeout: usize,
    detached_threads: usize,
}

impl TypedCounts {
    fn of(model: &FileModel, config: &Config) -> TypedCounts {
        TypedCounts {
            raw_spawns: rules::raw_spawn::raw_spawns(model, &config.spawn_raw).len(),
            tracked_spawns: rules::raw_spawn::tracked_spawns(model, &config.spawn_tracked),
            http_clients_without_timeout: rules::http_no_timeout::clients_without_timeout(
                model,
                &config.http_no_timeout,
            )
            .len(),
            detached_threads: rules::detached_thread::detached_threads(model).len(),
        }
    }

    fn any(&self) -> bool {
        self.raw_spawns
            + self.tracked_spawns
            + self.http_clients_without_timeout
            + self.detached_threads
            > 0
    }
}

impl FileAnalysis {
    /// Runs the per-file rules on the chains whose receiver `ws` could type (a field
    /// declared in another file, a workspace function's result, ...), adds their counts to
    /// the facts and returns their findings (suppressions are applied by
    /// [`FileAnalysis::finish`]).
    ///
    /// `fns` are the file's functions ([`FileAnalysis::fns`], which the engine has taken
    /// out by then), read for a server whose builder a typed chain gives. `text` reads the
    /// file again, as written, when a resolved chain builds an HTTP client
    /// `http-no-timeout` reports and the file's client flow was not read with it
    /// (`reqwest_client_builder(..).build()`: a builder a workspace function returns).
    pub fn apply_workspace(
        &mut self,
        ws: &WorkspaceModel,
        config: &Config,
        fns: &[crate::model::FnNode],
        text: &dyn Fn() -> Option<String>,
    ) -> Vec<Finding> {
        if self.pending.is_empty() {
            return Vec::new();
        }
        let chains = ws.resolve(&self.pending);
        if chains.is_empty() {
            return Vec::new();
        }
        // a typed chain with a timeout valued from other files' writes or calls waits for
        // them too ([`FileAnalysis::apply_field_writes`])
        let waiting = self.waiting_chains(chains.iter());
        self.open_chains.extend(waiting);
        // the file's functions and their calls, for a server whose builder came from a
        // field (graceful when its function calls `graceful_shutdown` / `watch`); only
        // then: cloning them for every file with a pending chain costs
        let serves = chains
            .iter()
            .any(|cu| crate::resolve::known::server_api(&cu.chain.root_str()).is_some());
        let mut model = FileModel {
            chains,
            fns: if serves { fns.to_vec() } else { Vec::new() },
            client_flow: self.client_flow.clone(),
            signal_listeners: self.signal_listeners.clone(),
            tracker_tasks: self.tracker_tasks.clone(),
            ..FileModel::default()
        };
        let mut out = self.judge(&model, config);
        // a client reported whose file's flow was not read with it: read it, and judge
        // again (only then: it is a second parse of the file)
        if model.client_flow.is_none()
            && out
                .iter()
                .any(|f| f.rule == rules::http_no_timeout::META.name)
            && let Some(text) = text()
            && collect::flow::may_clear(&text, false)
        {
            // only what the typed chains reach
            let roots: Vec<usize> = model
                .chains
                .iter()
                .map(|cu| cu.chain.root_region.offset)
                .collect();
            model.client_flow = collect::read_client_flow(&text, &[], &roots);
            self.client_flow = model.client_flow.clone();
            out = self.judge(&model, config);
        }
        let counts = TypedCounts::of(&model, config);
        self.facts.raw_spawns += counts.raw_spawns;
        self.facts.tracked_spawns += counts.tracked_spawns;
        self.facts.http_clients_without_timeout += counts.http_clients_without_timeout;
        self.facts.detached_threads += counts.detached_threads;
        self.facts
            .fix_sites
            .extend(crate::fix::site::from_model(&model));
        out
    }

    /// Whether a rule reads any of `chains` (typings of this file's pending chains, from
    /// [`crate::workspace::Probe::typed_as_known`]): a finding, a count in the facts, or a timeout
    /// valued from other files it waits for (a fix site alone is not: `--fix` rewrites
    /// only what a finding points at). Judged as
    /// [`FileAnalysis::apply_workspace`] judges typed chains, without the file's functions
    /// (a server is then never found graceful: more is read, never less).
    pub(crate) fn rules_read(&self, chains: Vec<ChainUse>, config: &Config) -> bool {
        if chains.is_empty() {
            return false;
        }
        if !self.waiting_chains(chains.iter()).is_empty() {
            return true;
        }
        let model = FileModel {
            chains,
            client_flow: self.client_flow.clone(),
            ..FileModel::default()
        };
        !self.judge(&model, config).is_empty() || TypedCounts::of(&model, config).any()
    }

    /// The per-file rules' findings on `model` (this file's typed chains).
    fn judge(&self, model: &FileModel, config: &Config) -> Vec<Finding> {
        let mut out = Vec::new();
        rules::check_file(
            &RuleContext {
                model,
                config,
                path: &self.path,
            },
            &mut out,
        );
        out
    }

    /// The chains of `chains` with a step whose argument is valued from other files (an open
    /// field, parameter or const): they wait for [`FileAnalysis::apply_field_writes`].
    fn waiting_chains<'c>(&self, chains: impl Iterator<Item = &'c ChainUse>) -> Vec<ChainUse> {
        let open = |at: usize| {
            self.open_fields.iter().any(|o| o.step == at)
                || self.open_params.iter().any(|o| o.step == at)
                || self.open_consts.iter().any(|o| o.step == at)
        };
        chains
            .filter(|cu| cu.chain.steps.iter().any(|s| open(s.region.offset)))
            .cloned()
            .collect()
    }

    /// Drops the open chains (and their open parameters, fields and consts) whose
    /// timeouts `http-timeout-over-budget` does not judge: a chain the workspace model
    /// typed as something other than an HTTP client or a draining server (a lock request's
    /// `.with_acquire_timeout(t)`). Their values would be looked for in every file that
    /// calls the function for nothing. Called once the workspace has typed the pending
    /// chains ([`FileAnalysis::apply_workspace`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::analysis::analyze_source;
    /// use shutdown_lint::config::Config;
    /// let src = "use std::time::Duration;\n\
    ///            pub fn client(t: Duration) -> reqwest::Client {\n    \
    ///                reqwest::Client::builder().timeout(t).build().unwrap()\n}\n\
    ///            pub struct Locks;\n\
    ///            impl Locks {\n    \
    ///                pub async fn lock(&self, timeout: Duration) -> Result<(), ()> {\n        \
    ///                    let req = LockRequest::new().with_acquire_timeout(timeout);\n        \
    ///                    self.acquire(&req).await\n    }\n}\n";
    /// let budget = Config::from_toml_str("drain-budget = \"25s\"\n", "x.toml".as_ref()).unwrap();
    /// let mut a = analyze_source("src/lib.rs".as_ref(), src, &budget);
    /// assert_eq!(a.open_params.len(), 2); // both timeouts: their callers are in other files
    /// a.keep_judged_opens(&budget);
    /// assert_eq!(a.open_params.len(), 1); // the client's: a lock's timeout is not judged
    /// assert_eq!(a.open_params[0].key.name, "client");
    ///
    /// // without a drain budget, no timeout is judged: none is left open
    /// let a = analyze_source("src/lib.rs".as_ref(), src, &Config::default());
    /// assert!(a.open_params.is_empty());
    /// ```
    pub fn keep_judged_opens(&mut self, config: &Config) {
        if self.open_chains.is_empty()
            && self.open_params.is_empty()
            && self.open_fields.is_empty()
            && self.open_consts.is_empty()
        {
            return;
        }
        let wrappers = &config.http_no_timeout;
        self.open_chains
            .retain(|cu| rules::http_timeout_over_budget::judges(&cu.chain, wrappers));
        let judged: std::collections::HashSet<usize> = self
            .open_chains
            .iter()
            .flat_map(|cu| cu.chain.steps.iter().map(|s| s.region.offset))
            .collect();
        self.open_params.retain(|o| judged.contains(&o.step));
        self.open_fields.retain(|o| judged.contains(&o.step));
        self.open_consts.retain(|o| judged.contains(&o.step));
    }

    /// The `http-timeout-over-budget` findings of the file's timeouts that read a field
    /// filled in elsewhere ([`FileAnalysis::open_fields`]), given the longest duration the
    /// workspace writes to each such field (`(owner, field)` → seconds and where, for the
    /// message).
    pub fn apply_field_writes(
        &mut self,
        writes: &std::collections::HashMap<crate::model::FieldKey, (f64, String)>,
        config: &Config,
    ) -> Vec<Finding> {
        let mut chains = std::mem::take(&mut self.open_chains);
        // each argument takes the longest value: a field's writes, or what a caller passes
        let mut longest: std::collections::BTreeMap<usize, (usize, usize, Region, f64, String)> =
            std::collections::BTreeMap::new();
        let fields = std::mem::take(&mut self.open_fields)
            .into_iter()
            .filter_map(|o| {
                let (secs, via) = writes.get(&o.key())?;
                let via = match &o.passed {
                    Some(p) => format!("{p}: {via}"),
                    None => via.clone(),
                };
                Some((o.step, o.arg, o.region, *secs, via))
            });
        for v in fields.chain(std::mem::take(&mut self.passed_values)) {
            match longest.get(&v.2.offset) {
                Some(old) if old.3 >= v.3 => {}
                _ => {
                    longest.insert(v.2.offset, v);
                }
            }
        }
        self.open_params.clear();
        self.open_consts.clear();
        let mut origins = Vec::new();
        let mut valued = Vec::new();
        for (step, arg, region, secs, via) in longest.into_values() {
            crate::model::value_unknown_arg(&mut chains, step, arg, secs, region);
            origins.push(crate::model::ArgOrigin {
                offset: region.offset,
                via,
            });
            valued.push(region.offset);
        }
        if valued.is_empty() {
            return Vec::new();
        }
        let model = FileModel {
            chains,
            arg_origins: origins,
            ..FileModel::default()
        };
        let cx = RuleContext {
            model: &model,
            config,
            path: &self.path,
        };
        let mut out = Vec::new();
        if cx.severity(&rules::http_timeout_over_budget::META) != Severity::Allow {
            rules::http_timeout_over_budget::check(&cx, &mut out);
        }
        // only the findings at those arguments: the chains' other steps were judged with
        // the file
        out.retain(|f| valued.contains(&f.region.offset));
        out
    }

    /// Withdraws the `http-no-timeout` findings of [`FileAnalysis::open_clients`] whose
    /// client every function it is passed to bounds and no child module's file may use
    /// (`bounded`, asked of each [`crate::model::OpenClient`]); the others stay open.
    pub fn clear_clients(&mut self, bounded: impl Fn(&crate::model::OpenClient) -> bool) {
        let meta = &rules::http_no_timeout::META;
        let (cleared, open): (Vec<_>, Vec<_>) = std::mem::take(&mut self.open_clients)
            .into_iter()
            .partition(|o| bounded(o));
        self.open_clients = open;
        let cleared: Vec<Region> = cleared.into_iter().map(|o| o.region).collect();
        let before = self.findings.len();
        self.findings
            .retain(|f| !(f.rule == meta.name && cleared.contains(&f.region)));
        let n = before - self.findings.len();
        self.facts.http_clients_without_timeout =
            self.facts.http_clients_without_timeout.saturating_sub(n);
    }

    /// Adds cross-file findings (suppressions apply to them too), then reports suppressions
    /// without a reason and unused ones; returns every finding of the file, suppressed
    /// ones included (`suppressed` set). With `use_suppressions = false`, comments are
    /// ignored.
    pub fn finish(&mut self, cross_file: Vec<Finding>, use_suppressions: bool) -> Vec<Finding> {
        let mut findings = std::mem::take(&mut self.findings);
        findings.extend(cross_file);
        // one finding per rule, place and message: a builder used by several statements
        // (oha's `builder.handshake(..)` in four `match` arms) is one client to fix
        let mut seen = std::collections::HashSet::new();
        findings.retain(|f| seen.insert((f.rule.clone(), f.region, f.message.clone())));
        if !use_suppressions {
            for f in &mut findings {
                f.suppressed = None;
            }
            return findings;
        }
        suppress::apply(&mut findings, &mut self.facts.suppressions);
        let (reason_level, unused_level) = self
            .suppression_levels
            .unwrap_or((Severity::Deny, Severity::Warn));
        let mut extra = Vec::new();
        for s in &self.facts.suppressions {
            if s.malformed && unused_level != Severity::Allow {
                extra.push(self.sup_finding(
                    &rules::unused_suppression::META,
                    unused_level,
                    s,
                    "malformed suppression: write `// shutdown-lint: allow(rule) -- reason`".into(),
                    "name the rules in `allow(..)`, comma-separated",
                ));
                continue;
            }
            if s.malformed {
                continue;
            }
            if s.reason.is_empty() && reason_level != Severity::Allow {
                extra.push(self.sup_finding(
                    &rules::suppression_without_reason::META,
                    reason_level,
                    s,
                    format!("suppression of `{}` gives no reason", s.rules.join("`, `")),
                    "add `-- <why this is safe>` after `allow(..)`",
                ));
            }
            if unused_level == Severity::Allow {
                continue;
            }
            let unknown: Vec<&String> = s
                .rules
                .iter()
                .filter(|r| rules::rule(r).is_none())
                .collect();
            if !unknown.is_empty() {
                extra.push(self.sup_finding(
                    &rules::unused_suppression::META,
                    unused_level,
                    s,
                    format!("suppression names unknown rule `{}`", unknown[0]),
                    "`shutdown-lint --list-rules` lists the rule names",
                ));
            } else if !s.used && !s.rules.iter().any(|r| self.allowed_rules.contains(r)) {
                extra.push(self.sup_finding(
                    &rules::unused_suppression::META,
                    unused_level,
                    s,
                    format!(
                        "suppression of `{}` matches no finding on this line or the next",
                        s.rules.join("`, `")
                    ),
                    "remove the comment",
                ));
            }
        }
        findings.extend(extra);
        findings
    }

    fn sup_finding(
        &self,
        meta: &rules::RuleMeta,
        level: Severity,
        s: &SuppressionFact,
        message: String,
        help: &str,
    ) -> Finding {
        Finding {
            rule: meta.name.to_string(),
            severity: level,
            path: self.path.clone(),
            region: s.region,
            message,
            help: Some(help.to_string()),
            item: String::new(),
            suppressed: None,
        }
    }
}

/// The clients of `findings` (the file's `http-no-timeout` ones, of `clients`:
/// [`rules::http_no_timeout::client_roots`]) that functions of other files may still
/// clear, with the functions they are passed to. The file's client flow is read from
/// `text` (the file as written) when the model holds none: here, on the thread analysing
/// the file, not in the engine's phase after all files.
fn open_clients(
    model: &crate::model::FileModel,
    clients: Vec<(Region, Option<usize>)>,
    findings: &[Finding],
    text: &str,
) -> Vec<crate::model::OpenClient> {
    let meta = &rules::http_no_timeout::META;
    let open: Vec<(Region, usize)> = clients
        .into_iter()
        .filter_map(|(region, root)| Some((region, root?)))
        .filter(|(region, _)| {
            findings
                .iter()
                .any(|f| f.rule == meta.name && f.region == *region)
        })
        .collect();
    if open.is_empty() {
        return Vec::new();
    }
    let read;
    let flow = match &model.client_flow {
        Some(f) => f,
        None => {
            // only what these clients reach
            let roots: Vec<usize> = open.iter().map(|&(_, root)| root).collect();
            read = collect::read_client_flow(text, &[], &roots);
            match &read {
                Some(f) => f,
                None => return Vec::new(),
            }
        }
    };
    open.into_iter()
        .filter_map(|(region, root)| {
            let (outs, child_fields) = flow.timed_given_beside_children(root)?;
            Some(crate::model::OpenClient {
                region,
                root,
                outs,
                child_fields,
            })
        })
        .collect()
}

/// A `parse-error` finding.
pub fn parse_error(config: &Config, path: &Path, region: Region, message: String) -> Finding {
    Finding {
        rule: rules::parse_error::META.name.to_string(),
        severity: config.severity(&rules::parse_error::META),
        path: path.to_path_buf(),
        region,
        message,
        help: Some("fix the file or add it to `exclude`; it was not checked".into()),
        item: String::new(),
        suppressed: None,
    }
}

/// Replaces a byte-order mark and a shebang line with spaces of the same byte length, so
/// byte offsets stay those of the file.
pub(crate) fn blank_preamble(text: &str) -> std::borrow::Cow<'_, str> {
    let bom = text.starts_with('\u{feff}');
    let body = if bom { &text[3..] } else { text };
    let shebang = body.starts_with("#!") && !body[2..].trim_start().starts_with('[');
    if !bom && !shebang {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut s = String::with_capacity(text.len());
    if bom {
        s.push_str("   ");
    }
    if shebang {
        let end = body.find('\n').unwrap_or(body.len());
        s.extend(
            body[..end]
                .chars()
                .map(|c| if c.is_ascii() { ' ' } else { c }),
        );
        s.push_str(&body[end..]);
    } else {
        s.push_str(body);
    }
    std::borrow::Cow::Owned(s)
}

impl FileAnalysis {
    /// The top-level items that did not parse ([`Self::unread_items`]) reported as
    /// `parse-error`s, unless `nightly` (the crate enables nightly features, whose syntax
    /// `syn` may not know: they stay listed, for the run's summary).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::{analysis::analyze_source, config::Config};
    /// let src = "type A = B where u8: Copy;\nfn f() { tokio::spawn(work()); }\n";
    /// let a = analyze_source("src/lib.rs".as_ref(), src, &Config::default());
    /// let rules: Vec<&str> = a.findings.iter().map(|f| f.rule.as_str()).collect();
    /// assert_eq!(rules, ["raw-spawn", "parse-error"]);
    /// let nightly = format!("#![feature(lazy_type_alias)]\n{src}");
    /// let a = analyze_source("src/lib.rs".as_ref(), &nightly, &Config::default());
    /// assert_eq!(a.findings.len(), 1);
    /// assert_eq!(a.unread_items.len(), 1);
    /// ```
    pub fn report_unread_items(&mut self, config: &Config, nightly: bool) {
        if nightly {
            return;
        }
        for (region, msg) in std::mem::take(&mut self.unread_items) {
            let f = parse_error(config, &self.path, region, msg);
            self.findings.push(f);
        }
    }

    /// An analysis holding just `finding` (a file that could not be analysed).
    pub fn failed(path: &Path, finding: Finding) -> FileAnalysis {
        FileAnalysis {
            path: path.to_path_buf(),
            facts: FileFacts {
                path: path.to_path_buf(),
                ..FileFacts::default()
            },
            findings: vec![finding],
            ..FileAnalysis::default()
        }
    }
}

/// Analyses one file's text with `config` (a pure function: no file system access).
///
/// # Examples
/// ```
/// use shutdown_lint::{analysis::analyze_source, config::Config};
/// let src = "use tokio::task;\nfn main() { task::spawn(async {}); }\n";
/// let a = analyze_source("src/main.rs".as_ref(), src, &Config::default());
/// assert_eq!(a.findings.len(), 1);
/// assert_eq!(a.findings[0].rule, "raw-spawn");
/// assert_eq!((a.findings[0].region.line, a.findings[0].region.column), (2, 13));
/// ```
pub fn analyze_source(path: &Path, text: &str, config: &Config) -> FileAnalysis {
    let mut a = Analyzer::new(config).analyze(path, text, &FileContext::from_path(path));
    let nightly = crate::item_recovery::enables_nightly_features(text);
    a.report_unread_items(config, nightly);
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain only the workspace can type (`usecase.build_output(..)`, a method named
    /// like a builder wrapper's) does not make the file be parsed again for its client
    /// flow: the workspace phase reads the flow when the chain turns out to build a client
    /// the rule reports ([`FileAnalysis::apply_workspace`]; the `wrapped` fixture of
    /// `http-no-timeout` pins that the flow still clears it then).
    #[test]
    fn a_pending_chain_leaves_the_client_flow_unread() {
        let config = Config {
            include_tests: true,
            ..Config::default()
        };
        let pending = "use reqwest::Url;\nasync fn f() {\n    let u = Usecase::new();\n    \
                       let out = u.build_output(1).await.expect(\"x\");\n    \
                       let _ = tokio::time::timeout(D, g(out));\n}\n";
        let a = analyze_source(Path::new("src/lib.rs"), pending, &config);
        assert!(!a.pending.is_empty(), "the chain waits for the workspace");
        assert!(a.client_flow.is_none());
    }
}
