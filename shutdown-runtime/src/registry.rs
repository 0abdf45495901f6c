//! The registry of tracked tasks: sharded slots holding what is needed to abort and to report.
//!
//! # Design
//!
//! * **Live count + drain bit** in one atomic word (`live << 2 | NOTIFY_EACH << 1 | DRAINING`):
//!   a task's end is one `fetch_sub`; only when a drain is waiting *and* the count reaches zero
//!   (or during the short abort-landing phase) does it touch the drain `Notify`, so `drain` wakes
//!   as soon as the last task ends, without polling and without lost wake-ups.
//! * **Slots** (24 bytes: `Option<AbortHandle>`, spawn `Location`, packed start time + flags) live
//!   in [`SHARDS`] cache-padded shards, each a `Mutex<Vec<Slot>>` with an intrusive free list.
//!   A spawn picks a shard by a thread-local round-robin counter, so there is no global lock:
//!   concurrent spawns and task ends mostly touch different shards. Names (only for
//!   `spawn_named`) live in a per-shard side table so unnamed slots stay small.
//! * A task's slot index travels in the task's own wrapper (see `tracked.rs`); the wrapper's
//!   drop removes the slot (tasks remove themselves when done).
//!
//! The spawner reserves a slot before `tokio::spawn` and arms it with the `AbortHandle` after.
//! A task that ends before it was armed marks its slot `ENDED_EARLY` and the arming spawner
//! frees it; a drain that aborts a reserved-but-unarmed slot marks it `ABORTING` and the arming
//! spawner aborts the task at once.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;
use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use tokio::sync::Notify;
use tokio::task::AbortHandle;

use crate::clock;
use crate::report::{PanicInfo, TaskInfo};

/// Number of shards (a power of two).
pub(crate) const SHARDS: usize = 16;

/// What kind of work a slot tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An async task (`spawn`, `spawn_named`, `spawn_local`): abortable.
    Task = 0,
    /// A `spawn_blocking` job: abortable only before it starts.
    Blocking = 1,
    /// A tracked OS thread: never abortable.
    Thread = 2,
}

impl Kind {
    fn from_meta(meta: u64) -> Kind {
        match meta & KIND_MASK {
            0 => Kind::Task,
            1 => Kind::Blocking,
            _ => Kind::Thread,
        }
    }

    fn default_name(self) -> &'static str {
        match self {
            Kind::Task => "task",
            Kind::Blocking => "blocking",
            Kind::Thread => "thread",
        }
    }
}

const KIND_MASK: u64 = 0b11;
const F_NAMED: u64 = 1 << 2;
const F_ABORTING: u64 = 1 << 3;
const F_ENDED_EARLY: u64 = 1 << 4;
/// Set once the spawner has handed over the abort handle (threads: armed with none).
const F_ARMED: u64 = 1 << 5;
const META_SHIFT: u32 = 6;
const NONE: u32 = u32::MAX;

const DRAINING: usize = 1;
const NOTIFY_EACH: usize = 2;
const ONE: usize = 4;

/// How a tracked task ended (reported by its guard).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Dropped before completing: aborted (by us or the user) or the runtime shut down.
    Cancelled = 0,
    /// Returned normally.
    Completed = 1,
    /// Panicked (already recorded).
    Panicked = 2,
}

/// A slot: 24 bytes. `location == None` marks a vacant slot whose `meta` is the next free index.
struct Slot {
    abort: Option<AbortHandle>,
    location: Option<&'static Location<'static>>,
    /// `start_ms << META_SHIFT | flags | kind` when occupied; next free index when vacant.
    meta: u64,
}

#[derive(Default)]
struct ShardInner {
    slots: Vec<Slot>,
    free: u32,
    names: HashMap<u32, Cow<'static, str>>,
    /// Tasks of this shard that completed normally (not aborted), ever.
    ended_ok: u64,
}

