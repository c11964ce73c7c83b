//! Every rule works on every dialect: healthy streams pass, and the same breakage gives the same
//! finding at the same line whichever dialect it is written in.

use super::{Finding, check, check_with, sjlint, testdata};
use sjlint::unstable::agents::cursor::view::Dialect;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn fixtures(dialect: Dialect) -> Vec<PathBuf> {
    let dir = testdata().join("dialects").join(dialect.as_str());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

fn is_healthy(path: &std::path::Path) -> bool {
    path.file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("healthy")
}

#[test]
fn healthy_streams_of_every_dialect_pass_with_no_finding() {
    for dialect in Dialect::ALL {
        let healthy: Vec<_> = fixtures(dialect)
            .into_iter()
            .filter(|p| is_healthy(p))
            .collect();
        assert!(!healthy.is_empty(), "no healthy {dialect:?} fixture");
        for path in healthy {
            let input = std::fs::read(&path).unwrap();
            assert_eq!(check(&input), vec![], "{}", path.display());
            // Forcing the dialect a stream is written in changes nothing.
            assert_eq!(
                check_with(&input, Some(dialect)),
                vec![],
                "{} read as {dialect:?}",
                path.display()
            );
        }
    }
}

#[test]
fn the_same_breakage_gives_the_same_finding_in_every_dialect() {
    // A case is written in every dialect that can express it (payload streams carry no session
    // ids, timestamps or result text, so three cases exist in cursor and sdk form only).
    let mut names = BTreeSet::new();
    for dialect in Dialect::ALL {
        for path in fixtures(dialect).into_iter().filter(|p| !is_healthy(p)) {
            names.insert(path.file_name().unwrap().to_owned());
        }
    }
    assert!(names.len() >= 20, "{names:?}");
    for name in names {
        let mut seen: Option<(Dialect, BTreeSet<Finding>)> = None;
        let mut written_in = 0;
        for dialect in Dialect::ALL {
            let path = testdata()
                .join("dialects")
                .join(dialect.as_str())
                .join(&name);
            let Ok(input) = std::fs::read(&path) else {
                continue;
            };
            written_in += 1;
            let found: BTreeSet<Finding> = check(&input).into_iter().collect();
            // The file is named after the rule it breaks.
            let rule = name
                .to_string_lossy()
                .trim_end_matches(".ndjson")
                .to_owned();
            assert!(
                found.iter().any(|f| f.rule == rule),
                "{}: no {rule} in {found:?}",
                path.display()
            );
            match &seen {
                None => seen = Some((dialect, found)),
                Some((first, expected)) => assert_eq!(
                    &found,
                    expected,
                    "{} differs from {first:?}",
                    path.display()
                ),
            }
        }
        let cursor_and_sdk_only = [
            "session-id-mismatch",
            "timestamp-regression",
            "result-text-mismatch",
        ];
        let expected = if cursor_and_sdk_only
            .iter()
            .any(|n| name.to_string_lossy().starts_with(n))
        {
            2
        } else {
            3
        };
        assert_eq!(written_in, expected, "{name:?}");
    }
}

#[test]
fn the_literal_examples_of_seeds_002_and_004_pass() {
    // Seed 004's "Complete Event Stream Example": no session_id on most events, no is_error.
    let seed_004 = br#"{"type":"system","subtype":"init","session_id":"abc-123","model":"sonnet-4"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"What is 2+2?"}]}}
{"type":"thinking","subtype":"delta","text":"Simple arithmetic...","timestamp_ms":1705123456789}
{"type":"thinking","subtype":"completed"}
{"type":"assistant","text":"The ","timestamp_ms":1705123456790}
{"type":"assistant","text":"answer ","timestamp_ms":1705123456791}
{"type":"assistant","text":"is 4.","timestamp_ms":1705123456792}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"The answer is 4."}]}}
{"type":"result","subtype":"success","result":"The answer is 4.","session_id":"abc-123","duration_ms":1523}
"#;
    assert_eq!(check(seed_004), vec![]);
    // Seed 002's "Expected Output Stream", with its unclosed `started` line closed.
    let seed_002 = br#"{"type": "system", "subtype": "init", "payload": {}}
{"type": "thinking", "payload": {"content": "I'll create a Hello World program..."}}
{"type": "assistant", "payload": {"message": {"content": [{"type": "text", "text": "I'll create a simple Hello World program in Python for you."}]}}}
{"type": "tool_call", "subtype": "started", "payload": {"toolCall": {"id": "write-file-1", "writeFileToolCall": {"path": "hello_world.py", "contents": "print('Hello, World!')"}}}}
{"type": "tool_call", "subtype": "completed", "payload": {"toolCall": {"id": "write-file-1", "result": {"success": true}}}}
{"type": "tool_call", "subtype": "started", "payload": {"toolCall": {"id": "shell-1", "shellToolCall": {"name": "shell", "args": {"command": "python hello_world.py"}}}}}
{"type": "tool_call", "subtype": "completed", "payload": {"toolCall": {"id": "shell-1", "result": {"exitCode": 0, "stdout": "Hello, World!\n", "stderr": ""}}}}
{"type": "assistant", "payload": {"message": {"content": [{"type": "text", "text": "I've created a Hello World program and executed it. The output is 'Hello, World!'"}]}}}
{"type": "result", "subtype": "success", "exitCode": 0, "payload": {"exitCode": 0, "is_error": false}}
"#;
    assert_eq!(check(seed_002), vec![]);
}

#[test]
fn cursor_sessions_still_require_cursor_fields() {
    let input = br#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}
{"type":"result","subtype":"success","session_id":"s1"}
"#;
    let rules: Vec<_> = check(input).into_iter().map(|f| (f.rule, f.line)).collect();
    assert_eq!(
        rules,
        vec![
            ("missing-field", 2),
            ("missing-field", 3),
            ("missing-field", 3)
        ]
    );
    // A lone result in `--output-format json` form that names its session is held to them too.
    let rules: Vec<_> = check(br#"{"type":"result","subtype":"success","session_id":"s1"}"#)
        .into_iter()
        .map(|f| f.rule)
        .collect();
    assert_eq!(rules, vec!["missing-field", "missing-field"]);
}

#[test]
fn a_forced_dialect_reads_every_record_as_that_dialect() {
    let sdk = std::fs::read(testdata().join("dialects/sdk/healthy.ndjson")).unwrap();
    let found = check_with(&sdk, Some(Dialect::Cursor));
    assert!(
        found
            .iter()
            .any(|f| f.rule == "unknown-event-type" && f.line == 6),
        "{found:?}"
    );
    let out = sjlint(
        &["check", "--dialect", "cursor", "--format", "concise"],
        &sdk,
    );
    assert_eq!(out.status.code(), Some(1));
    let out = sjlint(&["check", "--dialect", "sdk", "--format", "concise"], &sdk);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = sjlint(&["check", "--dialect", "klingon"], &sdk);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn real_cursor_captures_are_read_the_same_with_or_without_auto_classification() {
    let Some(files) = super::corpus() else {
        return;
    };
    for path in files {
        let input = std::fs::read(&path).unwrap();
        assert_eq!(
            check(&input),
            check_with(&input, Some(Dialect::Cursor)),
            "{}",
            path.display()
        );
    }
}
