//! What the rules look at: the calls, method chains and path references of one file, with
//! every path resolved by [`crate::resolve`], built in one walk of the syntax tree.
//!
//! A *chain* is a call and the methods, `?` and `.await` applied to its result:
//! `reqwest::Client::builder().connect_timeout(d).build()?` has root
//! `reqwest::Client::builder` and steps `connect_timeout`, `build`, `?`. A chain also
//! continues through `let` rebinding inside a function: after `let b = Client::builder();`,
//! `b.timeout(d).build()` is the chain `Client::builder` → `timeout` → `build`, of which the
//! first part is *inherited*. Rules report only on the part of a chain that is written at
//! the site, so nothing is reported twice.

mod calls;

use crate::finding::Region;
use crate::resolve::Canon;
pub use calls::{CallRef, Calls};

/// A value a rule may want to know about a call argument.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    /// A duration known at lint time, in seconds (`Duration::from_secs(30)`, a `const`, or
    /// `Some(..)` of one), with the region of the expression.
    Duration(f64, Region),
    /// A plain number (`30`, `30 * 1000`, a numeric `const`).
    Num(f64),
    /// The literal `None`.
    NoneLit,
    /// A closure that applies methods to its one parameter and returns the result,
    /// `|inner| inner.timeout(d)`: those methods, innermost first (a builder wrapper's
    /// `prepare(|inner| ..)` sets the wrapped builder's timeouts this way).
    Applied(Vec<Step>),
    /// An HTTP client builder of a known library, passed to a function of the workspace
    /// that builds it (`build_safe_client(reqwest::Client::builder())`): its chain.
    Builder(Box<Chain>),
    /// A constructor passed by name that takes nothing (`Default::default`,
    /// `Client::new`): what `opt.get_or_insert_with(..)` makes when the option is empty.
    Ctor,
    /// A closure that ignores its one parameter (`|_| ()`, `|_h| Ok(())`), or `drop`
    /// passed by name: what `map` applies it to is dropped there
    /// (`thread::Builder::new().spawn(f).map(|_| ())` drops the thread's handle).
    Discards,
    /// Anything else.
    Other,
}

/// One method (or `?` / `.await`) applied in a chain.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Method name, or `?` / `await`.
    pub name: String,
    /// Region of the method name.
    pub region: Region,
    /// Evaluated arguments.
    pub args: Vec<ArgValue>,
}

/// A resolved call and what is applied to its result.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    /// Resolved path of the called function.
    pub root: Canon,
    /// Region of the called path.
    pub root_region: Region,
    /// Evaluated arguments of the root call.
    pub root_args: Vec<ArgValue>,
    /// Applied methods, innermost first.
    pub steps: Vec<Step>,
    /// How many of `steps` come from a `let` binding (written elsewhere); when the chain
    /// starts at a binding, the root is inherited too.
    pub inherited: usize,
    /// Whether the chain starts at a `let` binding.
    pub via_binding: bool,
    /// A root this file alone cannot tell (a field, a method or a crate function whose
    /// type the workspace model knows): the rules skip the chain until
    /// [`crate::workspace::WorkspaceModel::resolve`] rewrites it.
    pub pending: Option<SymRoot>,
    /// Index in [`FileModel::chains`] of the chain where the value was made (a chain that
    /// starts at a binding keeps its origin's).
    pub origin: Option<usize>,
    /// The function the value came from, when it is a helper of the workspace
    /// (`base_builder(..)`), as written.
    pub via: Option<String>,
    /// The called root path as written, when it is not spelled as [`Self::root`]
    /// (`task::spawn` for `tokio::spawn`).
    pub written: Option<String>,
    /// The value was made elsewhere: the root stands for a field, a parameter or a
    /// function's result typed by its declaration, not a constructor called here.
    pub received: bool,
    /// The value after this many steps is bound with a declared type no rule reads
    /// (`let s: String = ctx.get(0).unwrap_or_default();`, and so `s.trim()` on it):
    /// whatever its receiver is, the chain is no runtime, client or builder there
    /// ([`crate::workspace::Probe::typed_as_known`]).
    pub plain_after: Option<usize>,
}

