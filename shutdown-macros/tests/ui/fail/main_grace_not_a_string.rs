#[shutdown_runtime::main(grace = 30)]
async fn main() {}
