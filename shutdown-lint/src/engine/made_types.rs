//! Which types a binary makes, for `sigterm-missing`'s handlers written in methods. Calls
//! are matched by name, so in a component framework `executor.run(rx)` reaches every method
//! `run` of the workspace, a server's `CompactionServer::run` that waits for SIGTERM among
//! them, and a binary that serves and handles no signal was credited with the handler of
//! another binary of its package. A method runs on a value of its type, and a value of a
//! type the program declares is made by code that names the type: a handler in a method
//! counts only when a function `main` reaches names the type (or a field, an alias, a macro
//! does, where any code may make one). The files are read for the names once per run, on all
//! cores ([`crate::callgraph::types_mentions`]).

use super::binaries::BinSource;
use crate::callgraph::{TypeMentions, types_mentions};
use crate::rules::sigterm_missing;
use foldhash::HashMap;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::PathBuf;

/// The files of a binary as [`MadeTypes`] reads them: path, crate, what the analysis found.
pub(super) type Loaded<'a> = [(PathBuf, String, &'a BinSource)];

/// Where the files of a run name the types whose methods handle a signal, read on demand.
#[derive(Default)]
pub(super) struct MadeTypes {
    /// The types whose methods handle a signal in the run's files, looked for in a file
    /// all at once.
    types: Vec<Box<str>>,
    /// Each file's mentions of `types`, in their order (`None`: unreadable, or it does not
    /// lex).
    /// (By the path's bytes: hashing a `Path` walks its components.)
    files: HashMap<OsString, Option<Vec<TypeMentions>>>,
    /// A type outside `types` (its handler is in a file outside the run), by file and type.
    others: HashMap<(OsString, Box<str>), Option<TypeMentions>>,
}

impl MadeTypes {
    /// Looks for the types of the methods that handle a signal in `sources`.
    pub(super) fn new<'a>(sources: impl IntoIterator<Item = &'a BinSource>) -> MadeTypes {
        let mut types = BTreeSet::new();
        for s in sources {
            types.extend(handler_types(s));
        }
        MadeTypes {
            types: types.into_iter().map(Box::from).collect(),
            ..MadeTypes::default()
        }
    }

    /// What each of `files` says of `ty`, in their order (`None`: cannot tell); the files
    /// not read yet are read on all cores.
    fn mentions<'s>(&'s mut self, files: &[&PathBuf], ty: &str) -> Vec<Option<&'s TypeMentions>> {
        let read = |f: &PathBuf, names: &[&str]| {
            let text = std::fs::read_to_string(f).ok()?;
            types_mentions(&text, names)
        };
        match self.types.iter().position(|t| &**t == ty) {
            Some(k) => {
                let unread: Vec<&PathBuf> = files
                    .iter()
                    .copied()
                    .filter(|f| !self.files.contains_key(f.as_os_str()))
                    .collect();
                let names: Vec<&str> = self.types.iter().map(|t| &**t).collect();
                // a few files are read here: starting the pool's threads costs more
                let got: Vec<Option<Option<Vec<TypeMentions>>>> = if unread.len() <= 8 {
                    unread.iter().map(|f| Some(read(f, &names))).collect()
                } else {
                    crate::pool::map_on_large_stacks(&unread, None, |f| read(f, &names))
                };
                for (f, m) in unread.into_iter().zip(got) {
                    self.files.insert(f.as_os_str().to_owned(), m.flatten());
                }
                files
                    .iter()
                    .map(|f| self.files[f.as_os_str()].as_ref().map(|all| &all[k]))
                    .collect()
            }
            None => {
                for f in files {
                    self.others
                        .entry((f.as_os_str().to_owned(), ty.into()))
                        .or_insert_with(|| read(f, &[ty]).map(|mut m| m.remove(0)));
                }
                files
                    .iter()
                    .map(|f| self.others[&(f.as_os_str().to_owned(), Box::from(ty))].as_ref())
                    .collect()
            }
        }
    }

    /// Whether a value of the type `ty` may exist in a binary of the `loaded` files,
    /// `reached` telling which functions (file index, item path) `main` reaches: the type
    /// is not declared there (a trait, a type of a crate outside, one a macro declares), or
    /// a file names it where any code may make one, or a reached function names it (other
    /// than its own methods), or a file cannot be read. The files are read in growing
    /// batches, in their order (the binary's own first), until one of them tells: a type a
    /// binary makes is usually named near its `main` (rustfs's `ECStore` in 1,355 files).
    pub(super) fn live(
        &mut self,
        loaded: &Loaded<'_>,
        ty: &str,
        reached: &dyn Fn(usize, &str) -> bool,
    ) -> bool {
        let files: Vec<&PathBuf> = loaded.iter().map(|(f, _, _)| f).collect();
        let mut declared = false;
        let mut start = 0;
        let mut batch = 64;
        while start < files.len() {
            let end = (start + batch).min(files.len());
            for (i, m) in self
                .mentions(&files[start..end], ty)
                .into_iter()
                .enumerate()
            {
                let Some(m) = m else { return true };
                if m.trait_declared
                    || m.anywhere
                    || m.fns.iter().any(|item| reached(start + i, item))
                {
                    return true;
                }
                declared |= m.declared;
            }
            start = end;
            batch *= 8;
        }
        !declared
    }

    /// The names of the functions of the `loaded` files that make a value of one of
    /// `types` (asked of [`MadeTypes::live`] before).
    pub(super) fn makers<'s>(
        &'s self,
        loaded: &Loaded<'_>,
        types: &BTreeSet<String>,
    ) -> BTreeSet<&'s str> {
        let mut out = BTreeSet::new();
        for ty in types {
            let k = self.types.iter().position(|t| **t == **ty);
            for (f, _, _) in loaded {
                let m = match k {
                    Some(k) => self
                        .files
                        .get(f.as_os_str())
                        .and_then(|m| m.as_ref())
                        .map(|all| &all[k]),
                    None => self
                        .others
                        .get(&(f.as_os_str().to_owned(), Box::from(ty.as_str())))
                        .and_then(Option::as_ref),
                };
                let fns = m.into_iter().flat_map(|m| m.fns.iter());
                out.extend(fns.map(|item| crate::callgraph::last_segment(item)));
            }
        }
        out
    }
}

