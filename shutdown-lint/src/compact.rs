//! The pruned text without its blanked bodies, and the way back to the file's offsets.
//!
//! [`crate::prune`] blanks bodies with spaces so every byte keeps its offset, but the
//! parser still walks every one of those spaces: on vaultwarden's tree a third of the time
//! spent parsing pruned files went into whitespace. [`compact`] removes the blanked
//! contents (the braces stay, `{}`), and [`Shifts`] maps an offset of the compacted text
//! back to the file, so spans of the compacted parse still name the file's lines and
//! columns ([`crate::source::LineIndex::with_shifts`]).

/// Where bytes were removed: for each removal, its position in the compacted text and the
/// bytes removed up to and including it. Empty: offsets are the file's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shifts(Vec<(usize, usize)>);

impl Shifts {
    /// The file offset of compacted offset `at`, a start (of a token, of a span): a start
    /// at a removal point is the byte after what was removed (the closing `}`).
    ///
    /// # Examples
    /// ```
    /// let c = shutdown_lint::compact::compact("fn a() {   }\nfn b() {}", &[(7, 11)]);
    /// assert_eq!(c.text, "fn a() {}\nfn b() {}");
    /// assert_eq!(c.shifts.start(8), 11); // the `}`
    /// assert_eq!(c.shifts.start(13), 16); // `b`
    /// ```
    pub fn start(&self, at: usize) -> usize {
        let i = self.0.partition_point(|&(pos, _)| pos <= at);
        at + i.checked_sub(1).map_or(0, |i| self.0[i].1)
    }

    /// The file offset of compacted offset `at`, an end (exclusive): an end at a removal
    /// point is the byte before what was removed (just after the opening `{`).
    ///
    /// # Examples
    /// ```
    /// let c = shutdown_lint::compact::compact("fn a() {   }", &[(7, 11)]);
    /// assert_eq!(c.shifts.end(8), 8); // the end of `{`
    /// assert_eq!(c.shifts.end(9), 12); // the end of `}`
    /// ```
    pub fn end(&self, at: usize) -> usize {
        let i = self.0.partition_point(|&(pos, _)| pos < at);
        at + i.checked_sub(1).map_or(0, |i| self.0[i].1)
    }

    /// Whether no byte was removed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A compacted text and its [`Shifts`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compacted {
    /// The text without the contents of the blanked braces.
    pub text: String,
    /// From the compacted text's offsets back to the file's.
    pub shifts: Shifts,
}

/// `text` without the contents of the braces `blanked` lists as `(open, close)`, the byte
/// offsets of a `{` and its `}` (in any order, nested ones included). The contents must be
/// blank (as [`crate::prune`] leaves them): no comment or literal is cut.
///
/// # Examples
/// ```
/// use shutdown_lint::compact::compact;
/// // an impl whose contents were blanked (a method body in it too), and `g`'s body
/// let src = "impl A {\n                 \n}\nfn g() {  }\n";
/// let c = compact(src, &[(20, 25), (7, 27), (36, 39)]);
/// assert_eq!(c.text, "impl A {}\nfn g() {}\n");
/// assert_eq!(c.shifts.start(c.text.find('g').unwrap()), src.find('g').unwrap());
/// syn::parse_file(&c.text).unwrap();
/// ```
pub fn compact(text: &str, blanked: &[(usize, usize)]) -> Compacted {
    let mut spans: Vec<(usize, usize)> = blanked
        .iter()
        .filter(|&&(open, close)| open < close && close <= text.len())
        .copied()
        .collect();
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut shifts = Vec::new();
    let (mut copied, mut removed) = (0, 0);
    for (open, close) in spans {
        if open + 1 < copied || !text.is_char_boundary(open + 1) || !text.is_char_boundary(close) {
            // inside one already removed
            continue;
        }
        out.push_str(&text[copied..open + 1]);
        removed += close - (open + 1);
        if close > open + 1 {
            shifts.push((out.len(), removed));
        }
        copied = close;
    }
    out.push_str(&text[copied..]);
    Compacted {
        text: out,
        shifts: Shifts(shifts),
    }
}
