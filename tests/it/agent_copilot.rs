//! GitHub Copilot CLI's stream (`copilot -p … --output-format json`): its fixtures, written from
//! the format notes (no public capture exists), are clean, recognised without `--agent` and
//! follow its schema; broken runs get their finding at their line; the common form of each run
//! reads back clean and counts the same; `stats` and `render` count the streamed text once and
//! the tokens from where the stream has them.

use crate::common::agent::*;
use crate::common::*;

const DIR: &str = "agents/copilot";

/// The assistant's text of a common form, its pieces joined.
fn assistant_text(events: &[serde_json::Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "assistant_text")
        .map(|e| e["text"].as_str().unwrap().to_owned())
        .collect()
}

/// Its fixtures are what the agent matrix holds every agent's to (clean, recognised, following
/// the schema); the schema is strict about a result's exit code.
#[test]
fn the_schema_refuses_a_string_exit_code() {
    let schema = exec(&["schema", "copilot"], None);
    assert_eq!(schema.code, 0, "{}", schema.describe());
    let schema: serde_json::Value = serde_json::from_slice(&schema.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let good = serde_json::json!({"type": "result", "timestamp": "2026-09-10T03:26:39.21Z", "sessionId": "s", "exitCode": 0, "usage": {}});
    assert!(validator.validate(&good).is_ok());
    let bad = serde_json::json!({"type": "result", "timestamp": "2026-09-10T03:26:39.21Z", "sessionId": "s", "exitCode": "0", "usage": {}});
    assert!(validator.validate(&bad).is_err());
}
/// One record decides: the SDK's envelope (`data` beside `parentId`, a dotted type) or the
/// `result` with `exitCode` and `sessionId`; another CLI's `session.*` line without the envelope
/// is not Copilot CLI's.
#[test]
fn one_record_tells_copilot_cli() {
    let text = fixture_text(DIR, "tool-run.ndjson");
    let lines: Vec<&str> = text.lines().collect();
    for one in [lines[0], lines[15]] {
        let input = format!("{one}\n");
        assert_eq!(
            stats_of(&[], Some(input.as_bytes()))["agent"],
            "copilot",
            "{one}"
        );
    }
    // A line of another CLI with a dotted type but no envelope.
    let hint = r#"{"role":"meta","type":"session.resume_hint","session_id":"session_01","content":"To resume this session: …"}"#;
    let s = stats_of(&[], Some(format!("{hint}\n").as_bytes()));
    assert_ne!(s["agent"], "copilot", "{s}");
}

type Case<'a> = (&'a str, String, Vec<(&'a str, u64)>);

/// Each broken stream gets exactly its findings (rule, line), in any order, and fails.
fn assert_findings(cases: Vec<Case<'_>>) {
    for (what, input, mut want) in cases {
        let (run, findings) = check_json(
            &["--stdin-filename", "copilot.ndjson"],
            Some(input.as_bytes()),
        );
        let mut got: Vec<(&str, u64)> =
            findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
        got.sort_unstable_by_key(|&(r, l)| (l, r));
        want.sort_unstable_by_key(|&(r, l)| (l, r));
        assert_eq!(got, want, "{what}: {}", show(&findings));
        assert_eq!(run.code, 1, "{what}");
    }
}

/// A Copilot CLI run cut, or with a call or turn that does not pair: each gets its findings at
/// the right lines.
#[test]
fn broken_runs_get_their_finding_at_their_line() {
    let text = fixture_text(DIR, "tool-run.ndjson");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 16);
    let call = "toolu_vrtx_01Kd8sPq3VnX7mW2bR5tY9zL";
    let other_call = lines[8].replace(call, "toolu_vrtx_01Zz9Other0000000000000");
    let codex = r#"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}"#;
    let cases: Vec<Case<'_>> = vec![
        // Cut before the `result`: the run never completes.
        ("cut", join(&lines[..15]), vec![("missing-result", 15)]),
        // Cut while the tool runs: no `result`, and the call never completes.
        (
            "cut mid-tool",
            join(&lines[..8]),
            vec![("missing-result", 8), ("unfinished-tool-call", 8)],
        ),
        // The start of the call lost: its completion is an orphan.
        (
            "no start",
            join(&[&lines[..7], &lines[8..]].concat()),
            vec![("orphan-completion", 8)],
        ),
        // The completion names another call: an orphan, and the call stays open at the end.
        (
            "unknown completion",
            join(&[&lines[..8], &[other_call.as_str()][..], &lines[9..]].concat()),
            vec![("unfinished-tool-call", 8), ("orphan-completion", 9)],
        ),
        // The call completes twice.
        (
            "twice",
            join(&[&lines[..9], &[lines[8]][..], &lines[9..]].concat()),
            vec![("orphan-completion", 10)],
        ),
        // The turn's start lost: its end is an orphan.
        (
            "no turn start",
            join(&[&lines[..10], &lines[11..]].concat()),
            vec![("orphan-completion", 14)],
        ),
        // A line after the `result` that begins no run.
        (
            "after result",
            join(&[&lines[..], &[lines[13]][..]].concat()),
            vec![("event-after-result", 17)],
        ),
        // Two `result` lines.
        (
            "two results",
            join(&[&lines[..], &[lines[15]][..]].concat()),
            vec![("event-after-result", 17)],
        ),
        // Text on stdout (no `-s`).
        (
            "text",
            join(
                &[
                    &lines[..15],
                    &["Total usage est: 1 Premium request"][..],
                    &lines[15..],
                ]
                .concat(),
            ),
            vec![("invalid-json", 16)],
        ),
        // A Codex record inside the run.
        (
            "mixed",
            join(&[&lines[..2], &[codex][..], &lines[2..]].concat()),
            vec![("mixed-agents", 3)],
        ),
    ];
    assert_findings(cases);
}

