//! Configuration: `shutdown-lint.toml`, found by walking up from a linted path, or
//! `[workspace.metadata.shutdown-lint]` (also `[package.metadata.shutdown-lint]`) in a
//! `Cargo.toml`. Keys (kebab-case, unknown keys are errors):
//!
//! ```toml
//! drain-budget = "25s"          # HTTP timeouts above this are findings
//! grace-period = "30s"          # used by `cargo shutdown audit`
//! include-tests = false
//! include-examples = false      # `examples/` is skipped like tests unless set
//! exclude = ["vendor/**"]       # globs relative to the config file's directory
//! [rules]                       # deny | warn | allow
//! raw-spawn = "deny"
//! [spawn]
//! tracked = ["my_crate::spawn_job"]   # extra functions that count as tracked
//! raw = ["my_crate::fire_and_forget"] # extra functions that count as raw spawns
//! [http]
//! no-timeout = ["my_crate::http::client"] # wrappers that build clients without timeout
//! [reexports]
//! "my_crate::rt" = "tokio"      # paths under the key are the value's
//! ```
//!
//! Errors are [`ConfigError`]s: miette diagnostics with a label on the offending TOML.

// Config errors carry the TOML text for labelled reports; they happen once per run, so
// their size does not matter.
#![allow(clippy::result_large_err)]

use crate::finding::{Region, Severity};
use crate::registry::RuleMeta;
use miette::{Diagnostic, NamedSource, SourceSpan};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// Name of the config file looked for in each directory.
pub const CONFIG_FILE: &str = "shutdown-lint.toml";

