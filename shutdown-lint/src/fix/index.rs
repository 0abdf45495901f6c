//! Byte positions of the syntax a fixer edits, from one `syn` parse of the file: every call
//! of a path and every method call (also inside the macro bodies the linter reads), with
//! the positions of their parentheses and arguments; `select!` futures bound to `_`;
//! top-level `use` items; inline modules; and `fn main`'s attributes. Fixers only ever
//! edit at these positions, so everything between them (comments, formatting, `cfg`s) is
//! kept as written.

use crate::macros::{self, MacroBody};
use std::collections::HashMap;
use std::ops::Range;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// A call of a path: `tokio::spawn(fut)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSite {
    /// The called path.
    pub func: Range<usize>,
    /// `(`.
    pub lparen: usize,
    /// `)`.
    pub rparen: usize,
    /// Each argument.
    pub args: Vec<Range<usize>>,
    /// A task name derived from the first argument ([`super::name`]).
    pub name_hint: Option<String>,
}

/// A method call: `handle.spawn(fut)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodSite {
    /// The receiver expression.
    pub receiver: Range<usize>,
    /// The method name.
    pub method: Range<usize>,
    /// `(`.
    pub lparen: usize,
    /// `)`.
    pub rparen: usize,
    /// Each argument.
    pub args: Vec<Range<usize>>,
}

/// A top-level `use` item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UseItem {
    /// The whole item, `use` to `;` (attributes included).
    pub range: Range<usize>,
    /// The tree after `use`.
    pub tree: Range<usize>,
    /// Written with a visibility (`pub use`).
    pub public: bool,
    /// Leaf names it brings into scope (`Duration`, `*` for a glob).
    pub names: Vec<String>,
    /// First path segment (`std`, `crate`, `tokio`).
    pub first: String,
    /// The leaf paths, e.g. `std::time::Instant`.
    pub paths: Vec<String>,
    /// Each leaf (name, path, range of the leaf in the tree), in order.
    pub leaves: Vec<UseLeaf>,
}

/// One name a `use` item brings into scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UseLeaf {
    /// Name in scope (the rename when there is one; `self` leaves name the module).
    pub name: String,
    /// Full path, e.g. `tokio::task::spawn_blocking`.
    pub path: String,
    /// Range of the leaf as written (`spawn_blocking`, `spawn as go`, `self`).
    pub range: Range<usize>,
    /// Inside a `{..}` group.
    pub in_group: bool,
}

/// `fn main` with an attribute such as `#[tokio::main]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MainFn {
    /// Each outer attribute: its path as written and the range inside `#[..]`.
    pub attrs: Vec<(String, Range<usize>)>,
    /// `async fn`.
    pub is_async: bool,
    /// The return type is `()` or `Result<(), _>` (what `#[shutdown_runtime::main]` takes).
    pub unit_or_result: bool,
}

/// The index of one file.
#[derive(Debug, Clone, Default)]
pub struct SpanIndex {
    /// Calls by the end of their called path.
    pub calls: HashMap<usize, CallSite>,
    /// Method calls by the start of their method name.
    pub methods: HashMap<usize, MethodSite>,
    /// Futures of `select!` branches whose pattern is `_`, by their start.
    pub select_wildcards: Vec<Range<usize>>,
    /// Top-level `use` items in order.
    pub uses: Vec<UseItem>,
    /// Bodies of inline modules (`mod x { .. }`) and function bodies' items are not
    /// reached by a file-level `use`: ranges of inline module bodies.
    pub inline_mods: Vec<Range<usize>>,
    /// Start of the first top-level item (where a first `use` line goes).
    pub first_item: Option<usize>,
    /// `fn main` at the top level.
    pub main_fn: Option<MainFn>,
}

fn range(span: proc_macro2::Span) -> Range<usize> {
    span.byte_range()
}

