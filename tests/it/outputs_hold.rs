//! Nothing lost, nothing hung: what every output format keeps whatever happens to its reader
//! (the exit code through a closed stdout), what it never passes on raw (bidi and C1 controls,
//! line separators quoted from a record), and verdicts that once were wrong (numbers out of
//! `f64` range, counts that are not counts, one cause reported three times, a misspelt rule
//! name without a suggestion).

use crate::common::{exec, sjlint, testdata};

/// Every `--format` of `check`.
const FORMATS: [&str; 7] = [
    "human",
    "concise",
    "json",
    "json-lines",
    "github",
    "sarif",
    "junit",
];

/// `sjlint ARGS…` with a stdout whose reader is gone before sjlint starts: its exit code.
fn exit_code_with_stdout_closed(args: &[&str]) -> i32 {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = sjlint()
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(writer)
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "sjlint {args:?}: nothing on stderr, got {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.status.code().unwrap_or(-1)
}

#[test]
fn every_format_keeps_the_exit_code_when_stdout_is_closed() {
    // Three thousand infos (blank lines) before the one error (no record at all): a format
    // that writes as it goes meets the closed pipe long before the error is found.
    let file = testdata("regressions/infos-then-an-error.ndjson");
    let file = file.to_str().unwrap();
    for format in FORMATS {
        let open = exec(&["check", "--format", format, file], None);
        assert_eq!(open.code, 1, "{format}: {}", open.describe());
        for jobs in ["1", "2"] {
            let args = ["check", "--format", format, "--jobs", jobs, file, file];
            assert_eq!(
                exit_code_with_stdout_closed(&args),
                1,
                "sjlint {args:?} with its stdout closed"
            );
        }
    }
}

#[test]
fn explain_suggests_the_rule_a_misspelt_word_begins() {
    let run = exec(&["explain", "unfinshed"], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr()
            .contains("did you mean `unfinished-tool-call`?"),
        "{}",
        run.describe()
    );
    let run = exec(&["check", "--select", "unfinshed", "-"], Some(b""));
    assert!(
        run.stderr()
            .contains("did you mean `unfinished-tool-call`?"),
        "{}",
        run.describe()
    );
}
