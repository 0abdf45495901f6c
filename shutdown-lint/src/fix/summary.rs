//! The fix summary (printed on stderr): what was fixed, per rule; which manifests got the
//! runtime dependency; what needs `--unsafe-fixes`; what has no fix and why; files left
//! untouched because they do not parse.

use super::run::{FixReport, Outcome};
use std::collections::BTreeMap;
use std::fmt::Write;

/// How many per-site lines a section lists before it says "and N more".
const LIST_LIMIT: usize = 20;

fn per_rule(report: &FixReport, pick: impl Fn(&Outcome) -> bool) -> BTreeMap<&str, usize> {
    let mut m = BTreeMap::new();
    for (i, o) in &report.outcomes {
        if pick(o) {
            *m.entry(report.before.findings[*i].rule.as_str())
                .or_insert(0) += 1;
        }
    }
    m
}

fn counts(m: &BTreeMap<&str, usize>) -> String {
    m.iter()
        .map(|(r, n)| format!("{r} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The summary; `applied` says whether the files were written (`--fix`) or not (`--diff`).
///
/// # Examples
/// ```
/// use shutdown_lint::fix::{run::{plan, FixOptions}, summary::render_summary};
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.rs"), "fn f() { std::thread::spawn(|| ()); }\n").unwrap();
/// let r = plan(&[dir.path().to_path_buf()], &FixOptions::default()).unwrap();
/// assert!(render_summary(&r, false).starts_with("would fix 1 finding in 1 file (detached-thread 1)"));
/// ```
pub fn render_summary(report: &FixReport, applied: bool) -> String {
    let mut s = String::new();
    let fixed = per_rule(report, |o| matches!(o, Outcome::Fixed(_)));
    let n: usize = fixed.values().sum();
    let files = report
        .changes
        .iter()
        .filter(|c| !report.manifests.contains(&c.path))
        .count();
    let verb = if applied { "fixed" } else { "would fix" };
    let plural = |n: usize, w: &str| {
        if n == 1 {
            w.to_string()
        } else {
            format!("{w}s")
        }
    };
    if n == 0 {
        let _ = writeln!(s, "nothing to fix");
    } else {
        let _ = writeln!(
            s,
            "{verb} {n} {} in {files} {} ({})",
            plural(n, "finding"),
            plural(files, "file"),
            counts(&fixed)
        );
    }
    if !report.manifests.is_empty() {
        let list: Vec<String> = report
            .changes
            .iter()
            .filter(|c| report.manifests.contains(&c.path))
            .map(|c| c.display.display().to_string())
            .collect();
        let verb = if applied { "added" } else { "would add" };
        let _ = writeln!(s, "{verb} `shutdown-runtime` to {}", list.join(", "));
    }
    for p in &report.no_manifest {
        let _ = writeln!(
            s,
            "no Cargo.toml found for {}: add the `shutdown-runtime` dependency by hand",
            p.display()
        );
    }
    let unsafe_ = per_rule(report, |o| matches!(o, Outcome::NeedsUnsafe(_)));
    let nu: usize = unsafe_.values().sum();
    if nu > 0 {
        let _ = writeln!(
            s,
            "{nu} more {} with `--unsafe-fixes` ({})",
            if nu == 1 { "is fixable" } else { "are fixable" },
            counts(&unsafe_)
        );
    }
    let mut section = |title: &str, pick: &dyn Fn(&Outcome) -> Option<&String>| {
        let rows: Vec<String> = report
            .outcomes
            .iter()
            .filter_map(|(i, o)| {
                let why = pick(o)?;
                let f = &report.before.findings[*i];
                Some(format!(
                    "  {}:{}:{}: {}: {why}",
                    f.path.display(),
                    f.region.line,
                    f.region.column,
                    f.rule
                ))
            })
            .collect();
        if rows.is_empty() {
            return;
        }
        let _ = writeln!(s, "{title} ({}):", rows.len());
        for r in rows.iter().take(LIST_LIMIT) {
            let _ = writeln!(s, "{r}");
        }
        if rows.len() > LIST_LIMIT {
            let _ = writeln!(s, "  and {} more", rows.len() - LIST_LIMIT);
        }
    };
    section("not applied", &|o| match o {
        Outcome::Dropped(w) => Some(w),
        _ => None,
    });
    section("no fix", &|o| match o {
        Outcome::NoFix(w) => Some(w),
        _ => None,
    });
    if !report.unparsed.is_empty() {
        let list: Vec<String> = report
            .unparsed
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let _ = writeln!(s, "left untouched (do not parse): {}", list.join(", "));
    }
    s
}