/// The linter's configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// `drain-budget`: HTTP timeouts above it are findings.
    pub drain_budget: Option<Duration>,
    /// `grace-period`: the deploy grace the budgets must fit in (audit).
    pub grace_period: Option<Duration>,
    /// `include-tests`: also lint test code.
    pub include_tests: bool,
    /// `include-examples`: also lint `examples/`.
    pub include_examples: bool,
    /// `exclude`: globs, relative to the config file's directory.
    pub exclude: Vec<String>,
    /// `[rules]`: level per rule.
    pub rules: BTreeMap<String, Severity>,
    /// `[spawn] tracked`.
    pub spawn_tracked: Vec<String>,
    /// `[spawn] raw`.
    pub spawn_raw: Vec<String>,
    /// `[http] no-timeout`.
    pub http_no_timeout: Vec<String>,
    /// `[reexports]`: `(from, to)` path prefixes.
    pub reexports: Vec<(String, String)>,
    /// The file this came from (`None`: defaults).
    pub source: Option<PathBuf>,
    /// Where `drain-budget`'s value is written in [`Config::source`].
    pub drain_budget_at: Option<Region>,
    /// Where `grace-period`'s value is written in [`Config::source`].
    pub grace_period_at: Option<Region>,
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message}")]
#[diagnostic(code(shutdown_lint::config))]
pub struct ConfigError {
    /// What is wrong.
    pub message: String,
    /// The TOML text.
    #[source_code]
    pub src: NamedSource<String>,
    /// Where.
    #[label("{label}")]
    pub span: Option<SourceSpan>,
    /// Label text.
    pub label: String,
    /// What to do.
    #[help]
    pub help: Option<String>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    drain_budget: Option<Spanned<String>>,
    grace_period: Option<Spanned<String>>,
    include_tests: Option<bool>,
    include_examples: Option<bool>,
    exclude: Option<Vec<Spanned<String>>>,
    rules: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    spawn: Option<RawSpawn>,
    http: Option<RawHttp>,
    reexports: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSpawn {
    tracked: Option<Vec<String>>,
    raw: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawHttp {
    no_timeout: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct CargoToml {
    workspace: Option<CargoSection>,
    package: Option<CargoSection>,
}

#[derive(Debug, Deserialize)]
struct CargoSection {
    metadata: Option<CargoMetadata>,
}

#[derive(Debug, Deserialize)]
struct CargoMetadata {
    #[serde(rename = "shutdown-lint")]
    shutdown_lint: Option<RawConfig>,
}

/// Parses a duration with the toolkit's one grammar ([`shutdown_duration::parse`]): `25s`,
/// `500ms`, `2m`, `1h`, `1m30s`, `1.5s`; `25` and `25sec` are errors.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// assert_eq!(shutdown_lint::config::parse_duration("1m30s"), Ok(Duration::from_secs(90)));
/// assert!(shutdown_lint::config::parse_duration("25").is_err());
/// ```
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    shutdown_duration::parse(s).map_err(|e| e.message)
}

fn parse_severity(s: &str) -> Option<Severity> {
    match s {
        "deny" => Some(Severity::Deny),
        "warn" => Some(Severity::Warn),
        "allow" => Some(Severity::Allow),
        _ => None,
    }
}

impl Config {
    /// The level of `rule`: configured, or its default.
    pub fn severity(&self, rule: &RuleMeta) -> Severity {
        self.rules
            .get(rule.name)
            .copied()
            .unwrap_or(rule.default_severity)
    }

    /// Directory that `exclude` globs are relative to.
    pub fn root_dir(&self) -> Option<&Path> {
        self.source.as_deref().and_then(Path::parent)
    }

    /// Parses `shutdown-lint.toml` text; `path` names it in errors.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::config::Config;
    /// let c = Config::from_toml_str("drain-budget = \"25s\"\n[rules]\nraw-spawn = \"warn\"\n", "x.toml".as_ref()).unwrap();
    /// assert_eq!(c.drain_budget, Some(std::time::Duration::from_secs(25)));
    /// let err = Config::from_toml_str("[rules]\nraw-spwan = \"deny\"\n", "x.toml".as_ref()).unwrap_err();
    /// assert!(err.message.contains("raw-spwan"));
    /// ```
    pub fn from_toml_str(src: &str, path: &Path) -> Result<Config, ConfigError> {
        let raw: RawConfig = toml::from_str(src).map_err(|e| toml_error(src, path, &e))?;
        Self::from_raw(raw, src, path)
    }

    /// Reads `[workspace.metadata.shutdown-lint]` (or `[package.metadata.shutdown-lint]`)
    /// from a `Cargo.toml`'s text; `Ok(None)` when it has no such table.
    pub fn from_cargo_toml_str(src: &str, path: &Path) -> Result<Option<Config>, ConfigError> {
        if !src.contains("shutdown-lint") {
            return Ok(None);
        }
        let cargo: CargoToml = toml::from_str(src).map_err(|e| toml_error(src, path, &e))?;
        let raw = [cargo.workspace, cargo.package]
            .into_iter()
            .flatten()
            .find_map(|s| s.metadata.and_then(|m| m.shutdown_lint));
        match raw {
            Some(raw) => Self::from_raw(raw, src, path).map(Some),
            None => Ok(None),
        }
    }

    /// Reads the config file at `path` (`shutdown-lint.toml` or a `Cargo.toml`).
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let src = std::fs::read_to_string(path).map_err(|e| ConfigError {
            message: format!("cannot read config `{}`: {e}", path.display()),
            src: NamedSource::new(path.display().to_string(), String::new()),
            span: None,
            label: String::new(),
            help: None,
        })?;
        if path.file_name().is_some_and(|n| n == "Cargo.toml") {
            return Ok(Self::from_cargo_toml_str(&src, path)?.unwrap_or_default());
        }
        Self::from_toml_str(&src, path)
    }

    /// Finds the configuration for `start` (a file or directory): the nearest
    /// `shutdown-lint.toml`, or `Cargo.toml` with a `shutdown-lint` metadata table, walking
    /// up; defaults when there is none.
    ///
    /// # Examples
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("shutdown-lint.toml"), "include-tests = true\n").unwrap();
    /// std::fs::create_dir(dir.path().join("src")).unwrap();
    /// let c = shutdown_lint::config::Config::discover(&dir.path().join("src")).unwrap();
    /// assert!(c.include_tests);
    /// ```
    pub fn discover(start: &Path) -> Result<Config, ConfigError> {
        let abs = if start.is_absolute() {
            start.to_path_buf()
        } else {
            std::env::current_dir()
                .map(|d| d.join(start))
                .unwrap_or_else(|_| start.to_path_buf())
        };
        let first = if abs.is_dir() {
            Some(abs.as_path())
        } else {
            abs.parent()
        };
        let mut dir = first;
        while let Some(d) = dir {
            let candidate = d.join(CONFIG_FILE);
            if candidate.is_file() {
                return Self::from_file(&candidate);
            }
            let cargo = d.join("Cargo.toml");
            if cargo.is_file()
                && let Ok(src) = std::fs::read_to_string(&cargo)
                && let Some(c) = Self::from_cargo_toml_str(&src, &cargo)?
            {
                return Ok(c);
            }
            dir = d.parent();
        }
        Ok(Config::default())
    }

