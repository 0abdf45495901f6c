//! Unit tests of the resolver on small files: one assertion per path form.

use super::scope::{BlockScope, ModId, ModuleTree};
use super::{Aliases, Resolution, Resolver, known, split_path};
use foldhash::HashSet;
use std::sync::Arc;

fn resolver(src: &str, file_module: &str, reexports: &[(&str, &str)]) -> Resolver {
    let file: syn::File = syn::parse_str(src).unwrap();
    let tree = ModuleTree::build(&file.items, split_path(file_module));
    let re: Vec<(String, String)> = reexports
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let mut interesting = HashSet::default();
    for p in known::all_paths().map(split_path) {
        for n in 1..=p.len() {
            interesting.insert(p[..n].to_vec());
        }
    }
    Resolver::new(
        Arc::new(tree),
        Arc::new(Aliases::new(&re)),
        Arc::new(interesting),
    )
}

fn path(r: &Resolver, p: &str) -> String {
    let leading = p.starts_with("::");
    match r.resolve(leading, &split_path(p), true) {
        Resolution::Path(c) => c.join("::"),
        Resolution::Binding(b) => format!("binding {b}"),
        Resolution::Unknown => "unknown".into(),
    }
}

fn in_module(r: &mut Resolver, name: &str) {
    let id: ModId = r.tree().get(r.module()).children[name];
    let _ = r.enter_module(id);
}

#[test]
fn use_forms() {
    let r = resolver(
        "use tokio::task::{self as t, spawn_blocking, JoinHandle};\n\
         use ::tokio as tk;\n\
         use std::{thread::{self}, time::Duration as D};\n\
         extern crate tokio as rt;",
        "app",
        &[],
    );
    assert_eq!(path(&r, "t::spawn"), "tokio::spawn");
    assert_eq!(path(&r, "spawn_blocking"), "tokio::task::spawn_blocking");
    assert_eq!(path(&r, "tk::spawn"), "tokio::spawn");
    assert_eq!(path(&r, "thread::spawn"), "std::thread::spawn");
    assert_eq!(path(&r, "D::from_secs"), "std::time::Duration::from_secs");
    assert_eq!(
        path(&r, "rt::task::spawn_local"),
        "tokio::task::spawn_local"
    );
    assert_eq!(path(&r, "::tokio::spawn"), "tokio::spawn");
    assert_eq!(path(&r, "JoinHandle"), "tokio::task::JoinHandle");
}

#[test]
fn crate_self_super_within_and_outside_the_file() {
    let src = "mod a { pub mod b { pub fn f() {} } pub use tokio::spawn as go; }\n\
               mod c { fn g() {} }";
    let mut r = resolver(src, "app::net", &[]);
    assert_eq!(path(&r, "a::go"), "tokio::spawn");
    assert_eq!(path(&r, "self::a::go"), "tokio::spawn");
    // leaves the file: `crate::` is the crate root, `super::` the parent module
    assert_eq!(path(&r, "crate::util::spawn"), "app::util::spawn");
    assert_eq!(path(&r, "super::x"), "app::x");
    // and comes back into it
    assert_eq!(path(&r, "crate::net::a::go"), "tokio::spawn");
    in_module(&mut r, "c");
    assert_eq!(path(&r, "super::a::go"), "tokio::spawn");
    assert_eq!(path(&r, "g"), "app::net::c::g");
    // a nested module does not see its parent's names
    assert_eq!(path(&r, "a::go"), "a::go");
}

#[test]
fn globs_items_and_bindings() {
    let src = "mod rt { pub use tokio::spawn; }\n\
               mod g1 { use tokio::task::*; }\n\
               mod g2 { use tokio::task::*; fn spawn() {} }\n\
               mod g3 { use super::rt::*; }";
    let mut r = resolver(src, "app", &[]);
    in_module(&mut r, "g1");
    assert_eq!(path(&r, "spawn"), "tokio::spawn");
    // a glob only provides names the rules know: anything else stays as written
    assert_eq!(path(&r, "frobnicate"), "frobnicate");
    let mut r = resolver(src, "app", &[]);
    in_module(&mut r, "g2");
    assert_eq!(path(&r, "spawn"), "app::g2::spawn");
    let mut r = resolver(src, "app", &[]);
    in_module(&mut r, "g3");
    assert_eq!(path(&r, "spawn"), "tokio::spawn");

    let mut r = resolver("use tokio::spawn;", "app", &[]);
    r.push_block(BlockScope::default());
    r.bind("spawn".into());
    assert_eq!(path(&r, "spawn"), "binding spawn");
    // a binding does not shadow a multi-segment path, and a nested fn cannot see it
    r.push_item_boundary();
    assert_eq!(path(&r, "spawn"), "tokio::spawn");
    r.pop_block();
    r.pop_block();
    assert_eq!(path(&r, "spawn"), "tokio::spawn");
}

