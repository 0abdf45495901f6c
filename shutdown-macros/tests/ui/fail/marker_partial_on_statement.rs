#[shutdown_runtime::drainable]
fn f(v: &[u32]) -> u32 {
    #[drainable(partial)]
    let total = v.iter().sum();
    total
}

fn main() {}
