//! Helpers for the signal tests: each test binary re-executes itself as a child process (env
//! `SHUTDOWN_TEST_CHILD`), so signals hit a real process with its own dispositions.

#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const CHILD_ENV: &str = "SHUTDOWN_TEST_CHILD";

/// The child mode this process was started in, if any.
pub fn child_mode() -> Option<String> {
    std::env::var(CHILD_ENV).ok()
}

/// A child started from this very test binary, with its stdout read line by line.
pub struct Proc {
    pub child: Child,
    lines: mpsc::Receiver<String>,
    pub seen: Vec<String>,
    pub started: Instant,
}

pub fn start(mode: &str) -> Proc {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, mode)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let out: ChildStdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Proc {
        child,
        lines,
        seen: Vec::new(),
        started: Instant::now(),
    }
}

impl Proc {
    /// Waits (at most 20 s) for a stdout line equal to `want`.
    pub fn expect_line(&mut self, want: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let hit = line == want;
                    self.seen.push(line);
                    if hit {
                        return;
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("child never printed {want:?}; saw {:?}", self.seen);
                }
            }
        }
    }

    pub fn signal(&self, signo: i32) {
        // SAFETY: sending a signal to our own child.
        let rc = unsafe { libc::kill(self.child.id() as libc::pid_t, signo) };
        assert_eq!(rc, 0, "kill failed");
    }

    /// Waits (at most 20 s) for the child to exit; returns its status and remaining stdout.
    pub fn wait(mut self) -> (ExitStatus, Vec<String>, Duration) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                break st;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("child did not exit; saw {:?}", self.seen);
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let elapsed = self.started.elapsed();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(500)) {
            self.seen.push(line);
        }
        (status, self.seen, elapsed)
    }
}

/// Prints a line and flushes it (the parent waits for these).
pub fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
}
