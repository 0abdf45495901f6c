//! A cheap coarse monotonic clock (milliseconds) for task start times and ages.
//!
//! `Instant::now()` costs ~20 ns (a precise `CLOCK_MONOTONIC` read); a tracked spawn only needs
//! the age of a task to the nearest few milliseconds, so on Linux it reads
//! `CLOCK_MONOTONIC_COARSE` (one vDSO read of the last tick, ~5 ns).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Milliseconds on a monotonic clock (only differences are meaningful).
#[inline]
pub(crate) fn now_ms() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC_COARSE exists on Linux.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
        if rc == 0 {
            return (ts.tv_sec as u64) * 1000 + (ts.tv_nsec as u64) / 1_000_000;
        }
    }
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64
}

/// The age of something that started at `start_ms` (from [`now_ms`], truncated to 32 bits, as
/// registry slots store it): exact for ages below 49.7 days.
pub(crate) fn age_since(start_ms: u32) -> Duration {
    Duration::from_millis(u64::from((now_ms() as u32).wrapping_sub(start_ms)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarse_clock_is_monotonic_and_close_to_instant() {
        let a = now_ms();
        std::thread::sleep(Duration::from_millis(30));
        let b = now_ms();
        assert!(b >= a + 20, "{a} -> {b}");
        assert!(age_since(a as u32) >= Duration::from_millis(20));
    }
}
