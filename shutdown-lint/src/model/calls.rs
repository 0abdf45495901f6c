//! The calls of one function, packed: every name in one string and a 12-byte entry per call.
//!
//! The call graph holds the calls of every function of the workspace at once (the binaries
//! phase reads them from the text of every file a binary may reach, most of which no rule
//! parsed), so how one is stored sets the linter's peak memory. A [`Call`] with its three
//! owned strings took 56 bytes plus up to three heap blocks (rustfs, tests included: about
//! 450,000 calls, a third of the heap at the peak); packed it takes 12 bytes plus its
//! characters, in two blocks per function.

use super::Call;

/// What a packed entry's length means when the part is absent.
const NONE: u16 = u16::MAX;

/// One call of a [`Calls`]: where its strings start in the text, their lengths (name, then
/// type, then crate, contiguous), and its two flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    at: u32,
    name: u16,
    ty: u16,
    krate: u16,
    method: bool,
    with_args: bool,
}

/// The distinct calls a function body makes, sorted as [`Call`]s sort; read them with
/// [`Calls::iter`] (or `for c in &calls`), each as a [`CallRef`].
///
/// # Examples
/// ```
/// use shutdown_lint::model::{Call, Calls};
/// let call = |name: &str, method| Call {
///     name: name.into(),
///     method,
///     krate: None,
///     with_args: true,
///     ty: None,
/// };
/// let calls = Calls::new(vec![call("serve", false), call("bind", true), call("serve", false)]);
/// assert_eq!(calls.len(), 2);
/// let names: Vec<&str> = calls.iter().map(|c| c.name).collect();
/// assert_eq!(names, ["bind", "serve"]);
/// assert!(calls.get(0).unwrap().method && calls.get(1).unwrap().ty.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Calls {
    text: Box<str>,
    entries: Box<[Entry]>,
}

/// A call read from a [`Calls`]: the fields of a [`Call`], borrowed (in its order, so the
/// two sort alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CallRef<'a> {
    /// Last segment of the called path, or the method name.
    pub name: &'a str,
    /// A method call or an associated function ([`Call::method`]).
    pub method: bool,
    /// The crate a free function's path resolves to, when known ([`Call::krate`]).
    pub krate: Option<&'a str>,
    /// Called with arguments ([`Call::with_args`]).
    pub with_args: bool,
    /// A method's receiver type, when the file tells it ([`Call::ty`]).
    pub ty: Option<&'a str>,
}

impl Calls {
    /// Packs `calls`, sorted and with repeats removed.
    pub fn new(mut calls: Vec<Call>) -> Calls {
        calls.sort_unstable();
        calls.dedup();
        Calls::pack(calls.iter().map(Call::to_ref))
    }

    /// [`Calls::new`] of calls borrowed from elsewhere (the text of a file), with no string
    /// owned on the way.
    pub fn from_refs(mut calls: Vec<CallRef<'_>>) -> Calls {
        calls.sort_unstable();
        calls.dedup();
        Calls::pack(calls.into_iter())
    }

    /// Packs `calls`, sorted and distinct, in their order.
    fn pack<'c>(calls: impl Iterator<Item = CallRef<'c>> + Clone) -> Calls {
        let mut text = String::with_capacity(
            calls
                .clone()
                .map(|c| c.name.len() + c.ty.map_or(0, str::len) + c.krate.map_or(0, str::len))
                .sum(),
        );
        let entries = calls
            .map(|c| {
                let at = u32::try_from(text.len()).unwrap_or(u32::MAX);
                let name = push(&mut text, Some(c.name));
                let ty = push(&mut text, c.ty);
                let krate = push(&mut text, c.krate);
                Entry {
                    at,
                    name,
                    ty,
                    krate,
                    method: c.method,
                    with_args: c.with_args,
                }
            })
            .collect();
        Calls {
            text: text.into_boxed_str(),
            entries,
        }
    }

    /// The number of distinct calls.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the function calls nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Call number `i`, in sorted order.
    pub fn get(&self, i: usize) -> Option<CallRef<'_>> {
        self.entries.get(i).map(|e| self.read(e))
    }

    /// The calls, in sorted order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            calls: self,
            entries: self.entries.iter(),
        }
    }

    fn read(&self, e: &Entry) -> CallRef<'_> {
        let mut at = e.at as usize;
        let mut part = |len: u16| {
            (len != NONE).then(|| {
                let s = self.text.get(at..at + len as usize).unwrap_or_default();
                at += len as usize;
                s
            })
        };
        let name = part(e.name).unwrap_or_default();
        let ty = part(e.ty);
        let krate = part(e.krate);
        CallRef {
            name,
            method: e.method,
            krate,
            with_args: e.with_args,
            ty,
        }
    }
}

/// Appends `part` to `text` and returns its length ([`NONE`] when absent). A part longer
/// than an entry can say (no identifier or crate name is) is cut at a character boundary.
fn push(text: &mut String, part: Option<&str>) -> u16 {
    let Some(part) = part else { return NONE };
    let mut len = part.len().min(usize::from(NONE - 1));
    while !part.is_char_boundary(len) {
        len -= 1;
    }
    text.push_str(&part[..len]);
    len as u16
}

impl Call {
    /// This call, borrowed.
    pub fn to_ref(&self) -> CallRef<'_> {
        CallRef {
            name: &self.name,
            method: self.method,
            krate: self.krate.as_deref(),
            with_args: self.with_args,
            ty: self.ty.as_deref(),
        }
    }
}

/// The calls of a [`Calls`], in sorted order ([`Calls::iter`]).
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    calls: &'a Calls,
    entries: std::slice::Iter<'a, Entry>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = CallRef<'a>;

    fn next(&mut self) -> Option<CallRef<'a>> {
        self.entries.next().map(|e| self.calls.read(e))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Calls {
    type Item = CallRef<'a>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, ty: Option<&str>, krate: Option<&str>) -> Call {
        Call {
            name: name.into(),
            method: ty.is_some(),
            krate: krate.map(Box::from),
            with_args: false,
            ty: ty.map(Box::from),
        }
    }

    #[test]
    fn every_part_reads_back_as_packed() {
        let owned = vec![
            call("run", None, Some("shutdown_runtime")),
            call("start", Some("Scheduler"), Some("crate")),
            call("clone", None, None),
            call("", Some(""), Some("")),
            call("émettre", Some("Файл"), None),
        ];
        let calls = Calls::new(owned.clone());
        let mut want = owned;
        want.sort();
        let back: Vec<Call> = calls
            .iter()
            .map(|c| Call {
                name: c.name.into(),
                method: c.method,
                krate: c.krate.map(Box::from),
                with_args: c.with_args,
                ty: c.ty.map(Box::from),
            })
            .collect();
        assert_eq!(back, want);
        assert_eq!(calls.get(5), None);
        assert_eq!(std::mem::size_of::<Entry>(), 12);
    }

    #[test]
    fn an_overlong_part_is_cut_not_lost() {
        let long = "é".repeat(40_000);
        let calls = Calls::new(vec![call(&long, Some("T"), None)]);
        let c = calls.get(0).unwrap();
        assert!(c.name.len() < long.len() && long.starts_with(c.name));
        assert_eq!(c.ty, Some("T"));
    }
}
