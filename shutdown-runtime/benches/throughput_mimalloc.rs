//! The spawn comparison of `throughput.rs` with mimalloc as the global allocator (tokio's task
//! allocations dominate a spawn; the allocator changes the baseline's cost and so the ratios).
//!
//! Run: `cargo bench -p shutdown-runtime --bench throughput_mimalloc`.
//! Profiling aid: `SHUTDOWN_BENCH_PROFILE=raw|tracker|joinset|tracked|global` runs only that
//! variant (1M tasks, 5 times).

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "common/spawn.rs"]
mod spawn;

fn main() {
    if let Ok(which) = std::env::var("SHUTDOWN_BENCH_PROFILE") {
        let rt = spawn::runtime();
        let v = match which.as_str() {
            "raw" => spawn::Variant::Raw,
            "tracker" => spawn::Variant::TaskTracker,
            "joinset" => spawn::Variant::JoinSet,
            "global" => spawn::Variant::TrackedGlobal,
            _ => spawn::Variant::Tracked,
        };
        for _ in 0..5 {
            let _ = spawn::run(&rt, v, 1_000_000);
        }
        return;
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run tiny sizes then.
    if std::env::args().any(|a| a == "--bench") {
        spawn::bench_spawn("mimalloc", &[10_000, 100_000, 1_000_000], 9);
    } else {
        println!("(quick mode: run with `cargo bench` for real figures)");
        spawn::bench_spawn("mimalloc", &[1_000], 1);
    }
}
