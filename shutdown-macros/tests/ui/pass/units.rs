//! Claimed units: a nested loop runs to its end after a request, an opted-in nested loop
//! (`partial`) stops at once, and the claiming loop claims nothing new.
use shutdown_runtime::{Shutdown, drainable};

#[drainable(scope = scope)]
fn jobs(scope: &Shutdown, jobs: &[u32]) -> Vec<(u32, u32)> {
    let mut done = Vec::new();
    #[drainable(partial)]
    for &job in jobs {
        let mut parts = 0;
        for part in 0..4 {
            if job == 1 && part == 1 {
                scope.request();
            }
            parts += 1;
        }
        let mut cards = 0;
        #[drainable(partial)]
        for _card in 0..3 {
            cards += 1;
        }
        done.push((parts, cards));
    }
    done
}

fn main() {
    let scope = Shutdown::new();
    assert_eq!(jobs(&scope, &[0, 1, 2]), [(4, 3), (4, 0)]);
}
