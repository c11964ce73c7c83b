//! The session events Copilot CLI keeps on disk (`~/.copilot/session-state/<id>/events.jsonl`,
//! 0.0.4xx's flat `session-state/<id>.jsonl`), read through the real binary as a user points
//! sjlint at them: the healthy samples of the corpus (`../shared/corpus/logs/copilot/`) are
//! recognised as Copilot CLI's session log and check clean, the drift sample gets the findings
//! its notes name and no others, and each counts the tokens the format notes' rules give,
//! derived here from the raw lines; the fixtures' broken shapes are said as they should be, and
//! Copilot CLI's streams are still read as streams.

use crate::common::agent::{common_of, findings_of, fixture_lines, fixture_text, join, stats_of};
use crate::common::{check_json, corpus_dir};
use serde_json::Value;
use std::path::PathBuf;

const FIXTURES: &str = "agents/copilot-log";

/// The corpus sample of agent-sessions named `name` (`small`, `large`, `schema_drift`).
fn sample(name: &str) -> Option<PathBuf> {
    let dir = corpus_dir()?.join("logs/copilot");
    let file = dir.join(format!(
        "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__copilot__{name}.jsonl"
    ));
    assert!(file.is_file(), "{}", file.display());
    Some(file)
}

/// Tokens as the notes define them (`agents/logs/copilot.md` §4), computed here on the raw
/// lines: each `session.shutdown`'s `tokenDetails` when it has them, else the sum over
/// `modelMetrics` of each model's `usage`, input less its cache reads and writes; nothing else
/// counts. `None` when no line is a shutdown with either. In sjlint's order: input, output,
/// cache read, cache write.
fn derived_tokens(text: &str) -> Option<[u64; 4]> {
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let mut sum: Option<[u64; 4]> = None;
    for line in text.lines() {
        let Ok(r) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if r["type"] != "session.shutdown" {
            continue;
        }
        let d = &r["data"];
        let t = &d["tokenDetails"];
        let counts = if t.is_object() {
            ["input", "output", "cache_read", "cache_write"].map(|k| n(&t[k]["tokenCount"]))
        } else {
            let Some(models) = d["modelMetrics"].as_object() else {
                continue;
            };
            let mut c: Option<[u64; 4]> = None;
            for m in models.values().filter(|m| m["usage"].is_object()) {
                let u = &m["usage"];
                let (read, write) = (n(&u["cacheReadTokens"]), n(&u["cacheWriteTokens"]));
                let add = [
                    n(&u["inputTokens"]) - read - write,
                    n(&u["outputTokens"]),
                    read,
                    write,
                ];
                let c = c.get_or_insert([0; 4]);
                for (s, x) in c.iter_mut().zip(add) {
                    *s += x;
                }
            }
            let Some(c) = c else { continue };
            c
        };
        let s = sum.get_or_insert([0; 4]);
        for (s, x) in s.iter_mut().zip(counts) {
            *s += x;
        }
    }
    sum
}

/// The four counts of `stats`, or `None` when the log reported no usage (no `usage` event: its
/// zeros are no claim).
fn stats_tokens(stats: &Value) -> Option<[u64; 4]> {
    let events = stats["events"].as_array().unwrap();
    if !events.iter().any(|e| e["type"] == "usage") {
        return None;
    }
    let u = &stats["usage"];
    Some(
        [
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
        ]
        .map(|k| u[k].as_u64().unwrap_or_else(|| panic!("usage.{k}: {u}"))),
    )
}

/// `(rule, severity, line)` of each finding of `check` on the file `path`, and its exit code.
fn findings_in(path: &str) -> (i32, Vec<(String, String, u64)>) {
    let (run, findings) = check_json(&[path], None);
    let got = findings
        .into_iter()
        .map(|f| (f.rule, f.severity, f.line))
        .collect();
    (run.code, got)
}

fn got(rule: &str, severity: &str, line: u64) -> (String, String, u64) {
    (rule.to_owned(), severity.to_owned(), line)
}