impl ShardInner {
    fn alloc(&mut self, slot: Slot) -> u32 {
        if self.free != NONE && !self.slots.is_empty() {
            let idx = self.free;
            let s = &mut self.slots[idx as usize];
            self.free = s.meta as u32;
            *s = slot;
            idx
        } else {
            let idx = self.slots.len() as u32;
            self.slots.push(slot);
            idx
        }
    }

    /// Frees a slot; returns its abort handle so the caller can drop it outside the lock.
    fn release(&mut self, idx: u32) -> Option<AbortHandle> {
        let s = &mut self.slots[idx as usize];
        if s.meta & F_NAMED != 0 {
            self.names.remove(&idx);
        }
        let abort = s.abort.take();
        s.location = None;
        s.meta = u64::from(self.free);
        self.free = idx;
        abort
    }

    fn info(&self, idx: u32) -> Option<(TaskInfo, Kind)> {
        let s = &self.slots[idx as usize];
        let location = s.location?;
        let kind = Kind::from_meta(s.meta);
        let name = if s.meta & F_NAMED != 0 {
            self.names
                .get(&idx)
                .cloned()
                .unwrap_or(Cow::Borrowed(kind.default_name()))
        } else {
            Cow::Borrowed(kind.default_name())
        };
        Some((
            TaskInfo {
                name,
                location,
                age: clock::age_since(s.meta >> META_SHIFT),
            },
            kind,
        ))
    }
}

#[repr(align(128))]
struct Shard(Mutex<ShardInner>);

#[repr(align(128))]
struct Padded<T>(T);

/// Identifies a slot: `shard << 32 | index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key(pub(crate) u64);

impl Key {
    fn shard(self) -> usize {
        (self.0 >> 32) as usize & (SHARDS - 1)
    }
    fn idx(self) -> u32 {
        self.0 as u32
    }
}

/// A task aborted at the budget, remembered until the abort lands.
#[derive(Debug)]
pub(crate) struct Aborted {
    key: Key,
    pub(crate) info: TaskInfo,
    meta: u64,
}

/// The per-scope registry.
pub(crate) struct Registry {
    state: Padded<AtomicUsize>,
    shards: Box<[Shard]>,
    drain_notify: Notify,
    spawned_during_drain: AtomicUsize,
    panics: Mutex<Vec<PanicInfo>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("live", &self.live())
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding a shard lock cannot leave a slot half-written in a way that
    // matters for reporting; keep going rather than poisoning every later spawn.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

thread_local! {
    static NEXT_SHARD: Cell<u32> = const { Cell::new(u32::MAX) };
}

fn pick_shard() -> usize {
    NEXT_SHARD.with(|c| {
        let mut n = c.get();
        if n == u32::MAX {
            // Seed threads differently so two spawning threads start on different shards.
            static SEED: AtomicUsize = AtomicUsize::new(0);
            n = (SEED.fetch_add(7, Ordering::Relaxed) as u32) & 0xFFFF;
        }
        c.set(n.wrapping_add(1) & 0xFFFF);
        n as usize & (SHARDS - 1)
    })
}

impl Registry {
    pub(crate) fn new() -> Registry {
        Registry {
            state: Padded(AtomicUsize::new(0)),
            shards: (0..SHARDS)
                .map(|_| {
                    Shard(Mutex::new(ShardInner {
                        free: NONE,
                        ..ShardInner::default()
                    }))
                })
                .collect(),
            drain_notify: Notify::new(),
            spawned_during_drain: AtomicUsize::new(0),
            panics: Mutex::new(Vec::new()),
        }
    }

    /// Number of tracked tasks, blocking jobs and threads still alive.
    pub(crate) fn live(&self) -> usize {
        self.state.0.load(Ordering::Acquire) / ONE
    }

