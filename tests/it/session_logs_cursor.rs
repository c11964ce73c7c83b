//! The transcripts cursor-agent keeps on disk (`~/.cursor/projects/<p>/agent-transcripts/`),
//! read through the real binary: each corpus sample (`../shared/corpus/logs/cursor/`, a
//! subagent's file among them) is recognised as cursor-agent's session log, neither its stream
//! nor Kimi CLI's, and checks clean; no tokens are counted, as the transcript keeps none; a last
//! line cut off, a line that is no message and the roles, types and blocks of a newer version
//! are each said as they should be; `fmt`, `render` and `report` read it.

use crate::common::agent::{common_of, findings_of, fixture_lines, fixtures, join, stats_of};
use crate::common::{check_json, corpus_dir, exec, testdata};
use crate::session_logs::{logs_under, stats_tokens};
use serde_json::Value;

fn got(rule: &str, severity: &str, line: u64) -> (String, String, u64) {
    (rule.to_owned(), severity.to_owned(), line)
}

fn assert_cursor_log(stats: &Value, text: &str, what: &str) {
    assert_eq!(stats["agent"], "cursor", "{what}: {stats}");
    assert_eq!(stats["source"], "session-log", "{what}");
    assert_eq!(stats["outcomes"]["no_result"], 0, "{what}");
    // The notes (`agents/logs/cursor.md` §4): no tokens on disk. Nothing counted, and no
    // usage said: unknown, not zero.
    let has_usage = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .any(|v| v.get("usage").is_some() || v["message"].get("usage").is_some());
    assert!(!has_usage, "{what}: a transcript with usage");
    assert_eq!(stats_tokens(stats), [0; 5], "{what}");
    assert_eq!(stats["usage"]["results"], 0, "{what}");
    assert_eq!(stats["cost_usd"], Value::Null, "{what}");
}

#[test]
fn every_cursor_sample_is_a_clean_cursor_log() {
    let Some(corpus) = corpus_dir() else { return };
    let files = logs_under(&corpus.join("logs/cursor"));
    assert!(files.len() >= 3, "{files:?}");
    assert!(
        files
            .iter()
            .any(|f| f.parent().unwrap().ends_with("subagents"))
    );
    for f in &files {
        let p = f.to_str().unwrap();
        let (run, findings) = check_json(&[p], None);
        assert!(findings.is_empty(), "{p}: {findings:?}");
        assert_eq!(run.code, 0, "{}", run.describe());
        let text = std::fs::read_to_string(f).unwrap();
        assert_cursor_log(&stats_of(&[p], None), &text, p);
    }
}

#[test]
fn a_transcripts_messages_reach_the_common_form() {
    for name in ["tool-run.jsonl", "subagents/fix-cart-tax.jsonl"] {
        let text = join(&fixture_lines("agents/cursor-log", name));
        assert_eq!(findings_of(&text, "t.jsonl"), (0, vec![]), "{name}");
        let stats = stats_of(&["--stdin-filename", "t.jsonl", "-"], Some(text.as_bytes()));
        assert_cursor_log(&stats, &text, name);
    }
    let text = join(&fixture_lines("agents/cursor-log", "tool-run.jsonl"));
    let events = common_of(&text, &["--stdin-filename", "t.jsonl"]);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "user_prompt",
            "thinking",
            "assistant_text",
            "assistant_text",
            "user_prompt",
            "assistant_text",
            "assistant_text",
        ]
    );
    assert_eq!(events[0]["agent"], "cursor");
    // The prompt without the `<user_query>` wrapping it is stored in.
    assert_eq!(events[1]["text"], "Why does the cart test fail?");
    let form: String = events.iter().map(|e| format!("{e}\n")).collect();
    let (run, findings) = check_json(&["--agent", "common", "-"], Some(form.as_bytes()));
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(run.code, 0);
    let p = testdata("agents/cursor-log/tool-run.jsonl");
    let render = exec(&["render", p.to_str().unwrap()], None);
    assert_eq!(render.code, 0, "{}", render.describe());
    assert!(render.stdout().contains("Why does the cart test fail?"));
}

#[test]
fn a_cut_line_and_a_line_that_is_no_message_are_findings() {
    let cut = std::fs::read_to_string(testdata("agents/cursor-log/findings/cut.jsonl")).unwrap();
    assert_eq!(
        findings_of(&cut, "cut.jsonl"),
        (1, vec![got("truncated-record", "error", 9)])
    );
    let mut lines = fixture_lines("agents/cursor-log", "tool-run.jsonl");
    lines.insert(1, r#"{"message":{"content":[]}}"#.to_owned());
    lines[3] = lines[3].replace(r#""message":{"content":"#, r#""message":{"parts":"#);
    let (code, found) = findings_of(&join(&lines), "t.jsonl");
    assert_eq!(
        (code, found),
        (
            1,
            vec![
                got("missing-type", "error", 2),
                got("missing-field", "error", 4)
            ]
        )
    );
}

#[test]
fn a_newer_versions_roles_types_and_blocks_are_counted_infos() {
    let text = join(&fixture_lines("agents/cursor-log/findings", "drift.jsonl"));
    assert_eq!(
        findings_of(&text, "drift.jsonl"),
        (
            0,
            vec![
                got("unknown-event-type", "info", 3),
                got("unknown-event-type", "info", 4)
            ]
        )
    );
    let stats = stats_of(&["--stdin-filename", "d.jsonl", "-"], Some(text.as_bytes()));
    assert_eq!(stats["findings"]["info"], 2);
    // A role a newer version adds is counted as a type the schema does not list.
    let mut lines = fixture_lines("agents/cursor-log", "tool-run.jsonl");
    lines[3] = lines[3].replace(r#""role":"assistant""#, r#""role":"system""#);
    let text = join(&lines);
    assert_eq!(
        findings_of(&text, "t.jsonl"),
        (0, vec![got("unknown-event-type", "info", 4)])
    );
    let stats = stats_of(&["--stdin-filename", "t.jsonl", "-"], Some(text.as_bytes()));
    let unlisted = stats["not_in_schema"]["fields"].as_array().unwrap();
    assert!(
        unlisted
            .iter()
            .any(|u| u["type"] == "system" && u["field"].is_null()),
        "{unlisted:?}"
    );
}

#[test]
fn kimis_and_cursors_streams_stay_streams() {
    for (dir, agent) in [("agents/kimi", "kimi"), ("healthy", "cursor")] {
        for f in fixtures(dir) {
            let p = f.to_str().unwrap();
            let stats = stats_of(&[p], None);
            assert_eq!(stats["agent"], agent, "{p}");
            assert_eq!(stats["source"], "stream", "{p}");
        }
    }
}

#[test]
fn report_reads_both_logs() {
    let out = crate::common::Scratch::new("logs-report");
    let page = out.join("report.html");
    let cursor = testdata("agents/cursor-log/tool-run.jsonl");
    let run = exec(
        &[
            "report",
            "--output",
            page.to_str().unwrap(),
            cursor.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Why does the cart test fail?"));
    let pi = testdata("agents/pi-log/tool-run.jsonl");
    let page = out.join("pi.html");
    let run = exec(
        &[
            "report",
            "--output",
            page.to_str().unwrap(),
            pi.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("ls src"), "the tool call's command");
}
