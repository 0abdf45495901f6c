//! The counters a drain waits on — `spawned`, `ended`, `ended_ok` per owner thread ([`Counts`],
//! kept in the thread's registry shard) — and the drain's *drain marks* that decide which end
//! wakes it.
//!
//! * A thread's counts are written only by that thread (its owner id is unique among live
//!   threads, `owner.rs`), so a spawn and an end touch no line another core writes. `spawned`
//!   and `ended_ok` are plain loads and stores (no read-modify-write); `ended` is a `SeqCst`
//!   read-modify-write, for the handshake with the start of a drain (below). Live tasks =
//!   `Σ spawned − Σ ended`, read ends first: an end counted has its spawn counted too (the
//!   spawn's store happens before `tokio::spawn` hands the task over, which happens before its
//!   end), so the result never under-counts a task whose spawn happened before the read.
//! * A spawn concurrent with the start of a drain (not ordered with it) may be missed by the
//!   drain's first count and not see `draining`: the drain then treats it as spawned after it
//!   finished. Every spawn ordered after the start (e.g. by a task the drain waits for) is
//!   seen and counted in `spawned_during_drain`.
//! * Outside a drain an end only reads `draining` (a line nobody writes then). During a drain
//!   every end also bumps `drain_ends` and wakes the drain iff the count reaches `target`. Before
//!   each wait the drain reads `drain_ends` (`e0`), *then* the live count `L`, and sets
//!   `target = e0 + L`. Every task counted in `L` ends after `e0` was read (its `ended` increment
//!   was not seen by the later live read, and it bumps `drain_ends` after `ended`), so
//!   `drain_ends` reaches the target by the last of them; an end racing with the store of the
//!   target compares against the previous, smaller target and wakes anyway. An end racing with
//!   the start of the drain is in the drain's first live read or sees `draining` (it increments
//!   `ended` *then* reads `draining`; the drain sets `draining` *then* reads; all `SeqCst`).
//!   So: no lost wake-up, and outside storms of spawns during a drain, one wake-up per wait.
//!   (A first version kept a signed *debt* instead; the loom model found that a live count that
//!   over-counts a racing task left the debt positive forever: a lost wake-up.)

use crate::sync::{AtomicBool, AtomicU64, Ordering, Padded};

/// One thread's counts in one registry; written only by that thread.
#[derive(Default)]
pub(crate) struct Counts {
    spawned: AtomicU64,
    ended: AtomicU64,
    /// Ends that count as drained (completed, not aborted by a drain).
    ended_ok: AtomicU64,
}

/// Adds one to `count`, which only the calling thread writes: a plain load and store.
#[inline]
fn bump(count: &AtomicU64) {
    // Release (free on x86): a reader that sees the new value sees what came before it.
    count.store(count.load(Ordering::Relaxed) + 1, Ordering::Release);
}

/// The drain's side of the counters of one registry.
pub(crate) struct Tally {
    /// Read by every end; written only when a drain starts or stops.
    draining: Padded<AtomicBool>,
    /// Ends during the current drain.
    drain_ends: Padded<AtomicU64>,
    /// The `drain_ends` count at which the drain wants to be woken.
    target: AtomicU64,
}

impl Tally {
    pub(crate) fn new() -> Tally {
        Tally {
            draining: Padded(AtomicBool::new(false)),
            drain_ends: Padded(AtomicU64::new(0)),
            target: AtomicU64::new(0),
        }
    }

    /// A task is being spawned (before it can possibly end) by the thread owning `counts`
    /// (the calling thread). Returns whether a drain is running.
    #[inline]
    pub(crate) fn spawned(&self, counts: &Counts) -> bool {
        bump(&counts.spawned);
        self.draining.load(Ordering::Relaxed)
    }

    /// A task ended on the thread owning `counts` (the calling thread); `drained`: it
    /// completed on its own. Returns `true` if the drain should be woken.
    #[inline]
    pub(crate) fn ended(&self, counts: &Counts, drained: bool) -> bool {
        if drained {
            bump(&counts.ended_ok);
        }
        // SeqCst increment, then SeqCst load of `draining`: pairs with `start_drain` + `live`.
        counts.ended.fetch_add(1, Ordering::SeqCst);
        self.draining.load(Ordering::SeqCst)
            && self.drain_ends.fetch_add(1, Ordering::SeqCst) + 1
                >= self.target.load(Ordering::SeqCst)
    }

    /// Live tasks (an upper bound while spawns run concurrently), from every thread's counts.
    pub(crate) fn live<'a, I: Iterator<Item = &'a Counts>>(&self, counts: impl Fn() -> I) -> usize {
        let ended: u64 = counts().map(|c| c.ended.load(Ordering::SeqCst)).sum();
        let spawned: u64 = counts().map(|c| c.spawned.load(Ordering::Acquire)).sum();
        spawned.saturating_sub(ended) as usize
    }

    /// Tasks that completed on their own, ever, from every thread's counts.
    pub(crate) fn ended_ok<'a>(&self, counts: impl Iterator<Item = &'a Counts>) -> u64 {
        counts.map(|c| c.ended_ok.load(Ordering::Acquire)).sum()
    }

    /// A drain starts: from now on every end is counted in `drain_ends` (and, until the first
    /// [`wait_for`](Tally::wait_for), wakes the drain).
    pub(crate) fn start_drain(&self) {
        self.target.store(0, Ordering::SeqCst);
        self.draining.store(true, Ordering::SeqCst);
    }

    /// The drain is over.
    pub(crate) fn stop_drain(&self) {
        self.draining.store(false, Ordering::SeqCst);
    }

    /// Ends counted so far in this drain: read *before* [`live`](Tally::live).
    pub(crate) fn drain_mark(&self) -> u64 {
        self.drain_ends.load(Ordering::SeqCst)
    }

    /// The drain is about to wait for the `live` tasks it counted after reading `mark`: wake it
    /// once that many more ends have happened.
    pub(crate) fn wait_for(&self, mark: u64, live: usize) {
        self.target.store(mark + live as u64, Ordering::SeqCst);
    }

    /// Every end from now on asks for a wake-up (while aborts land).
    pub(crate) fn wake_on_each_end(&self) {
        self.target.store(0, Ordering::SeqCst);
    }
}
