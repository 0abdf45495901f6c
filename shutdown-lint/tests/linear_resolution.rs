//! Name resolution is linear (issue 10, item 2): glob imports and unresolved names are
//! resolved through memoised tables, never by a search per call. The test counts the
//! resolver's elementary steps ([`shutdown_lint::resolve::Resolver::ops`]) on synthetic
//! files instead of timing them: doubling the calls or the globs at most doubles the work
//! (plus a constant), where the old search grew with globs × calls and exponentially with
//! nested globs (one call under 16 globs took 705 ms).

use shutdown_lint::analysis::analyze_source;
use shutdown_lint::config::Config;

/// A file with `globs` glob imports of modules of the crate and `calls` calls of names
/// that none of them provides (the worst case: every glob is searched), cycling over
/// `names` distinct names, plus one raw spawn that must still be found.
fn synthetic(globs: usize, calls: usize, names: usize) -> String {
    let mut s = String::new();
    for i in 0..globs {
        s.push_str(&format!("use crate::m{i}::*;\n"));
    }
    for i in 0..globs {
        // modules of the file that glob each other: nested globs
        s.push_str(&format!(
            "mod m{i} {{ use super::*; use tokio::task::*; }}\n"
        ));
    }
    s.push_str("fn main() {\n");
    for j in 0..calls {
        s.push_str(&format!("    let a{j} = foo{}(x);\n", j % names));
    }
    s.push_str("    spawn_blocking(|| ());\n}\n");
    s
}

fn ops(globs: usize, calls: usize, names: usize) -> u64 {
    let a = analyze_source(
        "src/lib.rs".as_ref(),
        &synthetic(globs, calls, names),
        &Config::default(),
    );
    assert_eq!(
        a.findings.iter().filter(|f| f.rule == "raw-spawn").count(),
        1,
        "the spawn through `tokio::task::*` is still resolved: {:?}",
        a.findings
    );
    a.resolve_ops
}

#[test]
fn work_grows_linearly_with_calls() {
    let small = ops(16, 250, 250);
    let large = ops(16, 500, 500);
    assert!(
        large <= 2 * small + 200,
        "500 calls took {large} steps, 250 calls {small}: not linear"
    );
}

#[test]
fn work_grows_linearly_with_globs() {
    let g8 = ops(8, 500, 500);
    let g16 = ops(16, 500, 500);
    assert!(
        g16 <= 2 * g8 + 2_000,
        "16 globs took {g16} steps, 8 globs {g8}: not linear"
    );
}

#[test]
fn repeated_names_are_memoised() {
    // once 10 names are known, each further call of one of them costs the same few steps
    // whether 2 or 16 globs are in scope
    let marginal = |globs| ops(globs, 500, 10) - ops(globs, 10, 10);
    let (g2, g16) = (marginal(2), marginal(16));
    assert!(
        g16 <= g2 + 50,
        "490 more calls of known names: {g16} steps under 16 globs, {g2} under 2"
    );
}

#[test]
fn bounded_per_glob_and_name() {
    // at most a few steps per (module, glob, distinct name)
    let n = ops(16, 500, 500);
    let modules = 17;
    assert!(
        n <= (modules * 16 + 16 + 16) as u64 * 500 / 4 + 100_000,
        "{n} steps for 16 globs and 500 names"
    );
}
