//! The synchronisation primitives of the task registry: `std`'s, or `loom`'s when the crate is
//! built with `RUSTFLAGS="--cfg shutdown_loom"` (and feature `loom`) for the model checks in
//! `src/loom_model.rs`.
//!
//! Only the registry's own protocol (slot table, counters) goes through this module; tokio
//! types (the drain's `Notify`, `AbortHandle`) stay outside the model.

#[cfg(not(shutdown_loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
#[cfg(not(shutdown_loom))]
pub(crate) use std::sync::{Mutex, MutexGuard};

#[cfg(shutdown_loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
#[cfg(shutdown_loom)]
pub(crate) use loom::sync::{Mutex, MutexGuard};

/// Locks `m`, ignoring poisoning: the registry's data is consistent at every unlock point, and
/// a panic elsewhere (e.g. `tokio::spawn` outside a runtime) must not make every later spawn of
/// the scope panic too.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    #[cfg(not(shutdown_loom))]
    {
        m.lock().unwrap_or_else(|e| e.into_inner())
    }
    #[cfg(shutdown_loom)]
    {
        m.lock().unwrap()
    }
}

/// Locks `m` if it is free (poisoning ignored, as in [`lock`]); `None` if it is held, also by
/// the calling thread (never blocks, never deadlocks).
pub(crate) fn try_lock<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    #[cfg(not(shutdown_loom))]
    {
        match m.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }
    #[cfg(shutdown_loom)]
    {
        m.try_lock().ok()
    }
}

/// Pads and aligns `T` to 128 bytes (two cache lines: the adjacent-line prefetcher pulls pairs),
/// so values written by different cores do not share a line.
#[repr(align(128))]
#[derive(Debug, Default)]
pub(crate) struct Padded<T>(pub(crate) T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}
