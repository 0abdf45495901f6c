#[shutdown_runtime::drainable(scop = scope)]
fn f() {}

fn main() {}
