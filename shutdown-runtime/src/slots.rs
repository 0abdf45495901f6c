//! The slot table of one registry shard: one slot per tracked task, holding what is needed to
//! abort it (`H`, tokio's `AbortHandle`) and to report it (kind, location, name, start).
//!
//! # Protocol (safe code only; model-checked with loom in `loom_model.rs`)
//!
//! * Each slot is a `Mutex` over its data, held only for a few loads and stores, never across
//!   a call into tokio. The spawner *reserves* the slot (metadata, generation), spawns with no
//!   lock held, then *arms* it (stores the abort handle) — [`Shard::occupy`]. The task's end
//!   ([`Shard::end`]) frees an armed slot; an end that finds the slot not armed yet (the task
//!   ran to completion on another worker, or was dropped inside the spawn call by a closed
//!   runtime) only marks it *ended early*, and the arming spawner frees it. A drain that
//!   reaches a slot not armed yet marks it *aborting*, and the arming spawner aborts the task
//!   itself. (A first version held the slot's lock across `tokio::spawn`: the worker woken by
//!   the spawn ran the task and blocked on that lock, 2x slower under load.)
//! * Allocation is owned by the threads of the shard (an uncontended `Mutex`): a local free
//!   list, refilled by taking the whole shared **free stack** at once. Ending tasks (any
//!   thread) push their freed slot onto that stack with one CAS. A stack with a single
//!   consumer that only ever takes everything has no ABA problem: a pushed index cannot be
//!   pushed again before the consumer has taken it and handed it out.
//! * Slots live in chunks that never move (chunk `k` holds `BASE << k` slots), so a slot is
//!   reached by index without a table-wide lock, and growing never copies a slot.
//! * Each occupation bumps the slot's generation, so a drain can tell "the task it aborted is
//!   still there" from "the slot was reused".

use std::borrow::Cow;
use std::panic::Location;
use std::sync::OnceLock;

use crate::sync::{AtomicU32, Mutex, Ordering, lock};

/// What a tracked slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An async task (`spawn*`, `spawn_local`, `spawn_on`): abortable.
    Task,
    /// A `spawn_blocking` job: abortable only before it starts.
    Blocking,
    /// A tracked OS thread: never abortable.
    Thread,
}

impl Kind {
    /// The name used when nothing better is known.
    pub(crate) fn fallback_name(self) -> &'static str {
        match self {
            Kind::Task => "task",
            Kind::Blocking => "blocking",
            Kind::Thread => "thread",
        }
    }
}

/// How a tracked task ended (reported by its guard). Not to be confused with
/// [`run::Outcome`](crate::Outcome), the result of the whole life cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskEnd {
    /// Dropped before completing: aborted (by a drain or the user) or the runtime shut down.
    Cancelled,
    /// Returned normally.
    Completed,
    /// Panicked (already recorded).
    Panicked,
}

/// Something that can abort the task it belongs to.
pub(crate) trait Abort {
    /// Requests the abort (idempotent, never blocks).
    fn abort(&self);
}

impl Abort for tokio::task::AbortHandle {
    fn abort(&self) {
        tokio::task::AbortHandle::abort(self);
    }
}

