//! The worker's ledger: an append-only text file of `begin <id>` / `commit <id>` lines.
//!
//! The worker example writes it (see [`crate::ledger_file`]) and the end-to-end tests read it
//! back to prove the shutdown discipline: after a SIGTERM no unit is left half done, and across
//! any number of SIGKILLs and restarts every unit is committed exactly once.
//!
//! Every line is written with a single `write` on an `O_APPEND` file, newline included, so a
//! final line without its newline can only be the remains of a write that a crash interrupted:
//! [`Ledger::parse`] ignores it (and says so in [`Ledger::torn_tail`]) rather than misreading
//! `commit 5` out of a torn `commit 57`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

/// One ledger line.
///
/// # Examples
///
/// ```
/// use shutdown_discipline::ledger::Entry;
///
/// assert_eq!(Entry::Begin(7).to_line(), "begin 7\n");
/// assert_eq!("commit 7".parse::<Entry>().unwrap(), Entry::Commit(7));
/// assert!("finish 7".parse::<Entry>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Entry {
    /// The unit was claimed and its steps started.
    Begin(u64),
    /// The unit's steps all finished; it must never be done again.
    Commit(u64),
}

impl Entry {
    /// The line as written to the file, newline included.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::ledger::Entry;
    ///
    /// assert_eq!(Entry::Commit(0).to_line(), "commit 0\n");
    /// ```
    pub fn to_line(&self) -> String {
        match self {
            Entry::Begin(id) => format!("begin {id}\n"),
            Entry::Commit(id) => format!("commit {id}\n"),
        }
    }
}

impl FromStr for Entry {
    type Err = String;

    fn from_str(line: &str) -> Result<Entry, String> {
        let (word, id) = line
            .split_once(' ')
            .ok_or_else(|| format!("expected `begin <id>` or `commit <id>`, found `{line}`"))?;
        let id: u64 = id
            .parse()
            .map_err(|e| format!("invalid unit id `{id}` in `{line}`: {e}"))?;
        match word {
            "begin" => Ok(Entry::Begin(id)),
            "commit" => Ok(Entry::Commit(id)),
            _ => Err(format!(
                "expected `begin <id>` or `commit <id>`, found `{line}`"
            )),
        }
    }
}

/// A ledger line that could not be read; `Display` gives the 1-based line number.
///
/// # Examples
///
/// ```
/// use shutdown_discipline::ledger::Ledger;
///
/// let err = Ledger::parse("begin 1\nbgin 1\ncommit 1\n").unwrap_err();
/// assert_eq!(err.line, 2);
/// assert_eq!(err.to_string(), "line 2: expected `begin <id>` or `commit <id>`, found `bgin 1`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for LedgerError {}

/// A parsed ledger, in file order.
///
/// # Examples
///
/// ```
/// use shutdown_discipline::ledger::Ledger;
///
/// let ledger = Ledger::parse("begin 0\ncommit 0\nbegin 1\n").unwrap();
/// assert_eq!(ledger.committed().into_iter().collect::<Vec<_>>(), vec![0]);
/// let check = ledger.check(2);
/// assert_eq!(check.half_done, vec![1]);
/// assert!(!check.is_complete());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ledger {
    entries: Vec<Entry>,
    torn_tail: Option<String>,
}

