//! The slot table of one registry shard: one slot per tracked task, holding what is needed to
//! abort it (`H`, tokio's `AbortHandle`) and to report it (its spawn site, name, start).
//!
//! # Protocol (safe code only; model-checked with loom in `loom_model.rs`)
//!
//! * A shard belongs to the threads that spawn into it (normally one). Its slots' data sit
//!   behind one **page lock**, taken only by those spawners, by drains and by sweeps — never by
//!   an ending task. A spawn *reserves* a slot (site, name, start) under the lock, spawns with
//!   no lock held (the future's drop may run user code that spawns again), then *arms* the
//!   slot (stores the abort handle) under the lock again — [`Shard::occupy`].
//! * Each slot also has one lock-free **word**, the only thing a task's end touches: the end
//!   swaps in `ENDED` (and learns whether a drain marked the task `ABORTING` first: then it
//!   does not count as drained) and pushes the slot on the shard's **ended stack** with one
//!   CAS, the word holding the link. Word and stack are written by the ending core, so the end
//!   of a task costs two atomic operations and never waits. (The previous version locked a
//!   per-slot mutex in the end, contended with the spawner's arming.)
//! * Ended slots are **reclaimed** (abort handle dropped, slot freed for reuse) by whoever holds
//!   the page lock: the spawner when its free list is empty (it takes the whole ended stack at
//!   once — one consumer at a time, which only ever takes everything, so the stack has no ABA
//!   problem —, keeps [`KEEP`] of them to free one per spawn and frees the rest), a drain, or
//!   an ending task that finds the stack [`SWEEP`] entries deep (with `try_lock`, never
//!   waiting). Until then an ended task's abort handle keeps tokio's task cell (not its
//!   future, already dropped) allocated: fewer than [`KEEP`] + [`SWEEP`] per shard once
//!   spawning stops. A slot that ended before its spawner armed it is not freed by the
//!   reclaim (the spawner still refers to it): it is marked *deferred*, and the arming
//!   spawner frees it.
//! * The spawner never writes a reused slot's word: each write of a word (an end, a mark)
//!   stores the parity of its occupation's generation (`TAG`), so a word left by the previous
//!   occupation reads as "live, not marked" for the new one.
//! * A drain marks live slots `ABORTING` with a CAS on the same word: whichever of the end and
//!   the mark comes first in that word's order decides, so a task is either listed as
//!   aborted or counted as drained, never both. A slot reserved but not armed yet is marked and
//!   listed, and the arming spawner aborts it.
//! * Slots live in chunks (chunk `k` holds `BASE << k` slots), so the words have stable
//!   addresses and growing never copies a slot. Each occupation bumps the slot's generation,
//!   so a drain can tell "the task it aborted is still there" from "the slot was reused".
//!
//! Memory per live slot: 24 bytes of data (abort handle, interned site, start, generation) + a
//! 4-byte word; given names (`spawn_named`) are kept in a map beside the slots.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::sites::Site;
use crate::sync::{AtomicU32, AtomicU64, Mutex, MutexGuard, Ordering, lock, try_lock};

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
    /// The name given to `spawn_named`, if any.
    pub(crate) name: Option<&'a Cow<'static, str>>,
    /// [`clock::now_ms`](crate::clock::now_ms) at the spawn, truncated to 32 bits.
    pub(crate) start_ms: u32,
}

/// A slot's data, behind the page lock.
struct SlotData<H> {
    /// `None` until armed, and for threads (not abortable).
    handle: Option<H>,
    /// `None`: free.
    site: Option<&'static Site>,
    start_ms: u32,
    /// The generation (bumped by every occupation, [`GEN`] bits), [`ARMED`] and [`DEFERRED`].
    state: u32,
}

