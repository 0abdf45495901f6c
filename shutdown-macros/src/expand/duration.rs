//! Parsing of human durations such as `"30s"`, `"1500ms"`, `"2m"`, `"1m30s"` or `"1.5s"`.
//!
//! Used by `#[shutdown_runtime::main(grace = "..")]`; the result is a whole number of
//! milliseconds that the expansion passes to `Duration::from_millis`.

/// The units accepted after a number, with their length in milliseconds.
const UNITS: [(&str, f64); 4] = [
    ("ms", 1.0),
    ("s", 1_000.0),
    ("m", 60_000.0),
    ("h", 3_600_000.0),
];

/// Parses `text` into milliseconds, or says what is wrong with it.
///
/// The grammar is one or more `<number><unit>` parts (`1m30s`), where `<number>` is decimal
/// (`1.5`) and `<unit>` is one of `ms`, `s`, `m`, `h`. The total must be at least 1 ms and fit
/// in a `u64`.
pub(crate) fn parse_millis(text: &str) -> Result<u64, String> {
    let help =
        "expected a duration such as \"30s\", \"1500ms\", \"2m\" or \"1m30s\" (units: ms, s, m, h)";
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(format!("empty duration: {help}"));
    }
    let mut rest = trimmed;
    let mut total = 0.0_f64;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = &rest[..number_len];
        if number.is_empty() || number.starts_with('.') || number.ends_with('.') {
            return Err(format!("`{trimmed}` is not a duration: {help}"));
        }
        let value: f64 = number
            .parse()
            .map_err(|_| format!("`{trimmed}` is not a duration: {help}"))?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        let Some(&(_, scale)) = UNITS.iter().find(|(name, _)| *name == unit) else {
            return Err(if unit.is_empty() {
                format!("`{trimmed}` has no unit: {help}")
            } else {
                format!("unknown unit `{unit}` in `{trimmed}`: {help}")
            });
        };
        rest = &rest[unit_len..];
        total += value * scale;
    }
    if total < 1.0 {
        return Err(format!(
            "`{trimmed}` is shorter than 1ms; the grace period must be positive"
        ));
    }
    if total >= u64::MAX as f64 {
        return Err(format!("`{trimmed}` is too long"));
    }
    Ok(total.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_millis;

    #[test]
    fn accepts_units_and_compounds() {
        assert_eq!(parse_millis("30s"), Ok(30_000));
        assert_eq!(parse_millis("1500ms"), Ok(1_500));
        assert_eq!(parse_millis("2m"), Ok(120_000));
        assert_eq!(parse_millis("1h"), Ok(3_600_000));
        assert_eq!(parse_millis("1m30s"), Ok(90_000));
        assert_eq!(parse_millis("1.5s"), Ok(1_500));
    }

    #[test]
    fn rejects_bad_text() {
        for bad in [
            "", "30", "s", "30 s", "30sec", "-1s", "0s", "1.s", ".5s", "1e3s", "0.1ms",
        ] {
            assert!(parse_millis(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
