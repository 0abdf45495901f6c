#[shutdown_runtime::drainable]
fn f() {
    #[drainable(skip = true)]
    loop {}
}

fn main() {}
