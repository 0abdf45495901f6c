//! The `cargo shutdown audit` command line: parse arguments, run [`audit`](super::audit),
//! apply a baseline, render, and map the outcome to an exit status (0 clean, 1 deny-level
//! findings, 2 the audit could not run). Output goes to the writers it is given, so the
//! binary stays a thin shell and tests can capture everything.

use super::report::AuditReport;
use super::{AuditOptions, audit};
use crate::baseline::{BaselineRun, run_cli};
use crate::cli::Colour;
use crate::finding::{Finding, Severity};
use crate::render::github::render_github;
use crate::render::human::{HumanOptions, render_findings};
use crate::render::sarif::{SarifOptions, render_sarif, repo_root};
use clap::{Parser, ValueEnum};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Output formats of the audit.
///
/// # Examples
///
/// ```
/// use clap::ValueEnum;
/// use shutdown_lint::audit::cli::AuditFormat;
/// assert_eq!(AuditFormat::from_str("sarif", false), Ok(AuditFormat::Sarif));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuditFormat {
    /// Per-crate table, deploy targets, budgets, then the findings (default).
    Human,
    /// The audit JSON contract.
    Json,
    /// SARIF 2.1.0 for GitHub code scanning.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
}

/// `cargo shutdown audit` arguments.
#[derive(Debug, Parser)]
#[command(
    name = "cargo shutdown audit",
    version,
    about = "Audit a Cargo workspace for shutdown discipline and check its budgets against deploy manifests",
    long_about = "Lints every crate of the workspace, prints a per-crate table (tracked vs raw spawns, \
#[drainable] functions, HTTP clients without timeout, detached threads, SIGTERM handling, suppressions), \
and checks compose files, Kubernetes manifests and Dockerfiles against the budgets in code and config.\n\n\
Exit status: 0 no deny-level finding, 1 deny-level findings, 2 the audit could not run."
)]
pub struct AuditArgs {
    /// Path to `Cargo.toml` (or a directory) of the workspace to audit.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AuditFormat::Human)]
    pub format: AuditFormat,
    /// Report the findings that suppression comments hide.
    #[arg(long)]
    pub no_suppressions: bool,
    /// Lint test code too (overrides `include-tests`).
    #[arg(long)]
    pub include_tests: bool,
    /// Lint `examples/` too, and count examples as binaries (overrides `include-examples`).
    #[arg(long)]
    pub include_examples: bool,
    /// Colour the findings of the human output (`auto`: when stdout is a terminal and
    /// `NO_COLOR` is unset).
    #[arg(long, value_enum, default_value_t = Colour::Auto)]
    pub color: Colour,
    /// Width of the human output's findings.
    #[arg(long, default_value_t = 100)]
    pub width: usize,
    /// Report only findings that are not in this baseline file; list stale entries.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write every current finding to this baseline file (and exit 0).
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub write_baseline: Option<PathBuf>,
}

/// Runs the audit command. `args` starts with the program name (as `std::env::args_os`).
///
/// # Examples
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"lib\"\n").unwrap();
/// let (mut out, mut err) = (Vec::new(), Vec::new());
/// let manifest = dir.path().join("Cargo.toml");
/// let args = ["audit", "--format", "json", "--manifest-path", manifest.to_str().unwrap()];
/// let code = shutdown_lint::audit::cli::run(args.map(Into::into), &mut out, &mut err);
/// assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
/// let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
/// assert_eq!(json["crates"][0]["name"], "lib");
/// ```
pub fn run(
    args: impl IntoIterator<Item = OsString>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    run_tty(args, out, err, false)
}

/// [`run`], told whether `out` is a terminal (for `--color auto`).
///
/// # Examples
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"lib\"\n").unwrap();
/// let manifest = dir.path().join("Cargo.toml");
/// let (mut out, mut err) = (Vec::new(), Vec::new());
/// let args = ["audit", "--color", "never", "--manifest-path", manifest.to_str().unwrap()];
/// let code = shutdown_lint::audit::cli::run_tty(args.map(Into::into), &mut out, &mut err, true);
/// assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
/// assert!(!String::from_utf8(out).unwrap().contains('\u{1b}'));
/// ```
pub fn run_tty(
    args: impl IntoIterator<Item = OsString>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    is_tty: bool,
) -> i32 {
    let args = match AuditArgs::try_parse_from(args) {
        Ok(a) => a,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            return if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = write!(out, "{text}");
                0
            } else {
                let _ = write!(err, "{text}");
                2
            };
        }
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let opts = AuditOptions {
        manifest_path: args.manifest_path.clone(),
        no_suppressions: args.no_suppressions,
        include_tests: args.include_tests.then_some(true),
        include_examples: args.include_examples.then_some(true),
        cwd: Some(cwd.clone()),
    };
    let report = match audit(&opts) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return 2;
        }
    };
    let mut findings = report.findings.clone();
    let Ok(BaselineRun {
        baselined,
        file: baseline_name,
    }) = run_cli(
        &mut findings,
        args.baseline.as_deref(),
        args.write_baseline.as_deref(),
        err,
    )
    else {
        return 2;
    };
    let text = match args.format {
        AuditFormat::Human => {
            let colour = match args.color {
                Colour::Always => true,
                Colour::Never => false,
                Colour::Auto => is_tty && std::env::var_os("NO_COLOR").is_none(),
            };
            let human = HumanOptions {
                width: args.width,
                colour,
                show_suppressed: false,
            };
            render_human(&report, &findings, baselined.len(), &cwd, human)
        }
        AuditFormat::Json => report.to_json(&active(&findings)),
        AuditFormat::Sarif => render_sarif(
            &findings,
            &baselined,
            &SarifOptions {
                root: repo_root(&report.workspace.root),
                baseline: baseline_name,
            },
        ),
        AuditFormat::Github => render_github(&findings),
    };
    let _ = out.write_all(text.as_bytes());
    let deny = findings
        .iter()
        .any(|f| f.suppressed.is_none() && f.severity == Severity::Deny);
    i32::from(deny)
}

fn active(findings: &[Finding]) -> Vec<Finding> {
    findings
        .iter()
        .filter(|f| f.suppressed.is_none() && f.severity != Severity::Allow)
        .cloned()
        .collect()
}

fn render_human(
    report: &AuditReport,
    findings: &[Finding],
    baselined: usize,
    cwd: &Path,
    human: HumanOptions,
) -> String {
    let mut out = report.render_table();
    let shown: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.suppressed.is_none() && f.severity != Severity::Allow)
        .collect();
    if !shown.is_empty() {
        out.push('\n');
        out.push_str(&render_findings(&shown, cwd, human));
    }
    let deny = shown
        .iter()
        .filter(|f| f.severity == Severity::Deny)
        .count();
    let warn = shown.len() - deny;
    let suppressed = findings.iter().filter(|f| f.suppressed.is_some()).count();
    out.push_str(&format!(
        "\naudit: {} crate(s), {} file(s), {} deploy target(s): {deny} error(s), {warn} warning(s), {suppressed} suppressed",
        report.crates.len(),
        report.files,
        report.deploy.len()
    ));
    if baselined > 0 {
        out.push_str(&format!(", {baselined} baselined"));
    }
    out.push('\n');
    out
}
