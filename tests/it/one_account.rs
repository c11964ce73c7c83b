//! One account of a run: what each output says of a run is what the run was. Each case was
//! once wrong (a success counted a failure, a translation that wrote nothing and said nothing).

use crate::common::{exec, testdata};
use serde_json::Value;

#[test]
fn a_stream_of_no_known_agent_has_no_common_form_and_says_so() {
    let input = b"{\"type\":\"foo\",\"x\":1}\n{\"type\":\"bar\"}\n";
    let run = exec(&["fmt", "--to", "common", "-"], Some(input));
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
    assert!(
        run.stderr()
            .contains("no agent sjlint knows wrote this stream"),
        "{}",
        run.describe()
    );
    // An empty input is no stream of anyone's: nothing to say.
    let run = exec(&["fmt", "--to", "common", "-"], Some(b""));
    assert_eq!(run.code, 0, "{}", run.describe());
}

#[test]
fn grok_builds_older_end_turn_spelling_is_a_success() {
    let text = std::fs::read_to_string(testdata("agents/grok/tool-run.ndjson")).unwrap();
    assert!(text.contains("\"stopReason\":\"end_turn\",\"sessionId\""));
    let older = text.replace(
        "\"stopReason\":\"end_turn\",\"sessionId\"",
        "\"stopReason\":\"EndTurn\",\"sessionId\"",
    );
    for input in [&text, &older] {
        let run = exec(&["stats", "--format", "json", "-"], Some(input.as_bytes()));
        let stats: Value = serde_json::from_slice(&run.stdout).unwrap();
        let results = &stats["files"][0]["results"];
        assert_eq!(results["success"], 1, "{}", run.describe());
        assert_eq!(results["error"], 0, "{}", run.describe());
    }
}

#[test]
fn a_claude_family_run_after_a_cursor_agent_session_is_another_agents() {
    for agent in ["claude", "qwen", "amp"] {
        let mut both = std::fs::read(testdata("sample.ndjson")).unwrap();
        let cursor_lines = both.iter().filter(|&&b| b == b'\n').count() as u64;
        both.extend(std::fs::read(testdata(&format!("agents/{agent}/tool-run.ndjson"))).unwrap());
        let run = exec(&["check", "--format", "json", "-"], Some(&both));
        let mixed: Vec<_> = run
            .findings()
            .into_iter()
            .filter(|f| f.rule == "mixed-agents")
            .collect();
        assert_eq!(mixed.len(), 1, "{agent}: {}", run.describe());
        // At its init, or at its first message when its init carries no mark of its own.
        assert!(
            (cursor_lines + 1..=cursor_lines + 2).contains(&mixed[0].line),
            "{agent}: {}",
            run.describe()
        );
    }
}

