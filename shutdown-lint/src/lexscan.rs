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
        if tok == (Token::LineComment { doc: true }) {
            docs.push((start, end));
        }
        for c in &mut out[start..end] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    });
    (out, docs)
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
                // a raw string's `"`: `r"`, `r#"` (the `r` not ending an identifier)
                let mut r = i;
                while r > 0 && b[r - 1] == b'#' {
                    r -= 1;
                }
                let raw = r > 0 && b[r - 1] == b'r' && (r == 1 || !is_ident(b[r - 2]));
                if raw {
                    let hashes = i - r;
                    let start = i + 1;
                    let mut j = start;
                    // the closing `"` followed by as many `#`
                    loop {
                        match memchr::memchr(b'"', &b[j.min(n)..]) {
                            Some(k) => {
                                j += k;
                                if (0..hashes).all(|h| b.get(j + 1 + h) == Some(&b'#')) {
                                    break;
                                }
                                j += 1;
                            }
                            None => {
                                j = n;
                                break;
                            }
                        }
                    }
                    f(Token::Literal, start.min(n), j.min(n));
                    i = j + 1 + hashes;
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

/// A byte that can be part of an identifier (ASCII letters, digits, `_`).
pub(crate) fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The next occurrence of the keyword `word` in `code` (a [`code_only`] text) at or after
/// `from`, as a whole identifier.
pub(crate) fn find_word(code: &[u8], word: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < code.len() {
        let at = i + memchr::memmem::find(&code[i..], word)?;
        let end = at + word.len();
        if (at == 0 || !is_ident(code[at - 1])) && !code.get(end).is_some_and(|&c| is_ident(c)) {
            return Some(at);
        }
        i = end;
    }
    None
}

/// Out-of-line modules declared under a test attribute at the top of a file, found without
/// parsing: `#[cfg(test)] mod helpers;` (other attributes and `pub(..)` allowed between),
/// as [`crate::model::ModDecl`]s with `cfg_test` set. Used for files the byte scan skips.
///
/// # Examples
/// ```
/// let d = shutdown_lint::lexscan::cfg_test_mod_decls("#[cfg(test)]\n#[path = \"t.rs\"]\npub(crate) mod helpers;\nmod real;\n");
/// assert_eq!(d.len(), 1);
/// assert_eq!(d[0].path, ["helpers"]);
/// assert_eq!(d[0].path_attr.as_deref(), Some("t.rs"));
/// ```
pub fn cfg_test_mod_decls(text: &str) -> Vec<crate::model::ModDecl> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(") {
        let start = from + at;
        from = start + 6;
        let Some(close) = text[start..].find(")]") else {
            break;
        };
        let pred = &text[start + 6..start + close];
        if !cfg_implies_test(pred) {
            continue;
        }
        // skip further attributes and visibility, then expect `mod name;`
        let mut rest = text[start + close + 2..].trim_start();
        let mut path_attr = None;
        while rest.starts_with("#[") {
            let Some(end) = rest.find(']') else { break };
            let attr = &rest[2..end];
            if let Some(v) = attr.trim().strip_prefix("path") {
                let v = v.trim().trim_start_matches('=').trim();
                path_attr = Some(v.trim_matches('"').to_string());
            }
            rest = rest[end + 1..].trim_start();
        }
        if let Some(r) = rest.strip_prefix("pub") {
            rest = r.trim_start();
            if rest.starts_with('(')
                && let Some(end) = rest.find(')')
            {
                rest = rest[end + 1..].trim_start();
            }
        }
        let Some(r) = rest.strip_prefix("mod ") else {
            continue;
        };
        let name: String = r
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = r.trim_start()[name.len()..].trim_start();
        if !name.is_empty() && after.starts_with(';') {
            out.push(crate::model::ModDecl {
                path: vec![name],
                path_attr,
                cfg_test: true,
            });
        }
    }
    out
}

/// Whether a `cfg` predicate holds only in test builds: `test`, `all(test, unix)`,
/// `any(test, all(test, x))` — but not `any(test, feature = "x")` (compiled whenever the
/// feature is on) nor `not(test)`. Unparsable text is not test-only.
///
/// # Examples
/// ```
/// use shutdown_lint::lexscan::cfg_implies_test;
/// assert!(cfg_implies_test("test"));
/// assert!(cfg_implies_test("all(test, feature = \"x\")"));
/// assert!(!cfg_implies_test("any(test, feature = \"tokio\")"));
/// assert!(!cfg_implies_test("not(test)"));
/// ```
pub fn cfg_implies_test(pred: &str) -> bool {
    let toks = cfg_tokens(pred);
    let mut pos = 0;
    let r = cfg_expr(&toks, &mut pos, 0);
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

/// Parses one predicate at `pos`; `Some(implies test)`, `None` on bad input.
fn cfg_expr(toks: &[String], pos: &mut usize, depth: usize) -> Option<bool> {
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
                parts.push(cfg_expr(toks, pos, depth + 1)?);
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
                *pos += 2; // `key = "value"`
                return Some(false);
            }
            Some(word == "test")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::code_only;

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
    fn lifetimes_are_code_and_unclosed_literals_run_to_the_end() {
        assert_eq!(code("fn f<'a>(x: &'a str) {}"), "fn f<'a>(x: &'a str) {}");
        assert_eq!(code("let s = \"abc"), "let s = \"   ");
        assert_eq!(code("/* never closed"), "               ");
    }
}
