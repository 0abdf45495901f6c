//! An index of what the linted files the byte scan skipped may declare, for the workspace
//! model's last rounds ([`super::path_deps::DepSources`]): such a file names no word a rule
//! reads, yet may declare a field or method a chain goes through (`services:
//! Arc<OnceServices>`, `impl Deref for OnceServices`). Each file's names written where a
//! declaration would be are read off its text by the byte-scan pass that skipped it
//! ([`DeclaredNames::of`], while the text is in memory), or read here for a file that pass
//! did not see; a key the model asks (`Type::name`) then reads only the files that may
//! declare both.

use super::path_deps::Source;
use foldhash::{HashMap, HashMapExt};

/// What each skipped file may declare, by name: the types it may declare or implement
/// (see [`declared_names`]), the structs it may declare (`struct Name`: what a type asked
/// whole is searched for), and the functions and fields (`fn name`, `name:`).
pub(crate) struct SkippedIndex {
    types: HashMap<String, Vec<usize>>,
    structs: HashMap<String, Vec<usize>>,
    members: HashMap<String, Vec<usize>>,
}

impl SkippedIndex {
    /// The index of `files`, whose names are `known` (by position) or, where `None`, read
    /// from the file now.
    pub(crate) fn build(files: &[Source], mut names: Vec<Option<DeclaredNames>>) -> SkippedIndex {
        names.resize_with(files.len(), || None);
        let unread: Vec<usize> = (0..files.len()).filter(|&i| names[i].is_none()).collect();
        let read = crate::pool::map_on_large_stacks(&unread, None, |&i| {
            let text = std::fs::read_to_string(&files[i].0).ok()?;
            Some(DeclaredNames::of(&text))
        });
        for (i, r) in unread.into_iter().zip(read) {
            names[i] = r.flatten();
        }
        let mut index = SkippedIndex {
            types: HashMap::new(),
            structs: HashMap::new(),
            members: HashMap::new(),
        };
        for (i, found) in names.into_iter().enumerate() {
            let Some(DeclaredNames {
                types,
                structs,
                members,
            }) = found
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
    /// `Type::` (the type: `struct Type`, as the model's search for it reads), or a member
    /// of no known type (`workers` of `let app = App::new(); app.workers.handle()` when
    /// `App::new` is itself in a skipped file) when at most [`BARE_MEMBER_FILES`] files
    /// name it so — a common name (`headers`, `config`) would pick every file with a field
    /// of that name, and the model types a bare name only when all of its declarations
    /// agree. None for a member of a one-letter type (a generic parameter, `S::map_err`,
    /// declared nowhere).
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
            None => match self.members.get(key) {
                Some(files) if files.len() <= BARE_MEMBER_FILES => files.clone(),
                _ => none,
            },
        }
    }
}

/// The most skipped files a member of no known type is looked for in
/// ([`SkippedIndex::files_for`]).
const BARE_MEMBER_FILES: usize = 4;

/// The names a file may declare: types — a name written right after `struct`, `enum`,
/// `union`, `trait`, `type`, `impl` (its generics skipped) or `for`, a superset of what it
/// declares or implements (`impl<T> Deref for Wrapper<T>` gives `Deref` and `Wrapper`) —
/// and members — a name after `fn`, or before a single `:` (a field).
pub(crate) fn declared_names(text: &str) -> (Vec<String>, Vec<String>) {
    let names = DeclaredNames::of(text);
    (names.types, names.members)
}

/// The names a file may declare ([`declared_names`]) and the structs among its types, each
/// sorted without repeats: a skipped file's entry in the index.
#[derive(Debug, Clone, Default)]
pub(crate) struct DeclaredNames {
    types: Vec<String>,
    /// The types after `struct` (also in `types`).
    structs: Vec<String>,
    members: Vec<String>,
}

impl DeclaredNames {
    /// Whether the file may declare a function or field `name`.
    pub(crate) fn declares_member(&self, name: &str) -> bool {
        self.members
            .binary_search_by(|m| m.as_str().cmp(name))
            .is_ok()
    }