/// A receiver whose type only the workspace model knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymRoot {
    /// A call of a path that no rule knows (a function or associated function of the
    /// workspace: `make_runtime()`, `crate::rt::current_handle()`, `AppRuntime::new()`).
    Call(Canon),
    /// A field, `self.rt` (owner: the `impl`'s type) or `x.pool` (owner unknown).
    Field {
        /// Type the field belongs to, when known.
        owner: Option<Canon>,
        /// Field name.
        name: String,
    },
    /// A method called on `self` or on a value of unknown type: `self.pick_handle()`.
    Method {
        /// Type of the receiver, when known.
        owner: Option<Canon>,
        /// Method name.
        name: String,
    },
    /// A parameter or annotated binding declared of a type of the workspace, on which a
    /// rule's method is called (`runtime.spawn(..)` with `runtime: RuntimeRef`, an alias
    /// of `Arc<Runtime>` declared in another file): that type, as the model unaliases it.
    Typed(Canon),
}

impl Chain {
    /// A call of `root` at `region` with nothing else known: no arguments, no steps, made
    /// here (not through a binding, not received); the other fields are set on it.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::finding::Region;
    /// use shutdown_lint::model::Chain;
    /// use shutdown_lint::resolve::split_path;
    /// let ch = Chain::at(split_path("reqwest::Client::new"), Region::default_start());
    /// assert_eq!(ch.root_str(), "reqwest::Client::new");
    /// assert!(ch.steps.is_empty() && ch.pending.is_none());
    /// ```
    pub fn at(root: Canon, region: Region) -> Chain {
        Chain {
            root,
            root_region: region,
            root_args: Vec::new(),
            steps: Vec::new(),
            inherited: 0,
            via_binding: false,
            pending: None,
            origin: None,
            via: None,
            written: None,
            received: false,
            plain_after: None,
        }
    }

    /// The root path as `a::b::c`.
    pub fn root_str(&self) -> String {
        self.root.join("::")
    }

    /// Where the `JoinHandle` of a thread this chain starts is the value: after `0` steps
    /// for `std::thread::spawn(..)` written here, after its `spawn` step for a
    /// `std::thread::Builder` spawned here; `None` when the chain starts no thread (or a
    /// binding of one is used: the handle is that binding's).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::finding::Region;
    /// use shutdown_lint::model::{Chain, Step};
    /// use shutdown_lint::resolve::split_path;
    /// let step = |name: &str| Step { name: name.into(), region: Region::default_start(), args: Vec::new() };
    /// let mut ch = Chain::at(split_path("std::thread::Builder::new"), Region::default_start());
    /// ch.steps = vec![step("name"), step("spawn"), step("unwrap")];
    /// assert_eq!(ch.thread_handle_after(), Some(2));
    /// let spawn = Chain::at(split_path("std::thread::spawn"), Region::default_start());
    /// assert_eq!(spawn.thread_handle_after(), Some(0));
    /// assert_eq!(spawn.through_binding().thread_handle_after(), None);
    /// ```
    pub fn thread_handle_after(&self) -> Option<usize> {
        let root = self.root_str();
        if root == crate::resolve::known::THREAD_SPAWN_FN {
            return (!self.via_binding).then_some(0);
        }
        if root != crate::resolve::known::THREAD_BUILDER_NEW {
            return None;
        }
        let i = self.steps.iter().position(|s| s.name == "spawn")?;
        self.is_local_step(i).then_some(i + 1)
    }

    /// The step that spawns a task on a runtime handle or builder this chain starts at
    /// (`Handle::current().spawn(..)`, `Runtime::new()?.spawn_blocking(..)`: a
    /// [`crate::resolve::known::RAW_SPAWN_RECEIVERS`] root, a
    /// [`crate::resolve::known::SPAWN_METHODS`] step).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::finding::Region;
    /// use shutdown_lint::model::{Chain, Step};
    /// use shutdown_lint::resolve::split_path;
    /// let step = |name: &str| Step { name: name.into(), region: Region::default_start(), args: Vec::new() };
    /// let mut ch = Chain::at(split_path("tokio::runtime::Handle::current"), Region::default_start());
    /// ch.steps = vec![step("clone"), step("spawn")];
    /// assert_eq!(ch.receiver_spawn_step(), Some(1));
    /// ```
    pub fn receiver_spawn_step(&self) -> Option<usize> {
        if !crate::resolve::known::RAW_SPAWN_RECEIVERS.contains(&self.root_str().as_str()) {
            return None;
        }
        self.steps
            .iter()
            .position(|s| crate::resolve::known::SPAWN_METHODS.contains(&s.name.as_str()))
    }

