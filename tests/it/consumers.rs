//! The consumers beside the validator, through the real binary: `sjlint stats`, `sjlint render`,
//! and the generated `completions` and `man` output.
//!
//! Snapshot tests compare the output for every file of the shared corpus (read in place from
//! `../shared/corpus`) and of `testdata/render/` with `tests/snapshots/{stats,render}/`. To
//! rewrite them after an intended change, run `SJLINT_BLESS=1 cargo test --test it consumers`, then
//! review the diff by eye. The corpus tests are skipped when the corpus folder is absent, and
//! fail when it is absent under `CI=true`.

use crate::common::corpus_dir;
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The real binary, run in `dir`, with the colour variables of the calling environment removed.
fn sjlint(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sjlint"));
    cmd.current_dir(dir);
    for var in ["NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "CLICOLOR"] {
        cmd.env_remove(var);
    }
    cmd
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn describe(&self) -> String {
        format!(
            "exit code {}\n--- stdout\n{}--- stderr\n{}---",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs `cmd` with `stdin` (or none) fed from a thread, to the end.
fn run(mut cmd: Command, stdin: Option<&[u8]>) -> Run {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.spawn().expect("cannot start sjlint");
    let feeder = stdin.map(|bytes| {
        let bytes = bytes.to_vec();
        let mut pipe = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        })
    });
    let out = child.wait_with_output().expect("cannot wait for sjlint");
    if let Some(feeder) = feeder {
        feeder.join().unwrap();
    }
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("output is UTF-8"),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.describe());
    run
}

/// `sjlint ARGS…` in `dir`, which must exit with `code`.
fn sjlint_ok(dir: &Path, args: &[&str], code: i32) -> String {
    let mut cmd = sjlint(dir);
    cmd.args(args);
    let r = run(cmd, None);
    assert_eq!(r.code, code, "sjlint {args:?}\n{}", r.describe());
    r.stdout
}

/// The stream files of `dir`, sorted by name.
fn streams_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ndjson") || n.ends_with(".jsonl") || n.ends_with(".json"))
        .collect();
    names.sort();
    names
}

/// Compares `actual` with `tests/snapshots/<name>`, or rewrites it under `SJLINT_BLESS=1`.
/// Returns a description of the difference, so one test can report every file that differs.
fn check_snapshot(name: &str, actual: &str) -> Option<String> {
    let path = manifest_dir().join("tests/snapshots").join(name);
    if std::env::var("SJLINT_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return None;
    }
    match std::fs::read_to_string(&path) {
        Ok(expected) if expected == actual => None,
        Ok(expected) => Some(format!(
            "{} differs (SJLINT_BLESS=1 rewrites it)\n--- expected\n{expected}--- actual\n{actual}---",
            path.display()
        )),
        Err(e) => Some(format!(
            "{}: {e}; run `SJLINT_BLESS=1 cargo test --test it consumers` to create it",
            path.display()
        )),
    }
}

/// The outputs snapshotted for each stream: (snapshot folder, suffix, arguments before the path).
const OUTPUTS: [(&str, &str, &[&str]); 5] = [
    ("stats", ".txt", &["stats"]),
    ("stats", ".json", &["stats", "--format", "json"]),
    ("render", ".txt", &["render"]),
    ("render", ".thinking.txt", &["render", "--thinking"]),
    ("render", ".plain.txt", &["render", "--plain"]),
];

