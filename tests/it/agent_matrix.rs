//! What holds for every agent of the registry (`sjlint::unstable::agents::REGISTRY`), one row
//! an agent, checked through the library in the test's own process: each of its clean fixtures
//! is clean, is recognised as that agent without being told, follows the agent's bundled
//! schema, and has a common form (`fmt --to common`) that follows the common schema and is
//! itself clean; and the same stream cut before its last record is a `missing-result` (a session
//! log, which has no end marker, is clean cut there, and its common form has no `end`). An agent
//! added to the registry gets these checks by its row; its own file of tests holds only what
//! is particular to it. The command line's side of the registry (`sjlint agents`, `--agent`,
//! `sjlint schema`) is held in `registry.rs`.

use crate::common::agent::fixtures;
use crate::common::show_lib;
use sjlint::unstable::agents::{Entry, REGISTRY, Source};
use sjlint::{Finding, Options};

/// The validator of the bundled schema `name`, as `sjlint schema NAME` prints it.
fn validator(name: &str) -> jsonschema::Validator {
    let schema = sjlint::unstable::schema::find(name)
        .unwrap_or_else(|| panic!("no bundled schema `{name}`"));
    let doc: serde_json::Value = serde_json::from_str(schema.text).unwrap();
    jsonschema::validator_for(&doc).unwrap()
}

/// The findings of `bytes`, checked as `sjlint check` checks them, the agent found by the
/// stream itself, and the agent it was recognised as.
fn check(bytes: &[u8]) -> (Vec<Finding>, Option<&'static str>) {
    let mut findings = Vec::new();
    let totals = sjlint::check_bytes(bytes, &Options::new(), &mut findings);
    (findings, totals.agent)
}

/// Every line of `text` (every element, for a file that is one JSON array) as JSON.
fn records(text: &str) -> Vec<serde_json::Value> {
    if text.trim_start().starts_with('[') {
        let all: serde_json::Value = serde_json::from_str(text).unwrap();
        return all.as_array().unwrap().clone();
    }
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// One row: every check, for each fixture of the agent.
fn holds_for(entry: &Entry, common: &jsonschema::Validator) {
    let own = validator(entry.schema);
    let files = fixtures(entry.fixtures);
    assert!(
        !files.is_empty(),
        "{}: testdata/{} holds no stream",
        entry.name,
        entry.fixtures
    );
    for path in files {
        let p = format!("{}: {}", entry.name, path.display());
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();

        let (findings, agent) = check(&bytes);
        assert!(
            findings.is_empty(),
            "{p} is not clean\n{}",
            show_lib(&findings)
        );
        // The common form names no agent of its own: it is recognised as the form. A session
        // log is named by the agent that keeps it, and told apart by its source.
        assert_eq!(
            agent,
            Some(entry.agent.as_str()),
            "{p} is not recognised as {}",
            entry.name
        );

        for event in records(&text) {
            if let Err(e) = own.validate(&event) {
                panic!(
                    "{p}: {event}\ndoes not follow the schema `{}`: {e}",
                    entry.schema
                );
            }
        }

        let events = sjlint::to_common(&bytes, &Options::new());
        assert!(!events.is_empty(), "{p}: no event in the common form");
        let mut form = String::new();
        for event in &events {
            let v: serde_json::Value = serde_json::from_str(event.as_json()).unwrap();
            if let Err(e) = common.validate(&v) {
                panic!("{p}: {v}\ndoes not follow the common schema: {e}");
            }
            form.push_str(event.as_json());
            form.push('\n');
        }
        // Clean, and recognised as the common form without being told.
        let (findings, agent) = check(form.as_bytes());
        assert!(
            findings.is_empty(),
            "{p}: the common form of a clean stream is not clean\n{}\n{form}",
            show_lib(&findings)
        );
        assert_eq!(
            agent,
            Some("common"),
            "{p}: its common form is not recognised"
        );
        // Its runs name the agent that wrote them (a stream of the common form, its source's),
        // and end.
        let starts: Vec<serde_json::Value> = events
            .iter()
            .filter(|e| e.kind() == "session_start")
            .map(|e| serde_json::from_str(e.as_json()).unwrap())
            .collect();
        assert!(!starts.is_empty(), "{p}: no session_start\n{form}");
        if entry.name != "common" {
            for s in &starts {
                assert_eq!(s["agent"], entry.agent.as_str(), "{p}: {s}");
            }
        }
        // A stream ends each run; a session log says nothing of how its session ended.
        let ends = events.iter().any(|e| e.kind() == "end");
        match entry.source {
            Source::Stream => assert!(ends, "{p}: no end\n{form}"),
            Source::SessionLog => assert!(!ends, "{p}: an end a log does not say\n{form}"),
        }

        if entry.name != "common" {
            cut_is_missing_result(&p, entry, &text);
        }
    }
}

/// The stream cut after its first record is a run that never ended: a `missing-result`
/// (with the agent named, since one record may not be enough to tell it). Not for the common
/// form itself, which asks for no `end` (its row of docs/agents.md). A session log may stop
/// anywhere: cut after a whole record, it is clean.
fn cut_is_missing_result(p: &str, entry: &Entry, text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    // A stream of one record (a whole JSON document) has nothing to cut it to.
    if lines.len() < 2 {
        return;
    }
    let cut = format!("{}\n", lines[0]);
    let mut findings: Vec<Finding> = Vec::new();
    sjlint::check_bytes(
        cut.as_bytes(),
        &Options::new().agent(entry.name).unwrap(),
        &mut findings,
    );
    if entry.source == Source::SessionLog {
        assert!(
            findings.is_empty(),
            "{p} cut after its first record\n{}",
            show_lib(&findings)
        );
        return;
    }
    assert!(
        findings.iter().any(|f| f.rule == "missing-result"),
        "{p} cut after its first record\n{}",
        show_lib(&findings)
    );
}

#[test]
fn every_agent_of_the_registry() {
    let common = validator("common");
    assert!(REGISTRY.len() >= 12, "{} agents", REGISTRY.len());
    for entry in REGISTRY {
        holds_for(entry, &common);
    }
}
