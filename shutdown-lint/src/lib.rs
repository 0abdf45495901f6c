//! A compile-free linter for graceful-shutdown hazards (work in progress).
pub mod audit;
pub mod baseline;
pub mod finding;