#[test]
fn block_scopes_and_config_reexports() {
    let block: syn::Block = syn::parse_str("{ use tokio::task::spawn_local as local; }").unwrap();
    let mut r = resolver(
        "",
        "app",
        &[("app::rt", "tokio"), ("common::tokio", "tokio")],
    );
    r.push_block(BlockScope::collect(&block.stmts));
    assert_eq!(path(&r, "local"), "tokio::task::spawn_local");
    r.pop_block();
    assert_eq!(path(&r, "local"), "local");
    assert_eq!(path(&r, "crate::rt::spawn"), "tokio::spawn");
    assert_eq!(path(&r, "common::tokio::task::spawn"), "tokio::spawn");
}

#[test]
fn block_uses_see_the_block_and_the_module() {
    // tuwunel's signal handler: a block `use` relative to a module import, and another
    // relative to that one; `use tokio;` in a block names the crate
    let block: syn::Block =
        syn::parse_str("{ use signal::unix; use unix::SignalKind; use tokio; }").unwrap();
    let mut r = resolver("use tokio::signal;", "app", &[]);
    r.push_block(BlockScope::collect(&block.stmts));
    assert_eq!(path(&r, "unix::signal"), "tokio::signal::unix::signal");
    assert_eq!(
        path(&r, "SignalKind::terminate"),
        "tokio::signal::unix::SignalKind::terminate"
    );
    assert_eq!(path(&r, "tokio::spawn"), "tokio::spawn");
    r.pop_block();
    assert_eq!(path(&r, "SignalKind"), "SignalKind");
}

#[test]
fn a_block_use_that_imports_its_own_first_name_starts_outside() {
    // server-monitor-rs's handler: `use tokio::signal;` in the module, then `use
    // signal::unix::{signal, SignalKind};` in the function — the group's `signal` is the new
    // function, the path's first `signal` still the module's import, for every name of it
    let block: syn::Block = syn::parse_str("{ use signal::unix::{signal, SignalKind}; }").unwrap();
    let mut r = resolver("use tokio::signal;", "app", &[]);
    r.push_block(BlockScope::collect(&block.stmts));
    assert_eq!(path(&r, "signal"), "tokio::signal::unix::signal");
    assert_eq!(
        path(&r, "SignalKind::terminate"),
        "tokio::signal::unix::SignalKind::terminate"
    );
}

#[test]
fn a_value_starts_no_path() {
    // devhub-cache-api-rs: `use rocket::{launch, ..};` and `#[launch] fn rocket()` in one
    // module — `rocket::` is the crate, in the `use` and in a path written in a body; a
    // type or module of that name still starts one
    let mut r = resolver(
        "use rocket::launch;\nfn rocket() {}\nconst LIMIT: u8 = 1;\nstruct Server;",
        "app",
        &[],
    );
    assert_eq!(path(&r, "launch"), "rocket::launch");
    assert_eq!(path(&r, "rocket::build"), "rocket::build");
    assert_eq!(path(&r, "rocket"), "app::rocket");
    assert_eq!(path(&r, "Server::new"), "app::Server::new");
    let block: syn::Block = syn::parse_str("{ fn tokio() {} }").unwrap();
    r.push_block(BlockScope::collect(&block.stmts));
    assert_eq!(path(&r, "tokio::spawn"), "tokio::spawn");
}

#[test]
fn an_import_and_a_value_item_of_one_name_both_resolve() {
    // vector's test utilities: `use tokio::{runtime, ..};` and `pub fn runtime() ->
    // runtime::Runtime` — the path is the module's, the call the function's, in either
    // order; tokio's benches: `use tokio::{sync::Semaphore, task};` and `async fn task(..)`
    for src in [
        "use tokio::runtime;\npub fn runtime() -> runtime::Runtime { todo!() }",
        "pub fn runtime() -> runtime::Runtime { todo!() }\nuse tokio::runtime;",
    ] {
        let r = resolver(src, "app", &[]);
        assert_eq!(path(&r, "runtime::Runtime"), "tokio::runtime::Runtime");
        assert_eq!(path(&r, "runtime"), "app::runtime");
    }
    let r = resolver(
        "use tokio::{sync::Semaphore, task};\nasync fn task() {}",
        "app",
        &[],
    );
    assert_eq!(path(&r, "task::spawn"), "tokio::spawn");
    assert_eq!(path(&r, "task"), "app::task");
}
