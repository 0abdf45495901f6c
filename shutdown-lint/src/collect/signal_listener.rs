//! Threads and tasks that wait for the process's signals: the body a thread runs names a signal
//! iterator or handler (signal-hook's `Signals` and its `.forever()`, `TERM_SIGNALS`, a
//! `Signals` type of the workspace — neon's `ShutdownSignals::handle(..)` —, tokio's
//! `SignalKind`, an enum's `Signal::Terminate` arm), loops over or waits on a value named
//! for them (`for signal in &mut signals`, `self.signals.recv()`), or calls a function
//! named as a signal handler (`signal_handler(..)`, `handle_signals(..)`,
//! `wait_for_signal(..)`). The body is read as the pruner left it: a statement naming no
//! word a rule reads (`Ok(Signal::Terminate) => break,` alone) is blank by then.
//!
//! Such a thread is how the process hears SIGTERM (shpool, neon's `compute_ctl` and
//! `storage_broker`, radicle's node, oxide's `tfportd` start one and never join it): it
//! holds no work of its own, and nothing could join it before the signal it waits for —
//! reporting its dropped handle as a detached thread would ask for the impossible.
//! A constant that only names a signal (`kill(pid, SIGTERM)`) is no marker: a thread
//! that sends one is a supervisor with work of its own.
//!
//! Tasks likewise ([`awaits_signal_first`]): a task spawned with a signal waiter's call, or
//! whose first statement awaits one (`ctrl_c().await`), only turns the signal into the
//! program's own shutdown — no raw spawn for the drain to track.

use syn::visit::{self, Visit};

/// Whether the thread body `body` (the closure passed to `spawn`) waits for signals.
///
/// # Examples
/// ```
/// use shutdown_lint::collect::signal_listener::listens_for_signals;
/// let body: syn::Expr = syn::parse_str("move || { for sig in signals.forever() { stop(sig); } }").unwrap();
/// assert!(listens_for_signals(&body));
/// let body: syn::Expr = syn::parse_str("move || signal_handler(g, me)").unwrap();
/// assert!(listens_for_signals(&body));
/// let body: syn::Expr = syn::parse_str("move || { for s in &mut signals { cleanup(s); } }").unwrap();
/// assert!(listens_for_signals(&body));
/// let body: syn::Expr = syn::parse_str("move || loop { work(&rx); kill(pid, SIGTERM); }").unwrap();
/// assert!(!listens_for_signals(&body));
/// let body: syn::Expr = syn::parse_str("move || process_signal_batch(rx)").unwrap();
/// assert!(!listens_for_signals(&body));
/// // a function named for signals, given a value named for them (habitat's `sigwait` loop)
/// let body: syn::Expr = syn::parse_str("move || process_signals(&handled_signals)").unwrap();
/// assert!(listens_for_signals(&body));
/// ```
pub fn listens_for_signals(body: &syn::Expr) -> bool {
    let mut v = Markers { found: false };
    v.visit_expr(body);
    v.found
}

struct Markers {
    found: bool,
}

/// A path naming a signal iterator or handler: a segment `Signals` (or ending so:
/// `ShutdownSignals`), `SignalKind` or `TERM_SIGNALS`, or `Signal::Terminate` /
/// `Signal::Interrupt`.
fn is_marker_path(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segs.iter()
        .any(|s| s.ends_with("Signals") || s == "SignalKind" || s == "TERM_SIGNALS")
        || segs.windows(2).any(|w| {
            w[0] == "Signal" && matches!(w[1].as_str(), "Terminate" | "Interrupt" | "Term" | "Int")
        })
}

/// A function named as a signal handler: a word `signal` or `signals` beside a word
/// that waits for or handles it (`signal_handler`, `handle_signals`, `wait_for_signal`).
fn is_handler_name(name: &str) -> bool {
    let words: Vec<&str> = name.split('_').collect();
    words.iter().any(|w| matches!(*w, "signal" | "signals"))
        && words.iter().any(|w| {
            matches!(
                *w,
                "handler"
                    | "handle"
                    | "handles"
                    | "wait"
                    | "waits"
                    | "listen"
                    | "listener"
                    | "catch"
                    | "watch"
                    | "watcher"
            )
        })
}

