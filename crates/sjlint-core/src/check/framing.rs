//! The framing rules: what a record's bytes are before they are an event.
//!
//! This module owns the findings of the `framing` group of `rules`, one function each: a string
//! cut off by the end of a line or of the input, bytes that are not UTF-8, raw control
//! characters inside strings (and their repair), a value that is not an object, blank lines,
//! byte-order marks, records over the limit and an input that holds no record; the exact
//! findings of text that is not JSON are the child module's, `invalid_json`. A record that the
//! pure half could not read takes the slow path here ([`slow_record`]), with the repair that
//! needs scratch space; the record is read by its route's own view (`Classify::read`). It must
//! not keep state from record to record (runs of binary records are `binary`'s, the order of the
//! findings is the parent's), nor read or check events.

mod invalid_json;

use super::Consumer;
use crate::diagnostic::Diagnostic;
use crate::input::record::{ENDS_IN_STRING, JOIN_FAILED, MULTILINE, Position, Record};
use crate::json::JsonType;
use crate::rules::Rule;
use invalid_json::json_diagnostic;

/// Where a record goes once it is read (its agent's checker, or nowhere), which is the
/// route's to know (`route`), not the framing rules'.
pub(super) trait Classify {
    /// A record on `line` that may have been an event could not be read: what its absence
    /// would cause is not reported.
    fn unreadable(&mut self, line: u64);

    /// Reads `json` into the view of the route's agent and passes it on: `bytes` are the
    /// record's own (for columns and snippets), `json` the text to read (the bytes, or their
    /// repaired copy). `first`, when the text reads, is said before the record's own findings.
    /// `Err` when the text is not JSON (nothing is said or passed then).
    fn read(
        &mut self,
        rec: &Record<'_>,
        bytes: &[u8],
        json: &str,
        first: Option<Diagnostic>,
        emit: &mut impl FnMut(Diagnostic),
        consumer: &mut impl Consumer,
    ) -> Result<(), serde_json::Error>;
}

/// A record whose pure half found it [`super::Examined::SlowPath`] (or that its agent's view
/// refused): every check again, with the repairs that need scratch space. The record is read
/// by the route's own view only: the lenient reading of valid JSON `serde_json` refuses is
/// every view's (`agents::parse_into`).
#[cold]
pub(super) fn slow_record(
    rec: &Record<'_>,
    check: &mut impl Classify,
    scratch: &mut Vec<u8>,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    let bytes = rec.bytes;
    if rec.has(JOIN_FAILED) || rec.has(ENDS_IN_STRING) {
        unreadable(check, rec);
        consumer.invalid(rec.pos, bytes);
        emit(cut_off_string(rec));
        return;
    }
    // SIMD validation first; std's decoder only runs to locate the error (cold).
    let valid = simdutf8::basic::from_utf8(bytes)
        .map_err(|_| std::str::from_utf8(bytes).expect_err("both validators reject it"));
    let text = match valid {
        Ok(text) => text,
        Err(e) => {
            unreadable(check, rec);
            consumer.invalid(rec.pos, bytes);
            emit(invalid_utf8(rec, e));
            return;
        }
    };
    match check.read(rec, bytes, text, None, emit, consumer) {
        Ok(()) => {}
        Err(e) if is_control_char_error(&e) => {
            repaired_record(rec, &e, check, scratch, emit, consumer);
        }
        Err(e) => {
            unreadable(check, rec);
            consumer.invalid(rec.pos, bytes);
            emit(json_diagnostic(rec, bytes, &e));
        }
    }
}

/// A record that may have been an event (it opens an object) could not be read: what its
/// absence would cause is not reported as well.
#[cold]
fn unreadable(check: &mut impl Classify, rec: &Record<'_>) {
    if rec.bytes.trim_ascii_start().first() != Some(&b'{') {
        return;
    }
    check.unreadable(rec.pos.line);
}