    /// Reserves a slot for a task about to be spawned and counts it live.
    pub(crate) fn reserve(
        &self,
        kind: Kind,
        location: &'static Location<'static>,
        name: Option<Cow<'static, str>>,
    ) -> Key {
        let start = clock::now_ms();
        let mut meta = (start << META_SHIFT) | kind as u64;
        if name.is_some() {
            meta |= F_NAMED;
        }
        let shard = pick_shard();
        let idx = {
            let mut g = lock(&self.shards[shard].0);
            let idx = g.alloc(Slot {
                abort: None,
                location: Some(location),
                meta,
            });
            if let Some(name) = name {
                g.names.insert(idx, name);
            }
            idx
        };
        // Relaxed: the matching decrement happens in the task, which is spawned after this
        // (spawning synchronizes), so the count never goes below zero.
        let prev = self.state.0.fetch_add(ONE, Ordering::Relaxed);
        if prev & DRAINING != 0 {
            self.spawned_during_drain.fetch_add(1, Ordering::Relaxed);
        }
        Key(((shard as u64) << 32) | u64::from(idx))
    }

    /// Gives a reserved slot the spawned task's abort handle (or frees it if the task already
    /// ended, or aborts the task if a drain aborted the slot meanwhile).
    pub(crate) fn arm(&self, key: Key, abort: Option<AbortHandle>) {
        let dropped = {
            let mut g = lock(&self.shards[key.shard()].0);
            let s = &mut g.slots[key.idx() as usize];
            if s.meta & F_ENDED_EARLY != 0 {
                let mine = g.release(key.idx());
                (abort, mine)
            } else {
                if s.meta & F_ABORTING != 0
                    && let Some(a) = &abort
                {
                    a.abort();
                }
                s.abort = abort;
                // Threads and blocking jobs are armed too (a thread with `None`), so the end
                // path knows the slot is no longer merely reserved.
                s.meta |= F_ARMED;
                (None, None)
            }
        };
        drop(dropped);
    }

    /// Called by a task's guard when it ends: frees the slot and counts the outcome.
    pub(crate) fn end(&self, key: Key, outcome: Outcome) {
        let dropped = {
            let mut g = lock(&self.shards[key.shard()].0);
            let meta = g.slots[key.idx() as usize].meta;
            if outcome == Outcome::Completed && meta & F_ABORTING == 0 {
                g.ended_ok += 1;
            }
            if meta & F_ARMED == 0 {
                g.slots[key.idx() as usize].meta |= F_ENDED_EARLY;
                None
            } else {
                g.release(key.idx())
            }
        };
        drop(dropped);
        // AcqRel: the drain's Acquire load of zero must see every task's effects.
        let prev = self.state.0.fetch_sub(ONE, Ordering::AcqRel);
        if prev & (DRAINING | NOTIFY_EACH) != 0 && (prev / ONE == 1 || prev & NOTIFY_EACH != 0) {
            self.drain_notify.notify_waiters();
        }
    }

    /// Undoes a reservation whose spawn failed (panicked before returning a handle).
    pub(crate) fn cancel(&self, key: Key) {
        let ended = {
            let mut g = lock(&self.shards[key.shard()].0);
            let ended = g.slots[key.idx() as usize].meta & F_ENDED_EARLY != 0;
            drop(g.release(key.idx()));
            ended
        };
        if !ended {
            self.state.0.fetch_sub(ONE, Ordering::AcqRel);
        }
    }

    /// Records a panic of the task in slot `key`.
    pub(crate) fn record_panic(&self, key: Key, message: String) {
        let info = lock(&self.shards[key.shard()].0).info(key.idx());
        if let Some((task, _)) = info {
            tracing::error!(
                target: "shutdown_runtime",
                task = %task.name,
                location = %task.location,
                message = %message,
                "tracked task panicked"
            );
            lock(&self.panics).push(PanicInfo { task, message });
        }
    }

    /// Takes every recorded, not yet reported panic.
    pub(crate) fn take_panics(&self) -> Vec<PanicInfo> {
        std::mem::take(&mut *lock(&self.panics))
    }

    /// Sum of normally completed tasks over all shards.
    pub(crate) fn ended_ok(&self) -> u64 {
        self.shards.iter().map(|s| lock(&s.0).ended_ok).sum()
    }

