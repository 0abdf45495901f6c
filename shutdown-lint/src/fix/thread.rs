//! The `detached-thread` fixer (safe): a thread whose `JoinHandle` is dropped becomes a
//! tracked thread, which the drain waits for (and names when it outlives the budget).
//!
//! | written | becomes |
//! |---|---|
//! | `std::thread::spawn(f)` | `shutdown_runtime::spawn_thread(f)` |
//! | `builder.spawn(f)` on a `std::thread::Builder` | `shutdown_runtime::spawn_thread_with(builder, f)` |
//!
//! Both keep the return type (`JoinHandle<T>`, `io::Result<JoinHandle<T>>`), so `?`,
//! `.unwrap()` and `let _ =` after the call stay as they are.

use super::cx::FileCx;
use super::edit::{Applicability, Edit, Fix};
use crate::finding::Finding;
use crate::resolve::known;

/// The fix of detached-thread finding `f` (number `idx` of the run), or why there is none.
pub fn fix(cx: &FileCx<'_>, idx: usize, f: &Finding) -> Result<Fix, String> {
    let (site, part) = cx
        .site_at(f)
        .ok_or("the linter did not record this call's shape")?;
    let rt = cx.rt;
    let make = |title: &str, edits: Vec<Edit>| Fix {
        findings: vec![idx],
        rule: f.rule.clone(),
        title: title.to_string(),
        applicability: Applicability::Safe,
        edits,
        needs_duration: false,
        needs_macros: false,
    };
    match part {
        // a function of the workspace that starts the thread and returns its handle
        None if site.root == known::THREAD_SPAWN_FN && site.via.is_some() => Err(format!(
            "`{}(..)` is the workspace's own function returning the thread's `JoinHandle`: keep the handle and join it on shutdown",
            site.via.as_deref().unwrap_or_default()
        )),
        None if site.root == known::THREAD_SPAWN_FN => {
            let call = cx
                .call_at(&f.region)
                .ok_or("the call's arguments could not be located")?;
            if cx.slice(call.func.clone()).contains('<') {
                return Err("the call names generic arguments (`::<..>`)".into());
            }
            if call.args.len() != 1 {
                return Err(format!("the call has {} arguments, not 1", call.args.len()));
            }
            Ok(make(
                &format!("`std::thread::spawn` → `{rt}::spawn_thread`"),
                vec![Edit::replace(
                    call.func.clone(),
                    format!("{rt}::spawn_thread"),
                )],
            ))
        }
        Some(i) if site.root == known::THREAD_BUILDER_NEW && site.steps[i].0 == "spawn" => {
            let m = cx
                .method_at(&site.steps[i].1)
                .ok_or("the method call could not be located")?;
            if m.args.len() != 1 {
                return Err(format!("the call has {} arguments, not 1", m.args.len()));
            }
            Ok(make(
                &format!("`Builder::spawn` → `{rt}::spawn_thread_with`"),
                cx.wrap_receiver(m, &format!("{rt}::spawn_thread_with("), ",")?,
            ))
        }
        _ => Err("not a `std::thread` spawn the fixer knows".into()),
    }
}
