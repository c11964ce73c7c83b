//! Factory droid (`droid exec -o stream-json`): its fixtures, written from the format notes, are
//! clean and recognised without `--agent`; streams broken as real runs break get their finding
//! at their line; its common form checks clean; `stats` counts the run's tokens once, from its
//! `completion`, and its tools by kind.

use crate::common::agent::*;
use crate::common::*;

const DIR: &str = "agents/droid";

/// An init without `tools` (as some adapters' fixtures show) is no mark of cursor-agent's: the
/// stream is still droid's.
#[test]
fn an_init_without_tools_is_not_cursors() {
    let p = testdata("agents/droid/minimal.ndjson");
    let first = &fixture_lines(DIR, "minimal.ndjson")[0];
    assert!(!first.contains("tools"), "{first}");
    assert_eq!(stats_of(&[p.to_str().unwrap()], None)["agent"], "droid");
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "one table of broken streams, a case each"
)]
fn broken_droid_streams_get_their_finding() {
    let all = fixture_lines(DIR, "tool-run.ndjson");
    let l: Vec<&str> = all.iter().map(String::as_str).collect();
    let no_id = l[4].replace(r#""id":"toolu_01Read6bVzX2","#, "");
    let unknown_result = l[5].replace("toolu_01Read6bVzX2", "toolu_01Nope");
    let text_number = l[3].replace(
        r#""text":"I'll check the test script, then run it.""#,
        r#""text":42"#,
    );
    let params_string = l[4].replace(
        r#""parameters":{"file_path":"/home/dev/api/package.json"}"#,
        r#""parameters":"/home/dev/api/package.json""#,
    );
    let is_error_string = l[5].replace(r#""isError":false"#, r#""isError":"false""#);
    let negative = l[9].replace(r#""output_tokens":312"#, r#""output_tokens":-312"#);
    let other_session = l[8].replace(
        "5f3c2a1e-8b7d-4e2f-9a6c-0d1e2f3a4b5c",
        "00000000-0000-0000-0000-000000000000",
    );
    let later = l[8].replace("1790000007900", "1790000008900");
    let no_final = l[9].replace(r#""finalText":"All 23 tests in 4 files pass.","#, "");
    type Case<'a> = (&'a str, String, Vec<(&'a str, u64)>);
    let cases: Vec<Case<'_>> = vec![
        // Cut before its `completion`, a call open.
        (
            "cut mid-call",
            join(&l[..7]),
            vec![("missing-result", 7), ("unfinished-tool-call", 7)],
        ),
        // Cut after the last message.
        ("cut", join(&l[..9]), vec![("missing-result", 9)]),
        // A `tool_call` without its `id`: its result is an orphan.
        (
            "no id",
            join(&[&l[..4], &[no_id.as_str()][..], &l[5..]].concat()),
            vec![("missing-field", 5), ("orphan-completion", 6)],
        ),
        // A result for a call never made, and the call left open.
        (
            "unknown result",
            join(&[&l[..5], &[unknown_result.as_str()][..], &l[6..]].concat()),
            vec![("orphan-completion", 6), ("unfinished-tool-call", 5)],
        ),
        // A result given twice.
        (
            "result twice",
            join(&[&l[..6], &[l[5]][..], &l[6..]].concat()),
            vec![("orphan-completion", 7)],
        ),
        // Wrong field types.
        (
            "text a number",
            join(&[&l[..3], &[text_number.as_str()][..], &l[4..]].concat()),
            vec![("wrong-field-type", 4)],
        ),
        (
            "parameters a string",
            join(&[&l[..4], &[params_string.as_str()][..], &l[5..]].concat()),
            vec![("wrong-field-type", 5)],
        ),
        (
            "isError a string",
            join(&[&l[..5], &[is_error_string.as_str()][..], &l[6..]].concat()),
            vec![("wrong-field-type", 6)],
        ),
        (
            "negative tokens",
            join(&[&l[..9], &[negative.as_str()][..]].concat()),
            vec![("wrong-field-type", 10)],
        ),
        (
            "no finalText",
            join(&[&l[..9], &[no_final.as_str()][..]].concat()),
            vec![("missing-field", 10)],
        ),
        // Another session's line inside the run.
        (
            "other session",
            join(&[&l[..8], &[other_session.as_str()][..], &l[9..]].concat()),
            vec![("session-id-mismatch", 9)],
        ),
        // A line stamped before the one before it.
        (
            "timestamp regression",
            join(&[&l[..7], &[l[7].replace("1790000007460", "1790000001460").as_str()][..], &l[8..]].concat()),
            vec![("timestamp-regression", 8)],
        ),
        // No init.
        ("no init", join(&l[1..]), vec![("missing-init", 1)]),
        // A second init inside the run.
        (
            "two inits",
            join(&[&l[..3], &[l[0]][..], &l[3..]].concat()),
            vec![("duplicate-init", 4)],
        ),
        // A line after the run's `completion`.
        (
            "after completion",
            join(&[&l[..], &[later.as_str()][..]].concat()),
            vec![("event-after-result", 11)],
        ),
        // A Gemini CLI line inside the run.
        (
            "mixed",
            join(
                &[
                    &l[..2],
                    &[r#"{"type":"message","timestamp":"2026-09-21T10:13:22.107Z","role":"assistant","content":"hi","delta":true}"#][..],
                    &l[2..],
                ]
                .concat(),
            ),
            vec![("mixed-agents", 3)],
        ),
    ];
    for (what, input, want) in cases {
        let (run, findings) = check_json(
            &["--stdin-filename", "droid.ndjson"],
            Some(input.as_bytes()),
        );
        let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
        assert_eq!(got, want, "{what}: {}", show(&findings));
        // A timestamp regression is a warning: the run is not broken by it.
        let serious = want.iter().any(|(r, _)| *r != "timestamp-regression");
        assert_eq!(run.code, i32::from(serious), "{what}");
        assert_eq!(
            stats_of(
                &["--stdin-filename", "droid.ndjson"],
                Some(input.as_bytes())
            )["agent"],
            "droid",
            "{what}"
        );
    }
}

/// A `system` subtype droid is not known to write, and an unknown type: information.
#[test]
fn unknown_subtypes_and_types_are_information() {
    let all = fixture_lines(DIR, "tool-run.ndjson");
    let l: Vec<&str> = all.iter().map(String::as_str).collect();
    let input = join(&[
        &l[..2],
        &[
            r#"{"type":"system","subtype":"compact","session_id":"5f3c2a1e-8b7d-4e2f-9a6c-0d1e2f3a4b5c"}"#,
            r#"{"type":"todo_update","session_id":"5f3c2a1e-8b7d-4e2f-9a6c-0d1e2f3a4b5c"}"#,
        ][..],
        &l[2..],
    ]
    .concat());
    let (run, findings) = check_json(
        &["--stdin-filename", "droid.ndjson"],
        Some(input.as_bytes()),
    );
    let got: Vec<(&str, &str, u64)> = findings
        .iter()
        .map(|f| (f.rule.as_str(), f.severity.as_str(), f.line))
        .collect();
    assert_eq!(
        got,
        [
            ("unknown-subtype", "info", 3),
            ("unknown-event-type", "info", 4)
        ],
        "{}",
        show(&findings)
    );
    assert_eq!(run.code, 0);
}

/// A run that fails with `error` ends there, not well, and its open call is not a finding; a
/// `completion` after it (not confirmed that droid writes one) belongs to the failed run.
#[test]
fn an_error_ends_the_run() {
    let all = fixture_lines(DIR, "failed.ndjson");
    let l: Vec<&str> = all.iter().map(String::as_str).collect();
    let completion = r#"{"type":"completion","finalText":"","numTurns":1,"durationMs":1020,"session_id":"0a7b3c9d-1e2f-4a5b-8c6d-9e0f1a2b3c4d","isError":true,"usage":{"input_tokens":5000,"output_tokens":40,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}"#;
    let input = join(&[&l[..], &[completion][..]].concat());
    let (run, findings) = check_json(&["--strict"], Some(input.as_bytes()));
    assert!(findings.is_empty() && run.code == 0, "{}", show(&findings));
    let common = common_of(&input, &[]);
    let ends: Vec<_> = common.iter().filter(|e| e["type"] == "end").collect();
    assert_eq!(ends.len(), 1, "{common:?}");
    assert_eq!(ends[0]["ok"], false);
    assert_eq!(ends[0]["line"], 4);
    assert_eq!(
        ends[0]["text"],
        "Command requires a higher autonomy level: rerun with --auto high"
    );
    // An error as the only line (the CLI could not start): no missing init.
    let lone = r#"{"type":"error","source":"cli","message":"Not logged in: run droid to sign in"}"#;
    let (run, findings) = check_json(&["--agent", "droid"], Some(format!("{lone}\n").as_bytes()));
    assert!(findings.is_empty() && run.code == 0, "{}", show(&findings));
}

#[test]
fn droid_runs_are_counted_and_mapped() {
    let p = testdata("agents/droid/tool-run.ndjson");
    let p = p.to_str().unwrap();
    let s = stats_of(&[p], None);
    assert_eq!(s["agent"], "droid");
    assert_eq!(s["usage"]["input_tokens"], 18240, "{s}");
    assert_eq!(s["usage"]["output_tokens"], 312, "{s}");
    assert_eq!(s["usage"]["cache_read_tokens"], 12800, "{s}");
    assert_eq!(s["usage"]["cache_write_tokens"], 2048, "{s}");
    assert_eq!(s["usage"]["results"], 1, "{s}");
    assert_eq!(s["results"]["success"], 1, "{s}");
    assert!(s["cost_usd"].is_null(), "droid reports no cost: {s}");
    let kinds: Vec<(String, u64)> = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["kind"].as_str().unwrap().to_owned(),
                t["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [("read".to_owned(), 1), ("shell".to_owned(), 1)],
        "{s}"
    );

    let text = std::fs::read_to_string(p).unwrap();
    let common = common_of(&text, &[]);
    let start = &common[0];
    assert_eq!(start["type"], "session_start");
    assert_eq!(start["agent"], "droid");
    assert_eq!(start["model"], "claude-sonnet-4-5-20250929");
    let tool_start = common
        .iter()
        .find(|e| e["type"] == "tool_start" && e["name"] == "Execute")
        .unwrap();
    assert_eq!(tool_start["args"]["command"], "npm test");
    assert_eq!(tool_start["tool_kind"], "shell");
    let tool_end = common
        .iter()
        .find(|e| e["type"] == "tool_end" && e["call_id"] == "toolu_01Exec9kLm3P")
        .unwrap();
    assert_eq!(tool_end["ok"], true);
    assert_eq!(tool_end["duration_ms"], 4450);
    let usage: Vec<_> = common.iter().filter(|e| e["type"] == "usage").collect();
    assert_eq!(usage.len(), 1, "the run's total, once");
    assert_eq!(usage[0]["usage"]["reasoning_tokens"], 96);
    let end = common.last().unwrap();
    assert_eq!(end["type"], "end");
    assert_eq!(end["ok"], true);
    assert_eq!(end["text"], "All 23 tests in 4 files pass.");
    assert_eq!(end["duration_ms"], 6900);

    // A failed read: its `value` object is the result's text, and the call is not ok.
    let text = std::fs::read_to_string(testdata("agents/droid/tool-error.ndjson")).unwrap();
    let common = common_of(&text, &[]);
    let failed = common
        .iter()
        .find(|e| e["type"] == "tool_end" && e["call_id"] == "call_7c1a2b3c")
        .unwrap();
    assert_eq!(failed["ok"], false);
    assert!(
        failed["text"].as_str().unwrap().contains("ENOENT"),
        "{failed}"
    );
    let s = stats_of(
        &[testdata("agents/droid/tool-error.ndjson").to_str().unwrap()],
        None,
    );
    let search = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["kind"] == "search")
        .unwrap();
    assert_eq!(search["count"], 1, "LS is a search: {s}");
}

/// Its fixtures follow `sjlint schema droid` (the agent matrix); a call's `parameters` that
/// are not an object do not.
#[test]
fn its_schema_refuses_parameters_that_are_not_an_object() {
    let run = exec(&["schema", "droid"], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let schema: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let good = fixture_lines(DIR, "tool-run.ndjson")[4].clone();
    assert!(good.contains(r#""parameters":{"#), "{good}");
    let good: serde_json::Value = serde_json::from_str(&good).unwrap();
    assert!(v.validate(&good).is_ok(), "{good}");
    let bad: serde_json::Value = serde_json::from_str(
        r#"{"type":"tool_call","id":"t","toolName":"Read","parameters":"x","session_id":"s"}"#,
    )
    .unwrap();
    assert!(v.validate(&bad).is_err());
}
/// `run --after-result` ends a droid run that hangs after its `completion`.
#[test]
fn after_result_ends_a_run_that_hangs_after_its_completion() {
    let dir = std::env::temp_dir().join(format!("sjlint-droid-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let summary = dir.join("summary.json");
    let stream = testdata("agents/droid/tool-run.ndjson");
    let script = format!("cat '{}'; exec sleep 30", stream.display());
    let run = exec(
        &[
            "run",
            "--after-result",
            "200ms",
            "--idle-timeout",
            "5s",
            "--summary",
            summary.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            &script,
        ],
        None,
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        doc["ended"],
        "terminated-after-result",
        "{}",
        run.describe()
    );
    assert_eq!(doc["agent"]["kind"], "droid");
    assert_eq!(run.code, 0, "{}", run.describe());
}
