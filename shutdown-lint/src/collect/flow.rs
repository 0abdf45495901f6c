//! Where an HTTP client built in a file goes, by name, for `http-no-timeout`: a client built
//! without an overall timeout is harmless when every request made on it sets its own
//! (`self.client.get(url).timeout(d)`), which can only be known if the client never leaves
//! the names the file can see.
//!
//! The pass reads the whole file again, as written (bodies the pruner blanked included,
//! test code too, marked: a test's request is not made in a deploy, so it counts only for
//! a test's own locals), and records by name each *occurrence* of a local or a field and
//! how it is used: the receiver of a request (`x.client.get(..)...timeout(..)`), stored
//! into a struct literal's field, called into a `let` (`let c = (self.make)()?;`),
//! printed by a `Debug` impl, or anything else. It also records each chain's *sink*
//! (`let N = chain`, `Struct { N: chain }`, the tail of a closure bound by `let N`), keyed
//! by the byte offset of the chain's root path. [`ClientFlow::per_request_timeouts`]
//! then follows the names from a chain's sink to a fixed point. Anything it does not
//! recognise counts against the client: when in doubt, the rule reports.

use std::collections::{BTreeMap, BTreeSet};
use syn::visit::{self, Visit};

/// Methods of a client that start a request.
pub(crate) const REQUEST_METHODS: &[&str] = &[
    "get",
    "post",
    "put",
    "patch",
    "delete",
    "head",
    "request",
    // hyper's connection-level client (`SendRequest`, from `handshake`)
    "send_request",
];
/// Methods that send a prepared request.
pub(crate) const SEND_METHODS: &[&str] = &["send", "execute"];
/// Whether method `m` starts or sends a request ([`REQUEST_METHODS`], [`SEND_METHODS`]):
/// a chain through it holds a request or a response, not the client.
pub(crate) fn is_request_step(m: &str) -> bool {
    REQUEST_METHODS.contains(&m) || SEND_METHODS.contains(&m)
}

/// Methods of a `Result` that keep its `Ok` value as it is (`.context(..)?`).
const OK_KEEPING: &[&str] = &["context", "with_context", "map_err", "expect", "unwrap"];

/// How one occurrence of a name is used.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Use {
    /// The receiver of a request (`get`, `post`, ... `request`); `true` when the request
    /// sets `.timeout(..)` before it is sent, is the future a `tokio::time::timeout(d, ..)`
    /// bounds, or is made where an optional timeout is unset (the `else` of
    /// `if let Some(d) = .. { timeout(d, ..) }`: the configuration chose no timeout).
    Request(bool),
    /// Stored into the struct literal field of that name (`S { client }`, `S { f: client }`).
    Store(String),
    /// Called, its `Ok` value bound to that name (`let c = (self.make)()?;`).
    CallInto(String),
    /// Printed by a `Debug` impl (`f.debug_struct(..).field("c", client)`).
    Debug,
    /// A builder's method whose value is assigned back to it (`b = b.tls_info(true);`):
    /// the name still holds the same builder.
    Rebind,
    /// Built into the value bound to that name (`let client = b.build()?;`).
    Build(String),
    /// Passed as argument number `.1` of the file's function `.0` (`fetch(&self.client,
    /// url)`): its parameter holds the client there.
    PassTo(String, usize),
    /// Passed to the file's method or associated function `.0` as its parameter number
    /// `.1`, the receiver not counted (`self.service(client)`,
    /// `Self::check_server_health(&client)`; `Type::method` for a method called on a
    /// parameter of that type, `request.into_future(client)`): that parameter holds the
    /// client there (a method's locals are read with the whole file's uses).
    PassToMethod(String, usize),
    /// Passed as argument number `.1` of a free function `.0` this file does not declare
    /// (`check_nodes_status(&client)` after `use infra::cluster::*`), by the last segment
    /// of its path: harmless when that function, declared in another file of the
    /// workspace, bounds every request it makes on its parameter
    /// ([`ClientFlow::param_timed`]); also `Type::f` of a type another file declares
    /// (`RelayClient::new(url, client, timeout)`, [`ClientFlow::owned_param_timed`]). `.2`:
    /// the crate the path says it is in — its first segment (`crate`, `infra`; a module the
    /// file declares or imports is its crate's), or that of the `use` naming it; `None` when
    /// only a glob import can bring it.
    PassOut(String, usize, Option<String>),
    /// Sends the prepared request bound to that name (`client.execute(req)`, where `let
    /// req = client.get(u).timeout(d).build()?;`).
    Execute(String),
    /// The name holds a request being built (`let mut rb = client.post(u).body(b);`) and
    /// this sends it (`rb.timeout(d).send()`); `true` when a timeout is set before the send
    /// or a `tokio::time::timeout(d, ..)` bounds it. A request bound that way is timed when
    /// every use of the name is a timed send or a builder step assigned back to it
    /// (pingap's `builder = builder.basic_auth(..)` before `builder.timeout(d).send()`).
    Send(bool),
    /// Its value (or a clone) bound to that name: `let c = self.client.clone();`, or an arm
    /// of the `match` or `if` a `let` binds (`let c = match .. { .. => self.client.clone(),
    /// .. }`).
    Copy(String),
    /// Handed to a stack whose every call a timeout layer bounds, in one chain
    /// (`op.layer(TimeoutLayer::new()).layer(HttpClientLayer::new(HttpClient::with(c)))`,
    /// opendal; tower's `ServiceBuilder::new().layer(timeout).service(c)`, the layer made
    /// in the chain or bound by a `let` of the function): counts as a request with a
    /// timeout.
    Layered,
    /// The value its free function returns, as it is or built (`builder.build().expect(..)`
    /// as the body's tail): it goes where each call of that function goes
    /// ([`ClientFlow::fn_calls`]).
    Return,
    /// Anything else: passed on, returned, borrowed, cloned, another method.
    Other,
}

/// Where a chain's value goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sink {
    /// `let N = chain;` (`?`, `.await` and methods in the chain), in the body of that free
    /// function (`None`: in a method), or of the method of that index
    /// ([`ClientFlow::use_bodies`]).
    Let(String, Option<String>, Option<usize>),
    /// `Struct { N: chain }`.
    Field(String),
    /// The value of a closure bound by `let N = || chain` (or `Box::new(..)`/`Arc::new(..)`).
    Closure(String),
    /// The tail of the private free function of that name (`fn make_client() -> Client {
    /// Client::builder()..build().unwrap() }`): where each call of it goes.
    Return(String),
}

/// The file's names, how each occurrence is used, and where chains go.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientFlow {
    /// Every occurrence of a name the pass could classify or not, by name.
    pub uses: BTreeMap<String, Vec<Use>>,
    /// For each entry of [`Self::uses`], at the same index: the free function whose body
    /// holds it (`None` in a method, a `static` or a `const`).
    pub use_fns: BTreeMap<String, Vec<Option<String>>>,
    /// For each entry of [`Self::uses`], at the same index: the function of an `impl` whose
    /// body holds it, by its order in the file (`None` outside one, and in a free function
    /// declared in one): a method's local is used only there (PinePods' methods each
    /// making `let client = reqwest::Client::new();`, one bounding its request by
    /// `timeout(d, ..)` while another passes its own to a helper that does not).
    pub use_bodies: BTreeMap<String, Vec<Option<usize>>>,
    /// For each entry of [`Self::uses`], at the same index: whether it is in test code
    /// (`#[cfg(test)]`, `#[test]`). A test's request is not made in a deploy: it counts
    /// only for a local of that test, not for a field or a name of the whole file.
    pub use_tests: BTreeMap<String, Vec<bool>>,
    /// For each entry of [`Self::uses`], at the same index: whether it is written as a
    /// field (`self.client`, `x.client`). A function's local or parameter is never one: a
    /// method's `let client = CELL.get_or_init(..)` is not the `self.client` beside it
    /// (jmap-matrix-bridge's upload sending on its own client, timed, and reading its
    /// struct's field `client` for the timeout).
    pub use_fields: BTreeMap<String, Vec<bool>>,
    /// For each entry of [`Self::uses`], at the same index: whether the name is a
    /// parameter of the function or method whose body holds it (`async fn run(client:
    /// Callback)` beside a struct's field `client`): never a use of the field of that name.
    pub use_params: BTreeMap<String, Vec<bool>>,
    /// Sinks by the byte offset of the chain's root path.
    pub sinks: BTreeMap<usize, Sink>,
    /// Names of struct fields declared with any `pub` visibility.
    pub pub_fields: BTreeSet<String>,
    /// The file declares an out-of-line module (`mod x;`): code this pass does not read
    /// may see its private fields (not its locals).
    pub child_files: bool,
    /// The file includes a file (`include!`): code this pass does not read may see its
    /// locals too.
    pub includes: bool,
    /// The parameter names of the file's free functions, by function name (`None` for a
    /// name declared twice, or a parameter that is not a plain name).
    pub fn_params: BTreeMap<String, Option<Vec<Option<String>>>>,
    /// The same for the functions of the file's `impl`s, by name: whether it takes
    /// `self`, and its other parameters.
    pub method_params: BTreeMap<String, Option<ImplFnParams>>,
    /// The same for the functions of the file's inherent `impl`s by `Type::name` (the
    /// last segment of the `impl`'s type): a method called on a parameter of that type
    /// ([`Use::PassToMethod`]).
    pub owned_method_params: BTreeMap<String, Option<ImplFnParams>>,
    /// Names bound to a prepared request (`let req = client.get(u)...build()?;`), and
    /// whether each such binding set `.timeout(..)`.
    pub prepared: BTreeMap<String, Vec<bool>>,
    /// For a name an untimed request is made on, the names its futures are bound to
    /// (`let fut = client.request(req);`): the request is timed when the file passes that
    /// name to `timeout(d, ..)`.
    pub futures: BTreeMap<String, BTreeSet<String>>,
    /// The private free functions that production code only calls inside `timeout(d,
    /// ..)`: the requests made in them count as timed.
    pub bounded_fns: BTreeSet<String>,
    /// The private free functions declared once: those [`Self::bounded_fns`] may hold.
    pub boundable_fns: BTreeSet<String>,
    /// For each entry of [`Self::uses`], at the same index: the private method of an
    /// inherent `impl` whose body holds it, when it is one of [`Self::boundable_methods`].
    pub use_methods: BTreeMap<String, Vec<Option<String>>>,
    /// The private methods of the file's inherent `impl`s declared once (no other `impl`
    /// of the file declares a function of that name), in a file without out-of-line child
    /// modules: those [`Self::bounded_methods`] may hold.
    pub boundable_methods: BTreeSet<String>,
    /// Of [`Self::boundable_methods`], those production code only calls inside
    /// `timeout(d, ..)` (`timeout(ttl, self.do_send(uri, req))`, or `let fut =
    /// self.do_send(..); timeout(ttl, fut)`): the requests made in them count as timed.
    pub bounded_methods: BTreeSet<String>,
    /// For each private free function declared once, the byte offsets of the paths of its
    /// calls (`make_client(t)`), each a [`Self::sinks`] key when the call's value goes to a
    /// name: where a client it returns goes ([`Use::Return`], [`Sink::Return`]).
    pub fn_calls: BTreeMap<String, Vec<usize>>,
    /// Read from the bodies that may hold what the verdicts of the file's own clients read
    /// ([`crate::prune::FnBodies::unnamed`] dropped the others): it answers for those
    /// clients' chains, not for a chain the workspace types later.
    pub partial: bool,
    /// Of [`Self::boundable_methods`], those the whole file, read as text, may call
    /// inside `timeout(d, ..)` ([`may_be_timed_call`]); `None`: not asked, every one may.
    /// Whether a method is bounded depends on every mention of it, which a partial read
    /// keeps only when asked to: it is asked only for these.
    pub timeable_methods: Option<BTreeSet<String>>,
    /// The same for [`Self::boundable_fns`] ([`may_be_timed_fn_call`]): the callers whose
    /// mentions are read for a function a request is made in ([`Self::callers`]).
    pub timeable_fns: Option<BTreeSet<String>>,
    /// For each private free function and boundable method mentioned outside
    /// `timeout(d, ..)`, the functions and methods whose bodies mention it: whether it is
    /// bounded may depend on whether they are ([`Self::bounded_fns`]), so their mentions
    /// are read too.
    pub callers: BTreeMap<String, BTreeSet<String>>,
}

/// A function of an `impl`: whether it takes `self`, and the names of its other
/// parameters (`None` for one that is not a plain name).
pub type ImplFnParams = (bool, Vec<Option<String>>);

/// Functions declared in other files that a client is passed to — by name, the argument
/// it is, and the crate its path names ([`Use::PassOut`]): what
/// [`ClientFlow::timed_given`] needs to hold for every request to be bounded.
pub type PassOuts = BTreeSet<(String, usize, Option<String>)>;

impl ClientFlow {
    /// Whether the value of the chain whose root path starts at byte `root` only reaches
    /// private fields and locals of this file whose every request sets `.timeout(..)`
    /// (at least one request, no `pub` field of those names, no child module file when a
    /// field holds it).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::collect::flow::summarize;
    /// let src = "struct A { c: reqwest::Client }\n\
    ///            impl A {\n\
    ///              fn new() -> Self { let c = reqwest::Client::new(); A { c } }\n\
    ///              fn go(&self) { let _ = self.c.get(\"u\").timeout(D).send(); }\n\
    ///            }\n";
    /// let flow = summarize(src).unwrap();
    /// let root = src.find("reqwest::Client::new").unwrap();
    /// assert!(flow.per_request_timeouts(root));
    /// ```
    pub fn per_request_timeouts(&self, root: usize) -> bool {
        self.timed_given(root).is_some_and(|outs| outs.is_empty())
    }

    /// [`Self::per_request_timeouts`], also through functions of other files: `Some` of
    /// the functions the client is passed to (empty: bounded here), each of which must
    /// bound every request on that parameter ([`Self::param_timed`] of its file); `None`
    /// when some use is unbounded or unknown.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::collect::flow::summarize;
    /// let src = "fn run() { let c = reqwest::Client::new(); check(&c); }";
    /// let flow = summarize(src).unwrap();
    /// let root = src.find("reqwest").unwrap();
    /// let outs = flow.timed_given(root).unwrap();
    /// assert_eq!(outs.into_iter().collect::<Vec<_>>(), [("check".to_string(), 0, None)]);
    /// assert!(!flow.per_request_timeouts(root));
    /// ```
    pub fn timed_given(&self, root: usize) -> Option<PassOuts> {
        self.timed_from(self.start(root)?)
    }

    /// Where the value of the chain whose root path starts at byte `root` goes first.
    fn start(&self, root: usize) -> Option<Reach> {
        let mut start = Reach::default();
        match self.sinks.get(&root)? {
            Sink::Return(f) => self.returned_to(f, &mut start)?,
            sink => {
                start.add(sink);
            }
        }
        Some(start)
    }

    /// `reach` with the names the calls of function `f` bind its value to; `None` when a
    /// call's value goes anywhere else, or nothing calls it.
    fn returned_to(&self, f: &str, reach: &mut Reach) -> Option<()> {
        let calls = self.fn_calls.get(f).filter(|c| !c.is_empty())?;
        for c in calls {
            reach.add(self.sinks.get(c)?).then_some(())?;
        }
        Some(())
    }

