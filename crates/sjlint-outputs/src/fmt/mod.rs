//! The canonical writer behind `sjlint fmt`: every event in cursor's own form, one per line.
//!
//! This module owns what `fmt` writes: which records (the `--drop` filters, `--keep-invalid`),
//! how a payload or sdk record is moved into cursor's envelope, and the `--to json` result
//! objects. It is a [`Consumer`](sjlint_core::check::Consumer) of the checking pipeline, so it sees exactly the records and the
//! classification `check` sees, and it moves fields the way the classifier maps them (the two
//! change together: `check` on the output must never find what `check` on the input did not).
//! It must not open files or print diagnostics (the caller does both), and it must not change
//! what a record says: no JSON tree is built, keys, key order, unknown fields and the text of
//! every value (numbers included) are copied through. Only the whitespace between tokens is
//! dropped, raw control characters are escaped (the checker's repair), and the fields a dialect
//! spells its own way are moved to cursor's places. A record that is already canonical comes out
//! byte for byte; with `--keep-invalid`, a record over `--max-record-bytes` comes out as it came
//! in (it was never read whole, so it is neither repaired nor wrapped).
//!
//! Here: the options, the totals and [`format`], which runs the pipeline with the writer.
//! Beside it: `writer` (the consumer that decides what is written, and writes it), `canonical`
//! (one event in cursor's form), `payload` and `sdk` (the two dialects' mappings), `to_json`
//! (`--to json`), `json_text` (the JSON building blocks), `to_common` (`--to common`, the
//! common form of every agent).

use sjlint_core::agents::Agent;
use sjlint_core::check::{self, CheckOptions};
use sjlint_core::diagnostic::Diagnostic;
use sjlint_core::rules::{Rule, RuleSet};
use std::cell::Cell;
use std::io::{self, Read, Write};
use writer::Writer;

mod canonical;
mod json_text;
mod payload;
mod sdk;
pub mod to_common;
mod to_json;
#[cfg(feature = "otlp")]
pub mod to_otlp;
mod writer;

/// What `fmt` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    /// The canonical NDJSON stream.
    #[default]
    Ndjson,
    /// For each session that has a `result`, the single object `--output-format json` writes.
    Json,
    /// The agent-neutral events of [`sjlint_core::vocab`], for every agent.
    Common,
    /// The spans of every agent's sessions, as an OTLP/JSON `ExportTraceServiceRequest`.
    #[cfg(feature = "otlp")]
    Otlp,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct FmtOptions {
    /// Write each record that is not an event as `{"type":"raw","data":"<the line>"}`.
    pub keep_invalid: bool,
    /// Leave out `thinking` events.
    pub drop_thinking: bool,
    /// Leave out the `--stream-partial-output` assistant deltas (`timestamp_ms`, no
    /// `model_call_id`) that the flush after them repeats. Deltas no flush repeats hold text
    /// found nowhere else, and are kept.
    pub drop_deltas: bool,
    pub to: Target,
    /// Write nothing for another agent's stream (it has no canonical form, and its common form
    /// loses fields): what `--check`, `--diff` and `--write` ask for. The agent is in
    /// [`FmtTotals::agent`].
    pub lossless: bool,
    /// `--to otlp`: prompts, texts and tool contents in the spans (`--otlp-content`).
    pub otlp_content: bool,
}

/// What one input gave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FmtTotals {
    /// Records read (events and invalid records).
    pub records: u64,
    /// Lines written.
    pub written: u64,
    /// Records that were no event (not JSON, not UTF-8, not an object, cut off, too large).
    pub invalid: u64,
    /// `--to json`: sessions that ended with no `result`, so nothing was written for them.
    pub unfinished: u64,
    /// `--to json`: results that lack their text and whose session's text was too long to keep,
    /// so it was not added to them.
    pub texts_left_out: u64,
    /// The agent the stream was recognised as (`None`: none was, and it was read as cursor's).
    pub agent: Option<Agent>,
    /// Records of another agent's run inside the stream (`mixed-agents`) that were left out:
    /// the canonical form copies them as they are, the other targets have no place for them.
    pub foreign: u64,
    /// The line of the first of them.
    pub foreign_line: u64,
}

impl FmtTotals {
    /// Counts a record of another agent's run that was not written.
    pub(crate) fn left_out_foreign(&mut self, line: u64) {
        if self.foreign == 0 {
            self.foreign_line = line;
        }
        self.foreign += 1;
    }
}

