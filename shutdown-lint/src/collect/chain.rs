//! Chains: a call and the methods, `?` and `.await` applied to its result, resolved and
//! recorded when a rule may care; path references that are not called.

use super::state::{BindVal, Collector};
use crate::model::{Chain, ChainUse, PathRef, Step, Usage};
use crate::resolve::{Canon, Resolution};
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

impl Collector<'_, '_> {
    /// Visits a call / method-call / `?` / `.await` expression as one chain and records it.
    /// Returns the chain (for `let` bindings).
    pub(super) fn visit_chain(&mut self, e: &syn::Expr, usage: Usage) -> Option<Chain> {
        let mut layers: Vec<&syn::Expr> = Vec::new();
        let mut cur = e;
        loop {
            match cur {
                syn::Expr::MethodCall(m) => {
                    layers.push(cur);
                    cur = &m.receiver;
                }
                syn::Expr::Try(t) => {
                    layers.push(cur);
                    cur = &t.expr;
                }
                syn::Expr::Await(a) => {
                    layers.push(cur);
                    cur = &a.base;
                }
                syn::Expr::Paren(p) if !layers.is_empty() => cur = &p.expr,
                _ => break,
            }
        }
        let mut drop_call = false;
        let mut chain: Option<Chain> = match cur {
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => match self.resolve(&p.path, true) {
                    Resolution::Path(root) => {
                        drop_call = root.len() == 1 && root[0] == "drop";
                        // only calls of paths a rule knows become chains: the others
                        // (most calls of a file) cost no regions, steps or argument values
                        self.is_interesting(&root).then(|| Chain {
                            root_region: self.region(p.path.span()),
                            root_args: c.args.iter().map(|a| self.eval_arg(a)).collect(),
                            root,
                            steps: Vec::new(),
                            inherited: 0,
                            via_binding: false,
                        })
                    }
                    _ => None,
                },
                _ => None,
            },
            syn::Expr::Path(p) if !layers.is_empty() => match self.resolve(&p.path, true) {
                Resolution::Binding(name) => match self.binding_val(&name) {
                    Some(BindVal::Chain(ch)) => {
                        let mut ch = ch.clone();
                        ch.inherited = ch.steps.len();
                        ch.via_binding = true;
                        Some(ch)
                    }
                    _ => None,
                },
                Resolution::Path(path) => {
                    self.record_ref(path, p.path.span());
                    None
                }
                Resolution::Unknown => None,
            },
            _ => None,
        };
        // the steps, innermost first
        if let Some(ch) = chain.as_mut() {
            for layer in layers.iter().rev() {
                let step = match layer {
                    syn::Expr::MethodCall(m) => Step {
                        name: m.method.to_string(),
                        region: self.region(m.method.span()),
                        args: m.args.iter().map(|a| self.eval_arg(a)).collect(),
                    },
                    syn::Expr::Try(t) => Step {
                        name: "?".into(),
                        region: self.region(t.question_token.span()),
                        args: Vec::new(),
                    },
                    syn::Expr::Await(a) => Step {
                        name: "await".into(),
                        region: self.region(a.await_token.span()),
                        args: Vec::new(),
                    },
                    _ => continue,
                };
                ch.steps.push(step);
            }
            self.model.chains.push(ChainUse {
                chain: ch.clone(),
                usage,
                ctx: self.ctx(),
            });
        }
        // visit everything inside: the root's arguments, then each method's arguments
        match cur {
            syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(_)) => {
                for a in &c.args {
                    self.pending = if drop_call {
                        Usage::Dropped
                    } else {
                        Usage::Kept
                    };
                    self.visit_expr(a);
                }
            }
            syn::Expr::Path(_) if !layers.is_empty() => {}
            other => {
                if !layers.is_empty() || !matches!(other, syn::Expr::Call(_)) {
                    self.visit_expr(other);
                } else {
                    visit::visit_expr(self, other);
                }
            }
        }
        for layer in layers.iter().rev() {
            if let syn::Expr::MethodCall(m) = layer {
                for a in &m.args {
                    self.visit_expr(a);
                }
            }
        }
        chain
    }

    /// Whether a rule may look at calls of `path`: a known or configured path (configured
    /// ones may be written `crate::..`, which resolves to the crate's own name).
    pub(super) fn is_interesting(&self, path: &[String]) -> bool {
        let set = &self.opts.interesting;
        set.contains(path)
            || (self.crate_relative && path.len() > 1 && {
                let mut p = Vec::with_capacity(path.len());
                p.push("crate".to_string());
                p.extend_from_slice(&path[1..]);
                set.contains(&p)
            })
    }

    pub(super) fn record_ref(&mut self, path: Canon, span: proc_macro2::Span) {
        if self.opts.interesting.contains(&path) {
            let region = self.region(span);
            self.model.refs.push(PathRef {
                path,
                region,
                ctx: self.ctx(),
            });
        }
    }
}
