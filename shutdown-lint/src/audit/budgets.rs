//! Shutdown budgets written in code: `#[shutdown_runtime::main(grace = "..")]`,
//! `Budgets::from_grace(..)` and `Budgets::new(children, coordinator, grace)` with literal
//! durations (`Duration::from_secs(120)`, `from_millis`, `from_secs_f64`, `from_mins`, or a
//! `const` of the same file holding one).
//!
//! The audit compares the largest of them (and the config's `grace-period`/`drain-budget`)
//! with each deploy manifest's grace period.

use proc_macro2::Span;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use syn::spanned::Spanned;
use syn::visit::Visit;

/// Grace of `#[shutdown_runtime::main]` written without `grace = ".."`.
///
/// # Examples
///
/// ```
/// assert_eq!(shutdown_lint::audit::budgets::MAIN_DEFAULT_GRACE.as_secs(), 30);
/// ```
pub const MAIN_DEFAULT_GRACE: Duration = Duration::from_secs(30);

/// Where a budget was written.
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::budgets::{budgets_in_source, BudgetOrigin};
/// let b = budgets_in_source("fn f() { Budgets::new(a, b, Duration::from_secs(9)); }", "x.rs".as_ref());
/// assert_eq!(b[0].origin, BudgetOrigin::BudgetsNew);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BudgetOrigin {
    /// `#[shutdown_runtime::main(grace = "..")]` (or without `grace`: its default).
    MainAttribute,
    /// `Budgets::from_grace(..)`.
    FromGrace,
    /// The `grace` argument of `Budgets::new(children, coordinator, grace)`.
    BudgetsNew,
    /// `grace-period` in the configuration.
    ConfigGracePeriod,
    /// `drain-budget` in the configuration.
    ConfigDrainBudget,
}

impl BudgetOrigin {
    /// How the audit names it in messages.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::audit::budgets::BudgetOrigin;
    /// assert_eq!(BudgetOrigin::FromGrace.describe(), "`Budgets::from_grace`");
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            BudgetOrigin::MainAttribute => "`#[shutdown_runtime::main]` grace",
            BudgetOrigin::FromGrace => "`Budgets::from_grace`",
            BudgetOrigin::BudgetsNew => "`Budgets::new` grace",
            BudgetOrigin::ConfigGracePeriod => "config `grace-period`",
            BudgetOrigin::ConfigDrainBudget => "config `drain-budget`",
        }
    }
}

/// One budget found in code or configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBudget {
    /// What kind of budget.
    pub origin: BudgetOrigin,
    /// Its value.
    pub duration: Duration,
    /// File, as shown to the user.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl CodeBudget {
    /// `path:line:column`, as messages cite it.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::audit::budgets::{BudgetOrigin, CodeBudget};
    /// use std::time::Duration;
    ///
    /// let b = CodeBudget { origin: BudgetOrigin::FromGrace, duration: Duration::from_secs(5),
    ///                      path: "src/main.rs".into(), line: 3, column: 9 };
    /// assert_eq!(b.location(), "src/main.rs:3:9");
    /// ```
    pub fn location(&self) -> String {
        format!(
            "{}:{}:{}",
            self.path.display().to_string().replace('\\', "/"),
            self.line,
            self.column
        )
    }
}

