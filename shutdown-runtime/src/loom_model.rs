//! Loom model checks of the registry's concurrency protocol: the slot table (`slots.rs`:
//! occupy-and-arm vs end vs abort_all vs reclaim and reuse, the ended stack and its sweeps)
//! and the drain counters (`tally.rs`: no lost wake-up). Built only with `RUSTFLAGS="--cfg shutdown_loom"` and feature `loom`:
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

use crate::sites::Site;
use crate::slots::{Abort, Kind, Shard};
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

fn site() -> &'static Site {
    crate::sites::site(Kind::Task, Location::caller(), || "model", None)
}

fn fake() -> Fake {
    Fake {
        aborts: Arc::new(AtomicUsize::new(0)),
        drops: Arc::new(AtomicUsize::new(0)),
    }
}

/// A spawner reserves a slot, spawns (the task starts on another thread, like `tokio::spawn`
/// hands it to a worker, and may end before the slot is armed) and arms it, while a drain
/// aborts everything concurrently. Afterwards (and after a final reclaim): the handle was
/// dropped exactly once, aborted at most once, the end counts as drained exactly when the
/// drain did not list the task, the slot is free and reused.
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
            let drained = drained.clone();
            let s2 = shard.clone();
            shard.occupy(
                site(),
                None,
                0,
                move |idx, tag| {
                    // The task starts now, on another thread, and may end before we arm.
                    thread::spawn(move || {
                        let aborting = s2.end(idx, tag);
                        drained.store(!aborting, Ordering::SeqCst);
                    })
                },
                |_| {
                    Some(Fake {
                        aborts: aborts.clone(),
                        drops: drops.clone(),
                    })
                },
            )
        };
        ender.join().unwrap();
        let listed = aborter.join().unwrap();
        shard.reclaim_now();

        assert_eq!(
            drops.load(Ordering::SeqCst),
            1,
            "handle dropped exactly once"
        );
        // Listed iff the drain marked the task before it ended; then it does not count as
        // drained, and its handle is aborted at most once.
        let aborted = aborts.load(Ordering::SeqCst);
        assert!(aborted <= listed && listed <= 1);
        assert_eq!(drained.load(Ordering::SeqCst), listed == 0);
        assert_eq!(shard.live_count(), 0, "slot freed");
        let (_, again) = shard.occupy(site(), None, 0, |_, _| (), |_| None);
        assert_eq!((again, shard.capacity()), (0, 1), "freed slot reused");
        // The word left by the first occupation (ended, maybe marked) is not reset: its tag
        // tells it apart, so the new occupation is live and is marked afresh.
        assert_eq!(shard.live_count(), 1);
        let mut out = Vec::new();
        shard.abort_all(|_| (), &mut out);
        assert_eq!(out.len(), 1);
    });
}

/// A task that does not end by itself while a drain aborts concurrently with its spawn: if the
/// drain listed it, its handle is aborted exactly once — by `abort_marked` if it was armed when
/// marked, else by the arming spawner.
#[test]
fn a_listed_task_is_aborted_exactly_once_whenever_it_was_marked() {
    loom::model(|| {
        let shard: Arc<Shard<Fake>> = Arc::new(Shard::new());
        let handle = fake();
        let aborts = handle.aborts.clone();
        let aborter = {
            let shard = shard.clone();
            thread::spawn(move || {
                let mut out = Vec::new();
                shard.abort_all(|_| (), &mut out);
                out.len()
            })
        };
        shard.occupy(site(), None, 0, |_, _| (), |_| Some(handle));
        let listed = aborter.join().unwrap();
        assert_eq!(aborts.load(Ordering::SeqCst), listed);
    });
}

/// A task ends before its spawner arms the slot, and another thread reclaims the ended stack
/// meanwhile (a drain, or a second spawner of the shard): the slot is freed exactly once — by
/// the arming spawner — and never handed out while the spawner still refers to it.
#[test]
fn an_end_reclaimed_before_arming_is_freed_by_the_spawner_once() {
    loom::model(|| {
        let shard: Arc<Shard<Fake>> = Arc::new(Shard::new());
        let handle = fake();
        let drops = handle.drops.clone();
        let (reclaimer, first) = {
            let s2 = shard.clone();
            let s3 = shard.clone();
            shard.occupy(
                site(),
                None,
                0,
                move |idx, tag| {
                    s2.end(idx, tag);
                    // another thread of the shard spawns (reclaiming) while we have not armed
                    thread::spawn(move || s3.occupy(site(), None, 0, |_, _| (), |_| None).1)
                },
                |_| Some(handle),
            )
        };
        let second = reclaimer.join().unwrap();
        shard.reclaim_now();
        // Had the second spawn been handed the first slot before it was armed, the arming
        // would have stored the first handle in the second task's slot: never dropped here.
        assert_eq!(drops.load(Ordering::SeqCst), 1, "handle dropped once");
        assert_eq!(shard.live_count(), 1, "only the second task is live");
        assert!(shard.with_task(second, |_| ()).is_some());
        assert!(first == second || shard.with_task(first, |_| ()).is_none());
        assert!(shard.capacity() <= 2);
    });
}

/// Two tasks end on two threads (the second end sweeps: `SWEEP` is 2 in the model) while a
/// third spawns: the ended stack (many pushers, one consumer at a time that takes it whole)
/// never loses or duplicates a slot, and every handle is dropped once.
#[test]
fn concurrent_ends_sweeps_and_a_spawn_keep_the_ended_stack_consistent() {
    loom::model(|| {
        let shard: Arc<Shard<Fake>> = Arc::new(Shard::new());
        let (ha, hb) = (fake(), fake());
        let drops = [ha.drops.clone(), hb.drops.clone()];
        let a = shard.occupy(site(), None, 0, |_, tag| tag, |_| Some(ha));
        let b = shard.occupy(site(), None, 0, |_, tag| tag, |_| Some(hb));
        let enders: Vec<_> = [a, b]
            .into_iter()
            .map(|(tag, idx)| {
                let shard = shard.clone();
                thread::spawn(move || {
                    shard.end(idx, tag);
                })
            })
            .collect();
        let (_, c) = shard.occupy(site(), None, 0, |_, _| (), |_| Some(fake()));
        for e in enders {
            e.join().unwrap();
        }
        // Two more: with `c` live, exactly the two other slots are reused, none twice.
        let (_, d) = shard.occupy(site(), None, 0, |_, _| (), |_| Some(fake()));
        let (_, e) = shard.occupy(site(), None, 0, |_, _| (), |_| Some(fake()));
        let mut used = [c, d, e];
        used.sort_unstable();
        assert!(used.windows(2).all(|w| w[0] != w[1]), "{used:?}");
        assert!(
            shard.capacity() <= 3,
            "no slot leaked: {}",
            shard.capacity()
        );
        assert!(drops.iter().all(|d| d.load(Ordering::SeqCst) == 1));
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
