//! Statements no rule reads, blanked inside a function body that is kept.
//!
//! A body is kept when it names one word a rule reads (see [`super::BODY_WORDS`]); on a
//! small service most bodies do, and each is then parsed whole — a request handler's
//! formatting, a loop's bookkeeping. Inside such a body, a statement goes when nothing
//! ties it to what the rules read:
//!
//! - it names no word (a hit) and declares no item (`fn`, `use`, `impl`, ...: an item
//!   may be what a kept statement calls or imports);
//! - it binds no name that a kept statement uses (`let rt = make_runtime();` stays for
//!   `rt.spawn(..)`: the collector types `rt` from its initializer), and
//! - it uses no name bound by a statement that names a word (`let h = thread::spawn(..)`
//!   keeps `Recorder { h }` and `h.join()`; `let c = Client::new()` keeps `c.get(u)`), or
//!   by a statement kept for using one (`let handle = server.handle();` keeps
//!   `handle.stop_graceful(..)`).
//!
//! Statements are what a `;` at the block's own depth ends; a block of a kept statement
//! (an `if`, a loop, a closure's or an `async` block, a `match` arm's block) is looked at
//! the same way — the arms of a `match` a `let` binds stay with it when they hand on a
//! name a statement binds (`let sb = match tls { Some(t) => sb.tls_config(t)?, None => sb
//! };`: the value bound) —, except those of macro invocations (`select! { .. }`, whose
//! tokens are read as written). Names are compared as text, whatever their scope, so a statement
//! stays whenever it might matter. What goes is returned as `(open, close)` pairs whose
//! contents are blanked, as for bodies ([`crate::compact`]); a statement that goes takes
//! the lines and comments since the previous one with it.

use crate::lexscan::{is_ident, matching, skip_ws};

/// Keywords that start an item inside a body: a statement naming one stays whole (a
/// nested `fn` is judged on its own by the pruner, a `use` brings names in).
fn is_item_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"fn"
            | b"use"
            | b"impl"
            | b"struct"
            | b"enum"
            | b"union"
            | b"trait"
            | b"mod"
            | b"static"
            | b"const"
            | b"type"
            | b"macro_rules"
            | b"extern"
    )
}

/// Past this many passes over a body's statements without settling, everything left
/// stays (the passes are bounded by the longest chain of bindings; real code settles in
/// two or three).
const MAX_PASSES: usize = 16;

/// One statement (or a block's trailing expression): its bytes, `lead..=end`, from the end
/// of the one before it (the lines and comments between go with it).
#[derive(Debug)]
struct Stmt<'c> {
    lead: usize,
    end: usize,
    parent: Option<usize>,
    /// Names a word, declares an item, or holds a suppression comment: stays.
    anchored: bool,
    /// Names a word itself (not only in a nested block): its bindings keep their uses.
    named_word: bool,
    /// Names bound by its `let`s and assignments.
    binds: Vec<&'c [u8]>,
    /// Names it uses (not inside a nested block that is a statement list of its own).
    uses: Vec<&'c [u8]>,
    /// The arms of a `match` a `let` binds (`Some(t) => sb.tls_config(t)?, None => sb`):
    /// when the `let` stays and they use a name a statement binds, they are its value.
    arms: bool,
}

/// Which bindings tie a statement that names no word to one that stays, for
/// [`blank_statements`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ties {
    /// Both ways: a statement using a name bound by one naming a word (`h.join()` after
    /// `let h = thread::spawn(..)`), and one binding a name a kept statement uses (`let rt
    /// = make_runtime();` before `rt.spawn(..)`) — the rules type a value from the
    /// statements it comes through.
    Both,
    /// Only the first: the client flow asks for each name it follows, and a use of what a
    /// statement naming one binds is what its next read would ask for (`let d =
    /// c.clone();` then `d.get(u)`); what feeds a kept statement (`let url = ..;` before
    /// `c.get(url)`) is nothing it reads.
    Uses,
}