    /// [`Self::timed_given`] as far as this file tells: `Some` of the functions the client
    /// is passed to and the fields holding it that code in the files of the file's
    /// out-of-line child modules (`mod config;`) could use (empty: none, or no such
    /// module); the client is bounded when those files name none of them.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::collect::flow::summarize;
    /// let src = "mod config;\n\
    ///            struct S { client: reqwest::Client }\n\
    ///            impl S {\n\
    ///              fn new() -> Self { S { client: reqwest::Client::new() } }\n\
    ///              async fn go(&self) { let _ = tokio::time::timeout(D, self.client.get(u).send()).await; }\n\
    ///            }\n";
    /// let flow = summarize(src).unwrap();
    /// let root = src.find("reqwest::Client::new").unwrap();
    /// assert_eq!(flow.timed_given(root), None);
    /// let (outs, fields) = flow.timed_given_beside_children(root).unwrap();
    /// assert!(outs.is_empty());
    /// assert_eq!(fields.into_iter().collect::<Vec<_>>(), ["client"]);
    /// ```
    pub fn timed_given_beside_children(&self, root: usize) -> Option<(PassOuts, BTreeSet<String>)> {
        self.timed_from_beside_children(self.start(root)?)
    }

    /// Whether the free function `f` of this file bounds every request it makes on its
    /// parameter number `i` (a plain name), in its own body and the functions it passes
    /// the parameter to: as [`Self::timed_given`].
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::collect::flow::summarize;
    /// let flow = summarize(
    ///     "pub async fn check(c: &Client) { c.get(u).timeout(d).send().await; }\n\
    ///      fn other(c: &Client) { c.get(u).send(); }",
    /// )
    /// .unwrap();
    /// assert_eq!(flow.param_timed("check", 0).map(|o| o.len()), Some(0));
    /// assert_eq!(flow.param_timed("other", 0), None);
    /// ```
    pub fn param_timed(&self, f: &str, i: usize) -> Option<PassOuts> {
        let param = self.fn_params.get(f)?.as_ref()?.get(i)?.clone()?;
        let mut start = Reach::default();
        start.clients.insert((Some(f.to_string()), param, None));
        self.timed_from(start)
    }

    /// [`Self::param_timed`] for a function of one of the file's inherent `impl`s, by its
    /// `Type::name` key ([`Self::owned_method_params`]), the receiver not counted: a
    /// constructor that keeps the client in a private field whose every request sets
    /// `.timeout(..)` (pkarr's `RelayClient::new(url, client, timeout)`).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::collect::flow::summarize;
    /// let flow = summarize(
    ///     "pub struct Relay { client: Client, timeout: Duration }\n\
    ///      impl Relay {\n\
    ///        pub fn new(client: Client, timeout: Duration) -> Self { Self { client, timeout } }\n\
    ///        pub async fn get(&self) { self.client.get(u).timeout(self.timeout).send().await; }\n\
    ///      }",
    /// )
    /// .unwrap();
    /// assert_eq!(flow.owned_param_timed("Relay::new", 0).map(|o| o.len()), Some(0));
    /// assert_eq!(flow.owned_param_timed("Relay::new", 1).map(|o| o.len()), None);
    /// // the caller's side: passed to `Relay::new` of this crate (a module the file declares)
    /// let src = "mod relay;\nfn f() { let c = reqwest::Client::new(); relay::Relay::new(c); }";
    /// let caller = summarize(src).unwrap();
    /// let outs = caller.timed_given(src.find("reqwest").unwrap()).unwrap();
    /// let want = [("Relay::new".to_string(), 0, Some("crate".to_string()))];
    /// assert_eq!(outs.into_iter().collect::<Vec<_>>(), want);
    /// ```
    pub fn owned_param_timed(&self, key: &str, i: usize) -> Option<PassOuts> {
        let (_, params) = self.owned_method_params.get(key)?.as_ref()?;
        let param = params.get(i)?.clone()?;
        let mut start = Reach::default();
        start.clients.insert((None, param, None));
        self.timed_from(start)
    }

    /// Tells `read` of `name` (its occurrences count where `scope` says), the functions of
    /// [`Self::boundable_fns`] holding its untimed requests or of [`Self::bounded_fns`]
    /// holding its occurrences (whether a function is bounded depends on every mention of it outside
    /// test code) and the names its request futures are bound to.
    fn read_name(&self, scope: &Option<String>, name: &str, read: &mut dyn FnMut(NameRead<'_>)) {
        read(match scope {
            Some(f) => NameRead::InFn(f, name),
            None => NameRead::OutsideTests(name),
        });
        let fns = self.use_fns.get(name).into_iter().flatten();
        for (u, f) in self.uses.get(name).into_iter().flatten().zip(fns) {
            if let Some(f) = f
                && ((*u == Use::Request(false) && self.boundable_fns.contains(f))
                    || self.bounded_fns.contains(f))
            {
                read(NameRead::OutsideTests(f));
            }
        }
        let methods = self.use_methods.get(name).into_iter().flatten();
        let mut held: Vec<&str> = Vec::new();
        for (u, m) in self.uses.get(name).into_iter().flatten().zip(methods) {
            if let Some(m) = m
                && (*u == Use::Request(false) || self.bounded_methods.contains(m))
                && self.timeable_methods.as_ref().is_none_or(|t| t.contains(m))
            {
                read(NameRead::OutsideTests(m));
                held.push(m);
            }
        }
        let fns = self.use_fns.get(name).into_iter().flatten();
        held.extend(
            fns.flatten()
                .filter(|f| self.boundable_fns.contains(*f))
                .map(String::as_str),
        );
        // and the mentions of the functions those are called from, caller after caller:
        // a request two calls below a `timeout(d, ..)` is bounded by it
        let mut seen: BTreeSet<&str> = held.iter().copied().collect();
        while let Some(callee) = held.pop() {
            for c in self.callers.get(callee).into_iter().flatten() {
                let boundable = (self.boundable_fns.contains(c)
                    && self.timeable_fns.as_ref().is_none_or(|t| t.contains(c)))
                    || (self.boundable_methods.contains(c)
                        && self.timeable_methods.as_ref().is_none_or(|t| t.contains(c)));
                if boundable && seen.insert(c) {
                    read(NameRead::OutsideTests(c));
                    held.push(c);
                }
            }
        }
        for fut in self.futures.get(name).into_iter().flatten() {
            read(NameRead::Anywhere(fut));
        }
    }

    /// The free functions whose value is the name `n` ([`Use::Return`]); `None` when one
    /// such use is not in a free function.
    fn returning_fns(&self, n: &str) -> Option<Vec<String>> {
        let fns = self.use_fns.get(n)?;
        self.uses
            .get(n)?
            .iter()
            .zip(fns)
            .filter(|(u, _)| **u == Use::Return)
            .map(|(_, f)| f.clone())
            .collect()
    }

    /// The uses of a name, of one free function's body (`f`), one method's (`body`) or of
    /// the whole file — outside test code, but for a local of a test function (all of
    /// whose uses are test code): a production function's statement built only for tests
    /// or WebAssembly (`#[cfg(target_family = "wasm")] let res = req.send().await?;`) is not
    /// one of its uses. The whole file's uses (a field's) leave out those in a free
    /// function that takes a parameter of that name: there the name is the parameter
    /// (snuba's `fn clickhouse_task_runner(client: Arc<ClickhouseClient>, ..)` sending on
    /// its own `client`, beside a struct whose field `client` holds the HTTP client).
    fn uses_in<'a>(
        &'a self,
        f: &'a Option<String>,
        n: &str,
        body: Option<usize>,
    ) -> impl Iterator<Item = &'a Use> {
        self.uses_at(f, n, body, false).map(|(_, u)| u)
    }

    /// The function and the `impl` function's body an occurrence of `n` is in, by its
    /// index among the occurrences ([`Self::uses_at`]).
    fn use_scope(&self, n: &str, k: usize) -> (Option<String>, Option<usize>) {
        let f = self
            .use_fns
            .get(n)
            .and_then(|fs| fs.get(k))
            .cloned()
            .flatten();
        let body = self
            .use_bodies
            .get(n)
            .and_then(|bs| bs.get(k))
            .copied()
            .flatten();
        (f, body)
    }

    /// [`Self::uses_in`], each use with its index among the occurrences of `n`; `as_field`:
    /// `n` is a field's name, never a parameter a function or method takes ([`Self::use_params`]).
    fn uses_at<'a>(
        &'a self,
        f: &'a Option<String>,
        n: &str,
        body: Option<usize>,
        as_field: bool,
    ) -> impl Iterator<Item = (usize, &'a Use)> {
        let fns = self.use_fns.get(n);
        let bodies = self.use_bodies.get(n);
        let tests = self.use_tests.get(n);
        let in_f = move |k: usize| match (f, body) {
            (Some(_), _) => fns.and_then(|fs| fs.get(k)).is_some_and(|g| g == f),
            (None, Some(b)) => bodies
                .and_then(|bs| bs.get(k))
                .is_some_and(|c| *c == Some(b)),
            (None, None) => true,
        };
        let test = move |k: usize| tests.and_then(|t| t.get(k)).is_some_and(|t| *t);
        let fields = self.use_fields.get(n);
        let field = move |k: usize| fields.and_then(|t| t.get(k)).is_some_and(|t| *t);
        let len = self.uses.get(n).map_or(0, Vec::len);
        let whole_file = f.is_none() && body.is_none();
        // a function with a use outside test code is not a test
        let production = whole_file || (0..len).any(|k| in_f(k) && !test(k));
        let params = self.use_params.get(n).filter(|_| as_field);
        let of_param = move |k: usize| {
            params.and_then(|p| p.get(k)).is_some_and(|p| *p)
                || fns
                    .and_then(|fs| fs.get(k))
                    .and_then(Option::as_ref)
                    .and_then(|g| self.fn_params.get(g))
                    .and_then(Option::as_ref)
                    .is_some_and(|params| params.iter().any(|p| p.as_deref() == Some(n)))
        };
        self.uses
            .get(n)
            .into_iter()
            .flatten()
            .enumerate()
            .filter(move |(k, _)| {
                (if whole_file {
                    !of_param(*k)
                } else {
                    in_f(*k) && !field(*k)
                }) && !(production && test(*k))
            })
    }

    /// Follows the names from `reach` to a fixed point.
    fn timed_from(&self, reach: Reach) -> Option<PassOuts> {
        let (outs, fields) = self.timed_from_beside_children(reach)?;
        (fields.is_empty() || !self.child_files).then_some(outs)
    }

    /// Every name whose occurrences [`Self::timed_given`] of the chains whose root paths
    /// start at `roots` reads, with where they count ([`FlowNames`]): the locals, fields,
    /// parameters and closures the clients reach, the prepared requests and request
    /// futures of those names, and the free functions holding their untimed requests
    /// (whether a function is only called inside `timeout(d, ..)` counts every mention of
    /// it). A read of the file that keeps every body holding such an occurrence gives those
    /// chains the answer the whole file gives.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::collect::flow::summarize;
    /// let src = "fn run() { let c = reqwest::Client::new(); let d = c.clone(); go(&d); }\n\
    ///            fn go(h: &Client) { h.get(u).send(); }";
    /// let flow = summarize(src).unwrap();
    /// let names = flow.names_read(&[src.find("reqwest").unwrap()]);
    /// // the locals of `run` and `go` count in their bodies
    /// assert_eq!(names.fns.into_iter().collect::<Vec<_>>(), ["go", "run"]);
    /// // `go` makes an untimed request on `h`: whether it is bounded depends on its callers,
    /// // and whether `run`, which calls it, is bounded on `run`'s
    /// assert_eq!(names.outside_tests.into_iter().collect::<Vec<_>>(), ["go", "run"]);
    /// assert!(names.anywhere.is_empty());
    /// ```
    pub fn names_read(&self, roots: &[usize]) -> FlowNames {
        let mut names = FlowNames::default();
        for &root in roots {
            // a client a private function returns goes where its calls go: the bodies
            // calling it are read (and the first read, which kept only the function's,
            // saw none of them)
            if let Some(Sink::Return(f)) = self.sinks.get(&root) {
                names.insert(NameRead::OutsideTests(f));
            }
            if let Some(start) = self.start(root) {
                let _ = self.follow(start, &mut |n| names.insert(n));
            }
        }
        names
    }

    /// [`Self::timed_from`] as far as this file tells: also the fields holding the client
    /// when the file declares out-of-line modules, whose files may use them.
    fn timed_from_beside_children(&self, reach: Reach) -> Option<(PassOuts, BTreeSet<String>)> {
        self.follow(reach, &mut |_| {})
    }

    /// [`Self::timed_from_beside_children`], telling `read` each name whose occurrences it
    /// reads ([`Self::names_read`]).
    fn follow(
        &self,
        mut reach: Reach,
        read: &mut dyn FnMut(NameRead<'_>),
    ) -> Option<(PassOuts, BTreeSet<String>)> {
        if self.includes {
            return None;
        }
        let mut requests = 0;
        let mut outs = PassOuts::new();
        let mut seen = (0, 0);
        while seen != (reach.clients.len(), reach.makers.len()) {
            seen = (reach.clients.len(), reach.makers.len());
            requests = 0;
            for (scope, name, body) in reach.clients.clone() {
                self.read_name(&scope, &name, read);
                // a field's name: not where a method's parameter of that name is used
                let field = reach.fields.contains(&name) && !reach.params.contains(&name);
                for (k, u) in self.uses_at(&scope, &name, body, field) {
                    match u {
                        // a request sent from where it was bound (`let rb =
                        // Client::new().post(u).json(&b); timeout(d, rb.send())`)
                        Use::Request(true) | Use::Send(true) => requests += 1,
                        Use::Execute(req) => {
                            read(NameRead::Anywhere(req));
                            // every binding of that name is a request with its own timeout
                            match self.prepared.get(req) {
                                Some(timed) if timed.iter().all(|t| *t) => requests += 1,
                                _ => return None,
                            }
                        }
                        Use::Layered => requests += 1,
                        Use::Debug | Use::Rebind => {}
                        Use::Store(f) => {
                            reach.fields.insert(f.clone());
                            reach.clients.insert((None, f.clone(), None));
                        }
                        // a local bound in a function: its uses there (a private
                        // static's `let client = CELL.get_or_init(..);` is not the field
                        // `self.client` other functions use)
                        Use::Build(f) | Use::Copy(f) if scope.is_none() && body.is_none() => {
                            let (g, b) = self.use_scope(&name, k);
                            reach.clients.insert((g, f.clone(), b));
                        }
                        Use::Build(f) | Use::Copy(f) => {
                            reach.clients.insert((scope.clone(), f.clone(), body));
                        }
                        Use::PassTo(f, i) => {
                            let param = self.fn_params.get(f)?.as_ref()?.get(*i)?.clone()?;
                            reach.clients.insert((Some(f.clone()), param, None));
                        }
                        Use::PassToMethod(f, i) => {
                            let (_, params) = self
                                .method_params
                                .get(f)
                                .or_else(|| self.owned_method_params.get(f))?
                                .as_ref()?;
                            let param = params.get(*i)?.clone()?;
                            reach.params.insert(param.clone());
                            reach.clients.insert((None, param, None));
                        }
                        Use::PassOut(f, i, krate) => {
                            outs.insert((f.clone(), *i, krate.clone()));
                        }
                        // the function's value: where its calls go (read where it is named)
                        // (of a private static, read from every function: the one that
                        // returns it, `fn client() -> &'static Client { CLIENT.get_or_init(..) }`)
                        Use::Return => {
                            let fns = match &scope {
                                Some(f) => vec![f.clone()],
                                None => self.returning_fns(&name)?,
                            };
                            for f in &fns {
                                read(NameRead::OutsideTests(f));
                                self.returned_to(f, &mut reach)?;
                            }
                        }
                        _ => return None,
                    }
                }
            }
            for name in reach.makers.clone() {
                // a closure's every use counts, test code's too
                read(NameRead::Anywhere(&name));
                self.read_name(&None, &name, read);
                for u in self.uses.get(&name).into_iter().flatten() {
                    match u {
                        Use::CallInto(n) => {
                            reach.clients.insert((None, n.clone(), None));
                        }
                        Use::Store(f) => {
                            reach.fields.insert(f.clone());
                            reach.makers.insert(f.clone());
                        }
                        _ => return None,
                    }
                }
            }
        }
        let names: BTreeSet<&String> = reach.clients.iter().map(|(_, n, _)| n).collect();
        // a name of the whole file may be a public field's (code elsewhere may use it); a
        // function's local or parameter is that function's, whatever fields are named
        let private = reach
            .clients
            .iter()
            .filter(|(f, _, body)| f.is_none() && body.is_none())
            .map(|(_, n, _)| n)
            .chain(&reach.makers)
            .all(|n| !self.pub_fields.contains(n));
        let ok = (requests > 0 || !outs.is_empty())
            && reach.makers.iter().all(|m| !names.contains(m))
            && private;
        let fields = if self.child_files {
            reach.fields
        } else {
            BTreeSet::new()
        };
        ok.then_some((outs, fields))
    }
}