/// A binding named for the signals it yields: `signals`, `term_signals`.
fn is_signals_name(name: &str) -> bool {
    name == "signals" || name.ends_with("_signals")
}

/// Whether `e` is a local or a field named for the signals it yields (`signals`,
/// `self.signals`, `&mut signals`).
fn names_signals(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Reference(r) => names_signals(&r.expr),
        syn::Expr::Paren(p) => names_signals(&p.expr),
        syn::Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| is_signals_name(&i.to_string())),
        syn::Expr::Field(f) => {
            matches!(&f.member, syn::Member::Named(n) if is_signals_name(&n.to_string()))
        }
        _ => false,
    }
}

impl<'ast> Visit<'ast> for Markers {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.found |= is_marker_path(p);
        visit::visit_path(self, p);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        // a handler's name (`signal_handler(..)`), or a function named for signals given a
        // value named for them (habitat's `process_signals(&handled_signals)`)
        if let syn::Expr::Path(p) = &*c.func
            && let Some(last) = p.path.segments.last().map(|s| s.ident.to_string())
            && (is_handler_name(&last)
                || (last.split('_').any(|w| matches!(w, "signal" | "signals"))
                    && c.args.iter().any(names_signals)))
        {
            self.found = true;
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        // `for signal in &mut signals`, `for sig in signals.iter()`
        let mut iterated = &*f.expr;
        while let syn::Expr::MethodCall(m) = iterated
            && m.args.is_empty()
        {
            iterated = &m.receiver;
        }
        self.found |= names_signals(iterated);
        visit::visit_expr_for_loop(self, f);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        // signal-hook's `signals.forever()`; a wait on a value named for the signals it
        // yields (radicle's `self.signals.recv()`, its `Signal::Terminate` arms aside)
        self.found |= m.method == "forever" && m.args.is_empty();
        self.found |= matches!(
            m.method.to_string().as_str(),
            "recv" | "recv_timeout" | "try_recv" | "wait" | "pending" | "next"
        ) && names_signals(&m.receiver);
        visit::visit_expr_method_call(self, m);
    }
}

/// Whether the future a task is spawned with waits for the process's signals before it
/// does anything: a call of a function named as a signal waiter (corrosion's
/// `tokio::spawn(handle_sigterm(signals))`), or an async block whose first statement
/// awaits one — `ctrl_c().await` (quickwit's CLI, wash's `dev`), `sigterm.recv().await`,
/// `block_until_shutdown_signal().await` (parseable), `if signal::ctrl_c().await.is_ok()
/// { .. }` (screenpipe). Such a task only turns the signal into the program's own
/// shutdown: tracking it would make the drain wait for a signal that has already come.
///
/// # Examples
/// ```
/// use shutdown_lint::collect::signal_listener::awaits_signal_first;
/// let fut: syn::Expr = syn::parse_str("async move { tokio::signal::ctrl_c().await.ok(); tx.send(()) }").unwrap();
/// assert!(awaits_signal_first(&fut));
/// let fut: syn::Expr = syn::parse_str("handle_sigterm(signals)").unwrap();
/// assert!(awaits_signal_first(&fut));
/// let fut: syn::Expr = syn::parse_str("async move { work(rx).await; ctrl_c().await.ok(); }").unwrap();
/// assert!(!awaits_signal_first(&fut));
/// let fut: syn::Expr = syn::parse_str("process_signal_batch(rx)").unwrap();
/// assert!(!awaits_signal_first(&fut));
/// // streams installed first, then a loop selecting over them
/// let fut: syn::Expr = syn::parse_str("async move {
///     let mut sigint = signal(SignalKind::interrupt()).expect(\"unix\");
///     let mut sigterm = signal(SignalKind::terminate())?;
///     loop { select! { _ = sigint.recv() => { tx.send(()); } _ = sigterm.recv() => stop(), } }
/// }").unwrap();
/// assert!(awaits_signal_first(&fut));
/// // a branch that does work: a worker that also hears signals
/// let fut: syn::Expr = syn::parse_str("async move {
///     let mut sigterm = signal(SignalKind::terminate())?;
///     loop { select! { _ = sigterm.recv() => break, job = rx.recv() => run(job).await, } }
/// }").unwrap();
/// assert!(!awaits_signal_first(&fut));
/// // async-ctrlc's future
/// let fut: syn::Expr = syn::parse_str("async move { async_ctrlc::CtrlC::new().unwrap().await; std::process::exit(0) }").unwrap();
/// assert!(awaits_signal_first(&fut));
/// // a loop over a signal stream installed before the task (signal-hook-tokio)
/// let fut: syn::Expr = syn::parse_str("async move {
///     while let Some(signal) = signals.next().await { match signal { SIGTERM => stop(), _ => {} } }
/// }").unwrap();
/// assert!(awaits_signal_first(&fut));
/// let fut: syn::Expr = syn::parse_str("async move { while let Some(job) = jobs.next().await { run(job).await; } }").unwrap();
/// assert!(!awaits_signal_first(&fut));
/// ```
pub fn awaits_signal_first(fut: &syn::Expr) -> bool {
    match fut {
        syn::Expr::Call(c) => is_waiter_call(c),
        syn::Expr::Async(a) => signal_wait_prefix(&a.block).is_some(),
        _ => false,
    }
}