/// The ranges to blank in the body whose braces are at `open` and `close` of `code`
/// (comments and literals blanked), given the sorted byte offsets of every `hit`.
pub(super) fn blank_statements(
    code: &[u8],
    open: usize,
    close: usize,
    hits: &[usize],
    ties: Ties,
    out: &mut Vec<(usize, usize)>,
) {
    let mut stmts = Vec::new();
    split(code, open, close, None, false, hits, &mut stmts);
    if stmts.is_empty() {
        return;
    }
    let keep = judge(&stmts, ties);
    for (k, s) in stmts.iter().enumerate() {
        // a statement goes whole: its nested ones with it
        let parent_goes = s.parent.is_some_and(|p| !keep[p]);
        if !keep[k] && !parent_goes {
            out.push((s.lead - 1, s.end + 1));
        }
    }
}

/// Which statements stay: anchored ones, their enclosing statements, and those bound to
/// them by a name, until nothing changes.
fn judge(stmts: &[Stmt<'_>], ties: Ties) -> Vec<bool> {
    let mut keep = vec![false; stmts.len()];
    let mut used: foldhash::HashSet<&[u8]> = foldhash::HashSet::default();
    let mut bound_by_words: foldhash::HashSet<&[u8]> = foldhash::HashSet::default();
    fn mark<'c>(
        k: usize,
        stmts: &[Stmt<'c>],
        keep: &mut [bool],
        used: &mut foldhash::HashSet<&'c [u8]>,
    ) {
        let mut at = Some(k);
        while let Some(i) = at {
            if keep[i] {
                return;
            }
            keep[i] = true;
            used.extend(stmts[i].uses.iter().copied());
            at = stmts[i].parent;
        }
    }
    // a statement whose own blocks name a word binds what they produce (`let h = if c {
    // Some(thread::spawn(..)) } else { None };`): children come after their parent
    let mut flows: Vec<bool> = stmts.iter().map(|s| s.named_word).collect();
    for k in (0..stmts.len()).rev() {
        if let Some(p) = stmts[k].parent.filter(|_| flows[k]) {
            flows[p] = true;
        }
    }
    for (k, s) in stmts.iter().enumerate() {
        if s.anchored {
            mark(k, stmts, &mut keep, &mut used);
        }
        if flows[k] {
            bound_by_words.extend(s.binds.iter().copied());
        }
    }
    // (what a statement reading such a value binds is followed too: `let handle =
    // server.handle();` keeps `handle.stop_graceful(..)`)
    // the names the body's statements bind: what a `let`'s `match` arms may hand on (only
    // gathered for a body that has such arms)
    let bound: foldhash::HashSet<&[u8]> = if stmts.iter().any(|s| s.arms) {
        stmts.iter().flat_map(|s| s.binds.iter().copied()).collect()
    } else {
        foldhash::HashSet::default()
    };
    for _ in 0..MAX_PASSES {
        let mut changed = false;
        for (k, s) in stmts.iter().enumerate() {
            if keep[k] {
                continue;
            }
            let feeds = ties == Ties::Both && s.binds.iter().any(|b| used.contains(b));
            let reads = s.uses.iter().any(|u| bound_by_words.contains(u));
            // `let sb = match tls { Some(t) => sb.tls_config(t)?, None => sb };` kept: its
            // arms hand on what `sb` was bound to
            let hands_on = s.arms
                && s.parent.is_some_and(|p| keep[p])
                && s.uses.iter().any(|u| bound.contains(u));
            if feeds || reads || hands_on {
                mark(k, stmts, &mut keep, &mut used);
                if reads {
                    bound_by_words.extend(s.binds.iter().copied());
                }
                changed = true;
            }
        }
        if !changed {
            return keep;
        }
    }
    vec![true; stmts.len()]
}

/// Splits the block `open..=close` into statements (pushed to `out`, children after
/// their parent), and each statement's own blocks in turn. `value`: the block is the arms
/// of a `match` whose value a `let` binds, so their own text (not their arms' blocks) is
/// marked [`Stmt::arms`], kept with the `let` when it hands a binding on ([`judge`]).
fn split<'c>(
    code: &'c [u8],
    open: usize,
    close: usize,
    parent: Option<usize>,
    value: bool,
    hits: &[usize],
    out: &mut Vec<Stmt<'c>>,
) {
    let mut start = open + 1;
    let mut k = open + 1;
    // only this block's own bytes are looked at one by one: a nested group is crossed to
    // its closing delimiter by SIMD search (each level's split would otherwise walk every
    // byte of the levels below it again)
    while k < close {
        match code[k] {
            c @ (b'(' | b'[' | b'{') => {
                let r = match c {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                let Some(end) = matching(code, k, c, r).filter(|&e| e < close) else {
                    break; // unbalanced: the rest is one statement
                };
                k = end;
                // `if c { .. }`, `for x in xs { .. }`, `loop { .. }`: a statement that
                // ends with its block, without a `;`, when another statement follows
                if c == b'{' && ends_block_statement(code, start, k, close) {
                    statement(code, start, k, parent, hits, out);
                    start = k + 1;
                }
            }
            b';' => {
                statement(code, start, k, parent, hits, out);
                start = k + 1;
            }
            _ => {}
        }
        k += 1;
    }
    // the trailing expression, if any
    if let Some(first) = (start..close).find(|&i| !code[i].is_ascii_whitespace()) {
        let last = (first..close)
            .rev()
            .find(|&i| !code[i].is_ascii_whitespace())
            .unwrap_or(first);
        let me = out.len();
        statement(code, first, last, parent, hits, out);
        if value && me < out.len() {
            out[me].arms = true;
        }
        // a name alone, the value of a block inside a statement (`Ok(rt) => { log(..); rt }`
        // in `let runtime = match Builder::new_multi_thread().build() { .. }`): what the
        // statement yields, so it stays with it
        if parent.is_some() && me < out.len() && code[first..=last].iter().all(|&b| is_ident(b)) {
            out[me].anchored = true;
        }
    }
}

/// Records the statement `start..=end` (leading whitespace trimmed) and splits its blocks.
fn statement<'c>(
    code: &'c [u8],
    start: usize,
    end: usize,
    parent: Option<usize>,
    hits: &[usize],
    out: &mut Vec<Stmt<'c>>,
) {
    // what precedes it since the last statement (a suppression comment) is its own
    let lead = start;
    let Some(start) = (start..=end).find(|&i| !code[i].is_ascii_whitespace()) else {
        return;
    };
    let me = out.len();
    // its blocks' contents are not its own text
    let blocks = own_blocks(code, start, end);
    let mut s = Stmt {
        lead,
        end,
        parent,
        anchored: false,
        named_word: false,
        binds: Vec::new(),
        uses: Vec::new(),
        arms: false,
    };
    let mut own_hit = {
        let i = hits.partition_point(|&h| h < lead);
        hits.get(i).is_some_and(|&h| h < start)
    };
    let mut item = false;
    let mut from = start;
    for (to, next) in blocks.iter().copied().chain([(end + 1, end + 1)]) {
        let i = hits.partition_point(|&h| h < from);
        own_hit |= hits.get(i).is_some_and(|&h| h < to);
        item |= names(&code[from..to], &mut s.uses, &mut s.binds);
        from = next + 1;
    }
    s.anchored = own_hit || item;
    s.named_word = own_hit;
    s.uses.sort_unstable();
    s.uses.dedup();
    s.binds.sort_unstable();
    s.binds.dedup();
    out.push(s);
    // an item stays whole; other statements' blocks are split in turn
    if !item {
        for &(bo, bc) in &blocks {
            // `let sb = match tls { Some(t) => sb.tls_config(t)?, None => sb };`: the arms
            // are the value the `let` binds, whatever they name
            let value = binds_a_match(code, start, bo);
            split(code, bo, bc, Some(me), value, hits, out);
        }
    }
}