    /// Whether step `i` was written at this site (not inherited from a binding).
    pub fn is_local_step(&self, i: usize) -> bool {
        i >= self.inherited
    }

    /// The chain as a later use of a binding of it starts: every step so far inherited.
    pub fn through_binding(mut self) -> Chain {
        self.inherited = self.steps.len();
        self.via_binding = true;
        self
    }
}

/// A called path as a message shows it: as written, then what it resolves to when that
/// differs, each shown by `call`.
///
/// # Examples
/// ```
/// use shutdown_lint::model::as_written;
/// let quoted = |p: &str| format!("`{p}`");
/// assert_eq!(as_written(Some("task::spawn"), "tokio::spawn", quoted), "`task::spawn` (`tokio::spawn`)");
/// assert_eq!(as_written(None, "tokio::spawn", quoted), "`tokio::spawn`");
/// ```
pub fn as_written(written: Option<&str>, resolved: &str, call: impl Fn(&str) -> String) -> String {
    match written {
        Some(w) => format!("{} ({})", call(w), call(resolved)),
        None => call(resolved),
    }
}

/// Whether a chain's final value is kept or thrown away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usage {
    /// Used: bound to a name, passed on, returned, pushed.
    Kept,
    /// Dropped at once: an expression statement, `let _ = ..`, `drop(..)`.
    Dropped,
}

/// Where in the file something happens.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ctx {
    /// Inside a `#[drainable]` function (closures and async blocks included, nested items and
    /// macro bodies not), where the macro rewrites what happens: for a chain rooted at a
    /// called path, only when the path is written as one the macro routes
    /// (`tokio::spawn`, `tokio::task::spawn_blocking`, `std::thread::spawn`, ..; not
    /// `spawn` imported by `use`).
    pub in_drainable: bool,
    /// Only compiled on Windows (`#[cfg(windows)]`, `if cfg!(windows)`).
    pub windows_only: bool,
    /// Test code analysed because tests are included (`include-tests`): the audit does not
    /// take its budgets for the service's.
    pub test_code: bool,
    /// Enclosing item path, e.g. `net::Client::connect`.
    pub item: String,
    /// In the body of `macro_rules! name` (this name): what is found there happens at every
    /// use of the macro, and `#[drainable]` rewrites no macro's body.
    pub macro_definition: Option<String>,
}

/// Gives argument `arg` of the step whose method name starts at byte `step`, in every
/// chain that carries it (bindings' copies included), the duration `secs` (shown at
/// `region`) when nothing was known of it: a timeout's parameter or field valued once
/// its callers or writes are read.
pub(crate) fn value_unknown_arg(
    chains: &mut [ChainUse],
    step: usize,
    arg: usize,
    secs: f64,
    region: Region,
) {
    for cu in chains {
        for s in &mut cu.chain.steps {
            if s.region.offset == step
                && let Some(a) = s.args.get_mut(arg)
                && matches!(a, ArgValue::Other)
            {
                *a = ArgValue::Duration(secs, region);
            }
        }
    }
}

/// A chain at its outermost expression.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainUse {
    /// The chain.
    pub chain: Chain,
    /// What happens to its value.
    pub usage: Usage,
    /// Context.
    pub ctx: Ctx,
    /// The value, bound to a name, was later used as a plain value (moved, passed on,
    /// stored), not only through method calls.
    pub escapes: bool,
    /// Every call on the value is bounded: bound to a name, it was handed to a tower
    /// stack that bounds every call (`ServiceBuilder::new().layer(TimeoutLayer::new(d))
    /// .service(client)`), or it is a client made for one request whose future
    /// `timeout(d, ..)` bounds (akri's `timeout(d, hyper::Client::new().request(req))`).
    pub calls_bounded: bool,
}

/// A resolved path used as a value (not called) or as an attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct PathRef {
    /// Resolved path.
    pub path: Canon,
    /// Region.
    pub region: Region,
    /// Context.
    pub ctx: Ctx,
}

