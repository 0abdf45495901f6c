//! Unit tests of the workspace model's lookups: exact owner, owner by name, field or
//! method by name (only when every candidate agrees), aliases, helpers' builders.

use super::WorkspaceModel;
use crate::finding::Region;
use crate::model::{Chain, ChainUse, Ctx, Decls, FnDecl, Step, SymRoot, Usage};
use crate::resolve::split_path;

fn step(name: &str) -> Step {
    Step {
        name: name.into(),
        region: Region::default_start(),
        args: Vec::new(),
    }
}

fn pending(root: SymRoot, steps: &[&str]) -> ChainUse {
    ChainUse {
        chain: Chain {
            steps: steps.iter().map(|s| step(s)).collect(),
            pending: Some(root),
            ..Chain::at(Vec::new(), Region::default_start())
        },
        usage: Usage::Kept,
        ctx: Ctx::default(),
        escapes: false,
        calls_bounded: false,
    }
}

fn f(path: &str, owner: Option<&str>, ret: &str) -> FnDecl {
    let p = split_path(path);
    FnDecl {
        name: p.last().cloned().unwrap(),
        path: p,
        owner: owner.map(split_path),
        ret: split_path(ret),
        builder: None,
        builds_param: None,
        returns_param: None,
        sets_timeout: false,
    }
}

fn roots(ws: &WorkspaceModel, cu: ChainUse) -> Vec<String> {
    ws.resolve(&[cu])
        .into_iter()
        .map(|c| c.chain.root_str())
        .collect()
}

#[test]
fn field_of_exact_owner_then_by_type_name_then_by_name() {
    let mut d = Decls::default();
    d.fields.push((
        split_path("app::worker::types::Worker"),
        "rt".into(),
        split_path("tokio::runtime::Handle"),
    ));
    let ws = WorkspaceModel::build([&d]);
    let exact = SymRoot::Field {
        owner: Some(split_path("app::worker::types::Worker")),
        name: "rt".into(),
    };
    assert_eq!(
        roots(&ws, pending(exact, &["spawn"])),
        ["tokio::runtime::Handle::current"]
    );
    let reexported = SymRoot::Field {
        owner: Some(split_path("app::worker::Worker")),
        name: "rt".into(),
    };
    assert_eq!(roots(&ws, pending(reexported, &["spawn"])).len(), 1);
    let unknown_owner = SymRoot::Field {
        owner: None,
        name: "rt".into(),
    };
    assert_eq!(roots(&ws, pending(unknown_owner, &["spawn"])).len(), 1);
}

#[test]
fn disagreeing_candidates_give_nothing() {
    let mut d = Decls::default();
    d.fields.push((
        split_path("app::A"),
        "pool".into(),
        split_path("tokio::runtime::Handle"),
    ));
    d.fields.push((
        split_path("app::B"),
        "pool".into(),
        split_path("app::DbPool"),
    ));
    let ws = WorkspaceModel::build([&d]);
    let r = SymRoot::Field {
        owner: None,
        name: "pool".into(),
    };
    assert!(roots(&ws, pending(r, &["spawn"])).is_empty());
}

#[test]
fn wrapper_method_then_alias() {
    let mut d = Decls::default();
    d.fields.push((
        split_path("app::Service"),
        "runtime".into(),
        split_path("app::AppRuntime"),
    ));
    d.fns.push(f(
        "app::AppRuntime::handle",
        Some("app::AppRuntime"),
        "app::Rt",
    ));
    d.aliases
        .push((split_path("app::Rt"), split_path("tokio::runtime::Handle")));
    let ws = WorkspaceModel::build([&d]);
    let r = SymRoot::Field {
        owner: Some(split_path("app::Service")),
        name: "runtime".into(),
    };
    let out = ws.resolve(&[pending(r, &["handle", "spawn"])]);
    assert_eq!(out[0].chain.root_str(), "tokio::runtime::Handle::current");
    assert_eq!(out[0].chain.steps.len(), 1, "`handle` was consumed");
}

#[test]
fn helper_builder_steps_come_first() {
    let mut d = Decls::default();
    let mut helper = f("app::base_builder", None, "reqwest::ClientBuilder");
    helper.builder = Some(Chain {
        steps: vec![step("user_agent")],
        ..Chain::at(
            split_path("reqwest::Client::builder"),
            Region::default_start(),
        )
    });
    d.fns.push(helper);
    let ws = WorkspaceModel::build([&d]);
    let out = ws.resolve(&[pending(
        SymRoot::Call(split_path("app::base_builder")),
        &["build", "?"],
    )]);
    let ch = &out[0].chain;
    assert_eq!(ch.root_str(), "reqwest::Client::builder");
    assert_eq!(ch.steps.len(), 3);
    assert_eq!(
        ch.inherited, 1,
        "the helper's steps are not written at the call"
    );
}

