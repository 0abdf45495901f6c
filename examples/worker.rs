//! A queue worker that loses nothing on SIGTERM or SIGKILL.
//!
//! Demonstrates the shutdown discipline end to end: signals installed before anything runs
//! (`shutdown_runtime::run`), nested budgets derived from the deploy's grace period
//! (`Budgets::from_grace`), tracked workers (`spawn_named`), and a checkpoint
//! (`shutdown_requested()`) *before each unit is claimed*, so a SIGTERM stops the intake while
//! the units in flight finish and commit. Every step is an external call with a timeout no longer
//! than the children's drain budget, so no call can hold the drain hostage.
//!
//! ```text
//! cargo run --release --example worker -- --ledger FILE --units N --workers K --unit-ms MS --grace-ms MS
//!     [--second-signal ignore|abort-all|reraise] [--startup-ms MS]
//! ```
//!
//! Units `0..N` come from a queue. For each unit the ledger gets `begin <id>`, the unit's two
//! simulated calls run, then the ledger gets `commit <id>`; every line is fsynced. A restart
//! with the same ledger skips committed units and redoes a `begin` without `commit` (the steps
//! are idempotent), so running to completion across any number of SIGTERMs and SIGKILLs commits
//! every unit exactly once. A call that times out is retried (re-queued, `record_retry()`) up to
//! three times per run; a unit that still fails stays uncommitted and the run exits 1.
//! `worker: ready` on stderr means the signal handlers are in place. The last stdout line is
//! the drain report as one JSON object; the exit status is 0 for a clean drain (see
//! `shutdown_runtime::exit` for the others) and 2 for bad arguments.
//!
//! `--unit-ms` must be shorter than `--grace-ms`. A unit longer than the children's budget
//! (2/3 of the grace) is accepted with a warning: SIGTERM during such a unit ends in an abort at
//! the budget (exit 3, the worker named in the report) and the unit is redone on restart.

use std::collections::{BTreeSet, VecDeque};
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shutdown_discipline::cli::{ArgError, Flags};
use shutdown_discipline::ledger::Entry;
use shutdown_discipline::ledger_file::LedgerFile;
use shutdown_runtime::EarlySignals;
use shutdown_runtime::signals::SecondSignal;
use shutdown_runtime::{Budgets, RunConfig};

const USAGE: &str = "usage: worker --ledger FILE --units N --workers K --unit-ms MS --grace-ms MS \
[--second-signal ignore|abort-all|reraise] [--startup-ms MS]";

/// The names of a unit's steps; each is one simulated external call.
const STEPS: [&str; 2] = ["reserve", "charge"];

/// A simulated call lasts between 80 % and 100 % of its nominal time.
const JITTER_PERCENT: u64 = 20;

/// Upper bounds for `--units` and `--workers` (the queue and the tasks live in memory).
const MAX_UNITS: u64 = 10_000_000;
const MAX_WORKERS: usize = 10_000;

/// Attempts per unit and run before the worker gives up on it (it stays uncommitted).
const MAX_ATTEMPTS: u32 = 3;

#[derive(Debug, Clone)]
struct Config {
    ledger: PathBuf,
    units: u64,
    workers: usize,
    unit: Duration,
    budgets: Budgets,
    second_signal: SecondSignal,
    startup: Duration,
}

impl Config {
    fn from_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Config, ArgError> {
        let mut flags = Flags::parse(args)?;
        let ledger: PathBuf = flags.required("ledger")?;
        let units: u64 = flags.required("units")?;
        let workers: usize = flags.required("workers")?;
        let unit_ms: u64 = flags.required("unit-ms")?;
        let grace_ms: u64 = flags.required("grace-ms")?;
        let second_signal = match flags
            .optional("second-signal", "reraise".to_owned())?
            .as_str()
        {
            "ignore" => SecondSignal::Ignore,
            "abort-all" => SecondSignal::AbortAll,
            "reraise" => SecondSignal::Reraise,
            other => {
                return Err(ArgError::new(format!(
                    "--second-signal: invalid value `{other}` (expected ignore, abort-all or reraise)"
                )));
            }
        };
        let startup_ms: u64 = flags.optional("startup-ms", 0)?;
        flags.finish()?;
        if workers == 0 {
            return Err(ArgError::new("--workers: must be at least 1"));
        }
        // The queue is held in memory: keep it to a sane size instead of failing to allocate.
        if units > MAX_UNITS {
            return Err(ArgError::new(format!("--units: at most {MAX_UNITS}")));
        }
        if workers > MAX_WORKERS {
            return Err(ArgError::new(format!("--workers: at most {MAX_WORKERS}")));
        }
        if grace_ms == 0 {
            return Err(ArgError::new("--grace-ms: must be at least 1"));
        }
        if unit_ms >= grace_ms {
            return Err(ArgError::new(format!(
                "--unit-ms {unit_ms} is not shorter than --grace-ms {grace_ms}: a unit in flight \
                 at SIGTERM could never finish within the grace period"
            )));
        }
        let budgets = Budgets::from_grace(Duration::from_millis(grace_ms));
        Ok(Config {
            ledger,
            units,
            workers,
            unit: Duration::from_millis(unit_ms),
            budgets,
            second_signal,
            startup: Duration::from_millis(startup_ms),
        })
    }

