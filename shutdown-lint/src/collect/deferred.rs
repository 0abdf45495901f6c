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
        /// The number of parameters (receiver not counted).
        arity: usize,
    },
    /// Field `field` of `owner` (the last segment of the `impl`'s type).
    Field { owner: String, field: String },
    /// A const another file declares (`REQUEST_TIMEOUT_SECS`, imported by a `use`), by
    /// name and the path it resolves to.
    Const {
        name: String,
        canon: crate::resolve::Canon,
    },
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
            syn::Expr::Path(p) if p.qself.is_none() && self.foreign_const(&p.path).is_some() => {
                let Some((name, canon)) = self.foreign_const(&p.path) else {
                    return;
                };
                Source::Const { name, canon }
            }
            // `.timeout(connection_timeout())`: a function of another module that takes
            // nothing, valued from its one-expression body like a const (zellij's
            // `remote_attach::config::connection_timeout`)
            syn::Expr::Call(c) if c.args.is_empty() => {
                let syn::Expr::Path(p) = &*c.func else { return };
                let Some((name, canon)) = self.foreign_fn(&p.path) else {
                    return;
                };
                Source::Const { name, canon }
            }
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
                    arity: sig.params.len(),
                }
            }
            syn::Expr::Field(f) => {
                let syn::Member::Named(field) = &f.member else {
                    return;
                };
                // a field of a field (`settings.s3.request_timeout_seconds`): its owner is the
                // type of that field, which the workspace tells (`Settings.s3`, resolved by
                // the engine before the field writes are read)
                let (base, via) = match &*f.base {
                    syn::Expr::Path(base) => (base, None),
                    syn::Expr::Field(inner) => match (&inner.member, &*inner.base) {
                        (syn::Member::Named(mid), syn::Expr::Path(base)) => {
                            (base, Some(mid.to_string()))
                        }
                        _ => return,
                    },
                    _ => return,
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
                    owner: match via {
                        Some(mid) => format!("{owner}.{mid}"),
                        None => owner.clone(),
                    },
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
            Source::Const { .. } => false,
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
                    .filter_map(|(e, how, _)| Some((self.eval_written(e, d.factor)?, how.clone())))
                    .chain(found.defaults[k].iter().filter_map(|(v, how)| {
                        Some((self.eval_default(v, d.factor)?, how.clone()))
                    }))
                    .collect();
            let Some((secs, via)) = known.into_iter().max_by(|a, b| a.0.total_cmp(&b.0)) else {
                for (_, how, read) in &found.values[k] {
                    match read {
                        // a field a constructor fills from its parameter: what its callers
                        // pass
                        Some(Read::Param(key)) => {
                            self.model.open_params.push(crate::model::OpenParam {
                                step: d.step,
                                arg: d.arg,
                                region: d.region,
                                key: crate::model::ParamKey {
                                    unit: d.factor.map(f64::to_bits),
                                    ..key.clone()
                                },
                            });
                        }
                        // a field filled from a field of another type
                        // (`timeout: self.config.download.piece_timeout`): that field's writes
                        Some(Read::Field(f)) => {
                            if let Some(key) = f.key(d.factor) {
                                self.model.open_fields.push(crate::model::OpenField {
                                    step: d.step,
                                    arg: d.arg,
                                    region: d.region,
                                    owner: key.owner,
                                    field: key.field,
                                    factor: key.unit.map(f64::from_bits),
                                    passed: Some(how.clone()),
                                    read_here: false,
                                });
                            }
                        }
                        None => {}
                    }
                }
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

    /// A path naming a const the file does not declare (`REQUEST_TIMEOUT_SECS` brought in by
    /// `use super::{..}`, `crate::http::DEFAULT_TIMEOUT`): its name (an upper-case name,
    /// not a local) and what it resolves to.
    fn foreign_const(&self, p: &syn::Path) -> Option<(String, crate::resolve::Canon)> {
        let name = p.segments.last()?.ident.to_string();
        let const_like = name.bytes().any(|b| b.is_ascii_uppercase())
            && name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if !const_like || self.consts.contains_key(&name) || self.resolver.is_binding(&name) {
            return None;
        }
        match self.resolve(p, true) {
            crate::resolve::Resolution::Path(canon) => Some((name, canon)),
            _ => None,
        }
    }

    /// A function named by `p` (a lowercase name, not a binding) that resolves to a path:
    /// called with no arguments, what it returns may be a const's value (see
    /// [`Self::const_values`]).
    fn foreign_fn(&self, p: &syn::Path) -> Option<(String, crate::resolve::Canon)> {
        let name = p.segments.last()?.ident.to_string();
        let fn_like = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
        if !fn_like || self.resolver.is_binding(&name) {
            return None;
        }
        match self.resolve(p, true) {
            crate::resolve::Resolution::Path(canon) => Some((name, canon)),
            _ => None,
        }
    }

    /// The consts `file` (this collector's file, as written) declares among `wanted`
    /// (names), with their paths from the crate root (`crate::module::NAME`).
    pub(super) fn const_values(
        &self,
        file: &syn::File,
        wanted: &[String],
    ) -> Vec<crate::model::ConstDecl> {
        let mut out = Vec::new();
        let mut found = Vec::new();
        fn walk<'a>(
            items: &'a [syn::Item],
            path: &mut Vec<String>,
            out: &mut Vec<(Vec<String>, &'a syn::ItemConst)>,
            fns: &mut Vec<(Vec<String>, &'a syn::ItemFn)>,
        ) {
            for i in items {
                match i {
                    syn::Item::Const(c) => out.push((path.clone(), c)),
                    syn::Item::Fn(f) if f.sig.inputs.is_empty() => fns.push((path.clone(), f)),
                    syn::Item::Mod(m) => {
                        if let Some((_, items)) = &m.content {
                            path.push(m.ident.to_string());
                            walk(items, path, out, fns);
                            path.pop();
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut fns = Vec::new();
        walk(&file.items, &mut Vec::new(), &mut found, &mut fns);
        // each wanted declaration: its module, name, value (a duration, or a number) and
        // whether it is a function
        let mut decls = Vec::new();
        // `fn connection_timeout() -> Duration { Duration::from_secs(SECS) }`: one
        // expression of a known value
        for (module, f) in fns {
            if !wanted.contains(&f.sig.ident.to_string()) {
                continue;
            }
            let value = match f.block.stmts.as_slice() {
                [syn::Stmt::Expr(e, None)] => {
                    match (self.eval_duration(e, 0), self.eval_number(e, 0)) {
                        (Some(d), _) => Some((true, d)),
                        (None, Some(n)) => Some((false, n)),
                        _ => None,
                    }
                }
                _ => None,
            };
            decls.push((module, &f.sig.ident, value, true));
        }
        for (module, c) in found {
            let value = match self.consts.get(&c.ident.to_string()) {
                Some(super::state::BindVal::Duration(d)) => Some((true, *d)),
                Some(super::state::BindVal::Num(n)) => Some((false, *n)),
                _ => None,
            };
            decls.push((module, &c.ident, value, false));
        }
        for (module, ident, value, function) in decls {
            let name = ident.to_string();
            let Some((duration, value)) = value.filter(|_| wanted.contains(&name)) else {
                continue;
            };
            let mut path = self.opts.file_module.clone();
            path.extend(module);
            path.push(name.clone());
            out.push(crate::model::ConstDecl {
                name,
                path,
                duration,
                value,
                line: ident.span().start().line,
                function,
            });
        }
        out
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
        match &d.source {
            Source::Const { name, canon } => {
                self.model.open_consts.push(crate::model::OpenConst {
                    step: d.step,
                    arg: d.arg,
                    region: d.region,
                    name: name.clone(),
                    canon: canon.clone(),
                    factor: d.factor,
                });
            }
            Source::Field { owner, field } => {
                self.model.open_fields.push(crate::model::OpenField {
                    step: d.step,
                    arg: d.arg,
                    region: d.region,
                    owner: owner.clone(),
                    field: field.clone(),
                    factor: d.factor,
                    passed: None,
                    read_here: true,
                });
            }
            Source::Param {
                name,
                owner,
                receiver,
                index,
                arity,
            } => {
                self.model.open_params.push(crate::model::OpenParam {
                    step: d.step,
                    arg: d.arg,
                    region: d.region,
                    key: crate::model::ParamKey {
                        name: name.clone(),
                        owner: owner.clone(),
                        receiver: *receiver,
                        index: *index,
                        arity: *arity,
                        unit: d.factor.map(f64::to_bits),
                    },
                });
            }
        }
    }

    /// What `file` (this collector's file, as written) passes to the `wanted` parameters
    /// of functions declared in other files: `(index into wanted, what, line, how)` for
    /// each call that passes a known duration or number, or a field of a typed binding
    /// (`Client::new(.., settings.network_timeout, ..)` with `settings: &Settings`).
    pub(super) fn param_args(
        &self,
        file: &syn::File,
        wanted: &[crate::model::ParamKey],
    ) -> Vec<(usize, crate::model::PassedArg, usize, String)> {
        use crate::model::PassedArg;
        let mut found = Writes::new(
            wanted
                .iter()
                .map(|w| Source::Param {
                    name: w.name.clone(),
                    owner: w.owner.clone(),
                    receiver: w.receiver,
                    index: w.index,
                    arity: w.arity,
                })
                .collect(),
            !self.opts.include_tests,
        );
        found.visit_file(file);
        let mut out = Vec::new();
        for (k, w) in wanted.iter().enumerate() {
            for (e, how, field) in &found.values[k] {
                let line = e.span().start().line;
                let passed = if let Some(secs) = self.eval_written(e, w.factor()) {
                    PassedArg::Seconds(secs)
                } else {
                    match field {
                        Some(Read::Field(f)) => match f.key(w.factor()) {
                            Some(key) => PassedArg::Field(key),
                            None => continue,
                        },
                        // the caller's own parameter, passed on: its callers' values
                        Some(Read::Param(p)) => PassedArg::Param(crate::model::ParamKey {
                            unit: w.unit,
                            ..p.clone()
                        }),
                        None => continue,
                    }
                };
                out.push((k, passed, line, how.clone()));
            }
        }
        out
    }

    /// The known durations `file` (this collector's file, as written) writes to the
    /// `wanted` fields (`(owner, field, factor)`: `WebhookSettings { timeout: .. }`,
    /// `x.timeout = ..` in an `impl` of the owner; with a factor, a number of its units),
    /// and the fields of other types it fills them from (`GetRequest { timeout:
    /// self.config.download.piece_timeout }`: the owner `Piece.config.download`, its middle
    /// fields' types not known here).
    pub(super) fn field_writes(
        &self,
        file: &syn::File,
        wanted: &[crate::model::FieldKey],
    ) -> crate::model::FieldWrites {
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
        let mut out = crate::model::FieldWrites::default();
        for (k, w) in wanted.iter().enumerate() {
            for (e, _, read) in &found.values[k] {
                let line = e.span().start().line;
                if let Some(secs) = self.eval_written(e, w.factor()) {
                    out.values.push((k, secs, line));
                } else if let Some(Read::Field(f)) = read
                    && let Some(key) = f.key(w.factor())
                {
                    out.forwards.push((k, key, line));
                } else if let Some(name) = getter_call(e) {
                    out.getters.push((k, name, line));
                }
            }
            for (v, _) in &found.defaults[k] {
                if let Some(secs) = self.eval_default(v, w.factor()) {
                    out.values.push((k, secs, v.line));
                }
            }
        }
        out
    }
}

impl Collector<'_, '_> {
    /// What the getters of `file` (this collector's file, as written) named in `wanted`
    /// return, `(index into wanted, seconds, line)`: a method taking only `&self` whose
    /// body's value is a known duration, or a number of the wanted factor's units
    /// (`fn get_timeout(&self) -> u64 { self.timeout.unwrap_or(60) }`: 60 s).
    pub(super) fn getter_values(
        &self,
        file: &syn::File,
        wanted: &[(String, Option<f64>)],
    ) -> Vec<(usize, f64, usize)> {
        struct Getters<'ast>(Vec<(String, &'ast syn::Expr)>);
        impl<'ast> Visit<'ast> for Getters<'ast> {
            fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
                let only_self = f.sig.inputs.len() == 1
                    && matches!(f.sig.inputs.first(),
                        Some(syn::FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none());
                if only_self
                    && let Some(syn::Stmt::Expr(tail, None)) = f.block.stmts.last()
                    && f.block.stmts.len() == 1
                {
                    self.0.push((f.sig.ident.to_string(), tail));
                }
            }
        }
        let mut getters = Getters(Vec::new());
        getters.visit_file(file);
        let mut out = Vec::new();
        for (k, (name, factor)) in wanted.iter().enumerate() {
            for (n, tail) in &getters.0 {
                if n == name
                    && let Some(secs) = self.eval_written(tail, *factor)
                {
                    out.push((k, secs, tail.span().start().line));
                }
            }
        }
        out
    }
}

/// The method a written value calls with no arguments, when it may be a getter
/// (`config.get_timeout()`, `(cfg).timeout()`): not a conversion or a clone.
fn getter_call(e: &syn::Expr) -> Option<String> {
    let syn::Expr::MethodCall(m) = super::flow::strip(e) else {
        return None;
    };
    let name = m.method.to_string();
    let conversion = matches!(
        name.as_str(),
        "clone"
            | "into"
            | "to_owned"
            | "unwrap"
            | "unwrap_or_default"
            | "as_secs"
            | "as_millis"
            | "to_std"
            | "default"
            | "len"
            | "is_some"
            | "is_none"
    );
    (m.args.is_empty() && m.turbofish.is_none() && !conversion).then_some(name)
}

/// The values the file writes to each source: the expression, and where and how it is
/// passed or written (for the message).
struct Writes<'ast> {
    sources: Vec<Source>,
    /// By source: each value written or passed, how (for the message), and the field of a
    /// typed binding it reads, if it does.
    values: Vec<Vec<(&'ast syn::Expr, String, Option<Read>)>>,
    /// Defaults the field declarations give in attributes, by source as `values`.
    defaults: Vec<Vec<(AttrDefault, String)>>,
    /// The value each free function of the file ends with, by name (a serde
    /// `default = "name"`).
    fn_tails: std::collections::HashMap<String, &'ast syn::Expr>,
    /// The last segment of the type of the `impl` being read.
    impl_owner: Option<String>,
    /// Test code is not read (a test's config is not a default).
    skip_tests: bool,
    /// The parameters of the function being read whose type is a named one (`settings:
    /// &Settings`): name and the type's last segment.
    typed_params: Vec<(String, String)>,
    /// The function being read: name, whether it takes `self`, plain parameter names.
    cur_fn: Option<(String, bool, Vec<Option<String>>)>,
    /// Names a `match` arm binds to fields of a struct or enum variant (`Command::
    /// Healthcheck { timeout } => ..`): name, the owner's last segment, the field.
    pattern_fields: Vec<(String, String, String)>,
}

/// What a written or passed value reads that another file or call may value.
#[derive(Debug, Clone)]
enum Read {
    /// A field of a binding of a known type.
    Field(FieldRead),
    /// A parameter of the function writing it (`Self { timeout, .. }` in `fn new(..,
    /// timeout: u64)`): the key without its unit.
    Param(crate::model::ParamKey),
}

/// What [`Writes::enter_fn`] replaced: the typed parameters and the function.
type SavedFn = (
    Vec<(String, String)>,
    Option<(String, bool, Vec<Option<String>>)>,
);

/// A value that reads a field of a binding of a known type, possibly times a number:
/// `settings.network_timeout * 10` (`settings: &Settings`).
#[derive(Debug, Clone)]
struct FieldRead {
    owner: String,
    field: String,
    times: f64,
}

impl FieldRead {
    /// The field read, as a timeout of `factor` seconds per unit (`None`: a duration)
    /// reads it; `None` for a duration field times a number, which is not followed.
    fn key(&self, factor: Option<f64>) -> Option<crate::model::FieldKey> {
        let unit = match factor {
            Some(u) => Some((u * self.times).to_bits()),
            None if self.times == 1.0 => None,
            None => return None,
        };
        Some(crate::model::FieldKey {
            owner: self.owner.clone(),
            field: self.field.clone(),
            unit,
        })
    }
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
            typed_params: Vec::new(),
            cur_fn: None,
            pattern_fields: Vec::new(),
        }
    }

    /// Whether the item `attrs` are on is not read: test code when tests are skipped,
    /// code built only for WebAssembly always.
    fn skipped(&self, attrs: &[syn::Attribute]) -> bool {
        (self.skip_tests && super::attrs::is_test_attrs(attrs))
            || crate::targetcode::is_wasm_only_attrs(attrs)
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

/// A number literal's value (`10`, `2.5`).
fn number_lit(e: &syn::Expr) -> Option<f64> {
    match e {
        syn::Expr::Lit(l) => super::eval::lit_number(&l.lit),
        _ => None,
    }
}

/// The last segment of a named type, through references and one-parameter smart pointers
/// (`&Settings`, `Arc<Settings>`, `&mut config::Settings`: `Settings`).
pub(crate) fn named_type(t: &syn::Type) -> Option<String> {
    match t {
        syn::Type::Reference(r) => named_type(&r.elem),
        syn::Type::Paren(p) => named_type(&p.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            if matches!(last.ident.to_string().as_str(), "Arc" | "Rc" | "Box")
                && let syn::PathArguments::AngleBracketed(a) = &last.arguments
                && let Some(syn::GenericArgument::Type(inner)) = a.args.first()
            {
                return named_type(inner);
            }
            Some(last.ident.to_string())
        }
        _ => None,
    }
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
    /// The field of a typed binding `e` reads (`settings.timeout`, `self.timeout` in an
    /// `impl`, `(cfg.timeout_secs * 10)`, through `&`, `.clone()`, `as` and `.into()`).
    fn field_read(&self, e: &syn::Expr) -> Option<FieldRead> {
        let mut e = e;
        let mut times = 1.0;
        loop {
            e = match e {
                syn::Expr::Paren(p) => &p.expr,
                syn::Expr::Reference(r) => &r.expr,
                syn::Expr::Cast(c) => &c.expr,
                syn::Expr::MethodCall(m)
                    if m.args.is_empty() && (m.method == "clone" || m.method == "into") =>
                {
                    &m.receiver
                }
                syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_)) => {
                    let (n, other) = match (number_lit(&b.left), number_lit(&b.right)) {
                        (_, Some(n)) => (n, &*b.left),
                        (Some(n), _) => (n, &*b.right),
                        _ => return None,
                    };
                    times *= n;
                    other
                }
                _ => break,
            };
        }
        let syn::Expr::Field(f) = e else { return None };
        let syn::Member::Named(field) = &f.member else {
            return None;
        };
        // the fields in between (`self.config.download.piece_timeout`): the owner is
        // `Piece.config.download`, each middle field's type read later from its struct
        let mut middle = Vec::new();
        let mut base = &*f.base;
        while let syn::Expr::Field(inner) = base {
            let syn::Member::Named(m) = &inner.member else {
                return None;
            };
            middle.push(m.to_string());
            base = &inner.base;
        }
        let syn::Expr::Path(base) = base else {
            return None;
        };
        let base = base.path.get_ident()?;
        let mut owner = if base == "self" {
            self.impl_owner.clone()?
        } else {
            let name = base.to_string();
            self.typed_params
                .iter()
                .rev()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| t.clone())?
        };
        for m in middle.iter().rev() {
            owner.push('.');
            owner.push_str(m);
        }
        Some(FieldRead {
            owner,
            field: field.to_string(),
            times,
        })
    }

    /// What another file or call may value in `e`: a field of a typed binding, else a
    /// parameter of the function being read.
    fn value_read(&self, e: &syn::Expr) -> Option<Read> {
        self.field_read(e)
            .or_else(|| self.pattern_read(e))
            .map(Read::Field)
            .or_else(|| self.param_read(e))
    }

    /// The field of a struct or enum variant a `match` arm bound the name `e` to
    /// (`timeout`, `*timeout`, `timeout.clone()` in `Command::Healthcheck { timeout } => ..`).
    fn pattern_read(&self, e: &syn::Expr) -> Option<FieldRead> {
        let mut e = e;
        loop {
            e = match e {
                syn::Expr::Paren(p) => &p.expr,
                syn::Expr::Reference(r) => &r.expr,
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &u.expr,
                syn::Expr::MethodCall(m)
                    if m.args.is_empty() && (m.method == "clone" || m.method == "into") =>
                {
                    &m.receiver
                }
                _ => break,
            };
        }
        let syn::Expr::Path(p) = e else { return None };
        let name = p.path.get_ident()?.to_string();
        let (_, owner, field) = self
            .pattern_fields
            .iter()
            .rev()
            .find(|(n, _, _)| *n == name)?;
        Some(FieldRead {
            owner: owner.clone(),
            field: field.clone(),
            times: 1.0,
        })
    }

    /// The parameter of the function being read that `e` names (`timeout`, `timeout.into()`).
    fn param_read(&self, e: &syn::Expr) -> Option<Read> {
        let mut e = e;
        while let syn::Expr::MethodCall(m) = e
            && m.args.is_empty()
            && (m.method == "into" || m.method == "clone")
        {
            e = &m.receiver;
        }
        let syn::Expr::Path(p) = e else { return None };
        let name = p.path.get_ident()?.to_string();
        let (f, receiver, params) = self.cur_fn.as_ref()?;
        let index = params.iter().position(|p| p.as_deref() == Some(&*name))?;
        Some(Read::Param(crate::model::ParamKey {
            name: f.clone(),
            owner: self.impl_owner.clone(),
            receiver: *receiver,
            index,
            arity: params.len(),
            unit: None,
        }))
    }

    /// Records the typed parameters of a function about to be read; returns the ones of
    /// the function around it, to restore.
    fn enter_fn(&mut self, sig: &syn::Signature) -> SavedFn {
        // by position as the walk's `FnSig` has them (the receiver not counted)
        let params: Vec<Option<String>> = sig
            .inputs
            .iter()
            .filter(|i| matches!(i, syn::FnArg::Typed(_)))
            .map(super::attrs::plain_param_name)
            .collect();
        let typed = sig
            .inputs
            .iter()
            .filter_map(|i| match i {
                syn::FnArg::Typed(t) => {
                    Some((super::attrs::plain_param_name(i)?, named_type(&t.ty)?))
                }
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let cur = Some((sig.ident.to_string(), sig.receiver().is_some(), params));
        (
            std::mem::replace(&mut self.typed_params, typed),
            std::mem::replace(&mut self.cur_fn, cur),
        )
    }

    fn leave_fn(&mut self, saved: SavedFn) {
        (self.typed_params, self.cur_fn) = saved;
    }

    /// The defaults the declarations of `owner`'s wanted `fields` give in attributes.
    fn field_defaults(&mut self, owner: &str, fields: &syn::Fields) {
        for f in fields {
            let Some(id) = &f.ident else { continue };
            for k in 0..self.sources.len() {
                if let Source::Field { owner: o, field } = &self.sources[k]
                    && o == owner
                    && id == field
                {
                    for d in attr_defaults(&f.attrs, &self.fn_tails) {
                        let how = format!("the default of the field `{field}`, line {}", d.line);
                        self.defaults[k].push((d, how));
                    }
                }
            }
        }
    }

    /// `.set_default("network_timeout", 30)` (the `config` crate's builder, also
    /// `set_override`): a default of every wanted field of that name, whatever struct the
    /// configuration is read into (a dotted key names a nested struct's field).
    fn config_default(&mut self, m: &'ast syn::ExprMethodCall) {
        if !(m.method == "set_default" || m.method == "set_override") || m.args.len() != 2 {
            return;
        }
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(key),
            ..
        }) = &m.args[0]
        else {
            return;
        };
        let key = key.value();
        let name = key.rsplit('.').next().unwrap_or(&key);
        let value = match &m.args[1] {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(t),
                ..
            }) => DefaultValue::Text(t.value()),
            v => DefaultValue::Expr(Box::new(v.clone())),
        };
        let line = m.method.span().start().line;
        for k in 0..self.sources.len() {
            if matches!(&self.sources[k], Source::Field { field, .. } if field == name) {
                let how = format!("`.{}(\"{key}\", ..)` on line {line}", m.method);
                let d = AttrDefault {
                    value: value.clone(),
                    line,
                };
                self.defaults[k].push((d, how));
            }
        }
    }

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
                arity,
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
            // a call passing another number of arguments is of another function
            let ufcs = usize::from(at_index != *index);
            if !same_owner || args.len() != arity + ufcs {
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
                let read = self.value_read(a);
                self.values[k].push((a, how, read));
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
        self.field_defaults(&owner, &st.fields);
        visit::visit_item_struct(self, st);
    }

    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(im) => &im.attrs,
            _ => return visit::visit_item(self, i),
        };
        if !self.skipped(attrs) {
            visit::visit_item(self, i);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !self.skipped(&f.attrs) {
            let saved = self.enter_fn(&f.sig);
            visit::visit_impl_item_fn(self, f);
            self.leave_fn(saved);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let saved = self.enter_fn(&f.sig);
        visit::visit_item_fn(self, f);
        self.leave_fn(saved);
    }

    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        if self.skipped(&a.attrs) {
            return;
        }
        let depth = self.pattern_fields.len();
        if let syn::Pat::Struct(ps) = &a.pat
            && let Some(owner) = last_ident(&ps.path)
        {
            for f in &ps.fields {
                let (syn::Member::Named(field), syn::Pat::Ident(bound)) = (&f.member, &*f.pat)
                else {
                    continue;
                };
                self.pattern_fields.push((
                    bound.ident.to_string(),
                    owner.clone(),
                    field.to_string(),
                ));
            }
        }
        visit::visit_arm(self, a);
        self.pattern_fields.truncate(depth);
    }

    fn visit_item_enum(&mut self, en: &'ast syn::ItemEnum) {
        // a variant's named fields are written like a struct's (clap's subcommands:
        // `Healthcheck { #[arg(default_value_t = 30)] timeout: u64 }`)
        for v in &en.variants {
            let owner = v.ident.to_string();
            self.field_defaults(&owner, &v.fields);
        }
        visit::visit_item_enum(self, en);
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
        self.config_default(m);
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
                    let read = self.value_read(&f.expr);
                    self.values[k].push((&f.expr, how, read));
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
                    let read = self.value_read(&a.right);
                    self.values[k].push((&a.right, how, read));
                }
            }
        }
        visit::visit_expr_assign(self, a);
    }
}
