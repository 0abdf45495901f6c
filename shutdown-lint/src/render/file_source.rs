//! A file's text as miette reads it for a report, without reading it from the start for
//! every finding: miette's own `SourceCode` for text counts lines from the first byte up
//! to the span, so a file with many findings was scanned once per finding (rustfs: 310
//! findings, 60 ms of a 0.6 s run). The lines before the span are counted once per file
//! and miette reads from the first line it shows; what it returns is then the same as for
//! the whole text (line numbers, columns, line count).

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::sync::Arc;

/// A named file text for miette, with where each of its lines ends.
///
/// # Examples
/// ```
/// use miette::SourceCode;
/// use shutdown_lint::render::file_source::FileSource;
/// let text = "fn a() {}\nfn b() {\n    spawn();\n}\n";
/// let src = FileSource::new("lib.rs".into(), text.into());
/// let at = text.find("spawn").unwrap();
/// let span = (at, 5).into();
/// let got = src.read_span(&span, 1, 1).unwrap();
/// let whole = text.read_span(&span, 1, 1).unwrap();
/// assert_eq!(got.data(), whole.data());
/// assert_eq!((got.line(), got.column(), got.line_count()), (whole.line(), whole.column(), whole.line_count()));
/// assert_eq!(got.line(), 1);
/// assert_eq!(got.name(), Some("lib.rs"));
/// ```
#[derive(Debug, Clone)]
pub struct FileSource {
    name: String,
    text: Arc<str>,
    /// The offset of each line's last terminator byte, as miette counts lines: `\n`, a
    /// lone `\r`, the `\n` of `\r\n`.
    ends: Arc<[usize]>,
}

impl FileSource {
    /// `text` shown under `name`.
    pub fn new(name: String, text: Arc<str>) -> FileSource {
        let b = text.as_bytes();
        let mut ends = Vec::new();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\r' if b.get(i + 1) == Some(&b'\n') => {
                    ends.push(i + 1);
                    i += 1;
                }
                b'\r' | b'\n' => ends.push(i),
                _ => {}
            }
            i += 1;
        }
        FileSource {
            name,
            text,
            ends: ends.into(),
        }
    }

    /// The text's length in bytes.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

impl SourceCode for FileSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        // the lines wholly before the span, and the first one shown (an empty span is read
        // from the start: miette looks at the byte before it)
        let line = match span.len() {
            0 => 0,
            _ => self.ends.partition_point(|&e| e < span.offset()),
        };
        let first = line.saturating_sub(context_lines_before);
        let start = match first {
            0 => 0,
            n => self.ends[n - 1] + 1,
        };
        let window = &self.text.as_bytes()[start.min(self.text.len())..];
        let shifted = SourceSpan::new(span.offset().saturating_sub(start).into(), span.len());
        let inner = window.read_span(&shifted, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            SourceSpan::new((inner.span().offset() + start).into(), inner.span().len()),
            inner.line() + first,
            inner.column(),
            inner.line_count() + first,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every span start, with every context, reads as the whole text reads, whatever the
    /// line endings.
    #[test]
    fn reads_as_miette_reads_the_whole_text() {
        for text in [
            "a\nbb\n\nccc dd\neee\n",
            "a\r\nbb\r\n\r\nccc dd\r\neee",
            "a\rbb\r\rccc\n dd\r\neee\n\n",
            "",
            "one line",
        ] {
            let src = FileSource::new("f.rs".into(), text.into());
            for at in 0..text.len() {
                for len in [0, 1, 3] {
                    if at + len > text.len() {
                        continue;
                    }
                    let span: SourceSpan = (at, len).into();
                    for (before, after) in [(0, 0), (1, 1), (2, 0), (0, 3), (5, 5)] {
                        let got = src.read_span(&span, before, after);
                        let want = text.read_span(&span, before, after);
                        match (got, want) {
                            (Ok(g), Ok(w)) => {
                                let what = format!("{text:?} at {at}+{len} ({before}, {after})");
                                assert_eq!(g.data(), w.data(), "{what}");
                                assert_eq!(g.span(), w.span(), "{what}");
                                assert_eq!(g.line(), w.line(), "{what}");
                                assert_eq!(g.column(), w.column(), "{what}");
                                assert_eq!(g.line_count(), w.line_count(), "{what}");
                            }
                            (Err(_), Err(_)) => {}
                            (g, w) => {
                                panic!("{text:?} at {at}+{len}: {:?} vs {:?}", g.is_ok(), w.is_ok())
                            }
                        }
                    }
                }
            }
        }
    }
}
