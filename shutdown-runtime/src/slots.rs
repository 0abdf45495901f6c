//! The slot table of one registry shard: one slot per tracked task, holding what is needed to
//! abort it (`H`, tokio's `AbortHandle`) and to report it (its spawn site, name, start).
//!
//! # Protocol (safe code only, no lock on the spawn and end paths; model-checked with loom in
//! `loom_model.rs`)
//!
//! * **A shard has one owner**: the thread whose owner id (`owner.rs`, unique among live
//!   threads) is the shard's index. Only the owner hands out slots: it keeps the free list,
//!   the scan cursor and the slot count in atomics that only it writes (relaxed loads and
//!   stores, no read-modify-write), and it writes a slot's site and start with plain stores
//!   before publishing the slot with one `Release` store of its **word**. A spawn takes no
//!   lock.
//! * **The word** is the slot's state: occupied (`LIVE`), `ARMED` (the spawner stored the
//!   abort handle), `ENDED` (+ `TOOK`: the end took the handle), `MARKED` (a drain aborts the
//!   task), `BUSY` (a drain is using the slot), `NAMED`, the kind, and a 23-bit generation
//!   bumped by every occupation. Every write by a thread other than the owner is one
//!   read-modify-write of the word, so the word's modification order decides every race:
//!   * the **end** takes the abort handle out of the slot's cell (it is dropped on the ending
//!     core, where the task's header is hot) and sets `ENDED` (one atomic add: the bit is
//!     clear, and only the end sets it): if `MARKED` was set first, the task was listed as
//!     aborted and does not count as drained;
//!   * the **spawner arms** the slot after `tokio::spawn` returned: it stores the handle in the
//!     (empty) cell with a plain store, then sets `ARMED` (one atomic add). If the task had
//!     ended, it takes the handle back and drops it; if a drain had marked the task before it
//!     was armed, the spawner aborts it;
//!   * a **drain marks** a live, unmarked, not ended slot `MARKED | BUSY` with a CAS (its
//!     generation in the expected value, so a stale view of a reused slot never matches). If
//!     the slot was armed then, the drain aborts the task through the cell (take, abort, put
//!     back), else the arming spawner does: exactly one of the two. `BUSY` is cleared when the
//!     drain is done with the slot.
//! * **Reclaim**: the owner frees a slot that is `ENDED | ARMED` and not `BUSY` (the end, the
//!   spawner and any drain are all done with it), dropping a handle left in its cell (only
//!   without `TOOK`: the end raced with the arming or with a drain holding the handle). It
//!   finds such slots by scanning [`SCAN`] words from a cursor when its free list is empty; a
//!   scan that finds none lets the next spawns grow the table instead, so a table full of live
//!   tasks is not scanned on every spawn.
//! * A spawn that re-enters (the future's drop, run inside `tokio::spawn` when the runtime is
//!   shutting down, spawns again) is safe: a slot is never reclaimed before it is armed, and
//!   the owner's free-list steps run no user code.
//! * Slots live in chunks (chunk `k` holds `BASE << k` slots) of three arrays — words, handle
//!   cells, and the fields only the owner writes (site, start, link) —, so slots have stable
//!   addresses, growing never copies one, and the lines an end writes (words, handle cells: 16
//!   and 8 per line) are not the lines only the owner writes.
//!
//! Memory per slot: 24 bytes (word, handle, site id, start, free-list link); names built at
//! run time (`spawn_named(format!(..))`) are kept in a map beside the slots.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::sites::Site;
use crate::sync::{AtomicU32, HandleCell, Mutex, Ordering, fence, lock};
use crate::tally::Counts;

