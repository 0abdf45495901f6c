//! The fix run: lint (the same engine as the lint), plan every file's fixes in parallel
//! (per-rule fixers, overlap resolution, `use` lines, a re-parse of the result), add the
//! runtime dependency to the packages touched, and — unless it is a `--diff` — write every
//! changed file atomically. Nothing is written before every file's new text is known and
//! parses.

// Config errors carry the TOML text for labelled reports (see the engine).
#![allow(clippy::result_large_err)]

use super::cx::FileCx;
use super::edit::{self, Applicability, Fix};
use super::index::SpanIndex;
use super::manifest::{self, RuntimeSource};
use super::{http, imports, main_attr, reparse, spawn, thread};
use crate::engine::{LintError, LintOptions, LintReport, lint_paths};
use crate::finding::{Finding, Severity};
use crate::source::LineIndex;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How to run.
#[derive(Debug, Clone, Default)]
pub struct FixOptions {
    /// Lint options (config, include-tests, suppressions, threads).
    pub lint: LintOptions,
    /// Also apply unsafe fixes.
    pub unsafe_fixes: bool,
    /// Where the added `shutdown-runtime` dependency comes from.
    pub runtime: RuntimeSource,
}

/// What became of one finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Fixed (or, for `--diff`, would be).
    Fixed(String),
    /// An unsafe fix exists; `--unsafe-fixes` applies it.
    NeedsUnsafe(String),
    /// No fix, and why.
    NoFix(String),
    /// A fix was found but not applied, and why (overlap, the result did not parse, the
    /// manifest could not be changed).
    Dropped(String),
}

/// One file's old and new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Absolute path.
    pub path: PathBuf,
    /// As shown.
    pub display: PathBuf,
    /// Before.
    pub old: String,
    /// After.
    pub new: String,
}

/// The result of planning a fix run.
#[derive(Debug, Clone, Default)]
pub struct FixReport {
    /// The lint before fixing.
    pub before: LintReport,
    /// Outcome per finding of `before` that was not suppressed (by index).
    pub outcomes: BTreeMap<usize, Outcome>,
    /// Files to change (sources first, then manifests), in path order.
    pub changes: Vec<FileChange>,
    /// Files that do not parse (left untouched).
    pub unparsed: Vec<PathBuf>,
    /// Manifests the runtime dependency is added to.
    pub manifests: Vec<PathBuf>,
    /// Packages whose manifest was not found: the dependency is the user's to add.
    pub no_manifest: Vec<PathBuf>,
    /// What remains after fixing, positions as in the fixed files.
    pub remaining: LintReport,
}

impl FixReport {
    /// Exit status for what remains (as the lint's).
    pub fn exit_code(&self) -> i32 {
        self.remaining.exit_code()
    }

    /// Number of findings fixed.
    pub fn fixed(&self) -> usize {
        self.outcomes
            .values()
            .filter(|o| matches!(o, Outcome::Fixed(_)))
            .count()
    }
}

/// Rules the fixers know.
pub const FIXABLE: &[&str] = &[
    "raw-spawn",
    "detached-thread",
    "http-no-timeout",
    "sigterm-missing",
];

struct FileJob {
    abs: PathBuf,
    display: PathBuf,
    findings: Vec<usize>,
    rt: String,
    timeout_secs: u64,
}

struct FilePlan {
    old: String,
    new: Option<String>,
    applied: Vec<edit::Edit>,
    outcomes: Vec<(usize, Outcome)>,
    macros: bool,
    unparsed: bool,
}

/// The overall timeout the HTTP fix writes: below the drain budget (half of it, at most
/// 10 s, at least 1 s).
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use shutdown_lint::fix::run::timeout_below;
/// assert_eq!(timeout_below(None), 10);
/// assert_eq!(timeout_below(Some(Duration::from_secs(8))), 4);
/// assert_eq!(timeout_below(Some(Duration::from_millis(500))), 1);
/// ```
pub fn timeout_below(budget: Option<Duration>) -> u64 {
    match budget {
        None => 10,
        Some(b) => (b.as_secs() / 2).clamp(1, 10),
    }
}

