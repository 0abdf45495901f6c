//! Helpers shared by the end-to-end signal tests: find (or build) the example binaries, run
//! them with captured output, send real signals with `libc::kill`, wait with deadlines, and a
//! small seeded random generator so that a failing trial can be replayed (`E2E_SEED`).
//!
//! Each test file is its own process (signal dispositions are process-global); the signals
//! here always go to a *child* process, never to the test itself.

#![allow(dead_code)] // every test file uses a different subset

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// Path of an example binary of this package, built for the same profile as this test.
///
/// `cargo test` builds the examples into `target/<profile>/examples/`, next to the `deps/`
/// directory holding this test binary (found from `std::env::current_exe()`). `cargo test
/// --test X` does not build examples, and a binary left from an older build would be stale, so
/// the first use of each example in a test process runs `cargo build --example NAME` for the
/// same target directory and profile when the binary is missing or older than any source it is
/// built from (the root package, the runtime, the macros, the manifests and the lock file).
/// The freshness check matters: `cargo build --example` selects other packages than `cargo test
/// --workspace`, so cargo unifies features differently and would rebuild half the dependency
/// graph even when the binary is current. Cargo has released its build lock by the time tests
/// run, so building does not deadlock. Set `E2E_NO_BUILD=1` to use the binaries as they are.
pub(crate) fn example(name: &str) -> PathBuf {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("test binary has a parent directory");
    let profile_dir = deps.parent().expect("deps/ has a parent directory");
    let path = profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let mut built = BUILT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if std::env::var_os("E2E_NO_BUILD").is_none()
        && !built.iter().any(|b| b == name)
        && !is_fresh(&path)
    {
        build_example(name, profile_dir);
        built.push(name.to_owned());
    }
    assert!(
        path.exists(),
        "example binary {} is missing",
        path.display()
    );
    path
}

/// Whether `binary` exists and is newer than every source file it is built from.
fn is_fresh(binary: &Path) -> bool {
    let Some(built) = modified(binary) else {
        return false;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let inputs = [
        "Cargo.toml",
        "Cargo.lock",
        "src",
        "examples",
        "shutdown-runtime/Cargo.toml",
        "shutdown-runtime/src",
        "shutdown-macros/Cargo.toml",
        "shutdown-macros/src",
    ];
    inputs
        .iter()
        .all(|input| newest(&root.join(input)).is_some_and(|source| source <= built))
}

/// Modification time of `path`, or `None` when it cannot be read.
fn modified(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The newest modification time of a file, or of any file under a directory.
fn newest(path: &Path) -> Option<std::time::SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_dir() {
        return meta.modified().ok();
    }
    let mut latest = meta.modified().ok()?;
    for entry in std::fs::read_dir(path).ok()? {
        latest = latest.max(newest(&entry.ok()?.path())?);
    }
    Some(latest)
}

fn build_example(name: &str, profile_dir: &Path) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target_dir = profile_dir.parent().expect("profile dir has a parent");
    let mut cmd = Command::new(cargo);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["build", "--example", name])
        .arg("--target-dir")
        .arg(target_dir);
    if profile_dir.file_name().is_some_and(|p| p == "release") {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("run cargo build");
    assert!(
        status.success(),
        "cargo build --example {name} failed: {status}"
    );
}

/// Lines read so far from one of the child's output streams, with a condition variable that
/// is notified on every new line and at end of stream.
#[derive(Debug, Default)]
struct Stream {
    state: Mutex<(Vec<String>, bool)>,
    changed: Condvar,
}

impl Stream {
    fn pump(self: Arc<Self>, from: impl Read + Send + 'static) -> thread::JoinHandle<()> {
        thread::spawn(move || {
            let mut reader = BufReader::new(from);
            let mut line = String::new();
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let mut state = self.state.lock().unwrap();
                        state.0.push(line.trim_end_matches('\n').to_owned());
                        self.changed.notify_all();
                    }
                }
            }
            self.state.lock().unwrap().1 = true;
            self.changed.notify_all();
        })
    }

    fn wait_for(&self, needle: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut state = self.state.lock().unwrap();
        loop {
            if state.0.iter().any(|line| line.contains(needle)) {
                return true;
            }
            let now = Instant::now();
            if state.1 || now >= deadline {
                return false;
            }
            state = self.changed.wait_timeout(state, deadline - now).unwrap().0;
        }
    }

    fn text(&self) -> String {
        let state = self.state.lock().unwrap();
        let mut text = state.0.join("\n");
        text.push('\n');
        text
    }
}

