//! Durations that reach a timeout through a name the walk cannot value where it is used:
//! a parameter of the function (`fn from_parts(.., timeout: Duration) { ..
//! .timeout(timeout) }`) or a field of `self` or of a binding of a declared type
//! (`.timeout(self.timeout)`, `.timeout(settings.timeout)` with `settings: &Settings`).
//!
//! The walk records such arguments ([`Deferred`]); when it has finished, the file is read
//! once more, as written (bodies the pruner blanked included), for what the file passes
//! there: the arguments of every call of that function in the file (`Self::from_parts(url,
//! Duration::from_secs(10), Duration::from_secs(30))`), or every value the file writes into
//! that field (`Self { timeout: DEFAULT_TIMEOUT, .. }`, `x.timeout = ..`). A parameter takes
//! the longest duration a caller passes (that caller's request can wait that long), and a
//! field the longest duration the file writes into it (a constructor's default: the client
//! of a value made that way waits that long, whatever a setter or another file may write)
//! or its declaration gives as a default in an attribute (serde's `default = "fn"`, clap's
//! `default_value_t`, envconfig's `default`). A name read as a number of units
//! (`Duration::from_secs(self.timeout_secs)`) is valued the same way, by the numbers
//! written to it. The step's argument becomes that duration, and the model keeps
//! where it came from for the message. (Not for a file streamed item by item: it is never
//! whole in memory.)

use super::state::Collector;
use crate::model::{ArgOrigin, value_unknown_arg};
use crate::resolve::known;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// Where an argument's value is to be looked for.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Source {
    /// Parameter number `index` (receiver not counted) of function `name`, a method or
    /// associated function of `owner` (the last segment of the `impl`'s type) when `Some`.
    Param {
        name: String,
        owner: Option<String>,
        receiver: bool,
        index: usize,
    },
    /// Field `field` of `owner` (the last segment of the `impl`'s type).
    Field { owner: String, field: String },
}

/// An argument of a timeout step whose value the walk did not know.
#[derive(Debug, Clone)]
pub(super) struct Deferred {
    /// Byte offset of the step's method name (how the step is found in every chain that
    /// carries it, bindings' copies included).
    pub(super) step: usize,
    /// Position of the argument.
    pub(super) arg: usize,
    /// The argument as written.
    pub(super) region: crate::finding::Region,
    pub(super) source: Source,
    /// `Some(f)`: the name holds a number of units of `f` seconds, made a duration at the
    /// argument (`Duration::from_secs(self.timeout_secs)`: 1.0); `None`: a duration.
    pub(super) factor: Option<f64>,
}

/// Whether a step of this name takes a duration worth following: a timeout or a graceful
/// shutdown's wait.
pub(super) fn waits(method: &str) -> bool {
    method.contains("timeout") || method.contains("graceful")
}

impl Collector<'_, '_> {
    /// Records `arg` (argument `k` of the step named at `step`) when it is a parameter of
    /// the function being walked or a field of `self`.
    pub(super) fn defer_arg(&mut self, arg: &syn::Expr, step: usize, k: usize) {
        let inner = match arg {
            syn::Expr::Reference(r) => &*r.expr,
            syn::Expr::Paren(p) => &*p.expr,
            a => a,
        };
        // `Duration::from_secs(secs)`: the name holds a number of seconds
        let (inner, factor) = match self.duration_of_number(inner) {
            Some((n, f)) => (n, Some(f)),
            None => (inner, None),
        };
        let source = match inner {
            syn::Expr::Path(p) if p.qself.is_none() => {
                let Some(name) = p.path.get_ident().map(ToString::to_string) else {
                    return;
                };
                let Some(sig) = &self.cur_sig else { return };
                // the parameter itself, not a `let` of the same name in the body
                let Some(index) = sig.params.iter().position(|p| p.as_deref() == Some(&*name))
                else {
                    return;
                };
                if self
                    .values
                    .iter()
                    .rev()
                    .find(|(n, _, _)| *n == name)
                    .map(|v| v.1)
                    != Some(1)
                {
                    return;
                }
                Source::Param {
                    name: sig.name.clone(),
                    owner: sig.owner.clone(),
                    receiver: sig.receiver,
                    index,
                }
            }
            syn::Expr::Field(f) => {
                let (syn::Member::Named(field), syn::Expr::Path(base)) = (&f.member, &*f.base)
                else {
                    return;
                };
                // a field of `self`, or of a binding of a declared type (`settings:
                // &WebhookSettings`, `.timeout(settings.timeout)`)
                let owner = if base.path.is_ident("self") {
                    self.self_ty.as_ref()
                } else {
                    match base
                        .path
                        .get_ident()
                        .and_then(|i| self.binding_val(&i.to_string()))
                    {
                        Some(super::state::BindVal::Typed(t)) => Some(t),
                        _ => None,
                    }
                };
                let Some(owner) = owner.and_then(|t| t.last()) else {
                    return;
                };
                Source::Field {
                    owner: owner.clone(),
                    field: field.to_string(),
                }
            }
            _ => return,
        };
        self.deferred.push(Deferred {
            step,
            arg: k,
            region: self.region(arg.span()),
            source,
            factor,
        });
    }

