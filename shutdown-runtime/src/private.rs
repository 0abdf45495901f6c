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

pub use crate::stops::LoopSite;
pub use crate::unit;

/// The checkpoint of a loop that claims units of work: `true` when the loop must stop.
///
/// Fast path: `!scope.is_requested()` → `false`, one atomic load (`site` is not touched).
/// Slow path (only after a request): inside a claimed unit (see [`unit`]) → `false`, the
/// enclosing unit runs to its end; otherwise the stop of the loop at `site` is recorded for the
/// drain report → `true`.
#[inline(always)]
pub fn checkpoint(scope: &Shutdown, site: &'static LoopSite) -> bool {
    if !scope.is_requested() {
        return false;
    }
    stop(scope, site)
}

/// [`checkpoint`] on the global scope: the fast path reads the global flag directly.
#[inline(always)]
pub fn checkpoint_global(site: &'static LoopSite) -> bool {
    if !crate::shutdown_requested() {
        return false;
    }
    stop(Shutdown::global(), site)
}

#[cold]
#[inline(never)]
fn stop(scope: &Shutdown, site: &'static LoopSite) -> bool {
    if unit::in_unit() {
        return false;
    }
    crate::stops::record(Arc::as_ptr(&scope.inner) as usize, site);
    true
}

/// Referenced by `#[drainable]` at a loop that claims units in a function returning a value,
/// when the loop says nothing about a stop: the deprecation note is the compile-time warning.
#[deprecated(
    note = "`#[drainable]`: this loop claims units and the function returns a value built after it: on shutdown the checkpoint ends the loop early and the function returns a shorter result. If that is intended, say so with `#[drainable(partial)]` on the loop (the stop is also listed in the drain report); to run the loop to its end, use `#[drainable(skip)]`"
)]
pub const LOOP_RESULT_MAY_BE_PARTIAL: u8 = 0;

/// Enters the claimed unit of a loop that claims units (`#[drainable]` takes it once before
/// the loop starts, so the loop's iterations cost nothing extra): the guard, and the depth it
/// set, which the loop's checkpoints compare against.
#[inline]
pub fn claim() -> (unit::UnitGuard, u32) {
    let guard = unit::enter();
    let depth = guard.depth();
    (guard, depth)
}

/// The checkpoint `#[drainable]` puts in a loop that claims units (and in a nested loop opted
/// in with `#[drainable(partial)]`): `claimed_at` is the depth set by [`claim`] before the
/// claiming loop started.
///
/// Fast path: `!scope.is_requested()` → `false`, one atomic load. Slow path (only after a
/// request): the loop stops — and its stop is recorded for the drain report — only when its
/// own unit is the only one (`claimed_at <= 1`); inside a unit claimed by a caller or a
/// request being served it runs to its end.
#[inline(always)]
pub fn checkpoint_at(scope: &Shutdown, site: &'static LoopSite, claimed_at: u32) -> bool {
    if !scope.is_requested() {
        return false;
    }
    stop_at(scope, site, claimed_at)
}

/// [`checkpoint_at`] on the global scope: the fast path reads the global flag directly.
#[inline(always)]
pub fn checkpoint_at_global(site: &'static LoopSite, claimed_at: u32) -> bool {
    if !crate::shutdown_requested() {
        return false;
    }
    stop_at(Shutdown::global(), site, claimed_at)
}

