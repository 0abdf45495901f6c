//! The spawns a `macro_rules!` definition writes: `tokio::spawn($future)` in a macro body
//! starts a raw task at every use of the macro, and the place to fix it is the definition.
//!
//! A definition's bodies are not Rust until the macro is expanded (`$future`, repetitions),
//! so they are not parsed: their tokens are scanned for a call through a path whose last
//! segment names a spawn (`tokio::spawn(..)`, `task::spawn_blocking(..)`,
//! `::tokio::spawn(..)`), or for a builder's chain from `Builder::new()` up to its
//! `.spawn(..)` (`std::thread::Builder::new().name($name.into()).spawn(..)`), and each is
//! handed to the collector as that path (or chain) called with no arguments, with the spans
//! of the definition's own tokens. The collector resolves the path
//! with the file's imports, as for any call. Method calls (`$rt.spawn(..)`, whose receiver is
//! a metavariable) and `$crate::` paths (which name the crate that uses the macro) are not
//! read.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use std::ops::Range;

/// One call through a path in a `macro_rules!` definition.
#[derive(Debug, Clone)]
pub struct DefinitionCall {
    /// The path as written, called with no arguments (the arguments hold metavariables) —
    /// or a builder's chain, each step so called, ending in `.spawn()`; its tokens keep the
    /// definition's spans, the parentheses included.
    pub call: syn::Expr,
    /// The call is a statement of its own (`tokio::spawn($future);`), or bound to `_` (`let _
    /// = std::thread::spawn(..);`): its value is dropped.
    pub dropped: bool,
    /// The byte range of each argument as written (`$future.instrument(span)`), for `--fix`.
    pub args: Vec<Range<usize>>,
}

/// The calls through a path whose last segment names a spawn in a `macro_rules!`
/// definition's tokens (patterns and bodies alike: a pattern holds no call), outermost first.
///
/// # Examples
/// ```
/// use shutdown_lint::macro_definition::spawn_calls;
/// let tokens: proc_macro2::TokenStream =
///     "($f:expr) => {{ let h = tokio::spawn(async move { $f.await }); $rt.spawn($f); h }};"
///         .parse()
///         .unwrap();
/// let calls = spawn_calls(tokens);
/// assert_eq!(calls.len(), 1); // `$rt.spawn(..)` is a method on a metavariable
/// assert!(!calls[0].dropped); // bound by `let`
/// ```
pub fn spawn_calls(tokens: TokenStream) -> Vec<DefinitionCall> {
    let mut out = Vec::new();
    scan(tokens, &mut out);
    out
}

fn scan(tokens: TokenStream, out: &mut Vec<DefinitionCall>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tts.len() {
        if let TokenTree::Group(g) = &tts[i] {
            scan(g.stream(), out);
            i += 1;
            continue;
        }
        match path_call_at(&tts, i) {
            Some((paren, call)) => {
                out.push(call);
                // the arguments are scanned next (a spawn inside a spawn)
                i = paren;
            }
            None => i += 1,
        }
    }
}

fn punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// A call through a path that starts at `start`: the index of its parenthesis group and the
/// call, when the path's last segment names a spawn.
fn path_call_at(tts: &[TokenTree], start: usize) -> Option<(usize, DefinitionCall)> {
    let prev = start.checked_sub(1).map(|k| &tts[k]);
    // not the middle of a path or a method (`a::b`, `x.spawn`), nor a metavariable
    // (`$name`) or a function being declared (`fn spawn(..)`)
    if punct(prev, '.') || punct(prev, '$') || punct(prev, ':') {
        return None;
    }
    if matches!(prev, Some(TokenTree::Ident(i)) if i == "fn") {
        return None;
    }
    let mut j = start;
    // a leading `::`, not the one after `$crate`
    if punct(tts.get(j), ':')
        && punct(tts.get(j + 1), ':')
        && !matches!(prev, Some(TokenTree::Ident(_)))
    {
        j += 2;
    }
    let TokenTree::Ident(mut last) = tts.get(j)?.clone() else {
        return None;
    };
    let mut before_last: Option<proc_macro2::Ident> = None;
    j += 1;
    while punct(tts.get(j), ':') && punct(tts.get(j + 1), ':') {
        let Some(TokenTree::Ident(next)) = tts.get(j + 2) else {
            return None;
        };
        before_last = Some(std::mem::replace(&mut last, next.clone()));
        j += 3;
    }
    let Some(TokenTree::Group(args)) = tts.get(j) else {
        return None;
    };
    if args.delimiter() != Delimiter::Parenthesis {
        return None;
    }
    let empty = |span: proc_macro2::Span| {
        let mut g = Group::new(Delimiter::Parenthesis, TokenStream::new());
        g.set_span(span);
        TokenTree::Group(g)
    };
    let mut tokens: Vec<TokenTree> = tts[start..j].to_vec();
    tokens.push(empty(args.span()));
    // where the call (or chain) ends, and the arguments of its spawn
    let (end, spawn_args) = if last.to_string().contains("spawn") {
        (j, args.stream())
    } else if last == "new" && before_last.is_some_and(|b| b == "Builder") {
        // a thread (or task) builder's chain up to its `.spawn(..)`: `thread::Builder::new()
        // .name($name.into()).spawn(move || ..)` (api-daemon's `tokioize!`)
        let mut k = j + 1;
        loop {
            let (Some(TokenTree::Ident(m)), Some(TokenTree::Group(g))) =
                (tts.get(k + 1), tts.get(k + 2))
            else {
                return None;
            };
            if !punct(tts.get(k), '.') || g.delimiter() != Delimiter::Parenthesis {
                return None;
            }
            tokens.extend([tts[k].clone(), tts[k + 1].clone(), empty(g.span())]);
            if m == "spawn" {
                break (k + 2, g.stream());
            }
            k += 3;
        }
    } else {
        return None;
    };
    let call = syn::parse2::<syn::Expr>(tokens.into_iter().collect()).ok()?;
    if !matches!(call, syn::Expr::Call(_) | syn::Expr::MethodCall(_)) {
        return None;
    }
    let statement = start == 0
        || punct(prev, ';')
        || matches!(prev, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace);
    // `let _ = spawn(..);` drops it as well
    let let_underscore = start >= 3
        && punct(prev, '=')
        && matches!(&tts[start - 2], TokenTree::Ident(u) if u == "_")
        && matches!(&tts[start - 3], TokenTree::Ident(l) if l == "let");
    // a builder's `io::Result<JoinHandle>` unwrapped and dropped: `.spawn(..).expect(..);`
    let unwrapped_end = match (tts.get(end + 1), tts.get(end + 2), tts.get(end + 3)) {
        (Some(dot), Some(TokenTree::Ident(m)), Some(TokenTree::Group(g)))
            if punct(Some(dot), '.')
                && (m == "expect" || m == "unwrap")
                && g.delimiter() == Delimiter::Parenthesis
                && matches!(call, syn::Expr::MethodCall(_)) =>
        {
            end + 3
        }
        _ => end,
    };
    let dropped = (statement || let_underscore) && punct(tts.get(unwrapped_end + 1), ';');
    let call = DefinitionCall {
        call,
        dropped,
        args: arg_ranges(spawn_args),
    };
    // the arguments are scanned next: a builder's steps from its `new()`
    Some((j, call))
}

