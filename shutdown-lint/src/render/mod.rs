//! Renderers: a [`LintReport`](crate::engine::LintReport) to text. They return `String`s;
//! only the binaries print.

pub mod file_source;
pub mod github;
pub mod human;
pub mod json;
pub mod sarif;

pub use human::{HumanOptions, render_human};
pub use json::render_json;
