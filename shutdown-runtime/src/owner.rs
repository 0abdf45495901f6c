//! Owner ids: every thread that spawns tracked tasks gets a small number of its own, unique
//! among the threads alive, and owns the registry shard with that index in every registry
//! (see `slots.rs`: only a shard's owner hands out its slots, with no lock).
//!
//! An id is returned to a process-wide pool when its thread exits (its thread-local is
//! destroyed) and handed to the next thread that needs one, so ids — and so shards per
//! registry — stay bounded by the number of threads alive at once. The new owner of an id
//! continues its shards where the old one left them (the pool's lock orders the two).
//! Code that runs after the thread's id is gone (another thread-local's destructor that
//! spawns) borrows an id from the pool for the call.

use std::sync::Mutex;

/// The pool: ids never handed out start at `next`; returned ones are reused first.
struct Pool {
    next: u32,
    free: Vec<u32>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    next: 0,
    free: Vec::new(),
});

/// An id held by a thread (or borrowed for one call); returned to the pool when dropped.
struct Id(u32);

impl Pool {
    fn take(pool: &Mutex<Pool>) -> u32 {
        let mut pool = pool.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(id) = pool.free.pop() {
            return id;
        }
        let id = pool.next;
        pool.next = id.checked_add(1).expect("fewer than 2^32 threads alive");
        id
    }

    fn give_back(pool: &Mutex<Pool>, id: u32) {
        pool.lock().unwrap_or_else(|e| e.into_inner()).free.push(id);
    }
}

impl Id {
    fn acquire() -> Id {
        Id(Pool::take(&POOL))
    }
}

impl Drop for Id {
    fn drop(&mut self) {
        Pool::give_back(&POOL, self.0);
    }
}

std::thread_local! {
    static MINE: Id = Id::acquire();
}

/// Runs `f` with the calling thread's owner id (borrowed for the call once the thread's
/// thread-locals are being destroyed). Re-entrant: a nested call gets the same id.
#[inline]
pub(crate) fn with_id<R>(f: impl FnOnce(u32) -> R) -> R {
    match MINE.try_with(|id| id.0) {
        Ok(id) => f(id),
        Err(_) => {
            let id = Id::acquire();
            f(id.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_among_live_threads_and_reused_after_exit() {
        let here = with_id(|id| id);
        assert_eq!(with_id(|id| with_id(|inner| (id, inner))), (here, here));
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            tx.send(with_id(|id| id)).unwrap();
            done_rx.recv().unwrap();
        });
        let other = rx.recv().unwrap();
        assert_ne!(other, here, "two live threads never share an id");
        done_tx.send(()).unwrap();
        t.join().unwrap();
    }

    #[test]
    fn a_returned_id_is_handed_out_again_before_a_new_one() {
        let pool = Mutex::new(Pool {
            next: 0,
            free: Vec::new(),
        });
        let (a, b) = (Pool::take(&pool), Pool::take(&pool));
        assert_eq!((a, b), (0, 1));
        Pool::give_back(&pool, a);
        assert_eq!(Pool::take(&pool), a);
        assert_eq!(Pool::take(&pool), 2);
    }
}
