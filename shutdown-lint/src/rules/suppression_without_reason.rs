//! `suppression-without-reason`: `// shutdown-lint: allow(rule)` with no `-- reason`.

use super::RuleMeta;

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::SUPPRESSION_WITHOUT_REASON;
