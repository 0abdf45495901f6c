//! Re-exports of dependencies: what `web_client::reqwest::ClientBuilder` or
//! `common::task::spawn` really is.
//!
//! Before the walk, for each package linted, every linked dependency's sources are read:
//! a path dependency from its directory, a registry dependency from the local cargo
//! registry (`$CARGO_HOME/registry/src/*/<name>-<version>/`, the version taken from the
//! nearest `Cargo.lock`; never the network). Its `pub use` items of the crates the rules
//! know (tokio, reqwest, ureq, hyper, isahc, ...) become prefix rewrites, applied like
//! `[reexports]` entries: `pub use tokio::spawn;` in module `task` of dependency `common`
//! gives `common::task::spawn` → `tokio::spawn`; `pub use reqwest;` gives
//! `web_client::reqwest` → `reqwest`; `pub use tokio as rt;` gives `common::rt` → `tokio`.
//!
//! When a registry dependency's sources are absent (the project was never built here),
//! [`KNOWN_REEXPORTERS`] is the fallback; its entries that no `pub use` gives (a function
//! that only hands its argument to tokio's, workflow-rs's `task::spawn`) apply where the
//! sources are read too. Independently of both, a crate re-exported under
//! a known crate's own name *is* that crate (`vendored::tokio::spawn` is `tokio::spawn`,
//! see [`crate::resolve::Aliases`]). Configured `[reexports]` entries win over all of this.

use crate::package::Package;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::resolve::known::{REEXPORT_SCAN_CRATES, is_known_crate};

/// Documented fallback: re-exports of published crates, used when the crate's sources are
/// not in the local registry (and for an entry their `pub use` items do not give, when they
/// are). `(path in the re-exporting crate, what it is)`.
pub const KNOWN_REEXPORTERS: &[(&str, &str)] = &[
    // actix re-exports actix-rt's spawn and runtime
    ("actix::spawn", "actix_rt::spawn"),
    ("actix::rt", "actix_rt"),
    ("actix_web::rt", "actix_rt"),
    // rocket re-exports tokio as `rocket::tokio`
    ("rocket::tokio", "tokio"),
    // n0-future (iroh's runtime facade) re-exports tokio's spawn and time off wasm
    ("n0_future::task::spawn", "tokio::spawn"),
    ("n0_future::time", "tokio::time"),
    // OAuth/OIDC clients re-export their HTTP client
    ("openidconnect::reqwest", "reqwest"),
    ("oauth2::reqwest", "reqwest"),
    // web frameworks re-export hyper
    ("warp::hyper", "hyper"),
    // workflow-rs's `task::spawn` (rusty-kaspa's notifier, metrics and wallet tasks) hands
    // its future to `tokio::task::spawn` off wasm: a wrapper rather than a `pub use`, which
    // no reading of its sources finds
    ("workflow_core::task::spawn", "tokio::spawn"),
    // Tauri's `async_runtime` spawns on its global tokio runtime (spacedrive's desktop app)
    ("tauri::async_runtime::spawn", "tokio::spawn"),
    (
        "tauri::async_runtime::spawn_blocking",
        "tokio::task::spawn_blocking",
    ),
];

/// Deepest module nesting followed inside a dependency (`pub mod a; pub mod b;` ...).
const MAX_MOD_DEPTH: usize = 3;
/// Most files read per dependency.
const MAX_FILES: usize = 64;
/// The same bounds for the package's own crate, whose every module is read
/// ([`Reading::Own`]).
const MAX_OWN_MOD_DEPTH: usize = 8;
const MAX_OWN_FILES: usize = 4096;

/// How a crate's sources are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Reading {
    /// A dependency: only what it exports (`pub use` in public modules).
    Dependency,
    /// The linted package's own library: also its private imports and modules, and its
    /// glob imports of its own modules. ord's `lib.rs` imports `std::thread` and
    /// `tokio::task` privately and every module below says `use super::*;`, so
    /// `thread::spawn` in `index/updater.rs` is `std::thread::spawn` through two globs:
    /// each module globbing another gets that module's names (`$crate::index::thread` →
    /// `std::thread`).
    Own,
}

impl Reading {
    fn max_files(self) -> usize {
        match self {
            Reading::Dependency => MAX_FILES,
            Reading::Own => MAX_OWN_FILES,
        }
    }

    fn max_depth(self) -> usize {
        match self {
            Reading::Dependency => MAX_MOD_DEPTH,
            Reading::Own => MAX_OWN_MOD_DEPTH,
        }
    }
}

/// Re-exports found per crate source directory, for the whole run (a dependency shared
/// by many packages is read once).
static CACHE: Mutex<Option<HashMap<(PathBuf, Reading), Rewrites>>> = Mutex::new(None);

/// Lockfiles read in this run, by path.
type LockCache = HashMap<PathBuf, Option<std::sync::Arc<Lockfile>>>;
static LOCKS: Mutex<Option<LockCache>> = Mutex::new(None);

/// The registry's index directories, by cargo home, for this run.
type IndexCache = HashMap<PathBuf, std::sync::Arc<Vec<PathBuf>>>;
static INDEXES: Mutex<Option<IndexCache>> = Mutex::new(None);

