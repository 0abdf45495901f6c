//! Helpers for the `#[shutdown_runtime::main]` report tests: each test binary's `main` is the
//! attribute's expansion; started with `SHUTDOWN_MAIN_CHILD=<mode>` it is the child under test,
//! otherwise it is the parent, which re-executes itself as a child, sends it real signals and
//! checks its exit status, stdout and stderr. Waits are on observable lines, with deadlines.

#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const CHILD_ENV: &str = "SHUTDOWN_MAIN_CHILD";

/// The child mode this process runs in, if it is a child.
pub fn child_mode() -> Option<String> {
    std::env::var(CHILD_ENV).ok()
}

/// Prints a line on stdout and flushes it (the parent waits for it).
pub fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A child process of this test binary.
pub struct Proc {
    child: Child,
    lines: mpsc::Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
    pub stdout: Vec<String>,
}

/// What a finished child did.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<String>,
    pub stderr: String,
}

impl Finished {
    /// The stderr lines that are the human report.
    pub fn report_lines(&self) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.starts_with("shutdown: "))
            .collect()
    }
}

pub fn start(mode: &str) -> Proc {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, mode)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    Proc {
        child,
        lines,
        stderr,
        stdout: Vec::new(),
    }
}

impl Proc {
    /// Waits (at most 20 s) for the stdout line `want`.
    pub fn expect_line(&mut self, want: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let hit = line == want;
                    self.stdout.push(line);
                    if hit {
                        return;
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    panic!(
                        "child never printed {want:?}; stdout so far: {:?}",
                        self.stdout
                    );
                }
            }
        }
    }

    /// Waits (at most 20 s) for the next stdout line (pushed to `stdout`).
    pub fn expect_any_line(&mut self) {
        match self.lines.recv_timeout(Duration::from_secs(20)) {
            Ok(line) => self.stdout.push(line),
            Err(_) => {
                let _ = self.child.kill();
                panic!(
                    "child printed nothing more; stdout so far: {:?}",
                    self.stdout
                );
            }
        }
    }

    /// Sends `signo` to the child.
    pub fn signal(&self, signo: libc::c_int) {
        // SAFETY: kill(2) on our own child's pid.
        let rc = unsafe { libc::kill(self.child.id() as libc::pid_t, signo) };
        assert_eq!(rc, 0, "kill failed");
    }

    /// Waits (at most 20 s) for the child to exit and collects its output.
    pub fn finish(mut self) -> Finished {
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                break st;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("child did not exit within 20 s");
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.stdout.push(line);
        }
        Finished {
            status,
            stdout: self.stdout,
            stderr: self.stderr.join().unwrap_or_default(),
        }
    }
}
