//! Expansion snapshots (prettyplease + insta) of `#[drainable]` and `#[shutdown_runtime::main]`:
//! each loop kind, labels, closures, async blocks, spawns, methods, options, markers and errors.
//!
//! The expansion functions are plain `proc_macro2` functions, included here as a module.

#[allow(dead_code, unused_imports)]
#[path = "../src/expand/mod.rs"]
mod expand;

use proc_macro2::TokenStream;

fn pretty(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens.clone())
        .unwrap_or_else(|e| panic!("the expansion does not parse: {e}\n{tokens}"));
    prettyplease::unparse(&file)
}

/// The expansion (fast path when it applies), checked against the full expansion.
fn drainable(args: &str, item: &str) -> String {
    let fast = pretty(expand::drainable(
        args.parse().unwrap(),
        item.parse().unwrap(),
    ));
    let full =
        pretty(expand::drainable::expand_full(args.parse().unwrap(), item.parse().unwrap()).0);
    assert_eq!(fast, full, "the fast path and the full expansion differ");
    fast
}

fn main_attr(args: &str, item: &str) -> String {
    pretty(expand::main(args.parse().unwrap(), item.parse().unwrap()))
}

macro_rules! snap {
    ($name:ident, $args:expr, $item:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(drainable($args, $item));
        }
    };
}

