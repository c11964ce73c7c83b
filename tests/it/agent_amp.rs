//! Amp's stream (`amp -x … --stream-json`): its fixtures, written from the vendor's notes and
//! example (Amp is closed source; no capture file exists), are clean, follow its schema and are
//! recognised without `--agent` by its `T-` thread ids; broken runs get their finding at their
//! line; its common form checks clean; `stats` counts its tokens from the assistant lines (its
//! results carry none), no cost, and its tool kinds; with `--stream-json-input` each turn ends
//! with its own `result`.

use crate::common::agent::*;
use crate::common::*;

const DIR: &str = "agents/amp";

#[test]
fn broken_amp_runs_get_their_finding_at_their_line() {
    let text = fixture_text(DIR, "tool-run.ndjson");
    let l: Vec<&str> = text.lines().collect();
    let orphan = l[3].replace(
        "toolu_01HfQm3vXo8Rk2pWn7Ls4TcA",
        "toolu_01XXXXXXXXXXXXXXXXXXXXXX",
    );
    let unnamed = l[2].replace(r#","name":"Bash""#, "");
    let num_turns = l[5].replace(r#""num_turns":1"#, r#""num_turns":"1""#);
    let other_thread = l[4].replace(
        "T-019c4a1e-7b3d-71c2-9e4f-2a8d5c0b6e13",
        "T-019c4a1e-0000-7000-8000-000000000000",
    );
    let codex = r#"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}"#;
    let w = |r: &str, line: u64| (r.to_owned(), "error".to_owned(), line);
    let cases: Vec<(&str, String, Vec<Got>)> = vec![
        // Cut before its result: the run never ends.
        ("cut", join(&l[..5]), vec![w("missing-result", 5)]),
        // Cut while the tool runs: the call is unfinished too.
        (
            "cut in the call",
            join(&l[..3]),
            vec![w("missing-result", 3), w("unfinished-tool-call", 3)],
        ),
        // A tool result no tool_use opened, and the call it should have answered.
        (
            "orphan",
            join(&[&l[..3], &[orphan.as_str()][..], &l[4..]].concat()),
            vec![w("orphan-completion", 4), w("unfinished-tool-call", 3)],
        ),
        // A tool_use without its name.
        (
            "no name",
            join(&[&l[..2], &[unnamed.as_str()][..], &l[3..]].concat()),
            vec![w("missing-field", 3)],
        ),
        (
            "num_turns a string",
            join(&[&l[..5], &[num_turns.as_str()][..]].concat()),
            vec![w("wrong-field-type", 6)],
        ),
        (
            "another thread",
            join(&[&l[..4], &[other_thread.as_str()][..], &l[5..]].concat()),
            vec![w("session-id-mismatch", 5)],
        ),
        (
            "mixed",
            join(&[&l[..2], &[codex][..], &l[2..]].concat()),
            vec![w("mixed-agents", 3)],
        ),
        // An assistant line after the result, with no user message opening a turn.
        (
            "after the result",
            join(&[&l[..], &[l[4]][..]].concat()),
            vec![w("event-after-result", 7)],
        ),
    ];
    for (what, input, want) in cases {
        let (code, got) = findings_of(&input, "amp.ndjson");
        assert_eq!(got, want, "{what}");
        assert_ne!(code, 0, "{what}");
        assert_eq!(
            stats_of(&[], Some(input.as_bytes()))["agent"],
            "amp",
            "{what}"
        );
    }
}

/// With `--stream-json-input` a user message after a `result` is the next turn, ended by its own
/// `result`: two runs in the common form; a turn cut short is `missing-result`.
#[test]
fn amp_turns_each_end_with_a_result() {
    let text = fixture_text(DIR, "multi-turn.ndjson");
    let ends: Vec<serde_json::Value> = common_of(&text, &[])
        .into_iter()
        .filter(|e| e["type"] == "end")
        .collect();
    assert_eq!(ends.len(), 2);
    assert_eq!(ends[0]["text"], "4.");
    assert_eq!(ends[1]["text"], "11.");
    assert_eq!(ends[1]["line"], 7);
    let l: Vec<&str> = text.lines().collect();
    let (_, got) = findings_of(&join(&l[..6]), "amp.ndjson");
    assert_eq!(got, [("missing-result".to_owned(), "error".to_owned(), 6)]);
    let s = stats_of(&[], Some(text.as_bytes()));
    assert_eq!(s["results"]["success"], 2, "{s}");
}

#[test]
fn amp_runs_in_the_common_form_check_clean() {
    for path in fixtures(DIR) {
        let p = path.to_str().unwrap();
        let form = exec(&["fmt", "--to", "common", p], None);
        assert_eq!(form.code, 0, "{}", form.describe());
        let (run, findings) = check_json(&["--strict", "--agent", "common"], Some(&form.stdout));
        assert!(
            findings.is_empty() && run.code == 0,
            "{p}\n{}",
            show(&findings)
        );
        let first: serde_json::Value =
            serde_json::from_str(form.stdout().lines().next().unwrap()).unwrap();
        assert_eq!(first["agent"], "amp", "{p}");
    }
}

#[test]
fn amp_runs_are_counted() {
    let s = stats_of(
        &[testdata(&format!("{DIR}/tool-run.ndjson"))
            .to_str()
            .unwrap()],
        None,
    );
    // Amp's results have no usage: each assistant line's, added up.
    assert_eq!(s["usage"]["input_tokens"], 17312 + 17498, "{s}");
    assert_eq!(s["usage"]["output_tokens"], 64 + 15, "{s}");
    assert_eq!(s["usage"]["cache_read_tokens"], 15872 + 17112, "{s}");
    assert_eq!(s["usage"]["cache_write_tokens"], 1240 + 186, "{s}");
    assert_eq!(s["cost_usd"], serde_json::Value::Null, "{s}");
    assert_eq!(s["tool_calls"][0]["kind"], "shell", "{s}");
    let p = testdata(&format!("{DIR}/error.ndjson"));
    let s = stats_of(&[p.to_str().unwrap()], None);
    assert_eq!(s["results"]["error"], 1, "{s}");
    assert_eq!(s["tool_calls"][0]["kind"], "web_fetch", "{s}");
    assert_eq!(s["tool_calls"][0]["failed"], 1, "{s}");
    let end = common_of(&fixture_text(DIR, "error.ndjson"), &[])
        .pop()
        .unwrap();
    assert_eq!(end["ok"], false);
    // `render` names the command of Amp's `Bash` (its `cmd`) and echoes the prompt.
    let p = testdata(&format!("{DIR}/tool-run.ndjson"));
    let run = exec(&["render", "--color", "never", p.to_str().unwrap()], None);
    let out = run.stdout();
    assert!(out.contains("Ran `npm test`"), "{out}");
    assert!(
        out.contains("> Run the tests and tell me whether they pass."),
        "{out}"
    );
}

/// Amp is told by its thread id on any line that has a session id, not by what it leaves out:
/// a stream of the family whose ids are not thread ids is Claude Code's.
#[test]
fn amp_is_told_by_its_thread_id() {
    let text = fixture_text(DIR, "minimal.ndjson");
    // The init lost: the echoed prompt's thread id decides.
    let l: Vec<&str> = text.lines().collect();
    let input = join(&l[1..]);
    assert_eq!(stats_of(&[], Some(input.as_bytes()))["agent"], "amp");
    let (_, got) = findings_of(&input, "amp.ndjson");
    assert_eq!(got, [("missing-init".to_owned(), "error".to_owned(), 1)]);
    let plain = text.replace(
        "T-2775dc92-90ed-4f85-8b73-8f9766029e83",
        "2775dc92-90ed-4f85-8b73-8f9766029e83",
    );
    assert_eq!(stats_of(&[], Some(plain.as_bytes()))["agent"], "claude");
}

/// `sjlint run` supervising a replay of the tool run: the agent, its result, its call and its
/// tokens in the summary, and the stream passed on unchanged.
#[test]
fn a_amp_run_under_supervision() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("agent-amp-run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let stream = testdata(&format!("{DIR}/tool-run.ndjson"));
    let mut cmd = sjlint();
    cmd.args(["run", "--color", "never", "--summary"])
        .arg(dir.join("summary.json"))
        .arg("--")
        .arg(testdata("agents/replay.sh"))
        .env("STREAM", &stream)
        .env("PIDS", dir.join("pids"));
    let run = run_cmd(cmd, None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(run.stdout, std::fs::read(&stream).unwrap());
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["agent"]["kind"], "amp", "{s:#}");
    assert_eq!(s["result"]["line"], 6, "{s:#}");
    assert_eq!(s["result"]["is_error"], false, "{s:#}");
    assert_eq!(s["tool_calls"]["total"], 1, "{s:#}");
    assert!(s["tokens"]["input"].as_u64().unwrap() > 0, "{s:#}");
}
