//! The workspace model: what a value is, across the files and crates of a run.
//!
//! One file alone cannot tell that `self.rt.spawn(..)` is a raw spawn when `rt: Handle` is
//! declared in another file, or that `current_handle().spawn(..)` is one when
//! `current_handle` is a function of another crate of the workspace. The per-file walk
//! ([`crate::collect`]) therefore records, in the same single parse, what each file
//! *declares* ([`Decls`]: struct field types, return types of functions and methods, type
//! aliases) and which chains start at a receiver it cannot type ([`SymRoot`]). Once every
//! file is analysed (in parallel), [`WorkspaceModel::build`] merges the declarations into
//! indexed tables and [`WorkspaceModel::resolve`] rewrites each pending chain whose
//! receiver turns out to be a `Handle`, a `Runtime`, a tracked `Shutdown` scope or an
//! HTTP client builder returned by a helper, so the rules see it as if it had been
//! written in place.
//!
//! Lookups go from precise to loose, and a loose answer is taken only when every
//! candidate agrees: a field of the exact owner type, then of a type of the same name
//! (re-exported under another path), then any field of that name; the same for methods;
//! a free function by full path, then by name. Re-exports of dependencies, read from their
//! sources before the walk, are in [`reexports`]; test modules declared out of line in
//! [`test_modules`]; declarations of path dependencies outside the linted paths, and of
//! linted files the byte scan skipped (through an index of what they may declare), in
//! `path_deps`. A type holding a known HTTP client builder in a field is a builder
//! wrapper: chains on it are rewritten as the wrapped builder's.

pub(crate) mod path_deps;
mod probe;
pub use probe::Probe;
pub mod reexports;
pub(crate) mod skipped_index;
pub mod test_modules;

use crate::model::{ArgValue, Chain, ChainUse, Decls, FnDecl, Step, SymRoot};
use crate::resolve::{Canon, known};
use foldhash::HashMap;

/// A set of names the model asks for (`Type::name`, `name`, `Type::`), hashed with
/// foldhash: it is looked up once per hidden declaration of every file.
pub type NameSet = foldhash::HashSet<String>;

/// How a chain's step names a field read rather than a method call (`.server` in
/// `self.services.server.runtime()`): the collector writes such steps only before a
/// pending root is typed, and [`WorkspaceModel::resolve`] consumes them.
pub(crate) const FIELD_STEP: &str = ".";

/// Methods that hand back (a reference to) the value they are called on, or unwrap it:
/// the type flows through them.
const TRANSPARENT: &[&str] = &[
    "?",
    "await",
    "clone",
    "as_ref",
    "borrow",
    "unwrap",
    "expect",
    "deref",
    "to_owned",
    // a `OnceLock` / `OnceCell` static (`RT.get_or_init(|| Runtime::new()..).spawn(..)`)
    "get_or_init",
    // a `Mutex` / `RwLock`'s guard (`RUNTIME.lock().unwrap().as_ref()..spawn(..)`)
    "lock",
    "blocking_lock",
    "try_lock",
    "read",
    "write",
];

/// Indexed declarations of every analysed file.
#[derive(Debug, Clone, Default)]
pub struct WorkspaceModel {
    fields: HashMap<(Canon, String), Canon>,
    /// By [`member_key`] (`Type::field`).
    fields_by_type_name: HashMap<String, Vec<Canon>>,
    fields_by_name: HashMap<String, Vec<Canon>>,
    fns: HashMap<Canon, FnDecl>,
    free_fns_by_name: HashMap<String, Vec<FnDecl>>,
    /// By [`member_key`] (`Type::method`).
    methods_by_type_name: HashMap<String, Vec<FnDecl>>,
    methods_by_name: HashMap<String, Vec<FnDecl>>,
    aliases: HashMap<Canon, Canon>,
    aliases_by_name: HashMap<String, Vec<Canon>>,
    /// Types of the fields that hold an HTTP client or client builder of a known library,
    /// whatever their name, by owner: what a wrapper type of the workspace wraps.
    http_fields: HashMap<Canon, Vec<Canon>>,
    http_fields_by_type_name: HashMap<String, Vec<Canon>>,
}

