#[shutdown_runtime::main]
async fn main(_args: Vec<String>) {}
