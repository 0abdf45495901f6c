//! Tasks spawned with a future that holds no work: `std::future::pending()`,
//! `futures::future::ready(Err(..))`; threads that only join another thread or wait for a
//! child process ([`is_joiner`]), only end the process after a delay
//! ([`is_exit_timer`]), only look for deadlocks and log them
//! ([`is_deadlock_detector`]), only drop what they were given ([`is_dropper`]), or only
//! wait for a flag or a token and pass a cancel on ([`is_cancel_relay`]).
//!
//! A service spawns one as a stand-in `JoinHandle` for a part that is switched off, so the
//! code that selects over its tasks' handles stays the same (pathfinder's node: a
//! `pending()` task for each disabled component, a `ready(Err(..))` for one that failed to
//! start; sail's task monitor). Nothing in it is cut when it is dropped, and a tracked
//! `pending()` task would hold a drain for its whole budget and then be reported as a
//! straggler: it is no raw spawn to route through the registry.

/// Whether `fut`, the future a task is spawned with, holds no work: a call of `pending` or
/// `ready` from a `future` module (`std::future::pending::<T>()`, `future::ready(x)` — the
/// value is computed before the spawn). An `async {}` block is not read as empty: the
/// pruner may have blanked its statements ([`crate::prune`]).
///
/// # Examples
/// ```
/// use shutdown_lint::collect::idle_task::is_idle_future;
/// let idle = |s: &str| is_idle_future(&syn::parse_str(s).unwrap());
/// assert!(idle("std::future::pending::<anyhow::Result<()>>()"));
/// assert!(idle("futures::future::ready(Err(anyhow::anyhow!(\"disabled\")))"));
/// assert!(idle("future::pending()"));
/// assert!(!idle("pending()")); // a function of the crate's own, perhaps
/// assert!(!idle("poll_pending(rx)"));
/// assert!(!idle("async move { work().await }"));
/// ```
pub fn is_idle_future(fut: &syn::Expr) -> bool {
    match fut {
        syn::Expr::Paren(p) => is_idle_future(&p.expr),
        syn::Expr::Call(c) => {
            let syn::Expr::Path(p) = &*c.func else {
                return false;
            };
            let mut segs = p.path.segments.iter().rev();
            matches!(
                (segs.next(), segs.next()),
                (Some(f), Some(module))
                    if module.ident == "future" && (f.ident == "pending" || f.ident == "ready")
            )
        }
        _ => false,
    }
}

/// Whether the closure `body` a thread is started with only joins another thread, or waits
/// for a child process, and hands on its result: dora's event stream, `std::thread::spawn(move
/// || { let _ = tx.send(join_handle.join()); })`, so that a `Drop` can wait on the channel
/// with a deadline; rosenpass's `thread::spawn(move || { let status = child.wait(); .. })`
/// logging how its PSK broker exited. The thread or process it waits for is kept, and the
/// waiter holds no work of its own: nothing is cut when it ends with the process. Besides
/// `.join()` and `child.wait()` (a name with `child`), only sending, unwrapping and reading
/// the result (`send`, `ok`, `unwrap`, `expect`, `map_err`, `success`, `code`, ..), naming
/// the joined thread and its panic (`thread().name()`, `downcast_ref`), `drop`, log macros,
/// and a `while let .. = rx.recv()` loop over the handles to join (mountpoint-s3's FUSE
/// worker waiter, which joins each worker it is handed and then sends `WorkersExited`).
///
/// # Examples
/// ```
/// use shutdown_lint::collect::idle_task::is_joiner;
/// let joiner = |s: &str| is_joiner(&syn::parse_str(s).unwrap());
/// assert!(joiner("move || { let _ = tx.send(join_handle.join()); }"));
/// assert!(joiner("move || tx.send(worker.join()).ok()"));
/// assert!(joiner("move || { if let Ok(s) = child.wait() { let _ = tx.send(s.code()); } }"));
/// assert!(!joiner("move || { flush(); let _ = worker.join(); }"));
/// assert!(!joiner("move || { let _ = tx.send(compute()); }"));
/// assert!(!joiner("move || loop { let _ = h.join(); }"));
/// assert!(joiner("move || { while let Ok(thd) = workers_rx.recv() { \
///     let name = thd.thread().name().map(ToOwned::to_owned); \
///     if let Err(p) = thd.join() { error!(name, panic = p.downcast_ref::<&str>().map(|s| *s)); } } \
///     let _ = tx.send(Message::WorkersExited); }"));
/// assert!(!joiner("move || { while let Ok(job) = rx.recv() { let _ = job.run(); } }"));
/// assert!(!joiner("move || { barrier.wait(); work(); }"));
/// ```
pub fn is_joiner(body: &syn::Expr) -> bool {
    closure_does_only(
        body,
        JoinsOnly {
            joins: 0,
            other: false,
        },
    )
}