/// A name [`ClientFlow::names_read`] reads, by where its occurrences count.
#[derive(Debug, Clone, Copy)]
enum NameRead<'a> {
    /// Every occurrence of the name.
    Anywhere(&'a str),
    /// Its occurrences outside test code.
    OutsideTests(&'a str),
    /// The occurrences in the body of this free function (`.0`) of a local or parameter
    /// of it (`.1`).
    InFn(&'a str, &'a str),
}

/// The names [`ClientFlow::names_read`] reads: a function body holds an occurrence the
/// answer depends on only when it names one of [`Self::anywhere`], or one of
/// [`Self::outside_tests`] and is not test code, or is (or holds, or calls) one of
/// [`Self::fns`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlowNames {
    /// Names whose every occurrence counts (closures, prepared requests, futures).
    pub anywhere: BTreeSet<String>,
    /// Names whose occurrences outside test code count (fields, a method's locals, the
    /// functions whose mentions decide whether they are bounded).
    pub outside_tests: BTreeSet<String>,
    /// Free functions whose locals are followed.
    pub fns: BTreeSet<String>,
    /// The locals and parameters followed in those functions (a body of one of
    /// [`Self::fns`] holds what counts in the statements naming one of them).
    pub locals: BTreeSet<String>,
}

impl FlowNames {
    fn insert(&mut self, n: NameRead<'_>) {
        let (set, name) = match n {
            NameRead::Anywhere(n) => (&mut self.anywhere, n),
            NameRead::OutsideTests(n) => (&mut self.outside_tests, n),
            NameRead::InFn(f, local) => {
                if !self.locals.contains(local) {
                    self.locals.insert(local.to_string());
                }
                (&mut self.fns, f)
            }
        };
        if !set.contains(name) {
            set.insert(name.to_string());
        }
    }

    /// Whether every name of `self` is in `other`, counted as widely there.
    pub fn within(&self, other: &FlowNames) -> bool {
        self.anywhere.is_subset(&other.anywhere)
            && self.outside_tests.is_subset(&other.outside_tests)
            && self.fns.is_subset(&other.fns)
            && self.locals.is_subset(&other.locals)
    }

    /// Adds the names of `other`.
    pub fn extend(&mut self, other: FlowNames) {
        self.anywhere.extend(other.anywhere);
        self.outside_tests.extend(other.outside_tests);
        self.fns.extend(other.fns);
        self.locals.extend(other.locals);
    }
}

/// The names a client reaches: locals and fields holding it (each with the function
/// whose body is read for it, `None`: the whole file) and names of closures that make it.
#[derive(Default)]
struct Reach {
    /// Names holding the client: where their uses count (a free function's body, the
    /// whole file, or with a method's index only that method's body), and the name.
    clients: BTreeSet<(Option<String>, String, Option<usize>)>,
    /// The parameters of methods it is passed to (read over the whole file).
    params: BTreeSet<String>,
    makers: BTreeSet<String>,
    /// The fields holding it (code in a child module's file may use them).
    fields: BTreeSet<String>,
}

impl Reach {
    /// Adds the name `sink` binds the value to; `false` for a function's tail
    /// ([`Sink::Return`]), which binds none (its calls do).
    fn add(&mut self, sink: &Sink) -> bool {
        match sink {
            Sink::Let(n, f, body) => {
                self.clients.insert((f.clone(), n.clone(), *body));
            }
            Sink::Field(n) => {
                self.fields.insert(n.clone());
                self.clients.insert((None, n.clone(), None));
            }
            Sink::Closure(n) => {
                self.makers.insert(n.clone());
            }
            Sink::Return(_) => return false,
        }
        true
    }
}

/// Whether an occurrence of the word `method` in `code` (a file's text with strings and
/// comments blanked, [`crate::lexscan::code_only`]) may be a call that `timeout(d, ..)`
/// bounds: `timeout` is written since the `;` before it (`match timeout(ttl,
/// self.do_send(..)).await`, `timeout(d, async { self.m().await })`), or a `let` binds
/// its future without awaiting it (`let fut = self.m(..);`). Every call a parse finds
/// bounded is one of these; a method with none is never bounded.
///
/// # Examples
/// ```
/// use shutdown_lint::collect::flow::may_be_timed_call;
/// let code = b"fn a(&self) { let r = self.send(x).await?; }";
/// assert!(!may_be_timed_call(code, "send"));
/// // a local of that name is no call
/// let code = b"fn a(&self) { let (send, b) = split(x); timeout(d, run(send)) }";
/// assert!(!may_be_timed_call(code, "send"));
/// let code = b"fn a(&self) { let fut = self.send(x); timeout(d, fut).await }";
/// assert!(may_be_timed_call(code, "send"));
/// let code = b"fn a(&self) { match tokio::time::timeout(d, self.send(x)).await {} }";
/// assert!(may_be_timed_call(code, "send"));
/// ```
pub fn may_be_timed_call(code: &[u8], method: &str) -> bool {
    may_be_timed(code, method, true)
}

/// [`may_be_timed_call`] for a free function, called by its name alone (`notify(..)`,
/// not `x.notify(..)`).
///
/// # Examples
/// ```
/// use shutdown_lint::collect::flow::may_be_timed_fn_call;
/// assert!(may_be_timed_fn_call(b"fn a() { timeout(d, run(x)).await; }", "run"));
/// assert!(!may_be_timed_fn_call(b"fn a() { run(x).await; }", "run"));
/// ```
pub fn may_be_timed_fn_call(code: &[u8], f: &str) -> bool {
    may_be_timed(code, f, false)
}

fn may_be_timed(code: &[u8], method: &str, as_method: bool) -> bool {
    let mut from = 0;
    while let Some(at) = crate::lexscan::find_word(code, method.as_bytes(), from) {
        from = at + method.len();
        // a call of it (`.m(`, `Self::m(`, `.m::<T>(`; a function's `f(`), not a local of
        // that name
        let before = code[..at].trim_ascii_end().last();
        let after = code[from..].trim_ascii_start().first();
        let called = if as_method {
            matches!(before, Some(b'.' | b':')) && matches!(after, Some(b'(' | b':'))
        } else {
            before != Some(&b'.') && matches!(after, Some(b'(' | b':'))
        };
        if !called {
            continue;
        }
        let stmt_start = memchr::memrchr(b';', &code[..at]).map_or(0, |i| i + 1);
        if memchr::memmem::find(&code[stmt_start..at], b"timeout").is_some() {
            return true;
        }
        let line_start = memchr::memrchr3(b';', b'{', b'}', &code[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b';', &code[at..]).map_or(code.len(), |i| at + i);
        let bound = code[line_start..at].trim_ascii_start().starts_with(b"let ");
        if bound && memchr::memmem::find(&code[at..end], b".await").is_none() {
            return true;
        }
    }
    false
}

/// Whether [`summarize`] of `text` could ever make [`ClientFlow::per_request_timeouts`]
/// true, known without parsing: that needs a request that sets `.timeout(..)`
/// ([`Use::Request`]`(true)`), so the word, and no out-of-line module, which makes
/// [`ClientFlow::child_files`] true (`mod_decls_out_of_line`, as the model walk found
/// them). When it is false the second parse is skipped (miniserve's tests: 17 % of a run).
///
/// # Examples
/// ```
/// use shutdown_lint::collect::flow::may_clear;
/// assert!(may_clear("fn f(c: C) { c.get(u).timeout(d).send(); }", false));
/// assert!(!may_clear("fn f(c: C) { c.get(u).send(); }", false));
/// assert!(!may_clear("fn f(c: C) { c.get(u).timeout(d).send(); }", true));
/// ```
pub fn may_clear(text: &str, mod_decls_out_of_line: bool) -> bool {
    !mod_decls_out_of_line && memchr::memmem::find(text.as_bytes(), b"timeout").is_some()
}

/// Reads `text` (a whole file, as written) into a [`ClientFlow`]; `None` when it does not
/// parse.
///
/// # Examples
/// ```
/// use shutdown_lint::collect::flow::{summarize, Use};
/// let flow = summarize("fn f(c: C) { c.get(u).send(); }").unwrap();
/// assert_eq!(flow.uses["c"], vec![Use::Request(false)]);
/// ```
pub fn summarize(text: &str) -> Option<ClientFlow> {
    Some(summarize_file(&syn::parse_file(text).ok()?))
}

/// [`summarize`] of a file parsed already (as written).
pub(super) fn summarize_file(file: &syn::File) -> ClientFlow {
    let mut items = Items::default();
    items.visit_file(file);
    let mut p = Pass {
        structs: items.structs,
        ..Pass::default()
    };
    p.flow.fn_params = items.fns;
    p.flow.method_params = items.methods;
    p.flow.owned_method_params = items.owned_methods;
    for (key, params) in &p.flow.owned_method_params {
        if let Some((ty, _)) = key.split_once("::")
            && matches!(params, Some((true, _)))
            && !p.owned_types.iter().any(|t| t == ty)
        {
            p.owned_types.push(ty.to_string());
        }
    }
    p.method_candidates = items
        .private_methods
        .iter()
        .filter(|m| matches!(p.flow.method_params.get(*m), Some(Some(_))))
        .cloned()
        .collect();
    p.imports = items.imports;
    p.private_statics = std::mem::take(&mut items.private_statics);
    for (at, field) in std::mem::take(&mut items.derived_fields) {
        p.flow.sinks.insert(at, Sink::Field(field));
    }
    p.fn_candidates = items
        .private_fns
        .iter()
        .filter(|f| matches!(p.flow.fn_params.get(*f), Some(Some(_))))
        .cloned()
        .collect();
    p.visit_file(file);
    // a private function that production code only calls inside `timeout(d, ..)`
    // (iroh's `time::timeout(CAPTIVE_PORTAL_TIMEOUT, check_captive_portal(..))`): every
    // request it makes is bounded
    p.flow.boundable_fns = std::mem::take(&mut p.fn_candidates);
    // `let fut = check(..); .. timeout(d, fut)` (lnurl-server's invoice notifier)
    for (f, fut, at) in std::mem::take(&mut p.fn_futures) {
        if p.timed_futures.contains(&fut) && p.flow.boundable_fns.contains(&f) {
            *p.bounded_calls.entry(f.clone()).or_default() += 1;
            p.timed_mention(&Caller::Fn(f), at);
        }
    }
    let mut bounded_fns: BTreeSet<String> = p
        .bounded_calls
        .iter()
        .filter(|(f, n)| p.flow.boundable_fns.contains(*f) && p.mentions.get(*f) == Some(*n))
        .map(|(f, _)| f.clone())
        .collect();
    // the same for a private method of an inherent `impl` (cnosdb's meta client:
    // `timeout(ttl, self.do_send_rpc_to_leader(uri, req))`)
    let mut bounded_methods = bound_methods(&mut p);
    // and for one called only from such functions (xgent's executor: `timeout(d,
    // self.run_submit_poll(..))`, whose body calls `self.send_request(..)`)
    bound_through_callers(&p, &mut bounded_fns, &mut bounded_methods);
    time_requests_in(&mut p.flow.uses, &p.flow.use_fns, &bounded_fns);
    time_requests_in(&mut p.flow.uses, &p.flow.use_methods, &bounded_methods);
    p.flow.bounded_fns = bounded_fns;
    p.flow.bounded_methods = bounded_methods;
    // the calls of a private function declared once, when it is named nowhere else
    p.flow.fn_calls = std::mem::take(&mut p.calls_at)
        .into_iter()
        .filter(|(f, calls)| {
            p.flow.boundable_fns.contains(f) && p.mentions.get(f) == Some(&calls.len())
        })
        .collect();
    // `let fut = client.request(req); .. timeout(d, fut)`: the request is bounded; so is
    // `let rb = client.post(u); .. rb.timeout(d).send()` when every use of `rb` is such a
    // send or a step assigned back to it
    // (the uses of `rb` in the request's own function: a local of another function may
    // have that name too; in a method, the whole file's)
    for (client, i, fut) in std::mem::take(&mut p.request_futures) {
        let scope = p
            .flow
            .use_fns
            .get(&client)
            .and_then(|fs| fs.get(i))
            .cloned()
            .flatten();
        let sends: Vec<&Use> = match scope {
            Some(_) => p.flow.uses_in(&scope, &fut, None).collect(),
            None => p.flow.uses.get(&fut).into_iter().flatten().collect(),
        };
        let sent_timed = sends.contains(&&Use::Send(true))
            && sends
                .iter()
                .all(|u| matches!(u, Use::Send(true) | Use::Rebind));
        if (p.timed_futures.contains(&fut) || sent_timed)
            && let Some(u) = p.flow.uses.get_mut(&client).and_then(|us| us.get_mut(i))
        {
            *u = Use::Request(true);
        }
    }
    p.flow.callers = std::mem::take(&mut p.untimed_mentions)
        .into_iter()
        .map(|(callee, mentions)| {
            let callers = mentions
                .into_iter()
                .filter_map(|(_, c)| c.map(Caller::name))
                .collect();
            (callee.name(), callers)
        })
        .collect();
    for (outer, inner) in std::mem::take(&mut p.fallbacks) {
        if let Some(sink) = p.flow.sinks.get(&outer).cloned() {
            p.flow.sinks.entry(inner).or_insert(sink);
        }
    }
    p.flow
}

/// Times each untimed request of `uses` made in one of the functions `bounded` (the
/// function of each use is in `scopes`, at the same index).
fn time_requests_in(
    uses: &mut BTreeMap<String, Vec<Use>>,
    scopes: &BTreeMap<String, Vec<Option<String>>>,
    bounded: &BTreeSet<String>,
) {
    for (name, us) in uses {
        let fs = scopes.get(name);
        for (k, u) in us.iter_mut().enumerate() {
            if *u == Use::Request(false)
                && fs
                    .and_then(|fs| fs.get(k))
                    .and_then(Option::as_ref)
                    .is_some_and(|f| bounded.contains(f))
            {
                *u = Use::Request(true);
            }
        }
    }
}

/// Fills [`ClientFlow::boundable_methods`], keeps in [`ClientFlow::use_methods`] only the
/// boundable ones, and gives those production code only calls inside `timeout(d, ..)`.
fn bound_methods(p: &mut Pass) -> BTreeSet<String> {
    let boundable: BTreeSet<String> = if p.flow.child_files {
        BTreeSet::new()
    } else {
        std::mem::take(&mut p.method_candidates)
            .into_iter()
            .collect()
    };
    for (m, fut, at) in std::mem::take(&mut p.method_futures) {
        if p.timed_futures.contains(&fut) {
            *p.bounded_method_calls.entry(m.clone()).or_default() += 1;
            p.timed_mention(&Caller::Method(m), at);
        }
    }
    let bounded: BTreeSet<String> = boundable
        .iter()
        .filter(|m| {
            p.method_mentions
                .get(*m)
                .is_some_and(|n| *n > 0 && p.bounded_method_calls.get(*m) == Some(n))
        })
        .cloned()
        .collect();
    for ms in p.flow.use_methods.values_mut() {
        for m in ms.iter_mut() {
            if m.as_ref().is_some_and(|m| !boundable.contains(m)) {
                *m = None;
            }
        }
    }
    p.flow.boundable_methods = boundable;
    bounded
}

/// A private function or method called from somewhere else: by name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Caller {
    Fn(String),
    Method(String),
}

