//! `#[drainable]`: parse the options and the function, rewrite its body, emit it — or, on any
//! error, emit the original function (markers removed) plus the combined errors.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::args::DrainableArgs;
use super::emit::{Emitter, ScopeMode};
use super::errors::Errors;
use super::rewrite::{Stats, rewrite_fn};
use super::strip::strip_markers;

/// Expands `#[drainable(args)]` on `item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    expand_with_stats(args, item).0
}

/// Expands `#[drainable(args)]` on `item` and says what the rewrite did.
pub(crate) fn expand_with_stats(args: TokenStream, item: TokenStream) -> (TokenStream, Stats) {
    let mut errors = Errors::default();
    let mut stats = Stats::default();
    let args = errors.ok(DrainableArgs::parse(args));
    let function = match syn::parse2::<ItemFn>(item.clone()) {
        Ok(function) => function,
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
    let mut rewritten = function.clone();
    if let (Some(args), true) = (&args, errors.is_empty()) {
        let mode = if args.scope.is_some() {
            ScopeMode::Custom
        } else {
            ScopeMode::Global
        };
        let emit = Emitter::new(args.krate.clone(), mode);
        rewrite_fn(
            &mut rewritten,
            &emit,
            args.scope.as_ref(),
            &mut errors,
            &mut stats,
        );
    }
    match errors.finish() {
        None => (rewritten.into_token_stream(), stats),
        Some(error) => {
            let mut original = function;
            strip_markers(&mut original.block);
            let error = error.to_compile_error();
            (quote!(#original #error), stats)
        }
    }
}
