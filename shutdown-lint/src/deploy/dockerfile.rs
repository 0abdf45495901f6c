//! Dockerfiles: the `STOPSIGNAL` of the final stage (inherited through `FROM <stage>`).

use super::{DeployKind, DeployTarget, GraceSource, StopSignal, canonical_signal};
use crate::finding::{Finding, Region};
use std::path::Path;
use std::time::Duration;

/// `docker stop`'s default timeout.
///
/// # Examples
///
/// ```
/// assert_eq!(shutdown_lint::deploy::dockerfile::DEFAULT_GRACE.as_secs(), 10);
/// ```
pub const DEFAULT_GRACE: Duration = Duration::from_secs(10);

#[derive(Debug)]
struct Stage {
    alias: Option<String>,
    base: String,
    signal: Option<StopSignal>,
    from_region: Region,
}

/// Parses a Dockerfile into one [`DeployTarget`] for its final stage. Line continuations
/// (`\`), comments and case-insensitive instructions are handled; a `STOPSIGNAL` given by a
/// build variable (`$SIG`) cannot be known and is ignored.
///
/// # Examples
///
/// ```
/// use shutdown_lint::deploy::dockerfile::parse_dockerfile;
///
/// let text = "FROM rust AS build\nRUN cargo build\nFROM debian\nSTOPSIGNAL SIGQUIT\n";
/// let (targets, _) = parse_dockerfile("Dockerfile".as_ref(), text);
/// let signal = targets[0].stop_signal.as_ref().unwrap();
/// assert_eq!((signal.name.as_str(), signal.region.line), ("SIGQUIT", 4));
/// ```
pub fn parse_dockerfile(path: &Path, text: &str) -> (Vec<DeployTarget>, Vec<Finding>) {
    let mut stages: Vec<Stage> = Vec::new();
    let mut offset = 0;
    let mut logical = String::new();
    let mut start: Option<(usize, usize)> = None; // (line, offset) of the instruction
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let line_no = index + 1;
        let line = raw.trim_end_matches(['\n', '\r']);
        let line_offset = offset;
        offset += raw.len();
        let trimmed = line.trim_start();
        if start.is_none() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        if start.is_none() {
            start = Some((line_no, line_offset + (line.len() - trimmed.len())));
        }
        if let Some(body) = trimmed.strip_suffix('\\') {
            logical.push_str(body);
            logical.push(' ');
            continue;
        }
        logical.push_str(trimmed);
        let (ins_line, ins_offset) = start.take().unwrap_or((line_no, line_offset));
        instruction(&logical, ins_line, ins_offset, &mut stages);
        logical.clear();
    }
    let Some(last) = stages.last() else {
        return (Vec::new(), Vec::new());
    };
    // resolve the stop signal through `FROM <earlier stage>`
    let mut signal = last.signal.clone();
    let mut base = last.base.clone();
    let mut hops = 0;
    while signal.is_none() && hops < stages.len() {
        let Some(parent) = stages
            .iter()
            .find(|s| s.alias.as_deref() == Some(base.as_str()))
        else {
            break;
        };
        signal = parent.signal.clone();
        base = parent.base.clone();
        hops += 1;
    }
    let region = signal.as_ref().map_or(last.from_region, |s| s.region);
    let service = last.alias.clone().unwrap_or_default();
    let target = DeployTarget {
        path: path.to_path_buf(),
        kind: DeployKind::Dockerfile,
        service,
        object: None,
        grace: DEFAULT_GRACE,
        source: GraceSource::Default,
        pre_stop: None,
        stop_signal: signal,
        region,
        item: "Dockerfile".into(),
        names: Vec::new(),
        built_here: false,
    };
    (vec![target], Vec::new())
}

fn instruction(text: &str, line: usize, offset: usize, stages: &mut Vec<Stage>) {
    let mut words = text.split_whitespace();
    let Some(op) = words.next() else { return };
    let region = Region {
        line,
        column: 1,
        end_line: line,
        end_column: 1 + text.lines().next().unwrap_or("").chars().count(),
        offset,
        len: text.len(),
    };
    if op.eq_ignore_ascii_case("FROM") {
        let rest: Vec<&str> = words.filter(|w| !w.starts_with("--")).collect();
        let base = rest.first().copied().unwrap_or_default().to_owned();
        let alias = match rest.as_slice() {
            [_, kw, alias, ..] if kw.eq_ignore_ascii_case("AS") => Some(alias.to_string()),
            _ => None,
        };
        stages.push(Stage {
            alias,
            base,
            signal: None,
            from_region: region,
        });
    } else if op.eq_ignore_ascii_case("STOPSIGNAL") {
        let Some(arg) = words.next() else { return };
        if arg.starts_with('$') {
            return;
        }
        let name = canonical_signal(arg).unwrap_or_else(|| arg.to_owned());
        if let Some(stage) = stages.last_mut() {
            stage.signal = Some(StopSignal { name, region });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inherits_through_stages_and_handles_continuations() {
        let text = "# syntax=docker/dockerfile:1\nFROM debian AS base\nstopsignal 3\nFROM base AS app\nRUN echo \\\n  hi\nCMD [\"app\"]\n";
        let (targets, _) = parse_dockerfile("Dockerfile".as_ref(), text);
        let t = &targets[0];
        assert_eq!(t.service, "app");
        let s = t.stop_signal.as_ref().unwrap();
        assert_eq!((s.name.as_str(), s.region.line), ("SIGQUIT", 3));
    }

    #[test]
    fn no_stopsignal_and_empty_files() {
        let (targets, _) = parse_dockerfile("Dockerfile".as_ref(), "FROM scratch\n");
        assert!(targets[0].stop_signal.is_none());
        assert!(parse_dockerfile("Dockerfile".as_ref(), "").0.is_empty());
        let (targets, _) = parse_dockerfile("Dockerfile".as_ref(), "FROM a\nSTOPSIGNAL $SIG\n");
        assert!(targets[0].stop_signal.is_none());
    }
}