/// What a tracked slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

    /// The kind's bits in a slot word.
    fn bits(self) -> u32 {
        match self {
            Kind::Task => 0,
            Kind::Blocking => KIND_BLOCKING,
            Kind::Thread => KIND_THREAD,
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

/// What a report sees of a live slot.
pub(crate) struct TaskView<'a> {
    pub(crate) site: &'static Site,
    /// The name given to `spawn_named` (built at run time), if any.
    pub(crate) name: Option<&'a Cow<'static, str>>,
    /// [`clock::now_ms`](crate::clock::now_ms) at the spawn, truncated to 32 bits.
    pub(crate) start_ms: u32,
}

/// Word bit: the slot is occupied (by a live or ended task).
const LIVE: u32 = 1;
/// Word bit: the spawner stored the abort handle (or has none to store).
const ARMED: u32 = 1 << 1;
/// Word bit: the task ended.
const ENDED: u32 = 1 << 2;
/// Word bit: a drain marked the task (listed as aborted) before it ended.
const MARKED: u32 = 1 << 3;
/// Word bit: a drain is using the slot (its handle); the owner does not reclaim it meanwhile.
const BUSY: u32 = 1 << 4;
/// Word bit: the slot has an entry in the shard's name map.
const NAMED: u32 = 1 << 5;
/// Word bit (set with `ENDED`): the end took the abort handle, so the cell stays empty and the
/// reclaim need not touch it.
const TOOK: u32 = 1 << 8;
/// Word bits: the kind.
const KIND_BLOCKING: u32 = 1 << 6;
const KIND_THREAD: u32 = 2 << 6;
const KIND: u32 = 3 << 6;
/// Word bits: the generation (23 bits), bumped by every occupation.
const GEN_SHIFT: u32 = 9;

fn generation(word: u32) -> u32 {
    word >> GEN_SHIFT
}

fn kind(word: u32) -> Kind {
    match word & KIND {
        0 => Kind::Task,
        KIND_BLOCKING => Kind::Blocking,
        _ => Kind::Thread,
    }
}

/// Whether `word` is an occupied slot whose task has not ended.
fn running(word: u32) -> bool {
    word & (LIVE | ENDED) == LIVE
}

/// Whether the owner may free the slot: ended, armed, no drain using it.
fn reclaimable(word: u32) -> bool {
    word & (LIVE | ARMED | ENDED | BUSY) == LIVE | ARMED | ENDED
}

/// Words the owner scans for ended slots when its free list is empty.
pub(crate) const SCAN: u32 = if cfg!(shutdown_loom) { 4 } else { 64 };

/// Spawns that grow the table without scanning after a scan found nothing, at most.
const MAX_SKIP: u32 = 1024;

/// Slots in chunk 0; chunk `k` holds `BASE << k`.
const BASE: usize = 64;
/// Enough chunks for `BASE * (2^CHUNKS - 1)` = 2^29 - 64 slots per shard.
const CHUNKS: usize = 23;

/// Free-list link: none.
const NONE: u32 = u32::MAX;

/// `(chunk, offset)` of slot `idx`.
#[inline(always)]
fn locate(idx: u32) -> (usize, usize) {
    let n = idx as usize / BASE + 1;
    let k = (usize::BITS - 1 - n.leading_zeros()) as usize;
    (k, idx as usize - BASE * ((1 << k) - 1))
}

/// A chunk of slots, in three arrays: a task's end touches only its word and its handle cell,
/// in dense arrays (16 words, 8 cells a cache line), so the lines it writes are shared with
/// the spawner only once per many tasks; the fields only the owner writes (site, start,
/// free-list link) are together, in lines the ending core never writes.
struct Chunk<H> {
    words: Box<[AtomicU32]>,
    handles: Box<[HandleCell<H>]>,
    /// The fields only the owner writes, together (one line for a spawn's writes).
    owned: Box<[Owned]>,
}

/// A slot's fields only its owner writes.
struct Owned {
    /// [`Site::id`] of the task's spawn site.
    site: AtomicU32,
    start_ms: AtomicU32,
    /// The next free slot while the slot is on the owner's free list.
    next: AtomicU32,
}

impl<H> Chunk<H> {
    fn new(n: usize) -> Chunk<H> {
        Chunk {
            words: (0..n).map(|_| AtomicU32::new(0)).collect(),
            handles: (0..n).map(|_| HandleCell::new()).collect(),
            owned: (0..n)
                .map(|_| Owned {
                    site: AtomicU32::new(0),
                    start_ms: AtomicU32::new(0),
                    next: AtomicU32::new(NONE),
                })
                .collect(),
        }
    }
}

/// One slot: its fields in its chunk (24 bytes with tokio's `AbortHandle`).
struct Slot<'a, H> {
    word: &'a AtomicU32,
    handle: &'a HandleCell<H>,
    site: &'a AtomicU32,
    start_ms: &'a AtomicU32,
    next: &'a AtomicU32,
}

