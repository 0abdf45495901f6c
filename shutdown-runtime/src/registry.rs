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
//! * **One critical section per spawn and one per end, none around `tokio::spawn`.** The
//!   spawner reserves a slot under the shard lock, spawns without holding any lock, then *arms*
//!   the slot lock-free: it writes the `AbortHandle` and sets `ARMED` in the slot's atomic
//!   `meta` word (chunks never move, so the slot address is stable). A task that ends before
//!   it is armed sets `ENDED_EARLY` instead and the arming spawner frees the slot; a drain that
//!   aborts an unarmed slot sets `ABORTING` and the arming spawner aborts the task itself. The
//!   handle is read by others only once `ARMED` is seen (Release/Acquire), and written only
//!   before it.
//! * **Busy shards** are counted in one atomic word (`busy << 2 | NOTIFY_EACH | DRAINING`),
//!   touched only when a shard's live count goes 0 ↔ 1. The last end wakes a waiting drain
//!   (no polling; the waiter registers with the `Notify` before it checks the count, so no
//!   wake-up is lost). While a drain waits for aborts to land, `NOTIFY_EACH` makes every end
//!   wake it.
//! * The live tasks **collectively hold one strong reference** to the scope, taken when the
//!   busy count leaves zero and released when it returns to zero, so a task does not clone an
//!   `Arc` per spawn and the scope outlives its last task.

use std::borrow::Cow;
use std::cell::{Cell, UnsafeCell};
use std::collections::HashMap;
use std::panic::Location;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use tokio::sync::Notify;
use tokio::task::AbortHandle;

use crate::clock;
use crate::names::default_name;
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

    pub(crate) fn fallback_name(self) -> &'static str {
        match self {
            Kind::Task => "task",
            Kind::Blocking => "blocking",
            Kind::Thread => "thread",
        }
    }
}

const KIND_MASK: u64 = 0b11;
const F_NAMED: u64 = 1 << 2;
/// A drain aborted (or asked to abort) this task.
const F_ABORTING: u64 = 1 << 3;
/// The spawner has stored the abort handle (set lock-free, once).
const F_ARMED: u64 = 1 << 4;
/// The task ended before it was armed; the arming spawner frees the slot.
const F_ENDED_EARLY: u64 = 1 << 5;
const STATE_BITS: u64 = F_ABORTING | F_ARMED | F_ENDED_EARLY;
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
///
/// Slots are only ever accessed through shared references (the spawner keeps one while it
/// arms its slot). `location` and the non-state bits of `meta` are only written under the shard
/// lock. `abort`
/// is written by the spawner (without the lock) strictly before it sets `F_ARMED`, and read or
/// taken by others (under the lock) only after they observed `F_ARMED`.
struct Slot {
    abort: UnsafeCell<Option<AbortHandle>>,
    location: UnsafeCell<Option<&'static Location<'static>>>,
    /// `std::any::type_name` of what the task runs: the default name, trimmed when reported.
    type_name: UnsafeCell<fn() -> &'static str>,
    /// `start_ms << META_SHIFT | state | flags | kind` when occupied; next free index when vacant.
    meta: AtomicU64,
}

// SAFETY: `abort` follows the publication protocol above; everything else is either atomic or
// accessed under the shard mutex.
unsafe impl Sync for Slot {}

impl Slot {
    fn location(&self) -> Option<&'static Location<'static>> {
        // SAFETY: written only under the shard lock, which the caller holds.
        unsafe { *self.location.get() }
    }

    fn meta(&self) -> u64 {
        // Acquire: pairs with the spawner's Release `fetch_or(F_ARMED)`, so a reader that sees
        // `F_ARMED` also sees the abort handle written before it.
        self.meta.load(Ordering::Acquire)
    }
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
            // Never exceeds the capacity: the chunk's buffer (and every slot address) is stable.
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
    /// Occupies a free slot (or a new one) with `location` and `meta` (unarmed, no handle).
    fn alloc(
        &mut self,
        location: &'static Location<'static>,
        type_name: fn() -> &'static str,
        meta: u64,
    ) -> u32 {
        self.live += 1;
        if Kind::from_meta(meta) != Kind::Task {
            self.blocking += 1;
        }
        if self.free != NONE {
            let idx = self.free;
            let s = &self.slots[idx as usize];
            self.free = s.meta.load(Ordering::Relaxed) as u32;
            // SAFETY: a vacant slot is touched by nobody but the lock holder.
            unsafe { *s.location.get() = Some(location) };
            // SAFETY: as above.
            unsafe { *s.type_name.get() = type_name };
            s.meta.store(meta, Ordering::Relaxed);
            idx
        } else {
            let idx = self.slots.len() as u32;
            self.slots.push(Slot {
                abort: UnsafeCell::new(None),
                location: UnsafeCell::new(Some(location)),
                type_name: UnsafeCell::new(type_name),
                meta: AtomicU64::new(meta),
            });
            idx
        }
    }

