//! Bodies of common macros, parsed as Rust when they are Rust: `tokio::select!` branches,
//! `tokio::join!` / `try_join!` / `vec!` / format-style / `assert!` arguments, and
//! statement or item bodies of other macros. What does not parse is not analysed and is
//! counted (`--stats`).

use proc_macro2::TokenStream;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

/// One `tokio::select!` branch: `pat = future (, if guard)? => handler`, or `else => handler`.
#[derive(Debug, Clone)]
pub struct SelectBranch {
    /// Binding pattern (none for `else`).
    pub pat: Option<syn::Pat>,
    /// The future expression (`else` branches use `()`).
    pub future: Expr,
    /// Precondition.
    pub guard: Option<Expr>,
    /// The handler.
    pub handler: Expr,
}

/// A parsed macro body.
#[derive(Debug, Clone)]
pub enum MacroBody {
    /// Comma-separated expressions (format args, `join!`, `vec![a, b]`, `vec![x; n]`).
    Exprs(Vec<Expr>),
    /// `select!` branches.
    Select(Vec<SelectBranch>),
    /// A statement body.
    Stmts(Vec<syn::Stmt>),
    /// An item body (`cfg_if!`-like item macros).
    Items(Vec<syn::Item>),
}

/// Macros whose bodies are not Rust expressions by design and are not counted as
/// unanalysed: code generators and declarative-macro definitions.
pub fn is_opaque(name: &str) -> bool {
    matches!(
        name,
        "macro_rules"
            | "quote"
            | "quote_spanned"
            | "parse_quote"
            | "parse_quote_spanned"
            | "include_str"
            | "include_bytes"
            | "include"
            | "env"
            | "option_env"
            | "concat"
            | "stringify"
            | "compile_error"
            | "cfg"
            | "line"
            | "column"
            | "file"
            | "module_path"
    )
}

/// Parses a macro body by the macro's last path segment.
///
/// # Examples
/// ```
/// use shutdown_lint::macros::{parse_body, MacroBody};
/// let body = parse_body("join", quote::quote!(a(), tokio::spawn(b))).unwrap();
/// assert!(matches!(body, MacroBody::Exprs(ref v) if v.len() == 2));
/// // named arguments and tracing fields: the expressions are what is analysed
/// let tokens = quote::quote!(name: "conn", fut: tokio::spawn(b), target: "x", ?addr, peer = %p);
/// let body = parse_body("background_spawn", tokens).unwrap();
/// assert!(matches!(body, MacroBody::Exprs(ref v) if v.len() == 5));
/// ```
pub fn parse_body(name: &str, tokens: TokenStream) -> Option<MacroBody> {
    if name == "select" {
        return parse_select.parse2(tokens).ok().map(MacroBody::Select);
    }
    if name == "vec"
        && let Ok((a, b)) = (|input: ParseStream<'_>| {
            let a: Expr = input.parse()?;
            input.parse::<Token![;]>()?;
            let b: Expr = input.parse()?;
            Ok((a, b))
        })
        .parse2(tokens.clone())
    {
        return Some(MacroBody::Exprs(vec![a, b]));
    }
    if name == "lazy_static" {
        return lazy_static_items(tokens).map(MacroBody::Items);
    }
    if name == "matches" {
        return (|input: ParseStream<'_>| {
            let e: Expr = input.parse()?;
            let _: proc_macro2::TokenStream = input.parse()?;
            Ok(e)
        })
        .parse2(tokens)
        .ok()
        .map(|e| MacroBody::Exprs(vec![e]));
    }
    if let Ok(p) = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(tokens.clone()) {
        return Some(MacroBody::Exprs(p.into_iter().collect()));
    }
    // named arguments: `spawn!(name: "conn", fut: async move { .. })`, and tracing's fields
    // (`info!(target: "x", ?addr, peer = %peer, "msg")`)
    if let Ok(p) = Punctuated::<NamedArg, Token![,]>::parse_terminated.parse2(tokens.clone()) {
        return Some(MacroBody::Exprs(p.into_iter().map(|a| a.0).collect()));
    }
    if let Ok(stmts) = syn::Block::parse_within.parse2(tokens.clone()) {
        return Some(MacroBody::Stmts(stmts));
    }
    if let Ok(file) = syn::parse2::<syn::File>(tokens.clone()) {
        return Some(MacroBody::Items(file.items));
    }
    recovered_stmts(tokens)
}

