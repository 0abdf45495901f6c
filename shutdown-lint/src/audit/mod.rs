//! `cargo shutdown audit`: where a whole workspace stands on shutdown discipline, and whether
//! its budgets fit the platform's grace period.
//!
//! The pipeline, one module per step:
//! 1. [`workspace`] (the shared [`crate::manifest::workspace`]): find the workspace from
//!    `Cargo.toml` (members, globs, `exclude`, or a single package);
//! 2. lint every member crate with the lint [`engine`](crate::engine) and sum its
//!    per-file facts into a per-crate row ([`report::CrateSummary`]);
//! 3. [`budgets`]: the shutdown budgets written in code (from the engine's model of each
//!    file, `FileFacts::budgets`) and config;
//! 4. [`deploy`] (the shared [`crate::deploy`]): read compose files, Kubernetes manifests
//!    and Dockerfiles;
//! 5. [`rules`]: `budget-exceeds-grace` and `stopsignal-unhandled` compare the two, and
//!    [`suppress`] applies `#` suppression comments in manifests.
//!
//! The library never prints; [`cli`] (used by `cargo shutdown audit`) renders the
//! [`report::AuditReport`] as a table, the audit JSON contract, SARIF or GitHub annotations.

pub mod budgets;
pub mod cli;
pub mod report;
pub mod rules;
pub mod suppress;

/// Deploy manifests; the module is shared with `--fix` ([`crate::deploy`]).
pub use crate::deploy;
/// Workspace discovery; the module is shared with the engine ([`crate::manifest::workspace`]).
pub use crate::manifest::workspace;

use crate::config::{Config, ConfigError};
use crate::engine::{LintError, LintOptions, lint_paths};
use crate::finding::{Finding, Severity};
use crate::paths::absolute;
use budgets::{BudgetOrigin, CodeBudget, budgets_of};
use report::{AuditReport, BinarySummary, CrateSummary, SuppressionSummary};
use rules::CrateNames;
use rules::budget_exceeds_grace::{self, CrateBudget};
use rules::stopsignal_unhandled::{self, CrateSignals};
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use workspace::{Workspace, WorkspaceError};

/// How to audit.
///
/// # Examples
///
/// ```
/// let opts = shutdown_lint::audit::AuditOptions { no_suppressions: true, ..Default::default() };
/// assert!(opts.manifest_path.is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct AuditOptions {
    /// A `Cargo.toml` or a directory to start from (default: the current directory).
    pub manifest_path: Option<PathBuf>,
    /// Report findings that suppression comments hide.
    pub no_suppressions: bool,
    /// Override the config's `include-tests`.
    pub include_tests: Option<bool>,
    /// Override the config's `include-examples` (examples are then linted and counted as
    /// binaries).
    pub include_examples: Option<bool>,
    /// Directory paths are shown relative to (default: the current directory).
    pub cwd: Option<PathBuf>,
}

/// Why the audit could not run (exit status 2).
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::{audit, AuditError, AuditOptions};
/// let dir = tempfile::tempdir().unwrap();
/// let opts = AuditOptions { manifest_path: Some(dir.path().join("Cargo.toml")), ..Default::default() };
/// assert!(matches!(audit(&opts), Err(AuditError::Workspace(_))));
/// ```
#[derive(Debug)]
pub enum AuditError {
    /// No workspace, or an unreadable manifest.
    Workspace(WorkspaceError),
    /// Invalid configuration.
    Config(Box<ConfigError>),
    /// The lint could not run.
    Lint(Box<LintError>),
}

