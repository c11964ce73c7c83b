//! A finding about the input: which rule, where, what, and what else it points at.
//!
//! Diagnostics are built on the cold path only. This module owns the data and the helpers that
//! turn a byte offset inside a record into a column and a snippet; it must not print anything
//! (that is `report/`) and must not decide when a rule fires (that is the agents' checkers).

use crate::input::record::Position;
use crate::rules::messages::Message;
use crate::rules::{Rule, Severity};
use std::ops::Range;

/// Another place that a finding involves ("started here: line 12").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub line: u64,
    pub message: String,
}

/// A window of one physical line of the input, kept so a report can show it after the record's
/// bytes are gone from the buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snippet {
    /// The window's bytes, decoded lossily. Untrusted: reporters escape it before printing.
    pub text: String,
    /// 1-based character column of the first character of `text` within its line.
    pub first_col: u32,
    /// Byte range inside `text` to underline (may be empty: a point).
    pub mark: Range<usize>,
    /// The line continues before / after the window.
    pub cut_left: bool,
    pub cut_right: bool,
    /// How many physical lines after the record's first line this line is (0 for one-line
    /// records), so the window can be numbered.
    pub line_offset: u64,
}

/// The `byte` of a finding about no place in particular: the json format writes it as null.
pub const UNKNOWN_BYTE: u64 = u64::MAX;

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub rule: Rule,
    pub severity: Severity,
    /// 1-based physical line on which the record starts.
    pub line: u64,
    /// 1-based character column of the offending field on that line, when known.
    pub column: Option<u32>,
    /// 1-based index of the record (0 when the finding concerns no record, e.g. `empty-stream`).
    pub record: u64,
    /// 0-based byte offset in the input of the offending byte, or of the record's start;
    /// [`UNKNOWN_BYTE`] for a finding about no place in particular (a session's end).
    pub byte: u64,
    pub message: String,
    pub related: Vec<Related>,
    pub help: Option<String>,
    pub snippet: Option<Snippet>,
}

