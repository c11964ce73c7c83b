//! What the tests of one agent's stream (`agent_*.rs`) share: its fixtures under `testdata/`,
//! a stream put together from their lines, and what `check`, `stats` and `fmt --to common`
//! make of a stream through the real binary. The checks that hold for every agent alike are
//! one table over the registry, in `agent_matrix.rs`.

use super::{check_json, exec, testdata};
use serde_json::Value;
use std::path::PathBuf;

/// The streams (`.ndjson`, `.jsonl`, `.json`) of the folder `testdata/<dir>`, sorted.
pub(crate) fn fixtures(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(testdata(dir))
        .unwrap_or_else(|e| panic!("testdata/{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "ndjson" || x == "jsonl" || x == "json")
        })
        .collect();
    files.sort();
    files
}

/// The text of the fixture `testdata/<dir>/<name>`.
pub(crate) fn fixture_text(dir: &str, name: &str) -> String {
    let rel = format!("{dir}/{name}");
    std::fs::read_to_string(testdata(&rel)).unwrap_or_else(|e| panic!("testdata/{rel}: {e}"))
}

/// The lines of the fixture `testdata/<dir>/<name>`.
pub(crate) fn fixture_lines(dir: &str, name: &str) -> Vec<String> {
    fixture_text(dir, name).lines().map(str::to_owned).collect()
}

/// Lines as a stream: each ended by a newline.
pub(crate) fn join<S: AsRef<str>>(lines: &[S]) -> String {
    lines.iter().map(|l| format!("{}\n", l.as_ref())).collect()
}

/// The one file of `sjlint stats --format json ARGS…` (on `stdin` when given); it must exit 0.
pub(crate) fn stats_of(args: &[&str], stdin: Option<&[u8]>) -> Value {
    let mut all = vec!["stats", "--format", "json"];
    all.extend_from_slice(args);
    let run = exec(&all, stdin);
    assert_eq!(run.code, 0, "{}", run.describe());
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    doc["files"][0].clone()
}

/// The lines of `sjlint fmt --to common ARGS…` on `stream`; it must exit 0.
pub(crate) fn common_of(stream: &str, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["fmt", "--to", "common"];
    all.extend_from_slice(args);
    let run = exec(&all, Some(stream.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.describe());
    run.stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A finding as the per-agent tests compare it: rule, severity, line.
pub(crate) type Got = (String, String, u64);

/// The exit code of `sjlint check` on `stream` (named `name` on the command line, as
/// `--stdin-filename`), and its findings as (rule, severity, line).
pub(crate) fn findings_of(stream: &str, name: &str) -> (i32, Vec<Got>) {
    let (run, findings) = check_json(&["--stdin-filename", name], Some(stream.as_bytes()));
    let got = findings
        .iter()
        .map(|f| (f.rule.clone(), f.severity.clone(), f.line))
        .collect();
    (run.code, got)
}