/// A running example process with its stdout and stderr captured line by line.
#[derive(Debug)]
pub(crate) struct Proc {
    child: Child,
    what: String,
    pub(crate) started: Instant,
    stdout: Arc<Stream>,
    stderr: Arc<Stream>,
    pumps: Vec<thread::JoinHandle<()>>,
}

/// How a process ended, with everything it printed.
#[derive(Debug)]
pub(crate) struct Finished {
    pub(crate) status: ExitStatus,
    pub(crate) exited_at: Instant,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Finished {
    /// A one-paragraph description for assertion messages.
    pub(crate) fn describe(&self) -> String {
        format!(
            "status {:?}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.status, self.stdout, self.stderr
        )
    }
}

impl Proc {
    /// Starts `bin` with `args`, stdin closed, stdout and stderr captured.
    pub(crate) fn spawn(bin: &Path, args: &[String]) -> Proc {
        let mut child = Command::new(bin)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
        let stdout = Arc::new(Stream::default());
        let stderr = Arc::new(Stream::default());
        let pumps = vec![
            stdout
                .clone()
                .pump(child.stdout.take().expect("piped stdout")),
            stderr
                .clone()
                .pump(child.stderr.take().expect("piped stderr")),
        ];
        Proc {
            child,
            what: format!("{} {}", bin.display(), args.join(" ")),
            started: Instant::now(),
            stdout,
            stderr,
            pumps,
        }
    }

    pub(crate) fn pid(&self) -> libc::pid_t {
        libc::pid_t::try_from(self.child.id()).expect("pid fits pid_t")
    }

    /// Waits until a stderr line contains `needle`; panics with the output on timeout.
    pub(crate) fn wait_stderr(&self, needle: &str, timeout: Duration) {
        if !self.stderr.wait_for(needle, timeout) {
            panic!(
                "`{needle}` not seen on stderr within {timeout:?} from {}\n--- stdout ---\n{}--- stderr ---\n{}",
                self.what,
                self.stdout.text(),
                self.stderr.text()
            );
        }
    }

    /// Waits until a stdout line contains `needle`; panics with the output on timeout.
    pub(crate) fn wait_stdout(&self, needle: &str, timeout: Duration) {
        if !self.stdout.wait_for(needle, timeout) {
            panic!(
                "`{needle}` not seen on stdout within {timeout:?} from {}\n--- stdout ---\n{}--- stderr ---\n{}",
                self.what,
                self.stdout.text(),
                self.stderr.text()
            );
        }
    }

    /// Everything printed on stderr so far.
    pub(crate) fn stderr_text(&self) -> String {
        self.stderr.text()
    }

    /// Sends `signal` with `libc::kill`. Returns the moment it was sent, or `None` when the
    /// process had already exited (and so could not receive it).
    pub(crate) fn signal(&mut self, signal: libc::c_int) -> Option<Instant> {
        if self.child.try_wait().expect("try_wait").is_some() {
            return None;
        }
        let sent = Instant::now();
        // SAFETY: `kill` has no memory-safety preconditions. The pid is our unreaped child, so
        // it cannot have been recycled for another process.
        let rc = unsafe { libc::kill(self.pid(), signal) };
        assert_eq!(rc, 0, "kill({}, {signal}) failed", self.pid());
        Some(sent)
    }

    /// Has it exited already? (Reaps it if so.)
    pub(crate) fn has_exited(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_some()
    }

