//! `cargo shutdown audit` (work in progress).
pub mod budgets;
pub mod deploy;
pub mod duration;
pub mod workspace;