impl WorkspaceModel {
    /// Merges the declarations of many files.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::model::Decls;
    /// use shutdown_lint::resolve::split_path;
    /// use shutdown_lint::workspace::WorkspaceModel;
    /// let mut d = Decls::default();
    /// d.fields.push((split_path("app::Worker"), "rt".into(), split_path("tokio::runtime::Handle")));
    /// let ws = WorkspaceModel::build([&d]);
    /// assert_eq!(ws.len(), 1);
    /// ```
    pub fn build<'a>(decls: impl IntoIterator<Item = &'a Decls>) -> WorkspaceModel {
        Self::build_for(decls, None)
    }

    /// Like [`WorkspaceModel::build`], keeping only the fields and functions named in
    /// `names` (every lookup [`WorkspaceModel::resolve`] makes is by a name written in a
    /// pending chain: its root's name or a step's), so a large workspace does not copy
    /// every declaration it has. Aliases are all kept.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::model::Decls;
    /// use shutdown_lint::resolve::split_path;
    /// use shutdown_lint::workspace::WorkspaceModel;
    /// let mut d = Decls::default();
    /// d.fields.push((split_path("app::Worker"), "rt".into(), split_path("tokio::runtime::Handle")));
    /// d.fields.push((split_path("app::Worker"), "name".into(), split_path("String")));
    /// let names = ["rt".to_string()].into_iter().collect();
    /// assert_eq!(WorkspaceModel::build_for([&d], Some(&names)).len(), 1);
    /// ```
    pub fn build_for<'a>(
        decls: impl IntoIterator<Item = &'a Decls>,
        names: Option<&NameSet>,
    ) -> WorkspaceModel {
        let mut ws = WorkspaceModel::default();
        ws.extend_for(decls, names);
        ws
    }

    /// Adds more declarations to the model, filtered as [`WorkspaceModel::build_for`]
    /// filters them (a later round of reading adds what it found, without building the
    /// model again).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::model::Decls;
    /// use shutdown_lint::resolve::split_path;
    /// use shutdown_lint::workspace::WorkspaceModel;
    /// let mut ws = WorkspaceModel::default();
    /// let mut d = Decls::default();
    /// d.fields.push((split_path("app::Worker"), "rt".into(), split_path("tokio::runtime::Handle")));
    /// ws.extend_for([&d], None);
    /// assert_eq!(ws.len(), 1);
    /// ```
    pub fn extend_for<'a>(
        &mut self,
        decls: impl IntoIterator<Item = &'a Decls>,
        names: Option<&NameSet>,
    ) {
        // a user `Deref` is looked up for any field read through it
        let wanted = |n: &String| names.is_none_or(|set| set.contains(n)) || n == "deref";
        let decls: Vec<&Decls> = decls.into_iter().collect();
        let ws = self;
        for &d in &decls {
            for (owner, name, ty) in d.fields.iter().filter(|(_, n, _)| wanted(n)) {
                ws.fields.insert((owner.clone(), name.clone()), ty.clone());
                if let Some(last) = owner.last() {
                    ws.fields_by_type_name
                        .entry(member_key(last, name))
                        .or_default()
                        .push(ty.clone());
                }
                ws.fields_by_name
                    .entry(name.clone())
                    .or_default()
                    .push(ty.clone());
            }
            for f in d.fns.iter().filter(|f| wanted(&f.name)) {
                ws.fns.insert(f.path.clone(), f.clone());
                match f.owner.as_ref().and_then(|o| o.last()) {
                    Some(owner) => {
                        ws.methods_by_type_name
                            .entry(member_key(owner, &f.name))
                            .or_default()
                            .push(f.clone());
                        ws.methods_by_name
                            .entry(f.name.clone())
                            .or_default()
                            .push(f.clone());
                    }
                    None => ws
                        .free_fns_by_name
                        .entry(f.name.clone())
                        .or_default()
                        .push(f.clone()),
                }
            }
            for (path, ty) in &d.aliases {
                ws.aliases.insert(path.clone(), ty.clone());
                if let Some(last) = path.last() {
                    ws.aliases_by_name
                        .entry(last.clone())
                        .or_default()
                        .push(ty.clone());
                }
            }
        }
        // once every alias is known: the fields a wrapper type holds its client or
        // builder in (`struct ClientBuilder(reqwest::ClientBuilder)`)
        for (owner, _, ty) in decls.iter().flat_map(|d| d.fields.iter()) {
            let ty = ws.unalias(ty.clone());
            if known::is_http_builder_type(&ty) || known::is_http_client_type(&ty) {
                if let Some(last) = owner.last() {
                    ws.http_fields_by_type_name
                        .entry(last.clone())
                        .or_default()
                        .push(ty.clone());
                }
                ws.http_fields.entry(owner.clone()).or_default().push(ty);
            }
        }
    }

    /// Whether a held declaration is a method or field named `name` (of any type).
    pub(crate) fn declares_member(&self, name: &str) -> bool {
        self.methods_by_name.contains_key(name) || self.fields_by_name.contains_key(name)
    }

    /// Number of declarations held.
    pub fn len(&self) -> usize {
        self.fields.len() + self.fns.len() + self.aliases.len()
    }

    /// Whether no declaration is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pending chains of a file rewritten with the receiver the model found: those it
    /// could not type are left out. The result has no pending chain.
    pub fn resolve(&self, pending: &[ChainUse]) -> Vec<ChainUse> {
        pending
            .iter()
            .filter_map(|cu| {
                let chain = self.resolve_chain(&cu.chain, &mut Vec::new())?;
                Some(ChainUse {
                    chain,
                    usage: cu.usage,
                    ctx: cu.ctx.clone(),
                    escapes: cu.escapes,
                    calls_bounded: cu.calls_bounded,
                })
            })
            .collect()
    }

    /// The declarations resolving `pending` looks up whose answer a declaration this
    /// model does not hold could change: one of a given type (`"Worker::rt"`), and, for a
    /// receiver of unknown type, a field or method by name (`"rt"`) when no held candidate
    /// answers or all agree (candidates that disagree already give no answer). Keys as
    /// in [`crate::prune::Pruned::hidden`].
    ///
    /// Not asked for: a method by name alone when the receiver's type is known but has
    /// no such method (the loose last resort of the lookup). A declaration hidden by the
    /// pruner names no type a rule knows, so such a guess could only lead on through
    /// another workspace type; the corpus has no such chain (see README).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::analysis::analyze_source;
    /// use shutdown_lint::config::Config;
    /// use shutdown_lint::workspace::WorkspaceModel;
    /// let src = "impl W { fn go(&self) { self.rt.spawn(f); } }";
    /// let a = analyze_source("src/w.rs".as_ref(), src, &Config::default());
    /// let need = WorkspaceModel::default().needed_names(&a.pending);
    /// // `self` is a `W`: its field `rt`, not any field of that name
    /// assert!(need.contains("W::rt") && !need.contains("rt"));
    /// ```
    pub fn needed_names<'a>(&self, pending: impl IntoIterator<Item = &'a ChainUse>) -> NameSet {
        let mut need = Vec::new();
        for cu in pending {
            self.resolve_chain(&cu.chain, &mut need);
        }
        need.into_iter().collect()
    }

    fn resolve_chain(&self, ch: &Chain, need: &mut Vec<String>) -> Option<Chain> {
        let mut met_wrapper = false;
        self.resolve_with(ch, need, false, &mut met_wrapper)
            .or_else(|| {
                // only a chain that went through a wrapper can be answered otherwise
                met_wrapper
                    .then(|| self.resolve_with(ch, need, true, &mut met_wrapper))
                    .flatten()
            })
    }

    /// [`Self::resolve_chain`]; with `client_wrappers`, a type holding a known HTTP client
    /// or client builder is taken for what it wraps — only when the chain cannot be typed
    /// otherwise (a type holding a client among other fields, `AppState { http: Client,
    /// rt: Handle }`, has methods of its own the first attempt follows). `met_wrapper`
    /// is set when the chain goes through such a type.
    fn resolve_with(
        &self,
        ch: &Chain,
        need: &mut Vec<String>,
        client_wrappers: bool,
        met_wrapper: &mut bool,
    ) -> Option<Chain> {
        let root = ch.pending.as_ref()?;
        // a method called on a client wrapper (`client.request(..)`, `client: &Client`):
        // the wrapped client's, as its first step
        let root_client = match root {
            SymRoot::Method {
                owner: Some(owner),
                name,
            } => self
                .wrapped_client(&self.unalias(owner.clone()))
                .and_then(|c| known::type_ctor(&c))
                .map(|ctor| (name, ctor)),
            _ => None,
        };
        *met_wrapper |= root_client.is_some();
        if client_wrappers && let Some((name, ctor)) = root_client {
            let mut on_client = ch.clone();
            on_client.steps.insert(
                0,
                Step {
                    name: name.clone(),
                    region: ch.root_region,
                    args: Vec::new(),
                },
            );
            on_client.inherited += usize::from(ch.inherited > 0);
            return Some(self.on_wrapped_client(&on_client, 0, ctor));
        }
        let (mut ty, mut made_by) = self.type_of_root(root, need)?;
        let mut i = 0;
        #[allow(clippy::explicit_counter_loop)] // `i` counts consumed steps, not rounds
        for _ in 0..=ch.steps.len() + 4 {
            ty = self.unalias(ty);
            // a function that builds the client from the builder its caller passed: the
            // caller's build, judged where the function is called
            if i == 0
                && !ch.via_binding
                && let Some((k, helper)) = made_by.and_then(|f| f.builds_param.as_ref())
                && let Some(ArgValue::Builder(b)) = ch.root_args.get(*k)
            {
                return Some(built_by_helper(ch, b, helper));
            }
            // a function that hands the builder its caller passed back, without a timeout:
            // still the caller's builder (`tls(Client::builder()).build()`)
            if i == 0
                && !ch.via_binding
                && let Some(k) = made_by.and_then(|f| f.returns_param)
                && let Some(ArgValue::Builder(b)) = ch.root_args.get(k)
            {
                return Some(built_by_helper(ch, b, &[]));
            }
            if let Some(ctor) = known::type_ctor(&ty) {
                // a thread's handle only from the function the call names, not one of the
                // same name elsewhere (`spawn` is a common name)
                if ctor == known::THREAD_SPAWN_FN
                    && i == 0
                    && made_by.is_some_and(|f| !called_as(root, f))
                {
                    return None;
                }
                // an empty `Option` of a client filled in here (spin's
                // `self.client.get_or_insert_with(Default::default)`): a client made here,
                // with its library's defaults
                if let Some(made) = filled_with_default(ctor)
                    && ch.steps.get(i).is_some_and(fills_default)
                {
                    let mut out = rewrite(ch, i + 1, crate::resolve::split_path(made), Vec::new());
                    out.written = Some(ch.steps[i].name.clone());
                    return Some(out);
                }
                let mut out = rewrite(ch, i, crate::resolve::split_path(ctor), Vec::new());
                // a client held in a field or returned by a function was made elsewhere:
                // like a binding, it is not the place its construction is judged; a
                // thread's handle held in a field was spawned elsewhere too
                out.via_binding |=
                    matches!(known::http_ctor(ctor), Some((known::HttpKind::Client, _)))
                        || (ctor == known::THREAD_SPAWN_FN && made_by.is_none());
                return Some(out);
            }
            if known::is_http_builder_type(&ty) {
                // a helper's builder: its own steps (timeout or not) come first
                let b = made_by.and_then(|f| f.builder.as_ref())?;
                if b.pending.is_some() {
                    // handed through a second function that returns it (`let b =
                    // self.tls(b); Ok(b)`): the builder passed to it, then the helper's
                    // steps after that call
                    let (inner, passed) = self.passed_through(b, need)?;
                    let mut steps = inner.steps.clone();
                    steps.extend(passed.steps.iter().cloned());
                    return Some(rewrite(ch, i, inner.root.clone(), steps));
                }
                return Some(rewrite(ch, i, b.root.clone(), b.steps.clone()));
            }
            // a builder wrapper: its own methods lead to a client made from it (not one
            // made elsewhere), so only the second attempt answers
            if let Some(builder) = self.wrapped_builder(&ty, need) {
                *met_wrapper = true;
                return client_wrappers
                    .then(|| {
                        let ctor_times = made_by.is_some_and(|f| f.sets_timeout);
                        self.through_wrapper(ch, i, &ty, &builder, ctor_times, need)
                    })
                    .flatten();
            }
            // a client wrapper (`struct Client { inner: reqwest::Client, .. }`) made
            // elsewhere: its requests are the wrapped client's, their closures' methods
            // applied to them (`prepare(|request| request.timeout(d))`)
            if let Some(ctor) = self.wrapped_client(&ty).and_then(|c| known::type_ctor(&c)) {
                *met_wrapper = true;
                if client_wrappers {
                    return Some(self.on_wrapped_client(ch, i, ctor));
                }
            }
            let step = ch.steps.get(i)?;
            i += 1;
            if TRANSPARENT.contains(&step.name.as_str()) {
                continue;
            }
            // a field read on the value so far (`self.services.server`): [`FIELD_STEP`]
            if let Some(field) = step.name.strip_prefix(FIELD_STEP) {
                ty = self.field(Some(&ty), field, need)?;
                made_by = None;
                continue;
            }
            let f = self.method(Some(&ty), &step.name, need)?;
            // a thread's handle only from a method of the receiver's own type, not one of
            // the same name another type declares (`self.executor.spawn(task)` on an
            // executor that queues futures, beside a capture source's `fn spawn(self) ->
            // JoinHandle<()>`)
            if known::type_ctor(&f.ret) == Some(known::THREAD_SPAWN_FN)
                && f.owner.as_ref().and_then(|o| o.last()) != ty.last()
            {
                return None;
            }
            ty = f.ret.clone();
            made_by = Some(f);
        }
        None
    }

    /// The HTTP client builder type a workspace type wraps: its one field holding a
    /// builder of a known library (`struct ClientBuilder(reqwest::ClientBuilder)`).
    fn wrapped_builder(&self, ty: &Canon, need: &mut Vec<String>) -> Option<Canon> {
        let Some(fields) = self.http_fields_of(ty) else {
            // its declaration, perhaps hidden (every declaration of the type)
            need.extend(ty.last().map(|l| format!("{l}::")));
            return None;
        };
        let mut builders = fields.filter(|t| known::is_http_builder_type(t));
        let first = builders.next()?;
        builders.all(|t| t == first).then(|| first.clone())
    }

    /// `ch` from step `consumed` on, as a chain on a client of a known library (`ctor`)
    /// made elsewhere, each step followed by what its closures apply to their parameter.
    fn on_wrapped_client(&self, ch: &Chain, consumed: usize, ctor: &str) -> Chain {
        let mut out = rewrite(ch, consumed, crate::resolve::split_path(ctor), Vec::new());
        out.via_binding = true;
        let (inherited, local) = out.steps.split_at(out.inherited.min(out.steps.len()));
        let inherited = splice_applied(inherited);
        out.inherited = inherited.len();
        out.steps = [inherited, splice_applied(local)].concat();
        out
    }

    /// The one HTTP client type of a known library a workspace type holds in a field,
    /// when it holds no builder (a client wrapper).
    fn wrapped_client(&self, ty: &Canon) -> Option<Canon> {
        let fields: Vec<&Canon> = self.http_fields_of(ty)?.collect();
        if fields.iter().any(|t| known::is_http_builder_type(t)) {
            return None;
        }
        let first = *fields.first()?;
        fields.iter().all(|t| *t == first).then(|| first.clone())
    }

    /// Whether a workspace type holds an HTTP client of a known library in a field (a
    /// client wrapper a builder wrapper's `build_with_policies(..)` returns).
    fn wraps_client(&self, ty: &Canon, need: &mut Vec<String>) -> bool {
        match self.http_fields_of(ty) {
            Some(mut fields) => fields.any(|t| known::is_http_client_type(t)),
            None => {
                need.extend(ty.last().map(|l| format!("{l}::")));
                false
            }
        }
    }

    /// The client and builder fields of a type: by its path, else by its name when every
    /// type of that name agrees (a type re-exported under another path).
    fn http_fields_of(&self, ty: &Canon) -> Option<impl Iterator<Item = &Canon>> {
        if let Some(v) = self.http_fields.get(ty) {
            return Some(v.iter());
        }
        let v = self.http_fields_by_type_name.get(ty.last()?)?;
        let first = v.first()?;
        v.iter().all(|t| t == first).then(|| v.iter())
    }

    /// A chain on a builder wrapper `wrapper` of the workspace (around a builder of type
    /// `builder`), from step `consumed` on, rewritten as the wrapped builder's own chain:
    /// a wrapper method that returns the wrapper applies what its closures apply to the
    /// wrapped builder (`prepare(|inner| inner.timeout(d))` is `.timeout(d)`), one that
    /// returns a client (or a wrapper of one) is the builder's `build`, the wrapper's own
    /// `build` stays; after that the steps apply to what was built (and what their
    /// closures apply to their parameter, a request wrapper's `prepare(|request| ..)`). A
    /// method returning anything else (or unknown) ends the answer: `None`.
    fn through_wrapper(
        &self,
        ch: &Chain,
        consumed: usize,
        wrapper: &Canon,
        builder: &Canon,
        ctor_times: bool,
        need: &mut Vec<String>,
    ) -> Option<Chain> {
        let ctor = known::http_builder_ctor(builder)?;
        let (_, lib) = known::http_ctor(ctor)?;
        let build = lib.build_methods.first()?;
        let mut steps: Vec<Step> = Vec::new();
        // the wrapper's own code sets its builder's timeout (its constructor, a method the
        // chain calls, its `build`): a timeout step of the library, where the chain starts
        let timeout_step = |steps: &mut Vec<Step>| {
            if let Some(t) = lib.timeout_methods.first()
                && !steps.iter().any(|s| s.name == *t)
            {
                steps.insert(
                    0,
                    Step {
                        name: (*t).to_string(),
                        region: ch.root_region,
                        args: Vec::new(),
                    },
                );
            }
        };
        if ctor_times {
            timeout_step(&mut steps);
        }
        let mut inherited = 0;
        let mut wrapped = true;
        for (j, step) in ch.steps.iter().enumerate().skip(consumed) {
            let before = steps.len();
            let name = step.name.as_str();
            if !wrapped || TRANSPARENT.contains(&name) || lib.build_methods.contains(&name) {
                if wrapped
                    && lib.build_methods.contains(&name)
                    && self
                        .method(Some(wrapper), name, need)
                        .is_some_and(|f| f.sets_timeout)
                {
                    timeout_step(&mut steps);
                }
                wrapped &= !lib.build_methods.contains(&name);
                if wrapped {
                    steps.push(step.clone());
                } else {
                    // on what was built: a request wrapper's `prepare(|request|
                    // request.timeout(d))` applies those methods to the request
                    steps.extend(splice_applied(std::slice::from_ref(step)));
                }
            } else {
                let m = self.method(Some(wrapper), name, need)?;
                if m.sets_timeout {
                    timeout_step(&mut steps);
                }
                let ret = self.unalias(m.ret.clone());
                if ret == *wrapper {
                    steps.extend(applied(step));
                } else if known::is_http_client_type(&ret) || self.wraps_client(&ret, need) {
                    steps.push(Step {
                        name: (*build).to_string(),
                        region: step.region,
                        args: Vec::new(),
                    });
                    wrapped = false;
                } else {
                    return None;
                }
            }
            if j < ch.inherited {
                inherited += steps.len() - before;
            }
        }
        Some(Chain {
            root: crate::resolve::split_path(ctor),
            root_region: match consumed {
                0 => ch.root_region,
                n => ch.steps[n - 1].region,
            },
            root_args: Vec::new(),
            steps,
            inherited,
            via_binding: ch.via_binding,
            pending: None,
            origin: None,
            // shown as the wrapper's constructor, as written, beside the builder's
            via: None,
            written: ch.via.clone(),
            received: true,
            plain_after: None,
        })
    }

    /// For a builder chain `b` whose root is a call of a function that hands back the
    /// builder passed to it ([`FnDecl::returns_param`]): that builder (made by a library,
    /// not itself passed through again) and `b`.
    fn passed_through<'c>(
        &self,
        b: &'c Chain,
        need: &mut Vec<String>,
    ) -> Option<(&'c Chain, &'c Chain)> {
        let (_, made_by) = self.type_of_root(b.pending.as_ref()?, need)?;
        let k = made_by?.returns_param?;
        match b.root_args.get(k) {
            Some(ArgValue::Builder(inner)) if inner.pending.is_none() => Some((inner, b)),
            _ => None,
        }
    }

    /// The type of a pending root, and the function that made it (for helpers' builders).
    fn type_of_root(
        &self,
        root: &SymRoot,
        need: &mut Vec<String>,
    ) -> Option<(Canon, Option<&FnDecl>)> {
        match root {
            SymRoot::Call(path) => {
                let f = self.function(path, need)?;
                Some((f.ret.clone(), Some(f)))
            }
            SymRoot::Field { owner, name } => Some((self.field(owner.as_ref(), name, need)?, None)),
            SymRoot::Method { owner, name } => {
                let f = self.method(owner.as_ref(), name, need)?;
                Some((f.ret.clone(), Some(f)))
            }
            // only an alias tells more than the file knew (a type of the workspace's own
            // `spawn` is no spawner the rules know)
            SymRoot::Typed(ty) => {
                need.extend(ty.last().cloned());
                let to = self.unaliased(ty);
                (to != ty).then(|| (to.clone(), None))
            }
        }
    }

    fn field(&self, owner: Option<&Canon>, name: &str, need: &mut Vec<String>) -> Option<Canon> {
        if let Some(o) = owner {
            let o = self.unaliased(o);
            if let Some(answer) = self.field_of_type(o, name, need) {
                return answer;
            }
            // a user `Deref`: the field of what the owner dereferences to
            if let Some(target) = self.deref_target(o, need)
                && let Some(answer) = self.field_of_type(&target, name, need)
            {
                return answer;
            }
        }
        let v = self.fields_by_name.get(name);
        let answer = agreed(v.into_iter().flatten());
        if owner.is_none() && (answer.is_some() || v.is_none()) {
            need.push(name.to_string());
        }
        answer
    }

    /// The field `name` of type `o` (by its path, or by its type's name): `Some(answer)`
    /// when the type declares one (`answer` is `None` when candidates of that name
    /// disagree), `None` when nothing is known of it. The type's declarations are needed.
    fn field_of_type(
        &self,
        o: &Canon,
        name: &str,
        need: &mut Vec<String>,
    ) -> Option<Option<Canon>> {
        let key = member_key(o.last()?, name);
        let by_name = self.fields_by_type_name.get(&key);
        need.push(key);
        if let Some(t) = self.fields.get(&(o.clone(), name.to_string())) {
            return Some(Some(t.clone()));
        }
        Some(agreed(by_name?.iter()))
    }

    /// What `owner` dereferences to through a `Deref` impl of the workspace (the type its
    /// `deref` returns), unaliased.
    fn deref_target(&self, owner: &Canon, need: &mut Vec<String>) -> Option<Canon> {
        let key = member_key(owner.last()?, "deref");
        let by_name = self.methods_by_type_name.get(&key);
        need.push(key);
        let mut p = owner.clone();
        p.push("deref".to_string());
        // the owner's own `deref` only (by path, or by its type's name): never another
        // type's, which the loose lookup by method name could give
        let f = match self.fns.get(&p) {
            Some(f) => f,
            None => agreed_fn(by_name?)?,
        };
        Some(self.unaliased(&f.ret).clone())
    }

    fn method(&self, owner: Option<&Canon>, name: &str, need: &mut Vec<String>) -> Option<&FnDecl> {
        if let Some(o) = owner {
            let o = self.unaliased(o);
            let by_name = o.last().and_then(|last| {
                let key = member_key(last, name);
                let v = self.methods_by_type_name.get(&key);
                need.push(key);
                v
            });
            let mut p = o.clone();
            p.push(name.to_string());
            if let Some(f) = self.fns.get(&p) {
                return Some(f);
            }
            if let Some(v) = by_name {
                return agreed_fn(v);
            }
        }
        let v = self.methods_by_name.get(name);
        let answer = v.and_then(|v| agreed_fn(v));
        if owner.is_none() && (answer.is_some() || v.is_none()) {
            need.push(name.to_string());
        }
        answer
    }

    fn function(&self, path: &Canon, need: &mut Vec<String>) -> Option<&FnDecl> {
        // `Type::new()`: an associated function of a workspace type (free functions are
        // never hidden)
        let by_type_name = (path.len() >= 2).then(|| {
            let key = member_key(&path[path.len() - 2], &path[path.len() - 1]);
            let v = self.methods_by_type_name.get(&key);
            need.push(key);
            v
        });
        if let Some(f) = self.fns.get(path) {
            return Some(f);
        }
        if let Some(v) = by_type_name.flatten() {
            return agreed_fn(v);
        }
        // a type's associated function (`JoinSet::new()`, tokio's or a crate's own) is never
        // a free function of the same name (a crate's `fn new() -> Runtime`)
        if path.len() >= 2 && path[path.len() - 2].starts_with(|c: char| c.is_ascii_uppercase()) {
            return None;
        }
        agreed_fn(self.free_fns_by_name.get(path.last()?)?)
    }

    /// Follows type aliases (`type Rt = Arc<Runtime>;`), bounded.
    fn unalias(&self, ty: Canon) -> Canon {
        let to = self.unaliased(&ty);
        if std::ptr::eq(to, &ty) {
            ty
        } else {
            to.clone()
        }
    }

    /// [`Self::unalias`], borrowed: `ty` itself when it is no alias.
    fn unaliased<'a>(&'a self, mut ty: &'a Canon) -> &'a Canon {
        for _ in 0..4 {
            if known::type_ctor(ty).is_some() {
                break;
            }
            let next = self
                .aliases
                .get(ty)
                .or_else(|| agreed_ref(self.aliases_by_name.get(ty.last()?)?.iter()));
            match next {
                Some(n) if n != ty => ty = n,
                _ => break,
            }
        }
        ty
    }
}

