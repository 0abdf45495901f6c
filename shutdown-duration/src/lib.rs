//! The one duration grammar of the shutdown toolkit.
//!
//! `#[shutdown_runtime::main(grace = "..")]`, the linter's `drain-budget` / `grace-period`
//! config keys, the audit's reading of them, and compose's `stop_grace_period` all parse
//! durations here, so `"30sec"` means the same everywhere (here: it is rejected everywhere,
//! with the offending part located).
//!
//! Grammar (Go's `time.ParseDuration` without a sign, and without a unitless number):
//!
//! ```text
//! duration = part { part }            surrounding whitespace is ignored, none inside
//! part     = number unit
//! number   = digit { digit } [ "." digit { digit } ]
//! unit     = "ns" | "us" | "µs" | "ms" | "s" | "m" | "h"
//! ```
//!
//! Callers may add their own bounds on the value (the runtime's grace must be at least
//! 1 ms); [`conformance::CASES`] is the table every caller's tests run against.

pub mod conformance;

use std::fmt;
use std::ops::Range;
use std::time::Duration;

/// The accepted units and their length in nanoseconds.
pub const UNITS: [(&str, u64); 7] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// The units as a user reads them in an error message.
pub const UNITS_TEXT: &str = "ns, us, ms, s, m or h";

/// Why a text is not a duration, and where in it.
///
/// # Examples
///
/// ```
/// let e = shutdown_duration::parse("30sec").unwrap_err();
/// assert_eq!(e.span, 2..5);
/// assert_eq!(e.to_string(), "unknown unit `sec` in `30sec`: use ns, us, ms, s, m or h");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationError {
    /// What is wrong (lowercase, code in backticks, no trailing period).
    pub message: String,
    /// Byte range of the offending part within the text given to [`parse`].
    pub span: Range<usize>,
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DurationError {}

/// Parses a duration such as `30s`, `1m30s`, `1.5s`, `250ms` or `2h`.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// assert_eq!(shutdown_duration::parse("1m30s"), Ok(Duration::from_secs(90)));
/// assert_eq!(shutdown_duration::parse(" 1.5s "), Ok(Duration::from_millis(1500)));
/// assert!(shutdown_duration::parse("30").is_err());
/// assert!(shutdown_duration::parse("30sec").is_err());
/// ```
pub fn parse(text: &str) -> Result<Duration, DurationError> {
    let lead = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    let err = |message: String, span: Range<usize>| DurationError {
        message,
        span: lead + span.start..lead + span.end,
    };
    if trimmed.is_empty() {
        return Err(DurationError {
            message: format!("empty duration: write e.g. `30s` (units: {UNITS_TEXT})"),
            span: 0..text.len(),
        });
    }
    let mut total: u128 = 0;
    let mut pos = 0;
    let bytes = trimmed.as_bytes();
    while pos < bytes.len() {
        let start = pos;
        let int_end = digits_end(bytes, pos);
        if int_end == pos {
            let end = next_char_end(trimmed, pos);
            return Err(err(
                format!(
                    "expected a number at `{}` in `{trimmed}`",
                    &trimmed[pos..end]
                ),
                pos..end,
            ));
        }
        let mut end = int_end;
        let mut frac = "";
        if bytes.get(end) == Some(&b'.') {
            let frac_end = digits_end(bytes, end + 1);
            if frac_end == end + 1 {
                return Err(err(
                    format!("expected digits after `.` in `{trimmed}`"),
                    start..end + 1,
                ));
            }
            frac = &trimmed[end + 1..frac_end];
            end = frac_end;
        }
        let unit_end = trimmed[end..]
            .find(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace())
            .map_or(trimmed.len(), |i| end + i);
        let unit = &trimmed[end..unit_end];
        let Some(&(_, scale)) = UNITS.iter().find(|(u, _)| *u == unit) else {
            return Err(if unit.is_empty() {
                let part = &trimmed[start..end];
                let whole = if part == trimmed {
                    String::new()
                } else {
                    format!(" in `{trimmed}`")
                };
                err(
                    format!("`{part}` needs a unit{whole}: use {UNITS_TEXT}"),
                    start..end,
                )
            } else {
                err(
                    format!("unknown unit `{unit}` in `{trimmed}`: use {UNITS_TEXT}"),
                    end..unit_end,
                )
            });
        };
        let Some(nanos) = part_nanos(&trimmed[start..int_end], frac, scale) else {
            return Err(err(format!("`{trimmed}` is too long"), start..unit_end));
        };
        total = total.saturating_add(nanos);
        pos = unit_end;
        if pos < bytes.len() && trimmed[pos..].starts_with(char::is_whitespace) {
            return Err(err(
                format!("unexpected space in `{trimmed}`: write the parts together, e.g. `1m30s`"),
                pos..pos + 1,
            ));
        }
    }
    let secs = u64::try_from(total / 1_000_000_000)
        .map_err(|_| err(format!("`{trimmed}` is too long"), 0..trimmed.len()))?;
    Ok(Duration::new(secs, (total % 1_000_000_000) as u32))
}