/// Finds the budgets in one Rust source file. Files that do not parse yield nothing (the
/// lint reports them as `parse-error`).
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::budgets::{budgets_in_source, BudgetOrigin};
///
/// let src = r#"
/// #[shutdown_runtime::main(grace = "120s")]
/// async fn main() {}
/// fn other() { let b = Budgets::from_grace(Duration::from_secs(45)); }
/// "#;
/// let found = budgets_in_source(src, "src/main.rs".as_ref());
/// let pairs: Vec<_> = found.iter().map(|b| (b.origin, b.duration.as_secs(), b.line)).collect();
/// assert_eq!(pairs, [(BudgetOrigin::MainAttribute, 120, 2), (BudgetOrigin::FromGrace, 45, 4)]);
/// ```
pub fn budgets_in_source(source: &str, path: &Path) -> Vec<CodeBudget> {
    // only files that can hold a budget are parsed: a grace argument, `Budgets`, or the
    // runtime's main attribute (its default grace)
    let needles = ["grace", "Budgets", "shutdown_runtime::main"];
    if !needles.iter().any(|n| source.contains(n)) {
        return Vec::new();
    }
    let Ok(file) = syn::parse_file(source) else {
        return Vec::new();
    };
    let mut finder = Finder {
        path,
        consts: HashMap::new(),
        found: Vec::new(),
    };
    // consts first, so uses above their definition resolve too
    let mut consts = ConstCollector {
        consts: HashMap::new(),
    };
    consts.visit_file(&file);
    finder.consts = consts.consts;
    finder.visit_file(&file);
    finder.found.sort_by_key(|b| (b.line, b.column));
    finder.found
}

struct ConstCollector {
    consts: HashMap<String, Duration>,
}

impl<'ast> Visit<'ast> for ConstCollector {
    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        if let Some(d) = literal_duration(&item.expr, &HashMap::new()) {
            self.consts.insert(item.ident.to_string(), d);
        }
    }
    fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
        if let Some(d) = literal_duration(&item.expr, &HashMap::new()) {
            self.consts.insert(item.ident.to_string(), d);
        }
    }
}

struct Finder<'p> {
    path: &'p Path,
    consts: HashMap<String, Duration>,
    found: Vec<CodeBudget>,
}

impl Finder<'_> {
    fn push(&mut self, origin: BudgetOrigin, duration: Duration, span: Span) {
        let start = span.start();
        self.found.push(CodeBudget {
            origin,
            duration,
            path: self.path.to_path_buf(),
            line: start.line,
            column: start.column + 1,
        });
    }
}

/// `#[cfg(test)]` or `#[test]` / `#[tokio::test]`: test code, whose budgets are not the
/// service's.
fn is_test_code(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let p = a.path();
        let last_is_test = p.segments.last().is_some_and(|s| s.ident == "test");
        let cfg_test = p.is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string() == "test");
        last_is_test || cfg_test
    })
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test_code(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if is_test_code(&item.attrs) {
            return;
        }
        for attr in &item.attrs {
            let segments: Vec<String> = attr
                .path()
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let is_ours = match segments.as_slice() {
                [krate, main] => krate == "shutdown_runtime" && main == "main",
                [main] => main == "main" && attr_has_grace(attr),
                _ => false,
            };
            if !is_ours {
                continue;
            }
            let mut grace = None;
            let mut invalid = false;
            if let syn::Meta::List(_) = &attr.meta {
                let _ = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("grace") {
                        let value: syn::LitStr = meta.value()?.parse()?;
                        // the macro's reading: the one grammar, at least 1 ms; anything else
                        // does not compile, so it is no budget
                        match shutdown_duration::parse(&value.value()) {
                            Ok(d) if d >= Duration::from_millis(1) => {
                                grace = Some((d, value.span()));
                            }
                            _ => invalid = true,
                        }
                    } else if meta.input.peek(syn::Token![=]) {
                        let _: syn::Expr = meta.value()?.parse()?;
                    }
                    Ok(())
                });
            }
            match grace {
                Some((d, span)) => self.push(BudgetOrigin::MainAttribute, d, span),
                None if !invalid => {
                    self.push(BudgetOrigin::MainAttribute, MAIN_DEFAULT_GRACE, attr.span())
                }
                None => {}
            }
        }
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*call.func {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let n = segs.len();
            if n >= 2 && segs[n - 2] == "Budgets" {
                let args: Vec<&syn::Expr> = call.args.iter().collect();
                match (segs[n - 1].as_str(), args.as_slice()) {
                    ("from_grace", [grace]) => {
                        if let Some(d) = literal_duration(grace, &self.consts) {
                            self.push(BudgetOrigin::FromGrace, d, call.span());
                        }
                    }
                    ("new", [_, _, grace]) => {
                        if let Some(d) = literal_duration(grace, &self.consts) {
                            self.push(BudgetOrigin::BudgetsNew, d, call.span());
                        }
                    }
                    _ => {}
                }
            }
        }
        syn::visit::visit_expr_call(self, call);
    }
}

