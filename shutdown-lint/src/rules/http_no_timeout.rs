//! `http-no-timeout`: an HTTP client or one-shot request with no overall timeout.

use super::{RuleContext, RuleMeta};
use crate::finding::{Finding, Region};
use crate::model::{ArgValue, Chain, FileModel};
use crate::resolve::known::{self, HttpKind, HttpLib};
use std::time::Duration;

/// Timeouts that bound one phase of a request (connecting, one read or write), not the
/// whole of it.
const PARTIAL_TIMEOUTS: &[&str] = &[
    "connect_timeout",
    "read_timeout",
    "timeout_connect",
    "timeout_read",
    "timeout_write",
    // ureq 3's phases: one unset (the body's read, say) leaves the request unbounded
    "timeout_resolve",
    "timeout_send_request",
    "timeout_await_100",
    "timeout_send_body",
    "timeout_recv_response",
    "timeout_recv_body",
];

/// The setting that bounds a whole request on the builder `ch` starts: ureq 3's
/// `ConfigBuilder` (`Agent::config_builder()`, `Config::builder()`) has `timeout_global`
/// where ureq 2 and reqwest have `timeout`.
fn overall_timeout(lib: &HttpLib, ch: &Chain) -> &'static str {
    let root = ch.root_str();
    if lib.name == known::UREQ.name
        && (root.ends_with("::config_builder") || root.contains("::config::"))
    {
        "timeout_global"
    } else {
        "timeout"
    }
}

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::HTTP_NO_TIMEOUT;

/// Steps that send a prepared request.
const SEND_METHODS: &[&str] = &[
    "call",
    "send",
    "send_json",
    "send_string",
    "send_form",
    "send_bytes",
    "send_empty",
    "send_async",
];

/// The HTTP constructor a chain starts with, if any (config wrappers included).
pub fn http_ctor(ch: &Chain, wrappers: &[String]) -> Option<(HttpKind, &'static HttpLib)> {
    let root = ch.root_str();
    if let Some((_, kind, lib)) = known::HTTP_CTORS.iter().find(|(p, _, _)| *p == root) {
        return Some((*kind, lib));
    }
    if wrappers.iter().any(|w| w.trim_start_matches("::") == root) {
        return Some((HttpKind::Client, &known::WRAPPER));
    }
    None
}

/// A client made for one request whose builder sets an overall timeout before sending it:
/// `reqwest::Client::new().get(url).timeout(d).send()` (atuin `fetch_models`).
fn one_request_with_timeout(lib: &HttpLib, steps: &[crate::model::Step]) -> bool {
    let Some(req) = steps
        .iter()
        .position(|s| crate::collect::flow::REQUEST_METHODS.contains(&s.name.as_str()))
    else {
        return false;
    };
    let send = steps[req..]
        .iter()
        .position(|s| SEND_METHODS.contains(&s.name.as_str()))
        .map_or(steps.len(), |i| req + i);
    timeout_set(lib, &steps[req + 1..send]) == Some(true)
}

/// A client bound to a name that is only used for requests which each set an overall
/// timeout before they are sent (`let c = reqwest::blocking::Client::new();
/// c.get(url).timeout(d).send()`), and never passed on or stored.
fn only_requests_with_timeout(
    model: &FileModel,
    made: &crate::model::ChainUse,
    lib: &HttpLib,
) -> bool {
    let Some(origin) = made.chain.origin else {
        return false;
    };
    if made.escapes || made.usage != crate::model::Usage::Kept {
        return false;
    }
    // a use of what a request made from it returns (`.send().map(|resp| resp.status())`,
    // a prepared request bound and sent later) is no use of the client
    let on_request = |ch: &Chain| {
        ch.steps[..ch.inherited.min(ch.steps.len())]
            .iter()
            .any(|s| crate::collect::flow::is_request_step(&s.name))
    };
    let mut uses = model
        .resolved_chains()
        .filter(|cu| cu.chain.via_binding && cu.chain.origin == Some(origin))
        .filter(|cu| !on_request(&cu.chain))
        .peekable();
    uses.peek().is_some()
        && uses.all(|cu| one_request_with_timeout(lib, &cu.chain.steps[cu.chain.inherited..]))
}

