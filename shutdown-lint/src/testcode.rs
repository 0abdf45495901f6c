//! The one test-code predicate: what the linter and the audit skip unless asked
//! (`include-tests`, `include-examples`). By location — files under `tests/` or `benches/`
//! or a directory named for benchmarks (`benchmarks/`, rustc-perf's `compile-benchmarks/`
//! of vendored crates, restate's `tools/pp-bench/`),
//! modules named for tests — a file or directory whose name has a test word
//! (`tests.rs`, `test/`, `test_utils.rs`, `testing/`: [`crate::lexscan::is_test_feature`]'s
//! words; `mock.rs`, `mocks/`, `mock-server/`), the usual targets of `#[cfg(test)] mod
//! tests;` and of test-support modules other crates' tests import (curvine's `pub mod
//! test;` and its `MiniCluster`, radicle's `pub mod mock;`) —, and
//! examples under `examples/` (or a directory named for examples, `plugin_examples/`) —
//! and by attribute (`#[cfg(test)]`, `#[test]`, `#[tokio::test]`, ..) on items,
//! statements and out-of-line modules. A package's build script is skipped with test code:
//! it runs at compile time, never in the service; so is a test-support package
//! (`integration-tests`, `client-api-test`, `e2e`: [`is_test_package`]).

use std::path::{Component, Path};

/// What kind of code a file holds, by its location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeKind {
    /// Code that ships.
    Normal,
    /// Tests and benchmarks (skipped unless `include-tests`).
    Test,
    /// `examples/` (skipped unless `include-examples`).
    Example,
}

/// Classifies a path relative to the directory it was found from (a package directory or
/// a linted root): a file or directory named for tests (a word of its name, split at `-`
/// and `_`, is `test`, `tests`, `testing`, `test_utils`, ..:
/// [`crate::lexscan::is_test_feature`], `mock` and `mocks` among them: propolis's
/// `mock-server`, restate's `tools/mock-service-endpoint`; not `testnet`), or for benchmarks
/// ([`is_bench_name`]) is test code — a module `test` is one whether written `test.rs` or
/// `test/mod.rs`; an `examples` directory is an example, and so is a directory one of
/// whose words is `example` or `examples` (`plugin_examples/`, `etl-examples/`) — unless
/// a `src` directory holds it: there it is a module of the crate (blockscout's
/// `src/indexer/example/`, an indexer built into the service). The
/// deepest such directory decides, so `examples/x/tests/t.rs` is a test.
///
/// # Examples
///
/// ```
/// use shutdown_lint::testcode::{classify, CodeKind};
/// assert_eq!(classify("tests/it.rs".as_ref()), CodeKind::Test);
/// assert_eq!(classify("src/net/tests.rs".as_ref()), CodeKind::Test);
/// assert_eq!(classify("src/test/mini_cluster.rs".as_ref()), CodeKind::Test);
/// assert_eq!(classify("src/test_hooks.rs".as_ref()), CodeKind::Test);
/// assert_eq!(classify("src/test_utils/mocks/peer.rs".as_ref()), CodeKind::Test);
/// assert_eq!(classify("src/testnet.rs".as_ref()), CodeKind::Normal);
/// assert_eq!(classify("src/storage/git/transport/remote/mock.rs".as_ref()), CodeKind::Test);
/// assert_eq!(classify("bin/mock-server/src/main.rs".as_ref()), CodeKind::Test);
/// assert_eq!(classify("src/mockingbird.rs".as_ref()), CodeKind::Normal);
/// assert_eq!(classify("src/attestation/mod.rs".as_ref()), CodeKind::Normal);
/// assert_eq!(classify("examples/demo.rs".as_ref()), CodeKind::Example);
/// assert_eq!(classify("plugin_examples/jwt_cookie/src/plugin.rs".as_ref()), CodeKind::Example);
/// assert_eq!(classify("crates/etl-examples/src/main.rs".as_ref()), CodeKind::Example);
/// assert_eq!(classify("src/exampleservice/main.rs".as_ref()), CodeKind::Normal);
/// assert_eq!(classify("indexer-logic/src/indexer/example/indexer.rs".as_ref()), CodeKind::Normal);
/// assert_eq!(classify("src/examples.rs".as_ref()), CodeKind::Normal);
/// assert_eq!(classify("collector/compile-benchmarks/hyper/src/lib.rs".as_ref()), CodeKind::Test);
/// assert_eq!(classify("bencher/src/main.rs".as_ref()), CodeKind::Normal);
/// ```
pub fn classify(rel: &Path) -> CodeKind {
    let comps: Vec<&std::ffi::OsStr> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s),
            _ => None,
        })
        .collect();
    let Some((file, dirs)) = comps.split_last() else {
        return CodeKind::Normal;
    };
    use crate::lexscan::is_test_feature;
    if file
        .to_str()
        .and_then(|f| f.strip_suffix(".rs"))
        .is_some_and(is_test_feature)
    {
        return CodeKind::Test;
    }
    for (i, d) in dirs.iter().enumerate().rev() {
        if d.to_str()
            .is_some_and(|d| is_test_feature(d) || is_bench_name(d))
        {
            return CodeKind::Test;
        }
        // below a `src/` it is a module the crate compiles (`pub mod example;`)
        if d.to_str().is_some_and(is_example_dir_name) && !dirs[..i].iter().any(|a| *a == "src") {
            return CodeKind::Example;
        }
    }
    CodeKind::Normal
}

