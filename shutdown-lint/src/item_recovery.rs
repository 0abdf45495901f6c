//! Reading a file that does not parse as a whole one top-level item at a time, so one item
//! `syn` cannot read does not hide the rest of the file.
//!
//! A crate built with a nightly toolchain may use syntax `syn` does not know: chainflip's
//! runtime (`#![feature(lazy_type_alias)]`) declares
//! `pub type Items<B: Bound> = <X<B> as V>::Type where ..;`, a trailing `where` on a free
//! type alias. The file compiles; reporting it as unreadable would fail a user's CI and
//! leave its other items unchecked. The file's tokens are cut at the ends of top-level items
//! (after a `;` or a `{ .. }` group), each piece is parsed as an item, and a piece that does
//! not parse — up to where the next item begins — is left out with its error, which keeps
//! the piece's location in the file.
//!
//! What is done with the items left out is the caller's choice
//! ([`crate::analysis`]: a `parse-error` each, unless the crate enables nightly features).
//!
//! A file may also hold statements instead of items ([`parse_fragment`]): a documentation
//! snippet without its `fn main` (rerun's `docs/snippets`, whose build script copies only
//! the complete ones into a crate), or a file `include!`d inside a function body. Cargo never
//! compiles it as a file; it is read as the body of a function.

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use crate::edition::Edition;

/// A file read item by item.
#[derive(Debug)]
pub struct Recovered {
    /// The file, with the items that parse (and its inner attributes).
    pub file: syn::File,
    /// An error for each top-level item left out, at the place it points to.
    pub skipped: Vec<syn::Error>,
}

/// Reads `text` (a file that does not parse as a whole) as a fragment of statements, the
/// body of a function: a file holding a `let` or an expression statement, which no file of
/// items may. Returns a file with one function, `__fragment`, whose statements keep their
/// places in `text`; `None` when `text` does not parse as statements or holds only items.
///
/// # Examples
///
/// ```
/// use shutdown_lint::item_recovery::parse_fragment;
/// let src = "let args = std::env::args().collect::<Vec<_>>();\ntokio::spawn(upload(args));\n";
/// assert!(syn::parse_file(src).is_err());
/// let file = parse_fragment(src).unwrap();
/// let syn::Item::Fn(f) = &file.items[0] else { panic!() };
/// assert_eq!(f.block.stmts.len(), 2);
/// assert!(parse_fragment("fn main() {}").is_none()); // items only: a file
/// assert!(parse_fragment("let x = ;").is_none());
/// ```
pub fn parse_fragment(text: &str) -> Option<syn::File> {
    use syn::parse::Parser;
    let stmts = syn::Block::parse_within.parse_str(text).ok()?;
    if stmts.iter().all(|s| matches!(s, syn::Stmt::Item(_))) {
        return None;
    }
    let mut f: syn::ItemFn = syn::parse_quote! { fn __fragment() {} };
    f.block.stmts = stmts;
    Some(syn::File {
        shebang: None,
        attrs: Vec::new(),
        items: vec![syn::Item::Fn(f)],
    })
}

/// Reads `text` (a file that does not parse as a whole) one top-level item at a time, as
/// `edition` reads it; `None` when its tokens do not even form a token stream (an
/// unclosed delimiter, an unterminated string) or no item parses.
///
/// # Examples
///
/// ```
/// use shutdown_lint::{edition::Edition, item_recovery::parse_items};
/// let src = "#![feature(lazy_type_alias)]\n\
///            pub type A<T: Tr> = <T as Tr>::Out where T: Default;\n\
///            fn f() { tokio::spawn(work()); }\n";
/// assert!(syn::parse_file(src).is_err());
/// let r = parse_items(src, Edition::E2021).unwrap();
/// assert_eq!(r.file.items.len(), 1); // `fn f`
/// assert_eq!(r.file.attrs.len(), 1);
/// assert_eq!(r.skipped.len(), 1);
/// assert_eq!(r.skipped[0].span().start().line, 2);
/// ```
pub fn parse_items(text: &str, edition: Edition) -> Option<Recovered> {
    let tokens: Vec<TokenTree> = text.parse::<TokenStream>().ok()?.into_iter().collect();
    let (attrs, mut rest) = inner_attributes(&tokens);
    let mut items = Vec::new();
    let mut skipped = Vec::new();
    let mut start = rest;
    while rest < tokens.len() {
        let tt = &tokens[rest];
        rest += 1;
        let at_end = matches!(tt, TokenTree::Punct(p) if p.as_char() == ';')
            || matches!(tt, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace);
        if !at_end && rest < tokens.len() {
            continue;
        }
        match parse_item(&tokens[start..rest], edition) {
            Ok(item) => {
                items.push(item);
                start = rest;
            }
            // the piece may go on (`const C: S = S { a };`): cut only where an item begins
            Err(e) if rest == tokens.len() || begins_item(&tokens[rest..]) => {
                skipped.push(e);
                start = rest;
            }
            Err(_) => {}
        }
    }
    if items.is_empty() {
        return None;
    }
    Some(Recovered {
        file: syn::File {
            shebang: None,
            attrs,
            items,
        },
        skipped,
    })
}

