//! The cross-file phases for timeouts that read a field: the type of a field of a field
//! (`settings.s3.request_timeout_seconds`: `S3`, from `struct Settings`'s declaration), and
//! what the workspace writes to a field — a known duration, a default, or another type's
//! field it is filled from (`GetRequest { timeout: self.config.download.piece_timeout }`,
//! followed to `Download`'s default).

use super::{Job, file_context, read_files_naming};
use crate::analysis::{Analyzer, FileAnalysis};
use crate::config::Config;
use crate::finding::Finding;
use crate::model::FieldKey;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// How many times a field filled from another type's field is followed to that field's
/// writes (`GetRequest.timeout` ← `Download.piece_timeout` is one).
const FIELD_HOPS: usize = 3;

/// How many middle fields an owner path may name (`Piece.config.download`: two).
const MIDDLE_FIELDS: usize = 4;

/// Phase 3a'': timeouts that read a field of a field (`settings.s3.request_timeout_seconds`,
/// opened as a field of `Settings.s3`): the type of each middle field is read from the
/// declaration of the struct holding it (`pub s3: S3`) in the files whose code declares it,
/// so the field-writes phase looks for the writes of `S3`'s field. A middle field declared
/// with different types by two structs of that name is left open.
pub(super) fn nested_owners_phase(jobs: &[Job], analyses: &mut [FileAnalysis]) {
    let paths: BTreeSet<String> = analyses
        .iter()
        .flat_map(|a| &a.open_fields)
        .filter(|o| o.owner.contains('.'))
        .map(|o| o.owner.clone())
        .collect();
    if paths.is_empty() {
        return;
    }
    let types = owner_types(jobs, analyses, &paths);
    for a in analyses.iter_mut() {
        for o in &mut a.open_fields {
            if let Some(ty) = types.get(&o.owner) {
                o.owner = ty.clone();
                // not read for this owner's writes yet (see `field_writes_phase`)
                o.read_here = false;
            }
        }
    }
}

/// The type each owner path (`Piece.config.download`) names: the last segment of the type
/// of its last middle field, read one struct at a time (`Piece`'s `config: Arc<Config>`,
/// then `Config`'s `download: Download`: `Download`). Paths with a middle field no
/// declaration gives one type are left out.
fn owner_types(
    jobs: &[Job],
    analyses: &[FileAnalysis],
    paths: &BTreeSet<String>,
) -> HashMap<String, String> {
    // each path and what is known of it so far: a type, then the middle fields left
    let mut now: HashMap<String, String> = paths.iter().map(|p| (p.clone(), p.clone())).collect();
    for _ in 0..MIDDLE_FIELDS {
        let wanted: BTreeSet<(String, String)> = now
            .values()
            .filter_map(|p| {
                let mut parts = p.splitn(3, '.');
                Some((parts.next()?.to_string(), parts.next()?.to_string()))
            })
            .collect();
        if wanted.is_empty() {
            break;
        }
        let types = middle_field_types(jobs, analyses, &wanted);
        now.retain(|_, p| {
            let mut parts = p.splitn(3, '.');
            let (Some(outer), Some(mid)) = (parts.next(), parts.next()) else {
                return true;
            };
            let rest = parts.next();
            let Some(Some(ty)) = types.get(&(outer.to_string(), mid.to_string())) else {
                return false;
            };
            *p = match rest {
                Some(rest) => format!("{ty}.{rest}"),
                None => ty.clone(),
            };
            true
        });
    }
    now.retain(|_, p| !p.contains('.'));
    now
}

