//! The bad-input catalogue: every way a stream arrives broken, with what sjlint says about it,
//! through the real binary. Each case also proves that the record after the bad input is still
//! checked: a "canary" event that repeats a key is placed after it, and its `duplicate-key`
//! warning must be reported on the canary's own line. The table of docs/bad-input.md is this
//! file in prose.

use crate::common::{Finding, Run, check_json, exec, testdata};

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s"}"#;
const RESULT: &str =
    r#"{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s"}"#;
/// A valid event whose only finding is a `duplicate-key` warning naming `canary`.
const CANARY: &str = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"session_id":"s","canary":1,"canary":2}"#;

/// `INIT`, the bad bytes, then `CANARY` and `RESULT` on lines of their own.
fn around(bad: &[u8]) -> Vec<u8> {
    [
        INIT.as_bytes(),
        b"\n",
        bad,
        b"\n",
        CANARY.as_bytes(),
        b"\n",
        RESULT.as_bytes(),
        b"\n",
    ]
    .concat()
}

/// The 1-based line on which the canary stands in `input`.
fn canary_line(input: &[u8]) -> u64 {
    let at = input
        .windows(CANARY.len())
        .position(|w| w == CANARY.as_bytes())
        .expect("the input holds the canary");
    1 + input[..at].iter().filter(|&&b| b == b'\n').count() as u64
}

/// Checks `input` and asserts that the canary was checked on its own line.
fn check(input: &[u8], args: &[&str]) -> (Run, Vec<Finding>) {
    let (run, findings) = check_json(args, Some(input));
    let line = canary_line(input);
    assert!(
        findings
            .iter()
            .any(|f| f.rule == "duplicate-key" && f.line == line && f.message.contains("canary")),
        "the canary on line {line} was not checked\n{}",
        run.describe()
    );
    (run, findings)
}

/// The one finding of `rule`; fails when there is none or several.
fn only<'a>(findings: &'a [Finding], rule: &str) -> &'a Finding {
    let of: Vec<&Finding> = findings.iter().filter(|f| f.rule == rule).collect();
    assert_eq!(of.len(), 1, "want one {rule}, got {findings:#?}");
    of[0]
}

/// The findings other than the canary's.
fn others(findings: &[Finding]) -> Vec<&Finding> {
    findings
        .iter()
        .filter(|f| !(f.rule == "duplicate-key" && f.message.contains("canary")))
        .collect()
}

fn assert_help(f: &Finding, part: &str) {
    let help = f.help.as_deref().unwrap_or_default();
    assert!(help.contains(part), "help of {f:#?} lacks {part:?}");
}

fn assert_message(f: &Finding, part: &str) {
    assert!(f.message.contains(part), "message of {f:#?} lacks {part:?}");
}

#[test]
fn invalid_utf8_names_the_byte_in_hex_and_its_column() {
    let bad = b"{\"type\":\"user\",\"session_id\":\"s\",\"text\":\"caf\xe9 cr\xe8me\"}";
    let input = around(bad);
    let (_, findings) = check(&input, &[]);
    let f = only(&findings, "invalid-utf8");
    assert_eq!((f.line, f.column), (2, Some(44)));
    assert_eq!(f.byte, INIT.len() as u64 + 1 + 43);
    assert_message(f, "0xE9 at byte 43 of the record");
    assert_help(f, "Latin-1");
}

#[test]
fn a_bom_at_the_start_is_stripped_with_a_note() {
    let input = ["\u{feff}", INIT, "\n", CANARY, "\n", RESULT, "\n"].concat();
    let (run, findings) = check(input.as_bytes(), &[]);
    let f = only(&findings, "byte-order-mark");
    assert_eq!((f.line, f.column, f.byte), (1, Some(1), 0));
    assert_message(f, "start of the input");
    assert_eq!(others(&findings).len(), 1, "{}", run.describe());
}

#[test]
fn a_bom_in_mid_stream_says_files_were_concatenated() {
    let second = format!("\u{feff}{INIT}");
    let input = around(second.as_bytes());
    let (_, findings) = check(&input, &[]);
    let f = only(&findings, "byte-order-mark");
    assert_eq!((f.line, f.column), (2, Some(1)));
    assert_message(f, "were files concatenated?");
    // The BOM of the second file after a first one without a final newline.
    let glued = format!("{INIT}\u{feff}{INIT}");
    let (_, findings) = check(&around(glued.as_bytes()), &[]);
    let f = only(&findings, "invalid-json");
    assert_eq!((f.line, f.column), (2, Some(INIT.len() as u64 + 1)));
    assert_message(f, "byte-order mark after the JSON value");
    assert_help(f, "concatenated");
}