    fn from_raw(raw: RawConfig, src: &str, path: &Path) -> Result<Config, ConfigError> {
        let err = |span: std::ops::Range<usize>,
                   message: String,
                   label: &str,
                   help: Option<String>| ConfigError {
            message,
            src: NamedSource::new(path.display().to_string(), src.to_string()),
            span: Some((span.start, span.end - span.start).into()),
            label: label.to_string(),
            help,
        };
        let dur = |v: &Option<Spanned<String>>,
                   key: &str|
         -> Result<Option<Duration>, ConfigError> {
            match v {
                    None => Ok(None),
                    Some(s) => shutdown_duration::parse(s.get_ref()).map(Some).map_err(|e| {
                        err(
                            value_span(src, s.span(), s.get_ref(), e.span),
                            format!("invalid `{key}`: {}", e.message),
                            "not a duration",
                            Some("write e.g. \"25s\", \"500ms\" or \"2m\" (units: ns, us, ms, s, m, h)".into()),
                        )
                    }),
                }
        };
        let mut c = Config {
            drain_budget: dur(&raw.drain_budget, "drain-budget")?,
            grace_period: dur(&raw.grace_period, "grace-period")?,
            include_tests: raw.include_tests.unwrap_or(false),
            include_examples: raw.include_examples.unwrap_or(false),
            source: Some(path.to_path_buf()),
            ..Config::default()
        };
        let index = crate::source::LineIndex::new(src);
        let at = |v: &Option<Spanned<String>>| {
            v.as_ref()
                .map(|s| index.region(s.span().start, s.span().end))
        };
        c.drain_budget_at = at(&raw.drain_budget);
        c.grace_period_at = at(&raw.grace_period);
        for g in raw.exclude.unwrap_or_default() {
            if let Err(e) = globset::Glob::new(g.get_ref()) {
                return Err(err(
                    g.span(),
                    format!("invalid glob in `exclude`: {e}"),
                    "this glob",
                    None,
                ));
            }
            c.exclude.push(g.into_inner());
        }
        for (name, level) in raw.rules.unwrap_or_default() {
            if crate::registry::rule(name.get_ref()).is_none() {
                let known: Vec<&str> = crate::registry::all_rules()
                    .iter()
                    .map(|r| r.name)
                    .collect();
                return Err(err(
                    name.span(),
                    format!("unknown rule `{}` in [rules]", name.get_ref()),
                    "unknown rule",
                    Some(format!("known rules: {}", known.join(", "))),
                ));
            }
            let Some(sev) = parse_severity(level.get_ref()) else {
                return Err(err(
                    level.span(),
                    format!(
                        "invalid level `{}` for rule `{}`",
                        level.get_ref(),
                        name.get_ref()
                    ),
                    "not a level",
                    Some("use \"deny\", \"warn\" or \"allow\"".into()),
                ));
            };
            c.rules.insert(name.into_inner(), sev);
        }
        if let Some(s) = raw.spawn {
            c.spawn_tracked = s.tracked.unwrap_or_default();
            c.spawn_raw = s.raw.unwrap_or_default();
        }
        if let Some(h) = raw.http {
            c.http_no_timeout = h.no_timeout.unwrap_or_default();
        }
        c.reexports = raw.reexports.unwrap_or_default().into_iter().collect();
        Ok(c)
    }
}

/// The span in the TOML text of `part` (a byte range of the string `value`) when the string
/// is written plainly (`"25sec"`: quotes, no escapes); the whole value otherwise.
fn value_span(
    src: &str,
    whole: std::ops::Range<usize>,
    value: &str,
    part: std::ops::Range<usize>,
) -> std::ops::Range<usize> {
    let written = src.get(whole.clone()).unwrap_or("");
    let plain =
        written.len() == value.len() + 2 && written.get(1..written.len() - 1) == Some(value);
    if plain && part.start < part.end && part.end <= value.len() {
        whole.start + 1 + part.start..whole.start + 1 + part.end
    } else {
        whole
    }
}

fn toml_error(src: &str, path: &Path, e: &toml::de::Error) -> ConfigError {
    let span = e
        .span()
        .map(|r| SourceSpan::from((r.start, r.end.saturating_sub(r.start))));
    let mut message = e.message().trim().to_string();
    if let Some(first) = message.lines().next() {
        message = first.to_string();
    }
    ConfigError {
        message: format!("invalid config `{}`: {message}", path.display()),
        src: NamedSource::new(path.display().to_string(), src.to_string()),
        span,
        label: "here".into(),
        help: Some(
            "valid keys: drain-budget, grace-period, include-tests, include-examples, exclude, [rules], [spawn] tracked/raw, [http] no-timeout, [reexports]"
                .into(),
        ),
    }
}