/// The types of the methods that handle a signal in one file (`Server` for a handler in
/// `net::Server::run`).
fn handler_types(s: &BinSource) -> impl Iterator<Item = &str> {
    let fns = &s.fns;
    s.signals
        .handled
        .iter()
        .filter_map(|(item, _)| sigterm_missing::method_type(fns, item))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FnNode;

    /// A file's source with a method `Server::run` that handles SIGTERM.
    fn handler_source() -> BinSource {
        let mut s = BinSource::default();
        s.signals.handled.push(("Server::run".into(), &["SIGTERM"]));
        s.fns.push(FnNode {
            item: "Server::run".into(),
            method: true,
            ..FnNode::default()
        });
        s
    }

    #[test]
    fn a_type_is_made_only_by_a_reached_function_that_names_it() {
        let d = tempfile::tempdir().unwrap();
        let server = d.path().join("server.rs");
        let entry = d.path().join("entry.rs");
        std::fs::write(
            &server,
            "pub struct Server;\nimpl Server { pub async fn run(self) {} pub fn new() -> Self { Server } }\n",
        )
        .unwrap();
        std::fs::write(
            &entry,
            "pub async fn serve() { crate::server::Server::new().run().await }\npub fn other() {}\n",
        )
        .unwrap();
        let handler = handler_source();
        let plain = BinSource::default();
        let loaded = [
            (server, "app".to_string(), &handler),
            (entry, "app".to_string(), &plain),
        ];
        let mut made = MadeTypes::new([&handler, &plain]);
        assert!(made.live(&loaded, "Server", &|f, item| f == 1 && item == "serve"));
        assert!(!made.live(&loaded, "Server", &|f, item| f == 1 && item == "other"));
        let unmade = BTreeSet::from(["Server".to_string()]);
        assert_eq!(made.makers(&loaded, &unmade), BTreeSet::from(["serve"]));
        // a type the files do not declare (a trait, another crate's) may always exist
        assert!(made.live(&loaded, "Remote", &|_, _| false));
    }

    #[test]
    fn a_file_that_cannot_be_read_or_lexed_leaves_the_type_made() {
        let d = tempfile::tempdir().unwrap();
        let server = d.path().join("server.rs");
        let broken = d.path().join("broken.rs");
        std::fs::write(&server, "pub struct Server;\n").unwrap();
        std::fs::write(&broken, "fn f() { Server { \n").unwrap();
        let handler = handler_source();
        let loaded = [
            (server.clone(), "app".to_string(), &handler),
            (broken, "app".to_string(), &handler),
        ];
        let mut made = MadeTypes::new([&handler]);
        assert!(made.live(&loaded, "Server", &|_, _| false));
        let missing = [
            (server, "app".to_string(), &handler),
            (d.path().join("gone.rs"), "app".to_string(), &handler),
        ];
        let mut made = MadeTypes::new([&handler]);
        assert!(made.live(&missing, "Server", &|_, _| false));
    }
}