/// Fields of the wrong type or missing: each gets its finding at its line.
#[test]
fn broken_fields_get_their_finding_at_their_line() {
    let text = fixture_text(DIR, "tool-run.ndjson");
    let lines: Vec<&str> = text.lines().collect();
    let success_str = lines[8].replace(r#""success":true"#, r#""success":"true""#);
    let exit_str = lines[15].replace(r#""exitCode":0"#, r#""exitCode":"0""#);
    let no_session =
        lines[15].replace(r#""sessionId":"8f1c2a9e-4b7d-4e3a-9c5f-2d6b8a0e1f37","#, "");
    let turn_num = lines[3].replace(r#""turnId":"0""#, r#""turnId":0"#);
    let no_id = {
        let v: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
        let mut m = v.as_object().unwrap().clone();
        m.remove("id");
        serde_json::to_string(&m).unwrap()
    };
    let data_str = {
        let mut v: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
        v["data"] = serde_json::json!("Run the tests");
        serde_json::to_string(&v).unwrap()
    };
    let no_name = lines[7].replace(r#""toolName":"bash","#, "");
    let negative = lines[13].replace(r#""outputTokens":9"#, r#""outputTokens":-9"#);
    let cases: Vec<Case<'_>> = vec![
        // Wrong field types.
        (
            "success a string",
            join(&[&lines[..8], &[success_str.as_str()][..], &lines[9..]].concat()),
            vec![("wrong-field-type", 9)],
        ),
        (
            "exit code a string",
            join(&[&lines[..15], &[exit_str.as_str()][..]].concat()),
            vec![("wrong-field-type", 16)],
        ),
        (
            "turn id a number",
            join(&[&lines[..3], &[turn_num.as_str()][..], &lines[4..]].concat()),
            vec![("wrong-field-type", 4)],
        ),
        (
            "data a string",
            join(&[&lines[..2], &[data_str.as_str()][..], &lines[3..]].concat()),
            vec![("wrong-field-type", 3)],
        ),
        (
            "negative tokens",
            join(&[&lines[..13], &[negative.as_str()][..], &lines[14..]].concat()),
            vec![("wrong-field-type", 14)],
        ),
        // Missing fields: a call's tool name (the call still pairs), the envelope's `id`, the
        // result's `sessionId`.
        (
            "no tool name",
            join(&[&lines[..7], &[no_name.as_str()][..], &lines[8..]].concat()),
            vec![("missing-field", 8)],
        ),
        (
            "no id",
            join(&[&lines[..2], &[no_id.as_str()][..], &lines[3..]].concat()),
            vec![("missing-field", 3)],
        ),
        (
            "no session id",
            join(&[&lines[..15], &[no_session.as_str()][..]].concat()),
            vec![("missing-field", 16)],
        ),
    ];
    assert_findings(cases);
}

/// What the notes leave open is said leniently: a type the notes do not name is information
/// (the SDK has ~120 and adds more); streamed pieces never made whole are a warning; calls left
/// open by an aborted or failed run are warnings; a failed run is no finding at all.
#[test]
fn what_is_lenient() {
    let text = fixture_text(DIR, "tool-run.ndjson");
    let lines: Vec<&str> = text.lines().collect();
    let newer = r#"{"type":"session.compaction_start","data":{},"id":"0b9f3c6e-1d2a-4e8b-9c7f-5a3e1d0b2c84","timestamp":"2026-09-21T10:13:24.700Z","parentId":"3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"}"#;
    let input = join(&[&lines[..9], &[newer][..], &lines[9..]].concat());
    let (run, findings) = check_json(&["--strict"], Some(input.as_bytes()));
    let got: Vec<(&str, &str, u64)> = findings
        .iter()
        .map(|f| (f.rule.as_str(), f.severity.as_str(), f.line))
        .collect();
    assert_eq!(got, [("unknown-event-type", "info", 10)]);
    assert!(findings[0].message.ends_with("for Copilot CLI"));
    assert_eq!(run.code, 0, "{}", show(&findings));

    // The whole second message lost: its pieces never get their whole.
    let input = join(&[&lines[..13], &lines[14..]].concat());
    let (_, findings) = check_json(&[], Some(input.as_bytes()));
    let got: Vec<(&str, &str, u64)> = findings
        .iter()
        .map(|f| (f.rule.as_str(), f.severity.as_str(), f.line))
        .collect();
    assert_eq!(got, [("thinking-not-completed", "warning", 15)]);
    assert_eq!(findings[0].related[0].0, 12);

    // An aborted run ends with its call open: a warning, not an error.
    let abort = r#"{"type":"abort","data":{"reason":"user_initiated"},"id":"6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0","timestamp":"2026-09-21T10:13:22.900Z","parentId":null}"#;
    let failed = lines[15].replace(r#""exitCode":0"#, r#""exitCode":130"#);
    let input = join(&[&lines[..8], &[abort, failed.as_str()][..]].concat());
    let (run, findings) = check_json(&[], Some(input.as_bytes()));
    let got: Vec<(&str, &str, u64)> = findings
        .iter()
        .map(|f| (f.rule.as_str(), f.severity.as_str(), f.line))
        .collect();
    assert_eq!(got, [("unfinished-tool-call", "warning", 8)]);
    assert_eq!(run.code, 0);

    // The usage summary printed without `-s`: one finding, whose help says `-s`.
    let input = join(
        &[
            &lines[..],
            &["Total usage est:        1 Premium request"][..],
        ]
        .concat(),
    );
    let (_, findings) = check_json(&[], Some(input.as_bytes()));
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    assert!(
        findings[0].rule == "invalid-json"
            && findings[0]
                .help
                .as_deref()
                .is_some_and(|h| h.contains("`-s`")),
        "{}",
        show(&findings)
    );

    // A run that failed (non-zero `exitCode`) is a fact about the run, not a broken stream.
    let failed = fixture_text(DIR, "api-error.ndjson");
    let (run, findings) = check_json(&["--strict"], Some(failed.as_bytes()));
    assert!(findings.is_empty() && run.code == 0, "{}", show(&findings));
}

/// The streamed pieces are the assistant's text; the whole `assistant.message` that repeats
/// them adds nothing (or only what the pieces lacked), so the text is there once, in the common
/// form, `stats` and `render`; a message that was not streamed is there whole.
#[test]
fn the_streamed_text_is_counted_once() {
    let text = fixture_text(DIR, "tool-run.ndjson");
    let events = common_of(&text, &["--stdin-filename", "copilot.ndjson"]);
    assert_eq!(
        assistant_text(&events),
        "I'll run the test suite.All 12 tests pass."
    );
    // Each streamed message begins with a piece without `delta`; its other pieces continue it.
    let firsts = events
        .iter()
        .filter(|e| e["type"] == "assistant_text" && e.get("delta").is_none())
        .count();
    assert_eq!(firsts, 2, "{events:?}");
    let rendered = exec(
        &["render", &format!("testdata/{DIR}/tool-run.ndjson")],
        None,
    );
    let out = rendered.stdout();
    assert_eq!(out.matches("All 12 tests").count(), 1, "{out}");
    assert_eq!(out.matches("I'll run the").count(), 1, "{out}");
    assert!(
        out.contains("Copilot CLI") && out.contains("cargo test --quiet"),
        "{out}"
    );

    // The last piece lost: the whole message adds what the pieces lacked, as a piece.
    let lines: Vec<&str> = text.lines().collect();
    let input = join(&[&lines[..12], &lines[13..]].concat());
    assert_eq!(
        assistant_text(&common_of(&input, &["--stdin-filename", "copilot.ndjson"])),
        "I'll run the test suite.All 12 tests pass."
    );

    // Not streamed: the message is there whole, once.
    let minimal = fixture_text(DIR, "minimal.ndjson");
    let events = common_of(&minimal, &["--stdin-filename", "copilot.ndjson"]);
    let texts: Vec<_> = events
        .iter()
        .filter(|e| e["type"] == "assistant_text")
        .collect();
    assert_eq!(texts.len(), 1);
    assert!(texts[0]["delta"].is_null());
    let end = events.last().unwrap();
    assert_eq!(end["type"], "end");
    assert_eq!(end["text"], texts[0]["text"]);
}

/// `stats`: `result.usage` has no tokens; the run's tokens are its `assistant.usage` lines when
/// it has any, else its messages' output tokens, once; no cost in dollars; tool kinds by name
/// (an MCP server's tool is `mcp`); the run's duration is `sessionDurationMs`; a non-zero
/// `exitCode` is a failed run whose end says the last `session.error`.
#[test]
fn stats_count_tokens_once_and_no_cost() {
    let s = stats_of(&[&format!("testdata/{DIR}/tool-run.ndjson")], None);
    assert_eq!(s["usage"]["input_tokens"], 0, "{s}");
    assert_eq!(s["usage"]["output_tokens"], 61 + 9, "{s}");
    assert!(s["cost_usd"].is_null(), "{s}");
    assert_eq!(s["results"]["success"], 1, "{s}");
    assert_eq!(s["duration_ms"], 8931, "{s}");
    let kinds: Vec<(&str, u64)> = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["kind"].as_str().unwrap(), t["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(kinds, [("shell", 1)], "{s}");

    let s = stats_of(&[&format!("testdata/{DIR}/usage.ndjson")], None);
    // The calls' usage, not the messages' `outputTokens` besides.
    // `inputTokens` holds the cache reads, which are counted apart.
    assert_eq!(
        s["usage"]["input_tokens"],
        (18230 - 16384) + (18502 - 18176),
        "{s}"
    );
    assert_eq!(s["usage"]["output_tokens"], 73 + 31, "{s}");
    assert_eq!(s["usage"]["cache_read_tokens"], 16384 + 18176, "{s}");
    assert!(s["cost_usd"].is_null(), "{s}");
    assert_eq!(s["tool_calls"][0]["kind"], "mcp", "{s}");

    let s = stats_of(&[&format!("testdata/{DIR}/tool-failure.ndjson")], None);
    let kinds: Vec<(&str, u64)> = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["kind"].as_str().unwrap(), t["failed"].as_u64().unwrap()))
        .collect();
    assert!(
        kinds.contains(&("read", 1)) && kinds.contains(&("edit", 0)),
        "{s}"
    );

    let failed = fixture_text(DIR, "api-error.ndjson");
    let s = stats_of(&[], Some(failed.as_bytes()));
    assert_eq!(s["results"]["error"], 1, "{s}");
    let end = common_of(&failed, &["--stdin-filename", "copilot.ndjson"])
        .pop()
        .unwrap();
    assert_eq!(end["ok"], false);
    assert_eq!(
        end["text"],
        "You have exceeded your premium request allowance."
    );
    assert_eq!(end["session_id"], "d41a7c3e-9b2f-4e6d-8a15-3f7c9e2b0d68");
    let out = exec(&["render"], Some(failed.as_bytes())).stdout();
    assert!(out.contains("✗ failed"), "{out}");
}

/// `fmt --to common` of every fixture: each line follows the common schema, reads back clean
/// as `--agent common`, counts the same and is unchanged by a second `fmt --to common`.
#[test]
fn the_common_form_of_every_run() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schemas/common.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for path in fixtures(DIR) {
        let p = path.to_str().unwrap();
        let once = exec(&["fmt", "--to", "common", p], None);
        assert_eq!(once.code, 0, "{p}: {}", once.describe());
        for line in once.stdout().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Err(e) = validator.validate(&v) {
                panic!("{p}: {line}\ndoes not follow the common schema: {e}");
            }
        }
        let (run, findings) = check_json(&["--strict", "--agent", "common"], Some(&once.stdout));
        assert!(
            findings.is_empty() && run.code == 0,
            "{p}: {}",
            show(&findings)
        );
        let twice = exec(
            &["fmt", "--to", "common", "--stdin-filename", "common.ndjson"],
            Some(&once.stdout),
        );
        assert_eq!(twice.stdout(), once.stdout(), "{p}");
        let source = stats_of(&[p], None);
        let common = stats_of(&[], Some(&once.stdout));
        for key in [
            "agent",
            "usage",
            "results",
            "duration_ms",
            "cost_usd",
            "sessions",
        ] {
            assert_eq!(common[key], source[key], "{p}: {key}");
        }
    }
}

/// `sjlint run` of a replayed run: it knows the run is over at its `result` (an agent that
/// hangs after it is ended, and the run still succeeds), and names how the run went.
#[test]
fn run_knows_the_end_of_a_copilot_run() {
    let replay = |file: &str, then: Option<&str>| {
        let mut cmd = sjlint();
        cmd.args(["run", "--after-result", "1s", "--", "sh"])
            .arg(testdata("agents/replay.sh"))
            .env("STREAM", testdata(&format!("{DIR}/{file}")));
        if let Some(t) = then {
            cmd.env("THEN", t);
        }
        run_cmd(cmd, None)
    };
    let ran = replay("tool-run.ndjson", None);
    assert_eq!(ran.code, 0, "{}", ran.describe());
    assert_eq!(ran.stdout(), fixture_text(DIR, "tool-run.ndjson"));
    assert!(
        ran.stderr().contains("result success"),
        "{}",
        ran.describe()
    );

    let hung = replay("tool-run.ndjson", Some("hang"));
    assert_eq!(hung.code, 0, "{}", hung.describe());
    assert!(
        hung.stderr().contains("agent-hung-after-result")
            && hung.stderr().contains("ended after its result"),
        "{}",
        hung.describe()
    );

    let failed = replay("api-error.ndjson", None);
    assert_ne!(failed.code, 0, "{}", failed.describe());
    assert!(
        failed.stderr().contains("result error"),
        "{}",
        failed.describe()
    );
}

/// The Copilot CLI examples of the rule docs: each failing one gives its rule and no other,
/// the same with `--agent copilot`, and each passing one nothing, even under `--strict`.
#[test]
fn copilot_examples_of_the_rule_docs() {
    let mut seen = 0;
    for rule in documented_rules() {
        let doc = std::fs::read_to_string(
            manifest_dir().join(format!("crates/sjlint-core/src/rules/{rule}.md")),
        )
        .unwrap();
        let fails = "## Copilot CLI example that fails";
        if !doc.contains(fails) {
            continue;
        }
        seen += 1;
        let example = doc_example(&rule, fails);
        let (run, findings) = check_json(
            &["--stdin-filename", "example.ndjson"],
            Some(example.as_bytes()),
        );
        assert!(
            !findings.is_empty() && findings.iter().all(|f| f.rule == rule),
            "{rule}.md: the failing example must give {rule} only\n{}",
            show(&findings)
        );
        let error = findings.iter().any(|f| f.severity == "error");
        assert_eq!(run.code, i32::from(error), "{rule}.md");
        assert_eq!(stats_of(&[], Some(example.as_bytes()))["agent"], "copilot");
        let (_, forced) = check_json(
            &["--agent", "copilot", "--stdin-filename", "example.ndjson"],
            Some(example.as_bytes()),
        );
        assert_eq!(show(&forced), show(&findings), "{rule}.md");

        let passes = doc_example(&rule, "## Copilot CLI example that passes");
        let (run, findings) = check_json(
            &["--strict", "--stdin-filename", "example.ndjson"],
            Some(passes.as_bytes()),
        );
        assert!(
            findings.is_empty() && run.code == 0,
            "{rule}.md: the passing example must give nothing\n{}",
            show(&findings)
        );
    }
    assert!(seen >= 4, "{seen} Copilot CLI examples");
}
