#[shutdown_runtime::drainable(scope)]
fn f() {}

fn main() {}
