//! Where a file names a type, for `sigterm-missing`'s credit of a signal handler written in
//! a method: calls are matched by name ([`super::reachable`]), so `executor.run(rx)` in a
//! component framework reaches every method `run` of the workspace, a server's
//! `CompactionServer::run` that waits for SIGTERM among them. A method runs only on a value
//! of its type, and a value of a type declared in the program is made by code that names
//! the type (a struct literal, `Type::new(..)`, a function returning it, a field of it):
//! when no function `main` reaches names it, no value of it exists and its methods' handlers
//! do not count. This file reads those names from a file's tokens.

use super::from_text::{Level, block_name};
use super::tokens::{Tok, lex};

/// What one file says about a type, by its name ([`type_mentions`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypeMentions {
    /// The file declares it: `struct Name`, `enum Name` or `union Name`.
    pub declared: bool,
    /// The file declares a trait of that name (a method of it may run on any type).
    pub trait_declared: bool,
    /// Named where any code may make a value of it: a field's or a static's type, a type
    /// alias, a macro's body, `use .. as Other` (then it goes by another name).
    pub anywhere: bool,
    /// The functions that name it (item paths, as [`super::nodes_from_text`] files them),
    /// but for its own methods (those of an `impl` of the type).
    pub fns: Vec<String>,
}

/// Where `text` names the type `name`: its declaration, the functions that name it, any
/// other place. Not counted: the type's own methods, the headers of `impl` blocks, `use`
/// imports (but for a rename) and the type's own declaration. `None` if the text does not
/// lex.
///
/// # Examples
///
/// ```
/// use shutdown_lint::callgraph::type_mentions;
/// let text = "struct Server;\nimpl Server { fn run(&self) { let _ = Server; } }\n\
///             mod app { pub fn start() { super::Server.run(); } }\nfn other() {}";
/// let m = type_mentions(text, "Server").unwrap();
/// assert!(m.declared && !m.anywhere);
/// assert_eq!(m.fns, ["app::start"]);
/// ```
pub fn type_mentions(text: &str, name: &str) -> Option<TypeMentions> {
    types_mentions(text, &[name]).map(|mut all| all.remove(0))
}

/// [`type_mentions`] of each of `names`, the text lexed once (a name it does not contain
/// is not looked for).
///
/// # Examples
///
/// ```
/// use shutdown_lint::callgraph::types_mentions;
/// let m = types_mentions("fn start() { Server::new(); }", &["Server", "Client"]).unwrap();
/// assert_eq!(m[0].fns, ["start"]);
/// assert!(m[1].fns.is_empty());
/// ```
pub fn types_mentions(text: &str, names: &[&str]) -> Option<Vec<TypeMentions>> {
    let named: Vec<bool> = names
        .iter()
        .map(|name| memchr::memmem::find(text.as_bytes(), name.as_bytes()).is_some())
        .collect();
    let mut all = vec![TypeMentions::default(); names.len()];
    if !named.contains(&true) {
        return Some(all);
    }
    let toks = lex(text)?;
    let mut path = Vec::new();
    for ((name, out), named) in names.iter().zip(&mut all).zip(named) {
        if named {
            in_items(&toks, (0, toks.len()), name, None, &mut path, out, 0);
        }
    }
    Some(all)
}

