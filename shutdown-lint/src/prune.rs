//! Function bodies no rule can look at, blanked before the parse.
//!
//! Most of a file that passes the byte scan is code no rule reads: a parser's `fn parse`, a
//! handler's formatting helpers. Parsing them is most of the linter's time. Before the file
//! is parsed, the body of every `fn` that mentions none of the words a rule or the model
//! works from (the byte scan's needles, the spawn/build/timeout method names, `Handle`,
//! `Runtime`, ... and every name the file imports from a `use` that mentions one of them)
//! has its contents replaced by spaces. Newlines and every other byte stay where they were,
//! so lines, columns and byte offsets of what is left are those of the original file, and
//! the signature (parameters, return type, attributes) is kept for the workspace model.
//!
//! What is lost is only what those bodies held: calls for the call graph (read from the
//! text again when a binary needs it, as for files the byte scan skipped, see
//! `FileAnalysis::pruned`) and syntax errors inside them. A file with a glob import of a
//! crate a rule knows is not pruned (any name may come from it).

use crate::lexscan::{code_only, find_word, is_ident};
use aho_corasick::AhoCorasick;
use std::sync::{Arc, Mutex, OnceLock};

/// Method and type names the rules and the workspace model read in a body, besides the
/// byte scan's needles.
pub const BODY_WORDS: &[&str] = &[
    "spawn",
    ".build",
    "handshake",
    "timeout",
    "serve(",
    "serve_",
    ".serve",
    "graceful",
    "Handle",
    "Runtime",
    "Builder",
    "Client",
    "signal",
    "block_on",
    "RunConfig",
    "Budgets",
    "grace",
];

/// Byte-scan needles that let a file through but do not keep a body on their own: a
/// server is only started by a `serve` (a body word), a signal handler through
/// `SignalKind`/`signal`/`ctrl_c`, a hyper client through `Client`/`Builder`/`handshake`.
pub const FILE_ONLY_NEEDLES: &[&str] =
    &["axum", "tonic", "warp", "hyper", "terminate", "interrupt"];

/// The words that keep a body, matched in one pass over the file each.
#[derive(Debug, Clone)]
pub struct BodyFilter {
    /// `None` when the automata could not be built (configured words past the library's
    /// limits): then nothing is pruned.
    automata: Option<Automata>,
}

#[derive(Debug, Clone)]
struct Automata {
    /// The byte scan's needles: anywhere (`tokio::spawn`, `my_spawn`).
    needles: Arc<AhoCorasick>,
    /// [`BODY_WORDS`]: at the start of an identifier (`Handle::current`, `.build()`, not
    /// `MetastoreServiceClient`).
    words: Arc<AhoCorasick>,
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
        // every package of a workspace asks for (nearly) the same words: build each set once
        static BUILT: Mutex<Vec<(Vec<String>, Arc<AhoCorasick>)>> = Mutex::new(Vec::new());
        static WORDS: OnceLock<Option<Arc<AhoCorasick>>> = OnceLock::new();
        let needles = {
            let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
            match built.iter().find(|(w, _)| *w == all) {
                Some((_, a)) => Some(a.clone()),
                None => AhoCorasick::new(&all).ok().map(Arc::new).inspect(|a| {
                    if built.len() < 64 {
                        built.push((all, a.clone()));
                    }
                }),
            }
        };
        let words = WORDS
            .get_or_init(|| AhoCorasick::new(BODY_WORDS).ok().map(Arc::new))
            .clone();
        let automata = needles
            .zip(words)
            .map(|(needles, words)| Automata { needles, words });
        BodyFilter { automata }
    }

    /// `text` with the contents of every function body that mentions none of the words
    /// blanked, or `None` when nothing was blanked (or the file must not be pruned).
    pub fn prune(&self, text: &str) -> Option<String> {
        self.automata.as_ref()?.prune(text)
    }
}