/// The type of each wanted `(struct, field)`, read from the declarations of the struct in
/// the files whose text names `struct Name`; `None` when two declarations disagree.
fn middle_field_types(
    jobs: &[Job],
    analyses: &[FileAnalysis],
    wanted: &BTreeSet<(String, String)>,
) -> HashMap<(String, String), Option<String>> {
    let outers: Vec<&str> = wanted
        .iter()
        .map(|(o, _)| o.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let needles: Vec<String> = outers.iter().map(|o| format!("struct {o}")).collect();
    let results = read_files_naming(jobs, analyses, &needles, |_, text, here| {
        let mut out = Vec::new();
        for outer in here.iter().map(|&k| outers[k]) {
            for (mid, ty) in struct_field_types(text, outer) {
                let key = (outer.to_string(), mid);
                if wanted.contains(&key) {
                    out.push((key, ty));
                }
            }
        }
        Some(out)
    });
    let mut types: HashMap<(String, String), Option<String>> = HashMap::new();
    for (key, ty) in results.into_iter().flat_map(|(_, r)| r) {
        types
            .entry(key)
            .and_modify(|t| {
                if t.as_ref() != Some(&ty) {
                    *t = None;
                }
            })
            .or_insert(Some(ty));
    }
    types
}

/// The named fields of every `struct outer { .. }` the code of `text` declares, with the last
/// segment of each field's type (through references and one-parameter smart pointers).
fn struct_field_types(text: &str, outer: &str) -> Vec<(String, String)> {
    let code = crate::lexscan::code_only(text);
    let word = format!("struct {outer}");
    let mut out = Vec::new();
    for at in memchr::memmem::find_iter(&code, word.as_bytes()) {
        let end = at + word.len();
        if !crate::lexscan::is_whole_word(&code, at, end) {
            continue;
        }
        let Some(open) = code[end..]
            .iter()
            .position(|&c| c == b'{' || c == b';' || c == b'(')
        else {
            continue;
        };
        let open = end + open;
        if code[open] != b'{' {
            continue;
        }
        let Some(close) = crate::lexscan::matching(&code, open, b'{', b'}') else {
            continue;
        };
        let Ok(st) = syn::parse_str::<syn::ItemStruct>(&text[at..=close]) else {
            continue;
        };
        for f in &st.fields {
            if let (Some(id), Some(ty)) = (&f.ident, crate::collect::named_type(&f.ty)) {
                out.push((id.to_string(), ty));
            }
        }
    }
    out
}

/// What the workspace writes to some fields: the longest known duration of each (and
/// where, for the message), and the fields of other types each is filled from.
#[derive(Default)]
struct Written {
    longest: HashMap<FieldKey, (f64, String)>,
    /// `(field, the field it is filled from, where)`.
    forwards: Vec<(FieldKey, FieldKey, String)>,
    /// `(field, the getter it is filled from, where)`.
    getters: Vec<(FieldKey, String, String)>,
}

/// Reads the files naming a `wanted` field's type and the field in code (the byte scan's
/// skipped ones included; test code not) for their writes, on all cores. With `first`, a
/// file that opened the field itself is not read again.
fn read_writes(
    jobs: &[Job],
    analyses: &[FileAnalysis],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
    wanted: &[FieldKey],
    first: bool,
) -> Written {
    let readers: Vec<usize> = (0..jobs.len())
        .filter(|&i| !analyses[i].skipped_as_test && !wanted.is_empty())
        .collect();
    let results = crate::pool::map_on_large_stacks(&readers, None, |&i| {
        let job = &jobs[i];
        let text = std::fs::read_to_string(&job.abs).ok()?;
        let names = |w: &str| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some();
        // a file that opened a field was read for its writes already (not one given the
        // field by a caller of its function)
        let opened = |w: &FieldKey| {
            first
                && analyses[i]
                    .open_fields
                    .iter()
                    .any(|o| o.read_here && o.key() == *w)
        };
        // the field named in code, not only in a string (a test's JSON), unless a `config`
        // builder gives defaults by key
        let keyed = names("set_default") || names("set_override");
        let mut code: Option<Vec<u8>> = None;
        let mut here: Vec<FieldKey> = Vec::new();
        for w in wanted {
            if opened(w) || !names(&w.owner) || !names(&w.field) {
                continue;
            }
            let code = code.get_or_insert_with(|| crate::lexscan::code_only(&text));
            if keyed || crate::lexscan::find_word(code, w.field.as_bytes(), 0).is_some() {
                here.push(w.clone());
            }
        }
        if here.is_empty() {
            return None;
        }
        let found = analyzer_of(job).field_writes(&text, &file_context(job), &here)?;
        Some((here, found))
    });
    let mut out = Written::default();
    for (&i, r) in readers.iter().zip(results) {
        let Some((here, found)) = r.flatten() else {
            continue;
        };
        let path = analyses[i].path.display();
        for (k, secs, line) in found.values {
            let key = &here[k];
            let via = format!(
                "the field `{}` of `{}`, set on line {line} of {path}",
                key.field, key.owner
            );
            let e = out
                .longest
                .entry(key.clone())
                .or_insert_with(|| (secs, via.clone()));
            if secs > e.0 {
                *e = (secs, via);
            }
        }
        for (k, from, line) in found.forwards {
            out.forwards
                .push((here[k].clone(), from, format!("line {line} of {path}")));
        }
        for (k, getter, line) in found.getters {
            out.getters
                .push((here[k].clone(), getter, format!("line {line} of {path}")));
        }
    }
    out
}

/// A getter and the field's unit (`FieldKey::unit`): what [`getter_values`] answers for.
type GetterKey = (String, Option<u64>);

/// What the getters that fill fields return (`Upstream { timeout: config.get_timeout() }`
/// with `fn get_timeout(&self) -> u64 { self.timeout.unwrap_or(60) }` in another file),
/// in the field's units: by `(getter, factor)`, the value and where, when exactly one
/// method of that name in the workspace's files gives one (a name two types declare with
/// two values is left unknown).
fn getter_values(
    jobs: &[Job],
    analyses: &[FileAnalysis],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
    getters: &[(FieldKey, String, String)],
) -> HashMap<GetterKey, (f64, String)> {
    let wanted: Vec<GetterKey> = getters
        .iter()
        .map(|(key, name, _)| (name.clone(), key.unit))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let asked: Vec<(String, Option<f64>)> = wanted
        .iter()
        .map(|(n, u)| (n.clone(), u.map(f64::from_bits)))
        .collect();
    let needles: Vec<String> = wanted.iter().map(|(n, _)| format!("fn {n}(")).collect();
    let results = read_files_naming(jobs, analyses, &needles, |job, text, _| {
        analyzer_of(job).getter_values(text, &file_context(job), &asked)
    });
    let mut found: HashMap<GetterKey, Vec<(f64, String)>> = HashMap::new();
    for (i, r) in results {
        for (k, secs, line) in r {
            let path = analyses[i].path.display();
            found.entry(wanted[k].clone()).or_default().push((
                secs,
                format!("`{}()` on line {line} of {path}", wanted[k].0),
            ));
        }
    }
    found
        .into_iter()
        .filter_map(|(k, v)| match v.as_slice() {
            [one] => Some((k, one.clone())),
            _ => None,
        })
        .collect()
}

/// The longest known duration of each `wanted` field: its own writes, or those of the
/// fields of other types it is filled from, followed [`FIELD_HOPS`] times (their middle
/// fields' types read as in [`nested_owners_phase`]).
fn field_values(
    jobs: &[Job],
    analyses: &[FileAnalysis],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
    wanted: &[FieldKey],
) -> HashMap<FieldKey, (f64, String)> {
    let Written {
        mut longest,
        mut forwards,
        mut getters,
    } = read_writes(jobs, analyses, analyzer_of, wanted, true);
    let mut read: BTreeSet<FieldKey> = wanted.iter().cloned().collect();
    // (field, the field it is filled from, where), sources with their owner's type
    let mut edges: Vec<(FieldKey, FieldKey, String)> = Vec::new();
    for _ in 0..FIELD_HOPS {
        if forwards.is_empty() {
            break;
        }
        let paths: BTreeSet<String> = forwards
            .iter()
            .filter(|(_, from, _)| from.owner.contains('.'))
            .map(|(_, from, _)| from.owner.clone())
            .collect();
        let types = if paths.is_empty() {
            HashMap::new()
        } else {
            owner_types(jobs, analyses, &paths)
        };
        let mut next = Vec::new();
        for (to, mut from, at) in std::mem::take(&mut forwards) {
            if from.owner.contains('.') {
                let Some(ty) = types.get(&from.owner) else {
                    continue;
                };
                from.owner = ty.clone();
            }
            if read.insert(from.clone()) {
                next.push(from.clone());
            }
            edges.push((to, from, at));
        }
        if next.is_empty() {
            break;
        }
        let more = read_writes(jobs, analyses, analyzer_of, &next, false);
        for (key, v) in more.longest {
            match longest.get(&key) {
                Some(old) if old.0 >= v.0 => {}
                _ => {
                    longest.insert(key, v);
                }
            }
        }
        forwards = more.forwards;
        getters.extend(more.getters);
    }
    // a field filled from a getter of another file takes what the getter returns
    if !getters.is_empty() {
        let values = getter_values(jobs, analyses, analyzer_of, &getters);
        for (key, name, at) in &getters {
            let Some((secs, via)) = values.get(&(name.clone(), key.unit)) else {
                continue;
            };
            if longest.get(key).is_none_or(|(old, _)| *secs > *old) {
                let via = format!(
                    "{via}, which fills the field `{}` of `{}` on {at}",
                    key.field, key.owner
                );
                longest.insert(key.clone(), (*secs, via));
            }
        }
    }
    // a field takes the longest of what it is filled from, along chains of fills
    for _ in 0..=FIELD_HOPS {
        let mut changed = false;
        for (to, from, at) in &edges {
            let Some((secs, via)) = longest.get(from).cloned() else {
                continue;
            };
            if longest.get(to).is_none_or(|(old, _)| secs > *old) {
                let via = format!(
                    "{via}, which fills the field `{}` of `{}` on {at}",
                    to.field, to.owner
                );
                longest.insert(to.clone(), (secs, via));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    longest
}

/// Phase 3b: timeouts that read a field of a struct another file fills in (a config
/// parser's default: `.timeout(settings.timeout)` with `WebhookSettings { timeout:
/// ..unwrap_or_else(|| Duration::from_secs(30)) }` elsewhere; or `GetRequest { timeout:
/// self.config.download.piece_timeout }`, valued by `Download`'s default). Only when some
/// file has one: the files naming such a field's type and the field are read for their
/// writes, on all cores; each field takes the longest known duration written to it, and
/// the file reading it is checked again for that timeout.
pub(super) fn field_writes_phase(
    jobs: &[Job],
    analyses: &mut [FileAnalysis],
    configs: &[Config],
    analyzer_of: &(dyn Fn(&Job) -> Arc<Analyzer> + Sync),
    cross: &mut [Vec<Finding>],
) {
    let wanted: BTreeSet<FieldKey> = analyses
        .iter()
        .flat_map(|a| a.open_fields.iter())
        .map(crate::model::OpenField::key)
        .collect();
    let passed = analyses.iter().any(|a| !a.passed_values.is_empty());
    if wanted.is_empty() && !passed {
        return;
    }
    let wanted: Vec<FieldKey> = wanted.into_iter().collect();
    let writes = if wanted.is_empty() {
        HashMap::new()
    } else {
        field_values(jobs, analyses, analyzer_of, &wanted)
    };
    for (i, a) in analyses.iter_mut().enumerate() {
        if !a.open_fields.is_empty() || !a.passed_values.is_empty() {
            cross[i].extend(a.apply_field_writes(&writes, &configs[jobs[i].cfg]));
        }
    }
}
