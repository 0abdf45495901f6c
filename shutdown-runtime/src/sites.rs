//! Spawn sites: what every task spawned at one place with one future type has in common
//! (kind, `#[track_caller]` location, the type name its default name comes from, and a name
//! given as a `&'static str`), interned once so a registry slot refers to it with one word.
//!
//! A program has a bounded number of sites (call sites × future types × kinds × literal
//! names), so each is allocated once and kept for the life of the process. A per-thread
//! direct-mapped cache makes the lookup on the spawn path a few compares; a miss takes a
//! process-wide map's lock. Each site also has a 32-bit id (its index in a process-wide
//! table), which is what a registry slot stores. Names built at run time (`Cow::Owned`, e.g. `conn 10.0.0.7:5311`)
//! are not interned: the registry keeps them beside the slots while the task lives.

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::Location;
use std::sync::{Mutex, OnceLock, RwLock};

use crate::slots::Kind;

/// One spawn site.
#[derive(Debug)]
pub(crate) struct Site {
    pub(crate) kind: Kind,
    pub(crate) location: &'static Location<'static>,
    /// `std::any::type_name::<F>` of the future or closure: the default name, trimmed only
    /// when a task is reported (see `names.rs`).
    pub(crate) type_name: fn() -> &'static str,
    /// The name given to `spawn_named` as a `&'static str`.
    pub(crate) name: Option<&'static str>,
    /// Its index in the table of all sites ([`by_id`]): what a registry slot stores.
    pub(crate) id: u32,
}

/// What identifies a site: the addresses of its location and type-name function, the kind,
/// and the address and length of its static name (0, 0 for none).
type SiteKey = (usize, usize, Kind, usize, usize);

fn key_of(
    kind: Kind,
    location: &'static Location<'static>,
    type_name: fn() -> &'static str,
    name: Option<&'static str>,
) -> SiteKey {
    let (name_at, name_len) = name.map_or((0, 0), |n| (n.as_ptr() as usize, n.len()));
    (
        std::ptr::from_ref(location) as usize,
        type_name as usize,
        kind,
        name_at,
        name_len,
    )
}

/// Entries of the per-thread cache (a power of two).
const CACHE: usize = 64;

std::thread_local! {
    static CACHED: [Cell<Option<(SiteKey, &'static Site)>>; CACHE] =
        const { [const { Cell::new(None) }; CACHE] };
}

/// The interned site for (`kind`, `location`, `type_name`, static `name`).
#[inline]
pub(crate) fn site(
    kind: Kind,
    location: &'static Location<'static>,
    type_name: fn() -> &'static str,
    name: Option<&'static str>,
) -> &'static Site {
    let key = key_of(kind, location, type_name, name);
    let slot = ((key.0 >> 3) ^ (key.1 >> 4) ^ (key.3 >> 2) ^ kind as usize) & (CACHE - 1);
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
    let site = intern(key, kind, location, type_name, name);
    let _ = CACHED.try_with(|c| c[slot].set(Some((key, site))));
    site
}

#[cold]
fn intern(
    key: SiteKey,
    kind: Kind,
    location: &'static Location<'static>,
    type_name: fn() -> &'static str,
    name: Option<&'static str>,
) -> &'static Site {
    static SITES: OnceLock<Mutex<HashMap<SiteKey, &'static Site>>> = OnceLock::new();
    let mut sites = SITES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    sites.entry(key).or_insert_with(|| {
        let mut by_id = table().write().unwrap_or_else(|e| e.into_inner());
        // Kept for the life of the process: sites are bounded by the program's code.
        let site: &'static Site = Box::leak(Box::new(Site {
            kind,
            location,
            type_name,
            name,
            id: u32::try_from(by_id.len()).expect("fewer than 2^32 spawn sites"),
        }));
        by_id.push(site);
        site
    })
}

/// Every interned site, by id.
fn table() -> &'static RwLock<Vec<&'static Site>> {
    static BY_ID: OnceLock<RwLock<Vec<&'static Site>>> = OnceLock::new();
    BY_ID.get_or_init(Default::default)
}

/// The interned site whose [`Site::id`] is `id` (only ids handed out by [`site`] exist).
pub(crate) fn by_id(id: u32) -> &'static Site {
    table().read().unwrap_or_else(|e| e.into_inner())[id as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_site_per_location_type_and_kind() {
        let here = Location::caller();
        let a = site(Kind::Task, here, || "a", None);
        let a_again = site(Kind::Task, here, a.type_name, None);
        assert!(std::ptr::eq(a, a_again));
        let blocking = site(Kind::Blocking, here, a.type_name, None);
        assert!(!std::ptr::eq(a, blocking));
        assert_eq!(blocking.kind, Kind::Blocking);
        let named = site(Kind::Task, here, a.type_name, Some("poller"));
        assert!(!std::ptr::eq(a, named));
        assert_eq!(named.name, Some("poller"));
        assert!(std::ptr::eq(
            named,
            site(Kind::Task, here, a.type_name, Some("poller"))
        ));
        // from another thread (its own cache): the same interned site
        let tn = a.type_name;
        let other =
            std::thread::spawn(move || site(Kind::Task, here, tn, None) as *const Site as usize)
                .join()
                .unwrap();
        assert_eq!(other, a as *const Site as usize);
        assert!(std::ptr::eq(by_id(named.id), named));
        assert!(std::ptr::eq(by_id(a.id), a));
    }
}
