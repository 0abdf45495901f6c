//! `grace`, `flavor = "current_thread"` and a `Result` return type.
#[shutdown_runtime::main(grace = "1m30s", flavor = "current_thread")]
async fn main() -> Result<(), std::num::ParseIntError> {
    let n: u32 = "42".parse()?;
    assert_eq!(n, 42);
    Ok(())
}