/// A client that only reaches private fields and locals of this file, on which every
/// request sets an overall timeout (`self.client.get(url).timeout(d)`): read from the
/// file's [`crate::collect::flow::ClientFlow`], by the offset of the chain's root.
fn timed_per_request(model: &FileModel, ch: &Chain) -> bool {
    model
        .client_flow
        .as_ref()
        .is_some_and(|f| f.per_request_timeouts(ch.root_region.offset))
}

/// How a timeout method was applied in `steps`: `Some(true)` set, `Some(false)` disabled
/// with `None`, `None` never called.
fn timeout_set(lib: &HttpLib, steps: &[crate::model::Step]) -> Option<bool> {
    let mut state = None;
    for s in steps {
        if lib.timeout_methods.contains(&s.name.as_str()) {
            state = Some(!matches!(s.args.first(), Some(ArgValue::NoneLit)));
        }
    }
    state
}

fn display(ch: &crate::model::Chain, kind: HttpKind) -> String {
    let call = |p: &str| match kind {
        HttpKind::OneShot | HttpKind::Request => format!("`{p}(..)`"),
        _ => format!("`{p}()`"),
    };
    // as written first (`HttpClient::builder()` after `use reqwest::Client as HttpClient`)
    crate::model::as_written(ch.written.as_deref(), &ch.root_str(), call)
}

/// What a client without a timeout of its own waits for: forever, or its library's implicit
/// default — said to be longer than the drain budget when it is (reqwest's blocking 30 s
/// against a 25 s budget is no bound the drain can wait out).
fn default_note(lib: &HttpLib, budget: Option<Duration>) -> String {
    match lib.default_timeout {
        Some(d) => {
            let over = match budget {
                Some(b) if d > b => {
                    format!(", longer than the drain budget of {} s", b.as_secs_f64())
                }
                _ => String::new(),
            };
            format!(
                "relies on {}'s implicit {} s default timeout{over}",
                lib.name,
                d.as_secs()
            )
        }
        None => "has no overall timeout".to_string(),
    }
}

/// HTTP clients without an overall timeout: region, item, message, help.
pub fn clients_without_timeout(
    model: &FileModel,
    wrappers: &[String],
) -> Vec<(Region, String, String, &'static str)> {
    clients_without_timeout_in(model, wrappers, None)
        .into_iter()
        .map(|(r, i, m, h, _)| (r, i, m, h))
        .collect()
}

/// The regions of the clients [`clients_without_timeout`] reports, each with the offset of
/// its chain's root when the file's client flow could still clear it through functions of
/// other files ([`crate::collect::flow::ClientFlow::timed_given`]).
pub fn client_roots(model: &FileModel, wrappers: &[String]) -> Vec<(Region, Option<usize>)> {
    clients_without_timeout_in(model, wrappers, None)
        .into_iter()
        .map(|(r, _, _, _, root)| (r, root))
        .collect()
}

