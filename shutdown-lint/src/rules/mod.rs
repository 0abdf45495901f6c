//! The rule registry: every rule's static metadata and documentation, one file per rule.
//!
//! Per-file rules look at a file's [`FileModel`] through a [`RuleContext`] and push
//! [`Finding`]s; `sigterm-missing` combines the files of one binary in the engine;
//! `parse-error` and the two suppression rules are raised by the driver itself.

pub mod detached_thread;
pub mod http_no_timeout;
pub mod http_timeout_over_budget;
pub mod parse_error;
pub mod raw_spawn;
pub mod server_no_graceful_shutdown;
pub mod sigterm_missing;
pub mod suppression_without_reason;
pub mod unused_suppression;

use crate::config::Config;
use crate::finding::{Finding, Region, Severity};
use crate::model::FileModel;
use std::path::Path;

/// Where rule docs link to: the rule's source file in the repository.
pub const RULES_URL: &str =
    "https://github.com/shutdown-discipline/shutdown-discipline/blob/main/shutdown-lint/src/rules/";

/// Static description of a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleMeta {
    /// The rule name (contract), e.g. `raw-spawn`.
    pub name: &'static str,
    /// Level when the config does not set one.
    pub default_severity: Severity,
    /// One line.
    pub summary: &'static str,
    /// Markdown: What it does / Why it matters / Example / Use instead.
    pub doc: &'static str,
}

impl RuleMeta {
    /// Stable link to the rule's documentation.
    ///
    /// # Examples
    /// ```
    /// let m = shutdown_lint::rules::rule("raw-spawn").unwrap();
    /// assert!(m.help_uri().ends_with("/rules/raw_spawn.rs"));
    /// ```
    pub fn help_uri(&self) -> String {
        let file = self.name.replace('-', "_");
        if crate::audit::rules::AUDIT_RULES.contains(&self.name) {
            // audit-only rules live with the audit
            format!("{RULES_URL}../audit/rules/{file}.rs").replace("/rules/../", "/")
        } else {
            format!("{RULES_URL}{file}.rs")
        }
    }
}

static ALL: &[RuleMeta] = &[
    raw_spawn::META,
    http_no_timeout::META,
    http_timeout_over_budget::META,
    detached_thread::META,
    sigterm_missing::META,
    server_no_graceful_shutdown::META,
    parse_error::META,
    suppression_without_reason::META,
    unused_suppression::META,
    crate::audit::rules::budget_exceeds_grace::META,
    crate::audit::rules::stopsignal_unhandled::META,
];

/// Rules raised only by `cargo shutdown audit` (deploy manifests, budgets): they have no
/// per-file fixture under `tests/fixtures/rules/`; the audit tests cover them.
pub const AUDIT_ONLY: &[&str] = &["budget-exceeds-grace", "stopsignal-unhandled"];

/// Every rule, in documentation order.
///
/// # Examples
/// ```
/// assert!(shutdown_lint::rules::all_rules().iter().any(|r| r.name == "http-no-timeout"));
/// ```
pub fn all_rules() -> &'static [RuleMeta] {
    ALL
}

/// The rule called `name`.
///
/// # Examples
/// ```
/// assert!(shutdown_lint::rules::rule("detached-thread").is_some());
/// assert!(shutdown_lint::rules::rule("nope").is_none());
/// ```
pub fn rule(name: &str) -> Option<&'static RuleMeta> {
    ALL.iter().find(|r| r.name == name)
}

/// What a per-file rule sees.
#[derive(Debug)]
pub struct RuleContext<'a> {
    /// The file's model.
    pub model: &'a FileModel,
    /// Configuration in force for the file.
    pub config: &'a Config,
    /// Path as shown to the user.
    pub path: &'a Path,
}

impl RuleContext<'_> {
    /// The configured level of `meta` (its default when not configured).
    pub fn severity(&self, meta: &RuleMeta) -> Severity {
        self.config.severity(meta)
    }

    /// A finding of rule `meta` at `region`, at the configured level.
    pub fn finding(
        &self,
        meta: &RuleMeta,
        region: Region,
        item: &str,
        message: String,
        help: &str,
    ) -> Finding {
        Finding {
            rule: meta.name.to_string(),
            severity: self.severity(meta),
            path: self.path.to_path_buf(),
            region,
            message,
            help: Some(help.to_string()),
            item: item.to_string(),
            suppressed: None,
        }
    }
}

/// Runs every enabled per-file rule.
pub fn check_file(cx: &RuleContext<'_>, out: &mut Vec<Finding>) {
    if cx.severity(&raw_spawn::META) != Severity::Allow {
        raw_spawn::check(cx, out);
    }
    if cx.severity(&http_no_timeout::META) != Severity::Allow {
        http_no_timeout::check(cx, out);
    }
    if cx.severity(&http_timeout_over_budget::META) != Severity::Allow {
        http_timeout_over_budget::check(cx, out);
    }
    if cx.severity(&detached_thread::META) != Severity::Allow {
        detached_thread::check(cx, out);
    }
    if cx.severity(&server_no_graceful_shutdown::META) != Severity::Allow {
        server_no_graceful_shutdown::check(cx, out);
    }
}
