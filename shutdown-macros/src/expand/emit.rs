//! The only place that builds tokens: claimed units, checkpoints, loop skeletons, idle waits,
//! routed spawns, the scope binding and the `main` entry point.
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

/// The name of the guard of a claiming loop's unit.
const UNIT_NAME: &str = "__drainable_unit";

/// The name of the depth a claiming loop's unit set (compared by its checkpoints).
const CLAIMED_NAME: &str = "__drainable_claimed";

/// The identifier of the claimed depth (mixed-site hygiene: nested loops of the same
/// expansion see the innermost claiming loop's binding; user code cannot).
fn claimed_ident() -> syn::Ident {
    syn::Ident::new(CLAIMED_NAME, Span::mixed_site())
}

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
    claim: OnceCell<Stmt>,
    while_skeleton: OnceCell<Expr>,
    for_skeleton: OnceCell<Expr>,
    scope_clone: OnceCell<Expr>,
    scope_ref: OnceCell<Expr>,
    /// The enclosing function's name: the default name of a routed spawn whose expression
    /// names nothing better.
    fn_name: String,
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
            claim: OnceCell::new(),
            while_skeleton: OnceCell::new(),
            for_skeleton: OnceCell::new(),
            scope_clone: OnceCell::new(),
            scope_ref: OnceCell::new(),
            fn_name: String::new(),
        }
    }

    /// The same emitter, for the function named `name`.
    pub(crate) fn in_fn(mut self, name: &syn::Ident) -> Self {
        self.fn_name = name.to_string();
        self
    }

    /// The enclosing function's name.
    pub(crate) fn fn_name(&self) -> &str {
        &self.fn_name
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

    /// `let (__drainable_unit, __drainable_claimed) = claim();`: the claimed unit of a loop
    /// that claims units, taken once before the loop starts (see [`Emitter::guarded`]).
    pub(crate) fn claim_binding(&self) -> syn::Result<Stmt> {
        cached(&self.claim, || {
            let private = self.private();
            let unit = syn::Ident::new(UNIT_NAME, Span::mixed_site());
            let claimed = claimed_ident();
            parse(quote! {
                let (#unit, #claimed) = #private::claim();
            })
        })
    }

    /// `{ <claim binding> <loop> }`: a claiming loop inside its claimed unit. With `warn`
    /// (the loop's keyword), `let _ = __private::LOOP_RESULT_MAY_BE_PARTIAL;` spanned there
    /// comes first: the deprecation warning that tells the user to say what a stop means.
    pub(crate) fn guarded(&self, looped: Expr, warn: Option<Span>) -> syn::Result<Expr> {
        let mut stmts = vec![self.claim_binding()?];
        if let Some(span) = warn {
            let private = respan(self.private(), span);
            stmts.push(parse(quote_spanned! {span=>
                let _ = #private::LOOP_RESULT_MAY_BE_PARTIAL;
            })?);
        }
        stmts.push(Stmt::Expr(looped, None));
        Ok(Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: Block {
                brace_token: syn::token::Brace::default(),
                stmts,
            },
        }))
    }

    /// `if checkpoint_at(scope, &LoopSite { file!(), line!(), column!() }, claimed) { break
    /// <value>; }`: the first statement of a checkpointed loop. The site is spanned at the
    /// loop keyword (`span`), so it names the user's file and line.
    pub(crate) fn checkpoint(&self, on_shutdown: Option<&Expr>, span: Span) -> syn::Result<Stmt> {
        let private = self.private();
        let site_path = respan(quote!(#private::LoopSite), span);
        let site = quote_spanned! {span=>
            &#site_path {
                file: ::core::file!(),
                line: ::core::line!(),
                column: ::core::column!(),
            }
        };
        let claimed = claimed_ident();
        let value = on_shutdown.map(|e| quote!(#e));
        match self.mode {
            ScopeMode::Global => parse(quote! {
                if #private::checkpoint_at_global(#site, #claimed) {
                    break #value;
                }
            }),
            ScopeMode::Custom => {
                let scope = self.scope_ref();
                parse(quote! {
                    if #private::checkpoint_at(#scope, #site, #claimed) {
                        break #value;
                    }
                })
            }
        }
    }

    /// The skeleton of a rewritten `while`: `loop { if __COND {} else { break } }`.
    ///
    /// The caller moves the user's condition and body into the `if` (fields, not tokens) and
    /// puts the checkpoint first.
    pub(crate) fn while_skeleton(&self) -> syn::Result<Expr> {
        cached(&self.while_skeleton, || {
            parse(quote! {
                loop {
                    if __COND {} else { break }
                }
            })
        })
    }

    /// The skeleton of a rewritten `for`:
    /// `match IntoIterator::into_iter(__EXPR) { mut iter => loop {
    /// match Iterator::next(&mut iter) { Some(__PAT) => {} None => break } } }`; the caller
    /// puts the checkpoint first in the `loop`.
    pub(crate) fn for_skeleton(&self) -> syn::Result<Expr> {
        cached(&self.for_skeleton, || self.make_for_skeleton())
    }

    fn make_for_skeleton(&self) -> syn::Result<Expr> {
        let iter = syn::Ident::new("__drainable_iter", Span::mixed_site());
        parse(quote! {
            match ::core::iter::IntoIterator::into_iter(__EXPR) {
                mut #iter => loop {
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
        let claimed = claimed_ident();
        let mut expr: Expr = parse(quote! {
            match #idle(#scope, __FUTURE, #claimed).await {
                ::core::option::Option::Some(#next) => #next,
                ::core::option::Option::None => break #value,
            }
        })?;
        let slot = match &mut expr {
            Expr::Match(m) => match &mut *m.expr {
                Expr::Await(a) => match &mut *a.base {
                    Expr::Call(call) => call.args.iter_mut().nth(1),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        *slot.ok_or_else(|| internal("idle"))? = future;
        Ok(expr)
    }

    /// A routed spawn: `__private::<function>(scope, args..)`, spanned at the user's call;
    /// with `name`, `__private::<function>_named(scope, "name", args..)`.
    pub(crate) fn routed_spawn(
        &self,
        function: &str,
        span: Span,
        name: Option<&str>,
        args: syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) -> syn::Result<Expr> {
        let private = respan(self.private(), span);
        let function = match name {
            Some(_) => format_ident!("{}_named", function, span = span),
            None => format_ident!("{}", function, span = span),
        };
        let func: Expr = parse(quote_spanned!(span=> #private::#function))?;
        let mut all = syn::punctuated::Punctuated::new();
        all.push(self.scope_expr()?);
        if let Some(name) = name {
            all.push(Expr::Lit(syn::ExprLit {
                attrs: Vec::new(),
                lit: syn::Lit::Str(syn::LitStr::new(name, span)),
            }));
        }
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
    /// `__private::main_entry_with`, which installs signals first, runs the life cycle with
    /// the chosen report format and second-signal policy and exits with its code.
    pub(crate) fn main_body(
        &self,
        inner: &syn::ItemFn,
        grace_millis: u64,
        multi_thread: bool,
        worker_threads: Option<&syn::LitInt>,
        report: &str,
        second_signal: &str,
    ) -> syn::Result<Block> {
        let private = self.private();
        let krate = &self.krate;
        let inner_name = &inner.sig.ident;
        let builder_fn = if multi_thread {
            quote!(new_multi_thread)
        } else {
            quote!(new_current_thread)
        };
        let builder = syn::Ident::new("builder", Span::mixed_site());
        let threads = worker_threads.map(|n| quote!(#builder.worker_threads(#n);));
        let report = format_ident!("{}", report);
        let second_signal = format_ident!("{}", second_signal);
        parse(quote! {
            {
                #inner
                let mut #builder = #private::tokio::runtime::Builder::#builder_fn();
                #threads
                #builder.enable_all();
                #private::main_entry_with(
                    #krate::RunConfig::new(#krate::Budgets::from_grace(
                        ::core::time::Duration::from_millis(#grace_millis),
                    ))
                    .report(#krate::observe::ReportFormat::#report)
                    .second_signal(#krate::signals::SecondSignal::#second_signal),
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