/// A record whose strings hold raw control characters (`e` is the strict parse's error): its
/// repaired copy is parsed instead, and the record is read as that copy says.
#[cold]
fn repaired_record(
    rec: &Record<'_>,
    e: &serde_json::Error,
    check: &mut impl Classify,
    scratch: &mut Vec<u8>,
    emit: &mut impl FnMut(Diagnostic),
    consumer: &mut impl Consumer,
) {
    let bytes = rec.bytes;
    let first = repair(bytes, scratch);
    // Escaping keeps UTF-8 valid, so this fails only when `bytes` changed while they were
    // copied (a mapped file truncated meanwhile, `input::mapped`): the error stands.
    let Ok(repaired) = std::str::from_utf8(scratch) else {
        unreadable(check, rec);
        consumer.invalid(rec.pos, bytes);
        emit(json_diagnostic(rec, bytes, e));
        return;
    };
    // Fields are located in the original bytes, so columns and snippets name the physical line
    // the user sees.
    let said = raw_control_character(rec, first);
    match check.read(rec, bytes, repaired, Some(said), emit, consumer) {
        Ok(()) => {}
        Err(e) => {
            unreadable(check, rec);
            consumer.invalid(rec.pos, bytes);
            emit(json_diagnostic(rec, scratch, &e));
        }
    }
}

/// A record the splitter flagged: a string opened on its line is never closed, and the next
/// line does not continue it, or the input ends inside it.
#[cold]
fn cut_off_string(rec: &Record<'_>) -> Diagnostic {
    let open = string_opening(rec.bytes);
    let d = if rec.has(ENDS_IN_STRING) {
        Diagnostic::new(
            Rule::TruncatedRecord,
            rec.pos,
            "the input ends inside a string that opens here; the record was cut off",
        )
    } else {
        Diagnostic::new(
            Rule::InvalidJson,
            rec.pos,
            "a string opened on this line is never closed, and the next line does not continue it",
        )
        .with_help("the record was cut off mid-string; the following lines are checked as records of their own")
    };
    d.at(rec.bytes, open..open + 1)
}

/// A raw control character inside a string, at `first` in the record, repaired as an escape.
#[cold]
fn raw_control_character(rec: &Record<'_>, first: usize) -> Diagnostic {
    let what = control_name(rec.bytes[first]);
    let spans = if rec.has(MULTILINE) {
        format!("; the record spans {} physical lines", rec.lines)
    } else {
        String::new()
    };
    Diagnostic::new(
        Rule::RawControlCharacter,
        rec.pos,
        format!("raw {what} inside a string{spans}; repaired as an escape"),
    )
    .with_help("JSON strings must escape control characters; a reader that splits on newlines breaks this record apart")
    .at(rec.bytes, first..first + 1)
}

fn is_control_char_error(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("control character")
}

/// Where a byte stands relative to JSON strings, as [`repair`] reads the record.
#[derive(Default)]
struct Strings {
    in_string: bool,
    escaped: bool,
}

impl Strings {
    /// Advances over `b`; true when `b` is a raw control byte inside a string, which `repair`
    /// escapes.
    fn raw_control(&mut self, b: u8) -> bool {
        if self.in_string && b < 0x20 {
            // A backslash right before a raw control byte pairs with the backslash of the
            // inserted escape, so the repaired value keeps a literal backslash: still one
            // record, and the warning says it was repaired.
            self.escaped = false;
            return true;
        }
        if self.escaped {
            self.escaped = false;
        } else if self.in_string && b == b'\\' {
            self.escaped = true;
        } else if b == b'"' {
            self.in_string = !self.in_string;
        }
        false
    }
}