/// Prefix rewrites `(from, to)`.
type Rewrites = Vec<(String, String)>;

/// Prefix rewrites `(from, to)` for the dependencies of `pkg` (and for the package's own
/// library: `crate::rt::spawn` written in another file of a crate whose `lib.rs` says
/// `pub use tokio as rt;`).
///
/// # Examples
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let dep = dir.path().join("common");
/// std::fs::create_dir_all(dep.join("src")).unwrap();
/// std::fs::write(
///     dep.join("Cargo.toml"),
///     "[package]\nname = \"common\"\n[dependencies]\ntokio = \"1\"\nreqwest = \"0.12\"\n",
/// )
/// .unwrap();
/// std::fs::write(dep.join("src/lib.rs"), "pub mod task { pub use tokio::spawn; }\npub use reqwest;\n").unwrap();
/// let app = dir.path().join("app");
/// std::fs::create_dir_all(app.join("src")).unwrap();
/// std::fs::write(app.join("Cargo.toml"), "[package]\nname = \"app\"\n[dependencies]\ncommon = { path = \"../common\" }\n").unwrap();
/// std::fs::write(app.join("src/main.rs"), "fn main() {}").unwrap();
/// let pkg = shutdown_lint::package::Package::read(&app).unwrap();
/// let re = shutdown_lint::workspace::reexports::for_package(&pkg);
/// assert!(re.contains(&("common::task::spawn".to_string(), "tokio::spawn".to_string())));
/// assert!(re.contains(&("common::reqwest".to_string(), "reqwest".to_string())));
/// ```
pub fn for_package(pkg: &Package) -> Vec<(String, String)> {
    for_package_in(pkg, cargo_home().as_deref())
}

/// Like [`for_package`], with registry sources looked up under `cargo_home` (`None`: only
/// path dependencies are read; registry ones fall back to [`KNOWN_REEXPORTERS`]).
pub fn for_package_in(pkg: &Package, cargo_home: Option<&Path>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let lock = Lockfile::find_cached(&pkg.dir);
    match &pkg.lib {
        Some(lib) => out.extend(crate_reexports(&pkg.crate_name, lib, Reading::Own)),
        // a package of one binary (a service's `src/main.rs`): the binary is the crate its
        // `crate::prelude::*` names (beside a library or another binary, `crate::` of a
        // binary is not theirs, and their module trees would be read as one)
        None => {
            if let [(_, bin)] = &pkg.bins[..] {
                out.extend(crate_reexports(&pkg.crate_name, bin, Reading::Own));
            }
        }
    }
    for (local, real, dir) in &pkg.deps {
        let real_ident = real.replace('-', "_");
        if is_known_crate(&real_ident) {
            continue;
        }
        let src = match dir {
            Some(d) => lib_root(d),
            None => lock
                .as_ref()
                .zip(cargo_home)
                .and_then(|(l, home)| l.registry_source_in(home, real))
                .map(|d| d.join("src/lib.rs"))
                .filter(|p| p.is_file()),
        };
        let read = match &src {
            Some(lib) => crate_reexports(local, lib, Reading::Dependency),
            None => Vec::new(),
        };
        // the documented table, for a registry dependency: where its sources are absent, and
        // for what reading them cannot find (a function that only calls the known crate's)
        if dir.is_none() {
            for (from, to) in KNOWN_REEXPORTERS {
                if let Some(rest) = from.strip_prefix(&format!("{real_ident}::")) {
                    let from = format!("{local}::{rest}");
                    if !read.iter().any(|(f, _)| *f == from) {
                        out.push((from, (*to).to_string()));
                    }
                }
            }
        }
        out.extend(read);
    }
    out.sort();
    out.dedup();
    out
}

/// The library root of the package in `dir` (`src/lib.rs` or `[lib] path`); the package
/// is read once per run ([`Package::read_cached`]).
fn lib_root(dir: &Path) -> Option<PathBuf> {
    Package::read_cached(dir).and_then(|p| p.lib.clone())
}

/// Re-exports of known crates by the crate whose library root is `lib`, named `local`
/// where it is used.
fn crate_reexports(local: &str, lib: &Path, reading: Reading) -> Vec<(String, String)> {
    // one spelling per crate: `app/../common/src/lib.rs` and `web/../common/src/lib.rs` are
    // one dependency, read once
    let key = (crate::paths::normalize(lib), reading);
    let lib = key.0.as_path();
    if let Some(found) = CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .get(&key)
    {
        return rename(found, local);
    }
    // the own crate's private imports of `std::thread` need no known dependency
    let found = if reading == Reading::Own || may_reexport(lib) {
        scan_crate(lib, reading)
    } else {
        Vec::new()
    };
    let out = rename(&found, local);
    CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(key, found);
    out
}

