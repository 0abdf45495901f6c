//! A compile-free linter for graceful-shutdown hazards in Rust services.
//!
//! `shutdown-lint` parses each file with `syn` (no type-check, no build), resolves imports
//! within the file ([`resolve`]), and reports raw task spawns, HTTP clients without
//! timeouts, timeouts longer than the drain budget, detached threads, and binaries that
//! handle Ctrl-C but not SIGTERM ([`rules`]). The library never prints: [`engine`] returns a
//! [`engine::LintReport`], [`render`] turns it into text, and the binaries print it.
//!
//! # Examples
//! ```
//! use shutdown_lint::{analysis::analyze_source, config::Config};
//! let a = analyze_source("src/lib.rs".as_ref(), "fn f() { std::thread::spawn(|| ()); }", &Config::default());
//! assert_eq!(a.findings[0].rule, "detached-thread");
//! ```
#![forbid(unsafe_code)]

pub mod analysis;
pub mod audit;
pub mod baseline;
pub mod callgraph;
pub mod cli;
pub mod collect;
pub mod compact;
pub mod config;
pub mod deploy;
pub mod edition;
pub mod engine;
pub mod finding;
pub mod fix;
pub mod item_recovery;
pub mod lexscan;
pub mod macro_definition;
pub mod macros;
pub mod manifest;
pub mod model;
pub mod package;
pub mod paths;
mod pool;
mod prepare;
pub mod prune;
pub mod registry;
pub mod render;
pub mod resolve;
pub mod rules;
pub mod source;
pub mod suppress;
pub mod targetcode;
pub mod testcode;
pub mod workspace;
