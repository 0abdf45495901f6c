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

/// SIGTERM and SIGINT blocked in the calling thread (and the threads it spawns meanwhile)
/// until [`EarlySignals::release`].
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
                0 => Ok(EarlySignals { previous }),
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
        // SAFETY: `previous` was filled by `pthread_sigmask` in `block`.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.previous, std::ptr::null_mut());
        }
    }
}
