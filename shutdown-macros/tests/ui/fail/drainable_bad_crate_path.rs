#[shutdown_runtime::drainable(crate = 1 + 2)]
fn f() {}

fn main() {}
