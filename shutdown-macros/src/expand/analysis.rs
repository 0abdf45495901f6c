//! Read-only questions about user code that decide whether a loop may get a checkpoint:
//! which `break`s leave a given `loop` (and whether they carry a value), and whether a closure
//! or async block pins down its output type.
//!
//! Neither question crosses closures, async blocks, `const` blocks or nested items: a `break`,
//! `return` or `?` cannot reach through them. Macro invocations are opaque to `syn`, so their
//! tokens are scanned conservatively.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::visit::Visit;
use syn::{Expr, Lifetime, Macro};

/// How the `break`s that target one `loop` look.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Breaks {
    /// A `break` / `break 'label` without a value leaves this loop (so its type is `()`).
    pub(crate) unit: bool,
    /// A `break <value>` leaves this loop (so its value is used somewhere).
    pub(crate) valued: bool,
    /// A macro invocation may contain a `break <value>` that leaves this loop.
    pub(crate) maybe_valued: bool,
}

/// What kind of value a `loop` has, judged from its `break`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoopValue {
    /// Some `break` leaves it and none carries a value: its type is `()`.
    Unit,
    /// A `break` carries (or may carry) a value.
    Valued,
    /// Nothing visible leaves it: its type is `!`.
    Never,
}

impl Breaks {
    /// Classifies the loop.
    pub(crate) fn value(self) -> LoopValue {
        if self.valued || self.maybe_valued {
            LoopValue::Valued
        } else if self.unit {
            LoopValue::Unit
        } else {
            LoopValue::Never
        }
    }
}

/// Finds the `break`s in `body` that leave the loop labelled `label` (or unlabelled).
pub(crate) fn breaks_of(label: Option<&Lifetime>, body: &syn::Block) -> Breaks {
    let mut scan = BreakScan {
        label,
        depth: 0,
        shadowed: 0,
        found: Breaks::default(),
    };
    scan.visit_block(body);
    scan.found
}

struct BreakScan<'a> {
    label: Option<&'a Lifetime>,
    /// Nested loops entered: an unlabelled `break` at depth 0 is ours.
    depth: usize,
    /// Nested loops or blocks that reuse our label: a `break 'label` inside is theirs.
    shadowed: usize,
    found: Breaks,
}

impl BreakScan<'_> {
    fn same_label(&self, other: Option<&syn::Label>) -> bool {
        matches!((self.label, other), (Some(a), Some(b)) if a.ident == b.name.ident)
    }

    fn nested(&mut self, label: Option<&syn::Label>, is_loop: bool, f: impl FnOnce(&mut Self)) {
        let shadows = self.same_label(label);
        self.shadowed += usize::from(shadows);
        self.depth += usize::from(is_loop);
        f(self);
        self.depth -= usize::from(is_loop);
        self.shadowed -= usize::from(shadows);
    }

    fn targets_us(&self, label: Option<&Lifetime>) -> bool {
        match label {
            None => self.depth == 0,
            Some(l) => self.shadowed == 0 && self.label.is_some_and(|ours| ours.ident == l.ident),
        }
    }
}

impl<'ast> Visit<'ast> for BreakScan<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Break(b) => {
                if self.targets_us(b.label.as_ref()) {
                    if b.expr.is_some() {
                        self.found.valued = true;
                    } else {
                        self.found.unit = true;
                    }
                }
                if let Some(value) = &b.expr {
                    self.visit_expr(value);
                }
            }
            Expr::Loop(l) => self.nested(l.label.as_ref(), true, |s| s.visit_block(&l.body)),
            Expr::While(w) => {
                self.visit_expr(&w.cond);
                self.nested(w.label.as_ref(), true, |s| s.visit_block(&w.body));
            }
            Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                self.nested(f.label.as_ref(), true, |s| s.visit_block(&f.body));
            }
            Expr::Block(b) if b.label.is_some() => {
                self.nested(b.label.as_ref(), false, |s| s.visit_block(&b.block));
            }
            Expr::Closure(_) | Expr::Async(_) | Expr::Const(_) => {}
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_macro(&mut self, mac: &'ast Macro) {
        // Only a `break` that carries a value matters here: it may make the loop's type
        // something other than `()`, and then a checkpoint's `break;` would not compile.
        for found in macro_breaks(&mac.tokens) {
            let ours = match &found.label {
                None => true, // may be ours, unless it sits in a loop inside the macro: assume ours
                Some(l) => self.shadowed == 0 && self.label.is_some_and(|own| own.ident == *l),
            };
            if ours && found.valued {
                self.found.maybe_valued = true;
            }
        }
    }
}

/// A `break` found in a macro's tokens.
struct MacroBreak {
    label: Option<String>,
    valued: bool,
}

fn macro_breaks(tokens: &TokenStream) -> Vec<MacroBreak> {
    let mut out = Vec::new();
    collect_macro_breaks(tokens.clone(), &mut out);
    out
}

fn collect_macro_breaks(tokens: TokenStream, out: &mut Vec<MacroBreak>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Group(g) => collect_macro_breaks(g.stream(), out),
            TokenTree::Ident(id) if id == "break" => {
                let mut j = i + 1;
                let mut label = None;
                if let (Some(TokenTree::Punct(p)), Some(TokenTree::Ident(name))) =
                    (trees.get(j), trees.get(j + 1))
                    && p.as_char() == '\''
                {
                    label = Some(name.to_string());
                    j += 2;
                }
                let valued = !ends_expression(trees.get(j));
                out.push(MacroBreak { label, valued });
            }
            _ => {}
        }
        i += 1;
    }
}

