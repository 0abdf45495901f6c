//! The registry of tracked tasks: per-thread shards of slots (what is needed to abort and to
//! report each task) and per-thread counters (what the drain waits on).
//!
//! # Design
//!
//! * **Shards follow threads.** Each thread that spawns gets an owner id (`owner.rs`, unique
//!   among live threads) and owns the shard with that index: it hands out that shard's slots
//!   with no lock and no read-modify-write (see `slots.rs`), and the slots stay in its core's
//!   cache. Shards are created on first use, in chunks. A task's end takes no lock either:
//!   it takes its abort handle out of its slot and sets one bit of its slot's word.
//! * **Counters instead of a shared live count**, and a drain woken only when the count may
//!   have reached zero: see `tally.rs`.
//! * **Spawn never holds a lock across `tokio::spawn`**: occupy the slot, spawn, arm it
//!   (see `slots.rs`); a task that ends before it is armed leaves the slot to its spawner.
//! * A slot names its task with one word: the interned spawn site (`sites.rs`).
//! * The task's wrapper holds the scope: `&'static` for the global scope, an `Arc` otherwise
//!   (see `inner.rs`), so there is no unsafe lifetime reasoning.

use std::borrow::Cow;
use std::panic::Location;

use tokio::sync::Notify;
use tokio::task::AbortHandle;

use crate::clock;
use crate::names::default_name;
use crate::report::{PanicInfo, TaskInfo};
use crate::slots::{AbortedSlot, Marked, Shard, TaskView};
use crate::sync::{AtomicU64, Mutex, Ordering, Padded, lock};
use crate::tally::Tally;

pub(crate) use crate::slots::{Kind, TaskEnd};

/// Identifies a slot: shard (its owner's id) and index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    shard: u32,
    idx: u32,
}

/// Shards in chunk 0 of [`Shards`]; chunk `k` holds `FIRST_SHARDS << k`.
const FIRST_SHARDS: usize = 16;
/// Chunks of shards: room for 16 * (2^20 - 1) owner ids.
const SHARD_CHUNKS: usize = 20;

/// A chunk of shards (each on its own cache lines).
type ShardChunk = Box<[Padded<Shard<AbortHandle>>]>;

/// A registry's shards, by owner id, created on first use (a chunk at a time).
struct Shards {
    chunks: [std::sync::OnceLock<ShardChunk>; SHARD_CHUNKS],
}

impl Shards {
    fn new() -> Shards {
        Shards {
            chunks: std::array::from_fn(|_| std::sync::OnceLock::new()),
        }
    }

    /// The shard of owner `id` (created with its chunk if needed).
    #[inline]
    fn get(&self, id: u32) -> &Shard<AbortHandle> {
        let n = id as usize / FIRST_SHARDS + 1;
        let k = (usize::BITS - 1 - n.leading_zeros()) as usize;
        let off = id as usize - FIRST_SHARDS * ((1 << k) - 1);
        let chunk = match self.chunks[k].get() {
            Some(chunk) => chunk,
            None => self.create(k),
        };
        &chunk[off].0
    }

    /// Chunk `k`, created now if no other thread did first.
    #[cold]
    fn create(&self, k: usize) -> &ShardChunk {
        self.chunks[k].get_or_init(|| {
            (0..FIRST_SHARDS << k)
                .map(|_| Padded(Shard::new()))
                .collect()
        })
    }

    /// Every shard created so far, with its owner id. (A chunk exists only if one of its
    /// owners used this registry: chunk 0 may be missing while chunk 1 exists.)
    fn iter(&self) -> impl Iterator<Item = (u32, &Shard<AbortHandle>)> {
        self.chunks
            .iter()
            .enumerate()
            .filter_map(|(k, chunk)| chunk.get().map(|chunk| (k, chunk)))
            .flat_map(|(k, chunk)| {
                let first = FIRST_SHARDS * ((1 << k) - 1);
                chunk
                    .iter()
                    .enumerate()
                    .map(move |(off, s)| ((first + off) as u32, &s.0))
            })
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
    shard: u32,
    slot: AbortedSlot<TaskInfo>,
}

impl Aborted {
    /// The aborted task, as reported.
    pub(crate) fn info(&self) -> &TaskInfo {
        &self.slot.info
    }

