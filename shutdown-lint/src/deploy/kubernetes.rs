//! Kubernetes workloads: `terminationGracePeriodSeconds` (30 s when absent) and `preStop`
//! sleeps, over multi-document YAML streams and `kind: List`.

use super::compose::image_basename;
use super::yaml;
use super::{DeployKind, DeployTarget, GraceSource, parse_error};
use crate::finding::Finding;
use saphyr::MarkedYaml;
use std::path::Path;
use std::time::Duration;

/// The kubelet's grace period when `terminationGracePeriodSeconds` is absent.
///
/// # Examples
///
/// ```
/// assert_eq!(shutdown_lint::deploy::kubernetes::DEFAULT_GRACE.as_secs(), 30);
/// ```
pub const DEFAULT_GRACE: Duration = Duration::from_secs(30);

/// Whether a YAML file declares Kubernetes objects (cheap text check before parsing).
///
/// # Examples
///
/// ```
/// use shutdown_lint::deploy::kubernetes::looks_like_kubernetes;
/// assert!(looks_like_kubernetes("apiVersion: apps/v1\nkind: Deployment\n"));
/// assert!(!looks_like_kubernetes("name: CI\non: push\n"));
/// assert!(!looks_like_kubernetes("apiVersion: v1\nkind: Pod\nmetadata: {name: {{ .Values.name }}}\n"));
/// ```
pub fn looks_like_kubernetes(text: &str) -> bool {
    text.contains("apiVersion") && text.contains("kind") && !text.contains("{{")
}

/// Parses a Kubernetes manifest: one [`DeployTarget`] per workload, and `parse-error`
/// findings for malformed YAML or values.
///
/// # Examples
///
/// ```
/// use shutdown_lint::deploy::{kubernetes::parse_kubernetes, GraceSource};
///
/// let yaml = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n      containers: [{name: api, image: api}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: api}\n";
/// let (targets, findings) = parse_kubernetes("k8s.yaml".as_ref(), yaml);
/// assert!(findings.is_empty());
/// assert_eq!(targets.len(), 1);
/// assert_eq!((targets[0].grace.as_secs(), targets[0].source), (30, GraceSource::Default));
/// assert_eq!(targets[0].region.line, 2); // the `kind` of the object
/// ```
pub fn parse_kubernetes(path: &Path, text: &str) -> (Vec<DeployTarget>, Vec<Finding>) {
    let mut targets = Vec::new();
    let mut findings = Vec::new();
    let docs = match yaml::load_manifest(path, text, "Kubernetes manifest") {
        Ok(docs) => docs,
        Err(f) => {
            findings.push(*f);
            return (targets, findings);
        }
    };
    for doc in &docs {
        object(path, text, doc, &mut targets, &mut findings);
    }
    (targets, findings)
}

fn object(
    path: &Path,
    text: &str,
    node: &MarkedYaml<'_>,
    targets: &mut Vec<DeployTarget>,
    findings: &mut Vec<Finding>,
) {
    let Some((_, kind_node)) = yaml::get(node, "kind") else {
        return;
    };
    let Some(kind) = yaml::text(kind_node) else {
        return;
    };
    let pod_spec_path: &[&str] = match kind.as_ref() {
        "List" => {
            if let Some((_, list)) = yaml::get(node, "items") {
                for item in yaml::items(list) {
                    object(path, text, item, targets, findings);
                }
            }
            return;
        }
        "Pod" => &["spec"],
        "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" | "Job" => {
            &["spec", "template", "spec"]
        }
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        _ => return,
    };
    let name = yaml::get(node, "metadata")
        .and_then(|(_, m)| yaml::get(m, "name"))
        .and_then(|(_, n)| yaml::text(n))
        .map(|n| n.into_owned())
        .unwrap_or_default();
    let mut target = DeployTarget {
        path: path.to_path_buf(),
        kind: DeployKind::Kubernetes,
        service: name.clone(),
        object: Some(kind.to_string()),
        grace: DEFAULT_GRACE,
        source: GraceSource::Default,
        pre_stop: None,
        stop_signal: None,
        region: yaml::region(text, kind_node),
        item: format!("{kind}/{name}"),
        names: vec![name.clone()],
        built_here: false,
    };
    let mut spec = Some(node);
    for key in pod_spec_path {
        spec = spec.and_then(|s| yaml::get(s, key)).map(|(_, v)| v);
    }
    if let Some(spec) = spec {
        if let Some((_, value)) = yaml::get(spec, "terminationGracePeriodSeconds")
            && !yaml::is_null(value)
        {
            let written = yaml::text(value).unwrap_or_default();
            match written.parse::<u64>() {
                Ok(secs) => {
                    target.grace = Duration::from_secs(secs);
                    target.source = GraceSource::Explicit;
                    target.region = yaml::region(text, value);
                }
                Err(_) => findings.push(parse_error(
                    path,
                    yaml::region(text, value),
                    format!("`terminationGracePeriodSeconds` of {kind} `{name}` is not a whole number of seconds: `{written}`"),
                )),
            }
        }
        if let Some((_, containers)) = yaml::get(spec, "containers") {
            for container in yaml::items(containers) {
                for field in ["name", "image"] {
                    if let Some(v) = yaml::get(container, field).and_then(|(_, v)| yaml::text(v)) {
                        target.names.push(image_basename(&v));
                    }
                }
                if let Some(first) = yaml::get(container, "command")
                    .and_then(|(_, c)| yaml::items(c).next())
                    .and_then(|c| yaml::text(c))
                {
                    target.names.push(image_basename(&first));
                }
                if let Some(sleep) = pre_stop_sleep(container) {
                    target.pre_stop = Some(target.pre_stop.map_or(sleep, |s| s.max(sleep)));
                }
            }
        }
    }
    targets.push(target);
}