/// The findings `fmt` reports: the ones that mean a record could not be written as an event.
pub fn reported_rules() -> RuleSet {
    let mut set = RuleSet::empty();
    for rule in [
        Rule::InvalidJson,
        Rule::InvalidUtf8,
        Rule::NotAnObject,
        Rule::TruncatedRecord,
        Rule::RecordTooLarge,
    ] {
        set.insert(rule);
    }
    set
}

/// Writes the canonical form of everything `reader` yields to `out`. Findings of the rules that
/// `check` enables go to `emit` (the caller enables the ones that mean a record is left out).
/// Errors are I/O errors: of the reader, of `out`, or of `emit`.
pub fn format<R: Read, W: Write>(
    reader: R,
    check: &CheckOptions,
    opts: &FmtOptions,
    out: &mut W,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
) -> io::Result<FmtTotals> {
    if opts.to == Target::Common {
        return to_common::format(reader, check, out, emit);
    }
    format_timed(reader, check, opts, None, out, emit)
}

/// [`format`], with the arrival times of the input's records (`sjlint run --save`'s sidecar),
/// which time the spans of `--to otlp` where the records carry no time.
pub fn format_timed<R: Read, W: Write>(
    reader: R,
    check: &CheckOptions,
    opts: &FmtOptions,
    #[cfg_attr(
        not(feature = "otlp"),
        expect(
            unused_variables,
            reason = "only the spans of `--to otlp` are timed by arrivals"
        )
    )]
    arrivals: Option<&sjlint_core::arrivals::Arrivals>,
    out: &mut W,
    emit: &mut impl FnMut(Diagnostic) -> io::Result<()>,
) -> io::Result<FmtTotals> {
    if opts.to == Target::Common {
        return to_common::format(reader, check, out, emit);
    }
    #[cfg(feature = "otlp")]
    if opts.to == Target::Otlp {
        return to_otlp::format(reader, check, opts.otlp_content, arrivals, out, emit);
    }
    let failed = Cell::new(None);
    let stopped = Cell::new(false);
    let mut writer = Writer::new(out, *opts, check, &failed, &stopped);
    let reader = Stoppable {
        inner: reader,
        stopped: &stopped,
    };
    let checked = check::check_with(reader, check, emit, &mut writer);
    if let Some(e) = failed.take() {
        return Err(e);
    }
    if let Err(e) = checked {
        // Stopped by a signal: what was read so far is written out before the run ends.
        if sjlint_core::interrupt::is_stop(&e) {
            writer.interrupted();
            writer.flush()?;
        }
        return Err(e);
    }
    writer.end_of_input();
    if let Some(e) = failed.take() {
        return Err(e);
    }
    writer.flush()?;
    Ok(writer.totals())
}

/// Ends the input early once the output has failed (a closed pipe): the checking pipeline has
/// no other way to stop, and there is no point reading on.
struct Stoppable<'c, R> {
    inner: R,
    stopped: &'c Cell<bool>,
}

