//! The registry of tracked tasks: sharded slots holding what is needed to abort and to report.
//!
//! # Design
//!
//! * **Slots** (24 bytes: `Option<AbortHandle>`, spawn `Location`, packed start time + flags)
//!   live in [`SHARDS`] cache-padded shards, each a `Mutex` over chunked slot storage with an
//!   intrusive free list, a live count and a count of normally ended tasks. A spawn picks a
//!   shard by a thread-local round-robin counter, so there is no global lock: concurrent spawns
//!   and task ends mostly touch different shards. Names (only for `spawn_named`) live in a
//!   per-shard side table so unnamed slots stay small.
//! * **One critical section per spawn and one per end.** The spawner holds the shard lock
//!   across `tokio::spawn` and stores the `AbortHandle` before unlocking, so a task can never
//!   end (its end takes the same lock) before its slot is complete. The one case where a task
//!   ends *inside* `tokio::spawn` on the spawning thread (the runtime is shutting down and drops
//!   the future at once) is detected with a thread-local marker and rolled back by the
//!   spawner, so it never re-locks the shard.
//! * **Busy shards** are counted in one atomic word (`busy << 2 | NOTIFY_EACH | DRAINING`),
//!   touched only when a shard's live count goes 0 ↔ 1. The last end wakes a waiting drain
//!   (no polling; the waiter registers with the `Notify` before it checks the count, so no
//!   wake-up is lost). While a drain waits for aborts to land, `NOTIFY_EACH` makes every end
//!   wake it.
//! * The live tasks **collectively hold one strong reference** to the scope, taken when the
//!   busy count leaves zero and released when it returns to zero, so a task does not clone an
//!   `Arc` per spawn and the scope outlives its last task.

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
const META_SHIFT: u32 = 4;
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

/// Slots per chunk: chunks never move or shrink, so growing never copies (or page-faults)
/// the slots already in use.
const CHUNK: usize = 1024;

/// Slot storage in fixed-capacity chunks, addressed by a flat index.
#[derive(Default)]
struct Slots {
    chunks: Vec<Vec<Slot>>,
    len: usize,
}

impl Slots {
    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, slot: Slot) {
        if self.len == self.chunks.len() * CHUNK {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        if let Some(last) = self.chunks.last_mut() {
            last.push(slot);
        }
        self.len += 1;
    }
}