/// Copies `bytes` into `out` with every raw control byte inside a string escaped; returns the
/// offset of the first one.
fn repair(bytes: &[u8], out: &mut Vec<u8>) -> usize {
    out.clear();
    // The exact size first: an escape takes up to 6 bytes, and letting the copy grow by
    // doubling would hold up to twice what it needs.
    let mut strings = Strings::default();
    let extra: usize = bytes
        .iter()
        .map(|&b| match (strings.raw_control(b), b) {
            (false, _) => 0,
            (true, b'\n' | b'\r' | b'\t') => 1,
            (true, _) => 5,
        })
        .sum();
    out.reserve_exact(bytes.len() + extra);
    let mut first = None;
    let mut strings = Strings::default();
    for (i, &b) in bytes.iter().enumerate() {
        if strings.raw_control(b) {
            first.get_or_insert(i);
            match b {
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                _ => {
                    out.extend_from_slice(b"\\u00");
                    out.push(HEX[(b >> 4) as usize]);
                    out.push(HEX[(b & 15) as usize]);
                }
            }
        } else {
            out.push(b);
        }
    }
    first.unwrap_or(0)
}

/// The offset in the record's own `bytes` of `at`, an offset in their [`repair`]ed copy.
fn unrepaired_offset(bytes: &[u8], at: usize) -> usize {
    let mut strings = Strings::default();
    let mut repaired = 0;
    for (i, &b) in bytes.iter().enumerate() {
        repaired += match (strings.raw_control(b), b) {
            (false, _) => 1,
            (true, b'\n' | b'\r' | b'\t') => 2,
            (true, _) => 6,
        };
        if repaired > at {
            return i;
        }
    }
    bytes.len()
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn control_name(b: u8) -> String {
    match b {
        b'\n' => "newline (U+000A)".to_owned(),
        b'\r' => "carriage return (U+000D)".to_owned(),
        b'\t' => "tab (U+0009)".to_owned(),
        0x1b => "escape character (U+001B)".to_owned(),
        _ => format!("control character U+{b:04X}"),
    }
}

/// The offset of the quote that opens the string still open at the end of `bytes`.
fn string_opening(bytes: &[u8]) -> usize {
    open_string(bytes).unwrap_or(0)
}

/// The offset of the quote that opens a string still open at the end of `bytes`, if any.
fn open_string(bytes: &[u8]) -> Option<usize> {
    let mut open = None;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if escaped {
            escaped = false;
        } else if in_string && b == b'\\' {
            escaped = true;
        } else if b == b'"' {
            in_string = !in_string;
            open = in_string.then_some(i);
        }
    }
    open
}

#[cold]
fn invalid_utf8(rec: &Record<'_>, e: std::str::Utf8Error) -> Diagnostic {
    let at = e.valid_up_to();
    let len = e.error_len().unwrap_or(rec.bytes.len() - at).max(1);
    let bad = &rec.bytes[at..(at + len).min(rec.bytes.len())];
    let hex: Vec<String> = bad.iter().map(|b| format!("0x{b:02X}")).collect();
    let what = if e.error_len().is_none() {
        "a UTF-8 sequence cut off at the end of the record"
    } else {
        "bytes that are not UTF-8"
    };
    Diagnostic::new(
        Rule::InvalidUtf8,
        rec.pos,
        format!("{what}: {} at byte {} of the record", hex.join(" "), at),
    )
    .with_help("the stream must be UTF-8; was a Latin-1 or binary file mixed in?")
    .at(rec.bytes, at..at + bad.len())
}

/// A UTF-8 byte-order mark, stripped, at the start of the input or of a line.
#[cold]
pub(super) fn byte_order_mark(pos: Position) -> Diagnostic {
    let mut d = Diagnostic::new(
        Rule::ByteOrderMark,
        pos,
        if pos.byte <= 3 {
            "UTF-8 byte-order mark at the start of the input; stripped"
        } else {
            "UTF-8 byte-order mark at the start of a line (were files concatenated?); stripped"
        },
    );
    d.byte = pos.byte.saturating_sub(3);
    d.column = Some(1);
    d
}

#[cold]
pub(super) fn blank_line(pos: Position) -> Diagnostic {
    Diagnostic::new(Rule::BlankLine, pos, "blank line between records")
}