/// Clears what may change between runs of a long-lived process: lockfiles, the list of
/// the registry's indexes and the re-exports of path dependencies. Unpacked registry
/// sources never change (a version is immutable), so their tables are kept.
pub fn clear_cache() {
    *LOCKS.lock().unwrap_or_else(|e| e.into_inner()) = None;
    *INDEXES.lock().unwrap_or_else(|e| e.into_inner()) = None;
    if let Some(c) = CACHE.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        c.retain(|(path, _), _| is_registry_source(path));
    }
}

/// Whether `path` lies in an unpacked registry (`.../registry/src/<index>/...`).
fn is_registry_source(path: &Path) -> bool {
    let comps: Vec<_> = path.components().map(|c| c.as_os_str()).collect();
    comps
        .windows(2)
        .any(|w| w[0] == "registry" && w[1] == "src")
}

/// Whether the package whose library is `lib` depends on a crate the rules know (only
/// such a crate can re-export one); read from its `Cargo.toml` text, cheaply.
fn may_reexport(lib: &Path) -> bool {
    let mut dir = lib.parent();
    while let Some(d) = dir {
        if let Ok(text) = std::fs::read_to_string(d.join("Cargo.toml")) {
            return names_known_dependency(&text);
        }
        dir = d.parent();
    }
    true
}

/// Whether a manifest's normal dependencies (`[dependencies]`, `[dependencies.x]`,
/// `[target.'..'.dependencies]`; not dev- or build-dependencies, which a library cannot
/// re-export) mention a crate the rules know. Read by line: published manifests are
/// written by cargo, one table per dependency.
fn names_known_dependency(manifest: &str) -> bool {
    let mentions = |s: &str| {
        REEXPORT_SCAN_CRATES
            .iter()
            .any(|c| s.contains(c) || s.contains(&c.replace('_', "-")))
    };
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_start_matches('[').trim_end_matches(']').trim();
            in_deps = header == "dependencies"
                || header.starts_with("dependencies.")
                || (header.starts_with("target.") && header.contains(".dependencies"));
            if in_deps && mentions(header) {
                return true;
            }
            continue;
        }
        if in_deps && mentions(line) {
            return true;
        }
    }
    false
}

/// Found rewrites use `$crate` for the crate itself; put the local name in (also in the
/// target of a module that stays the crate's own, see [`scan_crate`]).
fn rename(found: &[(String, String)], local: &str) -> Vec<(String, String)> {
    found
        .iter()
        .map(|(f, t)| {
            (
                f.replacen("$crate", local, 1),
                t.replacen("$crate", local, 1),
            )
        })
        .collect()
}

/// Reads the crate's module tree from `lib` (bounded) and collects `pub use` of known
/// crates, as `$crate::module::name` → `target` (for the own crate also its private
/// imports, carried through its glob imports of its own modules: [`Reading::Own`]).
fn scan_crate(lib: &Path, reading: Reading) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut imports = Vec::new();
    let mut globs = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![(lib.to_path_buf(), vec!["$crate".to_string()], true)];
    while let Some((file, module, owns_dir)) = stack.pop() {
        if !seen.insert(file.clone()) || seen.len() > reading.max_files() {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let base = if owns_dir {
            dir
        } else {
            dir.join(file.file_stem().unwrap_or_default())
        };
        let mut scan = Scan {
            reading,
            out: &mut out,
            imports: &mut imports,
            stack: &mut stack,
            globs: &mut globs,
        };
        scan_file(&text, &module, &base, &mut scan);
    }
    through_globs(&mut out, &imports, &globs);
    // a module named like a known crate maps to itself (so the path is not taken for that
    // crate's by its name), unless it re-exports the crate whole (`pub use reqwest::*;`
    // inside it): then that rewrite stands
    let whole: HashSet<String> = out
        .iter()
        .filter(|(f, t)| f != t)
        .map(|(f, _)| f.clone())
        .collect();
    out.retain(|(f, t)| f != t || !whole.contains(f));
    out
}

/// Gives each module that globs another (`use super::*;` in `$crate::index`) the names
/// found for that one — exported (`out`) or imported privately (`imports`: `$crate::thread`
/// → `std::thread` gives `$crate::index::thread` → `std::thread`) — to a fixed point
/// (bounded: a cycle of globs adds nothing new). Only what a glob reaches joins `out`: the
/// globbed module's private imports and what they become in the globbing ones; a module's
/// own imports are read in its own file, and every rewrite is a word the pruner keeps
/// bodies for.
fn through_globs(
    out: &mut Vec<(String, String)>,
    imports: &[(String, String)],
    globs: &[(String, String)],
) {
    if globs.is_empty() {
        return;
    }
    // the name `path` gives an item directly in `module` (`$crate::thread` in `$crate`)
    let name_in = |path: &'_ str, module: &str| -> Option<String> {
        let name = path.strip_prefix(module)?.strip_prefix("::")?;
        (!name.contains("::")).then(|| name.to_string())
    };
    let mut all: Vec<(String, String)> = out.iter().chain(imports).cloned().collect();
    let mut known: HashSet<(String, String)> = out.iter().cloned().collect();
    // a globbed module's private imports: the resolver asks the globbed module
    // (`super::*` in `$crate::index` asks `$crate::thread`)
    for (_, target) in globs {
        for pair in imports {
            if name_in(&pair.0, target).is_some() && known.insert(pair.clone()) {
                out.push(pair.clone());
            }
        }
    }
    for _ in 0..MAX_OWN_MOD_DEPTH * 2 {
        let mut added = Vec::new();
        for (module, target) in globs {
            for (from, to) in all.iter() {
                if let Some(name) = name_in(from, target) {
                    let pair = (format!("{module}::{name}"), to.clone());
                    if known.insert(pair.clone()) {
                        added.push(pair);
                    }
                }
            }
        }
        if added.is_empty() {
            break;
        }
        out.extend(added.iter().cloned());
        all.extend(added);
    }
}

