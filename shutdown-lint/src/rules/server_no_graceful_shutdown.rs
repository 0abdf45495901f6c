//! `server-no-graceful-shutdown`: an HTTP/gRPC server whose serving future is given no
//! shutdown signal, and hyper-util's `TokioExecutor`, whose connection tasks are raw spawns.

use super::{RuleContext, RuleMeta};
use crate::finding::{Finding, Region};
use crate::model::{ChainUse, FileModel};
use crate::resolve::known::{self, ServerApi};
use std::collections::BTreeMap;

/// Metadata and documentation.
pub const META: RuleMeta = crate::registry::SERVER_NO_GRACEFUL_SHUTDOWN;

/// What the help adds to each server's own advice.
const RUNTIME_HELP: &str =
    "or serve through `shutdown_runtime::server`, which drains connections on SIGTERM";

/// A server started without a shutdown signal, or a `TokioExecutor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSite {
    /// Where (the serving call).
    pub region: Region,
    /// Byte offset of the root of the server's chain (of the executor's constructor).
    pub root: usize,
    /// Enclosing item.
    pub item: String,
    /// Message.
    pub message: String,
    /// Help.
    pub help: String,
}

/// Reports servers without graceful shutdown.
pub fn check(cx: &RuleContext<'_>, out: &mut Vec<Finding>) {
    for s in sites(cx.model) {
        out.push(cx.finding(&META, s.region, &s.item, s.message, &s.help));
    }
}

