//! `sjlint fmt` as its users run it: canonical output of every dialect, invalid records, the
//! filters, `--to json`, a closed pipe, and the real captures of the corpus.

use super::{Finding, check, corpus, sjlint, testdata};
use sjlint::unstable::rules::{Group, Rule};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// Findings counted per rule.
pub(super) fn per_rule(findings: &[Finding]) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for f in findings {
        *counts.entry(f.rule).or_insert(0) += 1;
    }
    counts
}

/// `check` on `output` reports no framing finding and no rule more often than `check` on
/// `input`. The exceptions: when nothing was left to write (no record of the input was an
/// event, or the filters took them all), the empty output is an `empty-stream`; and a record of
/// the input that could not be read (it may have been any event, so what its absence would
/// cause is not reported) is left out of the output, where that absence is then reported.
pub(super) fn adds_no_finding(input: &[u8], output: &[u8], what: &str) {
    let input_findings = check(input);
    let unreadable = input_findings.iter().any(|f| {
        matches!(
            f.rule,
            "invalid-json" | "invalid-utf8" | "truncated-record" | "record-too-large"
        )
    });
    let before = per_rule(&input_findings);
    let mut after = check(output);
    if output.is_empty() {
        after.retain(|f| f.rule != "empty-stream");
    }
    for f in &after {
        let framing = Rule::from_name(f.rule).unwrap().group() == Group::Framing;
        assert!(!framing, "{what}: framing finding {f:?} in the output");
    }
    for (rule, n) in per_rule(&after) {
        let group = Rule::from_name(rule).unwrap().group();
        if unreadable && matches!(group, Group::Lifecycle | Group::ToolCalls | Group::Result) {
            continue;
        }
        let had = before.get(rule).copied().unwrap_or(0);
        assert!(
            n <= had,
            "{what}: {rule} {n} times in the output, {had} in the input\n{}",
            String::from_utf8_lossy(output)
        );
    }
}

fn stdout_of(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = sjlint(args, stdin);
    assert_eq!(
        out.status.code(),
        Some(0),
        "sjlint {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn dialect_streams_come_out_in_canonical_form() {
    for entry in std::fs::read_dir(testdata().join("fmt")).unwrap() {
        let expected_path = entry.unwrap().path();
        let name = expected_path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let (dialect, file) = name.split_once('-').unwrap();
        let input_path = testdata().join("dialects").join(dialect).join(file);
        let out = stdout_of(&["fmt", input_path.to_str().unwrap()], b"");
        let expected = std::fs::read(&expected_path).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&expected),
            "{name}"
        );
        // The canonical form is cursor's: forcing that reading changes nothing, and it is final.
        assert_eq!(
            stdout_of(&["fmt", "--dialect", "cursor"], &out),
            out,
            "{name}"
        );
        assert_eq!(stdout_of(&["fmt"], &out), out, "{name}");
    }
}

#[test]
fn every_fixture_is_idempotent_and_adds_no_finding() {
    for dir in ["cursor", "payload", "sdk"] {
        for entry in std::fs::read_dir(testdata().join("dialects").join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let input = std::fs::read(&path).unwrap();
            let once = stdout_of(&["fmt", "-"], &input);
            assert_eq!(stdout_of(&["fmt"], &once), once, "{}", path.display());
            adds_no_finding(&input, &once, &path.display().to_string());
            if dir == "cursor" {
                assert_eq!(once, input, "{} is canonical already", path.display());
            }
        }
    }
}

#[test]
fn invalid_records_are_reported_and_left_out_or_kept() {
    let input = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\nError: not logged in\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"\",\"session_id\":\"s\"}\n";
    let out = sjlint(&["fmt", "--color", "never"], input);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        out.stdout.split(|&b| b == b'\n').count(),
        3,
        "two records and the end"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("error[invalid-json]"), "{err}");
    assert!(err.contains("-:2:1"), "{err}");
    let out = sjlint(&["fmt", "--keep-invalid"], input);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().nth(1),
        Some(r#"{"type":"raw","data":"Error: not logged in"}"#)
    );
    adds_no_finding(input, text.as_bytes(), "--keep-invalid");
}

