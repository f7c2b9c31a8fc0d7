//! A source text prepared once for the snippets of many problems.
//!
//! Why: miette finds a snippet's lines by scanning its source from the first byte, and a
//! problem's location was found the same way; with a copy of the whole text per report. A spec
//! of 27,000 lines with 700 warnings cost seconds of rendering (O(problems x file size)).
//! [`Source`] checks the text as UTF-8 once, indexes its lines once and is shared by every
//! report; each snippet is read from a window of a few lines around its span, and the window's
//! answer is shifted back to the whole text's offsets and line numbers, so what miette prints is
//! exactly what it prints reading the whole text (tested below against miette's own reading).

use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// A text for snippets: valid UTF-8 (else there is no snippet), its `\n` line starts indexed.
pub struct Source {
    text: Option<Arc<str>>,
    /// Byte offset of each line's start (line 1 at index 0).
    line_starts: Arc<Vec<usize>>,
    /// miette also breaks lines at a lone `\r`; text with any `\r` is read whole, as miette does.
    has_cr: bool,
}

impl Source {
    /// Prepares `bytes` (O(len), once). Empty or not UTF-8: a source without text.
    pub fn new(bytes: &[u8]) -> Source {
        let text = std::str::from_utf8(bytes)
            .ok()
            .filter(|text| !text.is_empty());
        let mut line_starts = vec![0];
        if let Some(text) = text {
            line_starts.extend(newlines(text.as_bytes()).map(|index| index + 1));
        }
        Source {
            has_cr: bytes.contains(&b'\r'),
            text: text.map(Arc::from),
            line_starts: Arc::new(line_starts),
        }
    }

    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// Byte offset of a 1-based line and byte column, if it lies inside the text (lines end at
    /// `\n`; the column may point at the line's end).
    pub fn offset_of(&self, line: u32, col: u32) -> Option<usize> {
        let text = self.text.as_deref()?;
        if line == 0 || col == 0 {
            return None;
        }
        let start = *self.line_starts.get(line as usize - 1)?;
        let line_end = self
            .line_starts
            .get(line as usize)
            .map_or(text.len(), |next| next - 1);
        let offset = start + col as usize - 1;
        (offset <= line_end && text.is_char_boundary(offset)).then_some(offset)
    }

    /// The text as miette's source code, named `name`; `None` without text.
    pub fn snippet(&self, name: String) -> Option<Snippet> {
        Some(Snippet {
            name,
            text: self.text.clone()?,
            line_starts: self.line_starts.clone(),
            has_cr: self.has_cr,
        })
    }

    /// 0-based index of the line holding byte `offset`.
    fn line_of(line_starts: &[usize], offset: usize) -> usize {
        line_starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1)
    }
}

fn newlines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter_map(|(index, &byte)| (byte == b'\n').then_some(index))
}

/// A [`Source`]'s text as miette reads it, without copying it per report.
#[derive(Debug)]
pub struct Snippet {
    name: String,
    text: Arc<str>,
    line_starts: Arc<Vec<usize>>,
    has_cr: bool,
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text: &'a str = &self.text;
        let end = span.offset() + span.len();
        let (window_start, first_line, window) = if self.has_cr || end > text.len() {
            (0, 0, text)
        } else {
            // The span's lines, `context_lines_before` + 1 lines before them and
            // `context_lines_after` + 2 after: more than miette's scan reads on either side,
            // so the window's answer is the whole text's (shifted).
            let starts = &self.line_starts;
            let first =
                Source::line_of(starts, span.offset()).saturating_sub(context_lines_before + 1);
            let last = Source::line_of(starts, end.saturating_sub(1).max(span.offset()))
                + context_lines_after
                + 2;
            let from = starts[first];
            let to = starts.get(last).copied().unwrap_or(text.len());
            (from, first, &text[from..to])
        };
        let shifted = SourceSpan::new((span.offset() - window_start).into(), span.len());
        let inner = window.read_span(&shifted, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            SourceSpan::new(
                (inner.span().offset() + window_start).into(),
                inner.span().len(),
            ),
            inner.line() + first_line,
            inner.column(),
            inner.line_count() + first_line,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use miette::NamedSource;

    /// Every field miette reads of a span, through the window and through the whole text.
    fn both(text: &str, span: SourceSpan, before: usize, after: usize) {
        let source = Source::new(text.as_bytes());
        let snippet = source.snippet("f.mlir".into()).unwrap();
        let whole = NamedSource::new("f.mlir", text.to_string());
        let ours = snippet.read_span(&span, before, after);
        let theirs = whole.read_span(&span, before, after);
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => {
                let what = format!("span {span:?}, {before} before, {after} after");
                assert_eq!(ours.data(), theirs.data(), "{what}");
                assert_eq!(ours.span(), theirs.span(), "{what}");
                assert_eq!(ours.line(), theirs.line(), "{what}");
                assert_eq!(ours.column(), theirs.column(), "{what}");
                assert_eq!(ours.line_count(), theirs.line_count(), "{what}");
                assert_eq!(ours.name(), theirs.name(), "{what}");
            }
            (Err(_), Err(_)) => {}
            (ours, theirs) => panic!(
                "span {span:?}: window {:?}, whole {:?}",
                ours.is_ok(),
                theirs.is_ok()
            ),
        };
    }

    fn text_of(lines: usize, trailing_newline: bool) -> String {
        let mut text: String = (0..lines)
            .map(|line| format!("  line {line} {}\n", "x".repeat(line % 7)))
            .collect();
        if !trailing_newline {
            text.pop();
        }
        text
    }

    #[test]
    fn a_window_reads_what_miette_reads_in_the_whole_text() {
        for (lines, trailing) in [(1, true), (2, false), (5, true), (40, true), (40, false)] {
            let text = text_of(lines, trailing);
            for offset in 0..text.len() {
                for len in [0, 1, 4, 30] {
                    let len = len.min(text.len() - offset);
                    for (before, after) in [(0, 0), (1, 1), (2, 3), (5, 0)] {
                        both(&text, SourceSpan::new(offset.into(), len), before, after);
                    }
                }
            }
            both(&text, SourceSpan::new(text.len().into(), 0), 1, 1);
            both(&text, SourceSpan::new((text.len() + 3).into(), 2), 1, 1);
        }
    }

    #[test]
    fn text_with_carriage_returns_is_read_whole() {
        let text = "a\r\nbb\rccc\n\r\ndddd\n";
        for offset in 0..text.len() {
            both(text, SourceSpan::new(offset.into(), 1), 1, 1);
        }
    }

    #[test]
    fn offsets_of_lines_and_columns() {
        let source = Source::new(b"ab\ncde\n\nf");
        assert_eq!(source.offset_of(1, 1), Some(0));
        assert_eq!(source.offset_of(1, 3), Some(2));
        assert_eq!(source.offset_of(1, 4), None);
        assert_eq!(source.offset_of(2, 2), Some(4));
        assert_eq!(source.offset_of(3, 1), Some(7));
        assert_eq!(source.offset_of(4, 1), Some(8));
        assert_eq!(source.offset_of(4, 2), Some(9));
        assert_eq!(source.offset_of(5, 1), None);
        assert_eq!(source.offset_of(0, 1), None);
        assert!(Source::new(b"\xff").text().is_none());
    }
}
