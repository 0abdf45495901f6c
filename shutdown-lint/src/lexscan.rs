//! A linear scan of Rust source that tells code from comments and literals, without
//! parsing: used to find `//` suppression comments and to skip needles that only occur
//! in comments. Never fails; on odd input it simply treats the rest as code.

/// Kinds of regions the scanner reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// A plain `//` comment (not `///` or `//!`): byte range of the text after `//`.
    LineComment,
    /// Code (outside comments, strings and char literals).
    Code,
}

/// Calls `f(kind, start, end)` for each plain line comment and each run of code.
pub fn scan(text: &str, mut f: impl FnMut(Piece, usize, usize)) {
    let mut code_start = 0;
    lex(text, |tok, start, end| match tok {
        Token::LineComment { doc } => {
            f(Piece::Code, code_start, start);
            if !doc {
                f(Piece::LineComment, start + 2, end);
            }
            code_start = end;
        }
        Token::BlockComment => {
            f(Piece::Code, code_start, start);
            code_start = end;
        }
        Token::Literal => {}
    });
    f(Piece::Code, code_start, text.len().max(code_start));
}

/// `text` with every comment and the contents of every string, byte-string and char
/// literal replaced by spaces (newlines kept), so braces and keywords left are code. Byte
/// offsets are those of `text`.
///
/// # Examples
/// ```
/// let code = shutdown_lint::lexscan::code_only("let s = \"{\"; // }\nmod a { }");
/// assert_eq!(code.iter().filter(|&&c| c == b'{').count(), 1);
/// assert_eq!(code.len(), "let s = \"{\"; // }\nmod a { }".len());
/// ```
pub fn code_only(text: &str) -> Vec<u8> {
    code_and_doc_lines(text).0
}

/// [`code_only`], and the byte ranges of the line doc comments (`///` and `//!`, from the
/// slashes to the end of the line, the newline excluded) in order: the parser turns each
/// into a `#[doc = ".."]` attribute, which no rule reads.
///
/// # Examples
/// ```
/// let src = "/// A.\nfn a() {} // b\n//! C";
/// let (code, docs) = shutdown_lint::lexscan::code_and_doc_lines(src);
/// assert_eq!(code.len(), src.len());
/// assert_eq!(docs, [(0, 6), (22, 27)]);
/// ```
pub fn code_and_doc_lines(text: &str) -> (Vec<u8>, Vec<(usize, usize)>) {
    let mut out = text.as_bytes().to_vec();
    let mut docs = Vec::new();
    lex(text, |tok, start, end| {
        if let Token::LineComment { doc } = tok {
            if doc {
                docs.push((start, end));
            }
            // up to its line's end
            out[start..end].fill(b' ');
        } else {
            blank_keeping_lines(&mut out[start..end]);
        }
    });
    (out, docs)
}

/// Every byte of `bytes` but its line ends made a space: what was there stays out of
/// every scan, and every byte and line stays where it was.
///
/// # Examples
/// ```
/// let mut b = *b"ab\ncd";
/// shutdown_lint::lexscan::blank_keeping_lines(&mut b);
/// assert_eq!(&b, b"  \n  ");
/// ```
pub fn blank_keeping_lines(bytes: &mut [u8]) {
    let mut at = 0;
    while at < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
        bytes[at..end].fill(b' ');
        at = end + 1;
    }
}

/// What [`lex`] reports; everything it does not report is code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// A `//` comment, from the slashes to the end of the line (`doc`: `///` or `//!`).
    LineComment { doc: bool },
    /// A `/* */` comment (nested ones included), delimiters included.
    BlockComment,
    /// The contents of a string, raw string or char literal (between the quotes).
    Literal,
}