/// `steps`, each followed by the methods its closures apply to their parameter.
fn splice_applied(steps: &[Step]) -> Vec<Step> {
    let mut out = Vec::with_capacity(steps.len());
    for s in steps {
        out.push(s.clone());
        out.extend(applied(s));
    }
    out
}

/// The methods a step's closure arguments apply to their parameter
/// ([`ArgValue::Applied`]).
fn applied(step: &Step) -> impl Iterator<Item = Step> + '_ {
    step.args.iter().flat_map(|a| match a {
        ArgValue::Applied(inner) => inner.clone(),
        _ => Vec::new(),
    })
}

/// The key of a type's member in the maps by type name: `Type::member`, as the model asks
/// for the declarations it needs.
fn member_key(ty: &str, member: &str) -> String {
    let mut key = String::with_capacity(ty.len() + 2 + member.len());
    key.push_str(ty);
    key.push_str("::");
    key.push_str(member);
    key
}

/// The one value every candidate agrees on.
fn agreed<'a>(it: impl Iterator<Item = &'a Canon>) -> Option<Canon> {
    agreed_ref(it).cloned()
}

/// [`agreed`], borrowed.
fn agreed_ref<'a>(mut it: impl Iterator<Item = &'a Canon>) -> Option<&'a Canon> {
    let first = it.next()?;
    it.all(|c| c == first).then_some(first)
}

