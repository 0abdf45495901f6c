#[shutdown_runtime::drainable]
fn f() {
    #[drainable]
    loop {}
}

fn main() {}
