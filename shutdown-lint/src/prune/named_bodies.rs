//! The text the client flow reads: the file as written without the bodies of the
//! functions that hold nothing the flow follows.
//!
//! [`crate::collect::flow`] records every occurrence of a name in the file and then, for a
//! client the file builds, follows the names its value reaches (locals, fields, parameters,
//! closures, prepared requests, the functions holding those occurrences), each counted
//! where it can matter ([`FlowNames`]: anywhere, outside test code, or in one function's
//! body). An occurrence can only be in a body that names it, so a body naming none of them
//! where they count adds nothing to the answer: dropping it changes no verdict, and the
//! parse of a large file shrinks to the few functions that handle its clients — and, inside
//! a body kept, to the statements naming those names, the same way. Which names those are
//! is only known once the flow is read; the caller iterates ([`crate::collect`]'s
//! `read_client_flow`) until the names read are among the names kept.

use super::{body_of, next_fn, test_attrs_before, test_mod_bodies};
use crate::collect::flow::FlowNames;
use crate::lexscan::{code_and_doc_lines, find_word, is_ident, skip_ws};
use std::collections::BTreeSet;

/// The outermost function bodies of a text, found once and asked again each time the names
/// grow ([`FnBodies::unnamed`]).
#[derive(Debug)]
pub struct FnBodies {
    /// The text's code (comments and literals blanked).
    code: Vec<u8>,
    bodies: Vec<FnBody>,
    /// The text's line doc comments, as [`crate::compact::compact`] removes them.
    docs: Vec<(usize, usize)>,
}

/// One outermost function body: where its `fn` is, its braces, and whether it is test code.
#[derive(Debug)]
struct FnBody {
    at: usize,
    open: usize,
    close: usize,
    test: bool,
}

impl FnBodies {
    /// The outermost function bodies of `text` (a nested function goes with the body that
    /// holds it); test code is a `#[test]` or `#[cfg(test)]` function, or one in a
    /// `#[cfg(test)]` module.
    pub fn of(text: &str) -> FnBodies {
        let (code, docs) = code_and_doc_lines(text);
        let test_mods = test_mod_bodies(text, &code);
        let mut bodies = Vec::new();
        let mut i = 0;
        while let Some(at) = next_fn(&code, i) {
            i = at + 2;
            let Some((open, close)) = body_of(&code, at + 2) else {
                continue;
            };
            i = close + 1;
            let test = test_attrs_before(text, &code, at)
                || test_mods.iter().any(|&(o, c)| o < at && at < c);
            bodies.push(FnBody {
                at,
                open,
                close,
                test,
            });
        }
        // a line doc comment becomes a `#[doc]` attribute the flow does not read
        let docs = super::doc_comment_ranges(&docs).collect();
        FnBodies { code, bodies, docs }
    }

    /// The text's line doc comments (`///`, `//!`), as ranges for
    /// [`crate::compact::compact`]: the parser makes each an attribute the flow does not
    /// read, and on a documented file they are a quarter of what it would parse.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::{compact::compact, prune::FnBodies};
    /// let src = "fn a() {}\n/// Makes a client.\nfn b() { let c = make(); }\n";
    /// let kept = compact(src, FnBodies::of(src).doc_comments()).text;
    /// assert_eq!(kept, "fn a() {}\n\nfn b() { let c = make(); }\n");
    /// ```
    pub fn doc_comments(&self) -> &[(usize, usize)] {
        &self.docs
    }

    /// Adds to `timed` (methods the text may call inside `timeout(d, ..)`,
    /// [`crate::collect::flow::may_be_timed_call`]) each of `candidates` called (`.m(`,
    /// `::m(`) in the body of a function of `timed` outside test code, round by round: a
    /// method called only from one its callers bound is bounded too, so its mentions are
    /// worth reading.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::prune::FnBodies;
    /// use std::collections::BTreeSet;
    /// let src = "impl E { fn run(&self) { self.poll(); } fn poll(&self) { self.send(); }\n\
    ///            fn send(&self) {} fn idle(&self) { self.other(); } }";
    /// let mut timed = BTreeSet::from(["run".to_string()]);
    /// let candidates = ["poll", "send", "other"].map(String::from).into();
    /// FnBodies::of(src).called_from(&mut timed, &candidates);
    /// assert_eq!(timed, ["poll", "run", "send"].map(String::from).into());
    /// ```
    pub fn called_from(&self, timed: &mut BTreeSet<String>, candidates: &BTreeSet<String>) {
        let code = &self.code[..];
        loop {
            let before = timed.len();
            for m in candidates {
                if timed.contains(m) {
                    continue;
                }
                let mut from = 0;
                while let Some(at) = find_word(code, m.as_bytes(), from) {
                    from = at + m.len();
                    let before = code[..at].trim_ascii_end().last();
                    let after = code[from..].trim_ascii_start().first();
                    if !matches!(before, Some(b'.' | b':')) || after != Some(&b'(') {
                        continue;
                    }
                    let caller = self
                        .bodies
                        .iter()
                        .find(|b| !b.test && b.open < at && at < b.close);
                    if caller.is_some_and(|b| timed.contains(fn_name(code, b.at))) {
                        timed.insert(m.clone());
                        break;
                    }
                }
            }
            if timed.len() == before {
                return;
            }
        }
    }