/// The one lexer of this module: calls `f(token, start, end)` for each comment and literal
/// content, in order, with `start <= end <= text.len()`. Linear; never fails (an unclosed
/// comment or literal runs to the end).
fn lex(text: &str, mut f: impl FnMut(Token, usize, usize)) {
    let b = text.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = memchr::memchr(b'\n', &b[i..]).map_or(n, |k| i + k);
                let doc =
                    matches!(b.get(i + 2), Some(b'/') | Some(b'!')) && b.get(i + 3) != Some(&b'/');
                f(Token::LineComment { doc }, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let start = i;
                let mut level = 1usize;
                i += 2;
                while i < n && level > 0 {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        level += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        level -= 1;
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
                i = i.min(n);
                f(Token::BlockComment, start, i);
            }
            b'"' => {
                // a raw string's `"`: `r"`, `r#"`, and of a byte or C string `br#"`,
                // `cr"` (the prefix not ending an identifier)
                let mut r = i;
                while r > 0 && b[r - 1] == b'#' {
                    r -= 1;
                }
                let raw = r > 0 && b[r - 1] == b'r' && starts_token(b, r - 1);
                if raw {
                    let hashes = i - r;
                    let start = i + 1;
                    // the closing `"` and past its `#`s (an unclosed one runs to the end)
                    let (close, end) = match raw_string_end(b, r) {
                        Some(end) => (end - hashes - 1, end),
                        None => (n, n),
                    };
                    f(Token::Literal, start, close);
                    i = end;
                    continue;
                }
                let start = i + 1;
                i += 1;
                while i < n {
                    match memchr::memchr2(b'\\', b'"', &b[i..]) {
                        Some(k) if b[i + k] == b'\\' => i += k + 2,
                        Some(k) => {
                            i += k;
                            break;
                        }
                        None => i = n,
                    }
                }
                i = i.min(n);
                f(Token::Literal, start, i);
                i += 1;
            }
            b'\'' => {
                if b.get(i + 1) == Some(&b'\\') {
                    let mut j = i + 2;
                    while j < n && b[j] != b'\'' && j < i + 12 {
                        j += 1;
                    }
                    f(Token::Literal, i + 1, j.min(n));
                    i = j + 1;
                } else if b.get(i + 2) == Some(&b'\'') {
                    f(Token::Literal, i + 1, i + 2);
                    i += 3;
                } else {
                    // a lifetime, or a multi-byte char literal
                    let ch_len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    if b.get(i + 1 + ch_len) == Some(&b'\'') {
                        f(Token::Literal, i + 1, i + 1 + ch_len);
                        i += 2 + ch_len;
                    } else {
                        i += 1;
                    }
                }
            }
            // nothing starts before the next `/`, `"` or `'` (a raw string is found from
            // its `"`)
            _ => i = memchr::memchr3(b'/', b'"', b'\'', &b[i + 1..]).map_or(n, |k| i + 1 + k),
        }
    }
}

/// Past the raw string whose `#`s (or opening quote) start at `from` (`#".."#` of
/// `r#".."#`): the offset after its closing quote and as many `#`s; `None` when no quote
/// follows the `#`s or the string is not closed.
pub(crate) fn raw_string_end(b: &[u8], from: usize) -> Option<usize> {
    let hashes = b[from..].iter().take_while(|&&c| c == b'#').count();
    let quote = from + hashes;
    if b.get(quote) != Some(&b'"') {
        return None;
    }
    let mut i = quote + 1;
    loop {
        let at = i + memchr::memchr(b'"', b.get(i..)?)?;
        let closes =
            b.len() >= at + 1 + hashes && b[at + 1..at + 1 + hashes].iter().all(|&c| c == b'#');
        if closes {
            return Some(at + 1 + hashes);
        }
        i = at + 1;
    }
}

/// The raw string the prefix at `i` starts (`r".."`, `r#".."#`, `br#".."#`, `cr".."`):
/// `Some` of its end ([`raw_string_end`]; `None` inside: not closed), or `None` when no raw
/// string starts there (`r#ident`, a word). Whether the prefix ends an identifier is the
/// caller's to check.
pub(crate) fn prefixed_raw_string_end(b: &[u8], i: usize) -> Option<Option<usize>> {
    let hashes_from = match (b[i], b.get(i + 1)) {
        (b'r', _) => i + 1,
        (b'b' | b'c', Some(b'r')) => i + 2,
        _ => return None,
    };
    let hashes = b[hashes_from..].iter().take_while(|&&c| c == b'#').count();
    (b.get(hashes_from + hashes) == Some(&b'"')).then(|| raw_string_end(b, hashes_from))
}

/// Whether the `r` at `at` starts a raw string's prefix: it ends no identifier, or only
/// a `b` / `c` that ends none (`br#".."#`, `cr".."`).
fn starts_token(b: &[u8], at: usize) -> bool {
    match at.checked_sub(1).map(|p| b[p]) {
        None => true,
        Some(b'b' | b'c') => at == 1 || !is_ident(b[at - 2]),
        Some(c) => !is_ident(c),
    }
}

