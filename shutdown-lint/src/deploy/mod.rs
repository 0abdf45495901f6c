//! Deploy manifests in the repository and the grace period each gives a service.
//!
//! - compose files (`compose.yaml`, `docker-compose.yml`, `docker-compose.*.yml`, …):
//!   every service's `stop_grace_period` (Docker's default, 10 s, when absent) and
//!   `stop_signal`;
//! - Kubernetes manifests (any other `.yaml`/`.yml` that declares `apiVersion` and `kind`,
//!   multi-document streams and `kind: List` included): Deployment, StatefulSet, DaemonSet,
//!   ReplicaSet, Job, CronJob and Pod; `terminationGracePeriodSeconds` (30 s when absent), and
//!   the longest container `preStop` sleep, which runs inside the same grace period;
//! - Dockerfiles (`Dockerfile`, `Dockerfile.*`, `*.Dockerfile`, `Containerfile`): the final
//!   stage's `STOPSIGNAL`; `docker stop` gives 10 s.
//!
//! A manifest that cannot be read or parsed becomes a `parse-error` finding pointing into it;
//! discovery never fails as a whole. Templated YAML (Helm's `{{ .. }}`) is not a manifest yet
//! and is skipped.

pub mod compose;
pub mod dockerfile;
pub mod kubernetes;
pub(crate) mod yaml;

use crate::finding::{Finding, Region, Severity};
use crate::manifest::workspace::Workspace;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which kind of manifest a [`DeployTarget`] came from (audit JSON `kind`).
///
/// # Examples
///
/// ```
/// use shutdown_lint::deploy::DeployKind;
/// assert_eq!(serde_json::to_value(DeployKind::Kubernetes).unwrap(), "kubernetes");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeployKind {
    /// A compose service.
    Compose,
    /// A Kubernetes workload (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Pod).
    Kubernetes,
    /// A Dockerfile (container run by `docker run`/`docker stop`).
    Dockerfile,
}

/// Whether the grace period is written in the manifest or is the platform's default
/// (audit JSON `source`).
///
/// # Examples
///
/// ```
/// use shutdown_lint::deploy::GraceSource;
/// assert_eq!(serde_json::to_value(GraceSource::Default).unwrap(), "default");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GraceSource {
    /// Written in the manifest.
    Explicit,
    /// The platform default (compose/Docker 10 s, Kubernetes 30 s).
    Default,
}

/// The stop signal a manifest declares.
///
/// # Examples
///
/// ```
/// use shutdown_lint::deploy::compose::parse_compose;
/// let (t, _) = parse_compose("c.yml".as_ref(), "services:\n  web:\n    stop_signal: quit\n");
/// assert_eq!(t[0].stop_signal.as_ref().unwrap().name, "SIGQUIT");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopSignal {
    /// Canonical name, e.g. `SIGQUIT` (see [`canonical_signal`]); the text as written when it
    /// names no known signal.
    pub name: String,
    /// Where it is declared.
    pub region: Region,
}

/// One deployable unit and the time the platform gives it between the stop signal and SIGKILL.
#[derive(Debug, Clone, PartialEq)]
pub struct DeployTarget {
    /// The manifest, as shown to the user (relative to the current directory when under it).
    pub path: PathBuf,
    /// Manifest kind.
    pub kind: DeployKind,
    /// Compose service name, Kubernetes `metadata.name`, or the Dockerfile's final stage name
    /// (`""` when unnamed).
    pub service: String,
    /// Kubernetes object kind (`Deployment`, …); `None` for compose and Dockerfiles.
    pub object: Option<String>,
    /// Grace period as configured or defaulted.
    pub grace: Duration,
    /// Whether `grace` is written or defaulted.
    pub source: GraceSource,
    /// Longest `preStop` sleep (Kubernetes), which the grace period has to cover first.
    pub pre_stop: Option<Duration>,
    /// Declared stop signal (compose `stop_signal`, Dockerfile `STOPSIGNAL`).
    pub stop_signal: Option<StopSignal>,
    /// Where a finding about this target's grace points: the grace value when explicit, else
    /// the service key / the object's `kind`.
    pub region: Region,
    /// Stable name of the target inside its file, used as the finding's item path
    /// (`services.api`, `Deployment/api`, `Dockerfile`).
    pub item: String,
    /// Names that may tie it to a crate or binary (service, container names, image and
    /// command basenames).
    pub names: Vec<String>,
    /// Whether the manifest builds the image from this repository (compose `build:`).
    pub built_here: bool,
}

