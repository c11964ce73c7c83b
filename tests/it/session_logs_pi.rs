//! The session files Pi keeps on disk (`~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl`),
//! read through the real binary: the corpus sample (`../shared/corpus/logs/pi/`) is recognised
//! as Pi's session log, not its stream, checks clean and counts the tokens and cost the notes'
//! "sjlint meaning" gives, derived here from the raw lines; a parent the file lacks, a result
//! of a call never opened, a head or a last line cut off and an entry type sjlint does not know
//! are each said as they should be; timestamps that step back are not; Pi's streams stay
//! streams.

use crate::common::agent::{common_of, findings_of, fixture_lines, fixtures, join, stats_of};
use crate::common::{check_json, corpus_dir, testdata};
use crate::session_logs::{logs_under, stats_tokens};
use serde_json::Value;

type Got = (String, String, u64);

fn got(rule: &str, severity: &str, line: u64) -> Got {
    (rule.to_owned(), severity.to_owned(), line)
}

/// Tokens and cost as the notes define them (`agents/logs/pi.md` §4), on the raw lines: every
/// assistant message's `usage` once, whatever branch it is on; `input`, `output`, `cacheRead`,
/// `cacheWrite` (and `reasoning`, inside output) as they are, missing ones 0; the cost the sum
/// of `cost.total`.
fn pi_tokens(text: &str) -> ([u64; 5], f64) {
    let mut sum = [0; 5];
    let mut cost = 0.0;
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let m = &v["message"];
        if v["type"] != "message" || m["role"] != "assistant" {
            continue;
        }
        let u = &m["usage"];
        for (i, k) in ["input", "output", "cacheRead", "cacheWrite", "reasoning"]
            .iter()
            .enumerate()
        {
            sum[i] += u[k].as_u64().unwrap_or(0);
        }
        cost += u["cost"]["total"].as_f64().unwrap_or(0.0);
    }
    (sum, cost)
}

fn assert_pi_log(stats: &Value, text: &str, what: &str) {
    assert_eq!(stats["agent"], "pi", "{what}: {stats}");
    assert_eq!(stats["source"], "session-log", "{what}");
    assert_eq!(stats["outcomes"]["no_result"], 0, "{what}");
    let (tokens, cost) = pi_tokens(text);
    assert_eq!(stats_tokens(stats), tokens, "{what}");
    let got = stats["cost_usd"].as_f64().unwrap_or(0.0);
    assert!((got - cost).abs() < 1e-9, "{what}: cost {got} != {cost}");
}

#[test]
fn the_pi_sample_is_a_clean_pi_log_with_the_notes_token_totals() {
    let Some(corpus) = corpus_dir() else { return };
    let files = logs_under(&corpus.join("logs/pi"));
    assert!(!files.is_empty());
    for f in &files {
        let p = f.to_str().unwrap();
        let (run, findings) = check_json(&[p], None);
        assert!(findings.is_empty(), "{p}: {findings:?}");
        assert_eq!(run.code, 0, "{}", run.describe());
        let text = std::fs::read_to_string(f).unwrap();
        assert!(pi_tokens(&text).0[0] > 0, "{p}: no usage to count");
        assert_pi_log(&stats_of(&[p], None), &text, p);
    }
}