/// Where one file's scan puts what it finds.
struct Scan<'a> {
    reading: Reading,
    /// Rewrites found: `$crate::module::name` → target.
    out: &'a mut Vec<(String, String)>,
    /// The own crate's private imports of known crates, the same way: only a glob of
    /// their module makes them rewrites ([`through_globs`]).
    imports: &'a mut Vec<(String, String)>,
    /// Module files still to read.
    stack: &'a mut Stack,
    /// Glob imports of the crate's own modules: (module, module globbed), both as
    /// `$crate::..` paths ([`Reading::Own`] only).
    globs: &'a mut Vec<(String, String)>,
}

/// One file of a dependency, read without parsing it: its code (comments and literals
/// blanked) is walked for `pub mod name;` (queued), `pub mod name { .. }` (entered) and
/// `pub use ..;` of a known crate (only that item is parsed). Anything inside a private
/// module, a function or an `impl` is not exported and is skipped. The own crate
/// ([`Reading::Own`]) is read whole: private modules are followed and private imports
/// read too.
fn scan_file(text: &str, module: &[String], base: &Path, scan: &mut Scan<'_>) {
    use crate::lexscan::is_ident;
    let own = scan.reading == Reading::Own;
    let exports = || has(text, "pub use") && REEXPORT_SCAN_CRATES.iter().any(|c| has(text, c));
    let wants_uses = if own {
        // cheapest first: most files of a crate declare no module and glob nothing, and
        // what such a file imports reaches no other module (a sibling's `use
        // super::leaf::*;` of a leaf is rare)
        let globs = has(text, "::*");
        if (!globs && !has(text, "mod ") || only_unit_tests_below(text)) && !exports() {
            return;
        }
        globs || names_interesting(text)
    } else {
        exports()
    };
    if !wants_uses && !has(text, if own { "mod" } else { "pub mod" }) {
        // nothing exported from here, and no public module to follow (most files)
        return;
    }
    let code = crate::lexscan::code_only(text);
    // the public inline modules the scan is in (any other brace is crossed whole)
    let mut frames: Vec<String> = Vec::new();
    let mut pending_mod: Option<Option<String>> = None;
    let ident_at = |i: usize| ident_at(&code, i);
    let skip_ws = |i: usize| crate::lexscan::skip_ws(&code, i);
    let mut i = 0;
    while i < code.len() {
        let c = code[i];
        if c == b'{' {
            let Some(name) = pending_mod.take().flatten() else {
                // a function's, an impl's, a private module's braces (or any other
                // block): nothing in them is exported, so they are crossed whole by SIMD
                // search rather than walked byte by byte
                match crate::lexscan::matching(&code, i, b'{', b'}') {
                    Some(close) => {
                        i = close + 1;
                        continue;
                    }
                    None => break, // unbalanced: nothing after it is exported
                }
            };
            frames.push(name);
            i += 1;
            continue;
        }
        if c == b'}' {
            frames.pop();
            i += 1;
            continue;
        }
        if c == b';' {
            pending_mod = None;
            i += 1;
            continue;
        }
        let starts_word = i == 0 || !is_ident(code[i - 1]);
        if !(starts_word && (c.is_ascii_alphabetic() || c == b'_')) {
            // on to the next byte that may matter: a brace, a `;` or a word's start
            // (blanked comments and literals are long runs of nothing)
            i += 1 + code[i + 1..]
                .iter()
                .position(|&b| {
                    matches!(b, b'{' | b'}' | b';') || b.is_ascii_alphabetic() || b == b'_'
                })
                .unwrap_or(code.len() - i - 1);
            continue;
        }
        let word = ident_at(i);
        let after = i + word.len();
        // the module the word is in, built only for the items read
        let here = || [module, &frames[..]].concat();
        // the keyword the item starts with, after any `pub`, and where the item starts
        let (from, kw, keyword) = match word {
            b"pub" => {
                let j = skip_ws(after);
                if code.get(j) == Some(&b'(') {
                    // `pub(crate)`: not exported (the own crate reads what follows as it
                    // reads a private item)
                    i = j;
                    continue;
                }
                (i, j, ident_at(j))
            }
            _ => (i, i, word),
        };
        let public = kw != from;
        match keyword {
            b"use" if wants_uses && (public || own) => {
                match read_use(text, &code, (from, kw), &here(), scan) {
                    Some(end) => i = end,
                    None => break,
                }
            }
            b"mod" if public || own => {
                let at = (&here()[..], &frames[..]);
                i = read_mod((text, &code), kw, at, base, &mut pending_mod, scan);
            }
            // a private module, a function, an impl, ...: what its braces hold is not exported
            b"mod" | b"fn" | b"impl" | b"trait" | b"macro_rules" if !public => {
                pending_mod = Some(None);
                i = after;
            }
            // `pub fn`, `pub struct`, ..: read from the keyword on
            _ if public => i = kw,
            _ => i = after,
        }
    }
}

