//! `--redact` through the real binary: streams of cursor-agent, Claude Code and Codex with a
//! credential of every kind where real runs print them (a tool's output, a tool's arguments, the
//! assistant's text), and look-alikes that are none, through every output that copies text
//! (`fmt`, `fmt --to common`, `fmt --to otlp`, `render`, `report`, `run --to common --save`):
//! no credential is left anywhere, every look-alike comes through, and the outputs still parse.

use crate::common::{Scratch, exec, run_cmd, sjlint, testdata};
use serde_json::Value;
use std::collections::BTreeSet;

/// A credential of each kind, as a tool prints it (`text`), and its secret part.
struct Credential {
    kind: String,
    text: String,
    secret: String,
}

fn credentials() -> Vec<Credential> {
    let raw = std::fs::read_to_string(testdata("redact/credentials.json")).unwrap();
    let list: Vec<Value> = serde_json::from_str(&raw).unwrap();
    list.iter()
        .map(|c| Credential {
            kind: c["kind"].as_str().unwrap().to_owned(),
            text: c["text"].as_str().unwrap().to_owned(),
            secret: c["secret"].as_str().unwrap().to_owned(),
        })
        .collect()
}

fn look_alikes() -> Vec<String> {
    let raw = std::fs::read_to_string(testdata("redact/look-alikes.json")).unwrap();
    serde_json::from_str(&raw).unwrap()
}

/// `text` as it stands inside a JSON string, without the quotes.
fn in_json(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap();
    quoted[1..quoted.len() - 1].to_owned()
}

/// A small seeded choice: `n` of the credentials, different for each `seed`.
fn some(creds: &[Credential], seed: u64, n: usize) -> Vec<&Credential> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            &creds[(s >> 33) as usize % creds.len()]
        })
        .collect()
}

/// The stream of `fixture` with `(from, to)` replaced, `to` being text put into a JSON string.
fn stream(fixture: &str, swaps: &[(&str, String)]) -> String {
    let mut text = std::fs::read_to_string(testdata(fixture)).unwrap();
    for (from, to) in swaps {
        assert!(text.contains(from), "{fixture}: {from}");
        text = text.replace(from, &in_json(to));
    }
    text
}

/// The three streams, each with every credential in a tool's output, some in a tool's
/// arguments and some in the assistant's text, and the look-alikes in the output too.
fn seeded_streams() -> Vec<(&'static str, String)> {
    let creds = credentials();
    let mut output: Vec<String> = creds.iter().map(|c| c.text.clone()).collect();
    output.extend(look_alikes());
    let output = output.join("\n");
    let joined = |seed, sep: &str| {
        some(&creds, seed, 6)
            .iter()
            .map(|c| c.text.replace('\n', " "))
            .collect::<Vec<_>>()
            .join(sep)
    };
    let command = |seed| {
        format!(
            "echo {} && mysql -u root -pHunter22pw shop",
            joined(seed, " ")
        )
    };
    vec![
        (
            "cursor",
            stream(
                "render/fix-the-cart.ndjson",
                &[
                    ("pytest -q tests/test_cart.py", command(1)),
                    ("1 failed", output.clone()),
                    (
                        "I'll read `src/cart.py` first.",
                        format!("I found {}", joined(2, ", ")),
                    ),
                ],
            ),
        ),
        (
            "claude",
            stream(
                "agents/claude/tool-run.ndjson",
                &[
                    ("cargo test", command(3)),
                    ("test result: ok", output.clone()),
                    (
                        "The tests pass.",
                        format!("Done; the key was {}", joined(4, " and ")),
                    ),
                ],
            ),
        ),
        (
            "codex",
            stream(
                "agents/codex/tool-run.ndjson",
                &[
                    ("bash -lc 'cargo test'", command(5)),
                    ("test result: ok", output),
                    ("The tests pass.", format!("Set {}", joined(6, "; "))),
                ],
            ),
        ),
    ]
}

/// No secret of any kind in `out`, nor the password of the command line.
fn assert_no_secret(what: &str, out: &str) {
    for c in credentials() {
        for part in c.secret.lines().filter(|l| l.len() >= 6) {
            if let Some(at) = out.find(part).or_else(|| out.find(&in_json(part))) {
                let bytes = out.as_bytes();
                let around = String::from_utf8_lossy(
                    &bytes[at.saturating_sub(120)..(at + part.len() + 40).min(bytes.len())],
                );
                panic!("{what}: the {} {part:?} is left in {around}", c.kind);
            }
        }
    }
    assert!(
        !out.contains("Hunter22pw"),
        "{what}: the -p password is left"
    );
}

/// Every look-alike in `out`, byte for byte (as JSON text).
fn assert_look_alikes(what: &str, out: &str) {
    for l in look_alikes() {
        assert!(
            out.contains(&in_json(&l)),
            "{what}: {l:?} was changed or lost"
        );
    }
}

/// Every line of `out` is a JSON value.
fn assert_json_lines(what: &str, out: &str) {
    for line in out.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{what}: {e}: {line}"));
    }
}

fn write_streams(dir: &Scratch) -> Vec<(&'static str, std::path::PathBuf)> {
    seeded_streams()
        .into_iter()
        .map(|(agent, text)| {
            let path = dir.join(format!("{agent}.ndjson"));
            std::fs::write(&path, text).unwrap();
            (agent, path)
        })
        .collect()
}

