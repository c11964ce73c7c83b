//! Helpers for the integration tests: running the real `sjlint` binary, reading its
//! `--format json` findings, and finding fixtures, rule docs and the shared corpus.

pub(crate) mod agent;

use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The crate root; every command runs there, so fixture paths in the output are relative.
pub(crate) fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `testdata/<rel>` as an absolute path.
pub(crate) fn testdata(rel: &str) -> PathBuf {
    manifest_dir().join("testdata").join(rel)
}

/// A command for the real binary, run from the crate root, with the colour variables of the
/// calling environment removed so that every test sees the same defaults.
pub(crate) fn sjlint() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sjlint"));
    cmd.current_dir(manifest_dir());
    // The ledger's cache goes to a folder of the tests' own, not the user's.
    cmd.env("XDG_CACHE_HOME", test_cache());
    for var in ["NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "CLICOLOR"] {
        cmd.env_remove(var);
    }
    cmd
}

/// The cache folder the binary is given in the tests (`sjlint usage` keeps its cache there).
pub(crate) fn test_cache() -> PathBuf {
    std::env::temp_dir().join(format!("sjlint-test-cache-{}", std::process::id()))
}

/// What one run of the binary did.
pub(crate) struct Run {
    /// The exit code; -1 when the process was killed by a signal.
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Run {
    pub(crate) fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub(crate) fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// The findings of a `--format json` run, read from stdout.
    pub(crate) fn findings(&self) -> Vec<Finding> {
        parse_findings(&self.stdout)
    }

    /// Everything about the run, for assertion messages.
    pub(crate) fn describe(&self) -> String {
        format!(
            "exit code {}\n--- stdout\n{}--- stderr\n{}---",
            self.code,
            self.stdout(),
            self.stderr()
        )
    }
}

/// Runs `cmd` to the end, feeding it `stdin` (or nothing, with stdin closed) from a separate
/// thread so that a large input cannot deadlock against a large output.
pub(crate) fn run_cmd(mut cmd: Command, stdin: Option<&[u8]>) -> Run {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.spawn().expect("cannot start sjlint");
    let feeder = stdin.map(|bytes| {
        let bytes = bytes.to_vec();
        let mut pipe = child.stdin.take().expect("stdin is piped");
        std::thread::spawn(move || {
            // sjlint may stop reading early (a closed pipe is not what these tests check).
            let _ = pipe.write_all(&bytes);
        })
    });
    let out = child.wait_with_output().expect("cannot wait for sjlint");
    if let Some(feeder) = feeder {
        feeder.join().expect("stdin feeder panicked");
    }
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

/// `sjlint ARGS…` with `stdin` as its standard input.
pub(crate) fn exec(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut cmd = sjlint();
    cmd.args(args);
    run_cmd(cmd, stdin)
}

/// `sjlint check --format json ARGS…`, asserting that it did not fail as a program (exit 0 or
/// 1, no panic) and that every line it printed is a finding.
pub(crate) fn check_json(args: &[&str], stdin: Option<&[u8]>) -> (Run, Vec<Finding>) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let run = exec(&all, stdin);
    assert!(
        run.code == 0 || run.code == 1,
        "sjlint {all:?} should exit 0 or 1\n{}",
        run.describe()
    );
    assert!(
        !run.stderr().contains("panicked"),
        "sjlint {all:?} panicked\n{}",
        run.describe()
    );
    let findings = run.findings();
    (run, findings)
}

/// One line of `--format json`.
#[derive(Clone, Debug)]
pub(crate) struct Finding {
    pub file: String,
    pub line: u64,
    pub column: Option<u64>,
    pub rule: String,
    pub group: String,
    pub severity: String,
    pub message: String,
    /// `(line, message)` of each related location.
    pub related: Vec<(u64, String)>,
    /// 0-based byte offset in the input.
    pub byte: u64,
    pub help: Option<String>,
}

pub(crate) fn parse_findings(stdout: &[u8]) -> Vec<Finding> {
    let text = std::str::from_utf8(stdout).expect("json output is UTF-8");
    // `--format json` writes one array with a finding per line; `json-lines` a finding per line.
    let array = text.trim_start().starts_with('[');
    if array {
        let _: Vec<Value> = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("not a JSON array of findings ({e}): {text}"));
    }
    text.lines()
        .filter(|line| !array || !matches!(*line, "[" | "]" | "[]"))
        .map(|line| {
            if array {
                line.trim_end_matches(',')
            } else {
                line
            }
        })
        .map(|line| {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON finding ({e}): {line}"));
            let s = |key: &str| {
                v[key]
                    .as_str()
                    .unwrap_or_else(|| panic!("`{key}` is not a string in {line}"))
                    .to_owned()
            };
            let related = v["related"]
                .as_array()
                .unwrap_or_else(|| panic!("`related` is not an array in {line}"))
                .iter()
                .map(|r| {
                    (
                        r["line"].as_u64().expect("related line"),
                        r["message"].as_str().expect("related message").to_owned(),
                    )
                })
                .collect();
            Finding {
                file: s("file"),
                line: v["line"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("`line` is not a number in {line}")),
                column: v["column"].as_u64(),
                rule: s("rule"),
                group: s("group"),
                severity: s("severity"),
                message: s("message"),
                related,
                // null for a finding about no record (the end of the input).
                byte: v["byte"].as_u64().unwrap_or(0),
                help: v["help"].as_str().map(str::to_owned),
            }
        })
        .collect()
}

