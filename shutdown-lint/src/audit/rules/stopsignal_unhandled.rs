//! `stopsignal-unhandled`: a manifest stops the service with a signal its code does not handle.

use super::{CrateNames, names_match, our_targets};
use crate::deploy::{DeployKind, DeployTarget};
use crate::finding::Finding;
use crate::registry::RuleMeta;
use std::collections::BTreeSet;

/// Metadata and documentation.
///
/// # Examples
///
/// ```
/// let meta = shutdown_lint::rules::rule("stopsignal-unhandled").unwrap();
/// assert!(meta.doc.contains("## Use instead"));
/// ```
pub const META: RuleMeta = crate::registry::STOPSIGNAL_UNHANDLED;

/// What the audit knows about one crate's signal handling.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CrateSignals {
    /// Crate name.
    pub name: String,
    /// Binary names.
    pub bins: Vec<String>,
    /// Canonical names of the signals its code handles (`SIGTERM`, `SIGINT`, `SIGQUIT`, …).
    pub handled: BTreeSet<String>,
}

/// Checks each declared stop signal against the crates that have binaries.
///
/// # Examples
///
/// ```
/// use shutdown_lint::deploy::dockerfile::parse_dockerfile;
/// use shutdown_lint::audit::rules::stopsignal_unhandled::{check, CrateSignals};
///
/// let (targets, _) = parse_dockerfile("Dockerfile".as_ref(), "FROM debian\nSTOPSIGNAL SIGQUIT\n");
/// let api = CrateSignals { name: "api".into(), bins: vec!["api".into()],
///                          handled: ["SIGTERM".to_string(), "SIGINT".to_string()].into() };
/// let findings = check(&targets, &[api]);
/// assert_eq!(findings[0].region.line, 2);
/// assert!(findings[0].message.contains("`SIGQUIT`"));
/// ```
pub fn check(targets: &[DeployTarget], crates: &[CrateSignals]) -> Vec<Finding> {
    let mut out = Vec::new();
    let with_bins: Vec<&CrateSignals> = crates.iter().filter(|c| !c.bins.is_empty()).collect();
    let names: Vec<CrateNames> = crates
        .iter()
        .map(|c| CrateNames {
            name: c.name.clone(),
            bins: c.bins.clone(),
        })
        .collect();
    for target in our_targets(targets.iter().collect(), &names) {
        let Some(signal) = &target.stop_signal else {
            continue;
        };
        let tied: Vec<&CrateSignals> = with_bins
            .iter()
            .copied()
            .filter(|c| {
                let bins: Vec<&str> = c.bins.iter().map(String::as_str).collect();
                names_match(&target.names, &c.name, &bins)
            })
            .collect();
        let candidates = if tied.is_empty() {
            with_bins.clone()
        } else {
            tied
        };
        let declared = match target.kind {
            DeployKind::Dockerfile => format!("`STOPSIGNAL {}`", signal.name),
            _ => format!(
                "`stop_signal: {}` of service `{}`",
                signal.name, target.service
            ),
        };
        let message = if signal.name == "SIGKILL" {
            format!(
                "{declared} cannot be handled: the process is killed without any chance to drain"
            )
        } else if candidates.is_empty()
            || candidates.iter().any(|c| c.handled.contains(&signal.name))
        {
            continue;
        } else {
            let names: Vec<String> = candidates.iter().map(|c| format!("`{}`", c.name)).collect();
            format!(
                "{declared} stops the service, but no binary of {} handles `{}`",
                names.join(", "),
                signal.name
            )
        };
        out.push(Finding {
            rule: META.name.to_owned(),
            severity: META.default_severity,
            path: target.path.clone(),
            region: signal.region,
            message,
            help: Some(format!(
                "stop with SIGTERM (remove the line, SIGTERM is the default), or handle `{}` in code",
                signal.name
            )),
            item: target.item.clone(),
            suppressed: None,
        });
    }
    out
}
