//! Statement-level fast path of `#[drainable]`: only the top-level statements of the body that
//! mention a loop keyword, a `spawn*` name or a `drainable` marker are parsed and rewritten;
//! every other statement is copied as tokens, never parsed or printed.
//!
//! The body is cut into statements at the token level (after a `;`, or after a `{ .. }` that
//! is followed by the start of another statement). A cut can only be wrong for code that does
//! not compile anyway, and then the chunk fails to parse as statements: the fast path declines
//! and the caller runs the full expansion, which also produces every error message.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::Parser;
use syn::{Block, ImplItemFn};

use super::args::DrainableArgs;
use super::emit::{Emitter, ScopeMode};
use super::errors::Errors;
use super::rewrite::loops::{Ctx, Place, body_ctx, returns_value};
use super::rewrite::{Stats, rewrite_block};

/// The expansion of `item`, or `None` when the full expansion must run instead.
pub(crate) fn expand(
    args: &DrainableArgs,
    item: &TokenStream,
    stats: &mut Stats,
) -> Option<TokenStream> {
    let mut trees: Vec<TokenTree> = item.clone().into_iter().collect();
    let Some(TokenTree::Group(body)) = trees.pop() else {
        return None;
    };
    if body.delimiter() != Delimiter::Brace {
        return None;
    }
    // The signature, parsed with an empty body (cheap).
    let mut head: TokenStream = trees.iter().cloned().collect();
    head.extend([TokenTree::Group(Group::new(
        Delimiter::Brace,
        TokenStream::new(),
    ))]);
    let function: ImplItemFn = syn::parse2(head).ok()?;
    if function.sig.constness.is_some() {
        return None;
    }
    let mode = if args.scope.is_some() {
        ScopeMode::Custom
    } else {
        ScopeMode::Global
    };
    let emit = Emitter::new(args.krate.clone(), mode).in_fn(&function.sig.ident);
    let mut errors = Errors::default();
    let mut local = Stats::default();
    let mut rewritten = TokenStream::new();
    let mut uses_scope = false;
    let chunks = split(body.stream());
    let last = chunks.len().saturating_sub(1);
    for (index, chunk) in chunks.into_iter().enumerate() {
        if !interesting(chunk.clone()) {
            rewritten.extend(chunk);
            continue;
        }
        let stmts = Block::parse_within.parse2(chunk).ok()?;
        let mut block = Block {
            brace_token: Default::default(),
            stmts,
        };
        let ctx = if index == last {
            body_ctx(&function.sig.output)
        } else {
            Ctx::Unit
        };
        let place = Place {
            in_claim: false,
            value_root: returns_value(&function.sig.output),
        };
        uses_scope |= rewrite_block(&mut block, ctx, place, &emit, &mut errors, &mut local);
        if !errors.is_empty() {
            return None;
        }
        for stmt in &block.stmts {
            stmt.to_tokens(&mut rewritten);
        }
    }
    let mut new_body = TokenStream::new();
    if uses_scope {
        // The binding goes after the body's inner attributes (`#![allow(..)]`).
        let rewritten: Vec<TokenTree> = rewritten.into_iter().collect();
        let mut start = 0;
        while let [
            TokenTree::Punct(pound),
            TokenTree::Punct(bang),
            TokenTree::Group(_),
            ..,
        ] = &rewritten[start..]
        {
            if pound.as_char() != '#' || bang.as_char() != '!' {
                break;
            }
            start += 3;
        }
        new_body.extend(rewritten[..start].iter().cloned());
        let scope = args.scope.as_ref()?;
        emit.scope_binding(scope).ok()?.to_tokens(&mut new_body);
        new_body.extend(rewritten[start..].iter().cloned());
    } else {
        new_body.extend(rewritten);
    }
    let mut group = Group::new(Delimiter::Brace, new_body);
    group.set_span(body.span());
    let mut out: TokenStream = trees.into_iter().collect();
    out.extend([TokenTree::Group(group)]);
    stats.add(&local);
    Some(out)
}

/// `true` if the rewrite may change something in `tokens`.
fn interesting(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(id) => {
            let text = id.to_string();
            matches!(text.as_str(), "loop" | "while" | "for" | "drainable")
                || text.starts_with("spawn")
        }
        TokenTree::Group(g) => interesting(g.stream()),
        _ => false,
    })
}

/// Cuts a block's tokens into top-level statements.
fn split(body: TokenStream) -> Vec<TokenStream> {
    let trees: Vec<TokenTree> = body.into_iter().collect();
    let mut chunks = Vec::new();
    let mut current = Vec::new();
    for (index, tree) in trees.iter().enumerate() {
        current.push(tree.clone());
        let ends = match tree {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                match trees.get(index + 1) {
                    None => true,
                    Some(TokenTree::Ident(next)) => next != "else" && next != "as",
                    Some(TokenTree::Punct(next)) => next.as_char() == '#' || next.as_char() == '\'',
                    Some(_) => false,
                }
            }
            _ => false,
        };
        if ends {
            chunks.push(current.drain(..).collect());
        }
    }
    if !current.is_empty() {
        chunks.push(current.into_iter().collect());
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn splits_at_statement_boundaries() {
        let body: proc_macro2::TokenStream = "let a = if x { 1 } else { 2 }; loop { f(); } 'l: for i in v { g(i) } S { a }.m(); #[cfg(x)] h(); t"
            .parse()
            .unwrap();
        let chunks: Vec<String> = split(body).iter().map(|c| c.to_string()).collect();
        assert_eq!(
            chunks,
            [
                "let a = if x { 1 } else { 2 } ;",
                "loop { f () ; }",
                "'l : for i in v { g (i) }",
                "S { a } . m () ;",
                "# [cfg (x)] h () ;",
                "t"
            ]
        );
    }
}