/// The grace period of the deploy manifests the audit reads (the shortest one the process
/// gets), else 30 s, as the `grace = ".."` text of `#[shutdown_runtime::main]`.
pub fn grace_for(start: &Path) -> String {
    let secs = crate::manifest::workspace::Workspace::discover(start)
        .ok()
        .map(|ws| crate::deploy::scan(&ws, &|p| p.to_path_buf()))
        .and_then(|scan| {
            scan.targets
                .iter()
                .map(|t| t.effective_grace())
                .filter(|g| !g.is_zero())
                .min()
        })
        .map_or(30, |g| g.as_secs().max(1));
    format!("{secs}s")
}

fn plan_file(
    job: &FileJob,
    report: &LintReport,
    sites: &[super::site::FixSite],
    grace: &str,
    unsafe_fixes: bool,
) -> FilePlan {
    let mut plan = FilePlan {
        old: String::new(),
        new: None,
        applied: Vec::new(),
        outcomes: Vec::new(),
        macros: false,
        unparsed: false,
    };
    let no_fix = |plan: &mut FilePlan, why: &str| {
        for &i in &job.findings {
            plan.outcomes.push((i, Outcome::NoFix(why.to_string())));
        }
    };
    let Ok(text) = std::fs::read_to_string(&job.abs) else {
        no_fix(&mut plan, "the file could not be read");
        return plan;
    };
    let index = match SpanIndex::build(&text) {
        Ok(ix) => ix,
        Err(_) => {
            plan.unparsed = true;
            no_fix(&mut plan, "the file does not parse; left untouched");
            return plan;
        }
    };
    let cx = FileCx {
        text: &text,
        index: &index,
        sites,
        rt: &job.rt,
        timeout_secs: job.timeout_secs,
        grace,
    };
    let mut fixes: Vec<Fix> = Vec::new();
    let mut sigterm: Vec<(usize, &Finding)> = Vec::new();
    for &i in &job.findings {
        let f = &report.findings[i];
        let result = match f.rule.as_str() {
            "raw-spawn" => spawn::fix(&cx, i, f),
            "detached-thread" => thread::fix(&cx, i, f),
            "http-no-timeout" => http::fix(&cx, i, f),
            "sigterm-missing" => {
                sigterm.push((i, f));
                continue;
            }
            other => Err(format!("`{other}` has no automatic fix")),
        };
        match result {
            Ok(fix) => fixes.push(fix),
            Err(why) => plan.outcomes.push((i, Outcome::NoFix(why))),
        }
    }
    if !sigterm.is_empty() {
        match main_attr::fix(&cx, &sigterm) {
            Ok(fix) => fixes.push(fix),
            Err(why) => {
                for (i, _) in &sigterm {
                    plan.outcomes.push((*i, Outcome::NoFix(why.clone())));
                }
            }
        }
    }
    // unsafe fixes wait for --unsafe-fixes
    let mut candidates = Vec::new();
    for mut fix in fixes {
        if fix.applicability == Applicability::Unsafe && !unsafe_fixes {
            for &i in &fix.findings {
                plan.outcomes
                    .push((i, Outcome::NeedsUnsafe(fix.title.clone())));
            }
            continue;
        }
        if fix.needs_duration && fix.edits.iter().any(|e| index.in_inline_mod(e.range.start)) {
            // a file-level `use` does not reach into an inline module
            for e in &mut fix.edits {
                e.text = e.text.replace("Duration::", "std::time::Duration::");
            }
            fix.needs_duration = false;
        }
        candidates.push(fix);
    }
    let (chosen, left) = edit::select(&candidates);
    for &l in &left {
        for &i in &candidates[l].findings {
            plan.outcomes.push((
                i,
                Outcome::Dropped("overlaps another fix; run the fix again".into()),
            ));
        }
    }
    if chosen.is_empty() {
        return plan;
    }
    let chosen: Vec<Fix> = chosen.iter().map(|&c| candidates[c].clone()).collect();
    let checked = reparse::apply_checked(&text, &chosen, &|set: &[&Fix], fixed: &str| {
        let mut extra = imports::remove_unused(&text, fixed, &index);
        if set.iter().any(|f| f.needs_duration) {
            let removed: Vec<_> = extra.iter().map(|e| e.range.clone()).collect();
            extra.extend(imports::add_use_avoiding(
                &text,
                &index,
                "std::time",
                "Duration",
                &removed,
            ));
        }
        extra
    });
    for &d in &checked.dropped {
        for &i in &chosen[d].findings {
            plan.outcomes.push((
                i,
                Outcome::Dropped("the fixed code would not parse; left as it is".into()),
            ));
        }
    }
    if checked.kept.is_empty() {
        return plan;
    }
    for &k in &checked.kept {
        let f = &chosen[k];
        plan.macros |= f.needs_macros;
        for &i in &f.findings {
            plan.outcomes.push((i, Outcome::Fixed(f.title.clone())));
        }
    }
    let (new, edits) = (checked.text, checked.edits);
    plan.new = Some(new);
    plan.applied = edits;
    plan.old = text;
    plan
}