/// The sleep in a container's `lifecycle.preStop`: the `sleep` action (`seconds`), or an
/// `exec` command that is `sleep N` (directly or through `sh -c "sleep N"`).
fn pre_stop_sleep(container: &MarkedYaml<'_>) -> Option<Duration> {
    let (_, lifecycle) = yaml::get(container, "lifecycle")?;
    let (_, pre_stop) = yaml::get(lifecycle, "preStop")?;
    if let Some((_, sleep)) = yaml::get(pre_stop, "sleep") {
        let secs = yaml::get(sleep, "seconds").and_then(|(_, s)| yaml::text(s))?;
        return secs.parse::<u64>().ok().map(Duration::from_secs);
    }
    let (_, exec) = yaml::get(pre_stop, "exec")?;
    let (_, command) = yaml::get(exec, "command")?;
    let words: Vec<String> = yaml::items(command)
        .filter_map(|w| yaml::text(w).map(|t| t.into_owned()))
        .collect();
    let line = words.join(" ");
    // find "sleep N" anywhere: `sleep 5`, `/bin/sh -c "sleep 5 && nginx -s quit"`
    let mut tokens = line.split(|c: char| c.is_whitespace() || c == ';' || c == '&');
    while let Some(tok) = tokens.next() {
        if tok == "sleep" || tok.ends_with("/sleep") {
            let arg = tokens.find(|t| !t.is_empty())?;
            // sleep(1) reads a bare number as seconds; with a unit, the toolkit's grammar
            return match arg.parse::<u64>() {
                Ok(secs) => Some(Duration::from_secs(secs)),
                Err(_) => shutdown_duration::parse(arg).ok(),
            };
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = "\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  template:
    spec:
      terminationGracePeriodSeconds: 60
      containers:
      - name: db
        lifecycle:
          preStop:
            exec:
              command: [\"/bin/sh\", \"-c\", \"sleep 10 && pg_ctl stop\"]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: job
            lifecycle: {preStop: {sleep: {seconds: 3}}}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: one}
  spec: {terminationGracePeriodSeconds: 5, containers: [{name: one}]}
";

    #[test]
    fn workloads_in_a_stream() {
        let (targets, findings) = parse_kubernetes("k.yaml".as_ref(), STREAM);
        assert!(findings.is_empty(), "{findings:?}");
        let summary: Vec<_> = targets
            .iter()
            .map(|t| {
                (
                    t.item.as_str(),
                    t.grace.as_secs(),
                    t.effective_grace().as_secs(),
                    t.region.line,
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("StatefulSet/db", 60, 50, 7),
                ("CronJob/nightly", 30, 27, 16),
                ("Pod/one", 5, 5, 33)
            ]
        );
    }

    #[test]
    fn malformed_and_bad_values() {
        let (_, findings) =
            parse_kubernetes("k.yaml".as_ref(), "apiVersion: v1\nkind: Pod\nspec: [\n");
        assert_eq!(findings[0].rule, "parse-error");
        let (targets, findings) = parse_kubernetes(
            "k.yaml".as_ref(),
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  terminationGracePeriodSeconds: lots\n",
        );
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].region.line, 5);
        assert_eq!(targets[0].source, GraceSource::Default);
    }
}
