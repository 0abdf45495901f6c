//! The only place that builds tokens: checkpoints, loop skeletons, idle waits, routed spawns,
//! the scope binding and the `main` entry point.
//!
//! Generated paths are absolute (`::shutdown_runtime::__private::..`, or the `crate = ..`
//! path). Generated local names use `Span::mixed_site()`, so user code can neither see nor
//! shadow them. A routed spawn is spanned at the user's call, so `#[track_caller]` in the
//! runtime records the user's file and line.

use std::cell::OnceCell;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::{Block, Expr, Path, Stmt};

/// The name of the binding that holds a `scope = ..` scope inside the generated code.
pub(crate) const SCOPE_NAME: &str = "__drainable_scope";

/// Which scope the checkpoints and routed spawns use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScopeMode {
    /// `Shutdown::global()`, reached through `__private::global()` (nothing is captured).
    Global,
    /// A `scope = ..` expression, evaluated once at function entry into a binding.
    Custom,
}

/// Builds the generated fragments for one expansion.
///
/// Fixed fragments (the checkpoint, the loop skeletons, the scope clone) are parsed once per
/// expansion and cloned; user code is moved into them as syntax trees, never printed and
/// re-parsed.
#[derive(Debug, Clone)]
pub(crate) struct Emitter {
    krate: Path,
    mode: ScopeMode,
    checkpoint: OnceCell<Stmt>,
    while_skeleton: OnceCell<Expr>,
    for_skeleton: OnceCell<Expr>,
    scope_clone: OnceCell<Expr>,
    scope_ref: OnceCell<Expr>,
}

/// Clones the cached fragment, parsing it on first use.
fn cached<T: Clone>(cell: &OnceCell<T>, make: impl FnOnce() -> syn::Result<T>) -> syn::Result<T> {
    if let Some(value) = cell.get() {
        return Ok(value.clone());
    }
    let value = make()?;
    Ok(cell.get_or_init(|| value).clone())
}

/// Parses generated tokens; a failure is an internal error, reported instead of panicking.
pub(crate) fn parse<T: syn::parse::Parse>(tokens: TokenStream) -> syn::Result<T> {
    syn::parse2(tokens.clone()).map_err(|e| {
        syn::Error::new(
            Span::call_site(),
            format!(
                "internal error in #[drainable]: generated code does not parse ({e}): {tokens}"
            ),
        )
    })
}

fn internal(what: &str) -> syn::Error {
    syn::Error::new(
        Span::call_site(),
        format!("internal error in #[drainable]: bad `{what}` template"),
    )
}

/// Re-spans every token of `tokens` at `span`.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(group) = &tt {
                let mut new =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                new.set_span(span);
                tt = TokenTree::Group(new);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// The identifier of the scope binding (mixed-site hygiene).
pub(crate) fn scope_ident() -> syn::Ident {
    syn::Ident::new(SCOPE_NAME, Span::mixed_site())
}

impl Emitter {
    /// An emitter for the runtime at `krate`, using the given scope.
    pub(crate) fn new(krate: Path, mode: ScopeMode) -> Self {
        Emitter {
            krate,
            mode,
            checkpoint: OnceCell::new(),
            while_skeleton: OnceCell::new(),
            for_skeleton: OnceCell::new(),
            scope_clone: OnceCell::new(),
            scope_ref: OnceCell::new(),
        }
    }

    /// The scope mode.
    pub(crate) fn mode(&self) -> ScopeMode {
        self.mode
    }

    fn private(&self) -> TokenStream {
        let krate = &self.krate;
        quote!(#krate::__private)
    }

    /// An expression of type `&Shutdown` for the scope in use.
    pub(crate) fn scope_ref(&self) -> TokenStream {
        match self.mode {
            ScopeMode::Global => {
                let private = self.private();
                quote!(#private::global())
            }
            ScopeMode::Custom => {
                let ident = scope_ident();
                quote!(&#ident)
            }
        }
    }

    /// `if checkpoint(scope) { break <value>; }`: the first statement of a rewritten loop.
    pub(crate) fn checkpoint(&self, on_shutdown: Option<&Expr>) -> syn::Result<Stmt> {
        let mut stmt = cached(&self.checkpoint, || {
            let private = self.private();
            let scope = self.scope_ref();
            parse(quote! {
                if #private::checkpoint(#scope, &#private::LoopSite {
                    file: ::core::file!(),
                    line: ::core::line!(),
                    column: ::core::column!(),
                }) {
                    break;
                }
            })
        })?;
        if let Some(value) = on_shutdown {
            let target = match &mut stmt {
                Stmt::Expr(Expr::If(i), _) => match i.then_branch.stmts.first_mut() {
                    Some(Stmt::Expr(Expr::Break(b), _)) => Some(b),
                    _ => None,
                },
                _ => None,
            };
            match target {
                Some(b) => b.expr = Some(Box::new(value.clone())),
                None => return Err(internal("checkpoint")),
            }
        }
        Ok(stmt)
    }

    /// The skeleton of a rewritten `while`: `loop { <checkpoint> if __COND {} else { break } }`.
    ///
    /// The caller moves the user's condition and body into the `if` (fields, not tokens).
    pub(crate) fn while_skeleton(&self) -> syn::Result<Expr> {
        cached(&self.while_skeleton, || {
            let checkpoint = self.checkpoint(None)?;
            parse(quote! {
                loop {
                    #checkpoint
                    if __COND {} else { break }
                }
            })
        })
    }

    /// The skeleton of a rewritten `for`:
    /// `match IntoIterator::into_iter(__EXPR) { mut iter => loop { <checkpoint>
    /// match Iterator::next(&mut iter) { Some(__PAT) => {} None => break } } }`.
    pub(crate) fn for_skeleton(&self) -> syn::Result<Expr> {
        cached(&self.for_skeleton, || self.make_for_skeleton())
    }

    fn make_for_skeleton(&self) -> syn::Result<Expr> {
        let checkpoint = self.checkpoint(None)?;
        let iter = syn::Ident::new("__drainable_iter", Span::mixed_site());
        parse(quote! {
            match ::core::iter::IntoIterator::into_iter(__EXPR) {
                mut #iter => loop {
                    #checkpoint
                    match ::core::iter::Iterator::next(&mut #iter) {
                        ::core::option::Option::Some(__PAT) => {}
                        ::core::option::Option::None => break,
                    }
                },
            }
        })
    }

