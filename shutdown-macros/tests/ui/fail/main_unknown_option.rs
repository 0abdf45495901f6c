#[shutdown_runtime::main(grace = "30s", retries = 3)]
async fn main() {}
