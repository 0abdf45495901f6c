//! `#[drainable]`: parse the options and the function, rewrite its body, emit it — or, on any
//! error, emit the original function (markers removed) plus the combined errors.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;
use syn::{ImplItemFn, ItemFn};

use super::args::DrainableArgs;
use super::emit::{Emitter, ScopeMode};
use super::errors::Errors;
use super::rewrite::{Stats, rewrite_fn};
use super::strip::strip_markers;

/// Expands `#[drainable(args)]` on `item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    expand_with_stats(args, item).0
}

/// Expands `#[drainable(args)]` on `item` and says what the rewrite did: the statement-level
/// fast path when it applies, the full expansion otherwise (and for every error).
pub(crate) fn expand_with_stats(args: TokenStream, item: TokenStream) -> (TokenStream, Stats) {
    if let Ok(parsed) = DrainableArgs::parse(args.clone()) {
        let mut stats = Stats::default();
        if let Some(output) = super::fast::expand(&parsed, &item, &mut stats) {
            return (output, stats);
        }
    }
    expand_full(args, item)
}

/// The full expansion: parses and rewrites the whole function (the robustness run checks that
/// the fast path produces the same code).
pub(crate) fn expand_full(args: TokenStream, item: TokenStream) -> (TokenStream, Stats) {
    let mut errors = Errors::default();
    let mut stats = Stats::default();
    let args = errors.ok(DrainableArgs::parse(args));
    // `ImplItemFn` is the widest form: it also accepts free functions and `default fn`.
    let parsed = syn::parse2::<ImplItemFn>(item.clone());
    let (function, defaultness) = match parsed {
        Ok(f) => (
            ItemFn {
                attrs: f.attrs,
                vis: f.vis,
                sig: f.sig,
                block: Box::new(f.block),
            },
            f.defaultness,
        ),
        Err(_) => {
            let span = item
                .clone()
                .into_iter()
                .next()
                .map_or_else(Span::call_site, |t| t.span());
            errors.push(syn::Error::new(
                span,
                "#[drainable] applies to a `fn` or `async fn` with a body, free or in an `impl` block",
            ));
            let error = errors.finish().map(|e| e.to_compile_error());
            return (quote!(#item #error), stats);
        }
    };
    if let Some(constness) = &function.sig.constness {
        errors.push(syn::Error::new(
            constness.span(),
            "#[drainable] cannot be used on a `const fn`: a checkpoint is not a `const` operation",
        ));
    }
    // The original is re-parsed from `item` only on the error path, which saves cloning the
    // whole syntax tree on the common path.
    let mut rewritten = function;
    if let (Some(args), true) = (&args, errors.is_empty()) {
        let mode = if args.scope.is_some() {
            ScopeMode::Custom
        } else {
            ScopeMode::Global
        };
        let emit = Emitter::new(args.krate.clone(), mode).in_fn(&rewritten.sig.ident);
        rewrite_fn(
            &mut rewritten,
            &emit,
            args.scope.as_ref(),
            &mut errors,
            &mut stats,
        );
    }
    match errors.finish() {
        None => (emit_fn(rewritten, defaultness), stats),
        Some(error) => {
            let Ok(original) = syn::parse2::<ImplItemFn>(item) else {
                return (error.to_compile_error(), stats);
            };
            let mut original = ItemFn {
                attrs: original.attrs,
                vis: original.vis,
                sig: original.sig,
                block: Box::new(original.block),
            };
            strip_markers(&mut original.block);
            let original = emit_fn(original, defaultness);
            let error = error.to_compile_error();
            (quote!(#original #error), stats)
        }
    }
}

/// The function's tokens, with `default` put back for a specializing `impl` item.
fn emit_fn(function: ItemFn, defaultness: Option<syn::Token![default]>) -> TokenStream {
    match defaultness {
        None => function.into_token_stream(),
        Some(defaultness) => ImplItemFn {
            attrs: function.attrs,
            vis: function.vis,
            defaultness: Some(defaultness),
            sig: function.sig,
            block: *function.block,
        }
        .into_token_stream(),
    }
}