/// Every site of a file, in source order.
pub fn sites(model: &FileModel) -> Vec<ServerSite> {
    // the chains of one serving value: the call itself and the uses of a binding of it
    let mut groups: BTreeMap<(usize, usize), (&ServerApi, Vec<&ChainUse>)> = BTreeMap::new();
    let mut out = Vec::new();
    for cu in &model.chains {
        let root = cu.chain.root_str();
        if !cu.chain.via_binding && known::TOKIO_EXECUTOR.contains(&root.as_str()) {
            if wrapper_spawns_itself(model, &cu.ctx.item)
                || executor_of_http1_only(model, cu.chain.root_region.offset)
                || executor_of_client(model, cu.chain.root_region.offset)
            {
                continue;
            }
            out.push(ServerSite {
                region: cu.chain.root_region,
                root: cu.chain.root_region.offset,
                item: cu.ctx.item.clone(),
                message: "`hyper_util::rt::TokioExecutor` starts every connection task with a raw `tokio::spawn`, which shutdown cannot drain".into(),
                help: "use the tracked executor of `shutdown_runtime::server`, so connections are named tasks that shutdown drains".into(),
            });
            continue;
        }
        for (i, api) in known::SERVERS.iter().enumerate() {
            if api.roots.contains(&root.as_str()) {
                groups
                    .entry((cu.chain.root_region.offset, i))
                    .or_insert((api, Vec::new()))
                    .1
                    .push(cu);
            }
        }
    }
    for (key, (api, uses)) in &groups {
        // the implementation of a connection type (hyper-util's `auto::Builder`): serving in
        // a method that itself serves (`serve_connection` delegating to an inner builder)
        // or polls the connection along; a method that builds a builder of its own and
        // awaits the connection drives it to its end, so nothing can ask it to shut down
        if uses.iter().all(|u| {
            implements_serving(model, &u.ctx.item) && (u.chain.received || !awaits_serving(u, api))
        }) {
            continue;
        }
        // a server that drains on SIGTERM by itself, unless told not to
        if let Some(off) = api.drains_unless
            && !uses
                .iter()
                .any(|u| u.chain.steps.iter().any(|s| s.name == off))
        {
            continue;
        }
        if api.serve_returns_handle && !handle_judged_here(uses, api) {
            continue;
        }
        // a graceful method called in the function on a value the chains lost track of
        // counts, unless another server of the function calls it in its own chain (two
        // servers, one graceful: the call is that one's)
        let claimed = |item: &str, names: &[&str]| {
            groups.iter().any(|(k, (_, other))| {
                k != key
                    && other.iter().any(|u| {
                        u.ctx.item == item
                            && u.chain
                                .steps
                                .iter()
                                .any(|s| names.contains(&s.name.as_str()))
                    })
            })
        };
        let calls = |names: &[&str], with_args: bool| {
            uses.iter().any(|u| {
                u.chain
                    .steps
                    .iter()
                    .any(|s| names.contains(&s.name.as_str()))
                    || (item_calls_any(model, &u.ctx.item, names, with_args)
                        && !claimed(&u.ctx.item, names))
            }) || handed_to_graceful_fn(model, uses, names)
                || handed_to_graceful_poll(model, uses, names)
                || kept_by_graceful_type(model, uses, names)
        };
        if calls(api.graceful, api.graceful_takes_arg)
            && api
                .drain_wait
                .is_none_or(|w| calls(&[w], false) && !waits_only_before(uses, api.graceful, w))
        {
            continue;
        }
        // where it starts serving: the root call, or each serving method written here (a
        // server built once and run in either branch of an `if`: TLS or not)
        let starts: Vec<(Region, &ChainUse, String)> = if api.serve.is_empty() {
            uses.iter()
                .find(|u| !u.chain.via_binding)
                .map(|u| {
                    // as written, then what it is when that differs (`axum_0_7::serve`)
                    let shown = crate::model::as_written(
                        u.chain.written.as_deref(),
                        &u.chain.root_str(),
                        |p| format!("`{p}`"),
                    );
                    (u.chain.root_region, *u, shown)
                })
                .into_iter()
                .collect()
        } else {
            let serving = |u: &ChainUse, i: usize| {
                u.chain.is_local_step(i) && api.serve.contains(&u.chain.steps[i].name.as_str())
            };
            // warp 0.4 binds, then runs what it bound (`let server = warp::serve(f)
            // .bind(addr).await; .. server.run().await`): one server, which serves where
            // it runs — a serving method counts only with none after it on the same value
            let served_later = uses
                .iter()
                .any(|w| w.chain.via_binding && (0..w.chain.steps.len()).any(|i| serving(w, i)));
            let mut all: Vec<(Region, &ChainUse, String)> = Vec::new();
            for u in uses {
                if served_later && !u.chain.via_binding {
                    continue;
                }
                let last = (0..u.chain.steps.len()).rev().find(|&i| serving(u, i));
                if let Some(i) = last
                    && !all.iter().any(|(r, _, _)| *r == u.chain.steps[i].region)
                {
                    let s = &u.chain.steps[i];
                    all.push((s.region, *u, format!("{} `.{}(..)`", api.name, s.name)));
                }
            }
            all
        };
        let instead = api.missing.map_or_else(
            || {
                api.graceful
                    .iter()
                    .map(|g| format!("`{g}`"))
                    .collect::<Vec<_>>()
                    .join(" / ")
            },
            str::to_string,
        );
        // one connection (hyper's `serve_connection`) or a whole server
        let cost = if api.serve.iter().any(|s| s.starts_with("serve_connection")) {
            "an idle keep-alive connection is never told to close (a drain waiting for it \
             waits out its whole budget), and requests in flight are cut when the process exits"
        } else if api.blocking {
            "it never drains: it serves on threads of its own until the process exits, and \
             then cuts every connection and request in flight"
        } else if api.serve_returns_handle {
            "it never drains: it serves until the process exits, and then cuts every \
             connection and request in flight"
        } else {
            "it never drains: it accepts until its future is dropped or the process exits, \
             and then cuts every connection and request in flight"
        };
        for (region, u, what) in starts {
            out.push(ServerSite {
                region,
                root: key.0,
                item: u.ctx.item.clone(),
                message: format!("{what} serves with no graceful shutdown (no {instead}): {cost}"),
                help: if api.runtime_server {
                    format!("{}; {RUNTIME_HELP}", api.help)
                } else {
                    api.help.to_string()
                },
            });
        }
    }
    out.sort_by_key(|s| s.region.offset);
    out
}

/// Whether the executor at `offset` is the argument of a hyper-util `auto::Builder::new(..)`
/// told `.http1_only()` (dragonfly's proxy): HTTP/1 connections spawn nothing on it.
fn executor_of_http1_only(model: &FileModel, offset: usize) -> bool {
    model.chains.iter().any(|cu| {
        let c = &cu.chain;
        !c.via_binding
            && c.root_str() == "hyper_util::server::conn::auto::Builder::new"
            && c.root_region.offset < offset
            && c.steps.first().is_some_and(|s| offset < s.region.offset)
            && c.steps.iter().any(|s| s.name == "http1_only")
    })
}

