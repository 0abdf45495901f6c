//! The rule registry: every rule's name, default level, summary and documentation, lint and
//! audit rules alike. It is a leaf: it depends on nothing but [`Severity`], and everything
//! else reads it — the configuration (`[rules]` names and levels), the per-file rules and the
//! engine, the audit, the renderers (SARIF rule table, help links) and the CLI
//! (`shutdown-lint explain RULE`, `rules`).
//!
//! Each rule's implementation lives in its own file (`src/rules/<rule>.rs`, or
//! `src/audit/rules/<rule>.rs` for the audit-only rules) and takes its `META` from here; the
//! documentation is one Markdown file per rule in `shutdown-lint/docs/rules/`.

use crate::finding::Severity;

/// Where rule docs link to: the rule's source file in the repository.
///
/// # Examples
/// ```
/// let m = shutdown_lint::registry::RAW_SPAWN;
/// assert!(m.help_uri().starts_with(shutdown_lint::registry::RULES_URL));
/// ```
pub const RULES_URL: &str =
    "https://github.com/shutdown-discipline/shutdown-discipline/blob/main/shutdown-lint/src/rules/";

/// Who raises a rule's findings.
///
/// # Examples
/// ```
/// use shutdown_lint::registry::{rule, RuleKind};
/// assert_eq!(rule("raw-spawn").unwrap().kind, RuleKind::File);
/// assert_eq!(rule("sigterm-missing").unwrap().kind, RuleKind::Binary);
/// assert_eq!(rule("parse-error").unwrap().kind, RuleKind::Driver);
/// assert_eq!(rule("budget-exceeds-grace").unwrap().kind, RuleKind::Audit);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// A per-file rule: it looks at one file's model (`src/rules/`).
    File,
    /// A per-binary rule: it combines the files a binary is made of (`sigterm-missing`).
    Binary,
    /// Raised by the driver itself: parse errors and suppression comments.
    Driver,
    /// Raised only by `cargo shutdown audit`: it compares deploy manifests with the code
    /// (`src/audit/rules/`); there is no per-file fixture for it.
    Audit,
}

/// Static description of a rule.
///
/// # Examples
/// ```
/// use shutdown_lint::finding::Severity;
/// let m = shutdown_lint::registry::DETACHED_THREAD;
/// assert_eq!((m.name, m.default_severity), ("detached-thread", Severity::Warn));
/// assert!(m.doc.starts_with("## What it does"));
/// assert_eq!(shutdown_lint::rules::detached_thread::META, m);
/// ```
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
    /// Who raises it.
    pub kind: RuleKind,
}

impl RuleMeta {
    /// Stable link to the rule's implementation (its doc is at the top of the file).
    ///
    /// # Examples
    /// ```
    /// let m = shutdown_lint::registry::rule("raw-spawn").unwrap();
    /// assert!(m.help_uri().ends_with("/src/rules/raw_spawn.rs"));
    /// let a = shutdown_lint::registry::rule("stopsignal-unhandled").unwrap();
    /// assert!(a.help_uri().ends_with("/src/audit/rules/stopsignal_unhandled.rs"));
    /// ```
    pub fn help_uri(&self) -> String {
        let file = self.name.replace('-', "_");
        match self.kind {
            // audit-only rules live with the audit
            RuleKind::Audit => {
                let src = RULES_URL.trim_end_matches("rules/");
                format!("{src}audit/rules/{file}.rs")
            }
            _ => format!("{RULES_URL}{file}.rs"),
        }
    }
}

/// `raw-spawn` (per-file rule, implemented in `src/rules/raw_spawn.rs`).
pub const RAW_SPAWN: RuleMeta = RuleMeta {
    name: "raw-spawn",
    default_severity: Severity::Deny,
    summary: "untracked task spawn (`tokio::spawn`, `spawn_blocking`, `spawn_local`, `Handle::spawn`)",
    doc: include_str!("../docs/rules/raw-spawn.md"),
    kind: RuleKind::File,
};

/// `http-no-timeout` (per-file rule, implemented in `src/rules/http_no_timeout.rs`).
pub const HTTP_NO_TIMEOUT: RuleMeta = RuleMeta {
    name: "http-no-timeout",
    default_severity: Severity::Deny,
    summary: "HTTP client or request without an overall timeout (reqwest and its forks wreq / rquest, ureq, hyper, isahc)",
    doc: include_str!("../docs/rules/http-no-timeout.md"),
    kind: RuleKind::File,
};

/// `http-timeout-over-budget` (per-file rule, implemented in `src/rules/http_timeout_over_budget.rs`).
pub const HTTP_TIMEOUT_OVER_BUDGET: RuleMeta = RuleMeta {
    name: "http-timeout-over-budget",
    default_severity: Severity::Deny,
    summary: "HTTP timeout longer than the configured `drain-budget`",
    doc: include_str!("../docs/rules/http-timeout-over-budget.md"),
    kind: RuleKind::File,
};

/// `detached-thread` (per-file rule, implemented in `src/rules/detached_thread.rs`).
pub const DETACHED_THREAD: RuleMeta = RuleMeta {
    name: "detached-thread",
    default_severity: Severity::Warn,
    summary: "`std::thread::spawn` / `Builder::spawn` whose `JoinHandle` is dropped",
    doc: include_str!("../docs/rules/detached-thread.md"),
    kind: RuleKind::File,
};

