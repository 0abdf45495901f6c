//! Behaviour of `#[drainable]` expansions against the real runtime, on isolated scopes
//! (`scope = ..`): every loop kind stops at its next boundary after a request and claims
//! nothing more, labels / `?` / `return` keep their meaning, routed spawns are tracked and
//! drained, and a non-cooperative routed spawn is aborted and reported at the user's line.
//!
//! This file is compiled by `cargo clippy --all-targets -- -D warnings` in CI, so it also
//! checks that the expansions are clippy-clean.

use std::cell::Cell;
use std::collections::VecDeque;
use std::time::Duration;

use shutdown_runtime::{Shutdown, drainable};

/// An iterator that counts how many units were claimed from it.
struct Claims<'a> {
    next: u32,
    end: u32,
    claimed: &'a Cell<u32>,
}

impl Iterator for Claims<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.next == self.end {
            return None;
        }
        self.claimed.set(self.claimed.get() + 1);
        self.next += 1;
        Some(self.next - 1)
    }
}

#[drainable(scope = scope)]
fn sum_for(scope: &Shutdown, units: Claims<'_>, stop_at: u32) -> (u32, &'static str) {
    let mut sum = 0;
    #[drainable(partial)] // the code after the loop records the partial result
    for unit in units {
        sum += unit;
        if unit == stop_at {
            scope.request();
        }
    }
    (sum, "after the loop")
}

#[test]
fn for_stops_before_the_iterator_advances() {
    let scope = Shutdown::new();
    let claimed = Cell::new(0);
    let (sum, after) = sum_for(
        &scope,
        Claims {
            next: 0,
            end: 10,
            claimed: &claimed,
        },
        3,
    );
    assert_eq!(sum, 1 + 2 + 3);
    assert_eq!(claimed.get(), 4, "units 0..=3 claimed, unit 4 never taken");
    assert_eq!(after, "after the loop");
}

#[drainable(scope = scope)]
fn count_while(scope: &Shutdown, evaluations: &Cell<u32>, stop_at: u32) -> u32 {
    let mut n = 0;
    #[drainable(partial)] // the code after the loop records the partial result
    while {
        evaluations.set(evaluations.get() + 1);
        n < 100
    } {
        n += 1;
        if n == stop_at {
            scope.request();
        }
    }
    n
}

#[test]
fn while_stops_before_its_condition() {
    let scope = Shutdown::new();
    let evaluations = Cell::new(0);
    assert_eq!(count_while(&scope, &evaluations, 5), 5);
    assert_eq!(
        evaluations.get(),
        5,
        "the condition is not evaluated after the request"
    );
}

#[drainable(scope = scope)]
fn drain_queue(scope: &Shutdown, queue: &mut VecDeque<u32>, stop_at: u32) -> Vec<u32> {
    let mut done = Vec::new();
    #[drainable(partial)] // the code after the loop records the partial result
    while let Some(unit) = queue.pop_front() {
        done.push(unit);
        if unit == stop_at {
            scope.request();
        }
    }
    done
}

#[test]
fn while_let_leaves_unclaimed_units_in_the_queue() {
    let scope = Shutdown::new();
    let mut queue: VecDeque<u32> = (0..10).collect();
    assert_eq!(drain_queue(&scope, &mut queue, 2), [0, 1, 2]);
    assert_eq!(
        queue,
        (3..10).collect::<VecDeque<_>>(),
        "nothing was dropped on the floor"
    );
}

#[drainable(scope = scope)]
fn pop_loop(scope: &Shutdown, queue: &mut Vec<u32>) -> usize {
    let mut done = 0;
    #[drainable(partial)] // the code after the loop records the partial result
    loop {
        let Some(unit) = queue.pop() else { break };
        done += 1;
        if unit == 7 {
            scope.request();
        }
    }
    done
}

#[test]
fn loop_stops_at_its_top() {
    let scope = Shutdown::new();
    let mut queue: Vec<u32> = (0..10).collect();
    assert_eq!(pop_loop(&scope, &mut queue), 3, "9, 8, 7 then stop");
    assert_eq!(queue, (0..7).collect::<Vec<_>>());
}

#[drainable(scope = scope)]
fn labelled(scope: &Shutdown, rows: &[Vec<i32>]) -> Result<(i32, usize), String> {
    let mut total = 0;
    let mut rows_seen = 0;
    #[drainable(partial)] // the code after the loop records the partial result
    'rows: for row in rows {
        rows_seen += 1;
        let mut col = 0;
        'cols: while col < row.len() {
            let v = row[col];
            col += 1;
            if v == 0 {
                continue 'cols;
            }
            if v < 0 {
                continue 'rows;
            }
            if v > 1000 {
                return Err(format!("too big: {v}"));
            }
            if v == 99 {
                break 'rows;
            }
            total += check(v)?;
        }
    }
    Ok((total, rows_seen))
}

