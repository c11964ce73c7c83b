//! The newest formats: what Claude Code 2.1 writes that sjlint once took for unknown (types,
//! `system` subtypes, fields), each known, checked and mapped into the common form.

use crate::common::{check_json, exec, show, testdata};
use serde_json::Value;

const CLAUDE_NEWER: &str = "testdata/agents/claude/newer-records-2.1.ndjson";
const CLAUDE_API_ERROR: &str = "testdata/agents/claude/api-error-2.1.ndjson";

fn common_events(path: &str) -> Vec<Value> {
    let run = exec(&["fmt", "--to", "common", path], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    run.stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
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
        .filter(|e| e["type"] != "session_start")
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