/// The `{ .. }` groups of `start..=end` not inside another one, except the arguments of
/// macro invocations (kept as written): each is a block of statements or a struct
/// literal (no `;` of its own, so nothing in it goes but its own blocks' statements).
fn own_blocks(code: &[u8], start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut k = start;
    while k <= end {
        // only a `!` or a `{` starts what is looked for
        let Some(n) = memchr::memchr2(b'!', b'{', &code[k..=end]) else {
            break;
        };
        k += n;
        match code[k] {
            b'!' => {
                // `name!(..)`, `name! { .. }`, `name![..]`: skipped whole (as the pruner's
                // test-code macros: the name right before the `!`)
                if let Some(inv) = super::invocation_at(code, k)
                    && inv.name_end + 1 == k
                    && !inv.definition
                    && let Some(c) = matching(code, inv.open, code[inv.open], inv.closing)
                    && c <= end
                {
                    k = c + 1;
                    continue;
                }
            }
            b'{' => {
                let Some(c) = matching(code, k, b'{', b'}').filter(|&c| c <= end) else {
                    return out; // unbalanced: the rest stays as it is
                };
                // `Foo { a, b }`, `Self { .. } = self`: a struct's literal or pattern is
                // the statement's own text (its names are bound or used right there)
                // `unsafe { STATE.as_ref() }`: a block kept for its value, usually one
                // expression, whose names are the statement's own
                // `match handle { Ok(_) => {} .. }` on a binding: its arms are what the
                // binding's value becomes (a handle kept or dropped), read with it
                // `match thread::Builder::new().spawn(..) { Ok(_) => .. }`: the same, the
                // handle made in the scrutinee
                // `let runtime = match RUNTIME.get() { Some(rt) => rt, None => return };`:
                // the arms are the value the `let` binds (spacedrive's mobile core), read
                // with it
                let hands_on = binds_a_match(code, start, k) && hands_on_arm(&code[k..=c]);
                // `let (active, runtime) = { let s = ..; (s.active.clone(), s.runtime.clone())
                // };`: the block computes the values the `let` binds (kftray's window
                // handlers), read with it
                let values = binds_a_tuple_block(code, start, k);
                if !after_type_name(code, start, k)
                    && !after_word(code, start, k, b"unsafe")
                    && !matches_a_binding(code, start, k)
                    && !matches_a_spawn(code, start, k)
                    && !hands_on
                    && !values
                {
                    out.push((k, c));
                }
                k = c + 1;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    out
}

/// Whether the `}` at `at` ends the statement that starts at `start`: one that starts
/// with a block-like expression (`if`, `match`, a loop, `unsafe`, a block) whose next token
/// starts another statement (not `else`, `.`, `?`, an operator).
fn ends_block_statement(code: &[u8], start: usize, at: usize, close: usize) -> bool {
    let first = skip_ws(code, start).min(close);
    let word_end = (first..close)
        .find(|&i| !is_ident(code[i]))
        .unwrap_or(close);
    let block_like = code.get(first) == Some(&b'{')
        || matches!(
            &code[first..word_end],
            b"if" | b"match" | b"for" | b"while" | b"loop" | b"unsafe"
        );
    if !block_like {
        return false;
    }
    let next = skip_ws(code, at + 1).min(close);
    if next >= close {
        return false;
    }
    let c = code[next];
    let next_end = (next..close).find(|&i| !is_ident(code[i])).unwrap_or(close);
    // `for Config { name, spec } in ..`: the pattern's braces, not the loop's block
    (is_ident(c)
        && !c.is_ascii_digit()
        && !matches!(&code[next..next_end], b"else" | b"as" | b"in"))
        || c == b'#'
}

/// Words that are never a local's name.
fn is_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"_" | b"as"
            | b"async"
            | b"await"
            | b"break"
            | b"continue"
            | b"crate"
            | b"dyn"
            | b"else"
            | b"false"
            | b"for"
            | b"if"
            | b"in"
            | b"loop"
            | b"match"
            | b"move"
            | b"mut"
            | b"ref"
            | b"return"
            | b"self"
            | b"super"
            | b"true"
            | b"unsafe"
            | b"where"
            | b"while"
    )
}

/// Whether the `{` at `at` follows a name starting with a capital (`Foo {`, `Self {`,
/// `a::Foo {`): a struct's literal or pattern rather than a block.
/// Whether `start..at` is `match name` (a binding's name, the `{` at `at` its arms).
fn matches_a_binding(code: &[u8], start: usize, at: usize) -> bool {
    let text = code[start..at].trim_ascii();
    let Some(rest) = text.strip_prefix(b"match") else {
        return false;
    };
    let name = rest.trim_ascii_start();
    name.len() < rest.len()
        && !name.is_empty()
        && !name[0].is_ascii_digit()
        && name.iter().all(|&c| is_ident(c))
}

/// Whether `start..at` is `match <expr naming spawn>` with the `{` at `at` at the top level
/// of the statement (its arms, not a closure's body inside the scrutinee's parentheses).
fn matches_a_spawn(code: &[u8], start: usize, at: usize) -> bool {
    let text = code[start..at].trim_ascii();
    let Some(rest) = text.strip_prefix(b"match") else {
        return false;
    };
    rest.first().is_some_and(u8::is_ascii_whitespace)
        && bracket_depth(rest) == 0
        && rest.windows(5).any(|w| w == b"spawn")
}

/// How many brackets `text` leaves open (negative: closes more than it opens).
fn bracket_depth(text: &[u8]) -> i64 {
    text.iter()
        .map(|&c| match c {
            b'(' | b'[' | b'{' => 1,
            b')' | b']' | b'}' => -1,
            _ => 0,
        })
        .sum()
}

/// Whether `start..at` is `let <pattern> = match <expr>` with the `{` at `at` at the top
/// level of the statement: the arms of a `match` whose value a `let` binds.
fn binds_a_match(code: &[u8], start: usize, at: usize) -> bool {
    let Some(text) = after_let(code, start, at) else {
        return false;
    };
    let Some(m) = memchr::memmem::find(text, b"= match") else {
        return false;
    };
    let scrutinee = &text[m + b"= match".len()..];
    scrutinee.first().is_some_and(u8::is_ascii_whitespace) && bracket_depth(scrutinee) == 0
}

/// Whether `start..at` is `let (<names>) =` with the `{` at `at` right after the `=`: a
/// block whose value, a tuple, the `let` binds name by name.
fn binds_a_tuple_block(code: &[u8], start: usize, at: usize) -> bool {
    let Some(pattern) = after_let(code, start, at).and_then(|t| t.trim_ascii().strip_suffix(b"="))
    else {
        return false;
    };
    let pattern = pattern.trim_ascii();
    pattern.first() == Some(&b'(') && pattern.last() == Some(&b')')
}

/// What follows the `let` keyword of a statement `code[start..at]` that starts with one.
fn after_let(code: &[u8], start: usize, at: usize) -> Option<&[u8]> {
    let text = code[start..at].trim_ascii();
    let rest = text.strip_prefix(b"let")?;
    (!rest.first().is_some_and(|&c| is_ident(c))).then_some(rest)
}

/// Whether the arms `arms` (from `{` to `}`) hand the scrutinee's value on: `Some(x) =>
/// x` or `Ok(x) => x` (a `let` binding a `match` that maps to other values reads nothing
/// of its scrutinee, and its arms go as before).
fn hands_on_arm(arms: &[u8]) -> bool {
    for pre in [&b"Some("[..], b"Ok("] {
        let mut from = 0;
        while let Some(n) = memchr::memmem::find(&arms[from..], pre) {
            let at = from + n;
            from = at + pre.len();
            if at > 0 && is_ident(arms[at - 1]) {
                continue;
            }
            let mut k = skip_ws(arms, from);
            if arms[k..].starts_with(b"mut ") {
                k = skip_ws(arms, k + 4);
            }
            let name_start = k;
            while k < arms.len() && is_ident(arms[k]) {
                k += 1;
            }
            let name = &arms[name_start..k];
            if name.is_empty() {
                continue;
            }
            k = skip_ws(arms, k);
            if arms.get(k) != Some(&b')') {
                continue;
            }
            k = skip_ws(arms, k + 1);
            if !arms[k..].starts_with(b"=>") {
                continue;
            }
            k = skip_ws(arms, k + 2);
            if arms[k..].starts_with(name) && arms.get(k + name.len()).is_none_or(|&c| !is_ident(c))
            {
                return true;
            }
        }
    }
    false
}

/// Whether the last word of `code[start..at]` is `word` (the keyword before a block).
fn after_word(code: &[u8], start: usize, at: usize, word: &[u8]) -> bool {
    let before = code[start..at].trim_ascii_end();
    before.ends_with(word)
        && (before.len() == word.len() || !is_ident(before[before.len() - word.len() - 1]))
}

fn after_type_name(code: &[u8], start: usize, at: usize) -> bool {
    let mut k = at;
    while k > start && code[k - 1].is_ascii_whitespace() {
        k -= 1;
    }
    let end = k;
    while k > start && is_ident(code[k - 1]) {
        k -= 1;
    }
    k < end && code[k].is_ascii_uppercase()
}

/// Adds the names `text` uses (identifiers that can be a local: not after `.` or `::`,
/// not before `::`, `!` or `(`) to `uses`, and those its `let` patterns and assignments
/// bind to `binds`; whether `text` names an item keyword (a lifetime's `'static` aside).
fn names<'c>(text: &'c [u8], uses: &mut Vec<&'c [u8]>, binds: &mut Vec<&'c [u8]>) -> bool {
    let mut item = false;
    let mut k = 0;
    let mut in_let = false;
    let mut depth = 0usize;
    while k < text.len() {
        let c = text[k];
        if !(c.is_ascii_alphabetic() || c == b'_') || (k > 0 && is_ident(text[k - 1])) {
            match c {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                // a `let` pattern ends at its `=` (or a type's `:`)
                b'=' | b':' if in_let && depth == 0 => in_let = false,
                _ => {}
            }
            k += 1;
            continue;
        }
        let s = k;
        while k < text.len() && is_ident(text[k]) {
            k += 1;
        }
        let word = &text[s..k];
        if s > 0 && text[s - 1] == b'\'' {
            continue; // a lifetime or a label
        }
        if word == b"let" {
            in_let = true;
            depth = 0;
            continue;
        }
        if is_item_keyword(word) {
            item = true;
            continue;
        }
        let before = text[..s].trim_ascii_end();
        let after = text[k..].trim_ascii_start();
        let path_tail = before.ends_with(b".") || before.ends_with(b"::");
        let path_head = after.starts_with(b"::") || after.starts_with(b"!");
        if path_tail || path_head || word[0].is_ascii_uppercase() || is_keyword(word) {
            continue;
        }
        let assigned =
            after.starts_with(b"=") && !after.starts_with(b"==") && !after.starts_with(b"=>")
                || is_compound_assignment(after);
        if (in_let && !after.starts_with(b"(")) || assigned {
            binds.push(word);
        }
        if !after.starts_with(b"(") && !in_let {
            uses.push(word);
        }
    }
    item
}