/// The file's inner attributes (`#![..]`) that parse, and the index of the first token after
/// them.
fn inner_attributes(tokens: &[TokenTree]) -> (Vec<syn::Attribute>, usize) {
    use syn::parse::Parser;
    let mut i = 0;
    while matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == '#')
        && matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!')
        && matches!(tokens.get(i + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
    {
        i += 3;
    }
    let stream: TokenStream = tokens[..i].iter().cloned().collect();
    let attrs = syn::Attribute::parse_inner
        .parse2(stream)
        .unwrap_or_default();
    (attrs, i)
}

/// One item from `tokens`, read as `edition` reads it.
fn parse_item(tokens: &[TokenTree], edition: Edition) -> syn::Result<syn::Item> {
    let stream: TokenStream = tokens.iter().cloned().collect();
    let first = syn::parse2::<syn::Item>(stream.clone());
    match first {
        Err(e) if edition.may_be_2015() => {
            syn::parse2::<syn::Item>(crate::edition::rewrite_2015(stream)).map_err(|_| e)
        }
        r => r,
    }
}

/// Whether `tokens` begin an item: an outer attribute, a visibility, or an item's keyword.
fn begins_item(tokens: &[TokenTree]) -> bool {
    match tokens.first() {
        Some(TokenTree::Punct(p)) => p.as_char() == '#',
        Some(TokenTree::Ident(id)) => matches!(
            id.to_string().as_str(),
            "pub"
                | "fn"
                | "struct"
                | "enum"
                | "union"
                | "impl"
                | "trait"
                | "type"
                | "const"
                | "static"
                | "use"
                | "mod"
                | "extern"
                | "unsafe"
                | "async"
                | "auto"
                | "macro_rules"
        ),
        _ => false,
    }
}

/// Whether `text` (a crate root) enables nightly features: a line `#![feature(..)]`. Such a
/// crate builds only with a nightly toolchain, whose syntax `syn` may not know yet; a
/// feature enabled under `cfg_attr` does not count (the crate builds without it too).
///
/// # Examples
///
/// ```
/// use shutdown_lint::item_recovery::enables_nightly_features;
/// assert!(enables_nightly_features("//! Runtime.\n#![feature(lazy_type_alias)]\n"));
/// assert!(!enables_nightly_features("#![cfg_attr(docsrs, feature(doc_cfg))]\n"));
/// ```
pub fn enables_nightly_features(text: &str) -> bool {
    text.lines().any(|l| {
        l.trim_start()
            .strip_prefix("#![")
            .is_some_and(|r| r.trim_start().starts_with("feature"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(r: &Recovered) -> Vec<String> {
        r.file
            .items
            .iter()
            .map(|i| match i {
                syn::Item::Fn(f) => f.sig.ident.to_string(),
                syn::Item::Const(c) => c.ident.to_string(),
                syn::Item::Struct(s) => s.ident.to_string(),
                syn::Item::Impl(_) => "impl".into(),
                syn::Item::Macro(_) => "macro".into(),
                _ => "?".into(),
            })
            .collect()
    }

    #[test]
    fn an_item_syn_cannot_read_is_left_out_and_the_rest_is_read() {
        let src = "use std::fmt;\n\
                   pub type A<T> = <T as X>::Y\nwhere\n    T: Default;\n\
                   const C: S = S { a: 1 };\n\
                   struct S { a: u8 }\n\
                   impl S { fn g(&self) {} }\n\
                   m! { x }\n\
                   m!(y);\n\
                   #[cfg(unix)]\n\
                   fn f() { tokio::spawn(work()); }\n";
        assert!(syn::parse_file(src).is_err());
        let r = parse_items(src, Edition::E2021).unwrap();
        assert_eq!(names(&r), ["?", "C", "S", "impl", "macro", "macro", "f"]);
        assert_eq!(r.skipped.len(), 1);
        // the error points into the item left out, at its place in the file
        let line = r.skipped[0].span().start().line;
        assert!((2..=5).contains(&line), "{line}");
    }

    #[test]
    fn several_items_left_out_each_have_an_error() {
        let src = "type A = B where u8: Copy;\nfn f() {}\ntype C = D where u8: Copy;\n";
        let r = parse_items(src, Edition::E2021).unwrap();
        assert_eq!(names(&r), ["f"]);
        let lines: Vec<usize> = r.skipped.iter().map(|e| e.span().start().line).collect();
        assert_eq!(lines, [1, 3]);
    }

    #[test]
    fn a_last_item_without_an_end_is_left_out() {
        let r = parse_items("fn f() {}\nfn g() -> u8", Edition::E2021).unwrap();
        assert_eq!(names(&r), ["f"]);
        assert_eq!(r.skipped.len(), 1);
    }

    #[test]
    fn text_that_is_not_a_token_stream_or_has_no_item_gives_none() {
        assert!(parse_items("fn f() {", Edition::E2021).is_none());
        assert!(parse_items("type A = B where u8: Copy;", Edition::E2021).is_none());
        assert!(parse_items("", Edition::E2021).is_none());
    }

    #[test]
    fn a_2015_item_is_read_as_2015() {
        let src = "type A = B where u8: Copy;\ntype Action = Fn(&u32) + Send;\n";
        let r = parse_items(src, Edition::E2015).unwrap();
        assert_eq!(r.file.items.len(), 1);
        assert!(parse_items(src, Edition::E2021).is_none());
    }
}