    /// Waits up to `timeout` for the exit; on timeout SIGKILLs the process and panics with
    /// everything it printed.
    pub(crate) fn finish(mut self, timeout: Duration) -> Finished {
        let deadline = Instant::now() + timeout;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break Some(status);
            }
            if Instant::now() >= deadline {
                break None;
            }
            thread::sleep(Duration::from_millis(1));
        };
        let exited_at = Instant::now();
        let Some(status) = status else {
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.join_pumps();
            panic!(
                "{} did not exit within {timeout:?} (killed)\n--- stdout ---\n{}--- stderr ---\n{}",
                self.what,
                self.stdout.text(),
                self.stderr.text()
            );
        };
        self.join_pumps();
        Finished {
            status,
            exited_at,
            stdout: self.stdout.text(),
            stderr: self.stderr.text(),
        }
    }

    fn join_pumps(&mut self) {
        for pump in self.pumps.drain(..) {
            let _ = pump.join();
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // A failed assertion must not leave a child process behind.
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Arguments of the worker example, in the contract's form.
pub(crate) fn worker_args(
    ledger: &Path,
    units: u64,
    workers: u64,
    unit_ms: u64,
    grace_ms: u64,
) -> Vec<String> {
    vec![
        "--ledger".into(),
        ledger.display().to_string(),
        "--units".into(),
        units.to_string(),
        "--workers".into(),
        workers.to_string(),
        "--unit-ms".into(),
        unit_ms.to_string(),
        "--grace-ms".into(),
        grace_ms.to_string(),
    ]
}

/// Turns `["--a", "1"]`-style string slices into owned arguments.
pub(crate) fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// Reads a count from the environment (for the long trials), else `default`.
/// Fails the test with every failed trial's description when any trial failed.
pub(crate) fn assert_no_failures(failures: &[String], trials: usize) {
    assert!(
        failures.is_empty(),
        "{} of {trials} trials failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

pub(crate) fn count_from_env(var: &str, default: usize) -> usize {
    match std::env::var(var) {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|e| panic!("{var}={value:?} is not a count: {e}")),
        Err(_) => default,
    }
}

/// A xorshift64* generator; the seed comes from `E2E_SEED` or the clock and is printed so a
/// failing run can be replayed.
#[derive(Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn from_env() -> Rng {
        static SEED: OnceLock<u64> = OnceLock::new();
        let seed = *SEED.get_or_init(|| match std::env::var("E2E_SEED") {
            Ok(value) => value.parse().expect("E2E_SEED must be a u64"),
            Err(_) => {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
                    | 1
            }
        });
        eprintln!("random seed: E2E_SEED={seed}");
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A uniformly random duration in `0..=max`.
    pub(crate) fn duration_up_to(&mut self, max: Duration) -> Duration {
        let micros = u64::try_from(max.as_micros()).unwrap_or(u64::MAX);
        Duration::from_micros(self.next_u64() % (micros + 1))
    }
}

/// Reads the ledger file (empty when it does not exist yet).
pub(crate) fn read_ledger(path: &Path) -> shutdown_discipline::ledger::Ledger {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    shutdown_discipline::ledger::Ledger::parse(&text)
        .unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

/// Waits until the ledger has at least one `begin` line (a unit is in flight).
pub(crate) fn wait_for_begin(path: &Path, timeout: Duration) {
    wait_for_begins(path, 1, timeout);
}

/// Waits until the ledger has at least `count` `begin` lines (with one unit per worker:
/// every worker has a unit in flight).
pub(crate) fn wait_for_begins(path: &Path, count: usize, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        let ledger = read_ledger(path);
        let begun = ledger
            .entries()
            .iter()
            .filter(|e| matches!(e, shutdown_discipline::ledger::Entry::Begin(_)))
            .count();
        if begun >= count {
            return;
        }
        thread::sleep(Duration::from_millis(2));
    }
    panic!(
        "fewer than {count} units begun in {} within {timeout:?}",
        path.display()
    );
}

/// The worker set up for the second-signal scenarios: long units (1.5 s) so the drain after
/// the first signal is still running when the second arrives. Returns once both workers have
/// a unit in flight (so the second signal finds both busy).
pub(crate) fn busy_worker(policy: &str) -> (tempfile::TempDir, PathBuf, Proc) {
    let dir = tempfile::tempdir().expect("tempdir");
    let ledger = dir.path().join("ledger");
    let mut args = worker_args(&ledger, 8, 2, SLOW_UNIT_MS, SLOW_GRACE_MS);
    args.extend(["--second-signal".to_owned(), policy.to_owned()]);
    let proc = Proc::spawn(&example("worker"), &args);
    proc.wait_stderr("worker: ready", Duration::from_secs(10));
    wait_for_begins(&ledger, 2, Duration::from_secs(10));
    (dir, ledger, proc)
}

/// Unit length of [`busy_worker`].
pub(crate) const SLOW_UNIT_MS: u64 = 1500;
/// Grace of [`busy_worker`] (children's budget 6 s > the longest unit, 1.8 s).
pub(crate) const SLOW_GRACE_MS: u64 = 9000;
