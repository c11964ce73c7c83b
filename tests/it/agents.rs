//! The streams of Claude Code, Codex, Gemini CLI, Grok Build and OpenCode: every capture of
//! `../shared/corpus/agents/` gets the verdict its README gives (run by the real binary), the agent-specific fixtures of
//! `testdata/agents/` fire where they say, and the agent examples of the rule docs fail and
//! pass as written.

use crate::common::*;
use std::path::Path;

/// What a capture must get: `None` is a clean run (exit 0 under `--strict`, no finding at
/// all); otherwise exactly these findings (rule, line), and the words one of them must say.
fn expected(file: &str) -> Option<(&'static [(&'static str, u64)], &'static str)> {
    Some(match file {
        // Events saved as one pretty-printed array: said once.
        "claude/slopus__happy-cli__sample-error.json"
        | "claude/slopus__happy-cli__sample-error-edit-and-multi-edit.json" => {
            (&[("invalid-json", 1)], "pretty-printed JSON array")
        }
        // Codex's stderr notice captured with stdout.
        "codex/dungle-scrubs__hcn__phase8__codex-instructions-file.ndjson"
        | "codex/dungle-scrubs__hcn__phase8__codex-instructions-literal.ndjson" => {
            (&[("invalid-json", 1)], "stderr")
        }
        // The turn never ends.
        "codex/jnarowski__agentcmd__stream-output-multi-1.jsonl" => (
            &[("missing-result", 2)],
            "has no `turn.completed` or `turn.failed`",
        ),
        // Three inits and no result: the run never ends, said at the end.
        "claude/link-assistant__hive-mind__background-default.jsonl" => {
            (&[("missing-result", 49)], "no `result`")
        }
        // An excerpt of two failed runs without their starts: the cut, once per run.
        "codex/littlebearapps__untether__codex_turn_failed_minimal_reasoning.jsonl" => (
            &[("missing-init", 1), ("missing-init", 3)],
            "thread.started",
        ),
        _ => return None,
    })
}

fn agents_corpus() -> Option<std::path::PathBuf> {
    corpus_dir().map(|d| d.join("agents"))
}

/// The captures the manifest lists, with their agent.
fn manifest(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut cols = l.split('\t');
            let file = cols.next().unwrap().to_owned();
            let agent = cols.next().unwrap().to_owned();
            (file, agent)
        })
        .collect()
}

