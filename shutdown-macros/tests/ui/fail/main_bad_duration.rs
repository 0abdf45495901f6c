#[shutdown_runtime::main(grace = "30 seconds")]
async fn main() {}
