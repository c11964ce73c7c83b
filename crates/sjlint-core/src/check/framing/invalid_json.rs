//! What an `invalid-json` finding says: what is wrong with a record that is not JSON, and where,
//! with a hint for the usual causes (stderr merged into stdout, a log line, UTF-16 or binary
//! data, CR line endings, concatenated files, NaN).
//!
//! This module owns the wording and the span of those findings, built on the cold path from the
//! parser's error. It must not decide whether a record is JSON (the parent and the agents' views do), nor
//! keep anything from record to record.

use super::{Strings, open_string, unrepaired_offset};
use crate::check::binary::looks_like_utf16;
use crate::diagnostic::Diagnostic;
use crate::input::record::{NO_FINAL_LF, Record};
use crate::preamble::{ANSI_TEXT, PLAIN_TEXT, STDERR_HELP};
use crate::rules::Rule;

/// The help for Copilot CLI's usage summary (`Total usage est: …`, `Total duration (API): …`),
/// which it prints on stdout unless told to be silent.
const COPILOT_SUMMARY_HELP: &str = "Copilot CLI prints its usage summary on stdout unless `-s` (`--silent`) is given: run `copilot -p … --output-format json -s`";

/// The help for OpenCode's permission warning, which it prints among its JSON lines.
const OPENCODE_PERMISSION_HELP: &str = "OpenCode prints this warning on stdout, not stderr, even with `--format json`: the tool call was auto-rejected (its `tool_use` fails); allow the permission in its config, or run with `--dangerously-skip-permissions`";

/// `invalid-json` (or `truncated-record` when the final record stops early) with what is wrong
/// and where, plus a hint for the usual causes.
///
/// `parsed` is the text `serde_json` was given: the record's bytes, or their repaired copy, in
/// which case the position is mapped back to the record's own bytes.
#[cold]
pub(super) fn json_diagnostic(
    rec: &Record<'_>,
    parsed: &[u8],
    e: &serde_json::Error,
) -> Diagnostic {
    let msg = e.to_string();
    let msg = msg.rfind(" at line ").map_or(&msg[..], |i| &msg[..i]);
    let bytes = rec.bytes;
    let offset = error_offset(bytes, parsed, e);
    if e.is_eof() && rec.has(NO_FINAL_LF) {
        return Diagnostic::new(
            Rule::TruncatedRecord,
            rec.pos,
            "the input ends in the middle of this record",
        )
        .with_help("the producer was killed or the capture was cut off")
        .at(bytes, offset..offset);
    }
    let first = bytes
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
    let start = first.unwrap_or(0);
    let trimmed = &bytes[start..];
    let mut span = offset..offset + 1;
    let (message, help): (String, Option<&'static str>) = if let Some(nul) =
        memchr::memchr(0, bytes).filter(|&nul| bytes.get(offset) == Some(&0) || Some(nul) == first)
    {
        span = nul..nul + 1;
        (
            format!("NUL byte (0x00) at byte {nul} of the record"),
            Some(if looks_like_utf16(bytes) {
                "every other byte is NUL: this looks like UTF-16 text, and sjlint reads UTF-8"
            } else {
                "NUL bytes come from binary data, or from a file that was preallocated or padded when its writer crashed"
            }),
        )
    } else if bytes.contains(&0x1b) && !matches!(trimmed.first(), Some(b'{' | b'[')) {
        span = start..start + 1;
        (
            ANSI_TEXT.to_owned(),
            Some("stderr seems to be merged into stdout (2>&1); keep the agent's stderr apart"),
        )
    } else if trimmed.first() == Some(&0x1e) {
        span = start..start + 1;
        (
            "the record starts with an RS (0x1E) byte".to_owned(),
            Some(
                "this looks like RFC 7464 JSON text sequences; sjlint reads newline-delimited JSON",
            ),
        )
    } else if let Some(word) = non_finite_at(bytes, offset) {
        span = word.clone();
        (
            format!(
                "`{}` is not a JSON value: NaN and Infinity are not JSON numbers",
                String::from_utf8_lossy(&bytes[word])
            ),
            Some("write non-finite numbers as null or as strings"),
        )
    } else if looks_like_text(trimmed) {
        // The whole first character, so the snippet never cuts a UTF-8 sequence.
        let len = match trimmed.first() {
            Some(&b) if b >= 0xF0 => 4,
            Some(&b) if b >= 0xE0 => 3,
            Some(&b) if b >= 0xC0 => 2,
            _ => 1,
        };
        span = start..(start + len).min(bytes.len());
        let help = text_help(trimmed);
        (PLAIN_TEXT.to_owned(), Some(help))
    } else if msg.starts_with("trailing characters") {
        trailing_data(bytes, offset, &mut span)
    } else if msg.starts_with("recursion limit exceeded") {
        (
            "nesting is deeper than 128 levels".to_owned(),
            Some("no event of the stream nests this deep; the record is probably corrupt"),
        )
    } else if let Some(open) = open_string(bytes).filter(|_| e.is_eof()) {
        span = open..open + 1;
        (
            "a string opened here is never closed".to_owned(),
            Some(
                "the record was cut off mid-string; the lines after it are checked as records of their own",
            ),
        )
    } else if e.is_eof() {
        (format!("the record ends early: {msg}"), None)
    } else {
        (format!("{msg}{}", found(bytes, offset)), None)
    };
    let mut d = Diagnostic::new(Rule::InvalidJson, rec.pos, message).at(bytes, span);
    if let Some(help) = help {
        d = d.with_help(help);
    }
    d
}

/// The help for a line of plain text: what an agent known to print it means by it, else that
/// stderr seems merged into stdout.
fn text_help(trimmed: &[u8]) -> &'static str {
    if trimmed.starts_with(b"! permission requested") {
        return OPENCODE_PERMISSION_HELP;
    }
    let copilot_summary = [
        &b"Total usage est"[..],
        b"Total duration",
        b"Total code changes",
        b"Usage by model",
    ];
    if copilot_summary.iter().any(|p| trimmed.starts_with(p)) {
        return COPILOT_SUMMARY_HELP;
    }
    STDERR_HELP
}