/// Slot state bits: the generation.
const GEN: u32 = (1 << 30) - 1;
/// Slot state bit: the spawner has armed the slot (stored the handle, or none for a thread).
const ARMED: u32 = 1 << 31;
/// Slot state bit: the task ended and was taken off the ended stack before it was armed; the
/// arming spawner frees the slot.
const DEFERRED: u32 = 1 << 30;

/// Word bit: the task ended (the link bits then chain the ended stack).
const ENDED: u32 = 1 << 31;
/// Word bit: a drain marked the task before it ended.
const ABORTING: u32 = 1 << 30;
/// Word bit: the parity of the generation the word's other bits are about. Every write of a
/// word (an end, a mark) stores its occupation's tag, so a word left over from the previous
/// occupation (tag differs) reads as "live, not marked" without being reset: the spawner
/// reusing a slot never writes the word the ending core owns.
const TAG: u32 = 1 << 29;
/// Word bits: the next slot on the ended stack (index + 1, 0 = none).
const LINK: u32 = TAG - 1;

/// The word's tag for a slot whose state (generation) is `state`.
fn tag_of(state: u32) -> u32 {
    if state & 1 == 1 { TAG } else { 0 }
}

/// Whether `word` says the occupation tagged `tag` ended.
fn ended(word: u32, tag: u32) -> bool {
    word & (TAG | ENDED) == tag | ENDED
}

/// Whether `word` says a drain marked the occupation tagged `tag` (ended or not).
fn marked(word: u32, tag: u32) -> bool {
    word & (TAG | ABORTING) == tag | ABORTING
}

/// An ending task that makes the ended stack this deep reclaims it (if the page lock is free).
pub(crate) const SWEEP: u32 = if cfg!(shutdown_loom) { 2 } else { 256 };

/// Slots in chunk 0; chunk `k` holds `BASE << k`.
const BASE: usize = 64;
/// Enough chunks for `BASE * (2^CHUNKS - 1)` = 2^29 - 64 slots per shard (a link's 29 bits).
const CHUNKS: usize = 23;

/// `(chunk, offset)` of slot `idx`.
fn locate(idx: u32) -> (usize, usize) {
    let n = idx as usize / BASE + 1;
    let k = (usize::BITS - 1 - n.leading_zeros()) as usize;
    (k, idx as usize - BASE * ((1 << k) - 1))
}

/// The slots' data and the allocator, behind the page lock.
struct Page<H> {
    chunks: Vec<Box<[SlotData<H>]>>,
    /// Free slots, handed out first.
    free: Vec<u32>,
    /// Ended slots taken off the ended stack, not freed yet (their abort handles are dropped
    /// one per spawn, outside the lock).
    ended: Vec<u32>,
    /// Slots initialised so far.
    len: u32,
    /// Names given to `spawn_named`, by slot.
    names: HashMap<u32, Cow<'static, str>>,
}

impl<H> Page<H> {
    fn slot(&self, idx: u32) -> &SlotData<H> {
        let (k, off) = locate(idx);
        &self.chunks[k][off]
    }

    fn slot_mut(&mut self, idx: u32) -> &mut SlotData<H> {
        let (k, off) = locate(idx);
        &mut self.chunks[k][off]
    }

