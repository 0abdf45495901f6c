//! `raw-spawn`: a task started with `tokio::spawn` & co., which shutdown cannot drain.

use super::{RuleContext, RuleMeta};
use crate::finding::Finding;
use crate::model::{FileModel, Usage};
use crate::resolve::known;

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::RAW_SPAWN;

/// What to use instead of a raw spawn of function `root` (or of method `method` on a
/// receiver made by `root`), in a `macro_rules!` body when `in_macro`; `written` is how the
/// call spelled `root` when not as `root`
/// (`#[drainable]` routes only [`known::DRAINABLE_ROUTED`] as written:
/// `tokio::task::spawn_blocking(..)`, not `spawn_blocking(..)` after a `use`).
fn help(root: &str, method: Option<&str>, written: Option<&str>, in_macro: bool) -> String {
    let drainable = match written.filter(|w| !known::DRAINABLE_ROUTED.contains(w)) {
        _ if in_macro => " so shutdown can drain the task (`#[drainable]` does not rewrite a \
                          macro's body)"
            .into(),
        None => " so shutdown can drain the task, or mark the enclosing fn `#[drainable]`".into(),
        Some(w) => format!(
            " so shutdown can drain the task (`#[drainable]` routes `{root}(..)` written in \
             full, not `{w}(..)`)"
        ),
    };
    match (root, method) {
        ("tokio::spawn", None) => {
            format!("use `shutdown_runtime::spawn(..)` / `spawn_named(..)`{drainable}")
        }
        ("tokio::task::spawn_blocking", None) => {
            format!("use `shutdown_runtime::spawn_blocking(..)`{drainable}")
        }
        ("tokio::task::spawn_local", None) => {
            format!("use `shutdown_runtime::spawn_local(..)`{drainable}")
        }
        ("actix_rt::spawn" | "ntex_rt::spawn", None) | ("actix_rt::Runtime::new", Some(_)) => {
            "use `shutdown_runtime::spawn_local(..)` (actix and ntex run their tasks on tokio's \
             local set) so shutdown can drain the task"
                .into()
        }
        ("async_std::task::spawn" | "async_std::task::spawn_local", None) => {
            "run it as a tracked tokio task, `shutdown_runtime::spawn(..)` / `spawn_named(..)`: \
             async-std's executor is invisible to shutdown, and its tasks vanish when the \
             process exits"
                .into()
        }
        ("async_std::task::spawn_blocking", None) => {
            "use `shutdown_runtime::spawn_blocking(..)`: async-std's blocking pool is invisible \
             to shutdown"
                .into()
        }
        ("tokio::task::Builder::new", Some("spawn_blocking")) => {
            "use `shutdown_runtime::spawn_blocking(..)` so shutdown waits for the call".into()
        }
        ("tokio::task::Builder::new", Some("spawn_blocking_on")) => {
            "use `shutdown_runtime::spawn_blocking_on(&handle, ..)` so shutdown waits for the \
             call on this runtime"
                .into()
        }
        ("tokio::task::Builder::new", Some("spawn_on" | "spawn_local_on")) => {
            "use `shutdown_runtime::spawn_on(&handle, ..)` (keeping the runtime it names) so \
             shutdown can drain the task"
                .into()
        }
        ("tokio::task::Builder::new", Some(_)) => "use `shutdown_runtime::spawn_named(name, ..)` \
             so shutdown can drain the task and names it in its report"
            .into(),
        (_, Some("spawn_blocking")) => "use `shutdown_runtime::spawn_blocking_on(&handle, ..)` \
             so shutdown waits for the call on this runtime"
            .into(),
        (_, Some(_)) => "use `shutdown_runtime::spawn_on(&handle, ..)` (a runtime's \
             `handle()`) so shutdown can drain the task on this runtime"
            .into(),
        _ => "use a `shutdown_runtime` spawn (`spawn`, `spawn_named`, `spawn_on`) so shutdown \
              can drain the task"
            .into(),
    }
}

fn is_configured(root: &[String], entries: &[String]) -> bool {
    let joined = root.join("::");
    entries.iter().any(|e| {
        let e = e.trim_start_matches("::");
        e == joined
            || (e.starts_with("crate::") && root.len() > 1 && e[7..] == root[1..].join("::"))
    })
}

/// Whether a call of `root` is routed by `#[drainable]`.
fn routed_by_drainable(root: &str) -> bool {
    known::RAW_SPAWN_FNS.contains(&root)
}

/// The type a spawn method is called on, from the chain's root and the steps before it:
/// a runtime `Builder`'s chain is a `Runtime` once built, and a `Handle` after `.handle()`;
/// a task `Builder` is named with its module, not to be read as a thread or runtime builder.
fn receiver_type(root: &str, before: &[crate::model::Step]) -> &'static str {
    let named = |name: &str| before.iter().any(|s| s.name == name);
    match root.rsplit("::").nth(1) {
        _ if root.starts_with("actix_rt::") => "actix_rt::Runtime",
        _ if named("handle") => "Handle",
        Some("Builder") if root.starts_with("tokio::runtime::") && named("build") => "Runtime",
        // tokio's task builder (`tokio::task::Builder::new().name(..).spawn(..)`)
        Some("Builder") => "task::Builder",
        Some("Runtime") => "Runtime",
        Some("LocalSet") => "LocalSet",
        _ => "Handle",
    }
}

