//! `cargo shutdown lint [ARGS]`, `cargo shutdown fix [ARGS]` and `cargo shutdown audit [ARGS]`.
//!
//! Cargo runs an external subcommand `cargo shutdown ...` as `cargo-shutdown shutdown ...`,
//! so a first argument `shutdown` is dropped; the binary also works when called directly
//! (`cargo-shutdown audit`). `lint` takes exactly the arguments of `shutdown-lint`; `fix`
//! is `shutdown-lint --fix` (same engine, same arguments: `--unsafe-fixes`, `--diff`,
//! `--allow-dirty`, `--runtime-path`);
//! `audit` those of [`shutdown_lint::audit::cli`]. Exit status: 0 clean, 1 deny-level
//! findings, 2 could not run.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;

const USAGE: &str = "\
Shutdown discipline for Cargo workspaces

Usage: cargo shutdown <COMMAND> [ARGS]

Commands:
  lint   Lint paths for shutdown hazards (the `shutdown-lint` command line)
  fix    Fix what can be fixed in place (`shutdown-lint --fix`; `--diff` to look first)
  audit  Audit the workspace: per-crate table, deploy manifests vs budgets

Run `cargo shutdown <COMMAND> --help` for a command's options.
";

fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "shutdown") {
        args.remove(1);
    }
    let stdout = std::io::stdout();
    let tty = stdout.is_terminal();
    let (mut out, mut err) = (stdout.lock(), std::io::stderr().lock());
    let code = match args.get(1).and_then(|a| a.to_str()) {
        Some("lint") => {
            // `cargo shutdown lint x` parses as `shutdown-lint x`
            let rest = std::iter::once(OsString::from("cargo shutdown lint"))
                .chain(args.into_iter().skip(2));
            shutdown_lint::cli::run(rest, &mut out, &mut err, tty)
        }
        Some("fix") => {
            // `cargo shutdown fix x` parses as `shutdown-lint --fix x`
            let rest = [
                OsString::from("cargo shutdown fix"),
                OsString::from("--fix"),
            ]
            .into_iter()
            .chain(args.into_iter().skip(2));
            shutdown_lint::cli::run(rest, &mut out, &mut err, tty)
        }
        Some("audit") => {
            let rest = std::iter::once(OsString::from("cargo shutdown audit"))
                .chain(args.into_iter().skip(2));
            shutdown_lint::audit::cli::run_tty(rest, &mut out, &mut err, tty)
        }
        Some("-h" | "--help" | "help") => {
            print(&mut out, USAGE);
            0
        }
        Some("-V" | "--version") => {
            print(
                &mut out,
                &format!("cargo-shutdown {}\n", env!("CARGO_PKG_VERSION")),
            );
            0
        }
        Some(other) => {
            print(
                &mut err,
                &format!("error: unknown command `{other}`\n\n{USAGE}"),
            );
            2
        }
        None => {
            print(&mut err, USAGE);
            2
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}

fn print(w: &mut dyn std::io::Write, text: &str) {
    let _ = w.write_all(text.as_bytes());
}
