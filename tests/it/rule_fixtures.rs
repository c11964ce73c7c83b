//! Every rule's fixtures per agent, found in their folder: `testdata/rules/<rule>/<agent>/`
//! holds `fails.ndjson`, which must give the rule, and `passes.ndjson`, which must not, each
//! read as that agent's stream through the library (no process per fixture), and beside each a
//! snapshot of its findings (`fails.expected`, `passes.expected`: one finding a line, `line
//! rule severity message`), which `SJLINT_BLESS=1 cargo test --test it rule_fixtures` rewrites.
//! (The fixtures directly under `testdata/rules/<rule>/` are cursor-agent's, run through the
//! binary by `cli::rule_fixtures`.)

use crate::common::testdata;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The findings of `input`, read as `agent`'s stream, one a line.
fn findings(agent: &str, input: &[u8]) -> (String, Vec<&'static str>) {
    let opts = sjlint::Options::new()
        .agent(agent)
        .unwrap_or_else(|e| panic!("`{agent}` is no agent sjlint knows: {e}"));
    let mut found: Vec<sjlint::Finding> = Vec::new();
    sjlint::check_bytes(input, &opts, &mut found);
    let mut text = String::new();
    for f in &found {
        writeln!(
            text,
            "{} {} {} {}",
            f.line,
            f.rule,
            f.severity,
            one_line(&f.message)
        )
        .unwrap();
    }
    (text, found.iter().map(|f| f.rule).collect())
}

/// `message` on one line: its control characters (a raw newline of an id) escaped.
fn one_line(message: &str) -> String {
    message
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Every `testdata/rules/<rule>/<agent>/` folder, sorted.
fn folders() -> Vec<(String, String, PathBuf)> {
    let mut all = Vec::new();
    for rule in std::fs::read_dir(testdata("rules")).expect("testdata/rules") {
        let rule = rule.unwrap();
        if !rule.path().is_dir() {
            continue;
        }
        for agent in std::fs::read_dir(rule.path()).unwrap() {
            let agent = agent.unwrap();
            if agent.path().is_dir() {
                all.push((
                    rule.file_name().to_string_lossy().into_owned(),
                    agent.file_name().to_string_lossy().into_owned(),
                    agent.path(),
                ));
            }
        }
    }
    all.sort();
    all
}

/// Compares `actual` with the snapshot at `path`, or writes it under `SJLINT_BLESS=1`; the
/// difference when they differ.
fn compare(path: &Path, actual: &str) -> Option<String> {
    if std::env::var("SJLINT_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(path, actual).unwrap();
        return None;
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => None,
        Ok(expected) => Some(format!(
            "{} differs (SJLINT_BLESS=1 rewrites it)\n--- expected\n{expected}--- actual\n{actual}---",
            path.display()
        )),
        Err(e) => Some(format!(
            "{}: {e} (SJLINT_BLESS=1 writes it)",
            path.display()
        )),
    }
}

#[test]
fn every_rule_fixture_of_every_agent_gives_its_findings() {
    let folders = folders();
    assert!(
        folders.len() >= 60,
        "the fixtures per agent are gone: {} folders",
        folders.len()
    );
    let mut failures = Vec::new();
    for (rule, agent, dir) in &folders {
        assert!(
            sjlint::rules().any(|r| r.name == rule),
            "{}: `{rule}` is no rule",
            dir.display()
        );
        for which in ["fails", "passes"] {
            let input = dir.join(format!("{which}.ndjson"));
            let bytes =
                std::fs::read(&input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
            let (text, rules) = findings(agent, &bytes);
            let fired = rules.contains(&rule.as_str());
            if which == "fails" && !fired {
                failures.push(format!("{} does not give {rule}:\n{text}", input.display()));
            }
            if which == "passes" && fired {
                failures.push(format!("{} gives {rule}:\n{text}", input.display()));
            }
            if let Some(diff) = compare(&dir.join(format!("{which}.expected")), &text) {
                failures.push(diff);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The rules every agent that can break them has fixtures of: the agents' checkers word
/// them through one builder each, and the snapshots show that wording per agent.
#[test]
fn the_pairing_and_lifecycle_rules_have_fixtures_for_each_agent_that_has_them() {
    let have: Vec<(String, String)> = folders().into_iter().map(|(r, a, _)| (r, a)).collect();
    let agents = [
        "claude", "codex", "gemini", "grok", "pi", "copilot", "droid", "kimi", "opencode", "common",
    ];
    // What an agent's stream cannot give: Claude Code, Codex, Copilot CLI and Kimi CLI have no
    // record that opens a session inside one (a second init begins the next run), OpenCode
    // writes each call once, when it has ended.
    let cannot = [
        ("duplicate-init", "claude"),
        ("duplicate-init", "codex"),
        ("duplicate-init", "copilot"),
        ("duplicate-init", "kimi"),
        ("duplicate-init", "common"),
        ("unfinished-tool-call", "opencode"),
    ];
    let mut missing = Vec::new();
    for rule in [
        "missing-result",
        "orphan-completion",
        "unfinished-tool-call",
        "duplicate-init",
        "wrong-field-type",
        "missing-field",
        "duplicate-call-id",
    ] {
        for agent in agents {
            if !cannot.contains(&(rule, agent))
                && !have.contains(&(rule.to_owned(), agent.to_owned()))
            {
                missing.push(format!("testdata/rules/{rule}/{agent}/"));
            }
        }
    }
    for (rule, agents) in SOME_AGENTS {
        for agent in *agents {
            if !have.contains(&((*rule).to_owned(), (*agent).to_owned())) {
                missing.push(format!("testdata/rules/{rule}/{agent}/"));
            }
        }
    }
    assert!(missing.is_empty(), "no fixtures: {missing:#?}");
}

/// The rules worded by one builder that only some agents' checkers give (besides
/// cursor-agent, whose fixtures lie directly in the rule's folder), and those agents: each
/// has fixtures that show the rule's wording with its facts.
const SOME_AGENTS: &[(&str, &[&str])] = &[
    (
        "event-after-result",
        &[
            "claude", "copilot", "droid", "gemini", "grok", "kimi", "opencode", "pi",
        ],
    ),
    (
        "missing-init",
        &["claude", "codex", "droid", "gemini", "pi"],
    ),
    ("session-id-mismatch", &["claude", "droid", "opencode"]),
    ("timestamp-regression", &["droid", "gemini"]),
    ("thinking-not-completed", &["copilot"]),
    ("missing-type", &["claude", "common", "kimi"]),
    ("unknown-event-type", &["claude", "common", "kimi"]),
    ("unknown-subtype", &["common", "droid", "opencode", "pi"]),
    ("duplicate-key", &["claude"]),
    ("mixed-agents", &["claude"]),
    ("malformed-tool-call", &["kimi", "opencode"]),
    ("tool-kind-mismatch", &["codex"]),
    ("unknown-parent-tool-use", &["claude"]),
    ("assistant-not-delta", &["gemini"]),
];
