//! The scoped worker pool that per-file work runs on (the engine's analysis, `--fix`'s
//! planning): `threads` workers (default: all cores) take the next item from a shared index,
//! each on a large stack ([`PARSE_STACK_BYTES`]) for deep but bounded syntax trees — a
//! smaller one if the address space is limited, and the calling thread itself when no thread
//! can be started at all.

use crate::source::PARSE_STACK_BYTES;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::{Scope, ScopedJoinHandle};

/// Starts `work` on a thread of `scope` with a large stack ([`PARSE_STACK_BYTES`], or a
/// sixteenth of it if the address space is limited); `None` when no thread starts (the
/// caller then does the work itself).
pub(crate) fn spawn_on_large_stack<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    work: F,
) -> Option<ScopedJoinHandle<'scope, T>>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + Copy + 'scope,
{
    [PARSE_STACK_BYTES, PARSE_STACK_BYTES / 16]
        .into_iter()
        .find_map(|size| {
            std::thread::Builder::new()
                .stack_size(size)
                .spawn_scoped(scope, work)
                .ok()
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

/// [`map_on_large_stacks`], the largest items first (by `size`, e.g. a file's length), the
/// results still in item order: the longest work starts first, so one large file is not the
/// last one left running alone on a single core (corrosion's 247 KB `corro-pg/src/lib.rs`,
/// read again for the workspace model after ten smaller files, ran alone for 6 ms).
pub(crate) fn map_largest_first<T, R, F>(
    items: &[T],
    size: impl Fn(&T) -> u64,
    threads: Option<usize>,
    work: F,
) -> Vec<Option<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let sizes: Vec<u64> = items.iter().map(size).collect();
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    map_in_order(items, Some(&order), threads, work)
}

/// [`map_on_large_stacks`], the items taken in `order` (indices into `items`; `None`:
/// item order), the results still in item order: the one pool both entry points share.
fn map_in_order<T, R, F>(
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
    if items.is_empty() {
        return Vec::new(); // no thread to start
    }
    let threads = threads.unwrap_or(cores).clamp(1, items.len());
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
    std::thread::scope(|s| {
        let mut started = 0;
        for _ in 0..threads {
            if spawn_on_large_stack(s, run).is_none() {
                break;
            }
            started += 1;
        }
        if started == 0 {
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
        // a thread that only drops what it is given holds no work: `detached-thread` knows
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
    fn largest_first_takes_the_largest_item_first_and_answers_in_item_order() {
        let items: Vec<u64> = vec![3, 9, 1, 7];
        let taken = Mutex::new(Vec::new());
        let got = map_largest_first(
            &items,
            |&x| x,
            Some(1),
            |&x| {
                taken.lock().unwrap().push(x);
                x * 2
            },
        );
        assert_eq!(got, [Some(6), Some(18), Some(2), Some(14)]);
        assert_eq!(taken.into_inner().unwrap(), [9, 7, 3, 1]);
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
