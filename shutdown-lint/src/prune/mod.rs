//! Function bodies no rule can look at, blanked before the parse.
//!
//! Most of a file that passes the byte scan is code no rule reads: a parser's `fn parse`, a
//! handler's formatting helpers. Parsing them is most of the linter's time. Before the file
//! is parsed, the body of every `fn` that mentions none of the words a rule or the model
//! works from (the byte scan's needles, the spawn/build/timeout method names, `Handle`,
//! `Runtime`, ... and every name the file imports from a `use` that mentions one of them),
//! and has no parameter of a type whose use names none of them (`PARAM_WORDS`), has its
//! contents replaced by spaces. Newlines and every other byte stay where they were,
//! so lines, columns and byte offsets of what is left are those of the original file, and
//! the signature (parameters, return type, attributes) is kept for the workspace model.
//!
//! Inside a body that is kept, the statements no rule reads go the same way
//! (`statements.rs`). The same goes for the contents of `macro_rules!` definitions that name
//! no `spawn`, and of macro invocations outside function bodies whose code names no word
//! (see `Automata::item_macros`); and, as options say, for declarations and test code
//! ([`PruneOptions`]). The engine then removes the blanked contents before the parse
//! ([`crate::compact`]).
//!
//! What is lost is only what those bodies and statements held: calls for the call graph
//! (read from the text again when a binary needs it, as for files the byte scan skipped,
//! see `FileAnalysis::pruned`) and syntax errors inside them. A file with a glob import of a
//! crate a rule knows is not pruned (any name may come from it).

mod named_bodies;
mod statements;

pub use named_bodies::FnBodies;

use crate::lexscan::{code_and_doc_lines, find_word, is_ident, matching, skip_ws};
use aho_corasick::AhoCorasick;
use std::sync::{Arc, Mutex, OnceLock};

/// Method and type names the rules and the workspace model read in a body, besides the
/// byte scan's needles.
pub const BODY_WORDS: &[&str] = &[
    "spawn",
    ".build",
    ".build_http",
    "handshake",
    "timeout",
    // ureq 3's timeouts (`timeout` alone is a whole word: not `timeout_ms: 10` in a
    // struct literal)
    "timeout_global",
    "timeout_per_call",
    "timeout_connect",
    // reqwest's `*req.timeout_mut() = Some(d)`
    "timeout_mut",
    // object_store's `ClientOptions::new().with_timeout(d)`
    "with_timeout",
    // `.serve(..)` too: the word starts after the dot
    "serve(",
    "serve_",
    "graceful",
    // a metrics exporter's `.install()` (its own listener)
    "install(",
    "Handle",
    "Runtime",
    "Builder",
    "Client",
    "ClientBuilder",
    "signal",
    "block_on",
    "RunConfig",
    "Budgets",
];

/// Types a parameter may hold whose use in the body names no [`BODY_WORDS`] word (a
/// dropshot starter's `starter.start()`): a parameter of one keeps its function's body.
/// (A parameter's type in general does not: `req: Request<Body>` of a hyper handler would
/// keep most bodies of a web service.) An HTTP client builder handed in keeps the body of
/// a function that may hand it back (`fn tls(&self, b: ClientBuilder) -> ClientBuilder {
/// if self.insecure { b = b.danger_accept_invalid_certs(true); } b }`), whose words are
/// the library's own.
const PARAM_WORDS: &[&str] = &["HttpServerStarter", "ClientBuilder"];

/// [`BODY_WORDS`] that count only as a whole identifier: the types the rules and the
/// model read (`Client::new`, `Handle::current`, `Builder::new_multi_thread`), not every
/// type whose name starts that way (`ClientIp`, `Handler`, `RuntimeInfo`, `BuilderError`);
/// `timeout` as the method and function the rules read, not `timeout_handled: false`.
const WHOLE_WORDS: &[&str] = &[
    "Client",
    "ClientBuilder",
    "Handle",
    "Runtime",
    "Builder",
    "timeout",
];

/// Byte-scan needles that let a file through but do not keep a body on their own: a
/// server is only started by a `serve` (a body word), a signal handler through
/// `SignalKind`/`signal`/`ctrl_c`, a hyper client through `Client`/`Builder`/`handshake`.
pub const FILE_ONLY_NEEDLES: &[&str] = &[
    "axum",
    "tonic",
    "warp",
    "hyper",
    "terminate",
    "interrupt",
    "object_store",
    ".serve(",
];

/// Whether the identifier around `bytes[start..end]` (a `spawn` needle) is a spawn's
/// name a rule reads (`spawn`, `spawn_blocking`, `spawn_named`, ...) or a configured one
/// (a needle of its own), or a macro's: a method that only starts with the word
/// (`self.spawn_shell_task(..)`, `respawn`) keeps no body (a re-export renaming a spawn is
/// an imported name or a re-export word of its own).
fn spawn_name(bytes: &[u8], start: usize, end: usize, needles: &[String]) -> bool {
    let mut a = start;
    while a > 0 && is_ident(bytes[a - 1]) {
        a -= 1;
    }
    let mut b = end;
    while b < bytes.len() && is_ident(bytes[b]) {
        b += 1;
    }
    let ident = &bytes[a..b];
    // a macro that spawns (`background_spawn!(..)`: an `Executor` wrapping its own spawn)
    let macro_call = bytes.get(b) == Some(&b'!') && bytes.get(b + 1) != Some(&b'=');
    macro_call
        || std::str::from_utf8(ident).is_ok_and(is_spawn_name)
        || needles.iter().any(|n| n.as_bytes() == ident)
}

/// Whether `ident` is the name of a spawn a rule knows (`spawn`, `spawn_blocking`,
/// `spawn_local`, `spawn_thread`, ..): a statement naming one is kept by the pruner.
///
/// # Examples
/// ```
/// use shutdown_lint::prune::is_spawn_name;
/// assert!(is_spawn_name("spawn") && is_spawn_name("spawn_blocking"));
/// assert!(!is_spawn_name("spawn_shell_task") && !is_spawn_name("respawn"));
/// ```
pub fn is_spawn_name(ident: &str) -> bool {
    static KNOWN: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
    KNOWN
        .get_or_init(|| {
            crate::resolve::known::all_paths()
                .filter_map(|p| p.rsplit("::").next())
                .filter(|last| last.contains("spawn"))
                .chain(["spawn"])
                .collect()
        })
        .contains(ident)
}

/// What [`BodyFilter::prune_with`] blanks besides function bodies naming no word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PruneOptions<'a> {
    /// Test modules and test functions go, whatever they name (the linter skips them
    /// unless `include-tests`).
    pub skip_tests: bool,
    /// The contents of `struct`, `enum`, `union`, `trait` and `impl` blocks naming no word
    /// go. Their field and method names are listed in [`Pruned::hidden`]: a field whose
    /// type is a workspace alias or wrapper (`rt: Rt`) names no word, so the engine
    /// analyses the file again with its declarations when another file's chain asks for
    /// one of those names.
    pub declarations: bool,
    /// Declarations that declare one of these names ([`Pruned::hidden`] keys), or are of
    /// a type one of these keys names (`Worker::rt` keeps every `impl Worker`), stay,
    /// whatever they name.
    pub reveal: Option<&'a crate::workspace::NameSet>,
    /// The whole file is test code (`tests/`, `benches/`): see [`Self::test_code_macros`].
    pub test_file: bool,
    /// In test code that is kept (a test file, a `#[test]` function, a `#[cfg(test)]`
    /// module, when tests are linted), the tokens of a macro invocation that name no word
    /// go (`assert_eq!(..)`, `format!(..)`): no rule reads them, and the calls they hold
    /// matter only to the call graph from a binary's `main`, which test code is not on.
    pub test_code_macros: bool,
    /// Every function body goes, whatever it names, and so does every declaration
    /// [`Self::reveal`] does not keep: the engine's second look at a file only reads the
    /// declarations it reveals (the first look read those naming a word, so only the
    /// blanked ones that name none are listed in [`Pruned::hidden`]).
    pub declarations_only: bool,
}