/// Whether the executor at `offset` is an argument of an HTTP client's constructor
/// (`hyper_util::client::legacy::Client::builder(TokioExecutor::new())`,
/// `hyper::client::conn::http2::Builder::new(exec)`: kona's engine and L2 clients, plane's
/// proxy client): it runs the client's connection tasks, which carry the requests the
/// service's own tasks await — those the drain waits for —, not a server's connections.
fn executor_of_client(model: &FileModel, offset: usize) -> bool {
    // bound to a name first (magic-nix-cache's `let executor = TokioExecutor::new();` then
    // `http2::handshake(executor, stream)`)
    model.client_executors.contains(&offset)
        || model
            .chains
            .iter()
            .filter(|cu| !cu.chain.via_binding && cu.chain.root_region.offset < offset)
            .max_by_key(|cu| cu.chain.root_region.offset)
            .is_some_and(|cu| {
                cu.chain
                    .steps
                    .first()
                    .is_none_or(|s| offset < s.region.offset)
                    && known::http_ctor(&cu.chain.root_str()).is_some()
            })
}

/// Whether every wait for the drain (`wait`, jsonrpsee's `stopped()`) written on the
/// server's chains comes before its first stop (`stop()`): the wait then races the stop
/// (`select! { _ = handle.stopped() => .., _ = sigterm.recv() => { handle.stop(); } }`, and
/// nothing waits once it is stopped). `false` when either is not written on the chains.
fn waits_only_before(uses: &[&ChainUse], stop: &[&str], wait: &str) -> bool {
    let offsets = |names: &[&str]| -> Vec<usize> {
        uses.iter()
            .flat_map(|u| {
                u.chain
                    .steps
                    .iter()
                    .enumerate()
                    .filter(|&(i, s)| u.chain.is_local_step(i) && names.contains(&s.name.as_str()))
                    .map(|(_, s)| s.region.offset)
            })
            .collect()
    };
    match (
        offsets(stop).into_iter().min(),
        offsets(&[wait]).into_iter().max(),
    ) {
        (Some(first_stop), Some(last_wait)) => last_wait < first_stop,
        _ => false,
    }
}

/// Whether a server whose serving method returns a handle (jsonrpsee's `start(..)`) is
/// controlled here: the handle never leaves the function (returned, stored, passed on),
/// and some method is called on it (`handle.stopped()`, `handle.clone()`), so what this
/// function does with it is all that is done.
fn handle_judged_here(uses: &[&ChainUse], api: &ServerApi) -> bool {
    if uses.iter().any(|u| u.escapes) {
        return false;
    }
    uses.iter().any(|u| {
        u.chain
            .steps
            .iter()
            .position(|s| api.serve.contains(&s.name.as_str()))
            .is_some_and(|i| i + 1 < u.chain.steps.len())
    })
}

/// Whether the serving value is passed on (`serve(conn, token)`) from its function to a
/// function of this file that calls one of `names` on what it was given (quickwit's
/// `serve_connection(fut, token, ..)`, which calls `conn.graceful_shutdown()` on cancel).
fn handed_to_graceful_fn(model: &FileModel, uses: &[&ChainUse], names: &[&str]) -> bool {
    let Some(first) = uses.first() else {
        return false;
    };
    if !uses.iter().any(|u| u.escapes) {
        return false;
    }
    let callees: Vec<&str> = model
        .fns
        .iter()
        .filter(|f| f.item == first.ctx.item)
        .flat_map(|f| f.calls.iter().filter(|c| !c.method).map(|c| c.name))
        .collect();
    model.fns.iter().any(|f| {
        let name = f.item.rsplit("::").next().unwrap_or(&f.item);
        !f.method && callees.contains(&name) && f.calls.iter().any(|c| graceful_call(c, names))
    })
}

/// Whether the serving value leaves its function (returned, stored, passed on) in a file
/// whose own future wrapper calls one of `names` in its `poll` (matrix-authentication-
/// service's `AbortableConnection`, which calls `this.connection.as_mut()
/// .graceful_shutdown()` once its cancellation token fires): the connection is driven by
/// that wrapper.
fn handed_to_graceful_poll(model: &FileModel, uses: &[&ChainUse], names: &[&str]) -> bool {
    uses.iter().any(|u| u.escapes)
        && model
            .fns
            .iter()
            .filter(|f| f.method && f.item.ends_with("::poll"))
            .any(|f| f.calls.iter().any(|c| graceful_call(c, names)))
}

