//! Which agent wrote a stream, by evidence (read in the test's own process, through the
//! library's `check_bytes` and `stats_json`; one case goes through the command line): every real
//! capture and every clean fixture is recognised as its own agent; an agent's first record with the fields other agents share
//! added is still its own; two agents' runs in one input are one `mixed-agents` finding at the
//! line where the second starts, and nothing else from the second run.

use crate::common::{check_json, corpus_dir, exec, show, show_lib, testdata};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What `sjlint stats` and `sjlint check` make of `bytes`, read in the test's own process
/// (`sjlint::stats_json` is one file of `stats --format json`): the agent `stats` names, the
/// findings, and whether the check fails (an error-severity finding: exit code 1).
fn read(bytes: &[u8]) -> (String, Vec<sjlint::Finding>, bool) {
    let opts = sjlint::Options::new();
    let stats: serde_json::Value =
        serde_json::from_str(&sjlint::stats_json(bytes, "-", &opts)).unwrap();
    let agent = stats["agent"].as_str().unwrap_or("(none)").to_owned();
    let mut findings: Vec<sjlint::Finding> = Vec::new();
    sjlint::check_bytes(bytes, &opts, &mut findings);
    let fails = findings
        .iter()
        .any(|f| f.severity == sjlint::Severity::Error);
    (agent, findings, fails)
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !name.ends_with(".md") && !name.ends_with(".tsv")
        })
        .collect();
    files.sort();
    files
}

/// The captures whose documented verdict is a failure (`../shared/corpus/README.md` and
/// `agents/README.md`): everything else is clean.
const FAILING_CAPTURES: &[&str] = &[
    "error-auth",
    "background-default",
    "phase8__codex-instructions",
    "stream-output-multi-1",
    "codex_turn_failed",
    "testdata__assistant_",
    "testdata__system_init",
    "testdata__thinking_",
    "testdata__tool_call_",
    "testdata__user.json",
];

/// Every real capture (top level: cursor-agent; `agents/<agent>/`: that agent) and every clean
/// fixture of each agent is recognised as its agent, with no `mixed-agents` or
/// `unknown-agent` finding, and keeps its verdict.
#[test]
fn every_capture_and_fixture_is_its_own_agent() {
    let mut cases: Vec<(PathBuf, &str, bool)> = Vec::new();
    for (folder, agent) in [
        ("healthy", "cursor"),
        ("agents/claude", "claude"),
        ("agents/codex", "codex"),
        ("agents/gemini", "gemini"),
        ("agents/grok", "grok"),
        ("agents/opencode", "opencode"),
        ("agents/pi", "pi"),
        ("agents/copilot", "copilot"),
        ("agents/droid", "droid"),
        ("agents/kimi", "kimi"),
        ("agents/qwen", "qwen"),
        ("agents/amp", "amp"),
        ("agents/common", "common"),
    ] {
        for p in files_in(&testdata(folder)) {
            cases.push((p, agent, true));
        }
    }
    if let Some(corpus) = corpus_dir() {
        let mut add = |dir: PathBuf, agent: &'static str| {
            for p in files_in(&dir) {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                // Events saved as one pretty-printed array: no stream, no agent.
                if name.starts_with("slopus__happy-cli__") {
                    continue;
                }
                let clean = !FAILING_CAPTURES.iter().any(|f| name.contains(f));
                cases.push((p, agent, clean));
            }
        };
        add(corpus.clone(), "cursor");
        for agent in ["claude", "codex", "gemini", "grok"] {
            let dir = corpus.join("agents").join(agent);
            if dir.is_dir() {
                add(dir, agent);
            }
        }
    }
    let mut table = String::new();
    let mut wrong = 0;
    for (path, want, clean) in &cases {
        let (got, findings, fails) = read(&std::fs::read(path).unwrap());
        let stray: Vec<_> = findings
            .iter()
            .filter(|f| f.rule == "mixed-agents" || f.rule == "unknown-agent")
            .collect();
        let verdict_ok = fails != *clean;
        let ok = got == stats_name(want) && stray.is_empty() && verdict_ok;
        if !ok {
            wrong += 1;
        }
        let name = path.file_name().unwrap().to_string_lossy();
        let _ = writeln!(
            table,
            "{} {name}: expected {want}, got {got}; exit {} (expected {}){}",
            if ok { "  " } else { "!!" },
            u8::from(fails),
            u8::from(!clean),
            if stray.is_empty() {
                String::new()
            } else {
                format!("; {}", show_lib(&findings))
            }
        );
    }
    assert!(cases.len() >= 30, "too few inputs:\n{table}");
    assert_eq!(wrong, 0, "{wrong} of {} inputs:\n{table}", cases.len());
}

