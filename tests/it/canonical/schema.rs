//! The event schema describes what `check` requires of each record by itself: healthy and real
//! records validate, `fmt` writes only records that validate (unless `check` would report them),
//! and on records built to break the schema rules the schema and `check` agree.

use super::{check, corpus, sjlint, testdata};
use serde_json::Value;
use sjlint::unstable::rules::{Group, Rule, Severity};
use std::collections::BTreeSet;
use std::path::Path;

fn validator() -> jsonschema::Validator {
    let text = sjlint::unstable::schema::find("events")
        .expect("the events schema is bundled")
        .text;
    let schema: Value = serde_json::from_str(text).unwrap();
    jsonschema::meta::validate(&schema).unwrap();
    assert_eq!(
        schema["$id"],
        "https://sjlint.dev/schemas/v1/events.schema.json"
    );
    jsonschema::validator_for(&schema).unwrap()
}

/// The lines of `input` on which `check` reports an error of the schema group.
fn schema_error_lines(input: &[u8]) -> BTreeSet<u64> {
    check(input)
        .into_iter()
        .filter(|f| {
            f.severity == Severity::Error
                && Rule::from_name(f.rule).is_some_and(|r| r.group() == Group::Schema)
        })
        .map(|f| f.line)
        .collect()
}

/// Validates each line of a one-record-per-line stream; returns the lines that fail, after
/// checking that they are exactly the lines `check` gives schema errors for.
fn agree(v: &jsonschema::Validator, what: &str, input: &[u8]) -> BTreeSet<u64> {
    let text = std::str::from_utf8(input).unwrap();
    let mut invalid = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).unwrap();
        if !v.is_valid(&value) {
            invalid.insert(i as u64 + 1);
        }
    }
    assert_eq!(
        invalid,
        schema_error_lines(input),
        "{what}: lines the schema rejects vs lines check reports"
    );
    invalid
}

fn fmt(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    sjlint::unstable::fmt::format(
        input,
        &sjlint::unstable::check::CheckOptions::default(),
        &sjlint::unstable::fmt::FmtOptions::default(),
        &mut out,
        &mut |_| Ok(()),
    )
    .unwrap();
    out
}

#[test]
fn schema_is_bundled_and_printed() {
    let out = sjlint(&["schema"], b"");
    assert_eq!(out.status.code(), Some(0));
    let names = String::from_utf8(out.stdout).unwrap();
    // Every file in schemas/ is bundled, and printed exactly as it is on disk.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".schema.json").map(str::to_owned))
        .collect();
    on_disk.sort();
    assert_eq!(names.lines().collect::<Vec<_>>(), on_disk);
    for name in [
        "events",
        "events.schema.json",
        "diagnostic",
        "stats",
        "run-summary",
    ] {
        let out = sjlint(&["schema", name], b"");
        assert_eq!(out.status.code(), Some(0));
        let file = format!("{}.schema.json", name.trim_end_matches(".schema.json"));
        assert_eq!(out.stdout, std::fs::read(dir.join(file)).unwrap());
    }
    let out = sjlint(&["schema", "nope"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&on_disk.join(", ")));
}

#[test]
fn schema_and_rules_agree_on_records_built_to_break_them() {
    let v = validator();
    // Each record follows an init of no dialect's required fields, so what is judged is the
    // record alone.
    for (name, expect_valid) in [("breaks.ndjson", false), ("passes.ndjson", true)] {
        let text = std::fs::read_to_string(testdata().join("schema").join(name)).unwrap();
        for (i, record) in text.lines().enumerate() {
            let input = format!("{{\"type\":\"system\",\"subtype\":\"init\"}}\n{record}\n");
            let value: Value = serde_json::from_str(record).unwrap();
            let valid = v.is_valid(&value);
            let flagged = schema_error_lines(input.as_bytes()).contains(&2);
            assert_eq!(
                valid,
                !flagged,
                "{name}:{}: schema says valid={valid}, check flags={flagged}: {record}",
                i + 1
            );
            assert_eq!(valid, expect_valid, "{name}:{}: {record}", i + 1);
        }
    }
}

#[test]
fn healthy_fixtures_and_what_fmt_writes_of_them_validate() {
    let v = validator();
    let cursor = std::fs::read(testdata().join("dialects/cursor/healthy.ndjson")).unwrap();
    assert_eq!(agree(&v, "cursor/healthy", &cursor), BTreeSet::new());
    // The other dialects' own shapes are not canonical; their canonical form is what fmt writes.
    for dir in ["cursor", "payload", "sdk"] {
        for entry in std::fs::read_dir(testdata().join("dialects").join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let input = std::fs::read(&path).unwrap();
            let out = fmt(&input);
            let invalid = agree(&v, &format!("fmt of {}", path.display()), &out);
            let healthy = path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("healthy");
            if healthy {
                assert_eq!(invalid, BTreeSet::new(), "fmt of {}", path.display());
            }
        }
    }
}

#[test]
fn real_captures_and_what_fmt_writes_of_them_validate() {
    let Some(files) = corpus() else {
        return;
    };
    let v = validator();
    let mut rejected = Vec::new();
    for path in files {
        let input = std::fs::read(&path).unwrap();
        for line in agree(&v, &path.display().to_string(), &input) {
            rejected.push((
                path.file_name().unwrap().to_string_lossy().into_owned(),
                line,
            ));
        }
        agree(&v, &format!("fmt of {}", path.display()), &fmt(&input));
    }
    // The one record of the corpus that breaks a schema rule: a hand-made `success` with
    // `is_error: true` (result-flag-mismatch).
    assert_eq!(
        rejected,
        [(
            "SkinnnyJay__toad-ts____tests____fixtures__cursor__ndjson__error-auth.ndjson"
                .to_owned(),
            2
        )]
    );
}
