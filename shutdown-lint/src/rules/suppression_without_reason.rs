//! `suppression-without-reason`: `// shutdown-lint: allow(rule)` with no `-- reason`.

use super::RuleMeta;
use crate::finding::Severity;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    name: "suppression-without-reason",
    default_severity: Severity::Deny,
    summary: "suppression comment without a `-- reason`",
    doc: r#"## What it does
Flags a suppression comment that gives no reason after `--`. The suppression still
applies; this finding asks for the reason.

## Why it matters
A suppression is a decision someone made about a shutdown hazard. Without the reason, the
next reader cannot tell a considered exception from a silenced warning.

## Example
```rust
tokio::spawn(metrics_loop()); // shutdown-lint: allow(raw-spawn)
```

## Use instead
```rust
// shutdown-lint: allow(raw-spawn) -- metrics are best effort; losing the last scrape is fine
tokio::spawn(metrics_loop());
```"#,
};
