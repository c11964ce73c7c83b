//! The newest formats: what Claude Code 2.1 and the newer Codex write that sjlint once took for
//! unknown (types, `system` subtypes, fields, items), each known, checked and mapped into the
//! common form; and detection that waits for a record that decides, as a Grok Build stream
//! opening with many chunks of thought and text needs.

use crate::common::{check_json, exec, show, testdata};
use serde_json::Value;

const CLAUDE_NEWER: &str = "testdata/agents/claude/newer-records-2.1.ndjson";
const CLAUDE_API_ERROR: &str = "testdata/agents/claude/api-error-2.1.ndjson";
const CODEX_NEWER: &str = "testdata/agents/codex/newer-items.ndjson";

fn common_events(path: &str) -> Vec<Value> {
    let run = exec(&["fmt", "--to", "common", path], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    run.stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn stats(path: &str) -> Value {
    let run = exec(&["stats", "--format", "json", path], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let v: Value = serde_json::from_slice(&run.stdout).unwrap();
    v["files"][0].clone()
}

/// `(kind, count)` of each kind of tool call `stats` counts.
fn tool_kinds(stats: &Value) -> Vec<(String, u64)> {
    stats["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["kind"].as_str().unwrap().to_owned(),
                t["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn claude_code_2_1s_records_are_known_to_check_and_to_the_schema() {
    for path in [CLAUDE_NEWER, CLAUDE_API_ERROR] {
        // Before, `command_lifecycle` was an unknown event type, and the fields of the newer
        // `system` lines, assistant lines and results were not in the schema.
        let (run, findings) = check_json(&["--select", "all", "--strict", path], None);
        assert_eq!(run.code, 0, "{path}: {}", show(&findings));
        assert!(findings.is_empty(), "{path}: {}", show(&findings));
    }
}

#[test]
fn claude_codes_newer_fields_are_type_checked() {
    let head = std::fs::read_to_string(testdata("agents/claude/api-error-2.1.ndjson")).unwrap();
    let init = head.lines().next().unwrap();
    let sid = "3f9d2c1b-8a7e-4d6c-b5a4-1e2f3a4b5c6d";
    let bad = [
        // The SDK's types name these: a missing or wrong one is an error.
        format!(r#"{{"type":"system","subtype":"mirror_error","uuid":"u2","session_id":"{sid}"}}"#),
        format!(
            r#"{{"type":"assistant","message":{{"id":"m1","role":"assistant","model":"x","content":[{{"type":"text","text":"hi"}}]}},"parent_tool_use_id":null,"error":5,"supersedes":"u1","session_id":"{sid}","uuid":"u3"}}"#
        ),
        format!(
            r#"{{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"hi","session_id":"{sid}","total_cost_usd":0.1,"permission_denials":[{{"tool_name":"Bash","tool_input":{{}}}}],"deferred_tool_use":{{"id":"t","name":"Bash"}},"terminal_reason":7,"ttft_ms":"1","api_error_status":"401","uuid":"u4"}}"#
        ),
        // Seen only in captures: a wrong type is information.
        format!(
            r#"{{"type":"command_lifecycle","command_uuid":7,"state":"completed","uuid":"u5","session_id":"{sid}"}}"#
        ),
    ];
    let input = format!("{init}\n{}\n", bad.join("\n"));
    let (_, findings) = check_json(&["-"], Some(input.as_bytes()));
    let mut got: Vec<(u64, &str, &str, String)> = findings
        .iter()
        .map(|f| {
            let field = f.message.split('`').nth(1).unwrap_or_default().to_owned();
            (f.line, f.rule.as_str(), f.severity.as_str(), field)
        })
        .collect();
    got.sort();
    let want = [
        (2, "missing-field", "error", "system"),
        (3, "wrong-field-type", "error", "error"),
        (3, "wrong-field-type", "error", "supersedes"),
        (4, "missing-field", "error", "deferred_tool_use"),
        (
            4,
            "missing-field",
            "error",
            "permission_denials.tool_use_id",
        ),
        (4, "wrong-field-type", "error", "api_error_status"),
        (4, "wrong-field-type", "error", "terminal_reason"),
        (4, "wrong-field-type", "error", "ttft_ms"),
        (5, "wrong-field-type", "info", "command_uuid"),
    ];
    let want: Vec<(u64, &str, &str, String)> = want
        .iter()
        .map(|&(l, r, s, f)| (l, r, s, f.to_owned()))
        .collect();
    assert_eq!(got, want, "{}", show(&findings));
}

#[test]
fn claude_codes_errors_that_do_not_end_the_run_are_common_errors() {
    let events = common_events(CLAUDE_API_ERROR);
    let errors: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "error")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        errors,
        [
            // `system`/`mirror_error`
            "SessionStore.append failed: ECONNRESET",
            // the `<synthetic>` message of an API error says its error, no assistant text
            "Failed to authenticate. API Error: 401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"OAuth token has expired.\"}}",
            // `system`/`model_refusal_no_fallback`
            "claude-sonnet-4-6 declined this request and no fallback model is configured.",
        ],
        "{events:?}"
    );
    let said: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "assistant_text")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(said, ["I'll start by reading the parser."]);
    // A notification, a fallback that retries, progress: nothing a consumer acts on.
    let events = common_events(CLAUDE_NEWER);
    assert!(events.iter().all(|e| e["type"] != "error"), "{events:?}");
    // A message cut at its output limit keeps its text; its error comes before it.
    let line = r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":"The parser re"}]},"parent_tool_use_id":null,"error":"max_output_tokens","session_id":"s","uuid":"u"}"#;
    let input = format!(
        "{}\n{line}\n",
        r#"{"type":"system","subtype":"init","session_id":"s","tools":[],"model":"m","claude_code_version":"2.1.240","uuid":"u0"}"#
    );
    let run = exec(
        &["fmt", "--to", "common", "--agent", "claude", "-"],
        Some(input.as_bytes()),
    );
    let kinds: Vec<(String, String)> = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        // The stream has no result: the `end` the input's end gives it says so.
        .filter(|e| e["type"] != "session_start" && e["outcome"] != "no_result")
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_owned(),
                e["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("error".to_owned(), "max_output_tokens".to_owned()),
            ("assistant_text".to_owned(), "The parser re".to_owned()),
        ],
        "{}",
        run.describe()
    );
}

#[test]
fn codexs_newer_items_are_tool_calls_and_text() {
    let (run, findings) = check_json(&["--select", "all", CODEX_NEWER], None);
    assert_eq!(run.code, 0, "{}", show(&findings));
    assert!(findings.is_empty(), "{}", show(&findings));
    let s = stats(CODEX_NEWER);
    assert_eq!(
        tool_kinds(&s),
        [
            // `request_user_input`
            ("other".to_owned(), 1),
            // `collab_tool_call`: spawn_agent, wait
            ("subagent".to_owned(), 2),
            ("web_search".to_owned(), 1),
        ],
        "{s}"
    );
    let events = common_events(CODEX_NEWER);
    let ask = events
        .iter()
        .find(|e| e["type"] == "tool_start" && e["name"] == "request_user_input")
        .expect("request_user_input is a tool call");
    assert_eq!(ask["call_id"], "call_Qm3vX8kT2pL6nR9w");
    assert_eq!(ask["args"]["questions"][0]["id"], "scope");
    // Plan mode's plan is said once (its deltas are not repeated), and is the run's answer when
    // no agent message follows it, as it is Codex's own final message.
    let plan = "1. Reproduce the empty-input failure with a test.\n2. Return an empty list from `parse` for empty input.\n3. Run the whole suite.";
    let texts: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "assistant_text")
        .collect();
    assert_eq!(texts.len(), 1, "{events:?}");
    assert_eq!(texts[0]["text"], plan);
    let end = events.iter().find(|e| e["type"] == "end").unwrap();
    assert_eq!(end["text"], plan);
    // The warning item is an error event, the run still a success.
    assert_eq!(end["ok"], true);
    assert!(events.iter().any(|e| e["type"] == "error"));
}

#[test]
fn codexs_cache_writes_are_input_counted_apart() {
    // `input_tokens` is the whole input: what was read from a cache and what was written to
    // one are its parts, each counted once.
    let s = stats(CODEX_NEWER);
    let u = &s["usage"];
    assert_eq!(u["input_tokens"], 48_213 - 40_960 - 6_144, "{u}");
    assert_eq!(u["cache_read_tokens"], 40_960, "{u}");
    assert_eq!(u["cache_write_tokens"], 6_144, "{u}");
    assert_eq!(u["output_tokens"], 1_290, "{u}");
}

#[test]
fn codexs_newer_items_and_events_are_type_checked() {
    let input = [
        r#"{"type":"thread.started","thread_id":"t"}"#,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"item.started","item":{"id":"item_0","type":"collab_tool_call","sender_thread_id":"t","receiver_thread_ids":"u","status":"in_progress"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"collab_tool_call","tool":"wait","status":"completed"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"web_search","query":3}}"#,
        r#"{"type":"item.plan.delta","item_id":"item_2"}"#,
        r#"{"type":"request_user_input","id":"1","questions":{}}"#,
        r#"{"type":"item.completed","item":{"id":"item_2","type":"plan"}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}"#,
    ]
    .join("\n");
    let (_, findings) = check_json(&["-"], Some(input.as_bytes()));
    let mut got: Vec<(u64, String)> = findings
        .iter()
        .map(|f| {
            let field = f.message.rsplit('`').nth(1).unwrap_or_default().to_owned();
            (f.line, format!("{} {field}", f.rule))
        })
        .collect();
    got.sort();
    let want = [
        (3, "missing-field item.tool"),
        (3, "wrong-field-type item.receiver_thread_ids"),
        (5, "wrong-field-type item.query"),
        (6, "missing-field delta"),
        (7, "missing-field call_id"),
        (7, "wrong-field-type questions"),
        (8, "missing-field item.text"),
    ];
    let want: Vec<(u64, String)> = want.iter().map(|&(l, m)| (l, m.to_owned())).collect();
    assert_eq!(got, want, "{}", show(&findings));
}

#[test]
fn detection_waits_past_many_records_that_decide_nothing() {
    // A Grok Build run that opens with 41 chunks of thought and text (which several agents'
    // types share) before its first tool call: it was `unknown-agent` when detection gave up
    // after 16 records.
    let path = "testdata/agents/grok/opens-with-many-chunks.ndjson";
    let text = std::fs::read(testdata("agents/grok/opens-with-many-chunks.ndjson")).unwrap();
    let opening = text
        .split(|&b| b == b'\n')
        .take_while(|l| {
            l.starts_with(b"{\"type\":\"thought\"") || l.starts_with(b"{\"type\":\"text\"")
        })
        .count();
    assert!(opening > 16, "{opening}");
    // A mapped file and standard input alike.
    for (args, stdin) in [
        (&["--format", "json", path][..], None),
        (&["--format", "json", "-"][..], Some(&text[..])),
    ] {
        let mut all = vec!["check"];
        all.extend_from_slice(args);
        let run = exec(&all, stdin);
        assert_eq!(run.code, 0, "{}", run.describe());
        assert!(run.findings().is_empty(), "{}", show(&run.findings()));
        let mut all = vec!["stats"];
        all.extend_from_slice(args);
        let run = exec(&all, stdin);
        let v: Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(v["files"][0]["agent"], "grok", "{}", run.describe());
        assert_eq!(v["files"][0]["results"]["success"], 1, "{}", run.describe());
    }
}

#[test]
fn detection_that_reaches_its_bound_says_so() {
    let chunk = "{\"type\":\"thought\",\"data\":\"thinking\"}\n";
    // Within the bound, a record that decides is waited for.
    let late = format!(
        "{}{}",
        chunk.repeat(200),
        "{\"type\":\"end\",\"stopReason\":\"end_turn\",\"sessionId\":\"s\",\"requestId\":\"\"}\n"
    );
    let (run, findings) = check_json(&["-"], Some(late.as_bytes()));
    assert_eq!(run.code, 0, "{}", show(&findings));
    assert!(findings.is_empty(), "{}", show(&findings));
    // Past it, the stream is no known agent's, and the finding says how far it was read.
    let never = chunk.repeat(300);
    let (_, findings) = check_json(&["-"], Some(never.as_bytes()));
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    assert_eq!(findings[0].rule, "unknown-agent");
    assert!(
        findings[0].message.contains("no record of the first 256"),
        "{}",
        findings[0].message
    );
    // An input that ends before the bound is read whole: nothing to say of a bound.
    let (_, findings) = check_json(&["-"], Some(chunk.repeat(20).as_bytes()));
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    assert!(
        !findings[0].message.contains("first"),
        "{}",
        findings[0].message
    );
}