/// Whether a directory's name says it holds examples: `examples`, or a word of it (split at
/// `-` and `_`) is `example` or `examples` — a package of examples beside the crates that
/// ship (hive-router's `plugin_examples/`, cozo's `cozo-core-examples`, etl's
/// `etl-examples`, hook0's `documentation-examples`, feather's `example-plugins`, nushell's
/// `nu_plugin_example`, quickwit's `quickwit-codegen/example`).
fn is_example_dir_name(d: &str) -> bool {
    has_word(d, &["example", "examples"])
}

/// Whether one of the words of `name` (split at `-` and `_`) is one of `words`.
fn has_word(name: &str, words: &[&str]) -> bool {
    name.split(['-', '_']).any(|w| words.contains(&w))
}

/// Whether a package is test support by its name or its directory's name: a word of
/// either (split at `-` and `_`) is one of a test-support feature's
/// ([`crate::lexscan::is_test_feature`]: `test`, `tests`, `testing`, `test-utils`, ..) or
/// `e2e`, `simtest`, `dst` or `stress` — `client-api-test`, `integration-tests`, `e2e_test`,
/// `martin-e2e-tests`, `slatedb-dst`, `walrus-stress`; not `testnet`, `attestation` or
/// `stressor` —, or
/// names it for benchmarks ([`is_bench_name`]: `logserver-bench`) or for cargo-xtask
/// automation (`xtask`). Its code is test code.
///
/// # Examples
///
/// ```
/// use shutdown_lint::testcode::is_test_package;
/// assert!(is_test_package("rustfs_test_utils", "test-utils".as_ref()));
/// assert!(is_test_package("e2e_test", "e2e_test".as_ref()));
/// assert!(is_test_package("sozu_e2e", "e2e".as_ref()));
/// assert!(is_test_package("walrus_simtest", "crates/walrus-simtest".as_ref()));
/// assert!(is_test_package("walrus_stress", "crates/walrus-stress".as_ref()));
/// assert!(!is_test_package("stressor_api", "crates/stressor".as_ref()));
/// assert!(is_test_package("slatedb_dst", "slatedb-dst".as_ref()));
/// assert!(!is_test_package("dstack_agent", "dstack-agent".as_ref()));
/// assert!(is_test_package("restate-pp-bench", "pp-bench".as_ref()));
/// assert!(is_test_package("xtask", "xtask".as_ref()));
/// assert!(is_test_package("hook0-smoke", "smoke".as_ref()));
/// assert!(is_test_package("spacetimedb-smoketests", "crates/smoketests".as_ref()));
/// assert!(!is_test_package("zebra_network", "zebra-network".as_ref()));
/// assert!(is_test_package("integrationtests", "integrationtests".as_ref()));
/// assert!(!is_test_package("testnet_faucet", "testnet-faucet".as_ref()));
/// ```
pub fn is_test_package(crate_name: &str, dir: &Path) -> bool {
    is_test_support_name(crate_name)
        || dir
            .file_name()
            .and_then(|d| d.to_str())
            .is_some_and(is_test_support_name)
}

/// Whether a package's or directory's name says test support or developer tooling: a
/// test-support feature's word ([`crate::lexscan::is_test_feature`]), `e2e`, `simtest`
/// (Mysten's deterministic simulation tests: walrus's `walrus-simtest`), `dst` (the same
/// elsewhere: `slatedb-dst`, `quickwit-dst`, paradedb's `dst`), `stress` (a
/// stress-test load generator: `walrus-stress`), `smoke` / `smoketests` (a smoke-test
/// driver: hook0's `smoke`, which runs each generated client against a deployment;
/// SpacetimeDB's `smoketests`), `integrationtests` as one word (moksha's), a benchmark's ([`is_bench_name`]), or
/// `xtask` (the cargo-xtask convention: a workspace's build and release automation, run
/// by `cargo xtask ..` on a developer's machine or in CI, never deployed — biome's code
/// generators, AppFlowy's local dev servers).
fn is_test_support_name(name: &str) -> bool {
    crate::lexscan::is_test_feature(name)
        || has_word(
            name,
            &[
                "e2e",
                "xtask",
                "simtest",
                "dst",
                "stress",
                "smoke",
                "smoketest",
                "smoketests",
                "integrationtest",
                "integrationtests",
            ],
        )
        || is_bench_name(name)
}

