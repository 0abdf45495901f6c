//! The expansion logic as `proc_macro2` → `proc_macro2` functions, testable without a compiler.
//!
//! Every path inside this module is relative (`super::`), so tests and benches can include it
//! with `#[path = "../src/expand/mod.rs"] mod expand;`.

pub(crate) mod analysis;
pub(crate) mod args;
pub(crate) mod drainable;
pub(crate) mod duration;
pub(crate) mod emit;
pub(crate) mod errors;
pub(crate) mod fast;
pub(crate) mod main_attr;
pub(crate) mod rewrite;
pub(crate) mod strip;

pub(crate) use drainable::expand as drainable;
pub(crate) use main_attr::expand as main;
// Used by the robustness run and the benchmark, which include this module.
#[allow(unused_imports)]
pub(crate) use drainable::expand_with_stats as drainable_with_stats;
#[allow(unused_imports)]
pub(crate) use rewrite::Stats;