/// The items of a `lazy_static! { .. }` body: `static ref NAME: T = expr;` is a static item
/// once `ref` is dropped (`None` when it does not parse).
///
/// # Examples
/// ```
/// use shutdown_lint::macros::lazy_static_items;
/// let tokens = quote::quote!(static ref RT: tokio::runtime::Runtime = make(););
/// let items = lazy_static_items(tokens).unwrap();
/// assert!(matches!(&items[0], syn::Item::Static(s) if s.ident == "RT"));
/// ```
pub fn lazy_static_items(tokens: TokenStream) -> Option<Vec<syn::Item>> {
    let tokens: TokenStream = tokens
        .into_iter()
        .filter(|t| !matches!(t, proc_macro2::TokenTree::Ident(i) if i == "ref"))
        .collect();
    syn::parse2::<syn::File>(tokens).ok().map(|f| f.items)
}

/// Whether a macro's path (or its last segment) names `lazy_static!`.
fn is_lazy_static(name: &str) -> bool {
    name.ends_with("lazy_static")
}

/// The items an item-level macro invocation holds when its body parses as items
/// (`cfg_rt! { .. }`; a `lazy_static!`'s statics, [`lazy_static_items`]); `name` is its
/// path or the path's last segment.
///
/// # Examples
/// ```
/// use shutdown_lint::macros::item_macro_items;
/// let rt = quote::quote!(static ref RT: tokio::runtime::Runtime = make(););
/// assert_eq!(item_macro_items("lazy_static", rt).map(|i| i.len()), Some(1));
/// assert_eq!(item_macro_items("cfg_rt", quote::quote!(fn f() {})).map(|i| i.len()), Some(1));
/// ```
pub fn item_macro_items(name: &str, tokens: TokenStream) -> Option<Vec<syn::Item>> {
    if is_lazy_static(name) {
        lazy_static_items(tokens)
    } else {
        syn::parse2::<syn::File>(tokens).ok().map(|f| f.items)
    }
}

/// Whether `name!{ body }` is a `lazy_static!` holding a runtime or its handle (`static ref
/// RUNTIME: Runtime = ..;`): spawns are asked of its statics (`RUNTIME.spawn(..)`), so it is
/// read even where it names no word a rule looks for.
///
/// # Examples
/// ```
/// use shutdown_lint::macros::is_runtime_lazy_static;
/// assert!(is_runtime_lazy_static("lazy_static", b"{ static ref RT: tokio::runtime::Runtime = make(); }"));
/// assert!(!is_runtime_lazy_static("lazy_static", b"{ static ref RE: Regex = make(); }"));
/// ```
pub fn is_runtime_lazy_static(name: &str, body: &[u8]) -> bool {
    is_lazy_static(name)
        && [&b"Runtime"[..], b"Handle"]
            .iter()
            .any(|w| memchr::memmem::find(body, w).is_some())
}

/// A body that is not Rust as a whole: each statement that parses on its own — split at
/// the top-level `;` — is analysed, in order, and of one that does not, the `{ .. }` groups
/// it holds, recursively. async-stream's `stream! { .. }` with a `for await` loop or a
/// DSL macro in a `let` (`let doc = doc! { field => value };`, tabby's indexer), and
/// `cfg_if! { if #[cfg(unix)] { .. } else { .. } }`, `cfg_select! { unix => { .. } _ =>
/// { .. } }`, whose Rust is in the groups. `None` when nothing parses.
fn recovered_stmts(tokens: TokenStream) -> Option<MacroBody> {
    let mut stmts = Vec::new();
    recover(tokens, 0, &mut stmts).then_some(MacroBody::Stmts(stmts))
}

/// [`recovered_stmts`] of `tokens`, `depth` groups deep: whether anything parsed.
fn recover(tokens: TokenStream, depth: usize, out: &mut Vec<syn::Stmt>) -> bool {
    let is_semi = |t: &proc_macro2::TokenTree| matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ';');
    let mut any = false;
    for segment in split_after(tokens, is_semi) {
        any |= recover_segment(segment, depth, out);
    }
    any
}