    pub(crate) fn into_info(self) -> TaskInfo {
        self.slot.info
    }
}

/// The per-scope registry.
pub(crate) struct Registry {
    shards: Shards,
    tally: Tally,
    drain_notify: Notify,
    spawned_during_drain: AtomicU64,
    /// Live blocking jobs and threads (rare), so a report scans the slots only when some exist.
    blocking: AtomicU64,
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

impl TaskInfo {
    fn of(task: &TaskView<'_>) -> TaskInfo {
        let name = match (task.name, task.site.name) {
            (Some(name), _) => name.clone(),
            (None, Some(name)) => Cow::Borrowed(name),
            (None, None) => Cow::Owned(default_name((task.site.type_name)(), task.site.kind)),
        };
        TaskInfo {
            name,
            location: task.site.location,
            age: clock::age_since(task.start_ms),
        }
    }
}

impl Registry {
    pub(crate) fn new() -> Registry {
        Registry {
            shards: Shards::new(),
            tally: Tally::new(),
            drain_notify: Notify::new(),
            spawned_during_drain: AtomicU64::new(0),
            blocking: AtomicU64::new(0),
            panics: Mutex::new(Vec::new()),
            drain_base: AtomicU64::new(u64::MAX),
        }
    }

    /// Number of tracked tasks, blocking jobs and threads still alive (an upper bound while
    /// tasks are being spawned concurrently).
    pub(crate) fn live(&self) -> usize {
        self.tally
            .live(|| self.shards.iter().map(|(_, s)| &s.counts))
    }

    /// Tracks a task: reserves a slot of this thread's shard, runs `spawn(key)` (no lock
    /// held), then arms the slot with `abort(&value)`. Returns `spawn`'s value.
    #[inline]
    pub(crate) fn insert<T>(
        &self,
        task: NewTask,
        spawn: impl FnOnce(Key) -> T,
        abort: impl FnOnce(&T) -> Option<AbortHandle>,
    ) -> T {
        let NewTask {
            kind,
            location,
            name,
            type_name,
        } = task;
        // A `&'static str` name is interned with the site (no memory per task); a name built
        // at run time is kept beside the slot while the task lives.
        let (static_name, name) = match name {
            Some(Cow::Borrowed(name)) => (Some(name), None),
            name => (None, name),
        };
        let site = crate::sites::site(kind, location, type_name, static_name);
        crate::owner::with_id(|id| {
            // Counted before the task can run, so the drain never sees its end before its
            // spawn.
            let shard = self.shards.get(id);
            if self.tally.spawned(&shard.counts) {
                self.spawned_during_drain.fetch_add(1, Ordering::Relaxed);
            }
            if kind != Kind::Task {
                self.blocking.fetch_add(1, Ordering::SeqCst);
            }
            let (value, _idx) = shard.occupy(
                site,
                name,
                clock::now_ms() as u32,
                |idx| spawn(Key { shard: id, idx }),
                abort,
            );
            value
        })
    }

    /// Called by a task's guard when it ends (any thread): frees the slot, counts the end,
    /// wakes a waiting drain if the count may have reached zero.
    #[inline]
    pub(crate) fn end(&self, key: Key, kind: Kind, how: TaskEnd) {
        if kind != Kind::Task {
            self.blocking.fetch_sub(1, Ordering::SeqCst);
        }
        let aborting = self.shards.get(key.shard).end(key.idx);
        let drained = how == TaskEnd::Completed && !aborting;
        let wake =
            crate::owner::with_id(|id| self.tally.ended(&self.shards.get(id).counts, drained));
        if wake {
            self.drain_notify.notify_waiters();
        }
    }

