#[shutdown_runtime::drainable]
fn f(mut n: u32) {
    #[drainable(on_shutdown = ())]
    while n > 0 {
        n -= 1;
    }
}

fn main() {}