/// Whether a directory or package is named for benchmarks: a word of its name (split at
/// `-` and `_`) is `bench`, `benches`, `benchmark` or `benchmarks` (`benches`,
/// `compile-benchmarks`, `pp-bench`; not `bencher`, a service that runs them). Benchmark
/// harnesses are built and run by developers, never deployed: skipped with tests.
///
/// # Examples
///
/// ```
/// use shutdown_lint::testcode::is_bench_name;
/// assert!(is_bench_name("benches") && is_bench_name("compile-benchmarks"));
/// assert!(is_bench_name("logserver-bench") && is_bench_name("benchmark"));
/// assert!(!is_bench_name("bencher") && !is_bench_name("workbench"));
/// ```
pub fn is_bench_name(name: &str) -> bool {
    has_word(name, &["bench", "benches", "benchmark", "benchmarks"])
}

/// Whether a package's directory, relative to its workspace's root, lies in a directory of
/// test support: one of its directories is named like a test-support package
/// ([`is_test_package`]'s words: turso's `testing/stress`, `testing/sqltest`, a
/// `tests/e2e-harness` crate) — the workspace root's own place on disk does not count.
///
/// # Examples
///
/// ```
/// use shutdown_lint::testcode::is_in_test_dir;
/// assert!(is_in_test_dir("testing/stress".as_ref()));
/// assert!(is_in_test_dir("crates/e2e/runner".as_ref()));
/// assert!(!is_in_test_dir("crates/server".as_ref()));
/// assert!(!is_in_test_dir("testnet/node".as_ref()));
/// ```
pub fn is_in_test_dir(rel: &Path) -> bool {
    rel.components().any(|c| match c {
        Component::Normal(d) => d.to_str().is_some_and(is_test_support_name),
        _ => false,
    })
}

/// Whether `rel`, relative to its package's directory, is the package's build script
/// (`build.rs` beside `Cargo.toml`): compile-time code, skipped with test code.
///
/// # Examples
///
/// ```
/// use shutdown_lint::testcode::is_build_script;
/// assert!(is_build_script("build.rs".as_ref()));
/// assert!(!is_build_script("src/build.rs".as_ref()));
/// ```
pub fn is_build_script(rel: &Path) -> bool {
    rel == Path::new("build.rs")
}

/// Whether items with these attributes are test code: a `#[cfg(..)]` whose predicate holds
/// only under `test` (`test`, `all(test, unix)`, `any(test, all(test, x))`, a test-support
/// feature such as `feature = "test-utils"` — not `any(test, feature = "x")`, which is
/// compiled whenever the feature is on, nor `not(test)`), `#[test]`, and test attributes of common frameworks (`#[tokio::test]`,
/// `#[rstest]`, `#[test_case]`, `#[quickcheck]`, `#[bench]`).
///
/// # Examples
///
/// ```
/// let item: syn::ItemMod = syn::parse_quote! { #[cfg(all(test, unix))] mod t; };
/// assert!(shutdown_lint::testcode::is_test_attrs(&item.attrs));
/// let item: syn::ItemMod = syn::parse_quote! { #[cfg(not(test))] mod t; };
/// assert!(!shutdown_lint::testcode::is_test_attrs(&item.attrs));
/// let item: syn::ItemFn = syn::parse_quote! { #[cfg(any(test, feature = "tokio"))] fn f() {} };
/// assert!(!shutdown_lint::testcode::is_test_attrs(&item.attrs));
/// ```
pub fn is_test_attrs(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        if a.path().is_ident("cfg") {
            let syn::Meta::List(l) = &a.meta else {
                return false;
            };
            return crate::lexscan::cfg_implies_test(&l.tokens.to_string());
        }
        let last = a
            .path()
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        is_test_framework_attr(&last)
    })
}

/// [`is_test_attrs`] for one attribute read as text, the inside of `#[..]` (the pruner
/// reads attributes before the parse): `cfg(all(test, unix))`, `tokio::test`,
/// `test_case(1)`.
pub(crate) fn is_test_attr_text(inner: &str) -> bool {
    let inner = inner.trim();
    if inner.starts_with("cfg") {
        return crate::lexscan::cfg_predicate(inner).is_some_and(crate::lexscan::cfg_implies_test);
    }
    let path = inner.split(['(', '=']).next().unwrap_or("").trim();
    is_test_framework_attr(path.rsplit("::").next().unwrap_or("").trim())
}

/// The last segment of a test framework's attribute (`#[test]`, `#[tokio::test]`,
/// `#[rstest]`, `#[test_case(..)]`, `#[quickcheck]`, `#[bench]`).
fn is_test_framework_attr(last: &str) -> bool {
    matches!(
        last,
        "test" | "rstest" | "test_case" | "quickcheck" | "bench"
    )
}
