#[shutdown_runtime::drainable]
async fn f(jobs: Vec<tokio::sync::mpsc::Receiver<u32>>) {
    for mut rx in jobs {
        // nested in the claimed unit of the `for`: it runs to its end, `idle` cannot leave it
        loop {
            #[drainable(idle)]
            let Some(_part) = rx.recv().await else { break };
        }
    }
}

fn main() {}