impl Caller {
    fn name(self) -> String {
        match self {
            Caller::Fn(n) | Caller::Method(n) => n,
        }
    }
}

/// Adds to `fns` and `methods` (the private functions and methods production code only
/// calls inside `timeout(d, ..)`) those whose every other mention is made in the body of
/// one of them (not in a closure or async block there, which may run apart), round by
/// round: a request two calls below the timeout is bounded by it as one call below is.
fn bound_through_callers(p: &Pass, fns: &mut BTreeSet<String>, methods: &mut BTreeSet<String>) {
    loop {
        let bounded = |c: &Caller| match c {
            Caller::Fn(f) => fns.contains(f),
            Caller::Method(m) => methods.contains(m),
        };
        let count = |map: &BTreeMap<String, usize>, n: &str| map.get(n).copied().unwrap_or(0);
        let grown: Vec<Caller> = p
            .untimed_mentions
            .iter()
            .filter(|(callee, mentions)| {
                let (boundable, timed, all) = match callee {
                    Caller::Fn(f) => (
                        p.flow.boundable_fns.contains(f),
                        count(&p.bounded_calls, f),
                        count(&p.mentions, f),
                    ),
                    Caller::Method(m) => (
                        p.flow.boundable_methods.contains(m),
                        count(&p.bounded_method_calls, m),
                        count(&p.method_mentions, m),
                    ),
                };
                let through = mentions
                    .iter()
                    .filter(|(_, c)| c.as_ref().is_some_and(|c| c != *callee && bounded(c)))
                    .count();
                boundable && !bounded(callee) && all > 0 && timed + through == all
            })
            .map(|(callee, _)| callee.clone())
            .collect();
        if grown.is_empty() {
            return;
        }
        for c in grown {
            match c {
                Caller::Fn(f) => fns.insert(f),
                Caller::Method(m) => methods.insert(m),
            };
        }
    }
}

/// The file's struct names, known before their literals are met, its free functions'
/// parameter names, and the first segment of the `use` that names each imported name.
#[derive(Default)]
struct Items {
    structs: BTreeSet<String>,
    fns: BTreeMap<String, Option<Vec<Option<String>>>>,
    /// The functions of `impl`s, the same way ([`ClientFlow::method_params`]).
    methods: BTreeMap<String, Option<ImplFnParams>>,
    imports: BTreeMap<String, String>,
    /// The free functions declared without `pub`: only this file calls them.
    private_fns: BTreeSet<String>,
    /// The `static`s declared without `pub`: only this file names them.
    private_statics: BTreeSet<String>,
    /// The functions of inherent `impl`s declared without `pub`: only this file (and its
    /// child modules) calls them.
    private_methods: BTreeSet<String>,
    /// Inside an `impl Trait for T`: its functions are the trait's, callable anywhere.
    in_trait_impl: bool,
    /// The last segment of the type of the `impl` being walked (`Request` of `impl
    /// Request<Body>`).
    impl_type: Option<String>,
    /// The functions of inherent `impl`s by `Type::name` (the last segment of the
    /// `impl`'s type), the same way ([`ClientFlow::owned_method_params`]).
    owned_methods: BTreeMap<String, Option<ImplFnParams>>,
    /// The named fields of `#[derive(Default)]` structs, by the offset of their type:
    /// a client the derived `default()` makes there goes to the field.
    derived_fields: Vec<(usize, String)>,
}

/// Records the names a `use` tree imports, each with the tree's first segment (a module
/// imported as `self` of a group, `use crate::relay::{self, Relay};`, by its own name).
fn import_names(t: &syn::UseTree, root: Option<&str>, out: &mut BTreeMap<String, String>) {
    import_names_under(t, root, None, out);
}

/// [`import_names`] below the segment `parent`.
fn import_names_under(
    t: &syn::UseTree,
    root: Option<&str>,
    parent: Option<&syn::Ident>,
    out: &mut BTreeMap<String, String>,
) {
    match t {
        syn::UseTree::Path(p) => {
            let first = p.ident.to_string();
            import_names_under(&p.tree, Some(root.unwrap_or(&first)), Some(&p.ident), out);
        }
        syn::UseTree::Name(n) => {
            let name = match parent {
                Some(m) if n.ident == "self" => m,
                _ => &n.ident,
            };
            if let Some(r) = root {
                out.insert(name.to_string(), r.to_string());
            }
        }
        syn::UseTree::Rename(n) => {
            if let Some(r) = root {
                out.insert(n.rename.to_string(), r.to_string());
            }
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                import_names_under(t, root, parent, out);
            }
        }
        syn::UseTree::Glob(_) => {}
    }
}

impl<'ast> Visit<'ast> for Items {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        import_names(&u.tree, None, &mut self.imports);
    }
    // a module the file declares is a name of this crate (`mod relay;`, then
    // `relay::Relay::new(client)`), as if imported from `crate`
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.imports
            .entry(m.ident.to_string())
            .or_insert_with(|| "crate".to_string());
        visit::visit_item_mod(self, m);
    }
    fn visit_item_static(&mut self, st: &'ast syn::ItemStatic) {
        if matches!(st.vis, syn::Visibility::Inherited) {
            self.private_statics.insert(st.ident.to_string());
        }
    }
    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        self.structs.insert(s.ident.to_string());
        // a client the derived `Default` makes goes to its field
        if super::attrs::derives_default(&s.attrs) {
            for f in &s.fields {
                if let Some(id) = &f.ident {
                    self.derived_fields
                        .push((super::attrs::field_type_offset(f), id.to_string()));
                }
            }
        }
    }
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let params = f
            .sig
            .inputs
            .iter()
            .map(super::attrs::plain_param_name)
            .collect();
        let name = f.sig.ident.to_string();
        if matches!(f.vis, syn::Visibility::Inherited) {
            self.private_fns.insert(name.clone());
        }
        // a name declared twice (in two modules) could be either
        let twice = self.fns.contains_key(&name);
        self.fns.insert(name, (!twice).then_some(params));
        visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let receiver = f.sig.receiver().is_some();
        let params: Vec<Option<String>> = f
            .sig
            .inputs
            .iter()
            .skip(usize::from(receiver))
            .map(super::attrs::plain_param_name)
            .collect();
        let name = f.sig.ident.to_string();
        if !self.in_trait_impl && matches!(f.vis, syn::Visibility::Inherited) {
            self.private_methods.insert(name.clone());
        }
        if !self.in_trait_impl
            && let Some(ty) = &self.impl_type
        {
            let key = format!("{ty}::{name}");
            let twice = self.owned_methods.contains_key(&key);
            self.owned_methods
                .insert(key, (!twice).then(|| (receiver, params.clone())));
        }
        let twice = self.methods.contains_key(&name);
        self.methods
            .insert(name, (!twice).then_some((receiver, params)));
        visit::visit_impl_item_fn(self, f);
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let outer = std::mem::replace(&mut self.in_trait_impl, i.trait_.is_some());
        let ty = type_name(&i.self_ty).map(|t| t.to_string());
        let outer_ty = std::mem::replace(&mut self.impl_type, ty);
        visit::visit_item_impl(self, i);
        self.in_trait_impl = outer;
        self.impl_type = outer_ty;
    }
    fn visit_expr(&mut self, _: &'ast syn::Expr) {}
}

#[derive(Default)]
struct Pass {
    /// Inside test code (`#[cfg(test)]`, `#[test]`): see [`ClientFlow::use_tests`].
    in_test: bool,
    /// Outside test code: how often each single name is written as a path (a function
    /// named as a value or called), and how often it is called inside `timeout(d, ..)`.
    mentions: BTreeMap<String, usize>,
    bounded_calls: BTreeMap<String, usize>,
    flow: ClientFlow,
    /// Addresses of the expressions already classified (not `Other`).
    done: BTreeSet<usize>,
    /// Addresses of the inner expressions of a method chain already classified.
    inner: BTreeSet<usize>,
    /// Names of the structs the file declares.
    structs: BTreeSet<String>,
    /// Addresses of the expressions whose requests are timed without a `.timeout(..)` of
    /// their own: the futures `timeout(d, fut)` bounds, and the branch an optional timeout
    /// takes when none is set (see [`optional_timeout`]).
    timed_exprs: BTreeSet<usize>,
    /// How many of [`Self::timed_exprs`] the visit is inside.
    timed_depth: usize,
    /// Request futures bound by a `let` and not awaited there (`let fut =
    /// client.request(req);`): the name, by the address of the chain.
    bound_requests: BTreeMap<usize, String>,
    /// Untimed requests whose future was bound to a name: (client name, index of the use,
    /// future name). Timed after all when the future is one `timeout(d, fut)` bounds.
    request_futures: Vec<(String, usize, String)>,
    /// Names passed as the future of `timeout(d, fut)`.
    timed_futures: BTreeSet<String>,
    /// The names of the `let N = async { .. }` blocks the visit is in, innermost last
    /// (`None` inside a closure or another async block in one): a request awaited there
    /// is timed when `timeout(d, N)` bounds the block (sequencer's remote component
    /// client: `let request_future = async { self.client.request(r).await .. };`).
    async_lets: Vec<Option<String>>,
    /// The `let N = async { .. }` whose block the visit is about to enter: its address and
    /// `N` ([`Self::async_lets`]).
    async_let: Option<(usize, String)>,
    /// The free function whose body the visit is in.
    cur_fn: Option<String>,
    /// The plain names of the parameters of the function or method whose body the visit
    /// is in ([`ClientFlow::use_params`]).
    cur_params: Vec<String>,
    /// The function of an `impl` whose body the visit is in, by its order in the file
    /// ([`ClientFlow::use_bodies`]), and how many the visit has entered.
    cur_body: Option<usize>,
    bodies: usize,
    /// The function of an `impl` whose body the visit is in, when it is one of
    /// [`Self::method_candidates`] (`None` inside a free function, even one declared in a
    /// method's body).
    cur_method: Option<String>,
    /// The private functions of the file's inherent `impl`s declared once: the only
    /// methods whose mentions are counted (a file names most methods of other types).
    method_candidates: Vec<String>,
    /// The private free functions declared once ([`ClientFlow::boundable_fns`]): the only
    /// names whose mentions outside `timeout(d, ..)` are noted by caller.
    fn_candidates: BTreeSet<String>,
    /// Outside test code: how often each name is called as a method (`x.m(..)`) or
    /// written as the last segment of a longer path (`Self::m`), and how often it is
    /// called inside `timeout(d, ..)` — or bound by a `let` whose name `timeout(d, ..)`
    /// takes ([`Self::method_futures`]): [`ClientFlow::bounded_methods`].
    method_mentions: BTreeMap<String, usize>,
    bounded_method_calls: BTreeMap<String, usize>,
    /// Outside test code, `let fut = self.m(..);`: the method, the name, and where the
    /// method is named ([`Self::untimed_mentions`]).
    method_futures: Vec<(String, String, usize)>,
    /// Outside test code, `let fut = f(..);` of a private free function: the function, the
    /// name, and where the function is named.
    fn_futures: Vec<(String, String, usize)>,
    /// Outside test code, each mention of a private free function or of one of
    /// [`Self::method_candidates`] not inside `timeout(d, ..)`, by callee: where it is
    /// named, and the function whose body makes it ([`Caller`]; `None` inside a closure
    /// or an async block, which may run apart from that body): a mention made in a
    /// function that is itself bounded is bounded too ([`bound_through_callers`]).
    untimed_mentions: BTreeMap<Caller, Vec<(usize, Option<Caller>)>>,
    /// The parameters of the function being walked declared of one of
    /// [`Self::owned_types`], with the last segment of that type (`request:
    /// Request<Body>`: `Request`).
    param_types: BTreeMap<String, String>,
    /// The types whose inherent `impl` in the file declares a method taking `self` once.
    owned_types: Vec<String>,
    /// Names `use`d by the file, with the first segment of their path.
    imports: BTreeMap<String, String>,
    /// The file's private `static`s ([`Items::private_statics`]): a lazily filled one
    /// (`CLIENT.get_or_init(|| ..)`) holds a client as a private field does.
    private_statics: BTreeSet<String>,
    /// Outside test code, the byte offsets of the paths of calls of single names
    /// (`make_client(t)`), by name: [`ClientFlow::fn_calls`].
    calls_at: BTreeMap<String, Vec<usize>>,
    /// A fallback made in the same chain: (the outer chain's root, the root of the chain a
    /// closure of its `or_else` / `unwrap_or_else` gives; nexus-exchange's
    /// `Client::builder()..build().or_else(|_| Client::builder()..build())`): it goes
    /// where the outer chain's client goes.
    fallbacks: Vec<(usize, usize)>,
    /// Locals of the function being walked bound to a value made with a timeout layer
    /// (`let timeout = self.timeout.map_or_else(.., |d| Either::Right(TimeoutLayer::new(d)));`).
    timeout_layers: BTreeSet<String>,
}

