//! The `--fix` / `--diff` branch of the command line (`shutdown-lint --fix`,
//! `cargo shutdown fix`): plan, then print a diff (`--diff`, nothing written) or check the
//! git tree and write; the remaining findings go to stdout in the chosen format, the
//! summary to stderr; the exit status is the lint's for what remains.

use super::run::{FixOptions, plan, write};
use super::{diff, git, manifest::RuntimeSource, summary};
use crate::cli::{Cli, render_error, render_findings, stats_text};
use crate::engine::LintOptions;
use std::io::Write;

/// Runs a fix; returns the exit status.
pub(crate) fn run_fix(
    cli: &Cli,
    lint: LintOptions,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    is_tty: bool,
) -> i32 {
    let runtime = match &cli.runtime_path {
        Some(p) => {
            let abs = std::path::absolute(p).unwrap_or_else(|_| p.clone());
            if !abs.join("Cargo.toml").is_file() {
                let _ = writeln!(
                    stderr,
                    "error: `--runtime-path {}` holds no Cargo.toml",
                    p.display()
                );
                return 2;
            }
            RuntimeSource::Path(abs)
        }
        None => RuntimeSource::default(),
    };
    let opts = FixOptions {
        lint,
        unsafe_fixes: cli.unsafe_fixes,
        runtime,
    };
    let mut report = match plan(&cli.paths, &opts) {
        Ok(r) => r,
        Err(e) => {
            let _ = stderr.write_all(render_error(&e).as_bytes());
            return 2;
        }
    };
    if cli.diff {
        for c in &report.changes {
            let _ = stdout.write_all(diff::unified(&c.display, &c.old, &c.new).as_bytes());
        }
    } else if !report.changes.is_empty() {
        if !cli.allow_dirty {
            let paths: Vec<_> = report.changes.iter().map(|c| c.path.clone()).collect();
            let dirty = git::dirty(&paths);
            if !dirty.is_empty() {
                let _ = writeln!(
                    stderr,
                    "error: the git work tree has uncommitted changes; commit or stash them, \
                     or pass `--allow-dirty`"
                );
                for d in dirty.iter().take(10) {
                    let _ = writeln!(stderr, "  {d}");
                }
                if dirty.len() > 10 {
                    let _ = writeln!(stderr, "  and {} more", dirty.len() - 10);
                }
                return 2;
            }
        }
        if let Err((path, e)) = write(&report) {
            let _ = writeln!(stderr, "error: cannot write {}: {e}", path.display());
            return 2;
        }
    }
    let summary_text = summary::render_summary(&report, !cli.diff);
    if !cli.diff {
        let Ok(baseline) = crate::baseline::run_cli(
            &mut report.remaining.findings,
            cli.baseline.as_deref(),
            None,
            stderr,
        ) else {
            return 2;
        };
        let text = render_findings(cli, &report.remaining, &baseline, is_tty);
        let _ = stdout.write_all(text.as_bytes());
    }
    let _ = stderr.write_all(summary_text.as_bytes());
    if cli.stats {
        let _ = stderr.write_all(stats_text(&report.before).as_bytes());
    }
    report.exit_code()
}
