//! A scheduler whose detached children drain on SIGTERM instead of dying mid-card.
//!
//! Demonstrates the scenario of the "cooperative SIGTERM drain" PR that motivated this
//! workspace: a coordinator claims jobs on a tick and spawns each as a *detached* child through
//! the tracked `spawn_named` (so the drain knows about it, although nobody joins it). On
//! SIGTERM the coordinator stops claiming and returns; cooperative children (`#[drainable]`:
//! each child's card loop claims units in its own task) stop at their next checkpoint (between
//! cards) and record `done (partial)` — never "cancelled", which is the user-cancel state — and
//! each stop is listed in the drain report with the loop's `file:line`; a deliberately non-cooperative child (`--stubborn`: a call with no
//! timeout) is hard-cancelled when the children's budget runs out and is *named* in the drain
//! report with the file:line of its spawn. `--panic` adds a child that panics: the panic is
//! reported and the drain of the others is unaffected.
//!
//! ```text
//! cargo run --release --example scheduler -- [--grace-ms 3000] [--jobs 4] [--tick-ms 50]
//!     [--cards 40] [--card-ms 50] [--stubborn] [--panic]
//! ```
//!
//! `--stubborn` and `--panic` are switches (`--stubborn true|false` also works). Job lines go
//! to stdout (`job 2 started`, `job 2 done (partial) 7/40 cards`); the last stdout line is the
//! drain report as one JSON object. `scheduler: ready` on stderr means the signal handlers are
//! in place. Exit status: 0 for a clean drain, `EXIT_ABORTED` (3) when a child had to be
//! aborted, 2 for bad arguments.

use std::time::Duration;

use shutdown_discipline::cli::{ArgError, Flags};
use shutdown_runtime::EarlySignals;
use shutdown_runtime::{Budgets, RunConfig};

const USAGE: &str = "usage: scheduler [--grace-ms MS] [--jobs N] [--tick-ms MS] [--cards N] \
[--card-ms MS] [--stubborn] [--panic]";

#[derive(Debug, Clone)]
struct Config {
    budgets: Budgets,
    jobs: u64,
    tick: Duration,
    cards: u64,
    card: Duration,
    stubborn: bool,
    panic: bool,
}

impl Config {
    fn from_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Config, ArgError> {
        // Switches may be given bare: turn `--stubborn` into `--stubborn true`.
        let mut expanded = Vec::new();
        let mut args = args.into_iter().peekable();
        while let Some(arg) = args.next() {
            let is_switch = arg == "--stubborn" || arg == "--panic";
            let has_value = args
                .peek()
                .is_some_and(|next| next == "true" || next == "false");
            expanded.push(arg);
            if is_switch && !has_value {
                expanded.push("true".into());
            }
        }
        let mut flags = Flags::parse(expanded)?;
        let grace_ms: u64 = flags.optional("grace-ms", 3000)?;
        let jobs: u64 = flags.optional("jobs", 4)?;
        let tick_ms: u64 = flags.optional("tick-ms", 50)?;
        let cards: u64 = flags.optional("cards", 40)?;
        let card_ms: u64 = flags.optional("card-ms", 50)?;
        let stubborn: bool = flags.optional("stubborn", false)?;
        let panic: bool = flags.optional("panic", false)?;
        flags.finish()?;
        if grace_ms == 0 {
            return Err(ArgError::new("--grace-ms: must be at least 1"));
        }
        if tick_ms == 0 {
            return Err(ArgError::new("--tick-ms: must be at least 1"));
        }
        let budgets = Budgets::from_grace(Duration::from_millis(grace_ms));
        if Duration::from_millis(card_ms) >= budgets.children() {
            return Err(ArgError::new(format!(
                "--card-ms {card_ms} is too long for --grace-ms {grace_ms}: a card in flight \
                 must fit in the children's drain budget of {} ms (2/3 of the grace)",
                budgets.children().as_millis()
            )));
        }
        Ok(Config {
            budgets,
            jobs,
            tick: Duration::from_millis(tick_ms),
            cards,
            card: Duration::from_millis(card_ms),
            stubborn,
            panic,
        })
    }
}

