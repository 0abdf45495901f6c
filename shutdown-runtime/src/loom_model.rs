//! Loom model checks of the registry's concurrency protocol: the slot table (`slots.rs`:
//! occupy-and-arm vs end vs abort_all vs reuse) and the drain counters (`tally.rs`: no lost
//! wake-up). Built only with `RUSTFLAGS="--cfg shutdown_loom"` and feature `loom`:
//!
//! ```text
//! RUSTFLAGS="--cfg shutdown_loom" LOOM_MAX_PREEMPTIONS=3 \
//!     cargo test -p shutdown-runtime --features loom --release --lib loom_model
//! ```
//!
//! Each model runs the real code (`Shard`, `Tally`) with loom's `Mutex` and atomics, over
//! every interleaving within the preemption bound.

use std::panic::Location;

use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::thread;

use crate::slots::{Abort, Kind, Name, Shard, Task, TaskEnd};
use crate::tally::Tally;

/// A fake abort handle: counts aborts and drops, so the model can check "aborted at most
/// once, dropped exactly once".
struct Fake {
    aborts: Arc<AtomicUsize>,
    drops: Arc<AtomicUsize>,
}

impl Abort for Fake {
    fn abort(&self) {
        self.aborts.fetch_add(1, Ordering::SeqCst);
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

fn task() -> Task<Fake> {
    Task {
        kind: Kind::Task,
        aborting: false,
        armed: false,
        ended_early: false,
        start_ms: 0,
        location: Location::caller(),
        name: Name::Type(|| "model"),
        handle: None,
    }
}

/// A spawner reserves a slot, spawns (the task starts on another thread, like `tokio::spawn`
/// hands it to a worker, and may end before the slot is armed) and arms it, while a drain
/// aborts everything concurrently. Afterwards: the handle was dropped exactly once, aborted
/// at most once, the end counts as drained exactly when no abort reached the task first, the
/// slot is free and reused.
#[test]
fn occupy_arm_end_and_abort_all_race_safely() {
    loom::model(|| {
        let shard: Arc<Shard<Fake>> = Arc::new(Shard::new());
        let aborts = Arc::new(AtomicUsize::new(0));
        let drops = Arc::new(AtomicUsize::new(0));
        let drained = Arc::new(AtomicBool::new(false));

        let aborter = {
            let shard = shard.clone();
            thread::spawn(move || {
                let mut out = Vec::new();
                shard.abort_all(|_| (), &mut out);
                out.len()
            })
        };
        let (ender, _idx) = {
            let (aborts, drops, drained) = (aborts.clone(), drops.clone(), drained.clone());
            let s2 = shard.clone();
            shard.occupy(task(), move |idx| {
                // The task starts now, on another thread, and may end before we arm.
                let ender = thread::spawn(move || {
                    let (handle, ok) = s2.end(idx, TaskEnd::Completed);
                    drained.store(ok, Ordering::SeqCst);
                    drop(handle);
                });
                (ender, Some(Fake { aborts, drops }))
            })
        };
        ender.join().unwrap();
        let listed = aborter.join().unwrap();

        assert_eq!(
            drops.load(Ordering::SeqCst),
            1,
            "handle dropped exactly once"
        );
        let aborted = aborts.load(Ordering::SeqCst);
        assert!(aborted <= 1);
        assert_eq!(aborted, listed, "listed iff aborted");
        assert_eq!(drained.load(Ordering::SeqCst), aborted == 0);
        let mut live = 0;
        shard.for_each(|_| live += 1);
        assert_eq!(live, 0, "slot freed");
        let (_, again) = shard.occupy(task(), |_| ((), None));
        assert_eq!((again, shard.capacity()), (0, 1), "freed slot reused");
    });
}

/// Two tasks end on two threads while a third spawns: the free stack (many pushers, one
/// consumer that takes it whole) never loses or duplicates a slot.
#[test]
fn concurrent_ends_and_a_spawn_keep_the_free_stack_consistent() {
    loom::model(|| {
        let shard: Arc<Shard<Fake>> = Arc::new(Shard::new());
        let counter = || Arc::new(AtomicUsize::new(0));
        let fake = || Fake {
            aborts: counter(),
            drops: counter(),
        };
        let (_, a) = shard.occupy(task(), |_| ((), Some(fake())));
        let (_, b) = shard.occupy(task(), |_| ((), Some(fake())));
        let enders: Vec<_> = [a, b]
            .into_iter()
            .map(|idx| {
                let shard = shard.clone();
                thread::spawn(move || drop(shard.end(idx, TaskEnd::Completed)))
            })
            .collect();
        let (_, c) = shard.occupy(task(), |_| ((), Some(fake())));
        for e in enders {
            e.join().unwrap();
        }
        // Two more: with `c` live, exactly the two other slots are reused, none twice.
        let (_, d) = shard.occupy(task(), |_| ((), Some(fake())));
        let (_, e) = shard.occupy(task(), |_| ((), Some(fake())));
        let mut used = [c, d, e];
        used.sort_unstable();
        assert!(used.windows(2).all(|w| w[0] != w[1]), "{used:?}");
        assert!(
            shard.capacity() <= 3,
            "no slot leaked: {}",
            shard.capacity()
        );
    });
}

/// A drain waits while two tasks end (one spawned during the drain): it is always woken
/// once the last one has ended (a lost wake-up would leave it spinning, which loom reports).
#[test]
fn the_drain_is_woken_after_the_last_end() {
    loom::model(|| {
        let tally = Arc::new(Tally::new(2));
        let woken = Arc::new(AtomicBool::new(false));
        tally.spawned(0);
        let ender = |tally: Arc<Tally>, woken: Arc<AtomicBool>, shard: usize| {
            thread::spawn(move || {
                if tally.ended(shard, true) {
                    woken.store(true, Ordering::SeqCst); // Notify::notify_waiters
                }
            })
        };
        let first = ender(tally.clone(), woken.clone(), 1);
        let second = {
            let (tally, woken) = (tally.clone(), woken.clone());
            thread::spawn(move || {
                // spawned (possibly) during the drain; ends on another shard
                tally.spawned(1);
                if tally.ended(0, true) {
                    woken.store(true, Ordering::SeqCst);
                }
            })
        };
        // The drain (`Registry::wait_idle`): enable the wake-up, read, owe, wait.
        tally.start_drain();
        loop {
            woken.store(false, Ordering::SeqCst); // `Notified::enable` before the check
            let live = tally.live();
            if live == 0 {
                break;
            }
            tally.owe(live);
            while !woken.load(Ordering::SeqCst) {
                thread::yield_now();
            }
        }
        first.join().unwrap();
        second.join().unwrap();
        assert_eq!(tally.live(), 0);
        assert_eq!(tally.ended_ok(), 2);
    });
}
