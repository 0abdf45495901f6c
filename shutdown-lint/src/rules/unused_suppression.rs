//! `unused-suppression`: a suppression comment that suppresses nothing.

use super::RuleMeta;
use crate::finding::Severity;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    name: "unused-suppression",
    default_severity: Severity::Warn,
    summary: "suppression comment that matches no finding, or names an unknown rule",
    doc: r#"## What it does
Flags `// shutdown-lint: allow(rule)` comments that suppress no finding on their line or
the line below, and rule names the linter does not know. Suppressions of rules that are
set to `allow` in the config are not reported.

## Why it matters
Stale suppressions hide the next real finding on that line and mislead readers about what
the code does.

## Example
```rust
// shutdown-lint: allow(raw-spawn) -- legacy
shutdown_runtime::spawn(job());
```

## Use instead
Delete the comment."#,
};
