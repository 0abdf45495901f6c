//! Options of the attributes: `#[drainable(..)]` on a function, `#[drainable(..)]` markers on
//! loops and statements inside it, and `#[shutdown_runtime::main(..)]`.
//!
//! Every option is `key` or `key = value`. An unknown key is a spanned error that lists the
//! valid keys; a key given twice is a spanned error at its second occurrence.

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Ident, LitInt, LitStr, Path, Token};

use super::duration::parse_millis;

/// One `key` or `key = value` item of an attribute's argument list.
struct OptionItem {
    key: Ident,
    value: Option<TokenStream>,
    eq_span: Option<Span>,
}

impl Parse for OptionItem {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        // `crate` is a keyword, so accept any identifier or keyword as the key.
        let key = input.call(syn::ext::IdentExt::parse_any)?;
        let (value, eq_span) = if input.peek(Token![=]) {
            let eq: Token![=] = input.parse()?;
            let mut value = TokenStream::new();
            while !input.is_empty() && !input.peek(Token![,]) {
                let tt: proc_macro2::TokenTree = input.parse()?;
                value.extend([tt]);
            }
            if value.is_empty() {
                return Err(syn::Error::new(
                    eq.span,
                    format!("expected a value after `{key} =`"),
                ));
            }
            (Some(value), Some(eq.span))
        } else {
            (None, None)
        };
        Ok(OptionItem {
            key,
            value,
            eq_span,
        })
    }
}

/// Parses `a, b = c, ..` into options; unknown and duplicate keys go to `errors` and are
/// left out, so the remaining options are still checked in the same build.
fn parse_options(
    tokens: TokenStream,
    valid: &[&str],
    errors: &mut super::errors::Errors,
) -> syn::Result<Vec<OptionItem>> {
    let list = Punctuated::<OptionItem, Token![,]>::parse_terminated.parse2(tokens)?;
    let mut push = |e: syn::Error| errors.push(e);
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for option in list {
        let name = option.key.to_string();
        if !valid.contains(&name.as_str()) {
            push(syn::Error::new(
                option.key.span(),
                format!(
                    "unknown option `{name}`; valid options are: {}",
                    list_names(valid)
                ),
            ));
        } else if seen.contains(&name) {
            push(syn::Error::new(
                option.key.span(),
                format!(
                    "duplicate option `{name}`; valid options are: {}",
                    list_names(valid)
                ),
            ));
        } else {
            seen.push(name);
            out.push(option);
        }
    }
    Ok(out)
}

fn list_names(valid: &[&str]) -> String {
    valid
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn need_value(option: &OptionItem, what: &str) -> syn::Result<TokenStream> {
    option.value.clone().ok_or_else(|| {
        syn::Error::new(
            option.key.span(),
            format!("`{}` needs a value: `{} = {what}`", option.key, option.key),
        )
    })
}

fn no_value(option: &OptionItem) -> syn::Result<()> {
    match option.eq_span {
        Some(span) => Err(syn::Error::new(
            span,
            format!(
                "`{}` takes no value; write just `{}`",
                option.key, option.key
            ),
        )),
        None => Ok(()),
    }
}

/// The default path of the runtime crate in generated code.
pub(crate) fn default_crate_path() -> Path {
    syn::parse_quote!(::shutdown_runtime)
}

/// Options of `#[drainable(..)]` on a function.
#[derive(Debug)]
pub(crate) struct DrainableArgs {
    /// `scope = <expr>`: a `Shutdown`, `&Shutdown` or `Arc<Shutdown>` used instead of the global scope.
    pub(crate) scope: Option<Expr>,
    /// `crate = <path>`: where the runtime crate is (default `::shutdown_runtime`).
    pub(crate) krate: Path,
}

impl DrainableArgs {
    /// The keys `#[drainable(..)]` accepts on a function.
    pub(crate) const VALID: &'static [&'static str] = &["scope", "crate"];

    /// Parses the attribute's arguments.
    pub(crate) fn parse(tokens: TokenStream) -> syn::Result<Self> {
        let mut args = DrainableArgs {
            scope: None,
            krate: default_crate_path(),
        };
        let mut errors = super::errors::Errors::default();
        let parsed = parse_options(tokens, Self::VALID, &mut errors);
        for option in errors.ok(parsed).unwrap_or_default() {
            match option.key.to_string().as_str() {
                "scope" => {
                    let value = errors.ok(need_value(&option, "<expr>"));
                    if let Some(value) = value {
                        args.scope = errors.ok(syn::parse2::<Expr>(value));
                    }
                }
                _ => {
                    if let Some(value) = errors.ok(need_value(&option, "<path>"))
                        && let Some(path) = errors.ok(parse_crate_path(value))
                    {
                        args.krate = path;
                    }
                }
            }
        }
        match errors.finish() {
            Some(e) => Err(e),
            None => Ok(args),
        }
    }
}