/// Whether the closure `body` a thread is started with only ends the process after a
/// delay: tun2proxy's forced-exit timer, `std::thread::spawn(move || { info!(..);
/// std::thread::sleep(FORCE_EXIT_TIMEOUT); std::process::exit(-1); })`, started once the
/// shutdown has begun so that a stuck runtime cannot keep the process alive. It holds no
/// work, and it is meant to be cut by the exit it guards. Only log macros (or a level's
/// method on a logger it was handed: `logger.error(..)`, supergateway's watchdog),
/// `thread::sleep(..)` and a call that ends the process (`process::exit(..)`,
/// `process::abort()`, `libc::_exit(..)`, a helper named `force_exit(..)`), at least one of
/// each.
///
/// # Examples
/// ```
/// use shutdown_lint::collect::idle_task::is_exit_timer;
/// let timer = |s: &str| is_exit_timer(&syn::parse_str(s).unwrap());
/// assert!(timer("move || { log::info!(\"exit\"); std::thread::sleep(d); std::process::exit(-1); }"));
/// assert!(timer("move || { std::thread::sleep(GRACE); log::error!(\"still alive\"); force_exit(code); }"));
/// assert!(!timer("move || { std::thread::sleep(d); flush(); std::process::exit(0); }"));
/// assert!(timer("move || { std::thread::sleep(d); logger.error(\"stuck\"); std::process::exit(1); }"));
/// assert!(!timer("move || { std::thread::sleep(d); report.error(\"stuck\"); std::process::exit(1); }"));
/// assert!(!timer("move || loop { std::thread::sleep(d); tick(); }"));
/// ```
pub fn is_exit_timer(body: &syn::Expr) -> bool {
    let syn::Expr::Closure(c) = body else {
        return false;
    };
    let syn::Expr::Block(b) = &*c.body else {
        return false;
    };
    let (mut sleeps, mut exits) = (0, 0);
    for st in &b.block.stmts {
        let e = match st {
            syn::Stmt::Macro(m) if is_log_macro(&m.mac) => continue,
            syn::Stmt::Expr(e, _) => e,
            _ => return false,
        };
        match e {
            syn::Expr::Macro(m) if is_log_macro(&m.mac) => {}
            syn::Expr::MethodCall(m) if is_logger_call(m) => {}
            syn::Expr::Call(c) if calls(c, "thread", "sleep") => sleeps += 1,
            syn::Expr::Call(c) if ends_process(c) => exits += 1,
            _ => return false,
        }
    }
    sleeps > 0 && exits > 0
}