    /// Reads the names off `text`. Every skipped file of a run goes through it, so it
    /// looks only where a name can be: before each single `:`, after each `fn` and each
    /// type keyword (found by `memchr` and one substring search per keyword), not at every
    /// word of the file.
    pub(crate) fn of(text: &str) -> DeclaredNames {
        use crate::lexscan::{is_ident, skip_ws};
        let b = text.as_bytes();
        // slices of the text first: each name is copied once, not once per occurrence
        let (mut types, mut structs, mut members): (Vec<&str>, Vec<&str>, Vec<&str>) =
            (Vec::new(), Vec::new(), Vec::new());
        // the fields of enum variants (`0` of `Tokio(Handle)`), not slices of the text
        let mut field_names: Vec<String> = Vec::new();
        // a field: the word before a single `:` (whitespace between)
        let mut colons = memchr::memchr_iter(b':', b);
        while let Some(p) = colons.next() {
            if b.get(p + 1) == Some(&b':') {
                colons.next(); // a path's `::`
                continue;
            }
            let mut k = p;
            while k > 0 && b[k - 1].is_ascii_whitespace() {
                k -= 1;
            }
            let end = k;
            while k > 0 && is_ident(b[k - 1]) {
                k -= 1;
            }
            if k < end {
                members.push(&text[k..end]);
            }
        }
        let whole = |at: usize, len: usize| {
            (at == 0 || !is_ident(b[at - 1])) && !b.get(at + len).copied().is_some_and(is_ident)
        };
        // one SIMD substring search per keyword: an automaton over the eight (`fn` and
        // `for` among them) stopped at most words of the file (8 % of qdrant's run); the
        // keywords are words, so no occurrence hides another that is a whole word, and the
        // names are sorted at the end, so the order they are met in does not matter
        static KEYWORDS: std::sync::OnceLock<Vec<(&str, memchr::memmem::Finder<'static>)>> =
            std::sync::OnceLock::new();
        let keywords = KEYWORDS.get_or_init(|| {
            [
                "struct", "enum", "union", "trait", "type", "impl", "for", "fn",
            ]
            .into_iter()
            .map(|w| (w, memchr::memmem::Finder::new(w.as_bytes()).into_owned()))
            .collect()
        });
        for (word, finder) in keywords {
            for at in finder.find_iter(b) {
                if !whole(at, word.len()) {
                    continue;
                }
                let mut j = at + word.len();
                if *word == "fn" {
                    // a function: the next word, whatever comes between
                    while j < b.len() && !is_ident(b[j]) {
                        j += 1;
                    }
                    let s = j;
                    while j < b.len() && is_ident(b[j]) {
                        j += 1;
                    }
                    if s < j {
                        members.push(&text[s..j]);
                    }
                    continue;
                }
                j = skip_ws(b, j);
                if *word == "impl" && b.get(j) == Some(&b'<') {
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
                    types.push(n);
                    if *word == "struct" {
                        structs.push(n);
                    }
                }
                // an enum's variants hold fields as structs do (`Tokio::0`): each variant
                // a type, each field a member
                if *word == "enum"
                    && let Some(open) = memchr::memchr(b'{', &b[j..]).map(|o| j + o)
                    && !b[j..open].contains(&b';')
                {
                    let close = crate::lexscan::matching(b, open, b'{', b'}').unwrap_or(b.len());
                    for (v, f) in crate::prune::enum_variant_fields(&b[open + 1..close]) {
                        // the variant's name, a slice of the text
                        let at = v.as_ptr() as usize - b.as_ptr() as usize;
                        types.push(&text[at..at + v.len()]);
                        field_names.push(f);
                    }
                }
            }
        }
        let owned = |mut v: Vec<&str>| -> Vec<String> {
            v.sort_unstable();
            v.dedup();
            v.into_iter().map(str::to_string).collect()
        };
        let mut members = owned(members);
        if !field_names.is_empty() {
            members.extend(field_names);
            members.sort_unstable();
            members.dedup();
        }
        DeclaredNames {
            types: owned(types),
            structs: owned(structs),
            members,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::declared_names;

    /// An enum's variants are types and their fields members, as a struct's: a pattern
    /// binding `Self::Tokio(handle)` asks for `Tokio::0`.
    #[test]
    fn an_enum_declares_its_variants_fields() {
        let (types, members) = declared_names(
            "use crate::alias::TokioHandle;\npub enum Rt {\n    #[cfg(unix)]\n    Tokio(TokioHandle),\n    \
             Sim(u8, String),\n    Owned { rt: Runtime },\n    Off,\n}\n",
        );
        assert_eq!(types, ["Owned", "Rt", "Sim", "Tokio"]);
        assert_eq!(members, ["0", "1", "rt"]);
    }

    #[test]
    fn names_handed_over_are_not_read_again() {
        use crate::analysis::{Analyzer, FileContext};
        let dir = tempfile::tempdir().unwrap();
        let (read, given) = (dir.path().join("read.rs"), dir.path().join("gone.rs"));
        std::fs::write(&read, "struct Svc { pool: Pool }\n").unwrap();
        let analyzer = std::sync::Arc::new(Analyzer::new(&crate::config::Config::default()));
        let source =
            |p: &std::path::Path| (p.to_path_buf(), FileContext::from_path(p), analyzer.clone());
        // the second file does not exist: only the names handed over can index it
        let known = vec![
            None,
            Some(super::DeclaredNames::of("struct Gone { rt: Handle }\n")),
        ];
        let index = super::SkippedIndex::build(&[source(&read), source(&given)], known);
        assert_eq!(index.files_for("Svc::pool"), vec![0]);
        assert_eq!(index.files_for("Gone::rt"), vec![1]);
        assert_eq!(index.files_for("Gone::"), vec![1]);
        // a member of no known type: the few files naming it
        assert_eq!(index.files_for("rt"), vec![1]);
        // not a name many files give a field
        let many: Vec<_> = (0..=super::BARE_MEMBER_FILES)
            .map(|_| source(&given))
            .collect();
        let known = (0..many.len())
            .map(|i| {
                Some(super::DeclaredNames::of(&format!(
                    "struct S{i} {{ pool: P }}"
                )))
            })
            .collect();
        let index = super::SkippedIndex::build(&many, known);
        assert!(index.files_for("pool").is_empty());
        assert_eq!(index.files_for("S0::pool"), vec![0]);
    }

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
        let names =
            super::DeclaredNames::of("impl Service for Svc { type Response = u8; }\nstruct Svc;\n");
        assert_eq!(names.structs, vec!["Svc".to_string()]);
        assert_eq!(names.types, vec!["Response", "Service", "Svc"]);
    }

    #[test]
    fn unbalanced_generics_end_at_the_text() {
        let (types, _) = declared_names("impl<T");
        assert!(types.is_empty());
    }
}
