//! Qwen Code's stream (`qwen -p … --output-format stream-json`): its fixtures, written from the
//! format notes (no public capture exists), are clean, follow its schema and are recognised
//! without `--agent`; broken runs get their finding at their line; its common form checks clean
//! and `stats` counts its tokens (the result's usage), no cost, and its tool kinds. Its streams
//! are Claude Code's shape: what tells them apart is checked here too.

use crate::common::agent::*;
use crate::common::*;

const DIR: &str = "agents/qwen";

#[test]
fn broken_qwen_runs_get_their_finding_at_their_line() {
    let text = fixture_text(DIR, "tool-run.ndjson");
    let l: Vec<&str> = text.lines().collect();
    let orphan = l[3].replace("call_9f2c4e7a1b3d45e8a6c0", "call_000000000000000000ff");
    let string_flag = l[5].replace(r#""is_error":false"#, r#""is_error":"false""#);
    let content_number = l[1].replace(
        r#""content":[{"type":"text","text":"I'll run the test suite first."}]"#,
        r#""content":7"#,
    );
    let other_session = l[4].replace(
        "6f1c2b7e-3d4a-4e9b-9a51-0c8d2f7e41b3",
        "00000000-0000-4000-8000-000000000000",
    );
    let codex = r#"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}"#;
    let w = |r: &str, line: u64| (r.to_owned(), "error".to_owned(), line);
    let cases: Vec<(&str, String, Vec<Got>)> = vec![
        // Cut before its result: the session never ends.
        ("cut", join(&l[..5]), vec![w("missing-result", 5)]),
        // Cut while the tool runs: the call is unfinished too.
        (
            "cut in the call",
            join(&l[..3]),
            vec![w("missing-result", 3), w("unfinished-tool-call", 3)],
        ),
        // A tool result no tool_use opened, and the call it should have answered.
        (
            "orphan",
            join(&[&l[..3], &[orphan.as_str()][..], &l[4..]].concat()),
            vec![w("orphan-completion", 4), w("unfinished-tool-call", 3)],
        ),
        (
            "is_error a string",
            join(&[&l[..5], &[string_flag.as_str()][..]].concat()),
            vec![w("wrong-field-type", 6)],
        ),
        (
            "content a number",
            join(&[&l[..1], &[content_number.as_str()][..], &l[2..]].concat()),
            vec![w("wrong-field-type", 2)],
        ),
        (
            "another session",
            join(&[&l[..4], &[other_session.as_str()][..], &l[5..]].concat()),
            vec![w("session-id-mismatch", 5)],
        ),
        // Another agent's record inside Qwen Code's run.
        (
            "mixed",
            join(&[&l[..2], &[codex][..], &l[2..]].concat()),
            vec![w("mixed-agents", 3)],
        ),
    ];
    for (what, input, want) in cases {
        let (code, got) = findings_of(&input, "qwen.ndjson");
        assert_eq!(got, want, "{what}");
        assert_ne!(code, 0, "{what}");
        assert_eq!(
            stats_of(&[], Some(input.as_bytes()))["agent"],
            "qwen",
            "{what}"
        );
    }
}

#[test]
fn a_qwen_error_result_is_checked_as_its_source_types_it() {
    let text = fixture_text(DIR, "max-turns.ndjson");
    let l: Vec<&str> = text.lines().collect();
    let with = |result: &str| join(&[&l[..3], &[result][..]].concat());
    let as_string = l[3].replace(
        r#""error":{"type":"max_turns","message":"Reached max session turns (1) for this session."}"#,
        r#""error":"Reached max session turns""#,
    );
    let no_message = l[3].replace(
        r#""message":"Reached max session turns (1) for this session.""#,
        r#""detail":"x""#,
    );
    let budget = l[3].replace("error_max_turns", "error_max_budget_usd");
    assert_eq!(
        findings_of(&with(&as_string), "qwen.ndjson").1,
        [("wrong-field-type".to_owned(), "error".to_owned(), 4)]
    );
    assert_eq!(
        findings_of(&with(&no_message), "qwen.ndjson").1,
        [("missing-field".to_owned(), "error".to_owned(), 4)]
    );
    // A subtype Qwen Code's source does not list (Claude Code's budget limit): information.
    let (code, got) = findings_of(&with(&budget), "qwen.ndjson");
    assert_eq!(got, [("unknown-subtype".to_owned(), "info".to_owned(), 4)]);
    assert_eq!(code, 0);
    // The run ended not well, with the error's message as its text.
    let end = common_of(&text, &[]).pop().unwrap();
    assert_eq!(end["type"], "end");
    assert_eq!(end["ok"], false);
    assert_eq!(
        end["text"],
        "Reached max session turns (1) for this session."
    );
}

#[test]
fn qwen_runs_in_the_common_form_check_clean() {
    for path in fixtures(DIR) {
        let p = path.to_str().unwrap();
        let form = exec(&["fmt", "--to", "common", p], None);
        assert_eq!(form.code, 0, "{}", form.describe());
        let (run, findings) = check_json(&["--strict", "--agent", "common"], Some(&form.stdout));
        assert!(
            findings.is_empty() && run.code == 0,
            "{p}\n{}",
            show(&findings)
        );
        let first: serde_json::Value =
            serde_json::from_str(form.stdout().lines().next().unwrap()).unwrap();
        assert_eq!(first["agent"], "qwen", "{p}");
    }
}

#[test]
fn qwen_runs_are_counted() {
    let s = stats_of(
        &[testdata(&format!("{DIR}/tool-run.ndjson"))
            .to_str()
            .unwrap()],
        None,
    );
    // The result's usage, once (the assistant lines of one message repeat theirs).
    assert_eq!(s["usage"]["input_tokens"], 23852, "{s}");
    assert_eq!(s["usage"]["output_tokens"], 55, "{s}");
    assert_eq!(s["usage"]["cache_read_tokens"], 22016, "{s}");
    // Qwen Code reports no cost.
    assert_eq!(s["cost_usd"], serde_json::Value::Null, "{s}");
    assert_eq!(s["results"]["success"], 1, "{s}");
    assert_eq!(s["tool_calls"][0]["kind"], "shell", "{s}");
    assert_eq!(s["tool_calls"][0]["count"], 1, "{s}");
    let p = testdata(&format!("{DIR}/partial-messages.ndjson"));
    let s = stats_of(&[p.to_str().unwrap()], None);
    assert_eq!(s["tool_calls"][0]["kind"], "mcp", "{s}");
    assert_eq!(s["usage"]["input_tokens"], 16932, "{s}");
}

/// Qwen Code is told by its own marks: its init's `qwen_code_version` or `permission_mode`, or
/// a `tool_progress` stream event. A stream of the family whose first deciding record has none
/// of them is Claude Code's (a tie of the family is the shape's origin's), and a Qwen Code mark
/// after that is another agent's run.
#[test]
fn qwen_code_is_told_by_its_own_marks_only() {
    let text = fixture_text(DIR, "partial-messages.ndjson");
    let l: Vec<&str> = text.lines().collect();
    // Either mark of the init decides alone.
    for mark in [
        r#","permission_mode":"yolo""#,
        r#","qwen_code_version":"0.2.1""#,
    ] {
        let input = text.replacen(mark, "", 1);
        assert_eq!(
            stats_of(&[], Some(input.as_bytes()))["agent"],
            "qwen",
            "{mark}"
        );
        assert_eq!(findings_of(&input, "qwen.ndjson"), (0, vec![]), "{mark}");
    }
    // Its compaction line has Claude Code's `compact_metadata`: not another agent's record.
    let compact = r#"{"type":"system","subtype":"compact_boundary","uuid":"7d2c9e41-0b3a-4f6e-9a85-1c4e7b2d9f30","session_id":"8a3f6c1e-5d2b-4e9a-b7c0-2e1d9f4a6b85","compact_metadata":{"trigger":"auto","pre_tokens":118342}}"#;
    let input = join(&[&l[..9], &[compact][..], &l[9..]].concat());
    assert_eq!(stats_of(&[], Some(input.as_bytes()))["agent"], "qwen");
    assert_eq!(findings_of(&input, "qwen.ndjson"), (0, vec![]));
    // Cut before its init, with its `tool_progress` on line 7: the family's tie decided first.
    let input = join(&l[1..]);
    assert_eq!(stats_of(&[], Some(input.as_bytes()))["agent"], "claude");
    let (_, got) = findings_of(&input, "qwen.ndjson");
    assert!(
        got.contains(&("mixed-agents".to_owned(), "error".to_owned(), 7)),
        "{got:?}"
    );
    // Claude Code's session with a Qwen Code run after it: one finding, where it begins.
    let claude =
        std::fs::read_to_string(testdata("agents/claude/partial-messages.ndjson")).unwrap();
    let qwen = fixture_text(DIR, "tool-run.ndjson");
    let input = format!("{claude}{qwen}");
    let (_, got) = findings_of(&input, "qwen.ndjson");
    let at = claude.lines().count() as u64 + 1;
    assert_eq!(got, [("mixed-agents".to_owned(), "error".to_owned(), at)]);
}

/// `sjlint run` supervising a replay of the tool run: the agent, its result, its call and its
/// tokens in the summary, and the stream passed on unchanged.
#[test]
fn a_qwen_run_under_supervision() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("agent-qwen-run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let stream = testdata(&format!("{DIR}/tool-run.ndjson"));
    let mut cmd = sjlint();
    cmd.args(["run", "--color", "never", "--summary"])
        .arg(dir.join("summary.json"))
        .arg("--")
        .arg(testdata("agents/replay.sh"))
        .env("STREAM", &stream)
        .env("PIDS", dir.join("pids"));
    let run = run_cmd(cmd, None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(run.stdout, std::fs::read(&stream).unwrap());
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["agent"]["kind"], "qwen", "{s:#}");
    assert_eq!(s["result"]["line"], 6, "{s:#}");
    assert_eq!(s["result"]["is_error"], false, "{s:#}");
    assert_eq!(s["tool_calls"]["total"], 1, "{s:#}");
    assert!(s["tokens"]["input"].as_u64().unwrap() > 0, "{s:#}");
}
