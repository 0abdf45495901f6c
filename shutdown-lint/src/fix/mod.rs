//! `--fix`: rewrite findings in place by minimal text edits (ruff's model: safe fixes by
//! default, unsafe ones with `--unsafe-fixes`, `--diff` to look first).
//!
//! The pipeline, one concept per file:
//! - [`site`]: what the linter resolved at each call a fixer may rewrite (kept with the
//!   file's facts, so aliases, globs, re-exports and macro bodies need no second resolver);
//! - [`index`]: where the calls, parentheses, arguments, `use` items and `fn main` are;
//! - [`cx`]: what a fixer sees of a file;
//! - the fixers: [`spawn`] (`raw-spawn`, safe), [`thread`] (`detached-thread`, safe),
//!   [`http`] (`http-no-timeout`, unsafe), [`main_attr`] (`sigterm-missing`, unsafe), with
//!   task names from [`name`] and `use` lines from [`imports`];
//! - [`edit`]: edits, overlap resolution, application; [`reparse`]: the check that the
//!   result parses before anything is written;
//! - [`manifest`]: the `shutdown-runtime` dependency in `Cargo.toml` (`toml_edit`);
//! - [`cli`]: the `--fix` / `--diff` command line; [`run`]: lint, plan, re-parse check, remaining findings; [`write`]: atomic writes;
//!   [`git`]: the dirty-tree check; [`diff`]: `--diff`; [`summary`]: what was done.
//!
//! # Examples
//! ```
//! use shutdown_lint::fix::run::{plan, FixOptions};
//! let dir = tempfile::tempdir().unwrap();
//! let src = "use tokio::task;\nfn f() {\n    task::spawn_blocking(|| work());\n}\n";
//! std::fs::write(dir.path().join("a.rs"), src).unwrap();
//! let r = plan(&[dir.path().to_path_buf()], &FixOptions::default()).unwrap();
//! assert!(r.changes[0].new.contains("shutdown_runtime::spawn_blocking(|| work())"));
//! ```

pub mod cli;
pub mod cx;
pub mod diff;
pub mod edit;
pub mod git;
pub mod http;
pub mod imports;
pub mod index;
pub mod main_attr;
pub mod manifest;
pub mod name;
pub mod reparse;
pub mod run;
pub mod site;
pub mod spawn;
pub mod summary;
pub mod thread;
pub mod write;