    /// Whether some deferred argument may be valued from `text` (the file as written): a
    /// caller or a write names the function or field once more than its use (lexically,
    /// without parsing).
    pub(super) fn deferred_worth_reading(&self, text: &str) -> bool {
        let twice = |name: &str| {
            memchr::memmem::find_iter(text.as_bytes(), name.as_bytes())
                .nth(1)
                .is_some()
        };
        self.deferred.iter().any(|d| match &d.source {
            Source::Param { name, .. } => twice(name),
            Source::Field { field, .. } => twice(field),
        })
    }

    /// Values the deferred arguments from `file` (the file as written) and writes them
    /// into every chain step that carries them.
    pub(super) fn finish_deferred(&mut self, file: &syn::File) {
        let deferred = std::mem::take(&mut self.deferred);
        let mut found = Writes::new(
            deferred.iter().map(|d| d.source.clone()).collect(),
            !self.opts.include_tests,
        );
        found.visit_file(file);
        for (k, d) in deferred.iter().enumerate() {
            // the longest known value: a write the file cannot value (a setter's
            // parameter, a macro body, another file) may set another, but the known one
            // is a client that waits that long
            let known: Vec<(f64, String)> =
                found.values[k]
                    .iter()
                    .filter_map(|(e, how)| Some((self.eval_written(e, d.factor)?, how.clone())))
                    .chain(found.defaults[k].iter().filter_map(|(v, how)| {
                        Some((self.eval_default(v, d.factor)?, how.clone()))
                    }))
                    .collect();
            let Some((secs, via)) = known.into_iter().max_by(|a, b| a.0.total_cmp(&b.0)) else {
                self.open(d);
                continue;
            };
            value_unknown_arg(&mut self.model.chains, d.step, d.arg, secs, d.region);
            self.model.arg_origins.push(ArgOrigin {
                offset: d.region.offset,
                via,
            });
        }
    }
}

