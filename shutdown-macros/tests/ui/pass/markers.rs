//! Loop markers: `skip`, `idle` (on a `while let` and on a statement), `on_shutdown`.
use shutdown_runtime::{Shutdown, drainable};

#[drainable(scope = scope)]
async fn markers(
    scope: &Shutdown,
    mut rx: tokio::sync::mpsc::Receiver<u32>,
) -> Result<u32, String> {
    let mut sum = 0;
    #[drainable(skip)]
    for unit in 0..3 {
        sum += unit;
    }
    #[drainable(idle)]
    while let Some(job) = rx.recv().await {
        sum += job;
        if job == 10 {
            break;
        }
    }
    loop {
        #[drainable(idle)]
        let job = rx.recv().await.ok_or("closed")?;
        sum += job;
        if job == 20 {
            scope.request();
        }
    }
    #[drainable(on_shutdown = Ok(sum))]
    loop {
        let job = rx.recv().await.ok_or("closed")?;
        sum += job;
    }
}

fn main() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let scope = Shutdown::new();
    let total = rt.block_on(async {
        let (tx, rx) = tokio::sync::mpsc::channel(8);
        for job in [10, 20, 30] {
            tx.send(job).await.unwrap();
        }
        markers(&scope, rx).await
    });
    assert_eq!(total, Ok(3 + 10 + 20));
}
