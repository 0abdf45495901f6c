//! Source text handling: byte offsets to 1-based line/column [`Region`]s, and a parse of a
//! file that cannot blow the stack on pathological input.
//!
//! `syn` recurses once per nesting level, and so does every visitor and `Drop` of the tree.
//! Before parsing, [`nesting_depth`] measures the deepest bracket nesting plus the longest
//! run of prefix operators with a single linear byte scan; a file over [`MAX_NESTING`] is
//! reported as a parse error instead of being parsed. The engine also parses on threads
//! with a large stack ([`PARSE_STACK_BYTES`]) so realistic deep code is always fine.

use crate::finding::Region;

/// Deepest nesting (brackets plus prefix-operator runs) a file may have before it is
/// reported instead of parsed. Real code stays far below 100.
pub const MAX_NESTING: usize = 512;

/// Stack size of the threads that parse and analyse files.
pub const PARSE_STACK_BYTES: usize = 256 * 1024 * 1024;

/// Operator characters in one flat expression that count as one level of nesting.
pub const OPS_PER_LEVEL: usize = 8;

/// Maps byte offsets of one file to 1-based lines and character columns.
///
/// # Examples
/// ```
/// use shutdown_lint::source::LineIndex;
/// let idx = LineIndex::new("ab\ncd");
/// let r = idx.region(3, 5);
/// assert_eq!((r.line, r.column, r.end_line, r.end_column), (2, 1, 2, 3));
/// ```
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// Spans come from a compacted text ([`crate::compact`]): their offsets map back
    /// through these.
    shifts: crate::compact::Shifts,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text` (one pass over its newlines).
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex {
            text,
            starts,
            shifts: crate::compact::Shifts::default(),
        }
    }

    /// The same index for spans of a parse of the compacted text `shifts` came with:
    /// [`Self::span_region`] and [`Self::span_text`] map their offsets back to this text.
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::{compact::compact, source::LineIndex};
    /// let src = "fn a() {   }\nfn b() {}";
    /// let c = compact(src, &[(7, 11)]);
    /// let file = syn::parse_file(&c.text).unwrap();
    /// let syn::Item::Fn(b) = &file.items[1] else { unreachable!() };
    /// let idx = LineIndex::new(src).with_shifts(c.shifts);
    /// let r = idx.span_region(b.sig.ident.span());
    /// assert_eq!((r.line, r.column, r.offset), (2, 4, 16));
    /// assert_eq!(idx.span_text(b.sig.ident.span()), "b");
    /// ```
    pub fn with_shifts(mut self, shifts: crate::compact::Shifts) -> LineIndex<'a> {
        self.shifts = shifts;
        self
    }

    /// 1-based line and 1-based character column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let mut end = offset;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[start..end].chars().count() + 1;
        (line + 1, col)
    }

    /// The region covering bytes `start..end`.
    pub fn region(&self, start: usize, end: usize) -> Region {
        let end = end.max(start);
        let (line, column) = self.line_col(start);
        let (end_line, end_column) = self.line_col(end);
        Region {
            line,
            column,
            end_line,
            end_column,
            offset: start.min(self.text.len()),
            len: end.min(self.text.len()) - start.min(self.text.len()),
        }
    }

    /// The region of a parsed span (spans carry byte ranges relative to the parsed text,
    /// mapped back when it was compacted, [`Self::with_shifts`]).
    pub fn span_region(&self, span: proc_macro2::Span) -> Region {
        let r = self.span_range(span);
        self.region(r.start, r.end)
    }

    /// The text of a parsed span (see [`Self::span_region`]).
    pub fn span_text(&self, span: proc_macro2::Span) -> &'a str {
        self.text(self.span_range(span))
    }

    /// A span's byte range in this index's text.
    fn span_range(&self, span: proc_macro2::Span) -> std::ops::Range<usize> {
        let r = span.byte_range();
        if self.shifts.is_empty() {
            return r;
        }
        let start = self.shifts.start(r.start);
        start..self.shifts.end(r.end).max(start)
    }

    /// Byte offset where 1-based `line` starts (the end of the text past the last line).
    pub fn line_start(&self, line: usize) -> usize {
        self.starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(self.text.len())
    }

    /// Number of lines.
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The text of bytes `range` (clamped to the text; empty when not on char boundaries).
    ///
    /// # Examples
    /// ```
    /// use shutdown_lint::source::LineIndex;
    /// assert_eq!(LineIndex::new("ab\ncd").text(3..9), "cd");
    /// ```
    pub fn text(&self, range: std::ops::Range<usize>) -> &'a str {
        let end = range.end.min(self.text.len());
        self.text.get(range.start.min(end)..end).unwrap_or("")
    }
}

