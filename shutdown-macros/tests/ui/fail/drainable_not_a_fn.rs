#[shutdown_runtime::drainable]
struct Worker;

fn main() {}
