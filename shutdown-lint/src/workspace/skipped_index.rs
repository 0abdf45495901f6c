//! An index of what the linted files the byte scan skipped may declare, for the workspace
//! model's last rounds ([`super::path_deps::DepSources`]): such a file names no word a rule
//! reads, yet may declare a field or method a chain goes through (`services:
//! Arc<OnceServices>`, `impl Deref for OnceServices`). Each file is read once, for the
//! names written where a declaration would be; a key the model asks (`Type::name`) then
//! reads only the files that may declare both.

use super::path_deps::Source;
use std::collections::HashMap;

/// What each skipped file may declare, by name: the types it may declare or implement
/// (see [`declared_names`]), the structs it may declare (`struct Name`: what a type asked
/// whole is searched for), and the functions and fields (`fn name`, `name:`).
pub(crate) struct SkippedIndex {
    types: HashMap<String, Vec<usize>>,
    structs: HashMap<String, Vec<usize>>,
    members: HashMap<String, Vec<usize>>,
}

impl SkippedIndex {
    /// Reads every file once.
    pub(crate) fn build(files: &[Source]) -> SkippedIndex {
        let idx: Vec<usize> = (0..files.len()).collect();
        let names = crate::pool::map_on_large_stacks(&idx, None, |&i| {
            let text = std::fs::read_to_string(&files[i].0).ok()?;
            Some(scan(&text))
        });
        let mut index = SkippedIndex {
            types: HashMap::new(),
            structs: HashMap::new(),
            members: HashMap::new(),
        };
        for (i, found) in names.into_iter().enumerate() {
            let Some(Some(Names {
                types,
                structs,
                members,
            })) = found
            else {
                continue;
            };
            for t in types {
                index.types.entry(t).or_default().push(i);
            }
            for t in structs {
                index.structs.entry(t).or_default().push(i);
            }
            for m in members {
                index.members.entry(m).or_default().push(i);
            }
        }
        index
    }

    /// The files that may declare what `key` asks: `Type::name` (a member of that type),
    /// `Type::` (the type: `struct Type`, as the model's search for it reads). None for a
    /// member of no known type (`headers`: it would pick every file with a field of that
    /// name) or of a one-letter type (a generic parameter, `S::map_err`, declared nowhere).
    pub(crate) fn files_for(&self, key: &str) -> Vec<usize> {
        let none = Vec::new();
        match key.rsplit_once("::") {
            Some((t, _)) if t.len() < 2 => none,
            Some((t, "")) => self.structs.get(t).unwrap_or(&none).clone(),
            Some((t, n)) => {
                let ts = self.types.get(t).unwrap_or(&none);
                self.members
                    .get(n)
                    .unwrap_or(&none)
                    .iter()
                    .filter(|i| ts.contains(i))
                    .copied()
                    .collect()
            }
            None => none,
        }
    }
}

/// The names a file may declare: types — a name written right after `struct`, `enum`,
/// `union`, `trait`, `type`, `impl` (its generics skipped) or `for`, a superset of what it
/// declares or implements (`impl<T> Deref for Wrapper<T>` gives `Deref` and `Wrapper`) —
/// and members — a name after `fn`, or before a single `:` (a field).
pub(crate) fn declared_names(text: &str) -> (Vec<String>, Vec<String>) {
    let names = scan(text);
    (names.types, names.members)
}

/// What [`scan`] reads off a file, each sorted without repeats.
struct Names {
    types: Vec<String>,
    /// The types after `struct` (also in `types`).
    structs: Vec<String>,
    members: Vec<String>,
}

/// The names of [`declared_names`], and the structs among the types.
fn scan(text: &str) -> Names {
    const KEYWORDS: &[&str] = &["struct", "enum", "union", "trait", "type", "impl", "for"];
    use crate::lexscan::{is_ident, skip_ws};
    let b = text.as_bytes();
    let (mut types, mut structs, mut members) = (Vec::new(), Vec::new(), Vec::new());
    let mut after_fn = false;
    let mut i = 0;
    while i < b.len() {
        if !is_ident(b[i]) || (i > 0 && is_ident(b[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        let word = &text[start..i];
        let next = skip_ws(b, i);
        if after_fn || (b.get(next) == Some(&b':') && b.get(next + 1) != Some(&b':')) {
            members.push(word.to_string());
        }
        after_fn = word == "fn";
        if !(3..=6).contains(&word.len()) || !KEYWORDS.contains(&word) {
            continue;
        }
        let mut j = next;
        if word == "impl" && b.get(j) == Some(&b'<') {
            // the impl's own generics
            let mut depth = 0usize;
            while j < b.len() {
                match b[j] {
                    b'<' => depth += 1,
                    b'>' if b[j - 1] == b'-' => {}
                    b'>' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            j += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            j = skip_ws(b, j);
        }
        // a path: its last segment (`super::Service`, `std::ops::Deref`)
        let mut name = None;
        loop {
            let s = j;
            while j < b.len() && is_ident(b[j]) {
                j += 1;
            }
            if j == s {
                break;
            }
            name = Some(&text[s..j]);
            if b.get(j..j + 2) == Some(b"::") {
                j += 2;
            } else {
                break;
            }
        }
        if let Some(n) = name {
            types.push(n.to_string());
            if word == "struct" {
                structs.push(n.to_string());
            }
        }
    }
    for v in [&mut types, &mut structs, &mut members] {
        v.sort_unstable();
        v.dedup();
    }
    Names {
        types,
        structs,
        members,
    }
}

#[cfg(test)]
mod tests {
    use super::declared_names;

    #[test]
    fn types_and_members_where_declarations_are() {
        let src = "pub(crate) struct OnceServices { lock: OnceLock<Arc<Services>> }\n\
                   impl<T: Fn() -> u8> Deref for super::Wrapper<T> { fn deref(&self) {} }\n\
                   fn main() { let x = a::b::c(); }\n";
        let (types, members) = declared_names(src);
        for t in ["OnceServices", "Deref", "Wrapper"] {
            assert!(types.contains(&t.to_string()), "{t}: {types:?}");
        }
        assert!(!types.contains(&"c".to_string()), "{types:?}");
        for m in ["lock", "deref", "main"] {
            assert!(members.contains(&m.to_string()), "{m}: {members:?}");
        }
        // a path's `::` is no field
        assert!(!members.contains(&"a".to_string()), "{members:?}");
    }

    #[test]
    fn structs_apart_from_other_types() {
        let names = super::scan("impl Service for Svc { type Response = u8; }\nstruct Svc;\n");
        assert_eq!(names.structs, vec!["Svc".to_string()]);
        assert_eq!(names.types, vec!["Response", "Service", "Svc"]);
    }

    #[test]
    fn unbalanced_generics_end_at_the_text() {
        let (types, _) = declared_names("impl<T");
        assert!(types.is_empty());
    }
}