/// `tokens` cut after each token `ends` holds for (the last piece may end otherwise).
fn split_after(
    tokens: TokenStream,
    ends: impl Fn(&proc_macro2::TokenTree) -> bool,
) -> Vec<TokenStream> {
    let mut pieces = Vec::new();
    let mut piece = TokenStream::new();
    for t in tokens {
        let end = ends(&t);
        piece.extend([t]);
        if end {
            pieces.push(std::mem::take(&mut piece));
        }
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    pieces
}

/// One statement (or several without a `;` between them) of [`recover`]. One that does not
/// parse is split after each of its top-level `{ .. }` groups (a `for await x in s { .. }`
/// loop ends there, and a statement may follow it with no `;`), and a piece that still
/// does not parse is read by its groups.
fn recover_segment(segment: TokenStream, depth: usize, out: &mut Vec<syn::Stmt>) -> bool {
    if let Ok(mut s) = syn::Block::parse_within.parse2(segment.clone()) {
        out.append(&mut s);
        return true;
    }
    if depth >= MAX_RECOVERY_DEPTH {
        return false;
    }
    let is_braces = |t: &proc_macro2::TokenTree| {
        matches!(t, proc_macro2::TokenTree::Group(g)
            if g.delimiter() == proc_macro2::Delimiter::Brace)
    };
    let mut any = false;
    let pieces = split_after(segment, is_braces);
    let whole = pieces.len() == 1;
    for piece in pieces {
        if !whole && let Ok(mut s) = syn::Block::parse_within.parse2(piece.clone()) {
            out.append(&mut s);
            any = true;
            continue;
        }
        for t in piece {
            if let proc_macro2::TokenTree::Group(g) = &t
                && is_braces(&t)
            {
                any |= recover(g.stream(), depth + 1, out);
            }
        }
    }
    any
}

/// How many `{ .. }` groups deep [`recover`] looks into statements that do not parse.
const MAX_RECOVERY_DEPTH: usize = 8;

fn parse_select(input: ParseStream<'_>) -> syn::Result<Vec<SelectBranch>> {
    let mut out = Vec::new();
    if input.peek(syn::Ident)
        && input
            .fork()
            .parse::<syn::Ident>()
            .is_ok_and(|i| i == "biased")
    {
        input.parse::<syn::Ident>()?;
        input.parse::<Token![;]>()?;
    }
    while !input.is_empty() {
        let (pat, future, guard) = if input.peek(Token![else]) {
            input.parse::<Token![else]>()?;
            (None, syn::parse_quote!(()), None)
        } else {
            let pat = syn::Pat::parse_single(input)?;
            input.parse::<Token![=]>()?;
            let future: Expr = input.parse()?;
            let mut guard = None;
            if input.peek(Token![,]) && input.peek2(Token![if]) {
                input.parse::<Token![,]>()?;
                input.parse::<Token![if]>()?;
                guard = Some(input.parse()?);
            }
            (Some(pat), future, guard)
        };
        input.parse::<Token![=>]>()?;
        let handler: Expr = if input.peek(syn::token::Brace) {
            let block: syn::Block = input.parse()?;
            Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block,
            })
        } else {
            input.parse()?
        };
        out.push(SelectBranch {
            pat,
            future,
            guard,
            handler,
        });
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(out)
}

/// A macro argument, with or without a `name:` before it (not `name::path`), or a
/// tracing field: `?value`, `%value`, `name = ?value`, `name = %value`.
struct NamedArg(Expr);

impl syn::parse::Parse for NamedArg {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        // tracing's `?` (Debug) and `%` (Display) before a field's value
        let sigil_third = input.peek3(Token![?]) || input.peek3(Token![%]);
        if input.peek(syn::Ident) && input.peek2(Token![:]) && !input.peek2(Token![::]) {
            let _: syn::Ident = input.parse()?;
            let _: Token![:] = input.parse()?;
        } else if input.peek(syn::Ident)
            && input.peek2(Token![=])
            && !input.peek2(Token![==])
            && sigil_third
        {
            let _: syn::Ident = input.parse()?;
            let _: Token![=] = input.parse()?;
        }
        if input.peek(Token![?]) || input.peek(Token![%]) {
            let _: proc_macro2::TokenTree = input.parse()?;
        }
        input.parse().map(NamedArg)
    }
}