#[test]
fn opencode_2_names_a_call_by_its_part_id() {
    // `tool-run-2.0.ndjson` is `tool-run.ndjson` as OpenCode 2.0 writes it: each tool part names
    // its call in `part.id` and has no `part.callID`.
    let new = "testdata/agents/opencode/tool-run-2.0.ndjson";
    let text = std::fs::read_to_string(testdata("agents/opencode/tool-run-2.0.ndjson")).unwrap();
    assert!(!text.contains("callID"));
    let run = exec(&["check", "--format", "json", new], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let stats = |path: &str| -> Value {
        serde_json::from_slice(&exec(&["stats", "--format", "json", path], None).stdout).unwrap()
    };
    let calls = |s: &Value| -> u64 {
        s["files"][0]["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["count"].as_u64().unwrap())
            .sum()
    };
    let old = stats("testdata/agents/opencode/tool-run.ndjson");
    assert_eq!(calls(&stats(new)), calls(&old));
    assert_eq!(calls(&old), 2);
}

#[test]
fn pis_delta_only_updates_are_a_healthy_run() {
    // `delta-only-updates.ndjson` is `tool-run.ndjson` as Pi writes it since July 2026: its
    // `message_update` lines carry the delta alone, without the growing `message`.
    let new = "testdata/agents/pi/delta-only-updates.ndjson";
    let text = std::fs::read_to_string(testdata("agents/pi/delta-only-updates.ndjson")).unwrap();
    assert!(text.contains("\"type\":\"message_update\""));
    assert!(
        text.lines()
            .filter(|l| l.contains("\"type\":\"message_update\""))
            .all(|l| !l.contains("\"message\":"))
    );
    let run = exec(&["check", new], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let common = |path: &str| exec(&["fmt", "--to", "common", path], None).stdout();
    assert_eq!(common(new), common("testdata/agents/pi/tool-run.ndjson"));
}

#[test]
fn a_claude_result_that_says_success_but_whose_turn_died_is_a_failure() {
    let text = std::fs::read_to_string(testdata("agents/claude/tool-run.ndjson")).unwrap();
    let marker = "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,";
    assert!(text.contains(marker));
    for (reason, ok) in [
        ("completed", true),
        ("max_turns", false),
        ("hook_stopped", false),
        ("api_error", false),
        ("budget_exhausted", false),
        ("prompt_too_long", false),
        ("blocking_limit", false),
        ("model_error", false),
        ("malformed_tool_use_exhausted", false),
        ("structured_output_retry_exhausted", false),
        ("tool_deferred_unavailable", false),
        ("turn_setup_failed", false),
        ("image_error", false),
        ("rapid_refill_breaker", false),
    ] {
        let input = text.replace(
            marker,
            &format!("{marker}\"terminal_reason\":\"{reason}\","),
        );
        let common = exec(&["fmt", "--to", "common", "-"], Some(input.as_bytes())).stdout();
        let end: Value = common
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|e| e["type"] == "end")
            .unwrap();
        assert_eq!(end["ok"], ok, "{reason}: {end}");
        let run = exec(&["stats", "--format", "json", "-"], Some(input.as_bytes()));
        let stats: Value = serde_json::from_slice(&run.stdout).unwrap();
        let results = &stats["files"][0]["results"];
        assert_eq!(results["success"], u64::from(ok), "{reason}: {results}");
        assert_eq!(results["error"], u64::from(!ok), "{reason}: {results}");
    }
}

#[test]
fn codexs_exit_code_and_claudes_cwd_reach_the_common_form() {
    let first = |path: &str, ty: &str| -> Value {
        exec(&["fmt", "--to", "common", path], None)
            .stdout()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|e| e["type"] == ty)
            .unwrap()
    };
    // The fixtures' own values.
    let codex = std::fs::read_to_string(testdata("agents/codex/tool-run.ndjson")).unwrap();
    let item: Value = codex
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["type"] == "item.completed" && r["item"]["type"] == "command_execution")
        .unwrap();
    let end = first("testdata/agents/codex/tool-run.ndjson", "tool_end");
    assert_eq!(end["exit_code"], item["item"]["exit_code"], "{end}");
    let claude = std::fs::read_to_string(testdata("agents/claude/tool-run.ndjson")).unwrap();
    let init: Value = serde_json::from_str(claude.lines().next().unwrap()).unwrap();
    let start = first("testdata/agents/claude/tool-run.ndjson", "session_start");
    assert_eq!(start["cwd"], init["cwd"], "{start}");
}

/// The text of every `assistant_text` of the common form of `path`, joined by the rule the
/// common form writes down: a piece with `delta` continues, anything else starts a message.
fn joined_messages(path: &str) -> Vec<String> {
    let mut messages: Vec<String> = Vec::new();
    for line in exec(&["fmt", "--to", "common", path], None)
        .stdout()
        .lines()
    {
        let ev: Value = serde_json::from_str(line).unwrap();
        if ev["type"] != "assistant_text" {
            continue;
        }
        let text = ev["text"].as_str().unwrap_or_default();
        match messages.last_mut() {
            Some(last) if ev["delta"] == true => last.push_str(text),
            _ => messages.push(text.to_owned()),
        }
    }
    messages
}

