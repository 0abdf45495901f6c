//! Spawn sites: what every task spawned at one place with one future type has in common
//! (kind, `#[track_caller]` location, the type name its default name comes from), interned
//! once so a registry slot refers to it with one word.
//!
//! A program has a bounded number of sites (call sites × future types × kinds), so each is
//! allocated once and kept for the life of the process. A per-thread direct-mapped cache
//! makes the lookup on the spawn path two compares; a miss takes a process-wide map's lock.

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::Location;
use std::sync::{Mutex, OnceLock};

use crate::slots::Kind;

/// One spawn site.
#[derive(Debug)]
pub(crate) struct Site {
    pub(crate) kind: Kind,
    pub(crate) location: &'static Location<'static>,
    /// `std::any::type_name::<F>` of the future or closure: the default name, trimmed only
    /// when a task is reported (see `names.rs`).
    pub(crate) type_name: fn() -> &'static str,
}

/// What identifies a site: the addresses of its location and type-name function, and the kind.
type SiteKey = (usize, usize, Kind);

fn key_of(
    kind: Kind,
    location: &'static Location<'static>,
    type_name: fn() -> &'static str,
) -> SiteKey {
    (
        std::ptr::from_ref(location) as usize,
        type_name as usize,
        kind,
    )
}

/// Entries of the per-thread cache (a power of two).
const CACHE: usize = 64;

std::thread_local! {
    static CACHED: [Cell<Option<(SiteKey, &'static Site)>>; CACHE] =
        const { [const { Cell::new(None) }; CACHE] };
}

/// The interned site for (`kind`, `location`, `type_name`).
#[inline]
pub(crate) fn site(
    kind: Kind,
    location: &'static Location<'static>,
    type_name: fn() -> &'static str,
) -> &'static Site {
    let key = key_of(kind, location, type_name);
    let slot = ((key.0 >> 3) ^ (key.1 >> 4) ^ kind as usize) & (CACHE - 1);
    let hit = CACHED
        .try_with(|c| match c[slot].get() {
            Some((k, site)) if k == key => Some(site),
            _ => None,
        })
        .ok()
        .flatten();
    if let Some(site) = hit {
        return site;
    }
    let site = intern(key, kind, location, type_name);
    let _ = CACHED.try_with(|c| c[slot].set(Some((key, site))));
    site
}

#[cold]
fn intern(
    key: SiteKey,
    kind: Kind,
    location: &'static Location<'static>,
    type_name: fn() -> &'static str,
) -> &'static Site {
    static SITES: OnceLock<Mutex<HashMap<SiteKey, &'static Site>>> = OnceLock::new();
    let mut sites = SITES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    sites.entry(key).or_insert_with(|| {
        // Kept for the life of the process: sites are bounded by the program's code.
        Box::leak(Box::new(Site {
            kind,
            location,
            type_name,
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_site_per_location_type_and_kind() {
        let here = Location::caller();
        let a = site(Kind::Task, here, || "a");
        let a_again = site(Kind::Task, here, a.type_name);
        assert!(std::ptr::eq(a, a_again));
        let blocking = site(Kind::Blocking, here, a.type_name);
        assert!(!std::ptr::eq(a, blocking));
        assert_eq!(blocking.kind, Kind::Blocking);
        // from another thread (its own cache): the same interned site
        let tn = a.type_name;
        let other = std::thread::spawn(move || site(Kind::Task, here, tn) as *const Site as usize)
            .join()
            .unwrap();
        assert_eq!(other, a as *const Site as usize);
    }
}
