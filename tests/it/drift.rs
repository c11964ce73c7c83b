//! Drift, for every agent of the registry: a field or event type a newer CLI adds is named by
//! `unknown-field` (off by default; `--strict-schema`, `--select` or a severity turns it on),
//! once per input, and listed by `stats` under "not in the schema" whether the rule is on or
//! not. The schemas are held to what the agents write: no fixture of `testdata/agents/` and no
//! real capture of `../shared/corpus` carries a field its agent's schema does not list.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Each agent of the registry with the clean streams of its fixture folder.
fn agents_and_fixtures() -> Vec<(String, Vec<PathBuf>)> {
    let run = exec(&["agents", "--format", "json"], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let v: Value = serde_json::from_slice(&run.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let dir = manifest_dir().join(a["fixtures"].as_str().unwrap());
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "ndjson" || e == "jsonl"))
                .collect();
            files.sort();
            (a["name"].as_str().unwrap().to_owned(), files)
        })
        .collect()
}

fn unknown_fields(args: &[&str], input: &[u8]) -> Vec<Finding> {
    let mut all = vec!["--stdin-filename", "drift.ndjson"];
    all.extend(args);
    let (_, findings) = check_json(&all, Some(input));
    findings
        .into_iter()
        .filter(|f| f.rule == "unknown-field")
        .collect()
}

#[test]
fn every_agents_fixtures_carry_only_what_its_schema_lists() {
    let mut checked = 0;
    for (agent, files) in agents_and_fixtures() {
        for f in files {
            let input = std::fs::read(&f).unwrap();
            let found = unknown_fields(&["--strict-schema", "--agent", &agent], &input);
            assert!(
                found.is_empty(),
                "{}: the {agent} schema does not list what the fixture carries:\n{}",
                f.display(),
                show(&found)
            );
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} fixtures");
}

#[test]
fn every_real_capture_carries_only_what_its_agents_schema_lists() {
    let Some(corpus) = corpus_dir() else { return };
    let mut files = Vec::new();
    let mut walk = vec![corpus];
    while let Some(dir) = walk.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            // Session logs kept on disk are another format than the streams (their own
            // tests read them).
            if p.is_dir() && p.file_name().is_some_and(|n| n != "logs") {
                walk.push(p);
            } else if p
                .extension()
                .is_some_and(|e| e == "ndjson" || e == "jsonl" || e == "log")
            {
                files.push(p);
            }
        }
    }
    assert!(files.len() > 20, "{} captures", files.len());
    for f in &files {
        let run = exec(
            &[
                "check",
                "--strict-schema",
                "--format",
                "json",
                f.to_str().unwrap(),
            ],
            None,
        );
        let found: Vec<Finding> = run
            .findings()
            .into_iter()
            .filter(|x| x.rule == "unknown-field")
            .collect();
        assert!(
            found.is_empty(),
            "{}: a field its agent's schema does not list:\n{}",
            f.display(),
            show(&found)
        );
    }
}

/// The first line of `text` with `key: value` added before its last `}`.
fn with_field(line: &str, key: &str, value: &str) -> String {
    let at = line.rfind('}').unwrap();
    format!("{},\"{key}\":{value}}}", &line[..at])
}

