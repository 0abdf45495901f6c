//! The lint's rules, one file per rule; their metadata comes from the leaf
//! [`crate::registry`] (re-exported here).
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

pub use crate::registry::{AUDIT_ONLY, RULES_URL, RuleKind, RuleMeta, all_rules, rule};

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
