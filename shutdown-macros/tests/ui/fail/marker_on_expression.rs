#[shutdown_runtime::drainable]
fn f() -> u32 {
    let x = #[drainable(skip)]
    5;
    x
}

fn main() {}