impl DeployTarget {
    /// The time the process itself gets: the grace period minus the `preStop` sleep.
    ///
    /// # Examples
    ///
    /// ```
    /// use shutdown_lint::deploy::kubernetes::parse_kubernetes;
    /// use std::time::Duration;
    ///
    /// let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: web\n    lifecycle: {preStop: {exec: {command: [sleep, '5']}}}\n";
    /// let (targets, findings) = parse_kubernetes("pod.yaml".as_ref(), yaml);
    /// assert!(findings.is_empty());
    /// assert_eq!(targets[0].effective_grace(), Duration::from_secs(25));
    /// ```
    pub fn effective_grace(&self) -> Duration {
        self.grace.saturating_sub(self.pre_stop.unwrap_or_default())
    }
}

/// What manifest discovery found: targets, plus findings for manifests it could not read.
#[derive(Debug, Default, Clone)]
pub struct DeployScan {
    /// Every deploy target, sorted by path then position.
    pub targets: Vec<DeployTarget>,
    /// `parse-error` findings for unreadable or malformed manifests.
    pub findings: Vec<Finding>,
}

/// Which parser a file name calls for, if any.
///
/// # Examples
///
/// ```
/// use shutdown_lint::deploy::{classify, ManifestKind};
///
/// assert_eq!(classify("docker-compose.prod.yml".as_ref()), Some(ManifestKind::Compose));
/// assert_eq!(classify("k8s/api.yaml".as_ref()), Some(ManifestKind::MaybeKubernetes));
/// assert_eq!(classify("Dockerfile.release".as_ref()), Some(ManifestKind::Dockerfile));
/// assert_eq!(classify("src/main.rs".as_ref()), None);
/// ```
pub fn classify(path: &Path) -> Option<ManifestKind> {
    let name = path.file_name()?.to_str()?;
    let lower = name.to_ascii_lowercase();
    let yaml = lower.ends_with(".yml") || lower.ends_with(".yaml");
    if yaml
        && (lower.starts_with("docker-compose")
            || lower.starts_with("compose.")
            || lower.starts_with("compose-"))
    {
        Some(ManifestKind::Compose)
    } else if yaml {
        Some(ManifestKind::MaybeKubernetes)
    } else if lower == "dockerfile"
        || lower.starts_with("dockerfile.")
        || lower.ends_with(".dockerfile")
        || lower == "containerfile"
    {
        Some(ManifestKind::Dockerfile)
    } else {
        None
    }
}

/// The parser a file name calls for (see [`classify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManifestKind {
    /// A compose file by name.
    Compose,
    /// Some other YAML file: a Kubernetes manifest if it declares `apiVersion` and `kind`.
    MaybeKubernetes,
    /// A Dockerfile or Containerfile.
    Dockerfile,
}

/// Walks the workspace root (honouring `.gitignore`, skipping `target/`, hidden directories,
/// excluded paths and nested packages that are not members) and parses every manifest.
///
/// `display` maps an absolute path to the path shown in findings.
///
/// # Examples
///
/// ```
/// use shutdown_lint::audit::{deploy::scan, workspace::Workspace};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"app\"\n").unwrap();
/// std::fs::write(dir.path().join("compose.yaml"), "services:\n  app:\n    image: app\n").unwrap();
/// let ws = Workspace::discover(dir.path()).unwrap();
/// let found = scan(&ws, &|p| p.strip_prefix(dir.path()).unwrap().to_path_buf());
/// assert_eq!(found.targets[0].service, "app");
/// assert_eq!(found.targets[0].grace.as_secs(), 10);
/// ```
pub fn scan(ws: &Workspace, display: &dyn Fn(&Path) -> PathBuf) -> DeployScan {
    let mut out = DeployScan::default();
    let root = ws.root.clone();
    let excluded = ws.excluded.clone();
    let members: Vec<PathBuf> = ws.crates.iter().map(|c| c.dir.clone()).collect();
    let walker = ignore::WalkBuilder::new(&root)
        .hidden(true)
        .parents(true)
        .git_ignore(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |entry| {
            let path = entry.path();
            if !entry.file_type().is_some_and(|t| t.is_dir()) || path == root {
                return true;
            }
            let name = entry.file_name().to_string_lossy();
            if name == "target" || name == "node_modules" {
                return false;
            }
            if excluded.iter().any(|e| path.starts_with(e)) {
                return false;
            }
            // a nested package or workspace that is not ours
            !path.join("Cargo.toml").is_file() || members.iter().any(|m| m == path)
        })
        .build();
    let mut files: Vec<(PathBuf, ManifestKind)> = walker
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|e| classify(e.path()).map(|k| (e.into_path(), k)))
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, kind) in files {
        let shown = display(&path);
        let text = match std::fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(_) => {
                    out.findings.push(parse_error(
                        &shown,
                        Region::default_start(),
                        "deploy manifest is not valid UTF-8".into(),
                    ));
                    continue;
                }
            },
            Err(e) => {
                out.findings.push(parse_error(
                    &shown,
                    Region::default_start(),
                    format!("cannot read deploy manifest: {e}"),
                ));
                continue;
            }
        };
        let (targets, findings) = match kind {
            ManifestKind::Compose => compose::parse_compose(&shown, &text),
            ManifestKind::MaybeKubernetes => {
                if !kubernetes::looks_like_kubernetes(&text) {
                    continue;
                }
                kubernetes::parse_kubernetes(&shown, &text)
            }
            ManifestKind::Dockerfile => dockerfile::parse_dockerfile(&shown, &text),
        };
        out.targets.extend(targets);
        out.findings.extend(findings);
    }
    merge_compose_overrides(&mut out.targets);
    out
}

