//! Shutdown budgets as the audit cites them: the ones written in code come from the lint
//! engine's model of each file ([`crate::model::FileModel::budgets`], recorded during its one
//! parse: `#[shutdown_runtime::main(grace = "..")]`, `Budgets::from_grace(..)` and the grace of
//! `Budgets::new(children, coordinator, grace)` with durations known at lint time —
//! `Duration::from_secs(120)`, `from_millis`, `from_secs_f64`, `from_mins`, or a `const`);
//! the config's `grace-period`/`drain-budget` are added by [`super::audit`].
//!
//! The audit compares the largest of them with each deploy manifest's grace period.

use crate::analysis::FileFacts;
use crate::model::{BudgetKind, BudgetSite};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Grace of `#[shutdown_runtime::main]` written without `grace = ".."`
/// ([`crate::model::MAIN_DEFAULT_GRACE`]).
pub use crate::model::MAIN_DEFAULT_GRACE;

/// Where a budget was written.
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::budgets::{budgets_in_source, BudgetOrigin};
/// let src = "use shutdown_runtime::Budgets;\nuse std::time::Duration;\n\
///            fn f() { Budgets::new(a, b, Duration::from_secs(9)); }";
/// let b = budgets_in_source(src, "x.rs".as_ref());
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

impl From<BudgetKind> for BudgetOrigin {
    fn from(kind: BudgetKind) -> BudgetOrigin {
        match kind {
            BudgetKind::MainAttribute => BudgetOrigin::MainAttribute,
            BudgetKind::FromGrace => BudgetOrigin::FromGrace,
            BudgetKind::BudgetsNew => BudgetOrigin::BudgetsNew,
        }
    }
}

impl CodeBudget {
    /// The budget the engine recorded at `site` in the file shown as `path`.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::audit::budgets::{BudgetOrigin, CodeBudget};
    /// use shutdown_lint::finding::Region;
    /// use shutdown_lint::model::{BudgetKind, BudgetSite};
    /// use std::time::Duration;
    ///
    /// let region = Region { line: 2, column: 34, end_line: 2, end_column: 39, offset: 40, len: 5 };
    /// let site = BudgetSite { kind: BudgetKind::MainAttribute, duration: Duration::from_secs(50), region };
    /// let b = CodeBudget::from_site(&site, "src/main.rs".as_ref());
    /// assert_eq!((b.origin, b.location()), (BudgetOrigin::MainAttribute, "src/main.rs:2:34".to_string()));
    /// ```
    pub fn from_site(site: &BudgetSite, path: &Path) -> CodeBudget {
        CodeBudget {
            origin: site.kind.into(),
            duration: site.duration,
            path: path.to_path_buf(),
            line: site.region.line,
            column: site.region.column,
        }
    }
}

/// The budgets the engine found in one linted file.
///
/// # Examples
///
/// ```
/// use shutdown_lint::analysis::analyze_source;
/// use shutdown_lint::audit::budgets::budgets_of;
/// use shutdown_lint::config::Config;
///
/// let src = "#[shutdown_runtime::main(grace = \"90s\")]\nasync fn main() {}\n";
/// let a = analyze_source("src/main.rs".as_ref(), src, &Config::default());
/// assert_eq!(budgets_of(&a.facts)[0].duration.as_secs(), 90);
/// ```
pub fn budgets_of(facts: &FileFacts) -> Vec<CodeBudget> {
    facts
        .budgets
        .iter()
        .map(|site| CodeBudget::from_site(site, &facts.path))
        .collect()
}