/// A byte that can be part of an identifier (ASCII letters, digits, `_`).
#[inline]
pub(crate) fn is_ident(c: u8) -> bool {
    IDENT[usize::from(c)]
}

/// [`is_ident`] as a table: the scans of skipped files ask it of every byte.
static IDENT: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = (c as u8).is_ascii_alphanumeric() || c == b'_' as usize;
        c += 1;
    }
    table
};

/// Whether `b[start..end]` is a whole identifier: no identifier byte touches it on
/// either side.
#[inline]
pub(crate) fn is_whole_word(b: &[u8], start: usize, end: usize) -> bool {
    (start == 0 || !is_ident(b[start - 1])) && !b.get(end).is_some_and(|&c| is_ident(c))
}

/// Whether `text` contains `needle` as tokens: where the needle begins (ends) with an
/// identifier byte, the byte before (after) it is none, so `fn req` is not found in `fn
/// request` nor `build(` in `rebuild(`; punctuation at either end needs no boundary
/// (`.get(` is found in `x.get(y)`).
///
/// # Examples
/// ```
/// use shutdown_lint::lexscan::contains_tokens;
/// assert!(contains_tokens("pub fn req<T>(x: T)", "fn req"));
/// assert!(!contains_tokens("pub fn request(x: T)", "fn req"));
/// assert!(contains_tokens("let c = build(x);", "build("));
/// assert!(!contains_tokens("let c = rebuild(x);", "build("));
/// assert!(contains_tokens("c.get(url)", ".get("));
/// ```
pub fn contains_tokens(text: &str, needle: &str) -> bool {
    let (b, n) = (text.as_bytes(), needle.as_bytes());
    let (Some(&first), Some(&last)) = (n.first(), n.last()) else {
        return true;
    };
    memchr::memmem::find_iter(b, n).any(|at| {
        let end = at + n.len();
        (!is_ident(first) || at == 0 || !is_ident(b[at - 1]))
            && (!is_ident(last) || !b.get(end).is_some_and(|&c| is_ident(c)))
    })
}

/// A set of identifiers looked for as whole identifiers in a text, searched the way that
/// is fast for its size: one `memmem` pass per name for a few names, one pass over the
/// text's [`words`] with a hash lookup each for many. (Measured on 6 MB of quickwit's
/// sources: four function names took 0.7 ms as four `memmem` passes and 20–30 ms as one
/// `aho-corasick` automaton; on tailcall, building that automaton for the 2,000 names that
/// lead to a signal site cost more than all the searches it served.)
///
/// # Examples
/// ```
/// let w = shutdown_lint::lexscan::WholeWords::new(["listen_sigterm", "run"]);
/// assert!(w.any_in("fn main() { run(); }"));
/// assert!(!w.any_in("fn main() { rerun(); runner(); }"));
/// let many = shutdown_lint::lexscan::WholeWords::new((0..20).map(|i| format!("step_{i}")));
/// assert!(many.any_in("x.step_7()"));
/// assert!(!many.any_in("x.step_70(); step_1x()"));
/// ```
#[derive(Debug)]
pub enum WholeWords {
    /// One finder per name.
    Few(Vec<memchr::memmem::Finder<'static>>),
    /// The names, looked up word by word.
    Many(foldhash::HashSet<String>),
}

impl WholeWords {
    /// Up to this many names are searched one by one.
    const FEW: usize = 8;

    /// The set of `names` (identifiers).
    pub fn new<I, S>(names: I) -> WholeWords
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let names: Vec<S> = names.into_iter().collect();
        if names.len() <= Self::FEW {
            return WholeWords::Few(
                names
                    .iter()
                    .map(|n| memchr::memmem::Finder::new(n.as_ref().as_bytes()).into_owned())
                    .collect(),
            );
        }
        WholeWords::Many(names.iter().map(|n| n.as_ref().to_string()).collect())
    }

    /// Whether `text` names one of the words as a whole identifier.
    pub fn any_in(&self, text: &str) -> bool {
        let b = text.as_bytes();
        match self {
            WholeWords::Few(finders) => finders.iter().any(|f| {
                f.find_iter(b)
                    .any(|at| is_whole_word(b, at, at + f.needle().len()))
            }),
            WholeWords::Many(names) => words(text).any(|w| names.contains(w)),
        }
    }
}

