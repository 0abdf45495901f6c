//! `cargo shutdown lint|audit` (work in progress).
fn main() {}