impl Default for PruneOptions<'_> {
    fn default() -> Self {
        PruneOptions {
            skip_tests: false,
            declarations: true,
            reveal: None,
            test_file: false,
            test_code_macros: false,
            declarations_only: false,
        }
    }
}

/// A pruned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// The text, every byte at its offset.
    pub text: String,
    /// The fields and methods declared in blanked declarations, sorted.
    pub hidden: Vec<String>,
    /// What was blanked, `(open, close)`, the contents between two byte offsets: of a `{`
    /// and its `}`, or of the byte before a line doc comment and the comment's end
    /// ([`crate::compact::compact`] removes those contents).
    pub blanked: Vec<(usize, usize)>,
}

/// The words that keep a body, matched in one pass over the file each.
#[derive(Debug, Clone)]
pub struct BodyFilter {
    /// `None` when the automata could not be built (configured words past the library's
    /// limits): then nothing is pruned.
    automata: Option<Automata>,
}

#[derive(Debug, Clone)]
struct Automata {
    /// The byte scan's needles: anywhere (`tokio::spawn`, `reqwest`), but `spawn` only in a
    /// spawn's name (see [`spawn_name`]).
    needles: Arc<AhoCorasick>,
    /// The needles' text, by pattern.
    needle_list: Arc<Vec<String>>,
    /// [`BODY_WORDS`]: at the start of an identifier (`Handle::current`, `.build()`, not
    /// `MetastoreServiceClient`).
    words: Arc<AhoCorasick>,
    /// Which imported paths a rule can reach (see [`BodyFilter::with_imports`]).
    imports: Option<ImportFilter>,
}

/// Whether an imported path (`reqwest::Url`) leads to a path a rule knows.
#[derive(Clone)]
struct ImportFilter(Arc<dyn Fn(&str) -> bool + Send + Sync>);

impl std::fmt::Debug for ImportFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ImportFilter")
    }
}

/// One leftmost-longest automaton over `words` (sorted, without duplicates) and the list
/// its pattern indices point into. Every package of a workspace asks for (nearly) the same
/// words, for the pruner and for the byte scan ([`crate::analysis::Analyzer::may_match`]):
/// each list is built once per process (a build is ~0.1–0.2 ms, about the time it saves
/// on 100 KB of text). Leftmost-longest lets the search use its vectorised prefilter (the
/// standard kind was 6x slower on quickwit's sources); an occurrence it steps over
/// overlaps a reported one, so it is on the same line and in the same body.
pub(crate) fn needle_automaton(words: Vec<String>) -> Option<(Arc<Vec<String>>, Arc<AhoCorasick>)> {
    type Built = (Arc<Vec<String>>, Arc<AhoCorasick>);
    static BUILT: Mutex<Vec<Built>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((w, a)) = built.iter().find(|(w, _)| **w == words) {
        return Some((w.clone(), a.clone()));
    }
    let a = AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
        .build(&words)
        .ok()?;
    let b = (Arc::new(words), Arc::new(a));
    if built.len() < 64 {
        built.push(b.clone());
    }
    Some(b)
}

/// The line doc comments `docs` ([`code_and_doc_lines`]'s second half) as ranges for
/// [`crate::compact::compact`]: each from the byte before it, up to its end, so its
/// newline stays between the tokens around it (one at the very start of the text stays).
pub(crate) fn doc_comment_ranges(
    docs: &[(usize, usize)],
) -> impl Iterator<Item = (usize, usize)> + '_ {
    docs.iter()
        .filter(|&&(from, _)| from > 0)
        .map(|&(from, to)| (from - 1, to))
}

impl BodyFilter {
    /// A filter keeping bodies that mention any of `needles` (anywhere) or of
    /// [`BODY_WORDS`] (at the start of an identifier). The byte scan's needles minus
    /// [`FILE_ONLY_NEEDLES`] are what the analyzer passes.
    ///
    /// # Examples
    /// ```
    /// let f = shutdown_lint::prune::BodyFilter::new(["reqwest"]);
    /// let src = "fn a() { let x = 1 + 2; }\nfn b() { reqwest::get(u); }\n";
    /// let out = f.prune(src).unwrap();
    /// assert_eq!(out.len(), src.len());
    /// assert!(out.starts_with("fn a() {"));
    /// assert!(!out.contains("1 + 2"));
    /// assert!(out.contains("reqwest::get(u);"));
    /// ```
    pub fn new<'w>(needles: impl IntoIterator<Item = &'w str>) -> BodyFilter {
        let mut all: Vec<String> = needles.into_iter().map(str::to_string).collect();
        all.sort_unstable();
        all.dedup();
        static WORDS: OnceLock<Option<Arc<AhoCorasick>>> = OnceLock::new();
        let needles = needle_automaton(all);
        let words = WORDS
            .get_or_init(|| {
                // the longest word at a place (`ClientBuilder`, not `Client`)
                AhoCorasick::builder()
                    .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                    .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
                    .build(BODY_WORDS)
                    .ok()
                    .map(Arc::new)
            })
            .clone();
        let automata = needles
            .zip(words)
            .map(|((needle_list, needles), words)| Automata {
                needles,
                needle_list,
                words,
                imports: None,
            });
        BodyFilter { automata }
    }

    /// The same filter, where a name imported by a `use` keeps a body only when `leads`
    /// says its path (`reqwest::Client`, written as imported) can reach a path a rule
    /// knows: `use reqwest::Url;` names a needle's crate, but `Url::parse(..)` is nothing
    /// a rule reads.
    ///
    /// # Examples
    /// ```
    /// let f = shutdown_lint::prune::BodyFilter::new(["reqwest"])
    ///     .with_imports(|path| path == "reqwest::Client");
    /// let src = "use reqwest::{Client as Http, Url};\n\
    ///            fn a() { let c = Http::new(); }\nfn b() { let u = Url::parse(s); }\n";
    /// let out = f.prune(src).unwrap();
    /// assert!(out.contains("Http::new()"));
    /// assert!(!out.contains("Url::parse"));
    /// ```
    pub fn with_imports(mut self, leads: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        if let Some(a) = &mut self.automata {
            a.imports = Some(ImportFilter(Arc::new(leads)));
        }
        self
    }

    /// `text` with the contents of every function body that mentions none of the words
    /// blanked, or `None` when nothing was blanked (or the file must not be pruned).
    pub fn prune(&self, text: &str) -> Option<String> {
        self.prune_with(text, PruneOptions::default())
            .map(|p| p.text)
    }

    /// [`Self::prune`] as `opts` say: whether declarations naming no word go too, and
    /// whether test code goes whatever it names.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::prune::{BodyFilter, PruneOptions};
    /// let f = BodyFilter::new(["reqwest"]);
    /// let src = "fn a() { reqwest::get(u); }\n\
    ///            struct S { rt: Rt }\n\
    ///            #[cfg(test)]\nmod tests {\n    fn t() { reqwest::get(u); }\n}\n";
    /// let keep_tests = PruneOptions { skip_tests: false, ..PruneOptions::default() };
    /// let out = f.prune_with(src, keep_tests).unwrap();
    /// assert_eq!(out.text.matches("reqwest::get").count(), 2);
    /// assert!(!out.text.contains("rt: Rt"));
    /// assert_eq!(out.hidden, ["S::rt", "rt"]);
    /// let skip_tests = PruneOptions { skip_tests: true, declarations: false, ..PruneOptions::default() };
    /// let out = f.prune_with(src, skip_tests).unwrap();
    /// assert_eq!(out.text.matches("reqwest::get").count(), 1);
    /// assert!(out.text.contains("rt: Rt"));
    /// ```
    pub fn prune_with(&self, text: &str, opts: PruneOptions<'_>) -> Option<Pruned> {
        self.automata.as_ref()?.prune(text, opts)
    }
}