/// Reads the `use ..;` whose keyword is at `at.1` (the item starting at `at.0`, before any
/// `pub`) in module `here`: the rewrites of known crates it imports, and (own crate) its
/// globs of the crate's own modules. The offset after it, `None` when it never ends.
fn read_use(
    text: &str,
    code: &[u8],
    (from, kw): (usize, usize),
    here: &[String],
    scan: &mut Scan<'_>,
) -> Option<usize> {
    let semi = code[kw..].iter().position(|&c| c == b';')?;
    let item = &text[from..kw + semi + 1];
    // most imports name nothing the rules know and glob nothing: not parsed
    let wanted = item.contains('*') || names_interesting(item);
    if wanted && let Ok(u) = syn::parse_str::<syn::ItemUse>(item) {
        let own = scan.reading == Reading::Own;
        let exported = matches!(u.vis, syn::Visibility::Public(_));
        let to = if exported {
            &mut *scan.out
        } else {
            &mut *scan.imports
        };
        use_tree(&u.tree, &mut Vec::new(), here, own, to);
        if own {
            own_globs(&u.tree, &mut Vec::new(), here, scan.globs);
        }
    }
    Some(kw + semi + 1)
}

/// Whether the one module a file declares is its unit tests, with every glob in them
/// (`#[cfg(test)] mod tests { use super::*; .. }`, most files of a crate): the own crate's
/// reading skips such a file, read as text (a comment naming `mod ` reads it whole).
fn only_unit_tests_below(text: &str) -> bool {
    let Some(at) = memchr::memmem::find(text.as_bytes(), b"mod ") else {
        return false;
    };
    // the attributes on the lines above it (`#[cfg(test)]`, `#[allow(..)]`)
    let test = text[..at]
        .lines()
        .rev()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| l.starts_with("#["))
        .filter_map(|l| l.strip_prefix("#[")?.strip_suffix(']'))
        .any(crate::testcode::is_test_attr_text);
    test && !has(&text[at + 4..], "mod ")
        && memchr::memmem::find(text.as_bytes(), b"::*").is_none_or(|g| g > at)
}

/// The identifier starting at `i` of `code` (empty when none does).
fn ident_at(code: &[u8], i: usize) -> &[u8] {
    let end = code[i..]
        .iter()
        .position(|&c| !crate::lexscan::is_ident(c))
        .map_or(code.len(), |n| i + n);
    &code[i..end]
}

/// Whether `text` names a crate [`use_tree`] keeps (or, for the own crate, `thread`).
fn names_interesting(text: &str) -> bool {
    has(text, "thread") || REEXPORT_SCAN_CRATES.iter().any(|c| has(text, c))
}

/// `text.contains(word)` by SIMD search (`str::contains` is the slower two-way search,
/// and the own crate's reading asks it of every file).
fn has(text: &str, word: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), word.as_bytes()).is_some()
}

/// Reads the `mod name` whose keyword is at `kw` in module `here` (inside the inline
/// modules `frames` of the file): a file to queue, or braces to enter (through
/// `pending_mod`). The offset to go on from.
fn read_mod(
    (text, code): (&str, &[u8]),
    kw: usize,
    (here, frames): (&[String], &[String]),
    base: &Path,
    pending_mod: &mut Option<Option<String>>,
    scan: &mut Scan<'_>,
) -> usize {
    use crate::lexscan::skip_ws;
    let k = skip_ws(code, kw + 3);
    let name = String::from_utf8_lossy(ident_at(code, k)).into_owned();
    let m = skip_ws(code, k + name.len());
    if is_known_crate(&name) {
        // a module of its own named like a known crate (meilisearch's
        // `http_client::reqwest`, whose `Client` wraps reqwest's): only what it
        // re-exports is that crate's
        let own = join(here, &name);
        scan.out.push((own.clone(), own));
    }
    // the own crate's test modules (`#[cfg(test)] mod tests { use super::*; .. }`) are not
    // read: their globs would hand every module's imports on to them, and no other module
    // names what a test module imports
    if scan.reading == Reading::Own
        && crate::lexscan::outer_attrs(text, code, kw)
            .iter()
            .any(|a| crate::testcode::is_test_attr_text(a))
    {
        if code.get(m) == Some(&b'{') {
            *pending_mod = Some(None);
            return m;
        }
        return m.max(kw + 3);
    }
    match code.get(m) {
        Some(b';') if !name.is_empty() => {
            let mut dir = base.to_path_buf();
            for f in frames {
                dir.push(f);
            }
            push_mod_file(&name, here, &dir, scan);
            m + 1
        }
        Some(b'{') if !name.is_empty() && here.len() <= scan.reading.max_depth() => {
            *pending_mod = Some(Some(name));
            m
        }
        _ => m.max(kw + 3),
    }
}

