//! `crate = <path>`: the runtime reached through another path (a renamed dependency).
mod rt {
    pub use shutdown_runtime::*;
}

#[shutdown_runtime::drainable(crate = crate::rt)]
fn first(units: &[u32]) -> u32 {
    let mut sum = 0;
    for unit in units {
        sum += unit;
    }
    sum
}

#[shutdown_runtime::drainable(crate = "crate::rt", scope = rt::Shutdown::new())]
fn second() -> u32 {
    let mut n = 0;
    while n < 5 {
        n += 1;
    }
    n
}

fn main() {
    assert_eq!(first(&[1, 2]), 3);
    assert_eq!(second(), 5);
}
