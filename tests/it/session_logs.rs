//! The transcripts Claude Code keeps on disk (`~/.claude/projects/<project>/<session>.jsonl`),
//! read through the real binary as a user points sjlint at them: each sample of the corpus
//! (`../shared/corpus/logs/claude/`) is recognised as Claude Code's session log, checks clean
//! (information on the record types a newer version adds is allowed), and counts the tokens the
//! format notes' rules give, derived here from the raw lines; a parent the file lacks, a last
//! record cut mid-way and a record type sjlint does not know are each said as they should be.

use crate::common::agent::{findings_of, fixture_lines, join, stats_of};
use crate::common::{check_json, corpus_dir};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Every `.jsonl` under `dir`, sorted (the subagent files sit two folders down).
pub(crate) fn logs_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Token totals as the notes define them: an assistant record's `message.usage` counted once per
/// (`message.id`, `requestId`), the copy with the greatest `output_tokens` kept; a record
/// without a message id counts alone; `<synthetic>` messages count nothing. Also the sum over
/// every record, which over-counts.
pub(crate) fn derived_tokens(text: &str) -> ([u64; 5], [u64; 5]) {
    let n = |u: &Value, k: &str| u[k].as_u64().unwrap_or(0);
    let counts = |u: &Value| {
        [
            n(u, "input_tokens"),
            n(u, "output_tokens"),
            n(u, "cache_read_input_tokens"),
            n(u, "cache_creation_input_tokens"),
            n(&u["output_tokens_details"], "thinking_tokens"),
        ]
    };
    let mut kept: HashMap<(String, String), [u64; 5]> = HashMap::new();
    let mut naive = [0; 5];
    for (i, line) in text.lines().enumerate() {
        let Ok(r) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let usage = &r["message"]["usage"];
        if r["type"] != "assistant" || !usage.is_object() || r["message"]["model"] == "<synthetic>"
        {
            continue;
        }
        let c = counts(usage);
        for (s, x) in naive.iter_mut().zip(c) {
            *s += x;
        }
        let key = match r["message"]["id"].as_str() {
            Some(id) => (
                id.to_owned(),
                r["requestId"].as_str().unwrap_or_default().to_owned(),
            ),
            None => (format!("line {i}"), String::new()),
        };
        let slot = kept.entry(key).or_insert(c);
        if c[1] > slot[1] {
            *slot = c;
        }
    }
    let mut once = [0; 5];
    for c in kept.values() {
        for (s, x) in once.iter_mut().zip(c) {
            *s += x;
        }
    }
    (once, naive)
}