impl Diagnostic {
    /// A finding at the start of the record at `pos`, with the rule's default severity.
    #[cold]
    pub fn new(rule: Rule, pos: Position, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            rule,
            severity: rule.severity(),
            line: pos.line,
            column: None,
            record: pos.record,
            byte: pos.byte,
            message: message.into(),
            related: Vec::new(),
            help: None,
            snippet: None,
        }
    }

    /// A finding at the start of the record at `pos`, in the words of its rule's builder
    /// ([`crate::rules::messages`]), with the rule's default severity.
    #[cold]
    pub fn from_message(pos: Position, message: Message) -> Diagnostic {
        let (rule, message, help, related) = message.into_parts();
        Diagnostic {
            rule,
            severity: rule.severity(),
            line: pos.line,
            column: None,
            record: pos.record,
            byte: pos.byte,
            message,
            related: related
                .map(|(line, message)| Related { line, message })
                .into_iter()
                .collect(),
            help,
            snippet: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_related(mut self, line: u64, message: impl Into<String>) -> Self {
        self.related.push(Related {
            line,
            message: message.into(),
        });
        self
    }

    /// Points the finding at `span`, a byte range inside `record` (the record's own bytes, whose
    /// first byte is at input offset `self.byte` when the diagnostic was made with `new`). Sets
    /// the byte offset, the column (when the span starts on the record's first physical line)
    /// and a snippet window.
    #[cold]
    pub fn at(mut self, record: &[u8], span: Range<usize>) -> Self {
        let start = span.start.min(record.len());
        let end = span.end.clamp(start, record.len());
        self.byte = self.byte.saturating_add(start as u64);
        let line_start = memchr::memrchr(b'\n', &record[..start]).map_or(0, |i| i + 1);
        if line_start == 0 {
            self.column = Some(char_count(&record[..start]) as u32 + 1);
        }
        self.snippet = Some(snippet(record, line_start, start..end));
        self
    }

    /// The 1-based column just past the marked span (exclusive, as SARIF's `endColumn`), when
    /// the column is known and the mark lies on the record's first line.
    pub fn end_column(&self) -> Option<u32> {
        let column = self.column?;
        let s = self.snippet.as_ref().filter(|s| s.line_offset == 0)?;
        let marked = s.text.get(s.mark.clone())?;
        Some(column + marked.chars().count() as u32)
    }

    /// Like [`Diagnostic::at`] with an empty span at the start of the record: keeps the
    /// snippet without naming a column.
    #[cold]
    pub fn with_snippet(mut self, record: &[u8]) -> Self {
        self.snippet = Some(snippet(record, 0, 0..0));
        self
    }
}

/// Number of characters in `bytes` when read as UTF-8 (invalid bytes count one each).
fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// Bytes of context kept on each side of the mark.
const WINDOW: usize = 60;
/// Most bytes of the mark itself that are kept.
const MARK_MAX: usize = 80;

/// Cuts a readable window of the physical line that starts at `line_start` in `record`, around
/// `mark` (absolute offsets in `record`).
#[cold]
pub fn snippet(record: &[u8], line_start: usize, mark: Range<usize>) -> Snippet {
    let line_end =
        memchr::memchr(b'\n', &record[line_start..]).map_or(record.len(), |i| line_start + i);
    let line_end = if line_end > line_start && record[line_end - 1] == b'\r' {
        line_end - 1
    } else {
        line_end
    };
    let mark_start = mark.start.clamp(line_start, line_end);
    let mark_end = mark
        .end
        .clamp(mark_start, line_end)
        .min(mark_start + MARK_MAX);
    let mut from = mark_start.saturating_sub(WINDOW).max(line_start);
    let mut to = (mark_end + WINDOW).min(line_end);
    // Never cut inside a UTF-8 sequence.
    while from > line_start && (record[from] & 0xC0) == 0x80 {
        from -= 1;
    }
    while to < line_end && (record[to] & 0xC0) == 0x80 {
        to += 1;
    }
    let before = String::from_utf8_lossy(&record[from..mark_start]);
    let marked = String::from_utf8_lossy(&record[mark_start..mark_end]);
    let after = String::from_utf8_lossy(&record[mark_end..to]);
    let mut text = String::with_capacity(before.len() + marked.len() + after.len());
    text.push_str(&before);
    text.push_str(&marked);
    let mark = text.len() - marked.len()..text.len();
    text.push_str(&after);
    Snippet {
        text,
        line_offset: memchr::memchr_iter(b'\n', &record[..line_start]).count() as u64,
        first_col: char_count(&record[line_start..from]) as u32 + 1,
        mark,
        cut_left: from > line_start,
        cut_right: to < line_end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos() -> Position {
        Position {
            byte: 100,
            line: 7,
            record: 3,
        }
    }

    #[test]
    fn column_counts_characters_not_bytes() {
        let rec = "{\"a\":\"é→\",\"call_id\":1}".as_bytes();
        let at = rec.windows(9).position(|w| w == b"\"call_id\"").unwrap();
        let d = Diagnostic::new(Rule::InvalidJson, pos(), "x").at(rec, at..at + 9);
        assert_eq!(d.column, Some(11));
        assert_eq!(d.byte, 100 + at as u64);
        let s = d.snippet.unwrap();
        assert_eq!(&s.text[s.mark.clone()], "\"call_id\"");
        assert!(!s.cut_left && !s.cut_right);
    }

    #[test]
    fn long_lines_are_cut_around_the_mark() {
        let mut rec = vec![b'x'; 5000];
        rec[2500..2503].copy_from_slice(b"abc");
        let d = Diagnostic::new(Rule::InvalidJson, pos(), "x").at(&rec, 2500..2503);
        let s = d.snippet.unwrap();
        assert!(s.cut_left && s.cut_right);
        assert!(s.text.len() <= 2 * WINDOW + 3);
        assert_eq!(&s.text[s.mark.clone()], "abc");
        assert_eq!(s.first_col as usize, 2501 - WINDOW);
    }

    #[test]
    fn a_span_on_a_later_physical_line_has_no_column() {
        let rec = b"{\"a\":\"x\nyz\"}";
        let d = Diagnostic::new(Rule::InvalidJson, pos(), "x").at(rec, 9..10);
        assert_eq!(d.column, None);
        assert_eq!(d.snippet.unwrap().text, "yz\"}");
    }
}
