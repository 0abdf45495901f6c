//! The analyzers of a run, prepared on a second thread while the walk is still running.
//!
//! Each package's [`Analyzer`] needs the package's manifest and what its dependencies
//! re-export ([`crate::workspace::reexports`]: the lockfile, the registry, the crate's own
//! module tree). None of that needs the walk to end, and the walk itself is one thread of
//! mostly system calls: so the walk [offers](Preparer::offer_dir) every manifest it sees and
//! a helper thread reads the package and builds its analyzer meanwhile. When the walk is
//! done the calling thread helps with what is left ([`Preparer::beside`]). On a small
//! service the two serial phases were a third of the run; side by side they cost the
//! longer of the two.
//!
//! Only the analyzers of packages some file belongs to are used; one built for a manifest
//! no file falls under (a fixture crate that is excluded) is work of the otherwise idle
//! core, never a different result: an analyzer depends only on its config and package.

use crate::analysis::Analyzer;
use crate::config::Config;
use crate::package::Package;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// An analyzer's key: the index of its config and the directory of its package (`None`
/// for files outside any package).
pub(crate) type AnalyzerKey = (usize, Option<PathBuf>);

/// Work for the preparer.
enum Offer {
    /// A directory holding a `Cargo.toml`, seen by the walk: its package is read first.
    Dir(usize, PathBuf),
    /// A package (or none) some file belongs to.
    Package(usize, Option<Arc<Package>>),
}

/// The shared state: what is offered, what is claimed, what is built.
#[derive(Default)]
struct State {
    queue: VecDeque<Offer>,
    /// Manifest directories already offered, per config.
    dirs: HashSet<(usize, PathBuf)>,
    /// Packages already offered, by key.
    packages: HashSet<AnalyzerKey>,
    /// Keys some thread builds or has built.
    claimed: HashSet<AnalyzerKey>,
    built: HashMap<AnalyzerKey, Arc<Analyzer>>,
    /// No more offers come.
    closed: bool,
}

/// Builds the analyzers of a run from what the walk offers, on a helper thread and on the
/// caller once the walk is done.
pub(crate) struct Preparer<'a> {
    configs: &'a [Config],
    cargo_home: Option<&'a Path>,
    state: Mutex<State>,
    offered: Condvar,
}

impl<'a> Preparer<'a> {
    /// A preparer for the analyzers of `configs`, reading registry sources under
    /// `cargo_home`.
    pub(crate) fn new(configs: &'a [Config], cargo_home: Option<&'a Path>) -> Self {
        Preparer {
            configs,
            cargo_home,
            state: Mutex::new(State::default()),
            offered: Condvar::new(),
        }
    }

    /// Runs `walk` on the calling thread while a helper thread (unless `helper` is false or
    /// none can be started) builds what it offers; then builds what is left on both threads
    /// and returns `walk`'s result with every analyzer built.
    pub(crate) fn beside<R>(
        self,
        helper: bool,
        walk: impl FnOnce(&Self) -> R,
    ) -> (R, HashMap<AnalyzerKey, Arc<Analyzer>>) {
        let out = std::thread::scope(|s| {
            if helper {
                // when no thread starts (address space, limits) the caller builds it all below
                crate::pool::spawn_on_large_stack(s, || self.work());
            }
            // the helper must hear `close` even when `walk` unwinds
            let closer = Closer(&self);
            let out = walk(&self);
            drop(closer);
            // what the helper has not taken yet is shared; a panic of the helper is raised
            // again when the scope ends
            self.work();
            out
        });
        let built = self.lock().built.drain().collect();
        (out, built)
    }

    /// A directory the walk found a `Cargo.toml` in, under a path of config `cfg`.
    pub(crate) fn offer_dir(&self, cfg: usize, dir: &Path) {
        let mut st = self.lock();
        if st.dirs.insert((cfg, dir.to_path_buf())) {
            st.queue.push_back(Offer::Dir(cfg, dir.to_path_buf()));
            self.offered.notify_one();
        }
    }