/// Whether the tokens `from..=to` name `name`.
fn names(toks: &[Tok<'_>], (from, to): (usize, usize), name: &str) -> bool {
    toks[from..=to.min(toks.len() - 1)].contains(&Tok::Ident(name))
}

/// Whether an attribute's inside (`toks[from..to]`) marks test code: `cfg(test)`, `test`,
/// `tokio::test` (any path ending in `test`).
fn is_test_attr(toks: &[Tok<'_>], (from, to): (usize, usize)) -> bool {
    let inside = &toks[from..to];
    match inside {
        [
            Tok::Ident("cfg"),
            Tok::Open(b'(', _),
            Tok::Ident("test"),
            Tok::Close,
        ] => true,
        [.., Tok::Ident("test")] => {
            inside.len() == 1 || matches!(inside[inside.len() - 2], Tok::Punct(b':'))
        }
        _ => false,
    }
}

/// The index of the last token of the item at `k` of `tts` that ends with a `;` or a brace
/// group (`struct S { .. }`, `struct S(u8);`, `use a::b;`), in the file's tokens.
fn item_end(tts: &Level<'_, '_>, k: usize) -> (usize, usize) {
    let mut j = k;
    while j < tts.len() {
        match tts.get(j) {
            Some(Tok::Open(b'{', close)) => return (j, close),
            Some(Tok::Punct(b';')) => return (j, tts.index(j)),
            _ => j += 1,
        }
    }
    let last = tts.len().saturating_sub(1);
    (last, tts.index(last))
}

fn in_items<'a>(
    toks: &[Tok<'a>],
    range: (usize, usize),
    name: &str,
    self_ty: Option<&str>,
    path: &mut Vec<&'a str>,
    out: &mut TypeMentions,
    depth: usize,
) {
    if depth > 64 || range.0 >= range.1 {
        return;
    }
    let tts = Level::new(toks, range);
    let mut i = 0;
    // the item after `#[cfg(test)]` / `#[test]` / `#[tokio::test]`: test code, which
    // makes nothing a binary runs
    let mut test = false;
    while i < tts.len() {
        match tts.get(i) {
            Some(Tok::Punct(b'#'))
                if tts
                    .get(i + 1)
                    .is_some_and(|t| matches!(t, Tok::Open(b'[', _))) =>
            {
                test |= tts.inside(i + 1).is_some_and(|r| is_test_attr(toks, r));
                i += 2;
            }
            Some(Tok::Ident("fn" | "mod")) if test => {
                test = false;
                i = item_end(&tts, i).0 + 1;
            }
            Some(Tok::Ident("fn")) => {
                let (j, end) = item_end(&tts, i);
                if let Some(Tok::Ident(f)) = tts.get(i + 1)
                    && self_ty != Some(name)
                    && names(toks, (tts.index(i), end), name)
                {
                    path.push(f);
                    out.fns.push(path.join("::"));
                    path.pop();
                }
                i = j + 1;
            }
            Some(Tok::Ident(kind @ ("mod" | "impl" | "trait"))) => {
                let (block, j) = block_name(&tts, i + 1);
                if kind == "trait" && block == Some(name) {
                    out.trait_declared = true;
                }
                if let Some(inside) = tts.inside(j) {
                    let block = block.unwrap_or(kind);
                    path.push(block);
                    let self_ty = (kind == "impl").then_some(block);
                    in_items(toks, inside, name, self_ty, path, out, depth + 1);
                    path.pop();
                }
                i = j + 1;
            }
            Some(Tok::Ident("struct" | "enum" | "union"))
                if tts.get(i + 1) == Some(Tok::Ident(name)) =>
            {
                out.declared = true;
                i = item_end(&tts, i).0 + 1;
            }
            Some(Tok::Ident("use")) => {
                let (j, end) = item_end(&tts, i);
                // `use a::Name as Other;`
                let from = tts.index(i);
                if toks[from..end]
                    .windows(2)
                    .any(|w| w[0] == Tok::Ident(name) && w[1] == Tok::Ident("as"))
                {
                    out.anywhere = true;
                }
                i = j + 1;
            }
            Some(Tok::Ident(id)) if id == name => {
                out.anywhere = true;
                i += 1;
            }
            Some(Tok::Open(_, close)) => {
                if names(toks, (tts.index(i), close), name) {
                    out.anywhere = true;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(text: &str) -> TypeMentions {
        type_mentions(text, "Server").unwrap()
    }

    #[test]
    fn a_type_made_in_a_function_is_named_there() {
        let m = of("pub struct Server { port: u16 }\n\
                    pub async fn entry() { let s = Server { port: 1 }; s.run().await; }\n\
                    impl Server { pub fn new() -> Self { Server { port: 2 } } async fn run(self) {} }");
        assert!(m.declared);
        assert!(!m.anywhere, "{m:?}");
        assert_eq!(m.fns, ["entry"]);
    }

    #[test]
    fn its_own_impls_and_imports_do_not_name_it() {
        let m = of(
            "use crate::net::Server;\nimpl<S> From<S> for Server where S: Into<u16> { \
                    fn from(s: S) -> Server { Server::new() } }\nimpl std::fmt::Debug for Server {}",
        );
        assert_eq!(m, TypeMentions::default());
    }

    #[test]
    fn a_field_an_alias_a_rename_or_a_macro_may_make_one_anywhere() {
        for text in [
            "struct App { server: Server }",
            "type Main = Server;",
            "use crate::Server as Daemon;",
            "static S: Server = Server;",
            "make!(Server);",
        ] {
            assert!(of(text).anywhere, "{text}");
        }
        assert!(of("trait Server { fn run(&self) {} }").trait_declared);
    }

    #[test]
    fn test_code_makes_nothing() {
        let m = of(
            "#[cfg(test)]\nmod tests { fn make() { super::Server::new(); } }\n\
                    #[tokio::test]\nasync fn serves() { Server::new(); }\n\
                    #[test] fn t() { Server::new(); }\n\
                    #[cfg(not(test))] fn real() { Server::new(); }",
        );
        assert_eq!(m.fns, ["real"]);
    }

    #[test]
    fn a_function_in_a_module_or_another_impl_is_filed_by_its_path() {
        let m = of(
            "mod boot { impl Daemon { fn start(&self) -> crate::Server { todo!() } } }\n\
                    fn signature(s: &Server) {}\nfn unrelated() { let server = 1; }",
        );
        assert_eq!(m.fns, ["boot::Daemon::start", "signature"]);
    }
}