/// `+= x`, `-= x`, `|= x`, ...: an assignment to the name before it.
fn is_compound_assignment(after: &[u8]) -> bool {
    matches!(
        after,
        [
            b'+' | b'-' | b'*' | b'/' | b'%' | b'^' | b'&' | b'|',
            b'=',
            ..
        ]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What goes of the first body of `src`: `(open, close)` pairs.
    fn blanked(src: &str, words: &[&str]) -> Vec<(usize, usize)> {
        let code = crate::lexscan::code_only(src);
        let mut hits: Vec<usize> = words
            .iter()
            .flat_map(|w| memchr::memmem::find_iter(&code, w.as_bytes()).collect::<Vec<_>>())
            .collect();
        hits.sort_unstable();
        let open = src.find('{').unwrap();
        let close = crate::lexscan::matching(&code, open, b'{', b'}').unwrap();
        let mut out = Vec::new();
        blank_statements(&code, open, close, &hits, Ties::Both, &mut out);
        out
    }

    /// The text of `src` with the statements of its first body that go blanked.
    fn pruned(src: &str, words: &[&str]) -> String {
        let out = blanked(src, words);
        let mut b = src.as_bytes().to_vec();
        for (o, c) in out {
            crate::lexscan::blank_keeping_lines(&mut b[o + 1..c]);
        }
        String::from_utf8(b)
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The lines and comments before a statement that goes go with it: the parser does
    /// not walk them (a suppression comment there would have kept the statement).
    #[test]
    fn a_statement_goes_with_the_lines_and_comments_before_it() {
        let src = "fn f() {\n    // set up\n    let a = 1 + 2;\n    /* log it */\n    log(a);\n    \
                   tokio::spawn(work());\n    done();\n}";
        let kept = crate::compact::compact(src, &blanked(src, &["spawn"])).text;
        assert_eq!(kept, "fn f() {\n    tokio::spawn(work());\n}");
        syn::parse_file(&kept).unwrap();
    }

    #[test]
    fn statements_naming_no_word_go() {
        let src = "fn f() { let a = 1 + 2; log(a); tokio::spawn(work()); Ok(()) }";
        assert_eq!(pruned(src, &["spawn"]), "fn f() { tokio::spawn(work()); }");
    }

    #[test]
    fn an_unsafe_block_is_its_statements_own_text() {
        // ockam: `let app_state = unsafe { APPLICATION_STATE.as_ref() }.expect(..);`, the
        // block's one expression is the value the kept statement binds
        let src = "fn f() { let s = unsafe { STATE.as_ref() }.expect(\"x\"); s.rt().spawn(w); }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { let s = unsafe { STATE.as_ref() }.expect(\"x\"); s.rt().spawn(w); }"
        );
    }

    #[test]
    fn a_binding_a_kept_statement_uses_stays() {
        let src = "fn f() { let rt = make_runtime(); let x = 3; rt.spawn(work(x)); }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { let rt = make_runtime(); let x = 3; rt.spawn(work(x)); }"
        );
        // and what feeds that binding, in turn
        let src = "fn f() { let o = opts(); let rt = make(o); noise(); rt.spawn(w); }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { let o = opts(); let rt = make(o); rt.spawn(w); }"
        );
    }

    #[test]
    fn uses_of_what_a_word_bound_stay() {
        let src = "fn f() { let h = thread::spawn(w); other(); let r = Recorder { h }; r }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { let h = thread::spawn(w); let r = Recorder { h }; r }"
        );
    }

    #[test]
    fn a_match_on_a_spawn_keeps_its_arms() {
        let src =
            "fn f() { x(); match thread::spawn(move || w()) { Ok(_) => {} Err(e) => log(e) } }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { match thread::spawn(move || w()) { Ok(_) => {} Err(e) => log(e) } }"
        );
    }

    #[test]
    fn a_match_a_let_binds_keeps_its_arms() {
        let src = "fn f() { let rt = match RT.get() { Some(rt) => rt, None => return }; \
                   x(); rt.spawn(w); }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { let rt = match RT.get() { Some(rt) => rt, None => return }; rt.spawn(w); }"
        );
        // a block inside the scrutinee is not the arms
        let src = "fn f() { let v = match f(|| { noise(); }) { Some(v) => v, None => 0 }; \
                   v.spawn(w); }";
        assert!(!pruned(src, &["spawn"]).contains("noise"));
        // arms that map to other values: nothing of the scrutinee is handed on
        let src = "fn f() { let n = match kind { Kind::A => 1, Kind::B => 2 }; rt.spawn(w(n)); }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { let n = match kind { }; rt.spawn(w(n)); }"
        ); // arms that hand on what another statement bound (monitor-rs's collector: TLS
        // added to a server builder in one arm): they stay, and so does that statement
        let src = "fn f() { let sb = Server::builder(); x(); let sb = match tls { \
                   Some(t) => sb.tls_config(t).expect(\"tls\"), None => sb }; sb.serve(addr); }";
        assert_eq!(
            pruned(src, &["serve"]),
            "fn f() { let sb = Server::builder(); let sb = match tls { \
             Some(t) => sb.tls_config(t).expect(\"tls\"), None => sb }; sb.serve(addr); }"
        );
    }

    #[test]
    fn a_match_on_what_a_word_bound_keeps_its_arms() {
        let src =
            "fn f() { let h = thread::spawn(w); x(); match h { Ok(_) => {} Err(e) => log(e) } }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { let h = thread::spawn(w); match h { Ok(_) => {} Err(e) => log(e) } }"
        );
    }

    #[test]
    fn values_read_from_what_a_word_bound_are_followed() {
        let src = "fn f() { let s = salvo::Server::new(a); let h = s.handle(); x(); \
                   go(async move { h.stop_graceful(d); }); }";
        assert_eq!(
            pruned(src, &["salvo"]),
            "fn f() { let s = salvo::Server::new(a); let h = s.handle(); \
             go(async move { h.stop_graceful(d); }); }"
        );
    }

    #[test]
    fn what_a_statement_s_blocks_spawn_is_followed() {
        let src = "fn f(c: bool) { let w = if c { Some(thread::spawn(t)) } else { None }; \
                   noise(); keep(w); }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f(c: bool) { let w = if c { Some(thread::spawn(t)) } else { None }; keep(w); }"
        );
    }

    #[test]
    fn a_name_a_block_of_a_kept_statement_yields_stays() {
        // the arm's value is the match's: `rt` is what `runtime` holds
        let src = "fn f() { let runtime = match Builder::new_multi_thread().build() { \
                   Ok(rt) => { log(); rt } Err(e) => { return; } }; runtime.spawn(w); noise(); }";
        assert_eq!(
            pruned(src, &["build", "spawn"]),
            "fn f() { let runtime = match Builder::new_multi_thread().build() { \
             Ok(rt) => { rt } Err(e) => { } }; runtime.spawn(w); }"
        );
    }

    #[test]
    fn blocks_of_kept_statements_are_pruned_in_turn() {
        let src = "fn f() { loop { tick(); if go { noise(); tokio::spawn(w); } } }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { loop { if go { tokio::spawn(w); } } }"
        );
        // a statement that goes takes its blocks with it
        let src = "fn f() { for x in xs { a(x); b(x); } tokio::spawn(w); }";
        assert_eq!(pruned(src, &["spawn"]), "fn f() { tokio::spawn(w); }");
    }

    #[test]
    fn macro_invocations_and_items_stay_whole() {
        let src = "fn f() { select! { _ = a => { x(); } } ; use a::b; fn g() {} tokio::spawn(w); }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { use a::b; fn g() {} tokio::spawn(w); }"
        );
        let src = "fn f() { select! { _ = a => { x(); } _ = b => { tokio::spawn(w); } } }";
        assert_eq!(pruned(src, &["spawn"]), src);
    }

    #[test]
    fn struct_patterns_and_literals_are_the_statements_own() {
        let src = "fn f(self) { let Self { addr, h } = self; noise(); serve(addr).run(); }";
        assert_eq!(
            pruned(src, &["serve"]),
            "fn f(self) { let Self { addr, h } = self; serve(addr).run(); }"
        );
    }

    #[test]
    fn a_struct_pattern_of_a_for_loop_is_not_its_block() {
        // nativelink's `for SchedulerConfig { name, spec } in cfg.schedulers..`: taken for
        // a statement ending at the pattern's `}`, the pattern went and the loop did not
        // parse (the whole file was then parsed unpruned)
        let src = "fn f() { noise(); for S { a, .. } in xs { tokio::spawn(a); } }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f() { for S { a, .. } in xs { tokio::spawn(a); } }"
        );
    }

    #[test]
    fn a_block_bound_as_a_tuple_is_the_lets_own() {
        // kftray: the block computes the values the `let` binds; a block bound to one name,
        // and one bound as a tuple but not right after the `=`, prune as before
        let src = "fn f(w: W) { let (a, rt) = { let s = w.state(); noise(); (s.a, s.rt.clone()) }; \
                   rt.spawn(x); }";
        assert_eq!(pruned(src, &["spawn"]), src);
        let src =
            "fn f(w: W) { let rt = { let s = w.state(); noise(); s.rt.clone() }; rt.spawn(x); }";
        assert_eq!(
            pruned(src, &["spawn"]),
            "fn f(w: W) { let rt = { }; rt.spawn(x); }"
        );
    }

    #[test]
    fn assignments_bind_their_target() {
        let src = "fn f() { let mut b = Client::builder(); if p { b = with(b, p); } b.build() }";
        assert_eq!(pruned(src, &["Client", ".build"]), src);
    }
}