/// The words of a text: its maximal runs of identifier bytes (`[A-Za-z0-9_]`), in order,
/// comments and strings included. A name occurs in a text as a whole identifier exactly
/// when one of the text's words is that name.
///
/// # Examples
/// ```
/// let words: Vec<&str> = shutdown_lint::lexscan::words("fn main() { r#run(); rerun_2(x) }").collect();
/// assert_eq!(words, ["fn", "main", "r", "run", "rerun_2", "x"]);
/// ```
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() && !is_ident(b[i]) {
            i += 1;
        }
        let start = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        // identifier bytes are ASCII: both ends are char boundaries
        (i > start).then(|| &text[start..i])
    })
}

/// The next occurrence of the keyword `word` in `code` (a [`code_only`] text) at or after
/// `from`, as a whole identifier.
pub(crate) fn find_word(code: &[u8], word: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < code.len() {
        let at = i + memchr::memmem::find(&code[i..], word)?;
        let end = at + word.len();
        if is_whole_word(code, at, end) {
            return Some(at);
        }
        i = end;
    }
    None
}

/// Every out-of-line module a file declares (`mod name;`), found without parsing: with
/// the inline modules around it (`mod a { mod b; }` declares `a/b.rs`), its `#[path = ".."]`
/// and whether a test `cfg` (its own or an enclosing inline module's) makes it test code.
/// For files the byte scan skips, whose module tree a binary still needs (`main.rs` that is
/// only `mod commands;` and a call). A declaration inside a macro body is reported too: the
/// caller keeps only files that exist.
///
/// # Examples
/// ```
/// let src = "//! Entry.\n#![allow(unused)]\npub mod commands;\n\
///            #[cfg(test)]\nmod tests;\n#[path = \"x/y.rs\"] pub(crate) mod y;\n\
///            mod outer { pub mod inner; fn f() { let module = 1; } }\n// mod commented;\n";
/// let d = shutdown_lint::lexscan::mod_decls(src);
/// let paths: Vec<String> = d.iter().map(|m| m.path.join("::")).collect();
/// assert_eq!(paths, ["commands", "tests", "y", "outer::inner"]);
/// assert_eq!(d.iter().map(|m| m.cfg_test).collect::<Vec<_>>(), [false, true, false, false]);
/// assert_eq!(d[2].path_attr.as_deref(), Some("x/y.rs"));
/// ```
pub fn mod_decls(text: &str) -> Vec<crate::model::ModDecl> {
    // most files declare no out-of-line module (`mod tests {` is inline): only a file with
    // `mod name;` somewhere in its text (perhaps in a comment) is lexed
    let b = text.as_bytes();
    let declares = memchr::memmem::find_iter(b, b"mod").any(|at| {
        keyword_name(b, at, 3).is_some_and(|(_, end)| b.get(skip_ws(b, end)) == Some(&b';'))
    });
    if !declares {
        return Vec::new();
    }
    let code = code_only(text);
    // each `mod name` keyword: where its name is, and what follows (`;` or `{`)
    let mut found: Vec<(usize, String, Option<usize>)> = Vec::new();
    let mut from = 0;
    while let Some(at) = find_word(&code, b"mod", from) {
        from = at + 3;
        let Some((start, end)) = keyword_name(&code, at, 3) else {
            continue;
        };
        let name = String::from_utf8_lossy(&code[start..end]).into_owned();
        let i = skip_ws(&code, end);
        match code.get(i) {
            Some(b';') => found.push((at, name, None)),
            Some(b'{') => found.push((at, name, matching(&code, i, b'{', b'}'))),
            _ => {}
        }
    }
    // inline modules: their keyword and closing brace, and whether a test cfg (and a
    // WebAssembly-only one) is on them
    let inline: Vec<(usize, usize, &str, bool, bool)> = found
        .iter()
        .filter_map(|(at, name, close)| {
            close.map(|c| {
                let attrs = outer_attrs(text, &code, *at);
                (
                    *at,
                    c,
                    name.as_str(),
                    attrs.iter().any(|a| attr_is_test_cfg(a)),
                    attrs
                        .iter()
                        .any(|a| crate::targetcode::is_wasm_only_attr_text(a)),
                )
            })
        })
        .collect();
    let mut out = Vec::new();
    for (at, name, close) in &found {
        if close.is_some() {
            continue;
        }
        let parents: Vec<&(usize, usize, &str, bool, bool)> =
            inline.iter().filter(|m| m.0 < *at && *at < m.1).collect();
        let attrs = outer_attrs(text, &code, *at);
        let mut path: Vec<String> = parents.iter().map(|m| m.2.to_string()).collect();
        path.push(name.clone());
        out.push(crate::model::ModDecl {
            path,
            path_attr: attrs.iter().find_map(|a| path_attr_value(a)),
            cfg_test: attrs.iter().any(|a| attr_is_test_cfg(a)) || parents.iter().any(|m| m.3),
            wasm_only: attrs
                .iter()
                .any(|a| crate::targetcode::is_wasm_only_attr_text(a))
                || parents.iter().any(|m| m.4),
            windows_only: attrs
                .iter()
                .any(|a| cfg_predicate(a).is_some_and(crate::collect::is_windows_cfg_text)),
        });
    }
    out
}

