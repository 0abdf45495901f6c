//! `shutdown-lint` command line (work in progress).
fn main() {}
