//! `#[shutdown_runtime::main(grace = "30s", flavor = "..", worker_threads = N)]`: turns
//! `async fn main()` into a synchronous `fn main()` that hands the body to
//! `__private::main_entry`, which builds the runtime, installs the signal handlers before the
//! body's first poll, runs the life cycle with `Budgets::from_grace(grace)` and exits with
//! its code.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::args::{Flavor, MainArgs, default_crate_path};
use super::emit::{Emitter, ScopeMode};
use super::errors::Errors;

/// Expands the main attribute on `item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = errors.ok(MainArgs::parse(args));
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
                "#[shutdown_runtime::main] applies to an `async fn main()`",
            ));
            let error = errors.finish().map(|e| e.to_compile_error());
            return quote!(#item #error);
        }
    };
    let mut shape = Errors::default();
    if function.sig.asyncness.is_none() {
        shape.push(syn::Error::new(
            function.sig.fn_token.span(),
            "#[shutdown_runtime::main] needs an `async fn`: write `async fn main()`",
        ));
    }
    if !function.sig.inputs.is_empty() {
        shape.push(syn::Error::new(
            function.sig.inputs.span(),
            "the main function takes no arguments",
        ));
    }
    if !function.sig.generics.params.is_empty() || function.sig.generics.where_clause.is_some() {
        shape.push(syn::Error::new(
            function.sig.generics.span(),
            "the main function cannot be generic",
        ));
    }
    if let Some(shape) = shape.finish() {
        // The item cannot become an entry point, and emitting it unchanged would add rustc's
        // own errors about an async or generic `main`: emit an empty synchronous stand-in.
        errors.push(shape);
        let error = errors.finish().map(|e| e.to_compile_error());
        let syn::ItemFn {
            attrs, vis, sig, ..
        } = &function;
        let name = &sig.ident;
        return quote!(#(#attrs)* #vis fn #name() {} #error);
    }
    // Option errors still expand with the defaults, so the only messages are about the options.
    let args = args.unwrap_or(MainArgs {
        grace_millis: MainArgs::DEFAULT_GRACE_MILLIS,
        flavor: Flavor::MultiThread,
        worker_threads: None,
        krate: default_crate_path(),
        report: MainArgs::DEFAULT_REPORT,
        second_signal: MainArgs::DEFAULT_SECOND_SIGNAL,
    });
    let emit = Emitter::new(args.krate.clone(), ScopeMode::Global);
    let mut inner = function.clone();
    inner.attrs.clear();
    inner.vis = syn::Visibility::Inherited;
    inner.sig.ident = syn::Ident::new("__shutdown_runtime_main", function.sig.ident.span());
    let mut outer = function;
    outer.sig.asyncness = None;
    outer.sig.output = syn::ReturnType::Default;
    match emit.main_body(
        &inner,
        args.grace_millis,
        args.flavor == Flavor::MultiThread,
        args.worker_threads.as_ref(),
        args.report,
        args.second_signal,
    ) {
        Ok(body) => outer.block = Box::new(body),
        Err(e) => errors.push(e),
    }
    let error = errors.finish().map(|e| e.to_compile_error());
    let mut tokens = outer.into_token_stream();
    tokens.extend(error);
    tokens
}
