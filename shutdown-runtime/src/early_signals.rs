//! Holding SIGTERM and SIGINT back while a program starts, so that a signal arriving before
//! the handlers exist is handled instead of killing the process.
//!
//! `shutdown_runtime::run` installs its handlers first thing, but a program that builds its own
//! tokio runtime (the examples do: their grace period comes from the command line) runs for a
//! few milliseconds before `run` is reached: parsing arguments, starting the runtime's threads.
//! A SIGTERM in that window would meet the default disposition and kill the process. Blocking
//! both signals as the first statement of `main` keeps such a signal *pending*; releasing the
//! block once `run` has installed its handlers delivers it to them. Threads inherit the mask of
//! the thread that creates them, so the runtime's threads keep the signals blocked and the
//! kernel delivers them to the releasing thread; the runtime's handlers work from any thread.
//!
//! What remains unprotected is `exec` itself and the dynamic loader, before `main` runs: there
//! the kernel's default disposition applies to every process.

use std::fmt;
use std::io;
use std::marker::PhantomData;

/// SIGTERM and SIGINT blocked in the calling thread (and the threads it spawns meanwhile)
/// until [`EarlySignals::release`] or until it is dropped.
///
/// A signal mask belongs to a thread, so this guard is `!Send`: it can only be released on the
/// thread that blocked the signals (a release elsewhere would leave this thread's mask blocked).
/// Dropping it releases too, so an early return or a panic during start-up does not leave the
/// signals blocked for good.
///
/// ```compile_fail
/// let early = shutdown_runtime::EarlySignals::block().unwrap();
/// std::thread::spawn(move || early.release()); // error: `EarlySignals` is not `Send`
/// ```
///
/// # Examples
///
/// ```
/// use shutdown_runtime::EarlySignals;
///
/// let early = EarlySignals::block().expect("sigprocmask");
/// // ... build the runtime, enter `shutdown_runtime::run`, which installs the handlers ...
/// early.release();
/// ```
#[must_use = "the signals stay blocked until `release` is called"]
pub struct EarlySignals {
    previous: libc::sigset_t,
    /// `!Send` and `!Sync`: the mask is the calling thread's.
    _thread_bound: PhantomData<*const ()>,
}

impl fmt::Debug for EarlySignals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EarlySignals").finish_non_exhaustive()
    }
}

impl EarlySignals {
    /// Blocks SIGTERM and SIGINT in the calling thread; call it first thing in `main`, before
    /// any thread is spawned.
    ///
    /// # Errors
    ///
    /// If `pthread_sigmask` fails (it does not, for these arguments, on Linux).
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_runtime::EarlySignals;
    ///
    /// EarlySignals::block().unwrap().release();
    /// ```
    pub fn block() -> io::Result<EarlySignals> {
        // SAFETY: `sigemptyset`, `sigaddset` and `pthread_sigmask` only write to the two
        // properly sized, zero-initialised `sigset_t` values passed to them.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            let mut previous: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGTERM);
            libc::sigaddset(&mut set, libc::SIGINT);
            match libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut previous) {
                0 => Ok(EarlySignals {
                    previous,
                    _thread_bound: PhantomData,
                }),
                errno => Err(io::Error::from_raw_os_error(errno)),
            }
        }
    }

    /// Restores the calling thread's previous mask; a signal that arrived meanwhile is
    /// delivered now, to whatever handler is installed. Call it once the handlers are in
    /// place (in the body passed to `shutdown_runtime::run`).
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_runtime::EarlySignals;
    ///
    /// let early = EarlySignals::block().unwrap();
    /// early.release();
    /// ```
    pub fn release(self) {
        drop(self); // `Drop` restores the mask
    }
}

impl Drop for EarlySignals {
    /// Restores the previous mask of the thread that blocked the signals (the guard is `!Send`,
    /// so this is that thread).
    fn drop(&mut self) {
        // SAFETY: `previous` was filled by `pthread_sigmask` in `block`; restoring it only
        // changes this thread's mask.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.previous, std::ptr::null_mut());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `signo` is blocked in the calling thread.
    fn blocked(signo: libc::c_int) -> bool {
        // SAFETY: queries this thread's mask into a zero-initialised, properly sized set.
        unsafe {
            let mut current: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut current);
            libc::sigismember(&current, signo) == 1
        }
    }

    #[test]
    fn release_and_drop_both_restore_the_mask() {
        // A fresh thread: masks are per thread, so this cannot disturb other tests.
        std::thread::spawn(|| {
            assert!(!blocked(libc::SIGTERM));
            let early = EarlySignals::block().unwrap();
            assert!(blocked(libc::SIGTERM) && blocked(libc::SIGINT));
            early.release();
            assert!(!blocked(libc::SIGTERM) && !blocked(libc::SIGINT));

            let r = std::panic::catch_unwind(|| {
                let _early = EarlySignals::block().unwrap();
                assert!(blocked(libc::SIGTERM));
                panic!("start-up failed");
            });
            assert!(r.is_err());
            assert!(
                !blocked(libc::SIGTERM),
                "dropped during unwinding: released"
            );
        })
        .join()
        .unwrap();
    }
}