impl Collector<'_, '_> {
    /// `Duration::from_secs(x)` (any constructor of [`known::DURATION_CTORS`], `x` through
    /// `as` casts and `.into()`): `x` and the seconds one unit of it is.
    fn duration_of_number<'e>(&self, e: &'e syn::Expr) -> Option<(&'e syn::Expr, f64)> {
        let syn::Expr::Call(c) = e else { return None };
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        if c.args.len() != 1 {
            return None;
        }
        let crate::resolve::Resolution::Path(canon) = self.resolve(&p.path, true) else {
            return None;
        };
        let f = known::duration_factor(&canon.join("::"))?;
        let mut x = &c.args[0];
        loop {
            x = match x {
                syn::Expr::Cast(c) => &c.expr,
                syn::Expr::Paren(p) => &p.expr,
                syn::Expr::MethodCall(m) if m.method == "into" && m.args.is_empty() => &m.receiver,
                _ => break,
            };
        }
        Some((x, f))
    }

    /// The seconds a field's declared default stands for ([`AttrDefault`]).
    fn eval_default(&self, d: &AttrDefault, factor: Option<f64>) -> Option<f64> {
        match (&d.value, factor) {
            (DefaultValue::Expr(e), f) => self.eval_written(e, f),
            // `default_value = "30s"` on a duration field (parsed by humantime or the like)
            (DefaultValue::Text(t), None) => {
                shutdown_duration::parse(t).ok().map(|d| d.as_secs_f64())
            }
            (DefaultValue::Text(t), Some(f)) => Some(t.trim().parse::<f64>().ok()? * f),
        }
    }

    /// The seconds a written value `e` stands for: a duration, or (with `factor`) a number
    /// of units of `factor` seconds.
    fn eval_written(&self, e: &syn::Expr, factor: Option<f64>) -> Option<f64> {
        match factor {
            None => self.eval_duration(e, 0),
            Some(f) => Some(self.eval_number(e, 0)? * f),
        }
    }
}

impl Collector<'_, '_> {
    /// The deferred arguments no read of the file valued: a field's are left to the
    /// workspace ([`crate::model::OpenField`]).
    pub(super) fn open_deferred(&mut self) {
        for d in std::mem::take(&mut self.deferred) {
            self.open(&d);
        }
    }

    fn open(&mut self, d: &Deferred) {
        if let Source::Field { owner, field } = &d.source {
            self.model.open_fields.push(crate::model::OpenField {
                step: d.step,
                arg: d.arg,
                region: d.region,
                owner: owner.clone(),
                field: field.clone(),
                factor: d.factor,
            });
        }
    }

    /// The known durations `file` (this collector's file, as written) writes to the
    /// `wanted` fields (`(owner, field, factor)`: `WebhookSettings { timeout: .. }`,
    /// `x.timeout = ..` in an `impl` of the owner; with a factor, a number of its units):
    /// `(index into wanted, seconds, line)`.
    pub(super) fn field_writes(
        &self,
        file: &syn::File,
        wanted: &[crate::model::FieldKey],
    ) -> Vec<(usize, f64, usize)> {
        let mut found = Writes::new(
            wanted
                .iter()
                .map(|w| Source::Field {
                    owner: w.owner.clone(),
                    field: w.field.clone(),
                })
                .collect(),
            !self.opts.include_tests,
        );
        found.visit_file(file);
        let mut out = Vec::new();
        for (k, w) in wanted.iter().enumerate() {
            for (e, _) in &found.values[k] {
                if let Some(secs) = self.eval_written(e, w.factor()) {
                    out.push((k, secs, e.span().start().line));
                }
            }
            for (v, _) in &found.defaults[k] {
                if let Some(secs) = self.eval_default(v, w.factor()) {
                    out.push((k, secs, v.line));
                }
            }
        }
        out
    }
}

/// The values the file writes to each source: the expression, and where and how it is
/// passed or written (for the message).
struct Writes<'ast> {
    sources: Vec<Source>,
    values: Vec<Vec<(&'ast syn::Expr, String)>>,
    /// Defaults the field declarations give in attributes, by source as `values`.
    defaults: Vec<Vec<(AttrDefault, String)>>,
    /// The value each free function of the file ends with, by name (a serde
    /// `default = "name"`).
    fn_tails: std::collections::HashMap<String, &'ast syn::Expr>,
    /// The last segment of the type of the `impl` being read.
    impl_owner: Option<String>,
    /// Test code is not read (a test's config is not a default).
    skip_tests: bool,
}

impl Writes<'_> {
    fn new(sources: Vec<Source>, skip_tests: bool) -> Self {
        Writes {
            values: vec![Vec::new(); sources.len()],
            defaults: vec![Vec::new(); sources.len()],
            fn_tails: std::collections::HashMap::new(),
            sources,
            impl_owner: None,
            skip_tests,
        }
    }
}

