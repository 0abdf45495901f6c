//! `parse-error`: a file that cannot be read or parsed; reported, and the run goes on.

use super::RuleMeta;
use crate::finding::Severity;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    name: "parse-error",
    default_severity: Severity::Deny,
    summary: "file could not be read or parsed, so it was not checked",
    doc: r#"## What it does
Reports a Rust file that could not be analysed: unreadable (permissions, a broken
symlink), not UTF-8, a syntax error, or nested deeper than the linter's bound
(`source::MAX_NESTING`). The finding points at the error; the other files are still linted.
A file in which the byte scan finds nothing any rule looks for (no `tokio`, `spawn`,
`thread`, `reqwest`, .. outside `//` comments) is not parsed at all, so a syntax error there
is left to the compiler.

## Why it matters
A file the linter cannot read is a file nobody checked. Failing loudly beats a silent pass.

## Example
```rust
fn main() { let x = ; }
```

## Use instead
Fix the file, or exclude it in `shutdown-lint.toml` (`exclude = ["generated/**"]`)."#,
};