/// The last segment of a type's path, through references (`&mut Request<Body>`:
/// `Request`).
fn type_name(t: &syn::Type) -> Option<&syn::Ident> {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| &s.ident),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

/// The plain-named parameters of `sig` declared of one of `types` (by [`type_name`]),
/// with that type.
fn param_types(sig: &syn::Signature, types: &[String]) -> BTreeMap<String, String> {
    if types.is_empty() {
        return BTreeMap::new();
    }
    sig.inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => {
                let ty = type_name(&t.ty)?;
                let ty = types.iter().find(|k| ty == k.as_str())?;
                Some((super::attrs::plain_param_name(a)?, ty.clone()))
            }
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// The method `e` calls: `x.m(..)`, or `Self::m(..)` (any path of two segments or more).
fn called_method(e: &syn::Expr) -> Option<&syn::Ident> {
    match strip(e) {
        syn::Expr::MethodCall(c) => Some(&c.method),
        syn::Expr::Call(c) => match strip(&c.func) {
            syn::Expr::Path(p) if p.path.segments.len() >= 2 => {
                p.path.segments.last().map(|s| &s.ident)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The plain names a signature's parameters bind (`client` of `client: Callback`).
fn param_names(sig: &syn::Signature) -> Vec<String> {
    sig.inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(i) => Some(i.ident.to_string()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

fn addr(e: &syn::Expr) -> usize {
    e as *const syn::Expr as usize
}

pub(super) fn strip(mut e: &syn::Expr) -> &syn::Expr {
    while let syn::Expr::Paren(p) = e {
        e = &p.expr;
    }
    e
}

/// The name an expression reads: a one-segment path (`client`) or a field (`x.client`).
fn name_of(e: &syn::Expr) -> Option<String> {
    match strip(e) {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(i) => Some(i.to_string()),
            syn::Member::Unnamed(_) => None,
        },
        _ => None,
    }
}

/// Whether `e` is written as a field (`self.client`): [`ClientFlow::use_fields`].
fn is_field(e: &syn::Expr) -> bool {
    matches!(strip(e), syn::Expr::Field(_))
}

/// An argument without the borrow it is passed with (`&client`).
fn passed_value(a: &syn::Expr) -> &syn::Expr {
    match strip(a) {
        syn::Expr::Reference(r) => &r.expr,
        a => a,
    }
}

/// Types of the standard library (and the usual cells) that hold or wrap what their
/// functions are given: a client passed to one is not passed to code of the workspace.
const HOLDERS: &[&str] = &[
    "Arc",
    "Rc",
    "Box",
    "Pin",
    "Cow",
    "Mutex",
    "RwLock",
    "Cell",
    "RefCell",
    "OnceCell",
    "OnceLock",
    "LazyLock",
    "Lazy",
    "Option",
    "Result",
    "Vec",
    "VecDeque",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "String",
    "ArcSwap",
    "Weak",
    "ManuallyDrop",
];

/// What `Some(..)`, `Arc::new(..)`, `Box::new(..)` or `Rc::new(..)` wrap (nested), or `e`.
fn unwrap_wrappers(mut e: &syn::Expr) -> &syn::Expr {
    while let syn::Expr::Call(c) = strip(e)
        && c.args.len() == 1
        && let syn::Expr::Path(p) = strip(&c.func)
    {
        let segs = &p.path.segments;
        let wraps = (segs.len() == 1 && segs[0].ident == "Some")
            || super::attrs::is_new_of(&p.path, super::attrs::POINTERS);
        if !wraps {
            break;
        }
        e = &c.args[0];
    }
    e
}

/// The future a one-argument wrapper holds: `Box::pin(fut)`, `TimedFuture::new(fut)` (a
/// type's constructor; not a function, which may spawn it); `e` itself otherwise.
fn future_wrapped(e: &syn::Expr) -> &syn::Expr {
    match strip(e) {
        syn::Expr::Call(c) if c.args.len() == 1 => match strip(&c.func) {
            syn::Expr::Path(p)
                if p.path.segments.len() >= 2
                    && p.path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "new" || s.ident == "pin")
                    && p.path.segments[p.path.segments.len() - 2]
                        .ident
                        .to_string()
                        .starts_with(|c: char| c.is_ascii_uppercase()) =>
            {
                &c.args[0]
            }
            _ => e,
        },
        _ => e,
    }
}

/// The first name a tuple pattern binds: `(sender, conn)`, `(mut sender, _)`.
fn tuple_head(p: &syn::Pat) -> Option<String> {
    let syn::Pat::Tuple(t) = p else {
        return None;
    };
    match t.elems.first()? {
        syn::Pat::Ident(i) if i.subpat.is_none() => Some(i.ident.to_string()),
        _ => None,
    }
}

/// Whether `e` opens a hyper connection (its value the pair of a client and its
/// connection): a chain through `handshake`, or a call of `..::handshake(..)`, also as the
/// future `timeout(d, ..)` bounds.
fn makes_connection(e: &syn::Expr) -> bool {
    let (methods, inner) = unchain(e);
    if methods.iter().any(|m| m.method == "handshake") {
        return true;
    }
    match inner {
        syn::Expr::Call(c) if let Some(fut) = bounded_future(c) => makes_connection(fut),
        syn::Expr::Call(c) => matches!(strip(&c.func), syn::Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "handshake")),
        _ => false,
    }
}

/// The name `Ok(name)` / `Some(name)` binds.
fn unwrapped_name(p: &syn::Pat) -> Option<String> {
    let syn::Pat::TupleStruct(t) = p else {
        return None;
    };
    let last = t.path.segments.last()?.ident.to_string();
    if !matches!(last.as_str(), "Ok" | "Some") || t.elems.len() != 1 {
        return None;
    }
    match &t.elems[0] {
        syn::Pat::Ident(i) if i.subpat.is_none() => Some(i.ident.to_string()),
        _ => None,
    }
}

/// A match arm `Ok(c) => c` (or `Some(c) => c`): the value passes through unchanged.
fn unwraps_to_itself(a: &syn::Arm) -> bool {
    a.guard.is_none()
        && unwrapped_name(&a.pat).is_some_and(
            |n| matches!(strip(block_value(&a.body)), syn::Expr::Path(p) if p.path.is_ident(&n)),
        )
}

/// The expression a block (or nested blocks) evaluates to: its tail expression.
fn block_value(mut e: &syn::Expr) -> &syn::Expr {
    while let syn::Expr::Block(b) = strip(e)
        && b.label.is_none()
        && let Some(syn::Stmt::Expr(tail, None)) = b.block.stmts.last()
    {
        e = tail;
    }
    e
}

/// One step into a method chain: a method call's receiver, what `?`, `.await` or
/// parentheses apply to; `None` at the chain's start.
pub(super) fn spine_step(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::MethodCall(m) => Some(&m.receiver),
        syn::Expr::Try(t) => Some(&t.expr),
        syn::Expr::Await(a) => Some(&a.base),
        syn::Expr::Paren(p) => Some(&p.expr),
        _ => None,
    }
}

/// `e` without the `?`, `.unwrap()` and `.expect(..)` after it, nor the error it may give
/// mapped or given context first (`.map_err(..)?`, anyhow's `.context(..)?`).
pub(super) fn unwrapped(mut e: &syn::Expr) -> &syn::Expr {
    loop {
        e = match e {
            syn::Expr::Try(t) => &t.expr,
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "unwrap" | "expect" | "map_err" | "context" | "with_context" | "wrap_err"
                ) =>
            {
                &m.receiver
            }
            _ => return e,
        };
    }
}

/// A method chain from the outside in: its methods innermost first and its receiver.
pub(super) fn unchain(mut e: &syn::Expr) -> (Vec<&syn::ExprMethodCall>, &syn::Expr) {
    let mut methods = Vec::new();
    while let Some(next) = spine_step(e) {
        if let syn::Expr::MethodCall(m) = e {
            methods.push(m);
        }
        e = next;
    }
    methods.reverse();
    (methods, e)
}

/// The start of the root path of a chain whose innermost expression is a path call (not
/// a chain that goes on to make a request: its value is no client).
fn root_offset(e: &syn::Expr) -> Option<usize> {
    let (methods, inner) = unchain(e);
    if methods
        .iter()
        .any(|m| is_request_step(&m.method.to_string()))
    {
        return None;
    }
    match inner {
        // `timeout(d, http2::handshake(exec, io)).await??`: the bounded future's value
        syn::Expr::Call(c) if let Some(fut) = bounded_future(c) => root_offset(fut),
        syn::Expr::Call(c) => match strip(&c.func) {
            syn::Expr::Path(p) => Some(syn::spanned::Spanned::span(&p.path).byte_range().start),
            _ => None,
        },
        // an empty `Option` filled in (`self.client.get_or_insert_with(Default::default)`):
        // the value is made at the method
        _ => methods
            .first()
            .filter(|m| {
                matches!(
                    m.method.to_string().as_str(),
                    "get_or_insert_with" | "get_or_insert_default" | "unwrap_or_default"
                )
            })
            .map(|m| syn::spanned::Spanned::span(&m.method).byte_range().start),
    }
}

/// The root offset of a client made for the one request a chain builds and leaves unsent
/// (ForestBot's `let request = reqwest::Client::new().post(url).json(&body);`): the client
/// goes where that request goes, and is bounded when each send of it is.
fn one_shot_request_root(e: &syn::Expr) -> Option<usize> {
    let (methods, inner) = unchain(e);
    let first = methods.first()?;
    let sends = methods
        .iter()
        .any(|m| SEND_METHODS.iter().any(|s| m.method == s));
    (REQUEST_METHODS.iter().any(|r| first.method == r) && !sends)
        .then(|| root_offset(inner))
        .flatten()
}

/// The root offsets of the clients a chain falls back to when its build fails, which go
/// where the chain's value goes: `builder.build().unwrap_or_else(|_| Client::new())`,
/// `.unwrap_or(Client::new())` (rustfs's update checker).
fn fallback_roots(e: &syn::Expr) -> Vec<usize> {
    let (methods, _) = unchain(e);
    methods
        .iter()
        .filter(|m| {
            matches!(
                m.method.to_string().as_str(),
                "unwrap_or_else" | "unwrap_or"
            )
        })
        .filter_map(|m| {
            let arg = m.args.first()?;
            match closure_of(arg) {
                Some(c) => root_offset(closure_tail(c)?),
                None => root_offset(arg),
            }
        })
        .collect()
}

/// The closure in `|| ..`, `Box::new(|| ..)` or `Arc::new(|| ..)`.
fn closure_of(e: &syn::Expr) -> Option<&syn::ExprClosure> {
    match strip(e) {
        syn::Expr::Closure(c) => Some(c),
        syn::Expr::Call(c) if c.args.len() == 1 => {
            let syn::Expr::Path(p) = strip(&c.func) else {
                return None;
            };
            if super::attrs::is_new_of(&p.path, super::attrs::POINTERS) {
                closure_of(&c.args[0])
            } else {
                None
            }
        }
        _ => None,
    }
}

/// What a lazily initialised value is made by: the one argument of `LazyLock::new(..)`,
/// once_cell's or lazy_static's `Lazy::new(..)`, `LazyCell::new(..)`.
fn lazy_init(e: &syn::Expr) -> Option<&syn::Expr> {
    let syn::Expr::Call(c) = strip(e) else {
        return None;
    };
    let syn::Expr::Path(p) = strip(&c.func) else {
        return None;
    };
    let lazy = super::attrs::is_new_of(&p.path, super::attrs::LAZIES);
    (lazy && c.args.len() == 1).then(|| &c.args[0])
}

/// The key of the client a lazily filled value's initializer makes (its flow's sink): the
/// root of the chain a closure ends with (`|| Client::builder()..build()..`), or a
/// constructor passed as a function (`reqwest::Client::new`).
fn initializer_root(init: &syn::Expr) -> Option<usize> {
    match init {
        syn::Expr::Closure(c) => closure_tail(c).and_then(|t| root_offset(block_value(t))),
        syn::Expr::Path(f) if f.qself.is_none() => {
            Some(syn::spanned::Spanned::span(&f.path).byte_range().start)
        }
        _ => None,
    }
}

/// The value a closure's body ends with, if it has no `return`.
fn closure_tail(c: &syn::ExprClosure) -> Option<&syn::Expr> {
    struct Returns(bool);
    impl<'ast> Visit<'ast> for Returns {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut r = Returns(false);
    r.visit_expr(&c.body);
    if r.0 {
        return None;
    }
    match strip(&c.body) {
        syn::Expr::Block(b) => match b.block.stmts.last()? {
            syn::Stmt::Expr(e, None) => Some(e),
            _ => None,
        },
        e => Some(e),
    }
}

impl Pass {
    /// How a name passed as argument `i` of the function at `path` is used, by `i`:
    /// [`Use::PassTo`] a free function of this file (by its name alone), [`Use::PassOut`]
    /// one of a module path (every segment lower-case: not `Arc::new`, `Some`); `None` for
    /// anything else.
    fn pass_kind(&self, path: &syn::Path) -> Option<impl Fn(usize) -> Use + use<>> {
        let last = path.segments.last()?.ident.to_string();
        let local = path.get_ident().is_some() && self.flow.fn_params.contains_key(&last);
        let lower = |s: &syn::PathSegment| {
            s.arguments.is_none()
                && s.ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        };
        let out = path.segments.iter().all(lower)
            && !matches!(
                last.as_str(),
                "drop" | "take" | "replace" | "swap" | "forget"
            );
        if !local && !out {
            return None;
        }
        let krate = match path.segments.first() {
            Some(first) if path.segments.len() > 1 => Some(self.crate_of(&first.ident)),
            _ => self.imports.get(&last).cloned(),
        };
        Some(move |i| {
            if local {
                Use::PassTo(last.clone(), i)
            } else {
                Use::PassOut(last.clone(), i, krate.clone())
            }
        })
    }

    /// `Type::f` for a function of a type this file does not declare (pkarr's
    /// `RelayClient::new(url, client.clone(), timeout)`, declared in `relay_client.rs`):
    /// its [`Use::PassOut`] key `Type::f` and the crate its path or its `use` names. Not a
    /// type of the standard library that only holds or wraps what it is given (`Arc::new`,
    /// `Some`, `Mutex::new`).
    fn foreign_assoc_fn(&self, path: &syn::Path) -> Option<(String, Option<String>)> {
        let segs: Vec<&syn::PathSegment> = path.segments.iter().collect();
        let [.., ty, f] = segs[..] else {
            return None;
        };
        let (ty_name, f_name) = (ty.ident.to_string(), f.ident.to_string());
        let camel = ty_name.starts_with(|c: char| c.is_ascii_uppercase())
            && ty_name.chars().any(|c| c.is_ascii_lowercase());
        let snake = f_name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
        if !camel
            || !snake
            || f.arguments != syn::PathArguments::None
            || ty_name == "Self"
            || self.structs.contains(&ty_name)
            || HOLDERS.contains(&ty_name.as_str())
        {
            return None;
        }
        let krate = match segs.first() {
            Some(first) if segs.len() > 2 => Some(self.crate_of(&first.ident)),
            _ => self.imports.get(&ty_name).cloned(),
        };
        Some((format!("{ty_name}::{f_name}"), krate))
    }

    /// The crate a path starting with `first` is in: the crate its `use` (or the file's
    /// `mod`) names for it (`crate` for `relay` after `mod relay;`), else `first` itself.
    fn crate_of(&self, first: &syn::Ident) -> String {
        let first = first.to_string();
        self.imports.get(&first).cloned().unwrap_or(first)
    }

    /// Marks the visit as inside test code when `attrs` say so; returns the mark before.
    fn enter_test(&mut self, attrs: &[syn::Attribute]) -> bool {
        let was = self.in_test;
        // code built only for WebAssembly is no more the service's than a test is
        self.in_test |=
            crate::testcode::is_test_attrs(attrs) || crate::targetcode::is_wasm_only_attrs(attrs);
        was
    }

    /// The [`Use::PassToMethod`] key of `recv.method(..)`, a method of the file taking
    /// `self`: `method` on `self` (declared once in the file's `impl`s), `Type::method` on
    /// a parameter declared of a type whose `impl` in this file declares it once.
    fn passed_method(&self, recv: &syn::Expr, method: &str) -> Option<String> {
        let syn::Expr::Path(p) = strip(recv) else {
            return None;
        };
        if p.path.is_ident("self") {
            return matches!(self.flow.method_params.get(method), Some(Some((true, _))))
                .then(|| method.to_string());
        }
        let ty = self.param_types.get(&p.path.get_ident()?.to_string())?;
        let key = format!("{ty}::{method}");
        matches!(
            self.flow.owned_method_params.get(&key),
            Some(Some((true, _)))
        )
        .then_some(key)
    }

    /// Counts `e` in [`Self::method_mentions`] when it names a method (`x.m(..)`,
    /// `Self::m`), and in [`Self::bounded_method_calls`] when it is such a call inside
    /// `timeout(d, ..)` (`timeout(d, self.m(..))`, `timeout(d, Self::m(self, ..))`).
    fn count_method_mention(&mut self, e: &syn::Expr) {
        if self.method_candidates.is_empty() {
            return;
        }
        // `Self::m(self, ..)`: a call of the path, which is counted as a mention itself
        if let syn::Expr::Call(c) = e {
            if self.timed_depth > 0
                && let syn::Expr::Path(p) = strip(&c.func)
                && p.path.segments.len() >= 2
                && let Some(m) = p
                    .path
                    .segments
                    .last()
                    .and_then(|s| self.candidate(&s.ident))
            {
                *self.bounded_method_calls.entry(m).or_default() += 1;
            }
            return;
        }
        let id = match e {
            syn::Expr::MethodCall(c) => &c.method,
            syn::Expr::Path(p) if p.path.segments.len() >= 2 => match p.path.segments.last() {
                Some(s) => &s.ident,
                None => return,
            },
            _ => return,
        };
        let Some(m) = self.candidate(id) else {
            return;
        };
        // (a path is counted where it is written; only a method call is a call here —
        // `Self::m(..)` is the path's parent, counted above)
        if self.timed_depth > 0 && matches!(e, syn::Expr::MethodCall(_)) {
            *self.bounded_method_calls.entry(m.clone()).or_default() += 1;
        } else if self.timed_depth == 0 {
            self.note_untimed(Caller::Method(m.clone()), id.span().byte_range().start);
        }
        *self.method_mentions.entry(m).or_default() += 1;
    }

    /// Records a mention of `callee` at `at` outside `timeout(d, ..)`, with the function
    /// whose body makes it ([`Self::untimed_mentions`]).
    fn note_untimed(&mut self, callee: Caller, at: usize) {
        let caller = if self.async_lets.is_empty() {
            match (&self.cur_fn, &self.cur_method) {
                (Some(f), _) => Some(Caller::Fn(f.clone())),
                (None, Some(m)) => Some(Caller::Method(m.clone())),
                (None, None) => None,
            }
        } else {
            None
        };
        self.untimed_mentions
            .entry(callee)
            .or_default()
            .push((at, caller));
    }

    /// Takes the mention of `callee` at `at` out of [`Self::untimed_mentions`]: a future
    /// bound to a name that `timeout(d, ..)` takes after all.
    fn timed_mention(&mut self, callee: &Caller, at: usize) {
        if let Some(ms) = self.untimed_mentions.get_mut(callee) {
            ms.retain(|(offset, _)| *offset != at);
        }
    }

    /// The one of [`Self::method_candidates`] named `id`.
    fn candidate(&self, id: &syn::Ident) -> Option<String> {
        self.method_candidates
            .iter()
            .find(|m| id == m.as_str())
            .cloned()
    }

    /// Records the use `u` of `name`, written as a field when `field` (`x.client`,
    /// [`ClientFlow::use_fields`]), with where it is.
    fn note(&mut self, field: bool, name: String, u: Use) {
        self.flow
            .use_fields
            .entry(name.clone())
            .or_default()
            .push(field);
        let param = !field && self.cur_params.contains(&name);
        self.flow
            .use_params
            .entry(name.clone())
            .or_default()
            .push(param);
        self.flow
            .use_fns
            .entry(name.clone())
            .or_default()
            .push(self.cur_fn.clone());
        self.flow
            .use_methods
            .entry(name.clone())
            .or_default()
            .push(self.cur_method.clone());
        self.flow
            .use_tests
            .entry(name.clone())
            .or_default()
            .push(self.in_test);
        self.flow
            .use_bodies
            .entry(name.clone())
            .or_default()
            .push(self.cur_body);
        self.flow.uses.entry(name).or_default().push(u);
    }

    /// `let N = INIT`: a chain's sink, a closure's, or a call's `Ok` value bound to `N`.
    fn bind(&mut self, n: &str, init: &syn::Expr) {
        // `let c = { ..; Client::builder(ex).build(conn) };`: the block's value
        let init = block_value(init);
        // the clients the binding holds, by the offsets of their chains' roots
        let mut roots: Vec<usize> = Vec::new();
        // `let c = match builder.build() { Ok(c) => c, Err(e) => { ..; return } };`: the
        // scrutinee's `Ok` value (qdrant's error reporter), and the client another arm
        // makes (pkarr's relay backend: `match client { Some(client) => client, None =>
        // Client::builder().build()? }`)
        let init = match strip(init) {
            syn::Expr::Match(m) if m.arms.iter().any(unwraps_to_itself) => {
                for a in &m.arms {
                    if unwraps_to_itself(a) {
                        // the arm's `c` only passes the value on: not a use of the name
                        self.done.insert(addr(strip(block_value(&a.body))));
                    } else {
                        roots.extend(branch_values(&a.body).into_iter().filter_map(root_offset));
                    }
                }
                block_value(&m.expr)
            }
            _ => init,
        };
        // the value's own client, each branch's of an `if` / `match` (`if tls { .. } else {
        // .. }`), and the one a failed build falls back to
        roots.extend(branch_values(init).into_iter().filter_map(root_offset));
        roots.extend(fallback_roots(init));
        roots.extend(one_shot_request_root(init));
        for r in roots {
            self.flow.sinks.insert(
                r,
                Sink::Let(n.to_string(), self.cur_fn.clone(), self.cur_body),
            );
        }
        if let Some(tail) = closure_of(init).and_then(closure_tail)
            && let Some(r) = root_offset(tail)
        {
            self.flow.sinks.insert(r, Sink::Closure(n.to_string()));
        }
        // `let fut = client.request(req);`, also wrapped and as a `match` arm's value
        // (`let resp = match .. { .. => TimedFuture::new(sender.send_request(req).boxed()) }`)
        for v in branch_values(init) {
            let v = strip(future_wrapped(v));
            let (methods, _) = unchain(v);
            if methods
                .first()
                .is_some_and(|m| REQUEST_METHODS.iter().any(|r| m.method == r))
                && !awaits(v)
            {
                self.bound_requests.insert(addr(v), n.to_string());
            }
        }
        let (methods, recv) = unchain(init);
        let names: Vec<String> = methods.iter().map(|m| m.method.to_string()).collect();
        let sends = names.iter().any(|m| SEND_METHODS.contains(&m.as_str()));
        if let Some(b) = name_of(recv)
            && !sends
        {
            if names
                .first()
                .is_some_and(|m| REQUEST_METHODS.contains(&m.as_str()))
            {
                // `let req = client.get(u).timeout(d).build()?;`: sent later by `execute`
                let timed = timed_before(&methods, methods.len()) || self.timed_depth > 0;
                self.flow
                    .prepared
                    .entry(n.to_string())
                    .or_default()
                    .push(timed);
            } else if names.iter().any(|m| m == "build") {
                // `let client = builder.build()?;`
                self.classified(init);
                self.done.insert(addr(strip(recv)));
                self.note(is_field(recv), b, Use::Build(n.to_string()));
            } else if b == n
                && !names.is_empty()
                && !names.iter().any(|m| is_request_step(m) || m == "clone")
            {
                // `let rb = rb.header(..);`: a builder's step bound to the same name, as
                // `rb = rb.header(..);` assigns it back
                self.classified(init);
                self.done.insert(addr(strip(recv)));
                self.note(is_field(recv), b, Use::Rebind);
            }
        }
        // `let c = self.client.clone();`, or arms of a `match` / `if` that each give a name
        for v in branch_values(init) {
            self.copy_into(n, v, &["clone"]);
        }
        // the call whose `Ok` value is bound: `maker()?`, `maker().context(..)?`, or a
        // `match` whose `Ok(c)` arms give `c` and whose other arms are `Err(..)`
        let mut core = strip(init);
        let (methods, inner) = unchain(core);
        if methods
            .iter()
            .all(|m| OK_KEEPING.contains(&m.method.to_string().as_str()))
        {
            core = inner;
        }
        if let syn::Expr::Match(m) = core
            && m.arms.iter().all(ok_or_err_arm)
        {
            core = strip(&m.expr);
        }
        if let syn::Expr::Call(c) = core
            && c.args.is_empty()
            && let Some(k) = name_of(&c.func)
        {
            self.done.insert(addr(strip(&c.func)));
            self.note(is_field(&c.func), k, Use::CallInto(n.to_string()));
        }
    }

    /// `v` gives the value of a name, borrowed (`&STATE.client`) or through `methods`
    /// only (`self.client.clone()`): notes that name's use as a copy into `n`.
    fn copy_into(&mut self, n: &str, v: &syn::Expr, methods: &[&str]) {
        // `let c = &STATE.client;`: the same client, borrowed
        let v = match strip(v) {
            syn::Expr::Reference(r) => strip(&r.expr),
            v => v,
        };
        let (steps, recv) = unchain(v);
        // `let client = CLIENT.get_or_init(..);` on a private static: its client
        let cell = |i: usize, m: &syn::ExprMethodCall| {
            i == 0 && self.is_static_cell(recv, &m.method.to_string())
        };
        if steps.iter().enumerate().all(|(i, m)| {
            (m.args.is_empty() && methods.iter().any(|k| m.method == k)) || cell(i, m)
        }) && let Some(b) = name_of(recv)
        {
            self.classified(v);
            self.done.insert(addr(strip(recv)));
            self.note(is_field(recv), b, Use::Copy(n.to_string()));
        }
    }

    /// Marks every expression of the chain `e` as classified: [`Self::method_chain`]
    /// does not read it again.
    fn classified(&mut self, e: &syn::Expr) {
        let mut spine = e;
        self.inner.insert(addr(spine));
        while let Some(next) = spine_step(spine) {
            spine = next;
            self.inner.insert(addr(spine));
        }
    }

    /// The tail of free function `f`'s body: a client chain (`Client::builder()..build()`)
    /// or a name holding one, as it is or built (`builder.build().expect(..)`, `Ok(c)`),
    /// goes where the function's calls go.
    fn returned(&mut self, f: &str, tail: &syn::Expr) {
        let mut e = strip(tail);
        // `Ok(x)`
        if let syn::Expr::Call(c) = e
            && c.args.len() == 1
            && matches!(strip(&c.func), syn::Expr::Path(p) if p.path.is_ident("Ok"))
        {
            e = strip(&c.args[0]);
        }
        // `match CLIENT.get_or_init(..) { Ok(c) => Ok(c), Err(e) => Err(..) }`
        if let syn::Expr::Match(m) = e
            && m.arms
                .iter()
                .all(|a| ok_or_err_arm(a) || ok_passed_on_arm(a))
        {
            e = strip(&m.expr);
        }
        if let Some(r) = root_offset(e) {
            self.flow.sinks.insert(r, Sink::Return(f.to_string()));
            return;
        }
        let (methods, recv) = unchain(e);
        // a private static filled once (`CLIENT.get_or_init(|| ..)`): its value
        let cell = |m: &&syn::ExprMethodCall| self.is_static_cell(recv, &m.method.to_string());
        if methods
            .iter()
            .all(|m| m.method == "build" || OK_KEEPING.iter().any(|k| m.method == k) || cell(m))
            && let Some(n) = name_of(recv)
        {
            self.classified(e);
            self.done.insert(addr(strip(recv)));
            self.note(is_field(recv), n, Use::Return);
        }
    }

    /// Notes each argument that is a name, or a borrow of one, as `use_of` its position.
    fn note_args<'e>(
        &mut self,
        args: impl Iterator<Item = (usize, &'e syn::Expr)>,
        use_of: impl Fn(usize) -> Use,
    ) {
        for (i, a) in args {
            let a = passed_value(a);
            // a clone of a client shares its pool and its settings (the call itself is
            // not classified again)
            let a = match a {
                syn::Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                    if name_of(&m.receiver).is_some() {
                        self.inner.insert(addr(a));
                    }
                    &*m.receiver
                }
                a => a,
            };
            if let Some(n) = name_of(a) {
                self.done.insert(addr(strip(a)));
                self.note(is_field(a), n, use_of(i));
            }
        }
    }

    /// Whether `method` called on `recv` fills a private static once and hands out its
    /// value (`CLIENT.get_or_init(..)`): the static's client.
    fn is_static_cell(&self, recv: &syn::Expr, method: &str) -> bool {
        matches!(method, "get_or_init" | "get_or_try_init")
            && name_of(recv).is_some_and(|n| self.private_statics.contains(&n))
    }

    /// Whether the argument of a stack's `.layer(..)` bounds every call through it: a
    /// timeout layer made there, or a local bound to one ([`Self::timeout_layers`]).
    fn bounds_calls(&self, layer: &syn::Expr) -> bool {
        is_timeout_layer(layer) || name_of(layer).is_some_and(|n| self.timeout_layers.contains(&n))
    }

    /// A method chain on a name: a request, or a `Debug` impl's `field(..)` arguments; or a
    /// stack with a timeout layer, and the names its other layers are made of.
    fn method_chain(&mut self, e: &syn::Expr) {
        let (methods, recv) = unchain(e);
        if let Some(outer) = root_offset(e) {
            for m in methods.iter().filter(|m| {
                matches!(m.method.to_string().as_str(), "or_else" | "unwrap_or_else")
                    && m.args.len() == 1
            }) {
                if let syn::Expr::Closure(c) = strip(&m.args[0])
                    && let Some(inner) = closure_tail(c).and_then(|t| root_offset(block_value(t)))
                {
                    self.fallbacks.push((outer, inner));
                }
            }
        }
        let layers = methods
            .iter()
            .filter(|m| m.method == "layer" && m.args.len() == 1);
        if layers.clone().any(|m| self.bounds_calls(&m.args[0])) {
            for m in layers {
                if let Some(a) = wrapped_name(&m.args[0]) {
                    self.done.insert(addr(a));
                    if let Some(n) = name_of(a) {
                        self.note(is_field(a), n, Use::Layered);
                    }
                }
            }
        }
        // tower's `ServiceBuilder::new()..layer(timeout)..service(client)`: the service
        // a stack with a timeout layer (or `.timeout(d)`) wraps
        if let Some(s) = methods
            .iter()
            .position(|m| m.method == "service" && m.args.len() == 1)
            && methods[..s].iter().any(|m| {
                m.args.len() == 1
                    && ((m.method == "layer" && self.bounds_calls(&m.args[0]))
                        || (m.method == "timeout" && is_service_builder(recv)))
            })
            && let Some(a) = wrapped_name(&methods[s].args[0])
        {
            self.done.insert(addr(a));
            if let Some(n) = name_of(a) {
                self.note(is_field(a), n, Use::Layered);
            }
        }
        // a name passed to a method of the file: `self.service(client)`, or on a parameter
        // of a type whose `impl` the file holds (`request.into_future(self.client.clone())`
        // with `request: Request<Body>`, mullvad's REST service)
        if let Some(first) = methods.first()
            && let Some(key) = self.passed_method(recv, &first.method.to_string())
        {
            self.note_args(first.args.iter().enumerate(), |i| {
                Use::PassToMethod(key.clone(), i)
            });
        }
        // `CLIENT.get_or_init(..).post(url)..`: a request on the private static's client
        let methods = match methods.split_first() {
            Some((cell, rest)) if self.is_static_cell(recv, &cell.method.to_string()) => rest,
            _ => &methods[..],
        };
        let names: Vec<String> = methods.iter().map(|m| m.method.to_string()).collect();
        if let Some(n) = name_of(recv)
            && let Some(first) = names.first()
        {
            let u = if REQUEST_METHODS.contains(&first.as_str()) {
                let sent = names
                    .iter()
                    .position(|m| SEND_METHODS.contains(&m.as_str()))
                    .unwrap_or(names.len());
                let timed = timed_before(methods, sent) || self.timed_depth > 0;
                if !timed
                    && let Some(fut) = self
                        .bound_requests
                        .get(&addr(e))
                        .or_else(|| self.async_lets.last()?.as_ref())
                {
                    let i = self.flow.uses.get(&n).map_or(0, Vec::len);
                    self.request_futures.push((n.clone(), i, fut.clone()));
                    self.flow
                        .futures
                        .entry(n.clone())
                        .or_default()
                        .insert(fut.clone());
                }
                Use::Request(timed)
            } else if first == "execute"
                && let [arg] = methods[0].args.iter().collect::<Vec<_>>()[..]
                && let Some(req) = name_of(arg)
            {
                // `client.execute(req)`: bounded when `req` was prepared with a timeout
                self.done.insert(addr(strip(arg)));
                if self.timed_depth > 0 {
                    Use::Request(true)
                } else {
                    Use::Execute(req)
                }
            } else if let Some(sent) = names
                .iter()
                .position(|m| SEND_METHODS.contains(&m.as_str()))
            {
                // a request builder bound to the name, sent
                Use::Send(timed_before(methods, sent) || self.timed_depth > 0)
            } else {
                Use::Other
            };
            self.done.insert(addr(strip(recv)));
            self.note(is_field(recv), n, u);
        }
        if names.iter().any(|m| m == "debug_struct") {
            for m in methods.iter().filter(|m| m.method == "field") {
                if let Some(v) = m.args.iter().nth(1) {
                    let v = match strip(v) {
                        syn::Expr::Reference(r) => &*r.expr,
                        v => v,
                    };
                    if let Some(n) = name_of(v) {
                        self.done.insert(addr(strip(v)));
                        self.note(is_field(v), n, Use::Debug);
                    }
                }
            }
        }
    }
}

/// Whether the chain `e` awaits (its value is a response, not a future).
fn awaits(mut e: &syn::Expr) -> bool {
    loop {
        if matches!(e, syn::Expr::Await(_)) {
            return true;
        }
        match spine_step(e) {
            Some(next) => e = next,
            None => return false,
        }
    }
}

/// The values a `let` may bind: the expression, or each arm of a `match` and each branch
/// of an `if` (blocks by their value).
fn branch_values(e: &syn::Expr) -> Vec<&syn::Expr> {
    match block_value(e) {
        syn::Expr::Match(m) => m.arms.iter().flat_map(|a| branch_values(&a.body)).collect(),
        syn::Expr::If(i) => {
            let mut out = block_value_of(&i.then_branch);
            if let Some((_, e)) = &i.else_branch {
                out.extend(branch_values(e));
            }
            out
        }
        e => vec![e],
    }
}

/// The tail expression of a block.
fn block_value_of(b: &syn::Block) -> Vec<&syn::Expr> {
    match b.stmts.last() {
        Some(syn::Stmt::Expr(e, None)) => branch_values(e),
        _ => Vec::new(),
    }
}

/// A timeout layer: `TimeoutLayer::new(..)` (tower's, tower-http's, opendal's), with the
/// builder methods that configure it (`TimeoutLayer::new().with_timeout(d)`).
fn is_timeout_layer(e: &syn::Expr) -> bool {
    let (_, inner) = unchain(strip(e));
    is_call_of(inner, "TimeoutLayer")
}

/// A call of `..::Type::new(..)`.
fn is_call_of(e: &syn::Expr, ty: &str) -> bool {
    matches!(e, syn::Expr::Call(c) if matches!(strip(&c.func), syn::Expr::Path(p)
        if super::attrs::is_new_of(&p.path, &[ty])))
}

/// tower's `ServiceBuilder::new()`, a chain's receiver.
fn is_service_builder(recv: &syn::Expr) -> bool {
    is_call_of(strip(recv), "ServiceBuilder")
}

/// Whether `e` makes a timeout layer anywhere inside it (a closure's, an `Either`'s):
/// `self.timeout.map(TimeoutLayer::new)`, `.map_or_else(.., |d|
/// Either::Right(TimeoutLayer::new(d)))`.
fn makes_timeout_layer(e: &syn::Expr) -> bool {
    struct Finds(bool);
    impl<'ast> Visit<'ast> for Finds {
        fn visit_path(&mut self, p: &'ast syn::Path) {
            self.0 |= super::attrs::is_new_of(p, &["TimeoutLayer"]);
        }
    }
    let mut f = Finds(false);
    f.visit_expr(e);
    f.0
}

/// The name a layer is made of through one-argument constructors
/// (`HttpClientLayer::new(HttpClient::with(c))`: `c`).
fn wrapped_name(mut e: &syn::Expr) -> Option<&syn::Expr> {
    for _ in 0..4 {
        e = match strip(e) {
            syn::Expr::Call(c) if c.args.len() == 1 => &c.args[0],
            syn::Expr::Reference(r) => &r.expr,
            e @ (syn::Expr::Path(_) | syn::Expr::Field(_)) => return Some(e),
            _ => return None,
        };
    }
    None
}

/// Whether one of the first `sent` methods of a request sets a timeout (not `None`).
fn timed_before(methods: &[&syn::ExprMethodCall], sent: usize) -> bool {
    let sets_timeout = |m: &syn::ExprMethodCall| {
        m.method == "timeout"
            && !matches!(m.args.first().map(strip),
                Some(syn::Expr::Path(p)) if p.path.is_ident("None"))
    };
    methods[..sent.min(methods.len())].iter().any(|m| {
        sets_timeout(m)
            // a request wrapper's `prepare(|request| request.timeout(d))`
            || m.args.iter().any(|a| {
                matches!(strip(a), syn::Expr::Closure(c)
                    if super::closure::applied_methods(c)
                        .is_some_and(|inner| inner.iter().any(|m| sets_timeout(m))))
            })
    })
}

/// `Ok(c) => c`, or any `Err(..)` arm.
fn ok_or_err_arm(a: &syn::Arm) -> bool {
    let syn::Pat::TupleStruct(t) = &a.pat else {
        return false;
    };
    if t.path.is_ident("Err") {
        return true;
    }
    if !t.path.is_ident("Ok") || t.elems.len() != 1 {
        return false;
    }
    match (&t.elems[0], strip(&a.body)) {
        (syn::Pat::Ident(i), syn::Expr::Path(p)) => i.subpat.is_none() && p.path.is_ident(&i.ident),
        _ => false,
    }
}

/// `Ok(c) => Ok(c)`: the arm hands the value on as it is.
fn ok_passed_on_arm(a: &syn::Arm) -> bool {
    let syn::Pat::TupleStruct(t) = &a.pat else {
        return false;
    };
    let syn::Expr::Call(c) = strip(&a.body) else {
        return false;
    };
    t.path.is_ident("Ok")
        && t.elems.len() == 1
        && c.args.len() == 1
        && matches!(strip(&c.func), syn::Expr::Path(p) if p.path.is_ident("Ok"))
        && matches!((&t.elems[0], strip(&c.args[0])), (syn::Pat::Ident(i), syn::Expr::Path(p))
            if i.subpat.is_none() && p.path.is_ident(&i.ident))
}

/// A call of `timeout(d, fut)` (`tokio::time::timeout`, imported or not): its future.
fn bounded_future(c: &syn::ExprCall) -> Option<&syn::Expr> {
    let syn::Expr::Path(p) = strip(&c.func) else {
        return None;
    };
    let last = p.path.segments.last()?;
    (last.ident == "timeout" && c.args.len() == 2).then(|| &c.args[1])
}

/// `d.timeout(fut)`: a duration's extension method bounding the request future it is
/// given, as `timeout(d, fut)` does (bitdrift's `TimeDurationExt::timeout`, pulse's
/// `self.timeout.timeout(self.inner.request(req)).await`): the future. Only a request
/// written in place (a method that starts or sends one): a request builder's own
/// `.timeout(d)` takes a duration.
fn duration_bounded_future(e: &syn::Expr) -> Option<&syn::Expr> {
    let syn::Expr::MethodCall(m) = e else {
        return None;
    };
    if m.method != "timeout" || m.args.len() != 1 {
        return None;
    }
    let fut = strip(&m.args[0]);
    let syn::Expr::MethodCall(request) = fut else {
        return None;
    };
    is_request_step(&request.method.to_string()).then_some(fut)
}

/// Finds `timeout(d, ..)` for one duration name `d`, also where the duration is made
/// from it (`timeout(Duration::from_millis(ms), ..)`).
struct BoundsWith<'a> {
    duration: &'a syn::Ident,
    found: bool,
}

impl<'ast> Visit<'ast> for BoundsWith<'_> {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if bounded_future(c).is_some() {
            let mut reads = Reads {
                name: self.duration,
                found: false,
            };
            reads.visit_expr(&c.args[0]);
            self.found |= reads.found;
        }
        visit::visit_expr_call(self, c);
    }
}

