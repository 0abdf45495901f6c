//! The `http-no-timeout` fixer (unsafe: requests that took longer than the timeout now
//! fail): an overall timeout below the drain budget is set on reqwest clients.
//!
//! | written | becomes |
//! |---|---|
//! | `Client::builder()...build()` | `Client::builder()...timeout(Duration::from_secs(N)).build()` |
//! | `Client::new()` / `Client::default()` | `Client::builder().timeout(Duration::from_secs(N)).build().expect("..")` (what `new` does, plus the timeout) |
//! | `reqwest::get(url)` | `reqwest::Client::new().get(url).timeout(Duration::from_secs(N)).send()` |
//!
//! The same for `reqwest::blocking`. In a multi-line builder chain the timeout gets a line
//! of its own at the chain's indentation. ureq (two APIs), isahc (a trait import) and
//! hyper (no timeout setting) are left to the user.

use super::cx::FileCx;
use super::edit::{Applicability, Edit, Fix};
use crate::finding::Finding;
use crate::resolve::known::{self, HttpKind};

/// The fix of http-no-timeout finding `f` (number `idx` of the run), or why there is none.
pub fn fix(cx: &FileCx<'_>, idx: usize, f: &Finding) -> Result<Fix, String> {
    let (site, part) = cx
        .site_at(f)
        .ok_or("the linter did not record this call's shape")?;
    let (kind, lib) = known::HTTP_CTORS
        .iter()
        .find(|(p, _, _)| *p == site.root)
        .map(|(_, k, l)| (*k, *l))
        .ok_or("a configured client wrapper: its timeout is set where it is defined")?;
    if !known::is_reqwest_shaped(lib) {
        return Err(format!(
            "{}'s timeout API is not rewritten automatically",
            lib.name
        ));
    }
    let secs = cx.timeout_secs;
    let dur = format!("Duration::from_secs({secs})");
    let make = |title: String, edits: Vec<Edit>| Fix {
        findings: vec![idx],
        rule: f.rule.clone(),
        title,
        applicability: Applicability::Unsafe,
        edits,
        needs_duration: true,
        needs_macros: false,
    };
    match kind {
        HttpKind::Builder => {
            let i = site
                .steps
                .iter()
                .enumerate()
                .skip(site.inherited)
                .find(|(_, (n, _))| lib.build_methods.contains(&n.as_str()))
                .map(|(i, _)| i)
                .ok_or("the builder is not built here")?;
            if part.is_some_and(|p| p != i) {
                return Err("the finding is not at the builder".into());
            }
            if site.steps.iter().any(|(n, _)| n == "timeout") {
                return Err("`.timeout(None)` turns the timeout off on purpose".into());
            }
            let m = cx
                .method_at(&site.steps[i].1)
                .ok_or("the `.build()` call could not be located")?;
            if cx.slice(m.method.clone()) != site.steps[i].0 {
                // `build_with_policies(..)` of a builder wrapper of the workspace, which
                // has no `.timeout(..)` of its own
                return Err(format!(
                    "built by `{}(..)` of a builder wrapper: set the timeout on the builder it wraps (`.prepare(|inner| inner.timeout({dur}))`) or where the wrapper is defined",
                    cx.slice(m.method.clone())
                ));
            }
            let between = cx.slice(m.receiver.end..m.method.start);
            let insert = match between.rfind('\n') {
                Some(nl) => {
                    // `.build()` on a line of its own: the timeout gets one too
                    let indent: String = between[nl + 1..]
                        .chars()
                        .take_while(|c| *c == ' ' || *c == '\t')
                        .collect();
                    format!("{}{indent}.timeout({dur})", cx.eol())
                }
                None => format!(".timeout({dur})"),
            };
            Ok(make(
                format!("`.timeout({dur})` added before `.build()`"),
                vec![Edit::insert(m.receiver.end, insert)],
            ))
        }
        HttpKind::Client if part.is_none() && !site.via_binding => {
            let call = cx
                .call_at(&f.region)
                .ok_or("the call could not be located")?;
            let func = cx.slice(call.func.clone());
            let last = func.rsplit("::").next().unwrap_or("");
            if !call.args.is_empty() || !(last == "new" || last == "default") {
                return Err("not a `Client::new()` the fixer knows".into());
            }
            Ok(make(
                format!("`Client::{last}()` → `Client::builder().timeout({dur}).build()`"),
                vec![
                    Edit::replace(call.func.end - last.len()..call.func.end, "builder"),
                    Edit::insert(
                        call.rparen + 1,
                        format!(".timeout({dur}).build().expect(\"HTTP client\")"),
                    ),
                ],
            ))
        }
        HttpKind::OneShot if part.is_none() => {
            let call = cx
                .call_at(&f.region)
                .ok_or("the call could not be located")?;
            if call.args.len() != 1 {
                return Err("not a one-argument `get(url)`".into());
            }
            let client = site.root.trim_end_matches("::get");
            Ok(make(
                format!("`{}(url)` → a request with `.timeout({dur})`", site.root),
                vec![
                    Edit::replace(call.func.clone(), format!("{client}::Client::new().get")),
                    Edit::insert(call.rparen + 1, format!(".timeout({dur}).send()")),
                ],
            ))
        }
        _ => Err("not a client construction the fixer knows".into()),
    }
}