/// Whether the closure `body` a thread is started with only looks for deadlocks and logs
/// what it finds: parking_lot's detector, `thread::spawn(move || loop {
/// thread::sleep(d); let deadlocks = deadlock::check_deadlock(); if deadlocks.is_empty() {
/// continue; } error!(..); })` (qdrant, albatross, massa, lightway, habitat). It reads the
/// locks' state and writes the log; it holds no work, and, as it never ends, nothing could
/// join it (habitat's ends the process once it has logged one). Besides `check_deadlock()`,
/// only `thread::sleep(..)`, `Duration`'s constructors, `process::exit` / `abort`, log
/// macros and text formatting (`format!`, `write!`, `writeln!`), reading what the check
/// returned (`is_empty`, `len`, `iter`, `enumerate`, `thread_id`, `backtrace`, ..), loops,
/// `if`, `let`, `continue`, `break` and `use` items.
///
/// # Examples
/// ```
/// use shutdown_lint::collect::idle_task::is_deadlock_detector;
/// let detector = |s: &str| is_deadlock_detector(&syn::parse_str(s).unwrap());
/// assert!(detector("move || loop { std::thread::sleep(d); let found = deadlock::check_deadlock(); \
///     if found.is_empty() { continue; } for t in found.iter().flatten() { error!(\"{:?}\", t.backtrace()); } }"));
/// assert!(!detector("move || loop { std::thread::sleep(d); if !deadlock::check_deadlock().is_empty() { restart(); } }"));
/// assert!(!detector("move || loop { std::thread::sleep(d); tick(); }"));
/// ```
pub fn is_deadlock_detector(body: &syn::Expr) -> bool {
    closure_does_only(
        body,
        ChecksDeadlocksOnly {
            checks: 0,
            other: false,
        },
    )
}

/// Whether the closure `body` a thread is started with only drops what it was given:
/// buck2's `thread::Builder::new().name("dice-drop-everything").spawn(move ||
/// drop(dropped))`, tycho's `thread::spawn(move || drop(rt))` (a runtime cannot be dropped
/// where blocking is not allowed). Such a thread moves a slow drop off the caller's thread;
/// freeing memory is nothing a drain must wait for, the exit frees it too. Only `drop(name)`
/// calls, of names alone.
///
/// # Examples
/// ```
/// use shutdown_lint::collect::idle_task::is_dropper;
/// let dropper = |s: &str| is_dropper(&syn::parse_str(s).unwrap());
/// assert!(dropper("move || drop(dropped)"));
/// assert!(dropper("move || { drop(nodes); drop(index); }"));
/// assert!(!dropper("move || { writer.flush(); drop(writer); }"));
/// assert!(!dropper("move || drop(build_report(state))"));
/// ```
pub fn is_dropper(body: &syn::Expr) -> bool {
    let syn::Expr::Closure(c) = body else {
        return false;
    };
    let drops_name = |e: &syn::Expr| {
        matches!(e, syn::Expr::Call(call)
            if matches!(&*call.func, syn::Expr::Path(f) if f.path.is_ident("drop"))
                && call.args.len() == 1
                && matches!(&call.args[0], syn::Expr::Path(a) if a.path.get_ident().is_some()))
    };
    match &*c.body {
        syn::Expr::Block(b) => {
            !b.block.stmts.is_empty()
                && b.block
                    .stmts
                    .iter()
                    .all(|st| matches!(st, syn::Stmt::Expr(e, _) if drops_name(e)))
        }
        e => drops_name(e),
    }
}

/// Whether the closure `body` a thread is started with only waits for a flag or a
/// cancellation token and passes it on: context-engine's SIGINT watcher, `thread::spawn(move
/// || { while !INTERRUPTED.load(Ordering::SeqCst) { thread::sleep(d); } cancel.cancel(); })`
/// over a flag a C signal handler sets, and its token linker, `loop { if job.is_cancelled() {
/// out.cancel(); return; } thread::sleep(d); }`. It reads flags and sets one; it holds no work,
/// and nothing is cut when the exit ends it. Only `thread::sleep(..)` (at least one: it
/// waits), `Duration`'s constructors, reading a flag or token (`load`, `is_cancelled`,
/// `is_set`), setting one (`cancel`, `store`, `set`: at least one), log macros, loops, `if`,
/// `let`, `return`, `break` and `continue`.
///
/// # Examples
/// ```
/// use shutdown_lint::collect::idle_task::is_cancel_relay;
/// let relay = |s: &str| is_cancel_relay(&syn::parse_str(s).unwrap());
/// assert!(relay("move || { while !INTERRUPTED.load(Ordering::SeqCst) { \
///     std::thread::sleep(Duration::from_millis(100)); } cancel.cancel(); }"));
/// assert!(relay("move || loop { if job.is_cancelled() || registry.is_cancelled() { out.cancel(); return; } \
///     if out.is_cancelled() { return; } std::thread::sleep(std::time::Duration::from_millis(20)); }"));
/// assert!(!relay("move || loop { std::thread::sleep(d); }")); // sets nothing
/// assert!(!relay("move || { while !stop.load(Relaxed) { poll(&q); thread::sleep(d); } done.store(true, Relaxed); }"));
/// assert!(!relay("|| {}"));
/// ```
pub fn is_cancel_relay(body: &syn::Expr) -> bool {
    closure_does_only(
        body,
        RelaysOnly {
            waits: 0,
            sets: 0,
            other: false,
        },
    )
}