impl std::ops::Index<usize> for Slots {
    type Output = Slot;
    #[inline]
    fn index(&self, i: usize) -> &Slot {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl std::ops::IndexMut<usize> for Slots {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut Slot {
        &mut self.chunks[i / CHUNK][i % CHUNK]
    }
}

struct ShardInner {
    slots: Slots,
    free: u32,
    names: HashMap<u32, Cow<'static, str>>,
    /// Occupied slots.
    live: usize,
    /// Occupied slots of kind `Blocking` or `Thread`.
    blocking: usize,
    /// Tasks of this shard that completed normally (not aborted), ever.
    ended_ok: u64,
}

impl ShardInner {
    fn alloc(&mut self, slot: Slot) -> u32 {
        self.live += 1;
        if Kind::from_meta(slot.meta) != Kind::Task {
            self.blocking += 1;
        }
        if self.free != NONE {
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
        let meta = s.meta;
        let abort = s.abort.take();
        s.location = None;
        s.meta = u64::from(self.free);
        self.free = idx;
        self.live -= 1;
        if meta & F_NAMED != 0 {
            self.names.remove(&idx);
        }
        if Kind::from_meta(meta) != Kind::Task {
            self.blocking -= 1;
        }
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
pub(crate) struct Key(u64);

impl Key {
    fn new(shard: usize, idx: u32) -> Key {
        Key(((shard as u64) << 32) | u64::from(idx))
    }
    fn shard(self) -> usize {
        (self.0 >> 32) as usize & (SHARDS - 1)
    }
    fn idx(self) -> u32 {
        self.0 as u32
    }
}

/// What the registry records about a task being spawned.
pub(crate) struct NewTask {
    pub(crate) kind: Kind,
    pub(crate) location: &'static Location<'static>,
    pub(crate) name: Option<Cow<'static, str>>,
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
    busy: Padded<AtomicUsize>,
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
    // Shard data stays consistent at every unlock point; a panic elsewhere must not make
    // every later spawn of the scope panic too.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Marker for "this thread is inside `tokio::spawn` for slot `key`, holding its shard lock".
#[derive(Clone, Copy)]
struct Spawning {
    key: u64,
    ended: bool,
}

const NOT_SPAWNING: Spawning = Spawning {
    key: u64::MAX,
    ended: false,
};

thread_local! {
    static NEXT_SHARD: Cell<u32> = const { Cell::new(u32::MAX) };
    static SPAWNING: Cell<Spawning> = const { Cell::new(NOT_SPAWNING) };
}

fn pick_shard() -> usize {
    let held = SPAWNING.with(|c| c.get().key);
    NEXT_SHARD.with(|c| {
        let mut n = c.get();
        if n == u32::MAX {
            // Seed threads differently so two spawning threads start on different shards.
            static SEED: AtomicUsize = AtomicUsize::new(0);
            n = (SEED.fetch_add(5, Ordering::Relaxed) as u32) & 0xFFFF;
        }
        let mut shard = n as usize & (SHARDS - 1);
        // A spawn nested inside another spawn on this thread (a future whose drop spawns,
        // dropped by a shutting-down runtime) must not take the shard lock it already holds.
        if held != u64::MAX && Key(held).shard() == shard {
            n = n.wrapping_add(1);
            shard = n as usize & (SHARDS - 1);
        }
        c.set(n.wrapping_add(1) & 0xFFFF);
        shard
    })
}

/// Rolls a half-done insertion back if spawning unwinds.
struct Inserting<'a> {
    registry: &'a Registry,
    guard: Option<MutexGuard<'a, ShardInner>>,
    key: Key,
    saved: Spawning,
    on_idle: &'a dyn Fn(),
}

impl Drop for Inserting<'_> {
    fn drop(&mut self) {
        // The guard is still here only when the spawn closure panicked.
        if let Some(mut guard) = self.guard.take() {
            SPAWNING.with(|c| c.set(self.saved));
            let dropped = guard.release(self.key.idx());
            let idle = guard.live == 0 && self.registry.shard_idle();
            drop(guard);
            drop(dropped);
            if idle {
                (self.on_idle)();
            }
        }
    }
}

impl Registry {
    pub(crate) fn new() -> Registry {
        Registry {
            busy: Padded(AtomicUsize::new(0)),
            shards: (0..SHARDS)
                .map(|_| {
                    Shard(Mutex::new(ShardInner {
                        slots: Slots::default(),
                        free: NONE,
                        names: HashMap::new(),
                        live: 0,
                        blocking: 0,
                        ended_ok: 0,
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
        self.shards.iter().map(|s| lock(&s.0).live).sum()
    }

    /// Whether no shard has live tasks.
    fn idle(&self) -> bool {
        self.busy.0.load(Ordering::Acquire) / ONE == 0
    }

    /// A shard went 0 → 1 live. Returns `true` if the whole registry left idle.
    fn shard_busy(&self) -> bool {
        // AcqRel: transitions of the busy count are ordered with each other (0 -> 1 and
        // 1 -> 0 pair up to take and drop the collective scope reference).
        let prev = self.busy.0.fetch_add(ONE, Ordering::AcqRel);
        prev / ONE == 0
    }

    /// A shard went 1 → 0 live. Wakes a waiting drain if this was the last busy shard;
    /// returns `true` if the whole registry became idle.
    fn shard_idle(&self) -> bool {
        let prev = self.busy.0.fetch_sub(ONE, Ordering::AcqRel);
        let last = prev / ONE == 1;
        if prev & (DRAINING | NOTIFY_EACH) != 0 && last {
            self.drain_notify.notify_waiters();
        }
        last
    }

    /// Inserts a slot for a task and spawns it with `spawn(key)` while holding the shard
    /// lock, then stores the abort handle `abort(&handle)`. `on_busy` / `on_idle` are called
    /// when the registry leaves / re-enters the idle state (to take / drop the collective
    /// reference to the scope); `on_busy` runs before the task can possibly end.
    #[inline]
    pub(crate) fn insert<T>(
        &self,
        task: NewTask,
        on_busy: &dyn Fn(),
        on_idle: &dyn Fn(),
        spawn: impl FnOnce(Key) -> T,
        abort: impl FnOnce(&T) -> Option<AbortHandle>,
    ) -> T {
        let NewTask {
            kind,
            location,
            name,
        } = task;
        let start = clock::now_ms();
        let mut meta = (start << META_SHIFT) | kind as u64;
        if name.is_some() {
            meta |= F_NAMED;
        }
        let shard = pick_shard();
        let mut guard = lock(&self.shards[shard].0);
        let idx = guard.alloc(Slot {
            abort: None,
            location: Some(location),
            meta,
        });
        if let Some(name) = name {
            guard.names.insert(idx, name);
        }
        if guard.live == 1 && self.shard_busy() {
            on_busy();
        }
        if self.busy.0.load(Ordering::Relaxed) & DRAINING != 0 {
            self.spawned_during_drain.fetch_add(1, Ordering::Relaxed);
        }
        let key = Key::new(shard, idx);
        let saved = SPAWNING.with(|c| {
            c.replace(Spawning {
                key: key.0,
                ended: false,
            })
        });
        let mut ins = Inserting {
            registry: self,
            guard: Some(guard),
            key,
            saved,
            on_idle,
        };
        let handle = spawn(key);
        let ended = SPAWNING.with(|c| c.replace(ins.saved)).ended;
        // Disarm the rollback.
        let Some(mut guard) = ins.guard.take() else {
            unreachable!("the shard guard is only taken here or on unwind")
        };
        drop(ins);
        if ended {
            // The runtime dropped the task inside `spawn` (it is shutting down).
            let dropped = guard.release(idx);
            let idle = guard.live == 0 && self.shard_idle();
            drop(guard);
            drop(dropped);
            if idle {
                on_idle();
            }
        } else {
            let mut a = abort(&handle);
            let slot = &mut guard.slots[idx as usize];
            if let Some(h) = &a
                && slot.meta & F_ABORTING != 0
            {
                h.abort();
            }
            std::mem::swap(&mut slot.abort, &mut a);
            drop(guard);
        }
        handle
    }

    /// Called by a task's guard when it ends: frees the slot and counts the outcome. Returns
    /// `true` when the registry became idle (the caller drops the collective reference).
    #[inline]
    pub(crate) fn end(&self, key: Key, outcome: Outcome) -> bool {
        let inside_spawn = SPAWNING.with(|c| {
            let mut s = c.get();
            if s.key == key.0 {
                s.ended = true;
                c.set(s);
                true
            } else {
                false
            }
        });
        if inside_spawn {
            return false;
        }
        let mut guard = lock(&self.shards[key.shard()].0);
        let meta = guard.slots[key.idx() as usize].meta;
        if outcome == Outcome::Completed && meta & F_ABORTING == 0 {
            guard.ended_ok += 1;
        }
        let dropped = guard.release(key.idx());
        let shard_empty = guard.live == 0;
        let idle = shard_empty && self.shard_idle();
        let each = !idle && self.busy.0.load(Ordering::Relaxed) & NOTIFY_EACH != 0;
        drop(guard);
        drop(dropped);
        if each {
            self.drain_notify.notify_waiters();
        }
        idle
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
            // SeqCst pairs with the `fetch_sub` in `shard_idle`: either the last end sees the
            // bit, or the drain sees the busy count at zero.
            self.busy.0.fetch_or(DRAINING, Ordering::SeqCst);
            0
        } else {
            self.busy
                .0
                .fetch_and(!(DRAINING | NOTIFY_EACH), Ordering::SeqCst);
            self.spawned_during_drain.load(Ordering::Relaxed)
        }
    }

    /// Asks every ending task to wake the drain (used while aborts land).
    pub(crate) fn notify_each(&self) {
        self.busy.0.fetch_or(NOTIFY_EACH, Ordering::SeqCst);
    }

    /// Waits until every tracked task has ended.
    pub(crate) async fn wait_idle(&self) {
        self.wait_until(|r| r.idle()).await
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

    /// Aborts every abortable tracked task; returns the async tasks aborted. Blocking jobs
    /// that have not started are cancelled too (running ones cannot be); threads are skipped.
    pub(crate) fn abort_all(&self) -> Vec<Aborted> {
        let mut out = Vec::new();
        for (shard, s) in self.shards.iter().enumerate() {
            let mut g = lock(&s.0);
            if g.live == 0 {
                continue;
            }
            for idx in 0..g.slots.len() as u32 {
                let slot = &g.slots[idx as usize];
                if slot.location.is_none() || slot.meta & F_ABORTING != 0 {
                    continue;
                }
                match Kind::from_meta(slot.meta) {
                    Kind::Thread => continue,
                    Kind::Blocking => {
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
                        key: Key::new(shard, idx),
                        info,
                        meta,
                    });
                }
            }
        }
        out
    }

    /// Whether the aborted entry's slot still holds that same task.
    fn still_there(&self, a: &Aborted) -> bool {
        let g = lock(&self.shards[a.key.shard()].0);
        let s = &g.slots[a.key.idx() as usize];
        s.location.is_some() && (s.meta & !F_ABORTING) == a.meta
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
            if g.blocking == 0 {
                continue;
            }
            for idx in 0..g.slots.len() as u32 {
                let slot = &g.slots[idx as usize];
                if slot.location.is_some()
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