/// The function every candidate agrees on (same return type, same builder made or built);
/// the first of them.
fn agreed_fn(v: &[FnDecl]) -> Option<&FnDecl> {
    let first = v.first()?;
    v.iter()
        .all(|f| {
            f.ret == first.ret
                && f.builder == first.builder
                && f.builds_param == first.builds_param
                && f.returns_param == first.returns_param
        })
        .then_some(first)
}

/// `ch`, the result of a workspace function called with the builder `b` and building the
/// client from it with the `helper` steps: one chain from the caller's builder through the
/// function's steps (placed at the call, whose line the reader sees) to `ch`'s own steps.
fn built_by_helper(ch: &Chain, b: &Chain, helper: &[Step]) -> Chain {
    let mut steps = b.steps.clone();
    // the function's steps and their values are in its own file: shown at the call
    let here = |a: &ArgValue| match a {
        ArgValue::Duration(d, _) => ArgValue::Duration(*d, ch.root_region),
        other => other.clone(),
    };
    steps.extend(helper.iter().map(|s| Step {
        name: s.name.clone(),
        region: ch.root_region,
        args: s.args.iter().map(here).collect(),
    }));
    steps.extend_from_slice(&ch.steps);
    Chain {
        root: b.root.clone(),
        root_region: b.root_region,
        root_args: b.root_args.clone(),
        steps,
        // the caller's own steps on the builder are judged where it wrote them
        inherited: b.steps.len(),
        via_binding: false,
        pending: None,
        origin: ch.origin,
        via: ch.via.clone(),
        written: b.written.clone(),
        received: false,
        plain_after: None,
    }
}