impl Ledger {
    /// Parses the whole file content. Blank lines are skipped; a final line without its
    /// newline is a torn write and is ignored (see [`Ledger::torn_tail`]).
    ///
    /// # Errors
    ///
    /// A complete line that is not `begin <id>` or `commit <id>`.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::ledger::{Entry, Ledger};
    ///
    /// let ledger = Ledger::parse("begin 57\ncommit 5").unwrap();
    /// assert_eq!(ledger.entries(), &[Entry::Begin(57)]);
    /// assert_eq!(ledger.torn_tail(), Some("commit 5"));
    /// ```
    pub fn parse(text: &str) -> Result<Ledger, LedgerError> {
        let (complete, torn) = match text.rfind('\n') {
            Some(last) => (&text[..=last], &text[last + 1..]),
            None => ("", text),
        };
        let mut entries = Vec::new();
        for (index, line) in complete.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let entry = line.parse().map_err(|message| LedgerError {
                line: index + 1,
                message,
            })?;
            entries.push(entry);
        }
        Ok(Ledger {
            entries,
            torn_tail: (!torn.is_empty()).then(|| torn.to_owned()),
        })
    }

    /// The complete lines, in file order.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::ledger::{Entry, Ledger};
    ///
    /// assert_eq!(Ledger::parse("commit 3\n").unwrap().entries(), &[Entry::Commit(3)]);
    /// ```
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The bytes after the last newline, if any: the remains of an interrupted write.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::ledger::Ledger;
    ///
    /// assert_eq!(Ledger::parse("begin 1\n").unwrap().torn_tail(), None);
    /// assert_eq!(Ledger::parse("begin 1\nbeg").unwrap().torn_tail(), Some("beg"));
    /// ```
    pub fn torn_tail(&self) -> Option<&str> {
        self.torn_tail.as_deref()
    }

    /// Units with at least one `commit` line: a restarted worker skips them.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::ledger::Ledger;
    ///
    /// let ledger = Ledger::parse("begin 2\ncommit 2\nbegin 4\n").unwrap();
    /// assert!(ledger.committed().contains(&2));
    /// assert!(!ledger.committed().contains(&4));
    /// ```
    pub fn committed(&self) -> BTreeSet<u64> {
        self.entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Commit(id) => Some(*id),
                Entry::Begin(_) => None,
            })
            .collect()
    }

    /// Checks the ledger against the units `0..units` it should cover.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::ledger::Ledger;
    ///
    /// // Unit 0 was begun twice (a restart redid it) and committed once: fine.
    /// let check = Ledger::parse("begin 0\nbegin 0\ncommit 0\n").unwrap().check(1);
    /// assert!(check.is_complete());
    /// assert_eq!(check.redone, vec![0]);
    /// ```
    pub fn check(&self, units: u64) -> LedgerCheck {
        let mut begins: BTreeMap<u64, usize> = BTreeMap::new();
        let mut commits: BTreeMap<u64, usize> = BTreeMap::new();
        // `open[id]` is true between a `begin` and its `commit`.
        let mut open: BTreeMap<u64, bool> = BTreeMap::new();
        let mut commit_without_begin = BTreeSet::new();
        for entry in &self.entries {
            match *entry {
                Entry::Begin(id) => {
                    *begins.entry(id).or_default() += 1;
                    open.insert(id, true);
                }
                Entry::Commit(id) => {
                    *commits.entry(id).or_default() += 1;
                    if open.insert(id, false) != Some(true) {
                        commit_without_begin.insert(id);
                    }
                }
            }
        }
        let out_of_range = begins
            .keys()
            .chain(commits.keys())
            .copied()
            .filter(|&id| id >= units)
            .collect::<BTreeSet<_>>();
        LedgerCheck {
            units,
            committed: commits.len(),
            duplicate_commits: filter_ids(&commits, |n| n > 1),
            half_done: open
                .iter()
                .filter(|&(_, &is_open)| is_open)
                .map(|(&id, _)| id)
                .collect(),
            redone: filter_ids(&begins, |n| n > 1),
            missing: (0..units).filter(|id| !commits.contains_key(id)).collect(),
            commit_without_begin: commit_without_begin.into_iter().collect(),
            out_of_range: out_of_range.into_iter().collect(),
        }
    }
}

fn filter_ids(counts: &BTreeMap<u64, usize>, keep: impl Fn(usize) -> bool) -> Vec<u64> {
    counts
        .iter()
        .filter(|&(_, &n)| keep(n))
        .map(|(&id, _)| id)
        .collect()
}

/// What [`Ledger::check`] found. Every list is sorted by unit id.
///
/// # Examples
///
/// ```
/// use shutdown_discipline::ledger::Ledger;
///
/// let check = Ledger::parse("begin 0\ncommit 0\ncommit 0\n").unwrap().check(2);
/// assert_eq!(check.duplicate_commits, vec![0]);
/// assert_eq!(check.missing, vec![1]);
/// assert!(!check.is_exactly_once());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerCheck {
    /// How many units the ledger should cover (`0..units`).
    pub units: u64,
    /// Distinct units with a `commit`.
    pub committed: usize,
    /// Units committed more than once (must be empty).
    pub duplicate_commits: Vec<u64>,
    /// Units whose last `begin` has no `commit` after it: work in flight when the process
    /// stopped. A graceful drain leaves none; a SIGKILL may leave some, to be redone.
    pub half_done: Vec<u64>,
    /// Units begun more than once (redone after a kill, or retried after a timed-out call).
    pub redone: Vec<u64>,
    /// Units in range that were never committed.
    pub missing: Vec<u64>,
    /// Units with a `commit` not preceded by an open `begin` (must be empty).
    pub commit_without_begin: Vec<u64>,
    /// Ids outside `0..units` (must be empty).
    pub out_of_range: Vec<u64>,
}

impl LedgerCheck {
    /// No commit is duplicated, unpaired or out of range (the run may be unfinished).
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::ledger::Ledger;
    ///
    /// assert!(Ledger::parse("begin 1\ncommit 1\n").unwrap().check(3).is_exactly_once());
    /// assert!(!Ledger::parse("commit 1\n").unwrap().check(3).is_exactly_once());
    /// ```
    pub fn is_exactly_once(&self) -> bool {
        self.duplicate_commits.is_empty()
            && self.commit_without_begin.is_empty()
            && self.out_of_range.is_empty()
    }

    /// Every unit committed exactly once and nothing half done.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_discipline::ledger::Ledger;
    ///
    /// assert!(Ledger::parse("begin 0\ncommit 0\nbegin 1\ncommit 1\n").unwrap().check(2).is_complete());
    /// ```
    pub fn is_complete(&self) -> bool {
        self.is_exactly_once() && self.missing.is_empty() && self.half_done.is_empty()
    }
}