#[test]
fn cursor_agents_partial_output_is_said_once_whichever_fields_its_flush_carries() {
    for path in [
        "testdata/healthy/partial-output-deltas-then-flush.ndjson",
        // Newer builds stamp the flush before a tool call with `model_call_id` and
        // `timestamp_ms`, and leave `timestamp_ms` off the last one.
        "testdata/healthy/partial-output-flush-stamped-before-a-tool-call.ndjson",
    ] {
        let text = std::fs::read_to_string(manifest(path)).unwrap();
        let result: Value = text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|r| r["type"] == "result")
            .unwrap();
        let messages = joined_messages(path);
        assert_eq!(messages.len(), 2, "{path}: {messages:?}");
        // cursor-agent's result is its messages' text, one after the other.
        assert_eq!(messages.concat(), result["result"], "{path}");
        let plain = exec(&["render", "--plain", path], None).stdout();
        assert_eq!(
            plain.matches(messages[0].as_str()).count(),
            1,
            "{path}: {plain}"
        );
        // `--drop deltas` leaves out the deltas the flush repeats, and keeps the flush.
        let dropped = exec(&["fmt", "--drop", "deltas", path], None).stdout();
        assert_eq!(
            dropped.matches("\"timestamp_ms\":17810064000").count(),
            0,
            "{path}"
        );
        let said = dropped
            .lines()
            .filter(|l| {
                l.starts_with("{\"type\":\"assistant\"") && l.contains(messages[0].as_str())
            })
            .count();
        assert_eq!(said, 1, "{path}: {dropped}");
    }
}

fn manifest(rel: &str) -> std::path::PathBuf {
    crate::common::manifest_dir().join(rel)
}

#[test]
fn a_copilot_mcp_call_is_mcp_at_both_ends() {
    let kinds: Vec<(String, String)> = exec(
        &[
            "fmt",
            "--to",
            "common",
            "testdata/agents/copilot/usage.ndjson",
        ],
        None,
    )
    .stdout()
    .lines()
    .map(|l| serde_json::from_str::<Value>(l).unwrap())
    .filter(|e| e["type"] == "tool_start" || e["type"] == "tool_end")
    .map(|e| {
        (
            e["type"].as_str().unwrap().to_owned(),
            e["tool_kind"].as_str().unwrap().to_owned(),
        )
    })
    .collect();
    assert_eq!(
        kinds,
        [
            ("tool_start".to_owned(), "mcp".to_owned()),
            ("tool_end".to_owned(), "mcp".to_owned())
        ]
    );
}

#[test]
fn a_lone_qwen_error_result_is_qwen_codes() {
    let text = std::fs::read_to_string(testdata("agents/qwen/max-turns.ndjson")).unwrap();
    let result = text
        .lines()
        .find(|l| l.starts_with("{\"type\":\"result\""))
        .unwrap();
    let run = exec(
        &["stats", "--format", "json", "-"],
        Some(format!("{result}\n").as_bytes()),
    );
    let stats: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(stats["files"][0]["agent"], "qwen", "{}", run.describe());
}

