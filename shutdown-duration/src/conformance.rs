//! The conformance table: every place of the toolkit that reads a duration runs its tests
//! against [`CASES`], so the macros, the lint's config, the audit and compose parsing accept
//! and reject the same texts with the same values.
//!
//! A caller with a narrower range (the runtime's grace must be at least 1 ms) rejects the
//! accepted values outside it and documents that; it never accepts a rejected text.

/// One text and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Case {
    /// The text as written.
    pub text: &'static str,
    /// Its length in nanoseconds, `None` when it is not a duration.
    pub nanos: Option<u128>,
}

const fn ok(text: &'static str, nanos: u128) -> Case {
    Case {
        text,
        nanos: Some(nanos),
    }
}

const fn bad(text: &'static str) -> Case {
    Case { text, nanos: None }
}

const S: u128 = 1_000_000_000;
const MS: u128 = 1_000_000;

/// The table.
///
/// # Examples
///
/// ```
/// use shutdown_duration::conformance::CASES;
/// let c = CASES.iter().find(|c| c.text == "30sec").unwrap();
/// assert_eq!(c.nanos, None);
/// assert!(CASES.iter().all(|c| shutdown_duration::parse(c.text).ok().map(|d| d.as_nanos()) == c.nanos));
/// ```
pub const CASES: &[Case] = &[
    ok("30s", 30 * S),
    ok("25s", 25 * S),
    ok("1500ms", 1500 * MS),
    ok("250ms", 250 * MS),
    ok("2m", 120 * S),
    ok("1h", 3600 * S),
    ok("1m30s", 90 * S),
    ok("1h2m3s", 3723 * S),
    ok("1.5s", 1500 * MS),
    ok("0.5m", 30 * S),
    ok(" 30s ", 30 * S),
    ok("120s", 120 * S),
    ok("500us", 500_000),
    ok("500µs", 500_000),
    ok("10ns", 10),
    ok("0.1ms", 100_000),
    ok("0s", 0),
    ok("1s500ms", 1500 * MS),
    bad(""),
    bad("   "),
    bad("30"),
    bad("0"),
    bad("s"),
    bad("30 s"),
    bad("1m 30s"),
    bad("30sec"),
    bad("30secs"),
    bad("2min"),
    bad("30S"),
    bad("1d"),
    bad("-1s"),
    bad("+1s"),
    bad("1.s"),
    bad(".5s"),
    bad("1..2s"),
    bad("1e3s"),
    bad("ten seconds"),
    bad("30s,"),
    bad("99999999999999999999h"),
];
