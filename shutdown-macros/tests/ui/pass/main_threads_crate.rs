//! `worker_threads` and `crate = <path>`.
mod rt {
    pub use shutdown_runtime::*;
}

#[rt::main(grace = "500ms", flavor = "multi_thread", worker_threads = 2, crate = crate::rt)]
async fn main() {
    tokio::task::yield_now().await;
}