/// A walk that counts the calls it looks for and notes whether anything else does work.
trait Tally {
    /// The calls looked for, and whether anything else was met.
    fn tally(&self) -> (usize, bool);
}

/// Whether `body` is a closure whose body `walk` finds at least one of its calls in, and
/// nothing else that does work.
fn closure_does_only<W>(body: &syn::Expr, mut walk: W) -> bool
where
    W: for<'ast> syn::visit::Visit<'ast> + Tally,
{
    let syn::Expr::Closure(c) = body else {
        return false;
    };
    walk.visit_expr(&c.body);
    let (hits, other) = walk.tally();
    hits > 0 && !other
}

/// Whether `m` writes a log line through a logger the closure was handed:
/// `logger.error("..")`, `self.log.warn(..)` — a method named for a level on a receiver
/// named for a log (supergateway's watchdog).
fn is_logger_call(m: &syn::ExprMethodCall) -> bool {
    let level = matches!(
        m.method.to_string().as_str(),
        "trace" | "debug" | "info" | "warn" | "error"
    );
    let name = match &*m.receiver {
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(i) => Some(i.to_string()),
            syn::Member::Unnamed(_) => None,
        },
        _ => None,
    };
    level && name.is_some_and(|n| n.split('_').any(|w| w == "log" || w == "logger"))
}

/// Whether `c` ends the process: `process::exit(..)`, `process::abort()`, libc's
/// `_exit(..)`, or a function named for it (`force_exit(code)`: encore's backstop, which
/// flushes stdio and calls `_exit`).
fn ends_process(c: &syn::ExprCall) -> bool {
    exits_or_aborts(c)
        || matches!(&*c.func, syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| {
            s.ident.to_string().ends_with("_exit")
        }))
}

/// Whether `c` is `process::exit(..)` or `process::abort()`.
fn exits_or_aborts(c: &syn::ExprCall) -> bool {
    calls(c, "process", "exit") || calls(c, "process", "abort")
}

/// Whether `c` calls `module::f` (also written in full, or `f` alone after a `use`).
fn calls(c: &syn::ExprCall, module: &str, f: &str) -> bool {
    matches!(&*c.func, syn::Expr::Path(p)
        if p.path.is_ident(f) || super::attrs::is_fn_of(&p.path, f, &[module]))
}

/// Whether `p` ends in `Duration::from_*` (`Duration::from_secs`, `std::time::Duration::from_millis`).
fn is_duration_ctor(p: &syn::Path) -> bool {
    let n = p.segments.len();
    n >= 2
        && p.segments[n - 2].ident == "Duration"
        && p.segments[n - 1].ident.to_string().starts_with("from_")
}

/// A logging macro (`info!`, `log::warn!`, `println!`, ..).
pub(super) fn is_log_macro(m: &syn::Macro) -> bool {
    m.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "trace" | "debug" | "info" | "warn" | "error" | "println" | "eprintln"
        )
    })
}

/// Whether `e` is a local named for a child process (`child`, `broker_child`).
fn names_child(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| {
        i.to_string().split('_').any(|w| w == "child")
    }))
}

/// [`is_deadlock_detector`]'s walk: the `check_deadlock()` calls, and whether anything else
/// does work.
struct ChecksDeadlocksOnly {
    checks: usize,
    other: bool,
}

impl Tally for ChecksDeadlocksOnly {
    fn tally(&self) -> (usize, bool) {
        (self.checks, self.other)
    }
}

