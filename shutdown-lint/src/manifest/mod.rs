//! What the tool reads from `Cargo.toml` files, in one place: the workspace and its members
//! ([`workspace`]), used by the audit and by `--fix`; a package's facts for the engine are in
//! [`crate::package`].
//!
//! # Examples
//! ```
//! use shutdown_lint::manifest::workspace::Workspace;
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"solo\"\n").unwrap();
//! assert_eq!(Workspace::discover(dir.path()).unwrap().crates[0].name, "solo");
//! ```

pub mod workspace;
