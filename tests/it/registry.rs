//! The agents' registry, held to what a user relies on: every agent `sjlint agents` lists can be
//! named with `--agent`, has its schema bundled, a row in the table of docs/agents.md,
//! and a folder of clean fixtures (which `agent_matrix.rs` holds to being clean and recognised
//! as that agent without being told). An agent added to the registry without one of these fails
//! here, naming what is missing.

use crate::common::{exec, manifest_dir, testdata};
use sjlint::unstable::agents::REGISTRY;

struct Listed {
    name: String,
    display_name: String,
    schema: String,
    fixtures: String,
    /// `stream`, or `session-log` for the transcripts an agent keeps on disk.
    source: String,
    /// The command line that writes it.
    command: String,
}

fn listed() -> Vec<Listed> {
    let run = exec(&["agents", "--format", "json"], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).expect("agents --format json");
    let s = |a: &serde_json::Value, k: &str| a[k].as_str().unwrap_or_default().to_owned();
    v.as_array()
        .expect("an array")
        .iter()
        .map(|a| Listed {
            name: s(a, "name"),
            display_name: s(a, "display_name"),
            schema: s(a, "schema"),
            fixtures: s(a, "fixtures"),
            source: s(a, "source"),
            command: s(a, "command"),
        })
        .collect()
}

#[test]
fn the_text_listing_names_every_agent_of_the_json_one() {
    let run = exec(&["agents"], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let text = run.stdout();
    let agents = listed();
    assert!(agents.len() >= 6, "{text}");
    for a in &agents {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{} ", a.name)) && l.contains(&a.display_name)),
            "{} is missing from `sjlint agents`:\n{text}",
            a.name
        );
    }
}

#[test]
fn every_agent_has_a_schema_a_row_in_the_agents_page_and_an_agent_flag() {
    let page = std::fs::read_to_string(manifest_dir().join("docs/agents.md")).unwrap();
    let table = page
        .split("## The agents")
        .nth(1)
        .expect("docs/agents.md has a section of the agents");
    for a in listed() {
        let schema = exec(&["schema", &a.schema], None);
        assert_eq!(
            schema.code, 0,
            "{}: no bundled schema `{}`",
            a.name, a.schema
        );
        assert!(
            serde_json::from_slice::<serde_json::Value>(&schema.stdout).is_ok(),
            "{}: schema `{}` is not JSON",
            a.name,
            a.schema
        );
        // The row says what writes the input: its command's first word.
        let program = a.command.split_whitespace().next().unwrap_or_default();
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| {} |", a.display_name)));
        assert!(
            row.is_some_and(|r| r.contains(program)),
            "{}: the table of docs/agents.md has no row `| {} |` naming `{program}`: {row:?}",
            a.name,
            a.display_name
        );
        let forced = exec(&["check", "--agent", &a.name, "-"], Some(b""));
        assert!(
            !forced.stderr().contains("invalid value"),
            "`--agent {}` is refused: {}",
            a.name,
            forced.describe()
        );
    }
}

/// The common form names the agent of its source: its schema's `agent` takes every agent's name.
#[test]
fn the_common_forms_schema_names_every_agent() {
    let run = exec(&["schema", "common"], None);
    let schema: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let text = schema.to_string();
    // A session log's events name the agent that keeps it, whose stream's line names it too.
    let names: Vec<String> = listed()
        .into_iter()
        .filter(|a| a.source == "stream")
        .map(|a| a.name)
        .filter(|n| n != "common")
        .collect();
    let agent_enum = find_key(&schema, "agent").expect("the common schema has an `agent` field");
    for n in &names {
        assert!(
            agent_enum["enum"]
                .as_array()
                .is_some_and(|e| e.iter().any(|v| v == n.as_str())),
            "the common schema's `agent` does not take `{n}`: {text:.200}"
        );
    }
}

/// `run --summary` names the agent it recognised: the summary schema's `kind` takes every
/// agent's name (the run tests hold each agent's summary to that schema).
#[test]
fn the_run_summarys_schema_names_every_agent() {
    let run = exec(&["schema", "run-summary"], None);
    let schema: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let kind = find_key(&schema, "kind").expect("the summary schema has the agent's `kind`");
    // `run` starts an agent and reads its stream: a session log is not run.
    for a in listed().into_iter().filter(|a| a.source == "stream") {
        assert!(
            kind["enum"]
                .as_array()
                .is_some_and(|e| e.iter().any(|v| v == a.name.as_str())),
            "the run summary's `kind` does not take `{}`: {kind}",
            a.name
        );
    }
}

