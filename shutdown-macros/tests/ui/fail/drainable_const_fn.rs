#[shutdown_runtime::drainable]
const fn f() -> u32 {
    let mut i = 0;
    while i < 3 {
        i += 1;
    }
    i
}

fn main() {}
