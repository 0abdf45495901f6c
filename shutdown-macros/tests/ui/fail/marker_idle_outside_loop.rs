#[shutdown_runtime::drainable]
async fn f(mut rx: tokio::sync::mpsc::Receiver<u32>) {
    #[drainable(idle)]
    let _job = rx.recv().await;
}

fn main() {}
