//! The text the client flow reads: the file as written without the bodies of the
//! functions that name nothing the flow follows.
//!
//! [`crate::collect::flow`] records every occurrence of a name in the file and then, for a
//! client the file builds, follows the names its value reaches (locals, fields, parameters,
//! closures, prepared requests, the functions holding those occurrences). An occurrence
//! can only be in a body that names it, so a function body that names none of them adds
//! nothing to the answer: dropping it changes no verdict, and the parse of a large file
//! shrinks to the few functions that handle its clients. Which names those are is only
//! known once the flow is read; the caller iterates ([`crate::collect`]'s
//! `read_client_flow`) until the names read are among the names kept.

use super::{body_of, next_fn};
use crate::lexscan::{code_and_doc_lines, find_word};
use std::collections::BTreeSet;

/// The braces (`{`, `}` offsets) of every outermost function body of `text` that holds
/// none of the offsets `keep` and names none of `words` (as whole words of code, outside
/// comments and strings): what [`crate::compact::compact`] may drop before the flow's
/// parse.
///
/// # Examples
/// ```
/// use shutdown_lint::{compact::compact, prune::unnamed_bodies};
/// use std::collections::BTreeSet;
/// let src = "fn a() { let c = make(); }\nfn b() { other(); }\nfn d() { c.get(u); }\n";
/// let words = BTreeSet::from(["c".to_string()]);
/// let kept = compact(src, &unnamed_bodies(src, &words, &[])).text;
/// assert_eq!(kept, "fn a() { let c = make(); }\nfn b() {}\nfn d() { c.get(u); }\n");
/// // the body holding an offset is kept whatever it names
/// let kept = compact(src, &unnamed_bodies(src, &BTreeSet::new(), &[src.find("other").unwrap()])).text;
/// assert_eq!(kept, "fn a() {}\nfn b() { other(); }\nfn d() {}\n");
/// ```
pub fn unnamed_bodies(text: &str, words: &BTreeSet<String>, keep: &[usize]) -> Vec<(usize, usize)> {
    let (code, _) = code_and_doc_lines(text);
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = next_fn(&code, i) {
        i = at + 2;
        let Some((open, close)) = body_of(&code, at + 2) else {
            continue;
        };
        // nested functions go with the body that holds them
        i = close + 1;
        let holds = keep.iter().any(|&k| open < k && k < close);
        let names = || {
            words
                .iter()
                .any(|w| find_word(&code[..close], w.as_bytes(), open + 1).is_some())
        };
        if !holds && !names() {
            out.push((open, close));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::compact;

    fn kept(src: &str, words: &[&str]) -> String {
        let words = words.iter().map(ToString::to_string).collect();
        compact(src, &unnamed_bodies(src, &words, &[])).text
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
    fn a_part_of_a_longer_name_is_not_the_name() {
        assert_eq!(
            kept("fn a() { client_id(); }\n", &["client"]),
            "fn a() {}\n"
        );
    }
}