/// A task's name: given to `spawn_named`, or the type name of what it runs (trimmed when a
/// report is made, see `names.rs`).
pub(crate) enum Name {
    /// `std::any::type_name::<F>` of the future or closure.
    Type(fn() -> &'static str),
    /// The name given by the caller.
    Given(Box<Cow<'static, str>>),
}

/// An occupied slot: the task's metadata and its abort handle.
pub(crate) struct Task<H> {
    pub(crate) kind: Kind,
    /// A drain aborted (or asked to abort) this task.
    pub(crate) aborting: bool,
    /// The spawner stored the handle (set once, by the spawner).
    pub(crate) armed: bool,
    /// The task ended before it was armed: the arming spawner frees the slot.
    pub(crate) ended_early: bool,
    pub(crate) start_ms: u64,
    pub(crate) location: &'static Location<'static>,
    pub(crate) name: Name,
    /// `None` for threads (not abortable).
    pub(crate) handle: Option<H>,
}

/// A slot's data, behind its lock.
struct SlotData<H> {
    /// Bumped by every occupation.
    generation: u32,
    task: Option<Task<H>>,
}

struct Slot<H> {
    /// Next freed slot (index + 1, 0 = none) while this slot is on the free stack.
    next_free: AtomicU32,
    data: Mutex<SlotData<H>>,
}

/// Slots in chunk 0; chunk `k` holds `BASE << k`.
const BASE: usize = 64;
/// Enough chunks for `BASE * (2^CHUNKS - 1)` slots per shard (≈ 2^32).
const CHUNKS: usize = 26;

/// `(chunk, offset)` of slot `idx`.
fn locate(idx: u32) -> (usize, usize) {
    let n = idx as usize / BASE + 1;
    let k = (usize::BITS - 1 - n.leading_zeros()) as usize;
    (k, idx as usize - BASE * ((1 << k) - 1))
}

struct Alloc {
    /// Free slots taken from the free stack, handed out first.
    free: Vec<u32>,
    /// Slots initialised so far.
    len: u32,
}

/// The slot table of one shard. `H` is the abort handle (a fake one in the loom model).
pub(crate) struct Shard<H> {
    alloc: Mutex<Alloc>,
    /// Top of the free stack (index + 1, 0 = empty); pushed by ending tasks, taken whole by
    /// the allocator.
    free_head: AtomicU32,
    /// Slots initialised so far (published after the slot's chunk exists), for scans.
    len: AtomicU32,
    chunks: [OnceLock<Box<[Slot<H>]>>; CHUNKS],
}

/// A task a drain aborted, remembered until the abort lands.
#[derive(Debug)]
pub(crate) struct AbortedSlot<I> {
    pub(crate) idx: u32,
    generation: u32,
    pub(crate) info: I,
}

impl<H: Abort> Shard<H> {
    pub(crate) fn new() -> Shard<H> {
        Shard {
            alloc: Mutex::new(Alloc {
                free: Vec::new(),
                len: 0,
            }),
            free_head: AtomicU32::new(0),
            len: AtomicU32::new(0),
            chunks: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    fn slot(&self, idx: u32) -> &Slot<H> {
        let (k, off) = locate(idx);
        let chunk = self.chunks[k]
            .get()
            .expect("slot index handed out before its chunk existed");
        &chunk[off]
    }

    /// A free slot, owned by the caller until it is occupied (or freed again).
    fn take_free(&self) -> u32 {
        let mut a = lock(&self.alloc);
        if let Some(idx) = a.free.pop() {
            return idx;
        }
        // Take the whole free stack. Acquire: pairs with the pushers' Release CAS, so each
        // pushed slot's `next_free` link is visible.
        let mut top = self.free_head.swap(0, Ordering::Acquire);
        while top != 0 {
            let idx = top - 1;
            a.free.push(idx);
            // Relaxed: written before the Release CAS that published this node, which the swap
            // above acquired; the node is ours now, nobody writes its link.
            top = self.slot(idx).next_free.load(Ordering::Relaxed);
        }
        if let Some(idx) = a.free.pop() {
            return idx;
        }
        let idx = a.len;
        let (k, off) = locate(idx);
        if off == 0 {
            self.chunks[k].get_or_init(|| {
                (0..BASE << k)
                    .map(|_| Slot {
                        next_free: AtomicU32::new(0),
                        data: Mutex::new(SlotData {
                            generation: 0,
                            task: None,
                        }),
                    })
                    .collect()
            });
        }
        a.len += 1;
        // Release: a scan that reads the new length finds the chunk initialised.
        self.len.store(a.len, Ordering::Release);
        idx
    }

    /// Returns slot `idx` (now empty) to the free stack. Any thread.
    fn free(&self, idx: u32) {
        let slot = self.slot(idx);
        let mut top = self.free_head.load(Ordering::Relaxed);
        loop {
            slot.next_free.store(top, Ordering::Relaxed);
            // Release: publishes the link to the allocator's Acquire swap.
            match self.free_head.compare_exchange_weak(
                top,
                idx + 1,
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => return,
                Err(now) => top = now,
            }
        }
    }

    /// Occupies a free slot with `task` (reserved: not armed), runs `spawn` with no lock held,
    /// then arms the slot with the handle `spawn` returns. If the task ended meanwhile the slot
    /// is freed; if a drain aborted it meanwhile, the handle is aborted now. If `spawn`
    /// unwinds, the slot is freed. Returns `spawn`'s value and the slot index.
    pub(crate) fn occupy<T>(
        &self,
        task: Task<H>,
        spawn: impl FnOnce(u32) -> (T, Option<H>),
    ) -> (T, u32) {
        let idx = self.take_free();
        let slot = self.slot(idx);
        {
            let mut data = lock(&slot.data);
            data.generation = data.generation.wrapping_add(1);
            data.task = Some(Task {
                armed: false,
                ended_early: false,
                handle: None,
                ..task
            });
        }
        /// Frees the reserved slot if `spawn` unwinds.
        struct Unwind<'a, H: Abort> {
            shard: &'a Shard<H>,
            idx: u32,
        }
        impl<H: Abort> Drop for Unwind<'_, H> {
            fn drop(&mut self) {
                lock(&self.shard.slot(self.idx).data).task = None;
                self.shard.free(self.idx);
            }
        }
        let unwind = Unwind { shard: self, idx };
        let (value, handle) = spawn(idx);
        std::mem::forget(unwind);
        let mut data = lock(&slot.data);
        let Some(t) = data.task.as_mut() else {
            unreachable!("a reserved slot is freed only by its spawner");
        };
        if t.ended_early {
            data.task = None;
            drop(data);
            self.free(idx);
            drop(handle);
        } else {
            if t.aborting
                && let Some(h) = &handle
            {
                h.abort();
            }
            t.handle = handle;
            t.armed = true;
        }
        (value, idx)
    }

    /// The task in slot `idx` ended: frees the slot (or, if the spawner has not armed it yet,
    /// leaves it to the spawner). Returns its abort handle (to be dropped by the caller, outside
    /// any lock) and whether the end counts as *drained* (completed, not aborted by a drain).
    pub(crate) fn end(&self, idx: u32, how: TaskEnd) -> (Option<H>, bool) {
        let mut data = lock(&self.slot(idx).data);
        let Some(t) = data.task.as_mut() else {
            return (None, false);
        };
        let drained = how == TaskEnd::Completed && !t.aborting;
        if !t.armed {
            t.ended_early = true;
            return (None, drained);
        }
        let handle = data.task.take().and_then(|t| t.handle);
        drop(data);
        self.free(idx);
        (handle, drained)
    }

    /// Calls `f` with slot `idx`'s task, if occupied.
    pub(crate) fn with_task<R>(&self, idx: u32, f: impl FnOnce(&Task<H>) -> R) -> Option<R> {
        lock(&self.slot(idx).data).task.as_ref().map(f)
    }

    /// Aborts every abortable task of this shard not aborted yet; pushes the async tasks (kind
    /// `Task`) onto `out` with `info(task)`. Blocking jobs are aborted too (cancelled if not
    /// started) but not listed; threads are skipped. Same as [`Shard::mark_aborting`] followed
    /// by [`Shard::abort_marked`] (the registry calls the two halves across all shards).
    #[cfg(any(test, shutdown_loom))]
    pub(crate) fn abort_all<I>(&self, info: impl Fn(&Task<H>) -> I, out: &mut Vec<AbortedSlot<I>>) {
        let marked = self.mark_aborting(info, out);
        self.abort_marked(&marked);
    }

    /// First half of an abort: marks every abortable task of this shard not aborted yet as
    /// `aborting` (from now on its end no longer counts as drained) and lists the async tasks
    /// (kind `Task`) on `out`, without aborting anything yet; returns the armed slots it marked
    /// (index and generation), for [`Shard::abort_marked`]. A registry marks every shard
    /// before it aborts any task, so a task that ends on its own because another aborted task
    /// went away (e.g. a response-body pump whose connection was aborted) is still listed as
    /// aborted, not counted as drained.
    pub(crate) fn mark_aborting<I>(
        &self,
        info: impl Fn(&Task<H>) -> I,
        out: &mut Vec<AbortedSlot<I>>,
    ) -> Vec<(u32, u32)> {
        let mut marked = Vec::new();
        // Acquire: pairs with the Release store in `take_free`.
        let len = self.len.load(Ordering::Acquire);
        for idx in 0..len {
            let mut data = lock(&self.slot(idx).data);
            let generation = data.generation;
            let Some(t) = data.task.as_mut() else {
                continue;
            };
            if t.aborting || t.ended_early || t.kind == Kind::Thread {
                continue;
            }
            t.aborting = true;
            // Not armed yet: the arming spawner sees `aborting` and aborts it; only a task
            // armed now is aborted by `abort_marked` (exactly one of the two aborts it).
            if t.handle.is_some() {
                marked.push((idx, generation));
            }
            if t.kind == Kind::Task {
                out.push(AbortedSlot {
                    idx,
                    generation,
                    info: info(t),
                });
            }
        }
        marked
    }

    /// Second half of an abort: aborts the tasks of `marked` (armed slots returned by
    /// [`Shard::mark_aborting`]) that are still in their slot.
    pub(crate) fn abort_marked(&self, marked: &[(u32, u32)]) {
        for &(idx, generation) in marked {
            let data = lock(&self.slot(idx).data);
            if data.generation != generation {
                continue; // ended and reused since: not the marked task
            }
            if let Some(t) = data.task.as_ref()
                && t.aborting
                && let Some(h) = &t.handle
            {
                h.abort();
            }
        }
    }

    /// Whether the task of `aborted` is still in its slot (its abort has not landed).
    pub(crate) fn still_there<I>(&self, aborted: &AbortedSlot<I>) -> bool {
        let data = lock(&self.slot(aborted.idx).data);
        data.task.as_ref().is_some_and(|t| !t.ended_early) && data.generation == aborted.generation
    }

    /// Calls `f` on every occupied slot.
    pub(crate) fn for_each(&self, mut f: impl FnMut(&Task<H>)) {
        let len = self.len.load(Ordering::Acquire);
        for idx in 0..len {
            if let Some(t) = lock(&self.slot(idx).data).task.as_ref()
                && !t.ended_early
            {
                f(t);
            }
        }
    }

    /// Slots initialised so far (live or free).
    #[cfg(any(test, shutdown_loom))]
    pub(crate) fn capacity(&self) -> u32 {
        self.len.load(Ordering::Acquire)
    }
}

#[cfg(all(test, not(shutdown_loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    #[derive(Clone, Default)]
    struct Fake(Arc<AtomicUsize>);

    impl Abort for Fake {
        fn abort(&self) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn task(kind: Kind, handle: Option<Fake>) -> Task<Fake> {
        Task {
            kind,
            aborting: false,
            armed: false,
            ended_early: false,
            start_ms: 0,
            location: Location::caller(),
            name: Name::Type(|| "t"),
            handle,
        }
    }

    #[test]
    fn chunks_are_located_without_gaps() {
        let mut next = 0u32;
        for k in 0..6 {
            for off in 0..(BASE << k) {
                assert_eq!(locate(next), (k, off));
                next += 1;
            }
        }
    }

    #[test]
    fn freed_slots_are_reused_and_the_table_stays_small() {
        let s: Shard<Fake> = Shard::new();
        for _ in 0..10_000 {
            let (_, idx) = s.occupy(task(Kind::Task, None), |_| ((), Some(Fake::default())));
            let (h, drained) = s.end(idx, TaskEnd::Completed);
            assert!(h.is_some() && drained);
        }
        assert_eq!(s.capacity(), 1);
    }

    #[test]
    fn an_end_before_arming_frees_the_slot_and_an_unwinding_spawn_too() {
        let s: Shard<Fake> = Shard::new();
        // the task ends (on this or another thread) before the spawner arms the slot
        let (_, idx) = s.occupy(task(Kind::Task, None), |idx| {
            let (h, drained) = s.end(idx, TaskEnd::Cancelled);
            assert!(h.is_none() && !drained);
            ((), Some(Fake::default()))
        });
        assert!(s.with_task(idx, |_| ()).is_none());
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            s.occupy(task(Kind::Task, None), |_| -> ((), Option<Fake>) {
                panic!("no runtime")
            })
        }));
        assert!(r.is_err());
        let mut live = 0;
        s.for_each(|_| live += 1);
        assert_eq!((live, s.capacity()), (0, 1));
    }

    #[test]
    fn abort_all_aborts_once_lists_tasks_and_skips_threads() {
        let s: Shard<Fake> = Shard::new();
        let h = Fake::default();
        let (_, t) = s.occupy(task(Kind::Task, None), |_| ((), Some(h.clone())));
        let (_, b) = s.occupy(task(Kind::Blocking, None), |_| ((), Some(h.clone())));
        let (_, th) = s.occupy(task(Kind::Thread, None), |_| ((), None));
        let mut out = Vec::new();
        s.abort_all(|_| (), &mut out);
        s.abort_all(|_| (), &mut out);
        assert_eq!(h.0.load(std::sync::atomic::Ordering::SeqCst), 2); // task + blocking, once
        assert_eq!(out.len(), 1);
        assert!(s.still_there(&out[0]));
        assert!(!s.end(t, TaskEnd::Cancelled).1);
        assert!(!s.still_there(&out[0]));
        // reused slot: a new task is not the aborted one
        let (_, again) = s.occupy(task(Kind::Task, None), |_| ((), None));
        assert_eq!(again, t);
        assert!(!s.still_there(&out[0]));
        assert!(!s.end(b, TaskEnd::Completed).1, "aborted: not drained");
        assert!(s.end(th, TaskEnd::Completed).1);
    }
}