/// `crate = path` or `crate = "path"`.
fn parse_crate_path(value: TokenStream) -> syn::Result<Path> {
    let parsed = match syn::parse2::<LitStr>(value.clone()) {
        Ok(lit) => lit.parse::<Path>(),
        Err(_) => syn::parse2::<Path>(value),
    };
    parsed.map_err(|e| {
        syn::Error::new(
            e.span(),
            "`crate` must be a path to the runtime crate, such as `::shutdown_runtime` or `crate::rt`",
        )
    })
}

/// What a `#[drainable(..)]` marker inside a `#[drainable]` function asks for.
#[derive(Debug, Default)]
pub(crate) struct Marks {
    /// `skip`: leave this loop without a checkpoint.
    pub(crate) skip: Option<Span>,
    /// `idle`: the loop's (or statement's) wait for its next unit wakes on shutdown.
    pub(crate) idle: Option<Span>,
    /// `partial`: this loop stops at a checkpoint although it is nested in a claimed unit (or
    /// its function returns a value), because the code after it records a partial result.
    pub(crate) partial: Option<Span>,
    /// `on_shutdown = <expr>`: the value a `loop` breaks with at the checkpoint.
    pub(crate) on_shutdown: Option<Expr>,
    /// Where `on_shutdown` is written.
    pub(crate) on_shutdown_span: Option<Span>,
    /// Where the marker is (its `drainable` word), for "not allowed here" errors.
    pub(crate) span: Option<Span>,
}

impl Marks {
    /// The keys a marker accepts.
    pub(crate) const VALID: &'static [&'static str] = &["skip", "partial", "idle", "on_shutdown"];

    /// `true` when no marker was present.
    pub(crate) fn is_empty(&self) -> bool {
        self.span.is_none()
    }
}

/// `true` for `#[drainable]`, `#[drainable(..)]` and `#[any::path::drainable(..)]`.
pub(crate) fn is_marker(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "drainable")
}

/// Removes the `#[drainable(..)]` markers from `attrs` and parses them.
pub(crate) fn take_marks(attrs: &mut Vec<Attribute>) -> syn::Result<Marks> {
    if !attrs.iter().any(is_marker) {
        return Ok(Marks::default());
    }
    let mut marks = Marks::default();
    let mut errors = super::errors::Errors::default();
    let mut kept = Vec::with_capacity(attrs.len());
    for attr in attrs.drain(..) {
        if !is_marker(&attr) {
            kept.push(attr);
            continue;
        }
        let span = attr
            .path()
            .segments
            .last()
            .map_or_else(|| attr_span(&attr), |s| s.ident.span());
        marks.span.get_or_insert(span);
        let tokens = match &attr.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => {
                errors.push(syn::Error::new(
                    span,
                    format!(
                        "a `#[drainable]` marker inside a `#[drainable]` function needs an option; valid options are: {}",
                        list_names(Marks::VALID)
                    ),
                ));
                continue;
            }
        };
        let parsed = parse_options(tokens, Marks::VALID, &mut errors);
        let Some(options) = errors.ok(parsed) else {
            continue;
        };
        for option in options {
            let key_span = option.key.span();
            match option.key.to_string().as_str() {
                "skip" => {
                    if errors.ok(no_value(&option)).is_some() {
                        set_once(&mut marks.skip, key_span, "skip", &mut errors);
                    }
                }
                "idle" => {
                    if errors.ok(no_value(&option)).is_some() {
                        set_once(&mut marks.idle, key_span, "idle", &mut errors);
                    }
                }
                "partial" => {
                    if errors.ok(no_value(&option)).is_some() {
                        set_once(&mut marks.partial, key_span, "partial", &mut errors);
                    }
                }
                _ => {
                    if let Some(value) = errors.ok(need_value(&option, "<expr>"))
                        && let Some(expr) = errors.ok(syn::parse2::<Expr>(value))
                    {
                        if marks.on_shutdown.is_some() {
                            errors
                                .push(syn::Error::new(key_span, "duplicate option `on_shutdown`"));
                        } else {
                            marks.on_shutdown = Some(expr);
                            marks.on_shutdown_span = Some(key_span);
                        }
                    }
                }
            }
        }
    }
    *attrs = kept;
    if let (Some(skip), true) = (
        marks.skip,
        marks.idle.is_some() || marks.on_shutdown.is_some() || marks.partial.is_some(),
    ) {
        errors.push(syn::Error::new(
            skip,
            "`skip` cannot be combined with `partial`, `idle` or `on_shutdown`: a skipped loop has no checkpoint",
        ));
    }
    match errors.finish() {
        Some(e) => Err(e),
        None => Ok(marks),
    }
}