impl Automata {
    fn prune(&self, text: &str, opts: PruneOptions<'_>) -> Option<Pruned> {
        let (code, docs) = code_and_doc_lines(text);
        let mut file_words = Vec::new();
        if !self.imported_names(text, &code, &mut file_words) {
            return None;
        }
        // every place the code names a word (a word in a comment or a literal — a doc
        // comment saying `SIGTERM` — keeps nothing), and every suppression comment: the
        // body it is in stays, so the suppression finds what it suppresses
        let b = text.as_bytes();
        let mut hits: Vec<usize> = self
            .hits(&code, &file_words)
            .chain(memchr::memmem::find_iter(
                b,
                crate::suppress::MARKER.as_bytes(),
            ))
            .collect();
        hits.sort_unstable();
        let mentions = |from: usize, to: usize| {
            let i = hits.partition_point(|&h| h < from);
            hits.get(i).is_some_and(|&h| h < to)
        };
        // the contents of these braces go: `(open, close)`, byte offsets of `{` and `}`
        let mut blank: Vec<(usize, usize)> = Vec::new();
        // every function body met (kept or blanked): macros inside are not item macros
        let mut bodies: Vec<(usize, usize)> = Vec::new();
        // kept test code whose macro tokens naming no word go
        let test_macros = opts.test_code_macros && !opts.skip_tests && !opts.declarations_only;
        let test_mods = if test_macros && !opts.test_file {
            test_mod_bodies(text, &code)
        } else {
            Vec::new()
        };
        let mut test_bodies: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while let Some(at) = next_fn(&code, i) {
            let Some((open, close)) = body_of(&code, at + 2) else {
                i = at + 2;
                continue;
            };
            bodies.push((open, close));
            let is_test = (opts.skip_tests || test_macros) && test_attrs_before(text, &code, at);
            let named = mentions(open, close);
            if opts.declarations_only || (opts.skip_tests && is_test) {
                blank.push((open, close));
                i = close + 1;
            } else if named
                || params_of(&code, at, open).is_some_and(|(po, pc)| {
                    PARAM_WORDS
                        .iter()
                        .any(|w| find_word(&code[po..pc], w.as_bytes(), 0).is_some())
                })
            {
                if test_macros
                    && (opts.test_file
                        || is_test
                        || test_mods.iter().any(|&(o, c)| o < open && close < c))
                {
                    test_bodies.push((open, close));
                }
                if named {
                    // (a body kept for a parameter's type keeps every statement)
                    statements::blank_statements(
                        &code,
                        open,
                        close,
                        &hits,
                        statements::Ties::Both,
                        &mut blank,
                    );
                }
                i = open + 1; // nested functions are looked at on their own
            } else {
                blank.push((open, close));
                i = close + 1;
            }
        }
        self.item_macros(&code, &file_words, &bodies, &mut blank);
        for &(open, close) in &test_bodies {
            for (mopen, mclose) in macro_calls(&code, open, close) {
                if !mentions(mopen, mclose) {
                    blank.push((mopen, mclose));
                }
            }
        }
        let mut hidden = Vec::new();
        for kw in TYPE_ITEMS.iter().filter(|_| opts.declarations) {
            let mut i = 0;
            while let Some(at) = find_word(&code, kw.as_bytes(), i) {
                i = at + kw.len();
                if !starts_item(&code, at, kw) {
                    continue;
                }
                let Some((open, close)) = body_of(&code, i) else {
                    continue;
                };
                // an item naming a word is kept by the first analysis, which read its
                // declarations: a second look for declarations needs only what it reveals
                let known = mentions(at, close);
                if opts.declarations_only || !known {
                    let owner = owner_name(&code[at + kw.len()..open], kw);
                    let mut names = Vec::new();
                    declared_names(&code[open + 1..close], kw, owner, &mut names);
                    let revealed = opts.reveal.is_some_and(|r| {
                        names.iter().any(|n| r.contains(n))
                            || owner.is_some_and(|o| {
                                r.contains(&format!("{}::", String::from_utf8_lossy(o)))
                            })
                    });
                    if revealed {
                        continue;
                    }
                    if !known {
                        hidden.extend(names);
                    }
                    blank.push((open, close));
                }
            }
        }
        if opts.skip_tests {
            blank.extend(test_mod_bodies(text, &code));
        }
        if blank.is_empty() {
            return None;
        }
        // line doc comments go too (the parser makes each a `#[doc]` attribute no rule
        // reads: on generated protobuf code, most of what is left)
        blank.extend(doc_comment_ranges(&docs));
        hidden.sort_unstable();
        hidden.dedup();
        let text = blank_contents(text, &blank)?;
        Some(Pruned {
            text,
            hidden,
            blanked: blank,
        })
    }

    /// Blanks the contents of item-level macros no rule reads: every `macro_rules!`
    /// definition that writes no `spawn` (the collector reads only the spawns of a
    /// definition, see [`crate::macro_definition`]), and
    /// each invocation outside function bodies (`make_config! { .. }`, `lazy_static! { .. }`)
    /// whose code, comments and literals aside, names no word: the collector only records
    /// the calls in such a body, and a pruned file's calls are read from its text.
    fn item_macros(
        &self,
        code: &[u8],
        file_words: &[String],
        bodies: &[(usize, usize)],
        blank: &mut Vec<(usize, usize)>,
    ) {
        // the outermost bodies, in order (a nested one follows the body it is in)
        let outer = outermost(bodies.iter().copied());
        let in_body = |at: usize| {
            let i = outer.partition_point(|&(open, _)| open < at);
            i > 0 && at < outer[i - 1].1
        };
        let mut i = 0;
        while let Some(bang) = memchr::memchr(b'!', &code[i..]).map(|k| i + k) {
            i = bang + 1;
            let Some(inv) = invocation_at(code, bang) else {
                continue;
            };
            let item_start = code[..inv.path_start]
                .iter()
                .rposition(|c| !c.is_ascii_whitespace())
                .is_none_or(|k| matches!(code[k], b';' | b'}' | b'{' | b']'));
            if !item_start || in_body(bang) {
                continue;
            }
            let Some(close) = matching(code, inv.open, code[inv.open], inv.closing) else {
                break;
            };
            let keep = if inv.definition {
                // a spawn the definition writes is reported there (`crate::macro_definition`)
                memchr::memmem::find(&code[inv.open..close], b"spawn").is_some()
            } else {
                // a runtime a `lazy_static!` holds is a receiver spawns are asked of
                // (`static ref RUNTIME: Runtime = ..;`, then `RUNTIME.spawn(..)`)
                let body = &code[inv.open..close];
                self.code_mentions(body, file_words)
                    || std::str::from_utf8(&code[inv.path_start..bang])
                        .is_ok_and(|name| crate::macros::is_runtime_lazy_static(name, body))
            };
            if !keep {
                blank.push((inv.open, close));
            }
            i = close + 1;
        }
    }

    /// Whether code (comments and literal contents blank) names a needle, a body word or
    /// one of `file_words` (imported names), as [`Self::prune`] counts them.
    fn code_mentions(&self, code: &[u8], file_words: &[String]) -> bool {
        self.hits(code, file_words).next().is_some()
    }

