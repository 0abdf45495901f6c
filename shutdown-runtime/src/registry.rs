//! The registry of tracked tasks: per-thread shards of slots (what is needed to abort and to
//! report each task) and per-thread counters (what the drain waits on).
//!
//! # Design
//!
//! * **Shards follow threads.** Each thread gets a shard index once (thread-local), so a
//!   thread's spawns allocate from its own shard: the page lock and the slot lines stay in
//!   that core's cache. A task's end takes no lock: it touches its slot's word, its shard's
//!   ended stack (see `slots.rs`) and the ending thread's counters.
//! * **Counters instead of a shared live count**, and a drain woken only when the count may
//!   have reached zero: see `tally.rs`.
//! * **Spawn never holds a lock across `tokio::spawn`**: reserve the slot, spawn, arm it
//!   (see `slots.rs`); a task that ends before it is armed leaves the slot to its spawner.
//! * A slot names its task with one word: the interned spawn site (`sites.rs`).
//! * The task's wrapper holds the scope: `&'static` for the global scope, an `Arc` otherwise
//!   (see `inner.rs`), so there is no unsafe lifetime reasoning.

use std::borrow::Cow;
use std::cell::Cell;
use std::panic::Location;

use tokio::sync::Notify;
use tokio::task::AbortHandle;

use crate::clock;
use crate::names::default_name;
use crate::report::{PanicInfo, TaskInfo};
use crate::slots::{AbortedSlot, Shard, TaskView};
use crate::sync::{AtomicU64, Mutex, Ordering, lock};
use crate::tally::Tally;

pub(crate) use crate::slots::{Kind, TaskEnd};

/// Number of shards (a power of two); threads beyond it share shards.
pub(crate) const SHARDS: usize = 32;

/// Identifies a slot: shard and index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    shard: u16,
    /// The occupation's tag (see `slots.rs`).
    tag: bool,
    idx: u32,
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
    shards: Box<[Shard<AbortHandle>]>,
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

std::thread_local! {
    /// This thread's shard (`u32::MAX`: not assigned yet).
    static SHARD: Cell<u32> = const { Cell::new(u32::MAX) };
}

fn my_shard() -> usize {
    SHARD.with(|c| {
        let mut n = c.get();
        if n == u32::MAX {
            static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) & (SHARDS as u32 - 1);
            c.set(n);
        }
        n as usize
    })
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
            shards: (0..SHARDS).map(|_| Shard::new()).collect(),
            tally: Tally::new(SHARDS),
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
        self.tally.live()
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
        let shard = my_shard();
        // Counted before the task can run, so the drain never sees its end before its spawn.
        if self.tally.spawned(shard) {
            self.spawned_during_drain.fetch_add(1, Ordering::Relaxed);
        }
        if kind != Kind::Task {
            self.blocking.fetch_add(1, Ordering::SeqCst);
        }
        // A `&'static str` name is interned with the site (no memory per task); a name built
        // at run time is kept beside the slot while the task lives.
        let (static_name, name) = match name {
            Some(Cow::Borrowed(name)) => (Some(name), None),
            name => (None, name),
        };
        let site = crate::sites::site(kind, location, type_name, static_name);
        let (value, _idx) = self.shards[shard].occupy(
            site,
            name,
            clock::now_ms() as u32,
            |idx, tag| {
                spawn(Key {
                    shard: shard as u16,
                    tag,
                    idx,
                })
            },
            abort,
        );
        value
    }

    /// Called by a task's guard when it ends (any thread): frees the slot, counts the end,
    /// wakes a waiting drain if the count may have reached zero.
    #[inline]
    pub(crate) fn end(&self, key: Key, kind: Kind, how: TaskEnd) {
        if kind != Kind::Task {
            self.blocking.fetch_sub(1, Ordering::SeqCst);
        }
        let aborting = self.shards[key.shard as usize].end(key.idx, key.tag);
        let drained = how == TaskEnd::Completed && !aborting;
        if self.tally.ended(my_shard(), drained) {
            self.drain_notify.notify_waiters();
        }
    }

    /// Records a panic of the task in slot `key`.
    pub(crate) fn record_panic(&self, key: Key, message: String) {
        let task = self.shards[key.shard as usize].with_task(key.idx, TaskInfo::of);
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
        self.tally.ended_ok()
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
        let mut marked = Vec::with_capacity(self.shards.len());
        for (i, s) in self.shards.iter().enumerate() {
            let mut slots = Vec::new();
            marked.push(s.mark_aborting(TaskInfo::of, &mut slots));
            out.extend(slots.into_iter().map(|slot| Aborted {
                shard: i as u32,
                slot,
            }));
        }
        for (s, marked) in self.shards.iter().zip(&marked) {
            s.abort_marked(marked);
        }
        out
    }

    /// Number of aborted tasks whose abort has not landed yet.
    pub(crate) fn pending_aborts(&self, aborted: &[Aborted]) -> usize {
        aborted
            .iter()
            .filter(|a| self.shards[a.shard as usize].still_there(&a.slot))
            .count()
    }

    /// Blocking jobs and threads still running.
    pub(crate) fn running_blocking(&self) -> Vec<TaskInfo> {
        let mut out = Vec::new();
        if self.blocking.load(Ordering::SeqCst) == 0 {
            return out;
        }
        for s in self.shards.iter() {
            s.for_each(|t| {
                if t.site.kind != Kind::Task {
                    out.push(TaskInfo::of(t));
                }
            });
        }
        out
    }
}