#[test]
fn crlf_line_endings_are_fine() {
    let input = [INIT, "\r\n", CANARY, "\r\n", RESULT, "\r\n"].concat();
    let (run, findings) = check(input.as_bytes(), &[]);
    assert_eq!(others(&findings).len(), 0, "{}", run.describe());
    let sample = std::fs::read_to_string(testdata("sample.ndjson")).unwrap();
    let (run, findings) = check_json(&[], Some(sample.replace('\n', "\r\n").as_bytes()));
    assert!(findings.is_empty(), "{}", run.describe());
}

#[test]
fn cr_only_line_endings_are_named() {
    let user = r#"{"type":"user","session_id":"s"}"#;
    let cr = format!("{INIT}\r{user}\r{RESULT}\r");
    let input = around(cr.as_bytes());
    let (_, findings) = check(&input, &[]);
    let f = only(&findings, "invalid-json");
    assert_eq!((f.line, f.column), (2, Some(INIT.len() as u64 + 2)));
    assert_message(
        f,
        "3 JSON values on one line, separated by bare CR (0x0D) bytes",
    );
    assert_message(f, "CR line endings");
    assert_help(f, "tr '\\r' '\\n'");
}

#[test]
fn blank_lines_are_notes_not_records() {
    let input = around(b"\n   \n\t\r");
    let (run, findings) = check(&input, &[]);
    let blank: Vec<u64> = findings
        .iter()
        .filter(|f| f.rule == "blank-line")
        .map(|f| f.line)
        .collect();
    assert_eq!(blank, [2, 3, 4]);
    assert!(
        findings.iter().all(|f| f.severity != "error"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_final_record_without_lf_is_fine() {
    let input = [INIT, "\n", CANARY, "\n", RESULT].concat();
    let (run, findings) = check(input.as_bytes(), &[]);
    assert_eq!(others(&findings).len(), 0, "{}", run.describe());
}

#[test]
fn a_final_record_cut_off_is_truncated() {
    let cuts: [(&[u8], &str); 5] = [
        (br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hal"#, "inside a string"),
        (br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x\u00"#, "inside a string"),
        (b"{\"type\":\"assistant\",\"text\":\"caf\xc3", "inside a string"),
        (br#"{"type":"assistant","session_id":"s","timestamp_ms":17"#, "in the middle of this record"),
        (br#"{"type":"assistant","session_id":"s","#, "in the middle of this record"),
    ];
    for (cut, said) in cuts {
        let input = [INIT.as_bytes(), b"\n", CANARY.as_bytes(), b"\n", cut].concat();
        let (_, findings) = check(&input, &[]);
        let f = only(&findings, "truncated-record");
        assert_eq!(f.line, 3);
        assert_message(f, said);
        assert!(
            !findings
                .iter()
                .any(|f| f.rule == "invalid-json" || f.rule == "invalid-utf8")
        );
    }
}

#[test]
fn a_record_cut_off_in_mid_stream_does_not_swallow_the_next() {
    let cuts: [&[u8]; 3] = [
        br#"{"type":"assistant","text":"mid-str"#,
        br#"{"type":"assistant","text":"mid-escape \u00"#,
        b"{\"type\":\"assistant\",\"text\":\"mid-UTF-8 caf\xc3",
    ];
    for cut in cuts {
        let input = around(cut);
        let (run, findings) = check(&input, &[]);
        let f = only(&findings, "invalid-json");
        assert_eq!((f.line, f.column), (2, Some(28)), "{}", run.describe());
        assert_message(f, "never closed");
        assert_help(f, "cut off mid-string");
    }
}

#[test]
fn raw_control_characters_inside_strings_are_repaired_with_a_warning() {
    let cases: [(&[u8], &str, u64); 3] = [
        (
            b"{\"type\":\"assistant\",\"text\":\"a\nb\"}",
            "newline (U+000A)",
            2,
        ),
        (
            b"{\"type\":\"assistant\",\"text\":\"a\tb\"}",
            "tab (U+0009)",
            1,
        ),
        (
            b"{\"type\":\"assistant\",\"text\":\"a\x1b[1mbold\"}",
            "escape character (U+001B)",
            1,
        ),
    ];
    for (bad, what, lines) in cases {
        let input = around(bad);
        let (_, findings) = check(&input, &[]);
        let f = only(&findings, "raw-control-character");
        assert_eq!((f.line, f.column), (2, Some(30)));
        assert_message(f, what);
        assert_eq!(canary_line(&input), 2 + lines);
    }
}

#[test]
fn line_and_paragraph_separators_are_not_line_breaks() {
    let bad = "{\"type\":\"assistant\",\"text\":\"a\u{2028}b\u{2029}c\u{85}d\"}";
    let input = around(bad.as_bytes());
    let (run, findings) = check(&input, &[]);
    assert_eq!(canary_line(&input), 3);
    assert!(
        others(&findings).iter().all(|f| f.group != "framing"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_record_over_the_size_limit_is_skipped_and_named() {
    let big = format!(r#"{{"type":"assistant","text":"{}"}}"#, "x".repeat(3 << 20));
    let input = around(big.as_bytes());
    let (_, findings) = check(&input, &["--max-record-bytes", "1M"]);
    let f = only(&findings, "record-too-large");
    assert_eq!(f.line, 2);
    assert_message(f, &format!("record of {} bytes", big.len()));
    assert_message(f, "--max-record-bytes (1048576)");
}

#[test]
fn nesting_a_million_deep_overflows_no_stack() {
    let n = 1_000_000;
    let deep = [
        "[".repeat(n) + &"]".repeat(n),
        r#"{"type":"assistant","x":"#.to_owned() + &"{\"a\":".repeat(n) + "1" + &"}".repeat(n + 1),
        "[".repeat(n),
        "[{\"a\":\"".repeat(n / 7),
    ];
    let input = around(deep.join("\n").as_bytes());
    let (run, findings) = check(&input, &["--max-record-bytes", "16M"]);
    let at = |line| {
        findings
            .iter()
            .filter(|f| f.line == line && f.group == "framing")
            .map(|f| f.rule.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(at(2), ["not-an-object"], "{}", run.describe());
    assert_eq!(at(3), Vec::<&str>::new());
    assert_eq!(at(4), ["invalid-json"]);
    assert_eq!(at(5), ["invalid-json"]);
    for command in ["stats", "render"] {
        let run = exec(&[command, "--max-record-bytes", "16M"], Some(&input));
        assert_eq!(run.code, 0, "sjlint {command}\n{}", run.describe());
        assert!(!run.stderr().contains("overflow"), "{}", run.describe());
    }
}

#[test]
fn huge_numbers_and_exponents_are_valid_json() {
    let bad = format!(
        r#"{{"type":"assistant","session_id":"s","timestamp_ms":1e400,"n":[-1e999999999999,{},1e-400,-0]}}"#,
        "9".repeat(500)
    );
    let input = around(bad.as_bytes());
    let (run, findings) = check(&input, &[]);
    assert!(
        findings
            .iter()
            .all(|f| f.group != "framing" || f.rule == "duplicate-key"),
        "{}",
        run.describe()
    );
    let result = r#"{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","duration_ms":1E400,"duration_api_ms":-1e400,"usage":{"inputTokens":1e400}}"#;
    let input = [INIT, "\n", CANARY, "\n", result, "\n"].concat();
    let (run, findings) = check(input.as_bytes(), &[]);
    // Valid JSON; a token count of 1e400 is a number but no count (more than 2^64−1).
    let others = others(&findings);
    assert_eq!(others.len(), 1, "{}", run.describe());
    assert_eq!(others[0].rule, "wrong-field-type", "{}", run.describe());
    assert!(
        others[0]
            .message
            .starts_with("`usage.inputTokens` is 1e400"),
        "{}",
        run.describe()
    );
    let stats = exec(&["stats", "--format", "json"], Some(input.as_bytes()));
    assert_eq!(stats.code, 0, "{}", stats.describe());
}

#[test]
fn nan_and_infinity_get_a_hint() {
    for (word, col) in [
        ("NaN", 53),
        ("-Infinity", 53),
        ("Infinity", 53),
        ("nan", 53),
    ] {
        let bad = format!(r#"{{"type":"assistant","session_id":"s","timestamp_ms":{word}}}"#);
        let input = around(bad.as_bytes());
        let (_, findings) = check(&input, &[]);
        let f = only(&findings, "invalid-json");
        assert_eq!((f.line, f.column), (2, Some(col)));
        assert_message(f, &format!("`{word}` is not a JSON value"));
        assert_help(f, "null");
    }
}

#[test]
fn duplicate_keys_are_a_warning() {
    let bad = r#"{"type":"assistant","session_id":"s","session_id":"t"}"#;
    let (_, findings) = check(&around(bad.as_bytes()), &[]);
    let f = findings
        .iter()
        .find(|f| f.rule == "duplicate-key" && f.line == 2)
        .expect("duplicate-key on line 2");
    assert_eq!(f.severity, "warning");
    assert_message(f, "\"session_id\"");
}

#[test]
fn stderr_text_and_colour_codes_between_records_say_stderr_was_merged() {
    let lines: [&[u8]; 4] = [
        b"\x1b[31merror:\x1b[0m could not connect",
        b"npm ERR! code ELIFECYCLE",
        b"null pointer dereference",
        b"Traceback (most recent call last):",
    ];
    let input = around(&lines.join(&b'\n'));
    let (_, findings) = check(&input, &[]);
    let bad: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.rule == "invalid-json")
        .collect();
    assert_eq!(bad.len(), 4, "{findings:#?}");
    for (f, line) in bad.iter().zip(2..) {
        assert_eq!((f.line, f.column), (line, Some(1)));
        assert_help(f, "stderr");
    }
    assert_message(bad[0], "ANSI colour codes");
}

#[test]
fn two_objects_on_one_line() {
    let user = r#"{"type":"user","session_id":"s"}"#;
    let two = format!("{user}{user}");
    let (_, findings) = check(&around(two.as_bytes()), &[]);
    let f = only(&findings, "invalid-json");
    assert_eq!((f.line, f.column), (2, Some(user.len() as u64 + 1)));
    assert_message(f, "two JSON values on one line");
    assert_help(f, "newline");
}

#[test]
fn json_text_sequences_get_a_hint() {
    let input = around(format!("\u{1e}{INIT}").as_bytes());
    let (_, findings) = check(&input, &[]);
    let f = only(&findings, "invalid-json");
    assert_eq!((f.line, f.column), (2, Some(1)));
    assert_message(f, "RS (0x1E)");
    assert_help(f, "RFC 7464");
}

#[test]
fn nul_bytes_are_named() {
    let (_, findings) = check(&around(b"\x00\x00\x00\x00"), &[]);
    let f = only(&findings, "invalid-json");
    assert_eq!((f.line, f.column), (2, Some(1)));
    assert_message(f, "NUL byte (0x00) at byte 0");
    assert_help(f, "preallocated");
    let utf16: Vec<u8> = r#"{"type":"user"}"#.bytes().flat_map(|b| [b, 0]).collect();
    let (_, findings) = check(&around(&utf16), &[]);
    let f = only(&findings, "invalid-json");
    assert_eq!(f.column, Some(2));
    assert_help(f, "UTF-16");
}

/// Bytes of a fixed pseudo-random sequence.
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 56) as u8
        })
        .collect()
}

#[test]
fn binary_input_is_summed_up_after_three_records() {
    let data = noise(64 << 10, 7);
    let input = around(&data);
    let (run, findings) = check(&input, &[]);
    let binary_lines = 1 + data.iter().filter(|&&b| b == b'\n').count() as u64;
    let framing: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.group == "framing" && f.line >= 2 && f.line < 2 + binary_lines)
        .collect();
    // Three records shown, the third with the note, then one finding that sums up the rest.
    assert_eq!(framing.len(), 4, "{}", run.describe());
    assert_help(framing[2], "summed up in one finding");
    let summary = framing[3];
    assert_eq!(summary.line, 5);
    assert_message(
        summary,
        &format!(
            "{} more records on lines 5-{} look binary; their framing findings, not shown one by one: ",
            binary_lines - 3,
            binary_lines + 1
        ),
    );
    assert_help(summary, "binary data");
    // Every line of the binary data is accounted for: shown, or counted in the summary.
    let counted: u64 = summary
        .message
        .split_once("one by one: ")
        .unwrap()
        .1
        .split(", ")
        .map(|part| part.split(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert!(3 + counted >= binary_lines, "{}", run.describe());
    // The summary counts as one error; the exit code says findings.
    assert_eq!(run.code, 1);
}

#[test]
fn short_bad_records_are_never_summed_up() {
    // A conformance suite run one case per line: every case keeps its own finding.
    let cases: Vec<&[u8]> = vec![
        b"[\"\xff\"]",
        b"[\x00]",
        b"\xfe\xff[]",
        b"[\"\xc0\xaf\"]",
        b"{\x00}\x00",
        b"[\"\xed\xa0\x80\"]",
    ];
    let input = around(&cases.join(&b'\n'));
    let (_, findings) = check(&input, &[]);
    let lines: Vec<u64> = findings
        .iter()
        .filter(|f| f.rule == "invalid-utf8" || f.rule == "invalid-json")
        .map(|f| f.line)
        .collect();
    assert_eq!(lines, [2, 3, 4, 5, 6, 7]);
}

#[test]
fn two_sessions_appended() {
    let two = std::fs::read(testdata("healthy/two-sessions-appended.ndjson")).unwrap();
    let (run, findings) = check_json(&[], Some(&two));
    assert!(findings.is_empty(), "{}", run.describe());
    // The first run was killed before its result, and a new one was appended.
    let cut = r#"{"type":"system","subtype":"init","session_id":"a"}
{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"ls"}}},"session_id":"a"}
"#;
    let input = [cut, INIT, "\n", CANARY, "\n", RESULT, "\n"].concat();
    let (_, findings) = check(input.as_bytes(), &[]);
    let f = only(&findings, "duplicate-init");
    assert_eq!(f.line, 3);
    assert_help(f, "a new one was appended");
    assert_eq!(only(&findings, "unfinished-tool-call").line, 2);
}