/// The offset in the record's own `bytes` where `serde_json` stopped in `parsed`: the record's
/// bytes, or their repaired copy.
fn error_offset(bytes: &[u8], parsed: &[u8], e: &serde_json::Error) -> usize {
    // serde_json counts lines and byte columns from 1 within the text it was given.
    let mut offset = 0usize;
    for _ in 1..e.line() {
        match memchr::memchr(b'\n', &parsed[offset..]) {
            Some(i) => offset += i + 1,
            None => break,
        }
    }
    let offset = (offset + e.column().saturating_sub(1)).min(parsed.len());
    if parsed.len() == bytes.len() {
        offset
    } else {
        unrepaired_offset(bytes, offset)
    }
}

/// What follows a whole JSON value at `offset`: a second value after bare CR bytes (CR line
/// endings), a byte-order mark (concatenated files), a second value (interleaved writers), or
/// other data.
fn trailing_data(
    bytes: &[u8],
    offset: usize,
    span: &mut std::ops::Range<usize>,
) -> (String, Option<&'static str>) {
    let rest = &bytes[offset..];
    let gap = bytes[..offset]
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\r'))
        .map_or(&bytes[..offset], |i| &bytes[i + 1..offset]);
    if gap.contains(&b'\r') && matches!(rest.first(), Some(b'{' | b'[')) {
        (
            format!(
                "{} JSON values on one line, separated by bare CR (0x0D) bytes: the stream uses CR line endings",
                1 + bare_cr_separators(bytes)
            ),
            Some(
                "sjlint ends records at LF (or CRLF); convert the line endings first, e.g. with `tr '\\r' '\\n'`",
            ),
        )
    } else if rest.starts_with(&[0xEF, 0xBB, 0xBF]) {
        *span = offset..offset + 3;
        (
            "a UTF-8 byte-order mark after the JSON value".to_owned(),
            Some(
                "were two files concatenated, the first without a final newline? The second file's BOM ended up inside this line",
            ),
        )
    } else if matches!(rest.first(), Some(b'{' | b'[')) {
        (
            "two JSON values on one line".to_owned(),
            Some("each event must end with a newline; two writers may be interleaving"),
        )
    } else {
        (
            format!("trailing data after the JSON value{}", found(bytes, offset)),
            None,
        )
    }
}

/// `, found byte 0x0C` or `, found U+00A0` when the byte at `offset` is one a reader cannot see
/// in a snippet: a control character or a non-ASCII character.
fn found(bytes: &[u8], offset: usize) -> String {
    match bytes.get(offset) {
        Some(&b) if b < 0x20 || b == 0x7f => format!(", found byte 0x{b:02X}"),
        Some(&b) if b >= 0x80 => String::from_utf8_lossy(&bytes[offset..])
            .chars()
            .next()
            .map_or_else(String::new, |c| format!(", found U+{:04X}", u32::from(c))),
        _ => String::new(),
    }
}

