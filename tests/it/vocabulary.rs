//! One event vocabulary for every consumer, held through the real binary: one run of each agent
//! gives the same fields for the same facts in `fmt --to common`, the same event names and tool
//! kinds in `stats`, one line per tool call in `render`, events and the running call on the
//! status line, and `--max-open-calls` bounds every agent's checker.

use crate::common::{check_json, exec, rules_of, testdata};
use serde_json::Value;
use std::process::{Command, Stdio};

/// One run of each agent: (agent, fixture).
const RUNS: [(&str, &str); 5] = [
    (
        "cursor",
        "healthy/parallel-shell-calls-complete-out-of-order.ndjson",
    ),
    ("claude", "agents/claude/partial-messages.ndjson"),
    ("codex", "agents/codex/edit-and-answer.ndjson"),
    ("gemini", "agents/gemini/tool-run.ndjson"),
    ("grok", "agents/grok/tool-run.ndjson"),
];

const TYPES: [&str; 9] = [
    "session_start",
    "user_prompt",
    "assistant_text",
    "thinking",
    "tool_start",
    "tool_end",
    "usage",
    "error",
    "end",
];

const KINDS: [&str; 11] = [
    "shell",
    "read",
    "write",
    "edit",
    "search",
    "web_fetch",
    "web_search",
    "subagent",
    "todo",
    "mcp",
    "other",
];

fn common_of(path: &str) -> Vec<Value> {
    let run = exec(&["fmt", "--to", "common", path], None);
    assert_eq!(run.code, 0, "{path}: {}", run.describe());
    run.stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn of_type<'e>(events: &'e [Value], ty: &str) -> Vec<&'e Value> {
    events.iter().filter(|e| e["type"] == ty).collect()
}

/// The output of each run's tool calls, as the source gives it: (agent, call id, start of its
/// output).
const OUTPUTS: [(&str, &str, &str); 5] = [
    (
        "cursor",
        "toolu_01Tst6HjKlMn9BvCx1ZaQwEr",
        " ✓ src/cart.test.ts (12 tests)",
    ),
    ("claude", "toolu_01T3stRunAbc", "12 passed in 0.84s"),
    ("codex", "item_1", "pub fn add(a: i32, b: i32)"),
    (
        "gemini",
        "read_file__read_file_1791560742625_1",
        "[package]",
    ),
    (
        "grok",
        "call-7f1e2b90-1c4d-4e0a-9b7e-2f3a4c5d6e70-1",
        "fn parse() {}",
    ),
];

#[test]
fn fmt_to_common_fills_the_same_fields_for_every_agent() {
    for (agent, fixture) in RUNS {
        let p = testdata(fixture);
        let events = common_of(p.to_str().unwrap());
        let starts = of_type(&events, "session_start");
        assert!(!starts.is_empty(), "{agent}");
        for s in &starts {
            assert_eq!(s["v"], 1, "{agent}: {s}");
            assert_eq!(s["agent"], agent, "{agent}: {s}");
        }
        let tool_starts = of_type(&events, "tool_start");
        assert!(!tool_starts.is_empty(), "{agent}");
        for t in &tool_starts {
            assert!(
                t["args"].is_object() || t["args"].is_array(),
                "{agent}: tool_start without args: {t}"
            );
            assert!(t.get("text").is_none(), "{agent}: {t}");
            assert!(KINDS.contains(&t["tool_kind"].as_str().unwrap()), "{t}");
        }
        // A call's kind is the same on its start and its end.
        for e in of_type(&events, "tool_end") {
            let s = tool_starts
                .iter()
                .find(|s| s["call_id"] == e["call_id"])
                .unwrap_or_else(|| panic!("{agent}: {e} has no start"));
            assert_eq!(s["tool_kind"], e["tool_kind"], "{agent}: {e}");
        }
        let (_, id, output) = OUTPUTS.iter().find(|o| o.0 == agent).unwrap();
        let end = of_type(&events, "tool_end")
            .into_iter()
            .find(|e| e["call_id"] == *id)
            .unwrap_or_else(|| panic!("{agent}: no tool_end of {id}"));
        assert!(
            end["text"].as_str().unwrap_or_default().starts_with(output),
            "{agent}: the tool's output on its tool_end: {end}"
        );
        let ends = of_type(&events, "end");
        assert_eq!(ends.len(), 1, "{agent}");
        let end = ends[0];
        assert!(end["session_id"].is_string(), "{agent}: {end}");
        assert!(
            !end["text"].as_str().unwrap_or_default().is_empty(),
            "{agent}: the result text on end: {end}"
        );
        // Where the first record names the session, its start says it as the end does.
        if agent != "grok" {
            assert_eq!(starts[0]["session_id"], end["session_id"], "{agent}");
        }
    }
}

