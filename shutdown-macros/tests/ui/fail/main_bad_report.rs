#[shutdown_runtime::main(report = "xml", second_signal = "twice")]
async fn main() {}