/// The slot table of one shard. `H` is the abort handle (a fake one in the loom model).
pub(crate) struct Shard<H> {
    chunks: [OnceLock<Chunk<H>>; CHUNKS],
    /// Slots initialised so far (written by the owner, `Release`: their chunk exists).
    len: AtomicU32,
    /// Owner only: the head of the free list ([`NONE`]: empty).
    free: AtomicU32,
    /// Owner only: where the next scan for ended slots starts.
    cursor: AtomicU32,
    /// Owner only: spawns left that grow the table without scanning.
    skip: AtomicU32,
    /// The owner thread's spawn and end counts (see `tally.rs`).
    pub(crate) counts: Counts,
    /// Names given to `spawn_named` at run time, by slot (the word says `NAMED`).
    names: Mutex<HashMap<u32, Cow<'static, str>>>,
}

/// A task a drain aborted, remembered until the abort lands.
#[derive(Debug)]
pub(crate) struct AbortedSlot<I> {
    pub(crate) idx: u32,
    generation: u32,
    pub(crate) info: I,
}

/// A slot a drain marked (and holds `BUSY`), for [`Shard::abort_marked`].
#[derive(Debug)]
pub(crate) struct Marked {
    idx: u32,
    /// Armed when marked: the drain aborts it (else the arming spawner does).
    armed: bool,
}

impl<H: Abort> Shard<H> {
    pub(crate) fn new() -> Shard<H> {
        Shard {
            chunks: std::array::from_fn(|_| OnceLock::new()),
            len: AtomicU32::new(0),
            free: AtomicU32::new(NONE),
            cursor: AtomicU32::new(0),
            skip: AtomicU32::new(0),
            counts: Counts::default(),
            names: Mutex::new(HashMap::new()),
        }
    }