/// `true` when the token after `break`/`return` ends it (so it carries no value).
fn ends_expression(next: Option<&TokenTree>) -> bool {
    match next {
        None => true,
        Some(TokenTree::Punct(p)) => matches!(p.as_char(), ';' | ','),
        Some(TokenTree::Group(g)) => g.delimiter() == Delimiter::None && g.stream().is_empty(),
        _ => false,
    }
}

/// Macros known not to `return` or use `?` on their own (only their arguments can, and
/// those tokens are scanned).
const TRANSPARENT_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "format_args",
    "write",
    "writeln",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "vec",
    "dbg",
    "matches",
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "event",
    "span",
    "trace_span",
    "debug_span",
    "info_span",
    "warn_span",
    "error_span",
    "select",
    "join",
    "pin",
    "concat",
    "stringify",
    "line",
    "file",
    "column",
    "module_path",
    "cfg",
    "env",
    "option_env",
    "include_str",
    "include_bytes",
];

/// What a closure's or async block's body says about its output type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// Nothing in the body fixes the output type (no `?`, no `return <value>`).
    Free,
    /// A `return <value>`, a `?` or an unknown macro may fix it.
    Constrained,
}

/// Looks for `?`, `return <value>` and macros that might contain them, in `expr` (the body of
/// a closure or async block), without crossing nested closures, async blocks or items.
pub(crate) fn output_of(expr: &Expr) -> Output {
    let mut scan = OutputScan { constrained: false };
    scan.visit_expr(expr);
    if scan.constrained {
        Output::Constrained
    } else {
        Output::Free
    }
}

/// Same as [`output_of`] for a block body.
pub(crate) fn output_of_block(block: &syn::Block) -> Output {
    let mut scan = OutputScan { constrained: false };
    scan.visit_block(block);
    if scan.constrained {
        Output::Constrained
    } else {
        Output::Free
    }
}

struct OutputScan {
    constrained: bool,
}

impl<'ast> Visit<'ast> for OutputScan {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        if self.constrained {
            return;
        }
        match expr {
            Expr::Try(_) => self.constrained = true,
            Expr::Return(r) if r.expr.is_some() => self.constrained = true,
            Expr::Closure(_) | Expr::Async(_) | Expr::Const(_) => {}
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_macro(&mut self, mac: &'ast Macro) {
        let known = mac
            .path
            .segments
            .last()
            .is_some_and(|s| TRANSPARENT_MACROS.iter().any(|m| s.ident == m));
        if !known || tokens_may_return(mac.tokens.clone()) {
            self.constrained = true;
        }
    }
}

fn tokens_may_return(tokens: TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    trees.iter().enumerate().any(|(i, tt)| match tt {
        TokenTree::Group(g) => tokens_may_return(g.stream()),
        TokenTree::Punct(p) => p.as_char() == '?',
        TokenTree::Ident(id) => id == "return" && !ends_expression(trees.get(i + 1)),
        TokenTree::Literal(_) => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loop_breaks(src: &str) -> Breaks {
        let expr: syn::ExprLoop = syn::parse_str(src).unwrap();
        breaks_of(expr.label.as_ref().map(|l| &l.name), &expr.body)
    }

    #[test]
    fn classifies_breaks() {
        assert_eq!(loop_breaks("loop { f(); }").value(), LoopValue::Never);
        assert_eq!(loop_breaks("loop { break; }").value(), LoopValue::Unit);
        assert_eq!(loop_breaks("loop { break 1; }").value(), LoopValue::Valued);
        assert_eq!(
            loop_breaks("loop { loop { break 1; } }").value(),
            LoopValue::Never
        );
        assert_eq!(
            loop_breaks("'a: loop { loop { break 'a 1; } }").value(),
            LoopValue::Valued
        );
        assert_eq!(
            loop_breaks("'a: loop { 'a: loop { break 'a 1; } }").value(),
            LoopValue::Never
        );
        assert_eq!(
            loop_breaks("'a: loop { let _ = 'b: { break 'b 2; }; }").value(),
            LoopValue::Never
        );
        assert_eq!(
            loop_breaks("loop { let f = || { loop { break 3; } }; }").value(),
            LoopValue::Never
        );
        assert_eq!(
            loop_breaks("loop { select! { x = a => break x, } }").value(),
            LoopValue::Valued
        );
        assert_eq!(
            loop_breaks("loop { select! { _ = a => break, } }").value(),
            LoopValue::Never
        );
        assert_eq!(
            loop_breaks("'a: loop { m!(break 'a;) }").value(),
            LoopValue::Never
        );
    }

    #[test]
    fn finds_output_constraints() {
        let free: Expr = syn::parse_str("async { loop { info!(\"{x:?}\"); f().await; } }").unwrap();
        let Expr::Async(a) = &free else {
            unreachable!()
        };
        assert_eq!(output_of_block(&a.block), Output::Free);
        for src in [
            "{ loop { f()?; } }",
            "{ loop { return 1; } }",
            "{ loop { bail!(\"x\"); } }",
            "{ loop { println!(\"{}\", f()?); } }",
        ] {
            let b: syn::Block = syn::parse_str(src).unwrap();
            assert_eq!(output_of_block(&b), Output::Constrained, "{src}");
        }
        let b: syn::Block =
            syn::parse_str("{ loop { if x { return; } let c = || f()?; } }").unwrap();
        assert_eq!(output_of_block(&b), Output::Free);
    }
}