    /// A package (or none) that files of config `cfg` belong to.
    pub(crate) fn offer_package(&self, cfg: usize, pkg: Option<&Arc<Package>>) {
        let key = (cfg, pkg.map(|p| p.dir.clone()));
        let mut st = self.lock();
        if !st.claimed.contains(&key) && st.packages.insert(key) {
            st.queue.push_back(Offer::Package(cfg, pkg.cloned()));
            self.offered.notify_one();
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes offers until none is left and no more will come.
    fn work(&self) {
        loop {
            let offer = {
                let mut st = self.lock();
                loop {
                    if let Some(o) = st.queue.pop_front() {
                        break Some(o);
                    }
                    if st.closed {
                        break None;
                    }
                    st = self.offered.wait(st).unwrap_or_else(|e| e.into_inner());
                }
            };
            let Some(offer) = offer else { return };
            let (cfg, pkg) = match offer {
                Offer::Dir(cfg, dir) => match Package::read_cached(&dir) {
                    Some(p) => (cfg, Some(p)),
                    // a virtual manifest, or one that does not read: no package
                    None => continue,
                },
                Offer::Package(cfg, pkg) => (cfg, pkg),
            };
            let key = (cfg, pkg.as_ref().map(|p| p.dir.clone()));
            if !self.lock().claimed.insert(key.clone()) {
                continue;
            }
            let analyzer = self.build(cfg, pkg.as_deref());
            self.lock().built.insert(key, analyzer);
        }
    }

    /// The analyzer of config `cfg` for files of `pkg`: the package's renamed dependencies
    /// and its dependencies' re-exports are resolved as re-exports, its own crate name is
    /// known.
    fn build(&self, cfg: usize, pkg: Option<&Package>) -> Arc<Analyzer> {
        let mut extra = Vec::new();
        if let Some(p) = pkg {
            // `tokio = { package = "madsim-tokio" }` is tokio itself: no rename to the shim
            extra.extend(
                p.renames
                    .iter()
                    .filter(|(local, krate)| !crate::resolve::known::is_whole_facade(krate, local))
                    .cloned(),
            );
            extra.extend(crate::workspace::reexports::for_package_in(
                p,
                self.cargo_home,
            ));
        }
        let own = pkg.map(|p| p.crate_name.as_str());
        Arc::new(Analyzer::for_crate(&self.configs[cfg], &extra, own))
    }
}

/// Closes the preparer's queue when dropped: waiting workers return once it is empty.
struct Closer<'p, 'a>(&'p Preparer<'a>);

impl Drop for Closer<'_, '_> {
    fn drop(&mut self) {
        self.0.lock().closed = true;
        self.0.offered.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(dir: &Path, name: &str) -> PathBuf {
        let d = dir.join(name);
        std::fs::create_dir_all(d.join("src")).unwrap();
        std::fs::write(
            d.join("Cargo.toml"),
            format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\n"),
        )
        .unwrap();
        std::fs::write(d.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
        d
    }

    #[test]
    fn every_offered_package_gets_one_analyzer_with_or_without_a_helper() {
        let tmp = tempfile::tempdir().unwrap();
        let a = package(tmp.path(), "a");
        let b = package(tmp.path(), "b");
        let virtual_root = tmp.path().join("ws");
        std::fs::create_dir_all(&virtual_root).unwrap();
        std::fs::write(
            virtual_root.join("Cargo.toml"),
            "[workspace]\nmembers = []\n",
        )
        .unwrap();
        let configs = [Config::default()];
        for helper in [true, false] {
            let prep = Preparer::new(&configs, None);
            let (walked, built) = prep.beside(helper, |p| {
                p.offer_dir(0, &a);
                p.offer_dir(0, &a);
                p.offer_dir(0, &virtual_root);
                let pb = Package::read_cached(&b);
                p.offer_package(0, pb.as_ref());
                p.offer_package(0, None);
                "walked"
            });
            assert_eq!(walked, "walked");
            let mut keys: Vec<_> = built.keys().cloned().collect();
            keys.sort();
            let dir = |d: &Path| Package::read_cached(d).unwrap().dir.clone();
            assert_eq!(
                keys,
                [(0, None), (0, Some(dir(&a))), (0, Some(dir(&b)))],
                "helper: {helper}"
            );
        }
    }

    #[test]
    fn a_walk_that_panics_does_not_leave_the_helper_waiting() {
        let configs = [Config::default()];
        let prep = Preparer::new(&configs, None);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            prep.beside(true, |_| panic!("walk failed"))
        }));
        assert!(caught.is_err());
    }
}