impl fmt::Display for AuditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditError::Workspace(e) => e.fmt(f),
            AuditError::Config(e) => e.fmt(f),
            AuditError::Lint(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for AuditError {}

/// Audits the workspace found from `opts.manifest_path` (or the current directory).
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::{audit, AuditOptions};
///
/// let dir = tempfile::tempdir().unwrap();
/// let root = dir.path();
/// std::fs::create_dir(root.join("src")).unwrap();
/// std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"svc\"\n").unwrap();
/// std::fs::write(root.join("src/main.rs"), "#[shutdown_runtime::main(grace = \"120s\")]\nasync fn main() {}\n").unwrap();
/// std::fs::write(root.join("compose.yaml"), "services:\n  svc:\n    stop_grace_period: 10s\n").unwrap();
/// let report = audit(&AuditOptions { manifest_path: Some(root.into()), cwd: Some(root.into()), ..Default::default() }).unwrap();
/// assert_eq!(report.crates[0].name, "svc");
/// assert!(report.crates[0].handles_sigterm);
/// let finding = report.findings.iter().find(|f| f.rule == "budget-exceeds-grace").unwrap();
/// assert_eq!((finding.path.to_str(), finding.region.line), (Some("compose.yaml"), 3));
/// assert!(report.has_deny());
/// ```
pub fn audit(opts: &AuditOptions) -> Result<AuditReport, AuditError> {
    let cwd = match &opts.cwd {
        Some(c) => absolute(c),
        None => std::env::current_dir()
            .map_err(|e| AuditError::Lint(Box::new(LintError::Io(e.to_string()))))?,
    };
    let start = opts
        .manifest_path
        .as_ref()
        .map_or_else(|| cwd.clone(), |p| absolute(&cwd.join(p)));
    let mut ws = Workspace::discover(&start).map_err(AuditError::Workspace)?;
    let display = |p: &Path| -> PathBuf {
        match p.strip_prefix(&cwd) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
            Ok(_) => PathBuf::from("."),
            Err(_) => p.to_path_buf(),
        }
    };
    let config = Config::discover(&ws.root).map_err(|e| AuditError::Config(Box::new(e)))?;
    let include_tests = opts.include_tests.unwrap_or(config.include_tests);
    let include_examples = opts.include_examples.unwrap_or(config.include_examples);
    // examples are binaries only when they are linted
    if !include_examples {
        for c in &mut ws.crates {
            let dir = c.dir.clone();
            c.bins.retain(|b| {
                let rel = b.path.strip_prefix(&dir).unwrap_or(&b.path);
                crate::testcode::classify(rel) != crate::testcode::CodeKind::Example
            });
        }
    }

    // 1. lint the crates (top-level directories only: nested members are inside them)
    let mut roots: Vec<PathBuf> = Vec::new();
    for c in &ws.crates {
        if !ws
            .crates
            .iter()
            .any(|o| o.dir != c.dir && c.dir.starts_with(&o.dir))
            && !roots.contains(&c.dir)
        {
            roots.push(c.dir.clone());
        }
    }
    let lint_opts = LintOptions {
        include_tests: opts.include_tests,
        include_examples: opts.include_examples,
        no_suppressions: opts.no_suppressions,
        cwd: Some(cwd.clone()),
        // every signal each binary handles, for `stopsignal-unhandled`
        all_dependency_signals: true,
        ..LintOptions::default()
    };
    let lint = if roots.is_empty() {
        crate::engine::LintReport::default()
    } else {
        lint_paths(&roots, &lint_opts).map_err(|e| AuditError::Lint(Box::new(e)))?
    };

    // 2. per-crate rows, budgets and signals
    let mut crates: Vec<CrateSummary> = ws
        .crates
        .iter()
        .map(|c| CrateSummary {
            name: c.name.clone(),
            path: display(&c.dir),
            ..CrateSummary::default()
        })
        .collect();
    let mut signals: Vec<CrateSignals> = ws
        .crates
        .iter()
        .map(|c| CrateSignals {
            name: c.name.clone(),
            bins: c.bins.iter().map(|b| b.name.clone()).collect(),
            handled: BTreeSet::new(),
        })
        .collect();
    // libraries without binaries: whether any of their files handles SIGTERM
    let mut lib_sigterm = vec![false; ws.crates.len()];
    let mut code_budgets: Vec<CrateBudget> = Vec::new();
    let mut member_files: BTreeSet<PathBuf> = BTreeSet::new();
    let mut files = 0;
    for facts in &lint.files {
        let abs = absolute(&cwd.join(&facts.path));
        let Some(owner) = ws.crate_of(&abs) else {
            continue;
        };
        // what the engine skipped (tests, examples) is no crate's code: the one predicate
        let rel = abs.strip_prefix(&owner.dir).unwrap_or(&abs);
        match crate::testcode::classify(rel) {
            crate::testcode::CodeKind::Test if !include_tests => continue,
            crate::testcode::CodeKind::Example if !include_examples => continue,
            _ => {}
        }
        let Some(i) = ws.crates.iter().position(|c| c.dir == owner.dir) else {
            continue;
        };
        files += 1;
        member_files.insert(facts.path.clone());
        let row = &mut crates[i];
        row.tracked_spawns += facts.tracked_spawns;
        row.raw_spawns += facts.raw_spawns;
        row.drainable_fns += facts.drainable_fns;
        row.http_clients_without_timeout += facts.http_clients_without_timeout;
        row.detached_threads += facts.detached_threads;
        for s in &facts.suppressions {
            row.suppressions.push(SuppressionSummary {
                path: facts.path.clone(),
                line: s.line,
                rules: s.rules.clone(),
                reason: s.reason.clone(),
                used: s.used,
            });
        }
        lib_sigterm[i] |= facts.handles_sigterm;
        // budgets from the engine's model of the file: no second parse
        for budget in budgets_of(facts) {
            code_budgets.push(CrateBudget {
                budget,
                crate_name: Some(owner.name.clone()),
            });
        }
    }
    // per binary: what the engine's call chains from its `main` reach (the same verdict
    // as `sigterm-missing`)
    for (i, c) in ws.crates.iter().enumerate() {
        for b in &c.bins {
            let handled = lint
                .binaries
                .iter()
                .find(|f| f.root == b.path)
                .map(|f| f.handled.clone())
                .unwrap_or_default();
            signals[i].handled.extend(handled.iter().cloned());
            crates[i].binaries.push(BinarySummary {
                name: b.name.clone(),
                path: display(&b.path),
                handles_sigterm: handled.contains("SIGTERM"),
            });
        }
        crates[i].handles_sigterm = if crates[i].binaries.is_empty() {
            lib_sigterm[i]
        } else {
            crates[i].binaries.iter().all(|b| b.handles_sigterm)
        };
    }
    for s in crates.iter_mut() {
        s.suppressions
            .sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    }

    // 3. config budgets, cited by line
    let mut all_budgets = code_budgets;
    if let Some(source) = &config.source {
        for (origin, value, at) in [
            (
                BudgetOrigin::ConfigGracePeriod,
                config.grace_period,
                config.grace_period_at,
            ),
            (
                BudgetOrigin::ConfigDrainBudget,
                config.drain_budget,
                config.drain_budget_at,
            ),
        ] {
            let Some(duration) = value else { continue };
            let (line, column) = at.map_or((1, 1), |r| (r.line, r.column));
            all_budgets.push(CrateBudget {
                budget: CodeBudget {
                    origin,
                    duration,
                    path: display(source),
                    line,
                    column,
                },
                crate_name: None,
            });
        }
    }

    // 4. deploy manifests and the audit rules
    let mut scan = deploy::scan(&ws, &display);
    // the config's `exclude` globs apply to manifests as to code
    let mut globs = globset::GlobSetBuilder::new();
    for g in &config.exclude {
        if let Ok(g) = globset::Glob::new(g) {
            globs.add(g);
        }
    }
    if let (Ok(globs), Some(base)) = (globs.build(), config.root_dir()) {
        let excluded = |shown: &Path| {
            let abs = absolute(&cwd.join(shown));
            abs.strip_prefix(base).is_ok_and(|rel| globs.is_match(rel))
        };
        scan.targets.retain(|t| !excluded(&t.path));
        scan.findings.retain(|f| !excluded(&f.path));
    }
    let names: Vec<CrateNames> = ws
        .crates
        .iter()
        .map(|c| CrateNames {
            name: c.name.clone(),
            bins: c.bins.iter().map(|b| b.name.clone()).collect(),
        })
        .collect();
    let mut audit_findings = scan.findings;
    audit_findings.extend(budget_exceeds_grace::check(
        &scan.targets,
        &all_budgets,
        &names,
    ));
    audit_findings.extend(stopsignal_unhandled::check(&scan.targets, &signals));
    for f in &mut audit_findings {
        if let Some(meta) = crate::registry::rule(&f.rule) {
            f.severity = config.severity(meta);
        }
    }
    audit_findings.retain(|f| f.severity != Severity::Allow);
    if !opts.no_suppressions {
        let mut manifests: Vec<PathBuf> = Vec::new();
        for t in &scan.targets {
            if !manifests.contains(&t.path) {
                manifests.push(t.path.clone());
            }
        }
        let extra = suppress::apply_manifest_suppressions(
            &mut audit_findings,
            &manifests,
            &|p| std::fs::read_to_string(cwd.join(p)).ok(),
            &|meta| config.severity(meta),
        );
        audit_findings.extend(extra);
    }

    let mut findings: Vec<Finding> = lint
        .findings
        .into_iter()
        .filter(|f| member_files.contains(&f.path))
        .collect();
    findings.extend(audit_findings);
    findings.sort_by(|a, b| {
        (&a.path, a.region.line, a.region.column, &a.rule).cmp(&(
            &b.path,
            b.region.line,
            b.region.column,
            &b.rule,
        ))
    });
    let budgets = all_budgets
        .into_iter()
        .map(|b| (b.budget, b.crate_name))
        .collect();
    Ok(AuditReport {
        workspace: ws,
        crates,
        deploy: scan.targets,
        budgets,
        findings,
        files,
    })
}
