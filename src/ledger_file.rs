//! The worker's ledger on disk: open (repairing a torn tail), then append lines with an fsync
//! each.

use std::io;
use std::path::{Path, PathBuf};

use tokio::fs::{File, OpenOptions};
use tokio::io::AsyncWriteExt;
use tokio::sync::Mutex;

use crate::ledger::{Entry, Ledger};

/// An append-only ledger file shared by the worker's tasks.
///
/// Each [`LedgerFile::append`] writes one whole line with a single `write` on an `O_APPEND`
/// file and then `fdatasync`s it, so a line that was reported as written survives SIGKILL and
/// power loss, and a crash can at worst leave one torn final line (which [`LedgerFile::open`]
/// cuts off).
///
/// # Examples
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
/// use shutdown_discipline::ledger::Entry;
/// use shutdown_discipline::ledger_file::LedgerFile;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("ledger");
/// let (file, before) = LedgerFile::open(&path).await?;
/// assert!(before.entries().is_empty());
/// file.append(Entry::Begin(0)).await?;
/// file.append(Entry::Commit(0)).await?;
/// drop(file);
/// let (_file, after) = LedgerFile::open(&path).await?;
/// assert!(after.committed().contains(&0));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct LedgerFile {
    path: PathBuf,
    file: Mutex<File>,
}

impl LedgerFile {
    /// Opens (or creates) the ledger, parses what is already there, truncates a torn final
    /// line and returns the file ready for appending together with the parsed content.
    ///
    /// # Errors
    ///
    /// I/O errors, and a malformed complete line (`InvalidData`, naming the path and line).
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
    /// use shutdown_discipline::ledger_file::LedgerFile;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("ledger");
    /// std::fs::write(&path, "begin 1\ncommit 1\ncomm")?;
    /// let (_file, ledger) = LedgerFile::open(&path).await?;
    /// assert_eq!(ledger.torn_tail(), Some("comm"));
    /// assert_eq!(std::fs::read_to_string(&path)?, "begin 1\ncommit 1\n");
    ///
    /// std::fs::write(&path, "begin 1\noops\n")?;
    /// let err = LedgerFile::open(&path).await.unwrap_err();
    /// assert!(err.to_string().ends_with("ledger:2: expected `begin <id>` or `commit <id>`, found `oops`"));
    /// # Ok(()) }
    /// ```
    pub async fn open(path: &Path) -> io::Result<(LedgerFile, Ledger)> {
        let text = match tokio::fs::read(path).await {
            Ok(bytes) => String::from_utf8(bytes).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: not UTF-8: {e}", path.display()),
                )
            })?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e),
        };
        let ledger = Ledger::parse(&text).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}:{}: {}", path.display(), e.line, e.message),
            )
        })?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .await?;
        if let Some(torn) = ledger.torn_tail() {
            let keep = text.len() - torn.len();
            // `keep` fits: it is at most the file's length, which came from a `usize` buffer.
            file.set_len(keep as u64).await?;
            file.sync_data().await?;
        }
        Ok((
            LedgerFile {
                path: path.to_owned(),
                file: Mutex::new(file),
            },
            ledger,
        ))
    }

    /// Appends one line and waits until it is on disk (`fdatasync`).
    ///
    /// # Cancel safety
    ///
    /// If the future is dropped part-way, the line may or may not be in the file; it is never
    /// written twice or interleaved with another line.
    ///
    /// # Errors
    ///
    /// The underlying write or sync failed.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
    /// use shutdown_discipline::ledger::Entry;
    /// use shutdown_discipline::ledger_file::LedgerFile;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let (file, _) = LedgerFile::open(&dir.path().join("ledger")).await?;
    /// file.append(Entry::Begin(3)).await?;
    /// assert_eq!(std::fs::read_to_string(file.path())?, "begin 3\n");
    /// # Ok(()) }
    /// ```
    pub async fn append(&self, entry: Entry) -> io::Result<()> {
        let line = entry.to_line();
        let mut file = self.file.lock().await;
        file.write_all(line.as_bytes()).await?;
        // `sync_data` first waits for the write handed to the blocking pool above.
        file.sync_data().await
    }

    /// The path the ledger was opened at.
    ///
    /// # Examples
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
    /// use shutdown_discipline::ledger_file::LedgerFile;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("ledger");
    /// let (file, _) = LedgerFile::open(&path).await?;
    /// assert_eq!(file.path(), path);
    /// # Ok(()) }
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }
}
