//! The counters a drain waits on: per-shard `spawned` / `ended` / `ended_ok`, and the drain's
//! *debt* that decides which end wakes it.
//!
//! * Each counter is written only by the threads of its shard (cache-padded), so a spawn and
//!   an end touch no line another core writes. Live tasks = `Σ spawned − Σ ended`, read ends
//!   first: an end counted has its spawn counted too, so the result never under-counts.
//! * Outside a drain an end only reads `draining` (a line nobody writes then). During a drain
//!   every end decrements `debt`, and the end that brings it to ≤ 0 asks for a wake-up. The
//!   drain adds the live count it read to the debt before each wait. An end racing with the
//!   drain's read is counted in at least one of them: the end increments `ended` *then* reads
//!   `draining`; the drain sets `draining` *then* reads the counters (all `SeqCst`). So the debt
//!   is ≤ 0 no later than the moment the last live task has ended: no lost wake-up, and a
//!   wake-up only when the count may be zero (modelled in `loom_model.rs`).

use crate::sync::{AtomicBool, AtomicI64, AtomicU64, Ordering, Padded};

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
    /// During a drain: what the drain still waits for.
    debt: Padded<AtomicI64>,
}

impl Tally {
    pub(crate) fn new(shards: usize) -> Tally {
        Tally {
            counts: (0..shards).map(|_| Padded(Counts::default())).collect(),
            draining: Padded(AtomicBool::new(false)),
            debt: Padded(AtomicI64::new(0)),
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
        self.draining.load(Ordering::SeqCst) && self.debt.fetch_sub(1, Ordering::SeqCst) <= 1
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

    /// A drain starts: from now on ends pay the debt.
    pub(crate) fn start_drain(&self) {
        self.debt.store(0, Ordering::SeqCst);
        self.draining.store(true, Ordering::SeqCst);
    }

    /// The drain is over.
    pub(crate) fn stop_drain(&self) {
        self.draining.store(false, Ordering::SeqCst);
    }

    /// The drain is about to wait for `live` tasks (the count it just read, after enabling
    /// its wake-up).
    pub(crate) fn owe(&self, live: usize) {
        self.debt.fetch_add(live as i64, Ordering::SeqCst);
    }

    /// Every end from now on asks for a wake-up (while aborts land).
    pub(crate) fn wake_on_each_end(&self) {
        self.debt.store(i64::MIN / 2, Ordering::SeqCst);
    }
}