#[test]
fn the_healthy_samples_are_clean_copilot_logs_with_the_notes_token_totals() {
    for name in ["small", "large"] {
        let Some(file) = sample(name) else { return };
        let p = file.to_str().unwrap();
        let (code, findings) = findings_in(p);
        // Information only, for the types the notes do not name.
        for f in &findings {
            assert_eq!((f.0.as_str(), f.1.as_str()), ("unknown-event-type", "info"));
        }
        assert_eq!(code, 0, "{p}: {findings:?}");

        let stats = stats_of(&[p], None);
        assert_eq!(stats["agent"], "copilot", "{p}: {stats}");
        assert_eq!(stats["source"], "session-log", "{p}");
        assert_eq!(stats["outcomes"]["no_result"], 0, "{p}");
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(stats_tokens(&stats), derived_tokens(&text), "{p}");
    }
    // The 1.0.77 sample has `tokenDetails`; the 0.0.420 one has no shutdown, so no tokens.
    let small = std::fs::read_to_string(sample("small").unwrap()).unwrap();
    assert!(derived_tokens(&small).is_some());
    let large = std::fs::read_to_string(sample("large").unwrap()).unwrap();
    assert_eq!(derived_tokens(&large), None);
}

#[test]
fn the_drift_sample_gets_the_faults_its_notes_name_and_its_additive_types_pass() {
    let Some(file) = sample("schema_drift") else {
        return;
    };
    let p = file.to_str().unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let line_of = |f: &dyn Fn(&Value) -> bool| 1 + lines.iter().position(f).unwrap() as u64;
    // The chain branches: e2b and e3 both under e2; e3 is where it shows.
    let fork = line_of(&|r| r["id"] == "e3");
    assert_eq!(lines[fork as usize - 1]["parentId"], "e2");
    // call_1 starts before the message requesting it.
    let request = line_of(&|r| {
        r["type"] == "assistant.message" && r["data"]["toolRequests"][0]["toolCallId"] == "call_1"
    });
    assert!(request > line_of(&|r| r["type"] == "tool.execution_start"));
    // call_2 completes with no start.
    let orphan = line_of(&|r| r["data"]["toolCallId"] == "call_2");
    let (code, findings) = findings_in(p);
    assert_eq!(
        findings,
        [
            got("dangling-parent", "warning", fork),
            got("orphan-completion", "info", request),
            got("orphan-completion", "error", orphan),
        ]
    );
    assert_eq!(code, 1);

    let stats = stats_of(&[p], None);
    assert_eq!(stats["agent"], "copilot");
    // modelMetrics only: input 1000 holds the 800 cache reads.
    assert_eq!(stats_tokens(&stats), derived_tokens(&text));
    assert_eq!(derived_tokens(&text), Some([200, 50, 800, 0]));
}

#[test]
fn a_tool_run_counts_its_shutdown_once_and_carries_its_subagents_parent() {
    let text = fixture_text(FIXTURES, "tool-run.jsonl");
    assert_eq!(findings_of(&text, "events.jsonl"), (0, vec![]));
    let stats = stats_of(
        &["--stdin-filename", "events.jsonl", "-"],
        Some(text.as_bytes()),
    );
    assert_eq!(stats["agent"], "copilot");
    assert_eq!(stats["source"], "session-log");
    assert_eq!(stats_tokens(&stats), derived_tokens(&text));
    // tokenDetails agree with the models' usage net of the cache.
    assert_eq!(derived_tokens(&text), Some([830, 80, 12000, 9200]));

    let events = common_of(&text, &["--stdin-filename", "events.jsonl"]);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "user_prompt",
            "assistant_text",
            "tool_start",
            "tool_end",
            "tool_start",
            "assistant_text",
            "tool_start",
            "tool_end",
            "assistant_text",
            "tool_end",
            "assistant_text",
            "usage"
        ]
    );
    assert_eq!(events[0]["agent"], "copilot");
    assert_eq!(events[0]["cwd"], "/home/dev/app");
    // The subagent's events name the call that spawned it; the main thread's none.
    for (i, e) in events.iter().enumerate() {
        let sub = (6..=9).contains(&i);
        assert_eq!(e["parent"] == "toolu_02", sub, "{i}: {e}");
        assert_eq!(e["parent"].is_null(), !sub, "{i}: {e}");
    }
    assert_eq!(events[4]["tool_kind"], "shell");
    assert_eq!(events[4]["ok"], true);
}