/// The glob imports of the crate's own modules in a `use` tree read in module `here`
/// (`use super::*;`, `use crate::index::*;`, `use self::inner::*;`), as (`here`, module
/// globbed), both `$crate::..` paths.
fn own_globs(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    here: &[String],
    out: &mut Vec<(String, String)>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            own_globs(&p.tree, prefix, here, out);
            prefix.pop();
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                own_globs(t, prefix, here, out);
            }
        }
        syn::UseTree::Glob(_) => {
            // `crate::a` from the top, `self::a` from here, `super::a` from the parent
            let (mut target, skip) = match prefix.first().map(String::as_str) {
                Some("crate") => (vec!["$crate".to_string()], 1),
                Some("self") => (here.to_vec(), 1),
                Some("super") => (here.to_vec(), 0),
                _ => return,
            };
            for s in prefix.iter().skip(skip) {
                if s == "super" {
                    if target.len() <= 1 {
                        return;
                    }
                    target.pop();
                } else if s == "self" || s == "crate" {
                    return;
                } else {
                    target.push(s.clone());
                }
            }
            if target != here {
                out.push((here.join("::"), target.join("::")));
            }
        }
        syn::UseTree::Name(_) | syn::UseTree::Rename(_) => {}
    }
}

type Stack = Vec<(PathBuf, Vec<String>, bool)>;

/// Queues the file of `pub mod name;` declared in `module` (files under `base`).
fn push_mod_file(name: &str, module: &[String], base: &Path, scan: &mut Scan<'_>) {
    let stack = &mut *scan.stack;
    if module.len() > scan.reading.max_depth()
        || !name.chars().all(|c| c.is_alphanumeric() || c == '_')
    {
        return;
    }
    let mut sub = module.to_vec();
    sub.push(name.to_string());
    let a = base.join(format!("{name}.rs"));
    let b = base.join(name).join("mod.rs");
    if a.is_file() {
        stack.push((a, sub, false));
    } else if b.is_file() {
        stack.push((b, sub, true));
    }
}

/// The rewrites of known crates a `use` tree read in `module` imports (`own`: the own
/// crate's, whose `std::thread` imports count too — a module globbing this one calls
/// `thread::spawn` through them).
fn use_tree(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    module: &[String],
    own: bool,
    out: &mut Vec<(String, String)>,
) {
    let known = |p: &[String]| {
        p.first()
            .is_some_and(|f| REEXPORT_SCAN_CRATES.contains(&f.trim_start_matches("::")))
            || (own && p.len() >= 2 && p[0].trim_start_matches("::") == "std" && p[1] == "thread")
    };
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree(&p.tree, prefix, module, own, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let (target, local) = if name == "self" {
                (prefix.clone(), prefix.last().cloned().unwrap_or_default())
            } else {
                let mut t = prefix.clone();
                t.push(name.clone());
                (t, name)
            };
            if known(&target) {
                out.push((join(module, &local), target.join("::")));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut target = prefix.clone();
            if r.ident != "self" {
                target.push(r.ident.to_string());
            }
            if known(&target) {
                out.push((join(module, &r.rename.to_string()), target.join("::")));
            }
        }
        syn::UseTree::Glob(_) => {
            // `pub use tokio::task::*;` in module m: m's names are tokio::task's
            if known(prefix) && module.len() > 1 {
                out.push((module.join("::"), prefix.join("::")));
            }
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(t, prefix, module, own, out);
            }
        }
    }
}

fn join(module: &[String], name: &str) -> String {
    let mut p = module.to_vec();
    p.push(name.to_string());
    p.join("::")
}

/// The packages of a `Cargo.lock`.
#[derive(Debug, Default)]
pub struct Lockfile {
    /// `(name, version)` of every registry package.
    pub packages: Vec<(String, String)>,
    /// The newest locked version of each name (the greatest string, as `packages` sorted).
    newest: HashMap<String, String>,
    /// Where each name's sources were found, by cargo home: every package of a workspace
    /// asks for the same dependencies (AppFlowy: 28 packages, ~850 lookups of ~90 names).
    sources: Mutex<HashMap<(PathBuf, String), Option<PathBuf>>>,
}

impl Lockfile {
    /// The nearest `Cargo.lock` at or above `dir`, read (`None` when there is none or it
    /// does not parse).
    pub fn find(dir: &Path) -> Option<Lockfile> {
        let mut cur = Some(dir);
        while let Some(d) = cur {
            let f = d.join("Cargo.lock");
            if f.is_file() {
                return Lockfile::read(&f);
            }
            cur = d.parent();
        }
        None
    }

