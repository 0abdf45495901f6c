//! `parse-error`: a file that cannot be read or parsed; reported, and the run goes on.

use super::RuleMeta;

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::PARSE_ERROR;