#[test]
fn a_resumed_file_counts_each_runs_shutdown() {
    let text = fixture_text(FIXTURES, "resumed.jsonl");
    assert_eq!(findings_of(&text, "events.jsonl"), (0, vec![]));
    let stats = stats_of(
        &["--stdin-filename", "events.jsonl", "-"],
        Some(text.as_bytes()),
    );
    // The first run's modelMetrics (5000 − 3000 − 1500), the second's tokenDetails (400).
    assert_eq!(derived_tokens(&text), Some([900, 23, 7800, 1500]));
    assert_eq!(stats_tokens(&stats), derived_tokens(&text));
    // One session: the resume goes on with it.
    assert_eq!(stats["sessions"], 1, "{stats}");
}

#[test]
fn a_last_line_cut_mid_way_is_truncated_and_nothing_else() {
    let text = fixture_text(FIXTURES, "broken/cut-last-line.jsonl");
    assert!(!text.ends_with('\n'));
    let (code, got) = findings_of(&text, "events.jsonl");
    let lines = text.lines().count() as u64;
    assert_eq!(
        got,
        [("truncated-record".to_owned(), "error".to_owned(), lines)]
    );
    assert_eq!(code, 1);
    // The same log stopped after a whole record is whole: a log has no end marker.
    let whole = &text[..=text.rfind('\n').unwrap()];
    assert_eq!(findings_of(whole, "events.jsonl"), (0, vec![]));
}