/// A record over `--max-record-bytes`, skipped unread, or `passed` on unchecked.
#[cold]
pub(super) fn record_too_large(
    pos: Position,
    len: u64,
    max_record_bytes: usize,
    passed: bool,
) -> Diagnostic {
    Diagnostic::new(
        Rule::RecordTooLarge,
        pos,
        format!(
            "record of {len} bytes is larger than --max-record-bytes ({max_record_bytes}); {}",
            if passed {
                "passed through unchecked"
            } else {
                "skipped"
            }
        ),
    )
    .with_help("raise --max-record-bytes to check it")
}

/// An input of `bytes` bytes that held no record.
#[cold]
pub(super) fn empty_stream(bytes: u64) -> Diagnostic {
    Diagnostic::new(
        Rule::EmptyStream,
        Position {
            byte: 0,
            // An empty input has no line to point at.
            line: u64::from(bytes > 0),
            record: 0,
        },
        if bytes == 0 {
            "the input is empty"
        } else {
            "the input holds no record, only blank lines"
        },
    )
    .with_help("an agent that fails before its first event writes nothing to stdout and its error to stderr")
}

/// A record that is valid JSON, but not an object.
#[cold]
pub(super) fn not_an_object(rec: &Record<'_>, bytes: &[u8], t: JsonType) -> Diagnostic {
    Diagnostic::new(
        Rule::NotAnObject,
        rec.pos,
        format!("the record is {}, not a JSON object", t.as_str()),
    )
    .with_help(if t == JsonType::Array && bytes.starts_with(b"[{\"type\":") {
        // Claude Code's `--output-format json --verbose` writes a run's events as one array.
        "events saved as one JSON array (as `claude -p --output-format json --verbose` writes them) are not a stream; `--output-format stream-json` writes one event per line, and `jq -c '.[]'` turns the array into that"
    } else {
        "every record of the stream is one event object"
    })
    .with_snippet(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{CheckOptions, check};

    fn findings(input: &[u8]) -> Vec<(Rule, u64)> {
        let mut out = Vec::new();
        check(input, &CheckOptions::default(), &mut |d| {
            out.push((d.rule, d.line));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn repair_escapes_only_inside_strings() {
        let mut out = Vec::new();
        let first = repair(b"{\"a\":\"x\ny\t\x1b\",\n\"b\":1}", &mut out);
        assert_eq!(first, 7);
        assert_eq!(out, b"{\"a\":\"x\\ny\\t\\u001b\",\n\"b\":1}");
    }

    #[test]
    fn framing_findings() {
        assert_eq!(findings(b""), vec![(Rule::EmptyStream, 0)]);
        assert_eq!(
            findings(b"\n \n"),
            vec![
                (Rule::BlankLine, 1),
                (Rule::BlankLine, 2),
                (Rule::EmptyStream, 1)
            ]
        );
        let f = findings(b"[1]\n\"x\"\n{\"a\":1} {\"b\":2}\n");
        assert!(f.contains(&(Rule::NotAnObject, 1)));
        assert!(f.contains(&(Rule::NotAnObject, 2)));
        assert!(f.contains(&(Rule::InvalidJson, 3)));
        let f = findings(
            b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n{\"type\":",
        );
        assert!(f.contains(&(Rule::TruncatedRecord, 2)), "{f:?}");
        let f = findings(b"{\"a\":\"caf\xe9\"}\n");
        assert_eq!(f[0], (Rule::InvalidUtf8, 1));
    }

    #[test]
    fn raw_newline_in_call_id_is_repaired_and_paired() {
        let input = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n\
{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"call_a\nfc_b\",\"tool_call\":{\"lsToolCall\":{\"args\":{}}},\"session_id\":\"s\"}\n\
{\"type\":\"tool_call\",\"subtype\":\"completed\",\"call_id\":\"call_a\\nfc_b\",\"tool_call\":{\"lsToolCall\":{\"args\":{},\"result\":{\"success\":{}}}},\"session_id\":\"s\"}\n\
{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"\",\"session_id\":\"s\"}\n";
        assert_eq!(findings(input), vec![(Rule::RawControlCharacter, 2)]);
    }
}