#[test]
fn every_agents_messages_join_by_one_rule_into_the_runs_answer() {
    // Every fixture of every agent (cursor-agent's result is all its messages, tested above):
    // joined by the rule (a `delta` piece continues, anything else begins a message), the
    // main thread's last message is the text the healthy run ends with.
    let mut compared = 0;
    for agent in [
        "claude", "codex", "gemini", "grok", "copilot", "opencode", "pi", "droid", "kimi", "qwen",
        "amp",
    ] {
        let dir = testdata(&format!("agents/{agent}"));
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let path = path.to_str().unwrap();
            let mut messages: Vec<String> = Vec::new();
            let mut answer = None;
            for line in exec(&["fmt", "--to", "common", path], None)
                .stdout()
                .lines()
            {
                let ev: Value = serde_json::from_str(line).unwrap();
                if ev["type"] == "assistant_text" && ev.get("parent").is_none() {
                    let text = ev["text"].as_str().unwrap_or_default();
                    match messages.last_mut() {
                        Some(last) if ev["delta"] == true => last.push_str(text),
                        _ => messages.push(text.to_owned()),
                    }
                }
                if ev["type"] == "end" && ev["ok"] == true {
                    answer = ev["text"].as_str().map(str::to_owned);
                }
            }
            if let Some(answer) = answer {
                assert_eq!(messages.last(), Some(&answer), "{path}: {messages:?}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 20, "{compared} runs compared");
}

/// The records of a fixture, parsed.
fn records_of(rel: &str) -> Vec<Value> {
    std::fs::read_to_string(testdata(rel))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The common form of `path`, parsed.
fn common_of(path: &str) -> Vec<Value> {
    exec(&["fmt", "--to", "common", path], None)
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The first file of `stats --format json` of `args`.
fn stats_of(args: &[&str], stdin: Option<&[u8]>) -> Value {
    let mut all = vec!["stats", "--format", "json"];
    all.extend_from_slice(args);
    let run = exec(&all, stdin);
    let stats: Value = serde_json::from_slice(&run.stdout).unwrap();
    stats["files"][0].clone()
}

#[test]
fn a_copilot_runs_shutdown_totals_count_what_its_messages_did_not() {
    // A run without `assistant.usage` lines: its messages say their output only, and the
    // session's totals come at its `session.shutdown`, per model, the input holding the cache.
    let fixture = "agents/copilot/shutdown-totals.ndjson";
    let recs = records_of(fixture);
    assert!(!recs.iter().any(|r| r["type"] == "assistant.usage"));
    let shutdown = recs
        .iter()
        .find(|r| r["type"] == "session.shutdown")
        .unwrap();
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or(0);
    let mut want = [0u64; 4];
    for m in shutdown["data"]["modelMetrics"]
        .as_object()
        .unwrap()
        .values()
    {
        let u = &m["usage"];
        let (read, write) = (n(u, "cacheReadTokens"), n(u, "cacheWriteTokens"));
        want[0] += n(u, "inputTokens") - read - write;
        want[1] += n(u, "outputTokens");
        want[2] += read;
        want[3] += write;
    }
    let said: u64 = recs
        .iter()
        .filter(|r| r["type"] == "assistant.message")
        .map(|r| n(&r["data"], "outputTokens"))
        .sum();
    want[1] = want[1].max(said);
    assert!(want[0] > 0 && want[3] > 0, "{want:?}");
    let path = testdata(fixture);
    let u = &stats_of(&[path.to_str().unwrap()], None)["usage"];
    let got = [
        n(u, "input_tokens"),
        n(u, "output_tokens"),
        n(u, "cache_read_tokens"),
        n(u, "cache_write_tokens"),
    ];
    assert_eq!(got, want, "{u}");
    // Said as increments: the output the messages said is not said twice.
    let usage: Vec<Value> = common_of(path.to_str().unwrap())
        .into_iter()
        .filter(|e| e["type"] == "usage")
        .collect();
    let output: u64 = usage.iter().map(|e| n(&e["usage"], "output_tokens")).sum();
    assert_eq!(output, want[1], "{usage:?}");
}

/// Milliseconds since the Unix epoch of a UTC time written `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn utc_ms(s: &str) -> u64 {
    let num = |r: std::ops::Range<usize>| s[r].parse::<i64>().unwrap();
    let (y, m, d) = (num(0..4), num(5..7), num(8..10));
    // Days from the civil date (proleptic Gregorian), March-based years.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let ms =
        ((days * 24 + num(11..13)) * 60 + num(14..16)) * 60_000 + num(17..19) * 1000 + num(20..23);
    u64::try_from(ms).unwrap()
}

#[test]
fn claude_code_lines_with_a_timestamp_time_their_tool_calls() {
    let fixture = "agents/claude/thinking-timed.ndjson";
    let recs = records_of(fixture);
    let ms = |r: &Value| utc_ms(r["timestamp"].as_str().unwrap());
    // The line of the `tool_use` and the line of its `tool_result`.
    let start = recs
        .iter()
        .find(|r| r.to_string().contains("\"tool_use\""))
        .unwrap();
    let end = recs
        .iter()
        .find(|r| r.to_string().contains("\"tool_result\""))
        .unwrap();
    let took = ms(end) - ms(start);
    assert!(took > 0);
    let path = testdata(fixture);
    let stats = stats_of(&[path.to_str().unwrap()], None);
    let shell = &stats["tool_calls"][0];
    assert_eq!(shell["duration_ms"]["timed"], 1, "{shell}");
    assert_eq!(shell["duration_ms"]["max"], took, "{shell}");
    // Each event of a stamped line carries its time.
    let common = common_of(path.to_str().unwrap());
    let tool_start = common.iter().find(|e| e["type"] == "tool_start").unwrap();
    assert_eq!(tool_start["timestamp_ms"], ms(start), "{tool_start}");
}

#[test]
fn opencodes_end_has_the_time_of_the_step_that_ended_the_run() {
    for fixture in [
        "agents/opencode/tool-run.ndjson",
        "agents/opencode/reasoning.ndjson",
    ] {
        let recs = records_of(fixture);
        let last = recs
            .iter()
            .rev()
            .find(|r| r["type"] == "step_finish")
            .unwrap();
        let path = testdata(fixture);
        let common = common_of(path.to_str().unwrap());
        let end = common.iter().find(|e| e["type"] == "end").unwrap();
        assert_eq!(end["timestamp_ms"], last["timestamp"], "{fixture}: {end}");
    }
}

#[test]
fn render_shows_the_agents_own_error_line_escaped() {
    // An agent that fails prints its error on stdout, among its events (or before them).
    let error = "RetriableError: Claude Code process exited with code 1: error: unknown option '--system-prompt' \u{1b}[31m(see --help)";
    let shown = error.replace('\u{1b}', "\\u{1b}");
    let events = std::fs::read_to_string(testdata("agents/claude/tool-run.ndjson")).unwrap();
    let mut lines: Vec<&str> = events.lines().collect();
    for (at, input) in [
        (1, format!("{error}\n{events}")),
        (3, {
            lines.insert(2, error);
            lines.join("\n") + "\n"
        }),
    ] {
        for plain in [false, true] {
            let mut args = vec!["render", "--color", "never"];
            if plain {
                args.push("--plain");
            }
            args.push("-");
            let out = exec(&args, Some(input.as_bytes())).stdout();
            let marker = format!("! line {at}: {shown}\n");
            assert!(out.contains(&marker), "plain {plain}: {out}");
            assert!(!out.contains("not a valid event"), "plain {plain}: {out}");
        }
    }
    // A broken record is still no text of the agent's: `check` says what is wrong with it.
    let broken = format!("{}\n{{\"type\":\"assistant\",\"mess\n", events.trim_end());
    let out = exec(&["render", "-"], Some(broken.as_bytes())).stdout();
    assert!(out.contains("not a valid event; skipped"), "{out}");
}

#[test]
fn stats_of_a_stream_and_of_its_common_form_agree() {
    let mut paths: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["agents", "healthy"] {
        crate::common::files_under(&testdata(dir), &mut paths);
    }
    paths.retain(|p| p.extension().is_some_and(|e| e == "ndjson"));
    paths.sort();
    let mut compared = 0;
    for path in paths {
        let path = path.to_str().unwrap();
        let common = exec(&["fmt", "--to", "common", path], None);
        if common.code == 2 {
            // No agent sjlint knows wrote it: it has no common form.
            continue;
        }
        let source = stats_of(&[path], None);
        let again = stats_of(&["-"], Some(&common.stdout));
        for key in [
            "usage",
            "tool_calls",
            "sessions",
            "results",
            "cost_usd",
            "duration_ms",
            "thinking",
        ] {
            assert_eq!(source[key], again[key], "{path}: {key}");
        }
        compared += 1;
    }
    assert!(compared >= 60, "{compared} fixtures compared");
}

#[test]
fn a_stream_without_its_start_record_has_a_session_start_and_one_session() {
    // A lone Claude Code `result` (what `--output-format json` writes), and Codex turns without
    // their `thread.started`.
    let claude = std::fs::read_to_string(testdata("agents/claude/tool-run.ndjson")).unwrap();
    let result = claude
        .lines()
        .find(|l| l.contains("\"type\":\"result\""))
        .unwrap();
    let codex = std::fs::read_to_string(testdata("agents/codex/tool-run.ndjson")).unwrap();
    assert!(codex.lines().next().unwrap().contains("thread.started"));
    let turns: String = codex.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let thread: Value = serde_json::from_str(codex.lines().next().unwrap()).unwrap();
    for (agent, input) in [("claude", format!("{result}\n")), ("codex", turns)] {
        let common = exec(&["fmt", "--to", "common", "-"], Some(input.as_bytes())).stdout();
        let events: Vec<Value> = common
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(events[0]["type"], "session_start", "{agent}: {common}");
        assert_eq!(events[0]["agent"], agent, "{agent}: {common}");
        let starts = events
            .iter()
            .filter(|e| e["type"] == "session_start")
            .count();
        assert_eq!(starts, 1, "{agent}: {common}");
        assert_eq!(
            stats_of(&["-"], Some(input.as_bytes()))["sessions"],
            1,
            "{agent}"
        );
        // And its common form counts the same.
        assert_eq!(
            stats_of(&["-"], Some(common.as_bytes()))["sessions"],
            1,
            "{agent}"
        );
    }
    // With its start, a stream has the start it had.
    let whole = exec(&["fmt", "--to", "common", "-"], Some(codex.as_bytes())).stdout();
    let first: Value = serde_json::from_str(whole.lines().next().unwrap()).unwrap();
    assert_eq!(first["session_id"], thread["thread_id"]);
}

#[test]
fn stats_counts_the_findings_check_reports_under_the_same_configuration() {
    let dir = std::env::temp_dir().join(format!("sjlint-oa-config-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    let stream = std::fs::read(testdata("many-findings.ndjson")).unwrap();
    std::fs::write(dir.join("runs/a.ndjson"), &stream).unwrap();
    let counts = |findings: &[crate::common::Finding]| -> [u64; 3] {
        let mut c = [0; 3];
        for f in findings {
            c[match f.severity.as_str() {
                "error" => 0,
                "warning" => 1,
                _ => 2,
            }] += 1;
        }
        c
    };
    let in_dir = |args: &[&str]| {
        let mut cmd = crate::common::sjlint();
        cmd.current_dir(&dir).args(args);
        crate::common::run_cmd(cmd, None)
    };
    for toml in [
        // The defaults: the rules off by default are not counted.
        None,
        // A rule turned off, another's severity changed, an info rule turned on.
        Some(
            "ignore = [\"blank-line\"]\n[severity]\norphan-completion = \"warning\"\nunknown-field = \"info\"\n",
        ),
    ] {
        match toml {
            Some(t) => std::fs::write(dir.join("sjlint.toml"), t).unwrap(),
            None => {
                let _ = std::fs::remove_file(dir.join("sjlint.toml"));
            }
        }
        let check = in_dir(&["check", "--format", "json", "runs/a.ndjson"]);
        let want = counts(&check.findings());
        let stats = in_dir(&["stats", "--format", "json", "runs/a.ndjson"]);
        let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
        let f = &stats["files"][0]["findings"];
        let got = [
            f["error"].as_u64().unwrap(),
            f["warning"].as_u64().unwrap(),
            f["info"].as_u64().unwrap(),
        ];
        assert_eq!(got, want, "{toml:?}: {}", check.describe());
    }
    // Read from standard input, under the settings found from the working directory.
    let mut cmd = crate::common::sjlint();
    cmd.current_dir(&dir)
        .args(["check", "--format", "json", "-"]);
    let check = crate::common::run_cmd(cmd, Some(&stream));
    let mut cmd = crate::common::sjlint();
    cmd.current_dir(&dir)
        .args(["stats", "--format", "json", "-"]);
    let stats: Value =
        serde_json::from_slice(&crate::common::run_cmd(cmd, Some(&stream)).stdout).unwrap();
    let f = &stats["files"][0]["findings"];
    assert_eq!(
        [
            f["error"].as_u64().unwrap(),
            f["warning"].as_u64().unwrap(),
            f["info"].as_u64().unwrap()
        ],
        counts(&check.findings())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Copilot CLI shell call that ran and exited non-zero says `success: true` (the tool ran);
/// the exit code its completion reports makes it a call that did not go well.
#[test]
fn a_copilot_command_that_exits_non_zero_is_not_ok() {
    let text = std::fs::read_to_string(testdata("agents/copilot/tool-run.ndjson")).unwrap();
    let shell_done = "\"success\":true,\"result\":{\"content\":\"running 12 tests";
    assert!(text.contains(shell_done));
    let failing = text.replace(
        shell_done,
        "\"success\":true,\"result\":{\"contents\":[{\"type\":\"terminal\",\"text\":\"1 failed\",\"exitCode\":1}],\"content\":\"running 12 tests",
    );
    let shell = |input: &str| -> (u64, u64) {
        let run = exec(&["stats", "--format", "json", "-"], Some(input.as_bytes()));
        let stats: Value = serde_json::from_slice(&run.stdout).unwrap();
        let tools = stats["files"][0]["tool_calls"].as_array().unwrap().clone();
        let t = tools.iter().find(|t| t["kind"] == "shell").unwrap();
        (t["count"].as_u64().unwrap(), t["failed"].as_u64().unwrap())
    };
    assert_eq!(shell(&text), (1, 0));
    assert_eq!(shell(&failing), (1, 1));
    let common = exec(&["fmt", "--to", "common", "-"], Some(failing.as_bytes())).stdout();
    let end: Value = common
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "tool_end" && e["tool_kind"] == "shell")
        .unwrap();
    assert_eq!((&end["exit_code"], &end["ok"]), (&1.into(), &false.into()));
}