    /// What the flow's read may drop: the braces (`{`, `}` offsets) of every body that
    /// holds none of the offsets `keep` and no occurrence `names` says counts — it names
    /// (as whole words of code, outside comments and strings) none of
    /// [`FlowNames::anywhere`], none of [`FlowNames::outside_tests`] unless it is test
    /// code, and it is not one of [`FlowNames::fns`] — and, in every other body, the
    /// statements that hold none of the offsets, name none of the names (nor
    /// [`FlowNames::locals`], nor `timeout`) and do not use what one that does binds
    /// ([`super::statements`], `Ties::Uses`). The statements left hold every
    /// occurrence of a name the flow reads and what decides how it is read: `let d =
    /// c.clone();` before `d.get(u)`, and the `timeout(d, ..)` around a call or in the
    /// other branch of an `if let Some(d)`. A body declaring one of [`FlowNames::fns`]
    /// nested in it stays whole. `main`, calling a request helper once among hundreds of
    /// statements, is read as that call. Ranges for [`crate::compact::compact`].
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::{collect::flow::FlowNames, compact::compact, prune::FnBodies};
    /// let src = "fn a() { let c = make(); }\nfn b() { other(); }\nfn d() { c.get(u); }\n\
    ///            #[test]\nfn t() { c.get(u); }\n";
    /// let bodies = FnBodies::of(src);
    /// let mut names = FlowNames::default();
    /// names.outside_tests.insert("c".to_string());
    /// let kept = compact(src, &bodies.unnamed(&names, &[])).text;
    /// assert_eq!(kept, "fn a() { let c = make(); }\nfn b() {}\nfn d() { c.get(u); }\n#[test]\nfn t() {}\n");
    /// // the body holding an offset is kept whatever it names
    /// let none = FlowNames::default();
    /// let kept = compact(src, &bodies.unnamed(&none, &[src.find("other").unwrap()])).text;
    /// assert!(kept.starts_with("fn a() {}\nfn b() { other(); }\nfn d() {}"));
    /// // a body naming `c` keeps the statements that do
    /// let src = "fn e() { setup(); let d = c.clone(); log(); d.get(u); }\n";
    /// let kept = compact(src, &FnBodies::of(src).unnamed(&names, &[])).text;
    /// assert_eq!(kept, "fn e() { let d = c.clone(); d.get(u); }\n");
    /// ```
    pub fn unnamed(&self, names: &FlowNames, keep: &[usize]) -> Vec<(usize, usize)> {
        let code = &self.code[..];
        let mut out = Vec::new();
        let mut hits = Vec::new();
        for b in &self.bodies {
            let body = &code[..b.close];
            if declares_any(body, b.open, &names.fns) {
                continue;
            }
            // every occurrence, in it, of a name that counts there
            hits.clear();
            let counted = names
                .anywhere
                .iter()
                .chain(names.outside_tests.iter().filter(|_| !b.test))
                .map(String::as_str);
            word_offsets(body, b.open + 1, counted, &mut hits);
            let holds = keep.iter().any(|&k| b.open < k && k < b.close);
            if hits.is_empty() && !holds && !names.fns.contains(fn_name(code, b.at)) {
                out.push((b.open, b.close));
                continue;
            }
            // kept for the names it holds: what in it they do not reach goes
            hits.extend(keep.iter().copied().filter(|&k| b.open < k && k < b.close));
            let rest = names
                .outside_tests
                .iter()
                .filter(|_| b.test)
                .chain(&names.fns)
                .chain(&names.locals)
                .map(String::as_str)
                .chain(["timeout"]);
            word_offsets(body, b.open + 1, rest, &mut hits);
            hits.sort_unstable();
            super::statements::blank_statements(
                code,
                b.open,
                b.close,
                &hits,
                super::statements::Ties::Uses,
                &mut out,
            );
        }
        out
    }
}

/// Adds to `out` the offset of every occurrence of each of `words` in `code` from `from` on,
/// as a whole word.
fn word_offsets<'w>(
    code: &[u8],
    from: usize,
    words: impl Iterator<Item = &'w str>,
    out: &mut Vec<usize>,
) {
    for w in words {
        let mut i = from;
        while let Some(at) = find_word(code, w.as_bytes(), i) {
            out.push(at);
            i = at + w.len();
        }
    }
}

/// Whether `code` from `from` on declares a function named one of `fns` (a function nested
/// in a body: its locals are that body's to read, and a second declaration of a name makes
/// its parameters unknown).
fn declares_any(code: &[u8], from: usize, fns: &BTreeSet<String>) -> bool {
    let mut i = from;
    while let Some(at) = next_fn(code, i) {
        if fns.contains(fn_name(code, at)) {
            return true;
        }
        i = at + 2;
    }
    false
}

