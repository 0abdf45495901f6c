#[shutdown_runtime::drainable]
fn f(v: Vec<u32>) {
    #[drainable(idle)]
    for _x in v {}
}

fn main() {}
