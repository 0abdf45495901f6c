//! The one walk over a file's syntax tree that builds its [`FileModel`]: scopes are pushed
//! and popped as the walk enters modules, functions and blocks, so every path is resolved
//! where it is written ([`Resolver`]); bindings remember the chain they were bound to;
//! bodies of common macros are parsed ([`crate::macros`]); test code is skipped unless
//! asked for.

use crate::finding::Region;
use crate::macros::{self, MacroBody};
use crate::model::{ArgValue, Chain, ChainUse, Ctx, FileModel, ModDecl, PathRef, Step, Usage};
use crate::resolve::known;
use crate::resolve::scope::{BlockScope, ModuleTree};
use crate::resolve::{Aliases, Canon, Resolution, Resolver};
use crate::source::LineIndex;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// Deepest expression nesting the walk descends into; deeper parts are counted in
/// [`FileModel::too_deep`] and skipped.
pub const MAX_EXPR_DEPTH: usize = 1500;

/// Inputs of the walk that do not come from the file.
#[derive(Debug, Clone)]
pub struct CollectOptions {
    /// Module path of the file from its crate root, e.g. `["app", "net"]`.
    pub file_module: Canon,
    /// Analyse test code too.
    pub include_tests: bool,
    /// Prefix rewrites (facades and `[reexports]`).
    pub aliases: Arc<Aliases>,
    /// Paths worth recording and following through glob imports.
    pub interesting: Arc<HashSet<Canon>>,
    /// The byte scan's words: a macro body containing none of them is not parsed.
    pub needles: Arc<Vec<memchr::memmem::Finder<'static>>>,
}

/// Builds the model of a parsed file.
pub fn collect(file: &syn::File, index: &LineIndex<'_>, opts: &CollectOptions) -> FileModel {
    let tree = ModuleTree::build(&file.items, opts.file_module.clone());
    let mut finder = ConstFinder { out: Vec::new() };
    for item in &file.items {
        finder.visit_item(item);
    }
    let mut c = Collector::new(tree, finder.out, index, opts);
    c.model.has_main = file.items.iter().any(is_main);
    if c.skip_test(&file.attrs) {
        // `#![cfg(test)]`: the whole file is test code
        return c.model;
    }
    for item in &file.items {
        c.visit_item(item);
    }
    c.model
}

/// Files larger than this are parsed item by item, twice (names first, then the walk), so
/// only one item's syntax tree is alive at a time.
pub const STREAMING_THRESHOLD: usize = 1 << 20;

/// Like [`collect`], for a large file: parses `text` twice, one item at a time, instead of
/// keeping the whole tree. Returns the parse error if the text is not a Rust file.
pub fn collect_streaming(
    text: &str,
    index: &LineIndex<'_>,
    opts: &CollectOptions,
) -> syn::Result<FileModel> {
    let mut tree = ModuleTree::new(opts.file_module.clone());
    let mut finder = ConstFinder { out: Vec::new() };
    let mut has_main = false;
    for_each_item(text, |item, len| {
        tree.add_items(std::slice::from_ref(&item));
        finder.visit_item(&item);
        has_main |= is_main(&item);
        forget_if_deep(item, len);
    })?;
    let mut c = Collector::new(tree, finder.out, index, opts);
    c.model.has_main = has_main;
    for_each_item(text, |item, _| {
        let before = c.model.too_deep;
        c.visit_item(&item);
        if c.model.too_deep > before {
            std::mem::forget(item);
        }
    })?;
    Ok(c.model)
}

fn is_main(item: &syn::Item) -> bool {
    matches!(item, syn::Item::Fn(f) if f.sig.ident == "main")
}

/// Drops an item unless a quick look says it may be deep (then it is leaked: dropping a
/// very deep tree recurses as deep as it is).
fn forget_if_deep(item: syn::Item, len: usize) {
    if len < 64 * 1024 {
        return;
    }
    let mut probe = DepthProbe {
        depth: 0,
        deep: false,
    };
    probe.visit_item(&item);
    if probe.deep {
        std::mem::forget(item);
    }
}