    /// Where `bytes` names a needle (anywhere), a body word (at the start of an identifier;
    /// [`WHOLE_WORDS`] as whole identifiers) or one of `file_words` (whole identifiers), in
    /// no particular order.
    fn hits<'s>(
        &'s self,
        bytes: &'s [u8],
        file_words: &'s [String],
    ) -> impl Iterator<Item = usize> + 's {
        let starts_ident = move |at: usize| at == 0 || !is_ident(bytes[at - 1]);
        let ends_ident = move |end: usize| !bytes.get(end).is_some_and(|&c| is_ident(c));
        let needles = self
            .needles
            .find_iter(bytes)
            .filter(move |m| {
                self.needle_list[m.pattern().as_usize()] != "spawn"
                    || spawn_name(bytes, m.start(), m.end(), &self.needle_list)
            })
            .map(|m| m.start());
        let words = self
            .words
            .find_iter(bytes)
            .filter(move |m| {
                let word = BODY_WORDS[m.pattern().as_usize()];
                // a method word (`.build`) starts at its own dot, whatever is before it
                // (`builder.build()`), and is the whole method name (not
                // `.build_from_inner_client`)
                if word.starts_with('.') {
                    ends_ident(m.end())
                } else if word == "spawn" {
                    spawn_name(bytes, m.start(), m.end(), &self.needle_list)
                } else {
                    starts_ident(m.start()) && (!WHOLE_WORDS.contains(&word) || ends_ident(m.end()))
                }
            })
            .map(|m| m.start());
        let imported = file_words.iter().flat_map(move |w| {
            memchr::memmem::find_iter(bytes, w.as_bytes())
                .filter(move |&at| starts_ident(at) && ends_ident(at + w.len()))
        });
        needles.chain(words).chain(imported)
    }

    /// Adds the local names of what each `use` brings in from a path that mentions a
    /// needle (`use reqwest::Client as Http;` adds `Http`); `false` when one of those is a
    /// glob (then any name may matter and nothing is pruned).
    fn imported_names(&self, text: &str, code: &[u8], out: &mut Vec<String>) -> bool {
        let mut i = 0;
        while let Some(at) = find_word(code, b"use", i) {
            // `impl Future + use<'a>` (precise capturing) imports nothing
            if code.get(skip_ws(code, at + 3)) == Some(&b'<') {
                i = at + 3;
                continue;
            }
            let Some(len) = code[at..].iter().position(|&c| c == b';') else {
                break;
            };
            let stmt = &text[at..=at + len];
            i = at + len;
            if !self.mentions(stmt) {
                continue;
            }
            let Ok(tree) = syn::parse_str::<syn::ItemUse>(stmt).map(|u| u.tree) else {
                return false; // not understood: keep everything
            };
            if !self.leaves(&tree, &mut String::new(), out) {
                return false;
            }
        }
        out.sort_unstable();
        out.dedup();
        true
    }

    /// Whether an imported path can reach a path a rule knows (every path can when no
    /// [`BodyFilter::with_imports`] filter is set).
    fn leads(&self, path: &str) -> bool {
        self.imports.as_ref().is_none_or(|f| (f.0)(path))
    }

    /// Whether an import path mentions a needle or a body word.
    fn mentions(&self, path: &str) -> bool {
        let b = path.as_bytes();
        self.needles.is_match(path)
            || self
                .words
                .find_iter(path)
                .any(|m| m.start() == 0 || !is_ident(b[m.start() - 1]))
    }

    /// The local names of the leaves of `tree` whose path (`prefix` plus the leaf) mentions
    /// a needle; `false` for such a glob.
    fn leaves(&self, tree: &syn::UseTree, prefix: &mut String, out: &mut Vec<String>) -> bool {
        match tree {
            syn::UseTree::Path(p) => {
                let len = prefix.len();
                prefix.push_str(&p.ident.to_string());
                prefix.push_str("::");
                let ok = self.leaves(&p.tree, prefix, out);
                prefix.truncate(len);
                ok
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let path = if name == "self" {
                    prefix.trim_end_matches("::").to_string()
                } else {
                    format!("{prefix}{name}")
                };
                if self.mentions(&path) && self.leads(&path) {
                    let local = if name == "self" {
                        prefix
                            .trim_end_matches("::")
                            .rsplit("::")
                            .next()
                            .unwrap_or("")
                    } else {
                        &name
                    };
                    out.push(local.to_string());
                }
                true
            }
            syn::UseTree::Rename(r) => {
                let path = format!("{prefix}{}", r.ident);
                let path = path.strip_suffix("::self").unwrap_or(&path);
                if self.mentions(path) && self.leads(path) {
                    out.push(r.rename.to_string());
                }
                true
            }
            syn::UseTree::Glob(_) => !self.mentions(prefix),
            syn::UseTree::Group(g) => g.items.iter().all(|t| self.leaves(t, prefix, out)),
        }
    }
}

/// Items whose braces hold declarations: their contents go when they mention no word (a
/// struct's fields, an impl's methods: the workspace model only reads those naming a
/// type a rule knows).
const TYPE_ITEMS: &[&str] = &["struct", "enum", "union", "trait", "impl"];

/// The name of the type a `kw` item declares or implements, from the `header` between the
/// keyword and its `{`: `S` of `struct S<T>`, `W` of `impl<T> fmt::Debug for crate::W<T>`.
fn owner_name<'a>(header: &'a [u8], kw: &str) -> Option<&'a [u8]> {
    let mut h = header.trim_ascii_start();
    if kw == "impl" && h.first() == Some(&b'<') {
        // the impl's own generics
        let mut depth = 0usize;
        let end = (0..h.len()).find(|&k| {
            match h[k] {
                b'<' => depth += 1,
                // not the `>` of `->` (`impl<F: Fn() -> u8>`)
                b'>' if k == 0 || h[k - 1] != b'-' => depth -= 1,
                _ => {}
            }
            depth == 0
        })?;
        h = h[end + 1..].trim_ascii_start();
    }
    if kw == "impl" {
        // `Trait for Type`: the type (`for` at the top level of the header)
        let mut depth = 0usize;
        let mut k = 0;
        while k < h.len() {
            match h[k] {
                b'<' | b'(' => depth += 1,
                b'>' if k > 0 && h[k - 1] == b'-' => {}
                b'>' | b')' => depth = depth.saturating_sub(1),
                _ if depth == 0
                    && h[k..].starts_with(b"for")
                    && (k == 0 || !is_ident(h[k - 1]))
                    && !h.get(k + 3).is_some_and(|&c| is_ident(c)) =>
                {
                    h = h[k + 3..].trim_ascii_start();
                    break;
                }
                _ => {}
            }
            k += 1;
        }
    }
    // the path up to its generics: its last segment
    let end = h
        .iter()
        .position(|&c| !(is_ident(c) || c == b':'))
        .unwrap_or(h.len());
    let path = &h[..end];
    let start = path.iter().rposition(|&c| c == b':').map_or(0, |p| p + 1);
    let name = &path[start..];
    (!name.is_empty()).then_some(name)
}

/// Adds the names `body` (the inside of a blanked `kw` block of type `owner`) declares at
/// its top level, plain (`rt`) and with the owner (`Worker::rt`): fields (`name: Type`) of
/// a struct or union, methods (`fn name`) of an impl or trait.
fn declared_names(body: &[u8], kw: &str, owner: Option<&[u8]>, out: &mut Vec<String>) {
    let mut push = |name: &[u8]| {
        let name = String::from_utf8_lossy(name);
        if let Some(o) = owner {
            out.push(format!("{}::{name}", String::from_utf8_lossy(o)));
        }
        out.push(name.into_owned());
    };
    if kw == "enum" {
        return variant_field_names(body, out);
    }
    let fields = matches!(kw, "struct" | "union");
    let methods = matches!(kw, "impl" | "trait");
    if !fields && !methods {
        return;
    }
    let mut depth = 0usize;
    let mut k = 0;
    while k < body.len() {
        let c = body[k];
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ if depth == 0 && is_ident(c) && (k == 0 || !is_ident(body[k - 1])) => {
                let start = k;
                while k < body.len() && is_ident(body[k]) {
                    k += 1;
                }
                let word = &body[start..k];
                let mut j = k;
                while body.get(j).is_some_and(u8::is_ascii_whitespace) {
                    j += 1;
                }
                if fields && body.get(j) == Some(&b':') && body.get(j + 1) != Some(&b':') {
                    push(word);
                } else if methods && word == b"fn" {
                    let n = j;
                    while j < body.len() && is_ident(body[j]) {
                        j += 1;
                    }
                    if j > n {
                        push(&body[n..j]);
                    }
                }
                continue;
            }
            _ => {}
        }
        k += 1;
    }
}

/// The fields of an enum's variants, each named with its variant as a struct's with its
/// type (`Tokio::0` of `Tokio(TokioHandle)`, `Owned::rt` of `Owned { rt: Runtime }`): what
/// a pattern binding one asks the workspace model for (`Self::Tokio(handle) => ..`).
fn variant_field_names(body: &[u8], out: &mut Vec<String>) {
    out.extend(
        enum_variant_fields(body)
            .into_iter()
            .map(|(v, f)| format!("{}::{f}", String::from_utf8_lossy(v))),
    );
}