impl Automata {
    fn prune(&self, text: &str) -> Option<String> {
        let code = code_only(text);
        let mut file_words = Vec::new();
        if !self.imported_names(text, &code, &mut file_words) {
            return None;
        }
        // every place a word occurs (comments included: a suppression comment keeps its body)
        let b = text.as_bytes();
        let starts_ident = |at: usize| at == 0 || !is_ident(b[at - 1]);
        let mut hits: Vec<usize> = self.needles.find_iter(text).map(|m| m.start()).collect();
        hits.extend(
            self.words
                .find_iter(text)
                .map(|m| m.start())
                .filter(|&at| starts_ident(at)),
        );
        for w in &file_words {
            let finder = memchr::memmem::Finder::new(w.as_bytes());
            hits.extend(finder.find_iter(b).filter(|&at| {
                starts_ident(at) && !b.get(at + w.len()).is_some_and(|&c| is_ident(c))
            }));
        }
        hits.sort_unstable();
        let mentions = |from: usize, to: usize| {
            let i = hits.partition_point(|&h| h < from);
            hits.get(i).is_some_and(|&h| h < to)
        };
        let mut out: Option<Vec<u8>> = None;
        let mut i = 0;
        while let Some(at) = next_fn(&code, i) {
            let Some((open, close)) = body_of(&code, at + 2) else {
                i = at + 2;
                continue;
            };
            if mentions(open, close) {
                i = open + 1; // nested functions are looked at on their own
                continue;
            }
            let buf = out.get_or_insert_with(|| text.as_bytes().to_vec());
            for b in &mut buf[open + 1..close] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
            i = close + 1;
        }
        // only whole characters inside a body were replaced by spaces: still UTF-8
        out.and_then(|b| String::from_utf8(b).ok())
    }

    /// Adds the local names of what each `use` brings in from a path that mentions a
    /// needle (`use reqwest::Client as Http;` adds `Http`); `false` when one of those is a
    /// glob (then any name may matter and nothing is pruned).
    fn imported_names(&self, text: &str, code: &[u8], out: &mut Vec<String>) -> bool {
        let mut i = 0;
        while let Some(at) = find_word(code, b"use", i) {
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
                if self.mentions(&format!("{prefix}{name}")) {
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
                if self.mentions(&format!("{prefix}{}", r.ident)) {
                    out.push(r.rename.to_string());
                }
                true
            }
            syn::UseTree::Glob(_) => !self.mentions(prefix),
            syn::UseTree::Group(g) => g.items.iter().all(|t| self.leaves(t, prefix, out)),
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

/// The braces of the body of the function whose signature starts at `from`: `None` for a
/// declaration without a body, or a signature this scan does not follow (a const generic
/// block `{ N }`: left alone).
fn body_of(code: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut open = None;
    for (k, &c) in code.iter().enumerate().skip(from) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b';' if depth == 0 => return None,
            b'{' if depth == 0 => {
                let before = code[..k].iter().rev().find(|c| !c.is_ascii_whitespace());
                if matches!(before, Some(b'<' | b',' | b'=')) {
                    return None;
                }
                open = Some(k);
                break;
            }
            _ => {}
        }
    }
    let open = open?;
    let mut level = 0usize;
    for (k, &c) in code.iter().enumerate().skip(open) {
        match c {
            b'{' => level += 1,
            b'}' => {
                level -= 1;
                if level == 0 {
                    return Some((open, k));
                }
            }
            _ => {}
        }
    }
    None
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
    fn a_known_glob_import_turns_pruning_off() {
        let src = "use reqwest::*;\nfn a() { let c = get(u); }\n";
        assert!(filter().prune(src).is_none());
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
    fn a_suppression_comment_keeps_its_body() {
        let src = "fn a() {\n    // shutdown-lint: allow(raw-spawn) reason\n    go();\n}\n";
        assert!(filter().prune(src).is_none());
    }
}
