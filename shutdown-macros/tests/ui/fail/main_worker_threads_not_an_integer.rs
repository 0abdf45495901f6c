#[shutdown_runtime::main(worker_threads = "4")]
async fn main() {}