/// The contents of the outer attributes of the item whose keyword is at `at` (visibility
/// and `unsafe` skipped): `#[cfg(test)] pub(crate) mod x;` gives `["cfg(test)"]`.
pub(crate) fn outer_attrs<'t>(text: &'t str, code: &[u8], at: usize) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut i = at;
    loop {
        while i > 0 && code[i - 1].is_ascii_whitespace() {
            i -= 1;
        }
        if i == 0 {
            break;
        }
        match code[i - 1] {
            // `pub(crate)`: back over the group, then `pub`
            b')' => {
                let Some(open) = matching_back(code, i - 1, b'(', b')') else {
                    break;
                };
                let mut k = open;
                while k > 0 && code[k - 1].is_ascii_whitespace() {
                    k -= 1;
                }
                if k >= 3 && &code[k - 3..k] == b"pub" {
                    i = k - 3;
                } else {
                    break;
                }
            }
            b']' => {
                let Some(open) = matching_back(code, i - 1, b'[', b']') else {
                    break;
                };
                if open == 0 || code[open - 1] != b'#' {
                    break;
                }
                out.push(text.get(open + 1..i - 1).unwrap_or(""));
                i = open - 1;
            }
            c if is_ident(c) => {
                let mut k = i;
                while k > 0 && is_ident(code[k - 1]) {
                    k -= 1;
                }
                if matches!(&code[k..i], b"pub" | b"unsafe") {
                    i = k;
                } else {
                    break;
                }
            }
            _ => break,
        }
    }
    out
}