/// How many of `block`'s statements come before its work, when the first thing it does is
/// wait for a signal ([`awaits_signal_first`]): the items it declares (`use
/// tokio::signal::unix::{signal, SignalKind};`), the signal streams it installs, and the
/// statement that awaits one. `None` when it does anything else first. The caller checks
/// that the pruner blanked no statement among them.
///
/// # Examples
/// ```
/// use shutdown_lint::collect::signal_listener::signal_wait_prefix;
/// let block: syn::Block = syn::parse_str("{
///     use tokio::signal::unix::{signal, SignalKind};
///     let mut sigterm = signal(SignalKind::terminate()).unwrap();
///     sigterm.recv().await;
///     SHUTDOWN.send(());
/// }").unwrap();
/// assert_eq!(signal_wait_prefix(&block), Some(3));
/// // axum's example: a future per signal, then a `select!` over them
/// let block: syn::Block = syn::parse_str("{
///     let ctrl_c = async { signal::ctrl_c().await.expect(\"Ctrl+C\"); };
///     let terminate = async {
///         signal::unix::signal(signal::unix::SignalKind::terminate()).expect(\"SIGTERM\").recv().await;
///     };
///     tokio::select! { _ = ctrl_c => {}, _ = terminate => {} }
///     handle.graceful_shutdown(None);
/// }").unwrap();
/// assert_eq!(signal_wait_prefix(&block), Some(3));
/// // tycho's shutdown handler: the futures made first, their errors mapped
/// let block: syn::Block = syn::parse_str("{
///     let ctrl_c = tokio::signal::ctrl_c();
///     let mut sigterm = signal(SignalKind::terminate()).map_err(|e| Error(e.to_string()))?;
///     tokio::select! { _ = ctrl_c => { info!(\"SIGINT\"); }, _ = sigterm.recv() => {} }
///     server_handle.stop(true).await;
/// }").unwrap();
/// assert_eq!(signal_wait_prefix(&block), Some(3));
/// // a log line first, and a stream installed by a `match` and waited on in its arm
/// let block: syn::Block = syn::parse_str("{
///     debug!(\"waiting for SIGTERM\");
///     match signal(SignalKind::terminate()) {
///         Ok(mut s) => { s.recv().await; }
///         Err(e) => error!(\"{e}\"),
///     }
///     stop.notify_waiters();
/// }").unwrap();
/// assert_eq!(signal_wait_prefix(&block), Some(2));
/// let block: syn::Block = syn::parse_str("{ flush().await; ctrl_c().await.ok(); }").unwrap();
/// assert_eq!(signal_wait_prefix(&block), None);
/// ```
pub fn signal_wait_prefix(block: &syn::Block) -> Option<usize> {
    wait_prefix_on(block, Vec::new())
}

