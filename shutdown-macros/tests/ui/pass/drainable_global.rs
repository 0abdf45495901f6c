//! Default options: the global scope; every loop kind, spawns, a method.
use shutdown_runtime::drainable;

struct Counter {
    seen: u32,
}

impl Counter {
    #[drainable]
    fn count<I: IntoIterator<Item = u32>>(&mut self, units: I) -> u32 {
        for unit in units {
            self.seen += unit;
        }
        let mut n = 0;
        while n < 3 {
            n += 1;
        }
        let mut queue = vec![1, 2];
        while let Some(unit) = queue.pop() {
            self.seen += unit;
        }
        loop {
            if self.seen > 0 {
                break;
            }
        }
        self.seen
    }
}

#[drainable]
async fn start() -> u32 {
    let task = tokio::spawn(async { 1 });
    let blocking = tokio::task::spawn_blocking(|| 2);
    let thread = std::thread::spawn(|| 3);
    task.await.unwrap() + blocking.await.unwrap() + thread.join().unwrap()
}

fn main() {
    let mut counter = Counter { seen: 0 };
    assert_eq!(counter.count([1, 2, 3]), 9);
    let rt = tokio::runtime::Runtime::new().unwrap();
    assert_eq!(rt.block_on(start()), 6);
    shutdown_runtime::request_shutdown();
    assert_eq!(
        counter.count([100]),
        9,
        "no unit is claimed after the request"
    );
}