impl SpanIndex {
    /// Parses `text` (byte-order mark and shebang blanked, so offsets are the file's).
    ///
    /// # Examples
    /// ```
    /// let ix = shutdown_lint::fix::index::SpanIndex::build("fn f() { tokio::spawn(run(1)); }").unwrap();
    /// let call = &ix.calls[&21];
    /// assert_eq!((call.lparen, call.rparen), (21, 28));
    /// assert_eq!(call.name_hint.as_deref(), Some("run"));
    /// ```
    pub fn build(text: &str) -> Result<SpanIndex, syn::Error> {
        let cleaned = crate::analysis::blank_preamble(text);
        let file = syn::parse_str::<syn::File>(&cleaned)?;
        let mut ix = SpanIndex {
            first_item: file.items.first().map(|i| range(i.span()).start),
            ..SpanIndex::default()
        };
        for item in &file.items {
            match item {
                syn::Item::Use(u) => {
                    let mut names = Vec::new();
                    let mut paths = Vec::new();
                    leaves(&u.tree, String::new(), &mut names, &mut paths);
                    let mut leaf_list = Vec::new();
                    leaf_ranges(&u.tree, String::new(), false, &mut leaf_list);
                    let first = match &u.tree {
                        syn::UseTree::Path(p) => p.ident.to_string(),
                        syn::UseTree::Name(n) => n.ident.to_string(),
                        _ => String::new(),
                    };
                    ix.uses.push(UseItem {
                        range: range(u.span()),
                        tree: range(u.tree.span()),
                        public: !matches!(u.vis, syn::Visibility::Inherited),
                        names,
                        first,
                        paths,
                        leaves: leaf_list,
                    });
                }
                syn::Item::Fn(f) if f.sig.ident == "main" => {
                    let attrs = f
                        .attrs
                        .iter()
                        .filter(|a| matches!(a.style, syn::AttrStyle::Outer))
                        .map(|a| {
                            let path = a
                                .path()
                                .segments
                                .iter()
                                .map(|s| s.ident.to_string())
                                .collect::<Vec<_>>()
                                .join("::");
                            (path, range(a.meta.span()))
                        })
                        .collect();
                    ix.main_fn = Some(MainFn {
                        attrs,
                        is_async: f.sig.asyncness.is_some(),
                        unit_or_result: unit_or_result(&f.sig.output),
                    });
                }
                _ => {}
            }
        }
        let mut v = Indexer { ix: &mut ix };
        v.visit_file(&file);
        drop(file);
        proc_macro2::extra::invalidate_current_thread_spans();
        Ok(ix)
    }

    /// Whether `offset` is inside an inline module (where a file-level `use` does not reach).
    pub fn in_inline_mod(&self, offset: usize) -> bool {
        self.inline_mods.iter().any(|r| r.contains(&offset))
    }
}

fn unit_or_result(out: &syn::ReturnType) -> bool {
    let syn::ReturnType::Type(_, ty) = out else {
        return true;
    };
    match &**ty {
        syn::Type::Tuple(t) => t.elems.is_empty(),
        syn::Type::Path(p) => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            if last.ident != "Result" {
                return false;
            }
            match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => matches!(
                    a.args.first(),
                    Some(syn::GenericArgument::Type(syn::Type::Tuple(t))) if t.elems.is_empty()
                ),
                _ => false,
            }
        }
        _ => false,
    }
}

fn leaves(tree: &syn::UseTree, prefix: String, names: &mut Vec<String>, paths: &mut Vec<String>) {
    let join = |p: &str, n: &str| {
        if p.is_empty() {
            n.to_string()
        } else {
            format!("{p}::{n}")
        }
    };
    match tree {
        syn::UseTree::Path(p) => leaves(&p.tree, join(&prefix, &p.ident.to_string()), names, paths),
        syn::UseTree::Name(n) => {
            names.push(n.ident.to_string());
            paths.push(join(&prefix, &n.ident.to_string()));
        }
        syn::UseTree::Rename(r) => {
            names.push(r.rename.to_string());
            paths.push(join(&prefix, &r.ident.to_string()));
        }
        syn::UseTree::Glob(_) => {
            names.push("*".into());
            paths.push(join(&prefix, "*"));
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                leaves(t, prefix.clone(), names, paths);
            }
        }
    }
}

