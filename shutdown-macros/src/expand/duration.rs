//! `grace = ".."` of `#[shutdown_runtime::main]`: the toolkit's one duration grammar
//! ([`shutdown_duration`], shared with the linter and the audit), plus the macro's own bound
//! (at least 1 ms); the result is a whole number of milliseconds that the expansion passes to
//! `Duration::from_millis`.

/// Parses `text` into milliseconds, or says what is wrong with it.
///
/// The grammar is [`shutdown_duration::parse`]'s: one or more `<number><unit>` parts
/// (`1m30s`), `<number>` decimal (`1.5`), `<unit>` one of `ns`, `us`, `ms`, `s`, `m`, `h`.
/// The total must be at least 1 ms.
pub(crate) fn parse_millis(text: &str) -> Result<u64, String> {
    let d = shutdown_duration::parse(text).map_err(|e| {
        format!("{e}; expected a duration such as \"30s\", \"1500ms\", \"2m\" or \"1m30s\"")
    })?;
    let trimmed = text.trim();
    if d.as_nanos() < 1_000_000 {
        return Err(format!(
            "`{trimmed}` is shorter than 1ms; the grace period must be positive"
        ));
    }
    u64::try_from(d.as_millis()).map_err(|_| format!("`{trimmed}` is too long"))
}

#[cfg(test)]
mod tests {
    use super::parse_millis;

    #[test]
    fn accepts_units_and_compounds() {
        assert_eq!(parse_millis("30s"), Ok(30_000));
        assert_eq!(parse_millis("1500ms"), Ok(1_500));
        assert_eq!(parse_millis("1m30s"), Ok(90_000));
        assert_eq!(parse_millis("1.5s"), Ok(1_500));
    }

    /// The toolkit's duration table: the macro agrees with the linter and the audit on every
    /// text, apart from its own bound (at least 1 ms).
    #[test]
    fn conformance_table() {
        for case in shutdown_duration::conformance::CASES {
            let want = case
                .nanos
                .filter(|n| *n >= 1_000_000)
                .map(|n| (n / 1_000_000) as u64);
            assert_eq!(parse_millis(case.text).ok(), want, "{:?}", case.text);
        }
    }
}
