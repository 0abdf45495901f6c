//! Fix time against lint time of the same tree, measured side by side in one run (issue 11:
//! fix ≤ 2 × lint), and the share of findings each rule's fixer fixes.
//!
//! ```text
//! SHUTDOWN_FIX_BENCH_TREE=/tmp/real/influxdb cargo bench -p shutdown-lint --bench fix_vs_lint
//! ```
//!
//! The fix is planned with `--unsafe-fixes` and not written (what `--diff` does: lint, plan
//! every file, re-parse every result), so the tree is left as it is and every round does the
//! same work. Without `SHUTDOWN_FIX_BENCH_TREE` the bench runs on this repository's
//! compile-proof fixture (small: the ratio is dominated by start-up). Rounds alternate lint
//! and fix; `SHUTDOWN_FIX_BENCH_ROUNDS` (default 5) sets how many; medians are reported.

use shutdown_lint::engine::{LintOptions, lint_paths};
use shutdown_lint::fix::run::{FIXABLE, FixOptions, Outcome, plan};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const TREE_VAR: &str = "SHUTDOWN_FIX_BENCH_TREE";
const ROUNDS_VAR: &str = "SHUTDOWN_FIX_BENCH_ROUNDS";
const TARGET: f64 = 2.0;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let tree = std::env::var_os(TREE_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fix/workspace")
        });
    if !tree.is_dir() {
        println!(
            "fix_vs_lint: skipped: {TREE_VAR}={} is not a directory",
            tree.display()
        );
        return;
    }
    let rounds: usize = std::env::var(ROUNDS_VAR)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(1);
    let paths = [tree.clone()];
    let lint_opts = LintOptions {
        cwd: Some(tree.clone()),
        ..LintOptions::default()
    };
    let fix_opts = FixOptions {
        lint: lint_opts.clone(),
        unsafe_fixes: true,
        ..FixOptions::default()
    };
    let (mut lint_t, mut fix_t) = (Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..rounds {
        let t = Instant::now();
        let r = lint_paths(&paths, &lint_opts).expect("lint");
        lint_t.push(t.elapsed());
        std::hint::black_box(r);
        let t = Instant::now();
        let f = plan(&paths, &fix_opts).expect("fix");
        fix_t.push(t.elapsed());
        last = Some(f);
    }
    let report = last.expect("one round");
    let (lint, fix) = (median(lint_t), median(fix_t));
    let ratio = fix.as_secs_f64() / lint.as_secs_f64();
    println!(
        "fix_vs_lint: {} ({} files): lint {:.3} s, fix (plan, --unsafe-fixes) {:.3} s, ratio {ratio:.2}x (target <= {TARGET}x: {})",
        tree.display(),
        report.before.stats.files_seen,
        lint.as_secs_f64(),
        fix.as_secs_f64(),
        if ratio <= TARGET { "met" } else { "NOT met" }
    );
    let mut per_rule: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (i, f) in report.before.findings.iter().enumerate() {
        if f.suppressed.is_some() || !FIXABLE.contains(&f.rule.as_str()) {
            continue;
        }
        let e = per_rule.entry(f.rule.as_str()).or_default();
        e.1 += 1;
        if matches!(report.outcomes.get(&i), Some(Outcome::Fixed(_))) {
            e.0 += 1;
        }
    }
    for (rule, (fixed, all)) in per_rule {
        println!(
            "fix_vs_lint: {rule}: {fixed}/{all} fixed ({:.0}%)",
            100.0 * fixed as f64 / all as f64
        );
    }
}