/// A reported client: region, item, message, help, and the offset of the chain's root when
/// the client flow was asked (and may be answered across files, [`client_roots`]).
type Reported = (Region, String, String, &'static str, Option<usize>);

/// The offset a client's flow is keyed by, for a chain whose verdict read it.
fn flow_root(kind: HttpKind, ch: &Chain) -> Option<usize> {
    matches!(kind, HttpKind::Client | HttpKind::Builder).then_some(ch.root_region.offset)
}

/// [`clients_without_timeout`], the messages measuring implicit defaults against `budget`.
fn clients_without_timeout_in(
    model: &FileModel,
    wrappers: &[String],
    budget: Option<Duration>,
) -> Vec<Reported> {
    let mut found = Vec::new();
    // builders bound to a name and reported at one `.build()` already: built again (in
    // another branch, sp1's `if token { b.default_headers(h).build()? } else { b.build()? }`),
    // it is the same client to fix
    let mut reported_builders = std::collections::HashSet::new();
    for cu in model.resolved_chains() {
        let ch = &cu.chain;
        let Some((kind, lib)) = http_ctor(ch, wrappers) else {
            continue;
        };
        // wrapped in a tower stack that bounds every call (`TimeoutLayer`)
        if cu.calls_bounded {
            continue;
        }
        let item = cu.ctx.item.clone();
        match kind {
            // a timeout is not required of a gRPC channel (`http-timeout-over-budget` checks
            // the one it sets)
            HttpKind::Channel => {}
            HttpKind::Client | HttpKind::OneShot => {
                if ch.via_binding
                    || one_request_with_timeout(lib, &ch.steps)
                    || (kind == HttpKind::Client && only_requests_with_timeout(model, cu, lib))
                    || (kind == HttpKind::Client && timed_per_request(model, ch))
                {
                    continue;
                }
                let what = if kind == HttpKind::OneShot {
                    "sends through a default client that"
                } else {
                    "builds a client that"
                };
                let msg = format!("{} {what} {}", display(ch, kind), default_note(lib, budget));
                found.push((ch.root_region, item, msg, lib.help, flow_root(kind, ch)));
            }
            HttpKind::Request => {
                let Some(i) = ch
                    .steps
                    .iter()
                    .position(|s| SEND_METHODS.contains(&s.name.as_str()))
                else {
                    continue;
                };
                if !ch.is_local_step(i) {
                    continue;
                }
                match timeout_set(lib, &ch.steps[..i]) {
                    Some(true) => {}
                    state => {
                        let note = if state == Some(false) {
                            "disables its timeout".to_string()
                        } else {
                            default_note(lib, budget)
                        };
                        let msg = format!("request made with {} {note}", display(ch, kind));
                        found.push((ch.steps[i].region, item, msg, lib.help, None));
                    }
                }
            }
            HttpKind::Builder => {
                let Some(i) = ch
                    .steps
                    .iter()
                    .position(|s| lib.build_methods.contains(&s.name.as_str()))
                else {
                    continue;
                };
                if !ch.is_local_step(i) {
                    continue;
                }
                let before = &ch.steps[..i];
                let region = if ch.via_binding {
                    ch.steps[i].region
                } else {
                    ch.root_region
                };
                if lib.timeout_methods.is_empty() {
                    // every request bounded by `tokio::time::timeout(d, ..)` is the fix
                    if timed_per_request(model, ch) {
                        continue;
                    }
                    // nothing at the build could fix it: point at the constructor
                    let region = ch.root_region;
                    let msg = format!(
                        "{}'s client built by {} has no timeout setting at all",
                        lib.name,
                        display(ch, kind)
                    );
                    found.push((region, item, msg, lib.help, flow_root(kind, ch)));
                    continue;
                }
                match timeout_set(lib, before) {
                    // the fallback, when the build fails, is the library's default client
                    // (crypto-bot-rs: `..timeout(d).build().unwrap_or_default()`); for
                    // `reqwest::blocking` one with its implicit 30 s, reported as
                    // `blocking::Client::new()` is (jmapsmtp)
                    Some(true)
                        if !timed_per_request(model, ch)
                            && let Some(fallback) = ch.steps[i + 1..]
                                .iter()
                                .find(|s| s.name == "unwrap_or_default") =>
                    {
                        let msg = format!(
                            "client built by {} with `.{}(..)` falls back to the default client when the build \
                             fails (`.unwrap_or_default()`), which {}",
                            display(ch, kind),
                            overall_timeout(lib, ch),
                            default_note(lib, budget)
                        );
                        let help = "handle the build's error (`.build()?`, `.expect(..)`), or \
                                    fall back to a client built with a timeout too";
                        found.push((fallback.region, item, msg, help, None));
                    }
                    Some(true) => {}
                    Some(false) => {
                        let msg = format!(
                            "client built by {} with `.{}(None)` has no overall timeout",
                            display(ch, kind),
                            overall_timeout(lib, ch)
                        );
                        found.push((region, item, msg, lib.help, None));
                    }
                    None if timed_per_request(model, ch) => {}
                    // built for one request that sets its own timeout, in the same chain
                    // (Qovery's `blocking::Client::builder()..build()?.put(url)..timeout(d).send()`)
                    None if one_request_with_timeout(lib, &ch.steps[i + 1..]) => {}
                    None => {
                        // the partial timeouts it does set, which a reader takes for one
                        let mut partial: Vec<String> = Vec::new();
                        for s in before
                            .iter()
                            .filter(|s| PARTIAL_TIMEOUTS.contains(&s.name.as_str()))
                        {
                            let shown = format!("`.{}(..)`", s.name);
                            if !partial.contains(&shown) {
                                partial.push(shown);
                            }
                        }
                        let extra = match partial.as_slice() {
                            [] => String::new(),
                            [one] => format!(" ({one} alone does not bound a whole request)"),
                            many => format!(
                                " ({} alone do not bound a whole request)",
                                many.join(" and ")
                            ),
                        };
                        // a builder a helper of the workspace returned: say which
                        let by = match &ch.via {
                            // a method (`self.client_builder()`): written with its call
                            Some(helper) if helper.ends_with(')') => {
                                format!("`.{helper}` (a {} chain)", display(ch, kind))
                            }
                            Some(helper) => {
                                format!("`{helper}(..)` (a {} chain)", display(ch, kind))
                            }
                            // built through a binding: where its chain starts, when the
                            // finding (at `.build()`) is on another line
                            None if ch.via_binding && ch.root_region.line != region.line => {
                                format!("{} (line {})", display(ch, kind), ch.root_region.line)
                            }
                            None => display(ch, kind),
                        };
                        if ch.via_binding
                            && let Some(origin) = ch.origin
                            && !reported_builders.insert(origin)
                        {
                            continue;
                        }
                        let msg = format!(
                            "client built by {by} without `.{}(..)` {}{extra}",
                            overall_timeout(lib, ch),
                            default_note(lib, budget)
                        );
                        found.push((region, item, msg, lib.help, flow_root(kind, ch)));
                    }
                }
            }
        }
    }
    for r in &model.refs {
        let p = r.path.join("::");
        let ctor = known::HTTP_CTORS
            .iter()
            .find(|(c, _, _)| *c == p)
            .map(|(_, k, l)| (*k, *l));
        let ctor = ctor.or_else(|| {
            wrappers
                .iter()
                .any(|w| w.trim_start_matches("::") == p)
                .then_some((HttpKind::Client, &known::WRAPPER))
        });
        // a private static's constructor whose every request sets its own timeout
        // (`CLIENT.get_or_init(reqwest::Client::new)`, `LazyLock::new(Client::new)`)
        if ctor.is_some_and(|(k, _)| k == HttpKind::Client)
            && model
                .client_flow
                .as_ref()
                .is_some_and(|f| f.per_request_timeouts(r.region.offset))
        {
            continue;
        }
        if let Some((kind @ (HttpKind::Client | HttpKind::OneShot), lib)) = ctor {
            let what = if kind == HttpKind::OneShot {
                "sends through a default client that"
            } else {
                "builds a client that"
            };
            let msg = format!(
                "`{p}` passed as a function {what} {}",
                default_note(lib, budget)
            );
            found.push((r.region, r.ctx.item.clone(), msg, lib.help, None));
        }
    }
    found
}

/// Reports HTTP clients without timeouts.
pub fn check(cx: &RuleContext<'_>, out: &mut Vec<Finding>) {
    for (region, item, message, help, _) in
        clients_without_timeout_in(cx.model, &cx.config.http_no_timeout, cx.config.drain_budget)
    {
        out.push(cx.finding(&META, region, &item, message, help));
    }
}
