//! What a new user meets on the first day, through the real binary: a run that read nothing
//! does not say "No problems found"; a stream of another agent's output format, or of no agent
//! sjlint knows, is said once and up front, in `check` and in `render`; a Claude Code stream with
//! partial messages is counted from what its result reports; one fact gets one finding (no
//! cascade of the same mismatch or stray event); counts read as English.

use crate::common::*;
use std::path::{Path, PathBuf};

const CLAUDE_PARTIAL: &str = "testdata/agents/claude/partial-messages.ndjson";

/// A fresh directory under the target's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("first-day-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn sample() -> String {
    std::fs::read_to_string(testdata("sample.ndjson")).unwrap()
}

// ------------------------------------------------------------------------------------------
// Honest results.

#[test]
fn a_run_that_read_nothing_does_not_say_no_problems() {
    let dir = scratch("unreadable");
    let missing = dir.join("run1.ndjson");
    let run = exec(&["check", missing.to_str().unwrap()], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(run.stderr().contains("cannot read"), "{}", run.describe());
    assert!(
        !run.stdout().contains("No problems found"),
        "{}",
        run.describe()
    );
    assert_eq!(run.stdout(), "Nothing checked: no input could be read\n");
}

/// A named directory that holds no stream is said even when other paths hold some: a CI job
/// that names two folders must not pass silently having checked one.
#[test]
fn a_named_directory_without_streams_is_warned_about() {
    let dir = scratch("half-empty");
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(logs.join("run1.log"), "Error: not authenticated\n").unwrap();
    let runs = dir.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::write(runs.join("run.ndjson"), sample()).unwrap();
    for command in ["check", "stats"] {
        let run = exec(
            &[command, logs.to_str().unwrap(), runs.to_str().unwrap()],
            None,
        );
        assert_eq!(run.code, 0, "{}", run.describe());
        assert!(
            run.stderr().contains(&format!(
                "sjlint: warning: `{}` holds no file matching *.ndjson, *.jsonl, *.json, *.ndjson.zst, *.jsonl.zst",
                logs.display()
            )) && run.stderr().contains("nothing in it was checked"),
            "{}",
            run.describe()
        );
        assert!(
            !run.stderr().contains(&runs.display().to_string()),
            "{}",
            run.describe()
        );
    }
}

// ------------------------------------------------------------------------------------------
// Streams sjlint does not check, said once.

/// A capture of Claude Code with `--include-partial-messages`: `stream_event` lines, a message
/// split over two assistant lines that repeat its early `usage`, a `tool_use` answered by a
/// `tool_result`, a `rate_limit_event`, and a result whose keys do not start with `type`.
#[test]
fn a_claude_stream_with_partial_messages_is_checked_and_counted_right() {
    let (run, findings) = check_json(&["--strict", "--level", "info", CLAUDE_PARTIAL], None);
    assert!(findings.is_empty(), "{}", show(&findings));
    assert_eq!(run.code, 0);

    // Tokens are the result's usage (the assistant lines say 1 output token each).
    let run = exec(&["stats", "--format", "json", CLAUDE_PARTIAL], None);
    let s: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let usage = &s["files"][0]["usage"];
    assert_eq!(usage["results"], 1, "{usage}");
    assert_eq!(usage["input_tokens"], 5, "{usage}");
    assert_eq!(usage["output_tokens"], 57, "{usage}");
    assert_eq!(usage["cache_read_tokens"], 38174, "{usage}");
    assert_eq!(usage["cache_write_tokens"], 6142, "{usage}");
    let table = exec(&["stats", CLAUDE_PARTIAL], None).stdout();
    assert!(
        table.contains(
            "  tokens    5 in, 57 out, 38,174 cache read, 6,142 cache write (1 result)\n"
        ),
        "{table}"
    );
    // A duration the results did not give is not "0 ms".
    assert!(table.contains("  duration  8.4 s\n"), "{table}");
    assert!(!table.contains("api 0 ms"), "{table}");

    let out = exec(&["render", "--color", "never", CLAUDE_PARTIAL], None).stdout();
    assert!(
        out.ends_with(
            "✓ completed in 8.4 s · tokens: 5 in, 57 out, 38,174 cache read, 6,142 cache write · $0.0431\n"
        ),
        "{out}"
    );
    assert_eq!(out.matches("All 12 tests pass.").count(), 1, "{out}");

    // The tool_result deleted: one finding, for the call it answered.
    let text = std::fs::read_to_string(testdata("agents/claude/partial-messages.ndjson")).unwrap();
    let cut: String = text
        .lines()
        .filter(|l| !l.contains("\"tool_result\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let (run, findings) = check_json(&[], Some(cut.as_bytes()));
    assert_eq!(run.code, 1);
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    assert_eq!(findings[0].rule, "unfinished-tool-call");
    assert_eq!(findings[0].line, 11);
}

/// A Claude Code session that ends without its result still has the tokens its messages
/// reported, said as such.
#[test]
fn a_claude_session_without_result_counts_its_messages() {
    let text = std::fs::read_to_string(testdata("agents/claude/partial-messages.ndjson")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cut = lines[..lines.len() - 1].join("\n") + "\n";
    let table = exec(&["stats"], Some(cut.as_bytes())).stdout();
    assert!(
        table.contains("  tokens    5 in, 2 out, 38,174 cache read, 6,142 cache write (no result reported them; counted from the messages)\n"),
        "{table}"
    );
}

/// `claude -p --output-format json` writes one `result` line: that is its whole output, as for
/// cursor-agent, and valid. Anything after it makes the missing init a finding again.
#[test]
fn claude_output_format_json_is_a_valid_lone_result() {
    let text = std::fs::read_to_string(testdata("agents/claude/partial-messages.ndjson")).unwrap();
    let result = text.lines().last().unwrap();
    let (run, findings) = check_json(&["--strict"], Some(format!("{result}\n").as_bytes()));
    assert!(findings.is_empty(), "{}", show(&findings));
    assert_eq!(run.code, 0);
    let summary = exec(&["check"], Some(format!("{result}\n").as_bytes())).stdout();
    assert!(summary.contains("(Claude Code)"), "{summary}");

    let assistant = text
        .lines()
        .find(|l| l.starts_with("{\"type\":\"assistant\""))
        .unwrap();
    let (_, findings) = check_json(&[], Some(format!("{result}\n{assistant}\n").as_bytes()));
    assert_eq!(
        lines_of(&findings, "missing-init"),
        [1],
        "{}",
        show(&findings)
    );
}

const GEMINI_JSON: &str = r#"{
  "response": "The build passes.",
  "stats": {
    "models": {
      "gemini-2.5-pro": {
        "api": { "totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 1900 },
        "tokens": { "prompt": 812, "candidates": 14, "total": 826, "cached": 0, "thoughts": 0, "tool": 0 }
      }
    },
    "tools": { "totalCalls": 0, "totalSuccess": 0, "totalFail": 0, "totalDurationMs": 0, "totalDecisions": {}, "byName": {} },
    "files": { "totalLinesAdded": 0, "totalLinesRemoved": 0 }
  }
}
"#;

/// Gemini CLI's `--output-format json` is one pretty-printed object: one finding that names
/// it, not one per line.
#[test]
fn gemini_output_format_json_is_one_finding_naming_it() {
    let (run, findings) = check_json(&[], Some(GEMINI_JSON.as_bytes()));
    assert_eq!(run.code, 1);
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    let f = &findings[0];
    assert_eq!((f.rule.as_str(), f.line), ("invalid-json", 1));
    assert_eq!(
        f.message,
        "the input is one pretty-printed JSON object (13 lines), not a stream of one JSON event per line"
    );
    assert!(
        f.help
            .as_deref()
            .unwrap_or("")
            .contains("Gemini CLI's `--output-format json`"),
        "{:?}",
        f.help
    );

    // Any other pretty-printed object: the same one finding, with the way to one line.
    let pretty = "{\n  \"type\": \"result\",\n  \"subtype\": \"success\"\n}\n";
    let (_, findings) = check_json(&[], Some(pretty.as_bytes()));
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    assert!(
        findings[0]
            .help
            .as_deref()
            .unwrap_or("")
            .contains("jq -c ."),
        "{:?}",
        findings[0].help
    );
}

/// `claude -p --output-format json --verbose` writes the run's events as one JSON array on one
/// line: the one finding says what that is.
#[test]
fn claude_verbose_json_array_is_named() {
    let text = std::fs::read_to_string(testdata("agents/claude/partial-messages.ndjson")).unwrap();
    let array = format!(
        "[{}]\n",
        text.lines()
            .filter(|l| !l.contains("\"stream_event\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let (_, findings) = check_json(&[], Some(array.as_bytes()));
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    assert_eq!(findings[0].rule, "not-an-object");
    assert!(
        findings[0]
            .help
            .as_deref()
            .unwrap_or("")
            .contains("--output-format json --verbose"),
        "{:?}",
        findings[0].help
    );
}

const TRUST_PROMPT: &str = "⚠ Workspace Trust Required\n\nCursor Agent can execute code in this directory.\n\nRun with --trust to continue.\n";

/// A stream of an agent sjlint does not know: one finding up front, and `render` says the
/// same once instead of a session that "ends before its result".
#[test]
fn an_unknown_agent_is_said_once_in_check_and_render() {
    let stream = concat!(
        r#"{"type":"run_started","run_id":"run_1","at":"2026-01-01T00:00:00Z"}"#,
        "\n",
        r#"{"type":"assistant_chunk","run_id":"run_1","content":"Hello"}"#,
        "\n",
        r#"{"type":"run_finished","run_id":"run_1","status":"ok"}"#,
        "\n",
    );
    let (_, findings) = check_json(&[], Some(stream.as_bytes()));
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    assert_eq!(
        (findings[0].rule.as_str(), findings[0].line),
        ("unknown-agent", 1)
    );

    let out = exec(&["render", "--color", "never"], Some(stream.as_bytes())).stdout();
    assert_eq!(
        out,
        "! no agent sjlint knows writes events like this one (`type` \"run_started\"); the stream is not checked beyond its framing\n"
    );
}

/// `render` of an input with no event says what `check`'s headline says, once, in place of a
/// marker per line; of one pretty-printed document, the same.
#[test]
fn render_says_once_what_the_whole_input_is() {
    let out = exec(
        &["render", "--color", "never"],
        Some(TRUST_PROMPT.as_bytes()),
    )
    .stdout();
    assert_eq!(
        out,
        "! no events: the input is 3 lines of plain text, so the agent never wrote its stream; it printed \"⚠ Workspace Trust Required\"\n  \"Cursor Agent can execute code in this directory.\" (line 3)\n  \"Run with --trust to continue.\" (line 5)\n"
    );
    let out = exec(
        &["render", "--color", "never"],
        Some(GEMINI_JSON.as_bytes()),
    )
    .stdout();
    assert_eq!(
        out,
        "! the input is one pretty-printed JSON object (13 lines), not a stream of one JSON event per line\n"
    );
    // Text before the events of a stream: each line is marked with what it says.
    let input = format!("warn: slow network\n{}", sample());
    let out = exec(&["render", "--color", "never"], Some(input.as_bytes())).stdout();
    assert!(
        out.starts_with("! line 1: warn: slow network\n\nsession "),
        "{out}"
    );
}

/// `stats` of an input with no event names no agent, and such an input does not make the
/// total of the other inputs "mixed".
#[test]
fn stats_of_an_input_with_no_event_names_no_agent() {
    let dir = scratch("stats-no-event");
    let trust = dir.join("trust.ndjson");
    std::fs::write(&trust, TRUST_PROMPT).unwrap();
    let run = exec(&["stats", trust.to_str().unwrap()], None);
    assert!(
        run.stdout()
            .contains("\n  agent     none: the input holds no event\n"),
        "{}",
        run.describe()
    );
    let sample = testdata("sample.ndjson");
    let run = exec(
        &[
            "stats",
            "--format",
            "json",
            trust.to_str().unwrap(),
            sample.to_str().unwrap(),
        ],
        None,
    );
    let s: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(s["files"][0]["agent"], serde_json::Value::Null);
    assert_eq!(s["total"]["agent"], "cursor", "{s}");
}

// ------------------------------------------------------------------------------------------
// Cascades: one fact, one finding.

#[test]
fn a_wrong_session_id_is_reported_once_not_on_every_event() {
    // The init names another session than every event after it.
    let sample = sample();
    let edited = sample.replacen("1e2b8f3f-4472", "ffffffff-4472", 1);
    let (_, findings) = check_json(&[], Some(edited.as_bytes()));
    assert_eq!(
        lines_of(&findings, "session-id-mismatch"),
        [2],
        "{}",
        show(&findings)
    );
    // Two different ids are two facts.
    let lines: Vec<String> = sample.lines().map(str::to_owned).collect();
    let mut two = lines.clone();
    two[3] = two[3].replace("1e2b8f3f-4472", "aaaaaaaa-4472");
    two[5] = two[5].replace("1e2b8f3f-4472", "bbbbbbbb-4472");
    two[6] = two[6].replace("1e2b8f3f-4472", "bbbbbbbb-4472");
    let (_, findings) = check_json(&[], Some((two.join("\n") + "\n").as_bytes()));
    assert_eq!(
        lines_of(&findings, "session-id-mismatch"),
        [4, 6],
        "{}",
        show(&findings)
    );

    // Claude Code's lines the same.
    let text = std::fs::read_to_string(testdata("agents/claude/partial-messages.ndjson")).unwrap();
    let edited = text.replacen("5d1f0c3e-8a2b", "00000000-8a2b", 1);
    let (_, findings) = check_json(&[], Some(edited.as_bytes()));
    assert_eq!(
        lines_of(&findings, "session-id-mismatch"),
        [3],
        "{}",
        show(&findings)
    );
}

#[test]
fn events_after_the_result_are_one_finding() {
    let sample = sample();
    let lines: Vec<&str> = sample.lines().collect();
    let stray = format!("{sample}{}\n{}\n{}\n", lines[1], lines[2], lines[3]);
    let (_, findings) = check_json(&[], Some(stray.as_bytes()));
    assert_eq!(
        lines_of(&findings, "event-after-result"),
        [21],
        "{}",
        show(&findings)
    );
    // A new session after them has its strays reported again.
    let again = format!("{stray}{sample}{}\n", lines[1]);
    let (_, findings) = check_json(&[], Some(again.as_bytes()));
    assert_eq!(
        lines_of(&findings, "event-after-result"),
        [21, 44],
        "{}",
        show(&findings)
    );
}

/// `path` with line `n` (1-based) broken as JSON.
fn broken_line(path: &str, n: usize) -> String {
    let text = std::fs::read_to_string(testdata(path)).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 == n {
                format!("{{,{}\n", &l[1..])
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// A record of Claude Code, Codex or Gemini CLI that cannot be read (broken JSON, over the size
/// limit) may have been any event: its own finding, and none of those its absence would cause.
#[test]
fn an_unreadable_record_of_another_agent_causes_no_cascade() {
    let claude = "agents/claude/partial-messages.ndjson";
    // The tool_result (line 16), the result (line 25), the init (line 1).
    for n in [16, 25, 1] {
        let input = broken_line(claude, n);
        let (_, findings) = check_json(&[], Some(input.as_bytes()));
        assert_eq!(
            rules_of(&findings),
            ["invalid-json".to_owned()].into(),
            "line {n}: {}",
            show(&findings)
        );
    }
    // The result over --max-record-bytes: skipped, not also missing.
    let (_, findings) = check_json(&["--max-record-bytes", "600", CLAUDE_PARTIAL], None);
    assert_eq!(
        rules_of(&findings),
        ["record-too-large".to_owned()].into(),
        "{}",
        show(&findings)
    );
    // A tool_use that cannot be read: its tool_result is no orphan.
    let input = broken_line(claude, 11);
    let (_, findings) = check_json(&[], Some(input.as_bytes()));
    assert_eq!(
        rules_of(&findings),
        ["invalid-json".to_owned()].into(),
        "{}",
        show(&findings)
    );

    // Gemini CLI: the tool_result (line 7), the result (line 14).
    for n in [7, 14] {
        let input = broken_line("agents/gemini/tool-run.ndjson", n);
        let (_, findings) = check_json(&[], Some(input.as_bytes()));
        assert_eq!(
            rules_of(&findings),
            ["invalid-json".to_owned()].into(),
            "line {n}: {}",
            show(&findings)
        );
    }

    // Codex: a run whose command's completion and turn end cannot be read.
    let codex = concat!(
        r#"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}"#,
        "\n",
        r#"{"type":"turn.started"}"#,
        "\n",
        r#"{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
        "\n",
        r#"{,"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"a\n","exit_code":0,"status":"completed"}}"#,
        "\n",
        r#"{,"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2}}"#,
        "\n",
    );
    let (_, findings) = check_json(&[], Some(codex.as_bytes()));
    assert_eq!(
        lines_of(&findings, "invalid-json"),
        [4, 5],
        "{}",
        show(&findings)
    );
    assert_eq!(findings.len(), 2, "{}", show(&findings));
}

// ------------------------------------------------------------------------------------------
// Wording.

#[test]
fn counts_of_one_are_singular() {
    // Two findings, one shown: the note says how many were not.
    let input = sample().replacen('\n', "\n\n\n", 1);
    let run = exec(
        &["check", "--format", "concise", "--max-diagnostics", "1"],
        Some(input.as_bytes()),
    );
    assert!(
        run.stderr()
            .contains("note: 1 finding not shown (--max-diagnostics 1): 1 info\n"),
        "{}",
        run.describe()
    );
    // The document formats, which keep errors first too, say it the same.
    let run = exec(
        &["check", "--format", "sarif", "--max-diagnostics", "1"],
        Some(input.as_bytes()),
    );
    assert!(
        run.stderr()
            .contains("note: 1 finding not shown (--max-diagnostics 1): 1 info\n"),
        "{}",
        run.describe()
    );

    // "an `item.completed`", not "a `item.completed`".
    let codex =
        r#"{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}"#;
    let input = sample().replacen('\n', &format!("\n{codex}\n"), 1);
    let (_, findings) = check_json(&[], Some(input.as_bytes()));
    let mixed = findings.iter().find(|f| f.rule == "mixed-agents").unwrap();
    assert_eq!(
        mixed.message,
        "an `item.completed` record of Codex in a stream of cursor-agent"
    );

    // Plain text after the shown lines of a text capture, when events follow: "1 more line".
    let text: String = (1..=11).map(|i| format!("line {i} of the log\n")).collect();
    let input = format!("{text}{}", sample());
    let (_, findings) = check_json(&[], Some(input.as_bytes()));
    assert!(
        findings.iter().any(|f| f
            .message
            .starts_with("1 more line of plain text on line 11 before")),
        "{}",
        show(&findings)
    );
}

// ------------------------------------------------------------------------------------------
// Log-like lines.

/// Lines a tool prints that start with a number or a bracket without a letter in it: a
/// numbered list, a build's progress. They get the merged-stderr help as `Error: …` does.
#[test]
fn numbered_lists_and_build_progress_are_plain_text() {
    assert_plain_text_lines(
        &[
            "1. Read the failing test",
            "2) Run it again",
            "[1/3] Building fresh packages...",
            "[ 50%] Linking CXX executable app",
        ],
        // Broken JSON stays broken JSON.
        &["1. 2", "1.e5", "[1/3]", "[50%]"],
    );
}

/// The hint of the known hang (a session complete, its stream still open) leads the status
/// line, so that 80 columns keep it whole.
#[cfg(unix)]
#[test]
fn the_hang_hint_comes_first_within_80_columns() {
    let script = format!(
        "(cat '{}'; sleep 1.5) | '{}' check --tee --progress always --color never > /dev/null",
        testdata("sample.ndjson").display(),
        env!("CARGO_BIN_EXE_sjlint")
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr).replace("\u{1b}[K", "");
    let hint = stderr
        .split(['\r', '\n'])
        .find(|l| l.contains("session complete"))
        .unwrap_or_else(|| panic!("no hang hint in {stderr:?}"));
    assert!(
        hint.starts_with("✓ ")
            && hint.contains(" · session complete, waiting for the stream to close · "),
        "{hint:?}"
    );
    // Without a terminal the width is taken as 80; one column stays free.
    assert!(hint.chars().count() <= 79, "{hint:?}");
}
