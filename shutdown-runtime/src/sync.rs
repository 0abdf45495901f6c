//! The synchronisation primitives of the task registry: `std`'s, or `loom`'s when the crate is
//! built with `RUSTFLAGS="--cfg shutdown_loom"` (and feature `loom`) for the model checks in
//! `src/loom_model.rs`.
//!
//! Only the registry's own protocol (slot table, counters) goes through this module; tokio
//! types (the drain's `Notify`, `AbortHandle`) stay outside the model.
//!
//! [`HandleCell`] holds a slot's abort handle: crossbeam's lock-free `AtomicCell` (one
//! 8-byte word, swapped atomically), or a loom `Mutex` in the model (the same linearizable
//! swap, visible to loom).

#[cfg(not(shutdown_loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
#[cfg(not(shutdown_loom))]
pub(crate) use std::sync::{Mutex, MutexGuard};

#[cfg(not(shutdown_loom))]
pub(crate) use std::sync::atomic::fence;

#[cfg(shutdown_loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering, fence};
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

/// An `Option<H>` that threads exchange atomically (`H` = tokio's `AbortHandle`: one word).
///
/// [`put`](HandleCell::put) is a plain `Release` store (no read-modify-write: the spawner arms
/// a slot right after `tokio::spawn` wrote the task, and a locked instruction there would wait
/// for all those stores); it is only called on an empty cell, which the slot protocol
/// guarantees (and the loom model checks). [`take`](HandleCell::take) is one atomic swap.
pub(crate) struct HandleCell<H> {
    #[cfg(not(shutdown_loom))]
    cell: crossbeam_utils::atomic::AtomicCell<std::mem::ManuallyDrop<Option<H>>>,
    #[cfg(shutdown_loom)]
    cell: Mutex<Option<H>>,
}

impl<H> HandleCell<H> {
    pub(crate) fn new() -> HandleCell<H> {
        HandleCell {
            #[cfg(not(shutdown_loom))]
            cell: crossbeam_utils::atomic::AtomicCell::new(std::mem::ManuallyDrop::new(None)),
            #[cfg(shutdown_loom)]
            cell: Mutex::new(None),
        }
    }

    /// Stores `value` into the cell, which must be empty. (Were it not, the value there would
    /// be leaked — never dropped —, not unsound; the loom model asserts it never happens.)
    #[inline]
    pub(crate) fn put(&self, value: H) {
        #[cfg(not(shutdown_loom))]
        {
            // `ManuallyDrop` has no drop glue, so this is an atomic store, not a swap.
            self.cell.store(std::mem::ManuallyDrop::new(Some(value)));
        }
        #[cfg(shutdown_loom)]
        {
            let old = std::mem::replace(&mut *lock(&self.cell), Some(value));
            assert!(old.is_none(), "a handle cell was filled twice");
        }
    }

    /// Takes the value out (one atomic swap).
    #[inline]
    pub(crate) fn take(&self) -> Option<H> {
        #[cfg(not(shutdown_loom))]
        {
            std::mem::ManuallyDrop::into_inner(self.cell.swap(std::mem::ManuallyDrop::new(None)))
        }
        #[cfg(shutdown_loom)]
        {
            lock(&self.cell).take()
        }
    }
}

impl<H> Drop for HandleCell<H> {
    fn drop(&mut self) {
        drop(self.take());
    }
}

#[cfg(all(test, not(shutdown_loom)))]
mod tests {
    #[test]
    fn an_abort_handle_cell_is_one_lock_free_word() {
        type Cell = crossbeam_utils::atomic::AtomicCell<
            std::mem::ManuallyDrop<Option<tokio::task::AbortHandle>>,
        >;
        assert!(Cell::is_lock_free());
        assert_eq!(
            std::mem::size_of::<super::HandleCell<tokio::task::AbortHandle>>(),
            8
        );
    }

    #[test]
    fn a_handle_left_in_a_cell_is_dropped_with_it() {
        let h = std::sync::Arc::new(());
        let cell = super::HandleCell::new();
        cell.put(h.clone());
        assert_eq!(std::sync::Arc::strong_count(&h), 2);
        drop(cell);
        assert_eq!(std::sync::Arc::strong_count(&h), 1);
        let cell = super::HandleCell::new();
        cell.put(h.clone());
        assert!(cell.take().is_some() && cell.take().is_none());
    }
}