/// Whether the serving value leaves a method of a type (stored in what the method builds:
/// `Self { connection: Some(conn) }`) whose own methods call one of `names` on what it
/// holds (mirrord's `ExtractedRequests`, whose `graceful_shutdown(&mut self)` calls
/// `Pin::new(conn).graceful_shutdown()` on its connection): whoever owns the value asks
/// the connection to shut down through that method.
fn kept_by_graceful_type(model: &FileModel, uses: &[&ChainUse], names: &[&str]) -> bool {
    let owner = |item: &str| item.rsplit_once("::").map(|(o, _)| o.to_string());
    uses.iter().any(|u| {
        u.escapes
            && owner(&u.ctx.item).is_some_and(|o| {
                model.fns.iter().any(|f| {
                    f.method
                        && owner(&f.item).as_deref() == Some(o.as_str())
                        && f.calls.iter().any(|c| graceful_call(c, names))
                })
            })
    })
}

/// Whether the `TokioExecutor` made in `item` (`TaskExecutor::new`) is kept by a wrapper
/// whose own `execute` spawns (a call or macro naming `spawn`) and never hands the future
/// on to an inner `execute`: hyper runs the wrapper's `execute`, so the `TokioExecutor`
/// starts nothing (the wrapper's spawn is `raw-spawn`'s to judge).
fn wrapper_spawns_itself(model: &FileModel, item: &str) -> bool {
    let Some((owner, _)) = item.rsplit_once("::") else {
        return false;
    };
    let execute = format!("{owner}::execute");
    model
        .fns
        .iter()
        .filter(|f| f.method && f.item == execute)
        .any(|f| {
            f.calls.iter().any(|c| c.name.contains("spawn"))
                && !f.calls.iter().any(|c| c.method && c.name == "execute")
        })
}

/// Whether the function `item` calls a method named one of `names` (a graceful shutdown
/// written on a value the chains lost track of, e.g. `Pin::new(&mut conn).graceful_shutdown()`).
/// With `with_args`, only a call passing arguments counts (axum-server's `.handle(h)`, not
/// tokio's `Runtime::handle()`).
pub(crate) fn item_calls_any(
    model: &FileModel,
    item: &str,
    names: &[&str],
    with_args: bool,
) -> bool {
    model.fns.iter().filter(|f| f.item == item).any(|f| {
        f.calls
            .iter()
            .any(|c| graceful_call(c, names) && (c.with_args || !with_args))
    })
}

/// Whether `c` is a method call named one of `names`; hyper-util's
/// `GracefulShutdown::watch(conn)` takes the connection, so a `watch()` without arguments
/// (quilkin's `config.watch()`, a `tokio::sync::watch`-style subscription) is not it.
fn graceful_call(c: crate::model::CallRef<'_>, names: &[&str]) -> bool {
    c.method && names.contains(&c.name) && (c.name != "watch" || c.with_args)
}

/// Whether the chain awaits what a serving method of `api` returns (`builder
/// .serve_connection(io, svc).with_upgrades().await`): with a builder made there, the
/// function it is written in is where the connection is served, whatever that function
/// is called (shadowsocks' `HttpConnectionHandler::serve_connection`, which returns
/// `hyper::Result<()>`); hyper-util's `Http1Builder::serve_connection` awaits its inner
/// builder's connection for its callers.
fn awaits_serving(u: &ChainUse, api: &ServerApi) -> bool {
    u.chain
        .steps
        .iter()
        .position(|s| api.serve.contains(&s.name.as_str()))
        .is_some_and(|i| u.chain.steps[i..].iter().any(|s| s.name == "await"))
}

/// Whether `item` is a method that serves a connection for its caller (`serve_connection*`
/// starting no task: the caller drives what it returns) or a future's `poll`: a library
/// implementing the connection, whose callers are judged where they serve. A free
/// function (`async fn serve()`) is never one, nor a method that spawns the serving
/// (rust-rpxy's `serve_connection`, which is where its connections are served); a method
/// that awaits the connection is told apart by [`awaits_serving`].
fn implements_serving(model: &FileModel, item: &str) -> bool {
    let name = item.rsplit("::").next().unwrap_or(item);
    let polls = name == "poll" || name.starts_with("poll_");
    model.fns.iter().any(|f| {
        f.method
            && f.item == item
            && (polls
                || (name.starts_with("serve_connection")
                    && !f.calls.iter().any(|c| c.name.contains("spawn"))))
    })
}
