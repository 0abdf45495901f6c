//! Fuzz target: one file's analysis, as the engine runs it, must never panic, hang or
//! overflow the stack, whatever the bytes.
//!
//! The first input byte chooses the configuration (drain budget, test code, levels) and
//! the file's place in a crate (`src/main.rs`, `src/lib.rs`, a module, `tests/`); the rest
//! is the file. Like the engine, the analysis runs on a thread with
//! [`PARSE_STACK_BYTES`] of stack (one long-lived worker thread); non-UTF-8 input, and every
//! 16th input, also goes through the engine's own reading path ([`lint_paths`] on a real
//! file in a scratch directory), and the report is rendered as JSON and as human text
//! (miette, which slices the source by the findings' regions).

#![no_main]

use libfuzzer_sys::fuzz_target;
use shutdown_lint::analysis::{Analyzer, FileContext};
use shutdown_lint::config::Config;
use shutdown_lint::engine::{LintOptions, LintReport, lint_paths};
use shutdown_lint::render::human::render_findings;
use shutdown_lint::render::{HumanOptions, render_json};
use shutdown_lint::source::PARSE_STACK_BYTES;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Mutex, OnceLock};

const PLACES: [&str; 4] = [
    "src/main.rs",
    "src/lib.rs",
    "src/net/client.rs",
    "tests/it.rs",
];

fn config(sel: u8) -> Config {
    let toml = format!(
        "drain-budget = \"{}s\"\ninclude-tests = {}\n[rules]\nunused-suppression = \"{}\"\n[spawn]\ntracked = [\"app::spawn_job\"]\nraw = [\"app::fire\"]\n[reexports]\n\"app::rt\" = \"tokio\"\n",
        1 + u32::from(sel >> 4),
        sel & 4 != 0,
        if sel & 8 != 0 { "deny" } else { "warn" },
    );
    Config::from_toml_str(&toml, Path::new("shutdown-lint.toml")).expect("valid fuzz config")
}

fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("shutdown-lint-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(d.join("src/net")).expect("scratch dir");
        std::fs::create_dir_all(d.join("tests")).expect("scratch dir");
        d
    })
}

fn render(report: &LintReport, base: &Path) {
    let json = render_json(report);
    assert!(json.starts_with('{'), "json: {json}");
    let all: Vec<_> = report.findings.iter().collect();
    let opts = HumanOptions {
        width: 80,
        colour: false,
        show_suppressed: true,
    };
    let human = render_findings(&all, base, opts);
    assert_eq!(human.is_empty(), all.is_empty());
}

/// One input's work; runs on the worker thread.
fn check(sel: u8, data: Vec<u8>) {
    let place = PLACES[usize::from(sel & 3)];
    let cfg = config(sel);
    if let Ok(text) = std::str::from_utf8(&data) {
        let analyzer = Analyzer::new(&cfg);
        let ctx = FileContext::from_path(Path::new(place));
        let mut a = analyzer.analyze(Path::new(place), text, &ctx);
        let findings = a.finish(Vec::new(), true);
        for f in &findings {
            assert!(f.region.offset + f.region.len <= text.len(), "{f:?}");
            assert!(f.region.line >= 1 && f.region.column >= 1, "{f:?}");
            assert!(
                text.is_char_boundary(f.region.offset)
                    && text.is_char_boundary(f.region.offset + f.region.len),
                "{f:?}"
            );
        }
        // every 16th input also goes through the engine and the renderers
        if sel & 0xf0 != 0x10 {
            return;
        }
    }
    let dir = scratch();
    std::fs::write(dir.join(place), &data).expect("write scratch file");
    let opts = LintOptions {
        cwd: Some(dir.to_path_buf()),
        threads: Some(1),
        ..LintOptions::default()
    };
    let report = lint_paths(&[dir.join(place)], &opts).expect("engine runs");
    render(&report, dir);
}

type Job = (u8, Vec<u8>, SyncSender<()>);

/// A long-lived worker with the engine's parse stack (spawning a 256 MB-stack thread per
/// input would dominate the run); a panic there aborts the process (libFuzzer's hook).
fn worker() -> &'static Mutex<SyncSender<Job>> {
    static TX: OnceLock<Mutex<SyncSender<Job>>> = OnceLock::new();
    TX.get_or_init(|| {
        let (tx, rx): (SyncSender<Job>, Receiver<Job>) = sync_channel(0);
        std::thread::Builder::new()
            .stack_size(PARSE_STACK_BYTES)
            // shutdown-lint: allow(detached-thread) -- the fuzz harness's analysis thread lives as long as the fuzzing process; there is nothing to drain
            .spawn(move || {
                for (sel, data, done) in rx {
                    check(sel, data);
                    let _ = done.send(());
                }
            })
            .expect("spawn the analysis thread");
        Mutex::new(tx)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let (done_tx, done_rx) = sync_channel(1);
    worker()
        .lock()
        .expect("worker lock")
        .send((sel, body.to_vec(), done_tx))
        .expect("worker alive");
    done_rx.recv().expect("analysis finished");
});