/// The byte range of each comma-separated argument of a call's tokens.
fn arg_ranges(tokens: TokenStream) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut cur: Option<Range<usize>> = None;
    for t in tokens {
        if matches!(&t, TokenTree::Punct(p) if p.as_char() == ',') {
            out.extend(cur.take());
            continue;
        }
        let r = t.span().byte_range();
        cur = Some(match cur {
            Some(c) => c.start..r.end,
            None => r,
        });
    }
    out.extend(cur);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(src: &str) -> Vec<(String, bool)> {
        spawn_calls(src.parse().unwrap())
            .into_iter()
            .map(|c| {
                let syn::Expr::Call(call) = &c.call else {
                    // a builder's chain, as written without spaces
                    let chain = quote::ToTokens::to_token_stream(&c.call).to_string();
                    return (chain.replace(' ', ""), c.dropped);
                };
                let syn::Expr::Path(p) = &*call.func else {
                    unreachable!("only paths are called")
                };
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                let lead = if p.path.leading_colon.is_some() {
                    "::"
                } else {
                    ""
                };
                (format!("{lead}{}", segs.join("::")), c.dropped)
            })
            .collect()
    }

    #[test]
    fn spawns_through_paths_in_every_arm_and_nested_ones() {
        let src = "($s:expr, $f:expr) => {{ if let Some(s) = $s { tokio::spawn($f.instrument(s)); } \
                   else { ::tokio::task::spawn_blocking(move || tokio::spawn(x)) } }};\n\
                   ($f:expr) => { spawn($f); let _ = std::thread::spawn(f); let _h = spawn(g); };";
        assert_eq!(
            calls(src),
            vec![
                ("tokio::spawn".to_string(), true),
                ("::tokio::task::spawn_blocking".to_string(), false),
                ("tokio::spawn".to_string(), false),
                ("spawn".to_string(), true),
                ("std::thread::spawn".to_string(), true),
                ("spawn".to_string(), false),
            ]
        );
    }

    #[test]
    fn builder_chains_up_to_their_spawn() {
        let src = "($n:expr, $b:block) => { let _ = std::thread::Builder::new().name($n.into()) \
                   .spawn(move || $b); thread::Builder::new().stack_size(1 << 20).spawn(f).unwrap(); \
                   let h = thread::Builder::new().spawn(g)?; Builder::new().name(x).build(); };";
        assert_eq!(
            calls(src),
            vec![
                (
                    "std::thread::Builder::new().name().spawn()".to_string(),
                    true
                ),
                (
                    "thread::Builder::new().stack_size().spawn()".to_string(),
                    true
                ),
                ("thread::Builder::new().spawn()".to_string(), false),
            ]
        );
    }

    #[test]
    fn methods_metavariables_declarations_and_other_calls_are_not_read() {
        let src = "($rt:expr) => { $rt.spawn(x); $crate::spawn(y); $spawn(z); fn spawn() {} \
                   reqwest::Client::new(); Handle::current().spawn(w); spawn[0]; };";
        assert!(calls(src).is_empty(), "{:?}", calls(src));
    }

    #[test]
    fn the_call_keeps_the_definitions_spans() {
        let src = "() => {\n    tokio::spawn(run());\n};";
        let c = &spawn_calls(src.parse().unwrap())[0];
        let syn::Expr::Call(call) = &c.call else {
            unreachable!()
        };
        let open = call.paren_token.span.open().start();
        assert_eq!((open.line, open.column), (2, 16));
        assert_eq!(c.args.len(), 1);
        assert_eq!(&src[c.args[0].clone()], "run()");
    }

    #[test]
    fn arguments_split_at_top_level_commas() {
        let src = "() => { tokio::task::spawn_local_on(async { a(1, 2) }, $rt,) };";
        let c = &spawn_calls(src.parse().unwrap())[0];
        let args: Vec<&str> = c.args.iter().map(|r| &src[r.clone()]).collect();
        assert_eq!(args, ["async { a(1, 2) }", "$rt"]);
    }
}