/// An out-of-line module declaration (`mod net;`), for following a binary's module tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModDecl {
    /// Inline modules enclosing the declaration, then the declared name.
    pub path: Vec<String>,
    /// A `#[path = ".."]` attribute.
    pub path_attr: Option<String>,
    /// Declared under `#[cfg(test)]` (or another test attribute): the file is test code.
    pub cfg_test: bool,
    /// Declared for WebAssembly only (`#[cfg(target_arch = "wasm32")]`): the file is not
    /// linted ([`crate::targetcode`]).
    pub wasm_only: bool,
    /// Declared for Windows only (`#[cfg(windows)] mod windows;`): the file's Ctrl-C
    /// handlers and servers are Windows's, which has no SIGTERM (`sigterm-missing`).
    pub windows_only: bool,
}

/// What a file declares that other files may ask about (the workspace model's input):
/// types of struct fields, return types of functions and methods, type aliases. Types are
/// resolved where they are declared and peeled of `&`, `Arc`, `Rc`, `Box`, `Option`,
/// `Result` (`Option<Arc<Runtime>>` is `tokio::runtime::Runtime`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decls {
    /// `(owner type, field name, field type)`.
    pub fields: Vec<(Canon, String, Canon)>,
    /// Functions and methods with a path return type.
    pub fns: Vec<FnDecl>,
    /// `type Name = Type;`: `(alias path, type)`.
    pub aliases: Vec<(Canon, Canon)>,
}

impl Decls {
    /// Adds what `other` declares that `self` does not (a field by owner and name, a
    /// function by path, an alias by path): `self`'s entries win.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::model::Decls;
    /// use shutdown_lint::resolve::split_path;
    /// let mut a = Decls::default();
    /// a.aliases.push((split_path("app::Rt"), split_path("tokio::runtime::Handle")));
    /// let mut b = a.clone();
    /// b.fields.push((split_path("app::W"), "rt".into(), split_path("app::Rt")));
    /// a.merge(b);
    /// assert_eq!((a.aliases.len(), a.fields.len()), (1, 1));
    /// ```
    pub fn merge(&mut self, other: Decls) {
        use std::collections::HashSet;
        let fields: HashSet<(Canon, String)> = self
            .fields
            .iter()
            .map(|(o, n, _)| (o.clone(), n.clone()))
            .collect();
        self.fields.extend(
            other
                .fields
                .into_iter()
                .filter(|(o, n, _)| !fields.contains(&(o.clone(), n.clone()))),
        );
        let fns: HashSet<Canon> = self.fns.iter().map(|f| f.path.clone()).collect();
        self.fns
            .extend(other.fns.into_iter().filter(|f| !fns.contains(&f.path)));
        let aliases: HashSet<Canon> = self.aliases.iter().map(|(p, _)| p.clone()).collect();
        self.aliases.extend(
            other
                .aliases
                .into_iter()
                .filter(|(p, _)| !aliases.contains(p)),
        );
    }
}

/// A function or method and its return type.
#[derive(Debug, Clone, PartialEq)]
pub struct FnDecl {
    /// Full path: `app::rt::current_handle`, or `app::Wrapper::handle` for a method.
    pub path: Canon,
    /// The `impl`'s type for a method or associated function.
    pub owner: Option<Canon>,
    /// Function name.
    pub name: String,
    /// Return type (peeled; `Self` replaced by the owner).
    pub ret: Canon,
    /// For a function returning an HTTP client builder whose body ends in a builder chain
    /// of a known library: that chain (root and steps), so a caller's `.build()` can be
    /// checked for a timeout the helper did or did not set.
    pub builder: Option<Chain>,
    /// For a function returning an HTTP client it builds from one of its parameters, a
    /// builder (`fn build_safe_client(b: ClientBuilder) -> reqwest::Result<Client> {
    /// b.redirect(..).build() }`): the parameter's index and the steps applied to it, so a
    /// caller that passes a builder is judged as if it built the client itself.
    pub builds_param: Option<(usize, Vec<Step>)>,
    /// For a function returning an HTTP client builder that is one of its parameters,
    /// handed back with no `.timeout(..)` anywhere in its body (`fn tls(&self, mut b:
    /// ClientBuilder) -> ClientBuilder { if self.insecure { b = b.danger_accept_invalid_certs(true); } b }`):
    /// that parameter's index, so the builder a caller passes in is still the caller's
    /// chain, without a timeout.
    pub returns_param: Option<usize>,
    /// Its body calls a `.timeout(..)` method with an argument: a builder wrapper's
    /// constructor or method that sets its wrapped builder's timeout (`ClientBuilder {
    /// inner: reqwest::Client::builder().timeout(d) }`).
    pub sets_timeout: bool,
}

