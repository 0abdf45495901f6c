//! Functions that hand back one of their parameters when nothing else is found: the
//! parameter is a default, what runs when nothing is configured, like `unwrap_or`'s
//! argument. meilisearch reads its proxy timeouts with `fetch_or_default(key, 30)`, whose
//! `Err(VarError::NotPresent) => default` arm returns the 30.

use syn::visit::{self, Visit};

/// The index of a parameter of `f` (a plain name) that one of its `match` arms, `if` /
/// `else` branches or `return`s hands back as it is.
pub(super) fn returned_param(f: &syn::ItemFn) -> Option<usize> {
    let params: Vec<String> = f
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(i) => i.ident.to_string(),
                _ => String::new(),
            },
            syn::FnArg::Receiver(_) => String::new(),
        })
        .collect();
    let mut finder = Returned {
        params: &params,
        found: None,
    };
    finder.visit_block(&f.block);
    finder.found
}

/// The names of the functions `e` calls by a plain name (`fetch_or_default(..)`), closures'
/// bodies included: what a `static`'s or `const`'s initializer may take its value from.
pub(super) fn called_names(e: &syn::Expr) -> Vec<String> {
    struct Calls(Vec<String>);
    impl<'ast> Visit<'ast> for Calls {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func
                && let Some(id) = p.path.get_ident()
            {
                self.0.push(id.to_string());
            }
            visit::visit_expr_call(self, c);
        }
    }
    let mut calls = Calls(Vec::new());
    calls.visit_expr(e);
    calls.0
}

struct Returned<'p> {
    params: &'p [String],
    found: Option<usize>,
}

impl Returned<'_> {
    /// The value an arm or branch yields: the expression, or a block's tail.
    fn note(&mut self, mut e: &syn::Expr) {
        loop {
            match e {
                syn::Expr::Block(b) => match b.block.stmts.last() {
                    Some(syn::Stmt::Expr(tail, None)) => e = tail,
                    _ => return,
                },
                syn::Expr::Paren(p) => e = &p.expr,
                syn::Expr::Return(r) => match &r.expr {
                    Some(v) => e = v,
                    None => return,
                },
                _ => break,
            }
        }
        if let syn::Expr::Path(p) = e
            && let Some(id) = p.path.get_ident()
            && let Some(i) = self.params.iter().position(|n| id == n)
        {
            self.found.get_or_insert(i);
        }
    }
}

impl<'ast> Visit<'ast> for Returned<'_> {
    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        self.note(&a.body);
        visit::visit_arm(self, a);
    }
    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        if let Some(syn::Stmt::Expr(tail, None)) = i.then_branch.stmts.last() {
            self.note(tail);
        }
        if let Some((_, e)) = &i.else_branch {
            self.note(e);
        }
        visit::visit_expr_if(self, i);
    }
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        if let Some(v) = &r.expr {
            self.note(v);
        }
        visit::visit_expr_return(self, r);
    }
    // a closure's or a nested fn's returns are their own
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
}

#[cfg(test)]
mod tests {
    use super::returned_param;

    fn param(src: &str) -> Option<usize> {
        returned_param(&syn::parse_str(src).unwrap())
    }

    #[test]
    fn a_parameter_handed_back_by_an_arm_a_branch_or_a_return() {
        let meili = "fn fetch_or_default(key: &str, default: u64) -> u64 {
            match std::env::var(key) {
                Ok(t) => t.parse().unwrap_or_else(|_| panic!()),
                Err(std::env::VarError::NotPresent) => default,
                Err(_) => panic!(),
            }
        }";
        assert_eq!(param(meili), Some(1));
        assert_eq!(
            param("fn f(a: u64, b: u64) -> u64 { if c() { a } else { b } }"),
            Some(0)
        );
        assert_eq!(
            param("fn f(a: u64) -> u64 { if c() { return a; } 5 }"),
            Some(0)
        );
    }

    #[test]
    fn anything_else_is_no_fallback() {
        assert_eq!(param("fn f(a: u64) -> u64 { a + 1 }"), None);
        assert_eq!(param("fn f(a: u64) -> u64 { a }"), None);
        assert_eq!(
            param("fn f(a: u64) -> u64 { let g = |b: u64| { return b; }; g(a) }"),
            None
        );
    }
}
