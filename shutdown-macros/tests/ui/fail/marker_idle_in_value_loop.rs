#[shutdown_runtime::drainable]
async fn f(mut rx: tokio::sync::mpsc::Receiver<u32>) -> u32 {
    loop {
        #[drainable(idle)]
        let job = rx.recv().await;
        if let Some(job) = job {
            break job;
        }
    }
}

fn main() {}