/// Finds a path that is one name (`ms` in `Duration::from_millis(ms)`).
struct Reads<'a> {
    name: &'a syn::Ident,
    found: bool,
}

impl<'ast> Visit<'ast> for Reads<'_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        self.found |= p.qself.is_none() && p.path.is_ident(self.name);
    }
}

/// `Some(d)`: the name it binds.
fn some_binding(p: &syn::Pat) -> Option<&syn::Ident> {
    let syn::Pat::TupleStruct(t) = p else {
        return None;
    };
    if !t.path.is_ident("Some") || t.elems.len() != 1 {
        return None;
    }
    match &t.elems[0] {
        syn::Pat::Ident(i) if i.subpat.is_none() => Some(&i.ident),
        _ => None,
    }
}

/// The pattern `None`.
fn is_none_pat(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::Ident(i) => i.ident == "None" && i.subpat.is_none() && i.by_ref.is_none(),
        syn::Pat::Path(n) => n.qself.is_none() && n.path.is_ident("None"),
        _ => false,
    }
}

/// An optional timeout: `if let Some(d) = x { .. timeout(d, fut) .. } else { B }` or
/// `match x { Some(d) => .. timeout(d, fut) .., None => B }`, the duration `d` itself or
/// made from it (`Some(ms) => timeout(Duration::from_millis(ms), fut)`). Its `B`: the branch taken
/// when no timeout is configured, whose requests count as timed (the code bounds its
/// request whenever a timeout is set; whether one is set is the configuration's choice).
fn optional_timeout(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::If(i) => {
            let syn::Expr::Let(l) = strip(&i.cond) else {
                return None;
            };
            let (_, unset) = i.else_branch.as_ref()?;
            let mut find = BoundsWith {
                duration: some_binding(&l.pat)?,
                found: false,
            };
            find.visit_block(&i.then_branch);
            find.found.then_some(&**unset)
        }
        syn::Expr::Match(m) if m.arms.len() == 2 => {
            let (set, unset) = if is_none_pat(&m.arms[1].pat) {
                (&m.arms[0], &m.arms[1])
            } else if is_none_pat(&m.arms[0].pat) {
                (&m.arms[1], &m.arms[0])
            } else {
                return None;
            };
            let mut find = BoundsWith {
                duration: some_binding(&set.pat)?,
                found: false,
            };
            find.visit_expr(&set.body);
            (set.guard.is_none() && unset.guard.is_none() && find.found).then_some(&*unset.body)
        }
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Pass {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        // a call of a free function of the file: where a client it returns goes
        if !self.in_test
            && let syn::Expr::Path(p) = strip(&c.func)
            && p.qself.is_none()
            && let Some(f) = p.path.get_ident()
        {
            let at = syn::spanned::Spanned::span(&p.path).byte_range().start;
            self.calls_at.entry(f.to_string()).or_default().push(at);
        }
        if let Some(fut) = bounded_future(c) {
            self.timed_exprs.insert(addr(fut));
            if let Some(n) = name_of(fut) {
                self.timed_futures.insert(n);
            }
        }
        // a name passed to a function of the file's `impl`s (`Self::check(&client)`, the
        // receiver of `Self::method(self, ..)` not counted)
        if let syn::Expr::Path(p) = strip(&c.func)
            && p.qself.is_none()
            && let [ty, f] = p.path.segments.iter().collect::<Vec<_>>()[..]
            && ty.arguments.is_none()
            && (ty.ident == "Self" || self.structs.contains(&ty.ident.to_string()))
            && let Some(Some((receiver, _))) = self.flow.method_params.get(&f.ident.to_string())
        {
            let skip = usize::from(*receiver);
            let name = f.ident.to_string();
            self.note_args(c.args.iter().enumerate().skip(skip), |i| {
                Use::PassToMethod(name.clone(), i - skip)
            });
        }
        // a name passed to a free function of this file (`fetch(&self.client, u)`), or to
        // one of a module path (`check(&client)`, `infra::cluster::check(&client)`)
        if let syn::Expr::Path(p) = strip(&c.func)
            && p.qself.is_none()
            && let Some(pass) = self.pass_kind(&p.path)
        {
            self.note_args(c.args.iter().enumerate(), pass);
        }
        // .. or to a function of a type another file declares (`RelayClient::new(url,
        // client, timeout)`), unless a stack it is made into has been classified already
        // (`.layer(HttpClientLayer::new(HttpClient::with(client)))` under a timeout layer)
        if let syn::Expr::Path(p) = strip(&c.func)
            && p.qself.is_none()
            && let Some((key, krate)) = self.foreign_assoc_fn(&p.path)
        {
            let unclassified: Vec<(usize, &syn::Expr)> = c
                .args
                .iter()
                .enumerate()
                .filter(|(_, a)| !self.done.contains(&addr(strip(passed_value(a)))))
                .collect();
            self.note_args(unclassified.into_iter(), |i| {
                Use::PassOut(key.clone(), i, krate.clone())
            });
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        // `b = b.tls_info(true);`: a builder's step assigned back to it
        if let Some(n) = name_of(&a.left) {
            let (methods, recv) = unchain(&a.right);
            let request = methods
                .iter()
                .any(|m| is_request_step(&m.method.to_string()));
            if !methods.is_empty() && !request && name_of(recv).as_deref() == Some(n.as_str()) {
                self.classified(&a.right);
                self.done.insert(addr(strip(&a.left)));
                self.done.insert(addr(strip(recv)));
                self.note(is_field(&a.left), n, Use::Rebind);
            }
        }
        // `self.client = Some(Arc::new(client));`: stored into the field, as in a struct
        // literal; writing a field (`self.client = None`) reads nothing of it
        if let syn::Expr::Field(f) = strip(&a.left)
            && let syn::Member::Named(field) = &f.member
        {
            self.done.insert(addr(strip(&a.left)));
            let field = field.to_string();
            let value = unwrap_wrappers(&a.right);
            if let Some(r) = root_offset(value) {
                self.flow.sinks.insert(r, Sink::Field(field.clone()));
            }
            if let Some(n) = name_of(value) {
                self.done.insert(addr(strip(value)));
                self.note(is_field(value), n, Use::Store(field));
            }
        }
        visit::visit_expr_assign(self, a);
    }

    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        // `if let Some(client) = self.client.clone()` (or `&self.client`, `.as_ref()`):
        // the field's client, under that name
        let bound = match &*l.pat {
            syn::Pat::Ident(i) if i.subpat.is_none() => Some(i.ident.to_string()),
            p => unwrapped_name(p),
        };
        if let Some(n) = bound {
            self.copy_into(&n, &l.expr, &["clone", "as_ref"]);
        }
        visit::visit_expr_let(self, l);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let outer = self.cur_fn.replace(f.sig.ident.to_string());
        let outer_method = self.cur_method.take();
        let outer_body = self.cur_body.take();
        let outer_params = std::mem::replace(
            &mut self.param_types,
            param_types(&f.sig, &self.owned_types),
        );
        let layers = std::mem::take(&mut self.timeout_layers);
        let outer_names = std::mem::replace(&mut self.cur_params, param_names(&f.sig));
        let was_test = self.enter_test(&f.attrs);
        if let Some(syn::Stmt::Expr(tail, None)) = f.block.stmts.last() {
            self.returned(&f.sig.ident.to_string(), tail);
        }
        visit::visit_item_fn(self, f);
        self.in_test = was_test;
        self.cur_params = outer_names;
        self.cur_fn = outer;
        self.cur_method = outer_method;
        self.cur_body = outer_body;
        self.param_types = outer_params;
        self.timeout_layers = layers;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let outer = self.cur_fn.take();
        let method = self.candidate(&f.sig.ident);
        let outer_method = std::mem::replace(&mut self.cur_method, method);
        let outer_body = self.cur_body.replace(self.bodies);
        self.bodies += 1;
        let outer_params = std::mem::replace(
            &mut self.param_types,
            param_types(&f.sig, &self.owned_types),
        );
        let layers = std::mem::take(&mut self.timeout_layers);
        let outer_names = std::mem::replace(&mut self.cur_params, param_names(&f.sig));
        let was_test = self.enter_test(&f.attrs);
        visit::visit_impl_item_fn(self, f);
        self.in_test = was_test;
        self.cur_params = outer_names;
        self.cur_fn = outer;
        self.cur_method = outer_method;
        self.cur_body = outer_body;
        self.param_types = outer_params;
        self.timeout_layers = layers;
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        let outer = self.cur_fn.take();
        let outer_method = self.cur_method.take();
        let outer_body = self.cur_body.replace(self.bodies);
        self.bodies += 1;
        visit::visit_trait_item_fn(self, f);
        self.cur_fn = outer;
        self.cur_method = outer_method;
        self.cur_body = outer_body;
    }

    fn visit_item_static(&mut self, st: &'ast syn::ItemStatic) {
        // `static CLIENT: LazyLock<Client> = LazyLock::new(|| Client::builder()..build()..)`:
        // a private static is named only in this file (and its child modules' files, as a
        // private field is), so its client goes where a field's goes
        // (also given the constructor as a function: `LazyLock::new(reqwest::Client::new)`)
        if matches!(st.vis, syn::Visibility::Inherited)
            && let Some(r) = lazy_init(&st.expr).and_then(initializer_root)
        {
            self.flow.sinks.insert(r, Sink::Field(st.ident.to_string()));
        }
        visit::visit_item_static(self, st);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let was_test = self.enter_test(&m.attrs);
        // a test module's file never runs in a deploy
        self.flow.child_files |= m.content.is_none() && !self.in_test;
        visit::visit_item_mod(self, m);
        self.in_test = was_test;
    }

    fn visit_field(&mut self, f: &'ast syn::Field) {
        if let Some(i) = &f.ident
            && !matches!(f.vis, syn::Visibility::Inherited)
        {
            self.flow.pub_fields.insert(i.to_string());
        }
        visit::visit_field(self, f);
    }

    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        // a `match` arm built only for tests or WebAssembly
        let was_test = self.enter_test(&a.attrs);
        visit::visit_arm(self, a);
        self.in_test = was_test;
    }

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        // a statement of test code or of a WebAssembly build (surrealdb's
        // `#[cfg(target_family = "wasm")] let res = req.send().await?;` beside the timed
        // native request)
        let attrs = match s {
            syn::Stmt::Local(l) => &l.attrs[..],
            syn::Stmt::Expr(e, _) => super::attrs::expr_attrs(e),
            syn::Stmt::Macro(m) => &m.attrs[..],
            syn::Stmt::Item(_) => &[],
        };
        let was_test = self.enter_test(attrs);
        visit::visit_stmt(self, s);
        self.in_test = was_test;
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        // `let client: HyperClient<_, Empty<Bytes>> = ..`: the pattern under the annotation
        let pat = match &l.pat {
            syn::Pat::Type(t) => &*t.pat,
            p => p,
        };
        if let (syn::Pat::Ident(i), Some(init)) = (pat, &l.init)
            && init.diverge.is_none()
        {
            self.bind(&i.ident.to_string(), &init.expr);
            if makes_timeout_layer(&init.expr) {
                self.timeout_layers.insert(i.ident.to_string());
            }
            // `let inner_fut = self.into_future_without_timeout(..);` (mullvad's REST
            // client, then `timeout(d, inner_fut)`)
            if !self.in_test
                && let Some(id) = called_method(&init.expr)
                && let Some(m) = self.candidate(id)
            {
                let at = id.span().byte_range().start;
                self.method_futures.push((m, i.ident.to_string(), at));
            }
            // `let fut = notify(client, url);` then `timeout(d, fut)` (lnurl-server)
            if !self.in_test
                && let syn::Expr::Call(c) = strip(&init.expr)
                && let syn::Expr::Path(f) = strip(&c.func)
                && let Some(f) = f.path.get_ident()
                && self.fn_candidates.contains(&f.to_string())
            {
                let at = f.span().byte_range().start;
                self.fn_futures
                    .push((f.to_string(), i.ident.to_string(), at));
            }
        }
        // `let (sender, conn) = http2::handshake(exec, io).await?;`: hyper's connection
        // client is the pair's first value; `let (sender, worker) = if tls { ..; (sender,
        // spawn(conn)) } else { .. };` passes each branch's first value on
        if let (Some(n), Some(init)) = (tuple_head(pat), &l.init)
            && init.diverge.is_none()
        {
            if makes_connection(&init.expr) {
                self.bind(&n, &init.expr);
            }
            for v in branch_values(&init.expr) {
                if let syn::Expr::Tuple(t) = strip(v)
                    && let Some(first) = t.elems.first()
                    && let Some(b) = name_of(first)
                {
                    self.done.insert(addr(strip(first)));
                    self.note(is_field(first), b, Use::Copy(n.clone()));
                }
            }
        }
        // `let Ok(client) = builder.build() else { return };`: the `Ok` value
        if let (Some(n), Some(init)) = (unwrapped_name(pat), &l.init)
            && init.diverge.is_some()
        {
            self.bind(&n, &init.expr);
        }
        if let (syn::Pat::Ident(i), Some(init)) = (pat, &l.init)
            && matches!(strip(&init.expr), syn::Expr::Async(_))
        {
            self.async_let = Some((addr(strip(&init.expr)), i.ident.to_string()));
        }
        visit::visit_local(self, l);
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        // only a struct of this file (`Self`, `Name`) has fields whose every use it sees
        let local = s.qself.is_none()
            && s.path
                .get_ident()
                .is_some_and(|i| i == "Self" || self.structs.contains(&i.to_string()));
        for f in s.fields.iter().filter(|_| local) {
            let syn::Member::Named(field) = &f.member else {
                continue;
            };
            let field = field.to_string();
            // `inner: Arc::new(reqwest::Client::new())` (cnosdb's meta client): the chain
            // the rules see starts inside the pointer
            let value = unwrap_wrappers(&f.expr);
            for r in fallback_roots(value) {
                self.flow.sinks.insert(r, Sink::Field(field.clone()));
            }
            if let Some(r) = root_offset(value) {
                self.flow.sinks.insert(r, Sink::Field(field.clone()));
            }
            // a clone shares the client's pool and settings (a `Clone` impl's `client:
            // self.client.clone()`: sequencer's remote component client)
            let value = match strip(value) {
                syn::Expr::MethodCall(m)
                    if m.method == "clone"
                        && m.args.is_empty()
                        && name_of(&m.receiver).is_some() =>
                {
                    self.inner.insert(addr(strip(value)));
                    &*m.receiver
                }
                v => v,
            };
            if let Some(n) = name_of(value) {
                self.done.insert(addr(strip(value)));
                self.note(is_field(value), n, Use::Store(field));
            }
        }
        visit::visit_expr_struct(self, s);
    }

    fn visit_pat_struct(&mut self, p: &'ast syn::PatStruct) {
        for f in &p.fields {
            let syn::Member::Named(field) = &f.member else {
                continue;
            };
            match &*f.pat {
                syn::Pat::Wild(_) => {}
                // `S { client }` binds a local of the same name
                syn::Pat::Ident(i) if i.ident == *field && i.subpat.is_none() => {}
                _ => self.note(false, field.to_string(), Use::Other),
            }
        }
        visit::visit_pat_struct(self, p);
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        // `CLIENT.get_or_init(|| Client::builder()..build()..)` on a private static: its
        // client goes where a private field's goes (as a `LazyLock` static's does); also
        // `CLIENT.get_or_init(reqwest::Client::new)` (jmap-matrix-bridge's upload client, a
        // static declared in the function)
        if let syn::Expr::MethodCall(m) = e
            && self.is_static_cell(&m.receiver, &m.method.to_string())
            && let [init] = &m.args.iter().collect::<Vec<_>>()[..]
            && let Some(r) = initializer_root(init)
            && let Some(n) = name_of(&m.receiver)
        {
            self.flow.sinks.insert(r, Sink::Field(n));
        }
        let timed = self.timed_exprs.remove(&addr(e));
        self.timed_depth += usize::from(timed);
        if matches!(
            e,
            syn::Expr::MethodCall(_) | syn::Expr::Try(_) | syn::Expr::Await(_)
        ) && !self.inner.contains(&addr(e))
        {
            // a chain is classified once, from its outermost expression
            self.classified(e);
            self.method_chain(e);
        }
        if let Some(unset) = optional_timeout(e) {
            self.timed_exprs.insert(addr(unset));
        }
        if let Some(fut) = duration_bounded_future(e) {
            self.timed_exprs.insert(addr(fut));
        }
        if let syn::Expr::Path(_) | syn::Expr::Field(_) = e
            && !self.done.contains(&addr(e))
            && let Some(n) = name_of(e)
        {
            self.note(is_field(e), n, Use::Other);
        }
        if let syn::Expr::Path(p) = e
            && !self.in_test
            && let Some(f) = p.path.get_ident()
        {
            let name = f.to_string();
            if self.timed_depth == 0 && self.fn_candidates.contains(&name) {
                let at = f.span().byte_range().start;
                self.note_untimed(Caller::Fn(name.clone()), at);
            }
            *self.mentions.entry(name).or_default() += 1;
        }
        if let syn::Expr::Call(c) = e
            && self.timed_depth > 0
            && !self.in_test
            && let syn::Expr::Path(p) = &*c.func
            && let Some(f) = p.path.get_ident()
        {
            *self.bounded_calls.entry(f.to_string()).or_default() += 1;
        }
        if !self.in_test {
            self.count_method_mention(e);
        }
        // the block a `let` binds to a name (`let N = async { .. }`), or code that may run
        // apart from it (a closure, another async block)
        let scoped = matches!(e, syn::Expr::Async(_) | syn::Expr::Closure(_));
        if scoped {
            let bound = self.async_let.take().filter(|(at, _)| *at == addr(e));
            self.async_lets.push(bound.map(|(_, n)| n));
        }
        visit::visit_expr(self, e);
        if scoped {
            self.async_lets.pop();
        }
        self.timed_depth -= usize::from(timed);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // a macro's body is not read: every name in it counts as an unknown use
        // (a segment of a path, `hyper_util::client::legacy::Error`, names no value)
        fn idents(ts: proc_macro2::TokenStream, out: &mut Vec<String>) {
            let toks: Vec<proc_macro2::TokenTree> = ts.into_iter().collect();
            let colon = |k: usize| matches!(toks.get(k), Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ':');
            let in_path = |k: usize| (k > 0 && colon(k - 1)) || (colon(k + 1) && colon(k + 2));
            for (k, t) in toks.iter().enumerate() {
                match t {
                    proc_macro2::TokenTree::Ident(i) if !in_path(k) => out.push(i.to_string()),
                    proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                    _ => {}
                }
            }
        }
        // `include!` brings in code this pass does not read
        self.flow.includes |= m.path.is_ident("include");
        let mut names = Vec::new();
        idents(m.tokens.clone(), &mut names);
        for n in names {
            self.note(false, n, Use::Other);
        }
    }
}
