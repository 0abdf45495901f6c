#[shutdown_runtime::main(grace = "30s", grace = "10s")]
async fn main() {}