/// A call written in a function body, by name (for call chains from `main`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Call {
    /// Last segment of the called path, or the method name.
    pub name: Box<str>,
    /// A method call (`x.name()`) or an associated function (`Type::name()`, `Self::name`);
    /// otherwise a free function (`name()`, `module::name()`) or a function passed by name.
    pub method: bool,
    /// The crate a free function's path resolves to (`shutdown_runtime` for
    /// `shutdown_runtime::run()` or an imported `run()`), when known.
    pub krate: Option<Box<str>>,
    /// Called with arguments (`graceful.watch(conn)`, not `config.watch()`).
    pub with_args: bool,
    /// For a method or associated function: the receiver's type, as its last path segment
    /// (`Scheduler` for `Scheduler::new(..)`, for `self.start()` in `impl Scheduler`, or for
    /// `s.start()` after `let s = http::Scheduler::new(..)`), when the file tells it; its
    /// crate is then [`Call::krate`] (`None`: the caller's).
    pub ty: Option<Box<str>>,
}

/// A function or method and the calls its body makes (closures and async blocks in it
/// included, nested items not).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FnNode {
    /// Item path, as in [`Ctx::item`] (`main`, `Server::run`, `net::connect`).
    pub item: String,
    /// Defined in an `impl` or `trait` block.
    pub method: bool,
    /// Distinct calls, sorted.
    pub calls: Calls,
    /// Methods of a known server's chain its body calls (`serve` of
    /// `Server::builder().add_service(s).serve(addr)`): its library's own, not in
    /// [`Self::calls`], and dropped from the calls read from the file's text when it was
    /// pruned (`crate::engine`'s walk for `sigterm-missing`).
    pub library_methods: Vec<Box<str>>,
}

/// Grace of `#[shutdown_runtime::main]` written without `grace = ".."`.
///
/// # Examples
///
/// ```
/// assert_eq!(shutdown_lint::model::MAIN_DEFAULT_GRACE.as_secs(), 30);
/// ```
pub const MAIN_DEFAULT_GRACE: std::time::Duration = std::time::Duration::from_secs(30);

/// What kind of shutdown budget a [`BudgetSite`] is.
///
/// # Examples
/// ```
/// use shutdown_lint::{analysis::analyze_source, config::Config, model::BudgetKind};
/// let src = "use std::time::Duration;\n\
///            fn f() { shutdown_runtime::Budgets::new(a, b, Duration::from_secs(60)); }";
/// let a = analyze_source("src/lib.rs".as_ref(), src, &Config::default());
/// assert_eq!(a.facts.budgets[0].kind, BudgetKind::BudgetsNew);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BudgetKind {
    /// `#[shutdown_runtime::main(grace = "..")]` (without `grace`: [`MAIN_DEFAULT_GRACE`]).
    MainAttribute,
    /// `Budgets::from_grace(grace)`.
    FromGrace,
    /// The `grace` argument of `Budgets::new(children, coordinator, grace)`.
    BudgetsNew,
}

/// A shutdown budget written in code with a value known at lint time (what
/// `cargo shutdown audit` compares with the deploy manifests' grace periods).
///
/// # Examples
/// ```
/// use shutdown_lint::{analysis::analyze_source, config::Config};
/// let src = "#[shutdown_runtime::main(grace = \"45s\")]\nasync fn main() {}\n";
/// let a = analyze_source("src/main.rs".as_ref(), src, &Config::default());
/// let site = &a.facts.budgets[0];
/// assert_eq!((site.duration.as_secs(), site.region.line, site.region.column), (45, 1, 34));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetSite {
    /// Which budget.
    pub kind: BudgetKind,
    /// Its value.
    pub duration: std::time::Duration,
    /// The grace string (main attribute), the attribute (its default), or the call.
    pub region: Region,
}

/// A request's timeout set through its accessor (`*req.timeout_mut() = Some(d);`, reqwest's
/// `Request`), with the duration known at lint time.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeoutSet {
    /// The duration, in seconds.
    pub secs: f64,
    /// Where the duration is written.
    pub region: Region,
    /// Context.
    pub ctx: Ctx,
}

