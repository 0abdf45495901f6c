//! Durations as people write them in deploy manifests and configuration: `30s`, `1m30s`,
//! `1.5s`, `500ms`, `2m`, `1h`, and a bare number of seconds.
//!
//! Compose's `stop_grace_period` uses Go's duration syntax; `#[shutdown_runtime::main(grace =
//! "..")]` and the `grace-period` / `drain-budget` config keys use the same units, so one parser
//! serves all of them.

use std::time::Duration;

/// Parses a human duration: one or more `<number><unit>` parts (`ns`, `us`/`µs`, `ms`, `s`,
/// `m`, `h`), or a bare non-negative number of seconds.
///
/// Returns `None` for anything else (empty, negative, unknown unit, overflow).
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::duration::parse_duration;
/// use std::time::Duration;
///
/// assert_eq!(parse_duration("1m30s"), Some(Duration::from_secs(90)));
/// assert_eq!(parse_duration("1.5s"), Some(Duration::from_millis(1500)));
/// assert_eq!(parse_duration("250ms"), Some(Duration::from_millis(250)));
/// assert_eq!(parse_duration("45"), Some(Duration::from_secs(45)));
/// assert_eq!(parse_duration("soon"), None);
/// ```
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Ok(secs) = text.parse::<f64>() {
        return seconds(secs);
    }
    let mut total = 0f64;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 {
            return None;
        }
        let number: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += number * factor;
        rest = &rest[unit_len..];
    }
    seconds(total)
}

fn seconds(secs: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(secs).ok()
}

/// Formats a duration the short way the audit prints it: `120s`, `1.5s`, `250ms`.
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::duration::format_duration;
/// use std::time::Duration;
///
/// assert_eq!(format_duration(Duration::from_secs(120)), "120s");
/// assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
/// assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
/// ```
pub fn format_duration(d: Duration) -> String {
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
    fn go_style_durations() {
        assert_eq!(parse_duration("10s"), Some(Duration::from_secs(10)));
        assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h2m3s"), Some(Duration::from_secs(3723)));
        assert_eq!(parse_duration(" 30s "), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("0"), Some(Duration::ZERO));
    }

    #[test]
    fn rejects_garbage() {
        for bad in ["", "s", "10x", "-5s", "-5", "1..2s", "ten seconds", "1e400"] {
            assert_eq!(parse_duration(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn formats_round_trip() {
        for text in ["120s", "1.5s", "250ms", "0s"] {
            assert_eq!(format_duration(parse_duration(text).unwrap()), text);
        }
    }
}
