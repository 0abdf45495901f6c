#[shutdown_runtime::drainable]
fn f() {
    #[drainable(skp)]
    loop {}
}

fn main() {}