    /// `match idle(scope, <future>).await { Some(v) => v, None => break <value> }`: the wait
    /// for the next unit wakes when shutdown is requested.
    pub(crate) fn idle(
        &self,
        future: Expr,
        on_shutdown: Option<&Expr>,
        span: Span,
    ) -> syn::Result<Expr> {
        let private = self.private();
        let scope = self.scope_ref();
        let value = on_shutdown.map(|e| quote!(#e));
        let next = syn::Ident::new("__drainable_next", Span::mixed_site());
        let idle = quote_spanned!(span=> #private::idle);
        let mut expr: Expr = parse(quote! {
            match #idle(#scope, __FUTURE).await {
                ::core::option::Option::Some(#next) => #next,
                ::core::option::Option::None => break #value,
            }
        })?;
        let slot = match &mut expr {
            Expr::Match(m) => match &mut *m.expr {
                Expr::Await(a) => match &mut *a.base {
                    Expr::Call(call) => call.args.last_mut(),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        *slot.ok_or_else(|| internal("idle"))? = future;
        Ok(expr)
    }

    /// A routed spawn: `__private::<function>(scope, args..)`, spanned at the user's call.
    pub(crate) fn routed_spawn(
        &self,
        function: &str,
        span: Span,
        args: syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) -> syn::Result<Expr> {
        let private = respan(self.private(), span);
        let function = format_ident!("{}", function, span = span);
        let func: Expr = parse(quote_spanned!(span=> #private::#function))?;
        let mut all = syn::punctuated::Punctuated::new();
        all.push(self.scope_expr()?);
        all.extend(args);
        Ok(Expr::Call(syn::ExprCall {
            attrs: Vec::new(),
            func: Box::new(func),
            paren_token: syn::token::Paren(span),
            args: all,
        }))
    }

    /// [`Emitter::scope_ref`] as an expression.
    fn scope_expr(&self) -> syn::Result<Expr> {
        cached(&self.scope_ref, || parse(self.scope_ref()))
    }

    /// `let __drainable_scope: Shutdown = Clone::clone(AsScope::as_scope(&(<expr>)));`
    pub(crate) fn scope_binding(&self, scope: &Expr) -> syn::Result<Stmt> {
        let private = self.private();
        let krate = &self.krate;
        let ident = scope_ident();
        parse(quote! {
            let #ident: #krate::Shutdown =
                ::core::clone::Clone::clone(#private::AsScope::as_scope(&(#scope)));
        })
    }

    /// `{ let __drainable_scope = Clone::clone(&__drainable_scope); <inner> }`: gives a closure
    /// or async block its own handle to the scope.
    pub(crate) fn with_scope_clone(&self, inner: Expr) -> syn::Result<Expr> {
        let mut block = cached(&self.scope_clone, || {
            let ident = scope_ident();
            parse(quote! {
                {
                    let #ident = ::core::clone::Clone::clone(&#ident);
                    __INNER
                }
            })
        })?;
        match &mut block {
            Expr::Block(b) => match b.block.stmts.last_mut() {
                Some(Stmt::Expr(tail, None)) => *tail = inner,
                _ => return Err(internal("scope clone")),
            },
            _ => return Err(internal("scope clone")),
        }
        Ok(block)
    }

    /// `let __drainable_scope = __drainable_scope;`: makes a non-`move` async block (or a
    /// `FnOnce` closure) capture its handle by value.
    pub(crate) fn scope_move_in(&self) -> syn::Result<Stmt> {
        let ident = scope_ident();
        parse(quote!(let #ident = #ident;))
    }

    /// The body of a generated `fn main()`: runs the user's async `main` through
    /// `__private::main_entry`, which installs signals first and exits with the life cycle's code.
    pub(crate) fn main_body(
        &self,
        inner: &syn::ItemFn,
        grace_millis: u64,
        multi_thread: bool,
        worker_threads: Option<&syn::LitInt>,
    ) -> syn::Result<Block> {
        let private = self.private();
        let inner_name = &inner.sig.ident;
        let builder_fn = if multi_thread {
            quote!(new_multi_thread)
        } else {
            quote!(new_current_thread)
        };
        let builder = syn::Ident::new("builder", Span::mixed_site());
        let threads = worker_threads.map(|n| quote!(#builder.worker_threads(#n);));
        parse(quote! {
            {
                #inner
                let mut #builder = #private::tokio::runtime::Builder::#builder_fn();
                #threads
                #builder.enable_all();
                #private::main_entry(
                    ::core::time::Duration::from_millis(#grace_millis),
                    #builder,
                    #inner_name(),
                )
            }
        })
    }
}

/// A generated marker statement is recognised by this helper when looking for scope uses.
pub(crate) fn is_scope_ident(ident: &syn::Ident) -> bool {
    ident == SCOPE_NAME
}
