//! The cross-file phase for `http-no-timeout`'s clients that may still be bounded: passed
//! to functions of other files, or held in a private field that the files of the module's
//! out-of-line children could reach.

use super::Job;
use crate::analysis::FileAnalysis;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Phase 3c: clients reported by `http-no-timeout` that are passed to functions of other
/// files (`check_nodes_status(&client)`, declared in another crate of the workspace), or
/// held in private fields of a file declaring out-of-line modules (`mod config;`, whose
/// code may use them). When there are such clients, the files declaring a function of such
/// a name (`fn name`, test code skipped) are read, on all cores; a client is cleared when
/// every function it is passed to is declared, every declaration of that name bounds every
/// request it makes on the parameter (one hop: a function passing it on again does not
/// clear it), and no file of the child modules names a field holding it.
pub(super) fn client_pass_phase(jobs: &[Job], analyses: &mut [FileAnalysis]) {
    if analyses.iter().all(|a| a.open_clients.is_empty()) {
        return;
    }
    let bounded = passed_bounded(jobs, analyses);
    // a path of this workspace: `crate::..`, `super::..`, a linted crate's name, or a name
    // only a glob import brings (`use infra::cluster::*;`)
    let crates: BTreeSet<String> = jobs
        .iter()
        .filter_map(|j| j.pkg.as_ref().map(|p| p.crate_name.clone()))
        .chain(["crate", "self", "super"].map(String::from))
        .collect();
    let in_workspace = |k: &Option<String>| k.as_ref().is_none_or(|k| crates.contains(k));
    for (i, a) in analyses.iter_mut().enumerate() {
        if a.open_clients.is_empty() {
            continue;
        }
        let fields: BTreeSet<String> = a
            .open_clients
            .iter()
            .flat_map(|o| o.child_fields.iter().cloned())
            .collect();
        let named = if fields.is_empty() {
            BTreeSet::new()
        } else {
            named_in_children(&jobs[i].abs, &fields)
        };
        a.clear_clients(|o| {
            o.child_fields.iter().all(|f| !named.contains(f))
                && o.outs.iter().all(|(f, k, krate)| {
                    in_workspace(krate) && bounded.get(&(f.clone(), *k)) == Some(&true)
                })
        });
    }
}

/// Whether every declaration of each function the open clients are passed to bounds every
/// request it makes on that parameter: `(name, argument) → bounded`.
fn passed_bounded(jobs: &[Job], analyses: &[FileAnalysis]) -> HashMap<(String, usize), bool> {
    use crate::collect::flow;
    let wanted_args: BTreeSet<(String, usize)> = analyses
        .iter()
        .flat_map(|a| &a.open_clients)
        .flat_map(|o| &o.outs)
        .map(|(f, k, _)| (f.clone(), *k))
        .collect();
    if wanted_args.is_empty() {
        return HashMap::new();
    }
    // what a declaring file contains, built once: `fn name`, as a whole word (`fn req`
    // is not `fn request`: wasmCloud parsed twelve files for nothing)
    // (a type's function, `Type::new`: `fn new`)
    let needles: BTreeSet<String> = wanted_args
        .iter()
        .map(|(f, _)| format!("fn {}", f.rsplit("::").next().unwrap_or(f)))
        .collect();
    let readers: Vec<usize> = (0..jobs.len())
        .filter(|&i| !analyses[i].skipped_as_test)
        .collect();
    let results = crate::pool::map_on_large_stacks(&readers, None, |&i| {
        let text = std::fs::read_to_string(&jobs[i].abs).ok()?;
        if !needles
            .iter()
            .any(|n| crate::lexscan::contains_tokens(&text, n))
        {
            return None;
        }
        let f = flow::summarize(&text)?;
        let verdicts: Vec<((String, usize), bool)> = wanted_args
            .iter()
            .filter_map(|(name, k)| {
                let outs = if name.contains("::") {
                    f.owned_method_params
                        .contains_key(name)
                        .then(|| f.owned_param_timed(name, *k))?
                } else {
                    f.fn_params
                        .contains_key(name)
                        .then(|| f.param_timed(name, *k))?
                };
                Some(((name.clone(), *k), outs.is_some_and(|o| o.is_empty())))
            })
            .collect();
        Some(verdicts)
    });
    // each declaration of the name must bound it
    let mut bounded: HashMap<(String, usize), bool> = HashMap::new();
    for (arg, ok) in results.into_iter().flatten().flatten().flatten() {
        *bounded.entry(arg).or_insert(true) &= ok;
    }
    bounded
}

/// The `fields` that code of the files of `file`'s child modules names (as a word, outside
/// comments and strings): the `.rs` files below its directory (`lib.rs`, `main.rs`,
/// `mod.rs`) or below the directory of its name (`net.rs`: `net/`). A file that cannot be
/// read names them all.
fn named_in_children(file: &Path, fields: &BTreeSet<String>) -> BTreeSet<String> {
    let Some(children) = child_module_files(file) else {
        return fields.clone();
    };
    let mut named = BTreeSet::new();
    for child in children {
        let Ok(text) = std::fs::read_to_string(&child) else {
            return fields.clone();
        };
        let code = crate::lexscan::code_only(&text);
        for f in fields {
            if crate::lexscan::find_word(&code, f.as_bytes(), 0).is_some() {
                named.insert(f.clone());
            }
        }
        if named.len() == fields.len() {
            break;
        }
    }
    named
}

/// The `.rs` files where `file`'s out-of-line child modules live (see
/// [`named_in_children`]), `file` itself left out; `None` when there is no such directory
/// (the modules live elsewhere: `#[path = ".."]`).
fn child_module_files(file: &Path) -> Option<Vec<PathBuf>> {
    let parent = file.parent()?;
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let dir = if matches!(stem, "mod" | "lib" | "main") {
        parent.to_path_buf()
    } else {
        parent.join(stem)
    };
    if !dir.is_dir() {
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") && p != file {
                out.push(p);
            }
        }
    }
    Some(out)
}
