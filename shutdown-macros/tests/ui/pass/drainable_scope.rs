//! `scope = <expr>`: a parameter (`&Shutdown`), a field, an `Arc<Shutdown>`.
use std::sync::Arc;

use shutdown_runtime::{Shutdown, drainable};

#[drainable(scope = scope)]
fn by_ref(scope: &Shutdown, units: &[u32]) -> u32 {
    let mut sum = 0;
    for unit in units {
        sum += unit;
        scope.request();
    }
    sum
}

#[drainable(scope = scope)]
fn by_arc(scope: Arc<Shutdown>) -> std::thread::JoinHandle<u32> {
    std::thread::spawn(move || {
        let mut n = 0;
        while n < 100 {
            n += 1;
            if n == 10 {
                scope.request();
            }
        }
        n
    })
}

struct Service {
    scope: Shutdown,
}

impl Service {
    #[drainable(scope = self.scope)]
    async fn serve(&self) -> u32 {
        let worker = tokio::spawn(async {
            let mut ticks = 0;
            loop {
                ticks += 1;
                tokio::task::yield_now().await;
            }
        });
        self.scope.request();
        worker.await.unwrap();
        7
    }
}

fn main() {
    assert_eq!(by_ref(&Shutdown::new(), &[4, 5, 6]), 4);
    assert_eq!(by_arc(Arc::new(Shutdown::new())).join().unwrap(), 10);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let service = Service {
        scope: Shutdown::new(),
    };
    assert_eq!(rt.block_on(service.serve()), 7);
}