#[test]
fn every_capture_gets_its_verdict() {
    let Some(dir) = agents_corpus() else { return };
    let listed = manifest(&dir);
    assert!(listed.len() >= 30, "{} captures listed", listed.len());
    let mut failures = Vec::new();
    for (file, _) in &listed {
        let path = dir.join(file);
        let path = path.to_str().unwrap();
        let (run, findings) = check_json(&["--strict", path], None);
        let got: Vec<(String, u64)> = findings.iter().map(|f| (f.rule.clone(), f.line)).collect();
        match expected(file) {
            None => {
                if !findings.is_empty() || run.code != 0 {
                    failures.push(format!("{file}: must be clean\n{}", show(&findings)));
                }
            }
            Some((want, words)) => {
                let want: Vec<(String, u64)> =
                    want.iter().map(|(r, l)| (r.to_string(), *l)).collect();
                let said = findings.iter().any(|f| {
                    f.message.contains(words)
                        || f.help.as_deref().is_some_and(|h| h.contains(words))
                });
                if got != want || !said || run.code != 1 {
                    failures.push(format!(
                        "{file}: want {want:?} saying {words:?}, exit 1; got exit {}\n{}",
                        run.code,
                        show(&findings)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every capture is recognised as the agent the manifest names: forcing that agent changes
/// nothing.
#[test]
fn captures_are_recognised_as_their_agent() {
    let Some(dir) = agents_corpus() else { return };
    for (file, agent) in manifest(&dir) {
        if file.ends_with(".json") {
            continue;
        }
        let path = dir.join(&file);
        let path = path.to_str().unwrap();
        let (_, auto) = check_json(&[path], None);
        let (_, forced) = check_json(&["--agent", &agent, path], None);
        assert_eq!(show(&auto), show(&forced), "{file} read as {agent}");
    }
}

/// Deleting one `tool_result` of a real Claude Code run gives one finding, at the `tool_use`.
#[test]
fn a_deleted_claude_tool_result_is_found() {
    let Some(dir) = agents_corpus() else { return };
    let path = dir.join("claude/ariel-frischer__claude-clean__claude-stream-json-log.log");
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Line 8 answers the tool_use of line 3.
    assert!(lines[7].contains("tool_result") && lines[2].contains(r#""type":"tool_use""#));
    let cut: String = lines
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != 7)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let (run, findings) = check_json(&["--stdin-filename", "cut.ndjson"], Some(cut.as_bytes()));
    assert_eq!(run.code, 1);
    let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
    assert_eq!(got, [("unfinished-tool-call", 3)], "{}", show(&findings));
}

/// The agent examples of the rule docs (`## Codex example that fails`, …): each failing one
/// gives that rule and no other, each passing one nothing, under the agent it is written for.
#[test]
fn agent_examples_of_the_rule_docs() {
    let mut seen = 0;
    for rule in documented_rules() {
        let doc = std::fs::read_to_string(
            manifest_dir().join(format!("crates/sjlint-core/src/rules/{rule}.md")),
        )
        .unwrap();
        for (agent, name) in [
            ("claude", "Claude Code"),
            ("codex", "Codex"),
            ("gemini", "Gemini CLI"),
        ] {
            let fails = format!("## {name} example that fails");
            if !doc.contains(&fails) {
                continue;
            }
            seen += 1;
            let example = doc_example(&rule, &fails);
            // `unknown-field` is off unless turned on.
            let on: &[&str] = if rule == "unknown-field" {
                &["--strict-schema"]
            } else {
                &[]
            };
            let (run, findings) = check_json(
                &[&["--stdin-filename", "example.ndjson"], on].concat(),
                Some(example.as_bytes()),
            );
            assert!(
                !findings.is_empty() && findings.iter().all(|f| f.rule == rule),
                "{rule}.md, {name}: the failing example must give {rule} only\n{}",
                show(&findings)
            );
            let error = findings.iter().any(|f| f.severity == "error");
            assert_eq!(run.code, i32::from(error), "{rule}.md, {name}");
            // The agent is recognised: forcing it changes nothing.
            let (_, forced) = check_json(
                &[
                    &["--agent", agent, "--stdin-filename", "example.ndjson"],
                    on,
                ]
                .concat(),
                Some(example.as_bytes()),
            );
            assert_eq!(show(&forced), show(&findings), "{rule}.md, {name}");

            let passes = doc_example(&rule, &format!("## {name} example that passes"));
            let (run, findings) = check_json(
                &["--strict", "--stdin-filename", "example.ndjson"],
                Some(passes.as_bytes()),
            );
            assert!(
                findings.is_empty() && run.code == 0,
                "{rule}.md, {name}: the passing example must give nothing\n{}",
                show(&findings)
            );
        }
    }
    assert!(seen >= 20, "{seen} agent examples");
}

/// Grok Build's start-up failure is kept apart (in `agents/ambiguous/`): one `error` line is
/// what Codex writes too, so only `--agent grok` can tell, and then it is clean. (Its clean
/// fixtures, recognised without `--agent`, are the agent matrix's.)
#[test]
fn a_grok_startup_failure_is_clean_as_grok() {
    let p = testdata("agents/ambiguous/grok-startup-failure.ndjson");
    let p = p.to_str().unwrap();
    let (run, findings) = check_json(&["--strict", "--agent", "grok", p], None);
    assert!(
        findings.is_empty() && run.code == 0,
        "{p}\n{}",
        show(&findings)
    );
}

/// A Grok Build run broken as real runs break: each gets its finding at the right line.
#[test]
fn broken_grok_streams_get_their_finding() {
    let text = std::fs::read_to_string(testdata("agents/grok/tool-run.ndjson")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let wrong = lines[13].replace("\"num_turns\":3", "\"num_turns\":\"3\"");
    let join = |ls: &[&str]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
    type Case<'a> = (&'a str, String, Vec<(&'a str, u64)>);
    let cases: Vec<Case<'_>> = vec![
        // Cut before its `end`: the run never ends.
        ("cut", join(&lines[..13]), vec![("missing-result", 13)]),
        // The update that finishes the edit is lost: the call never ends.
        (
            "lost update",
            join(&[&lines[..9], &lines[10..]].concat()),
            vec![("unfinished-tool-call", 9)],
        ),
        // The update comes without its `tool_call`.
        (
            "lost start",
            join(&[&lines[..8], &lines[9..]].concat()),
            vec![("orphan-completion", 9)],
        ),
        // A count of the wrong type.
        (
            "wrong type",
            join(&[&lines[..13], &[wrong.as_str()][..]].concat()),
            vec![("wrong-field-type", 14)],
        ),
        // A record after `end`.
        (
            "after end",
            join(&[&lines[..], &[lines[10]]].concat()),
            vec![("event-after-result", 15)],
        ),
        // A `tool_call` of cursor-agent's after Grok Build's records.
        (
            "mixed",
            join(
                &[
                    &lines[..2],
                    &[r#"{"type":"thread.started","thread_id":"t"}"#],
                    &lines[2..],
                ]
                .concat(),
            ),
            vec![("mixed-agents", 3)],
        ),
    ];
    for (what, input, want) in cases {
        let (run, findings) =
            check_json(&["--stdin-filename", "grok.ndjson"], Some(input.as_bytes()));
        let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
        assert_eq!(got, want, "{what}: {}", show(&findings));
        assert_eq!(run.code, 1, "{what}");
    }
}

/// `stats` and `render` of a Grok Build run: the run's total tokens once (from `end`, not the
/// sparse per-response `usage` lines), its cost, and its calls by kind.
#[test]
fn grok_runs_are_counted_and_rendered() {
    let p = "testdata/agents/grok/tool-run.ndjson";
    let s = stats_of(p);
    assert_eq!(s["agent"], "grok");
    assert_eq!(s["usage"]["input_tokens"], 17430, "{s}");
    assert_eq!(s["usage"]["output_tokens"], 105, "{s}");
    assert_eq!(s["cost_usd"], 0.0391, "{s}");
    let run = exec(&["render", p], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let out = run.stdout();
    assert!(
        out.contains("Grok Build") && out.contains("$0.0391"),
        "{out}"
    );
    assert!(out.contains("cargo test"), "{out}");
}

/// An OpenCode run broken as real runs break: each gets its finding at the right line.
#[test]
fn broken_opencode_streams_get_their_finding() {
    let text = std::fs::read_to_string(testdata("agents/opencode/tool-run.ndjson")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let join = |ls: &[&str]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
    // Neither `callID` nor the part's `id`, by which OpenCode 2.0 names the call.
    let no_call_id = lines[3]
        .replace(r#""callID":"toolu_01Bash8kLmN3pQrS5tUvW7xYz2","#, "")
        .replace(r#""id":"prt_a63e1c6d1001Vb3nM5qW8eRt6y","#, "");
    let running = lines[3].replace(r#""status":"completed""#, r#""status":"running""#);
    let no_output = lines[3].replace(
        r#""output":"running 12 tests\n............\ntest result: ok. 12 passed; 0 failed\n","#,
        "",
    );
    let twice = lines[3].replace(
        "toolu_01Bash8kLmN3pQrS5tUvW7xYz2",
        "toolu_01Read4mZpQ8wXyV2bN7cT3sKd",
    );
    let iso = lines[1].replace("1790000002107", r#""2026-09-21T10:13:22.107Z""#);
    let other_session = lines[6].replace(
        r#""sessionID":"ses_5a1c9e2f7ffeKq3VbN8d2RtY0w","part""#,
        r#""sessionID":"ses_other","part""#,
    );
    let negative = lines[7].replace(r#""output":21"#, r#""output":-21"#);
    let permission = "! permission requested: external_directory (/etc/*); auto-rejecting";
    type Case<'a> = (&'a str, String, Vec<(&'a str, u64)>);
    let cases: Vec<Case<'_>> = vec![
        // Cut after a `tool-calls` step: the run never ends.
        ("cut", join(&lines[..5]), vec![("missing-result", 5)]),
        // Cut after `step_start` (the race of 2026-05): no `step_finish` at all.
        ("lone step_start", join(&lines[..1]), vec![("missing-result", 1)]),
        // A `tool_use` without its `callID`.
        (
            "no callID",
            join(&[&lines[..3], &[no_call_id.as_str()][..], &lines[4..]].concat()),
            vec![("missing-field", 4)],
        ),
        // A call written before it ended.
        (
            "running",
            join(&[&lines[..3], &[running.as_str()][..], &lines[4..]].concat()),
            vec![("malformed-tool-call", 4)],
        ),
        // A completed call without `output`.
        (
            "no output",
            join(&[&lines[..3], &[no_output.as_str()][..], &lines[4..]].concat()),
            vec![("missing-field", 4)],
        ),
        // The same `callID` twice.
        (
            "twice",
            join(&[&lines[..3], &[twice.as_str()][..], &lines[4..]].concat()),
            vec![("duplicate-call-id", 4)],
        ),
        // An ISO `timestamp`, as Gemini CLI writes.
        (
            "iso timestamp",
            join(&[&lines[..1], &[iso.as_str()][..], &lines[2..]].concat()),
            vec![("wrong-field-type", 2)],
        ),
        // Another session's line inside the run.
        (
            "other session",
            join(&[&lines[..6], &[other_session.as_str()][..], &lines[7..]].concat()),
            vec![("session-id-mismatch", 7)],
        ),
        // A negative token count.
        (
            "negative tokens",
            join(&[&lines[..7], &[negative.as_str()][..]].concat()),
            vec![("wrong-field-type", 8)],
        ),
        // A step that never finishes before the next begins.
        (
            "step left open",
            join(&[&lines[..4], &lines[5..]].concat()),
            vec![("duplicate-init", 5)],
        ),
        // A `step_finish` with no step.
        (
            "no step",
            join(&[&lines[..5], &lines[6..]].concat()),
            vec![("orphan-completion", 7)],
        ),
        // A record after `done`.
        (
            "after done",
            join(&[&lines[..], &[r#"{"type":"done","timestamp":1790000008000,"sessionID":"ses_5a1c9e2f7ffeKq3VbN8d2RtY0w","reason":"idle","rejected":[]}"#, lines[6]][..]].concat()),
            vec![("event-after-result", 10)],
        ),
        // The permission warning OpenCode prints on stdout: one finding, plain text.
        (
            "permission",
            join(&[&lines[..3], &[permission][..], &lines[3..]].concat()),
            vec![("invalid-json", 4)],
        ),
        // A Codex record inside the run.
        (
            "mixed",
            join(
                &[
                    &lines[..2],
                    &[r#"{"type":"thread.started","thread_id":"t"}"#],
                    &lines[2..],
                ]
                .concat(),
            ),
            vec![("mixed-agents", 3)],
        ),
    ];
    for (what, input, want) in cases {
        let (run, findings) = check_json(
            &["--stdin-filename", "opencode.ndjson"],
            Some(input.as_bytes()),
        );
        let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
        assert_eq!(got, want, "{what}: {}", show(&findings));
        assert_eq!(run.code, 1, "{what}");
        if what == "permission" {
            let f = &findings[0];
            assert!(
                f.message.contains("plain text")
                    && f.help.as_deref().is_some_and(|h| h.contains("not stderr")),
                "{}",
                show(&findings)
            );
        }
    }
    // A last step that stopped for another reason (a length limit, not seen in OpenCode's
    // streams yet): information where it stopped, and the run ended there, not well.
    let length = lines[7].replace(r#""reason":"stop""#, r#""reason":"length""#);
    let input = join(&[&lines[..7], &[length.as_str()][..]].concat());
    let (run, findings) = check_json(
        &["--stdin-filename", "opencode.ndjson"],
        Some(input.as_bytes()),
    );
    let got: Vec<(&str, &str, u64)> = findings
        .iter()
        .map(|f| (f.rule.as_str(), f.severity.as_str(), f.line))
        .collect();
    assert_eq!(got, [("unknown-subtype", "info", 8)], "{}", show(&findings));
    assert_eq!(run.code, 0);
    assert_eq!(common_end(&input)["ok"], false);
}

/// `stats` and the common form of an OpenCode run: tokens summed over its steps (they are per
/// step), its cost the sum of the steps', each `tool_use` one call started and ended, and the
/// run's end after its last `stop` step with the last text; an `error` ends a run that failed.
#[test]
fn opencode_runs_are_counted() {
    let p = "testdata/agents/opencode/tool-run.ndjson";
    let s = stats_of(p);
    assert_eq!(s["usage"]["input_tokens"], 14412 + 1446, "{s}");
    assert_eq!(s["usage"]["output_tokens"], 96 + 21, "{s}");
    assert_eq!(s["cost_usd"], 0.0154, "{s}");
    assert_eq!(s["results"]["success"], 1, "{s}");
    let text = std::fs::read_to_string(testdata("agents/opencode/tool-run.ndjson")).unwrap();
    let end = common_end(&text);
    assert_eq!(end["ok"], true);
    assert_eq!(end["line"], 8);
    assert_eq!(end["session_id"], "ses_5a1c9e2f7ffeKq3VbN8d2RtY0w");
    assert_eq!(
        end["text"],
        "The server listens on port 8080 and all 12 tests pass."
    );
    let failed = std::fs::read_to_string(testdata("agents/opencode/model-error.ndjson")).unwrap();
    let end = common_end(&failed);
    assert_eq!(end["ok"], false);
    assert_eq!(end["text"], "Rate limit exceeded: retry after 30s");
    let run = exec(&["fmt", "--to", "common"], Some(failed.as_bytes()));
    let tool_end = run
        .stdout()
        .lines()
        .find(|l| l.contains("\"tool_end\""))
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .unwrap();
    assert_eq!(tool_end["ok"], false);
    assert_eq!(tool_end["tool_kind"], "search");
    assert_eq!(tool_end["duration_ms"], 141);
}

fn stats_of(path: &str) -> serde_json::Value {
    let run = exec(&["stats", "--format", "json", path], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    doc["files"][0].clone()
}

/// `stats` names the agent of every capture, as the manifest gives it, and its JSON follows the
/// bundled schema.
#[test]
fn stats_name_the_agent_of_every_capture() {
    let Some(dir) = agents_corpus() else { return };
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schemas/stats.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for (file, agent) in manifest(&dir) {
        if file.ends_with(".json") {
            continue;
        }
        let path = dir.join(&file);
        let run = exec(&["stats", "--format", "json", path.to_str().unwrap()], None);
        let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(doc["files"][0]["agent"], agent.as_str(), "{file}");
        if let Err(e) = validator.validate(&doc) {
            panic!("{file}: stats JSON does not follow the schema: {e}");
        }
    }
}

/// Claude Code's tokens are its `result.usage` (the assistant lines repeat a message's `usage`
/// as it was when the message began, with an `output_tokens` of a few); the cost is the
/// result's; tool calls are the `tool_use` blocks.
#[test]
fn claude_tokens_are_the_results_usage() {
    let Some(dir) = agents_corpus() else { return };
    let path = dir.join("claude/ariel-frischer__claude-clean__claude-stream-json-log.log");
    let text = std::fs::read_to_string(&path).unwrap();
    let (mut results, mut input, mut output, mut tools) = (0u64, 0u64, 0u64, 0u64);
    let (mut ids, mut message_output) = (std::collections::HashSet::new(), 0u64);
    let mut cost = 0.0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["type"] == "result" {
            cost = v["total_cost_usd"].as_f64().unwrap();
            results += 1;
            input += v["usage"]["input_tokens"].as_u64().unwrap();
            output += v["usage"]["output_tokens"].as_u64().unwrap();
        }
        if v["type"] != "assistant" {
            continue;
        }
        let m = &v["message"];
        tools += m["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .count() as u64;
        if ids.insert(m["id"].as_str().unwrap().to_owned()) {
            message_output += m["usage"]["output_tokens"].as_u64().unwrap();
        }
    }
    assert!(
        message_output < output,
        "the messages undercount the output"
    );
    let s = stats_of(path.to_str().unwrap());
    assert_eq!(s["agent"], "claude");
    assert_eq!(s["usage"]["input_tokens"], input);
    assert_eq!(s["usage"]["output_tokens"], output);
    assert_eq!(s["usage"]["results"], results);
    assert!((s["cost_usd"].as_f64().unwrap() - cost).abs() < 1e-9);
    let calls: u64 = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["count"].as_u64().unwrap())
        .sum();
    assert_eq!(calls, tools);
    let failed: u64 = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["failed"].as_u64().unwrap())
        .sum();
    assert_eq!(failed, 1, "one tool_result has is_error: true");
}

/// Subagent calls are attributed; Codex counts its turn's usage; Gemini CLI times its calls.
#[test]
fn stats_of_subagents_codex_and_gemini() {
    if let Some(dir) = agents_corpus() {
        let p = dir.join("claude/ariel-frischer__claude-clean__claude-stream-json-simple.log");
        let s = stats_of(p.to_str().unwrap());
        let sub: u64 = s["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["subagent"].as_u64().unwrap())
            .sum();
        assert!(sub >= 10, "{s}");
        let p = dir.join("codex/dungle-scrubs__hcn__codex-0.159.2__tool.ndjson");
        let s = stats_of(p.to_str().unwrap());
        assert_eq!(s["agent"], "codex");
        assert!(s["usage"]["input_tokens"].as_u64().unwrap() > 0);
        assert_eq!(s["results"]["success"], 1);
    }
    let s = stats_of("testdata/agents/gemini/tool-run.ndjson");
    assert_eq!(s["agent"], "gemini");
    // `input_tokens` holds the `cached` ones, which are counted apart.
    assert_eq!(s["usage"]["input_tokens"], 10210 - 4096);
    assert_eq!(s["usage"]["cache_read_tokens"], 4096);
    let shell = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["kind"] == "shell")
        .unwrap()
        .clone();
    assert_eq!(shell["names"][0]["name"], "run_shell_command");
    assert_eq!(shell["failed"], 1);
    assert_eq!(shell["duration_ms"]["max"], 5503);
    let s = stats_of("testdata/agents/gemini/api-error.ndjson");
    assert_eq!(s["results"]["error"], 1);
}

/// `render` shows the conversation, the tool calls with their outcome, subagents and endings.
#[test]
fn render_shows_each_agents_run() {
    let run = exec(&["render", "testdata/agents/gemini/tool-run.ndjson"], None);
    let out = run.stdout();
    for want in [
        "> List the Rust files and read Cargo.toml",
        "I'll look at the project first.",
        "→ Failed: run `cargo check` in 5.5 s: error[E0425]",
        "✓ completed in 14.5 s",
    ] {
        assert!(out.contains(want), "{want:?} in\n{out}");
    }
    let Some(dir) = agents_corpus() else { return };
    let p = dir.join("claude/ariel-frischer__claude-clean__claude-stream-json-simple.log");
    let out = exec(&["render", p.to_str().unwrap()], None).stdout();
    for want in [
        "· Claude Code",
        "→ (subagent) Read file ",
        "EISDIR",
        // The result's usage is the main thread's (16 in); the subagents' messages add theirs.
        "✓ completed in 42.8 s · tokens: 7,031 in, 965 out, 73,564 cache read, 21,848 cache write · $",
    ] {
        assert!(out.contains(want), "{want:?} in\n{out}");
    }
    let p = dir.join("codex/littlebearapps__untether__codex_turn_failed_minimal_reasoning.jsonl");
    let out = exec(&["render", p.to_str().unwrap()], None).stdout();
    assert!(out.contains("✗ failed: {"), "{out}");
}

/// Every input the common-form tests read: the agents' captures (not the JSON arrays), the
/// Gemini CLI fixtures and cursor-agent's healthy fixtures.
fn common_inputs() -> Vec<std::path::PathBuf> {
    let mut inputs = Vec::new();
    if let Some(dir) = agents_corpus() {
        for (file, _) in manifest(&dir) {
            if !file.ends_with(".json") {
                inputs.push(dir.join(file));
            }
        }
    }
    for sub in [
        "agents/gemini",
        "agents/grok",
        "agents/opencode",
        "agents/droid",
        "agents/kimi",
        "agents/qwen",
        "agents/amp",
        "healthy",
    ] {
        let mut files: Vec<_> = std::fs::read_dir(testdata(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        inputs.extend(files);
    }
    inputs
}

/// What `stats` says that the common form must say the same: everything but the records,
/// bytes and event names (one record may give several common events).
fn comparable(s: &serde_json::Value) -> serde_json::Value {
    let tools: Vec<serde_json::Value> = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            serde_json::json!({
                "kind": t["kind"],
                "count": t["count"],
                "unfinished": t["unfinished"],
                "not_ok": t["failed"].as_u64().unwrap() + t["rejected"].as_u64().unwrap(),
                "subagent": t["subagent"],
                "durations": t["duration_ms"],
            })
        })
        .collect();
    serde_json::json!({
        "agent": s["agent"],
        "cost_usd": s["cost_usd"],
        "sessions": s["sessions"],
        "results": s["results"],
        "usage": s["usage"],
        "duration_ms": s["duration_ms"],
        "tool_calls": tools,
    })
}

/// `fmt --to common`: every line follows `schemas/common.schema.json`; the form is read back as
/// a stream of its own that checks clean when its source does, counts the same (`stats`), and
/// comes out of `fmt --to common` unchanged.
#[test]
#[ignore = "slow tier: .ci/run runs it, as `cargo test -- --ignored`"]
fn the_common_form_of_every_stream() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schemas/common.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let inputs = common_inputs();
    assert!(inputs.len() >= 10);
    for input in inputs {
        let p = input.to_str().unwrap();
        let once = exec(&["fmt", "--to", "common", p], None);
        assert!(!once.stdout.is_empty(), "{p}: {}", once.describe());
        for line in once.stdout().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Err(e) = validator.validate(&v) {
                panic!("{p}: {line}\ndoes not follow the common schema: {e}");
            }
        }
        let twice = exec(
            &["fmt", "--to", "common", "--stdin-filename", "common.ndjson"],
            Some(&once.stdout),
        );
        assert_eq!(
            twice.stdout(),
            once.stdout(),
            "{p}: fmt --to common is idempotent"
        );

        let source = stats_of(p);
        let run = exec(&["stats", "--format", "json"], Some(&once.stdout));
        let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(
            comparable(&doc["files"][0]),
            comparable(&source),
            "{p}: stats of the common form"
        );

        let (run, _) = check_json(&["--strict", p], None);
        if run.code == 0 {
            let (run, findings) = check_json(&["--strict"], Some(&once.stdout));
            assert!(
                findings.is_empty() && run.code == 0,
                "{p}: the common form of a clean stream is clean\n{}",
                show(&findings)
            );
        }
    }
}

/// `sjlint schema claude|codex|gemini`: every line of every capture (every element of the
/// arrays) follows its agent's schema, and so do the Gemini CLI fixtures and the agent
/// examples that pass; a failing `wrong-field-type` example does not.
#[test]
fn every_capture_follows_its_agents_schema() {
    let validator = |agent: &str| {
        let run = exec(&["schema", agent], None);
        assert_eq!(run.code, 0, "{}", run.describe());
        let schema: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        jsonschema::validator_for(&schema).unwrap()
    };
    let check = |v: &jsonschema::Validator, what: &str, event: &serde_json::Value| {
        if let Err(e) = v.validate(event) {
            panic!("{what}: {event}\ndoes not follow the schema: {e}");
        }
    };
    if let Some(dir) = agents_corpus() {
        let mut lines = 0;
        for (file, agent) in manifest(&dir) {
            let v = validator(&agent);
            let text = std::fs::read_to_string(dir.join(&file)).unwrap();
            if file.ends_with(".json") {
                let all: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
                for event in &all {
                    check(&v, &file, event);
                    lines += 1;
                }
                continue;
            }
            for line in text.lines() {
                // The non-JSON lines are checked by `check`, not by the schema.
                if let Ok(event) = serde_json::from_str::<serde_json::Value>(line) {
                    check(&v, &file, &event);
                    lines += 1;
                }
            }
        }
        assert!(lines > 300, "{lines} events");
    }
    let gemini = validator("gemini");
    for entry in std::fs::read_dir(testdata("agents/gemini")).unwrap() {
        let path = entry.unwrap().path();
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            check(
                &gemini,
                path.to_str().unwrap(),
                &serde_json::from_str(line).unwrap(),
            );
        }
    }
    let opencode = validator("opencode");
    for entry in std::fs::read_dir(testdata("agents/opencode")).unwrap() {
        let path = entry.unwrap().path();
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            check(
                &opencode,
                path.to_str().unwrap(),
                &serde_json::from_str(line).unwrap(),
            );
        }
    }
    let codex = validator("codex");
    let bad = doc_example("wrong-field-type", "## Codex example that fails");
    let first: serde_json::Value = serde_json::from_str(bad.lines().next().unwrap()).unwrap();
    assert!(
        codex.validate(&first).is_err(),
        "a number thread_id is refused"
    );
    let not_delta = doc_example("assistant-not-delta", "## Example that fails");
    let line3: serde_json::Value = serde_json::from_str(not_delta.lines().nth(2).unwrap()).unwrap();
    assert!(
        gemini.validate(&line3).is_err(),
        "an assistant message without delta is refused"
    );
}

/// `fmt` without `--to` has no cursor form to write another agent's events in: it writes their
/// common form rather than leaving them out.
#[test]
fn fmt_writes_another_agents_stream_in_the_common_form() {
    let p = "testdata/agents/gemini/tool-run.ndjson";
    let plain = exec(&["fmt", p], None);
    let common = exec(&["fmt", "--to", "common", p], None);
    assert_eq!(plain.code, 0, "{}", plain.describe());
    assert!(plain.stdout().lines().count() >= 14);
    assert_eq!(plain.stdout(), common.stdout());
}

/// A stream of no agent sjlint knows: one finding, and `stats` still counts its records.
#[test]
fn an_unknown_agent_is_said_once_and_still_counted() {
    let p = "testdata/rules/unknown-agent/fails.ndjson";
    let (run, findings) = check_json(&[p], None);
    let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
    assert_eq!(got, [("unknown-agent", 1)], "{}", show(&findings));
    assert_eq!(run.code, 0);
    let s = stats_of(p);
    assert_eq!(s["agent"], serde_json::Value::Null);
    assert_eq!(s["records"], 4);
    assert_eq!(s["events"].as_array().unwrap().len(), 4);
}

/// The last line of `sjlint ARGS`: the summary.
fn summary_of(args: &[&str]) -> String {
    let run = exec(args, None);
    run.stdout().lines().last().unwrap_or_default().to_owned()
}

/// The `check` summary names the agent of the inputs when any is not cursor-agent's, with a
/// count per agent when there are several; a cursor run's summary reads as it always has.
#[test]
fn the_check_summary_names_the_agents() {
    let gemini = "testdata/agents/gemini/tool-run.ndjson";
    let got = summary_of(&[gemini]);
    assert!(
        got.starts_with("No problems found in 1 file (Gemini CLI); "),
        "{got}"
    );
    let got = summary_of(&[
        "--format",
        "concise",
        "testdata/sample.ndjson",
        "testdata/agents/claude-session.ndjson",
        "testdata/agents/codex-session.ndjson",
        "testdata/agents/codex-failed.ndjson",
    ]);
    assert!(
        got.contains(" in 4 files (1 cursor-agent, 1 Claude Code, 2 Codex); "),
        "{got}"
    );
    let got = summary_of(&[
        "testdata/agents/codex-session.ndjson",
        "testdata/agents/codex-failed.ndjson",
    ]);
    assert!(got.contains(" in 2 files (Codex); 6 records, "), "{got}");
    // An input of no agent sjlint knows is counted beside the others.
    let got = summary_of(&[gemini, "testdata/rules/unknown-agent/fails.ndjson"]);
    assert!(
        got.contains(" in 2 files (1 Gemini CLI, 1 unknown); "),
        "{got}"
    );
    // `--agent` names the agent it forces.
    let got = summary_of(&["--agent", "gemini", gemini]);
    assert!(got.contains(" in 1 file (Gemini CLI); "), "{got}");
    // cursor-agent alone: no agent named.
    assert_eq!(
        summary_of(&["testdata/sample.ndjson"]),
        "No problems found in 1 file; 20 records, 6.4 kB"
    );
    assert_eq!(
        summary_of(&[
            "testdata/sample.ndjson",
            "testdata/rules/unknown-agent/fails.ndjson"
        ]),
        "0 errors, 1 warning in 2 files; 24 records, 6.8 kB"
    );
}

/// The findings of one stream given on stdin, as (rule, line), and the exit code under
/// `--strict`.
fn strict_findings(stream: &str) -> (i32, Vec<(String, u64)>) {
    let (run, findings) = check_json(
        &["--strict", "--stdin-filename", "run.ndjson"],
        Some(stream.as_bytes()),
    );
    let got = findings.iter().map(|f| (f.rule.clone(), f.line)).collect();
    (run.code, got)
}

/// The last event of the common form of `stream`: the run's end.
fn common_end(stream: &str) -> serde_json::Value {
    let run = exec(&["fmt", "--to", "common"], Some(stream.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.describe());
    let last = run.stdout().lines().last().unwrap_or_default().to_owned();
    serde_json::from_str(&last).unwrap()
}

const CLAUDE_INIT: &str = r#"{"type":"system","subtype":"init","cwd":"/work","session_id":"s1","tools":["Bash"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"none","uuid":"u1"}"#;
const CLAUDE_TEXT: &str = r#"{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":20,"output_tokens":2}},"parent_tool_use_id":null,"session_id":"s1"}"#;

/// Claude Code's `subtype: success` does not say a run went well: `success` with
/// `is_error:true` (an API error) is a failure. An error subtype with `is_error:false` (what
/// Claude Code wrote before it set `is_error` on them, TS SDK 0.2.89) is a failure too. Both are
/// clean streams.
#[test]
fn claude_is_error_is_the_truth_not_subtype() {
    for (subtype, is_error) in [("success", true), ("error_during_execution", false)] {
        let result = format!(
            r#"{{"type":"result","subtype":"{subtype}","is_error":{is_error},"duration_ms":900,"duration_api_ms":800,"num_turns":2,"result":"API Error: 500","session_id":"s1","total_cost_usd":0.0042,"usage":{{"input_tokens":32,"output_tokens":7}}}}"#
        );
        let stream = format!("{CLAUDE_INIT}\n{CLAUDE_TEXT}\n{result}\n");
        assert_eq!(strict_findings(&stream), (0, vec![]), "{subtype}");
        let end = common_end(&stream);
        assert_eq!(end["ok"], false, "{subtype}");
        assert_eq!(end["outcome"], "failed", "{subtype}");
    }
}

const CODEX_START: &str =
    r#"{"type":"thread.started","thread_id":"019a2d7b-c0ed-75a0-8908-de832785d47f"}"#;

/// A Codex process that holds a run, a resumed run of the same thread (`thread.started` again)
/// with a reconnect `error` that is not terminal, an item started, updated and completed under
/// one item type, completed-only items, and a run that fails: clean. The failed turn is what
/// ends the last run; an update or completion of another item type than the start is a finding.
#[test]
fn codex_runs_resume_recover_and_fail() {
    let lines = [
        CODEX_START,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"a"}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}"#,
        CODEX_START,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"error","message":"Reconnecting... 1/5"}"#,
        r#"{"type":"item.started","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":false}]}}"#,
        r#"{"type":"item.updated","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":true}]}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"todo_list","items":[{"text":"a","completed":true}]}}"#,
        r#"{"type":"item.completed","item":{"id":"item_2","type":"reasoning","text":"b"}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":2,"cached_input_tokens":0,"output_tokens":2}}"#,
        CODEX_START,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"turn.failed","error":{"message":"boom"}}"#,
    ];
    let stream = |lines: &[&str]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    assert_eq!(strict_findings(&stream(&lines)), (0, vec![]));
    let end = common_end(&stream(&lines));
    assert_eq!(
        (end["ok"].clone(), end["line"].clone()),
        (false.into(), 15.into())
    );

    // Without its `turn.failed` the last run never ends (said at the end of the input).
    let (code, got) = strict_findings(&stream(&lines[..14]));
    assert_eq!((code, got), (1, vec![("missing-result".to_owned(), 14)]));

    for (at, verb) in [(8, "is updated"), (9, "completes")] {
        let mut changed = lines;
        let other = lines[at].replace(r#""type":"todo_list""#, r#""type":"reasoning""#);
        changed[at] = &other;
        let (run, findings) = check_json(&[], Some(stream(&changed).as_bytes()));
        let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
        assert_eq!(
            got,
            [("tool-kind-mismatch", at as u64 + 1)],
            "{}",
            show(&findings)
        );
        assert!(findings[0].message.contains(verb), "{}", show(&findings));
        assert_eq!(run.code, 1);
    }
}

/// A Gemini CLI run has one `result`: a second one is an event after the end.
#[test]
fn gemini_has_one_result() {
    let init = r#"{"type":"init","timestamp":"2026-01-10T10:00:00.000Z","session_id":"s1","model":"auto"}"#;
    let result = r#"{"type":"result","timestamp":"2026-01-10T10:00:02.100Z","status":"success","stats":{"total_tokens":60,"input_tokens":50,"output_tokens":10,"duration_ms":2100,"tool_calls":1}}"#;
    assert_eq!(strict_findings(&format!("{init}\n{result}\n")), (0, vec![]));
    assert_eq!(
        strict_findings(&format!("{init}\n{result}\n{result}\n")),
        (1, vec![("event-after-result".to_owned(), 3)])
    );
}

/// The junit report names the agent of each file that is not cursor-agent's in its suite's
/// properties; a cursor file's suite is as it always was.
#[test]
fn junit_names_the_agent_of_each_file() {
    let run = exec(
        &[
            "--format",
            "junit",
            "testdata/agents/gemini/tool-run.ndjson",
            "testdata/sample.ndjson",
            "testdata/agents/codex-session.ndjson",
        ],
        None,
    );
    let xml = run.stdout();
    let agents: Vec<&str> = xml
        .lines()
        .filter_map(|l| l.trim().strip_prefix(r#"<property name="agent" value=""#))
        .collect();
    assert_eq!(agents, [r#"gemini"/>"#, r#"codex"/>"#], "{xml}");
    let cursor = xml.split("<testsuite ").nth(2).unwrap();
    assert!(
        cursor.starts_with(r#"name="testdata/sample.ndjson""#),
        "{xml}"
    );
    assert!(!cursor.contains(r#"name="agent""#), "{xml}");
}

/// Claude Code writes one content block per line, and the checker reads the first blocks with
/// the line: a line of several blocks is read whole all the same (every `tool_use` opened,
/// every `tool_result` paired, the one that answers nothing found and pointed at), and a
/// string content keeps its text, escapes and all, in the common form.
#[test]
fn claude_lines_of_many_blocks_are_read_whole() {
    let uses: Vec<String> = (1..=4)
        .map(|i| format!(r#"{{"type":"tool_use","id":"toolu_{i}","name":"Bash","input":{{"command":"ls {i}"}}}}"#))
        .collect();
    let results = |ids: &[&str]| -> String {
        let blocks: Vec<String> = ids
            .iter()
            .map(|id| {
                format!(r#"{{"type":"tool_result","tool_use_id":"{id}","content":"ok \"{id}\""}}"#)
            })
            .collect();
        format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{}]}},"parent_tool_use_id":null,"session_id":"s1"}}"#,
            blocks.join(",")
        )
    };
    let assistant = format!(
        r#"{{"type":"assistant","message":{{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"Four."}},{}],"usage":{{"input_tokens":20,"output_tokens":2}}}},"parent_tool_use_id":null,"session_id":"s1"}}"#,
        uses.join(",")
    );
    let prompt = r#"{"type":"user","message":{"role":"user","content":"say \"hi\"\nplease"},"session_id":"s1"}"#;
    let result = r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":900,"num_turns":2,"result":"ok","session_id":"s1","total_cost_usd":0.001,"usage":{"input_tokens":32,"output_tokens":7}}"#;
    let clean = format!(
        "{CLAUDE_INIT}\n{prompt}\n{assistant}\n{}\n{}\n{result}\n",
        results(&["toolu_3", "toolu_1", "toolu_4"]),
        results(&["toolu_2"])
    );
    assert_eq!(strict_findings(&clean), (0, vec![]));

    let run = exec(&["fmt", "--to", "common"], Some(clean.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.describe());
    let events: Vec<serde_json::Value> = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let count = |kind: &str| events.iter().filter(|e| e["type"] == kind).count();
    assert_eq!(
        (count("tool_start"), count("tool_end")),
        (4, 4),
        "{events:?}"
    );
    let ended: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "tool_end")
        .filter_map(|e| e["call_id"].as_str())
        .collect();
    assert_eq!(ended, ["toolu_3", "toolu_1", "toolu_4", "toolu_2"]);
    let prompt_text = events
        .iter()
        .find(|e| e["type"] == "user_prompt")
        .map(|e| e["text"].clone());
    assert_eq!(prompt_text, Some("say \"hi\"\nplease".into()), "{events:?}");

    // The third block of a line answers a call that was never opened, and the last call has no
    // answer: both found, each on its own line.
    let broken = format!(
        "{CLAUDE_INIT}\n{assistant}\n{}\n{result}\n",
        results(&["toolu_3", "toolu_1", "toolu_9", "toolu_4"])
    );
    let (run, findings) = check_json(&[], Some(broken.as_bytes()));
    let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
    assert_eq!(
        got,
        [("orphan-completion", 3), ("unfinished-tool-call", 2)],
        "{}",
        show(&findings)
    );
    assert!(
        findings[0].message.contains("toolu_9"),
        "{}",
        show(&findings)
    );
    assert_eq!(run.code, 1);
}

/// A Claude Code, Codex or Gemini CLI call left open points at the record that started it, as
/// cursor-agent's does: its record and byte, the column of its id, and a snippet with the id
/// marked.
#[test]
fn an_unfinished_call_of_every_agent_shows_the_record_that_started_it() {
    let cases = [
        ("agents/claude-session.ndjson", "toolu_01Bash7QwErTy"),
        ("agents/codex-session.ndjson", "item_1"),
        (
            "agents/gemini/tool-run.ndjson",
            "read_file__read_file_1791560742625_1",
        ),
        (
            "agents/grok/tool-run.ndjson",
            "call-7f1e2b90-1c4d-4e0a-9b7e-2f3a4c5d6e70-2",
        ),
    ];
    // OpenCode writes each call once, ended: there is no second line to lose.
    for (file, id) in cases {
        let text = std::fs::read_to_string(testdata(file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let quoted = format!("\"{id}\"");
        // The first line holding the id starts the call; the next one that holds it ends it.
        let start = lines.iter().position(|l| l.contains(&quoted)).unwrap();
        let end = start
            + 1
            + lines[start + 1..]
                .iter()
                .position(|l| l.contains(&quoted))
                .unwrap();
        let cut: String = lines
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != end)
            .map(|(_, l)| format!("{l}\n"))
            .collect();
        let (_, findings) = check_json(&[], Some(cut.as_bytes()));
        let open: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.rule == "unfinished-tool-call")
            .collect();
        assert_eq!(open.len(), 1, "{file}: {}", show(&findings));
        let f = open[0];
        let line_start: usize = lines[..start].iter().map(|l| l.len() + 1).sum();
        let id_at = lines[start].find(&quoted).unwrap();
        assert_eq!(f.line, start as u64 + 1, "{file}");
        assert_eq!(f.byte, (line_start + id_at) as u64, "{file}: the id's byte");
        assert_eq!(f.column, Some(id_at as u64 + 1), "{file}: the id's column");
        // The human form shows the started record with the id marked under it.
        let human = exec(&["check"], Some(cut.as_bytes()));
        let shown = human.stdout();
        let marks = format!(" {}\n", "^".repeat(quoted.len()));
        assert!(
            shown.contains(&quoted) && shown.contains(&marks),
            "{file}: {shown}"
        );
    }
}

/// A `type` Claude Code, Codex or Gemini CLI is not known to write is information, as for
/// cursor-agent: it fails nothing, not even `--strict`, until its severity is raised.
#[test]
fn another_agents_new_event_type_is_information_unless_raised() {
    for agent in ["Claude Code", "Codex", "Gemini CLI"] {
        let stream = doc_example(
            "unknown-event-type",
            &format!("## {agent} example that fails"),
        );
        let (run, findings) = check_json(&[], Some(stream.as_bytes()));
        assert_eq!(run.code, 0, "{agent}: {}", show(&findings));
        let got: Vec<(&str, &str)> = findings
            .iter()
            .map(|f| (f.rule.as_str(), f.severity.as_str()))
            .collect();
        assert_eq!(got, [("unknown-event-type", "info")], "{agent}");
        assert!(
            findings[0].message.ends_with(&format!("for {agent}")),
            "{agent}"
        );
        let strict = exec(&["check", "--strict"], Some(stream.as_bytes()));
        assert_eq!(strict.code, 0, "{agent}: --strict\n{}", strict.describe());
        let raised = exec(
            &[
                "check",
                "--strict",
                "--severity",
                "unknown-event-type=warning",
            ],
            Some(stream.as_bytes()),
        );
        assert_eq!(raised.code, 1, "{agent}: raised\n{}", raised.describe());
    }
}
