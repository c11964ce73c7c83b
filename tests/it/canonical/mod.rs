//! Dialects, `fmt` and the schemas: the real `sjlint` binary and the library's public pipeline, on the
//! fixtures under `testdata/` and on the shared corpus of real captures.

mod dialects;
mod fmt;
mod properties;
mod schema;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The repository's `testdata/` directory.
pub(crate) fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// The shared corpus of real captures, read in place: `None` when it is not there, except in CI
/// (`CI=true`), where its absence fails the test.
pub(crate) fn corpus() -> Option<Vec<PathBuf>> {
    let dir = crate::common::corpus_dir()?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("ndjson" | "jsonl" | "json")
            )
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no stream files in {}", dir.display());
    Some(files)
}

/// Runs the real binary with `args`, feeding `stdin`.
pub(crate) fn sjlint(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sjlint"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the sjlint binary runs");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The binary may stop reading early (a usage error); that is not the test's failure.
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// A finding as the tests compare them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Finding {
    pub rule: &'static str,
    pub line: u64,
    pub severity: sjlint::unstable::rules::Severity,
}

/// Every finding `check` reports on `input` (all rules, auto dialect unless `dialect`).
pub(crate) fn check_with(
    input: &[u8],
    dialect: Option<sjlint::unstable::agents::cursor::view::Dialect>,
) -> Vec<Finding> {
    let opts = sjlint::unstable::check::CheckOptions {
        dialect,
        ..Default::default()
    };
    let mut out = Vec::new();
    sjlint::unstable::check::check(input, &opts, &mut |d| {
        out.push(Finding {
            rule: d.rule.name(),
            line: d.line,
            severity: d.severity,
        });
        Ok(())
    })
    .unwrap();
    out
}

pub(crate) fn check(input: &[u8]) -> Vec<Finding> {
    check_with(input, None)
}
