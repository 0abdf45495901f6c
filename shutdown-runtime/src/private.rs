//! Support for `shutdown-macros` expansions. Not a public API: names and signatures may change
//! in any release.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

pub use tokio;

pub use crate::run::MainResult;
use crate::scope::Shutdown;

/// The global scope.
pub fn global() -> &'static Shutdown {
    Shutdown::global()
}

/// The checkpoint inserted in loops: `scope.is_requested()`.
#[inline(always)]
pub fn checkpoint(scope: &Shutdown) -> bool {
    scope.is_requested()
}

/// Anything that can name a scope in `#[drainable(scope = expr)]`.
pub trait AsScope {
    /// The scope.
    fn as_scope(&self) -> &Shutdown;
}

impl AsScope for Shutdown {
    #[inline(always)]
    fn as_scope(&self) -> &Shutdown {
        self
    }
}

impl<T: AsScope + ?Sized> AsScope for &T {
    #[inline(always)]
    fn as_scope(&self) -> &Shutdown {
        (**self).as_scope()
    }
}

impl<T: AsScope + ?Sized> AsScope for &mut T {
    #[inline(always)]
    fn as_scope(&self) -> &Shutdown {
        (**self).as_scope()
    }
}

impl AsScope for Arc<Shutdown> {
    #[inline(always)]
    fn as_scope(&self) -> &Shutdown {
        self
    }
}

/// Tracked `tokio::spawn`.
#[track_caller]
pub fn spawn<F>(scope: &Shutdown, fut: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    scope.spawn(fut)
}

/// Tracked `tokio::task::spawn_blocking`.
#[track_caller]
pub fn spawn_blocking<F, R>(scope: &Shutdown, f: F) -> tokio::task::JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    scope.spawn_blocking(f)
}

/// Tracked `tokio::task::spawn_local`.
#[track_caller]
pub fn spawn_local<F>(scope: &Shutdown, fut: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    scope.spawn_local(fut)
}

/// Tracked `std::thread::spawn`.
#[track_caller]
pub fn spawn_thread<F, T>(scope: &Shutdown, f: F) -> std::thread::JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    scope.spawn_thread(f)
}

/// Awaits `fut` unless shutdown wins: `None` if shutdown was (or becomes) requested first.
/// Biased: shutdown is checked first. Only for waits the user declared cancel-safe (`fut` is
/// dropped when shutdown wins).
pub async fn idle<F: Future>(scope: &Shutdown, fut: F) -> Option<F::Output> {
    if scope.is_requested() {
        return None;
    }
    let wait = scope.wait();
    tokio::select! {
        biased;
        () = wait => None,
        v = fut => Some(v),
    }
}

/// The body of `#[shutdown_runtime::main]`: blocks SIGTERM/SIGINT while the runtime is built
/// (a signal during start-up stays pending instead of killing the process), builds the
/// runtime from `builder` (with `enable_all`), installs the signal handlers before `body` is
/// first polled, unblocks (delivering a pending signal to the handler, which requests
/// shutdown), runs the life cycle with `Budgets::from_grace(grace)` and exits with its code.
pub fn main_entry<T: MainResult>(
    grace: Duration,
    mut builder: tokio::runtime::Builder,
    body: impl Future<Output = T> + Send + 'static,
) -> ! {
    let early = crate::EarlySignals::block()
        .inspect_err(|e| eprintln!("warning: cannot block signals during start-up: {e}"))
        .ok();
    let release = |early: Option<crate::EarlySignals>| {
        if let Some(early) = early {
            early.release();
        }
    };
    let rt = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            release(early);
            eprintln!("Error: cannot build the tokio runtime: {e}");
            std::process::exit(crate::exit::EXIT_FAILURE);
        }
    };
    let code = rt.block_on(async move {
        let installed = crate::signals::install(crate::signals::SecondSignal::default());
        release(early);
        if let Err(e) = installed {
            tracing::error!(target: "shutdown_runtime", error = %e, "could not install signal handlers");
        }
        let cfg = crate::RunConfig::new(crate::Budgets::from_grace(grace)).install_signals(false);
        cfg.run(body).await.exit_code()
    });
    rt.shutdown_timeout(crate::drain::ABORT_LANDING);
    std::process::exit(code)
}
