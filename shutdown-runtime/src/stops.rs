//! Loops stopped early: where a `#[drainable]` checkpoint ended a loop, and how many times.
//!
//! A stop is recorded on the checkpoint's slow path only (after shutdown was requested, and
//! only when the checkpoint does stop its loop), per scope; the next drain of that scope takes
//! the records into [`DrainReport::loops_stopped_early`](crate::DrainReport::loops_stopped_early),
//! so a partial result is never silent.

use std::fmt;
use std::sync::Mutex;

use serde::{Serialize, Serializer};

/// Where a checkpointed loop is in the source: built by `#[drainable]` expansions.
///
/// ```
/// let site = shutdown_runtime::LoopSite { file: "src/jobs.rs", line: 12, column: 5 };
/// assert_eq!(site.to_string(), "src/jobs.rs:12");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopSite {
    /// The file of the loop (as `file!()`).
    pub file: &'static str,
    /// The line of the loop keyword (1-based).
    pub line: u32,
    /// The column of the loop keyword (1-based).
    pub column: u32,
}

impl fmt::Display for LoopSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A loop that a checkpoint stopped before it ran out of work: its site and how many times
/// it stopped (e.g. once per worker task running it).
///
/// Serializes as `{"location": "file:line", "count": 3}`.
///
/// ```
/// use shutdown_runtime::{LoopSite, LoopStop};
/// let stop = LoopStop { site: LoopSite { file: "src/jobs.rs", line: 12, column: 5 }, count: 3 };
/// assert_eq!(serde_json::to_string(&stop).unwrap(), r#"{"location":"src/jobs.rs:12","count":3}"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LoopStop {
    /// Where the loop is, serialized as `"file:line"`.
    #[serde(rename = "location", serialize_with = "ser_site")]
    pub site: LoopSite,
    /// How many times it was stopped.
    pub count: u64,
}

fn ser_site<S: Serializer>(site: &LoopSite, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(site)
}

/// Stops not yet reported: (scope key, stop).
static STOPS: Mutex<Vec<(usize, LoopStop)>> = Mutex::new(Vec::new());

/// Records one stop of the loop at `site` in the scope identified by `scope`.
#[cold]
pub(crate) fn record(scope: usize, site: &LoopSite) {
    let mut stops = STOPS.lock().unwrap_or_else(|e| e.into_inner());
    match stops
        .iter_mut()
        .find(|(key, stop)| *key == scope && stop.site == *site)
    {
        Some((_, stop)) => stop.count += 1,
        None => stops.push((
            scope,
            LoopStop {
                site: *site,
                count: 1,
            },
        )),
    }
    tracing::info!(
        target: "shutdown_runtime",
        phase = "checkpoint",
        location = %site,
        "loop stopped early at a checkpoint"
    );
}

/// Takes the stops recorded for `scope`, in the order the loops first stopped.
pub(crate) fn take(scope: usize) -> Vec<LoopStop> {
    let mut stops = STOPS.lock().unwrap_or_else(|e| e.into_inner());
    let mut taken = Vec::new();
    stops.retain(|(key, stop)| {
        if *key == scope {
            taken.push(*stop);
            false
        } else {
            true
        }
    });
    taken
}

/// Adds `more` into `into`, summing the counts of the same site.
pub(crate) fn merge(into: &mut Vec<LoopStop>, more: Vec<LoopStop>) {
    for stop in more {
        match into.iter_mut().find(|s| s.site == stop.site) {
            Some(s) => s.count += stop.count,
            None => into.push(stop),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: LoopSite = LoopSite {
        file: "a.rs",
        line: 1,
        column: 1,
    };
    const B: LoopSite = LoopSite {
        file: "b.rs",
        line: 2,
        column: 1,
    };

    #[test]
    fn records_count_per_site_and_scope_and_are_taken_once() {
        record(1, &A);
        record(1, &A);
        record(2, &A);
        record(1, &B);
        let one = take(1);
        assert_eq!(
            one,
            [
                LoopStop { site: A, count: 2 },
                LoopStop { site: B, count: 1 }
            ]
        );
        assert!(take(1).is_empty());
        assert_eq!(take(2), [LoopStop { site: A, count: 1 }]);
    }

    #[test]
    fn merge_sums_the_same_site() {
        let mut v = vec![LoopStop { site: A, count: 1 }];
        merge(
            &mut v,
            vec![
                LoopStop { site: A, count: 2 },
                LoopStop { site: B, count: 1 },
            ],
        );
        assert_eq!(
            v,
            [
                LoopStop { site: A, count: 3 },
                LoopStop { site: B, count: 1 }
            ]
        );
    }
}