    /// Frees a slot; returns its abort handle so the caller can drop it outside the lock.
    /// The caller holds the lock and has seen `F_ARMED` or `F_ENDED_EARLY` (or is the spawner
    /// undoing its own reservation), so nobody else touches the slot.
    fn release(&mut self, idx: u32) -> Option<AbortHandle> {
        let s = &self.slots[idx as usize];
        let meta = s.meta.load(Ordering::Acquire);
        // SAFETY: see above.
        let abort = unsafe { (*s.abort.get()).take() };
        unsafe { *s.location.get() = None };
        s.meta.store(u64::from(self.free), Ordering::Relaxed);
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
        let location = s.location()?;
        let meta = s.meta();
        let kind = Kind::from_meta(meta);
        let named = if meta & F_NAMED != 0 {
            self.names.get(&idx).cloned()
        } else {
            None
        };
        // SAFETY: written only under the shard lock, which the caller holds.
        let type_name = unsafe { *s.type_name.get() };
        let name = named.unwrap_or_else(|| Cow::Owned(default_name(type_name(), kind)));
        Some((
            TaskInfo {
                name,
                location,
                age: clock::age_since(meta >> META_SHIFT),
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
    /// `std::any::type_name::<F>` of the future or closure: the default name, computed only
    /// when the task is reported.
    pub(crate) type_name: fn() -> &'static str,
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
    /// `ended_ok` when shutdown was requested or the last drain finished (`u64::MAX`: unset):
    /// the next drain counts tasks that ended normally since then as drained.
    drain_base: AtomicU64,
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

thread_local! {
    static NEXT_SHARD: Cell<u32> = const { Cell::new(u32::MAX) };
}

fn pick_shard() -> usize {
    NEXT_SHARD.with(|c| {
        let mut n = c.get();
        if n == u32::MAX {
            // Seed threads differently so two spawning threads start on different shards.
            static SEED: AtomicUsize = AtomicUsize::new(0);
            n = (SEED.fetch_add(5, Ordering::Relaxed) as u32) & 0xFFFF;
        }
        c.set(n.wrapping_add(1) & 0xFFFF);
        n as usize & (SHARDS - 1)
    })
}

/// Frees a reserved slot if spawning unwinds (no runtime, no `LocalSet`, no thread).
struct Reserved<'a> {
    registry: &'a Registry,
    key: Key,
    on_idle: &'a dyn Fn(),
    armed: bool,
}

impl Drop for Reserved<'_> {
    fn drop(&mut self) {
        if !self.armed {
            self.registry.release_reserved(self.key, self.on_idle);
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
            drain_base: AtomicU64::new(u64::MAX),
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

    /// Reserves a slot for a task, spawns it with `spawn(key)` (no lock held), then arms the
    /// slot with `abort(&handle)`. `on_busy` / `on_idle` are called when the registry leaves /
    /// re-enters the idle state (to take / drop the collective reference to the scope);
    /// `on_busy` runs before the task can possibly end.
    #[inline]
    pub(crate) fn insert<T>(
        &self,
        task: NewTask,
        on_busy: &dyn Fn(),
        on_idle: &dyn Fn(),
        spawn: impl FnOnce(Key) -> T,
        abort: impl Fn(&T) -> Option<AbortHandle>,
    ) -> T {
        let NewTask {
            kind,
            location,
            name,
            type_name,
        } = task;
        let start = clock::now_ms();
        let mut meta = (start << META_SHIFT) | kind as u64;
        if name.is_some() {
            meta |= F_NAMED;
        }
        let shard = pick_shard();
        let (key, slot) = {
            let mut guard = lock(&self.shards[shard].0);
            let idx = guard.alloc(location, type_name, meta);
            if let Some(name) = name {
                guard.names.insert(idx, name);
            }
            if guard.live == 1 && self.shard_busy() {
                on_busy();
            }
            // Chunks never move, so this address stays valid for the registry's lifetime.
            let slot: *const Slot = &guard.slots[idx as usize];
            (Key::new(shard, idx), slot)
        };
        if self.busy.0.load(Ordering::Relaxed) & DRAINING != 0 {
            self.spawned_during_drain.fetch_add(1, Ordering::Relaxed);
        }
        let mut reserved = Reserved {
            registry: self,
            key,
            on_idle,
            armed: false,
        };
        let handle = spawn(key);
        reserved.armed = true;
        // SAFETY: `slot` points into a chunk owned by this registry (alive: `&self`). Until
        // `F_ARMED` is set, nobody else reads or writes `abort` (see `Slot`), and the slot
        // cannot be freed: `end` marks an unarmed slot `F_ENDED_EARLY` instead of freeing it.
        let slot = unsafe { &*slot };
        unsafe { *slot.abort.get() = abort(&handle) };
        // Release: publishes the handle to whoever sees `F_ARMED`.
        let prev = slot.meta.fetch_or(F_ARMED, Ordering::AcqRel);
        if prev & F_ABORTING != 0
            && let Some(a) = abort(&handle)
        {
            // A drain aborted this task while we were spawning it.
            a.abort();
        }
        if prev & F_ENDED_EARLY != 0 {
            // The task already ended (e.g. the runtime dropped it inside `spawn`).
            self.release_reserved(key, on_idle);
        }
        handle
    }

    /// Frees a slot whose task ended before it was armed, or whose spawn failed.
    fn release_reserved(&self, key: Key, on_idle: &dyn Fn()) {
        let mut guard = lock(&self.shards[key.shard()].0);
        let dropped = guard.release(key.idx());
        let idle = guard.live == 0 && self.shard_idle();
        drop(guard);
        drop(dropped);
        if idle {
            on_idle();
        }
    }

    /// Called by a task's guard when it ends: frees the slot and counts the outcome. Returns
    /// `true` when the registry became idle (the caller drops the collective reference).
    #[inline]
    pub(crate) fn end(&self, key: Key, outcome: Outcome) -> bool {
        let mut guard = lock(&self.shards[key.shard()].0);
        let slot = &guard.slots[key.idx() as usize];
        let mut meta = slot.meta();
        if meta & F_ARMED == 0 {
            // Not armed yet: leave the slot to the spawner, unless it arms it right now.
            match slot.meta.compare_exchange(
                meta,
                meta | F_ENDED_EARLY,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    if outcome == Outcome::Completed && meta & F_ABORTING == 0 {
                        guard.ended_ok += 1;
                    }
                    return false;
                }
                Err(now) => meta = now, // armed meanwhile (only `F_ARMED` can change here)
            }
        }
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

    /// Remembers the count of normally ended tasks at the shutdown request, so tasks that stop
    /// in response to it count as drained even if they end before `drain` is called.
    pub(crate) fn mark_request(&self) {
        let _ = self.drain_base.compare_exchange(
            u64::MAX,
            self.ended_ok(),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    /// The base for a drain starting now (see `drain_base`).
    pub(crate) fn drain_base(&self) -> u64 {
        match self.drain_base.load(Ordering::Acquire) {
            u64::MAX => self.ended_ok(),
            base => base,
        }
    }

    /// Sets the base for the next drain.
    pub(crate) fn set_drain_base(&self, base: u64) {
        self.drain_base.store(base, Ordering::Release);
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
            let g = lock(&s.0);
            if g.live == 0 {
                continue;
            }
            for idx in 0..g.slots.len() as u32 {
                let slot = &g.slots[idx as usize];
                let meta = slot.meta();
                if slot.location().is_none() || meta & (F_ABORTING | F_ENDED_EARLY) != 0 {
                    continue;
                }
                let kind = Kind::from_meta(meta);
                if kind == Kind::Thread {
                    continue;
                }
                let meta = if kind == Kind::Task {
                    // AcqRel: if the slot is armed we see its handle; if not, the arming
                    // spawner sees `F_ABORTING` and aborts the task itself.
                    slot.meta.fetch_or(F_ABORTING, Ordering::AcqRel)
                } else {
                    meta
                };
                if meta & F_ARMED != 0 {
                    // SAFETY: armed, and we hold the shard lock, so nobody writes or frees it.
                    if let Some(a) = unsafe { &*slot.abort.get() } {
                        // Cancels a blocking job that has not started; a running one cannot be
                        // stopped and is reported as still running if it outlives the drain.
                        a.abort();
                    }
                }
                if kind == Kind::Task
                    && let Some((info, _)) = g.info(idx)
                {
                    out.push(Aborted {
                        key: Key::new(shard, idx),
                        info,
                        meta: meta & !STATE_BITS,
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
        s.location().is_some() && (s.meta() & !STATE_BITS) == a.meta
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
                if slot.location().is_some()
                    && slot.meta() & F_ENDED_EARLY == 0
                    && Kind::from_meta(slot.meta()) != Kind::Task
                    && let Some((info, _)) = g.info(idx)
                {
                    out.push(info);
                }
            }
        }
        out
    }
}