struct DepthProbe {
    depth: usize,
    deep: bool,
}

impl<'ast> Visit<'ast> for DepthProbe {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if self.deep || self.depth >= MAX_EXPR_DEPTH {
            self.deep = true;
            return;
        }
        self.depth += 1;
        visit::visit_expr(self, e);
        self.depth -= 1;
    }
}

/// Parses the items of a file one at a time; `f` gets each item and its length in bytes.
fn for_each_item(text: &str, mut f: impl FnMut(syn::Item, usize)) -> syn::Result<()> {
    use syn::parse::Parser;
    let parser = |input: syn::parse::ParseStream<'_>| -> syn::Result<()> {
        input.call(syn::Attribute::parse_inner)?;
        while !input.is_empty() {
            let start = input.span().byte_range().start;
            let item: syn::Item = input.parse()?;
            let end = if input.is_empty() {
                text.len()
            } else {
                input.span().byte_range().start
            };
            f(item, end.saturating_sub(start));
        }
        Ok(())
    };
    parser.parse_str(text)
}

/// The value a binding was bound to.
#[derive(Debug, Clone)]
enum BindVal {
    Chain(Chain),
    Duration(f64),
    Num(f64),
}

struct Collector<'a, 'i> {
    index: &'a LineIndex<'i>,
    opts: &'a CollectOptions,
    resolver: Resolver,
    model: FileModel,
    ctx: Ctx,
    item_stack: Vec<String>,
    /// binding name -> value, innermost last (shadowing = later entry wins); entries carry
    /// the block depth so they are dropped with their block.
    values: Vec<(String, usize, Option<BindVal>)>,
    pending: Usage,
    depth: usize,
    /// Numeric and duration consts of the file, by name.
    consts: HashMap<String, BindVal>,
    mod_stack: Vec<String>,
    /// Number of block scopes pushed in the current item (bindings carry it).
    resolver_blocks: usize,
    /// Some configured path is written `crate::..` (see [`Collector::is_interesting`]).
    crate_relative: bool,
}

/// `#[cfg(..)]` predicate text, e.g. `windows`, `test`, `all(test, unix)`.
fn cfg_text(attr: &syn::Attribute) -> Option<String> {
    if !attr.path().is_ident("cfg") {
        return None;
    }
    match &attr.meta {
        syn::Meta::List(l) => Some(l.tokens.to_string()),
        _ => None,
    }
}

fn is_test_attrs(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        if let Some(t) = cfg_text(a) {
            let words: Vec<&str> = t
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .collect();
            return words.contains(&"test") && !words.contains(&"not");
        }
        let last = a
            .path()
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        matches!(
            last.as_str(),
            "test" | "rstest" | "test_case" | "quickcheck" | "bench"
        )
    })
}

fn is_windows_cfg_text(t: &str) -> bool {
    let t: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    t == "windows"
        || t == "target_os=\"windows\""
        || t == "target_family=\"windows\""
        || t == "not(unix)"
        || (t.starts_with("all(") && (t.contains("(windows") || t.contains(",windows")))
}

fn is_windows_only(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| cfg_text(a).is_some_and(|t| is_windows_cfg_text(&t)))
}

fn path_segs(p: &syn::Path) -> Vec<String> {
    p.segments.iter().map(|s| s.ident.to_string()).collect()
}

fn pat_idents(p: &syn::Pat, out: &mut Vec<String>) {
    match p {
        syn::Pat::Ident(i) => {
            out.push(i.ident.to_string());
            if let Some((_, sub)) = &i.subpat {
                pat_idents(sub, out);
            }
        }
        syn::Pat::Or(o) => o.cases.iter().for_each(|c| pat_idents(c, out)),
        syn::Pat::Paren(x) => pat_idents(&x.pat, out),
        syn::Pat::Reference(r) => pat_idents(&r.pat, out),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|c| pat_idents(c, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| pat_idents(&f.pat, out)),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|c| pat_idents(c, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|c| pat_idents(c, out)),
        syn::Pat::Type(t) => pat_idents(&t.pat, out),
        _ => {}
    }
}

