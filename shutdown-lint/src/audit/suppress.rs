//! Suppression comments in deploy manifests: `# shutdown-lint: allow(rule) -- reason` on the
//! line of a finding or the line above, as in Rust code.

use crate::finding::{Finding, Suppressed};
use std::collections::HashMap;
use std::path::PathBuf;

/// Marks audit findings in manifests that a `#` suppression comment covers. `read` returns a
/// manifest's text by its shown path.
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::suppress::apply_manifest_suppressions;
/// use shutdown_lint::finding::{Finding, Region, Severity};
///
/// let text = "services:\n  # shutdown-lint: allow(budget-exceeds-grace) -- third-party image\n  redis:\n";
/// let mut findings = vec![Finding {
///     rule: "budget-exceeds-grace".into(), severity: Severity::Deny, path: "compose.yaml".into(),
///     region: Region { line: 3, column: 3, end_line: 3, end_column: 8, offset: 0, len: 5 },
///     message: "m".into(), help: None, item: "services.redis".into(), suppressed: None,
/// }];
/// apply_manifest_suppressions(&mut findings, &|_| Some(text.to_string()));
/// assert_eq!(findings[0].suppressed.as_ref().unwrap().reason, "third-party image");
/// ```
pub fn apply_manifest_suppressions(
    findings: &mut [Finding],
    read: &dyn Fn(&std::path::Path) -> Option<String>,
) {
    let mut cache: HashMap<PathBuf, Option<Vec<String>>> = HashMap::new();
    for f in findings.iter_mut() {
        if f.suppressed.is_some() {
            continue;
        }
        let lines = cache
            .entry(f.path.clone())
            .or_insert_with(|| read(&f.path).map(|t| t.lines().map(str::to_owned).collect()));
        let Some(lines) = lines else { continue };
        for line_no in [f.region.line, f.region.line.saturating_sub(1)] {
            if line_no == 0 {
                continue;
            }
            let Some(text) = lines.get(line_no - 1) else {
                continue;
            };
            if let Some((rules, reason)) = parse_comment(text)
                && rules.iter().any(|r| r == &f.rule)
            {
                f.suppressed = Some(Suppressed {
                    reason,
                    line: line_no,
                });
                break;
            }
        }
    }
}

/// `# shutdown-lint: allow(a, b) -- reason` → (`[a, b]`, `reason`).
fn parse_comment(line: &str) -> Option<(Vec<String>, String)> {
    let hash = line.find('#')?;
    let comment = line[hash + 1..].trim_start();
    let rest = comment.strip_prefix("shutdown-lint:")?.trim_start();
    let rest = rest.strip_prefix("allow(")?;
    let close = rest.find(')')?;
    let rules = rest[..close]
        .split(',')
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty())
        .collect();
    let after = rest[close + 1..].trim();
    let reason = after
        .strip_prefix("--")
        .map(|r| r.trim().to_owned())
        .unwrap_or_default();
    Some((rules, reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_forms() {
        assert_eq!(
            parse_comment(
                "  stop_signal: SIGQUIT  # shutdown-lint: allow(stopsignal-unhandled, budget-exceeds-grace) -- nginx"
            ),
            Some((
                vec!["stopsignal-unhandled".into(), "budget-exceeds-grace".into()],
                "nginx".into()
            ))
        );
        assert_eq!(
            parse_comment("# shutdown-lint: allow(x)"),
            Some((vec!["x".into()], String::new()))
        );
        assert_eq!(parse_comment("image: a#b"), None);
    }
}
