#[shutdown_runtime::main]
fn main() {}