snap!(
    loop_plain,
    "",
    "fn f() { loop { work(); if done() { break; } } after(); }"
);
snap!(loop_never_in_unit_fn, "", "fn f() { loop { work(); } }");
snap!(
    while_plain,
    "",
    "fn f(mut n: u32) { while n > 0 { n -= 1; } }"
);
snap!(
    while_let,
    "",
    "fn f(q: &mut Vec<u32>) { while let Some(x) = q.pop() { use_it(x); } }"
);
snap!(
    while_let_chain,
    "",
    "fn f(q: &mut Vec<u32>) { while let Some(x) = q.pop() && x > 3 { use_it(x); } }"
);
snap!(
    for_loop,
    "",
    "fn f(v: Vec<(u32, u32)>) { for (a, b) in v { use_it(a + b); } }"
);
snap!(
    nested_loop_runs_to_its_end,
    "",
    "fn f(jobs: &[Job]) { for job in jobs { for part in &job.parts { step(part); } record(job); } }"
);
snap!(
    nested_partial_marker,
    "scope = s",
    "async fn f(s: &Shutdown, jobs: Vec<Job>) { for job in jobs { let mut n = 0; #[drainable(partial)] for card in job.cards { card.commit().await; n += 1; } job.done(n).await; } }"
);
snap!(
    value_fn_loop_warns,
    "",
    "fn listing(dir: &Dir) -> Vec<String> { let mut out = Vec::new(); for e in dir.entries() { out.push(e.name()); } out }"
);
snap!(
    value_fn_loop_partial_no_warning,
    "",
    "fn count(q: &mut Queue) -> u64 { let mut n = 0; #[drainable(partial)] while let Some(j) = q.pop() { j.run(); n += 1; } n }"
);
snap!(
    spawn_in_claiming_loop_is_its_own_unit,
    "",
    "async fn coordinator(rx: Rx) { while let Some(job) = rx.recv().await { tokio::spawn(async move { for card in job.cards { card.commit().await; } }); } }"
);
snap!(
    labels,
    "",
    "fn f(rows: &[Vec<u32>]) { 'rows: for row in rows { 'cols: loop { if row.is_empty() { continue 'rows; } if row[0] == 0 { break 'cols; } break 'rows; } } }"
);
snap!(
    closures,
    "",
    "fn f(v: &[u32]) -> u32 { let g = |x: u32| { let mut n = 0; while n < x { n += 1; } n }; v.iter().map(|x| g(*x)).sum() }"
);
snap!(
    async_blocks,
    "",
    "async fn f() { let task = async { loop { tick().await; } }; task.await; }"
);
snap!(
    spawns,
    "",
    "fn f() { tokio::spawn(async move { loop { tick().await; } }); ::tokio::task::spawn(job()); tokio::task::spawn_blocking(|| heavy()); tokio::task::spawn_local(local()); std::thread::spawn(move || loop { park(); }); ::std::thread::spawn(f); }"
);
snap!(
    spawns_not_routed,
    "",
    "fn f() { spawn(job()); thread::spawn(f); tokio::task::spawn_blocking::<_, ()>(f); handle.spawn(job()); }"
);
snap!(
    method_with_self,
    "scope = self.scope",
    "#[inline] pub async fn run<'a>(&'a self, jobs: &'a [T]) -> usize where T: Sync { let mut n = 0; for job in jobs { job.run().await; n += 1; } tokio::spawn(async move { loop { tick().await; } }); std::thread::spawn(|| { while ready() { step(); } }); n }"
);
snap!(
    scope_param,
    "scope = scope",
    "fn f(scope: Shutdown, v: Vec<u32>) { for x in v { use_it(x); } let c = move || loop { tick(); }; c(); }"
);
snap!(
    crate_path,
    "crate = my_runtime",
    "fn f() { loop { tick(); } tokio::spawn(job()); }"
);
snap!(
    idle_while_let,
    "",
    "async fn f(mut rx: Receiver<u32>) { #[drainable(idle)] while let Some(job) = rx.recv().await { handle(job).await; } }"
);
snap!(
    idle_statement,
    "",
    "async fn f(rx: &mut Receiver<u32>) { loop { #[drainable(idle)] let job = rx.recv().await?; handle(job).await; } }"
);
snap!(
    skip_marker,
    "",
    "fn f() { #[drainable(skip)] loop { tick(); } }"
);
snap!(
    on_shutdown_marker,
    "",
    "fn serve(l: Listener) -> Result<(), Error> { #[drainable(on_shutdown = Ok(()))] loop { let c = l.accept()?; handle(c); } }"
);
snap!(
    value_loops_unchanged,
    "",
    "fn f() -> u32 { let x = loop { break 5; }; let y = match x { 5 => loop { tick(); }, n => n }; loop { if x > 3 { return x; } } }"
);
snap!(
    spawned_closure_output_free,
    "",
    "fn f() { std::thread::spawn(|| loop { park(); }); let g = || loop { park(); }; let a = async { loop { x()?; } }; }"
);
snap!(
    nested_items_untouched,
    "",
    "fn f() { fn inner() { loop { tick(); } } struct S; impl S { fn m() { for _ in 0..3 {} } } const N: usize = { let mut i = 0; while i < 3 { i += 1; } i }; let a = [0u8; { let mut n = 0; while n < 2 { n += 1 } n }]; loop { inner(); } }"
);
snap!(
    error_unknown_and_duplicate_options,
    "scope = a, bogus = 1, scope = b",
    "fn f() { #[drainable(skip)] loop {} }"
);
snap!(
    error_markers,
    "",
    "fn f() { #[drainable(skip, idle)] loop {} #[drainable(on_shutdown = 1)] while x {} #[drainable(idle)] for _ in v {} let y = #[drainable(skip)] 5; #[drainable] loop {} #[drainable(nope)] loop {} }"
);
snap!(
    error_idle_placement,
    "",
    "async fn f() { #[drainable(idle)] let x = rx.recv().await; loop { #[drainable(idle)] let y = compute(); } let v = loop { #[drainable(idle)] let z = rx.recv().await; break z; }; }"
);
snap!(error_const_fn, "", "const fn f() -> u32 { 3 }");
snap!(error_not_a_fn, "", "struct S;");

#[test]
fn main_default() {
    insta::assert_snapshot!(main_attr("", "async fn main() { run().await; }"));
}

#[test]
fn main_options() {
    insta::assert_snapshot!(main_attr(
        "grace = \"1m30s\", flavor = \"multi_thread\", worker_threads = 4, crate = ::my_runtime",
        "/// Docs.\nasync fn main() -> Result<(), std::io::Error> { run().await?; Ok(()) }"
    ));
}

#[test]
fn main_current_thread() {
    insta::assert_snapshot!(main_attr(
        "flavor = \"current_thread\", grace = \"500ms\"",
        "async fn main() {}"
    ));
}

#[test]
fn main_errors() {
    insta::assert_snapshot!(main_attr(
        "grace = \"30 seconds\", flavor = \"single\", worker_threads = 0, retries = 3",
        "async fn main() {}"
    ));
}

#[test]
fn main_shape_errors() {
    insta::assert_snapshot!(main_attr("", "fn main<T>(x: T) {}"));
}