fn digits_end(bytes: &[u8], from: usize) -> usize {
    bytes[from.min(bytes.len())..]
        .iter()
        .position(|b| !b.is_ascii_digit())
        .map_or(bytes.len(), |i| from + i)
}

fn next_char_end(s: &str, pos: usize) -> usize {
    s[pos..].chars().next().map_or(pos, |c| pos + c.len_utf8())
}

/// `int.frac` times `scale` nanoseconds, exactly (fractions below 1 ns are dropped).
fn part_nanos(int: &str, frac: &str, scale: u64) -> Option<u128> {
    let whole: u128 = int.parse::<u128>().ok()?.checked_mul(u128::from(scale))?;
    let mut frac_nanos: u128 = 0;
    let mut unit = u128::from(scale);
    for d in frac.bytes().take(30) {
        unit /= 10;
        frac_nanos += u128::from(d - b'0') * unit;
    }
    let total = whole.checked_add(frac_nanos)?;
    (total <= u128::from(u64::MAX) * 1_000_000_000).then_some(total)
}

/// Formats a duration the short way messages print it: `120s`, `1.5s`, `250ms`.
///
/// The result parses back to the same duration whenever it is a whole number of
/// milliseconds.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// assert_eq!(shutdown_duration::format(Duration::from_secs(120)), "120s");
/// assert_eq!(shutdown_duration::format(Duration::from_millis(1500)), "1.5s");
/// assert_eq!(shutdown_duration::format(Duration::from_millis(250)), "250ms");
/// ```
pub fn format(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else if d < Duration::from_secs(1) && d.subsec_nanos().is_multiple_of(1_000_000) {
        format!("{}ms", d.as_millis())
    } else {
        let s = format!("{:.3}", d.as_secs_f64());
        format!("{}s", s.trim_end_matches('0').trim_end_matches('.'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conformance_table() {
        for case in conformance::CASES {
            let got = parse(case.text).ok().map(|d| d.as_nanos());
            assert_eq!(got, case.nanos, "{:?}", case.text);
        }
    }

    #[test]
    fn errors_point_at_the_offending_part() {
        fn at(t: &str) -> &str {
            let e = parse(t).unwrap_err();
            &t[e.span]
        }
        assert_eq!(at("30sec"), "sec");
        assert_eq!(at("  1m30x"), "x");
        assert_eq!(at("30"), "30");
        assert_eq!(at("1m 30s"), " ");
        assert_eq!(at("-1s"), "-");
        assert_eq!(at("1.s"), "1.");
    }

    #[test]
    fn formats_round_trip() {
        for text in ["120s", "1.5s", "250ms", "0s"] {
            assert_eq!(format(parse(text).unwrap()), text);
        }
    }
}
