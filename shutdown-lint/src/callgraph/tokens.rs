//! Rust source as one flat list of tokens, for the call graph read from text: identifiers,
//! punctuation, literals and delimiters, each opening delimiter holding the index of its
//! closing one. It yields the token trees `proc_macro2` would (one [`Tok::Punct`] per
//! punctuation character, a lifetime as `'` and an identifier, a doc comment as `#` (`#!`)
//! and an empty `[..]` group, a raw identifier spelled `r#name`), but without a tree, spans
//! or an allocation per token: reading the functions of the files the byte scan skipped was
//! a quarter of a run's time on small workspaces, most of it in building token trees.

/// One token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    /// An identifier or keyword (`r#type` spelled so).
    Ident(&'a str),
    /// One punctuation character (`::` is two).
    Punct(u8),
    /// A string, character or number literal (its suffix included).
    Literal,
    /// An opening delimiter (`(`, `[`, `{`) and the index of its closing [`Tok::Close`].
    Open(u8, usize),
    /// A closing delimiter.
    Close,
}

/// The tokens of `text`; `None` when it does not lex (an unbalanced or mismatched
/// delimiter, an unterminated literal or block comment, a character no token starts with).
pub(crate) fn lex(text: &str) -> Option<Vec<Tok<'_>>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 5);
    let mut open: Vec<usize> = Vec::new();
    let mut i = if text.starts_with('\u{feff}') { 3 } else { 0 };
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                let third = b.get(i + 2).copied();
                let outer = third == Some(b'/') && b.get(i + 3) != Some(&b'/');
                doc_comment(&mut out, outer, third == Some(b'!'));
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = block_comment_end(b, i)?;
                let body = &b[i + 2..end - 2];
                let outer = body.first() == Some(&b'*') && body.len() > 1 && body[1] != b'*';
                doc_comment(&mut out, outer, body.first() == Some(&b'!'));
                i = end;
            }
            b'(' | b'[' | b'{' => {
                open.push(out.len());
                out.push(Tok::Open(c, 0));
                i += 1;
            }
            b')' | b']' | b'}' => {
                let at = open.pop()?;
                let Tok::Open(d, _) = out[at] else {
                    return None;
                };
                let matching = matches!((d, c), (b'(', b')') | (b'[', b']') | (b'{', b'}'));
                if !matching {
                    return None;
                }
                out[at] = Tok::Open(d, out.len());
                out.push(Tok::Close);
                i += 1;
            }
            b'"' => {
                out.push(Tok::Literal);
                i = literal_suffix(b, quoted_end(b, i + 1, b'"')?);
            }
            b'\'' => match char_literal_end(text, i) {
                Some(end) => {
                    out.push(Tok::Literal);
                    i = literal_suffix(b, end);
                    continue;
                }
                // a lifetime or label: `'` then its name
                None if b.get(i + 1).is_some_and(|&n| ident_start(n)) => {
                    out.push(Tok::Punct(b'\''));
                    i += 1;
                    continue;
                }
                None => return None,
            },
            b'0'..=b'9' => {
                out.push(Tok::Literal);
                i = number_end(b, i);
                continue;
            }
            _ if ident_start(c) => {
                if let Some(end) = prefixed_literal_end(b, i) {
                    out.push(Tok::Literal);
                    i = literal_suffix(b, end?);
                    continue;
                }
                let start = i;
                // `r#name`: a raw identifier, spelled with its `r#`
                if c == b'r'
                    && b.get(i + 1) == Some(&b'#')
                    && b.get(i + 2).is_some_and(|&n| ident_start(n))
                {
                    i += 2;
                }
                while i < b.len() && ident_continue(b[i]) {
                    i += 1;
                }
                out.push(Tok::Ident(&text[start..i]));
                continue;
            }
            b'~' | b'!' | b'@' | b'#' | b'$' | b'%' | b'^' | b'&' | b'*' | b'-' | b'=' | b'+'
            | b'|' | b';' | b':' | b',' | b'.' | b'/' | b'<' | b'>' | b'?' => {
                out.push(Tok::Punct(c));
                i += 1;
            }
            _ => return None,
        }
    }
    open.is_empty().then_some(out)
}

/// A doc comment as `proc_macro2` gives it: `#` (`#!` for an inner one) and a bracket
/// group, here empty (its `doc = ".."` names no call).
fn doc_comment(out: &mut Vec<Tok<'_>>, outer: bool, inner: bool) {
    if !outer && !inner {
        return;
    }
    out.push(Tok::Punct(b'#'));
    if inner {
        out.push(Tok::Punct(b'!'));
    }
    out.push(Tok::Open(b'[', out.len() + 1));
    out.push(Tok::Close);
}