impl<'a, 'i> Collector<'a, 'i> {
    fn region(&self, span: proc_macro2::Span) -> Region {
        self.index.span_region(span)
    }

    fn item_path(&self) -> String {
        self.item_stack.join("::")
    }

    fn ctx(&self) -> Ctx {
        Ctx {
            item: self.item_path(),
            ..self.ctx.clone()
        }
    }

    fn resolve(&self, p: &syn::Path, value: bool) -> Resolution {
        self.resolver
            .resolve(p.leading_colon.is_some(), &path_segs(p), value)
    }

    fn skip_test(&mut self, attrs: &[syn::Attribute]) -> bool {
        if !self.opts.include_tests && is_test_attrs(attrs) {
            self.model.test_items_skipped += 1;
            return true;
        }
        false
    }

    // ---- scopes and bindings -------------------------------------------------------------

    fn push_block_scope(&mut self, stmts: &[syn::Stmt]) {
        self.resolver.push_block(BlockScope::collect(stmts));
    }

    fn bind_pat(&mut self, pat: &syn::Pat, val: Option<BindVal>) {
        let mut names = Vec::new();
        pat_idents(pat, &mut names);
        let single = matches!(pat, syn::Pat::Ident(_))
            || matches!(pat, syn::Pat::Type(t) if matches!(&*t.pat, syn::Pat::Ident(_)));
        for n in names {
            self.resolver.bind(n.clone());
            let v = if single { val.clone() } else { None };
            self.values.push((n, self.resolver_blocks, v));
        }
    }

    /// The known value of a single-segment name: a local binding in scope shadows a const of
    /// the file.
    fn value_of(&self, name: &str) -> Option<&BindVal> {
        if self.resolver.is_binding(name) {
            self.binding_val(name)
        } else {
            self.consts.get(name)
        }
    }

    fn binding_val(&self, name: &str) -> Option<&BindVal> {
        self.values
            .iter()
            .rev()
            .find(|(n, _, _)| n == name)
            .and_then(|(_, _, v)| v.as_ref())
    }

    // ---- evaluation of arguments ---------------------------------------------------------

