//! The `shutdown-lint` command line, as a library function so `cargo shutdown lint` can
//! share it: [`run`] parses arguments, lints, writes to the given streams and returns the
//! exit status (**contract**: 0 no deny-level finding, 1 deny-level findings, 2 the tool
//! could not run).

use crate::engine::{LintOptions, LintReport, lint_paths};
use crate::registry::all_rules;
use crate::render::{HumanOptions, render_human, render_json};
use clap::{Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// miette reports for a terminal.
    Human,
    /// The JSON contract.
    Json,
    /// SARIF 2.1.0 (GitHub code scanning).
    Sarif,
    /// GitHub workflow annotations.
    Github,
}

/// When to colour human output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Colour {
    /// When stdout is a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Arguments.
#[derive(Debug, Parser)]
#[command(
    name = "shutdown-lint",
    version,
    about = "Find graceful-shutdown hazards in Rust code without compiling it",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Subcommand.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Files or directories to lint (default: `.`).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// List the rules and exit.
    #[arg(long)]
    pub list_rules: bool,
    /// Print counters (files scanned/skipped/parsed, macro bodies not analysed) to stderr.
    #[arg(long)]
    pub stats: bool,
    /// Also lint test code (overrides `include-tests`).
    #[arg(long)]
    pub include_tests: bool,
    /// Also lint `examples/` (overrides `include-examples`).
    #[arg(long)]
    pub include_examples: bool,
    /// Ignore suppression comments.
    #[arg(long)]
    pub no_suppressions: bool,
    /// Also show suppressed findings (human format).
    #[arg(long)]
    pub show_suppressed: bool,
    /// Use this config file (a `shutdown-lint.toml` or `Cargo.toml`) for every path.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
    /// Width of human output.
    #[arg(long, default_value_t = 100)]
    pub width: usize,
    /// Colour human output.
    #[arg(long, value_enum, default_value_t = Colour::Auto)]
    pub color: Colour,
    /// Report only findings that are not in this baseline file; list stale entries.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write every current finding to this baseline file (the run then passes).
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub write_baseline: Option<PathBuf>,
    /// Fix what can be fixed safely, in place; report what remains (exit status as the lint).
    #[arg(long, conflicts_with = "write_baseline")]
    pub fix: bool,
    /// With `--fix` or `--diff`: also apply fixes that change behaviour (HTTP timeouts,
    /// `#[tokio::main]` → `#[shutdown_runtime::main]`).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff and write nothing.
    #[arg(long, conflicts_with = "write_baseline")]
    pub diff: bool,
    /// With `--fix`: write even when the git work tree has uncommitted changes.
    #[arg(long)]
    pub allow_dirty: bool,
    /// With `--fix`: add the `shutdown-runtime` dependency as a path dependency on this
    /// directory (default: version `0.1` from the registry).
    #[arg(long, value_name = "DIR")]
    pub runtime_path: Option<PathBuf>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print a rule's documentation.
    Explain {
        /// Rule name, e.g. `raw-spawn`.
        rule: String,
    },
}

pub(crate) fn render_error(e: &dyn miette::Diagnostic) -> String {
    let mut s = String::new();
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100);
    if handler.render_report(&mut s, e).is_err() {
        s = e.to_string();
    }
    s
}

/// `--list-rules` text.
pub fn list_rules() -> String {
    let mut s = String::new();
    let w = all_rules().iter().map(|r| r.name.len()).max().unwrap_or(0);
    for r in all_rules() {
        let level = format!("{:?}", r.default_severity).to_lowercase();
        s.push_str(&format!("{:w$}  {level:5}  {}\n", r.name, r.summary));
    }
    s
}

/// `explain RULE` text, or `None` for an unknown rule.
pub fn explain(rule: &str) -> Option<String> {
    let r = crate::registry::rule(rule)?;
    let level = format!("{:?}", r.default_severity).to_lowercase();
    Some(format!(
        "# {} (default: {level})\n\n{}\n\n{}\n\nsource: {}\n",
        r.name,
        r.summary,
        r.doc,
        r.help_uri()
    ))
}

/// `--stats` text.
pub fn stats_text(report: &LintReport) -> String {
    let s = &report.stats;
    let mut out = format!(
        "files seen:                 {}\n\
         files skipped (byte scan):  {}\n\
         files skipped (tests):      {}\n\
         files excluded (config):    {}\n\
         files parsed:               {}\n\
         parse errors:               {}\n\
         nightly items not read:     {}\n\
         macro bodies analysed:      {}\n\
         macro bodies not analysed:  {}\n\
         expressions too deep:       {}\n\
         test items skipped:         {}\n\
         bytes read:                 {}\n\
         read for declarations:      {}\n\
         elapsed:                    {:.3} s\n",
        s.files_seen,
        s.files_skipped_by_scan,
        s.files_skipped_as_tests,
        s.files_excluded,
        s.files_parsed,
        s.parse_errors,
        s.nightly_items_unread.len(),
        s.macros_analysed,
        s.macros_unanalysed,
        s.exprs_too_deep,
        s.test_items_skipped,
        s.bytes,
        s.files_read_for_declarations,
        s.elapsed.as_secs_f64()
    );
    for (phase, took) in &s.phases {
        out.push_str(&format!(
            "  {:<26}{:.3} s\n",
            format!("{phase}:"),
            took.as_secs_f64()
        ));
    }
    let mut names: Vec<(&String, &usize)> = s.unanalysed_by_name.iter().collect();
    names.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if !names.is_empty() {
        let top: Vec<String> = names
            .iter()
            .take(8)
            .map(|(n, c)| format!("{n}! {c}"))
            .collect();
        out.push_str(&format!("not analysed, by macro:     {}\n", top.join(", ")));
    }
    out
}