/// [`signal_wait_prefix`], with `streams` installed before the block (a `match` arm's
/// `Ok(mut s)`).
fn wait_prefix_on(block: &syn::Block, mut streams: Vec<String>) -> Option<usize> {
    for (i, st) in block.stmts.iter().enumerate() {
        match st {
            syn::Stmt::Item(_) => {}
            // a log line first (thermostat-pi's `debug!("starting sig handler");`)
            syn::Stmt::Macro(m) if super::idle_task::is_log_macro(&m.mac) => {}
            syn::Stmt::Expr(syn::Expr::Macro(m), _) if super::idle_task::is_log_macro(&m.mac) => {}
            syn::Stmt::Local(l) if let Some(n) = installed_stream(l) => streams.push(n),
            syn::Stmt::Local(l) if let Some(n) = signal_future(l) => streams.push(n),
            // `let mut sigterm = sigterm;`, `let sigterm = binding.recv();` (Glonax)
            syn::Stmt::Local(l) if let Some(n) = stream_handed_on(l, &streams) => streams.push(n),
            // the wait inside a block of its own: `#[cfg(unix)] { .. }` (yamcs-gateway)
            syn::Stmt::Expr(syn::Expr::Block(b), _) if b.label.is_none() => {
                return wait_prefix_on(&b.block, streams).map(|_| i + 1);
            }
            st => return stmt_awaits_signal(st, &streams).then_some(i + 1),
        }
    }
    None
}

/// The name a `let` binds to one of `streams` handed on: the stream itself (`let mut
/// sigterm = sigterm;`) or the future of its next signal (`let sigterm = binding.recv();`).
fn stream_handed_on(l: &syn::Local, streams: &[String]) -> Option<String> {
    let syn::Pat::Ident(name) = &l.pat else {
        return None;
    };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    let handed = match &*init.expr {
        syn::Expr::MethodCall(m) => recv_on(m, streams),
        e => names_one_of(e, streams),
    };
    handed.then(|| name.ident.to_string())
}

