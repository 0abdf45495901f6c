//! Loom model checks of the registry's concurrency protocol: the slot table (`slots.rs`:
//! occupy-and-arm vs end vs abort_all vs the owner's reclaim and reuse, re-entrant spawns)
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
use crate::tally::{Counts, Tally};

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

/// A spawner (the shard's owner) occupies a slot, spawns (the task starts on another thread,
/// like `tokio::spawn` hands it to a worker, and may end before the slot is armed) and arms
/// it, while a drain aborts everything concurrently. Afterwards (and after a reclaim by the
/// owner): the handle was dropped exactly once, aborted at most once, the end counts as
/// drained exactly when the drain did not list the task, the slot is free and reused, and the
/// new occupation is live and marked afresh.
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
                move |idx| {
                    // The task starts now, on another thread, and may end before we arm.
                    thread::spawn(move || {
                        let aborting = s2.end(idx);
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
        assert_eq!(
            shard.reclaim_now(),
            1,
            "ended, armed, released by the drain"
        );

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
        let (_, again) = shard.occupy(site(), None, 0, |_| (), |_| None);
        assert_eq!((again, shard.capacity()), (0, 1), "freed slot reused");
        assert_eq!(shard.live_count(), 1);
        let mut out = Vec::new();
        shard.abort_all(|_| (), &mut out);
        assert_eq!(out.len(), 1, "the new occupation is marked afresh");
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
        shard.occupy(site(), None, 0, |_| (), |_| Some(handle));
        let listed = aborter.join().unwrap();
        assert_eq!(aborts.load(Ordering::SeqCst), listed);
    });
}

/// A task ends (on another thread) before its spawner arms the slot, and the spawner spawns
/// again meanwhile (a re-entrant spawn: the future's drop inside `tokio::spawn`), scanning for
/// ended slots: the unarmed slot is never handed out again before it is armed, and its handle
/// is dropped exactly once.
#[test]
fn an_unarmed_slot_is_never_reused_by_a_nested_spawn() {
    loom::model(|| {
        let shard: Arc<Shard<Fake>> = Arc::new(Shard::new());
        let handle = fake();
        let drops = handle.drops.clone();
        let ((ender, second), first) = {
            let s2 = shard.clone();
            let s3 = shard.clone();
            shard.occupy(
                site(),
                None,
                0,
                move |idx| {
                    let ender = thread::spawn(move || {
                        s2.end(idx);
                    });
                    // the nested spawn, on the owner thread, before we arm
                    let (_, second) = s3.occupy(site(), None, 0, |_| (), |_| None);
                    (ender, second)
                },
                |_| Some(handle),
            )
        };
        ender.join().unwrap();
        assert_ne!(first, second, "the unarmed slot was handed out twice");
        assert_eq!(shard.live_count(), 1, "only the nested task is live");
        assert_eq!(shard.reclaim_now(), 1);
        assert_eq!(drops.load(Ordering::SeqCst), 1, "handle dropped once");
        assert_eq!(shard.capacity(), 2);
    });
}

/// Two tasks end on two threads while the owner spawns a third (its scan reclaims whatever has
/// ended): no slot is lost or handed out twice, and every handle is dropped once.
#[test]
fn concurrent_ends_and_a_scanning_spawn_keep_the_free_list_consistent() {
    loom::model(|| {
        let shard: Arc<Shard<Fake>> = Arc::new(Shard::new());
        let (ha, hb) = (fake(), fake());
        let drops = [ha.drops.clone(), hb.drops.clone()];
        let (_, a) = shard.occupy(site(), None, 0, |_| (), |_| Some(ha));
        let (_, b) = shard.occupy(site(), None, 0, |_| (), |_| Some(hb));
        let enders: Vec<_> = [a, b]
            .into_iter()
            .map(|idx| {
                let shard = shard.clone();
                thread::spawn(move || {
                    shard.end(idx);
                })
            })
            .collect();
        let (_, c) = shard.occupy(site(), None, 0, |_| (), |_| Some(fake()));
        for e in enders {
            e.join().unwrap();
        }
        // Two more: with `c` live, exactly the two other slots are reused, none twice.
        let (_, d) = shard.occupy(site(), None, 0, |_| (), |_| Some(fake()));
        let (_, e) = shard.occupy(site(), None, 0, |_| (), |_| Some(fake()));
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

/// A drain marks and aborts while the marked task ends and the owner reclaims its slot and
/// reuses it for a new task: the drain never aborts (or lists) the new task in place of the
/// old one — it aborts exactly the tasks it listed, each through its own handle.
#[test]
fn a_drain_never_aborts_the_next_occupant_of_a_reused_slot() {
    loom::model(|| {
        let shard: Arc<Shard<Fake>> = Arc::new(Shard::new());
        let (ha, hb) = (fake(), fake());
        let (a_aborts, b_aborts) = (ha.aborts.clone(), hb.aborts.clone());
        // task A, start 1
        let (_, a) = shard.occupy(site(), None, 1, |_| (), |_| Some(ha));
        let ender = {
            let shard = shard.clone();
            thread::spawn(move || {
                shard.end(a);
            })
        };
        let drain = {
            let shard = shard.clone();
            thread::spawn(move || {
                let mut out = Vec::new();
                shard.abort_all(|t| t.start_ms, &mut out);
                out.into_iter().map(|s| s.info).collect::<Vec<u32>>()
            })
        };
        // the owner spawns task B (start 2): reuses A's slot if it is reclaimable by now
        let (_, b) = shard.occupy(site(), None, 2, |_| (), |_| Some(hb));
        ender.join().unwrap();
        let listed = drain.join().unwrap();
        let (listed_a, listed_b) = (listed.contains(&1), listed.contains(&2));
        assert_eq!(listed.len(), usize::from(listed_a) + usize::from(listed_b));
        assert!(a_aborts.load(Ordering::SeqCst) <= usize::from(listed_a));
        assert_eq!(b_aborts.load(Ordering::SeqCst), usize::from(listed_b));
        assert!(b == a || shard.capacity() == 2);
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
        let tally = Arc::new(Tally::new());
        // the counts of the three threads (each written by its own thread only)
        let counts = Arc::new([Counts::default(), Counts::default(), Counts::default()]);
        let live = {
            let (tally, counts) = (tally.clone(), counts.clone());
            move || tally.live(|| counts.iter())
        };
        let wake = Arc::new(Notify::new());
        tally.spawned(&counts[0]);
        tally.start_drain();
        let first = {
            let (tally, wake, counts) = (tally.clone(), wake.clone(), counts.clone());
            thread::spawn(move || {
                // the task spawned by thread 0 ends on thread 1
                if tally.ended(&counts[1], true) {
                    wake.notify(); // Notify::notify_waiters
                }
            })
        };
        let second = {
            let (tally, wake, counts) = (tally.clone(), wake.clone(), counts.clone());
            thread::spawn(move || {
                // spawned (possibly) during the drain by this thread, ends on it
                tally.spawned(&counts[2]);
                if tally.ended(&counts[2], true) {
                    wake.notify();
                }
            })
        };
        // The drain (`Registry::wait_idle`): mark, read, set the target, wait.
        loop {
            let mark = tally.drain_mark();
            let live = live();
            if live == 0 {
                break;
            }
            tally.wait_for(mark, live);
            wake.wait();
        }
        first.join().unwrap();
        second.join().unwrap();
        assert_eq!(live(), 0);
        assert_eq!(tally.ended_ok(counts.iter()), 2);
    });
}
