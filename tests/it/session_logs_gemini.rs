//! The chats Gemini CLI keeps on disk (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, and the
//! one pretty-printed `session-*.json` document of the versions before 0.39), read through the
//! real binary as a user points sjlint at them: each sample of the corpus
//! (`../shared/corpus/logs/gemini/`) and each fixture is recognised as Gemini CLI's chat,
//! checks clean (information on a message type the notes do not list is allowed), and counts
//! the tokens the format notes' rules give, derived here from the raw text; a message appended
//! again counts once, a rewind keeps what was billed, a last line cut mid-way and an unknown
//! message type are each said as they should be.

use crate::common::agent::{common_of, findings_of, fixture_lines, join, stats_of};
use crate::common::{check_json, corpus_dir, testdata};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;

/// The messages of a chat in file order, each copy: a legacy document's `messages`, and a
/// JSONL chat's message lines and `$set` checkpoints.
fn copies(text: &str) -> Vec<Value> {
    let records: Vec<Value> = match serde_json::from_str::<Value>(text) {
        Ok(doc) => vec![doc],
        Err(_) => text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
    };
    let mut out = Vec::new();
    for r in records {
        if let Some(list) = r["messages"]
            .as_array()
            .or(r["$set"]["messages"].as_array())
        {
            out.extend(list.iter().cloned());
        } else if r["type"].is_string() {
            out.push(r);
        }
    }
    out
}

/// Token totals as the notes define them (§4): each `gemini` message id once, its last copy;
/// input = input − cached + tool, output = output + thoughts, cache read = cached, reasoning =
/// thoughts. Also the sum over every copy, which over-counts.
fn derived_tokens(text: &str) -> ([u64; 5], [u64; 5]) {
    let mut last: HashMap<String, [u64; 5]> = HashMap::new();
    let mut naive = [0; 5];
    for (i, m) in copies(text).iter().enumerate() {
        let t = &m["tokens"];
        if m["type"] != "gemini" || !t.is_object() {
            continue;
        }
        let n = |k: &str| t[k].as_u64().unwrap_or(0);
        let c = [
            n("input") - n("cached") + n("tool"),
            n("output") + n("thoughts"),
            n("cached"),
            0,
            n("thoughts"),
        ];
        for (s, x) in naive.iter_mut().zip(c) {
            *s += x;
        }
        let id = m["id"].as_str().map_or(format!("copy {i}"), str::to_owned);
        last.insert(id, c);
    }
    let mut once = [0; 5];
    for c in last.values() {
        for (s, x) in once.iter_mut().zip(c) {
            *s += x;
        }
    }
    (once, naive)
}

fn stats_tokens(stats: &Value) -> [u64; 5] {
    let u = &stats["usage"];
    [
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
    ]
    .map(|k| u[k].as_u64().unwrap_or_else(|| panic!("usage.{k}: {u}")))
}

/// Checks `f` clean as Gemini CLI's chat, and gives its stats and its text.
fn clean_chat(f: &std::path::Path) -> (Value, String) {
    let p = f.to_str().unwrap();
    let (run, findings) = check_json(&[p], None);
    assert_eq!(run.code, 0, "{p}: {}", run.describe());
    for f in &findings {
        assert_eq!(
            (f.rule.as_str(), f.severity.as_str()),
            ("unknown-event-type", "info"),
            "{p}: {f:?}"
        );
    }
    let stats = stats_of(&[p], None);
    assert_eq!(stats["agent"], "gemini", "{p}: {stats}");
    assert_eq!(stats["source"], "session-log", "{p}");
    assert_eq!(stats["outcomes"]["no_result"], 0, "{p}");
    let text = std::fs::read_to_string(f).unwrap();
    (stats, text)
}

