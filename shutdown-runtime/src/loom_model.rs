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

use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::sync::{Arc, Notify};
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
        // Listed iff the drain reached the task before it ended; then it does not count as
        // drained, and its handle is aborted unless the task ended before it was armed.
        let aborted = aborts.load(Ordering::SeqCst);
        assert!(aborted <= listed && listed <= 1);
        assert_eq!(drained.load(Ordering::SeqCst), listed == 0);
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
/// once the last one has ended (a lost wake-up leaves it blocked, which loom reports as a
/// deadlock). `loom::sync::Notify` keeps a permit, like the drain's `Notified` enabled before
/// it reads the counts.
///
/// The drain starts before the tasks end: the handshake between an end and the *start* of a
/// drain (`ended` += 1 then load `draining`, vs. store `draining` then load `ended`) is the
/// store-buffering pattern, correct only under `SeqCst`'s total order, which loom models as
/// acquire/release (loom documents this) and so would report as a false deadlock. That step
/// is argued in `tally.rs` and exercised by `tests/stress_registry.rs`; everything after it —
/// marks, over-counting live reads, targets, spawns during the drain — is checked here.
#[test]
fn the_drain_is_woken_after_the_last_end() {
    loom::model(|| {
        let tally = Arc::new(Tally::new(2));
        let wake = Arc::new(Notify::new());
        tally.spawned(0);
        tally.start_drain();
        let first = {
            let (tally, wake) = (tally.clone(), wake.clone());
            thread::spawn(move || {
                if tally.ended(1, true) {
                    wake.notify(); // Notify::notify_waiters
                }
            })
        };
        let second = {
            let (tally, wake) = (tally.clone(), wake.clone());
            thread::spawn(move || {
                // spawned (possibly) during the drain; ends on another shard
                tally.spawned(1);
                if tally.ended(0, true) {
                    wake.notify();
                }
            })
        };
        // The drain (`Registry::wait_idle`): mark, read, set the target, wait.
        loop {
            let mark = tally.drain_mark();
            let live = tally.live();
            if live == 0 {
                break;
            }
            tally.wait_for(mark, live);
            wake.wait();
        }
        first.join().unwrap();
        second.join().unwrap();
        assert_eq!(tally.live(), 0);
        assert_eq!(tally.ended_ok(), 2);
    });
}