    #[inline(always)]
    fn slot(&self, idx: u32) -> Slot<'_, H> {
        let (k, off) = locate(idx);
        let chunk = self.chunks[k]
            .get()
            .expect("slot index handed out before its chunk existed");
        Slot {
            word: &chunk.words[off],
            handle: &chunk.handles[off],
            site: &chunk.owned[off].site,
            start_ms: &chunk.owned[off].start_ms,
            next: &chunk.owned[off].next,
        }
    }

    /// Owner: a free slot — from the free list, else from a scan for reclaimable slots, else
    /// a new one. Handles left in reclaimed slots go to `dropped` (dropped by the caller after
    /// the slot is published: dropping the last reference to a task cell may run a waker's
    /// drop, i.e. user code).
    fn take_free(&self, dropped: &mut Vec<H>) -> u32 {
        if let Some(idx) = self.pop_free() {
            return idx;
        }
        let len = self.len.load(Ordering::Relaxed);
        let skip = self.skip.load(Ordering::Relaxed);
        if skip > 0 {
            self.skip.store(skip - 1, Ordering::Relaxed);
        } else if len > 0 {
            self.scan(len, SCAN.min(len), dropped);
            if let Some(idx) = self.pop_free() {
                return idx;
            }
            self.skip
                .store((len / SCAN).min(MAX_SKIP), Ordering::Relaxed);
        }
        self.grow(len)
    }

    #[inline(always)]
    fn pop_free(&self) -> Option<u32> {
        let head = self.free.load(Ordering::Relaxed);
        if head == NONE {
            return None;
        }
        let next = self.slot(head).next.load(Ordering::Relaxed);
        self.free.store(next, Ordering::Relaxed);
        Some(head)
    }

    /// Owner: scans `n` words from the cursor; frees the reclaimable slots onto the free list.
    fn scan(&self, len: u32, n: u32, dropped: &mut Vec<H>) {
        let mut idx = self.cursor.load(Ordering::Relaxed);
        for _ in 0..n {
            if idx >= len {
                idx = 0;
            }
            self.try_reclaim(idx, dropped);
            idx += 1;
        }
        self.cursor.store(idx, Ordering::Relaxed);
    }

    /// Owner: frees slot `idx` onto the free list if it is reclaimable.
    fn try_reclaim(&self, idx: u32, dropped: &mut Vec<H>) -> bool {
        let slot = self.slot(idx);
        // Acquire: pairs with the end's and the drain's Release RMWs, so their uses of the
        // slot (the handle cell, the name map) come before ours.
        let word = slot.word.load(Ordering::Acquire);
        if !reclaimable(word) {
            return false;
        }
        // The end took the handle (then nobody stores into the cell again: the arming stored
        // before, and a drain takes only what is there), or a handle may be left.
        if word & TOOK == 0
            && let Some(h) = slot.handle.take()
        {
            dropped.push(h);
        }
        if word & NAMED != 0 {
            lock(&self.names).remove(&idx);
        }
        // Free (not LIVE); keeps the generation. Nobody else writes a reclaimable word: the
        // end has set ENDED (its last access), no drain holds it, and a drain only CASes a
        // running word.
        slot.word
            .store(word & !(LIVE | NAMED | TOOK), Ordering::Relaxed);
        slot.next
            .store(self.free.load(Ordering::Relaxed), Ordering::Relaxed);
        self.free.store(idx, Ordering::Relaxed);
        true
    }

    /// Owner: a new slot at the end of the table.
    fn grow(&self, len: u32) -> u32 {
        let (k, off) = locate(len);
        assert!(
            k < CHUNKS,
            "shutdown-runtime: more than {} tracked tasks alive from one spawning thread",
            BASE * ((1 << CHUNKS) - 1)
        );
        if off == 0 {
            self.chunks[k].get_or_init(|| Chunk::new(BASE << k));
        }
        // Release: a drain that reads the new length finds the chunk.
        self.len.store(len + 1, Ordering::Release);
        len
    }

    /// Owner (the calling thread must own this shard): occupies a free slot for a task of
    /// `site`, runs `spawn(idx)`, then arms the slot with `abort(&value)`. If a drain marked
    /// the task meanwhile, it is aborted now; if it ended meanwhile, the handle is dropped
    /// now. If `spawn` unwinds, the slot is armed with no handle (the task's guard, dropped
    /// with it, has ended it). Returns `spawn`'s value and the slot.
    pub(crate) fn occupy<T>(
        &self,
        site: &'static Site,
        name: Option<Cow<'static, str>>,
        start_ms: u32,
        spawn: impl FnOnce(u32) -> T,
        abort: impl FnOnce(&T) -> Option<H>,
    ) -> (T, u32) {
        let mut dropped = Vec::new();
        let idx = self.take_free(&mut dropped);
        let slot = self.slot(idx);
        let old = slot.word.load(Ordering::Relaxed);
        let mut word = (generation(old).wrapping_add(1) << GEN_SHIFT) | LIVE | site.kind.bits();
        slot.site.store(site.id, Ordering::Relaxed);
        slot.start_ms.store(start_ms, Ordering::Relaxed);
        if let Some(name) = name {
            lock(&self.names).insert(idx, name);
            word |= NAMED;
        }
        // Release: a drain that sees the occupation sees its site, start and name.
        slot.word.store(word, Ordering::Release);
        drop(dropped);

        /// Arms the slot when dropped: after `spawn` returned, or while it unwinds.
        struct Arm<'a, H: Abort> {
            shard: &'a Shard<H>,
            idx: u32,
            handle: Option<H>,
        }
        impl<H: Abort> Drop for Arm<'_, H> {
            fn drop(&mut self) {
                self.shard.arm(self.idx, self.handle.take());
            }
        }
        let mut arm = Arm {
            shard: self,
            idx,
            handle: None,
        };
        let value = spawn(idx);
        arm.handle = abort(&value);
        drop(arm);
        (value, idx)
    }

    /// Arms slot `idx` with `handle` (see [`Shard::occupy`]).
    fn arm(&self, idx: u32, handle: Option<H>) {
        let slot = self.slot(idx);
        let stored = handle.is_some();
        if let Some(h) = handle {
            // Empty: only the arming stores a handle; an end or a drain that took the cell
            // before now took nothing, and a reclaim emptied it.
            slot.handle.put(h);
        }
        // AcqRel RMW: ordered with the end and the drain's mark on this word. `ARMED` is
        // clear (set once per occupation, here), so the add sets it: one `lock xadd`, where a
        // `fetch_or` whose result is used is a compare-exchange loop.
        let prev = slot.word.fetch_add(ARMED, Ordering::AcqRel);
        if prev & ENDED != 0 {
            // Ended first: its end took nothing (or took the handle after we stored it).
            drop(slot.handle.take());
        } else if prev & MARKED != 0 && stored {
            // Marked before it was armed: the drain left the abort to us.
            if let Some(h) = slot.handle.take() {
                h.abort();
                // Put back for the end (or the reclaim) to drop; the cell is empty (nobody
                // else stores into it).
                slot.handle.put(h);
            }
        }
    }

    /// The task in slot `idx` ended, on any thread: drops its abort handle and marks the slot
    /// ended (and `TOOK` if it found the handle). Returns whether a drain had marked it (then it does not count as drained).
    pub(crate) fn end(&self, idx: u32) -> bool {
        let slot = self.slot(idx);
        let handle = slot.handle.take();
        // AcqRel RMW: ordered with the arming and the drain's mark on this word; Release
        // publishes our use of the cell to the reclaiming owner. `ENDED` is clear (set once
        // per occupation, here): the add sets it (see `arm`).
        let took = if handle.is_some() { TOOK } else { 0 };
        let prev = slot.word.fetch_add(ENDED | took, Ordering::AcqRel);
        drop(handle);
        prev & MARKED != 0
    }

    /// Calls `f` with slot `idx`'s task, if it is running (a consistent view: retried if the
    /// slot is reused meanwhile).
    pub(crate) fn with_task<R>(&self, idx: u32, f: impl FnOnce(&TaskView<'_>) -> R) -> Option<R> {
        if idx >= self.len.load(Ordering::Acquire) {
            return None;
        }
        let slot = self.slot(idx);
        loop {
            // Acquire: pairs with the owner's Release publication of the occupation.
            let word = slot.word.load(Ordering::Acquire);
            if !running(word) {
                return None;
            }
            let site = slot.site.load(Ordering::Relaxed);
            let start_ms = slot.start_ms.load(Ordering::Relaxed);
            let names = (word & NAMED != 0).then(|| lock(&self.names));
            // Acquire fence: the reads above happen before the re-check (a seqlock read).
            fence(Ordering::Acquire);
            let again = slot.word.load(Ordering::Relaxed);
            if generation(again) != generation(word) || again & LIVE == 0 {
                continue; // reused meanwhile: read the new occupation
            }
            let view = TaskView {
                site: crate::sites::by_id(site),
                name: names.as_ref().and_then(|n| n.get(&idx)),
                start_ms,
            };
            return Some(f(&view));
        }
    }

    /// Aborts every abortable task of this shard not aborted yet; pushes the async tasks (kind
    /// `Task`) onto `out` with `info(task)`. Blocking jobs are aborted too (cancelled if not
    /// started) but not listed; threads are skipped. Same as [`Shard::mark_aborting`] followed
    /// by [`Shard::abort_marked`] (the registry calls the two halves across all shards).
    #[cfg(any(test, shutdown_loom))]
    pub(crate) fn abort_all<I>(
        &self,
        info: impl Fn(&TaskView<'_>) -> I,
        out: &mut Vec<AbortedSlot<I>>,
    ) {
        let marked = self.mark_aborting(info, out);
        self.abort_marked(&marked);
    }

    /// First half of an abort: marks every abortable task of this shard not aborted yet as
    /// `MARKED | BUSY` (from now on its end no longer counts as drained, and the owner leaves
    /// the slot alone) and lists the async tasks (kind `Task`) on `out`, without aborting
    /// anything yet; returns the marked slots, for [`Shard::abort_marked`] (which must
    /// follow). A registry marks every shard before it aborts any task, so a task that ends on
    /// its own because another aborted task went away (e.g. a response-body pump whose
    /// connection was aborted) is still listed as aborted, not counted as drained.
    pub(crate) fn mark_aborting<I>(
        &self,
        info: impl Fn(&TaskView<'_>) -> I,
        out: &mut Vec<AbortedSlot<I>>,
    ) -> Vec<Marked> {
        let mut marked = Vec::new();
        // Acquire: pairs with the owner's Release store of the length (the chunks exist).
        let len = self.len.load(Ordering::Acquire);
        for idx in 0..len {
            let slot = self.slot(idx);
            let mut word = slot.word.load(Ordering::Acquire);
            loop {
                if !running(word) || word & MARKED != 0 || kind(word) == Kind::Thread {
                    break; // free, ended (counted as drained), marked already, or a thread
                }
                // AcqRel RMW: ordered with the end and the arming on this word. The expected
                // value carries the generation, so a slot reused since we read it never
                // matches.
                match slot.word.compare_exchange_weak(
                    word,
                    word | MARKED | BUSY,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ) {
                    Ok(_) => {
                        marked.push(Marked {
                            idx,
                            armed: word & ARMED != 0,
                        });
                        if kind(word) == Kind::Task {
                            // BUSY: the owner does not reuse the slot while we read it.
                            let names = (word & NAMED != 0).then(|| lock(&self.names));
                            let view = TaskView {
                                site: crate::sites::by_id(slot.site.load(Ordering::Relaxed)),
                                name: names.as_ref().and_then(|n| n.get(&idx)),
                                start_ms: slot.start_ms.load(Ordering::Relaxed),
                            };
                            out.push(AbortedSlot {
                                idx,
                                generation: generation(word),
                                info: info(&view),
                            });
                        }
                        break;
                    }
                    Err(now) => word = now,
                }
            }
        }
        marked
    }

    /// Second half of an abort: aborts the tasks of `marked` (returned by
    /// [`Shard::mark_aborting`]) that were armed when marked — the arming spawner aborts the
    /// others —, then releases the slots (`BUSY` cleared).
    pub(crate) fn abort_marked(&self, marked: &[Marked]) {
        for m in marked {
            let slot = self.slot(m.idx);
            // `None`: the task is ending (its end took the handle).
            if m.armed
                && let Some(h) = slot.handle.take()
            {
                h.abort();
                // Put back: the end (or the reclaim, once the task ended) drops it. The cell
                // is empty: the arming is over and ends only take.
                slot.handle.put(h);
            }
            // Release: our use of the cell happens before the owner's reclaim.
            slot.word.fetch_sub(BUSY, Ordering::Release);
        }
    }

    /// Whether the task of `aborted` is still running (its abort has not landed).
    pub(crate) fn still_there<I>(&self, aborted: &AbortedSlot<I>) -> bool {
        let word = self.slot(aborted.idx).word.load(Ordering::Acquire);
        running(word) && generation(word) == aborted.generation
    }

    /// Calls `f` on every running task.
    pub(crate) fn for_each(&self, mut f: impl FnMut(&TaskView<'_>)) {
        let len = self.len.load(Ordering::Acquire);
        for idx in 0..len {
            let _ = self.with_task(idx, &mut f);
        }
    }

    /// Slots initialised so far (running, ended or free).
    #[cfg(any(test, shutdown_loom))]
    pub(crate) fn capacity(&self) -> u32 {
        self.len.load(Ordering::Acquire)
    }

    /// Running tasks (ended ones not counted, reclaimed or not).
    #[cfg(any(test, shutdown_loom))]
    pub(crate) fn live_count(&self) -> usize {
        let len = self.len.load(Ordering::Acquire);
        (0..len)
            .filter(|&idx| running(self.slot(idx).word.load(Ordering::Acquire)))
            .count()
    }

    /// Owner: reclaims every reclaimable slot now (tests, models); returns how many.
    #[cfg(any(test, shutdown_loom))]
    pub(crate) fn reclaim_now(&self) -> usize {
        let mut dropped = Vec::new();
        let len = self.len.load(Ordering::Relaxed);
        (0..len)
            .filter(|&idx| self.try_reclaim(idx, &mut dropped))
            .count()
    }

    /// Kind of the task in slot `idx` (tests).
    #[cfg(all(test, not(shutdown_loom)))]
    fn kind_of(&self, idx: u32) -> Kind {
        kind(self.slot(idx).word.load(Ordering::Acquire))
    }
}

#[cfg(all(test, not(shutdown_loom)))]
mod tests {
    use super::*;
    use std::panic::Location;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    #[derive(Clone, Default)]
    struct Fake(Arc<AtomicUsize>);

    impl Abort for Fake {
        fn abort(&self) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn site(kind: Kind) -> &'static Site {
        crate::sites::site(kind, Location::caller(), || "t", None)
    }

    /// Occupies a slot with `handle` (no real task); returns its index.
    fn occupy(s: &Shard<Fake>, kind: Kind, handle: Option<Fake>) -> u32 {
        s.occupy(site(kind), None, 0, |_| (), |_| handle).1
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
    fn a_slot_is_24_bytes() {
        let fields = 4 * std::mem::size_of::<AtomicU32>()
            + std::mem::size_of::<HandleCell<tokio::task::AbortHandle>>();
        assert_eq!(fields, 24);
    }

    #[test]
    fn ended_slots_are_reclaimed_and_reused_and_the_table_stays_small() {
        let s: Shard<Fake> = Shard::new();
        let h = Fake::default();
        for _ in 0..10_000 {
            let idx = occupy(&s, Kind::Task, Some(h.clone()));
            assert!(!s.end(idx), "not aborting");
        }
        assert!(s.capacity() <= 2, "{}", s.capacity());
        assert_eq!(s.live_count(), 0);
        // every end dropped its own handle
        assert_eq!(Arc::strong_count(&h.0), 1);
    }

    #[test]
    fn a_table_of_live_tasks_grows_without_scanning_every_spawn_and_finds_ended_slots() {
        let s: Shard<Fake> = Shard::new();
        let live: Vec<u32> = (0..5_000).map(|_| occupy(&s, Kind::Task, None)).collect();
        assert_eq!(s.capacity(), 5_000);
        assert_eq!(s.live_count(), 5_000);
        // half of them end: later spawns reuse those slots (the scan finds them), the table
        // grows by at most the skips after fruitless scans
        for &idx in live.iter().step_by(2) {
            s.end(idx);
        }
        for _ in 0..2_500 {
            occupy(&s, Kind::Task, None);
        }
        assert_eq!(s.live_count(), 5_000);
        assert!(s.capacity() < 5_000 + MAX_SKIP + SCAN, "{}", s.capacity());
    }

    #[test]
    fn an_end_before_arming_leaves_the_slot_to_its_spawner_and_an_unwinding_spawn_too() {
        let s: Shard<Fake> = Shard::new();
        let h = Fake::default();
        // the task ends (on this or another thread) before it is armed: not reclaimed yet
        let (_, idx) = s.occupy(
            site(Kind::Task),
            Some("early".into()),
            0,
            |idx| {
                assert!(!s.end(idx));
                assert_eq!(s.reclaim_now(), 0, "not armed: not reclaimable");
                assert_eq!(s.live_count(), 0);
            },
            |_| Some(h.clone()),
        );
        assert_eq!(Arc::strong_count(&h.0), 1, "the arming dropped the handle");
        assert!(s.with_task(idx, |_| ()).is_none(), "ended");
        // the slot is reused, with a new generation and no stale name
        let again = occupy(&s, Kind::Task, None);
        assert_eq!(again, idx);
        assert!(s.with_task(again, |t| t.name.is_none()).unwrap());
        s.end(again);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            s.occupy(
                site(Kind::Task),
                None,
                0,
                |idx| {
                    // a real spawn drops the task (and its guard ends it) while unwinding
                    s.end(idx);
                    panic!("no runtime")
                },
                |_: &()| Some(Fake::default()),
            )
        }));
        assert!(r.is_err());
        assert_eq!(s.reclaim_now(), 1, "armed while unwinding: reclaimable");
        assert_eq!((s.live_count(), s.capacity()), (0, 1));
    }

    #[test]
    fn a_spawn_inside_a_spawn_never_gets_the_outer_unarmed_slot() {
        let s: Shard<Fake> = Shard::new();
        let (inner, outer) = s.occupy(
            site(Kind::Task),
            None,
            0,
            |outer| {
                // the runtime drops the outer task at once; its drop spawns again
                s.end(outer);
                occupy(&s, Kind::Task, None)
            },
            |_| Some(Fake::default()),
        );
        assert_ne!(inner, outer);
        assert_eq!(s.live_count(), 1);
    }

    #[test]
    fn abort_all_aborts_once_lists_tasks_and_skips_threads() {
        let s: Shard<Fake> = Shard::new();
        let h = Fake::default();
        let t = occupy(&s, Kind::Task, Some(h.clone()));
        let b = occupy(&s, Kind::Blocking, Some(h.clone()));
        let th = occupy(&s, Kind::Thread, None);
        assert_eq!(
            (s.kind_of(t), s.kind_of(b), s.kind_of(th)),
            (Kind::Task, Kind::Blocking, Kind::Thread)
        );
        let mut out = Vec::new();
        s.abort_all(|t| t.site.kind, &mut out);
        s.abort_all(|t| t.site.kind, &mut out);
        assert_eq!(h.0.load(std::sync::atomic::Ordering::SeqCst), 2); // task + blocking, once
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].info, Kind::Task);
        assert!(s.still_there(&out[0]));
        assert!(s.end(t), "aborted: not drained");
        assert!(!s.still_there(&out[0]));
        assert_eq!(s.reclaim_now(), 1);
        // reused slot: a new task is not the aborted one
        let again = occupy(&s, Kind::Task, None);
        assert_eq!(again, t);
        assert!(!s.still_there(&out[0]));
        assert_eq!(s.live_count(), 3);
        let mut relisted = Vec::new();
        s.abort_all(|_| (), &mut relisted);
        assert_eq!(relisted.len(), 1, "the new occupation is marked afresh");
        assert!(s.end(again));
        assert!(s.end(b), "aborted: not drained");
        assert!(!s.end(th));
    }

    #[test]
    fn a_task_marked_before_it_is_armed_is_aborted_by_its_spawner() {
        let s: Shard<Fake> = Shard::new();
        let h = Fake::default();
        let mut out = Vec::new();
        let (_, idx) = s.occupy(
            site(Kind::Task),
            Some("racing".into()),
            0,
            |_| s.abort_all(|t| t.name.map(|n| n.to_string()), &mut out),
            |_| Some(h.clone()),
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].info.as_deref(), Some("racing"));
        assert_eq!(h.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(s.end(idx));
        assert_eq!(Arc::strong_count(&h.0), 1, "dropped by the end");
    }
}
