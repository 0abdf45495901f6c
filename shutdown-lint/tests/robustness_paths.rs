//! The `shutdown-lint` binary on file-system oddities, in temporary directories: missing
//! paths (exit 2, a clear message), dangling symlinks, symlink loops, FIFOs and device files
//! (never read: no hang), directories named `*.rs`, non-UTF-8 file names.
//!
//! "Unreadable" is tested through entries whose read fails or must not be attempted, not
//! with `chmod 000`: the tests may run as root, for whom permissions do not stop reads.
//! Every run has a deadline, so a hang fails the test instead of stalling CI.

#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(60);

/// Runs the binary in `dir`, killing it (and failing) if it outlives [`DEADLINE`].
fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shutdown-lint"))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > DEADLINE {
            child.kill().unwrap();
            let o = child.wait_with_output().unwrap();
            panic!(
                "shutdown-lint {args:?} hung for {DEADLINE:?}; stderr: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
        0,
        "mkfifo {p:?}"
    );
}

/// `(path, rule, message)` of every finding of a JSON run.
fn findings(o: &Output) -> Vec<(String, String, String)> {
    let out = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {out}\nstderr: {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const SPAWN: &str = "pub fn f() { tokio::spawn(async {}); }\n";

#[test]
fn missing_paths_exit_2_naming_the_path_and_print_no_report() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ok.rs", SPAWN);
    for args in [
        &["ok.rs", "no/such/dir"][..],
        &["--format", "json", "no/such/file.rs"],
        &["--config", "missing.toml", "ok.rs"],
    ] {
        let o = run_in(d.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            o.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        let err = String::from_utf8_lossy(&o.stderr);
        let missing = args
            .iter()
            .find(|a| a.contains("no") || a.contains("missing"));
        assert!(
            err.contains(missing.unwrap()) && err.contains("does not exist"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn dangling_symlinks_and_loops_are_parse_errors_and_the_run_goes_on() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ok.rs", SPAWN);
    symlink("nowhere.rs", d.path().join("dangling.rs")).unwrap();
    symlink("self.rs", d.path().join("self.rs")).unwrap();
    std::fs::create_dir(d.path().join("deep")).unwrap();
    symlink("../deep", d.path().join("deep/again")).unwrap();
    let o = run_in(d.path(), &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let got = findings(&o);
    assert!(
        got.iter().any(|(p, r, _)| p == "ok.rs" && r == "raw-spawn"),
        "{got:?}"
    );
    for name in ["dangling.rs", "self.rs"] {
        assert!(
            got.iter()
                .any(|(p, r, m)| p == name && r == "parse-error" && m.contains("cannot read")),
            "{name}: {got:?}"
        );
    }
    // named directly on the command line, too
    let o = run_in(d.path(), &["--format", "json", "dangling.rs", "self.rs"]);
    let got = findings(&o);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.iter().all(|(_, r, _)| r == "parse-error"), "{got:?}");
}

#[test]
fn fifos_and_device_files_are_never_read() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ok.rs", SPAWN);
    mkfifo(&d.path().join("pipe.rs"));
    symlink("pipe.rs", d.path().join("to_pipe.rs")).unwrap();
    symlink("/dev/zero", d.path().join("zero.rs")).unwrap();
    // the walk: a FIFO entry is skipped; symlinks to a FIFO or a device are reported
    let o = run_in(d.path(), &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let got = findings(&o);
    assert!(
        got.iter().any(|(p, r, _)| p == "ok.rs" && r == "raw-spawn"),
        "{got:?}"
    );
    for name in ["to_pipe.rs", "zero.rs"] {
        assert!(
            got.iter().any(|(p, r, m)| p == name
                && r == "parse-error"
                && m.contains("not a regular file")),
            "{name}: {got:?}"
        );
    }
    assert!(!got.iter().any(|(p, _, _)| p == "pipe.rs"), "{got:?}");
    // named directly
    let o = run_in(d.path(), &["--format", "json", "pipe.rs", "zero.rs"]);
    let got = findings(&o);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got.iter()
            .all(|(_, r, m)| r == "parse-error" && m.contains("not a regular file")),
        "{got:?}"
    );
}

#[test]
fn directories_named_rs_and_non_utf8_names() {
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("dir.rs")).unwrap();
    write(d.path(), "dir.rs/inner.rs", SPAWN);
    let odd = std::ffi::OsStr::from_bytes(b"caf\xe9.rs");
    std::fs::write(d.path().join(odd), SPAWN).unwrap();
    let o = run_in(d.path(), &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let got = findings(&o);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.iter().all(|(_, r, _)| r == "raw-spawn"), "{got:?}");
    assert!(
        got.iter().any(|(p, _, _)| p == "dir.rs/inner.rs"),
        "{got:?}"
    );
    assert!(got.iter().any(|(p, _, _)| p.starts_with("caf")), "{got:?}");
    // human output too
    let o = run_in(d.path(), &["--color", "never"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("2 findings"));
}