/// The function of the file a task is spawned with: `tokio::spawn(wait_for_shutdown())`,
/// `Self::wait(rx)` — a name alone or `Self::name`. The caller asks whether the file
/// declares a function of that name that waits for signals first ([`signal_wait_prefix`]).
///
/// # Examples
/// ```
/// use shutdown_lint::collect::signal_listener::spawned_local_fn;
/// let fut: syn::Expr = syn::parse_str("Self::wait_for_stop(rx)").unwrap();
/// assert_eq!(spawned_local_fn(&fut).as_deref(), Some("wait_for_stop"));
/// let fut: syn::Expr = syn::parse_str("client::run(a)").unwrap();
/// assert_eq!(spawned_local_fn(&fut), None);
/// ```
pub fn spawned_local_fn(fut: &syn::Expr) -> Option<String> {
    let syn::Expr::Call(c) = fut else {
        return None;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    match segs[..] {
        [f] => Some(f.ident.to_string()),
        [owner, f] if owner.ident == "Self" => Some(f.ident.to_string()),
        _ => None,
    }
}

/// The function of the file an async block awaits first, read from its text as written
/// (`body`, between its braces): `shutdown_send(announce).await;` (namada) — a statement
/// the pruner blanks, as it names no word a rule reads. A name alone or `Self::name`, or a
/// waiter's name ([`is_waiter_name`]) after a module's path (`daemon::wait_for_signal()`),
/// called and awaited at once, after nothing but whitespace and line comments.
///
/// # Examples
/// ```
/// use shutdown_lint::collect::signal_listener::first_awaited_local_fn;
/// let name = |s: &str| first_awaited_local_fn(s);
/// assert_eq!(name("\n    // wait\n    shutdown_send(announce, \")\").await;\n    done();").as_deref(), Some("shutdown_send"));
/// assert_eq!(name(" Self::wait(rx).await.ok(); ").as_deref(), Some("wait"));
/// assert_eq!(name(" let x = wait(rx).await; ").as_deref(), None);
/// assert_eq!(name(" flush(rx); wait().await; ").as_deref(), None);
/// assert_eq!(name(" client::run(a).await; ").as_deref(), None);
/// assert_eq!(name(" daemon::wait_for_signal().await; ").as_deref(), Some("wait_for_signal"));
/// ```
pub fn first_awaited_local_fn(body: &str) -> Option<String> {
    use crate::lexscan::{is_ident, matching, skip_ws};
    let b = body.as_bytes();
    let mut i = skip_ws(b, 0);
    while b[i..].starts_with(b"//") {
        i = skip_ws(b, i + b[i..].iter().position(|&c| c == b'\n')?);
    }
    let ident = |i: usize| {
        let end = i + b[i..].iter().take_while(|&&c| is_ident(c)).count();
        (end > i && !b[i].is_ascii_digit()).then_some(end)
    };
    let mut start = i;
    let mut end = ident(i)?;
    // `Self::name`, or a module's path to a waiter (`daemon::wait_for_signal()`, a
    // function a `pub use` re-exports, whose statement the pruner blanks)
    let mut owners = 0;
    while b[end..].starts_with(b"::") {
        owners += usize::from(&b[start..end] != b"Self");
        start = end + 2;
        end = ident(start)?;
    }
    if owners > 0 && !is_waiter_name(&body[start..end]) {
        return None;
    }
    let open = skip_ws(b, end);
    if b.get(open) != Some(&b'(') {
        return None;
    }
    let code = crate::lexscan::code_only(body);
    let close = matching(&code, open, b'(', b')')?;
    let dot = skip_ws(b, close + 1);
    let after = dot + ".await".len();
    (b[dot..].starts_with(b".await") && b.get(after).is_none_or(|&c| !is_ident(c)))
        .then(|| body[start..end].to_string())
}

/// Whether the statement `st` awaits a signal ([`awaited_signal`]), `recv()` on one of
/// `streams`, or a `select!` each of whose branches does; or is a `loop` whose first
/// statement does (astria's sequencer, pg_doorman's SIGHUP reload: `loop { select! {
/// _ = sigint.recv() => .., _ = sigterm.recv() => .. } }`).
fn stmt_awaits_signal(st: &syn::Stmt, streams: &[String]) -> bool {
    let e = match st {
        syn::Stmt::Expr(e, _) => e,
        syn::Stmt::Local(l) => match &l.init {
            Some(i) => &i.expr,
            None => return false,
        },
        syn::Stmt::Macro(m) => return select_awaits_signals(&m.mac, streams),
        syn::Stmt::Item(_) => return false,
    };
    match e {
        syn::Expr::Loop(l) => l
            .body
            .stmts
            .first()
            .is_some_and(|st| stmt_awaits_signal(st, streams)),
        // an arm's block (osubot's `Ok(mut s) => { s.recv().await; }`)
        syn::Expr::Block(b) if b.label.is_none() => {
            wait_prefix_on(&b.block, streams.to_vec()).is_some()
        }
        // a stream installed by the `match` itself, waited on in its `Ok` arm, the other
        // arm giving up (VoltageEMS's SIGHUP reload: `match signal(SignalKind::hangup()) {
        // Ok(mut hup) => loop { hup.recv().await; reopen_logs() }, Err(e) => warn!(..) }`)
        syn::Expr::Match(m) if is_signal_stream(&m.expr) && m.arms.len() == 2 => {
            m.arms.iter().any(|arm| {
                let syn::Pat::TupleStruct(ts) = &arm.pat else {
                    return false;
                };
                let Some(name) = ok_binding(ts) else {
                    return false;
                };
                let mut inner = streams.to_vec();
                inner.push(name.ident.to_string());
                let body = syn::Stmt::Expr((*arm.body).clone(), None);
                arm.guard.is_none() && stmt_awaits_signal(&body, &inner)
            })
        }
        syn::Expr::Macro(m) => select_awaits_signals(&m.mac, streams),
        // `while let Some(signal) = signals.next().await { match signal { .. } }` over a
        // stream installed before the task (ingest-rs's signal-hook-tokio `Signals`)
        // or `while hup.recv().await.is_some() { reload(); }` over one installed in the task
        syn::Expr::While(w) => match &*w.cond {
            syn::Expr::Let(l) => awaited_next_signal(&l.expr, streams),
            syn::Expr::MethodCall(m) if m.method == "is_some" && m.args.is_empty() => {
                awaited_next_signal(&m.receiver, streams)
            }
            _ => false,
        },
        e => awaited_signal(e) || awaited_recv_on(e, streams),
    }
}

/// `X.next().await` or `X.recv().await` where `X` is one of `streams` or a local or field
/// named for the signals it yields (`signals`, `self.signals`).
fn awaited_next_signal(e: &syn::Expr, streams: &[String]) -> bool {
    matches!(e, syn::Expr::Await(a) if matches!(&*a.base, syn::Expr::MethodCall(m)
        if m.args.is_empty()
            && (m.method == "next" || m.method == "recv")
            && (names_signals(&m.receiver) || names_one_of(&m.receiver, streams))))
}

/// The name a `let` binds to a signal stream it installs: `signal(SignalKind::..)` (tokio's,
/// also with `.expect(..)`, `.unwrap()` or `?` after it), or its `Ok` value where failing
/// to install gives up (supabase etl's replicator: `let Ok(mut sigterm) =
/// signal(SignalKind::terminate()) else { ..; return; };`; krill: `let mut sigterm = match
/// signal(SignalKind::terminate()) { Ok(sig) => sig, Err(err) => { ..; return; } };`).
fn installed_stream(l: &syn::Local) -> Option<String> {
    let init = l.init.as_ref()?;
    let name = match &l.pat {
        syn::Pat::Ident(name) => name,
        syn::Pat::TupleStruct(ts) if init.diverge.is_some() => ok_binding(ts)?,
        _ => return None,
    };
    let stream = match &*init.expr {
        // (its arms name no word a rule reads: the pruner has blanked them by now)
        syn::Expr::Match(m) if init.diverge.is_none() => &*m.expr,
        e => e,
    };
    is_signal_stream(stream).then(|| name.ident.to_string())
}

/// `Ok(name)` (also `Ok(mut name)`): the name it binds.
fn ok_binding(ts: &syn::PatTupleStruct) -> Option<&syn::PatIdent> {
    if !ts.path.is_ident("Ok") || ts.elems.len() != 1 {
        return None;
    }
    match &ts.elems[0] {
        syn::Pat::Ident(i) if i.subpat.is_none() => Some(i),
        _ => None,
    }
}

/// Whether `e` installs a signal stream: `signal(SignalKind::..)`, or signal-hook's
/// `Signals::new([..])` (its tokio and async-std flavours too: kuasar's sandboxers), also
/// with `.expect(..)`, `.unwrap()` or `?` after it.
fn is_signal_stream(e: &syn::Expr) -> bool {
    let syn::Expr::Call(c) = super::flow::unwrapped(e) else {
        return false;
    };
    let syn::Expr::Path(f) = &*c.func else {
        return false;
    };
    let segs: Vec<&syn::PathSegment> = f.path.segments.iter().collect();
    match segs[..] {
        [.., ty, new] if new.ident == "new" => ty.ident.to_string().ends_with("Signals"),
        [.., last] => last.ident == "signal" && c.args.iter().any(listens_for_signals),
        [] => false,
    }
}

/// The name a `let` binds to a future that waits for a signal (axum's example: `let ctrl_c =
/// async { signal::ctrl_c().await.expect(..); };`; tycho's `let ctrl_c =
/// tokio::signal::ctrl_c();`, a waiter called and not awaited yet), or that never completes
/// (`let terminate = std::future::pending::<()>();` where there is no SIGTERM): a `select!`
/// over such names waits for the signals.
fn signal_future(l: &syn::Local) -> Option<String> {
    let syn::Pat::Ident(name) = &l.pat else {
        return None;
    };
    let init = &*l.init.as_ref()?.expr;
    (matches!(init, syn::Expr::Async(a) if signal_wait_prefix(&a.block).is_some())
        || matches!(init, syn::Expr::Call(c) if is_waiter_call(c))
        || super::idle_task::is_idle_future(init))
    .then(|| name.ident.to_string())
}

/// `X.recv().await` (with `?`, `.ok()` and the like after it) where `X` is one of `streams`.
fn awaited_recv_on(e: &syn::Expr, streams: &[String]) -> bool {
    let mut e = e;
    loop {
        e = match e {
            syn::Expr::Try(t) => &t.expr,
            syn::Expr::MethodCall(m) if !matches!(&*m.receiver, syn::Expr::Path(_)) => &m.receiver,
            _ => break,
        };
    }
    matches!(e, syn::Expr::Await(a) if matches!(&*a.base, syn::Expr::MethodCall(m) if recv_on(m, streams)))
}

/// Whether `e` is one of `names` (or `&mut` one).
fn names_one_of(e: &syn::Expr, names: &[String]) -> bool {
    match e {
        syn::Expr::Reference(r) => names_one_of(&r.expr, names),
        syn::Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| names.iter().any(|n| i == n)),
        _ => false,
    }
}