#[test]
fn codex_puts_the_command_in_args() {
    let p = testdata("agents/codex/edit-and-answer.ndjson");
    let events = common_of(p.to_str().unwrap());
    let start = of_type(&events, "tool_start")
        .into_iter()
        .find(|e| e["call_id"] == "item_1")
        .unwrap();
    assert_eq!(
        start["args"],
        serde_json::json!({"command": "bash -lc 'cat src/lib.rs'"})
    );
    let end = of_type(&events, "end")[0];
    assert_eq!(end["session_id"], "0199f3a2-5b1e-7c40-9d2e-4e1f0a6b7c88");
    assert_eq!(end["text"], "`add` subtracted; it adds now.");
}

#[test]
fn stats_names_events_and_tools_alike_for_every_agent() {
    let mut shell_names = Vec::new();
    for (agent, fixture) in RUNS {
        let p = testdata(fixture);
        let run = exec(&["stats", "--format", "json", p.to_str().unwrap()], None);
        assert_eq!(run.code, 0, "{agent}: {}", run.describe());
        let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
        let f = &doc["files"][0];
        assert_eq!(f["agent"], agent);
        let events = f["events"].as_array().unwrap();
        for e in events {
            assert!(TYPES.contains(&e["type"].as_str().unwrap()), "{agent}: {e}");
            assert!(e["subtype"].is_null(), "{agent}: {e}");
        }
        for ty in ["session_start", "tool_start", "tool_end", "end"] {
            assert!(
                events.iter().any(|e| e["type"] == ty),
                "{agent}: no {ty} in {events:?}"
            );
        }
        let tools = f["tool_calls"].as_array().unwrap();
        for t in tools {
            assert!(KINDS.contains(&t["kind"].as_str().unwrap()), "{agent}: {t}");
            let named: u64 = t["names"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["count"].as_u64().unwrap())
                .sum();
            assert_eq!(named, t["count"].as_u64().unwrap(), "{agent}: {t}");
        }
        let shell = tools
            .iter()
            .find(|t| t["kind"] == "shell")
            .unwrap_or_else(|| panic!("{agent}: no shell calls in {tools:?}"));
        shell_names.push(shell["names"][0]["name"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        shell_names,
        [
            "shellToolCall",
            "Bash",
            "command_execution",
            "run_shell_command",
            "run_terminal_command"
        ]
    );
}

/// The `--plain` lines of a call (the `text` output format's wording).
fn is_plain_call(line: &str) -> bool {
    [
        "Ran terminal command",
        "Read file",
        "Edited file",
        "Created new file",
    ]
    .contains(&line)
        || line.starts_with("Used tool ")
}

#[test]
fn render_has_one_line_per_tool_call_for_every_agent() {
    for (agent, fixture) in RUNS {
        let p = testdata(fixture);
        let p = p.to_str().unwrap();
        let calls = of_type(&common_of(p), "tool_end").len();
        assert!(calls > 0, "{agent}");
        let plain = exec(&["render", "--plain", p], None).stdout();
        let lines = plain.lines().filter(|l| is_plain_call(l)).count();
        assert_eq!(lines, calls, "{agent}: render --plain\n{plain}");
        let out = exec(&["render", p], None).stdout();
        let lines = out.lines().filter(|l| l.starts_with("→ ")).count();
        assert_eq!(lines, calls, "{agent}: render\n{out}");
        // Each line says what the call did in the same words for every agent.
        assert!(
            out.lines()
                .any(|l| l.starts_with("→ Ran `") || l.starts_with("→ Failed: run `")),
            "{agent}: a shell call's line\n{out}"
        );
    }
}

/// A Claude Code stream with three calls open at once, then their results.
fn claude_with_three_open_calls() -> Vec<u8> {
    let text = std::fs::read_to_string(testdata("agents/claude/partial-messages.ndjson")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = vec![lines[0].to_owned()];
    for record in [lines[10], lines[15]] {
        for id in ["a", "b", "c"] {
            out.push(record.replace("toolu_01T3stRunAbc", &format!("toolu_{id}")));
        }
    }
    out.push(lines[24].to_owned());
    (out.join("\n") + "\n").into_bytes()
}

#[test]
fn max_open_calls_bounds_every_agents_checker() {
    let input = claude_with_three_open_calls();
    let (run, findings) = check_json(&["-"], Some(&input));
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(findings.is_empty(), "{findings:?}");
    let (_, findings) = check_json(&["--max-open-calls", "2", "-"], Some(&input));
    assert_eq!(
        rules_of(&findings).into_iter().collect::<Vec<_>>(),
        ["too-many-open-calls"],
        "{findings:?}"
    );
    assert_eq!(findings.len(), 1, "said once");
    assert_eq!(findings[0].line, 4, "the third call");
    assert!(findings[0].message.contains("more than 2 tool calls"));
}

#[test]
fn a_newer_common_form_is_read_with_a_note() {
    let p = testdata("agents/gemini/tool-run.ndjson");
    let run = exec(&["fmt", "--to", "common", p.to_str().unwrap()], None);
    let newer = run.stdout().replacen("\"v\":1,", "\"v\":2,", 1);
    let (_, findings) = check_json(&["--agent", "common", "-"], Some(newer.as_bytes()));
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].severity, "info");
    assert!(findings[0].message.contains("version 2"), "{findings:?}");
    let (_, findings) = check_json(&["--agent", "common", "-"], Some(&run.stdout));
    assert!(findings.is_empty(), "{findings:?}");
}

/// The status line of `check --tee` on a terminal (`script` from util-linux makes one), fed a
/// Claude Code stream that pauses while its call runs.
#[test]
fn the_status_line_counts_events_and_shows_the_running_call_of_a_claude_stream() {
    let dir = std::env::temp_dir().join(format!("sjlint-vocab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(testdata("agents/claude/partial-messages.ndjson")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Up to the `tool_use` of `Bash`, then its result and the rest.
    let (a, b) = lines.split_at(11);
    std::fs::write(dir.join("a.ndjson"), a.join("\n") + "\n").unwrap();
    std::fs::write(dir.join("b.ndjson"), b.join("\n") + "\n").unwrap();
    let typescript = dir.join("typescript");
    let inner = format!(
        "(cat {0}/a.ndjson; sleep 1.5; cat {0}/b.ndjson) | {1} check --tee --color never > /dev/null",
        dir.display(),
        env!("CARGO_BIN_EXE_sjlint"),
    );
    let Ok(status) = Command::new("script")
        .args(["-q", "-f", "-e", "-c", &inner])
        .arg(&typescript)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
    else {
        eprintln!("skipped: no script(1) here");
        return;
    };
    assert!(status.success(), "{status:?}");
    let screen = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    // The first eleven records give three common events while the call runs: the session's
    // start, the text and the call's start (the message's usage follows once it is complete).
    assert!(
        screen.contains(" · 3 events · ") || screen.contains(" · 4 events · "),
        "{screen:?}"
    );
    assert!(screen.contains(" · running Bash "), "{screen:?}");
    assert!(
        screen.contains("No problems found in 1 file (Claude Code)"),
        "{screen:?}"
    );
}

/// Codex and Grok Build results say nothing of how long the run took: `stats` says so, rather
/// than a duration of 0 ms; an agent that reports it is summed as before.
#[test]
fn stats_says_when_no_result_reported_a_duration() {
    for (file, want) in [
        (
            "testdata/agents/codex/edit-and-answer.ndjson",
            "none reported",
        ),
        ("testdata/agents/grok/tool-run.ndjson", "none reported"),
        ("testdata/agents/gemini/tool-run.ndjson", "14.5 s"),
    ] {
        let run = crate::common::exec(&["stats", file], None);
        let line = run
            .stdout()
            .lines()
            .find(|l| l.trim_start().starts_with("duration"))
            .map(str::to_owned)
            .unwrap_or_default();
        assert!(line.ends_with(want), "{file}: {line:?}");
    }
}
