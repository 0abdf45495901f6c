#[shutdown_runtime::drainable]
fn f() -> u32 {
    #[drainable(on_shutdown = 1, on_shutdown = 2)]
    loop {}
}

fn main() {}