fn set_once(slot: &mut Option<Span>, span: Span, name: &str, errors: &mut super::errors::Errors) {
    if slot.is_some() {
        errors.push(syn::Error::new(span, format!("duplicate option `{name}`")));
    } else {
        *slot = Some(span);
    }
}

/// The span of a whole attribute, `#` to `]`.
pub(crate) fn attr_span(attr: &Attribute) -> Span {
    let start = attr.pound_token.span;
    start.join(attr.bracket_token.span.close()).unwrap_or(start)
}

/// The runtime flavor of `#[shutdown_runtime::main(flavor = "..")]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `Builder::new_multi_thread()` (the default, as with `#[tokio::main]`).
    MultiThread,
    /// `Builder::new_current_thread()`.
    CurrentThread,
}

/// Options of `#[shutdown_runtime::main(..)]`.
#[derive(Debug)]
pub(crate) struct MainArgs {
    /// `grace = "30s"` in milliseconds (default 30 s, the Kubernetes default).
    pub(crate) grace_millis: u64,
    /// `flavor = "multi_thread" | "current_thread"`.
    pub(crate) flavor: Flavor,
    /// `worker_threads = N` (multi-thread flavor only).
    pub(crate) worker_threads: Option<LitInt>,
    /// `crate = <path>`.
    pub(crate) krate: Path,
    /// `report = "stderr" | "json" | "tracing" | "none"`: the `ReportFormat` variant.
    pub(crate) report: &'static str,
    /// `second_signal = "reraise" | "abort_all" | "ignore"`: the `SecondSignal` variant.
    pub(crate) second_signal: &'static str,
}