/// A default a field's declaration gives in an attribute: clap's `default_value_t = 60` /
/// `default_value = "60"`, envconfig's or env_config's `default = 600`, serde's `default =
/// "fn_name"` (that function's value).
#[derive(Debug, Clone)]
struct AttrDefault {
    value: DefaultValue,
    line: usize,
}

#[derive(Debug, Clone)]
enum DefaultValue {
    /// An expression (a literal, or the tail of the serde default function).
    Expr(Box<syn::Expr>),
    /// A string holding a number or a duration (`"600"`, `"30s"`).
    Text(String),
}

/// The defaults `attrs` give a field (see [`AttrDefault`]); `fn_tails` values a serde
/// default function.
fn attr_defaults(
    attrs: &[syn::Attribute],
    fn_tails: &std::collections::HashMap<String, &syn::Expr>,
) -> Vec<AttrDefault> {
    let mut out = Vec::new();
    for a in attrs {
        let serde = a.path().is_ident("serde");
        let line = a.span().start().line;
        // unknown shapes (`with(..)`, a bare flag) end the read of that attribute
        let _ = a.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string);
            if !meta.input.peek(syn::Token![=]) {
                if meta.input.peek(syn::token::Paren) {
                    let _ = meta.parse_nested_meta(|_| Ok(()));
                }
                return Ok(());
            }
            let v: syn::Expr = meta.value()?.parse()?;
            let wanted = matches!(
                key.as_deref(),
                Some("default" | "default_value" | "default_value_t")
            );
            if !wanted {
                return Ok(());
            }
            let text = match &v {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            };
            let value = match (serde, text) {
                // serde: the function named by the string
                (true, Some(f)) => {
                    let name = f.rsplit("::").next().unwrap_or(&f).to_string();
                    fn_tails
                        .get(&name)
                        .map(|e| DefaultValue::Expr(Box::new((*e).clone())))
                }
                (true, None) => None,
                (false, Some(t)) => Some(DefaultValue::Text(t)),
                (false, None) => Some(DefaultValue::Expr(Box::new(v))),
            };
            if let Some(value) = value {
                out.push(AttrDefault { value, line });
            }
            Ok(())
        });
    }
    out
}

/// The value a function's body ends with (its tail expression, not a `return`).
fn fn_tail(f: &syn::ItemFn) -> Option<&syn::Expr> {
    match f.block.stmts.last()? {
        syn::Stmt::Expr(e, None) => Some(e),
        _ => None,
    }
}

fn last_ident(p: &syn::Path) -> Option<String> {
    p.segments.last().map(|s| s.ident.to_string())
}

impl<'ast> Writes<'ast> {
    /// The owner a path names: `Self` inside an `impl`, or its last segment.
    fn owner_of(&self, p: &syn::Path) -> Option<String> {
        if p.is_ident("Self") {
            self.impl_owner.clone()
        } else {
            last_ident(p)
        }
    }

    fn call(
        &mut self,
        callee: &syn::Path,
        args: Vec<&'ast syn::Expr>,
        method: bool,
        at: proc_macro2::Span,
    ) {
        let n = callee.segments.len();
        let Some(name) = last_ident(callee) else {
            return;
        };
        let owner = (n >= 2).then(|| {
            let mut q = callee.clone();
            q.segments.pop();
            q.segments.pop_punct();
            self.owner_of(&q)
        });
        for (k, s) in self.sources.iter().enumerate() {
            let Source::Param {
                name: f,
                owner: o,
                receiver,
                index,
            } = s
            else {
                continue;
            };
            if *f != name {
                continue;
            }
            // `x.f(a)` skips the receiver; `Type::f(x, a)` passes it first
            let at_index = match (method, *receiver) {
                (true, true) => *index,
                (true, false) => continue,
                (false, true) if o.is_some() && n >= 2 => index + 1,
                (false, true) => continue,
                (false, false) => *index,
            };
            let same_owner = method
                || match (o, &owner) {
                    (Some(o), Some(Some(w))) => o == w,
                    (None, None) => true,
                    // a free function called through its module's path
                    (None, Some(_)) => true,
                    _ => false,
                };
            if !same_owner {
                continue;
            }
            if let Some(a) = args.get(at_index) {
                let line = at.start().line;
                let how = if method {
                    format!("passed by `.{name}(..)` on line {line}")
                } else {
                    let path: Vec<String> = callee
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect();
                    format!("passed by `{}(..)` on line {line}", path.join("::"))
                };
                self.values[k].push((a, how));
            }
        }
    }
}