/// Everything the rules need from one file.
#[derive(Debug, Clone, Default)]
pub struct FileModel {
    /// Outermost chains with a resolved root.
    pub chains: Vec<ChainUse>,
    /// Value paths that are not called, and fn attributes, when they are interesting.
    pub refs: Vec<PathRef>,
    /// Functions marked `#[drainable]`.
    pub drainable_fns: usize,
    /// A top-level `fn main` (the file is a binary root).
    pub has_main: bool,
    /// `mod x;` declarations.
    pub mod_decls: Vec<ModDecl>,
    /// Functions and what they call.
    pub fns: Vec<FnNode>,
    /// Macro invocations whose body did not parse as Rust (not analysed).
    pub macros_unanalysed: usize,
    /// The same, by macro name.
    pub unanalysed_by_name: std::collections::BTreeMap<String, usize>,
    /// Macro invocations whose body was parsed and analysed.
    pub macros_analysed: usize,
    /// Expressions skipped because they nest deeper than the walker's bound.
    pub too_deep: usize,
    /// Items skipped as test code.
    pub test_items_skipped: usize,
    /// Elementary name-resolution steps the walk took ([`crate::resolve::Resolver::ops`]).
    pub resolve_ops: u64,
    /// Declarations for the workspace model.
    pub decls: Decls,
    /// Shutdown budgets written in the file, in source order.
    pub budgets: Vec<BudgetSite>,
    /// Request timeouts set through `timeout_mut()`.
    pub timeout_sets: Vec<TimeoutSet>,
    /// The argument lists of calls that send a signal ([`crate::resolve::known::SIGNAL_SENDERS`]:
    /// `killpg(pgid, SIGINT)`, `child.send_signal(SIGTERM)`): a signal named there is sent
    /// to another process, not handled.
    pub signal_sends: Vec<Region>,
    /// Comparisons (`sig == SIGINT`, `assert_eq!(caught, SIGINT)`, `matches!(..)`): a
    /// Ctrl-C constant named there is no Ctrl-C site (the handler is installed elsewhere);
    /// a SIGTERM constant still counts as handling SIGTERM (`Signals::new(TERM_SIGNALS)`
    /// then `if sig == SIGTERM`).
    pub signal_compares: Vec<Region>,
    /// Byte offsets of the spawns of threads and tasks that wait for the process's signals
    /// (a signal-hook `Signals` iterated, `signal_handler(..)` called, a task whose future
    /// first awaits `ctrl_c()`): such a thread or task holds no work and only turns the
    /// signal into the program's own shutdown — no detached thread, no raw spawn to track
    /// ([`crate::collect::signal_listener`]).
    pub signal_listeners: Vec<usize>,
    /// Byte offsets of the spawns of tasks whose future holds no work
    /// (`tokio::spawn(std::future::pending())`, a stand-in handle for a part switched
    /// off), and of threads that only join another thread, wait for a child process or end
    /// the process after a delay: no raw spawn to track, no detached thread
    /// ([`crate::collect::idle_task`]).
    pub idle_tasks: Vec<usize>,
    /// Byte offsets of the spawns of tasks whose future a tokio-util `TaskTracker` tracks
    /// (`tokio::spawn(tracker.track_future(fut))`, what `TaskTracker::spawn` does): the
    /// tracker's `wait()` waits for them — a `TaskTracker` spawn, not a raw one.
    pub tracker_tasks: Vec<usize>,
    /// Byte offsets of the `TokioExecutor::new()` calls whose value, bound to a name, is
    /// given to an HTTP client's constructor (`let executor = TokioExecutor::new();` then
    /// `http2::handshake(executor, io)`): the client's connection tasks, not a server's.
    pub client_executors: Vec<usize>,
    /// Where the file's names carry an HTTP client (read only for a file that builds one,
    /// and not for a file streamed item by item).
    pub client_flow: Option<crate::collect::flow::ClientFlow>,
    /// Timeout arguments valued from elsewhere in the file (a parameter from its callers, a
    /// field from its writes), by the offset of the argument.
    pub arg_origins: Vec<ArgOrigin>,
    /// Timeout arguments reading a field the file never writes a known duration to
    /// (`.timeout(settings.timeout)`, the struct filled in by a config parser in another
    /// file): valued later from the writes of the workspace's other files.
    pub open_fields: Vec<OpenField>,
    /// Timeout arguments reading a parameter no call in the file passes a known value to:
    /// valued later from the workspace's other callers.
    pub open_params: Vec<OpenParam>,
    /// Timeout arguments reading a const another file declares: valued later from that
    /// declaration.
    pub open_consts: Vec<OpenConst>,
}