/// The keys of a JSON object in the order they are written (`serde_json::Value` sorts them).
pub(crate) fn keys_in_written_order(json: &str) -> Vec<String> {
    struct Keys(Vec<String>);
    impl<'de> serde::Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some(key) = map.next_key::<String>()? {
                        map.next_value::<serde::de::IgnoredAny>()?;
                        keys.push(key);
                    }
                    Ok(Keys(keys))
                }
            }
            d.deserialize_map(Visitor)
        }
    }
    serde_json::from_str::<Keys>(json)
        .unwrap_or_else(|e| panic!("not a JSON object ({e}): {json}"))
        .0
}

/// The lines on which `rule` fired, sorted.
pub(crate) fn lines_of(findings: &[Finding], rule: &str) -> Vec<u64> {
    let mut lines: Vec<u64> = findings
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| f.line)
        .collect();
    lines.sort_unstable();
    lines
}

/// The names of the rules that fired.
pub(crate) fn rules_of(findings: &[Finding]) -> BTreeSet<String> {
    findings.iter().map(|f| f.rule.clone()).collect()
}

/// The names of the rules that fired with error or warning severity.
pub(crate) fn serious_rules_of(findings: &[Finding]) -> BTreeSet<String> {
    findings
        .iter()
        .filter(|f| f.severity != "info")
        .map(|f| f.rule.clone())
        .collect()
}

/// A readable list of the findings of the library (`sjlint::Finding`) for assertion messages.
pub(crate) fn show_lib(findings: &[sjlint::Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let _ = writeln!(
            out,
            "  {}: {}[{}] {}",
            f.line, f.severity, f.rule, f.message
        );
    }
    if out.is_empty() {
        out.push_str("  (no findings)\n");
    }
    out
}

/// A readable list of findings for assertion messages.
pub(crate) fn show(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let _ = writeln!(
            out,
            "  {}:{}: {}[{}] {}",
            f.file, f.line, f.severity, f.rule, f.message
        );
    }
    if out.is_empty() {
        out.push_str("  (no findings)\n");
    }
    out
}

