//! [`Inner`]: the shared state of a scope (flag, reason, registry), and [`ScopeRef`], how a
//! tracked task refers to it. Its own module so that `scope`, `tracked`, `drain` and `wait`
//! all depend on it and not on each other.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use tokio::sync::Notify;

use crate::registry::Registry;

/// Shared state of a scope. Aligned to 128 bytes so the flag read by every checkpoint does not
/// share a cache line with the `Arc` reference counts written by spawns.
#[repr(align(128))]
pub(crate) struct Inner {
    pub(crate) requested: AtomicBool,
    pub(crate) is_global: bool,
    /// 0 = none yet; otherwise `ShutdownReason::encode() + 1`.
    pub(crate) reason: AtomicU64,
    pub(crate) requested_at: OnceLock<Instant>,
    pub(crate) notify: Arc<Notify>,
    pub(crate) registry: Registry,
    pub(crate) drain_lock: tokio::sync::Mutex<()>,
}

impl Inner {
    pub(crate) fn new(is_global: bool) -> Inner {
        Inner {
            requested: AtomicBool::new(false),
            is_global,
            reason: AtomicU64::new(0),
            requested_at: OnceLock::new(),
            notify: Arc::new(Notify::new()),
            registry: Registry::new(),
            drain_lock: tokio::sync::Mutex::new(()),
        }
    }

    #[inline(always)]
    pub(crate) fn is_requested(&self) -> bool {
        // Acquire: a reader that sees `true` also sees the reason and the request time,
        // which are written before the Release (SeqCst) store in `request_with`.
        self.requested.load(Ordering::Acquire)
    }
}

/// How a tracked task refers to its scope: the global scope lives for the whole process, so a
/// task of it holds no reference at all (no reference count touched per spawn); a task of an
/// isolated scope holds an `Arc`, so the scope outlives its last task. One word either way
/// (`Global` is the `Arc`'s null niche), which keeps the task wrapper small.
#[derive(Clone)]
pub(crate) enum ScopeRef {
    /// The process-wide scope ([`Shutdown::global`](crate::Shutdown::global)).
    Global,
    /// An isolated scope (`Shutdown::new`).
    Local(Arc<Inner>),
}

impl std::ops::Deref for ScopeRef {
    type Target = Inner;

    #[inline(always)]
    fn deref(&self) -> &Inner {
        match self {
            ScopeRef::Global => crate::scope::global_inner(),
            ScopeRef::Local(inner) => inner,
        }
    }
}

impl Drop for Inner {
    /// Forgets loops stopped early that no drain of this scope reported: they are keyed by the
    /// scope's address, which a later scope may reuse.
    fn drop(&mut self) {
        let _ = crate::stops::take(std::ptr::from_ref(self) as usize);
    }
}
