//! Argument values known at lint time: numbers, durations (`Duration::from_secs(30)`, a
//! `const`, a binding), `None`; the file's numeric and duration consts.

use super::state::{BindVal, Collector};
use crate::model::{ArgValue, Chain, Step};
use crate::resolve::Resolution;
use crate::resolve::known;
use syn::spanned::Spanned;

impl Collector<'_, '_> {
    pub(super) fn eval_number(&self, e: &syn::Expr, depth: usize) -> Option<f64> {
        if depth > 16 {
            return None;
        }
        match e {
            syn::Expr::Lit(l) => lit_number(&l.lit),
            syn::Expr::Paren(p) => self.eval_number(&p.expr, depth + 1),
            syn::Expr::Group(g) => self.eval_number(&g.expr, depth + 1),
            syn::Expr::Cast(c) => self.eval_number(&c.expr, depth + 1),
            // `*REQUEST_SECONDS` of a lazily initialised static
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                self.eval_number(&u.expr, depth + 1)
            }
            syn::Expr::Reference(r) => self.eval_number(&r.expr, depth + 1),
            // `LazyLock::new(|| fetch_or_default(KEY, 30))`: what the closure makes
            syn::Expr::Call(c) if lazy_init(c).is_some() => {
                self.eval_number(lazy_init(c)?, depth + 1)
            }
            // a function of the file that hands back a parameter when nothing is found:
            // that argument, the default
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else {
                    return None;
                };
                let i = *self.fallbacks.get(&p.path.get_ident()?.to_string())?;
                self.eval_number(c.args.iter().nth(i)?, depth + 1)
            }
            // `secs.unwrap_or(60)`: the default, what runs when nothing is configured
            syn::Expr::MethodCall(m) if m.method == "unwrap_or" && m.args.len() == 1 => {
                self.eval_number(&m.args[0], depth + 1)
            }
            syn::Expr::MethodCall(m) if m.method == "unwrap_or_else" && m.args.len() == 1 => {
                self.eval_number(default_closure_body(&m.args[0])?, depth + 1)
            }
            syn::Expr::Binary(b) => {
                let (l, r) = (
                    self.eval_number(&b.left, depth + 1)?,
                    self.eval_number(&b.right, depth + 1)?,
                );
                match b.op {
                    syn::BinOp::Mul(_) => Some(l * r),
                    syn::BinOp::Add(_) => Some(l + r),
                    syn::BinOp::Sub(_) => Some(l - r),
                    syn::BinOp::Div(_) if r != 0.0 => Some(l / r),
                    _ => None,
                }
            }
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments[0].ident.to_string();
                match self.value_of(&name) {
                    Some(BindVal::Num(n)) => Some(*n),
                    _ => None,
                }
            }
            // a const of a module of this file (`timeouts::REQUEST_SECONDS`)
            syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 2 => {
                match self.consts.get(&p.path.segments[1].ident.to_string()) {
                    Some(BindVal::Num(n)) => Some(*n),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    pub(super) fn eval_duration(&self, e: &syn::Expr, depth: usize) -> Option<f64> {
        if depth > 16 {
            return None;
        }
        match e {
            syn::Expr::Paren(p) => self.eval_duration(&p.expr, depth + 1),
            syn::Expr::Group(g) => self.eval_duration(&g.expr, depth + 1),
            syn::Expr::Reference(r) => self.eval_duration(&r.expr, depth + 1),
            // a chrono or time duration made a std one (`d.to_std()?`, `.to_std().unwrap()`,
            // `.to_std().map_err(..)?`, `d.try_into()?`): the same length
            syn::Expr::Try(t) => self.eval_duration(&t.expr, depth + 1),
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "to_std" | "try_into" | "unwrap" | "expect" | "map_err"
                ) =>
            {
                self.eval_duration(&m.receiver, depth + 1)
            }
            // `timeout.unwrap_or(Duration::from_secs(60))`: the default
            syn::Expr::MethodCall(m) if m.method == "unwrap_or" && m.args.len() == 1 => {
                self.eval_duration(&m.args[0], depth + 1)
            }
            // `timeout.unwrap_or_else(|| Duration::from_secs(60))`: the same, made lazily
            syn::Expr::MethodCall(m) if m.method == "unwrap_or_else" && m.args.len() == 1 => {
                self.eval_duration(default_closure_body(&m.args[0])?, depth + 1)
            }
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else {
                    return None;
                };
                let Resolution::Path(canon) = self.resolve(&p.path, true) else {
                    return None;
                };
                let s = canon.join("::");
                if s == "Some" && c.args.len() == 1 {
                    return self.eval_duration(&c.args[0], depth + 1);
                }
                // `Duration::new(secs, nanos)` (sccache's `Duration::new(REQUEST_TIMEOUT_SECS, 0)`)
                if s == known::DURATION_NEW && c.args.len() == 2 {
                    let secs = self.eval_number(&c.args[0], depth + 1)?;
                    let nanos = self.eval_number(&c.args[1], depth + 1)?;
                    return Some(secs + nanos * 1e-9);
                }
                let factor = known::duration_factor(&s)?;
                let n = self.eval_number(c.args.first()?, depth + 1)?;
                Some(n * factor)
            }
            // `Duration::from_secs(60) + connect_timeout` (crucible's pantry), `d * 2`,
            // `Duration::from_secs(1) * 60`, `d / 2`
            syn::Expr::Binary(b) => {
                let dur = |e| self.eval_duration(e, depth + 1);
                let num = |e| self.eval_number(e, depth + 1);
                match b.op {
                    syn::BinOp::Add(_) => Some(dur(&b.left)? + dur(&b.right)?),
                    syn::BinOp::Sub(_) => {
                        Some(dur(&b.left)? - dur(&b.right)?).filter(|d| *d >= 0.0)
                    }
                    syn::BinOp::Mul(_) => match dur(&b.left) {
                        Some(d) => Some(d * num(&b.right)?),
                        None => Some(num(&b.left)? * dur(&b.right)?),
                    },
                    syn::BinOp::Div(_) => {
                        Some(dur(&b.left)? / num(&b.right)?).filter(|d| d.is_finite())
                    }
                    _ => None,
                }
            }
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments[0].ident.to_string();
                match self.value_of(&name) {
                    Some(BindVal::Duration(d)) => Some(*d),
                    Some(BindVal::Chain(ch)) => duration_of_chain(ch),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    pub(super) fn eval_arg(&self, e: &syn::Expr) -> ArgValue {
        if let Some(d) = self.eval_duration(e, 0) {
            return ArgValue::Duration(d, self.region(e.span()));
        }
        if let syn::Expr::Path(p) = e
            && p.path.is_ident("None")
        {
            return ArgValue::NoneLit;
        }
        if discards_its_argument(e) {
            return ArgValue::Discards;
        }
        if let Some(steps) = self.applied_steps(e) {
            return ArgValue::Applied(steps);
        }
        // `Default::default`, `Type::new` passed by name; a known constructor's own path
        // (`Client::new`) is reported where it is passed (`FileModel::refs`)
        if let syn::Expr::Path(p) = e
            && p.qself.is_none()
            && p.path.segments.len() >= 2
            && p.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "default" || s.ident == "new")
            && !matches!(self.resolve(&p.path, true), Resolution::Path(c) if self.is_interesting(&c))
        {
            return ArgValue::Ctor;
        }
        match self.eval_number(e, 0) {
            Some(n) => ArgValue::Num(n),
            None => ArgValue::Other,
        }
    }

    /// The methods a closure of one parameter always applies to it, innermost first
    /// ([`super::closure::applied_methods`]): `|inner| inner.timeout(d).gzip(true)`.
    fn applied_steps(&self, e: &syn::Expr) -> Option<Vec<Step>> {
        let syn::Expr::Closure(c) = e else {
            return None;
        };
        let layers = super::closure::applied_methods(c)?;
        Some(
            layers
                .iter()
                .map(|m| Step {
                    name: m.method.to_string(),
                    region: self.region(m.method.span()),
                    args: m.args.iter().map(|a| self.eval_arg(a)).collect(),
                })
                .collect(),
        )
    }

    pub(super) fn collect_consts(&mut self, consts: &[(String, syn::Expr)]) {
        // two passes so a const may use one declared later
        for _ in 0..2 {
            for (name, expr) in consts {
                let name = name.clone();
                let val = if let Some(d) = self.eval_duration(expr, 0) {
                    Some(BindVal::Duration(d))
                } else {
                    self.eval_number(expr, 0).map(BindVal::Num)
                };
                if let Some(val) = val {
                    self.consts.insert(name, val);
                }
            }
        }
    }
}

/// A number literal's value (`10`, `2.5`).
pub(super) fn lit_number(lit: &syn::Lit) -> Option<f64> {
    match lit {
        syn::Lit::Int(i) => i.base10_parse::<u128>().ok().map(|v| v as f64),
        syn::Lit::Float(f) => f.base10_parse::<f64>().ok(),
        _ => None,
    }
}

pub(super) fn duration_of_chain(ch: &Chain) -> Option<f64> {
    if !ch.steps.is_empty() {
        return None;
    }
    let s = ch.root_str();
    if s == known::DURATION_NEW {
        return match ch.root_args.as_slice() {
            [ArgValue::Num(secs), ArgValue::Num(nanos)] => Some(secs + nanos * 1e-9),
            _ => None,
        };
    }
    let factor = known::duration_factor(&s)?;
    match ch.root_args.first()? {
        ArgValue::Num(n) => Some(n * factor),
        _ => None,
    }
}

/// The closure body of a lazily initialised value: `LazyLock::new(|| value)`
/// (`std::sync::LazyLock`, `std::cell::LazyCell`, once_cell's and lazy_static-style `Lazy`).
fn lazy_init(c: &syn::ExprCall) -> Option<&syn::Expr> {
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    if !super::attrs::is_new_of(&p.path, super::attrs::LAZIES) || c.args.len() != 1 {
        return None;
    }
    default_closure_body(&c.args[0])
}

/// The value a default closure gives: the body of `|| value` (no parameters).
fn default_closure_body(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::Closure(c) if c.inputs.is_empty() => Some(&c.body),
        _ => None,
    }
}

/// Whether a function argument drops what it is called with unseen: a closure whose one
/// parameter is `_` or a name starting with `_` (`|_| ()`, `|_handle| Ok(())`), or `drop`
/// (`std::mem::drop`) passed by name.
pub(super) fn discards_its_argument(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Closure(c) if c.inputs.len() == 1 => match &c.inputs[0] {
            syn::Pat::Wild(_) => true,
            syn::Pat::Ident(i) => i.ident.to_string().starts_with('_'),
            _ => false,
        },
        syn::Expr::Path(p) => {
            p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "drop")
        }
        _ => false,
    }
}