    fn view(&self, idx: u32, site: &'static Site) -> TaskView<'_> {
        TaskView {
            site,
            name: if self.names.is_empty() {
                None
            } else {
                self.names.get(&idx)
            },
            start_ms: self.slot(idx).start_ms,
        }
    }
}

/// The slot table of one shard. `H` is the abort handle (a fake one in the loom model).
pub(crate) struct Shard<H> {
    page: Mutex<Page<H>>,
    /// One word per slot (see the module doc), in chunks like the slots.
    words: [OnceLock<Box<[AtomicU32]>>; CHUNKS],
    /// The ended stack: low 32 bits the top (index + 1, 0 = empty), high 32 bits the pushes
    /// since it was last taken.
    ended: AtomicU64,
}

/// Ended slots a spawn keeps to free one by one (see [`Shard::take_free`]).
const KEEP: usize = 64;

/// Abort handles of freed slots, dropped after the page lock is released.
struct Dropped<H> {
    one: Option<H>,
    many: Vec<H>,
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
            page: Mutex::new(Page {
                chunks: Vec::new(),
                free: Vec::new(),
                ended: Vec::new(),
                len: 0,
                names: HashMap::new(),
            }),
            words: std::array::from_fn(|_| OnceLock::new()),
            ended: AtomicU64::new(0),
        }
    }

    fn word(&self, idx: u32) -> &AtomicU32 {
        let (k, off) = locate(idx);
        let chunk = self.words[k]
            .get()
            .expect("slot index handed out before its chunk existed");
        &chunk[off]
    }

    /// Moves the whole ended stack onto `page.ended`.
    fn take_stack(&self, page: &mut Page<H>) {
        // Acquire: pairs with the pushers' Release CAS (a chain of RMWs on `ended`, so every
        // push before the swap is seen), so each pushed slot's link is visible.
        let mut top = self.ended.swap(0, Ordering::Acquire) as u32;
        while top != 0 {
            let idx = top - 1;
            page.ended.push(idx);
            // Relaxed: the link was written before the Release CAS that published this node;
            // nobody writes this word again before the slot is occupied again (by us).
            top = self.word(idx).load(Ordering::Relaxed) & LINK;
        }
    }

    /// The next ended slot that can be freed now, if any: one its spawner has armed. One that
    /// ended before it was armed (the spawner still refers to it) is marked *deferred*, and the
    /// arming spawner frees it.
    fn next_ended(&self, page: &mut Page<H>) -> Option<u32> {
        while let Some(idx) = page.ended.pop() {
            let slot = page.slot_mut(idx);
            if slot.state & ARMED == 0 {
                slot.state |= DEFERRED;
                continue;
            }
            return Some(idx);
        }
        None
    }

    /// Frees every ended slot; their abort handles are pushed onto `dropped`, to be dropped
    /// once the page lock is released (dropping the last reference to a task cell may run a
    /// waker's drop, which must not run under our lock).
    fn reclaim(&self, page: &mut Page<H>, dropped: &mut Vec<H>) {
        self.take_stack(page);
        while let Some(idx) = self.next_ended(page) {
            if let Some(h) = self.free_slot(page, idx) {
                dropped.push(h);
            }
        }
    }

    /// Frees slot `idx` (its task ended) onto the free list; returns its abort handle.
    fn free_slot(&self, page: &mut Page<H>, idx: u32) -> Option<H> {
        let slot = page.slot_mut(idx);
        slot.site = None;
        slot.state &= GEN;
        let handle = slot.handle.take();
        if !page.names.is_empty() {
            page.names.remove(&idx);
        }
        page.free.push(idx);
        handle
    }

    /// A free slot: from the free list, else an ended slot (its abort handle goes to
    /// `dropped`, to be dropped after the lock), else a new one.
    fn take_free(&self, page: &mut Page<H>, dropped: &mut Dropped<H>) -> u32 {
        if let Some(idx) = page.free.pop() {
            return idx;
        }
        if page.ended.is_empty() {
            self.take_stack(page);
            // Keep at most `KEEP` for the next spawns (one each): the rest is freed now, so
            // abort handles (and their tokio task cells) are not kept for long if spawning
            // stops.
            while page.ended.len() > KEEP {
                if let Some(idx) = self.next_ended(page)
                    && let Some(h) = self.free_slot(page, idx)
                {
                    dropped.many.push(h);
                }
            }
        }
        if let Some(idx) = self.next_ended(page) {
            dropped.one = self.free_slot(page, idx);
            page.free.pop();
            return idx;
        }
        let idx = page.len;
        let (k, off) = locate(idx);
        assert!(
            k < CHUNKS,
            "shutdown-runtime: more than {} tracked tasks alive from one spawning thread",
            BASE * ((1 << CHUNKS) - 1)
        );
        if off == 0 {
            page.chunks.push(
                (0..BASE << k)
                    .map(|_| SlotData {
                        handle: None,
                        site: None,
                        start_ms: 0,
                        state: 0,
                    })
                    .collect(),
            );
            self.words[k].get_or_init(|| (0..BASE << k).map(|_| AtomicU32::new(0)).collect());
        }
        page.len += 1;
        idx
    }

    /// Occupies a free slot (reserved: not armed), runs `spawn` with no lock held, then arms
    /// the slot with `abort(&value)`. If a drain marked the task meanwhile, it is aborted now;
    /// if it ended and was reclaimed meanwhile, the slot is freed now. If `spawn` unwinds, the
    /// slot is armed with no handle (the task's guard, dropped with it, has ended it). Returns
    /// `spawn`'s value and the slot.
    pub(crate) fn occupy<T>(
        &self,
        site: &'static Site,
        name: Option<Cow<'static, str>>,
        start_ms: u32,
        spawn: impl FnOnce(u32, bool) -> T,
        abort: impl FnOnce(&T) -> Option<H>,
    ) -> (T, u32) {
        let mut dropped = Dropped {
            one: None,
            many: Vec::new(),
        };
        let (idx, tag) = {
            let mut page = lock(&self.page);
            let idx = self.take_free(&mut page, &mut dropped);
            let slot = page.slot_mut(idx);
            slot.state = (slot.state.wrapping_add(1)) & GEN;
            slot.site = Some(site);
            slot.start_ms = start_ms;
            let tag = tag_of(slot.state);
            if let Some(name) = name {
                page.names.insert(idx, name);
            }
            (idx, tag)
        };
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
        let value = spawn(idx, tag != 0);
        arm.handle = abort(&value);
        drop(arm);
        (value, idx)
    }

    /// Arms slot `idx` with `handle` (see [`Shard::occupy`]).
    fn arm(&self, idx: u32, handle: Option<H>) {
        let mut page = lock(&self.page);
        let state = page.slot(idx).state;
        if state & DEFERRED != 0 {
            let old = self.free_slot(&mut page, idx);
            drop(page);
            drop((old, handle));
            return;
        }
        // Relaxed: the drain's mark (the only writer besides the end) was made under the page
        // lock we hold; an end racing with us needs no abort.
        let word = self.word(idx).load(Ordering::Relaxed);
        let tag = tag_of(state);
        if marked(word, tag)
            && !ended(word, tag)
            && let Some(h) = &handle
        {
            h.abort();
        }
        let slot = page.slot_mut(idx);
        slot.handle = handle;
        slot.state |= ARMED;
    }

    /// The task in slot `idx` (occupation tagged `tag`, see [`Shard::occupy`]) ended, on any
    /// thread: marks the slot ended and pushes it on the ended stack. Returns whether a drain
    /// had marked it `ABORTING` (then it does not count as drained).
    pub(crate) fn end(&self, idx: u32, tag: bool) -> bool {
        let tag = if tag { TAG } else { 0 };
        let word = self.word(idx);
        let mut head = self.ended.load(Ordering::Relaxed);
        // AcqRel RMW: ordered with the drain's mark (a CAS) on this word — exactly one of the
        // two sees the other.
        let prev = word.swap(tag | ENDED | (head as u32), Ordering::AcqRel);
        loop {
            let pushes = (head >> 32) + 1;
            // Release: publishes the link to the reclaimer's Acquire swap.
            match self.ended.compare_exchange_weak(
                head,
                (pushes << 32) | u64::from(idx + 1),
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    if pushes.is_multiple_of(u64::from(SWEEP)) {
                        self.sweep();
                    }
                    break;
                }
                Err(now) => {
                    head = now;
                    // Relaxed: published by the CAS that succeeds.
                    word.store(tag | ENDED | (head as u32), Ordering::Relaxed);
                }
            }
        }
        marked(prev, tag)
    }

    /// Reclaims the ended stack if the page lock is free (never waits: an ending task may run
    /// on a thread that holds it, inside a spawn).
    fn sweep(&self) {
        let mut dropped = Vec::new();
        if let Some(mut page) = try_lock(&self.page) {
            self.reclaim(&mut page, &mut dropped);
        }
    }

    /// Calls `f` with slot `idx`'s task, if it is live.
    pub(crate) fn with_task<R>(&self, idx: u32, f: impl FnOnce(&TaskView<'_>) -> R) -> Option<R> {
        let page = lock(&self.page);
        let site = page.slot(idx).site?;
        Some(f(&page.view(idx, site)))
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

    /// Live slots of this page: `(idx, site)` of every occupied slot whose task has not ended.
    fn live<'p>(
        &'p self,
        page: &'p MutexGuard<'_, Page<H>>,
    ) -> impl Iterator<Item = (u32, &'static Site)> + 'p {
        (0..page.len).filter_map(move |idx| {
            let slot = page.slot(idx);
            let site = slot.site?;
            (!self.ended(idx, slot.state)).then_some((idx, site))
        })
    }

    /// First half of an abort: marks every abortable task of this shard not aborted yet as
    /// `ABORTING` (from now on its end no longer counts as drained) and lists the async tasks
    /// (kind `Task`) on `out`, without aborting anything yet; returns the armed slots it marked
    /// (index and generation), for [`Shard::abort_marked`]. A registry marks every shard
    /// before it aborts any task, so a task that ends on its own because another aborted task
    /// went away (e.g. a response-body pump whose connection was aborted) is still listed as
    /// aborted, not counted as drained.
    pub(crate) fn mark_aborting<I>(
        &self,
        info: impl Fn(&TaskView<'_>) -> I,
        out: &mut Vec<AbortedSlot<I>>,
    ) -> Vec<(u32, u32)> {
        let mut marked = Vec::new();
        let page = lock(&self.page);
        for idx in 0..page.len {
            let slot = page.slot(idx);
            let Some(site) = slot.site else {
                continue;
            };
            if site.kind == Kind::Thread {
                continue;
            }
            if !self.mark(idx, tag_of(slot.state)) {
                continue; // ended first (counted as drained), or marked by an earlier pass
            }
            // Not armed yet: the arming spawner sees `ABORTING` and aborts it; only a task
            // armed now is aborted by `abort_marked` (exactly one of the two aborts it).
            if slot.handle.is_some() {
                marked.push((idx, slot.state & GEN));
            }
            if site.kind == Kind::Task {
                out.push(AbortedSlot {
                    idx,
                    generation: slot.state & GEN,
                    info: info(&page.view(idx, site)),
                });
            }
        }
        marked
    }

    /// Second half of an abort: aborts the tasks of `marked` (armed slots returned by
    /// [`Shard::mark_aborting`]) that are still in their slot.
    pub(crate) fn abort_marked(&self, marked: &[(u32, u32)]) {
        let page = lock(&self.page);
        for &(idx, generation) in marked {
            let slot = page.slot(idx);
            if slot.state & GEN != generation || slot.site.is_none() {
                continue; // reclaimed (and maybe reused) since: not the marked task
            }
            if let Some(h) = &slot.handle {
                h.abort();
            }
        }
    }

    /// Whether the task of `aborted` is still running (its abort has not landed).
    pub(crate) fn still_there<I>(&self, aborted: &AbortedSlot<I>) -> bool {
        let page = lock(&self.page);
        let slot = page.slot(aborted.idx);
        slot.site.is_some()
            && slot.state & GEN == aborted.generation
            && !self.ended(aborted.idx, slot.state)
    }

    /// Whether the occupation of slot `idx` whose state is `state` has ended.
    fn ended(&self, idx: u32, state: u32) -> bool {
        // Acquire: pairs with the end's AcqRel swap (nothing is read after it but the word).
        ended(self.word(idx).load(Ordering::Acquire), tag_of(state))
    }

    /// Marks the occupation tagged `tag` of slot `idx` `ABORTING`, unless it ended or is
    /// marked already; returns whether it marked it.
    fn mark(&self, idx: u32, tag: u32) -> bool {
        let word = self.word(idx);
        let mut now = word.load(Ordering::Relaxed);
        loop {
            if ended(now, tag) || marked(now, tag) {
                return false;
            }
            // AcqRel RMW: ordered with the end's swap on this word (see `end`). A word left
            // from the previous occupation (other tag) is replaced whole.
            match word.compare_exchange_weak(
                now,
                tag | ABORTING,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(w) => now = w,
            }
        }
    }

    /// Calls `f` on every live task.
    pub(crate) fn for_each(&self, mut f: impl FnMut(&TaskView<'_>)) {
        let page = lock(&self.page);
        for (idx, site) in self.live(&page) {
            f(&page.view(idx, site));
        }
    }

    /// Slots initialised so far (live, ended or free).
    #[cfg(any(test, shutdown_loom))]
    pub(crate) fn capacity(&self) -> u32 {
        lock(&self.page).len
    }

    /// Live tasks (ended ones not counted, reclaimed or not).
    #[cfg(any(test, shutdown_loom))]
    pub(crate) fn live_count(&self) -> usize {
        let page = lock(&self.page);
        self.live(&page).count()
    }

    /// Reclaims every ended slot now (tests, models).
    #[cfg(any(test, shutdown_loom))]
    pub(crate) fn reclaim_now(&self) {
        let mut dropped = Vec::new();
        let mut page = lock(&self.page);
        self.reclaim(&mut page, &mut dropped);
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

    /// Occupies a slot with `handle` (no real task); returns its index and tag.
    fn occupy(s: &Shard<Fake>, kind: Kind, handle: Option<Fake>) -> (u32, bool) {
        let (tag, idx) = s.occupy(site(kind), None, 0, |_, tag| tag, |_| handle);
        (idx, tag)
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
    fn a_live_slot_is_24_bytes_plus_its_word() {
        assert_eq!(
            std::mem::size_of::<SlotData<tokio::task::AbortHandle>>(),
            24
        );
    }

    #[test]
    fn ended_slots_are_reclaimed_and_reused_and_the_table_stays_small() {
        let s: Shard<Fake> = Shard::new();
        for _ in 0..10_000 {
            let (idx, tag) = occupy(&s, Kind::Task, Some(Fake::default()));
            assert!(!s.end(idx, tag), "not aborting");
        }
        assert!(s.capacity() <= 2, "{}", s.capacity());
        assert_eq!(s.live_count(), 0);
    }

    #[test]
    fn an_ending_task_sweeps_a_deep_ended_stack() {
        let s: Shard<Fake> = Shard::new();
        let h = Fake::default();
        let idx: Vec<(u32, bool)> = (0..SWEEP)
            .map(|_| occupy(&s, Kind::Task, Some(h.clone())))
            .collect();
        for (i, tag) in idx {
            s.end(i, tag);
        }
        // the last end took the stack and dropped every handle: only ours is left
        assert_eq!(Arc::strong_count(&h.0), 1);
        assert_eq!(s.live_count(), 0);
    }

    #[test]
    fn a_spawn_keeps_few_ended_handles_for_later() {
        let s: Shard<Fake> = Shard::new();
        let h = Fake::default();
        let n = SWEEP as usize - 56; // no sweep by the ends
        let idx: Vec<(u32, bool)> = (0..n)
            .map(|_| occupy(&s, Kind::Task, Some(h.clone())))
            .collect();
        for (i, tag) in idx {
            s.end(i, tag);
        }
        assert_eq!(Arc::strong_count(&h.0), 1 + n);
        // the next spawn takes the ended stack: frees one for itself and all but `KEEP`
        let _ = occupy(&s, Kind::Task, None);
        assert_eq!(Arc::strong_count(&h.0), 1 + KEEP - 1);
        assert_eq!(s.capacity() as usize, n);
    }

    #[test]
    fn an_end_before_arming_leaves_the_slot_to_its_spawner_and_an_unwinding_spawn_too() {
        let s: Shard<Fake> = Shard::new();
        // the task ends (on this or another thread) and is even reclaimed before it is armed
        let (_, idx) = s.occupy(
            site(Kind::Task),
            Some("early".into()),
            0,
            |idx, tag| {
                assert!(!s.end(idx, tag));
                s.reclaim_now();
                assert_eq!(s.live_count(), 0);
            },
            |_| Some(Fake::default()),
        );
        assert!(s.with_task(idx, |_| ()).is_none(), "freed at arming");
        // the freed slot is reused, with a new generation and no stale name
        let (again, tag) = occupy(&s, Kind::Task, None);
        assert_eq!(again, idx);
        assert!(s.with_task(again, |t| t.name.is_none()).unwrap());
        s.end(again, tag);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            s.occupy(
                site(Kind::Task),
                None,
                0,
                |idx, tag| {
                    // a real spawn drops the task (and its guard ends it) while unwinding
                    s.end(idx, tag);
                    panic!("no runtime")
                },
                |_: &()| Some(Fake::default()),
            )
        }));
        assert!(r.is_err());
        s.reclaim_now();
        assert_eq!((s.live_count(), s.capacity()), (0, 1));
    }

    #[test]
    fn abort_all_aborts_once_lists_tasks_and_skips_threads() {
        let s: Shard<Fake> = Shard::new();
        let h = Fake::default();
        let (t, t_tag) = occupy(&s, Kind::Task, Some(h.clone()));
        let (b, b_tag) = occupy(&s, Kind::Blocking, Some(h.clone()));
        let (th, th_tag) = occupy(&s, Kind::Thread, None);
        let mut out = Vec::new();
        s.abort_all(|t| t.site.kind, &mut out);
        s.abort_all(|t| t.site.kind, &mut out);
        assert_eq!(h.0.load(std::sync::atomic::Ordering::SeqCst), 2); // task + blocking, once
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].info, Kind::Task);
        assert!(s.still_there(&out[0]));
        assert!(s.end(t, t_tag), "aborted: not drained");
        assert!(!s.still_there(&out[0]));
        s.reclaim_now();
        // reused slot: a new task is not the aborted one
        let (again, again_tag) = occupy(&s, Kind::Task, None);
        assert_eq!(again, t);
        assert!(!s.still_there(&out[0]));
        assert_eq!(
            s.live_count(),
            3,
            "the old word does not end the new occupation"
        );
        let mut relisted = Vec::new();
        s.abort_all(|_| (), &mut relisted);
        assert_eq!(relisted.len(), 1, "the new occupation is marked afresh");
        assert!(s.end(again, again_tag));
        assert!(s.end(b, b_tag), "aborted: not drained");
        assert!(!s.end(th, th_tag));
    }

    #[test]
    fn a_task_marked_before_it_is_armed_is_aborted_by_its_spawner() {
        let s: Shard<Fake> = Shard::new();
        let h = Fake::default();
        let mut out = Vec::new();
        let (tag, idx) = s.occupy(
            site(Kind::Task),
            Some("racing".into()),
            0,
            |_, tag| {
                s.abort_all(|t| t.name.map(|n| n.to_string()), &mut out);
                tag
            },
            |_| Some(h.clone()),
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].info.as_deref(), Some("racing"));
        assert_eq!(h.0.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(s.end(idx, tag));
    }
}