    /// Like [`Lockfile::find`], parsed once per run per file (a workspace of many packages
    /// shares one `Cargo.lock`).
    pub fn find_cached(dir: &Path) -> Option<std::sync::Arc<Lockfile>> {
        let mut cur = Some(dir);
        while let Some(d) = cur {
            let f = d.join("Cargo.lock");
            if f.is_file() {
                let mut cache = LOCKS.lock().unwrap_or_else(|e| e.into_inner());
                return cache
                    .get_or_insert_with(HashMap::new)
                    .entry(f.clone())
                    .or_insert_with(|| Lockfile::read(&f).map(std::sync::Arc::new))
                    .clone();
            }
            cur = d.parent();
        }
        None
    }

    /// Reads one lockfile.
    pub fn read(path: &Path) -> Option<Lockfile> {
        let text = std::fs::read_to_string(path).ok()?;
        Some(Self::parse(&text))
    }

    /// The registry packages of a `Cargo.lock` text. The file is written by cargo in a fixed
    /// layout (`[[package]]` tables of `key = "value"` lines), so it is read line by line:
    /// a full TOML parse of a large lockfile cost more than linting a small service. A list
    /// over many lines (`dependencies = [`) holds no key read here and is skipped to its `]`.
    ///
    /// # Examples
    /// ```
    /// let lock = shutdown_lint::workspace::reexports::Lockfile::parse(
    ///     "version = 4\n\n[[package]]\nname = \"bytes\"\nversion = \"1.7.0\"\n\
    ///      source = \"registry+https://github.com/rust-lang/crates.io-index\"\n\
    ///      dependencies = [\n \"serde\",\n]\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\n",
    /// );
    /// assert_eq!(lock.packages, [("bytes".to_string(), "1.7.0".to_string())]);
    /// ```
    pub fn parse(text: &str) -> Lockfile {
        let mut packages = Vec::new();
        let mut cur: Option<(Option<&str>, Option<&str>, bool)> = None;
        let mut flush = |cur: &mut Option<(Option<&str>, Option<&str>, bool)>| {
            if let Some((Some(n), Some(v), true)) = cur.take() {
                packages.push((n.to_string(), v.to_string()));
            }
        };
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
            let line = text[at..end].trim();
            at = end + 1;
            if line.starts_with('[') {
                flush(&mut cur);
                if line == "[[package]]" {
                    cur = Some((None, None, false));
                }
                continue;
            }
            let Some(p) = cur.as_mut() else { continue };
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let value = value.trim();
            if value.starts_with('[') && !value.contains(']') {
                // a list over many lines (`dependencies = [`, one line per entry, most of
                // the file): no key of ours is inside, jump past its `]`
                if let Some(n) = memchr::memchr(b']', &bytes[at.min(bytes.len())..]) {
                    at += n + 1;
                }
                continue;
            }
            let value = value.trim_matches('"');
            match key.trim() {
                "name" => p.0 = Some(value),
                "version" => p.1 = Some(value),
                "source" => p.2 = value.starts_with("registry+") || value.starts_with("sparse+"),
                _ => {}
            }
        }
        flush(&mut cur);
        let mut newest: HashMap<String, String> = HashMap::new();
        for (name, version) in &packages {
            match newest.get_mut(name) {
                Some(v) if *v >= *version => {}
                Some(v) => v.clone_from(version),
                None => {
                    newest.insert(name.clone(), version.clone());
                }
            }
        }
        Lockfile {
            packages,
            newest,
            sources: Mutex::default(),
        }
    }

    /// The unpacked sources of registry package `name` in the cargo registry under
    /// `cargo_home` (`registry/src/<index>/<name>-<version>`), for the locked version (the
    /// newest if several are locked). Looked up once per name and cargo home.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::workspace::reexports::Lockfile;
    /// let home = tempfile::tempdir().unwrap();
    /// for v in ["1.2.0", "1.3.0"] {
    ///     std::fs::create_dir_all(home.path().join(format!("registry/src/idx/bytes-{v}"))).unwrap();
    /// }
    /// let lock = Lockfile::parse(
    ///     "[[package]]\nname = \"bytes\"\nversion = \"1.3.0\"\nsource = \"registry+x\"\n\
    ///      [[package]]\nname = \"bytes\"\nversion = \"1.2.0\"\nsource = \"registry+x\"\n",
    /// );
    /// let found = lock.registry_source_in(home.path(), "bytes").unwrap();
    /// assert!(found.ends_with("idx/bytes-1.3.0"));
    /// assert_eq!(lock.registry_source_in(home.path(), "bytes"), Some(found));
    /// assert_eq!(lock.registry_source_in(home.path(), "serde"), None);
    /// ```
    pub fn registry_source_in(&self, cargo_home: &Path, name: &str) -> Option<PathBuf> {
        let key = (cargo_home.to_path_buf(), name.to_string());
        if let Some(found) = self
            .sources
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return found.clone();
        }
        let found = self.newest.get(name).and_then(|version| {
            let dir_name = format!("{name}-{version}");
            registry_indexes(cargo_home)
                .iter()
                .map(|index| index.join(&dir_name))
                .find(|d| d.is_dir())
        });
        self.sources
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, found.clone());
        found
    }
}