fn leaf_ranges(tree: &syn::UseTree, prefix: String, in_group: bool, out: &mut Vec<UseLeaf>) {
    let join = |n: &str| {
        if prefix.is_empty() {
            n.to_string()
        } else {
            format!("{prefix}::{n}")
        }
    };
    match tree {
        syn::UseTree::Path(p) => leaf_ranges(&p.tree, join(&p.ident.to_string()), in_group, out),
        syn::UseTree::Name(n) => {
            let ident = n.ident.to_string();
            let (name, path) = if ident == "self" {
                let module = prefix.rsplit("::").next().unwrap_or("").to_string();
                (module, prefix.clone())
            } else {
                (ident.clone(), join(&ident))
            };
            out.push(UseLeaf {
                name,
                path,
                range: range(n.span()),
                in_group,
            });
        }
        syn::UseTree::Rename(r) => out.push(UseLeaf {
            name: r.rename.to_string(),
            path: join(&r.ident.to_string()),
            range: range(r.span()),
            in_group,
        }),
        syn::UseTree::Glob(g) => out.push(UseLeaf {
            name: "*".into(),
            path: join("*"),
            range: range(g.star_token.span),
            in_group,
        }),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                leaf_ranges(t, prefix.clone(), true, out);
            }
        }
    }
}

struct Indexer<'a> {
    ix: &'a mut SpanIndex,
}

impl Indexer<'_> {
    /// Indexes a call of a path by the end of the path, with its argument ranges.
    fn record_call(
        &mut self,
        c: &syn::ExprCall,
        args: Vec<Range<usize>>,
        name_hint: Option<String>,
    ) {
        let func = range(c.func.span());
        let site = CallSite {
            func: func.clone(),
            lparen: range(c.paren_token.span.open()).start,
            rparen: range(c.paren_token.span.close()).start,
            args,
            name_hint,
        };
        self.ix.calls.insert(func.end, site);
    }

    fn body(&mut self, body: &MacroBody) {
        match body {
            MacroBody::Exprs(es) => es.iter().for_each(|e| self.visit_expr(e)),
            MacroBody::Select(bs) => {
                for b in bs {
                    if matches!(b.pat, Some(syn::Pat::Wild(_))) {
                        self.ix.select_wildcards.push(range(b.future.span()));
                    }
                    if let Some(p) = &b.pat {
                        self.visit_pat(p);
                    }
                    self.visit_expr(&b.future);
                    if let Some(g) = &b.guard {
                        self.visit_expr(g);
                    }
                    self.visit_expr(&b.handler);
                }
            }
            MacroBody::Stmts(ss) => ss.iter().for_each(|s| self.visit_stmt(s)),
            MacroBody::Items(is) => is.iter().for_each(|i| self.visit_item(i)),
        }
    }
}

impl<'ast> Visit<'ast> for Indexer<'_> {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if matches!(&*c.func, syn::Expr::Path(_)) {
            let args = c.args.iter().map(|a| range(a.span())).collect();
            self.record_call(c, args, c.args.first().and_then(super::name::task_name));
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let method = range(m.method.span());
        self.ix.methods.insert(
            method.start,
            MethodSite {
                receiver: range(m.receiver.span()),
                method,
                lparen: range(m.paren_token.span.open()).start,
                rparen: range(m.paren_token.span.close()).start,
                args: m.args.iter().map(|a| range(a.span())).collect(),
            },
        );
        visit::visit_expr_method_call(self, m);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if let Some((brace, _)) = &m.content {
            let open = range(brace.span.open()).start;
            let close = range(brace.span.close()).start;
            self.ix.inline_mods.push(open..close);
        }
        visit::visit_item_mod(self, m);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if name == "macro_rules" {
            // the spawns a definition writes, as the linter reads them
            for c in crate::macro_definition::spawn_calls(mac.tokens.clone()) {
                if let syn::Expr::Call(call) = &c.call {
                    self.record_call(call, c.args, None);
                }
            }
            return;
        }
        if macros::is_opaque(&name) {
            return;
        }
        if let Some(body) = macros::parse_body(&name, mac.tokens.clone()) {
            self.body(&body);
        }
    }
}
