//! The whole pipeline on arbitrary bytes: `check` never panics, every line of its json output
//! is a finding that parses and points inside the input, the human output shows no raw control
//! character, and the other consumers of the stream (stats, render) never panic either.
//!
//! Input layout: byte 0 picks the record size limit (and, in its high bit, colour for the
//! human output); the rest is the stream.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use sjlint::unstable::check::{self, CheckOptions};
use sjlint::unstable::report::{Format, Printer};
use sjlint::unstable::rules::Rule;
use sjlint::unstable::{render, stats};

const LIMITS: [usize; 5] = [8, 64, 300, 4096, check::DEFAULT_MAX_RECORD_BYTES];

fn printed(format: Format, data: &[u8], opts: &CheckOptions, color: bool) -> Vec<u8> {
    let mut printer = Printer::new(format, Vec::new(), color);
    printer.begin_file("fuzz.ndjson").unwrap();
    let totals = check::check(data, opts, &mut |d| printer.diagnostic("fuzz.ndjson", &d))
        .expect("reading from memory cannot fail");
    assert_eq!(totals.bytes, data.len() as u64);
    printer
        .end_file("fuzz.ndjson", totals.records, totals.bytes)
        .unwrap();
    printer.finish().unwrap();
    printer.into_inner()
}

fn check_json_output(out: &[u8], data: &[u8]) {
    let text = std::str::from_utf8(out).expect("json output is UTF-8");
    let lines = 1 + data.iter().filter(|&&b| b == b'\n').count() as u64;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).expect("json output line parses");
        let rule = v["rule"].as_str().expect("rule");
        assert!(Rule::from_name(rule).is_some(), "unknown rule {rule}");
        assert!(
            v["message"].as_str().is_some_and(|m| !m.is_empty()),
            "message"
        );
        assert!(matches!(
            v["severity"].as_str(),
            Some("error" | "warning" | "info")
        ));
        let at = v["line"].as_u64().expect("line");
        assert!(at <= lines, "line {at} past the input's {lines} lines");
        let byte = v["byte"].as_u64().expect("byte");
        assert!(byte <= data.len() as u64, "byte {byte} past the input");
        if let Some(col) = v.get("column").and_then(Value::as_u64) {
            assert!(col >= 1, "column 0");
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&knob, data)) = input.split_first() else {
        return;
    };
    let opts = CheckOptions {
        max_record_bytes: LIMITS[usize::from(knob & 0x7f) % LIMITS.len()],
        ..CheckOptions::default()
    };
    check_json_output(&printed(Format::JsonLines, data, &opts, false), data);

    let color = knob & 0x80 != 0;
    let human = printed(Format::Human, data, &opts, color);
    let human = std::str::from_utf8(&human).expect("human output is UTF-8");
    // Colour codes are the printer's own; everything from the input is escaped.
    let shown = if color {
        human.replace('\x1b', "")
    } else {
        human.to_owned()
    };
    assert!(
        !shown.chars().any(|c| c.is_control() && c != '\n'),
        "raw control character in the human output"
    );

    let s = stats::collect(data, &opts).expect("reading from memory cannot fail");
    let mut out = Vec::new();
    let files = [("fuzz.ndjson".to_owned(), s)];
    stats::write_json(&mut out, &files).unwrap();
    serde_json::from_slice::<Value>(&out).expect("stats json parses");
    // The table pads names to a width: any name, however wide, must not panic it.
    let mut out = Vec::new();
    stats::write_tables(&mut out, &files).unwrap();
    let table = String::from_utf8(out).expect("the stats table is UTF-8");
    assert_terminal_safe(&table, false, "stats table");

    let render_opts = render::RenderOptions {
        thinking: knob & 1 != 0,
        plain: knob & 2 != 0,
        color,
    };
    let mut out = Vec::new();
    render::render(data, &mut out, None, &render_opts, &opts, false).unwrap();
    let text = String::from_utf8(out).expect("the transcript is UTF-8");
    assert_terminal_safe(&text, color && !render_opts.plain, "render");
});

/// `text` carries no raw control character but line breaks (and the printer's own colour codes
/// when `color`), no bidi control nor invisible character, and no line that a GitHub Actions
/// runner would take for a workflow command.
fn assert_terminal_safe(text: &str, color: bool, what: &str) {
    let shown = if color {
        text.replace('\x1b', "")
    } else {
        text.to_owned()
    };
    for c in shown.chars() {
        let invisible = matches!(
            c,
            '\u{61c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        );
        assert!(
            !(c.is_control() && c != '\n') && !invisible,
            "{what}: raw {c:?} in the output"
        );
    }
    for line in text.lines() {
        assert!(
            !line.trim_start_matches([' ', '\t']).starts_with("::"),
            "{what}: a line begins a workflow command: {line:?}"
        );
    }
}