/// Every output of every stream file in `dir`, run from `dir` so that names in the output are
/// the bare file names.
fn snapshot_all(dir: &Path, expected_files: usize) {
    let names = streams_in(dir);
    assert!(
        names.len() >= expected_files,
        "{} holds {} stream files",
        dir.display(),
        names.len()
    );
    let mut failures = Vec::new();
    for name in &names {
        for (folder, suffix, args) in OUTPUTS {
            let mut all = args.to_vec();
            all.push(name);
            let out = sjlint_ok(dir, &all, 0);
            if let Some(f) = check_snapshot(&format!("{folder}/{name}{suffix}"), &out) {
                failures.push(f);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn snapshots_of_the_corpus() {
    if let Some(dir) = corpus_dir() {
        snapshot_all(&dir, 17);
    }
}

#[test]
fn snapshots_of_the_fixtures() {
    snapshot_all(&manifest_dir().join("testdata/render"), 4);
}

const PARALLEL: &str = "reifying__cursor-hack__experiments__parallel-sleep.jsonl";
const DIRECT: &str = "reifying__cursor-hack__experiments__direct-sleep.jsonl";
const TOOL_USE: &str =
    "SkinnnyJay__toad-ts____tests____fixtures__cursor__ndjson__tool-use-response.ndjson";
const HELLO: &str =
    "SkinnnyJay__toad-ts____tests____fixtures__cursor__ndjson__hello-response.ndjson";

fn stats_json(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["stats", "--format", "json"];
    all.extend_from_slice(args);
    serde_json::from_str(&sjlint_ok(dir, &all, 0)).expect("one JSON document")
}

/// Numbers checked by hand against the captures' timestamps.
#[test]
fn corpus_numbers_checked_by_hand() {
    let Some(dir) = corpus_dir() else { return };

    // Two parallel `sleep` calls: started at …976204 and …976330, completed (out of order) at
    // …980492 (sleep 4) and …982401 (sleep 6).
    let s = stats_json(&dir, &[PARALLEL]);
    let f = &s["files"][0];
    assert_eq!(f["records"], 9);
    assert_eq!(f["bytes"], 5193);
    assert_eq!(f["sessions"], 1);
    assert_eq!(f["duration_ms"], 13039);
    let shell = &f["tool_calls"][0];
    assert_eq!(shell["kind"], "shell");
    assert_eq!(
        shell["names"],
        serde_json::json!([{"name": "shellToolCall", "count": 2, "rejected": 0}])
    );
    assert_eq!(shell["count"], 2);
    assert_eq!(shell["failed"], 0);
    assert_eq!(shell["duration_ms"]["timed"], 2);
    assert_eq!(
        shell["duration_ms"]["median"],
        f64::midpoint(4162.0, 6197.0)
    );
    assert_eq!(shell["duration_ms"]["p95"], 6197);
    assert_eq!(shell["duration_ms"]["max"], 6197);
    assert_eq!(
        f["findings"],
        serde_json::json!({"error": 0, "warning": 0, "info": 0})
    );
    let out = sjlint_ok(&dir, &["render", PARALLEL], 0);
    let tools: Vec<&str> = out.lines().filter(|l| l.starts_with("→ ")).collect();
    assert_eq!(
        tools,
        [
            "→ Ran `sleep 4`: exit 0 in 4.2 s",
            "→ Ran `sleep 6`: exit 0 in 6.2 s"
        ]
    );

    // 210 one-word thinking deltas from …841542 to the completion at …845095, then `sleep 5`
    // (…845357 → …850766) and `sleep 3` (…853543 → …856707).
    let s = stats_json(&dir, &[DIRECT]);
    let f = &s["files"][0];
    assert_eq!(f["records"], 220);
    assert_eq!(
        f["thinking"],
        serde_json::json!({"phases": 1, "duration_ms": 3553})
    );
    let deltas = f["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "thinking" && e["subtype"].is_null())
        .unwrap();
    // The deltas, and the event that ends the phase (with its duration).
    assert_eq!(deltas["count"], 211);
    let shell = &f["tool_calls"][0]["duration_ms"];
    assert_eq!(shell["median"], f64::midpoint(5409.0, 3164.0));
    assert_eq!(shell["max"], 5409);

    // A read of a 129-line file in 19 ms and an edit in 57 ms; partial output with a flush.
    let out = sjlint_ok(&dir, &["render", TOOL_USE], 0);
    assert!(
        out.contains(
            "→ Read file /Users/boice/Documents/GitHub/toad-ts/package.json (129 lines) in 19 ms\n"
        ),
        "{out}"
    );
    assert!(out.contains("→ Edited file /tmp/toadstool-cursor-fixture.txt in 57 ms\n"));
    let answer = "Done. Wrote a one-line summary to `/tmp/toadstool-cursor-fixture.txt`.";
    assert_eq!(
        out.matches(answer).count(),
        1,
        "the flush is not repeated:\n{out}"
    );

    // Nine token deltas and a flush that repeats them: the sentence appears once.
    let out = sjlint_ok(&dir, &["render", HELLO], 0);
    let hello = "Hello, welcome to the toad-ts project — how can I help you today?";
    assert_eq!(out.matches(hello).count(), 1, "{out}");
    assert!(!out.contains("Hello,Hello"));
}

#[test]
fn stats_json_validates_against_the_schema() {
    let schema: Value =
        serde_json::from_str(include_str!("../../schemas/stats.schema.json")).unwrap();
    jsonschema::meta::validate(&schema).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert_eq!(
        schema["$id"],
        "https://sjlint.dev/schemas/v1/stats.schema.json"
    );

    let mut dirs = vec![manifest_dir().join("testdata/render")];
    dirs.extend(corpus_dir());
    for dir in dirs {
        let doc = stats_json(&dir, &["."]);
        if let Err(e) = validator.validate(&doc) {
            panic!("{}: {e}\n{doc:#}", dir.display());
        }
        // The total adds up the files.
        let files = doc["files"].as_array().unwrap();
        assert_eq!(doc["total"]["files"], files.len());
        for key in ["records", "bytes", "sessions", "duration_ms"] {
            let sum: u64 = files.iter().map(|f| f[key].as_u64().unwrap()).sum();
            assert_eq!(doc["total"][key], sum, "{key}");
        }
        let mut bad = doc.clone();
        bad["total"]["extra"] = Value::from(1);
        assert!(!validator.is_valid(&bad));
        let mut bad = doc.clone();
        bad["files"][0]["records"] = Value::from(-1);
        assert!(!validator.is_valid(&bad));
    }
}

#[test]
fn stats_of_standard_input_and_unreadable_paths() {
    let dir = manifest_dir();
    let input = std::fs::read(dir.join("testdata/render/two-sessions.ndjson")).unwrap();
    let mut cmd = sjlint(dir);
    cmd.args([
        "stats",
        "--format",
        "json",
        "--stdin-filename",
        "run.ndjson",
    ]);
    let r = run(cmd, Some(&input));
    assert_eq!(r.code, 0, "{}", r.describe());
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["files"][0]["file"], "run.ndjson");
    assert_eq!(doc["files"][0]["sessions"], 2);
    assert_eq!(doc["files"][0]["results"]["error"], 1);

    let mut cmd = sjlint(dir);
    cmd.args([
        "stats",
        "no/such/file.ndjson",
        "testdata/render/json-form.json",
    ]);
    let r = run(cmd, None);
    assert_eq!(r.code, 2, "{}", r.describe());
    assert!(
        r.stderr.contains("cannot read no/such/file.ndjson"),
        "{}",
        r.describe()
    );
    assert!(
        r.stdout.starts_with("testdata/render/json-form.json\n"),
        "{}",
        r.describe()
    );
}

#[test]
fn render_reads_standard_input_and_names_files_when_several() {
    let dir = manifest_dir();
    let input = std::fs::read(dir.join("testdata/render/json-form.json")).unwrap();
    let mut cmd = sjlint(dir);
    cmd.arg("render");
    let r = run(cmd, Some(&input));
    assert_eq!(r.code, 0, "{}", r.describe());
    // A session without `system`/`init` still opens under its id and the agent's name.
    assert_eq!(
        r.stdout,
        "session 22222222-0000-4000-8000-000000000003 · cursor-agent\n\n\
         The README describes a CLI that checks agent streams.\n\n✓ completed in 1.2 s\n"
    );

    let out = sjlint_ok(
        dir,
        &[
            "render",
            "testdata/render/json-form.json",
            "testdata/render/two-sessions.ndjson",
        ],
        0,
    );
    assert!(
        out.starts_with("==> testdata/render/json-form.json <==\n\n"),
        "{out}"
    );
    assert!(out.contains("\n\n==> testdata/render/two-sessions.ndjson <==\n\nsession "));
}

#[test]
fn render_colour_follows_the_choice_and_escapes_stay_escaped() {
    let dir = manifest_dir();
    let file = "testdata/render/broken-run.ndjson";
    let never = sjlint_ok(dir, &["render", "--color", "never", file], 0);
    assert!(!never.contains('\u{1b}'), "{never}");
    // Not a terminal: no colour unless forced.
    assert_eq!(sjlint_ok(dir, &["render", file], 0), never);
    let always = sjlint_ok(dir, &["render", "--color", "always", file], 0);
    assert!(always.contains("\u{1b}["));
    let mut cmd = sjlint(dir);
    cmd.env("FORCE_COLOR", "1").args(["render", file]);
    assert_eq!(run(cmd, None).stdout, always);
    let mut cmd = sjlint(dir);
    cmd.env("NO_COLOR", "1")
        .args(["render", "--color", "never", file]);
    assert_eq!(run(cmd, None).stdout, never);
    // The input's own escape sequences are shown, never sent: the only ones in the coloured
    // output are the SGR codes sjlint writes.
    for out in [&never, &always] {
        assert!(out.contains("\\u{1b}[2J"), "{out}");
        assert!(!out.contains("\u{1b}[2J"));
        assert!(!out.contains("\u{1b}[31mnow"));
        assert!(!out.contains('\u{202e}'));
    }
    // Plain output has no colour at all.
    let plain = sjlint_ok(dir, &["render", "--plain", "--color", "always", file], 0);
    assert!(!plain.contains('\u{1b}'));
}

#[test]
fn render_plain_and_thinking_exclude_each_other() {
    let mut cmd = sjlint(manifest_dir());
    cmd.args([
        "render",
        "--plain",
        "--thinking",
        "testdata/render/json-form.json",
    ]);
    let r = run(cmd, None);
    assert_eq!(r.code, 2, "{}", r.describe());
    assert!(r.stderr.contains("cannot be used with"), "{}", r.describe());
}

#[test]
fn render_stops_quietly_when_stdout_closes() {
    // A long stream on stdin; the reader of the transcript goes away after a few bytes.
    let mut stream = Vec::new();
    stream.extend_from_slice(b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n");
    for i in 0..200_000 {
        writeln!(
            stream,
            "{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"line {i}\\n\"}}]}},\"session_id\":\"s\"}}"
        )
        .unwrap();
    }
    let mut cmd = sjlint(manifest_dir());
    cmd.arg("render")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&stream);
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn completions_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish"] {
        let out = sjlint_ok(manifest_dir(), &["completions", shell], 0);
        for sub in [
            "check",
            "rules",
            "explain",
            "stats",
            "render",
            "completions",
            "man",
        ] {
            assert!(out.contains(sub), "{shell} completions lack `{sub}`");
        }
        // fish names long options without their dashes (`-l thinking`).
        assert!(
            out.contains("thinking") && out.contains("format"),
            "{shell}"
        );
    }
    let mut cmd = sjlint(manifest_dir());
    cmd.args(["completions", "tcsh"]);
    assert_eq!(run(cmd, None).code, 2);
}

/// The requests of a roff page, with the two lines `clap_mangen` puts before `.TH` (they define
/// the `Aq` string for apostrophes) left out.
fn roff_requests(page: &str) -> Vec<&str> {
    page.lines()
        .filter(|l| l.starts_with('.'))
        .filter(|l| !l.starts_with(".ie ") && !l.starts_with(".el "))
        .collect()
}

#[test]
fn man_pages_are_roff() {
    let page = sjlint_ok(manifest_dir(), &["man"], 0);
    let requests = roff_requests(&page);
    assert!(requests[0].starts_with(".TH sjlint 1"), "{page}");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH SUBCOMMANDS"] {
        assert!(requests.contains(&section), "{section} in\n{page}");
    }
    for sub in ["stats", "render", "completions", "man"] {
        assert!(page.contains(&format!("sjlint\\-{sub}(1)")), "{sub}");
    }

    let page = sjlint_ok(manifest_dir(), &["man", "render"], 0);
    assert!(
        roff_requests(&page)[0].starts_with(".TH sjlint-render 1"),
        "{page}"
    );
    assert!(page.contains("\\-\\-thinking"));
    let mut cmd = sjlint(manifest_dir());
    cmd.args(["man", "nope"]);
    assert_eq!(run(cmd, None).code, 2);
}