/// The first object value under the key `key`, anywhere in `v`.
fn find_key<'v>(v: &'v serde_json::Value, key: &str) -> Option<&'v serde_json::Value> {
    match v {
        serde_json::Value::Object(m) => m
            .get(key)
            .filter(|x| x.get("enum").is_some())
            .or_else(|| m.values().find_map(|x| find_key(x, key))),
        serde_json::Value::Array(a) => a.iter().find_map(|x| find_key(x, key)),
        _ => None,
    }
}

/// `sjlint agents` lists the registry, line for line: what the agent matrix (`agent_matrix.rs`)
/// holds each line of the registry to is what a user is told of each agent.
#[test]
fn the_listing_is_the_registry() {
    let listed: Vec<(String, String, String, String)> = listed()
        .into_iter()
        .map(|a| (a.name, a.schema, a.fixtures, a.source))
        .collect();
    let registry: Vec<(String, String, String, String)> = REGISTRY
        .iter()
        .map(|e| {
            (
                e.name.to_owned(),
                e.schema.to_owned(),
                format!("testdata/{}", e.fixtures),
                e.source.as_str().to_owned(),
            )
        })
        .collect();
    assert_eq!(listed, registry);
    // The folder each line names is a real one.
    for e in REGISTRY {
        assert!(testdata(e.fixtures).is_dir(), "{}: {}", e.name, e.fixtures);
    }
}

/// The places that list the agents in prose: the rule doc of `unknown-agent` (which `sjlint
/// rule unknown-agent` prints), the common form's page (its opening and the `agent` field), and
/// the binary's `--help`. A new agent in the registry fails here until each names it.
#[test]
fn every_page_that_lists_the_agents_names_each_of_them() {
    let read = |p: &str| std::fs::read_to_string(manifest_dir().join(p)).unwrap();
    let rule = read("crates/sjlint-core/src/rules/unknown-agent.md");
    let common = read("docs/common-form.md");
    let agent_row = common
        .lines()
        .find(|l| l.starts_with("| `agent` |"))
        .expect("docs/common-form.md has a row of the `agent` field");
    let opening = common.split("\n## ").next().unwrap_or_default();
    let help = exec(&["--help"], None).stdout();
    for e in REGISTRY.iter().filter(|e| e.name != "common") {
        for (page, text) in [
            (
                "crates/sjlint-core/src/rules/unknown-agent.md",
                rule.as_str(),
            ),
            ("the opening of docs/common-form.md", opening),
            ("sjlint --help", help.as_str()),
        ] {
            assert!(
                text.replace('\n', " ").contains(e.display),
                "{page} does not name {}",
                e.display
            );
        }
        // The name the common form gives it: a session log's is its agent's.
        let named = e.log_of.map_or(e.name, |a| a.id());
        assert!(
            agent_row.contains(&format!("`{named}`")),
            "the `agent` row of docs/common-form.md does not list `{named}`"
        );
    }
}

/// Every session log of the registry is the log of an agent whose stream has a line of its own:
/// its outputs name that agent, `--agent` takes the log's own name, and the two are told apart
/// by their `source`.
#[test]
fn a_session_log_is_named_apart_from_its_agents_stream() {
    use sjlint::unstable::agents::{Agent, Source};
    let logs: Vec<_> = REGISTRY.iter().filter(|e| e.log_of.is_some()).collect();
    assert!(!logs.is_empty(), "no session log in the registry");
    for e in logs {
        let of = e.log_of.unwrap();
        assert_eq!(e.source, Source::SessionLog, "{}", e.name);
        assert_eq!(of.source(), Source::Stream, "{}: the log of a log", e.name);
        assert_ne!(e.name, of.id());
        assert_eq!(e.agent.as_str(), of.as_str());
        assert_eq!(e.agent.id(), e.name);
        assert_eq!(Agent::from_name(e.name), Some(e.agent));
        assert_eq!(Agent::from_name(of.id()), Some(of));
    }
    for e in REGISTRY.iter().filter(|e| e.log_of.is_none()) {
        assert_eq!(e.source, Source::Stream, "{}", e.name);
        assert_eq!(e.agent.as_str(), e.agent.id(), "{}", e.name);
    }
}