/// The span of `NaN`, `-Infinity`, `inf`, … around `offset`, where `serde_json` stopped.
fn non_finite_at(bytes: &[u8], offset: usize) -> Option<std::ops::Range<usize>> {
    let offset = offset.min(bytes.len());
    let mut start = offset
        - bytes[..offset]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
    let end = offset
        + bytes[offset..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
    let word = &bytes[start..end];
    let non_finite = [
        &b"NaN"[..],
        b"nan",
        b"Infinity",
        b"infinity",
        b"inf",
        b"Inf",
    ];
    if !non_finite.contains(&word) {
        return None;
    }
    if start > 0 && matches!(bytes[start - 1], b'-' | b'+') {
        start -= 1;
    }
    Some(start..end)
}

/// Whether the record starts like words rather than like a JSON value: a word that is not a
/// JSON literal (`npm ERR!`, `Error:`), a literal followed by more words (`null pointer`), or
/// a character no JSON text starts with.
fn looks_like_text(trimmed: &[u8]) -> bool {
    match trimmed.first() {
        None | Some(b'{' | b'"' | b']' | b'}' | b',' | b':') => false,
        Some(b'[') => looks_like_log_tag(trimmed),
        Some(b'-') => trimmed
            .get(1)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'-')),
        Some(b'0'..=b'9') => looks_like_counted_text(trimmed),
        Some(b) if b.is_ascii_alphabetic() => {
            let len = trimmed
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            if !matches!(&trimmed[..len], b"true" | b"false" | b"null") {
                return true;
            }
            let rest = trimmed[len..].trim_ascii_start();
            rest.first().is_some_and(u8::is_ascii_alphabetic)
        }
        Some(_) => true,
    }
}

/// A log line's leading tag: `[warn] …`, `[2026-01-28T10:00:00Z] INFO …`, a build's progress
/// `[1/3] Building …` or `[ 50%] Linking …`. A tag holds a letter, a colon, a slash or a percent
/// sign and no JSON punctuation, is not itself a JSON value, and is followed by a blank and more
/// text (so `[0x10]` or `[True]` stay broken JSON).
fn looks_like_log_tag(trimmed: &[u8]) -> bool {
    let Some(close) = memchr::memchr(b']', trimmed) else {
        return false;
    };
    let tag = trimmed[1..close].trim_ascii();
    let after = &trimmed[close + 1..];
    tag.iter()
        .any(|b| b.is_ascii_alphabetic() || matches!(b, b':' | b'/' | b'%'))
        && !tag
            .iter()
            .any(|b| matches!(b, b'"' | b'{' | b'}' | b'[' | b','))
        && serde_json::from_slice::<serde::de::IgnoredAny>(tag).is_err()
        && matches!(after.first(), Some(b' ' | b'\t' | b':'))
        && !after[1..].trim_ascii().is_empty()
}

/// A line that starts with a number but is text: `123 errors`, `12ms`, a date or a time
/// (`2026-01-28 10:00:00 INFO`, `10:00:01 …`), an item of a numbered list (`1. Read`, `2) Run`).
fn looks_like_counted_text(trimmed: &[u8]) -> bool {
    let digits = trimmed.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = &trimmed[digits..];
    match rest.first() {
        Some(b'-' | b':' | b'/') => rest.get(1).is_some_and(u8::is_ascii_digit),
        Some(b'.' | b')') if rest.get(1) == Some(&b' ') => rest[2..]
            .trim_ascii_start()
            .first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b >= 0x80),
        Some(b' ' | b'\t') => rest
            .trim_ascii_start()
            .first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b >= 0x80),
        Some(b) => b.is_ascii_alphabetic() && !matches!(b, b'e' | b'E'),
        None => false,
    }
}

/// How many bare CR bytes outside strings are followed (after blanks) by `{` or `[`: the
/// record boundaries of a stream written with CR line endings.
fn bare_cr_separators(bytes: &[u8]) -> usize {
    let mut strings = Strings::default();
    let mut n = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !strings.raw_control(b)
            && !strings.in_string
            && b == b'\r'
            && bytes.get(i + 1) != Some(&b'\r')
        {
            let next = bytes[i + 1..]
                .iter()
                .find(|b| !matches!(b, b' ' | b'\t' | b'\r'));
            if matches!(next, Some(b'{' | b'[')) {
                n += 1;
            }
        }
    }
    n
}