impl MainArgs {
    /// The keys `#[shutdown_runtime::main(..)]` accepts.
    pub(crate) const VALID: &'static [&'static str] = &[
        "grace",
        "flavor",
        "worker_threads",
        "crate",
        "report",
        "second_signal",
    ];

    /// Default report: one human line on stderr.
    pub(crate) const DEFAULT_REPORT: &'static str = "Stderr";

    /// Default second-signal policy: re-raise (after the report).
    pub(crate) const DEFAULT_SECOND_SIGNAL: &'static str = "Reraise";

    /// Default grace period when `grace` is not given: 30 s.
    pub(crate) const DEFAULT_GRACE_MILLIS: u64 = 30_000;

    /// Parses the attribute's arguments.
    pub(crate) fn parse(tokens: TokenStream) -> syn::Result<Self> {
        let mut args = MainArgs {
            grace_millis: Self::DEFAULT_GRACE_MILLIS,
            flavor: Flavor::MultiThread,
            worker_threads: None,
            krate: default_crate_path(),
            report: Self::DEFAULT_REPORT,
            second_signal: Self::DEFAULT_SECOND_SIGNAL,
        };
        let mut errors = super::errors::Errors::default();
        let mut flavor_span = None;
        let parsed = parse_options(tokens, Self::VALID, &mut errors);
        for option in errors.ok(parsed).unwrap_or_default() {
            let Some(value) = errors.ok(need_value(&option, value_hint(&option.key))) else {
                continue;
            };
            match option.key.to_string().as_str() {
                "grace" => match syn::parse2::<LitStr>(value) {
                    Ok(lit) => match parse_millis(&lit.value()) {
                        Ok(ms) => args.grace_millis = ms,
                        Err(message) => errors.push(syn::Error::new(lit.span(), message)),
                    },
                    Err(e) => errors.push(syn::Error::new(
                        e.span(),
                        "`grace` must be a string literal such as \"30s\"",
                    )),
                },
                "flavor" => match syn::parse2::<LitStr>(value) {
                    Ok(lit) => match lit.value().as_str() {
                        "multi_thread" => args.flavor = Flavor::MultiThread,
                        "current_thread" => {
                            args.flavor = Flavor::CurrentThread;
                            flavor_span = Some(lit.span());
                        }
                        other => errors.push(syn::Error::new(
                            lit.span(),
                            format!("unknown flavor `{other}`; expected \"multi_thread\" or \"current_thread\""),
                        )),
                    },
                    Err(e) => errors.push(syn::Error::new(
                        e.span(),
                        "`flavor` must be \"multi_thread\" or \"current_thread\"",
                    )),
                },
                "report" => match syn::parse2::<LitStr>(value) {
                    Ok(lit) => match lit.value().as_str() {
                        "stderr" => args.report = "Stderr",
                        "json" => args.report = "Json",
                        "tracing" => args.report = "Tracing",
                        "none" => args.report = "None",
                        other => errors.push(syn::Error::new(
                            lit.span(),
                            format!("unknown report `{other}`; expected \"stderr\", \"json\", \"tracing\" or \"none\""),
                        )),
                    },
                    Err(e) => errors.push(syn::Error::new(
                        e.span(),
                        "`report` must be \"stderr\", \"json\", \"tracing\" or \"none\"",
                    )),
                },
                "second_signal" => match syn::parse2::<LitStr>(value) {
                    Ok(lit) => match lit.value().as_str() {
                        "reraise" => args.second_signal = "Reraise",
                        "abort_all" => args.second_signal = "AbortAll",
                        "ignore" => args.second_signal = "Ignore",
                        other => errors.push(syn::Error::new(
                            lit.span(),
                            format!("unknown second_signal `{other}`; expected \"reraise\", \"abort_all\" or \"ignore\""),
                        )),
                    },
                    Err(e) => errors.push(syn::Error::new(
                        e.span(),
                        "`second_signal` must be \"reraise\", \"abort_all\" or \"ignore\"",
                    )),
                },
                "worker_threads" => match syn::parse2::<LitInt>(value) {
                    Ok(lit) => match lit.base10_parse::<usize>() {
                        Ok(0) => errors.push(syn::Error::new(lit.span(), "`worker_threads` must be at least 1")),
                        Ok(_) => args.worker_threads = Some(lit),
                        Err(e) => errors.push(e),
                    },
                    Err(e) => errors.push(syn::Error::new(
                        e.span(),
                        "`worker_threads` must be an integer literal such as `4`",
                    )),
                },
                _ => {
                    if let Some(path) = errors.ok(parse_crate_path(value)) {
                        args.krate = path;
                    }
                }
            }
        }
        if let (Flavor::CurrentThread, Some(threads)) = (args.flavor, &args.worker_threads) {
            let mut e = syn::Error::new(
                threads.span(),
                "`worker_threads` is only valid with the \"multi_thread\" flavor",
            );
            if let Some(span) = flavor_span {
                e.combine(syn::Error::new(
                    span,
                    "the \"current_thread\" flavor is chosen here",
                ));
            }
            errors.push(e);
        }
        match errors.finish() {
            Some(e) => Err(e),
            None => Ok(args),
        }
    }
}

fn value_hint(key: &Ident) -> &'static str {
    match key.to_string().as_str() {
        "grace" => "\"30s\"",
        "flavor" => "\"multi_thread\"",
        "worker_threads" => "4",
        "report" => "\"stderr\"",
        "second_signal" => "\"reraise\"",
        _ => "<path>",
    }
}
