#[shutdown_runtime::main(flavor = "single_thread")]
async fn main() {}
