//! Why a shutdown was requested: [`ShutdownReason`].

use serde::Serialize;

/// Why a scope's shutdown was requested.
///
/// The first reason recorded wins; later requests do not overwrite it.
///
/// # Examples
///
/// ```
/// use shutdown_runtime::{Shutdown, ShutdownReason};
///
/// let scope = Shutdown::new();
/// scope.request_with(ShutdownReason::Signal(libc::SIGTERM));
/// scope.request(); // too late: the first reason is kept
/// assert_eq!(scope.reason(), Some(ShutdownReason::Signal(libc::SIGTERM)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShutdownReason {
    /// A POSIX signal with this number (`SIGTERM` = 15, `SIGINT` = 2) arrived.
    Signal(i32),
    /// Code called [`Shutdown::request`](crate::Shutdown::request) or
    /// [`request_shutdown`](crate::request_shutdown).
    Manual,
}

impl ShutdownReason {
    /// Encodes the reason in one word for the scope's lock-free reason cell.
    pub(crate) fn encode(self) -> u64 {
        match self {
            // Signal numbers are small positive ints; keep them below the Manual marker.
            ShutdownReason::Signal(n) => u64::from(n as u32),
            ShutdownReason::Manual => u64::from(u32::MAX) + 1,
        }
    }

    /// Inverse of [`ShutdownReason::encode`].
    pub(crate) fn decode(word: u64) -> ShutdownReason {
        if word > u64::from(u32::MAX) {
            ShutdownReason::Manual
        } else {
            ShutdownReason::Signal(word as u32 as i32)
        }
    }
}

impl std::fmt::Display for ShutdownReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShutdownReason::Signal(n) => write!(f, "signal {n}"),
            ShutdownReason::Manual => f.write_str("manual request"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_round_trips() {
        for r in [
            ShutdownReason::Manual,
            ShutdownReason::Signal(2),
            ShutdownReason::Signal(15),
            ShutdownReason::Signal(0),
        ] {
            assert_eq!(ShutdownReason::decode(r.encode()), r);
        }
    }

    #[test]
    fn serializes_as_tagged_json() {
        assert_eq!(
            serde_json::to_string(&ShutdownReason::Signal(15)).unwrap(),
            r#"{"signal":15}"#
        );
        assert_eq!(
            serde_json::to_string(&ShutdownReason::Manual).unwrap(),
            r#""manual""#
        );
    }
}
