//! The `raw-spawn` fixer (safe): a raw tokio spawn becomes the tracked spawn with the same
//! signature and meaning, so shutdown can drain it.
//!
//! | written (any path form the linter resolves) | becomes |
//! |---|---|
//! | `tokio::spawn(fut)` | `shutdown_runtime::spawn_named("name", fut)` |
//! | `tokio::task::spawn_blocking(f)` | `shutdown_runtime::spawn_blocking(f)` |
//! | `tokio::task::spawn_local(fut)` | `shutdown_runtime::spawn_local(fut)` |
//! | `tokio::spawn` as a value | `shutdown_runtime::spawn` |
//! | `handle.spawn(fut)` / `.spawn_blocking(f)` on a `Handle` | `shutdown_runtime::spawn_on(&handle, fut)` / `spawn_blocking_on` |
//! | `runtime.spawn(fut)` on a `Runtime` | `shutdown_runtime::spawn_on(runtime.handle(), fut)` |
//!
//! The name comes from the spawned expression ([`super::name`]), else the enclosing item.
//! `tokio::task::Builder` spawns (they return `io::Result`) and other runtimes' spawns
//! (`actix_rt::spawn`, `.spawn(..)` on an `actix_rt::Runtime`) have no tracked equivalent
//! and are left as they are.

use super::cx::FileCx;
use super::edit::{Applicability, Edit, Fix};
use super::site::SiteKind;
use crate::finding::Finding;

fn tracked_fn(root: &str) -> Option<&'static str> {
    match root {
        "tokio::spawn" => Some("spawn"),
        "tokio::task::spawn_blocking" => Some("spawn_blocking"),
        "tokio::task::spawn_local" => Some("spawn_local"),
        _ => None,
    }
}

/// Receivers whose `.spawn*` has a tracked `*_on` form: `true` for a `Handle`, `false`
/// for a `Runtime`.
fn receiver_is_handle(root: &str) -> Option<bool> {
    match root {
        "tokio::runtime::Handle::current" | "tokio::runtime::Handle::try_current" => Some(true),
        "tokio::runtime::Runtime::new"
        | "tokio::runtime::Builder::new_multi_thread"
        | "tokio::runtime::Builder::new_current_thread" => Some(false),
        _ => None,
    }
}

/// The fix of raw-spawn finding `f` (number `idx` of the run), or why there is none.
pub fn fix(cx: &FileCx<'_>, idx: usize, f: &Finding) -> Result<Fix, String> {
    let (site, part) = cx
        .site_at(f)
        .ok_or("the linter did not record this call's shape")?;
    let rt = cx.rt;
    let make = |title: String, edits: Vec<Edit>| Fix {
        findings: vec![idx],
        rule: f.rule.clone(),
        title,
        applicability: Applicability::Safe,
        edits,
        needs_duration: false,
        needs_macros: false,
    };
    let Some(i) = part else {
        let Some(tracked) = tracked_fn(&site.root) else {
            return Err(format!(
                "`{}` has no tracked equivalent in shutdown-runtime",
                site.root
            ));
        };
        let path = f.region.offset..f.region.offset + f.region.len;
        if site.kind == SiteKind::Ref {
            return Ok(make(
                format!("`{}` → `{rt}::{tracked}`", site.root),
                vec![Edit::replace(path, format!("{rt}::{tracked}"))],
            ));
        }
        let call = cx
            .call_at(&f.region)
            .ok_or("the call's arguments could not be located")?;
        if cx.slice(call.func.clone()).contains('<') {
            return Err("the call names generic arguments (`::<..>`)".into());
        }
        if call.args.len() != 1 {
            return Err(format!("the call has {} arguments, not 1", call.args.len()));
        }
        if tracked == "spawn" {
            let name = call
                .name_hint
                .clone()
                .or_else(|| {
                    f.item
                        .rsplit("::")
                        .next()
                        // a spawn in `macro_rules! name` is named after the macro
                        .map(|s| s.trim_end_matches('!'))
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                })
                .unwrap_or_else(|| "task".to_string());
            return Ok(make(
                format!("`{}` → `{rt}::spawn_named(\"{name}\", ..)`", site.root),
                vec![
                    Edit::replace(call.func.clone(), format!("{rt}::spawn_named")),
                    Edit::insert(
                        call.args[0].start,
                        cx.before_arg(call, &format!("\"{name}\",")),
                    ),
                ],
            ));
        }
        return Ok(make(
            format!("`{}` → `{rt}::{tracked}`", site.root),
            vec![Edit::replace(call.func.clone(), format!("{rt}::{tracked}"))],
        ));
    };
    let method = site.steps[i].0.as_str();
    let Some(is_handle) = receiver_is_handle(&site.root) else {
        let recv = site.root.rsplit_once("::").map_or("", |(a, _)| a);
        return Err(if site.root.starts_with("actix_rt::") {
            // a tracked spawn would run on tokio's runtime, not on actix's local set
            format!("`.{method}(..)` on `{recv}` runs on actix's local set; no tracked equivalent")
        } else {
            format!("`.{method}(..)` on `{recv}` returns `io::Result`; no tracked equivalent")
        });
    };
    let tracked = match method {
        "spawn" => "spawn_on",
        "spawn_blocking" => "spawn_blocking_on",
        other => return Err(format!("`.{other}(..)` has no tracked equivalent")),
    };
    let m = cx
        .method_at(&site.steps[i].1)
        .ok_or("the method call could not be located")?;
    if m.args.len() != 1 {
        return Err(format!("the call has {} arguments, not 1", m.args.len()));
    }
    let (head, mid, what) = if is_handle {
        (format!("{rt}::{tracked}(&"), ",", "Handle")
    } else {
        (format!("{rt}::{tracked}("), ".handle(),", "Runtime")
    };
    Ok(make(
        format!("`{what}::{method}` → `{rt}::{tracked}`"),
        cx.wrap_receiver(m, &head, mid)?,
    ))
}
