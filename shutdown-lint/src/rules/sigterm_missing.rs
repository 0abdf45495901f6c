//! `sigterm-missing`: a binary that listens for Ctrl-C (SIGINT) but never for SIGTERM.
//!
//! Per file, [`signal_sites`] finds the Ctrl-C registrations and whether SIGTERM is
//! handled; the engine combines the files of each binary target (its root file, the
//! modules it declares, and the package's library) and reports at the Ctrl-C sites.

use super::RuleMeta;
use crate::finding::{Region, Severity};
use crate::model::FileModel;
use crate::resolve::known;

/// Metadata and documentation.
pub const META: RuleMeta = RuleMeta {
    name: "sigterm-missing",
    default_severity: Severity::Deny,
    summary: "binary handles Ctrl-C (SIGINT) but not SIGTERM",
    doc: r#"## What it does
For each binary target (`src/main.rs`, `src/bin/*`, `[[bin]]` paths, any file with a
top-level `fn main`, together with the modules it declares, its package's library and the
libraries of its path dependencies),
flags Ctrl-C handling — `tokio::signal::ctrl_c()`, `SignalKind::interrupt()`,
`ctrlc::set_handler`, signal-hook or libc `SIGINT` — when nothing in the binary handles
SIGTERM. SIGTERM counts when handled by tokio's `SignalKind::terminate()`, signal-hook /
libc / nix `SIGTERM`, `ctrlc` with its `termination` feature, or shutdown-runtime
(`signals::install`, `run`, `#[shutdown_runtime::main]`). Ctrl-C handling that only
compiles on Windows (`#[cfg(windows)]`, `if cfg!(windows)`) is not reported.

## Why it matters
Docker, Kubernetes and systemd stop a service with SIGTERM, not SIGINT. A service that only
listens for Ctrl-C shuts down cleanly on a developer's laptop and is killed without any
drain in production, after the grace period, by SIGKILL.

## Example
```rust
tokio::signal::ctrl_c().await?;
server.shutdown().await;
```

## Use instead
```rust
let mut term = tokio::signal::unix::signal(SignalKind::terminate())?;
tokio::select! { _ = tokio::signal::ctrl_c() => {}, _ = term.recv() => {} }
server.shutdown().await;
```
or `#[shutdown_runtime::main]`, which installs both."#,
};

/// Help text of the rule.
pub const HELP: &str = "also listen for SIGTERM (`tokio::signal::unix::signal(SignalKind::terminate())`), or use `#[shutdown_runtime::main]`";

/// A Ctrl-C registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CtrlCSite {
    /// Where.
    pub region: Region,
    /// Enclosing item.
    pub item: String,
    /// What was called, e.g. `tokio::signal::ctrl_c`.
    pub what: String,
    /// A `ctrlc` crate handler (covers SIGTERM with the `termination` feature).
    pub ctrlc_crate: bool,
}

/// Signal handling found in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignalSites {
    /// Ctrl-C registrations outside Windows-only code.
    pub ctrl_c: Vec<CtrlCSite>,
    /// Whether the file handles SIGTERM.
    pub sigterm: bool,
}

/// Finds the signal handling of a file.
pub fn signal_sites(model: &FileModel) -> SignalSites {
    let mut s = SignalSites::default();
    let mut consider = |path: String, region: Region, item: &str, windows: bool| {
        if known::SIGTERM.contains(&path.as_str()) {
            s.sigterm = true;
        } else if known::CTRL_C.contains(&path.as_str()) && !windows {
            let ctrlc_crate = known::CTRLC_CRATE.contains(&path.as_str());
            s.ctrl_c.push(CtrlCSite {
                region,
                item: item.to_string(),
                what: path,
                ctrlc_crate,
            });
        }
    };
    for cu in &model.chains {
        if !cu.chain.via_binding {
            consider(
                cu.chain.root_str(),
                cu.chain.root_region,
                &cu.ctx.item,
                cu.ctx.windows_only,
            );
        }
    }
    for r in &model.refs {
        consider(r.path.join("::"), r.region, &r.ctx.item, r.ctx.windows_only);
    }
    s
}

/// The message for a Ctrl-C site of a binary named `bin`.
pub fn message(site: &CtrlCSite, bin: &str) -> String {
    format!(
        "binary `{bin}` handles Ctrl-C (`{}`) but never SIGTERM, the signal orchestrators stop it with",
        site.what
    )
}