/// The name of the function whose `fn` is at `at` (code only).
fn fn_name(code: &[u8], at: usize) -> &str {
    let start = skip_ws(code, at + 2);
    let end = start
        + code[start..]
            .iter()
            .position(|&c| !is_ident(c))
            .unwrap_or(code.len() - start);
    std::str::from_utf8(&code[start..end]).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::compact;

    fn kept(src: &str, words: &[&str]) -> String {
        let names = FlowNames {
            outside_tests: words.iter().map(ToString::to_string).collect(),
            ..FlowNames::default()
        };
        compact(src, &FnBodies::of(src).unnamed(&names, &[])).text
    }

    #[test]
    fn a_word_in_a_comment_or_a_string_keeps_nothing() {
        let src = "fn a() { // c\n    log(\"c\"); }\nfn b() { c.send(); }\n";
        assert_eq!(kept(src, &["c"]), "fn a() {}\nfn b() { c.send(); }\n");
    }

    #[test]
    fn methods_and_nested_functions_are_bodies_too() {
        let src = "impl S {\n    fn a(&self) { self.c.get(u); }\n    fn b(&self) { fn inner() { x(); } y(); }\n}\n";
        let out = kept(src, &["c"]);
        assert_eq!(
            out,
            "impl S {\n    fn a(&self) { self.c.get(u); }\n    fn b(&self) {}\n}\n"
        );
        assert!(syn::parse_file(&out).is_ok());
    }

    #[test]
    fn test_code_names_only_what_counts_everywhere() {
        let src =
            "#[cfg(test)]\nmod tests {\n    fn helper() { c.get(u); }\n}\nfn f() { c.get(u); }\n";
        assert_eq!(
            kept(src, &["c"]),
            "#[cfg(test)]\nmod tests {\n    fn helper() {}\n}\nfn f() { c.get(u); }\n"
        );
        let names = FlowNames {
            anywhere: ["c".to_string()].into(),
            ..FlowNames::default()
        };
        assert!(FnBodies::of(src).unnamed(&names, &[]).is_empty());
    }

    #[test]
    fn a_function_whose_locals_count_keeps_the_statements_naming_them() {
        let src = "fn run() { go(); }\nfn go(c: C) { x(); let d = c.clone(); y(); d.get(u); }\n\
                   fn other() { fn go() {} }\n";
        let names = FlowNames {
            fns: ["go".to_string()].into(),
            locals: ["c".to_string()].into(),
            ..FlowNames::default()
        };
        let out = compact(src, &FnBodies::of(src).unnamed(&names, &[])).text;
        assert_eq!(
            out,
            "fn run() {}\nfn go(c: C) { let d = c.clone(); d.get(u); }\nfn other() { fn go() {} }\n"
        );
        assert!(syn::parse_file(&out).is_ok());
    }

    /// Where the flow starts, in a body naming nothing yet: its statement, and what
    /// reads what it binds.
    #[test]
    fn a_body_holding_a_start_keeps_the_statements_it_reaches() {
        let src = "fn run() {\n    setup();\n    let c = reqwest::Client::new();\n    log();\n    \
                   let r = c.get(u).send();\n    done();\n}\n";
        let out = compact(
            src,
            &FnBodies::of(src).unnamed(&FlowNames::default(), &[src.find("reqwest").unwrap()]),
        )
        .text;
        assert_eq!(
            out,
            "fn run() {\n    let c = reqwest::Client::new();\n    let r = c.get(u).send();\n}\n"
        );
    }

    /// What a kept statement reads (`url`) is nothing the flow follows: the statement
    /// binding it goes; what it binds (`resp`) stays with what uses it, the flow's next
    /// read would ask for it if it held the client.
    #[test]
    fn what_feeds_a_kept_statement_goes() {
        let src =
            "fn e() { let url = base(); let d = c.clone(); let resp = d.get(url); log(resp); }\n";
        assert_eq!(
            kept(src, &["c"]),
            "fn e() { let d = c.clone(); let resp = d.get(url); log(resp); }\n"
        );
    }

    /// The `timeout(d, ..)` around a call, or in the other branch of an `if let Some(d)`,
    /// stays with the call: whether a function is bounded depends on it.
    #[test]
    fn a_timeout_stays_beside_what_it_bounds() {
        let src = "fn run() { a(); if let Some(d) = cfg { let _ = timeout(d, g()); b(); } \
                   else { probe(); c(); } }\n";
        let out = kept(src, &["probe"]);
        assert!(
            out.contains("timeout(d, g())") && out.contains("probe()"),
            "{out}"
        );
        assert!(
            !out.contains("a()") && !out.contains("b()") && !out.contains("c()"),
            "{out}"
        );
    }

    #[test]
    fn a_part_of_a_longer_name_is_not_the_name() {
        assert_eq!(
            kept("fn a() { client_id(); }\n", &["client"]),
            "fn a() {}\n"
        );
    }
}