/// The variants of an enum's `body` (between its braces) that hold fields, each with a
/// field's name: its position in a tuple variant (`Tokio(TokioHandle)`: `0`), its name in
/// a struct variant (`Owned { rt: Runtime }`: `rt`). Attributes and discriminants are
/// skipped.
///
/// # Examples
/// ```
/// use shutdown_lint::prune::enum_variant_fields;
/// let body = b" #[cfg(unix)] Tokio(Handle, Box<dyn Fn() -> u8>), Sim, Owned { rt: Runtime }, Code = 3 ";
/// let found: Vec<(String, String)> = enum_variant_fields(body)
///     .into_iter()
///     .map(|(v, f)| (String::from_utf8_lossy(v).into_owned(), f))
///     .collect();
/// let pairs: Vec<(&str, &str)> = found.iter().map(|(v, f)| (v.as_str(), f.as_str())).collect();
/// assert_eq!(pairs, [("Tokio", "0"), ("Tokio", "1"), ("Owned", "rt")]);
/// ```
pub fn enum_variant_fields(body: &[u8]) -> Vec<(&[u8], String)> {
    let mut out = Vec::new();
    let mut k = 0;
    let mut variant: Option<&[u8]> = None;
    while k < body.len() {
        let c = body[k];
        if c == b'#' {
            // an attribute: `#[cfg(..)]`
            k = skip_group(body, skip_ws(body, k + 1));
            continue;
        }
        if is_ident(c) && (k == 0 || !is_ident(body[k - 1])) {
            let start = k;
            while k < body.len() && is_ident(body[k]) {
                k += 1;
            }
            variant = Some(&body[start..k]);
            continue;
        }
        match (c, variant) {
            (b'(', Some(v)) => {
                let end = skip_group(body, k);
                let inner = &body[k + 1..end.saturating_sub(1).max(k + 1)];
                for i in 0..top_level_items(inner) {
                    out.push((v, i.to_string()));
                }
                variant = None;
                k = end;
            }
            (b'{', Some(v)) => {
                let end = skip_group(body, k);
                let mut names = Vec::new();
                let inner = &body[k + 1..end.saturating_sub(1).max(k + 1)];
                declared_names(inner, "struct", None, &mut names);
                out.extend(names.into_iter().map(|n| (v, n)));
                variant = None;
                k = end;
            }
            (b'=', _) => {
                // a discriminant: up to the next variant
                variant = None;
                while k < body.len() && body[k] != b',' {
                    k += 1;
                }
            }
            (b',', _) => {
                variant = None;
                k += 1;
            }
            _ => k += 1,
        }
    }
    out
}

/// The index just past the bracketed group that opens at `at` (nested groups counted), or
/// `at` when no group opens there.
fn skip_group(body: &[u8], at: usize) -> usize {
    let close = match body.get(at) {
        Some(b'(') => b')',
        Some(b'[') => b']',
        Some(b'{') => b'}',
        _ => return at,
    };
    matching(body, at, body[at], close).map_or(body.len(), |c| c + 1)
}

/// How many comma-separated items a group's contents hold at their top level (a trailing
/// comma ends none): `Handle, u8` is 2, `Vec<(u8, u8)>,` is 1.
fn top_level_items(inner: &[u8]) -> usize {
    let (mut items, mut depth, mut any) = (0, 0usize, false);
    for (k, &c) in inner.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            // not the `>` of `->` (`Box<dyn Fn() -> u8>`)
            b'>' if k > 0 && inner[k - 1] == b'-' => {}
            b')' | b']' | b'}' | b'>' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                if any {
                    items += 1;
                }
                any = false;
                continue;
            }
            _ => {}
        }
        any |= !c.is_ascii_whitespace();
    }
    items + usize::from(any)
}

/// Whether the keyword `kw` at `at` starts an item (`impl X {`, not `-> impl Future {`;
/// `struct S`, not a field named `union`).
fn starts_item(code: &[u8], at: usize, kw: &str) -> bool {
    let before = code[..at].iter().rposition(|c| !c.is_ascii_whitespace());
    let prev = before.map(|k| code[k]);
    let after_word = |w: &[u8]| {
        before.is_some_and(|k| k + 1 >= w.len() && &code[k + 1 - w.len()..=k] == w)
            && before.is_some_and(|k| k + 1 == w.len() || !is_ident(code[k - w.len()]))
    };
    let item_start = matches!(prev, None | Some(b';' | b'}' | b'{' | b']'))
        || after_word(b"unsafe")
        || after_word(b"pub")
        || after_word(b"auto")
        || after_word(b"default")
        // `pub(crate) struct`
        || (prev == Some(b')') && kw != "impl");
    if !item_start {
        return false;
    }
    if kw == "impl" {
        return true;
    }
    // a name follows
    let mut j = at + kw.len();
    while code.get(j).is_some_and(u8::is_ascii_whitespace) {
        j += 1;
    }
    code.get(j)
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
}

/// Whether the item whose keyword (`fn`, `mod`) is at `at` carries a test attribute: the
/// attributes and qualifiers written before it (`#[cfg(test)]`, `#[tokio::test]`, `pub`,
/// `async`, ..) are read backwards.
fn test_attrs_before(text: &str, code: &[u8], at: usize) -> bool {
    const QUALIFIERS: &[&[u8]] = &[b"pub", b"async", b"unsafe", b"const", b"extern", b"default"];
    let mut k = at;
    loop {
        while k > 0 && code[k - 1].is_ascii_whitespace() {
            k -= 1;
        }
        if k == 0 {
            return false;
        }
        match code[k - 1] {
            b']' => {
                // an attribute: back to its `#[`
                let mut depth = 0usize;
                let mut j = k;
                let open = loop {
                    if j == 0 {
                        return false;
                    }
                    j -= 1;
                    match code[j] {
                        b']' => depth += 1,
                        b'[' => {
                            depth -= 1;
                            if depth == 0 {
                                break j;
                            }
                        }
                        _ => {}
                    }
                };
                if open == 0 || code[open - 1] != b'#' {
                    return false;
                }
                if crate::testcode::is_test_attr_text(&text[open + 1..k - 1]) {
                    return true;
                }
                k = open - 1;
            }
            b')' => {
                // `pub(crate)`, `pub(in path)`
                let Some(open) = code[..k].iter().rposition(|&c| c == b'(') else {
                    return false;
                };
                k = open;
            }
            b'"' => {
                // `extern "C"`: the literal's contents are blank in `code`
                let Some(open) = code[..k - 1].iter().rposition(|&c| c == b'"') else {
                    return false;
                };
                k = open;
            }
            c if is_ident(c) => {
                let start = code[..k]
                    .iter()
                    .rposition(|&c| !is_ident(c))
                    .map_or(0, |p| p + 1);
                if !QUALIFIERS.contains(&&code[start..k]) {
                    return false;
                }
                k = start;
            }
            _ => return false,
        }
    }
}

/// The next `fn name` (a function item, not a `fn(..)` pointer type) at or after `from`.
fn next_fn(code: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        let at = find_word(code, b"fn", i)?;
        let mut j = at + 2;
        while code.get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        if code
            .get(j)
            .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
        {
            return Some(at);
        }
        i = at + 2;
    }
}