    /// Records a panic of the task in slot `key`.
    pub(crate) fn record_panic(&self, key: Key, message: String) {
        let task = self.shards.get(key.shard).with_task(key.idx, TaskInfo::of);
        if let Some(task) = task {
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

    /// Tasks that ended normally (not aborted), ever.
    pub(crate) fn ended_ok(&self) -> u64 {
        self.tally
            .ended_ok(self.shards.iter().map(|(_, s)| &s.counts))
    }

    /// Marks the start (`true`) or end (`false`) of a drain; returns spawns seen during it.
    pub(crate) fn set_draining(&self, on: bool) -> usize {
        if on {
            self.spawned_during_drain.store(0, Ordering::Relaxed);
            self.tally.start_drain();
            0
        } else {
            self.tally.stop_drain();
            self.spawned_during_drain.load(Ordering::Relaxed) as usize
        }
    }

    /// Makes every ending task wake the drain (used while aborts land).
    pub(crate) fn notify_each(&self) {
        self.tally.wake_on_each_end();
    }

    /// Waits until every tracked task has ended (call between `set_draining(true)` and
    /// `set_draining(false)`).
    pub(crate) async fn wait_idle(&self) {
        loop {
            let notified = self.drain_notify.notified();
            let mut notified = std::pin::pin!(notified);
            // Register before checking, so a wake-up between the check and the await is kept.
            notified.as_mut().enable();
            let mark = self.tally.drain_mark();
            let live = self.live();
            if live == 0 {
                return;
            }
            // The end that brings the count of ends past `mark + live` wakes us.
            self.tally.wait_for(mark, live);
            notified.await;
        }
    }

    /// Waits until `done()` holds; re-checked after every wake-up of the drain `Notify`
    /// (call after [`notify_each`](Registry::notify_each)).
    pub(crate) async fn wait_until(&self, mut done: impl FnMut(&Registry) -> bool) {
        loop {
            let notified = self.drain_notify.notified();
            let mut notified = std::pin::pin!(notified);
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
        // Mark every shard before aborting any task: an abort that lands while the other
        // shards are still being walked can make a dependent task (a body pump whose connection
        // was aborted) end on its own; marked first, it is still listed as aborted.
        let mut out = Vec::new();
        let mut marked: Vec<(&Shard<AbortHandle>, Vec<Marked>)> = Vec::new();
        for (id, s) in self.shards.iter() {
            let mut slots = Vec::new();
            marked.push((s, s.mark_aborting(TaskInfo::of, &mut slots)));
            out.extend(slots.into_iter().map(|slot| Aborted { shard: id, slot }));
        }
        for (s, marked) in &marked {
            s.abort_marked(marked);
        }
        out
    }

    /// Number of aborted tasks whose abort has not landed yet.
    pub(crate) fn pending_aborts(&self, aborted: &[Aborted]) -> usize {
        aborted
            .iter()
            .filter(|a| self.shards.get(a.shard).still_there(&a.slot))
            .count()
    }

    /// Blocking jobs and threads still running.
    pub(crate) fn running_blocking(&self) -> Vec<TaskInfo> {
        let mut out = Vec::new();
        if self.blocking.load(Ordering::SeqCst) == 0 {
            return out;
        }
        for (_, s) in self.shards.iter() {
            s.for_each(|t| {
                if t.site.kind != Kind::Task {
                    out.push(TaskInfo::of(t));
                }
            });
        }
        out
    }
}

#[cfg(all(test, not(shutdown_loom)))]
mod tests {
    use super::*;

    #[test]
    fn shards_of_a_later_chunk_are_found_without_the_earlier_ones() {
        let shards = Shards::new();
        let a: *const Shard<AbortHandle> = shards.get(20);
        let b: *const Shard<AbortHandle> = shards.get(100);
        let ids: Vec<u32> = shards.iter().map(|(id, _)| id).collect();
        // chunk 1 (ids 16..48) and chunk 2 (48..112) exist, chunk 0 does not
        assert_eq!(ids, (16..112).collect::<Vec<u32>>());
        let found: Vec<*const Shard<AbortHandle>> = shards
            .iter()
            .filter(|(id, _)| *id == 20 || *id == 100)
            .map(|(_, s)| s as *const _)
            .collect();
        assert_eq!(found, vec![a, b]);
        assert!(std::ptr::eq(shards.get(20), a));
    }
}