#[test]
fn needed_names_skip_what_disagreeing_candidates_already_decide() {
    let mut d = Decls::default();
    d.fields.push((
        split_path("a::A"),
        "rt".into(),
        split_path("tokio::runtime::Handle"),
    ));
    d.fields
        .push((split_path("b::B"), "rt".into(), split_path("b::Other")));
    d.fields.push((
        split_path("c::C"),
        "pool".into(),
        split_path("tokio::runtime::Handle"),
    ));
    let ws = WorkspaceModel::build([&d]);
    let ambiguous = pending(
        SymRoot::Field {
            owner: None,
            name: "rt".into(),
        },
        &["spawn"],
    );
    let agreed = pending(
        SymRoot::Field {
            owner: None,
            name: "pool".into(),
        },
        &["spawn"],
    );
    let unknown = pending(
        SymRoot::Call(split_path("x::Maker::make")),
        &["handle", "spawn"],
    );
    // two fields named `rt` disagree: a hidden third cannot make them agree
    assert!(ws.needed_names(&[ambiguous]).is_empty());
    // one `pool` answers: a hidden one could contradict it
    assert!(ws.needed_names(&[agreed]).contains("pool"));
    // nothing answers `Maker::make`; the steps after it are never looked up
    let need = ws.needed_names(&[unknown]);
    assert!(need.contains("Maker::make"));
    assert!(!need.contains("handle"));
    // a typed receiver asks for its own type's method, not any method of that name
    let mut d = Decls::default();
    d.fns
        .push(f("x::Maker::make", Some("x::Maker"), "x::Engine"));
    let ws = WorkspaceModel::build([&d]);
    let typed = pending(
        SymRoot::Call(split_path("x::Maker::make")),
        &["handle", "spawn"],
    );
    let need = ws.needed_names(&[typed]);
    assert!(need.contains("Engine::handle"));
    assert!(!need.contains("handle"));
}

#[test]
fn a_types_associated_function_is_never_a_free_function_of_that_name() {
    // conduwuit: `fn new(args) -> Result<Runtime>` in one file made every
    // `JoinSet::new()` of the workspace a runtime, its `spawn_on` a raw spawn
    let mut d = Decls::default();
    d.fns
        .push(f("app::runtime::new", None, "tokio::runtime::Runtime"));
    let ws = WorkspaceModel::build([&d]);
    let call = |path: &str| SymRoot::Call(split_path(path));
    assert!(
        roots(
            &ws,
            pending(call("tokio::task::JoinSet::new"), &["spawn_on"])
        )
        .is_empty()
    );
    assert!(roots(&ws, pending(call("app::Pool::new"), &["spawn"])).is_empty());
    // the function itself, exact or spelled through another module path
    assert_eq!(
        roots(&ws, pending(call("app::runtime::new"), &["spawn"])),
        ["tokio::runtime::Runtime::new"]
    );
    assert_eq!(
        roots(&ws, pending(call("app::main::runtime::new"), &["spawn"])).len(),
        1
    );
}

/// A function returning a thread's `JoinHandle` by value stands for a thread it starts;
/// one returning a borrowed handle declares nothing the rules read, and a handle held in a
/// field was started elsewhere (a chain on it is no spawn here).
#[test]
fn a_function_returning_a_thread_handle_by_value_starts_a_thread() {
    let src = "use std::thread::JoinHandle;\n\
               pub fn spawn(f: fn()) -> JoinHandle<()> { std::thread::spawn(f) }\n\
               pub fn spawn_thread(h: &JoinHandle<()>) -> Option<&JoinHandle<()>> { Some(h) }\n\
               pub struct W { worker: Option<JoinHandle<()>> }\n";
    let a = crate::analysis::analyze_source(
        "src/lib.rs".as_ref(),
        src,
        &crate::config::Config::default(),
    );
    let declared: Vec<String> = a.decls.fns.iter().map(|f| f.name.clone()).collect();
    assert_eq!(
        declared,
        ["spawn"],
        "the borrowed handle's function is not declared"
    );
    let ws = WorkspaceModel::build([&a.decls]);
    let call = pending(SymRoot::Call(split_path("crate::spawn")), &[]);
    let typed = ws.resolve(&[call]);
    assert_eq!(typed[0].chain.root_str(), "std::thread::spawn");
    assert!(!typed[0].chain.via_binding, "judged where it is called");
    let field = pending(
        SymRoot::Field {
            owner: Some(split_path("crate::W")),
            name: "worker".into(),
        },
        &["take"],
    );
    let typed = ws.resolve(&[field]);
    assert!(typed.iter().all(|c| c.chain.via_binding), "{typed:?}");
}