    /// The timeout on each simulated call: the children's budget, so no call can outlive the
    /// drain. A step's nominal time (at most `unit-ms / 2 < grace / 2`) is always below it.
    fn call_timeout(&self) -> Duration {
        self.budgets.children()
    }

    /// Why a SIGTERM may end in an abort with these settings, if it may.
    fn warning(&self) -> Option<String> {
        (self.unit >= self.budgets.children()).then(|| {
            format!(
                "warning: a unit takes up to {} ms but the children's drain budget is {} ms \
                 (2/3 of --grace-ms): a unit in flight at SIGTERM will be aborted at the budget \
                 and redone on restart",
                self.unit.as_millis(),
                self.budgets.children().as_millis()
            )
        })
    }
}

/// A unit taken off the queue, with how many times this run has tried it.
#[derive(Debug, Clone, Copy)]
struct Claim {
    id: u64,
    attempt: u32,
}

/// The queue of units still to do. Claiming pops under a short, never-awaited lock.
#[derive(Debug, Default)]
struct Queue {
    state: Mutex<QueueState>,
}

#[derive(Debug, Default)]
struct QueueState {
    pending: VecDeque<Claim>,
    gave_up: Vec<u64>,
}

impl Queue {
    fn new(ids: impl IntoIterator<Item = u64>) -> Queue {
        let pending = ids.into_iter().map(|id| Claim { id, attempt: 1 }).collect();
        Queue {
            state: Mutex::new(QueueState {
                pending,
                gave_up: Vec::new(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        // The lock is never held across an await or a panic point; recover from poisoning
        // anyway rather than cascade a panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn claim(&self) -> Option<Claim> {
        self.lock().pending.pop_front()
    }

    /// Puts a failed claim back for another attempt; gives up after [`MAX_ATTEMPTS`].
    /// Returns whether it was re-queued.
    fn retry(&self, claim: Claim) -> bool {
        let mut state = self.lock();
        if claim.attempt < MAX_ATTEMPTS {
            state.pending.push_back(Claim {
                id: claim.id,
                attempt: claim.attempt + 1,
            });
            true
        } else {
            state.gave_up.push(claim.id);
            false
        }
    }
}

#[derive(Debug)]
struct Shared {
    config: Config,
    queue: Queue,
    ledger: LedgerFile,
}

/// A step's simulated external call took longer than its timeout.
#[derive(Debug)]
struct CallTimedOut {
    step: &'static str,
    after: Duration,
}

fn main() {
    // First of all: a SIGTERM before `run` has installed its handlers stays pending.
    let early = EarlySignals::block()
        .inspect_err(|e| eprintln!("worker: cannot block signals during start-up: {e}"))
        .ok();
    let config = match Config::from_args(std::env::args_os().skip(1)) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("worker: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("worker: cannot start the tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    let run = RunConfig::new(config.budgets).second_signal(config.second_signal);
    let outcome = runtime.block_on(run.run(coordinator(config, early)));
    println!("{}", outcome.report.to_json_line());
    std::process::exit(outcome.exit_code());
}

/// The coordinator: opens the ledger, starts the tracked workers and waits for them.
async fn coordinator(config: Config, early: Option<EarlySignals>) -> Result<(), io::Error> {
    // `run` installed the signal handlers before polling this future: deliver any signal
    // that arrived during start-up to them.
    if let Some(early) = early {
        early.release();
    }
    eprintln!("worker: ready (pid {})", std::process::id());
    if let Some(warning) = config.warning() {
        eprintln!("worker: {warning}");
    }
    if !config.startup.is_zero() {
        // Simulated start-up work (connecting, warming caches) that a signal cuts short.
        tokio::select! {
            biased;
            () = shutdown_runtime::wait_for_shutdown() => {}
            () = tokio::time::sleep(config.startup) => {}
        }
    }
    let (ledger, before) = LedgerFile::open(&config.ledger).await.inspect_err(|e| {
        eprintln!("worker: cannot open the ledger: {e}");
    })?;
    let committed: BTreeSet<u64> = before.committed();
    let pending: VecDeque<u64> = (0..config.units)
        .filter(|id| !committed.contains(id))
        .collect();
    eprintln!(
        "worker: {} of {} units already committed, {} to do",
        config.units as usize - pending.len(),
        config.units,
        pending.len()
    );
    let shared = Arc::new(Shared {
        queue: Queue::new(pending),
        config,
        ledger,
    });
    let handles: Vec<_> = (0..shared.config.workers)
        .map(|k| shutdown_runtime::spawn_named(format!("worker-{k}"), work(k, shared.clone())))
        .collect();
    let mut done = 0;
    let mut failure = None;
    {
        let collect = async {
            for handle in handles {
                match handle.await {
                    Ok(Ok(n)) => done += n,
                    Ok(Err(e)) => failure = Some(e),
                    // Aborted by the drain at the children's budget: the drain report names it and
                    // the exit code says so; its unit stays begun-but-uncommitted, to be redone.
                    Err(e) if e.is_cancelled() => {}
                    Err(e) => {
                        failure = Some(io::Error::other(format!("a worker task failed: {e}")))
                    }
                }
            }
        };
        let mut collect = std::pin::pin!(collect);
        tokio::select! {
            biased;
            () = &mut collect => {}
            () = shutdown_runtime::wait_for_shutdown() => {
                // Say when the drain begins (operators and the second-signal tests wait for it).
                eprintln!("worker: shutdown requested, finishing the units in flight");
                collect.await;
            }
        }
    }
    let (left, gave_up) = {
        let state = shared.queue.lock();
        (state.pending.len(), state.gave_up.clone())
    };
    eprintln!("worker: committed {done} units in this run, {left} left in the queue");
    if failure.is_none() && !gave_up.is_empty() {
        failure = Some(io::Error::other(format!(
            "gave up on units {gave_up:?} after {MAX_ATTEMPTS} timed-out attempts each; \
             they stay uncommitted for the next run"
        )));
    }
    match failure {
        Some(e) => {
            eprintln!("worker: {e}");
            Err(e)
        }
        None => Ok(()),
    }
}

/// One worker: claim, begin, steps, commit — with the checkpoint before every claim.
async fn work(k: usize, shared: Arc<Shared>) -> io::Result<u64> {
    let mut committed = 0;
    loop {
        // The checkpoint: after SIGTERM nothing new is claimed; the unit in hand was finished
        // by the previous iteration.
        if shutdown_runtime::shutdown_requested() {
            break;
        }
        let Some(claim) = shared.queue.claim() else {
            break;
        };
        let id = claim.id;
        shared.ledger.append(Entry::Begin(id)).await?;
        match do_steps(id, &shared.config).await {
            Ok(()) => {
                shared.ledger.append(Entry::Commit(id)).await?;
                committed += 1;
            }
            Err(CallTimedOut { step, after }) => {
                // The unit stays begun-but-uncommitted; it is idempotent, so whoever claims it
                // next (this run or the next) redoes it from the start.
                let requeued = shared.queue.retry(claim);
                if requeued {
                    shutdown_runtime::record_retry();
                }
                eprintln!(
                    "worker-{k}: unit {id}: `{step}` timed out after {} ms (attempt {}); {}",
                    after.as_millis(),
                    claim.attempt,
                    if requeued {
                        "re-queued"
                    } else {
                        "giving up for this run"
                    }
                );
            }
        }
    }
    Ok(committed)
}

/// The unit's steps, each a simulated external call bounded by a timeout.
async fn do_steps(id: u64, config: &Config) -> Result<(), CallTimedOut> {
    let timeout = config.call_timeout();
    for (index, step) in STEPS.iter().enumerate() {
        let nominal = config.unit / STEPS.len() as u32;
        tokio::time::timeout(timeout, external_call(nominal, id, index as u64))
            .await
            .map_err(|_| CallTimedOut {
                step,
                after: timeout,
            })?;
    }
    Ok(())
}

/// Stands in for an idempotent remote call (a payment keyed by unit id, say): it takes 80 % to
/// 100 % of `nominal`, varying per unit and step.
async fn external_call(nominal: Duration, id: u64, step: u64) {
    // A cheap deterministic spread (SplitMix64 of id and step), enough to interleave workers.
    let mut x = id.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ step.wrapping_add(1);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    let percent = 100 - JITTER_PERCENT + x % (JITTER_PERCENT + 1);
    tokio::time::sleep(nominal * percent as u32 / 100).await;
}
