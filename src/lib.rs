//! Shared pieces of the example programs and of the end-to-end signal tests
//! (the root package owns `examples/` and `tests/`).
//!
//! - [`cli`]: the examples' small `--name value` argument parser (bad input → exit 2);
//! - [`ledger`]: the worker's `begin <id>` / `commit <id>` ledger format and the checks the
//!   tests apply to it (nothing half done, every unit committed exactly once);
//! - [`ledger_file`]: appending to that ledger with an fsync per line;
//! - [`report_line`]: reading the drain report that the examples print as their last stdout
//!   line.

pub mod cli;
pub mod ledger;
pub mod ledger_file;
pub mod report_line;