/// Lints `paths` and plans every fix; writes nothing (see [`write`]).
///
/// # Examples
/// ```
/// use shutdown_lint::fix::run::{plan, FixOptions, Outcome};
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.rs"), "fn f() { tokio::spawn(serve()); }\n").unwrap();
/// let r = plan(&[dir.path().to_path_buf()], &FixOptions::default()).unwrap();
/// assert_eq!(r.changes[0].new, "fn f() { shutdown_runtime::spawn_named(\"serve\", serve()); }\n");
/// assert!(matches!(r.outcomes[&0], Outcome::Fixed(_)));
/// assert_eq!(r.exit_code(), 0);
/// ```
pub fn plan(paths: &[PathBuf], opts: &FixOptions) -> Result<FixReport, LintError> {
    let before = lint_paths(paths, &opts.lint)?;
    let cwd = match &opts.lint.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir()
            .map_err(|e| LintError::Io(format!("no current directory: {e}")))?,
    };
    let abs_of = |p: &Path| {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        }
    };
    let mut out = FixReport {
        before: before.clone(),
        ..FixReport::default()
    };

    // findings per file
    let mut by_file: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    for (i, f) in before.findings.iter().enumerate() {
        if f.suppressed.is_some() || f.severity == Severity::Allow {
            continue;
        }
        if f.rule == "parse-error" {
            out.unparsed.push(f.path.clone());
        }
        if !FIXABLE.contains(&f.rule.as_str()) {
            out.outcomes.insert(
                i,
                Outcome::NoFix(format!("`{}` has no automatic fix", f.rule)),
            );
            continue;
        }
        by_file.entry(f.path.clone()).or_default().push(i);
    }
    let sites: HashMap<&Path, &[super::site::FixSite]> = before
        .files
        .iter()
        .map(|f| (f.path.as_path(), f.fix_sites.as_slice()))
        .collect();

    // per-file values: runtime crate name (from the package), HTTP timeout (from the config)
    let mut pkg_of: HashMap<PathBuf, Option<PathBuf>> = HashMap::new();
    let mut rt_of: HashMap<PathBuf, String> = HashMap::new();
    let mut jobs = Vec::new();
    for (display, findings) in by_file {
        let abs = abs_of(&display);
        let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
        let pkg = pkg_of
            .entry(dir.clone())
            .or_insert_with(|| manifest::package_manifest(&abs))
            .clone();
        let rt = match &pkg {
            Some(m) => rt_of
                .entry(m.clone())
                .or_insert_with(|| {
                    std::fs::read_to_string(m)
                        .ok()
                        .and_then(|t| manifest::runtime_crate_name(&t))
                        .unwrap_or_else(|| "shutdown_runtime".into())
                })
                .clone(),
            None => "shutdown_runtime".into(),
        };
        let budget = crate::config::Config::discover(&abs)
            .ok()
            .and_then(|c| c.drain_budget);
        jobs.push(FileJob {
            abs,
            display,
            findings,
            rt,
            timeout_secs: timeout_below(budget),
        });
    }
    let grace = if jobs.iter().any(|j| {
        j.findings
            .iter()
            .any(|&i| before.findings[i].rule == "sigterm-missing")
    }) {
        grace_for(&abs_of(
            paths.first().map_or(Path::new("."), |p| p.as_path()),
        ))
    } else {
        "30s".to_string()
    };

    // plan files in parallel, on large stacks (deep syntax trees)
    let empty: &[super::site::FixSite] = &[];
    let plans: Vec<Option<FilePlan>> =
        crate::pool::map_on_large_stacks(&jobs, opts.lint.threads, |job| {
            let s = sites.get(job.display.as_path()).copied().unwrap_or(empty);
            plan_file(job, &before, s, &grace, opts.unsafe_fixes)
        });

    // manifests, per package touched
    let mut macros_of: BTreeMap<PathBuf, bool> = BTreeMap::new();
    let mut files_of: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    let mut results: Vec<(usize, FilePlan)> = Vec::new();
    for (j, p) in plans.into_iter().enumerate() {
        let Some(p) = p else { continue };
        if p.unparsed && !out.unparsed.contains(&jobs[j].display) {
            out.unparsed.push(jobs[j].display.clone());
        }
        if p.new.is_some() {
            let dir = jobs[j]
                .abs
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            match pkg_of.get(&dir).cloned().flatten() {
                Some(m) => {
                    *macros_of.entry(m.clone()).or_default() |= p.macros;
                    files_of.entry(m).or_default().push(results.len());
                }
                None => out.no_manifest.push(jobs[j].display.clone()),
            }
        }
        results.push((j, p));
    }
    let mut manifest_text: BTreeMap<PathBuf, (String, String)> = BTreeMap::new();
    let read = |m: &Path, cache: &mut BTreeMap<PathBuf, (String, String)>| -> Option<String> {
        if let Some((_, cur)) = cache.get(m) {
            return Some(cur.clone());
        }
        let t = std::fs::read_to_string(m).ok()?;
        cache.insert(m.to_path_buf(), (t.clone(), t.clone()));
        Some(t)
    };
    for (pkg, macros) in &macros_of {
        let ws = manifest::workspace_manifest(pkg).filter(|w| w != pkg);
        let pkg_text = read(pkg, &mut manifest_text);
        let ws_text = ws.as_ref().and_then(|w| read(w, &mut manifest_text));
        let result = match &pkg_text {
            Some(t) => manifest::add_runtime(t, ws_text.as_deref(), &opts.runtime, *macros),
            None => Err("cannot be read".into()),
        };
        match result {
            Ok(e) => {
                if let Some(t) = e.package {
                    manifest_text.entry(pkg.clone()).or_default().1 = t;
                }
                if let (Some(t), Some(w)) = (e.workspace, &ws) {
                    manifest_text.entry(w.clone()).or_default().1 = t;
                }
            }
            Err(why) => {
                // the package's fixes would not build: drop them
                for &r in files_of.get(pkg).map(Vec::as_slice).unwrap_or(&[]) {
                    let p = &mut results[r].1;
                    p.new = None;
                    for (_, o) in &mut p.outcomes {
                        if let Outcome::Fixed(_) = o {
                            *o = Outcome::Dropped(format!(
                                "{}: the runtime dependency could not be added: {why}",
                                pkg.display()
                            ));
                        }
                    }
                }
            }
        }
    }

    // outcomes, changes, remaining findings at their new positions
    let mut new_text: HashMap<PathBuf, (String, Vec<edit::Edit>)> = HashMap::new();
    for (j, p) in results {
        for (i, o) in p.outcomes {
            out.outcomes.insert(i, o);
        }
        if let Some(new) = p.new {
            let job = &jobs[j];
            out.changes.push(FileChange {
                path: job.abs.clone(),
                display: job.display.clone(),
                old: p.old,
                new: new.clone(),
            });
            new_text.insert(job.display.clone(), (new, p.applied));
        }
    }
    for (m, (old, new)) in manifest_text {
        if old != new {
            out.manifests.push(m.clone());
            let display = m
                .strip_prefix(&cwd)
                .map(Path::to_path_buf)
                .unwrap_or(m.clone());
            out.changes.push(FileChange {
                path: m,
                display,
                old,
                new,
            });
        }
    }
    let mut remaining = before.clone();
    remaining.findings = before
        .findings
        .iter()
        .enumerate()
        .filter(|(i, _)| !matches!(out.outcomes.get(i), Some(Outcome::Fixed(_))))
        .map(|(_, f)| {
            let mut f = f.clone();
            if let Some((text, edits)) = new_text.get(&f.path) {
                let start = edit::map_offset(f.region.offset, edits);
                let end = edit::map_offset(f.region.offset + f.region.len, edits);
                if let (Some(s), Some(e)) = (start, end) {
                    f.region = LineIndex::new(text).region(s, e.max(s));
                }
            }
            f
        })
        .collect();
    out.remaining = remaining;
    Ok(out)
}

/// Writes every change of `report` (each file atomically); stops at the first error.
pub fn write(report: &FixReport) -> Result<(), (PathBuf, std::io::Error)> {
    for c in &report.changes {
        super::write::write_atomic(&c.path, &c.new).map_err(|e| (c.display.clone(), e))?;
    }
    Ok(())
}