fn main() {
    // First of all: a SIGTERM before `run` has installed its handlers stays pending.
    let early = EarlySignals::block()
        .inspect_err(|e| eprintln!("scheduler: cannot block signals during start-up: {e}"))
        .ok();
    let config = match Config::from_args(std::env::args_os().skip(1)) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("scheduler: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("scheduler: cannot start the tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    let run = RunConfig::new(config.budgets);
    let outcome = runtime.block_on(run.run(coordinator(config, early)));
    println!("{}", outcome.report.to_json_line());
    std::process::exit(outcome.exit_code());
}

/// The tick loop: claim the next job on each tick until SIGTERM, then return at once; the
/// detached children are drained by `run` within the children's budget.
async fn coordinator(config: Config, early: Option<EarlySignals>) {
    // `run` installed the signal handlers before polling this future: deliver any signal
    // that arrived during start-up to them.
    if let Some(early) = early {
        early.release();
    }
    eprintln!("scheduler: ready (pid {})", std::process::id());
    let mut ticks = tokio::time::interval(config.tick);
    let mut next_job = 0;
    loop {
        // The checkpoint before claiming: after SIGTERM nothing new is started.
        if shutdown_runtime::shutdown_requested() {
            break;
        }
        if next_job < config.jobs {
            claim(next_job, &config);
            next_job += 1;
        }
        // Idle until the next tick, but wake at once on shutdown (the tick is cancel-safe).
        tokio::select! {
            biased;
            () = shutdown_runtime::wait_for_shutdown() => break,
            _ = ticks.tick() => {}
        }
    }
    eprintln!("scheduler: stopped claiming after {next_job} jobs");
}

/// Spawns job `id` as a detached, tracked child: its handle is dropped on purpose.
fn claim(id: u64, config: &Config) {
    println!("job {id} started");
    let (cards, card) = (config.cards, config.card);
    if config.stubborn && id == 0 {
        let name = format!("stubborn-job-{id}");
        // e2e: stubborn spawn — tests/task_over_budget.rs expects the report to name the next line.
        let _detached = shutdown_runtime::spawn_named(name, stubborn_job());
    } else if config.panic && id == 1 {
        let name = format!("panicky-job-{id}");
        let _detached = shutdown_runtime::spawn_named(name, panicky_job(id, card));
    } else {
        let name = format!("job-{id}");
        let _detached = shutdown_runtime::spawn_named(name, cooperative_job(id, cards, card));
    }
}

/// Processes cards one by one and records how far it got: `done` or `done (partial)`.
///
/// `#[drainable]`: this task was spawned by the coordinator, so its card loop is the outermost
/// loop of its own task — it claims units (cards), and after SIGTERM its checkpoint stops it
/// *between* cards, never inside one; the stop is listed in the drain report
/// (`loops_stopped_early`: this loop's `file:line`, once per job stopped).
#[shutdown_runtime::drainable]
async fn cooperative_job(id: u64, cards: u64, card: Duration) {
    let mut processed = 0;
    for _ in 0..cards {
        // One card: a bounded external call plus its commit, simulated.
        tokio::time::sleep(card).await;
        processed += 1;
    }
    let state = if processed == cards {
        "done"
    } else {
        "done (partial)"
    };
    println!("job {id} {state} {processed}/{cards} cards");
}

/// A non-cooperative child: one external call without a timeout that never checks the flag.
async fn stubborn_job() {
    tokio::time::sleep(Duration::from_secs(24 * 3600)).await;
    println!("job 0 done");
}

/// A child with a bug: it panics after its first card.
async fn panicky_job(id: u64, card: Duration) {
    tokio::time::sleep(card).await;
    panic!("simulated bug in job {id}");
}