#[test]
fn no_credential_is_left_in_any_output_and_every_look_alike_comes_through() {
    let dir = Scratch::new("redact-outputs");
    for (agent, path) in write_streams(&dir) {
        let path = path.to_str().unwrap();
        // Without --redact the credentials are there: the stream puts them to the test.
        let plain = exec(&["fmt", "--to", "common", path], None).stdout();
        assert!(
            plain.contains("Hunter22pw") && plain.contains(&in_json(&credentials()[0].secret)),
            "{agent}"
        );
        for args in [
            &["fmt"][..],
            &["fmt", "--to", "common"],
            &["fmt", "--to", "otlp", "--otlp-content"],
        ] {
            let what = format!("{agent}: {}", args.join(" "));
            let run = exec(&[args, &["--redact", path]].concat(), None);
            let out = run.stdout();
            assert!(!out.is_empty(), "{what}: {}", run.stderr());
            assert_no_secret(&what, &out);
            assert_no_secret(&what, &run.stderr());
            assert_json_lines(&what, &out);
            assert_look_alikes(&what, &out);
            assert!(out.contains("[REDACTED:"), "{what}");
        }
        for args in [
            &["render", "--color", "never"][..],
            &["render", "--thinking", "--color", "never"],
        ] {
            let out = exec(&[args, &["--redact", path]].concat(), None).stdout();
            assert!(out.contains("[REDACTED:"), "{agent} render: {out}");
            assert_no_secret(&format!("{agent}: render"), &out);
        }
        let page = dir.join(format!("{agent}.html"));
        let run = exec(
            &["report", "--redact", path, "-o", page.to_str().unwrap()],
            None,
        );
        assert_eq!(run.code, 0, "{}", run.describe());
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(
            html.trim_end().ends_with("</html>") && html.contains("[REDACTED:"),
            "{agent}"
        );
        assert_no_secret(&format!("{agent}: report"), &html);
    }
}

#[test]
fn run_to_common_and_its_transcript_are_redacted() {
    let dir = Scratch::new("redact-run");
    for (agent, path) in write_streams(&dir) {
        let save = dir.join(format!("{agent}.saved.ndjson"));
        let mut cmd = sjlint();
        cmd.args(["run", "--redact", "--to", "common", "--save"])
            .arg(&save)
            .args(["--after-result", "1s", "--", "cat"])
            .arg(&path);
        let run = run_cmd(cmd, None);
        let what = format!("{agent}: run --to common");
        let out = run.stdout();
        assert!(out.contains("[REDACTED:"), "{what}: {}", run.describe());
        assert_no_secret(&what, &out);
        assert_no_secret(&what, &run.stderr());
        assert_json_lines(&what, &out);
        assert_look_alikes(&what, &out);
        let saved = std::fs::read_to_string(&save).unwrap();
        assert_no_secret(&format!("{agent}: --save"), &saved);
        assert_json_lines(&format!("{agent}: --save"), &saved);
        assert_look_alikes(&format!("{agent}: --save"), &saved);
        // The transcript is the stream, redacted: as many records, of the same types.
        let types = |text: &str| -> Vec<String> {
            text.lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap()["type"].to_string())
                .collect()
        };
        assert_eq!(
            types(&saved),
            types(&std::fs::read_to_string(&path).unwrap()),
            "{agent}"
        );
        // Forwarded on stdout without --to common, redacted too.
        let mut cmd = sjlint();
        cmd.args(["run", "--redact", "--after-result", "1s", "--", "cat"])
            .arg(&path);
        let out = run_cmd(cmd, None).stdout();
        assert_no_secret(&format!("{agent}: run"), &out);
        assert_eq!(out.lines().count(), saved.lines().count(), "{agent}");
    }
}

/// The findings of `check` (rule and line) on `stream`.
fn findings(stream: &str) -> BTreeSet<(String, u64)> {
    let run = exec(&["check", "--format", "json", "-"], Some(stream.as_bytes()));
    run.findings()
        .into_iter()
        .map(|f| (f.rule.clone(), f.line))
        .collect()
}

#[test]
fn check_finds_the_same_in_a_redacted_canonical_stream() {
    let dir = Scratch::new("redact-check");
    for (agent, path) in write_streams(&dir) {
        let path = path.to_str().unwrap();
        let plain = exec(&["fmt", path], None).stdout();
        let redacted = exec(&["fmt", "--redact", path], None).stdout();
        assert_ne!(plain, redacted, "{agent}");
        assert_eq!(findings(&plain), findings(&redacted), "{agent}");
        // And the same as the stream itself, redacted or not.
        let original = std::fs::read_to_string(path).unwrap();
        assert_eq!(
            findings(&original),
            findings(&exec(&["fmt", "--redact", "--to", "ndjson", path], None).stdout()),
            "{agent}"
        );
    }
}

#[test]
fn fmt_write_redact_rewrites_the_file_redacted() {
    let dir = Scratch::new("redact-write");
    let (_, path) = write_streams(&dir).remove(0);
    let run = exec(
        &["fmt", "--write", "--redact", path.to_str().unwrap()],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    let written = std::fs::read_to_string(&path).unwrap();
    assert_no_secret("fmt --write --redact", &written);
    assert_look_alikes("fmt --write --redact", &written);
    assert_json_lines("fmt --write --redact", &written);
    // Written once, the file is its own redacted canonical form.
    let again = exec(
        &["fmt", "--check", "--redact", path.to_str().unwrap()],
        None,
    );
    assert_eq!(again.code, 0, "{}", again.describe());
}
