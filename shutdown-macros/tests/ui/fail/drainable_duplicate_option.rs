#[shutdown_runtime::drainable(crate = shutdown_runtime, crate = shutdown_runtime)]
fn f() {}

fn main() {}