fn check(v: i32) -> Result<i32, String> {
    if v == 13 {
        Err("unlucky".to_owned())
    } else {
        Ok(v)
    }
}

#[test]
fn labels_question_mark_and_return_keep_their_meaning() {
    let scope = Shutdown::new();
    let rows = vec![vec![1, 0, 2, -1, 50], vec![3, 4], vec![5, 99, 6], vec![7]];
    assert_eq!(labelled(&scope, &rows), Ok((15, 3)));
    assert_eq!(labelled(&scope, &[vec![13]]), Err("unlucky".to_owned()));
    assert_eq!(
        labelled(&scope, &[vec![1], vec![1001]]),
        Err("too big: 1001".to_owned())
    );
    scope.request();
    assert_eq!(
        labelled(&scope, &rows),
        Ok((0, 0)),
        "after a request no row is claimed"
    );
}

#[drainable(scope = scope)]
fn with_closure(scope: &Shutdown, stop_at: u32) -> (u32, u32) {
    let run = |limit: u32| {
        let mut n = 0;
        #[drainable(partial)] // the code after the loop records the partial result
        for i in 0..limit {
            n += 1;
            if i == stop_at {
                scope.request();
            }
        }
        n
    };
    let first = run(10);
    let second = run(10);
    (first, second)
}

#[test]
fn loops_in_closures_get_checkpoints() {
    let scope = Shutdown::new();
    assert_eq!(with_closure(&scope, 4), (5, 0));
}

#[drainable(scope = scope)]
fn value_loops(scope: &Shutdown) -> u32 {
    let mut i = 0;
    let found = loop {
        i += 1;
        if i == 5 {
            break i * 10;
        }
    };
    let mut skipped = 0;
    #[drainable(skip)]
    while skipped < 3 {
        skipped += 1;
    }
    #[drainable(partial)] // the code after the loop records the partial result
    for _ in 0..3 {
        skipped += 100; // never runs: shutdown was requested
    }
    found + skipped
}

#[test]
fn value_loops_and_skipped_loops_are_unchanged() {
    let scope = Shutdown::new();
    scope.request();
    assert_eq!(value_loops(&scope), 53);
}

#[drainable(scope = scope)]
fn serve(scope: &Shutdown, accepted: &mut Vec<u32>, limit: u32) -> Result<usize, String> {
    let mut next = 0;
    #[drainable(on_shutdown = Ok(accepted.len()))]
    loop {
        if next == limit {
            return Err("listener closed".to_owned());
        }
        accepted.push(next);
        next += 1;
        if next == 3 {
            scope.request();
        }
    }
}

#[test]
fn on_shutdown_gives_a_tail_loop_its_value() {
    let scope = Shutdown::new();
    let mut accepted = Vec::new();
    assert_eq!(serve(&scope, &mut accepted, 10), Ok(3));
    let other = Shutdown::new();
    assert_eq!(
        serve(&other, &mut Vec::new(), 2),
        Err("listener closed".to_owned())
    );
}

struct Worker {
    scope: Shutdown,
    handled: Cell<u32>,
}

impl Worker {
    #[drainable(scope = self.scope)]
    fn run<'a, I>(&self, units: I) -> u32
    where
        I: IntoIterator<Item = &'a u32>,
    {
        #[drainable(partial)] // the code after the loop records the partial result
        for unit in units {
            self.handled.set(self.handled.get() + 1);
            if *unit == 2 {
                self.scope.request();
            }
        }
        self.handled.get()
    }
}

#[test]
fn methods_with_self_scope_and_generics() {
    let worker = Worker {
        scope: Shutdown::new(),
        handled: Cell::new(0),
    };
    assert_eq!(worker.run(&[0, 1, 2, 3, 4]), 3);
}

#[drainable(scope = scope)]
async fn consume(
    scope: Shutdown,
    mut rx: tokio::sync::mpsc::Receiver<u32>,
) -> (Vec<u32>, tokio::sync::mpsc::Receiver<u32>) {
    let mut done = Vec::new();
    #[drainable(idle)]
    while let Some(job) = rx.recv().await {
        tokio::task::yield_now().await;
        done.push(job);
        if job == 2 {
            scope.request();
        }
    }
    (done, rx)
}

#[tokio::test]
async fn idle_while_let_leaves_queued_jobs_in_the_channel() {
    let scope = Shutdown::new();
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    for job in 0..6 {
        tx.send(job).await.unwrap();
    }
    let (done, mut rx) = consume(scope, rx).await;
    assert_eq!(done, [0, 1, 2]);
    assert_eq!(rx.recv().await, Some(3), "job 3 is still queued");
}