/// The index directories of the unpacked registry under `cargo_home`
/// (`registry/src/<index>`), listed once per run: every dependency is looked up in them.
fn registry_indexes(cargo_home: &Path) -> std::sync::Arc<Vec<PathBuf>> {
    let mut cache = INDEXES.lock().unwrap_or_else(|e| e.into_inner());
    let map = cache.get_or_insert_with(HashMap::new);
    map.entry(cargo_home.to_path_buf())
        .or_insert_with(|| {
            let src = cargo_home.join("registry").join("src");
            let mut dirs: Vec<PathBuf> = std::fs::read_dir(src)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .collect();
            // the same choice on every run when a package is unpacked under two indexes
            dirs.sort();
            std::sync::Arc::new(dirs)
        })
        .clone()
}

/// `$CARGO_HOME`, or `~/.cargo`.
pub fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

#[cfg(test)]
mod tests {
    use super::{Reading, Scan, names_known_dependency, scan_crate, scan_file};

    /// The own crate is read whole: ord's private `use {std::thread, tokio::task};` at the
    /// root reaches `index/updater.rs` through two `use super::*;`, and a private module's
    /// own glob of a sibling (`use crate::index::*;`) too; a function's imports do not.
    #[test]
    fn the_own_crate_carries_private_imports_through_its_globs() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(src.join("index")).unwrap();
        std::fs::write(
            src.join("lib.rs"),
            "use {std::{sync::Arc, thread}, tokio::task};\npub mod index;\nmod other;\n\
             fn f() { use tokio::spawn as in_fn; }\n",
        )
        .unwrap();
        std::fs::write(
            src.join("index.rs"),
            "use {super::*, std::fmt};\nmod updater;\n",
        )
        .unwrap();
        std::fs::write(src.join("index/updater.rs"), "use super::*;\n").unwrap();
        std::fs::write(src.join("other.rs"), "pub(crate) use crate::index::*;\n").unwrap();
        let mut own = scan_crate(&src.join("lib.rs"), Reading::Own);
        own.sort();
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        for m in [
            "$crate",
            "$crate::index",
            "$crate::index::updater",
            "$crate::other",
        ] {
            assert!(
                own.contains(&pair(&format!("{m}::thread"), "std::thread")),
                "{m}: {own:?}"
            );
            assert!(
                own.contains(&pair(&format!("{m}::task"), "tokio::task")),
                "{m}: {own:?}"
            );
        }
        assert!(
            !own.iter()
                .any(|(f, _)| f.ends_with("in_fn") || f.ends_with("Arc"))
        );
        // a dependency exports none of it
        assert!(scan_crate(&src.join("lib.rs"), Reading::Dependency).is_empty());
    }

    /// Only what a public module path reaches is exported: a `pub use` in a function, an
    /// `impl`, a private module or a `macro_rules!` body is not, whatever nests around it;
    /// one in a public inline module is, under that module's name.
    #[test]
    fn only_pub_uses_a_public_path_reaches_are_read() {
        let text = "pub struct S { f: u8 }\n\
                    fn f() { pub use tokio::spawn as in_fn; { { } } }\n\
                    impl S { fn g() { pub use tokio::spawn as in_impl; } }\n\
                    mod private { pub use tokio::spawn as in_private; pub mod deep { pub use tokio::spawn as deeper; } }\n\
                    macro_rules! m { () => { pub use tokio::spawn as in_macro; } }\n\
                    pub mod task { fn h() { if x { } } pub mod inner { pub use tokio::spawn; } pub use tokio::spawn as run; }\n\
                    pub use tokio as rt;\n";
        let mut out = Vec::new();
        let mut stack = Vec::new();
        let mut globs = Vec::new();
        let mut imports = Vec::new();
        let mut scan = Scan {
            reading: Reading::Dependency,
            out: &mut out,
            imports: &mut imports,
            stack: &mut stack,
            globs: &mut globs,
        };
        scan_file(
            text,
            &["$crate".to_string()],
            std::path::Path::new("/nowhere"),
            &mut scan,
        );
        out.sort();
        assert_eq!(
            out,
            [
                ("$crate::rt".to_string(), "tokio".to_string()),
                (
                    "$crate::task::inner::spawn".to_string(),
                    "tokio::spawn".to_string()
                ),
                ("$crate::task::run".to_string(), "tokio::spawn".to_string()),
            ]
        );
        assert!(stack.is_empty());
    }

    #[test]
    fn only_normal_dependencies_can_be_reexported() {
        assert!(names_known_dependency(
            "[package]\nname = \"a\"\n[dependencies.tokio]\nversion = \"1\"\n"
        ));
        assert!(names_known_dependency(
            "[dependencies]\nreqwest = \"0.12\"\n"
        ));
        assert!(names_known_dependency(
            "[target.'cfg(unix)'.dependencies.hyper-util]\nversion = \"0.1\"\n"
        ));
        assert!(!names_known_dependency(
            "[dependencies]\nserde = \"1\"\n[dev-dependencies.tokio]\nversion = \"1\"\n[build-dependencies]\nhyper = \"1\"\n"
        ));
        // a package description mentioning tokio is not a dependency
        assert!(!names_known_dependency(
            "[package]\ndescription = \"tokio helpers\"\n"
        ));
    }
}
