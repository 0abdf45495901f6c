//! Suppression comments in deploy manifests: `# shutdown-lint: allow(rule) -- reason` on the
//! line of a finding or the line above, as in Rust code — and, as there, a suppression
//! without a reason is reported (`suppression-without-reason`), and one that suppresses
//! nothing or names an unknown rule too (`unused-suppression`).

use crate::finding::{Finding, Region, Severity, Suppressed};
use crate::registry::{self, RuleMeta};
use std::path::{Path, PathBuf};

/// One `#` suppression comment in a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Comment {
    line: usize,
    column: usize,
    offset: usize,
    len: usize,
    rules: Vec<String>,
    reason: String,
    used: bool,
}

/// Marks the findings in `manifests` that a `#` suppression comment covers, and returns the
/// findings about the comments themselves (missing reason, suppressing nothing, unknown
/// rule). `read` returns a manifest's text by its shown path; `level` gives a rule's
/// configured level (`allow` drops those findings).
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::suppress::apply_manifest_suppressions;
/// use shutdown_lint::finding::{Finding, Region, Severity};
///
/// let text = "services:\n  # shutdown-lint: allow(budget-exceeds-grace) -- third-party image\n  redis:\n    # shutdown-lint: allow(stopsignal-unhandled)\n";
/// let mut findings = vec![Finding {
///     rule: "budget-exceeds-grace".into(), severity: Severity::Deny, path: "compose.yaml".into(),
///     region: Region { line: 3, column: 3, end_line: 3, end_column: 8, offset: 0, len: 5 },
///     message: "m".into(), help: None, item: "services.redis".into(), suppressed: None,
/// }];
/// let extra = apply_manifest_suppressions(
///     &mut findings, &["compose.yaml".into()], &|_| Some(text.to_string()), &|m| m.default_severity,
/// );
/// assert_eq!(findings[0].suppressed.as_ref().unwrap().reason, "third-party image");
/// let rules: Vec<&str> = extra.iter().map(|f| f.rule.as_str()).collect();
/// assert_eq!(rules, ["suppression-without-reason", "unused-suppression"]);
/// assert_eq!(extra[0].region.line, 4);
/// ```
pub fn apply_manifest_suppressions(
    findings: &mut [Finding],
    manifests: &[PathBuf],
    read: &dyn Fn(&Path) -> Option<String>,
    level: &dyn Fn(&RuleMeta) -> Severity,
) -> Vec<Finding> {
    let mut extra = Vec::new();
    let mut files: Vec<PathBuf> = manifests.to_vec();
    for f in findings.iter() {
        if !files.contains(&f.path) {
            files.push(f.path.clone());
        }
    }
    for path in files {
        let Some(text) = read(&path) else { continue };
        let mut comments = comments_in(&text);
        if comments.is_empty() {
            continue;
        }
        for f in findings
            .iter_mut()
            .filter(|f| f.path == path && f.suppressed.is_none())
        {
            let hit = comments.iter_mut().find(|c| {
                (c.line == f.region.line || c.line + 1 == f.region.line)
                    && c.rules.contains(&f.rule)
            });
            if let Some(c) = hit {
                c.used = true;
                f.suppressed = Some(Suppressed {
                    reason: c.reason.clone(),
                    line: c.line,
                });
            }
        }
        for c in &comments {
            let region = Region {
                line: c.line,
                column: c.column,
                end_line: c.line,
                end_column: c.column + text[c.offset..c.offset + c.len].chars().count(),
                offset: c.offset,
                len: c.len,
            };
            let mut push = |meta: &RuleMeta, message: String, help: &str| {
                let severity = level(meta);
                if severity != Severity::Allow {
                    extra.push(Finding {
                        rule: meta.name.to_owned(),
                        severity,
                        path: path.clone(),
                        region,
                        message,
                        help: Some(help.to_owned()),
                        item: String::new(),
                        suppressed: None,
                    });
                }
            };
            if c.reason.is_empty() {
                push(
                    &registry::SUPPRESSION_WITHOUT_REASON,
                    format!("suppression of `{}` gives no reason", c.rules.join("`, `")),
                    "add `-- <why this is safe>` after `allow(..)`",
                );
            }
            if let Some(unknown) = c.rules.iter().find(|r| registry::rule(r).is_none()) {
                push(
                    &registry::UNUSED_SUPPRESSION,
                    format!("suppression names unknown rule `{unknown}`"),
                    "`shutdown-lint --list-rules` lists the rule names",
                );
            } else if !c.used {
                push(
                    &registry::UNUSED_SUPPRESSION,
                    format!(
                        "suppression of `{}` matches no finding on this line or the next",
                        c.rules.join("`, `")
                    ),
                    "remove the comment",
                );
            }
        }
    }
    extra
}

/// Every suppression comment of a manifest, with the region of the comment.
fn comments_in(text: &str) -> Vec<Comment> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        if let Some((hash, rules, reason)) = parse_comment(line) {
            let body = line[hash..].trim_end();
            out.push(Comment {
                line: index + 1,
                column: line[..hash].chars().count() + 1,
                offset: offset + hash,
                len: body.len(),
                rules,
                reason,
                used: false,
            });
        }
        offset += line.len();
    }
    out
}

/// `# shutdown-lint: allow(a, b) -- reason` → (byte index of `#`, `[a, b]`, `reason`).
fn parse_comment(line: &str) -> Option<(usize, Vec<String>, String)> {
    let hash = line
        .find("# shutdown-lint:")
        .or_else(|| line.find("#shutdown-lint:"))?;
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
    Some((hash, rules, reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_forms() {
        let (_, rules, reason) = parse_comment(
            "  stop_signal: SIGQUIT  # shutdown-lint: allow(stopsignal-unhandled, budget-exceeds-grace) -- nginx",
        )
        .unwrap();
        assert_eq!(rules, ["stopsignal-unhandled", "budget-exceeds-grace"]);
        assert_eq!(reason, "nginx");
        let (hash, rules, reason) = parse_comment("# shutdown-lint: allow(x)").unwrap();
        assert_eq!(
            (hash, rules, reason),
            (0, vec!["x".to_owned()], String::new())
        );
        assert_eq!(parse_comment("image: a#b"), None);
    }

    #[test]
    fn unknown_rules_are_reported() {
        let text = "# shutdown-lint: allow(no-such-rule) -- because\nkind: Pod\n";
        let extra = apply_manifest_suppressions(
            &mut [],
            &["k.yaml".into()],
            &|_| Some(text.into()),
            &|m| m.default_severity,
        );
        assert_eq!(extra.len(), 1);
        assert_eq!(
            extra[0].message,
            "suppression names unknown rule `no-such-rule`"
        );
        assert_eq!((extra[0].region.column, extra[0].region.len), (1, 47));
    }
}