fn attr_has_grace(attr: &syn::Attribute) -> bool {
    match &attr.meta {
        syn::Meta::List(list) => list.tokens.to_string().contains("grace"),
        _ => false,
    }
}

/// A literal duration expression: `Duration::from_secs(120)` (any path ending in
/// `Duration::from_*`), `from_millis`, `from_secs_f64(1.5)`, `from_mins(2)`, or a const name.
fn literal_duration(expr: &syn::Expr, consts: &HashMap<String, Duration>) -> Option<Duration> {
    match expr {
        syn::Expr::Paren(p) => literal_duration(&p.expr, consts),
        syn::Expr::Group(g) => literal_duration(&g.expr, consts),
        syn::Expr::Reference(r) => literal_duration(&r.expr, consts),
        syn::Expr::Path(p) => {
            let name = p.path.segments.last()?.ident.to_string();
            consts.get(&name).copied()
        }
        syn::Expr::Call(call) => {
            let syn::Expr::Path(func) = &*call.func else {
                return None;
            };
            let segs: Vec<String> = func
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let n = segs.len();
            if n < 2 || segs[n - 2] != "Duration" || call.args.len() != 1 {
                return None;
            }
            let syn::Expr::Lit(lit) = call.args.first()? else {
                return None;
            };
            let number: f64 = match &lit.lit {
                syn::Lit::Int(i) => i.base10_parse::<u64>().ok()? as f64,
                syn::Lit::Float(f) => f.base10_parse::<f64>().ok()?,
                _ => return None,
            };
            let secs = match segs[n - 1].as_str() {
                "from_secs" | "from_secs_f64" | "from_secs_f32" => number,
                "from_millis" => number / 1e3,
                "from_micros" => number / 1e6,
                "from_nanos" => number / 1e9,
                "from_mins" => number * 60.0,
                "from_hours" => number * 3600.0,
                _ => return None,
            };
            Duration::try_from_secs_f64(secs).ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_new_consts_and_defaults() {
        let src = r#"
use std::time::Duration;
const GRACE: Duration = Duration::from_secs(90);
#[shutdown_runtime::main]
async fn main() {
    let a = shutdown_runtime::Budgets::new(Duration::from_secs(10), Duration::from_millis(20_000), GRACE);
    let b = Budgets::from_grace(std::time::Duration::from_mins(2));
    let c = Budgets::from_grace(dynamic());
}
#[tokio::main]
async fn not_ours() {}
"#;
        let found = budgets_in_source(src, "m.rs".as_ref());
        let got: Vec<_> = found
            .iter()
            .map(|b| (b.origin, b.duration.as_secs(), b.line))
            .collect();
        assert_eq!(
            got,
            [
                (BudgetOrigin::MainAttribute, 30, 4),
                (BudgetOrigin::BudgetsNew, 90, 6),
                (BudgetOrigin::FromGrace, 120, 7)
            ]
        );
    }

    #[test]
    fn test_code_is_skipped() {
        let src = r#"
#[cfg(test)]
mod tests {
    fn f() { Budgets::from_grace(Duration::from_secs(1)); }
}
#[tokio::test]
async fn t() { Budgets::from_grace(Duration::from_secs(2)); }
#[test]
fn u() { Budgets::from_grace(Duration::from_secs(3)); }
fn real() { Budgets::from_grace(Duration::from_secs(4)); }
"#;
        let found = budgets_in_source(src, "lib.rs".as_ref());
        let secs: Vec<u64> = found.iter().map(|b| b.duration.as_secs()).collect();
        assert_eq!(secs, [4]);
    }

    #[test]
    fn unparsable_source_yields_nothing() {
        assert!(budgets_in_source("fn main( { Budgets::from_grace(", "x.rs".as_ref()).is_empty());
    }
}
