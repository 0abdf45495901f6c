//! The spawn comparison of `throughput.rs` with mimalloc as the global allocator (tokio's task
//! allocations dominate a spawn; the allocator changes the baseline's cost and so the ratios).
//!
//! Run: `cargo bench -p shutdown-runtime --bench throughput_mimalloc`.

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "common/spawn.rs"]
mod spawn;

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run tiny sizes then.
    if std::env::args().any(|a| a == "--bench") {
        spawn::bench_spawn("mimalloc", &[10_000, 100_000, 1_000_000], 9);
    } else {
        println!("(quick mode: run with `cargo bench` for real figures)");
        spawn::bench_spawn("mimalloc", &[1_000], 1);
    }
}
