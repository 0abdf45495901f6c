#[shutdown_runtime::drainable]
fn f() -> u32 {
    #[drainable(skip)]
    let x = 5;
    x
}

fn main() {}