impl<'ast> Visit<'ast> for Writes<'ast> {
    fn visit_file(&mut self, f: &'ast syn::File) {
        // the file's functions first: a struct's serde default may name one declared later
        fn tails<'a>(
            items: &'a [syn::Item],
            out: &mut std::collections::HashMap<String, &'a syn::Expr>,
        ) {
            for i in items {
                match i {
                    syn::Item::Fn(f) => {
                        if let Some(t) = fn_tail(f) {
                            out.insert(f.sig.ident.to_string(), t);
                        }
                    }
                    syn::Item::Mod(m) => {
                        if let Some((_, items)) = &m.content {
                            tails(items, out);
                        }
                    }
                    _ => {}
                }
            }
        }
        let wants_fields = self
            .sources
            .iter()
            .any(|s| matches!(s, Source::Field { .. }));
        if wants_fields {
            tails(&f.items, &mut self.fn_tails);
        }
        visit::visit_file(self, f);
    }

    fn visit_item_struct(&mut self, st: &'ast syn::ItemStruct) {
        let owner = st.ident.to_string();
        for f in &st.fields {
            let Some(id) = &f.ident else { continue };
            for k in 0..self.sources.len() {
                if let Source::Field { owner: o, field } = &self.sources[k]
                    && *o == owner
                    && id == field
                {
                    for d in attr_defaults(&f.attrs, &self.fn_tails) {
                        let how = format!("the default of the field `{field}`, line {}", d.line);
                        self.defaults[k].push((d, how));
                    }
                }
            }
        }
        visit::visit_item_struct(self, st);
    }

    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(im) => &im.attrs,
            _ => return visit::visit_item(self, i),
        };
        if !(self.skip_tests && super::attrs::is_test_attrs(attrs)) {
            visit::visit_item(self, i);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !(self.skip_tests && super::attrs::is_test_attrs(&f.attrs)) {
            visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let saved = self.impl_owner.take();
        if let syn::Type::Path(p) = &*i.self_ty {
            self.impl_owner = last_ident(&p.path);
        }
        visit::visit_item_impl(self, i);
        self.impl_owner = saved;
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func
            && p.qself.is_none()
        {
            self.call(&p.path, c.args.iter().collect(), false, c.span());
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let p = syn::Path::from(m.method.clone());
        self.call(&p, m.args.iter().collect(), true, m.method.span());
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        let owner = self.owner_of(&s.path);
        for f in &s.fields {
            let syn::Member::Named(id) = &f.member else {
                continue;
            };
            for (k, src) in self.sources.iter().enumerate() {
                if let Source::Field { owner: o, field } = src
                    && Some(o) == owner.as_ref()
                    && id == field
                {
                    let line = f.span().start().line;
                    let how = format!("the field `{field}`, set on line {line}");
                    self.values[k].push((&f.expr, how));
                }
            }
        }
        visit::visit_expr_struct(self, s);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let syn::Expr::Field(f) = &*a.left
            && let syn::Member::Named(id) = &f.member
        {
            // `self.f = ..` writes the `impl`'s type; another base could be any type
            let of_self = matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident("self"));
            let owner = self.impl_owner.clone().filter(|_| of_self);
            for (k, src) in self.sources.iter().enumerate() {
                if matches!(src, Source::Field { field, owner: o } if id == field
                    && owner.as_ref().is_none_or(|w| w == o))
                {
                    let line = a.span().start().line;
                    let how = format!("the field `{id}`, set on line {line}");
                    self.values[k].push((&a.right, how));
                }
            }
        }
        visit::visit_expr_assign(self, a);
    }
}
