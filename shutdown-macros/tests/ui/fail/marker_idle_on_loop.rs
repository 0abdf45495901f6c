#[shutdown_runtime::drainable]
async fn f(mut rx: tokio::sync::mpsc::Receiver<u32>) {
    #[drainable(idle)]
    loop {
        if rx.recv().await.is_none() {
            break;
        }
    }
}

fn main() {}
