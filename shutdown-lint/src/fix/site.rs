//! What the fixers need to know about a finding's code that only the linter's model has:
//! the *resolved* path a call was made through (an alias, a glob or a re-export of
//! `tokio::spawn` is written differently at the site), the methods applied to it and
//! whether its value is dropped. [`from_model`] keeps the chains and path references of a
//! file that a fixer may rewrite; the analysis stores them in
//! [`FileFacts::fix_sites`](crate::analysis::FileFacts::fix_sites).

use crate::finding::Region;
use crate::model::{FileModel, Usage};
use crate::resolve::known;

/// How a [`FixSite`] is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SiteKind {
    /// A call of the root path, maybe followed by methods, `?` and `.await`.
    Call,
    /// The root path used as a value (`.map(tokio::spawn)`).
    Ref,
}

/// A call chain or path reference a fixer may rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixSite {
    /// Region of the root path as written (for a chain through a `let` binding: of the
    /// binding's own root, elsewhere in the function).
    pub region: Region,
    /// Resolved root path, e.g. `tokio::spawn` or `tokio::runtime::Handle::current`.
    pub root: String,
    /// Call or reference.
    pub kind: SiteKind,
    /// Methods (`?`, `await`) applied, innermost first, with the region of each name.
    pub steps: Vec<(String, Region)>,
    /// How many of `steps` come from a `let` binding.
    pub inherited: usize,
    /// The chain starts at a `let` binding (or a typed parameter).
    pub via_binding: bool,
    /// The chain's value is thrown away (a statement, `let _ =`).
    pub dropped: bool,
    /// The function of the workspace the value came from, as written, when the workspace
    /// model typed its result (`thread::spawn` of radicle's own `fn spawn(nid, label, f)
    /// -> JoinHandle<T>`): the call at the site is that function's, not the root's.
    pub via: Option<String>,
}

impl FixSite {
    /// Which part of this site a finding at `region` points at: `Some(None)` the root,
    /// `Some(Some(i))` step `i` (written at the site), `None` neither.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::{analysis::analyze_source, config::Config};
    /// let src = "fn f() { tokio::spawn(async {}); }\n";
    /// let a = analyze_source("src/lib.rs".as_ref(), src, &Config::default());
    /// let site = &a.facts.fix_sites[0];
    /// assert_eq!(site.root, "tokio::spawn");
    /// assert_eq!(site.part_at(&a.findings[0].region), Some(None));
    /// ```
    pub fn part_at(&self, region: &Region) -> Option<Option<usize>> {
        if !self.via_binding && self.region.offset == region.offset && self.region.len == region.len
        {
            return Some(None);
        }
        self.steps
            .iter()
            .enumerate()
            .skip(self.inherited)
            .find(|(_, (_, r))| r.offset == region.offset)
            .map(|(i, _)| Some(i))
    }
}

fn wanted(root: &str) -> bool {
    known::RAW_SPAWN_FNS.contains(&root)
        || known::RAW_SPAWN_RECEIVERS.contains(&root)
        || root == known::THREAD_SPAWN_FN
        || root == known::THREAD_BUILDER_NEW
        || known::CTRL_C.contains(&root)
        || known::HTTP_CTORS.iter().any(|(p, _, _)| *p == root)
}

/// The chains and references of `model` that a fixer may rewrite.
///
/// # Examples
/// ```
/// use shutdown_lint::{analysis::analyze_source, config::Config};
/// let src = "use tokio::task::spawn_blocking as sb;\nfn f() { sb(|| ()); }\n";
/// let a = analyze_source("src/lib.rs".as_ref(), src, &Config::default());
/// assert_eq!(a.facts.fix_sites[0].root, "tokio::task::spawn_blocking");
/// ```
pub fn from_model(model: &FileModel) -> Vec<FixSite> {
    let mut out = Vec::new();
    for cu in model.resolved_chains() {
        let root = cu.chain.root_str();
        if !wanted(&root) {
            continue;
        }
        out.push(FixSite {
            region: cu.chain.root_region,
            root,
            kind: SiteKind::Call,
            steps: cu
                .chain
                .steps
                .iter()
                .map(|s| (s.name.clone(), s.region))
                .collect(),
            inherited: cu.chain.inherited,
            via_binding: cu.chain.via_binding,
            dropped: cu.usage == Usage::Dropped,
            via: cu.chain.via.clone().filter(|_| cu.chain.received),
        });
    }
    for r in &model.refs {
        let root = r.path.join("::");
        if known::RAW_SPAWN_FNS.contains(&root.as_str()) {
            out.push(FixSite {
                region: r.region,
                root,
                kind: SiteKind::Ref,
                steps: Vec::new(),
                inherited: 0,
                via_binding: false,
                dropped: false,
                via: None,
            });
        }
    }
    out
}