/// Reports raw spawns.
pub fn check(cx: &RuleContext<'_>, out: &mut Vec<Finding>) {
    for site in sites(cx.model, &cx.config.spawn_raw) {
        // what was written first, then what it is when that differs (`task::spawn`)
        let mut shown =
            crate::model::as_written(site.written.as_deref(), &site.name, |p| format!("`{p}`"));
        if let Some(m) = &site.macro_definition {
            shown = format!("{shown} in `macro_rules! {m}`, at every use of the macro,");
        }
        // a blocking task cannot be aborted by anyone: only waited for and named
        let mut message = if site.name.ends_with("spawn_blocking") {
            format!(
                "{shown} starts a blocking task the shutdown drain does not track: the drain \
                 does not wait for it, and when the budget runs out it is not reported by name"
            )
        } else {
            format!(
                "{shown} starts a task the shutdown drain does not track: the drain does not \
                 wait for it, and when the budget runs out it is neither aborted nor reported \
                 by name"
            )
        };
        // readers took a spawn whose handle is kept and awaited for a false alarm
        if site.kept {
            message.push_str(" (awaiting its `JoinHandle` does not make the drain wait for it)");
        }
        out.push(cx.finding(&META, site.region, &site.item, message, &site.help));
    }
}

/// Every raw spawn of a file: region, enclosing item, and what was called.
pub fn raw_spawns(
    model: &FileModel,
    configured_raw: &[String],
) -> Vec<(crate::finding::Region, String, String)> {
    sites(model, configured_raw)
        .into_iter()
        .map(|s| (s.region, s.item, s.name))
        .collect()
}

/// One raw spawn.
struct Site {
    region: crate::finding::Region,
    /// The enclosing item.
    item: String,
    /// What was called (`tokio::spawn`, `Handle::spawn`).
    name: String,
    /// The called path as written, when it is not spelled as `name`.
    written: Option<String>,
    /// What to use instead.
    help: String,
    /// Written in the body of `macro_rules!` this name.
    macro_definition: Option<String>,
    /// The task's `JoinHandle` is kept (bound, stored, returned, passed on).
    kept: bool,
}

/// [`raw_spawns`], each with how it was written and the help that says what to use instead.
fn sites(model: &FileModel, configured_raw: &[String]) -> Vec<Site> {
    let mut found = Vec::new();
    // a task that waits for the process's signals, holds no work, or is a `TaskTracker`'s:
    // nothing for the drain to track
    let untracked_work =
        |offset: usize| !model.spawns_no_work(offset) && !model.tracker_tasks.contains(&offset);
    for cu in model.resolved_chains() {
        let ch = &cu.chain;
        let root = ch.root_str();
        if !ch.via_binding
            && (known::RAW_SPAWN_FNS.contains(&root.as_str())
                || is_configured(&ch.root, configured_raw))
        {
            if untracked_work(ch.root_region.offset)
                && !(cu.ctx.in_drainable && routed_by_drainable(&root))
            {
                found.push(Site {
                    region: ch.root_region,
                    item: cu.ctx.item.clone(),
                    help: help(
                        &root,
                        None,
                        ch.written.as_deref(),
                        cu.ctx.macro_definition.is_some(),
                    ),
                    macro_definition: cu.ctx.macro_definition.clone(),
                    name: root.clone(),
                    written: ch.written.clone(),
                    kept: cu.usage == Usage::Kept || !ch.steps.is_empty(),
                });
            }
            continue;
        }
        if let Some(i) = ch.receiver_spawn_step()
            && ch.is_local_step(i)
            && untracked_work(ch.steps[i].region.offset)
        {
            let recv = receiver_type(&root, &ch.steps[..i]);
            let method = &ch.steps[i].name;
            found.push(Site {
                region: ch.steps[i].region,
                item: cu.ctx.item.clone(),
                name: format!("{recv}::{method}"),
                written: None,
                help: help(&root, Some(method), None, cu.ctx.macro_definition.is_some()),
                macro_definition: cu.ctx.macro_definition.clone(),
                kept: cu.usage == Usage::Kept || ch.steps.len() > i + 1,
            });
        }
    }
    for r in &model.refs {
        let p = r.path.join("::");
        if known::RAW_SPAWN_FNS.contains(&p.as_str()) || is_configured(&r.path, configured_raw) {
            found.push(Site {
                region: r.region,
                item: r.ctx.item.clone(),
                help: help(&p, None, None, r.ctx.macro_definition.is_some()),
                name: p,
                written: None,
                macro_definition: r.ctx.macro_definition.clone(),
                kept: false,
            });
        }
    }
    found
}

/// Number of tracked spawns: `shutdown_runtime` spawns, `[spawn] tracked` functions, and
/// spawns routed by `#[drainable]`.
pub fn tracked_spawns(model: &FileModel, configured_tracked: &[String]) -> usize {
    let mut n = 0;
    for cu in model.resolved_chains() {
        let ch = &cu.chain;
        let root = ch.root_str();
        if ch.via_binding && !known::TRACKED_SPAWN_RECEIVERS.contains(&root.as_str()) {
            continue;
        }
        if !ch.via_binding
            && (known::TRACKED_SPAWN_FNS.contains(&root.as_str())
                || is_configured(&ch.root, configured_tracked)
                || (cu.ctx.in_drainable && routed_by_drainable(&root)))
        {
            n += 1;
        } else if known::TRACKED_SPAWN_RECEIVERS.contains(&root.as_str())
            && let Some(i) = ch
                .steps
                .iter()
                .position(|s| known::TRACKED_SPAWN_METHODS.contains(&s.name.as_str()))
            && ch.is_local_step(i)
        {
            n += 1;
        }
    }
    n
}
