//! `unused-suppression`: a suppression comment that suppresses nothing.

use super::RuleMeta;

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::UNUSED_SUPPRESSION;