pub(crate) fn stats_tokens(stats: &Value) -> [u64; 5] {
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

#[test]
fn every_claude_sample_is_a_clean_claude_log_with_the_notes_token_totals() {
    let Some(corpus) = corpus_dir() else { return };
    let files = logs_under(&corpus.join("logs/claude"));
    assert!(files.len() >= 5, "{files:?}");
    let mut deduplicated = 0;
    for f in &files {
        let p = f.to_str().unwrap();
        let (run, findings) = check_json(&[p], None);
        let serious: Vec<_> = findings.iter().filter(|f| f.severity != "info").collect();
        assert!(serious.is_empty(), "{p}: {serious:?}");
        assert_eq!(run.code, 0, "{}", run.describe());
        // Information only for what a newer version adds.
        for f in &findings {
            assert_eq!(f.rule, "unknown-event-type", "{p}: {f:?}");
        }

        let stats = stats_of(&[p], None);
        assert_eq!(stats["agent"], "claude", "{p}: {stats}");
        assert_eq!(stats["source"], "session-log", "{p}");
        // A log says nothing of how its session ended: no run is called unfinished.
        assert_eq!(
            stats["outcomes"]["no_result"], 0,
            "{p}: {}",
            stats["outcomes"]
        );

        let text = std::fs::read_to_string(f).unwrap();
        let (once, naive) = derived_tokens(&text);
        assert_eq!(stats_tokens(&stats), once, "{p}");
        deduplicated += u64::from(once != naive);
    }
    // The live sample repeats its usage per content block: the totals above are not the sum.
    assert!(deduplicated >= 1, "no sample repeats a response's usage");
}

#[test]
fn a_parent_the_file_lacks_is_a_dangling_parent() {
    let mut lines = fixture_lines("agents/claude-log", "tool-run.jsonl");
    assert!(
        lines[6].contains(r#""parentUuid":"u-0004""#),
        "{}",
        lines[6]
    );
    lines[6] = lines[6].replace(r#""parentUuid":"u-0004""#, r#""parentUuid":"u-0404""#);
    let (code, got) = findings_of(&join(&lines), "session.jsonl");
    assert_eq!(
        got,
        vec![("dangling-parent".to_owned(), "warning".to_owned(), 7)]
    );
    assert_eq!(code, 0);

    // Not at a chain's start, on a compaction, nor where a resumed session begins.
    let mut lines = fixture_lines("agents/claude-log", "tool-run.jsonl");
    lines[4] = lines[4].replace(r#""parentUuid":"u-0002""#, r#""parentUuid":null"#);
    lines[6] = lines[6]
        .replace(r#""parentUuid":"u-0004""#, r#""parentUuid":"u-0404""#)
        .replace(r#""sessionId":"7f3c"#, r#""sessionId":"8e4d"#);
    lines[8] = lines[8]
        .replace(r#""parentUuid":"u-0006""#, r#""parentUuid":"u-0606""#)
        .replace("turn_duration", "compact_boundary");
    let (code, got) = findings_of(&join(&lines), "session.jsonl");
    assert_eq!((code, got), (0, vec![]));
}

#[test]
fn a_last_record_cut_mid_way_is_truncated_and_nothing_else() {
    let text = join(&fixture_lines("agents/claude-log", "tool-run.jsonl"));
    let last = text.trim_end().rfind('\n').unwrap() + 1;
    let cut = &text[..last + (text.len() - last) / 2];
    let (code, got) = findings_of(cut, "session.jsonl");
    let rules: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
    assert_eq!(rules, ["truncated-record"], "{got:?}");
    assert_eq!(got[0].2, 9);
    assert_eq!(code, 1);
    // The same log stopped after a whole record is whole: a log has no end marker.
    let whole = &text[..last];
    assert_eq!(findings_of(whole, "session.jsonl"), (0, vec![]));
    // So is one whose last record lacks only its newline.
    assert_eq!(findings_of(text.trim_end(), "session.jsonl"), (0, vec![]));
}

#[test]
fn a_record_type_sjlint_does_not_know_is_one_counted_info() {
    let mut lines = fixture_lines("agents/claude-log", "tool-run.jsonl");
    lines.insert(
        3,
        r#"{"type":"frame-link","frameId":"f1","sessionId":"7f3c2a10-5b1e-4c2d-9a0e-3d4b5c6e7f80"}"#
            .to_owned(),
    );
    let stream = join(&lines);
    let (code, got) = findings_of(&stream, "session.jsonl");
    assert_eq!(
        got,
        vec![("unknown-event-type".to_owned(), "info".to_owned(), 4)]
    );
    assert_eq!(code, 0);
    let stats = stats_of(
        &["--stdin-filename", "session.jsonl", "-"],
        Some(stream.as_bytes()),
    );
    assert_eq!(stats["findings"]["info"], 1, "{}", stats["findings"]);
    let unlisted = stats["not_in_schema"]["fields"].as_array().unwrap();
    assert!(
        unlisted
            .iter()
            .any(|u| u["type"] == "frame-link" && u["field"].is_null()),
        "{unlisted:?}"
    );
}

#[test]
fn a_logs_tokens_and_events_reach_every_consumer_once() {
    let text = join(&fixture_lines("agents/claude-log", "tool-run.jsonl"));
    let stats = stats_of(&["--stdin-filename", "s.jsonl", "-"], Some(text.as_bytes()));
    // Three blocks of msg_01A (output 4, 4, 87) and one of msg_01B (19).
    assert_eq!(stats_tokens(&stats), [24, 106, 4096, 600, 0]);
    assert_eq!(derived_tokens(&text).0, [24, 106, 4096, 600, 0]);
    let events = crate::common::agent::common_of(&text, &["--stdin-filename", "s.jsonl"]);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "user_prompt",
            "thinking",
            "assistant_text",
            "tool_start",
            "tool_end",
            "assistant_text",
            "usage",
            "usage"
        ]
    );
    assert_eq!(events[0]["agent"], "claude");
    assert_eq!(events[5]["name"], "Bash");
    // Read as Claude Code's stream, on purpose, its records are named as the log's.
    let (code, got) = findings_of_as(&text, "claude");
    assert_eq!(
        got.first().map(String::as_str),
        Some("mixed-agents"),
        "{got:?}"
    );
    assert_eq!(code, 1);
}

/// The rules `check --agent AGENT` finds on `stream`.
fn findings_of_as(stream: &str, agent: &str) -> (i32, Vec<String>) {
    let (run, findings) = check_json(&["--agent", agent, "-"], Some(stream.as_bytes()));
    (run.code, findings.into_iter().map(|f| f.rule).collect())
}

/// Codex's tokens as the notes define them (`agents/logs/codex.md` §4), computed here on the raw
/// lines: a `token_count` counts only when its cumulative `total_token_usage` advanced from the
/// series it continues (the nearest total below it), by `last_token_usage` when the total grew
/// by exactly that, else by the difference of totals; an exact repeat and `info: null` count
/// nothing; a total below every earlier one begins a series and counts its `last_token_usage`.
/// In sjlint's meaning: input less cached, cached, cache writes, output, reasoning.
pub(crate) fn codex_tokens(text: &str) -> [u64; 5] {
    let usage = |u: &Value| {
        [
            "input_tokens",
            "cached_input_tokens",
            "cache_write_input_tokens",
            "output_tokens",
            "reasoning_output_tokens",
        ]
        .map(|k| u[k].as_u64().unwrap_or(0))
    };
    let covers = |a: &[u64; 5], b: &[u64; 5]| a.iter().zip(b).all(|(x, y)| x >= y);
    let mut series: Vec<[u64; 5]> = Vec::new();
    let mut sum = [0u64; 5];
    for line in text.lines() {
        let Ok(r) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let info = &r["payload"]["info"];
        if r["type"] != "event_msg" || r["payload"]["type"] != "token_count" || info.is_null() {
            continue;
        }
        let (total, last) = (
            usage(&info["total_token_usage"]),
            usage(&info["last_token_usage"]),
        );
        if series.contains(&total) {
            continue;
        }
        let base = series
            .iter()
            .enumerate()
            .filter(|(_, s)| covers(&total, s))
            .max_by_key(|(_, s)| s[0] + s[3]);
        let step = match base {
            Some((i, s)) => {
                let diff: [u64; 5] = std::array::from_fn(|k| total[k] - s[k]);
                series[i] = total;
                if diff == last { last } else { diff }
            }
            None => {
                series.push(total);
                if covers(&total, &last) { last } else { total }
            }
        };
        let [input, cached, write, output, reasoning] = step;
        for (s, x) in sum
            .iter_mut()
            .zip([input - cached, output, cached, write, reasoning])
        {
            *s += x;
        }
    }
    sum
}

/// The rules `check` finds on the rollout `text`, as (rule, severity, line).
fn rollout_findings(text: &str) -> (i32, Vec<(String, String, u64)>) {
    findings_of(text, "rollout-2026-03-02T10-00-00-0199a1b2.jsonl")
}

#[test]
fn every_codex_sample_is_a_clean_codex_log_with_the_notes_token_totals() {
    let Some(corpus) = corpus_dir() else { return };
    let files = logs_under(&corpus.join("logs/codex"));
    assert_eq!(files.len(), 3, "{files:?}");
    for f in &files {
        let p = f.to_str().unwrap();
        let (run, findings) = check_json(&[p], None);
        let serious: Vec<_> = findings.iter().filter(|f| f.severity != "info").collect();
        assert!(serious.is_empty(), "{p}: {serious:?}");
        assert_eq!(run.code, 0, "{}", run.describe());
        let stats = stats_of(&[p], None);
        assert_eq!(stats["agent"], "codex", "{p}: {stats}");
        assert_eq!(stats["source"], "session-log", "{p}");
        assert_eq!(stats["outcomes"]["no_result"], 0, "{p}");
        let text = std::fs::read_to_string(f).unwrap();
        assert_eq!(stats_tokens(&stats), codex_tokens(&text), "{p}");
        if p.ends_with("codex__small.jsonl") {
            // By hand (`jq` over the file): line 22 is the one count (total = last: input
            // 16341 with 3584 cached, output 81 with 63 reasoning, no cache writes); line 86 is
            // `info: null`; line 87's total is 0, below it: a second series, which adds 0.
            assert_eq!(stats_tokens(&stats), [16341 - 3584, 81, 3584, 0, 63]);
            let got: Vec<(&str, u64)> =
                findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
            // The output on line 28 follows a `compacted` line; line 29 is another thread's
            // `session_meta` (the file is assembled from several).
            assert_eq!(
                got,
                [
                    ("orphan-completion", 28),
                    ("session-id-mismatch", 29),
                    ("token-total-drop", 87)
                ]
            );
        }
    }
    // Kimi's wire log is not a rollout (its `turn.` types are claimed by Codex's stream, as
    // before): it has no `payload`.
    for f in logs_under(&corpus.join("logs/kimi")) {
        let stats = stats_of(&[f.to_str().unwrap()], None);
        assert_ne!(stats["source"], "session-log", "{}: {stats}", f.display());
    }
}

#[test]
fn a_rollouts_tokens_and_events_reach_every_consumer_once() {
    let text = join(&fixture_lines("agents/codex-log", "tool-run.jsonl"));
    let stats = stats_of(&["--stdin-filename", "r.jsonl", "-"], Some(text.as_bytes()));
    // Line 12 (total = last), line 15 (advanced by exactly its last), line 16 (a repeat:
    // nothing), line 24 (advanced by exactly its last): input 26700 − 17000 cached.
    assert_eq!(stats_tokens(&stats), [9700, 242, 17000, 0, 80]);
    assert_eq!(codex_tokens(&text), [9700, 242, 17000, 0, 80]);
    assert_eq!(stats["agent"], "codex");
    assert_eq!(stats["source"], "session-log");
    let events = crate::common::agent::common_of(&text, &["--stdin-filename", "r.jsonl"]);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "user_prompt",
            "thinking",
            "tool_start",
            "tool_end",
            "usage",
            "tool_start",
            "tool_end",
            "usage",
            "assistant_text",
            "user_prompt",
            "usage",
            "assistant_text"
        ]
    );
    assert_eq!(
        events[0]["session_id"],
        "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    );
    assert_eq!(events[0]["cwd"], "/work/app");
    // The typed prompt, not the injected context of the `response_item` user messages.
    assert_eq!(
        events[1]["text"],
        "List the files and fix the typo in README.md"
    );
    assert_eq!(events[3]["tool_kind"], "shell");
    assert_eq!(events[3]["args"]["command"][2], "ls");
    assert_eq!(events[6]["tool_kind"], "edit");
    assert_eq!(events[5]["model"], "gpt-5-codex");
    // A resumed thread is one session; the model of its counts is the last turn's.
    let text = join(&fixture_lines("agents/codex-log", "resumed.jsonl"));
    let events = crate::common::agent::common_of(&text, &["--stdin-filename", "r.jsonl"]);
    let starts = events
        .iter()
        .filter(|e| e["type"] == "session_start")
        .count();
    assert_eq!(starts, 1);
    let models: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "usage")
        .map(|e| e["model"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["gpt-5-codex", "gpt-5.1-codex"]);
}

#[test]
fn a_rollouts_envelope_start_and_calls_are_checked_as_its_notes_say() {
    let lines = fixture_lines("agents/codex-log", "tool-run.jsonl");
    let warn = |r: &str, l: u64| (r.to_owned(), "warning".to_owned(), l);
    let err = |r: &str, l: u64| (r.to_owned(), "error".to_owned(), l);
    let info = |r: &str, l: u64| (r.to_owned(), "info".to_owned(), l);
    // A head cut off: a warning, in the log's words.
    let (_, got) = rollout_findings(&join(&lines[1..]));
    assert_eq!(got, vec![warn("missing-init", 1)]);
    // A line that is no envelope.
    let mut l = lines.clone();
    l[2] = r#"{"timestamp":"2026-03-02T10:00:04.100Z","type":"event_msg"}"#.to_owned();
    assert_eq!(rollout_findings(&join(&l)).1, vec![err("missing-field", 3)]);
    // Newer kinds and payload types: information.
    let mut l = lines.clone();
    l[2] = l[2].replace("task_started", "task_paused");
    l[8] = l[8].replace(r#""type":"event_msg""#, r#""type":"event_log""#);
    assert_eq!(
        rollout_findings(&join(&l)).1,
        vec![info("unknown-event-type", 3), info("unknown-event-type", 9)]
    );
    // An output whose call the file never opened; information after a compaction.
    let mut l = lines.clone();
    l.remove(9);
    assert_eq!(
        rollout_findings(&join(&l)).1,
        vec![err("orphan-completion", 10)]
    );
    l.insert(
        2,
        r#"{"timestamp":"2026-03-02T10:00:01.000Z","type":"compacted","payload":{"message":"","replacement_history":[]}}"#
            .to_owned(),
    );
    assert_eq!(
        rollout_findings(&join(&l)).1,
        vec![info("orphan-completion", 11)]
    );
    // A log stopped with a call in flight is whole.
    assert_eq!(rollout_findings(&join(&lines[..10])), (0, vec![]));
    // Another thread's `session_meta` is information; the same thread's is a resume.
    let mut l = lines.clone();
    l.push(lines[0].replace("2026-03-02T10:00:00.012Z", "2026-03-02T11:00:00.000Z"));
    assert_eq!(rollout_findings(&join(&l)), (0, vec![]));
    l.push(
        l[0].replace("0199a1b2-c3d4", "0199ffff-c3d4")
            .replace("10:00:00.012Z", "11:30:00.000Z"),
    );
    assert_eq!(
        rollout_findings(&join(&l)).1,
        vec![info("session-id-mismatch", 29)]
    );
    // Time that steps back within a thread's stretch.
    let mut l = lines.clone();
    l[10] = l[10].replace("10:00:06.900Z", "09:00:06.900Z");
    assert_eq!(
        rollout_findings(&join(&l)).1,
        vec![warn("timestamp-regression", 11)]
    );
}

#[test]
fn an_agent_homes_rollouts_are_read_as_codex_logs() {
    let home = crate::common::Scratch::new("codex-home");
    let day = home.join("sessions/2026/03/02");
    std::fs::create_dir_all(&day).unwrap();
    let text = join(&fixture_lines("agents/codex-log", "tool-run.jsonl"));
    let rollout =
        day.join("rollout-2026-03-02T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
    std::fs::write(&rollout, text).unwrap();
    std::fs::write(
        home.join("history.jsonl"),
        "{\"session_id\":\"s\",\"ts\":1,\"text\":\"hi\"}\n",
    )
    .unwrap();
    let mut cmd = crate::common::sjlint();
    cmd.env("CODEX_HOME", &*home)
        .args(["stats", "--format", "json"])
        .arg(&*home);
    let run = crate::common::run_cmd(cmd, None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{doc}");
    assert_eq!(files[0]["agent"], "codex");
    assert_eq!(files[0]["source"], "session-log");
    assert_eq!(stats_tokens(&files[0]), [9700, 242, 17000, 0, 80]);
}