/// Text with `<0xNN>` markers, each standing for one raw byte, turned into bytes. This is how
/// fixtures that must hold bytes a text file should not (invalid UTF-8, a byte-order mark) are
/// kept in `testdata/` as plain text.
pub(crate) fn expand_bytes(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while !rest.is_empty() {
        if rest.len() >= 6 && rest.starts_with(b"<0x") && rest[5] == b'>' {
            let hex = std::str::from_utf8(&rest[3..5]).expect("ascii");
            if let Ok(byte) = u8::from_str_radix(hex, 16) {
                out.push(byte);
                rest = &rest[6..];
                continue;
            }
        }
        out.push(rest[0]);
        rest = &rest[1..];
    }
    out
}

/// Every rule name, from the documentation files `crates/sjlint-core/src/rules/<rule>.md`, sorted.
pub(crate) fn documented_rules() -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(manifest_dir().join("crates/sjlint-core/src/rules"))
            .expect("crates/sjlint-core/src/rules exists")
            .map(|e| e.expect("readable entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
    names.sort();
    names
}

/// The `ndjson` code block that follows `heading` (e.g. `## Example that fails`) in the rule's doc.
pub(crate) fn doc_example(rule: &str, heading: &str) -> String {
    let path = manifest_dir().join(format!("crates/sjlint-core/src/rules/{rule}.md"));
    let doc = std::fs::read_to_string(&path).expect("rule doc is readable");
    let after = doc
        .split_once(heading)
        .unwrap_or_else(|| panic!("{} has no `{heading}`", path.display()))
        .1;
    let fence = "```ndjson\n";
    let start = after
        .find(fence)
        .unwrap_or_else(|| panic!("no ```ndjson block after `{heading}` in {rule}.md"))
        + fence.len();
    let body = &after[start..];
    let mut example = String::new();
    for line in body.split_inclusive('\n') {
        if line.trim_end() == "```" {
            return example;
        }
        example.push_str(line);
    }
    panic!("unclosed ```ndjson block after `{heading}` in {rule}.md")
}

/// `<manifest>/../shared/corpus`, the real captures, read in place. `None` (the caller skips)
/// when it is absent, except under `CI=true`, where its absence fails the test.
pub(crate) fn corpus_dir() -> Option<PathBuf> {
    let dir = manifest_dir().join("../shared/corpus");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true"),
        "CI=true but the corpus folder {} is missing: the corpus tests must run in CI",
        dir.display()
    );
    // Said once, past the test harness's capture (which takes `eprintln!` only), so that a
    // clone without the corpus shows what it skipped.
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        let _ = writeln!(
            std::io::stderr(),
            "note: {} is missing: the tests over the real captures are skipped (under CI=true they fail)",
            dir.display()
        );
    });
    None
}

/// Each of `plain`, a line appended to the sample stream, is an `invalid-json` that reads as
/// plain text with the merged-stderr help; each of `broken` is an `invalid-json` that does not
/// (broken JSON stays broken JSON).
pub(crate) fn assert_plain_text_lines(plain: &[&str], broken: &[&str]) {
    let sample = std::fs::read_to_string(testdata("sample.ndjson")).unwrap();
    let first_invalid = |line: &str| {
        let input = format!("{sample}{line}\n");
        let (_, findings) = check_json(&[], Some(input.as_bytes()));
        findings
            .iter()
            .find(|f| f.rule == "invalid-json")
            .cloned()
            .unwrap_or_else(|| panic!("{line}: {}", show(&findings)))
    };
    for line in plain {
        let f = first_invalid(line);
        assert_eq!(f.message, "the line is plain text, not JSON", "{line}");
        assert!(
            f.help
                .as_deref()
                .unwrap_or("")
                .contains("stderr was merged into stdout"),
            "{line}: {:?}",
            f.help
        );
    }
    for line in broken {
        let f = first_invalid(line);
        assert_ne!(f.message, "the line is plain text, not JSON", "{line}");
    }
}

/// Every file under `dir`, depth first, in name order.
pub(crate) fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// A directory of its own under the system's temporary directory, removed with what it holds
/// when dropped, also when the test fails.
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    /// `sjlint-NAME-PID`, empty.
    pub(crate) fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("sjlint-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
