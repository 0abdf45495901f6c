//! Attribute and pattern helpers of the walk: `#[cfg(test)]` and test attributes, Windows-only
//! `cfg`s, path segments and the names a pattern binds.

/// `#[cfg(..)]` predicate text, e.g. `windows`, `test`, `all(test, unix)`.
pub(super) fn cfg_text(attr: &syn::Attribute) -> Option<String> {
    if !attr.path().is_ident("cfg") {
        return None;
    }
    match &attr.meta {
        syn::Meta::List(l) => Some(l.tokens.to_string()),
        _ => None,
    }
}

pub(super) fn is_test_attrs(attrs: &[syn::Attribute]) -> bool {
    crate::testcode::is_test_attrs(attrs)
}

/// Whether a `cfg` predicate's text holds only on Windows (`windows`, `target_os =
/// "windows"`, `not(unix)`, `all(windows, ..)`).
pub(crate) fn is_windows_cfg_text(t: &str) -> bool {
    let t: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    t == "windows"
        || t == "target_os=\"windows\""
        || t == "target_family=\"windows\""
        || t == "not(unix)"
        || (t.starts_with("all(") && (t.contains("(windows") || t.contains(",windows")))
}

pub(super) fn is_windows_only(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| cfg_text(a).is_some_and(|t| is_windows_cfg_text(&t)))
}

/// Whether an item derives `Default` (`#[derive(Debug, Clone, Default)]`).
pub(super) fn derives_default(attrs: &[syn::Attribute]) -> bool {
    use syn::punctuated::Punctuated;
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            a.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
                .is_ok_and(|paths| {
                    paths
                        .iter()
                        .any(|p| p.segments.last().is_some_and(|s| s.ident == "Default"))
                })
        })
}

/// The byte offset where a struct field's type starts: where a client its derived
/// `Default` makes is said to be made.
pub(super) fn field_type_offset(f: &syn::Field) -> usize {
    syn::spanned::Spanned::span(&f.ty).byte_range().start
}

/// Shared pointers whose `new(x)` hands `x`'s methods on (`Arc::new(rt)`).
pub(super) const POINTERS: &[&str] = &["Arc", "Rc", "Box"];

/// Lazily initialised values whose `new(|| ..)` runs the closure on first use.
pub(super) const LAZIES: &[&str] = &["LazyLock", "LazyCell", "Lazy"];

/// Whether `p` ends in `Type::new` for one of `types` (`Arc::new`, `std::sync::Arc::new`).
pub(super) fn is_new_of(p: &syn::Path, types: &[&str]) -> bool {
    is_fn_of(p, "new", types)
}

/// Whether `p` ends in `Type::f` for one of `types` (`Arc::clone`).
pub(super) fn is_fn_of(p: &syn::Path, f: &str, types: &[&str]) -> bool {
    let n = p.segments.len();
    n >= 2 && p.segments[n - 1].ident == f && types.iter().any(|t| p.segments[n - 2].ident == t)
}

pub(super) fn path_segs(p: &syn::Path) -> Vec<String> {
    p.segments.iter().map(|s| s.ident.to_string()).collect()
}

pub(super) fn pat_idents(p: &syn::Pat, out: &mut Vec<String>) {
    match p {
        syn::Pat::Ident(i) => {
            out.push(i.ident.to_string());
            if let Some((_, sub)) = &i.subpat {
                pat_idents(sub, out);
            }
        }
        syn::Pat::Or(o) => o.cases.iter().for_each(|c| pat_idents(c, out)),
        syn::Pat::Paren(x) => pat_idents(&x.pat, out),
        syn::Pat::Reference(r) => pat_idents(&r.pat, out),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|c| pat_idents(c, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| pat_idents(&f.pat, out)),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|c| pat_idents(c, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|c| pat_idents(c, out)),
        syn::Pat::Type(t) => pat_idents(&t.pat, out),
        _ => {}
    }
}

pub(super) fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
    match e {
        syn::Expr::Call(x) => &x.attrs,
        syn::Expr::MethodCall(x) => &x.attrs,
        syn::Expr::Block(x) => &x.attrs,
        syn::Expr::If(x) => &x.attrs,
        syn::Expr::Macro(x) => &x.attrs,
        syn::Expr::Match(x) => &x.attrs,
        syn::Expr::Try(x) => &x.attrs,
        syn::Expr::Await(x) => &x.attrs,
        _ => &[],
    }
}

/// A pattern without its type annotation (`x: T` is `x`).
pub(super) fn pat_of(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => &t.pat,
        other => other,
    }
}

/// The name of a plain parameter (`timeout: Duration`, `mut t: T`), by position; `None` for
/// a pattern that binds more or otherwise (`(a, b): (A, B)`, `t @ ..`) and for `self`.
pub(super) fn plain_param_name(a: &syn::FnArg) -> Option<String> {
    match a {
        syn::FnArg::Typed(t) => match &*t.pat {
            syn::Pat::Ident(i) if i.subpat.is_none() => Some(i.ident.to_string()),
            _ => None,
        },
        syn::FnArg::Receiver(_) => None,
    }
}

/// The type an `#[implement(Type)]` attribute makes a free function a method of (tuwunel's
/// and conduwuit's `implement` attribute, which wraps the function in `impl Type { .. }`):
/// its first argument, a path.
pub(super) fn implement_receiver(attrs: &[syn::Attribute]) -> Option<syn::Type> {
    let a = attrs.iter().find(|a| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "implement")
    })?;
    let args = a
        .parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
        .ok()?;
    match args.first()? {
        syn::Meta::Path(p) => Some(syn::Type::Path(syn::TypePath {
            qself: None,
            path: p.clone(),
        })),
        _ => None,
    }
}