/// A field of a type, and how a timeout reads it: a duration, or a number of units
/// (`unit`: the bits of the seconds one unit is, `Duration::from_secs(x.f)`: 1.0).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FieldKey {
    /// The last segment of the field's type (`WebhookSettings`).
    pub owner: String,
    /// The field (`timeout`).
    pub field: String,
    /// `f64::to_bits` of the seconds one unit of the field is; `None`: a duration.
    pub unit: Option<u64>,
}

impl FieldKey {
    /// The seconds one unit of the field is, when it holds a number.
    pub fn factor(&self) -> Option<f64> {
        self.unit.map(f64::from_bits)
    }
}

/// What a file writes to the fields the workspace asks about ([`FieldKey`]s, by index).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldWrites {
    /// `(index, seconds, line)`: a known duration written to the field (or its default).
    pub values: Vec<(usize, f64, usize)>,
    /// `(index, field, line)`: the field is filled from a field of another type
    /// (`GetRequest { timeout: self.config.download.piece_timeout }`), whose own writes
    /// value it; the owner may name middle fields (`Piece.config.download`).
    pub forwards: Vec<(usize, FieldKey, usize)>,
    /// `(index, method, line)`: the field is filled from what a getter returns
    /// (`Upstream { timeout: config.get_timeout() }`), whose body, in whatever file of the
    /// workspace declares it, values it (`self.timeout.unwrap_or(60)`).
    pub getters: Vec<(usize, String, usize)>,
}

/// A timeout argument that reads a field of a known type whose writes are in other files.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenField {
    /// Byte offset of the step's method name (the step in every chain that carries it).
    pub step: usize,
    /// Position of the argument.
    pub arg: usize,
    /// The argument as written.
    pub region: Region,
    /// The last segment of the field's type (`WebhookSettings`).
    pub owner: String,
    /// The field (`timeout`).
    pub field: String,
    /// `Some(f)`: the field holds a number of units of `f` seconds
    /// (`Duration::from_secs(settings.timeout_secs)`); `None`: a duration.
    pub factor: Option<f64>,
    /// How a parameter's caller in another file passed the field, when the timeout reads
    /// a parameter (``passed by `Client::new(..)` on line 51 of src/status.rs``; see
    /// [`OpenParam`]); `None`: the timeout reads the field itself.
    pub passed: Option<String>,
    /// The file holding the timeout was read for this field's writes (false when a caller
    /// passed the field in, or the owner is a field's type found in another file).
    pub read_here: bool,
}

impl OpenField {
    /// The field and how it is read.
    pub fn key(&self) -> FieldKey {
        FieldKey {
            owner: self.owner.clone(),
            field: self.field.clone(),
            unit: self.factor.map(f64::to_bits),
        }
    }
}

/// A function's parameter, as its callers pass it: what a timeout reading the parameter is
/// valued from when no call in its own file passes a known value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ParamKey {
    /// The function (`new`).
    pub name: String,
    /// The last segment of the `impl`'s type, for a method or associated function (`Client`).
    pub owner: Option<String>,
    /// Whether the function takes `self`.
    pub receiver: bool,
    /// The parameter's position (receiver not counted).
    pub index: usize,
    /// The number of parameters (receiver not counted): a call passing another number is
    /// of another function.
    pub arity: usize,
    /// `f64::to_bits` of the seconds one unit of the parameter is; `None`: a duration.
    pub unit: Option<u64>,
}

impl ParamKey {
    /// The seconds one unit of the parameter is, when it holds a number.
    pub fn factor(&self) -> Option<f64> {
        self.unit.map(f64::from_bits)
    }

    /// What a calling file's text contains: `Owner::name(` for an associated function,
    /// `.name(` for a method, `name(` for a free function.
    pub fn needle(&self) -> String {
        match (&self.owner, self.receiver) {
            (_, true) => format!(".{}(", self.name),
            (Some(o), false) => format!("{o}::{}(", self.name),
            (None, false) => format!("{}(", self.name),
        }
    }
}

/// A timeout argument that reads a parameter no call in its own file passes a known value
/// to (`fn new(.., timeout: u64) { .. .timeout(Duration::from_secs(timeout)) }`, called from
/// other files): valued from what the workspace's callers pass (a duration, or a field of a
/// configuration struct, then valued from that field's writes).
#[derive(Debug, Clone, PartialEq)]
pub struct OpenParam {
    /// Byte offset of the step's method name (the step in every chain that carries it).
    pub step: usize,
    /// Position of the argument.
    pub arg: usize,
    /// The argument as written.
    pub region: Region,
    /// The parameter.
    pub key: ParamKey,
}