/// Finds the budgets in one Rust source file, as the engine does (test code skipped; a file
/// that does not parse yields nothing, the lint reports it as `parse-error`).
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::budgets::{budgets_in_source, BudgetOrigin};
///
/// let src = r#"
/// #[shutdown_runtime::main(grace = "120s")]
/// async fn main() {}
/// fn other() { let b = shutdown_runtime::Budgets::from_grace(std::time::Duration::from_secs(45)); }
/// "#;
/// let found = budgets_in_source(src, "src/main.rs".as_ref());
/// let pairs: Vec<_> = found.iter().map(|b| (b.origin, b.duration.as_secs(), b.line)).collect();
/// assert_eq!(pairs, [(BudgetOrigin::MainAttribute, 120, 2), (BudgetOrigin::FromGrace, 45, 4)]);
/// ```
pub fn budgets_in_source(source: &str, path: &Path) -> Vec<CodeBudget> {
    let config = crate::config::Config::default();
    let analysis = crate::analysis::analyze_source(path, source, &config);
    budgets_of(&analysis.facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_new_consts_and_defaults() {
        let src = r#"
use std::time::Duration;
use shutdown_runtime::Budgets;
const GRACE: Duration = Duration::from_secs(90);
#[shutdown_runtime::main]
async fn main() {
    let a = shutdown_runtime::Budgets::new(Duration::from_secs(10), Duration::from_millis(20_000), GRACE);
    let b = Budgets::from_grace(std::time::Duration::from_mins(2));
    let c = Budgets::from_grace(dynamic());
    run(RunConfig::new(Budgets::from_grace(Duration::from_secs(7))));
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
                (BudgetOrigin::MainAttribute, 30, 5),
                (BudgetOrigin::BudgetsNew, 90, 7),
                (BudgetOrigin::FromGrace, 120, 8),
                (BudgetOrigin::FromGrace, 7, 10),
            ]
        );
    }

    #[test]
    fn imported_and_renamed_paths_resolve_like_the_lint() {
        let src = r#"
use shutdown_runtime::{main as service_main, Budgets as B};
use std::time::Duration;
#[service_main(grace = "75s")]
async fn main() { let _ = B::from_grace(Duration::from_secs(60)); }
mod local { struct Budgets; fn f() { Budgets::from_grace(std::time::Duration::from_secs(1)); } }
"#;
        let found = budgets_in_source(src, "src/main.rs".as_ref());
        let got: Vec<_> = found
            .iter()
            .map(|b| (b.origin, b.duration.as_secs()))
            .collect();
        assert_eq!(
            got,
            [
                (BudgetOrigin::MainAttribute, 75),
                (BudgetOrigin::FromGrace, 60)
            ]
        );
    }

    #[test]
    fn invalid_grace_is_no_budget() {
        for bad in ["30sec", "0s", "1us"] {
            let src = format!("#[shutdown_runtime::main(grace = {bad:?})]\nasync fn main() {{}}\n");
            assert!(
                budgets_in_source(&src, "src/main.rs".as_ref()).is_empty(),
                "{bad}"
            );
        }
    }

    #[test]
    fn test_code_is_skipped() {
        let src = r#"
use shutdown_runtime::Budgets;
use std::time::Duration;
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
        let found = budgets_in_source(src, "src/lib.rs".as_ref());
        let secs: Vec<u64> = found.iter().map(|b| b.duration.as_secs()).collect();
        assert_eq!(secs, [4]);
    }

    #[test]
    fn test_code_budgets_are_not_the_services_even_when_tests_are_linted() {
        let src = r#"
use shutdown_runtime::Budgets;
use std::time::Duration;
#[cfg(test)]
mod tests {
    #[shutdown_runtime::main(grace = "5s")]
    async fn main() {}
    fn f() { Budgets::from_grace(Duration::from_secs(1)); }
}
#[tokio::test]
async fn t() { Budgets::from_grace(Duration::from_secs(2)); }
fn real() { Budgets::from_grace(Duration::from_secs(4)); }
"#;
        let config = crate::config::Config {
            include_tests: true,
            ..Default::default()
        };
        let a = crate::analysis::analyze_source("src/lib.rs".as_ref(), src, &config);
        let secs: Vec<u64> = budgets_of(&a.facts)
            .iter()
            .map(|b| b.duration.as_secs())
            .collect();
        assert_eq!(secs, [4]);
        // the test code itself was linted
        assert!(a.test_items_skipped == 0);
    }

    #[test]
    fn unparsable_source_yields_nothing() {
        let src = "fn main( { shutdown_runtime::Budgets::from_grace(";
        assert!(budgets_in_source(src, "x.rs".as_ref()).is_empty());
    }
}
