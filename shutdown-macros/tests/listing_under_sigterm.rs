//! The dufs scenario as a real process: an HTTP server whose handler streams a listing built by
//! a `#[drainable]` loop in a task it spawns (the response body goes through a pipe, as in a
//! file server's zip download), signalled with SIGTERM at a random time while it serves. Every
//! trial must end in the **full listing** with a 200, or fail **visibly** (no response, or a
//! body shorter than its `Content-Length`) — never a shorter listing that looks complete.
//!
//! Why it holds: each request runs as one claimed unit (`unit::claimed`, as the server
//! integration does), so the checkpoints of the handler's loop and of the task it spawns (which
//! belongs to the request) do not stop; the accept loop claims nothing new after the signal.
//!
//! `LISTING_TRIALS=N` sets the number of trials (default 200; each takes about 100 ms).
//! `LISTING_UNCLAIMED=1` is the control: requests are served without `unit::claimed`, and the
//! trials then fail (the producer stops at its checkpoint and the body is cut).

mod child;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use child::{child_mode, say, start};
use shutdown_runtime::{drainable, unit};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream as AsyncStream};
use tokio::sync::mpsc;

/// Entries per listing, each `entry-NNNNNNNN\n` (15 bytes).
const ENTRIES: usize = 2000;
const ENTRY_LEN: usize = 15;

/// The listing, produced entry by entry into the response pipe (a directory walk).
#[drainable]
async fn produce(tx: mpsc::Sender<String>) -> Result<(), String> {
    for i in 0..ENTRIES {
        if i % 100 == 0 {
            tokio::time::sleep(Duration::from_millis(1)).await; // reading the next directory
        }
        tx.send(format!("entry-{i:08}\n"))
            .await
            .map_err(|_| "client gone".to_owned())?;
    }
    Ok(())
}

/// One request: headers with the full length, then the body streamed from the spawned task.
#[drainable]
async fn handle(mut conn: AsyncStream) -> std::io::Result<()> {
    let mut request = Vec::new();
    let mut buf = [0u8; 512];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = conn.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        request.extend_from_slice(&buf[..n]);
    }
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        ENTRIES * ENTRY_LEN
    );
    conn.write_all(head.as_bytes()).await?;
    let (tx, mut rx) = mpsc::channel(64);
    tokio::spawn(produce(tx));
    while let Some(entry) = rx.recv().await {
        conn.write_all(entry.as_bytes()).await?;
    }
    conn.shutdown().await
}

#[drainable]
async fn serve(listener: TcpListener, claim: bool) {
    #[drainable(idle)] // `accept` is cancel-safe
    while let Ok((conn, _)) = listener.accept().await {
        if claim {
            tokio::spawn(unit::claimed(handle(conn)));
        } else {
            // The control (`LISTING_UNCLAIMED=1`): without the claim the spawned producer's
            // checkpoint ends the listing early, and the trials show it.
            tokio::spawn(handle(conn));
        }
    }
}

async fn child() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    say(&format!("ready {}", listener.local_addr().unwrap().port()));
    serve(listener, std::env::var_os("LISTING_UNCLAIMED").is_none()).await;
}

/// How one trial ended.
#[derive(Debug, PartialEq, Eq)]
enum Trial {
    Full,
    /// No status line: the request came after the listener closed (visible).
    Refused,
    /// A 200 whose body is shorter than its `Content-Length` (visible).
    Cut,
    /// A 200 with a complete-looking but wrong listing: the failure this test exists for.
    Truncated(usize),
}

fn fetch(port: u16, signal: impl FnOnce()) -> Trial {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        signal();
        return Trial::Refused;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(20)));
    if s.write_all(b"GET /list HTTP/1.1\r\nHost: x\r\n\r\n")
        .is_err()
    {
        signal();
        return Trial::Refused;
    }
    signal();
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return Trial::Refused;
    };
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .and_then(|v| v.parse().ok())
        .expect("Content-Length");
    if body.len() < length {
        return Trial::Cut;
    }
    let expected: String = (0..ENTRIES).map(|i| format!("entry-{i:08}\n")).collect();
    if body == expected {
        Trial::Full
    } else {
        Trial::Truncated(body.lines().count())
    }
}

fn parent() {
    let trials: usize = std::env::var("LISTING_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut seed = Instant::now().elapsed().as_nanos() as u64 ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut full, mut refused, mut cut) = (0, 0, 0);
    let started = Instant::now();
    for trial in 0..trials {
        let mut p = start("server");
        let port: u16 = loop {
            p.expect_any_line();
            if let Some(port) = p.stdout.last().and_then(|l| l.strip_prefix("ready ")) {
                break port.parse().unwrap();
            }
        };
        // The listing takes ~20-40 ms here: signal anywhere from before the request is read
        // to after the body is done.
        let delay = Duration::from_micros(next() % 50_000);
        let outcome = fetch(port, || {
            std::thread::sleep(delay);
            p.signal(libc::SIGTERM);
        });
        let out = p.finish();
        assert_eq!(
            out.status.code(),
            Some(0),
            "trial {trial}: the server must drain cleanly\n{out:?}"
        );
        match outcome {
            Trial::Full => full += 1,
            Trial::Refused => refused += 1,
            Trial::Cut => cut += 1,
            Trial::Truncated(lines) => panic!(
                "trial {trial} (SIGTERM after {delay:?}): a 200 with {lines} of {ENTRIES} entries that looks complete"
            ),
        }
    }
    println!(
        "listing under SIGTERM: {trials} trials in {:?}: {full} full listings, {refused} refused before a response, {cut} visibly cut, 0 truncated 200s",
        started.elapsed()
    );
    assert_eq!(cut, 0, "a claimed request is never cut within the budget");
    std::process::exit(0);
}

#[shutdown_runtime::main(grace = "6s", report = "none")]
async fn main() {
    match child_mode() {
        Some(_) => child().await,
        None => parent(),
    }
}