#[cold]
#[inline(never)]
fn stop_at(scope: &Shutdown, site: &'static LoopSite, claimed_at: u32) -> bool {
    if claimed_at > 1 {
        return false;
    }
    crate::stops::record(Arc::as_ptr(&scope.inner) as usize, site);
    true
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

/// Tracked `tokio::spawn` with the name `#[drainable]` derived from what it runs.
#[track_caller]
pub fn spawn_named<F>(
    scope: &Shutdown,
    name: &'static str,
    fut: F,
) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    scope.spawn_named(name, fut)
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
/// dropped when shutdown wins). Inside a unit claimed by a caller (`claimed_at > 1`, see
/// [`checkpoint_at`]) the wait is not cut: `Some(fut.await)`.
pub async fn idle<F: Future>(scope: &Shutdown, fut: F, claimed_at: u32) -> Option<F::Output> {
    if claimed_at > 1 {
        return Some(fut.await);
    }
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

/// The body of `#[shutdown_runtime::main]` with the defaults: `main_entry_with` on
/// `RunConfig::new(Budgets::from_grace(grace))`.
pub fn main_entry<T: MainResult>(
    grace: Duration,
    builder: tokio::runtime::Builder,
    body: impl Future<Output = T> + Send + 'static,
) -> ! {
    main_entry_with(
        crate::RunConfig::new(crate::Budgets::from_grace(grace)),
        builder,
        body,
    )
}

/// The body of `#[shutdown_runtime::main]`: blocks SIGTERM/SIGINT while the runtime is built
/// (a signal during start-up stays pending instead of killing the process), builds the
/// runtime from `builder` (with `enable_all`), installs the signal handlers with the config's
/// second-signal policy before `body` is first polled, unblocks (delivering a pending signal to
/// the handler, which requests shutdown), runs the life cycle with `cfg` (which prints the
/// report in its format) and exits with its code.
pub fn main_entry_with<T: MainResult>(
    cfg: crate::RunConfig,
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
        let installed = crate::signals::install(cfg.second_signal_policy());
        release(early);
        if let Err(e) = installed {
            tracing::error!(target: "shutdown_runtime", error = %e, "could not install signal handlers");
        }
        cfg.install_signals(false).run(body).await.exit_code()
    });
    rt.shutdown_timeout(crate::drain::ABORT_LANDING);
    std::process::exit(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    static SITE: LoopSite = LoopSite {
        file: "jobs.rs",
        line: 7,
        column: 5,
    };

    #[tokio::test]
    async fn the_checkpoint_stops_outside_units_only_and_the_drain_reports_it() {
        let s = Shutdown::new();
        assert!(!checkpoint(&s, &SITE));
        s.request();
        {
            let _unit = unit::enter();
            assert!(!checkpoint(&s, &SITE), "a claimed unit is never cut");
            assert!(!checkpoint_at(&s, &SITE, 2), "a caller's unit");
            assert!(checkpoint_at(&s, &SITE, 1), "its own unit only");
        }
        assert!(checkpoint(&s, &SITE));
        let report = s.drain(Duration::from_secs(1)).await;
        assert_eq!(report.loops_stopped_early.len(), 1);
        assert_eq!(report.loops_stopped_early[0].count, 2);
        assert_eq!(report.loops_stopped_early[0].site.to_string(), "jobs.rs:7");
        assert!(
            report
                .to_json_line()
                .contains(r#""loops_stopped_early":[{"location":"jobs.rs:7","count":2}]"#)
        );
        assert!(
            s.drain(Duration::from_secs(1))
                .await
                .loops_stopped_early
                .is_empty()
        );
    }

    #[tokio::test]
    async fn a_tracked_task_starts_outside_the_spawners_unit() {
        let s = Shutdown::new();
        let _unit = unit::enter();
        let inside = s.spawn(async { unit::in_unit() }).await.unwrap();
        assert!(!inside);
        assert!(unit::in_unit());
    }

    #[tokio::test]
    async fn a_task_spawned_while_serving_a_request_belongs_to_it() {
        let s = Shutdown::new();
        let s2 = s.clone();
        let (inside, grandchild) = unit::claimed(async move {
            let _loop_unit = unit::enter();
            let s3 = s2.clone();
            s2.spawn(async move {
                let grandchild = s3.spawn(async { unit::depth() }).await.unwrap();
                (unit::depth(), grandchild)
            })
            .await
            .unwrap()
        })
        .await;
        assert_eq!((inside, grandchild), (1, 1));
        let blocking = unit::claimed(async { s.spawn_blocking(unit::depth).await.unwrap() }).await;
        assert_eq!(blocking, 1);
        assert_eq!(s.spawn_blocking(unit::depth).await.unwrap(), 0);
    }
}