/// For every agent: a new field on one type is named once at the first line that carries it,
/// with the type; nothing is said without the flag; `stats` lists it either way.
#[test]
fn a_new_field_is_named_once_for_every_agent() {
    for (agent, files) in agents_and_fixtures() {
        let f = &files[0];
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // The field goes on every record of the first line's type (or role, for agents whose
        // records have no `type`): named once, at line 1.
        let first: Value = serde_json::from_str(lines[0]).unwrap();
        // A log whose first line is metadata without a `type` (Gemini CLI's chats) is keyed by
        // its absence.
        let key = if first.get("type").is_some() || first.get("role").is_none() {
            "type"
        } else {
            "role"
        };
        let ty = first[key].clone();
        let changed: Vec<String> = lines
            .iter()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                if v[key] == ty {
                    with_field(l, "zz_added_in_a_newer_cli", "true")
                } else {
                    (*l).to_owned()
                }
            })
            .collect();
        let input = format!("{}\n", changed.join("\n"));
        let what = format!("{agent} {}", f.display());

        assert!(
            unknown_fields(&[], input.as_bytes()).is_empty(),
            "{what}: off by default"
        );
        for on in [
            &["--strict-schema"][..],
            &["--select", "unknown-field"],
            &["--severity", "unknown-field=warning"],
        ] {
            let found = unknown_fields(on, input.as_bytes());
            assert_eq!(found.len(), 1, "{what} {on:?}: {}", show(&found));
            assert_eq!(found[0].line, 1, "{what}");
            assert!(
                found[0].message.contains("`zz_added_in_a_newer_cli`"),
                "{what}: {}",
                found[0].message
            );
            if let Some(t) = ty.as_str() {
                assert!(found[0].message.contains(t), "{what}: {}", found[0].message);
            }
        }
        // A clean stream stays clean under --strict-schema --strict: the rule is information.
        let run = exec(
            &[
                "check",
                "--strict",
                "--strict-schema",
                "--stdin-filename",
                "drift.ndjson",
            ],
            Some(input.as_bytes()),
        );
        assert_eq!(run.code, 0, "{what}: {}", run.describe());

        // `stats` lists it, as a table and as JSON, with or without the rule.
        let stats = exec(
            &[
                "stats",
                "--format",
                "json",
                "--stdin-filename",
                "drift.ndjson",
            ],
            Some(input.as_bytes()),
        );
        let v: Value = serde_json::from_slice(&stats.stdout).unwrap();
        let fields = &v["files"][0]["not_in_schema"]["fields"];
        assert_eq!(
            fields.as_array().map(Vec::len),
            Some(1),
            "{what}: {}",
            stats.stdout()
        );
        assert_eq!(fields[0]["field"], "zz_added_in_a_newer_cli", "{what}");
        assert_eq!(fields[0]["type"], ty, "{what}");
        let table = exec(&["stats"], Some(input.as_bytes())).stdout();
        assert!(
            table.contains("not in the schema") && table.contains("zz_added_in_a_newer_cli"),
            "{what}: {table}"
        );
        // The unchanged stream lists nothing.
        let clean = exec(&["stats"], Some(text.as_bytes())).stdout();
        assert!(!clean.contains("not in the schema"), "{what}: {clean}");
    }
}

#[test]
fn a_new_event_type_is_named_and_counted_by_statistics() {
    let base = std::fs::read_to_string(testdata("agents/codex/edit-and-answer.ndjson")).unwrap();
    let mut lines: Vec<&str> = base.lines().collect();
    let added = r#"{"type":"turn.progress","percent":40,"eta_ms":900}"#;
    lines.insert(2, added);
    lines.insert(3, added);
    let input = format!("{}\n", lines.join("\n"));
    let found = unknown_fields(&["--strict-schema"], input.as_bytes());
    assert_eq!(found.len(), 1, "{}", show(&found));
    assert_eq!(found[0].line, 3);
    assert!(
        found[0].message.contains("type `turn.progress`") && found[0].message.contains("Codex"),
        "{}",
        found[0].message
    );
    assert!(
        found[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("sjlint schema codex")),
        "{:?}",
        found[0].help
    );
    let stats = exec(
        &[
            "check",
            "--strict-schema",
            "--statistics",
            "--stdin-filename",
            "drift.ndjson",
        ],
        Some(input.as_bytes()),
    );
    let out = stats.stdout();
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(2).eq(["1", "unknown-field"])),
        "{out}"
    );
}

#[test]
fn each_field_is_named_once_per_input_not_once_per_run() {
    let line = r#"{"type":"thread.started","thread_id":"t","region":"eu"}"#;
    let rest = "{\"type\":\"turn.started\"}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":1,\"cached_input_tokens\":0,\"output_tokens\":1}}\n";
    let dir = std::env::temp_dir().join(format!("sjlint-drift-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["a.ndjson", "b.ndjson"] {
        std::fs::write(dir.join(name), format!("{line}\n{rest}{line}\n{rest}")).unwrap();
    }
    let run = exec(
        &[
            "check",
            "--strict-schema",
            "--format",
            "json",
            dir.to_str().unwrap(),
        ],
        None,
    );
    let found: Vec<Finding> = run
        .findings()
        .into_iter()
        .filter(|f| f.rule == "unknown-field")
        .collect();
    let files: Vec<&str> = found
        .iter()
        .map(|f| {
            Path::new(&f.file)
                .file_name()
                .unwrap()
                .to_str()
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(files, ["a.ndjson", "b.ndjson"], "{}", show(&found));
    let stats = exec(&["stats", "--format", "json", dir.to_str().unwrap()], None);
    let v: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(v["total"]["not_in_schema"]["fields"][0]["files"], 2);
    let _ = std::fs::remove_dir_all(&dir);
}
