//! Parsing a file as its edition reads it. `syn` parses the 2018+ grammar; valid 2015 code
//! that it rejects is parsed again after a token-level rewrite that keeps every original
//! token's span (so lines, columns and byte offsets of findings stay those of the file):
//!
//! - a bare trait object `Fn(A) + Send` in type position gets the `dyn` the 2015 edition
//!   leaves out (syn accepts other bare trait objects as they are);
//! - the 2018 keywords `async`, `await` and `try` used as identifiers (`fn async()`,
//!   `try!(..)`) become raw identifiers.
//!
//! The registry sweep (`tests/registry_sweep.rs`) runs every crate of the local cargo
//! registry through this: published crates compile, so every parse error there is ours.

use proc_macro2::{Delimiter, Group, Ident, Spacing, Span, TokenStream, TokenTree};

/// A Rust edition, as `package.edition` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Edition {
    /// 2015 (also: a manifest without `edition`).
    E2015,
    /// 2018.
    E2018,
    /// 2021.
    E2021,
    /// 2024 or later.
    E2024,
    /// Not known (a file outside any package): every fallback is tried.
    #[default]
    Unknown,
}

impl Edition {
    /// Reads `package.edition` (`None`: the manifest sets none, so 2015).
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::edition::Edition;
    /// assert_eq!(Edition::from_manifest(Some("2021")), Edition::E2021);
    /// assert_eq!(Edition::from_manifest(None), Edition::E2015);
    /// ```
    pub fn from_manifest(value: Option<&str>) -> Edition {
        match value {
            None | Some("2015") => Edition::E2015,
            Some("2018") => Edition::E2018,
            Some("2021") => Edition::E2021,
            Some(v) if v.parse::<u32>().is_ok_and(|y| y >= 2024) => Edition::E2024,
            Some(_) => Edition::Unknown,
        }
    }

    /// Whether the 2015 grammar may apply.
    pub(crate) fn may_be_2015(self) -> bool {
        matches!(self, Edition::E2015 | Edition::Unknown)
    }
}

/// Parses `text` (a whole file) as `edition` reads it.
///
/// # Examples
///
/// ```
/// use shutdown_lint::edition::{parse_file, Edition};
/// let src = "type Action = Fn(&u32) + Send + Sync;\nfn async() { try!(Ok::<(), ()>(())); }\n";
/// assert!(parse_file(src, Edition::E2021).is_err());
/// let file = parse_file(src, Edition::E2015).unwrap();
/// assert_eq!(file.items.len(), 2);
/// ```
pub fn parse_file(text: &str, edition: Edition) -> syn::Result<syn::File> {
    let first = syn::parse_str::<syn::File>(text);
    let Err(err) = first else { return first };
    if !edition.may_be_2015() {
        return Err(err);
    }
    let Ok(tokens) = text.parse::<TokenStream>() else {
        return Err(err);
    };
    let rewritten = rewrite_2015(tokens);
    syn::parse2::<syn::File>(rewritten).map_err(|_| err)
}

/// The 2015 rewrite of a token stream (see the module doc).
pub(crate) fn rewrite_2015(tokens: TokenStream) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), rewrite_2015(g.stream()));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            TokenTree::Ident(id) => {
                let name = id.to_string();
                if matches!(name.as_str(), "async" | "await" | "try") && !keyword_use(&tts, i) {
                    out.push(TokenTree::Ident(Ident::new_raw(&name, id.span())));
                    continue;
                }
                if matches!(name.as_str(), "Fn" | "FnMut" | "FnOnce")
                    && matches!(tts.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
                    && bare_trait_position(&out)
                {
                    out.push(TokenTree::Ident(Ident::new("dyn", Span::call_site())));
                }
                out.push(tt.clone());
            }
            _ => out.push(tt.clone()),
        }
    }
    out.into_iter().collect()
}

/// Whether `async`/`await`/`try` at `i` is used as the keyword it became in 2018 (a file
/// of unknown edition may be 2018+ code that failed to parse for another reason).
fn keyword_use(tts: &[TokenTree], i: usize) -> bool {
    let next = tts.get(i + 1);
    let prev = i.checked_sub(1).and_then(|j| tts.get(j));
    let name = tts[i].to_string();
    match name.as_str() {
        // `async fn`, `async move {}`, `async {}`, `async ||`
        "async" => {
            matches!(next, Some(TokenTree::Ident(n)) if n == "fn" || n == "move" || n == "unsafe")
                || matches!(next, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace)
                || matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == '|')
        }
        // `x.await`
        "await" => {
            matches!(prev, Some(TokenTree::Punct(p)) if p.as_char() == '.')
                && !matches!(next, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
        }
        // `try {}` blocks
        _ => matches!(next, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace),
    }
}

/// Whether a `Fn(..)` following `out` stands in type position where 2015 allows a bare trait
/// object: after `=` (a type alias), `<`, `,` inside generics, `&`, `&mut`, `&'a`, `(`,
/// `[` or `->` — never after `:` or `+`, where it is a bound.
fn bare_trait_position(out: &[TokenTree]) -> bool {
    let Some(last) = out.last() else { return false };
    match last {
        TokenTree::Punct(p) => match p.as_char() {
            '=' => {
                !matches!(out.iter().rev().nth(1), Some(TokenTree::Punct(q)) if q.spacing() == Spacing::Joint)
            }
            '<' | '&' => true,
            '>' => {
                matches!(out.iter().rev().nth(1), Some(TokenTree::Punct(q)) if q.as_char() == '-')
            }
            ',' => true,
            _ => false,
        },
        TokenTree::Ident(i) => {
            i == "mut"
                && matches!(out.iter().rev().nth(1), Some(TokenTree::Punct(p)) if p.as_char() == '&')
        }
        // `&'a Fn()`: the lifetime's ident after its `'`
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(src: &str) {
        assert!(
            parse_file(src, Edition::E2015).is_ok(),
            "{src}: {:?}",
            parse_file(src, Edition::E2015).err()
        );
    }

    #[test]
    fn bare_trait_objects_of_2015() {
        ok("type Action = Fn(&siginfo_t) + Send + Sync;");
        ok("struct S { f: Box<Fn(u8) -> u8 + Send> }");
        ok("fn f(x: &Fn()) {} fn g(x: &mut FnMut(u8)) {}");
        ok("fn h() -> Box<FnOnce() + Send> { loop {} }");
        ok("type A = Fn() + Send; fn k<F: Fn(u8) + Send>(f: F) where F: FnMut() {}");
    }

    #[test]
    fn keywords_of_2018_as_identifiers() {
        ok("fn async() {} fn f() { let await = 1; async(); }");
        ok("fn f() -> Result<(), ()> { let x = try!(Ok(1)); Ok(()) }");
        ok("mod try { pub fn run() {} }");
    }

    #[test]
    fn spans_are_those_of_the_file() {
        let src = "type A = Fn(u8) + Send;\nfn f() { tokio::spawn(x); }\n";
        let file = parse_file(src, Edition::E2015).unwrap();
        let syn::Item::Fn(f) = &file.items[1] else {
            panic!()
        };
        let r = syn::spanned::Spanned::span(&f.sig.ident).byte_range();
        assert_eq!(&src[r], "f");
    }

    #[test]
    fn later_editions_are_not_rewritten() {
        assert!(parse_file("type A = Fn(u8) + Send;", Edition::E2021).is_err());
        assert!(parse_file("fn f() { let x = ; }", Edition::E2015).is_err());
    }
}