/// The parentheses of the parameter list of the function whose `fn` is at `at` and whose
/// body opens at `open` (generics skipped, `->` in their bounds too).
fn params_of(code: &[u8], at: usize, open: usize) -> Option<(usize, usize)> {
    let mut i = at + 2;
    while code.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i += 1;
    }
    while code.get(i).is_some_and(|&c| is_ident(c)) {
        i += 1;
    }
    while code.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i += 1;
    }
    if code.get(i) == Some(&b'<') {
        let mut depth = 0usize;
        while i < open {
            match code[i] {
                b'<' => depth += 1,
                b'>' if code[i - 1] != b'-' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        i += 1;
    }
    let po = i + code.get(i..open)?.iter().position(|&c| c == b'(')?;
    let pc = matching(code, po, b'(', b')')?;
    (pc < open).then_some((po, pc))
}

/// The head of a macro invocation whose `!` is at `bang` (code only): `path!` then an
/// opening delimiter, or a definition `macro_rules! name` then one.
pub(super) struct Invocation {
    /// Where the macro's path starts.
    path_start: usize,
    /// The last byte of the path (the `!` may follow after whitespace).
    name_end: usize,
    /// `macro_rules! name { .. }`.
    definition: bool,
    /// The opening delimiter, and the byte that closes it.
    open: usize,
    closing: u8,
}

/// The invocation whose `!` is at `bang`, or `None` for a negation, a `!=`, or a `!` not
/// followed by a delimiter. Its closing delimiter is left to the caller ([`matching`]),
/// which may not need it.
pub(super) fn invocation_at(code: &[u8], bang: usize) -> Option<Invocation> {
    let name_end = code[..bang]
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())?;
    if !is_ident(code[name_end]) {
        return None;
    }
    let path_start = code[..=name_end]
        .iter()
        .rposition(|&c| !(is_ident(c) || c == b':'))
        .map_or(0, |k| k + 1);
    let definition = &code[path_start..=name_end] == b"macro_rules";
    let mut open = skip_ws(code, bang + 1);
    if definition {
        while code.get(open).is_some_and(|&c| is_ident(c)) {
            open += 1;
        }
        open = skip_ws(code, open);
    }
    let closing = match code.get(open)? {
        b'{' => b'}',
        b'(' => b')',
        b'[' => b']',
        _ => return None,
    };
    Some(Invocation {
        path_start,
        name_end,
        definition,
        open,
        closing,
    })
}

/// `text` with the contents of its test code blanked, every byte at its offset: the
/// bodies of the modules and functions marked as test code (`#[cfg(test)] mod tests { .. }`,
/// `#[test] fn t() { .. }`), as [`PruneOptions::skip_tests`] finds them; everything else
/// as written. [`Pruned::blanked`] holds the outermost bodies blanked, so that
/// [`crate::compact::compact`] can leave them out of a parse. `None` when there is none.
///
/// # Examples
/// ```
/// use shutdown_lint::prune::without_test_code;
/// let src = "fn run() { go(); }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { go(); }\n}\n";
/// let out = without_test_code(src).unwrap();
/// assert_eq!(out.text.len(), src.len());
/// assert_eq!(out.text.matches("go()").count(), 1);
/// let compacted = shutdown_lint::compact::compact(&out.text, &out.blanked).text;
/// assert_eq!(compacted, "fn run() { go(); }\n#[cfg(test)]\nmod tests {}\n");
/// assert!(without_test_code("fn run() { go(); }").is_none());
/// ```
pub fn without_test_code(text: &str) -> Option<Pruned> {
    let (code, _) = code_and_doc_lines(text);
    let mut blank = test_mod_bodies(text, &code);
    let mut i = 0;
    while let Some(at) = next_fn(&code, i) {
        i = at + 2;
        if test_attrs_before(text, &code, at)
            && let Some((open, close)) = body_of(&code, at + 2)
        {
            blank.push((open, close));
            i = close + 1;
        }
    }
    if blank.is_empty() {
        return None;
    }
    // the outermost only: a test function in a test module goes with the module
    blank.sort_unstable();
    let blanked = outermost(blank);
    Some(Pruned {
        text: blank_contents(text, &blanked)?,
        hidden: Vec::new(),
        blanked,
    })
}

/// The pairs of `sorted` (`(open, close)` offsets of nested or disjoint delimiters, by
/// `open`) that no other pair holds: a nested pair follows the one it is in.
fn outermost(sorted: impl IntoIterator<Item = (usize, usize)>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (open, close) in sorted {
        if out.last().is_none_or(|&(_, c)| open > c) {
            out.push((open, close));
        }
    }
    out
}

/// `text` with the contents of each `(open, close)` pair (the bytes between the two
/// offsets) replaced by spaces, newlines kept: every byte stays at its offset. `None` if
/// that is not UTF-8 (it is whenever the pairs are delimiters or line ends, as the pruner's
/// are: only whole characters go).
fn blank_contents(text: &str, pairs: &[(usize, usize)]) -> Option<String> {
    let mut out = text.as_bytes().to_vec();
    for &(open, close) in pairs {
        if open < close {
            crate::lexscan::blank_keeping_lines(&mut out[open + 1..close]);
        }
    }
    String::from_utf8(out).ok()
}

/// The bodies (`{`, `}` offsets) of the modules marked as test code (`#[cfg(test)] mod
/// tests { .. }`).
fn test_mod_bodies(text: &str, code: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = find_word(code, b"mod", i) {
        i = at + 3;
        if test_attrs_before(text, code, at)
            && let Some(body) = body_of(code, i)
        {
            out.push(body);
        }
    }
    out
}

/// The delimiters of every macro invocation (`name!(..)`, `name![..]`, `name! { .. }`)
/// between `open` and `close`, outermost and nested alike (code only).
fn macro_calls(code: &[u8], open: usize, close: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = open + 1;
    while let Some(n) = memchr::memchr(b'!', &code[from..close]) {
        let bang = from + n;
        from = bang + 1;
        // `name!` with the name right before the bang (not `!x`, `a != b`)
        let Some(inv) = invocation_at(code, bang) else {
            continue;
        };
        if inv.name_end + 1 != bang || inv.definition {
            continue;
        }
        if let Some(end) = matching(code, inv.open, code[inv.open], inv.closing)
            && end < close
        {
            out.push((inv.open, end));
        }
    }
    out
}