#[test]
fn drop_leaves_out_thinking_and_the_deltas_a_flush_repeats() {
    let partial = br#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s","model":"Auto","permissionMode":"default"}
{"type":"thinking","subtype":"delta","text":"Say hi.","session_id":"s","timestamp_ms":1}
{"type":"thinking","subtype":"completed","session_id":"s","timestamp_ms":2}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hel"}]},"session_id":"s","timestamp_ms":3}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"lo"}]},"session_id":"s","timestamp_ms":4}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}]},"session_id":"s"}
{"type":"result","subtype":"success","duration_ms":9,"duration_api_ms":9,"is_error":false,"result":"Hello","session_id":"s","request_id":"r"}
"#;
    let out = stdout_of(&["fmt", "--drop", "thinking,deltas"], partial);
    let text = String::from_utf8(out.clone()).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(!text.contains(r#""type":"thinking""#));
    assert!(!text.contains("timestamp_ms"));
    adds_no_finding(partial, &out, "--drop");
    assert!(check(&out).is_empty());
    // Seed 004's delta before the tool calls is repeated by no flush: it is the only copy of its
    // text, so it stays.
    let sdk = std::fs::read(testdata().join("dialects/sdk/healthy.ndjson")).unwrap();
    let out = stdout_of(&["fmt", "--drop", "deltas"], &sdk);
    assert_eq!(out, stdout_of(&["fmt"], &sdk));
    let out = sjlint(&["fmt", "--drop", "everything"], &sdk);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn to_json_writes_the_result_object_of_each_session() {
    let healthy = std::fs::read(testdata().join("dialects/payload/healthy.ndjson")).unwrap();
    let out = stdout_of(&["fmt", "--to", "json"], &healthy);
    let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(value["type"], "result");
    assert_eq!(value["is_error"], false);
    // The payload dialect's result has no text; the json form's is the assistant text joined.
    assert_eq!(
        value["result"],
        "I'll create hello.py and run it.Done: it prints Hello, World!"
    );
    // Two appended runs give two objects; a run with no result gives none, and exit 1.
    let mut two = std::fs::read(testdata().join("dialects/cursor/healthy.ndjson")).unwrap();
    two.extend(std::fs::read(testdata().join("dialects/sdk/healthy.ndjson")).unwrap());
    let out = stdout_of(&["fmt", "--to", "json"], &two);
    assert_eq!(
        out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count(),
        2
    );
    let cut = std::fs::read(testdata().join("dialects/cursor/missing-result.ndjson")).unwrap();
    let out = sjlint(&["fmt", "--to", "json"], &cut);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `result`"));
}

#[test]
fn a_closed_stdout_ends_fmt_quietly() {
    let line = std::fs::read(testdata().join("dialects/cursor/healthy.ndjson")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sjlint"))
        .arg("fmt")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for _ in 0..20_000 {
            if stdin.write_all(&line).is_err() {
                break;
            }
        }
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with(r#"{"type":"system""#));
    // The reader is dropped here: `sjlint fmt | head -1`.
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn real_captures_are_canonical_already() {
    let Some(files) = corpus() else {
        return;
    };
    for path in files {
        let input = std::fs::read(&path).unwrap();
        let out = stdout_of(&["fmt", path.to_str().unwrap()], b"");
        // Lossless: every capture is canonical, so fmt adds at most the final LF.
        let mut expected = input.clone();
        if !expected.ends_with(b"\n") {
            expected.push(b'\n');
        }
        assert_eq!(out, expected, "{}", path.display());
        adds_no_finding(&input, &out, &path.display().to_string());
        assert_eq!(
            stdout_of(&["fmt", "--dialect", "auto"], &out),
            out,
            "{}",
            path.display()
        );
        // Cursor's results carry all the json form needs: --to json writes them as they are.
        let results: Vec<&[u8]> = expected
            .split(|&b| b == b'\n')
            .filter(|l| l.starts_with(br#"{"type":"result""#))
            .collect();
        let json = sjlint(&["fmt", "--to", "json", path.to_str().unwrap()], b"");
        let lines: Vec<&[u8]> = json
            .stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        if results.len() == 1 {
            assert_eq!(lines, results, "{}", path.display());
        }
    }
}

#[test]
fn regression_fixtures_round_trip() {
    let dir = testdata().join("regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let input = std::fs::read(&path).unwrap();
        let once = sjlint(&["fmt"], &input).stdout;
        let twice = sjlint(&["fmt"], &once).stdout;
        assert_eq!(once, twice, "fmt is not idempotent on {}", path.display());
        adds_no_finding(&input, &once, &path.display().to_string());
        n += 1;
    }
    assert!(n >= 3, "the regression fixtures are read");
}