impl<R: Read> Read for Stoppable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stopped.get() {
            return Err(io::Error::other("the output was closed"));
        }
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &[u8], opts: FmtOptions) -> (String, FmtTotals) {
        let mut out = Vec::new();
        let check = CheckOptions {
            enabled: reported_rules(),
            ..Default::default()
        };
        let totals = format(input, &check, &opts, &mut out, &mut |_| Ok(())).unwrap();
        (String::from_utf8(out).unwrap(), totals)
    }

    fn fmt(input: &str) -> String {
        run(input.as_bytes(), FmtOptions::default()).0
    }

    #[test]
    fn a_record_mixing_dialects_is_mapped_until_it_reads_as_cursor() {
        // Found by fuzzing: an sdk event name inside a payload wrapper came out of one `fmt` as
        // an sdk record, which the next `fmt` mapped again.
        let once = fmt("{\"type\":\"tool-call-completed\",\"payload\": {\"content\": \"A,\"}}\n");
        assert_eq!(
            once,
            "{\"type\":\"tool_call\",\"subtype\":\"completed\",\"content\":\"A,\"}\n"
        );
        assert_eq!(fmt(&once), once);
    }

    #[test]
    fn a_mixed_record_is_checked_as_fmt_writes_it() {
        // Found by fuzzing: the input read as an unknown payload event, fmt's output as a tool
        // call; both now read as the tool call.
        let input = "{\"type\":\"tool-call-started\",\"payload\":{\"toolCall\":{\"i\":{}}}}\n";
        let rules = |bytes: &[u8]| {
            let mut found = Vec::new();
            sjlint_core::check::check(bytes, &CheckOptions::default(), &mut |d| {
                found.push(d.rule);
                Ok(())
            })
            .unwrap();
            found
        };
        let out = fmt(input);
        assert!(
            out.starts_with("{\"type\":\"tool_call\",\"subtype\":\"started\""),
            "{out}"
        );
        assert_eq!(rules(out.as_bytes()), rules(input.as_bytes()));
    }

    #[test]
    fn canonical_records_are_copied_byte_for_byte() {
        let line = r#"{"type":"tool_call","subtype":"started","call_id":"c\nfc","tool_call":{"zToolCall":{"args":{"n":1.0e2,"big":123456789012345678901234567890}}},"extra":[null,true],"session_id":"s","timestamp_ms":17708234340410}"#;
        assert_eq!(fmt(&format!("{line}\n")), format!("{line}\n"));
        // A final record without LF gets one; CRLF, BOM and blank lines go.
        assert_eq!(
            fmt(&format!("\u{feff}{line}\r\n\n{line}")),
            format!("{line}\n{line}\n")
        );
    }

    #[test]
    fn a_long_record_is_written_as_it_is_minified() {
        // Many short tokens and one string longer than the line gathers at a time.
        let mut rec = String::from(r#"{ "type" : "user", "a" : [ "#);
        for i in 0..30_000 {
            rec.push_str(&format!("{i} , \"s{i}\" , "));
        }
        rec.push_str(r#"0 ] , "s" : ""#);
        rec.push_str(&"x y".repeat(50_000));
        rec.push_str("\" , \"z\" : [ 1 ] }");
        let mut want = Vec::new();
        json_text::minify(&rec, &mut want);
        want.push(b'\n');
        let (out, totals) = run(format!("{rec}\n{rec}").as_bytes(), FmtOptions::default());
        assert!(
            out.as_bytes() == [&want[..], &want[..]].concat(),
            "{}",
            out.len()
        );
        assert_eq!(totals.written, 2);
    }

    #[test]
    fn raw_control_characters_are_escaped() {
        let input = "{\"type\":\"user\",\"call_id\":\"a\nb\",\"t\":\"x\ty\"}\n";
        assert_eq!(
            fmt(input),
            "{\"type\":\"user\",\"call_id\":\"a\\nb\",\"t\":\"x\\ty\"}\n"
        );
    }

    #[test]
    fn payload_keys_move_out_of_the_wrapper() {
        assert_eq!(
            fmt(
                r#"{"type": "result", "subtype": "success", "exitCode": 0, "payload": {"exitCode": 0, "is_error": false}}"#
            ),
            "{\"type\":\"result\",\"subtype\":\"success\",\"exitCode\":0,\"is_error\":false}\n"
        );
        // A wrapper key that repeats a top-level one with another value stays in the wrapper.
        assert_eq!(
            fmt(
                r#"{"type":"result","subtype":"error","exitCode":1,"payload":{"exitCode":2,"type":"x","is_error":true}}"#
            ),
            "{\"type\":\"result\",\"subtype\":\"error\",\"exitCode\":1,\"is_error\":true,\"payload\":{\"exitCode\":2,\"type\":\"x\"}}\n"
        );
        assert_eq!(
            fmt(r#"{"type":"assistant","payload":{"message":{"content":"hi","id":7}}}"#),
            "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"id\":7}}\n"
        );
        assert_eq!(
            fmt(r#"{"type":"thinking","payload":{"content":"hmm"}}"#),
            "{\"type\":\"thinking\",\"subtype\":\"completed\",\"text\":\"hmm\"}\n"
        );
    }

    #[test]
    fn a_completion_without_kind_takes_its_starts() {
        let input = r#"{"type":"tool_call","subtype":"started","payload":{"toolCall":{"id":"t1","shellToolCall":{"name":"shell","args":{"command":"ls"}}}}}
{"type":"tool_call","subtype":"completed","payload":{"toolCall":{"id":"t1","result":{"exitCode":0}}}}
{"type":"tool_call","subtype":"completed","payload":{"toolCall":{"id":"t9","result":{"exitCode":0}}}}
"#;
        let out = fmt(input);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[1],
            r#"{"type":"tool_call","subtype":"completed","call_id":"t1","tool_call":{"shellToolCall":{"result":{"exitCode":0}}}}"#
        );
        // No start, no kind: the result stays directly in `tool_call`.
        assert_eq!(
            lines[2],
            r#"{"type":"tool_call","subtype":"completed","call_id":"t9","tool_call":{"result":{"exitCode":0}}}"#
        );
    }

    #[test]
    fn sdk_events_take_cursors_envelope() {
        let input = r#"{"type":"tool-call-started","tool_name":"Foo","tool_call_id":"c1","parameters":{"x":1}}
{"type":"tool-call-completed","tool_call_id":"c1","result":{"success":true},"duration_ms":3}
{"type":"assistant","text":"The ","timestamp_ms":1705123456790}
{"type":"result","subtype":"error","error":"Request timed out","session_id":"s"}
"#;
        let out = fmt(input);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"type":"tool_call","subtype":"started","tool_call":{"fooToolCall":{"name":"Foo","args":{"x":1}}},"call_id":"c1"}"#,
                r#"{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"fooToolCall":{"result":{"success":true}}},"duration_ms":3}"#,
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"The "}]},"timestamp_ms":1705123456790}"#,
                r#"{"type":"result","subtype":"error","result":"Request timed out","session_id":"s","is_error":true}"#,
            ]
        );
    }

    #[test]
    fn invalid_records_are_left_out_or_kept_as_raw() {
        let input = b"{\"type\":\"user\"}\nnot json \x1b[31m\n[1]\n{\"a\":\"\xff\"}\n";
        let (out, totals) = run(input, FmtOptions::default());
        assert_eq!(out, "{\"type\":\"user\"}\n");
        assert_eq!(totals.invalid, 3);
        let keep = FmtOptions {
            keep_invalid: true,
            ..Default::default()
        };
        let (out, _) = run(input, keep);
        assert_eq!(
            out,
            "{\"type\":\"user\"}\n{\"type\":\"raw\",\"data\":\"not json \\u001b[31m\"}\n{\"type\":\"raw\",\"data\":\"[1]\"}\n{\"type\":\"raw\",\"data\":\"{\\\"a\\\":\\\"\u{fffd}\\\"}\"}\n"
        );
    }

    #[test]
    fn drop_filters_thinking_and_deltas() {
        let input = r#"{"type":"thinking","subtype":"delta","text":"a","session_id":"s","timestamp_ms":1}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"He"}]},"session_id":"s","timestamp_ms":2}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"He"}]},"session_id":"s"}
{"type":"assistant","text":"x","timestamp_ms":3}
"#;
        let opts = FmtOptions {
            drop_thinking: true,
            drop_deltas: true,
            ..Default::default()
        };
        let (out, _) = run(input.as_bytes(), opts);
        let lines: Vec<&str> = out.lines().collect();
        // The delta its flush repeats goes; the last one, repeated by nothing, stays.
        assert_eq!(
            lines,
            [
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"He"}]},"session_id":"s"}"#,
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"timestamp_ms":3}"#,
            ]
        );
    }

    #[test]
    fn to_json_writes_one_result_per_session() {
        let input = r#"{"type":"system","subtype":"init","session_id":"a"}
{"type":"assistant","text":"Hel","timestamp_ms":1}
{"type":"assistant","text":"lo","timestamp_ms":2}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}]}}
{"type":"result","subtype":"success","duration_ms":5}
{"type": "system", "subtype": "init", "payload": {}}
{"type": "assistant", "payload": {"message": {"content": "Hi"}}}
{"type": "result", "subtype": "success", "payload": {"is_error": false}}
{"type":"system","subtype":"init","session_id":"c"}
"#;
        let opts = FmtOptions {
            to: Target::Json,
            ..Default::default()
        };
        let (out, totals) = run(input.as_bytes(), opts);
        assert_eq!(
            out,
            "{\"type\":\"result\",\"subtype\":\"success\",\"duration_ms\":5,\"result\":\"Hello\",\"session_id\":\"a\",\"is_error\":false}\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"Hi\"}\n"
        );
        assert_eq!(totals.unfinished, 1);
    }

    #[test]
    fn a_closed_output_stops_the_run() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let input = "{\"type\":\"user\"}\n".repeat(100_000);
        let err = format(
            input.as_bytes(),
            &CheckOptions::default(),
            &FmtOptions::default(),
            &mut Closed,
            &mut |_| Ok(()),
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }
}
