//! One outcome for every agent: how each session ended, said in the same words by the common
//! form, `stats`, `render`, `run --summary` and the report, with the outcomes derived here from
//! what the fixtures' own records say (`docs/outcomes.md` is the table this file checks).

use crate::common::{exec, run_cmd, sjlint, testdata};
use serde_json::Value;

/// The outcome each of Claude Code's `terminal_reason`s (2.1.91 on) means; `is_error` says
/// nothing more for these.
fn of_terminal_reason(reason: &str) -> &'static str {
    match reason {
        "completed" => "completed",
        "max_turns" => "max_turns",
        "budget_exhausted" => "budget",
        "hook_stopped" => "hook_stopped",
        "aborted_streaming" | "aborted_tools" => "cancelled",
        // Every other reason says the turn died.
        _ => "failed",
    }
}

fn lines(path: &str) -> Vec<Value> {
    std::fs::read_to_string(testdata(path))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn stats_file(path: &str) -> Value {
    let run = exec(
        &[
            "stats",
            "--format",
            "json",
            &testdata(path).to_string_lossy(),
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    doc["files"][0].clone()
}

/// The `end` events of the common form of `path`, as (line, outcome, reason).
fn common_ends(path: &str) -> Vec<(u64, String, Option<String>)> {
    let run = exec(
        &["fmt", "--to", "common", &testdata(path).to_string_lossy()],
        None,
    );
    assert!(run.code == 0 || run.code == 1, "{}", run.describe());
    run.stdout()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "end")
        .map(|e| {
            (
                e["line"].as_u64().unwrap(),
                e["outcome"].as_str().unwrap().to_owned(),
                e["reason"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[test]
fn every_terminal_reason_of_claude_code_has_its_outcome_in_every_output() {
    let path = "agents/claude/terminal-reasons.ndjson";
    let results: Vec<(u64, String)> = lines(path)
        .iter()
        .enumerate()
        .filter(|(_, r)| r["type"] == "result")
        .map(|(i, r)| {
            (
                i as u64 + 1,
                r["terminal_reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(results.len() >= 16, "a fixture per reason");
    let want: Vec<(u64, &str)> = results
        .iter()
        .map(|(line, r)| (*line, of_terminal_reason(r)))
        .collect();

    // The common form: every `end` with its outcome, and the agent's reason beside a failure.
    let ends = common_ends(path);
    let got: Vec<(u64, &str)> = ends.iter().map(|(l, o, _)| (*l, o.as_str())).collect();
    assert_eq!(got, want);
    for ((_, o, reason), (_, r)) in ends.iter().zip(&results) {
        if o != "completed" {
            assert_eq!(reason.as_deref(), Some(r.as_str()));
        }
    }

    // `stats`: the sessions one by one, and counted by outcome.
    let s = stats_file(path);
    let listed: Vec<(u64, &str)> = s["session_outcomes"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["line"].as_u64().unwrap(), e["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(listed, want);
    for outcome in [
        "completed",
        "failed",
        "max_turns",
        "budget",
        "hook_stopped",
        "cancelled",
    ] {
        let n = want.iter().filter(|(_, o)| *o == outcome).count() as u64;
        assert_eq!(s["outcomes"][outcome], n, "{outcome}: {s:#}");
    }
    // A result that says `success` of a turn that died is not a success.
    assert_eq!(s["results"]["success"], 1, "{s:#}");

    // `render`: the last line of each session names its outcome and the agent's reason.
    let run = exec(
        &[
            "render",
            "--color",
            "never",
            &testdata(path).to_string_lossy(),
        ],
        None,
    );
    let closing: Vec<String> = run
        .stdout()
        .lines()
        .filter(|l| l.starts_with("✓ ") || l.starts_with("✗ "))
        .map(str::to_owned)
        .collect();
    assert_eq!(closing.len(), want.len(), "{}", run.stdout());
    for (line, ((_, outcome), (_, reason))) in closing.iter().zip(want.iter().zip(&results)) {
        assert!(line.contains(outcome), "{line}");
        // The agent's word beside the outcome, unless it is the outcome's own.
        if *outcome != "completed" && reason != outcome {
            assert!(line.contains(&format!("({reason})")), "{line}");
        }
    }
}

#[test]
fn calls_refused_permission_make_a_success_denied_and_are_counted() {
    let path = "agents/claude/permission-denied.ndjson";
    let records = lines(path);
    let result = records.iter().find(|r| r["type"] == "result").unwrap();
    assert_eq!(result["is_error"], false);
    let denials = result["permission_denials"].as_array().unwrap().len() as u64;
    assert!(denials > 0);
    let ends = common_ends(path);
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0].1, "denied");
    let s = stats_file(path);
    assert_eq!(s["outcomes"]["denied"], 1, "{s:#}");
    assert_eq!(s["denied"], denials, "{s:#}");
    // The tool result that says permission was not granted is a refused call, not a failure.
    let edit = s["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["kind"] == "write")
        .unwrap();
    assert_eq!(
        (edit["rejected"].as_u64(), edit["failed"].as_u64()),
        (Some(1), Some(0))
    );
    let run = exec(
        &[
            "render",
            "--color",
            "never",
            &testdata(path).to_string_lossy(),
        ],
        None,
    );
    let last = run.stdout().lines().last().unwrap_or_default().to_owned();
    assert!(last.starts_with("! denied"), "{last}");
    assert!(last.contains("1 tool call refused permission"), "{last}");
}

#[test]
fn a_session_that_did_nothing_is_empty_and_check_warns() {
    for path in [
        "warnings/claude-did-nothing.ndjson",
        "rules/did-nothing/fails.ndjson",
    ] {
        let run = exec(
            &[
                "check",
                "--format",
                "json",
                &testdata(path).to_string_lossy(),
            ],
            None,
        );
        assert_eq!(run.code, 0, "{}", run.describe());
        let rules: Vec<String> = run.findings().into_iter().map(|f| f.rule).collect();
        assert_eq!(rules, ["did-nothing"], "{path}");
        let strict = exec(
            &["check", "--strict", &testdata(path).to_string_lossy()],
            None,
        );
        assert_eq!(strict.code, 1, "{}", strict.describe());
        assert_eq!(stats_file(path)["outcomes"]["empty"], 1, "{path}");
    }
    // A session that called a tool did something, whatever its result says.
    let run = exec(
        &[
            "check",
            "--format",
            "json",
            &testdata("rules/did-nothing/passes.ndjson").to_string_lossy(),
        ],
        None,
    );
    assert!(run.findings().is_empty(), "{}", run.describe());
}

/// A stream cut before the agent's last record: its common form closes the session with an
/// `end` of outcome `no_result`, and checking that form fails as checking the source did.
#[test]
fn a_run_that_never_finished_stays_unfinished_in_its_common_form() {
    let cut: String = std::fs::read_to_string(testdata("agents/claude/tool-run.ndjson"))
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"type\":\"result\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let source = exec(&["check", "--format", "json", "-"], Some(cut.as_bytes()));
    assert!(source.findings().iter().any(|f| f.rule == "missing-result"));
    let common = exec(&["fmt", "--to", "common", "-"], Some(cut.as_bytes()));
    let last: Value = serde_json::from_str(common.stdout().lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "end", "{}", common.stdout());
    assert_eq!(last["outcome"], "no_result");
    assert_eq!(last["ok"], false);
    let again = exec(&["check", "--format", "json", "-"], Some(&common.stdout));
    assert_eq!(again.code, 1, "{}", again.describe());
    assert!(again.findings().iter().any(|f| f.rule == "missing-result"));
    // And its statistics: one session, ended without a result; no result counted.
    let stats = exec(&["stats", "--format", "json", "-"], Some(&common.stdout));
    let s: Value = serde_json::from_slice(&stats.stdout).unwrap();
    let f = &s["files"][0];
    assert_eq!(f["outcomes"]["no_result"], 1, "{f:#}");
    assert_eq!(
        (
            f["results"]["success"].as_u64(),
            f["results"]["error"].as_u64()
        ),
        (Some(0), Some(0))
    );
    // A stream whose result came, with records after it, is no unfinished session.
    let after = format!(
        "{}{}\n",
        std::fs::read_to_string(testdata("agents/claude/tool-run.ndjson")).unwrap(),
        r#"{"type":"assistant","message":{"id":"msg_9","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"late"}]},"parent_tool_use_id":null,"session_id":"s1"}"#
    );
    let common = exec(&["fmt", "--to", "common", "-"], Some(after.as_bytes()));
    assert!(
        !common.stdout().contains("no_result"),
        "{}",
        common.stdout()
    );
}

/// The outcome of each agent's fixtures of an ending, derived from the record that ends it.
#[test]
fn every_agent_says_how_its_run_ended_in_the_same_words() {
    let cases: &[(&str, &str)] = &[
        ("agents/qwen/max-turns.ndjson", "max_turns"),
        ("agents/grok/max-turns.ndjson", "max_turns"),
        ("agents/grok/api-error.ndjson", "failed"),
        ("agents/gemini/cancelled.ndjson", "cancelled"),
        ("agents/gemini/api-error.ndjson", "failed"),
        ("agents/pi/model-error.ndjson", "failed"),
        ("agents/opencode/model-error.ndjson", "failed"),
        ("agents/codex-failed.ndjson", "failed"),
        ("agents/copilot/api-error.ndjson", "failed"),
        ("agents/amp/error.ndjson", "failed"),
        ("agents/droid/failed.ndjson", "failed"),
        ("agents/claude/tool-run.ndjson", "completed"),
        ("agents/codex-completed.ndjson", "empty"),
    ];
    for (path, want) in cases {
        let text = std::fs::read_to_string(testdata(path)).unwrap();
        // What the fixture's own last record says, as docs/outcomes.md reads it.
        let said = match *want {
            "max_turns" => text.contains("max_turn") || text.contains("MaxTurn"),
            "cancelled" => text.contains("FatalCancellationError"),
            "failed" => text.contains("error") || text.contains("failed"),
            "empty" => !text.contains("agent_message") && !text.contains("command_execution"),
            _ => true,
        };
        assert!(said, "{path} does not say {want}");
        let ends = common_ends(path);
        assert_eq!(
            ends.last().map(|e| e.1.as_str()),
            Some(*want),
            "{path}: {ends:?}"
        );
        assert_eq!(stats_file(path)["outcomes"][*want], 1, "{path}");
    }
}

/// `run` says the outcome in its summary, and a result that says `success` of a turn that hit
/// its turn limit is the agent's failure (exit 3), not a success.
#[test]
fn run_summarises_the_outcome_and_exits_by_it() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("outcome-run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let records = lines("agents/claude/terminal-reasons.ndjson");
    // The second session: it hit its turn limit, and its result says success.
    let session: Vec<String> = records
        .iter()
        .skip(4)
        .take(4)
        .map(|r| serde_json::to_string(r).unwrap())
        .collect();
    let last: Value = serde_json::from_str(session.last().unwrap()).unwrap();
    assert_eq!(
        (
            last["subtype"].as_str(),
            last["is_error"].as_bool(),
            last["terminal_reason"].as_str()
        ),
        (Some("success"), Some(false), Some("max_turns"))
    );
    let stream = dir.join("stream.ndjson");
    std::fs::write(&stream, session.join("\n") + "\n").unwrap();
    let mut cmd = sjlint();
    cmd.args(["run", "--color", "never", "--summary"])
        .arg(dir.join("summary.json"))
        .arg("--")
        .arg(testdata("agents/replay.sh"))
        .env("STREAM", &stream)
        .env("PIDS", dir.join("pids"));
    let run = run_cmd(cmd, None);
    assert_eq!(run.code, 3, "{}", run.describe());
    let s: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["outcome"], "max_turns", "{s:#}");
    assert_eq!(s["reason"], "max_turns", "{s:#}");
    assert!(
        run.stderr().contains("outcome max_turns"),
        "{}",
        run.describe()
    );
}
