//! The audit-only rules: they compare deploy manifests with the code, so they run in
//! `cargo shutdown audit`, not per file. Their metadata is in the leaf [`crate::registry`]
//! like every rule's (`shutdown-lint explain` prints their docs).

pub mod budget_exceeds_grace;
pub mod stopsignal_unhandled;

/// Names of the audit-only rules ([`crate::registry::AUDIT_ONLY`]).
///
/// # Examples
///
/// ```
/// assert!(shutdown_lint::audit::rules::AUDIT_RULES.contains(&"budget-exceeds-grace"));
/// ```
pub const AUDIT_RULES: &[&str] = crate::registry::AUDIT_ONLY;

use crate::deploy::DeployTarget;

/// Whether a deploy target is tied to a crate by name: a service, container, image or
/// command name equal to the crate's name or one of its binaries' names.
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::rules::names_match;
/// assert!(names_match(&["api".to_string()], "api", &[]));
/// assert!(names_match(&["api-server".to_string()], "core", &["api_server"]));
/// assert!(!names_match(&["db".to_string()], "api", &["api"]));
/// ```
pub fn names_match(target_names: &[String], crate_name: &str, bin_names: &[&str]) -> bool {
    let norm = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    target_names.iter().any(|t| {
        let t = norm(t);
        t == norm(crate_name) || bin_names.iter().any(|b| norm(b) == t)
    })
}

/// A crate's name and its binaries' names, for tying deploy targets to code.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CrateNames {
    /// Package name.
    pub name: String,
    /// Binary target names.
    pub bins: Vec<String>,
}

impl CrateNames {
    /// Whether `target` names this crate or one of its binaries.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::deploy::compose::parse_compose;
    /// use shutdown_lint::audit::rules::CrateNames;
    ///
    /// let (targets, _) = parse_compose("c.yml".as_ref(), "services:\n  web:\n    image: shop/api:2\n");
    /// let api = CrateNames { name: "api".into(), bins: vec![] };
    /// assert!(api.ties(&targets[0]));
    /// ```
    pub fn ties(&self, target: &DeployTarget) -> bool {
        let bins: Vec<&str> = self.bins.iter().map(String::as_str).collect();
        names_match(&target.names, &self.name, &bins)
    }
}

/// The targets the audit checks: in a manifest where some target is tied to this workspace
/// (by name, or compose `build:`), the others are third-party (a `redis` service beside
/// yours) and are left out; in a manifest where none is tied, all are checked.
pub(crate) fn our_targets<'a>(
    targets: Vec<&'a DeployTarget>,
    crates: &[CrateNames],
) -> Vec<&'a DeployTarget> {
    let ours = |t: &DeployTarget| t.built_here || crates.iter().any(|c| c.ties(t));
    let files_with_ours: Vec<&std::path::Path> = targets
        .iter()
        .filter(|t| ours(t))
        .map(|t| t.path.as_path())
        .collect();
    targets
        .into_iter()
        .filter(|t| ours(t) || !files_with_ours.contains(&t.path.as_path()))
        .collect()
}

/// Dockerfiles only stand for the platform when the repository has no compose or Kubernetes
/// manifest (then `docker stop`'s 10 s is what the service gets).
pub(crate) fn grace_targets(targets: &[DeployTarget]) -> Vec<&DeployTarget> {
    use crate::deploy::DeployKind;
    let orchestrated = targets.iter().any(|t| t.kind != DeployKind::Dockerfile);
    targets
        .iter()
        .filter(|t| !orchestrated || t.kind != DeployKind::Dockerfile)
        .collect()
}