/// `sigterm-missing` (per-binary rule, implemented in `src/rules/sigterm_missing.rs`).
pub const SIGTERM_MISSING: RuleMeta = RuleMeta {
    name: "sigterm-missing",
    default_severity: Severity::Deny,
    summary: "binary handles Ctrl-C (SIGINT) but not SIGTERM, or serves and handles no signal",
    doc: include_str!("../docs/rules/sigterm-missing.md"),
    kind: RuleKind::Binary,
};

/// `server-no-graceful-shutdown` (per-file rule, implemented in `src/rules/server_no_graceful_shutdown.rs`).
pub const SERVER_NO_GRACEFUL_SHUTDOWN: RuleMeta = RuleMeta {
    name: "server-no-graceful-shutdown",
    default_severity: Severity::Deny,
    summary: "server without graceful shutdown (axum `serve`, hyper connections, tonic `serve`, `TokioExecutor`)",
    doc: include_str!("../docs/rules/server-no-graceful-shutdown.md"),
    kind: RuleKind::File,
};

/// `parse-error` (raised by the driver, implemented in `src/rules/parse_error.rs`).
pub const PARSE_ERROR: RuleMeta = RuleMeta {
    name: "parse-error",
    default_severity: Severity::Deny,
    summary: "file could not be read or parsed, so it was not checked",
    doc: include_str!("../docs/rules/parse-error.md"),
    kind: RuleKind::Driver,
};

/// `suppression-without-reason` (raised by the driver, implemented in `src/rules/suppression_without_reason.rs`).
pub const SUPPRESSION_WITHOUT_REASON: RuleMeta = RuleMeta {
    name: "suppression-without-reason",
    default_severity: Severity::Deny,
    summary: "suppression comment without a `-- reason`",
    doc: include_str!("../docs/rules/suppression-without-reason.md"),
    kind: RuleKind::Driver,
};

/// `unused-suppression` (raised by the driver, implemented in `src/rules/unused_suppression.rs`).
pub const UNUSED_SUPPRESSION: RuleMeta = RuleMeta {
    name: "unused-suppression",
    default_severity: Severity::Warn,
    summary: "suppression comment that matches no finding, or names an unknown rule",
    doc: include_str!("../docs/rules/unused-suppression.md"),
    kind: RuleKind::Driver,
};

/// `budget-exceeds-grace` (audit-only rule, implemented in `src/audit/rules/budget_exceeds_grace.rs`).
pub const BUDGET_EXCEEDS_GRACE: RuleMeta = RuleMeta {
    name: "budget-exceeds-grace",
    default_severity: Severity::Deny,
    summary: "a shutdown budget in code or config is longer than the deploy manifest's grace period",
    doc: include_str!("../docs/rules/budget-exceeds-grace.md"),
    kind: RuleKind::Audit,
};

/// `stopsignal-unhandled` (audit-only rule, implemented in `src/audit/rules/stopsignal_unhandled.rs`).
pub const STOPSIGNAL_UNHANDLED: RuleMeta = RuleMeta {
    name: "stopsignal-unhandled",
    default_severity: Severity::Deny,
    summary: "a Dockerfile `STOPSIGNAL` or compose `stop_signal` that no binary handles",
    doc: include_str!("../docs/rules/stopsignal-unhandled.md"),
    kind: RuleKind::Audit,
};

static ALL: &[RuleMeta] = &[
    RAW_SPAWN,
    HTTP_NO_TIMEOUT,
    HTTP_TIMEOUT_OVER_BUDGET,
    DETACHED_THREAD,
    SIGTERM_MISSING,
    SERVER_NO_GRACEFUL_SHUTDOWN,
    PARSE_ERROR,
    SUPPRESSION_WITHOUT_REASON,
    UNUSED_SUPPRESSION,
    BUDGET_EXCEEDS_GRACE,
    STOPSIGNAL_UNHANDLED,
];

/// Rules raised only by `cargo shutdown audit` (deploy manifests, budgets): they have no
/// per-file fixture under `tests/fixtures/rules/`; the audit tests cover them.
///
/// # Examples
/// ```
/// use shutdown_lint::registry::{AUDIT_ONLY, RuleKind, all_rules};
/// for r in all_rules() {
///     assert_eq!(AUDIT_ONLY.contains(&r.name), r.kind == RuleKind::Audit);
/// }
/// ```
pub const AUDIT_ONLY: &[&str] = &[BUDGET_EXCEEDS_GRACE.name, STOPSIGNAL_UNHANDLED.name];

/// Every rule, in documentation order.
///
/// # Examples
/// ```
/// assert!(shutdown_lint::registry::all_rules().iter().any(|r| r.name == "http-no-timeout"));
/// ```
pub fn all_rules() -> &'static [RuleMeta] {
    ALL
}

/// The rule called `name`.
///
/// # Examples
/// ```
/// assert!(shutdown_lint::registry::rule("detached-thread").is_some());
/// assert!(shutdown_lint::registry::rule("nope").is_none());
/// ```
pub fn rule(name: &str) -> Option<&'static RuleMeta> {
    ALL.iter().find(|r| r.name == name)
}