/// Renders `report` in the CI formats: SARIF (with baselined findings as externally
/// suppressed results) or GitHub annotations.
fn render_other(
    format: Format,
    report: &LintReport,
    baseline: &crate::baseline::BaselineRun,
) -> String {
    match format {
        Format::Sarif => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let opts = crate::render::sarif::SarifOptions {
                root: crate::render::sarif::repo_root(&cwd),
                baseline: baseline.file.clone(),
            };
            crate::render::sarif::render_sarif(&report.findings, &baseline.baselined, &opts)
        }
        _ => crate::render::github::render_github(&report.findings),
    }
}

/// Renders `report` in the format `cli` asks for.
pub(crate) fn render_findings(
    cli: &Cli,
    report: &LintReport,
    baseline: &crate::baseline::BaselineRun,
    is_tty: bool,
) -> String {
    match cli.format {
        Format::Human => {
            let colour = match cli.color {
                Colour::Always => true,
                Colour::Never => false,
                Colour::Auto => is_tty && std::env::var_os("NO_COLOR").is_none(),
            };
            render_human(
                report,
                HumanOptions {
                    width: cli.width,
                    colour,
                    show_suppressed: cli.show_suppressed,
                },
            )
        }
        Format::Json => render_json(report),
        other => render_other(other, report, baseline),
    }
}

/// Runs the command line; returns the exit status.
///
/// # Examples
/// ```
/// let mut out = Vec::new();
/// let mut err = Vec::new();
/// let code = shutdown_lint::cli::run(["shutdown-lint", "--list-rules"], &mut out, &mut err, false);
/// assert_eq!(code, 0);
/// assert!(String::from_utf8(out).unwrap().contains("raw-spawn"));
/// ```
pub fn run<I, T>(args: I, stdout: &mut dyn Write, stderr: &mut dyn Write, is_tty: bool) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = stdout.write_all(text.as_bytes());
                    0
                }
                _ => {
                    let _ = stderr.write_all(text.as_bytes());
                    2
                }
            };
        }
    };
    if let Some(Command::Explain { rule }) = &cli.command {
        return match explain(rule) {
            Some(text) => {
                let _ = stdout.write_all(text.as_bytes());
                0
            }
            None => {
                let names: Vec<&str> = all_rules().iter().map(|r| r.name).collect();
                let _ = writeln!(
                    stderr,
                    "error: unknown rule `{rule}`\n  known rules: {}",
                    names.join(", ")
                );
                2
            }
        };
    }
    if cli.list_rules {
        let _ = stdout.write_all(list_rules().as_bytes());
        return 0;
    }
    if cli.threads == Some(0) {
        let _ = writeln!(stderr, "error: `--threads` must be at least 1");
        return 2;
    }
    let opts = LintOptions {
        include_tests: cli.include_tests.then_some(true),
        include_examples: cli.include_examples.then_some(true),
        no_suppressions: cli.no_suppressions,
        threads: cli.threads,
        config: cli.config.clone(),
        cwd: None,
        cargo_home: None,
        all_dependency_signals: false,
    };
    if cli.fix || cli.diff {
        return crate::fix::cli::run_fix(&cli, opts, stdout, stderr, is_tty);
    }
    for (set, flag) in [
        (cli.unsafe_fixes, "--unsafe-fixes"),
        (cli.allow_dirty, "--allow-dirty"),
        (cli.runtime_path.is_some(), "--runtime-path"),
    ] {
        if set {
            let _ = writeln!(
                stderr,
                "error: `{flag}` only applies with `--fix` or `--diff`"
            );
            return 2;
        }
    }
    let mut report = match lint_paths(&cli.paths, &opts) {
        Ok(r) => r,
        Err(e) => {
            let _ = stderr.write_all(render_error(&e).as_bytes());
            return 2;
        }
    };
    let Ok(baseline) = crate::baseline::run_cli(
        &mut report.findings,
        cli.baseline.as_deref(),
        cli.write_baseline.as_deref(),
        stderr,
    ) else {
        return 2;
    };
    let text = render_findings(&cli, &report, &baseline, is_tty);
    let _ = stdout.write_all(text.as_bytes());
    if cli.stats {
        let _ = stderr.write_all(stats_text(&report).as_bytes());
    }
    report.exit_code()
}
