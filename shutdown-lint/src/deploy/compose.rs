//! Compose files: each service's `stop_grace_period` (Docker's default 10 s when absent) and
//! `stop_signal`.

use super::yaml;
use super::{DeployKind, DeployTarget, GraceSource, StopSignal, canonical_signal, parse_error};
use crate::finding::Finding;
use std::path::Path;
use std::time::Duration;

/// Docker's stop timeout when `stop_grace_period` is absent.
///
/// # Examples
///
/// ```
/// assert_eq!(shutdown_lint::deploy::compose::DEFAULT_GRACE.as_secs(), 10);
/// ```
pub const DEFAULT_GRACE: Duration = Duration::from_secs(10);

/// Parses a compose file: one [`DeployTarget`] per service, and `parse-error` findings for
/// malformed YAML or unreadable values.
///
/// # Examples
///
/// ```
/// use shutdown_lint::deploy::{compose::parse_compose, GraceSource};
///
/// let yaml = "services:\n  api:\n    image: api\n    stop_grace_period: 1m30s\n  cache:\n    image: redis\n";
/// let (targets, findings) = parse_compose("compose.yaml".as_ref(), yaml);
/// assert!(findings.is_empty());
/// assert_eq!((targets[0].service.as_str(), targets[0].grace.as_secs()), ("api", 90));
/// assert_eq!(targets[0].region.line, 4);
/// assert_eq!((targets[1].grace.as_secs(), targets[1].source), (10, GraceSource::Default));
/// ```
pub fn parse_compose(path: &Path, text: &str) -> (Vec<DeployTarget>, Vec<Finding>) {
    let mut targets = Vec::new();
    let mut findings = Vec::new();
    let docs = match yaml::load_manifest(path, text, "compose file") {
        Ok(docs) => docs,
        Err(f) => {
            findings.push(*f);
            return (targets, findings);
        }
    };
    for doc in &docs {
        let Some((_, services)) = yaml::get(doc, "services") else {
            continue;
        };
        for (key, service) in yaml::entries(services) {
            let Some(name) = yaml::text(key) else {
                continue;
            };
            let name = name.into_owned();
            let mut target = DeployTarget {
                path: path.to_path_buf(),
                kind: DeployKind::Compose,
                service: name.clone(),
                object: None,
                grace: DEFAULT_GRACE,
                source: GraceSource::Default,
                pre_stop: None,
                stop_signal: None,
                region: yaml::region(text, key),
                item: format!("services.{name}"),
                names: vec![name.clone()],
                built_here: false,
            };
            if let Some((_, value)) = yaml::get(service, "stop_grace_period")
                && !yaml::is_null(value)
            {
                let written = yaml::text(value).unwrap_or_default();
                match shutdown_duration::parse(&written) {
                    Ok(d) => {
                        target.grace = d;
                        target.source = GraceSource::Explicit;
                        target.region = yaml::region(text, value);
                    }
                    Err(e) => findings.push(parse_error(
                        path,
                        yaml::region(text, value),
                        format!("`stop_grace_period` of service `{name}` is not a duration: {e}"),
                    )),
                }
            }
            if let Some((_, value)) = yaml::get(service, "stop_signal")
                && let Some(written) = yaml::text(value)
            {
                target.stop_signal = Some(StopSignal {
                    name: canonical_signal(&written).unwrap_or_else(|| written.into_owned()),
                    region: yaml::region(text, value),
                });
            }
            target.built_here = yaml::get(service, "build").is_some();
            for field in ["container_name", "image"] {
                if let Some((_, value)) = yaml::get(service, field)
                    && let Some(v) = yaml::text(value)
                {
                    target.names.push(image_basename(&v));
                }
            }
            targets.push(target);
        }
    }
    (targets, findings)
}

/// `registry.example/team/api:1.2` → `api`.
pub(crate) fn image_basename(image: &str) -> String {
    let last = image.rsplit('/').next().unwrap_or(image);
    let last = last.split('@').next().unwrap_or(last);
    last.split(':').next().unwrap_or(last).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_yaml_is_a_finding() {
        let (targets, findings) = parse_compose("c.yml".as_ref(), "services:\n  api: [unclosed\n");
        assert!(targets.is_empty());
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].rule, "parse-error");
        assert!(findings[0].message.starts_with("malformed compose file"));
    }

    #[test]
    fn bad_duration_is_a_finding_and_the_default_stays() {
        let (targets, findings) = parse_compose(
            "c.yml".as_ref(),
            "services:\n  api:\n    stop_grace_period: soon\n    stop_signal: SIGQUIT\n    image: reg.io/team/api:1\n",
        );
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].region.line, 3);
        assert_eq!(targets[0].grace, DEFAULT_GRACE);
        assert_eq!(targets[0].stop_signal.as_ref().unwrap().name, "SIGQUIT");
        assert_eq!(targets[0].names, ["api", "api"]);
    }

    #[test]
    fn not_a_mapping_is_ignored() {
        let (targets, findings) = parse_compose("c.yml".as_ref(), "- 1\n- 2\n");
        assert!(targets.is_empty() && findings.is_empty());
    }
}