#[tokio::test]
async fn idle_wait_wakes_on_request_without_a_message() {
    let scope = Shutdown::new();
    let (tx, rx) = tokio::sync::mpsc::channel::<u32>(16);
    let consumer = tokio::spawn(consume(scope.clone(), rx));
    tokio::task::yield_now().await;
    scope.request();
    let (done, _rx) = tokio::time::timeout(Duration::from_secs(10), consumer)
        .await
        .expect("the idle wait ended on the request")
        .unwrap();
    assert!(done.is_empty());
    drop(tx);
}

#[drainable(scope = scope)]
async fn poll_jobs(scope: &Shutdown, rx: &mut tokio::sync::mpsc::Receiver<u32>) -> u32 {
    let mut sum = 0;
    #[drainable(partial)] // the code after the loop records the partial result
    loop {
        #[drainable(idle)]
        let job = rx.recv().await;
        match job {
            Some(job) => sum += job,
            None => break,
        }
    }
    sum
}

#[tokio::test]
async fn idle_statement_inside_loop() {
    let scope = Shutdown::new();
    let (tx, mut rx) = tokio::sync::mpsc::channel::<u32>(4);
    tx.send(5).await.unwrap();
    let waker = {
        let scope = scope.clone();
        tokio::spawn(async move {
            tokio::task::yield_now().await;
            scope.request();
        })
    };
    assert_eq!(poll_jobs(&scope, &mut rx).await, 5);
    waker.await.unwrap();
    drop(tx);
}

#[drainable(scope = scope)]
fn start_workers(scope: &Shutdown, ticks: std::sync::Arc<std::sync::atomic::AtomicU32>) -> usize {
    let async_ticks = ticks.clone();
    let _task = tokio::spawn(async move {
        loop {
            async_ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    });
    let thread_ticks = ticks.clone();
    let _thread = std::thread::spawn(move || {
        loop {
            thread_ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    let _blocking = ::tokio::task::spawn_blocking(move || {
        let mut n = 0u64;
        while n < u64::MAX {
            n += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    scope.tracked_len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routed_spawns_are_tracked_and_drained() {
    let scope = Shutdown::new();
    let ticks = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    assert_eq!(start_workers(&scope, ticks.clone()), 3);
    tokio::time::sleep(Duration::from_millis(20)).await;
    scope.request();
    let report = scope.drain(Duration::from_secs(10)).await;
    assert!(report.aborted.is_empty(), "{report:?}");
    assert!(report.still_running_blocking.is_empty(), "{report:?}");
    assert_eq!(report.drained, 3, "{report:?}");
    assert!(ticks.load(std::sync::atomic::Ordering::Relaxed) > 0);
}

#[drainable(scope = scope)]
fn start_stubborn(scope: &Shutdown) -> u32 {
    let line = line!() + 1;
    tokio::spawn(async { std::future::pending::<()>().await });
    line
}

#[tokio::test]
async fn a_non_cooperative_routed_spawn_is_aborted_and_named_at_the_users_line() {
    let scope = Shutdown::new();
    let line = start_stubborn(&scope);
    scope.request();
    let report = scope.drain(Duration::from_millis(50)).await;
    assert_eq!(report.aborted.len(), 1, "{report:?}");
    let location = report.aborted[0].location;
    assert_eq!(location.file(), file!());
    assert_eq!(location.line(), line);
    assert_eq!(
        report.aborted[0].name, "std::future::pending",
        "named after what it runs"
    );
}

#[drainable(scope = scope)]
fn start_local(scope: &Shutdown, ticks: std::rc::Rc<Cell<u32>>) -> tokio::task::JoinHandle<u32> {
    tokio::task::spawn_local(async move {
        loop {
            ticks.set(ticks.get() + 1);
            tokio::task::yield_now().await;
        }
        ticks.get()
    })
}

#[tokio::test]
async fn routed_spawn_local_is_tracked_and_drained() {
    let scope = Shutdown::new();
    let local = tokio::task::LocalSet::new();
    let ticks = std::rc::Rc::new(Cell::new(0));
    let handle = local.run_until(async {
        let handle = start_local(&scope, ticks.clone());
        assert_eq!(scope.tracked_len(), 1);
        while ticks.get() < 3 {
            tokio::task::yield_now().await;
        }
        scope.request();
        handle.await.unwrap()
    });
    assert!(handle.await >= 3);
    let report = scope.drain(Duration::from_secs(10)).await;
    assert!(report.aborted.is_empty(), "{report:?}");
}