    fn eval_number(&self, e: &syn::Expr, depth: usize) -> Option<f64> {
        if depth > 16 {
            return None;
        }
        match e {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => i.base10_parse::<u128>().ok().map(|v| v as f64),
                syn::Lit::Float(f) => f.base10_parse::<f64>().ok(),
                _ => None,
            },
            syn::Expr::Paren(p) => self.eval_number(&p.expr, depth + 1),
            syn::Expr::Group(g) => self.eval_number(&g.expr, depth + 1),
            syn::Expr::Cast(c) => self.eval_number(&c.expr, depth + 1),
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
            _ => None,
        }
    }

    fn eval_duration(&self, e: &syn::Expr, depth: usize) -> Option<f64> {
        if depth > 16 {
            return None;
        }
        match e {
            syn::Expr::Paren(p) => self.eval_duration(&p.expr, depth + 1),
            syn::Expr::Group(g) => self.eval_duration(&g.expr, depth + 1),
            syn::Expr::Reference(r) => self.eval_duration(&r.expr, depth + 1),
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
                let factor = known::DURATION_CTORS.iter().find(|(n, _)| *n == s)?.1;
                let n = self.eval_number(c.args.first()?, depth + 1)?;
                Some(n * factor)
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

    fn eval_arg(&self, e: &syn::Expr) -> ArgValue {
        if let Some(d) = self.eval_duration(e, 0) {
            return ArgValue::Duration(d, self.region(e.span()));
        }
        if let syn::Expr::Path(p) = e
            && p.path.is_ident("None")
        {
            return ArgValue::NoneLit;
        }
        match self.eval_number(e, 0) {
            Some(n) => ArgValue::Num(n),
            None => ArgValue::Other,
        }
    }

    fn new(
        tree: ModuleTree,
        consts: Vec<(String, syn::Expr)>,
        index: &'a LineIndex<'i>,
        opts: &'a CollectOptions,
    ) -> Self {
        let resolver = Resolver::new(
            Arc::new(tree),
            opts.aliases.clone(),
            opts.interesting.clone(),
        );
        let mut c = Collector {
            index,
            opts,
            resolver,
            model: FileModel::default(),
            ctx: Ctx::default(),
            item_stack: Vec::new(),
            values: Vec::new(),
            pending: Usage::Kept,
            depth: 0,
            consts: HashMap::new(),
            mod_stack: Vec::new(),
            resolver_blocks: 0,
            crate_relative: opts.interesting.contains(&["crate".to_string()][..]),
        };
        c.collect_consts(&consts);
        c
    }

    fn collect_consts(&mut self, consts: &[(String, syn::Expr)]) {
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

    // ---- chains ----------------------------------------------------------------------------

    /// Visits a call / method-call / `?` / `.await` expression as one chain and records it.
    /// Returns the chain (for `let` bindings).
    fn visit_chain(&mut self, e: &syn::Expr, usage: Usage) -> Option<Chain> {
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
    fn is_interesting(&self, path: &[String]) -> bool {
        let set = &self.opts.interesting;
        set.contains(path)
            || (self.crate_relative && path.len() > 1 && {
                let mut p = Vec::with_capacity(path.len());
                p.push("crate".to_string());
                p.extend_from_slice(&path[1..]);
                set.contains(&p)
            })
    }

    fn record_ref(&mut self, path: Canon, span: proc_macro2::Span) {
        if self.opts.interesting.contains(&path) {
            let region = self.region(span);
            self.model.refs.push(PathRef {
                path,
                region,
                ctx: self.ctx(),
            });
        }
    }

    // ---- functions ---------------------------------------------------------------------

    fn visit_fn(
        &mut self,
        attrs: &[syn::Attribute],
        sig: &syn::Signature,
        block: Option<&syn::Block>,
    ) {
        if self.skip_test(attrs) {
            return;
        }
        let saved_ctx = self.ctx.clone();
        if is_windows_only(attrs) {
            self.ctx.windows_only = true;
        }
        let mut drainable = false;
        for a in attrs {
            let res = self.resolve(a.path(), false);
            if let Resolution::Path(p) = res {
                let s = p.join("::");
                if known::DRAINABLE_ATTRS.contains(&s.as_str())
                    || p.last().is_some_and(|l| l == "drainable")
                {
                    drainable = true;
                }
                let span = a.path().span();
                self.record_ref(p, span);
            }
        }
        if drainable {
            self.model.drainable_fns += 1;
        }
        self.ctx.in_drainable = drainable;
        self.item_stack.push(sig.ident.to_string());
        self.resolver.push_item_boundary();
        self.resolver_blocks += 1;
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                let val = self.runtime_param(&t.ty).map(BindVal::Chain);
                self.bind_pat(&t.pat, val);
            }
        }
        if let Some(block) = block {
            self.visit_block(block);
        }
        self.resolver_blocks -= 1;
        self.pop_scope_raw();
        self.item_stack.pop();
        self.ctx = saved_ctx;
    }

    /// A parameter typed `Handle`, `&Handle`, `Runtime` or `&Runtime` (tokio's) is a
    /// spawner: its `.spawn*(..)` calls are raw spawns, as on `Handle::current()`.
    fn runtime_param(&self, ty: &syn::Type) -> Option<Chain> {
        let mut ty = ty;
        loop {
            match ty {
                syn::Type::Reference(r) => ty = &r.elem,
                syn::Type::Paren(p) => ty = &p.elem,
                syn::Type::Group(g) => ty = &g.elem,
                _ => break,
            }
        }
        let syn::Type::Path(p) = ty else { return None };
        let Resolution::Path(canon) = self.resolve(&p.path, false) else {
            return None;
        };
        let root = match canon.join("::").as_str() {
            "tokio::runtime::Handle" => "tokio::runtime::Handle::current",
            "tokio::runtime::Runtime" => "tokio::runtime::Runtime::new",
            _ => return None,
        };
        Some(Chain {
            root: crate::resolve::split_path(root),
            root_region: self.region(p.path.span()),
            root_args: Vec::new(),
            steps: Vec::new(),
            inherited: 0,
            via_binding: false,
        })
    }

    fn pop_scope_raw(&mut self) {
        self.resolver.pop_block();
        let depth = self.resolver_blocks;
        while self.values.last().is_some_and(|(_, d, _)| *d > depth) {
            self.values.pop();
        }
    }

    fn visit_macro_body(&mut self, mac: &syn::Macro, usage_hint: Usage) {
        let _ = usage_hint;
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if mac.tokens.is_empty() || macros::is_opaque(&name) {
            return;
        }
        // most bodies (asserts, format arguments, logging) name nothing a rule knows:
        // re-parsing them would cost about as much as parsing the file
        let body = self.index.text(mac.delimiter.span().join().byte_range());
        if !self
            .opts
            .needles
            .iter()
            .any(|f| f.find(body.as_bytes()).is_some())
        {
            return;
        }
        let saved = self.ctx.clone();
        match macros::parse_body(&name, mac.tokens.clone()) {
            Some(MacroBody::Exprs(exprs)) => {
                self.model.macros_analysed += 1;
                for e in &exprs {
                    self.visit_expr(e);
                }
            }
            Some(MacroBody::Select(branches)) => {
                self.model.macros_analysed += 1;
                for b in &branches {
                    self.visit_expr(&b.future);
                    if let Some(g) = &b.guard {
                        self.visit_expr(g);
                    }
                    self.enter_scope_empty();
                    if let Some(p) = &b.pat {
                        self.bind_pat(p, None);
                    }
                    self.visit_expr(&b.handler);
                    self.leave_scope_empty();
                }
            }
            Some(MacroBody::Stmts(stmts)) => {
                self.model.macros_analysed += 1;
                self.push_block_scope(&stmts);
                self.resolver_blocks += 1;
                for s in &stmts {
                    self.visit_stmt(s);
                }
                self.resolver_blocks -= 1;
                self.pop_scope_raw();
            }
            Some(MacroBody::Items(items)) => {
                self.model.macros_analysed += 1;
                for i in &items {
                    self.visit_item(i);
                }
            }
            None => {
                self.model.macros_unanalysed += 1;
                *self.model.unanalysed_by_name.entry(name).or_insert(0) += 1;
            }
        }
        self.ctx = saved;
    }

    fn enter_scope_empty(&mut self) {
        self.resolver.push_block(BlockScope::default());
        self.resolver_blocks += 1;
    }

    fn leave_scope_empty(&mut self) {
        self.resolver_blocks -= 1;
        self.pop_scope_raw();
    }

    fn cfg_windows_macro(e: &syn::Expr) -> bool {
        if let syn::Expr::Macro(m) = e
            && m.mac.path.is_ident("cfg")
        {
            return is_windows_cfg_text(&m.mac.tokens.to_string());
        }
        false
    }
}

fn duration_of_chain(ch: &Chain) -> Option<f64> {
    if !ch.steps.is_empty() {
        return None;
    }
    let s = ch.root_str();
    let factor = known::DURATION_CTORS.iter().find(|(n, _)| *n == s)?.1;
    match ch.root_args.first()? {
        ArgValue::Num(n) => Some(n * factor),
        _ => None,
    }
}

struct ConstFinder {
    out: Vec<(String, syn::Expr)>,
}

impl<'ast> Visit<'ast> for ConstFinder {
    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        self.out.push((c.ident.to_string(), (*c.expr).clone()));
    }
    fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
        self.out.push((c.ident.to_string(), c.expr.clone()));
    }
    fn visit_expr(&mut self, _: &'ast syn::Expr) {}
}

