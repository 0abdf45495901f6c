//! `budget-exceeds-grace`: a grace period or drain budget in code or config that a deploy
//! manifest's grace period does not cover.

use super::{CrateNames, grace_targets, our_targets};
use crate::audit::budgets::CodeBudget;
use crate::deploy::{DeployKind, DeployTarget, GraceSource};
use crate::finding::Finding;
use crate::registry::RuleMeta;
use shutdown_duration::format as format_duration;

/// Metadata and documentation.
///
/// # Examples
///
/// ```
/// let meta = shutdown_lint::rules::rule("budget-exceeds-grace").unwrap();
/// assert!(meta.help_uri().ends_with("/audit/rules/budget_exceeds_grace.rs"));
/// ```
pub const META: RuleMeta = crate::registry::BUDGET_EXCEEDS_GRACE;

/// Checks every deploy target against the budgets. `budgets` pairs each code budget with the
/// crate it was found in (config budgets have none); a target tied to crates by name (see
/// [`CrateNames::ties`]) is compared with those crates' budgets and the config's only.
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::budgets::{BudgetOrigin, CodeBudget};
/// use shutdown_lint::deploy::compose::parse_compose;
/// use shutdown_lint::audit::rules::budget_exceeds_grace::{check, CrateBudget};
/// use shutdown_lint::audit::rules::CrateNames;
/// use std::time::Duration;
///
/// let (targets, _) = parse_compose("compose.yaml".as_ref(), "services:\n  worker:\n    image: worker\n");
/// let budget = CodeBudget { origin: BudgetOrigin::MainAttribute, duration: Duration::from_secs(120),
///                           path: "src/main.rs".into(), line: 3, column: 26 };
/// let budgets = [CrateBudget { budget, crate_name: Some("worker".into()) }];
/// let crates = [CrateNames { name: "worker".into(), bins: vec!["worker".into()] }];
/// let findings = check(&targets, &budgets, &crates);
/// assert_eq!(findings.len(), 1);
/// assert_eq!((findings[0].path.to_str(), findings[0].region.line), (Some("compose.yaml"), 2));
/// assert!(findings[0].message.contains("src/main.rs:3:26"), "{}", findings[0].message);
/// ```
pub fn check(
    targets: &[DeployTarget],
    budgets: &[CrateBudget],
    crates: &[CrateNames],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for target in our_targets(grace_targets(targets), crates) {
        let tied: Vec<&str> = crates
            .iter()
            .filter(|c| c.ties(target))
            .map(|c| c.name.as_str())
            .collect();
        let relevant: Vec<&CrateBudget> = budgets
            .iter()
            .filter(|b| match &b.crate_name {
                Some(name) => tied.is_empty() || tied.contains(&name.as_str()),
                None => true,
            })
            .collect();
        let effective = target.effective_grace();
        let mut over: Vec<&CodeBudget> = relevant
            .iter()
            .map(|b| &b.budget)
            .filter(|b| b.duration > effective)
            .collect();
        if over.is_empty() {
            continue;
        }
        over.sort_by(|a, b| {
            b.duration
                .cmp(&a.duration)
                .then(a.path.cmp(&b.path))
                .then(a.line.cmp(&b.line))
        });
        let worst = over[0];
        let mut message = format!(
            "{} gets {} to stop{} but the code asks for {}: {} at `{}`",
            describe_target(target),
            format_duration(target.grace),
            grace_note(target),
            format_duration(worst.duration),
            worst.origin.describe(),
            worst.location()
        );
        if over.len() > 1 {
            message.push_str(&format!(" ({} more budget(s) exceed it)", over.len() - 1));
        }
        let needed_secs = suggested_grace(worst.duration + target.pre_stop.unwrap_or_default());
        let help = match target.kind {
            DeployKind::Compose => format!(
                "set `stop_grace_period: {needed_secs}s` on service `{}` (the budget plus a margin), or lower the budget",
                target.service
            ),
            DeployKind::Kubernetes => format!(
                "set `terminationGracePeriodSeconds: {needed_secs}` in the pod spec of {} `{}` (the budget{} plus a margin), or lower the budget",
                target.object.as_deref().unwrap_or("the workload"),
                target.service,
                if target.pre_stop.is_some() {
                    " and the `preStop` sleep"
                } else {
                    ""
                }
            ),
            DeployKind::Dockerfile => format!(
                "run the container with `docker stop --time {needed_secs}` / `--stop-timeout {needed_secs}`, or lower the budget"
            ),
        };
        out.push(Finding {
            rule: META.name.to_owned(),
            severity: META.default_severity,
            path: target.path.clone(),
            region: target.region,
            message,
            help: Some(help),
            item: target.item.clone(),
            suppressed: None,
        });
    }
    out
}

/// A budget and the crate it was found in (`None` for config budgets, which apply to every
/// target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateBudget {
    /// The budget.
    pub budget: CodeBudget,
    /// Crate name, `None` for config.
    pub crate_name: Option<String>,
}

fn describe_target(t: &DeployTarget) -> String {
    match t.kind {
        DeployKind::Compose => format!("compose service `{}`", t.service),
        DeployKind::Kubernetes => format!(
            "the Kubernetes {} `{}`",
            t.object.as_deref().unwrap_or("workload"),
            t.service
        ),
        DeployKind::Dockerfile => "a container of this image (`docker stop`)".to_owned(),
    }
}

/// A grace period that covers `needed` with a margin for the process to exit: 10 % and at
/// least 5 s more, rounded up to a multiple of 5 s.
fn suggested_grace(needed: std::time::Duration) -> u64 {
    let secs = needed.as_secs_f64();
    let with_margin = (secs * 1.1).max(secs + 5.0);
    match (with_margin / 5.0).ceil() as u64 * 5 {
        0 => 5,
        s => s,
    }
}

fn grace_note(t: &DeployTarget) -> String {
    let default = match (t.source, t.kind) {
        (GraceSource::Explicit, _) => "",
        (GraceSource::Default, DeployKind::Compose) => {
            " (Docker's default, no `stop_grace_period`)"
        }
        (GraceSource::Default, DeployKind::Kubernetes) => {
            " (Kubernetes' default, no `terminationGracePeriodSeconds`)"
        }
        (GraceSource::Default, DeployKind::Dockerfile) => " (Docker's default)",
    };
    match t.pre_stop {
        Some(p) if !p.is_zero() => format!(
            "{default}, of which a `preStop` sleep takes {}, leaving {},",
            format_duration(p),
            format_duration(t.effective_grace())
        ),
        _ => default.to_owned(),
    }
}