/// The lines of a fixture, without their line ends.
fn lines(rel: &str) -> Vec<String> {
    std::fs::read_to_string(testdata(rel))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `lines` as one input.
fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The first record of `lines` with `fields` added at its end.
fn with_fields(lines: &[String], fields: &str) -> String {
    let mut out = lines.to_vec();
    let first = out[0].trim_end().strip_suffix('}').unwrap().to_owned();
    out[0] = format!("{first},{fields}}}");
    join(&out)
}

/// One clean stream of each agent, from the fixtures: (agent, fixture).
const STREAMS: &[(&str, &str)] = &[
    ("cursor", "healthy/thinking-deltas-then-completed.ndjson"),
    ("claude", "agents/claude/partial-messages.ndjson"),
    ("codex", "agents/codex/edit-and-answer.ndjson"),
    ("gemini", "agents/gemini/tool-run.ndjson"),
    ("grok", "agents/grok/tool-run.ndjson"),
    ("opencode", "agents/opencode/tool-run.ndjson"),
    ("pi", "agents/pi/tool-run.ndjson"),
    ("copilot", "agents/copilot/tool-run.ndjson"),
    ("droid", "agents/droid/tool-run.ndjson"),
    ("kimi", "agents/kimi/tool-run.ndjson"),
    ("qwen", "agents/qwen/tool-run.ndjson"),
    ("amp", "agents/amp/tool-run.ndjson"),
    ("common", "agents/common/gemini-tool-run.ndjson"),
];

/// The agent `stats` names for a stream of `agent`'s: a stream in the common form is named by
/// the agent it was converted from (the common fixture is a Gemini CLI run).
fn stats_name(agent: &str) -> &str {
    if agent == "common" { "gemini" } else { agent }
}

fn stream_of(agent: &str) -> Vec<String> {
    let (_, rel) = STREAMS.iter().find(|(a, _)| *a == agent).unwrap();
    lines(rel)
}

/// An agent's first record with the fields that other agents write too is still its own, and
/// the stream stays clean: a field several agents write never decides alone.
#[test]
fn shared_fields_do_not_decide() {
    let shared_init = [
        r#""mcp_servers":[{"name":"fs","status":"connected"}]"#,
        r#""slash_commands":["compact"]"#,
        r#""skills":["review"]"#,
        r#""plugins":[]"#,
        r#""tools":[]"#,
        r#""uuid":"8d0f6c1e-2b3a-4c5d-9e8f-0a1b2c3d4e5f""#,
    ];
    let all = shared_init.join(",");
    let mut cases: Vec<(&str, String)> = Vec::new();
    for f in shared_init {
        cases.push(("cursor", f.to_owned()));
    }
    cases.push(("cursor", all.clone()));
    for (agent, fields) in [
        ("claude", r#""permissionMode":"default","cwd":"/w""#),
        (
            "codex",
            r#""session_id":"s","model":"gpt-5","cwd":"/w","uuid":"u""#,
        ),
        (
            "gemini",
            r#""apiKeySource":"login","cwd":"/w","permissionMode":"default","uuid":"u","tools":[]"#,
        ),
        (
            "grok",
            r#""session_id":"s","model":"grok-code","uuid":"u","cwd":"/w""#,
        ),
        (
            "opencode",
            r#""session_id":"s","model":"m","uuid":"u","cwd":"/w","tools":[]"#,
        ),
        (
            "pi",
            r#""session_id":"s","model":"m","uuid":"u","tools":[],"apiKeySource":"login""#,
        ),
        (
            "copilot",
            r#""session_id":"s","model":"m","uuid":"u","cwd":"/w","tools":[],"sessionID":"ses_1""#,
        ),
        (
            "droid",
            r#""uuid":"u","mcp_servers":[],"slash_commands":[],"skills":[],"plugins":[]"#,
        ),
        (
            "kimi",
            r#""session_id":"s","model":"kimi-k2","uuid":"u","cwd":"/w""#,
        ),
        (
            "qwen",
            r#""apiKeySource":"none","permissionMode":"default","skills":[],"plugins":[]"#,
        ),
        (
            "amp",
            r#""model":"claude-sonnet-4-5","uuid":"u","permissionMode":"default","apiKeySource":"none""#,
        ),
        ("common", r#""uuid":"u","cwd":"/w","apiKeySource":"login""#),
    ] {
        cases.push((agent, fields.to_owned()));
    }
    let mut table = String::new();
    let mut wrong = 0;
    for (agent, fields) in &cases {
        let input = with_fields(&stream_of(agent), fields);
        let (got, findings, fails) = read(input.as_bytes());
        let ok = got == stats_name(agent) && !fails;
        if !ok {
            wrong += 1;
        }
        let _ = writeln!(
            table,
            "{} {agent} + {fields}: got {got}, fails {fails} {}",
            if ok { "  " } else { "!!" },
            show_lib(&findings)
        );
    }
    assert_eq!(wrong, 0, "{table}");
}

/// A real cursor-agent init of 2026.09 with the keys Claude Code's init has too: the stream is
/// cursor's, and it is checked as cursor's (its finding is found).
#[test]
fn a_cursor_init_with_mcp_servers_is_cursors() {
    let mut stream = stream_of("cursor");
    // A finding only cursor's checker gives: the result's flags disagree.
    let last = stream.len() - 1;
    stream[last] = stream[last].replace(r#""is_error":false"#, r#""is_error":true"#);
    let input = with_fields(
        &stream,
        r#""mcp_servers":[],"slash_commands":[],"skills":[],"plugins":[]"#,
    );
    // Through the command line: stats names the agent, check finds what its checker finds.
    let stats = exec(&["stats", "--format", "json"], Some(input.as_bytes()));
    let doc: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(doc["files"][0]["agent"], "cursor", "{}", stats.describe());
    let (_, findings) = check_json(&[], Some(input.as_bytes()));
    let rules: Vec<&str> = findings.iter().map(|f| f.rule.as_str()).collect();
    assert!(
        rules.contains(&"result-flag-mismatch") && !rules.contains(&"mixed-agents"),
        "{}",
        show(&findings)
    );
}

/// Two agents' runs in one input, in every order: one `mixed-agents` finding at the first line
/// of the second run and nothing else, and the input is the first agent's.
#[test]
fn mixed_streams_are_caught_once_in_both_directions() {
    let mut table = String::new();
    let mut wrong = 0;
    for (first, _) in STREAMS {
        for (second, _) in STREAMS {
            if first == second {
                continue;
            }
            let a = stream_of(first);
            let b = stream_of(second);
            let input = join(&[a.clone(), b].concat());
            let (got_agent, findings, _) = read(input.as_bytes());
            let got: Vec<(&str, u64)> = findings.iter().map(|f| (f.rule, f.line)).collect();
            let want = match (*first, *second) {
                // droid's `system`/`init` has the keys of Claude Code's (and Qwen Code's and
                // Amp's, which share its shape) and cursor-agent's and no mark: their checkers
                // take it for a session of theirs (which then has no result), and the finding
                // is at droid's first marked record.
                ("cursor" | "claude" | "qwen" | "amp", "droid") => vec![
                    ("mixed-agents", a.len() as u64 + 2),
                    ("missing-result", a.len() as u64 + 1),
                ],
                ("common", "droid") => vec![("mixed-agents", a.len() as u64 + 2)],
                _ => vec![("mixed-agents", a.len() as u64 + 1)],
            };
            let ok = got == want && got_agent == stats_name(first);
            if !ok {
                wrong += 1;
            }
            let _ = writeln!(
                table,
                "{} {first} then {second}: agent {got_agent}; {got:?} (want {want:?})",
                if ok { "  " } else { "!!" },
            );
        }
    }
    assert_eq!(wrong, 0, "{table}");
}