/// The braces of the body of the function whose signature starts at `from`: `None` for a
/// declaration without a body, or a signature this scan does not follow (a const generic
/// block `{ N }`: left alone).
fn body_of(code: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    // `<` .. `>` outside parentheses (`->` is not a `>`), and whether a `where` clause
    // began: `where T: Tr<A>, {` ends the clause with a comma, the `{` is the body
    let mut angle = 0usize;
    let mut in_where = false;
    let mut open = None;
    for (k, &c) in code.iter().enumerate().skip(from) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b';' if depth == 0 => return None,
            b'<' if depth == 0 => angle += 1,
            b'>' if depth == 0 && (k == 0 || code[k - 1] != b'-') => {
                angle = angle.saturating_sub(1);
            }
            b'w' if depth == 0
                && code[k..].starts_with(b"where")
                && (k == 0 || !is_ident(code[k - 1]))
                && !code.get(k + 5).is_some_and(|&c| is_ident(c)) =>
            {
                in_where = true;
            }
            b'{' if depth == 0 => {
                let before = code[..k].iter().rev().find(|c| !c.is_ascii_whitespace());
                let clause_end = before == Some(&b',') && in_where && angle == 0;
                if matches!(before, Some(b'<' | b',' | b'=')) && !clause_end {
                    return None;
                }
                open = Some(k);
                break;
            }
            _ => {}
        }
    }
    let open = open?;
    matching(code, open, b'{', b'}').map(|close| (open, close))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter() -> BodyFilter {
        BodyFilter::new(
            crate::resolve::known::NEEDLES
                .iter()
                .copied()
                .filter(|w| !super::FILE_ONLY_NEEDLES.contains(w)),
        )
    }

    #[test]
    fn a_body_after_a_where_clause_with_a_trailing_comma_goes() {
        // rustfmt ends a multi-line `where` clause with a comma: the `{` after it is the
        // body (of a function, or of an `impl`), not a const generic argument
        let src = "fn quiet<S, E>(s: S, f: impl FnMut(u8) -> E) -> Result<(), E>\nwhere\n    \
                   S: Stream<Item = Result<(u8, u8), E>> + Send,\n    E: Error,\n{\n    \
                   let x = parse(s);\n    Ok(())\n}\n\
                   impl<T> Tr for W<T>\nwhere\n    T: Fn() -> u8,\n{\n    \
                   fn run(&self) { tokio::spawn(work()); }\n    \
                   fn other(&self) { compute() }\n}\n\
                   fn sized() -> Foo<1, { N }> { keep() }\n";
        let out = filter().prune(src).unwrap();
        assert!(!out.contains("parse(s)"), "{out}");
        assert!(out.contains("E: Error,\n{"));
        assert!(out.contains("tokio::spawn(work())"), "{out}");
        assert!(!out.contains("compute()"), "{out}");
        // a `{` after `,` inside `<..>` is a const generic block: that signature is left
        // alone, as before
        assert!(out.contains("Foo<1, { N }> { keep() }"), "{out}");
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn keeps_offsets_and_signatures() {
        let src = "/// doc\npub async fn quiet(x: u32) -> Result<(), E> {\n    let s = \"{\";\n    Ok(())\n}\n";
        let out = filter().prune(src).unwrap();
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(out.contains("pub async fn quiet(x: u32) -> Result<(), E> {"));
        assert!(!out.contains("Ok(())"));
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn keeps_bodies_with_words_and_imported_names() {
        let src = "use reqwest::Client as Http;\nfn a() { let c = Http::new(); }\nfn b() { tokio::spawn(x); }\nfn c() { 1 }\n";
        let out = filter().prune(src).unwrap();
        assert!(out.contains("Http::new()"));
        assert!(out.contains("tokio::spawn(x)"));
        assert!(!out.contains("{ 1 }"));
    }

    #[test]
    fn a_parameter_naming_a_word_keeps_its_body() {
        // the parameter's type is what the model binds `starter` to; a return type binds
        // nothing in the body
        let src = "async fn run<F: Fn() -> u8>(f: F, starter: dropshot::HttpServerStarter<C>) { starter.start().await; }\n\
                   fn quiet(x: u32) { x.start(); }\n\
                   fn made() -> reqwest::Result<u8> { Ok(parse()) }\n";
        let out = filter().prune(src).unwrap();
        assert!(out.contains("starter.start().await"));
        assert!(!out.contains("x.start()"));
        assert!(!out.contains("Ok(parse())"));
    }

    #[test]
    fn a_known_glob_import_turns_pruning_off() {
        let src = "use reqwest::*;\nfn a() { let c = get(u); }\n";
        assert!(filter().prune(src).is_none());
    }

    #[test]
    fn precise_capturing_is_not_an_import() {
        // `use<..>` once made the import reader give up, and the whole file was parsed
        let src = "use reqwest::Client;\n\
                   fn status(&self) -> impl Watcher<Value = u8> + use<> {\n    self.inner.status()\n}\n\
                   fn a() { Client::new(); }\n";
        let out = filter().prune(src).expect("pruned");
        assert!(!out.contains("self.inner.status()"));
        assert!(out.contains("+ use<> {"));
        assert!(out.contains("Client::new();"));
    }

    #[test]
    fn nested_functions_and_methods_are_judged_alone() {
        let src = "impl S {\n  fn outer(&self) { fn inner() { 2 } self.rt.spawn(f); }\n  fn other(&self) { 3 }\n}\n";
        let out = filter().prune(src).unwrap();
        assert!(out.contains("self.rt.spawn(f)"));
        assert!(!out.contains("{ 2 }"));
        assert!(!out.contains("{ 3 }"));
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn fn_pointer_types_and_const_generics_are_left_alone() {
        let src = "type F = fn(u8) -> u8;\nfn g() -> Foo<{ N }> { 4 }\n";
        let out = filter().prune(src);
        assert!(out.is_none_or(|o| o.contains("{ N }")));
    }

    #[test]
    fn hidden_declarations_are_named_with_their_type() {
        let src = "impl<T: Clone, F: Fn() -> u8> fmt::Debug for crate::Holder<T> where T: Send {\n    fn fmt(&self) {}\n}\n\
                   pub struct Holder<T> { pub aliased: Rt, inner: (u8, u8), f: fn(x: u8) }\n\
                   impl Holder<u8> { pub fn boxed(&self) -> &Engine { &self.e } }\n";
        let out = filter().prune_with(src, PruneOptions::default()).unwrap();
        assert_eq!(
            out.hidden,
            [
                "Holder::aliased",
                "Holder::boxed",
                "Holder::f",
                "Holder::fmt",
                "Holder::inner",
                "aliased",
                "boxed",
                "f",
                "fmt",
                "inner"
            ]
        );
    }

    #[test]
    fn revealed_names_keep_their_declarations() {
        let src = "struct A { rt: Rt }\nstruct B { other: u8 }\n";
        let reveal = ["rt".to_string()].into_iter().collect();
        let opts = PruneOptions {
            reveal: Some(&reveal),
            ..PruneOptions::default()
        };
        let out = filter().prune_with(src, opts).unwrap();
        assert!(out.text.contains("rt: Rt"));
        assert!(!out.text.contains("other: u8"));
        assert_eq!(out.hidden, ["B::other", "other"]);
    }

    #[test]
    fn declarations_naming_no_word_are_blanked() {
        let src = "#[derive(Clone)]\npub struct Msg {\n    #[prost(string, tag = \"1\")]\n    pub id: String,\n}\n\
                   pub(crate) struct Rt {\n    handle: tokio::runtime::Handle,\n}\n\
                   enum E { A, B(u8) }\nstruct T(u8);\n\
                   impl Msg {\n    pub fn id(&self) -> &str { &self.id }\n}\n\
                   impl Rt {\n    fn handle(&self) -> &Handle { &self.handle }\n}\n\
                   unsafe impl Send for Msg {}\ntrait Codec { fn decode(b: &[u8]) -> Self; }\n";
        let out = filter().prune(src).unwrap();
        assert_eq!(out.len(), src.len());
        assert!(!out.contains("pub id: String"));
        assert!(!out.contains("B(u8)"));
        assert!(!out.contains("fn id("));
        assert!(!out.contains("fn decode"));
        assert!(out.contains("handle: tokio::runtime::Handle,"));
        assert!(out.contains("fn handle(&self) -> &Handle"));
        assert!(out.contains("struct T(u8);"));
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn impl_in_a_type_or_an_argument_is_not_an_item() {
        let src = "fn f(x: impl Fn() -> u8) -> impl Future<Output = ()> {\n    tokio::spawn(x);\n    async {}\n}\n\
                   fn g() -> impl Iterator<Item = u8> { std::iter::empty() }\n";
        let out = filter().prune(src).unwrap();
        assert!(out.contains("tokio::spawn(x);"));
        assert!(!out.contains("std::iter::empty()"));
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn test_code_goes_only_when_tests_are_skipped() {
        let src = "fn a() { tokio::spawn(x); }\n\
                   #[cfg(all(test, unix))]\npub(crate) mod tests {\n    fn h() { tokio::spawn(y); }\n}\n\
                   #[tokio::test]\nasync fn t() { tokio::spawn(z); }\n\
                   #[cfg(any(test, feature = \"x\"))]\nmod maybe { fn m() { tokio::spawn(w); } }\n\
                   #[cfg(not(test))]\nmod real { fn r() { tokio::spawn(v); } }\n";
        let with_tests = |skip_tests| {
            let opts = PruneOptions {
                skip_tests,
                ..PruneOptions::default()
            };
            filter().prune_with(src, opts).map(|p| p.text)
        };
        let kept = with_tests(false);
        assert!(kept.is_none_or(|k| k.contains("spawn(y)") && k.contains("spawn(z)")));
        let out = with_tests(true).unwrap();
        assert!(out.contains("spawn(x)"));
        assert!(!out.contains("spawn(y)"));
        assert!(!out.contains("spawn(z)"));
        assert!(out.contains("spawn(w)"));
        assert!(out.contains("spawn(v)"));
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn only_code_keeps_a_body_and_a_suppression_comment_keeps_its_own() {
        let src = "/// On `SIGTERM` this does not spawn anything\nstruct Cli {\n    port: u8,\n}\n\
                   fn a() { let s = \"tokio::spawn\"; } // spawn\n\
                   fn b() {\n    // shutdown-lint: allow(raw-spawn) -- reason\n    run();\n}\n\
                   fn c(r: R) { r.serve_with_incoming(i); }\n\
                   fn d(b: B) { b.build(); }\n\
                   fn e(g: G) { g.server_streaming(r); s.build_from_inner_client(c); }\n";
        let out = filter().prune(src).unwrap();
        assert_eq!(out.len(), src.len());
        assert!(!out.contains("let s ="));
        assert!(out.contains("run();"));
        assert!(out.contains("r.serve_with_incoming(i);"));
        assert!(out.contains("b.build();"));
        assert!(!out.contains("g.server_streaming(r);"));
        let declared = PruneOptions {
            declarations: true,
            ..PruneOptions::default()
        };
        assert!(
            !filter()
                .prune_with(src, declared)
                .unwrap()
                .text
                .contains("port: u8")
        );
    }

    #[test]
    fn macros_naming_no_word_go_in_kept_test_code_only() {
        let src = "fn run() { let h = tokio::spawn(x); info!(\"{}\", start(h)); }\n\
                   #[cfg(test)]\nmod tests {\n    fn h() { tokio::spawn(y); assert_eq!(a(), b![1, 2]); }\n}\n\
                   #[tokio::test]\nasync fn t() {\n    tokio::spawn(z);\n    assert!(c != d);\n    \
                   vec![tokio::spawn(w)];\n    println! { \"{}\", e() };\n}\n";
        let prune = |test_file| {
            let opts = PruneOptions {
                skip_tests: false,
                test_file,
                test_code_macros: true,
                ..PruneOptions::default()
            };
            filter().prune_with(src, opts).unwrap().text
        };
        let out = prune(false);
        assert_eq!(out.len(), src.len());
        // outside test code every macro stays: its calls may lead from `main`
        assert!(out.contains("info!(\"{}\", start(h));"));
        assert!(!out.contains("a(), b![1, 2]"));
        // (a statement naming no word goes whole, see `statements`)
        assert!(!out.contains("assert_eq!("));
        assert!(!out.contains("c != d"));
        assert!(out.contains("vec![tokio::spawn(w)]"));
        assert!(!out.contains("e()"));
        assert!(out.contains("tokio::spawn(y)") && out.contains("tokio::spawn(z)"));
        syn::parse_file(&out).unwrap();
        // a test file: every kept body is test code
        assert!(!prune(true).contains("start()"));
    }

    fn f_keeps(src: &str) -> bool {
        filter().prune(src).is_none()
    }

    #[test]
    fn only_a_spawn_s_own_name_keeps_a_body() {
        let src = "fn a() { self.spawn_shell_task(id); respawn(); }\n\
                   fn b() { tokio::spawn(x); }\n\
                   fn c() { set.spawn_blocking(f); }\n";
        let out = filter().prune(src).unwrap();
        assert!(!out.contains("spawn_shell_task"));
        assert!(out.contains("tokio::spawn(x)"));
        assert!(out.contains("set.spawn_blocking(f)"));
        assert!(f_keeps(
            "fn d(&self, f: F) { background_spawn!(\"http\", f); }\n"
        ));
        // a configured raw spawn is a needle of its own
        let f = BodyFilter::new(["spawn", "spawn_job"]);
        assert!(f.prune("fn a() { spawn_job(w); }\n").is_none());
    }

    #[test]
    fn type_words_count_as_whole_identifiers() {
        let src = "fn a() { let ip = ClientIp::from(x); let h = Handler::new(); }\n\
                   fn b() { let c = Client::new(); }\n\
                   fn c() { let b = ClientBuilder::new(); }\n\
                   fn d() { let h = Handle::current(); }\n";
        let out = filter().prune(src).unwrap();
        assert!(!out.contains("ClientIp::from"));
        assert!(out.contains("Client::new()"));
        assert!(out.contains("ClientBuilder::new()"));
        assert!(out.contains("Handle::current()"));
    }

    #[test]
    fn a_suppression_comment_keeps_its_body() {
        let src = "fn a() {\n    // shutdown-lint: allow(raw-spawn) reason\n    go();\n}\n";
        assert!(filter().prune(src).is_none());
    }

    #[test]
    fn item_macros_naming_no_word_are_blanked() {
        let src = "macro_rules! make {\n    ($n:ident) => { Client::new($n) };\n}\n\
                   macro_rules! go {\n    ($f:expr) => { tokio::spawn($f) };\n}\n\
                   make_config! {\n    /// a Client in a comment\n    folders { data: String, \"spawn\"; }\n}\n\
                   lazy_static! { static ref C: reqwest::Client = reqwest::Client::new(); }\n\
                   fn f() { let h = tokio::spawn(async {}); info!(\"{}\", h.id()); }\n\
                   static N: u8 = 1;\n";
        let out = filter().prune(src).unwrap();
        assert_eq!(out.len(), src.len());
        // a definition goes unless it spawns, an invocation naming a word only in comments or
        // literals too, one naming a word in its code stays, as do macros in bodies
        assert!(!out.contains("Client::new($n)"));
        // a definition that spawns is read for its spawns
        assert!(out.contains("tokio::spawn($f)"));
        assert!(!out.contains("folders"));
        assert!(out.contains("reqwest::Client::new()"));
        assert!(out.contains("info!(\"{}\", h.id())"));
        assert!(out.contains("static N: u8 = 1;"));
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn negations_and_inner_attributes_are_not_macros() {
        let src =
            "#![allow(x)]\nconst A: bool = !(B);\nimpl !Send for S {}\nfn f() -> ! { loop {} }\n";
        // nothing to blank: `f` names no word but its body is the only change
        let out = filter().prune(src).unwrap();
        assert!(out.contains("#![allow(x)]"));
        assert!(out.contains("!(B)"));
        assert!(out.contains("impl !Send for S {}"));
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn compacted_text_parses_and_maps_back() {
        let src = "struct S { a: u8 }\nfn f() {\n    let x = 1;\n}\nfn g() { tokio::spawn(x); }\n";
        let p = filter().prune_with(src, PruneOptions::default()).unwrap();
        let c = crate::compact::compact(&p.text, &p.blanked);
        assert!(c.text.len() < src.len());
        let file = syn::parse_file(&c.text).unwrap();
        let syn::Item::Fn(g) = &file.items[2] else {
            panic!("{:?}", c.text)
        };
        let at = g.sig.ident.span().byte_range().start;
        assert_eq!(c.shifts.start(at), src.find("g()").unwrap());
    }

    #[test]
    fn line_doc_comments_go_and_spans_still_map_back() {
        let src = "//! Module.\n/// A.\n/// More.\nfn a() { let x = 1; }\n/// G spawns.\nfn g() { tokio::spawn(x); } // g\n";
        let p = filter().prune_with(src, PruneOptions::default()).unwrap();
        let c = crate::compact::compact(&p.text, &p.blanked);
        // a doc comment at the very start stays (nothing before it to keep)
        assert!(c.text.starts_with("//! Module.\n"));
        assert!(!c.text.contains("More") && !c.text.contains("G spawns"));
        assert!(c.text.contains("// g"));
        let file = syn::parse_file(&c.text).unwrap();
        let syn::Item::Fn(g) = &file.items[1] else {
            panic!("{:?}", c.text)
        };
        assert!(g.attrs.is_empty());
        let at = g.sig.ident.span().byte_range().start;
        assert_eq!(c.shifts.start(at), src.find("g()").unwrap());
    }

    #[test]
    fn timeout_keeps_a_body_as_a_whole_word_and_ureq_timeouts_too() {
        let src = "fn a() { let s = S { timeout_handled: false }; }\n\
                   fn b() { let r = timeout(d, f); }\n\
                   fn c() { let b = b.timeout_global(Some(d)); }\n\
                   fn d() { let b = b.timeout_connect(Some(d)); }\n";
        let out = filter().prune(src).unwrap();
        assert!(!out.contains("timeout_handled"));
        assert!(out.contains("timeout(d, f)"));
        assert!(out.contains("timeout_global"));
        assert!(out.contains("timeout_connect"));
    }
}
