//! The counters a drain waits on: per-shard `spawned` / `ended` / `ended_ok`, and the drain's
//! *drain marks* that decide which end wakes it.
//!
//! * Each counter is written only by the threads of its shard (cache-padded), so a spawn and
//!   an end touch no line another core writes. Live tasks = `Σ spawned − Σ ended`, read ends
//!   first: an end counted has its spawn counted too, so the result never under-counts.
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

#[derive(Default)]
struct Counts {
    spawned: AtomicU64,
    ended: AtomicU64,
    /// Ends that count as drained (completed, not aborted by a drain).
    ended_ok: AtomicU64,
}

/// The counters of one registry.
pub(crate) struct Tally {
    counts: Box<[Padded<Counts>]>,
    /// Read by every end; written only when a drain starts or stops.
    draining: Padded<AtomicBool>,
    /// Ends during the current drain.
    drain_ends: Padded<AtomicU64>,
    /// The `drain_ends` count at which the drain wants to be woken.
    target: AtomicU64,
}

impl Tally {
    pub(crate) fn new(shards: usize) -> Tally {
        Tally {
            counts: (0..shards).map(|_| Padded(Counts::default())).collect(),
            draining: Padded(AtomicBool::new(false)),
            drain_ends: Padded(AtomicU64::new(0)),
            target: AtomicU64::new(0),
        }
    }

    /// A task is being spawned by a thread of `shard` (before it can possibly end). Returns
    /// whether a drain is running.
    #[inline]
    pub(crate) fn spawned(&self, shard: usize) -> bool {
        self.counts[shard].spawned.fetch_add(1, Ordering::SeqCst);
        self.draining.load(Ordering::Relaxed)
    }

    /// A task ended on a thread of `shard`; `drained`: it completed on its own. Returns `true`
    /// if the drain should be woken.
    #[inline]
    pub(crate) fn ended(&self, shard: usize, drained: bool) -> bool {
        let c = &self.counts[shard];
        if drained {
            c.ended_ok.fetch_add(1, Ordering::Relaxed);
        }
        // SeqCst increment, then SeqCst load of `draining`: pairs with `start_drain` + `live`.
        c.ended.fetch_add(1, Ordering::SeqCst);
        self.draining.load(Ordering::SeqCst)
            && self.drain_ends.fetch_add(1, Ordering::SeqCst) + 1
                >= self.target.load(Ordering::SeqCst)
    }

    /// Live tasks (an upper bound while spawns run concurrently).
    pub(crate) fn live(&self) -> usize {
        let ended: u64 = self
            .counts
            .iter()
            .map(|c| c.ended.load(Ordering::SeqCst))
            .sum();
        let spawned: u64 = self
            .counts
            .iter()
            .map(|c| c.spawned.load(Ordering::SeqCst))
            .sum();
        spawned.saturating_sub(ended) as usize
    }

    /// Tasks that completed on their own, ever.
    pub(crate) fn ended_ok(&self) -> u64 {
        self.counts
            .iter()
            .map(|c| c.ended_ok.load(Ordering::SeqCst))
            .sum()
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