impl<'ast> Visit<'ast> for Collector<'_, '_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Trait(t) => &t.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Macro(m) => &m.attrs,
            _ => &[],
        };
        if self.skip_test(attrs) {
            return;
        }
        let saved = self.ctx.clone();
        if is_windows_only(attrs) {
            self.ctx.windows_only = true;
        }
        match item {
            syn::Item::Fn(f) => self.visit_fn(&f.attrs, &f.sig, Some(&f.block)),
            syn::Item::Mod(m) => {
                let name = m.ident.to_string();
                match &m.content {
                    Some((_, items)) => {
                        let child = self
                            .resolver
                            .tree()
                            .get(self.resolver.module())
                            .children
                            .get(&name)
                            .copied();
                        let saved_values = std::mem::take(&mut self.values);
                        let saved_blocks = std::mem::replace(&mut self.resolver_blocks, 0);
                        let saved_res = child.map(|c| self.resolver.enter_module(c));
                        self.item_stack.push(name.clone());
                        self.mod_stack.push(name);
                        self.ctx.in_drainable = false;
                        for i in items {
                            self.visit_item(i);
                        }
                        self.mod_stack.pop();
                        self.item_stack.pop();
                        if let Some(s) = saved_res {
                            self.resolver.leave_module(s);
                        }
                        self.values = saved_values;
                        self.resolver_blocks = saved_blocks;
                    }
                    None => {
                        let path_attr = m.attrs.iter().find_map(|a| {
                            if !a.path().is_ident("path") {
                                return None;
                            }
                            match &a.meta {
                                syn::Meta::NameValue(nv) => match &nv.value {
                                    syn::Expr::Lit(syn::ExprLit {
                                        lit: syn::Lit::Str(s),
                                        ..
                                    }) => Some(s.value()),
                                    _ => None,
                                },
                                _ => None,
                            }
                        });
                        let mut path = self.mod_stack.clone();
                        path.push(name);
                        if self.resolver_blocks == 0 {
                            self.model.mod_decls.push(ModDecl { path, path_attr });
                        }
                    }
                }
            }
            syn::Item::Impl(i) => {
                let ty = match &*i.self_ty {
                    syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                }
                .unwrap_or_else(|| "impl".into());
                self.item_stack.push(ty);
                self.ctx.in_drainable = false;
                for it in &i.items {
                    match it {
                        syn::ImplItem::Fn(f) => self.visit_fn(&f.attrs, &f.sig, Some(&f.block)),
                        syn::ImplItem::Const(c) => {
                            self.visit_expr(&c.expr);
                        }
                        syn::ImplItem::Macro(m) => self.visit_macro_body(&m.mac, Usage::Kept),
                        _ => {}
                    }
                }
                self.item_stack.pop();
            }
            syn::Item::Trait(t) => {
                self.item_stack.push(t.ident.to_string());
                self.ctx.in_drainable = false;
                for it in &t.items {
                    if let syn::TraitItem::Fn(f) = it {
                        self.visit_fn(&f.attrs, &f.sig, f.default.as_ref());
                    }
                }
                self.item_stack.pop();
            }
            syn::Item::Const(c) => {
                self.ctx.in_drainable = false;
                self.visit_expr(&c.expr);
            }
            syn::Item::Static(s) => {
                self.ctx.in_drainable = false;
                self.visit_expr(&s.expr);
            }
            syn::Item::Macro(m) if m.ident.is_none() && !m.mac.path.is_ident("macro_rules") => {
                self.ctx.in_drainable = false;
                self.visit_macro_body(&m.mac, Usage::Kept);
            }
            _ => {}
        }
        self.ctx = saved;
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.push_block_scope(&b.stmts);
        self.resolver_blocks += 1;
        for s in &b.stmts {
            self.visit_stmt(s);
        }
        self.resolver_blocks -= 1;
        self.pop_scope_raw();
    }

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        match s {
            syn::Stmt::Local(l) => {
                if self.skip_test(&l.attrs) {
                    return;
                }
                let saved = self.ctx.clone();
                if is_windows_only(&l.attrs) {
                    self.ctx.windows_only = true;
                }
                let mut val = None;
                if let Some(init) = &l.init {
                    // `let _ = ..` drops at once; `let _name = ..` says "unused": the
                    // handle is dropped at the end of the block, never joined
                    let dropped = match &l.pat {
                        syn::Pat::Wild(_) => true,
                        syn::Pat::Ident(i) => i.ident.to_string().starts_with('_'),
                        syn::Pat::Type(t) => match &*t.pat {
                            syn::Pat::Wild(_) => true,
                            syn::Pat::Ident(i) => i.ident.to_string().starts_with('_'),
                            _ => false,
                        },
                        _ => false,
                    };
                    self.pending = if dropped { Usage::Dropped } else { Usage::Kept };
                    let chain = self.visit_expr_value(&init.expr);
                    val = match chain {
                        Some(ch) => match duration_of_chain(&ch) {
                            Some(d) => Some(BindVal::Duration(d)),
                            None => Some(BindVal::Chain(ch)),
                        },
                        None => self
                            .eval_duration(&init.expr, 0)
                            .map(BindVal::Duration)
                            .or_else(|| self.eval_number(&init.expr, 0).map(BindVal::Num)),
                    };
                    if let Some((_, e)) = &init.diverge {
                        self.visit_expr(e);
                    }
                }
                self.bind_pat(&l.pat, val);
                self.ctx = saved;
            }
            syn::Stmt::Item(i) => {
                let saved_drainable = self.ctx.in_drainable;
                self.ctx.in_drainable = false;
                self.visit_item(i);
                self.ctx.in_drainable = saved_drainable;
            }
            syn::Stmt::Expr(e, semi) => {
                let attrs = expr_attrs(e);
                if self.skip_test(attrs) {
                    return;
                }
                let saved = self.ctx.clone();
                if is_windows_only(attrs) {
                    self.ctx.windows_only = true;
                }
                self.pending = if semi.is_some() {
                    Usage::Dropped
                } else {
                    Usage::Kept
                };
                self.visit_expr(e);
                self.ctx = saved;
            }
            syn::Stmt::Macro(m) => {
                if self.skip_test(&m.attrs) {
                    return;
                }
                let saved = self.ctx.clone();
                if is_windows_only(&m.attrs) {
                    self.ctx.windows_only = true;
                }
                self.visit_macro_body(&m.mac, Usage::Kept);
                self.ctx = saved;
            }
        }
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        let _ = self.visit_expr_value(e);
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}
}

fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
    match e {
        syn::Expr::Call(x) => &x.attrs,
        syn::Expr::MethodCall(x) => &x.attrs,
        syn::Expr::Block(x) => &x.attrs,
        syn::Expr::If(x) => &x.attrs,
        syn::Expr::Macro(x) => &x.attrs,
        syn::Expr::Match(x) => &x.attrs,
        syn::Expr::Try(x) => &x.attrs,
        syn::Expr::Await(x) => &x.attrs,
        _ => &[],
    }
}

impl Collector<'_, '_> {
    /// Visits an expression; for a chain, returns it (so `let` can remember it).
    fn visit_expr_value(&mut self, e: &syn::Expr) -> Option<Chain> {
        let usage = std::mem::replace(&mut self.pending, Usage::Kept);
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            self.model.too_deep += 1;
            self.depth -= 1;
            return None;
        }
        let out = self.visit_expr_inner(e, usage);
        self.depth -= 1;
        out
    }

    fn visit_expr_inner(&mut self, e: &syn::Expr, usage: Usage) -> Option<Chain> {
        match e {
            syn::Expr::Call(_)
            | syn::Expr::MethodCall(_)
            | syn::Expr::Try(_)
            | syn::Expr::Await(_) => {
                return self.visit_chain(e, usage);
            }
            syn::Expr::Paren(p) => {
                self.pending = usage;
                return self.visit_expr_value(&p.expr);
            }
            syn::Expr::Group(g) => {
                self.pending = usage;
                return self.visit_expr_value(&g.expr);
            }
            syn::Expr::Path(p) => match self.resolve(&p.path, true) {
                Resolution::Path(path) => self.record_ref(path, p.path.span()),
                Resolution::Binding(name) => {
                    if let Some(BindVal::Chain(ch)) = self.binding_val(&name) {
                        let mut ch = ch.clone();
                        ch.inherited = ch.steps.len();
                        ch.via_binding = true;
                        return Some(ch);
                    }
                }
                Resolution::Unknown => {}
            },
            syn::Expr::Assign(a) => {
                // `b = b.timeout(d);` rebinds what `b` holds
                self.visit_expr(&a.left);
                let ch = self.visit_expr_value(&a.right);
                if let syn::Expr::Path(p) = &*a.left
                    && let Some(id) = p.path.get_ident()
                {
                    let name = id.to_string();
                    if self.resolver.is_binding(&name) {
                        // update the binding itself, so an assignment in a nested block
                        // (`if x { b = b.timeout(d); }`) is still seen after the block
                        let val = ch.map(BindVal::Chain);
                        if let Some(entry) =
                            self.values.iter_mut().rev().find(|(n, _, _)| *n == name)
                        {
                            entry.2 = val;
                        }
                    }
                }
            }
            syn::Expr::Block(b) => self.visit_block(&b.block),
            syn::Expr::Closure(c) => {
                self.enter_scope_empty();
                for p in &c.inputs {
                    self.bind_pat(p, None);
                }
                self.visit_expr(&c.body);
                self.leave_scope_empty();
            }
            syn::Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                self.enter_scope_empty();
                self.bind_pat(&f.pat, None);
                self.visit_block(&f.body);
                self.leave_scope_empty();
            }
            syn::Expr::While(w) => {
                self.enter_scope_empty();
                self.visit_expr(&w.cond);
                self.visit_block(&w.body);
                self.leave_scope_empty();
            }
            syn::Expr::Let(l) => {
                self.visit_expr(&l.expr);
                self.bind_pat(&l.pat, None);
            }
            syn::Expr::If(i) => {
                let windows = Self::cfg_windows_macro(&i.cond);
                self.enter_scope_empty();
                self.visit_expr(&i.cond);
                let saved = self.ctx.clone();
                if windows {
                    self.ctx.windows_only = true;
                }
                self.visit_block(&i.then_branch);
                self.ctx = saved;
                self.leave_scope_empty();
                if let Some((_, els)) = &i.else_branch {
                    self.visit_expr(els);
                }
            }
            syn::Expr::Match(m) => {
                self.visit_expr(&m.expr);
                for arm in &m.arms {
                    self.enter_scope_empty();
                    self.bind_pat(&arm.pat, None);
                    if let Some((_, g)) = &arm.guard {
                        self.visit_expr(g);
                    }
                    self.visit_expr(&arm.body);
                    self.leave_scope_empty();
                }
            }
            syn::Expr::Macro(m) => self.visit_macro_body(&m.mac, usage),
            other => visit::visit_expr(self, other),
        }
        None
    }
}