/// Compose merges the files of one project (`compose.yaml` + `compose.override.yaml`,
/// `docker-compose.yml` + `docker-compose.prod.yml`): a service's defaulted grace in one file is
/// not what runs when another file of the same directory sets it, so the defaulted entry is
/// dropped; several explicit values are all kept (each is a deploy variant).
fn merge_compose_overrides(targets: &mut Vec<DeployTarget>) {
    let explicit: Vec<(PathBuf, String)> = targets
        .iter()
        .filter(|t| t.kind == DeployKind::Compose && t.source == GraceSource::Explicit)
        .map(|t| {
            (
                t.path.parent().unwrap_or(Path::new("")).to_path_buf(),
                t.service.clone(),
            )
        })
        .collect();
    targets.retain(|t| {
        let key = (
            t.path.parent().unwrap_or(Path::new("")).to_path_buf(),
            t.service.clone(),
        );
        !(t.kind == DeployKind::Compose
            && t.source == GraceSource::Default
            && explicit.contains(&key))
    });
}

/// A `parse-error` finding for a manifest.
pub(crate) fn parse_error(path: &Path, region: Region, message: String) -> Finding {
    Finding {
        rule: "parse-error".into(),
        severity: Severity::Deny,
        path: path.to_path_buf(),
        region,
        message,
        help: Some("fix the manifest so the audit can check its grace period".into()),
        item: String::new(),
        suppressed: None,
    }
}

/// Canonical `SIGxxx` name of a signal written as `SIGTERM`, `term`, `15`, …
///
/// # Examples
///
/// ```
/// use shutdown_lint::deploy::canonical_signal;
///
/// assert_eq!(canonical_signal("sigquit").as_deref(), Some("SIGQUIT"));
/// assert_eq!(canonical_signal("TERM").as_deref(), Some("SIGTERM"));
/// assert_eq!(canonical_signal("2").as_deref(), Some("SIGINT"));
/// assert_eq!(canonical_signal("$STOP"), None);
/// ```
pub fn canonical_signal(text: &str) -> Option<String> {
    const BY_NUMBER: [(u32, &str); 13] = [
        (1, "SIGHUP"),
        (2, "SIGINT"),
        (3, "SIGQUIT"),
        (6, "SIGABRT"),
        (9, "SIGKILL"),
        (10, "SIGUSR1"),
        (12, "SIGUSR2"),
        (13, "SIGPIPE"),
        (14, "SIGALRM"),
        (15, "SIGTERM"),
        (17, "SIGCHLD"),
        (19, "SIGSTOP"),
        (28, "SIGWINCH"),
    ];
    let t = text.trim().trim_matches(['"', '\'']);
    if let Ok(n) = t.parse::<u32>() {
        return BY_NUMBER
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, s)| (*s).to_owned());
    }
    let upper = t.to_ascii_uppercase();
    let name = if upper.starts_with("SIG") {
        upper
    } else {
        format!("SIG{upper}")
    };
    let known = BY_NUMBER.iter().any(|(_, s)| *s == name) || name.starts_with("SIGRTM");
    known.then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_override_with_an_explicit_grace_wins_over_the_default() {
        let (mut targets, _) = compose::parse_compose(
            Path::new("deploy/compose.yaml"),
            "services:\n  api:\n    image: api\n  db:\n    image: pg\n",
        );
        let (over, _) = compose::parse_compose(
            Path::new("deploy/compose.override.yaml"),
            "services:\n  api:\n    stop_grace_period: 2m\n",
        );
        targets.extend(over);
        merge_compose_overrides(&mut targets);
        let left: Vec<_> = targets
            .iter()
            .map(|t| (t.path.to_str().unwrap(), t.service.as_str()))
            .collect();
        assert_eq!(
            left,
            [
                ("deploy/compose.yaml", "db"),
                ("deploy/compose.override.yaml", "api")
            ]
        );
    }
}
