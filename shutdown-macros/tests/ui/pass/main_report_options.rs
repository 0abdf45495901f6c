//! `report` and `second_signal` options: the report goes to stdout as JSON at exit.
#[shutdown_runtime::main(grace = "5s", report = "json", second_signal = "abort_all")]
async fn main() {
    shutdown_runtime::spawn(async {});
}
