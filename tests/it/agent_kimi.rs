//! Kimi CLI (`kimi --print --output-format stream-json`): lines are OpenAI chat messages told
//! apart by `role`, not `type`. Its fixtures, written from the format notes, are clean and
//! recognised without `--agent`; streams broken as real runs break (cut after a tool call or
//! its result, unpaired results, arguments that are not JSON, wrong field types) get their
//! finding at their line; its common form checks clean, with each call's arguments parsed; a
//! record without `type` is still `missing-type` for the other agents.

use crate::common::agent::*;
use crate::common::*;

const DIR: &str = "agents/kimi";

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "one table of broken streams, a case each"
)]
fn broken_kimi_streams_get_their_finding() {
    let all = fixture_lines(DIR, "tool-run.ndjson");
    let l: Vec<&str> = all.iter().map(String::as_str).collect();
    let other_result = l[1].replace("Shell:0", "Shell:9");
    let bad_args = l[0].replace(
        r#""arguments":"{\"command\": \"ls -la\"}""#,
        r#""arguments":"{\"command\": \"ls -la\"""#,
    );
    let args_object = l[0].replace(
        r#""arguments":"{\"command\": \"ls -la\"}""#,
        r#""arguments":{"command":"ls -la"}"#,
    );
    let calls_object = l[2].replace(
        r#""tool_calls":[{"type":"function","id":"ReadFile:1","function":{"name":"ReadFile","arguments":"{\"path\": \"pyproject.toml\"}"}}]"#,
        r#""tool_calls":{"id":"ReadFile:1"}"#,
    );
    let no_call_id = l[1].replace(r#""tool_call_id":"Shell:0","#, "");
    let id_number = l[1].replace(r#""tool_call_id":"Shell:0""#, r#""tool_call_id":0"#);
    let content_number = l[4].replace(
        r#""content":"This is `ledger` 0.3.1, a Python (>=3.11) project with its code in `src/` and tests in `tests/`.""#,
        r#""content":7"#,
    );
    let no_role = l[4].replace(r#""role":"assistant","#, "");
    let same_id = l[2].replace("ReadFile:1", "Shell:0");
    let hint = r#"{"role":"meta","type":"session.resume_hint","session_id":"session_01JC8Z3Q4M7N2P5R6S8T9V0W1X","command":"kimi -r session_01JC8Z3Q4M7N2P5R6S8T9V0W1X","content":"To resume this session: kimi -r session_01JC8Z3Q4M7N2P5R6S8T9V0W1X"}"#;
    let hint_no_session = hint.replace(r#""session_id":"session_01JC8Z3Q4M7N2P5R6S8T9V0W1X","#, "");
    type Case<'a> = (&'a str, String, Vec<(&'a str, &'a str, u64)>);
    let cases: Vec<Case<'_>> = vec![
        // Cut after the model called a tool: the call never answers.
        (
            "cut after a call",
            join(&l[..1]),
            vec![
                ("missing-result", "error", 1),
                ("unfinished-tool-call", "error", 1),
            ],
        ),
        // Cut after a tool's result: the model never answered it.
        (
            "cut after a result",
            join(&l[..4]),
            vec![("missing-result", "error", 4)],
        ),
        // A result for a call never made; the call made is never answered.
        (
            "unknown result",
            join(&[&l[..1], &[other_result.as_str()][..], &l[2..]].concat()),
            vec![
                ("orphan-completion", "error", 2),
                ("unfinished-tool-call", "error", 1),
            ],
        ),
        // A result given twice.
        (
            "result twice",
            join(&[&l[..2], &[l[1]][..], &l[2..]].concat()),
            vec![("orphan-completion", "error", 3)],
        ),
        // `arguments` that are not JSON.
        (
            "arguments not JSON",
            join(&[&[bad_args.as_str()][..], &l[1..]].concat()),
            vec![("malformed-tool-call", "error", 1)],
        ),
        // `arguments` as an object, not the JSON-encoded string.
        (
            "arguments an object",
            join(&[&[args_object.as_str()][..], &l[1..]].concat()),
            vec![("wrong-field-type", "error", 1)],
        ),
        // `tool_calls` not an array: its call is lost, and its result is an orphan.
        (
            "tool_calls an object",
            join(&[&l[..2], &[calls_object.as_str()][..], &l[3..]].concat()),
            vec![
                ("wrong-field-type", "error", 3),
                ("orphan-completion", "error", 4),
            ],
        ),
        (
            "no tool_call_id",
            join(&[&l[..1], &[no_call_id.as_str()][..], &l[2..]].concat()),
            vec![
                ("missing-field", "error", 2),
                ("unfinished-tool-call", "error", 1),
            ],
        ),
        (
            "tool_call_id a number",
            join(&[&l[..1], &[id_number.as_str()][..], &l[2..]].concat()),
            vec![
                ("wrong-field-type", "error", 2),
                ("unfinished-tool-call", "error", 1),
            ],
        ),
        (
            "content a number",
            join(&[&l[..4], &[content_number.as_str()][..]].concat()),
            vec![("wrong-field-type", "error", 5)],
        ),
        // A line without `role`: Kimi CLI's discriminator is missing.
        (
            "no role",
            join(&[&l[..4], &[no_role.as_str()][..]].concat()),
            vec![("missing-type", "error", 5), ("missing-result", "error", 5)],
        ),
        // A call id still open.
        (
            "same id",
            join(&[&l[..1], &[same_id.as_str()][..], &l[3..]].concat()),
            vec![
                ("duplicate-call-id", "error", 2),
                ("orphan-completion", "error", 3),
                ("unfinished-tool-call", "error", 1),
            ],
        ),
        // The resume hint while a call is open: the run ended, its call never answered.
        (
            "hint with a call open",
            join(&[&l[..1], &[hint][..]].concat()),
            vec![("unfinished-tool-call", "error", 1)],
        ),
        // Two resume hints.
        (
            "two hints",
            join(&[&l[..], &[hint, hint][..]].concat()),
            vec![("event-after-result", "error", 7)],
        ),
        (
            "hint without session",
            join(&[&l[..], &[hint_no_session.as_str()][..]].concat()),
            vec![("missing-field", "error", 6)],
        ),
        // An unknown role: information.
        (
            "unknown role",
            join(
                &[
                    &l[..],
                    &[r#"{"role":"notification","content":"context compacted"}"#][..],
                ]
                .concat(),
            ),
            vec![("unknown-event-type", "info", 6)],
        ),
        // A Codex line inside the run.
        (
            "mixed",
            join(
                &[
                    &l[..2],
                    &[r#"{"type":"thread.started","thread_id":"t"}"#][..],
                    &l[2..],
                ]
                .concat(),
            ),
            vec![("mixed-agents", "error", 3)],
        ),
    ];
    for (what, input, want) in cases {
        let (code, got) = findings_of(&input, "kimi.ndjson");
        let got: Vec<(&str, &str, u64)> = got
            .iter()
            .map(|(r, s, l)| (r.as_str(), s.as_str(), *l))
            .collect();
        assert_eq!(got, want, "{what}");
        let serious = want.iter().any(|(_, s, _)| *s == "error");
        assert_eq!(code, i32::from(serious), "{what}");
        assert_eq!(
            stats_of(&["--stdin-filename", "kimi.ndjson"], Some(input.as_bytes()))["agent"],
            "kimi",
            "{what}"
        );
    }
}

/// Kimi CLI's records have no `type`, and that is no finding for them; a record with neither
/// `type` nor `role` is still `missing-type` in another agent's stream, and a Kimi line in one
/// is another agent's run.
#[test]
fn records_without_type_are_kimis_only() {
    let kimi = std::fs::read_to_string(testdata("agents/kimi/tool-run.ndjson")).unwrap();
    let (run, findings) = check_json(&["--strict", "--agent", "kimi"], Some(kimi.as_bytes()));
    assert!(findings.is_empty() && run.code == 0, "{}", show(&findings));
    let gemini = fixture_lines("agents/gemini", "tool-run.ndjson");
    let g: Vec<&str> = gemini.iter().map(String::as_str).collect();
    let input = join(&[&g[..2], &[r#"{"content":"x"}"#][..], &g[2..]].concat());
    let (_, got) = findings_of(&input, "kimi.ndjson");
    assert_eq!(got, [("missing-type".to_owned(), "error".to_owned(), 3)]);
    let input = join(
        &[
            &g[..2],
            &[r#"{"role":"assistant","content":"x"}"#][..],
            &g[2..],
        ]
        .concat(),
    );
    let (_, findings) = check_json(
        &["--stdin-filename", "gemini.ndjson"],
        Some(input.as_bytes()),
    );
    let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
    assert_eq!(got, [("mixed-agents", 3)], "{}", show(&findings));
    assert!(
        findings[0]
            .message
            .contains("`assistant` record of Kimi CLI"),
        "{}",
        findings[0].message
    );
}

/// The run's end: at its last assistant message once the input ends (no line says so), or at
/// the resume hint of newer versions, with its session id; no usage is ever reported.
#[test]
fn kimi_runs_are_counted_and_mapped() {
    let p = testdata("agents/kimi/tool-run.ndjson");
    let p = p.to_str().unwrap();
    let s = stats_of(&[p], None);
    assert_eq!(s["results"]["success"], 1, "{s}");
    assert_eq!(s["usage"]["input_tokens"], 0, "no usage: {s}");
    assert_eq!(s["usage"]["results"], 0, "no usage: {s}");
    assert!(s["cost_usd"].is_null(), "{s}");
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
    let common = common_of(&std::fs::read_to_string(p).unwrap(), &[]);
    assert_eq!(common[0]["type"], "session_start");
    assert_eq!(common[0]["agent"], "kimi");
    let start = common
        .iter()
        .find(|e| e["type"] == "tool_start" && e["call_id"] == "Shell:0")
        .unwrap();
    // The JSON-encoded `arguments`, parsed.
    assert_eq!(start["args"], serde_json::json!({"command": "ls -la"}));
    let end = common.last().unwrap();
    assert_eq!(end["type"], "end");
    assert_eq!(end["line"], 5);
    assert_eq!(end["ok"], true);
    assert!(
        end["text"]
            .as_str()
            .unwrap()
            .starts_with("This is `ledger`")
    );

    let text = std::fs::read_to_string(testdata("agents/kimi/resume-hint.ndjson")).unwrap();
    let common = common_of(&text, &[]);
    let end = common.last().unwrap();
    assert_eq!(end["line"], 7);
    assert_eq!(end["session_id"], "session_01JC8Z3Q4M7N2P5R6S8T9V0W1X");
    assert!(
        common
            .iter()
            .any(|e| e["type"] == "thinking" && e["line"] == 1),
        "the think part of an array content"
    );
    let edit = common
        .iter()
        .find(|e| e["type"] == "tool_end" && e["call_id"] == "tc_2")
        .unwrap();
    assert_eq!(edit["text"], "Replaced 1 occurrence in src/parse.py");

    // A tool's failure, as the CLI marks it in the result.
    let text = std::fs::read_to_string(testdata("agents/kimi/tool-failure.ndjson")).unwrap();
    let failed: Vec<_> = common_of(&text, &[])
        .into_iter()
        .filter(|e| e["type"] == "tool_end" && e["ok"] == false)
        .map(|e| e["call_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(failed, ["Shell:0", "SearchWeb:1"]);

    // A run cut short has no end of its own: the one it gets says no result came.
    let all = fixture_lines(DIR, "tool-run.ndjson");
    let cut = join(&[all[0].as_str(), all[1].as_str()]);
    let ends: Vec<_> = common_of(&cut, &[])
        .into_iter()
        .filter(|e| e["type"] == "end")
        .collect();
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(ends[0]["outcome"], "no_result");
}

/// Its fixtures follow `sjlint schema kimi` (the agent matrix), whose discriminator is `role`;
/// broken lines do not.
#[test]
fn its_schema_refuses_broken_lines() {
    let run = exec(&["schema", "kimi"], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let schema: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    for bad in [
        r#"{"role":"tool","content":"x"}"#,
        r#"{"role":"assistant","content":"x","tool_calls":[{"id":"a","function":{"name":"Shell","arguments":{}}}]}"#,
        r#"{"role":"meta","type":"session.resume_hint"}"#,
        r#"{"content":"x"}"#,
    ] {
        let event: serde_json::Value = serde_json::from_str(bad).unwrap();
        assert!(v.validate(&event).is_err(), "{bad}");
    }
}
/// `run --after-result` ends a Kimi Code run that hangs after its resume hint; a stream without
/// one has no line that ends the run, so only the idle timeout ends it.
#[test]
fn after_result_acts_on_the_resume_hint_only() {
    for (fixture, ended, code) in [
        ("resume-hint.ndjson", "terminated-after-result", 0),
        ("tool-run.ndjson", "idle-timeout", 124),
    ] {
        let dir = std::env::temp_dir().join(format!("sjlint-kimi-run-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let summary = dir.join(format!("{fixture}.json"));
        let stream = testdata(DIR).join(fixture);
        let script = format!("cat '{}'; exec sleep 30", stream.display());
        let run = exec(
            &[
                "run",
                "--after-result",
                "200ms",
                "--idle-timeout",
                "800ms",
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
        assert_eq!(doc["ended"], ended, "{fixture}: {}", run.describe());
        assert_eq!(doc["agent"]["kind"], "kimi", "{fixture}");
        assert_eq!(run.code, code, "{fixture}: {}", run.describe());
    }
}