/// Whether `s` gives an `Option`'s value, making a default one when it is empty:
/// `get_or_insert_with(Default::default)` (or `Type::new`, `Type::default`),
/// `get_or_insert_default()`, `unwrap_or_default()`.
pub(crate) fn fills_default(s: &Step) -> bool {
    match s.name.as_str() {
        "get_or_insert_with" | "unwrap_or_else" => matches!(s.args.as_slice(), [ArgValue::Ctor]),
        "get_or_insert_default" | "unwrap_or_default" => s.args.is_empty(),
        _ => false,
    }
}

/// For the constructor [`known::type_ctor`] gives an HTTP client type, the constructor of
/// its default client (`reqwest::Client::default`), as what a default fill makes.
fn filled_with_default(ctor: &str) -> Option<&'static str> {
    let (ty, _) = ctor.rsplit_once("::")?;
    let clients = || {
        known::HTTP_CTORS
            .iter()
            .filter(|(_, k, _)| *k == known::HttpKind::Client)
            .map(|(c, _, _)| *c)
    };
    let own = clients().find(|c| *c == ctor)?;
    Some(
        clients()
            .find(|c| c.strip_suffix("::default") == Some(ty))
            .unwrap_or(own),
    )
}

/// `ch` with its first `consumed` steps replaced by a root the rules know (and the steps a
/// helper applied to it, written elsewhere).
/// Whether `root` may call `f` by a path to it: the same name, in the same module or one
/// above it that may re-export it, below the crate's name (`radicle_node::runtime::thread
/// ::spawn` called from another crate of the workspace, declared as `crate::runtime::
/// thread::spawn`; hermes's `ibc_relayer::util::spawn_blocking`, declared in
/// `util::block_on` and re-exported by `util`). Not a function of the same name in a
/// module beside it (`crate::local::spawn`). A method is the one its lookup found.
fn called_as(root: &SymRoot, f: &FnDecl) -> bool {
    let module = |p: &[String]| p.get(1..p.len().saturating_sub(1)).map(<[String]>::to_vec);
    match root {
        SymRoot::Call(path) => {
            path.last() == f.path.last()
                && match (module(path), module(&f.path)) {
                    (Some(called), Some(declared)) => declared.starts_with(&called),
                    _ => false,
                }
        }
        _ => true,
    }
}

fn rewrite(ch: &Chain, consumed: usize, root: Canon, prefix: Vec<Step>) -> Chain {
    let root_region = match consumed {
        0 => ch.root_region,
        n => ch.steps[n - 1].region,
    };
    let mut steps = prefix;
    let helper_steps = steps.len();
    steps.extend_from_slice(&ch.steps[consumed..]);
    Chain {
        root,
        root_region,
        root_args: Vec::new(),
        steps,
        inherited: helper_steps + ch.inherited.saturating_sub(consumed),
        via_binding: ch.via_binding,
        pending: None,
        origin: None,
        via: ch.via.clone(),
        written: None,
        received: true,
        plain_after: None,
    }
}

#[cfg(test)]
mod tests;