/// Deepest nesting in `text`: open brackets plus runs of prefix operators (`!`, `-`, `*`,
/// `&`), skipping comments, strings and character literals; an expression with very many
/// operators or method calls between `;`, `,`, braces and brackets (`1 + 1 + ..`, `a.b().c()..`,
/// which parse into trees as deep as they are long) counts one level per
/// [`OPS_PER_LEVEL`] operator characters; `?`, `[` and the keywords `return`, `break`, `as`,
/// `yield`, `become`, `move` count as operators (`return return ..`, `x as u8 as u8 ..`,
/// `x[0][0]..` chain without operator characters). Linear, no allocation.
///
/// # Examples
/// ```
/// use shutdown_lint::source::nesting_depth;
/// assert_eq!(nesting_depth("fn f() { g((1)) } // (((("), 3);
/// ```
pub fn nesting_depth(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut depth, mut max, mut run, mut ops) = (0usize, 0usize, 0usize, 0usize);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut level = 1usize;
                i += 2;
                while i < b.len() && level > 0 {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        level += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        level -= 1;
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
                continue;
            }
            b'"' => {
                i = skip_string(b, i);
                run = 0;
                continue;
            }
            b'\'' => {
                // a char literal ('x', '\n', '\u{..}') or a lifetime ('a)
                if b.get(i + 1) == Some(&b'\\') {
                    let mut j = i + 2;
                    while j < b.len() && b[j] != b'\'' && j < i + 12 {
                        j += 1;
                    }
                    i = j + 1;
                    continue;
                }
                if b.get(i + 2) == Some(&b'\'') {
                    i += 3;
                    continue;
                }
            }
            b'(' | b'[' => {
                depth += 1;
                max = max.max(depth + run);
                if c == b'[' {
                    // `x[0][0]..` chains nest like method calls
                    ops += 1;
                    max = max.max(ops / OPS_PER_LEVEL);
                }
            }
            b'{' => {
                depth += 1;
                max = max.max(depth + run);
                ops = 0;
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            b'}' | b';' | b',' => {
                if c == b'}' {
                    depth = depth.saturating_sub(1);
                }
                ops = 0;
            }
            b'!' | b'-' | b'*' | b'&' => {
                run += 1;
                ops += 1;
                max = max.max(depth + run).max(ops / OPS_PER_LEVEL);
                i += 1;
                continue;
            }
            b'+' | b'/' | b'%' | b'^' | b'|' | b'<' | b'>' | b'.' | b'=' | b'?' => {
                ops += 1;
                max = max.max(ops / OPS_PER_LEVEL);
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                // a raw string, also a byte or C string's (`r#"`, `br#"`, `cr"`)
                if !prev_ident(b, i)
                    && let Some(end) = crate::lexscan::prefixed_raw_string_end(b, i)
                {
                    i = end.unwrap_or(b.len());
                    run = 0;
                    continue;
                }
                // a word; keywords that chain without operator characters (`return return ..`,
                // `break break ..` nest to the right, `x as T as T ..` to the left) count
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                if matches!(
                    &b[start..i],
                    b"return" | b"break" | b"as" | b"yield" | b"become" | b"move"
                ) {
                    ops += 1;
                    max = max.max(ops / OPS_PER_LEVEL);
                }
                run = 0;
                continue;
            }
            b' ' | b'\n' | b'\t' | b'\r' | b'\x0c' => {
                // a run of whitespace (indentation) at once; it ends no operator run
                i += 1;
                while i < b.len() && b[i].is_ascii_whitespace() {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        run = 0;
        i += 1;
    }
    max
}

fn prev_ident(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match memchr::memchr2(b'\\', b'"', &b[i..]) {
            Some(k) if b[i + k] == b'\\' => i += k + 2,
            Some(k) => return i + k + 1,
            None => break,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::nesting_depth;

    #[test]
    fn brackets_in_raw_byte_and_c_strings_do_not_nest() {
        // read as a plain string from its `"`, a `br#".."#` holding quotes ends at the
        // first of them, and what follows counts
        let json = "x\" [[[[[[1]]]]]] \"y";
        for prefix in ["r", "br", "cr"] {
            let src = format!("fn f() {{ g({prefix}#\"{json}\"#) }}");
            assert_eq!(nesting_depth(&src), 2, "{src}");
        }
    }
}