impl<'ast> syn::visit::Visit<'ast> for ChecksDeadlocksOnly {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.other |= !matches!(
            m.method.to_string().as_str(),
            "is_empty"
                | "len"
                | "iter"
                | "into_iter"
                | "enumerate"
                | "flatten"
                | "thread_id"
                | "backtrace"
                | "expect"
                | "unwrap"
                | "ok"
        );
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if matches!(&*c.func, syn::Expr::Path(p)
            if p.path.is_ident("check_deadlock")
                || super::attrs::is_fn_of(&p.path, "check_deadlock", &["deadlock"]))
        {
            self.checks += 1;
        } else {
            let harmless = calls(c, "thread", "sleep")
                || exits_or_aborts(c)
                || matches!(&*c.func, syn::Expr::Path(p) if is_duration_ctor(&p.path));
            self.other |= !harmless;
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let formats = m.path.segments.last().is_some_and(|s| {
            matches!(s.ident.to_string().as_str(), "format" | "write" | "writeln")
        });
        self.other |= !(is_log_macro(m) || formats);
    }

    fn visit_item(&mut self, i: &'ast syn::Item) {
        self.other |= !matches!(i, syn::Item::Use(_));
    }
}

/// [`is_joiner`]'s walk: the `.join()` calls, and whether anything else does work.
struct JoinsOnly {
    joins: usize,
    other: bool,
}

impl Tally for JoinsOnly {
    fn tally(&self) -> (usize, bool) {
        (self.joins, self.other)
    }
}

impl<'ast> syn::visit::Visit<'ast> for JoinsOnly {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        match m.method.to_string().as_str() {
            "join" if m.args.is_empty() => self.joins += 1,
            "wait" if m.args.is_empty() && names_child(&m.receiver) => self.joins += 1,
            "send" | "try_send" | "ok" | "unwrap" | "expect" | "map_err" | "is_ok" | "is_err"
            | "success" | "code" | "exit_code" | "signal" => {}
            // naming the thread joined and its panic
            "thread" | "name" | "map" | "downcast_ref" | "as_ref" | "to_owned" => {}
            _ => self.other = true,
        }
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        let harmless = matches!(&*c.func, syn::Expr::Path(p)
            if p.path.get_ident().is_some_and(|i| matches!(i.to_string().as_str(), "drop" | "Ok" | "Err" | "Some")));
        self.other |= !harmless;
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.other |= !is_log_macro(m);
    }

    fn visit_expr_loop(&mut self, _: &'ast syn::ExprLoop) {
        self.other = true;
    }

    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        // `while let Ok(h) = rx.recv() { .. h.join() .. }`: the handles it is handed
        let receives = matches!(&*w.cond, syn::Expr::Let(l)
            if matches!(&*l.expr, syn::Expr::MethodCall(m) if m.method == "recv" && m.args.is_empty()));
        if receives {
            self.visit_block(&w.body);
        } else {
            self.other = true;
        }
    }

    fn visit_expr_for_loop(&mut self, _: &'ast syn::ExprForLoop) {
        self.other = true;
    }
}

/// [`is_cancel_relay`]'s walk: the sleeps and the flags set, and whether anything else does
/// work.
struct RelaysOnly {
    waits: usize,
    sets: usize,
    other: bool,
}

impl Tally for RelaysOnly {
    /// The flags set count only when the thread also waits.
    fn tally(&self) -> (usize, bool) {
        (if self.waits > 0 { self.sets } else { 0 }, self.other)
    }
}

impl<'ast> syn::visit::Visit<'ast> for RelaysOnly {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        match m.method.to_string().as_str() {
            "load" | "is_cancelled" | "is_set" => {}
            "cancel" | "store" | "set" => self.sets += 1,
            _ => self.other = true,
        }
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if calls(c, "thread", "sleep") {
            self.waits += 1;
        } else {
            self.other |= !matches!(&*c.func, syn::Expr::Path(p) if is_duration_ctor(&p.path));
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.other |= !is_log_macro(m);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {
        self.other = true;
    }

    fn visit_expr_for_loop(&mut self, _: &'ast syn::ExprForLoop) {
        self.other = true;
    }
}
