#[shutdown_runtime::drainable]
fn f(mut n: u32) {
    #[drainable(on_shutdown = ())]
    loop {
        n -= 1;
        if n == 0 {
            break;
        }
    }
}

fn main() {}
