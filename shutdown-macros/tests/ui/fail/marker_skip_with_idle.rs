#[shutdown_runtime::drainable]
async fn f(mut rx: tokio::sync::mpsc::Receiver<u32>) {
    #[drainable(skip, idle)]
    while let Some(_job) = rx.recv().await {}
}

fn main() {}
