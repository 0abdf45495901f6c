//! `#[shutdown_runtime::main]` with the defaults: exits 0 after a clean run.
#[shutdown_runtime::main]
async fn main() {
    let task = shutdown_runtime::spawn(async { 1 + 1 });
    assert_eq!(task.await.unwrap(), 2);
}