/// `X.recv()` where `X` is one of `streams`.
fn recv_on(m: &syn::ExprMethodCall, streams: &[String]) -> bool {
    m.method == "recv" && names_one_of(&m.receiver, streams)
}

/// Whether `mac` is a `select!` each of whose branches waits for a signal — its future is
/// `recv()` on one of `streams`, or a call of a signal waiter (`ctrl_c()`) — or for the
/// program's own cancellation ([`is_cancellation`]), at least one for a signal; an `else`
/// branch counts.
fn select_awaits_signals(mac: &syn::Macro, streams: &[String]) -> bool {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    if mac.path.segments.last().is_none_or(|s| s.ident != "select") {
        return false;
    }
    let toks: Vec<TokenTree> = mac.tokens.clone().into_iter().collect();
    let punct =
        |i: usize, c: char| matches!(toks.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let arrow = |i: usize| {
        matches!(toks.get(i), Some(TokenTree::Punct(p)) if p.as_char() == '=' && p.spacing() == Spacing::Joint)
            && punct(i + 1, '>')
    };
    let mut branches = 0;
    let mut signals = 0;
    let mut i = 0;
    // `biased;`
    if matches!(toks.first(), Some(TokenTree::Ident(b)) if b == "biased") && punct(1, ';') {
        i = 2;
    }
    while i < toks.len() {
        // the pattern, up to its `=` (or `else`)
        let start = i;
        // (`=` alone or as the first of `=>`)
        while i < toks.len() && !punct(i, '=') {
            i += 1;
        }
        let is_else = matches!(toks.get(start), Some(TokenTree::Ident(e)) if e == "else");
        if !is_else {
            if !punct(i, '=') || arrow(i) {
                return false;
            }
            i += 1;
            // the future, up to `=>` (an `, if cond` precondition ends it too)
            let fut_start = i;
            while i < toks.len() && !arrow(i) {
                i += 1;
            }
            let fut: proc_macro2::TokenStream = toks[fut_start..i].iter().cloned().collect();
            let Ok(fut) = syn::parse2::<syn::Expr>(fut) else {
                return false;
            };
            let waits = match &fut {
                syn::Expr::Call(c) => is_waiter_call(c),
                // (or on a stream installed before the task, named for its signal:
                // `_ = sigterm.recv()`, nodexeus's worker)
                syn::Expr::MethodCall(m) => {
                    recv_on(m, streams)
                        || m.method == "recv"
                            && m.args.is_empty()
                            && (names_signals(&m.receiver) || names_sig(&m.receiver))
                }
                // a future bound to a name (`_ = ctrl_c => {}`, `_ = &mut terminate => {}`)
                syn::Expr::Path(_) | syn::Expr::Reference(_) => names_one_of(&fut, streams),
                _ => false,
            };
            if waits {
                signals += 1;
            } else if !is_cancellation(&fut) {
                return false;
            }
        }
        if !arrow(i) {
            return false;
        }
        i += 2;
        // the handler: a block (and an optional `,`) or an expression up to `,`
        if matches!(toks.get(i), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace) {
            i += 1;
            if punct(i, ',') {
                i += 1;
            }
        } else {
            while i < toks.len() && !punct(i, ',') {
                i += 1;
            }
            i += 1;
        }
        branches += 1;
    }
    branches > 0 && signals > 0
}

/// The program's own cancellation, which a signal listener may wait for beside the
/// signals (indexify's container daemon: `_ = cancel_token.cancelled() => return`):
/// `X.cancelled()` or `X.cancelled_owned()` (tokio-util's `CancellationToken`).
fn is_cancellation(fut: &syn::Expr) -> bool {
    matches!(fut, syn::Expr::MethodCall(m)
        if m.args.is_empty() && (m.method == "cancelled" || m.method == "cancelled_owned"))
}

/// A call of a function named as a signal waiter ([`is_waiter_name`]).
fn is_waiter_call(c: &syn::ExprCall) -> bool {
    let syn::Expr::Path(p) = &*c.func else {
        return false;
    };
    p.path
        .segments
        .last()
        .is_some_and(|s| is_waiter_name(&s.ident.to_string()))
}

/// Whether `name` is a signal waiter's: `ctrl_c`, a signal handler's name
/// ([`is_handler_name`]), or a name with `sigterm` / `sigint`, or with `signal(s)` beside
/// `shutdown`, `until` or `block` (`shutdown_signal`, `block_until_shutdown_signal`).
///
/// # Examples
/// ```
/// use shutdown_lint::collect::signal_listener::is_waiter_name;
/// assert!(is_waiter_name("shutdown_signal") && is_waiter_name("wait_for_signal"));
/// assert!(!is_waiter_name("process_signal_batch") && !is_waiter_name("shutdown"));
/// ```
pub fn is_waiter_name(name: &str) -> bool {
    let words: Vec<&str> = name.split('_').collect();
    name == "ctrl_c"
        || is_handler_name(name)
        || words.iter().any(|w| matches!(*w, "sigterm" | "sigint"))
        || (words.iter().any(|w| matches!(*w, "signal" | "signals"))
            && words
                .iter()
                .any(|w| matches!(*w, "shutdown" | "until" | "block")))
}

/// Whether `e` (a statement) awaits a signal: `X.await` with `?`, `.ok()`, `.is_ok()`,
/// `.expect(..)` and the like after it, also as an `if` / `if let` / `match` condition,
/// where `X` is a waiter's call or `recv()` on a value named for signals (`sigterm`,
/// `signals`, `self.signals`).
fn awaited_signal(e: &syn::Expr) -> bool {
    let mut e = e;
    loop {
        e = match e {
            syn::Expr::If(i) => &i.cond,
            syn::Expr::Let(l) => &l.expr,
            syn::Expr::Match(m) => &m.expr,
            syn::Expr::Try(t) => &t.expr,
            syn::Expr::Paren(p) => &p.expr,
            syn::Expr::MethodCall(m) if !matches!(&*m.receiver, syn::Expr::Path(_)) => &m.receiver,
            _ => break,
        };
    }
    let syn::Expr::Await(a) = e else {
        return false;
    };
    match &*a.base {
        syn::Expr::Call(c) => is_waiter_call(c),
        syn::Expr::MethodCall(m) if m.method == "recv" => {
            names_signals(&m.receiver) || names_sig(&m.receiver) || is_signal_stream(&m.receiver)
        }
        base => is_ctrlc_future(base),
    }
}

/// async-ctrlc's future: `async_ctrlc::CtrlC::new()` (with `?`, `.unwrap()` or
/// `.expect(..)` after it), whose `.await` is Ctrl-C's (lunatic's node).
fn is_ctrlc_future(e: &syn::Expr) -> bool {
    let syn::Expr::Call(c) = super::flow::unwrapped(e) else {
        return false;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return false;
    };
    let mut segs = p.path.segments.iter().rev();
    matches!((segs.next(), segs.next()), (Some(n), Some(t)) if n.ident == "new" && t.ident == "CtrlC")
}

/// Whether `e` is a local named for one signal (`sigterm`, `sigint`, `sig_term`).
fn names_sig(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| {
        let n = i.to_string();
        n.starts_with("sigterm") || n.starts_with("sigint") || n.starts_with("sig_")
    }))
}