/// A timeout argument that reads a const declared in another file of the workspace
/// (`Duration::from_secs(REQUEST_TIMEOUT_SECS)` after `use super::REQUEST_TIMEOUT_SECS;`).
#[derive(Debug, Clone, PartialEq)]
pub struct OpenConst {
    /// Byte offset of the step's method name (the step in every chain that carries it).
    pub step: usize,
    /// Position of the argument.
    pub arg: usize,
    /// The argument as written.
    pub region: Region,
    /// The const's name.
    pub name: String,
    /// The path the name resolves to in the reading file.
    pub canon: Vec<String>,
    /// `Some(f)`: the const is a number of units of `f` seconds; `None`: a duration.
    pub factor: Option<f64>,
}

/// A numeric or duration const a file declares, or a function taking nothing that returns
/// one (what an [`OpenConst`] is valued from).
#[derive(Debug, Clone, PartialEq)]
pub struct ConstDecl {
    /// Its name.
    pub name: String,
    /// Its path from the crate root (`crate::storage::REQUEST_TIMEOUT_SECS`).
    pub path: Vec<String>,
    /// A duration (`value` in seconds), or a number.
    pub duration: bool,
    /// Its value.
    pub value: f64,
    /// Its line.
    pub line: usize,
    /// A function taking nothing whose body is that one value, not a `const`.
    pub function: bool,
}

/// What a call in another file passes to an [`OpenParam`]'s parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum PassedArg {
    /// A known number of seconds.
    Seconds(f64),
    /// A field of a typed binding (`settings.network_timeout` with `settings: &Settings`),
    /// read as a number of units of `FieldKey::unit` seconds (`settings.timeout * 10` with a
    /// parameter of seconds: 10.0), or as a duration.
    Field(FieldKey),
    /// A parameter of the calling function, passed on: valued from that function's callers.
    Param(ParamKey),
}

/// A client `http-no-timeout` reports that may still be harmless: it is passed to
/// functions of other files, which may bound every request they make on it.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenClient {
    /// The finding's region.
    pub region: Region,
    /// Byte offset of the chain's root (the key of the file's client flow).
    pub root: usize,
    /// The functions (by name) and argument positions it is passed to
    /// ([`crate::collect::flow::ClientFlow::timed_given`]); empty: bounded in its own file.
    pub outs: crate::collect::flow::PassOuts,
    /// The private fields holding it, when the file declares out-of-line modules: code in
    /// those modules' files may use them, so none of those files may name one (empty: no
    /// such field or module).
    pub child_fields: std::collections::BTreeSet<String>,
}

/// Where a timeout argument's value was found, when the argument is a parameter or a
/// field (`.timeout(timeout)`, valued from `Self::from_parts(.., Duration::from_secs(30))`).
#[derive(Debug, Clone, PartialEq)]
pub struct ArgOrigin {
    /// Byte offset of the argument.
    pub offset: usize,
    /// Where and how the value is passed or written (``passed by `Self::from_parts(..)` on
    /// line 12``, ``the field `timeout`, set on line 30``).
    pub via: String,
}

impl FileModel {
    /// Chains whose root is known (the rules' input); chains waiting for the workspace
    /// model ([`Chain::pending`]) are left out.
    pub fn resolved_chains(&self) -> impl Iterator<Item = &ChainUse> {
        self.chains.iter().filter(|cu| cu.chain.pending.is_none())
    }

    /// Whether the task or thread spawned at byte `offset` holds nothing for a drain to
    /// wait for: it waits for the process's signals ([`Self::signal_listeners`]), is a
    /// stand-in, or only waits for another thread or process ([`Self::idle_tasks`]).
    ///
    /// # Examples
    /// ```
    /// let mut m = shutdown_lint::model::FileModel::default();
    /// m.idle_tasks.push(7);
    /// assert!(m.spawns_no_work(7) && !m.spawns_no_work(8));
    /// ```
    pub fn spawns_no_work(&self, offset: usize) -> bool {
        self.signal_listeners.contains(&offset) || self.idle_tasks.contains(&offset)
    }
}