#[test]
fn a_broken_chain_is_said_where_it_breaks() {
    let text = fixture_text(FIXTURES, "broken/broken-chain.jsonl");
    let healthy = fixture_lines(FIXTURES, "resumed.jsonl");
    // Line 7 names a record the file lacks; line 13 names the record two before it.
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[6].contains(r#""parentId":"r-66""#));
    assert!(lines[12].contains(r#""parentId":"r-11""#));
    assert_eq!(lines.len(), healthy.len());
    let (code, got) = findings_of(&text, "events.jsonl");
    assert_eq!(
        got,
        [
            ("dangling-parent".to_owned(), "warning".to_owned(), 7),
            ("dangling-parent".to_owned(), "warning".to_owned(), 13),
        ]
    );
    assert_eq!(code, 0);

    // A hook beside the chain is no branch; a second branch is not said again.
    let mut lines = healthy.clone();
    lines.insert(
        2,
        r#"{"type":"hook.start","data":{"hookInvocationId":"h-1","hookType":"userPromptSubmitted"},"id":"r-02a","timestamp":"2026-03-03T09:00:01.500Z","parentId":"r-02"}"#.to_owned(),
    );
    assert!(lines[3].contains(r#""parentId":"r-02""#));
    lines[5] = lines[5].replace(r#""parentId":"r-04""#, r#""parentId":"r-03""#);
    lines[8] = lines[8].replace(r#""parentId":"r-07""#, r#""parentId":"r-06""#);
    let (code, got) = findings_of(&join(&lines), "events.jsonl");
    assert_eq!(
        got,
        [("dangling-parent".to_owned(), "warning".to_owned(), 6)]
    );
    assert_eq!(code, 0);
}

#[test]
fn a_type_the_notes_do_not_name_is_one_counted_info_and_its_record_is_kept() {
    let mut lines = fixture_lines(FIXTURES, "resumed.jsonl");
    lines.insert(
        2,
        r#"{"type":"session.canvas_opened","data":{"canvasId":"c-1"},"id":"r-02x","timestamp":"2026-03-03T09:00:01.500Z","parentId":"r-02"}"#.to_owned(),
    );
    lines[3] = lines[3].replace(r#""parentId":"r-02""#, r#""parentId":"r-02x""#);
    let text = join(&lines);
    let (code, got) = findings_of(&text, "events.jsonl");
    assert_eq!(
        got,
        [("unknown-event-type".to_owned(), "info".to_owned(), 3)]
    );
    assert_eq!(code, 0);
    let stats = stats_of(
        &["--stdin-filename", "events.jsonl", "-"],
        Some(text.as_bytes()),
    );
    assert_eq!(stats["findings"]["info"], 1, "{}", stats["findings"]);
    let unlisted = stats["not_in_schema"]["fields"].as_array().unwrap();
    assert!(
        unlisted
            .iter()
            .any(|u| u["type"] == "session.canvas_opened" && u["field"].is_null()),
        "{unlisted:?}"
    );
}

#[test]
fn copilot_streams_are_still_read_as_streams() {
    for name in [
        "minimal.ndjson",
        "shutdown-totals.ndjson",
        "tool-run.ndjson",
    ] {
        let text = fixture_text("agents/copilot", name);
        let stats = stats_of(&["--stdin-filename", name, "-"], Some(text.as_bytes()));
        assert_eq!(stats["agent"], "copilot", "{name}");
        assert_eq!(stats["source"], "stream", "{name}");
    }
    // And a log is a log only by its content: read as the stream on purpose, it has no `result`.
    let text = fixture_text(FIXTURES, "tool-run.jsonl");
    let (run, findings) = check_json(&["--agent", "copilot", "-"], Some(text.as_bytes()));
    assert!(
        findings.iter().any(|f| f.rule == "missing-result"),
        "{findings:?}"
    );
    assert_eq!(run.code, 1);
}

#[test]
fn render_and_report_read_a_log_and_escape_its_text() {
    let dir = crate::common::Scratch::new("copilot-log-report");
    // A prompt holding markup and a terminal escape: neither reaches an output as it is.
    let text = fixture_text(FIXTURES, "tool-run.jsonl").replace(
        "How many lines are in README.md?",
        "<script>alert(1)</script> \\u001b[31mred",
    );
    let log = dir.join("events.jsonl");
    std::fs::write(&log, &text).unwrap();
    let log = log.to_str().unwrap();

    let run = crate::common::exec(&["render", log], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let shown = String::from_utf8(run.stdout.clone()).unwrap();
    assert!(shown.contains("README.md has 42 lines"), "{shown}");
    assert!(shown.contains("<script>"), "{shown}");
    assert!(!shown.contains('\u{1b}'), "{shown:?}");

    let page = dir.join("page.html");
    let run = crate::common::exec(&["report", log, "-o", page.to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("README.md has 42 lines"));
    assert!(!html.contains("<script>alert(1)</script>"));
    assert!(html.contains("&lt;script&gt;"));
}

#[test]
fn a_copilot_homes_logs_are_read_as_copilot_logs() {
    let home = crate::common::Scratch::new("copilot-home");
    // 1.0.x: a folder a session; 0.0.4xx: a flat file a session.
    let folder = home.join("session-state/5d0c7e0a-3f6b-4c1e-9b2a-7e8f9a0b1c2d");
    std::fs::create_dir_all(&folder).unwrap();
    let text = fixture_text(FIXTURES, "tool-run.jsonl");
    std::fs::write(folder.join("events.jsonl"), &text).unwrap();
    let flat = fixture_text(FIXTURES, "resumed.jsonl");
    std::fs::write(
        home.join("session-state/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"),
        &flat,
    )
    .unwrap();
    let run = crate::common::exec(&["stats", "--format", "json", home.to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{doc}");
    for f in files {
        assert_eq!(f["agent"], "copilot", "{f}");
        assert_eq!(f["source"], "session-log", "{f}");
    }
    let tokens: Vec<_> = files.iter().map(stats_tokens).collect();
    assert!(tokens.contains(&derived_tokens(&text)), "{tokens:?}");
    assert!(tokens.contains(&derived_tokens(&flat)), "{tokens:?}");
}
