//! The `sigterm-missing` fixer (unsafe: the program's life cycle changes): a binary whose
//! `#[tokio::main]` waits for Ctrl-C only gets the runtime's life cycle instead.
//!
//! - `#[tokio::main]` → `#[shutdown_runtime::main(grace = "30s")]` (the grace period of
//!   the deploy manifests the audit reads, else 30 s; `flavor` and `worker_threads` kept),
//!   which installs SIGTERM and SIGINT handlers before `main` runs and drains tracked
//!   tasks when it returns;
//! - each Ctrl-C wait of the file → `shutdown_runtime::wait_for_shutdown()`, which
//!   resolves on either signal: `ctrl_c().await?` / `.unwrap()` / `.expect(..)`,
//!   `ctrl_c().await;`, and a `select!` branch `_ = ctrl_c() => ..`.
//!
//! All of a file's Ctrl-C sites and its `main` change together or not at all (tokio's
//! Ctrl-C handler and the runtime's should not race). A Ctrl-C wait whose result is used,
//! or that is in another file than `main`, is left to the user, and so is a binary that
//! serves and handles no signal at all (the runtime's signals alone would not reach its
//! server's shutdown).

use super::cx::FileCx;
use super::edit::{Applicability, Edit, Fix};
use crate::finding::Finding;

const OPTIONS_KEPT: &[&str] = &["flavor", "worker_threads"];

fn main_attr(cx: &FileCx<'_>) -> Result<Edit, String> {
    let main = cx
        .index
        .main_fn
        .as_ref()
        .ok_or("`fn main` is not in this file")?;
    let (_, meta) = main
        .attrs
        .iter()
        .find(|(p, _)| p == "tokio::main")
        .ok_or("`fn main` in this file is not `#[tokio::main]`")?;
    if !main.is_async {
        return Err("`fn main` is not `async`".into());
    }
    if !main.unit_or_result {
        return Err("`fn main` returns something other than `()` or `Result<(), E>`".into());
    }
    let parsed: syn::Meta = syn::parse_str(cx.slice(meta.clone()))
        .map_err(|e| format!("`#[tokio::main(..)]` options do not parse: {e}"))?;
    let mut args = vec![format!("grace = \"{}\"", cx.grace)];
    if let syn::Meta::List(list) = parsed {
        let opts = list
            .parse_args_with(
                syn::punctuated::Punctuated::<syn::MetaNameValue, syn::Token![,]>::parse_terminated,
            )
            .map_err(|e| format!("`#[tokio::main(..)]` options do not parse: {e}"))?;
        for o in opts {
            let key = o
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            if !OPTIONS_KEPT.contains(&key.as_str()) {
                return Err(format!(
                    "`#[tokio::main({key} = ..)]` has no equivalent in `#[shutdown_runtime::main]`"
                ));
            }
            let value = quote::ToTokens::to_token_stream(&o.value).to_string();
            args.push(format!("{key} = {value}"));
        }
    }
    proc_macro2::extra::invalidate_current_thread_spans();
    Ok(Edit::replace(
        meta.clone(),
        format!("{}::main({})", cx.rt, args.join(", ")),
    ))
}

fn ctrl_c_edit(cx: &FileCx<'_>, f: &Finding) -> Result<Edit, String> {
    let (site, part) = cx
        .site_at(f)
        .ok_or("the linter did not record this call's shape")?;
    if part.is_some() || site.root != "tokio::signal::ctrl_c" || site.via_binding {
        return Err(format!(
            "`{}` is not a `tokio::signal::ctrl_c()` wait",
            site.root
        ));
    }
    let call = cx
        .call_at(&f.region)
        .ok_or("the call could not be located")?;
    let wait = format!("{}::wait_for_shutdown", cx.rt);
    let names: Vec<&str> = site.steps.iter().map(|(n, _)| n.as_str()).collect();
    match names.as_slice() {
        [] if cx
            .index
            .select_wildcards
            .iter()
            .any(|r| r.start == call.func.start) =>
        {
            Ok(Edit::replace(call.func.clone(), wait))
        }
        ["await"] if site.dropped => Ok(Edit::replace(call.func.clone(), wait)),
        ["await", "?"] => {
            let q = &site.steps[1].1;
            Ok(Edit::replace(
                call.func.start..q.offset + q.len,
                format!("{wait}().await"),
            ))
        }
        ["await", "unwrap" | "expect"] => {
            let m = cx
                .method_at(&site.steps[1].1)
                .ok_or("the call could not be located")?;
            Ok(Edit::replace(
                call.func.start..m.rparen + 1,
                format!("{wait}().await"),
            ))
        }
        _ => Err("`ctrl_c()` is passed on or its result is used; replace it by hand".into()),
    }
}

/// One fix for every sigterm-missing finding of the file (`(index, finding)` pairs), or
/// why there is none.
pub fn fix(cx: &FileCx<'_>, found: &[(usize, &Finding)]) -> Result<Fix, String> {
    if found
        .iter()
        .any(|(_, f)| crate::rules::sigterm_missing::is_no_signal(f))
    {
        // the runtime's signals alone would not reach the server's own shutdown
        return Err(
            "the binary handles no signal: listen for SIGTERM and Ctrl-C and connect \
                    them to the server's graceful shutdown by hand"
                .into(),
        );
    }
    let mut edits = vec![main_attr(cx)?];
    for (_, f) in found {
        edits.push(ctrl_c_edit(cx, f)?);
    }
    Ok(Fix {
        findings: found.iter().map(|(i, _)| *i).collect(),
        rule: "sigterm-missing".into(),
        title: format!(
            "`#[tokio::main]` → `#[{}::main(grace = \"{}\")]`, Ctrl-C → `wait_for_shutdown()`",
            cx.rt, cx.grace
        ),
        applicability: Applicability::Unsafe,
        edits,
        needs_duration: false,
        needs_macros: true,
    })
}