/// Past the end of the (nested) block comment starting at `at`.
fn block_comment_end(b: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    while i + 1 < b.len() {
        match (b[i], b[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// Past the closing `quote` of a literal whose contents start at `from` (backslash
/// escapes skipped).
fn quoted_end(b: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            q if q == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// A literal an identifier-like prefix starts (`r".."`, `r#".."#`, `b".."`, `b'x'`,
/// `br".."`, `c".."`, `cr#".."#`): `Some` of its end (`None` inside: unterminated), or
/// `None` when the identifier at `i` starts no literal.
fn prefixed_literal_end(b: &[u8], i: usize) -> Option<Option<usize>> {
    if let Some(end) = crate::lexscan::prefixed_raw_string_end(b, i) {
        return Some(end);
    }
    match (b[i], b.get(i + 1)) {
        (b'b' | b'c', Some(b'"')) => Some(quoted_end(b, i + 2, b'"')),
        (b'b', Some(b'\'')) => Some(quoted_end(b, i + 2, b'\'')),
        _ => None,
    }
}

/// Past the character literal starting at `at` (`'x'`, `'\n'`, `'\u{1F600}'`), or `None`
/// when the quote starts a lifetime.
fn char_literal_end(text: &str, at: usize) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(at + 1) == Some(&b'\\') {
        let close = at + 3 + memchr::memchr(b'\'', b.get(at + 3..)?)?;
        return Some(close + 1);
    }
    let c = text.get(at + 1..)?.chars().next()?;
    let close = at + 1 + c.len_utf8();
    (b.get(close) == Some(&b'\'')).then_some(close + 1)
}

/// Past a number starting at `at`: digits, letters and `_` (`0x1F`, `1_000u64`, `1e9`), a
/// fraction (`1.5`, not `1..2` nor `1.max(2)`), an exponent's sign (`1e-5`).
fn number_end(b: &[u8], at: usize) -> usize {
    let hex =
        b[at..].starts_with(b"0x") || b[at..].starts_with(b"0b") || b[at..].starts_with(b"0o");
    let mut i = at;
    let digits = |i: &mut usize| {
        while *i < b.len() && (b[*i].is_ascii_alphanumeric() || b[*i] == b'_') {
            let exponent = !hex && matches!(b[*i], b'e' | b'E');
            *i += 1;
            if exponent
                && matches!(b.get(*i), Some(b'+' | b'-'))
                && b.get(*i + 1).is_some_and(u8::is_ascii_digit)
            {
                *i += 1;
            }
        }
    };
    digits(&mut i);
    if !hex
        && b.get(i) == Some(&b'.')
        && !b.get(i + 1).is_some_and(|&n| n == b'.' || ident_start(n))
    {
        i += 1;
        digits(&mut i);
    }
    i
}

/// Past a literal's suffix (`"a"suffix`), if any.
fn literal_suffix(b: &[u8], mut i: usize) -> usize {
    if b.get(i).is_some_and(|&c| ident_start(c)) {
        while i < b.len() && ident_continue(b[i]) {
            i += 1;
        }
    }
    i
}

/// An identifier may start with this byte (any non-ASCII byte: Unicode identifiers are
/// not told apart from other non-ASCII text outside literals, which does not compile).
fn ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// An identifier may go on with this byte.
fn ident_continue(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

#[cfg(test)]
mod tests {
    use super::{Tok, lex};

    /// The tokens as a compact string: identifiers, punctuation, `L` for a literal,
    /// delimiters.
    fn shape(text: &str) -> String {
        let toks = lex(text).expect("lexes");
        let mut s = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            s.push(match *t {
                Tok::Ident(n) => n.to_string(),
                Tok::Punct(c) => (c as char).to_string(),
                Tok::Literal => "L".to_string(),
                Tok::Open(d, close) => {
                    assert!(matches!(toks[close], Tok::Close), "{text}: {i} -> {close}");
                    (d as char).to_string()
                }
                Tok::Close => ")".to_string(),
            });
        }
        s.join(" ")
    }

    #[test]
    fn comments_strings_and_chars_hide_their_contents() {
        assert_eq!(shape("f(a, 'x', \"}\") // }"), "f ( a , L , L )");
        assert_eq!(shape("a /* { /* nested } */ */ b"), "a b");
        assert_eq!(shape(r##"r#"a " } "# x"##), "L x");
        assert_eq!(
            shape(r#"b"\"{" br"x" c"y" b'\'' '\u{1F600}' 'é'"#),
            "L L L L L L"
        );
        assert_eq!(shape(r#""esc \" }" z"#), "L z");
    }

    #[test]
    fn doc_comments_are_attributes() {
        assert_eq!(shape("/// doc\nfn f() {}"), "# [ ) fn f ( ) { )");
        assert_eq!(
            shape("//! inner\n//// plain\n/** block */ /*! inner */ /**/ /***/ x"),
            "# ! [ ) # [ ) # ! [ ) x"
        );
    }

    #[test]
    fn lifetimes_numbers_and_raw_identifiers() {
        assert_eq!(
            shape("&'a str; 'outer: loop {}"),
            "& ' a str ; ' outer : loop { )"
        );
        assert_eq!(
            shape("1..2; 1.5e-3f64; 0x1E-5; x.0.max(1); 2.; 1u8"),
            "L . . L ; L ; L - L ; x . L . max ( L ) ; L ; L"
        );
        assert_eq!(shape("r#type r#\"s\"# rx"), "r#type L rx");
    }

    #[test]
    fn bad_input_does_not_lex() {
        for bad in ["f(]", "{", ")", "\"open", "/* open", "`", "'"] {
            assert!(lex(bad).is_none(), "{bad}");
        }
    }
}