#[test]
fn a_session_files_events_and_tokens_reach_every_consumer_once() {
    for name in ["tool-run.jsonl", "version-1.jsonl"] {
        let text = join(&fixture_lines("agents/pi-log", name));
        assert_eq!(findings_of(&text, name), (0, vec![]), "{name}");
        let stats = stats_of(&["--stdin-filename", name, "-"], Some(text.as_bytes()));
        assert_pi_log(&stats, &text, name);
    }
    let text = join(&fixture_lines("agents/pi-log", "tool-run.jsonl"));
    let events = common_of(&text, &["--stdin-filename", "s.jsonl"]);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "user_prompt",
            "thinking",
            "assistant_text",
            "tool_start",
            "usage",
            "tool_end",
            "assistant_text",
            "usage",
            // The branch left after `/tree`: billed, so counted.
            "assistant_text",
            "usage",
        ]
    );
    assert_eq!(events[0]["agent"], "pi");
    assert_eq!(
        events[0]["session_id"],
        "0b9e4c1a-6d2f-4e8b-9a71-3c5d7e9f1a2b"
    );
    assert_eq!(
        (&events[4]["call_id"], &events[6]["call_id"]),
        (&"toolu_01".into(), &"toolu_01".into())
    );
    assert_eq!(events[6]["ok"], true);
    // The common form checks clean as the common form.
    let form: String = events.iter().map(|e| format!("{e}\n")).collect();
    let (run, findings) = check_json(&["--agent", "common", "-"], Some(form.as_bytes()));
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(run.code, 0);
}

#[test]
fn a_broken_chain_an_orphan_result_and_a_cut_are_findings() {
    let dir = "agents/pi-log/findings";
    let of = |name: &str| findings_of(&join(&fixture_lines(dir, name)), name);
    assert_eq!(
        of("dangling-parent.jsonl"),
        (0, vec![got("dangling-parent", "warning", 6)])
    );
    assert_eq!(
        of("orphan-result.jsonl"),
        (1, vec![got("orphan-completion", "error", 5)])
    );
    let cut = std::fs::read_to_string(testdata(&format!("{dir}/cut.jsonl"))).unwrap();
    let (code, found) = findings_of(&cut, "cut.jsonl");
    assert_eq!(
        (code, found),
        (1, vec![got("truncated-record", "error", 10)])
    );
    // A head cut off: the file does not begin with its header.
    let lines = fixture_lines("agents/pi-log", "tool-run.jsonl");
    let (code, found) = findings_of(&join(&lines[1..]), "s.jsonl");
    assert_eq!((code, found), (0, vec![got("missing-init", "warning", 1)]));
}

#[test]
fn timestamps_stepping_back_are_no_finding() {
    let mut lines = fixture_lines("agents/pi-log", "tool-run.jsonl");
    lines[6] = lines[6].replace("2026-03-02T10:00:05.000Z", "2026-03-02T09:00:05.000Z");
    assert!(lines[6].contains("09:00:05"));
    assert_eq!(findings_of(&join(&lines), "s.jsonl"), (0, vec![]));
}

#[test]
fn an_entry_type_sjlint_does_not_know_is_one_counted_info() {
    let text = join(&fixture_lines("agents/pi-log/findings", "drift.jsonl"));
    assert_eq!(
        findings_of(&text, "drift.jsonl"),
        (0, vec![got("unknown-event-type", "info", 4)])
    );
    let stats = stats_of(&["--stdin-filename", "d.jsonl", "-"], Some(text.as_bytes()));
    assert_eq!(stats["findings"]["info"], 1);
    let unlisted = stats["not_in_schema"]["fields"].as_array().unwrap();
    assert!(
        unlisted
            .iter()
            .any(|u| u["type"] == "plan_snapshot" && u["field"].is_null()),
        "{unlisted:?}"
    );
    // The entry is kept in the chain: the line naming it as parent resolves.
    assert!(text.contains(r#""id":"0f0f0f0f""#));
    let named = text.replace(
        r#""parentId":"b2c3d4e5","timestamp":"2026-03-02T10:00:01.000Z""#,
        r#""parentId":"0f0f0f0f","timestamp":"2026-03-02T10:00:01.000Z""#,
    );
    assert_ne!(named, text);
    assert_eq!(findings_of(&named, "d.jsonl").1.len(), 1);
}

#[test]
fn pis_streams_stay_streams() {
    for f in fixtures("agents/pi") {
        let p = f.to_str().unwrap();
        let stats = stats_of(&[p], None);
        assert_eq!(stats["agent"], "pi", "{p}");
        assert_eq!(stats["source"], "stream", "{p}");
    }
}
