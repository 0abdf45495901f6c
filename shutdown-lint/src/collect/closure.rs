//! What a closure of one parameter applies to it: the methods of `|inner|
//! inner.timeout(d)`, or of a block that rebinds the parameter step by step (`let request =
//! request.timeout(d); .. request`). A wrapper type of the workspace hands its wrapped
//! builder or request to such a closure (`prepare(|inner| ..)`), so what the closure applies
//! is applied to the wrapped value.

use super::flow::strip;

/// The methods a closure of one parameter always applies to it, innermost first, or
/// `None` when its value is not (a chain on) that parameter.
///
/// Read: a body that is a method chain on the parameter; or a block whose statements
/// rebind the parameter to a chain on itself (`let p = p.a();`, `p = p.a();`) and whose
/// value is the parameter or a chain on it. A rebinding to anything else (`let p = if c {
/// p.a() } else { p };`) applies its methods only sometimes: not counted, and so is every
/// other statement.
pub(super) fn applied_methods(c: &syn::ExprClosure) -> Option<Vec<&syn::ExprMethodCall>> {
    if c.inputs.len() != 1 {
        return None;
    }
    let param = match &c.inputs[0] {
        syn::Pat::Ident(p) => &p.ident,
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) => &p.ident,
            _ => return None,
        },
        _ => return None,
    };
    let mut out = Vec::new();
    let value = match strip(&c.body) {
        syn::Expr::Block(b) => {
            let (last, init) = b.block.stmts.split_last()?;
            for s in init {
                let rebound = match s {
                    syn::Stmt::Local(l) => match (&l.pat, &l.init) {
                        (syn::Pat::Ident(p), Some(init)) if p.ident == *param => Some(&*init.expr),
                        _ => None,
                    },
                    syn::Stmt::Expr(syn::Expr::Assign(a), Some(_)) => match strip(&a.left) {
                        syn::Expr::Path(p) if p.path.is_ident(param) => Some(&*a.right),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(e) = rebound {
                    out.extend(chain_on(e, param).unwrap_or_default());
                }
            }
            match last {
                syn::Stmt::Expr(e, None) => e,
                _ => return None,
            }
        }
        e => e,
    };
    out.extend(chain_on(value, param)?);
    (!out.is_empty()).then_some(out)
}

/// The methods of a chain whose receiver is the path `param` (none for `param` itself),
/// innermost first.
fn chain_on<'a>(e: &'a syn::Expr, param: &syn::Ident) -> Option<Vec<&'a syn::ExprMethodCall>> {
    let mut methods = Vec::new();
    let mut cur = strip(e);
    while let syn::Expr::MethodCall(m) = cur {
        methods.push(m);
        cur = strip(&m.receiver);
    }
    match cur {
        syn::Expr::Path(p) if p.path.is_ident(param) => {
            methods.reverse();
            Some(methods)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::applied_methods;

    fn names(src: &str) -> Option<Vec<String>> {
        let c: syn::ExprClosure = syn::parse_str(src).unwrap();
        applied_methods(&c).map(|v| v.iter().map(|m| m.method.to_string()).collect())
    }

    #[test]
    fn a_chain_on_the_parameter() {
        assert_eq!(
            names("|inner| inner.connect_timeout(a).timeout(b)"),
            Some(vec!["connect_timeout".into(), "timeout".into()])
        );
        assert_eq!(
            names("|b: B| { b.timeout(d) }"),
            Some(vec!["timeout".into()])
        );
    }

    #[test]
    fn rebindings_count_only_when_unconditional() {
        let src = "|request| {
            let request = request.timeout(d);
            let request = if let Some(b) = body { request.body(b) } else { request };
            request.bearer_auth(k)
        }";
        assert_eq!(
            names(src),
            Some(vec!["timeout".into(), "bearer_auth".into()])
        );
        let src = "|mut request| {
            request = request.header(a, b);
            if let Some(t) = &t { request = request.timeout(*t); }
            request.json(&body)
        }";
        assert_eq!(names(src), Some(vec!["header".into(), "json".into()]));
    }

    #[test]
    fn anything_else_applies_nothing_known() {
        assert_eq!(names("|inner| other.timeout(d)"), None);
        assert_eq!(names("|inner| inner"), None);
        assert_eq!(names("|a, b| a.timeout(b)"), None);
        assert_eq!(names("|inner| { inner.timeout(d); }"), None);
        assert_eq!(names("|(a, b)| a.timeout(b)"), None);
    }
}