    /// Marks the start (`true`) or end (`false`) of a drain; returns spawns seen during it.
    pub(crate) fn set_draining(&self, on: bool) -> usize {
        if on {
            self.spawned_during_drain.store(0, Ordering::Relaxed);
            // SeqCst pairs with the `fetch_sub` in `end`: either the last task sees the bit,
            // or the drain sees the count at zero.
            self.state.0.fetch_or(DRAINING, Ordering::SeqCst);
            0
        } else {
            self.state
                .0
                .fetch_and(!(DRAINING | NOTIFY_EACH), Ordering::SeqCst);
            self.spawned_during_drain.load(Ordering::Relaxed)
        }
    }

    /// Asks every ending task to wake the drain (used while aborts land).
    pub(crate) fn notify_each(&self) {
        self.state.0.fetch_or(NOTIFY_EACH, Ordering::SeqCst);
    }

    /// Waits until `done()` holds; re-checked after every wake-up of the drain `Notify`.
    pub(crate) async fn wait_until(&self, mut done: impl FnMut(&Registry) -> bool) {
        loop {
            let notified = self.drain_notify.notified();
            let mut notified = std::pin::pin!(notified);
            // Register before checking, so a wake-up between the check and the await is kept.
            notified.as_mut().enable();
            if done(self) {
                return;
            }
            notified.await;
        }
    }

    /// Aborts every abortable tracked task; returns what was aborted (threads are skipped).
    pub(crate) fn abort_all(&self) -> Vec<Aborted> {
        let mut out = Vec::new();
        for (shard, s) in self.shards.iter().enumerate() {
            let mut g = lock(&s.0);
            for idx in 0..g.slots.len() as u32 {
                let slot = &g.slots[idx as usize];
                if slot.location.is_none() || slot.meta & (F_ENDED_EARLY | F_ABORTING) != 0 {
                    continue;
                }
                match Kind::from_meta(slot.meta) {
                    Kind::Thread => continue,
                    Kind::Blocking => {
                        // Cancels the job if it has not started; a running job cannot be
                        // stopped and is reported as still running if it outlives the drain.
                        if let Some(a) = &slot.abort {
                            a.abort();
                        }
                        continue;
                    }
                    Kind::Task => {}
                }
                let meta = slot.meta;
                if let Some(a) = &slot.abort {
                    a.abort();
                }
                g.slots[idx as usize].meta |= F_ABORTING;
                if let Some((info, _)) = g.info(idx) {
                    out.push(Aborted {
                        key: Key(((shard as u64) << 32) | u64::from(idx)),
                        info,
                        meta,
                    });
                }
            }
        }
        out
    }

    /// Whether the aborted entry's slot still holds that same task.
    pub(crate) fn still_there(&self, a: &Aborted) -> bool {
        let g = lock(&self.shards[a.key.shard()].0);
        let s = &g.slots[a.key.idx() as usize];
        s.location.is_some() && (s.meta & !(F_ABORTING | F_ARMED)) == (a.meta & !F_ARMED)
    }

    /// Number of aborted tasks whose abort has not landed yet.
    pub(crate) fn pending_aborts(&self, aborted: &[Aborted]) -> usize {
        aborted.iter().filter(|a| self.still_there(a)).count()
    }

    /// Blocking jobs and threads still running.
    pub(crate) fn running_blocking(&self) -> Vec<TaskInfo> {
        let mut out = Vec::new();
        for s in self.shards.iter() {
            let g = lock(&s.0);
            for idx in 0..g.slots.len() as u32 {
                let slot = &g.slots[idx as usize];
                if slot.location.is_some()
                    && slot.meta & F_ENDED_EARLY == 0
                    && Kind::from_meta(slot.meta) != Kind::Task
                    && let Some((info, _)) = g.info(idx)
                {
                    out.push(info);
                }
            }
        }
        out
    }
}