#[test]
fn every_gemini_sample_is_a_clean_chat_with_the_notes_token_totals() {
    let Some(corpus) = corpus_dir() else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join("logs/gemini"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    for f in &files {
        let (stats, text) = clean_chat(f);
        // One pretty-printed document: one record, not one a line.
        assert_eq!(stats["records"], 1, "{f:?}");
        assert!(text.lines().count() > 20);
        assert_eq!(stats_tokens(&stats), derived_tokens(&text).0, "{f:?}");
    }
    // The larger one has messages of a type the notes do not list (`model`, with `parts`).
    let (_, findings) = check_json(&[files[0].to_str().unwrap()], None);
    assert!(files[0].ends_with(
        "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__gemini__large.json"
    ));
    assert_eq!(findings.len(), 2, "{findings:?}");
}

#[test]
fn every_fixture_is_a_clean_chat_counted_once_per_message() {
    let dir = testdata("agents/gemini-log");
    let files = [
        dir.join("tool-run.jsonl"),
        dir.join("rewound.jsonl"),
        testdata("documents/gemini-legacy.json"),
        dir.join("7c1e2f40-5a6b-4c3d-9e8f-0a1b2c3d4e5f/subagent.jsonl"),
    ];
    let mut repeated = 0;
    for f in &files {
        let (stats, text) = clean_chat(f);
        let (once, naive) = derived_tokens(&text);
        assert_eq!(stats_tokens(&stats), once, "{f:?}");
        repeated += usize::from(once != naive);
    }
    // The tool run appends its model message three times, the rewound chat checkpoints one.
    assert_eq!(repeated, 2);
}

#[test]
fn a_chats_events_reach_the_common_form_once() {
    let text = join(&fixture_lines("agents/gemini-log", "tool-run.jsonl"));
    let events = common_of(&text, &["--stdin-filename", "session.jsonl"]);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "user_prompt",
            "thinking",
            "tool_start",
            "tool_end",
            "assistant_text",
            "usage",
            "usage"
        ]
    );
    assert_eq!(events[0]["agent"], "gemini");
    // The end comes from the copy that gave the call its final status.
    assert_eq!(events[4]["line"], 6);
    assert_eq!(events[4]["ok"], true);
    assert_eq!(events[4]["tool_kind"], "shell");

    // A legacy document: its messages, from its one record.
    let doc = std::fs::read_to_string(testdata("documents/gemini-legacy.json")).unwrap();
    let events = common_of(&doc, &["--stdin-filename", "session.json"]);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "user_prompt",
            "assistant_text",
            "thinking",
            "tool_start",
            "tool_end",
            "usage"
        ]
    );
    assert_eq!(events[6]["usage"]["input_tokens"], 800 - 500 + 5);
    assert_eq!(events[6]["usage"]["output_tokens"], 40 + 60);
}

#[test]
fn a_rewound_message_was_billed_and_still_counts() {
    let lines = fixture_lines("agents/gemini-log", "rewound.jsonl");
    assert!(lines[4].contains("$rewindTo"), "{}", lines[4]);
    let text = join(&lines);
    let stats = stats_of(&["--stdin-filename", "s.jsonl", "-"], Some(text.as_bytes()));
    // g1 (rewound past, not away) and g2 (checkpointed again) once each.
    assert_eq!(
        stats_tokens(&stats),
        [100 + (140 - 100), 8 + 4 + 9, 100, 0, 4]
    );
}

#[test]
fn a_last_line_cut_mid_way_is_truncated_and_nothing_else() {
    let text = join(&fixture_lines("agents/gemini-log", "tool-run.jsonl"));
    let last = text.trim_end().rfind('\n').unwrap() + 1;
    let cut = &text[..last + (text.len() - last) / 2];
    let (code, got) = findings_of(cut, "session.jsonl");
    let rules: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
    assert_eq!(rules, ["truncated-record"], "{got:?}");
    assert_eq!(got[0].2, 9);
    assert_eq!(code, 1);
    assert_eq!(findings_of(&text[..last], "session.jsonl"), (0, vec![]));
}

#[test]
fn a_message_type_sjlint_does_not_know_is_one_info() {
    let mut lines = fixture_lines("agents/gemini-log", "tool-run.jsonl");
    lines.insert(
        2,
        r#"{"id":"c1","timestamp":"2026-05-04T09:00:01.500Z","type":"compression","content":"…"}"#
            .to_owned(),
    );
    let (code, got) = findings_of(&join(&lines), "session.jsonl");
    assert_eq!(
        got,
        vec![("unknown-event-type".to_owned(), "info".to_owned(), 3)]
    );
    assert_eq!(code, 0);
}

#[test]
fn a_document_over_the_record_limit_is_too_large_not_read_whole() {
    let doc = std::fs::read_to_string(testdata("documents/gemini-legacy.json")).unwrap();
    let (run, findings) = check_json(
        &[
            "--max-record-bytes",
            "512",
            "--stdin-filename",
            "s.json",
            "-",
        ],
        Some(doc.as_bytes()),
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_eq!(findings[0].rule, "record-too-large", "{findings:?}");
    // Under the limit, the same document is one clean record.
    let (run, findings) = check_json(&["--stdin-filename", "s.json", "-"], Some(doc.as_bytes()));
    assert_eq!((run.code, findings.len()), (0, 0), "{findings:?}");
}
