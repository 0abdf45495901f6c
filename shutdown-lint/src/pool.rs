//! The scoped worker pool that per-file work runs on (the engine's analysis, `--fix`'s
//! planning): `threads` workers (default: all cores) take the next item from a shared index,
//! each on a large stack ([`PARSE_STACK_BYTES`]) for deep but bounded syntax trees — a
//! smaller one if the address space is limited, and the calling thread itself when no thread
//! can be started at all.
//!
//! A thread started here ([`spawn_on_large_stack`]) is one of the workers of any pool it
//! asks for, so that pool starts one thread fewer: a run goes through a dozen pools, and
//! on a small service the threads started and ended were a tenth of it. The engine runs
//! a whole lint on such a thread ([`on_large_stack`]).

use crate::source::PARSE_STACK_BYTES;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{Scope, ScopedJoinHandle};

thread_local! {
    /// This thread was started by [`spawn_on_large_stack`]: it may parse.
    static LARGE_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Starts `work` on a thread of `scope` with a large stack ([`PARSE_STACK_BYTES`], or a
/// sixteenth of it if the address space is limited); gives `work` back when no thread
/// starts.
pub(crate) fn spawn_on_large_stack<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    work: F,
) -> Result<ScopedJoinHandle<'scope, T>, F>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + 'scope,
{
    // shared with each attempt: a spawn that fails drops its copy, not `work`
    let slot = Arc::new(Mutex::new(Some(work)));
    for size in [PARSE_STACK_BYTES, PARSE_STACK_BYTES / 16] {
        let mine = Arc::clone(&slot);
        let spawned = std::thread::Builder::new()
            .stack_size(size)
            .spawn_scoped(scope, move || {
                LARGE_STACK.set(true);
                let work = mine.lock().unwrap_or_else(PoisonError::into_inner).take();
                match work {
                    Some(work) => work(),
                    // only a thread that started runs this, and only one starts
                    None => unreachable!("the work was taken by another thread"),
                }
            });
        if let Ok(handle) = spawned {
            return Ok(handle);
        }
    }
    let work = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
    Err(work.unwrap_or_else(|| unreachable!("no thread started, so none took the work")))
}

/// Runs `work` on a thread with a large stack: this one when it is such a thread, else one
/// started for it (this one when none can be started). A panic of `work` is raised again
/// here.
pub(crate) fn on_large_stack<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if LARGE_STACK.get() {
        return work();
    }
    std::thread::scope(|s| match spawn_on_large_stack(s, work) {
        Ok(thread) => thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(work) => work(),
    })
}

/// `work` applied to every item, in item order. `work` should catch its own panics: one that
/// escapes ends its worker, leaves the items it would have done `None` unless another worker
/// takes them, and is raised again when the pool ends (as [`std::thread::scope`] does).
pub(crate) fn map_on_large_stacks<T, R, F>(
    items: &[T],
    threads: Option<usize>,
    work: F,
) -> Vec<Option<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    map_in_order(items, None, threads, work)
}

/// [`map_on_large_stacks`], the items taken in `order` (indices into `items`; `None`:
/// item order), the results still in item order. Taking the longest work first keeps
/// one large file from being the last one left on a single core.
pub(crate) fn map_in_order<T, R, F>(
    items: &[T],
    order: Option<&[usize]>,
    threads: Option<usize>,
    work: F,
) -> Vec<Option<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    // `available_parallelism` reads the cgroup files on every call: once per process
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let threads = threads.unwrap_or(cores).clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let run = || {
        loop {
            // Relaxed: the counter only hands out distinct indices; results are published
            // through the mutex and the scope's join
            let k = next.fetch_add(1, Ordering::Relaxed);
            let i = match order {
                Some(order) => match order.get(k) {
                    Some(&i) => i,
                    None => break,
                },
                None => k,
            };
            let Some(item) = items.get(i) else { break };
            let out = work(item);
            results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(out);
        }
    };
    // a thread with a large stack takes items too, beside one thread fewer
    let caller_works = LARGE_STACK.get();
    std::thread::scope(|s| {
        let mut started = 0;
        for _ in 0..threads - usize::from(caller_works) {
            if spawn_on_large_stack(s, run).is_err() {
                break;
            }
            started += 1;
        }
        if caller_works || started == 0 {
            run();
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Drops `value` on a thread of its own, so the caller goes on at once: for a large
/// structure of many small allocations the caller has no more use for. Without a thread
/// (none can be started) it is dropped here.
///
/// The thread is not joined: a process that exits first frees the memory anyway.
pub(crate) fn drop_detached<T: Send + 'static>(value: T) {
    // on an error the closure, and `value` with it, is dropped on this thread
    let _ = std::thread::Builder::new()
        .name("shutdown-lint-drop".into())
        // shutdown-lint: allow(detached-thread) -- it only frees memory: no work is lost when the process exits first
        .spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_dropped_detached_is_dropped_on_another_thread() {
        struct Tell(std::sync::mpsc::Sender<std::thread::ThreadId>);
        impl Drop for Tell {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().id());
            }
        }
        let (tx, rx) = std::sync::mpsc::channel();
        drop_detached(Tell(tx));
        let dropper = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("dropped");
        assert_ne!(dropper, std::thread::current().id());
    }

    #[test]
    fn results_in_item_order_on_any_number_of_threads() {
        let items: Vec<u64> = (0..100).collect();
        for threads in [None, Some(1), Some(3), Some(1000)] {
            let got = map_on_large_stacks(&items, threads, |x| x * 2);
            let want: Vec<Option<u64>> = items.iter().map(|x| Some(x * 2)).collect();
            assert_eq!(got, want);
        }
        assert!(map_on_large_stacks(&[] as &[u8], None, |_| ()).is_empty());
    }

    #[test]
    fn a_thread_with_a_large_stack_works_in_its_own_pools() {
        let items: Vec<u8> = (0..20).collect();
        // a plain thread (the test's) waits for the one worker it starts
        let here = std::thread::current().id();
        let ids = map_on_large_stacks(&items, Some(1), |_| std::thread::current().id());
        assert!(ids.iter().all(|id| *id != Some(here)));
        // a thread started by the pool is that worker itself: no thread is started
        let (runner, ids) = on_large_stack(|| {
            let ids = map_on_large_stacks(&items, Some(1), |_| std::thread::current().id());
            (std::thread::current().id(), ids)
        });
        assert_ne!(runner, here);
        assert!(ids.iter().all(|id| *id == Some(runner)));
        // and with more threads it takes its share beside them, results in item order
        let doubled = on_large_stack(|| map_on_large_stacks(&items, Some(3), |x| x * 2));
        assert_eq!(
            doubled,
            items.iter().map(|x| Some(x * 2)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_panic_on_the_large_stack_is_raised_to_the_caller() {
        let caught = std::panic::catch_unwind(|| on_large_stack(|| panic!("boom")));
        let payload = caught.expect_err("raised again");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"boom"));
    }

    #[test]
    fn items_taken_in_the_given_order_give_results_in_item_order() {
        let items: Vec<u64> = (0..50).collect();
        let order: Vec<usize> = (0..50).rev().collect();
        let taken = Mutex::new(Vec::new());
        let got = map_in_order(&items, Some(&order), Some(1), |x| {
            taken.lock().unwrap().push(*x);
            x + 1
        });
        assert_eq!(got, items.iter().map(|x| Some(x + 1)).collect::<Vec<_>>());
        assert_eq!(
            taken.into_inner().unwrap(),
            (0..50).rev().collect::<Vec<u64>>()
        );
    }
}