/// The index of the delimiter `l` opening the `r` at `close` in `code`.
fn matching_back(code: &[u8], close: usize, l: u8, r: u8) -> Option<usize> {
    let mut depth = 0usize;
    for k in (0..=close).rev() {
        if code[k] == r {
            depth += 1;
        } else if code[k] == l {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// The names after every `fn` keyword of `text`, comments and strings included (a file
/// that may define a function called `name` is one whose text has `fn name`).
///
/// # Examples
/// ```
/// let names = shutdown_lint::lexscan::fn_names("pub async fn serve() {}\nfn r#async() {}\nlet f: fn(u8) = g;");
/// assert_eq!(names.into_iter().collect::<Vec<_>>(), ["async", "serve"]);
/// ```
pub fn fn_names(text: &str) -> std::collections::BTreeSet<String> {
    let b = text.as_bytes();
    let mut out = std::collections::BTreeSet::new();
    for at in memchr::memmem::find_iter(b, b"fn") {
        if let Some((start, end)) = keyword_name(b, at, 2) {
            out.insert(String::from_utf8_lossy(&b[start..end]).into_owned());
        }
    }
    out
}

/// The name a keyword of `len` bytes at `at` introduces (`mod name`, `fn r#async`): its
/// byte range (without `r#`), when the keyword is a whole word followed by whitespace and
/// an identifier.
fn keyword_name(b: &[u8], at: usize, len: usize) -> Option<(usize, usize)> {
    if at > 0 && is_ident(b[at - 1]) {
        return None;
    }
    let mut i = skip_ws(b, at + len);
    if i == at + len {
        return None;
    }
    if b[i..].starts_with(b"r#") {
        i += 2;
    }
    let start = i;
    while b.get(i).is_some_and(|&c| is_ident(c)) {
        i += 1;
    }
    (i > start).then_some((start, i))
}

/// The first index at or after `i` that is not ASCII whitespace.
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The index of the delimiter `r` closing the `l` at `open` in `code` (a [`code_only`]
/// text: literals and comments are blank).
pub(crate) fn matching(code: &[u8], open: usize, l: u8, r: u8) -> Option<usize> {
    // only the two delimiters matter: found by SIMD search, not byte by byte (the pruner
    // asks for the block of every statement of a kept body, nested ones again)
    let mut depth = 0usize;
    for k in memchr::memchr2_iter(l, r, code.get(open..)?) {
        if code[open + k] == l {
            depth += 1;
        } else {
            // a closing delimiter before any opening one: no match
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(open + k);
            }
        }
    }
    None
}

/// Whether an attribute's contents (`cfg(all(test, unix))`) hold only in test builds.
fn attr_is_test_cfg(attr: &str) -> bool {
    cfg_predicate(attr).is_some_and(cfg_implies_test)
}

/// The predicate of a `cfg` attribute read as text, the inside of `#[..]`:
/// `cfg(all(test, unix))` gives `all(test, unix)`; any other attribute (`cfg_attr(..)`,
/// `path = ".."`) gives `None`.
pub(crate) fn cfg_predicate(attr: &str) -> Option<&str> {
    attr.trim()
        .strip_prefix("cfg")
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.trim_end().strip_suffix(')'))
}

/// The file of a `path = "x/y.rs"` attribute's contents.
fn path_attr_value(attr: &str) -> Option<String> {
    let v = attr
        .trim()
        .strip_prefix("path")?
        .trim_start()
        .strip_prefix('=')?;
    Some(v.trim().trim_matches('"').to_string())
}

/// Whether a `cfg` predicate holds only in test builds: `test`, `all(test, unix)`,
/// `any(test, all(test, x))`, a test-support feature (`feature = "test-utils"`,
/// `any(test, feature = "testing")`: [`is_test_feature`]), a custom cfg a build script sets
/// whose name is made the same way (`with_testing`, linera's alias of `any(test, feature =
/// "test")`) — but not `any(test, feature = "x")` (compiled whenever the feature is on)
/// nor `not(test)`. Unparsable text is not test-only.
///
/// # Examples
/// ```
/// use shutdown_lint::lexscan::cfg_implies_test;
/// assert!(cfg_implies_test("test"));
/// assert!(cfg_implies_test("all(test, feature = \"x\")"));
/// assert!(!cfg_implies_test("any(test, feature = \"tokio\")"));
/// assert!(!cfg_implies_test("not(test)"));
/// assert!(cfg_implies_test("feature = \"test-utils\""));
/// assert!(cfg_implies_test("any(test, feature = \"testing\")"));
/// assert!(!cfg_implies_test("not(feature = \"test-utils\")"));
/// assert!(cfg_implies_test("with_testing"));
/// assert!(!cfg_implies_test("tokio_unstable"));
/// ```
pub fn cfg_implies_test(pred: &str) -> bool {
    cfg_implies(pred, CfgOnly::Test)
}

/// Whether a `cfg` predicate holds only when compiling for WebAssembly: `target_family =
/// "wasm"`, `target_arch = "wasm32"` (or `"wasm64"`), `all(target_arch = "wasm32", feature
/// = "web")` — not `not(target_arch = "wasm32")`, nor a feature or custom cfg whose name
/// says `wasm` (`feature = "wasmtime"` compiles a native host that runs WebAssembly).
/// Such code runs in a browser or a WASI host: no process a deploy's SIGTERM reaches, no
/// runtime to drain.
///
/// # Examples
/// ```
/// use shutdown_lint::lexscan::cfg_implies_wasm;
/// assert!(cfg_implies_wasm("target_family = \"wasm\""));
/// assert!(cfg_implies_wasm("all(target_arch = \"wasm32\", feature = \"web\")"));
/// assert!(!cfg_implies_wasm("not(target_arch = \"wasm32\")"));
/// assert!(!cfg_implies_wasm("any(target_arch = \"wasm32\", unix)"));
/// assert!(!cfg_implies_wasm("feature = \"wasm\""));
/// ```
pub fn cfg_implies_wasm(pred: &str) -> bool {
    cfg_implies(pred, CfgOnly::Wasm)
}

/// What a predicate is asked to imply.
#[derive(Clone, Copy)]
enum CfgOnly {
    /// A test build ([`cfg_implies_test`]).
    Test,
    /// A WebAssembly target ([`cfg_implies_wasm`]).
    Wasm,
}

impl CfgOnly {
    /// Whether one atom of a predicate (`test`, `feature = "x"`: `key` and its value)
    /// implies it.
    fn atom(self, key: &str, value: Option<&str>) -> bool {
        match (self, value) {
            // `test`, and custom cfgs named like a test-support feature
            (Self::Test, None) => is_test_feature(key),
            (Self::Test, Some(v)) => key == "feature" && is_test_feature(v),
            (Self::Wasm, None) => false,
            (Self::Wasm, Some(v)) => {
                (key == "target_family" && v == "wasm")
                    || (key == "target_arch" && matches!(v, "wasm32" | "wasm64"))
            }
        }
    }
}

fn cfg_implies(pred: &str, only: CfgOnly) -> bool {
    let toks = cfg_tokens(pred);
    let mut pos = 0;
    let r = cfg_expr(&toks, &mut pos, 0, only);
    r == Some(true) && pos == toks.len()
}

fn cfg_tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '"' {
            chars.next();
            let mut lit = String::from("\"");
            for d in chars.by_ref() {
                if d == '"' {
                    break;
                }
                lit.push(d);
            }
            out.push(lit);
        } else if c.is_alphanumeric() || c == '_' {
            let mut w = String::new();
            while let Some(&d) = chars.peek() {
                if d.is_alphanumeric() || d == '_' {
                    w.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(w);
        } else {
            out.push(c.to_string());
            chars.next();
        }
    }
    out
}

/// Whether a Cargo feature of this name only turns on test support: one of the words of
/// its name (split at `-` and `_`) is `test`, `tests`, `testing`, `testutil(s)`,
/// `testsuite`, `testkit`, `proptest`, `stresstest`, `loadtest`, `mock` or `mocks` —
/// `test-utils`, `test-util` (tokio's), `testing`, `integration-testsuite`, `proptest-impl`,
/// objectstore's `stresstest` package, greptimedb's `cfg(any(test, feature = "mock"))` —
/// but not `testnet`, `latest` or `mockall_double`.
///
/// # Examples
/// ```
/// use shutdown_lint::lexscan::is_test_feature;
/// assert!(is_test_feature("test-utils"));
/// assert!(is_test_feature("proptest-impl"));
/// assert!(is_test_feature("stresstest"));
/// assert!(is_test_feature("mock") && is_test_feature("mocks"));
/// assert!(!is_test_feature("mockall_double"));
/// assert!(!is_test_feature("testnet"));
/// assert!(!is_test_feature("attestation"));
/// ```
pub fn is_test_feature(name: &str) -> bool {
    name.split(['-', '_']).any(|w| {
        matches!(
            w,
            "test"
                | "tests"
                | "testing"
                | "testutil"
                | "testutils"
                | "testsuite"
                | "testkit"
                | "proptest"
                | "stresstest"
                | "loadtest"
                | "mock"
                | "mocks"
        )
    })
}

/// Parses one predicate at `pos`; `Some(implies only)`, `None` on bad input.
fn cfg_expr(toks: &[String], pos: &mut usize, depth: usize, only: CfgOnly) -> Option<bool> {
    if depth > 32 {
        return None;
    }
    let word = toks.get(*pos)?.clone();
    *pos += 1;
    match word.as_str() {
        "all" | "any" | "not" => {
            if toks.get(*pos).map(String::as_str) != Some("(") {
                return None;
            }
            *pos += 1;
            let mut parts = Vec::new();
            while toks.get(*pos).map(String::as_str) != Some(")") {
                parts.push(cfg_expr(toks, pos, depth + 1, only)?);
                if toks.get(*pos).map(String::as_str) == Some(",") {
                    *pos += 1;
                }
            }
            *pos += 1;
            Some(match word.as_str() {
                "all" => parts.iter().any(|p| *p),
                "any" => !parts.is_empty() && parts.iter().all(|p| *p),
                _ => false,
            })
        }
        _ => {
            if toks.get(*pos).map(String::as_str) == Some("=") {
                // `key = "value"`
                let value = toks.get(*pos + 1).map_or("", |v| v.trim_start_matches('"'));
                *pos += 2;
                return Some(only.atom(&word, Some(value)));
            }
            Some(only.atom(&word, None))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::code_only;
    use super::matching;

    #[test]
    fn matching_finds_the_closing_delimiter_at_its_own_depth() {
        let code = b"f { a { b } c ( { } ) } d }";
        assert_eq!(matching(code, 2, b'{', b'}'), Some(22));
        assert_eq!(matching(code, 6, b'{', b'}'), Some(10));
        assert_eq!(matching(code, 14, b'(', b')'), Some(20));
        // unbalanced, or a closing one first: none
        assert_eq!(matching(b"{ { }", 0, b'{', b'}'), None);
        assert_eq!(matching(b"} {", 0, b'{', b'}'), None);
        assert_eq!(matching(b"{}", 5, b'{', b'}'), None);
    }

    fn code(s: &str) -> String {
        String::from_utf8(code_only(s)).unwrap()
    }

    #[test]
    fn strings_comments_and_chars_are_blanked_in_place() {
        let src = "let a = \"x // y \\\" z\"; // c\nlet b = '\"'; /* a /* b */ c */ f(b'/');\n";
        let out = code(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(
            out,
            "let a = \"           \";     \nlet b = ' ';                   f(b' ');\n"
        );
    }

    #[test]
    fn raw_strings_are_found_from_their_quote() {
        let src = "x(r#\"a \" b\"#, r\"c\\\", br\"d\", r##\"e\"# f\"##); r#type; for r in v {}";
        let out = code(src);
        assert_eq!(
            out,
            "x(r#\"     \"#, r\"  \", br\" \", r##\"     \"##); r#type; for r in v {}"
        );
    }

    #[test]
    fn raw_byte_and_c_strings_are_raw() {
        // rustfs `site_replication.rs`: a JSON policy in `br#"..."#` was read as a plain
        // string from its `"`, so the quotes after it paired the wrong way and the rest of
        // the file was taken for a literal (no function found, nothing pruned)
        let src = "p(br#\"{ \"k\": \"v\" }\"#); fn f() {} c(cr\"a\\\"); g(br\"b\\\");";
        assert_eq!(
            code(src),
            "p(br#\"            \"#); fn f() {} c(cr\"  \"); g(br\"  \");"
        );
    }

    #[test]
    fn lifetimes_are_code_and_unclosed_literals_run_to_the_end() {
        assert_eq!(code("fn f<'a>(x: &'a str) {}"), "fn f<'a>(x: &'a str) {}");
        assert_eq!(code("let s = \"abc"), "let s = \"   ");
        assert_eq!(code("/* never closed"), "               ");
    }

    #[test]
    fn module_declarations_agree_with_the_parser() {
        let src = "#![cfg_attr(docsrs, feature(doc_cfg))]\n\
                   #[cfg(all(test, unix))]\nmod inline_tests { mod helpers; }\n\
                   pub(in crate::a) mod r#async;\n\
                   const S: &str = \"mod in_string;\";\n\
                   /* mod in_block_comment; */\n\
                   #[cfg(feature = \"x\")] mod featured;\n\
                   mod a { mod b { pub mod c; } pub mod d; }\n\
                   mod tail;";
        let from_text: Vec<(String, bool)> = super::mod_decls(src)
            .into_iter()
            .map(|d| (d.path.join("::"), d.cfg_test))
            .collect();
        // the parser's view of the same file: out-of-line modules and their inline parents
        fn walk(items: &[syn::Item], parents: &mut Vec<String>, out: &mut Vec<String>) {
            for it in items {
                if let syn::Item::Mod(m) = it {
                    let name = syn::ext::IdentExt::unraw(&m.ident).to_string();
                    match &m.content {
                        None => out.push(
                            parents
                                .iter()
                                .chain([&name])
                                .cloned()
                                .collect::<Vec<_>>()
                                .join("::"),
                        ),
                        Some((_, inner)) => {
                            parents.push(name);
                            walk(inner, parents, out);
                            parents.pop();
                        }
                    }
                }
            }
        }
        let file = syn::parse_file(src).unwrap();
        let mut parsed = Vec::new();
        walk(&file.items, &mut Vec::new(), &mut parsed);
        let names: Vec<String> = from_text.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(names, parsed);
        assert_eq!(
            from_text,
            [
                ("inline_tests::helpers".to_string(), true),
                ("async".to_string(), false),
                ("featured".to_string(), false),
                ("a::b::c".to_string(), false),
                ("a::d".to_string(), false),
                ("tail".to_string(), false),
            ]
        );
    }
}
