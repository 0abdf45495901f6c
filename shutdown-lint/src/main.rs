//! `shutdown-lint [PATH ...]`: a thin shell over [`shutdown_lint::cli::run`].

use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdout = std::io::stdout();
    let tty = stdout.is_terminal();
    let code = shutdown_lint::cli::run(
        std::env::args_os(),
        &mut stdout.lock(),
        &mut std::io::stderr().lock(),
        tty,
    );
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}
