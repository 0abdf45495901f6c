#[shutdown_runtime::main]
async fn main<T>() {}
