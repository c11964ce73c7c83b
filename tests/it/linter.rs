//! What a linter's users expect of sjlint, through the real binary: honest exit codes when
//! nothing matched, a headline for a stream with no event, forward-compatible event types and
//! tool kinds, no cascades after an unreadable record, directory walks like ripgrep's,
//! configuration files (found upwards, nested, their globs relative to them), `--severity`,
//! `--level`, `--statistics`, `--max-diagnostics` in every format, the outputs, `fmt` on files,
//! help, and the examples and outputs of README.md and docs/ held to what the binary does.

use crate::common::*;
use std::path::{Path, PathBuf};

/// A fresh directory under the target's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("linter-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

fn sample() -> String {
    std::fs::read_to_string(testdata("sample.ndjson")).unwrap()
}

fn orphan() -> String {
    std::fs::read_to_string(testdata("rules/orphan-completion/fails.ndjson")).unwrap()
}

/// The files the findings name, relative to `dir`.
fn files_of(findings: &[Finding], dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = findings
        .iter()
        .map(|f| {
            Path::new(&f.file)
                .strip_prefix(dir)
                .unwrap_or(Path::new(&f.file))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.dedup();
    files
}

// ------------------------------------------------------------------------------------------
// Honest results.

#[test]
fn no_file_matched_is_a_usage_error_not_a_pass() {
    let dir = scratch("no-match");
    write(&dir.join("run1.log"), "Error: not authenticated\n");
    let d = dir.to_str().unwrap();
    for command in ["check", "stats", "render", "fmt"] {
        let run = exec(&[command, d], None);
        assert_eq!(run.code, 2, "sjlint {command}\n{}", run.describe());
        assert!(
            run.stderr().contains("no files matched")
                && run
                    .stderr()
                    .contains("pass --include GLOB, --no-ignore or --hidden, or name the files"),
            "{}",
            run.describe()
        );
        assert!(
            !run.stdout().contains("No problems found"),
            "{}",
            run.describe()
        );
    }
    // --include takes the log, which is then checked.
    let run = exec(
        &["check", "--format", "json", "--include", "*.log", d],
        None,
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_eq!(run.findings()[0].rule, "empty-stream");
}

#[test]
fn a_capture_of_stderr_alone_gets_a_headline_quoting_it() {
    let text = "⚠ Workspace Trust Required\nThis folder has not been trusted.\n\nRun `cursor-agent` with --trust to continue.\n";
    let (run, findings) = check_json(&["--stdin-filename", "trust.ndjson"], Some(text.as_bytes()));
    assert_eq!(run.code, 1);
    let head = &findings[0];
    assert_eq!(head.rule, "empty-stream", "{}", show(&findings));
    assert_eq!((head.line, head.column), (1, Some(1)));
    assert!(
        head.message
            .starts_with("no events: the input is 3 lines of plain text")
            && head.message.contains("\"⚠ Workspace Trust Required\""),
        "{}",
        head.message
    );
    assert_eq!(head.related[0].0, 2, "the next lines are quoted too");
    // The headline is the one finding: the lines are its fact, not reported again.
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    // With the headline ignored, the lines are reported one by one.
    let (_, findings) = check_json(&["--ignore", "empty-stream"], Some(text.as_bytes()));
    assert_eq!(lines_of(&findings, "invalid-json"), [1, 2, 4]);

    // The human output opens with it.
    let run = exec(&["check", "--color", "never"], Some(text.as_bytes()));
    assert!(
        run.stdout()
            .starts_with("error[empty-stream]: no events: the input is 3 lines of plain text"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_long_text_capture_is_summed_up_after_the_first_lines() {
    let text: String = (1..=40)
        .map(|i| format!("line {i} of the reply\n"))
        .collect();
    let (_, findings) = check_json(&[], Some(text.as_bytes()));
    assert_eq!(findings[0].rule, "empty-stream");
    assert!(findings[0].message.contains("40 lines of plain text"));
    assert_eq!(findings.len(), 1, "{}", show(&findings));
    assert_eq!(
        findings[0].related.len(),
        4,
        "the next four lines are quoted"
    );
    let (_, findings) = check_json(&["--ignore", "empty-stream"], Some(text.as_bytes()));
    let invalid: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.rule == "invalid-json")
        .collect();
    assert_eq!(invalid.len(), 11, "{}", show(&findings));
    assert!(
        invalid[10]
            .message
            .starts_with("30 more lines of plain text on lines 11-40"),
        "{}",
        invalid[10].message
    );

    // Text before the first event: no headline, the lines as before.
    let with_events = format!("{text}{}", sample());
    let (_, findings) = check_json(&[], Some(with_events.as_bytes()));
    assert!(
        !rules_of(&findings).contains("empty-stream"),
        "{}",
        show(&findings)
    );
    assert_eq!(lines_of(&findings, "invalid-json").len(), 11);
}

#[test]
fn log_like_lines_get_the_merged_stderr_help() {
    assert_plain_text_lines(
        &[
            "[warn] slow network",
            "[2026-01-28T10:00:00Z] INFO starting",
            "- item one",
            "123 errors",
            "2026-01-28 10:00:00 connecting",
            "Error: auth failed",
        ],
        // Broken JSON stays broken JSON.
        &["[01]", "[True]", "-x", "[1 2]"],
    );
}

/// The sample with transport records and the newer tool kinds in it.
fn newer_cli_stream() -> String {
    let sample = sample();
    let lines: Vec<&str> = sample.lines().collect();
    let sid = "1e2b8f3f-4472-579f-9de0-5bc55ec51b42";
    let mut out = vec![lines[0].to_owned(), lines[1].to_owned()];
    out.push(format!(
        r#"{{"type":"connection","subtype":"reconnecting","attempt":1,"endpoint_url":"https://example.invalid","session_id":"{sid}","timestamp_ms":1}}"#
    ));
    out.push(format!(
        r#"{{"type":"retry","subtype":"starting","attempt":1,"is_resume":true,"session_id":"{sid}","timestamp_ms":2}}"#
    ));
    out.push(format!(
        r#"{{"type":"connection","subtype":"reconnected","session_id":"{sid}","timestamp_ms":3}}"#
    ));
    for (i, kind) in [
        "taskToolCall",
        "getMcpToolsToolCall",
        "readTodosToolCall",
        "switchModeToolCall",
        "generateImageToolCall",
        "writeShellStdinToolCall",
    ]
    .iter()
    .enumerate()
    {
        for sub in ["started", "completed"] {
            out.push(format!(
                r#"{{"type":"tool_call","subtype":"{sub}","call_id":"c{i}","tool_call":{{"{kind}":{{"args":{{}}}}}},"session_id":"{sid}","timestamp_ms":4}}"#
            ));
        }
    }
    out.extend(lines[2..].iter().map(std::string::ToString::to_string));
    out.join("\n") + "\n"
}

#[test]
fn transport_records_and_newer_tool_kinds_are_clean_even_under_strict() {
    let input = newer_cli_stream();
    let (run, findings) = check_json(&["--strict"], Some(input.as_bytes()));
    assert!(findings.is_empty(), "{}", show(&findings));
    assert_eq!(run.code, 0);
}

#[test]
fn unknown_types_and_kinds_are_information_unless_raised() {
    let input = sample().replacen(
        '\n',
        "\n{\"type\":\"telemetry\",\"session_id\":\"1e2b8f3f-4472-579f-9de0-5bc55ec51b42\"}\n",
        1,
    );
    let (run, findings) = check_json(&["--strict"], Some(input.as_bytes()));
    assert_eq!(
        rules_of(&findings),
        ["unknown-event-type".to_owned()].into()
    );
    assert_eq!(findings[0].severity, "info");
    assert_eq!(run.code, 0, "a newer CLI is not a broken stream");

    let raised = ["--strict", "--severity", "unknown-event-type=warning"];
    let (run, findings) = check_json(&raised, Some(input.as_bytes()));
    assert_eq!(findings[0].severity, "warning");
    assert_eq!(run.code, 1, "opted in, --strict fails on it");
    let (run, _) = check_json(&["--severity", "schema=error"], Some(input.as_bytes()));
    assert_eq!(run.code, 1);
}

#[test]
fn an_unreadable_record_causes_no_cascade() {
    let sample = sample();
    // The completion of the read call is too large: it is skipped, and the call it completed
    // is not reported unfinished.
    let (_, findings) = check_json(&["--max-record-bytes", "500"], Some(sample.as_bytes()));
    assert!(rules_of(&findings).contains("record-too-large"));
    assert!(
        !rules_of(&findings).contains("unfinished-tool-call"),
        "{}",
        show(&findings)
    );

    // A result cut off at the end: truncated, not also missing.
    let cut = &sample[..sample.len() - 40];
    let (_, findings) = check_json(&[], Some(cut.as_bytes()));
    assert_eq!(
        rules_of(&findings),
        ["truncated-record".to_owned()].into(),
        "{}",
        show(&findings)
    );

    // A broken init: no missing-init for the event after it.
    let broken = sample.replacen(
        "{\"type\":\"system\",\"subtype\":\"init\"",
        "{\"type\":\"system\",\"subtype\":\"init\",,",
        1,
    );
    let (_, findings) = check_json(&[], Some(broken.as_bytes()));
    assert_eq!(
        rules_of(&findings),
        ["invalid-json".to_owned()].into(),
        "{}",
        show(&findings)
    );

    // A broken `started`: its completion is not an orphan.
    let lines: Vec<&str> = sample.lines().collect();
    let mut edited: Vec<String> = lines.iter().map(std::string::ToString::to_string).collect();
    edited[11] = edited[11].replacen('{', "{,", 1);
    let (_, findings) = check_json(&[], Some((edited.join("\n") + "\n").as_bytes()));
    assert_eq!(
        rules_of(&findings),
        ["invalid-json".to_owned()].into(),
        "{}",
        show(&findings)
    );

    // `fmt --keep-invalid` keeps the broken record as a `raw` event, and the silence with it.
    let mut broken_completion: Vec<String> =
        lines.iter().map(std::string::ToString::to_string).collect();
    broken_completion[12] = broken_completion[12].replacen('{', "{,", 1);
    let input = broken_completion.join("\n") + "\n";
    let kept = exec(&["fmt", "--keep-invalid"], Some(input.as_bytes()));
    assert!(
        kept.stdout().contains("{\"type\":\"raw\""),
        "{}",
        kept.describe()
    );
    let (_, findings) = check_json(&[], Some(&kept.stdout));
    assert!(findings.is_empty(), "{}", show(&findings));

    // A thinking phase whose `completed` could not be read is not "not completed".
    let thinking = [
        lines[0].to_owned(),
        r#"{"type":"thinking","subtype":"delta","text":"hm","session_id":"1e2b8f3f-4472-579f-9de0-5bc55ec51b42"}"#.to_owned(),
        r#"{"type":"thinking","subtype":"completed","session_id":"1e2b8f3f-4472-579f-9de0-5bc55ec51b42""#.to_owned(),
    ]
    .into_iter()
    .chain(lines[1..].iter().map(std::string::ToString::to_string))
    .collect::<Vec<_>>()
    .join("\n");
    let (_, findings) = check_json(&[], Some(thinking.as_bytes()));
    assert!(
        !rules_of(&findings).contains("thinking-not-completed"),
        "{}",
        show(&findings)
    );
    assert!(
        rules_of(&findings).contains("invalid-json"),
        "{}",
        show(&findings)
    );

    // Plain text is never an event: the rules after it still fire.
    let text_first = format!("Error: boom\n{}", lines[1..].join("\n"));
    let (_, findings) = check_json(&[], Some(text_first.as_bytes()));
    assert!(
        rules_of(&findings).contains("missing-init"),
        "{}",
        show(&findings)
    );
}

// ------------------------------------------------------------------------------------------
// Directory walks.

#[test]
fn walks_honour_ignore_files_hidden_files_and_globs() {
    let dir = scratch("walk");
    for name in [
        "a.ndjson",
        "b.jsonl",
        "stream.json",
        ".hidden/c.ndjson",
        "ignored/d.ndjson",
        "also/e.ndjson",
        "sub/f.ndjson",
        "notes.log",
    ] {
        write(&dir.join(name), &orphan());
    }
    // A repository of its own: `.gitignore` counts inside one only, wherever the scratch
    // folder is.
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    write(&dir.join(".gitignore"), "ignored/\n");
    write(&dir.join("sub/.ignore"), "f.ndjson\n");
    write(
        &dir.join("package.json"),
        "{\n  \"name\": \"x\",\n  \"type\": \"module\"\n}\n",
    );
    write(
        &dir.join("one-line.json"),
        "{\"name\":\"x\",\"version\":\"1.0.0\"}\n",
    );
    let d = dir.to_str().unwrap();
    let (_, findings) = check_json(&["--select", "orphan-completion", d], None);
    assert_eq!(
        files_of(&findings, &dir),
        ["a.ndjson", "also/e.ndjson", "b.jsonl", "stream.json"]
    );
    let excluded = [
        "--select",
        "orphan-completion",
        "--exclude",
        "also/",
        "--exclude",
        "*.json",
        d,
    ];
    let (_, findings) = check_json(&excluded, None);
    assert_eq!(files_of(&findings, &dir), ["a.ndjson", "b.jsonl"]);
    let included = ["--select", "orphan-completion", "--include", "*.log", d];
    let (_, findings) = check_json(&included, None);
    assert_eq!(files_of(&findings, &dir), ["notes.log"]);
    // A path named explicitly is read whatever its name.
    let package = dir.join("package.json");
    let (_, findings) = check_json(&[package.to_str().unwrap()], None);
    assert!(!findings.is_empty());
}

#[cfg(unix)]
#[test]
fn a_walk_skips_fifos_and_devices_with_a_note() {
    let dir = scratch("walk-special");
    write(&dir.join("a.ndjson"), &orphan());
    let fifo = dir.join("pipe.ndjson");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.ndjson")).unwrap();
    let mut cmd = sjlint();
    cmd.args(["check", "--format", "json", dir.to_str().unwrap()]);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run_cmd(cmd, None));
    });
    let run = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("sjlint hangs on a FIFO or a device under a walked directory");
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_eq!(files_of(&run.findings(), &dir), ["a.ndjson"]);
    let err = run.stderr();
    assert!(
        err.contains("note: skipped") && err.contains("pipe.ndjson: a FIFO"),
        "{err}"
    );
    assert!(err.contains("zero.ndjson: a character device"), "{err}");
}

// ------------------------------------------------------------------------------------------
// Configuration.

#[test]
fn a_config_file_is_found_by_walking_up_from_each_input() {
    let dir = scratch("config");
    write(
        &dir.join("sjlint.toml"),
        "[severity]\norphan-completion = \"warning\"\n\n[per-file-ignores]\n\"legacy/*\" = [\"tool-calls\"]\n",
    );
    write(&dir.join("runs/a.ndjson"), &orphan());
    write(&dir.join("legacy/old.ndjson"), &orphan());
    write(
        &dir.join("other/pyproject.toml"),
        "[tool.black]\nline-length = 100\n\n[tool.sjlint]\nignore = [\"orphan-completion\"]\n",
    );
    write(&dir.join("other/b.ndjson"), &orphan());
    let d = dir.to_str().unwrap();
    let (run, findings) = check_json(&[d], None);
    let orphans: Vec<(String, String)> = findings
        .iter()
        .filter(|f| f.rule == "orphan-completion")
        .map(|f| {
            (
                files_of(std::slice::from_ref(f), &dir)[0].clone(),
                f.severity.clone(),
            )
        })
        .collect();
    assert_eq!(
        orphans,
        [("runs/a.ndjson".to_owned(), "warning".to_owned())]
    );
    assert_eq!(run.code, 0, "{}", run.describe());

    // --isolated reads none; --config one for all.
    let (run, findings) = check_json(&["--isolated", d], None);
    assert_eq!(lines_of(&findings, "orphan-completion").len(), 3);
    assert_eq!(run.code, 1);
    let config = dir.join("other/pyproject.toml");
    let (_, findings) = check_json(&["--config", config.to_str().unwrap(), d], None);
    assert!(lines_of(&findings, "orphan-completion").is_empty());

    // `sjlint config` shows what is in force.
    let run = exec(&["config", dir.join("runs").to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let out = run.stdout();
    assert!(out.contains("sjlint.toml"), "{out}");
    assert!(
        out.contains("orphan-completion = warning (default error)"),
        "{out}"
    );
    assert!(out.contains("legacy/* = orphan-completion"), "{out}");
}

/// `check` run in `cwd` on `args`: the files with findings, relative to `dir`.
fn checked_from(cwd: &Path, args: &[&str], dir: &Path) -> Vec<String> {
    let mut cmd = sjlint();
    cmd.current_dir(cwd)
        .args(["check", "--format", "json"])
        .args(args);
    let run = run_cmd(cmd, None);
    assert!(run.code <= 1, "{}", run.describe());
    let dir = std::fs::canonicalize(dir).unwrap();
    let mut files: Vec<String> = run
        .findings()
        .iter()
        .map(|f| {
            let path = std::fs::canonicalize(cwd.join(&f.file)).unwrap();
            path.strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.dedup();
    files
}

#[test]
fn a_config_files_globs_are_relative_to_its_directory_wherever_the_walk_starts() {
    let dir = scratch("config-globs");
    write(
        &dir.join("sjlint.toml"),
        "include = [\"runs/*.ndjson\", \"*.log\"]\nexclude = [\"runs/old/\"]\n",
    );
    for name in [
        "runs/a.ndjson",
        "runs/old/b.ndjson",
        "runs/c.log",
        "elsewhere/d.ndjson",
    ] {
        write(&dir.join(name), &orphan());
    }
    let all = ["runs/a.ndjson", "runs/c.log"];
    assert_eq!(checked_from(&dir, &["."], &dir), all);
    assert_eq!(checked_from(&dir, &["runs"], &dir), all);
    let runs = dir.join("runs");
    assert_eq!(checked_from(&runs, &["."], &dir), all);
    assert_eq!(checked_from(&runs, &["../runs"], &dir), all);
    assert_eq!(
        checked_from(dir.parent().unwrap(), &[dir.to_str().unwrap()], &dir),
        all
    );
    // A path named explicitly is checked whatever the globs say.
    assert_eq!(
        checked_from(&runs, &["old/b.ndjson"], &dir),
        ["runs/old/b.ndjson"]
    );
    // The command line's globs are relative to the directory walked.
    assert_eq!(
        checked_from(
            &dir,
            &["--exclude", "old/", "--include", "*.ndjson", "runs"],
            &dir
        ),
        ["runs/a.ndjson"]
    );

    // `sjlint config` says what they are relative to.
    let mut cmd = sjlint();
    cmd.current_dir(&runs).arg("config");
    let out = run_cmd(cmd, None).stdout();
    let root = std::fs::canonicalize(&dir).unwrap();
    assert!(
        out.contains(&format!(
            "exclude: runs/old/ (relative to {})",
            root.display()
        )),
        "{out}"
    );

    // `..` is folded away before looking upwards: the configuration of `runs/old/`, below the
    // current directory, does not govern `runs/old/..`.
    write(&runs.join("old/sjlint.toml"), "select = [\"framing\"]\n");
    assert_eq!(checked_from(&runs, &["old/.."], &dir), all);

    // Per-file ignores too, named from below: `../elsewhere/d.ndjson` is `elsewhere/d.ndjson`.
    write(
        &dir.join("sjlint.toml"),
        "[per-file-ignores]\n\"elsewhere/*\" = [\"orphan-completion\"]\n",
    );
    assert_eq!(
        checked_from(&runs, &["../elsewhere", "a.ndjson"], &dir),
        ["runs/a.ndjson"]
    );

    // A glob that does not compile names the file and the line.
    write(&dir.join("sjlint.toml"), "\nexclude = [\n  \"a{\",\n]\n");
    let mut cmd = sjlint();
    cmd.current_dir(&runs).args(["check", "."]);
    let run = run_cmd(cmd, None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr()
            .contains("sjlint.toml:3: exclude `a{` is not a glob"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_walk_honours_the_globs_of_configuration_files_below_it() {
    let dir = scratch("config-nested");
    write(
        &dir.join("captures/sjlint.toml"),
        "include = [\"*.log\"]\nexclude = [\"old/\"]\n",
    );
    for name in [
        "captures/old/a.log",
        "captures/new/b.log",
        "captures/new/c.ndjson",
        "other/d.ndjson",
        "other/old/e.ndjson",
    ] {
        write(&dir.join(name), &orphan());
    }
    // Below `captures/`, its globs replace the defaults; elsewhere the defaults hold.
    let found = ["captures/new/b.log", "other/d.ndjson", "other/old/e.ndjson"];
    assert_eq!(checked_from(&dir, &["."], &dir), found);
    assert_eq!(
        checked_from(dir.parent().unwrap(), &[dir.to_str().unwrap()], &dir),
        found
    );
    // A pyproject.toml without [tool.sjlint] is no configuration of sjlint's.
    write(&dir.join("other/pyproject.toml"), "[tool.black]\n");
    assert_eq!(checked_from(&dir, &["."], &dir), found);
    // --isolated reads none, so none below either.
    assert_eq!(
        checked_from(&dir, &["--isolated", "."], &dir),
        [
            "captures/new/c.ndjson",
            "other/d.ndjson",
            "other/old/e.ndjson"
        ]
    );
    // One below that cannot be used stops the run, naming its file and line.
    write(
        &dir.join("captures/sjlint.toml"),
        "exclude = [\"old/\"]\nincl = []\n",
    );
    let mut cmd = sjlint();
    cmd.current_dir(&dir).args(["check", "."]);
    let run = run_cmd(cmd, None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr().contains("sjlint.toml:2: unknown field `incl`"),
        "{}",
        run.describe()
    );
}

#[test]
fn config_shows_the_command_line_laid_over_the_file() {
    let dir = scratch("config-cli");
    write(
        &dir.join("sjlint.toml"),
        "ignore = [\"blank-line\"]\n[severity]\nunknown-event-type = \"warning\"\n",
    );
    let mut cmd = sjlint();
    cmd.current_dir(&dir).args([
        "config",
        "--select",
        "framing",
        "--ignore",
        "byte-order-mark",
        "--severity",
        "invalid-json=warning",
    ]);
    let run = run_cmd(cmd, None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let out = run.stdout();
    let framing = [
        "invalid-json",
        "invalid-utf8",
        "not-an-object",
        "raw-control-character",
        "truncated-record",
        "record-too-large",
        "empty-stream",
    ];
    assert!(
        out.contains(&format!("rules enabled: {} of ", framing.len())),
        "{out}"
    );
    assert!(
        out.contains("invalid-json = warning (default error)")
            && !out.contains("unknown-event-type = warning"),
        "{out}"
    );
    // The same settings check uses: an unknown name is a usage error with a suggestion.
    let run = exec(&["config", "--select", "framin"], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr().contains("did you mean `framing`?"),
        "{}",
        run.describe()
    );
}

#[test]
fn bad_config_keys_name_the_file_and_line() {
    let dir = scratch("config-bad");
    write(&dir.join("a.ndjson"), &sample());
    write(
        &dir.join("sjlint.toml"),
        "select = [\"all\"]\nignroe = [\"blank-line\"]\n",
    );
    let run = exec(&["check", dir.to_str().unwrap()], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr()
            .contains("sjlint.toml:2: unknown field `ignroe`"),
        "{}",
        run.describe()
    );
    write(
        &dir.join("sjlint.toml"),
        "\n[severity]\norphan-completon = \"error\"\n",
    );
    let run = exec(&["check", dir.to_str().unwrap()], None);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr().contains("sjlint.toml:3: unknown rule or group `orphan-completon`; did you mean `orphan-completion`?"),
        "{}",
        run.describe()
    );
}

// ------------------------------------------------------------------------------------------
// Rules on the command line, statistics.

#[test]
fn select_and_ignore_repeat_and_suggest_on_a_typo() {
    let input = orphan();
    let (_, findings) = check_json(
        &[
            "--select",
            "lifecycle",
            "--select",
            "tool-calls",
            "--ignore",
            "missing-result",
        ],
        Some(input.as_bytes()),
    );
    assert_eq!(rules_of(&findings), ["orphan-completion".to_owned()].into());
    let run = exec(
        &["check", "--select", "orphan-completon"],
        Some(input.as_bytes()),
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr().contains("did you mean `orphan-completion`?"),
        "{}",
        run.describe()
    );
    let run = exec(&["check", "--ignore", "lifecyle"], Some(input.as_bytes()));
    assert!(
        run.stderr().contains("did you mean `lifecycle`?"),
        "{}",
        run.describe()
    );
}

#[test]
fn level_is_a_severity_floor() {
    let input = std::fs::read(testdata("many-findings.ndjson")).unwrap();
    let (_, all) = check_json(&[], Some(&input));
    let (run, errors) = check_json(&["--level", "error"], Some(&input));
    assert!(errors.iter().all(|f| f.severity == "error"));
    assert_eq!(
        errors.len(),
        all.iter().filter(|f| f.severity == "error").count()
    );
    assert_eq!(run.code, 1);
    let (_, warnings) = check_json(&["--level", "warning"], Some(&input));
    assert!(warnings.iter().all(|f| f.severity != "info"));
    assert!(warnings.len() > errors.len());
    // `warn`, as configuration files and --severity spell it too.
    let (run, warns) = check_json(&["--level", "warn"], Some(&input));
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_eq!(warns.len(), warnings.len());
}

#[test]
fn statistics_count_findings_per_rule() {
    let input = std::fs::read(testdata("many-findings.ndjson")).unwrap();
    let (_, all) = check_json(&[], Some(&input));
    let run = exec(&["check", "--statistics", "--color", "never"], Some(&input));
    assert_eq!(run.code, 1);
    let out = run.stdout();
    assert!(
        !out.contains("-->"),
        "findings are counted, not shown: {out}"
    );
    let total: u64 = out
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total as usize, all.len(), "{out}");
    let blank = out.lines().find(|l| l.contains(" blank-line ")).unwrap();
    assert!(
        blank.contains("info") && blank.contains("not a record"),
        "{blank}"
    );
    let run = exec(&["check", "--statistics", "--format", "json"], Some(&input));
    let table: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert!(
        table
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["rule"] == "blank-line")
    );
}

#[test]
fn statistics_show_the_severity_the_findings_were_reported_with() {
    let input = std::fs::read(testdata("sample-with-problem.ndjson")).unwrap();
    let args = [
        "check",
        "--statistics",
        "--severity",
        "unfinished-tool-call=warning",
        "--color",
        "never",
    ];
    let run = exec(&args, Some(&input));
    assert_eq!(run.code, 0, "{}", run.describe());
    let row = run.stdout().lines().next().unwrap_or_default().to_owned();
    assert!(
        row.split_whitespace()
            .take(3)
            .eq(["1", "unfinished-tool-call", "warning"]),
        "{}",
        run.describe()
    );
    let run = exec(&[&args[..], &["--format", "json"]].concat(), Some(&input));
    let table: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(table[0]["severity"], "warning", "{}", run.describe());

    // No finding, no table: the summary alone, with no blank line before it.
    let clean = std::fs::read(testdata("sample.ndjson")).unwrap();
    let run = exec(&["check", "--statistics"], Some(&clean));
    assert!(
        run.stdout().starts_with("No problems found"),
        "{}",
        run.describe()
    );
}

#[test]
fn repeated_identical_findings_collapse_in_human_output() {
    let input: String = (1..=20).map(|i| format!("{{broken {i}\n")).collect();
    let run = exec(&["check", "--color", "never"], Some(input.as_bytes()));
    assert_eq!(run.code, 1);
    let out = run.stdout();
    assert_eq!(out.matches("error[invalid-json]").count(), 3, "{out}");
    assert!(
        out.contains("note: … and 17 more invalid-json like \"key must be a string\" in -; `--no-collapse` to see all"),
        "{out}"
    );
    assert!(
        out.ends_with("20 errors in 1 file; 20 records, 211 B\n"),
        "{out}"
    );
    let run = exec(
        &["check", "--color", "never", "--no-collapse"],
        Some(input.as_bytes()),
    );
    assert_eq!(run.stdout().matches("error[invalid-json]").count(), 20);
    assert!(!run.stdout().contains("--no-collapse"));
    // The machine formats list every finding, and so do the annotations beside the human
    // output under GitHub Actions.
    let (_, findings) = check_json(&[], Some(input.as_bytes()));
    assert_eq!(findings.len(), 20);
    let mut cmd = sjlint();
    cmd.args(["check", "--color", "never"])
        .env("GITHUB_ACTIONS", "true");
    let run = run_cmd(cmd, Some(input.as_bytes()));
    assert_eq!(
        run.stderr().matches("::error ").count(),
        20,
        "{}",
        run.describe()
    );
    assert_eq!(run.stdout().matches("error[invalid-json]").count(), 3);
}

#[test]
fn max_diagnostics_keeps_errors_first_and_says_how_many_it_hid() {
    let input = std::fs::read(testdata("many-findings.ndjson")).unwrap();
    let (_, all) = check_json(&[], Some(&input));
    let errors = all.iter().filter(|f| f.severity == "error").count();
    let (run, shown) = check_json(&["--max-diagnostics", "5"], Some(&input));
    assert_eq!(shown.len(), 5);
    assert!(
        shown.iter().all(|f| f.severity == "error"),
        "{}",
        show(&shown)
    );
    // In input order, and the first errors.
    let first: Vec<u64> = all
        .iter()
        .filter(|f| f.severity == "error")
        .take(5)
        .map(|f| f.line)
        .collect();
    assert_eq!(shown.iter().map(|f| f.line).collect::<Vec<_>>(), first);
    let hidden = all.len() - 5;
    assert!(
        run.stderr().contains(&format!(
            "note: {hidden} findings not shown (--max-diagnostics 5): {} errors",
            errors - 5
        )),
        "{}",
        run.describe()
    );
    // Room for every error and a few more: the warnings come before the infos.
    let max = (errors + 2).to_string();
    let (_, shown) = check_json(&["--max-diagnostics", &max], Some(&input));
    assert_eq!(shown.iter().filter(|f| f.severity == "warning").count(), 2);
    let run = exec(
        &["check", "--max-diagnostics", "1", "--color", "never"],
        Some(&input),
    );
    assert!(run.stdout().contains("\nnote: "), "{}", run.describe());
}

#[test]
fn max_diagnostics_keeps_errors_first_in_the_document_formats_too() {
    let many = testdata("many-findings.ndjson");
    let clean = testdata("sample.ndjson");
    let (many, clean) = (many.to_str().unwrap(), clean.to_str().unwrap());
    let args = |format| {
        [
            "check",
            "--max-diagnostics",
            "2",
            "--format",
            format,
            clean,
            many,
        ]
    };
    let run = exec(&args("sarif"), None);
    assert_eq!(run.code, 1, "{}", run.describe());
    let log: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let levels: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["error", "error"], "{}", run.describe());

    // junit: the test cases kept stay in the suite of their file, which keeps its properties.
    let run = exec(&args("junit"), None);
    assert_eq!(run.code, 1, "{}", run.describe());
    let xml = run.stdout();
    let suites: Vec<&str> = xml.split("<testsuite ").skip(1).collect();
    assert_eq!(suites.len(), 2, "{xml}");
    assert!(
        suites[0].contains("sample.ndjson") && suites[0].contains("no findings"),
        "{xml}"
    );
    let mine = suites[1];
    assert!(
        mine.contains("many-findings.ndjson\" tests=\"3\" failures=\"3\" errors=\"0\"")
            && mine.contains("name=\"records\" value=\"25\"")
            && mine.matches("<failure type=").count() == 3
            && mine.contains("<testcase name=\"24 findings not shown (--max-diagnostics 2)\"")
            && !mine.contains("<system-out>"),
        "{xml}"
    );
    // A file whose findings were all left out is no passing "no findings": its suite counts
    // them, as a failure when they hold an error.
    let problem = testdata("sample-with-problem.ndjson");
    let run = exec(
        &[
            "check",
            "--max-diagnostics",
            "2",
            "--format",
            "junit",
            many,
            problem.to_str().unwrap(),
        ],
        None,
    );
    let xml = run.stdout();
    let last = xml.split("<testsuite ").last().unwrap();
    assert!(
        last.contains("sample-with-problem.ndjson\" tests=\"1\" failures=\"1\"")
            && last.contains("<testcase name=\"1 finding not shown (--max-diagnostics 2)\"")
            && last.contains("message=\"1 error\"")
            && !last.contains("no findings"),
        "{xml}"
    );
    assert!(
        run.stderr()
            .contains("findings not shown (--max-diagnostics 2)"),
        "{}",
        run.describe()
    );
}

#[test]
fn explain_takes_a_group_and_typos_get_the_nearest_name() {
    let run = exec(&["explain", "tool-calls"], None);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout().contains("- `orphan-completion` (error): "),
        "{}",
        run.describe()
    );
    let run = exec(&["explain", "lifecyle"], None);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr()
            .contains("unknown rule or group `lifecyle`; did you mean `lifecycle`?"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_mistyped_subcommand_is_not_read_as_a_path() {
    for (typo, meant) in [("chekc", "check"), ("stat", "stats"), ("rulse", "rules")] {
        let run = exec(&[typo, "testdata/sample.ndjson"], None);
        assert_eq!(run.code, 2, "{}", run.describe());
        assert!(
            run.stderr()
                .contains(&format!("a similar subcommand exists: '{meant}'")),
            "{}",
            run.describe()
        );
        assert!(!run.stderr().contains("cannot read"), "{}", run.describe());
    }
    // A bare word that is no subcommand and no file is not read as a path either: `lint`, as
    // other linters name their command.
    let run = exec(&["lint", "testdata/sample.ndjson"], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr()
            .contains("unrecognized subcommand 'lint' (and no such file)")
            && run
                .stderr()
                .contains("`sjlint --help` lists the subcommands")
            && !run.stdout().contains("No problems found"),
        "{}",
        run.describe()
    );
    // A file of that name is still a path.
    let dir = scratch("typo-file");
    write(&dir.join("stat"), &sample());
    let mut cmd = sjlint();
    cmd.current_dir(&dir).arg("stat");
    let run = run_cmd(cmd, None);
    assert_eq!(run.code, 0, "{}", run.describe());
}

// ------------------------------------------------------------------------------------------
// Outputs.

#[test]
fn json_is_one_array_and_json_lines_one_object_per_line() {
    let run = exec(
        &["check", "--format", "json", "testdata/sample.ndjson"],
        None,
    );
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout(), "[]\n", "valid JSON with no finding");
    let input = std::fs::read(testdata("many-findings.ndjson")).unwrap();
    let array = exec(&["check", "--format", "json"], Some(&input));
    let parsed: serde_json::Value = serde_json::from_slice(&array.stdout).unwrap();
    let lines = exec(&["check", "--format", "json-lines"], Some(&input));
    let objects: Vec<serde_json::Value> = lines
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(parsed.as_array().unwrap(), &objects);
    // End-of-input findings carry null, never a fake 0; spans carry an end column.
    let run = exec(
        &[
            "check",
            "--format",
            "json",
            "testdata/rules/missing-result/fails.ndjson",
        ],
        None,
    );
    let found: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let missing = found
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["rule"] == "missing-result")
        .unwrap();
    assert!(
        missing["record"].is_null() && missing["byte"].is_null(),
        "{missing}"
    );
    let orphan = exec(
        &[
            "check",
            "--format",
            "json",
            "testdata/rules/orphan-completion/fails.ndjson",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_slice(&orphan.stdout).unwrap();
    // The finding marks the `"call_id"` key.
    let call_id = "\"call_id\"".len() as u64;
    assert_eq!(
        v[0]["end_column"].as_u64().unwrap(),
        v[0]["column"].as_u64().unwrap() + call_id
    );
    let sarif = exec(
        &[
            "check",
            "--format",
            "sarif",
            "testdata/rules/orphan-completion/fails.ndjson",
        ],
        None,
    );
    let log: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let region = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["endColumn"], v[0]["end_column"]);
}

#[test]
fn unfinished_tool_call_shows_the_started_record() {
    let fixture = "testdata/rules/unfinished-tool-call/fails.ndjson";
    let run = exec(&["check", "--color", "never", fixture], None);
    let out = run.stdout();
    assert!(out.contains(":3:51\n"), "{out}");
    assert!(
        out.contains("3 | {\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"toolu_01UnFiNiShEd1aB2cD3eF4gH\""),
        "{out}"
    );
    let (_, findings) = check_json(&[fixture], None);
    let f = findings
        .iter()
        .find(|f| f.rule == "unfinished-tool-call")
        .unwrap();
    assert_eq!((f.line, f.column), (3, Some(51)));
}

/// Every finding's record and byte are the ones it refers to, or null: a byte of 0 is the
/// first line's, and a record is never claimed for a place known by its line alone.
#[test]
fn findings_claim_no_made_up_record_or_byte() {
    let claude = std::fs::read_to_string(testdata("agents/claude-session.ndjson")).unwrap();
    // The tool_result deleted: the call never completes and the session has no result.
    let cut: String = claude
        .lines()
        .filter(|l| !l.contains("tool_result") && !l.contains("\"type\":\"result\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut inputs: Vec<(String, Vec<u8>)> = vec![("claude".to_owned(), cut.into_bytes())];
    for dir in std::fs::read_dir(testdata("rules")).unwrap() {
        let path = dir.unwrap().path().join("fails.ndjson");
        if let Ok(bytes) = std::fs::read(&path) {
            inputs.push((path.display().to_string(), bytes));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for (name, bytes) in &inputs {
        let run = exec(&["check", "--format", "json"], Some(bytes));
        let findings: Vec<serde_json::Value> = serde_json::from_slice(&run.stdout).unwrap();
        for f in &findings {
            let line = f["line"].as_u64().unwrap();
            if f["byte"] == 0 {
                assert!(line <= 1, "{name}: a made-up byte 0: {f}");
            }
            if let Some(record) = f["record"].as_u64() {
                assert!(record >= 1 && line >= 1, "{name}: {f}");
            }
            seen.insert(f["rule"].as_str().unwrap().to_owned());
        }
    }
    for rule in ["unfinished-tool-call", "missing-result", "unanswered-query"] {
        assert!(seen.contains(rule), "no {rule} was checked");
    }

    // A query never answered is reported on its request: its record and byte.
    let fixture = std::fs::read(testdata("rules/unanswered-query/fails.ndjson")).unwrap();
    let (_, findings) = check_json(&["--select", "unanswered-query"], Some(&fixture));
    let request = fixture
        .split_inclusive(|&b| b == b'\n')
        .take(3)
        .map(<[u8]>::len)
        .sum::<usize>();
    assert_eq!(
        findings
            .iter()
            .map(|f| (f.line, f.byte))
            .collect::<Vec<_>>(),
        [(4, request as u64)]
    );
    let run = exec(
        &["check", "--format", "json", "--select", "unanswered-query"],
        Some(&fixture),
    );
    let raw: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(raw[0]["record"], 4, "{raw}");
}

#[test]
fn concise_ends_with_a_summary_line() {
    let run = exec(
        &["check", "--format", "concise", "testdata/sample.ndjson"],
        None,
    );
    assert_eq!(
        run.stdout(),
        "No problems found in 1 file; 20 records, 6.4 kB\n"
    );
    let run = exec(
        &[
            "check",
            "--format",
            "concise",
            "--quiet",
            "testdata/sample.ndjson",
        ],
        None,
    );
    assert_eq!(run.stdout(), "");
}

#[test]
fn output_file_takes_the_findings_in_any_format() {
    let dir = scratch("output-file");
    for format in [
        "human",
        "concise",
        "json",
        "json-lines",
        "github",
        "sarif",
        "junit",
    ] {
        let path = dir.join(format!("findings.{format}"));
        let args = [
            "check",
            "--format",
            format,
            "--output-file",
            path.to_str().unwrap(),
            "testdata/rules/orphan-completion/fails.ndjson",
        ];
        let run = exec(&args, None);
        assert_eq!(run.code, 1, "{format}: {}", run.describe());
        assert!(run.stdout.is_empty(), "{format}: {}", run.describe());
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(written.contains("orphan-completion"), "{format}: {written}");
    }
    let run = exec(
        &[
            "check",
            "--output-file",
            "/nonexistent/dir/x",
            "testdata/sample.ndjson",
        ],
        None,
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr().contains("cannot write /nonexistent/dir/x"),
        "{}",
        run.describe()
    );
}

// ------------------------------------------------------------------------------------------
// fmt for repositories.

/// `sjlint ARGS…` with the directory `dir` opened as standard input: reading it fails.
fn with_unreadable_stdin(args: &[&str], dir: &Path) -> Run {
    let out = sjlint()
        .args(args)
        .stdin(std::fs::File::open(dir).unwrap())
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

#[test]
fn standard_input_that_cannot_be_read_is_named_in_every_command() {
    let dir = scratch("unreadable-stdin");
    for args in [
        &["fmt", "--check"][..],
        &["fmt", "--diff", "--stdin-filename", "run.ndjson"],
        &["fmt"],
        &["check", "--stdin-filename", "run.ndjson"],
        &["stats"],
    ] {
        let run = with_unreadable_stdin(args, &dir);
        let name = if args.contains(&"run.ndjson") {
            "run.ndjson"
        } else {
            "-"
        };
        assert_eq!(run.code, 2, "{args:?}: {}", run.describe());
        let said = format!("sjlint: cannot read {name}: Is a directory");
        assert!(run.stderr().contains(&said), "{args:?}: {}", run.describe());
    }
}

#[test]
fn fmt_check_diff_and_write_work_per_file() {
    let dir = scratch("fmt");
    let canonical = std::fs::read_to_string(testdata("sample.ndjson")).unwrap();
    // Spaces between tokens go: the file is not in canonical form.
    let spaced = canonical.replacen("{\"type\":\"system\"", "{ \"type\": \"system\"", 1);
    write(&dir.join("a.ndjson"), &spaced);
    write(&dir.join("b.ndjson"), &canonical);
    let d = dir.to_str().unwrap();

    // Without a mode, a directory is not turned into one concatenated stream on stdout.
    let run = exec(&["fmt", d], None);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stdout.is_empty() && run.stderr().contains("--check, --diff or --write"),
        "{}",
        run.describe()
    );

    let run = exec(&["fmt", "--check", d], None);
    assert_eq!(run.code, 1, "{}", run.describe());
    let out = run.stdout();
    assert!(
        out.contains("Would reformat: ") && out.contains("a.ndjson"),
        "{out}"
    );
    assert!(!out.contains("b.ndjson"), "{out}");
    assert!(
        out.ends_with("1 file would be reformatted, 1 file already formatted\n"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("a.ndjson")).unwrap(),
        spaced,
        "--check writes nothing"
    );

    let run = exec(&["fmt", "--diff", d], None);
    assert_eq!(run.code, 1);
    let diff = run.stdout();
    assert!(diff.contains("-{ \"type\": \"system\""), "{diff}");
    assert!(diff.contains("+{\"type\":\"system\""), "{diff}");
    assert_eq!(diff.matches("\n+{").count(), 1, "one line changes: {diff}");

    let run = exec(&["fmt", "--write", d], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stdout()
            .contains("1 file reformatted, 1 file left unchanged"),
        "{}",
        run.describe()
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("a.ndjson")).unwrap(),
        canonical
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        2,
        "no temporary file is left"
    );
    let run = exec(&["fmt", "--check", d], None);
    assert_eq!(run.code, 0, "{}", run.describe());

    // A file with a record that is no event is not written: the record would be lost.
    let broken = format!("{canonical}not json\n");
    write(&dir.join("a.ndjson"), &broken);
    let run = exec(
        &["fmt", "--write", dir.join("a.ndjson").to_str().unwrap()],
        None,
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr()
            .contains("not written: 1 record is not an event"),
        "{}",
        run.describe()
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("a.ndjson")).unwrap(),
        broken
    );
    // Standard input cannot be written back.
    let run = exec(&["fmt", "--write"], Some(canonical.as_bytes()));
    assert_eq!(run.code, 2);
}

#[cfg(unix)]
#[test]
fn fmt_write_writes_through_a_symbolic_link() {
    let dir = scratch("fmt-symlink");
    let sdk = std::fs::read_to_string(testdata("dialects/sdk/healthy.ndjson")).unwrap();
    write(&dir.join("store/run.ndjson"), &sdk);
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    let link = dir.join("runs/run.ndjson");
    std::os::unix::fs::symlink("../store/run.ndjson", &link).unwrap();
    let run = exec(&["fmt", "--write", link.to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced by a file"
    );
    let written = std::fs::read_to_string(dir.join("store/run.ndjson")).unwrap();
    assert_ne!(written, sdk, "the file the link points at was not written");
    let run = exec(&["fmt", "--check", link.to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(std::fs::read_dir(dir.join("store")).unwrap().count(), 1);
}

// ------------------------------------------------------------------------------------------
// The README's and docs/'s examples, verbatim.

/// README.md and every page of `docs/`, each as (path from the crate's root, text), README first.
fn doc_pages() -> Vec<(String, String)> {
    let root = manifest_dir();
    let mut pages: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    pages.insert(0, "README.md".to_owned());
    pages
        .into_iter()
        .map(|page| {
            let text = std::fs::read_to_string(root.join(&page)).unwrap();
            (page, text)
        })
        .collect()
}

/// The text of one page (`README.md`, `docs/check.md`, …).
fn doc_page(page: &str) -> String {
    std::fs::read_to_string(manifest_dir().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"))
}

/// The fenced blocks of README.md and the pages of `docs/` whose info string is `lang`, each as
/// the page it is on and its lines.
fn doc_blocks(lang: &str) -> Vec<(String, Vec<String>)> {
    let mut blocks = Vec::new();
    for (page, text) in doc_pages() {
        // The info string and the lines of the block being read.
        let mut current: Option<(String, Vec<String>)> = None;
        for line in text.lines() {
            match (current.take(), line.strip_prefix("```")) {
                (None, Some(info)) => current = Some((info.trim().to_owned(), Vec::new())),
                (None, None) => {}
                (Some((info, block)), Some(_)) => {
                    if info == lang {
                        blocks.push((page.clone(), block));
                    }
                }
                (Some((info, mut block)), None) => {
                    block.push(line.to_owned());
                    current = Some((info, block));
                }
            }
        }
    }
    blocks
}

/// Whether a `sjlint run` command starts a real agent's CLI, which needs its own install and
/// network (a saved stream given to `cat` or `sh` stands in for an agent, and runs).
fn runs_an_agent_cli(command: &str) -> bool {
    let agent = command
        .split_once(" -- ")
        .map_or("", |(_, agent)| agent.trim_start());
    !(agent.starts_with("cat ") || agent.starts_with("sh "))
}

/// A directory to run the pages' commands in: `testdata` there is the crate's, and what the
/// commands write stays there.
fn readme_dir(name: &str) -> PathBuf {
    let dir = scratch(name);
    #[cfg(unix)]
    std::os::unix::fs::symlink(testdata(""), dir.join("testdata")).unwrap();
    dir
}

/// Runs `command` with `sh -c` in `dir`, with the built binary first on PATH as `sjlint`.
fn run_shell(command: &str, dir: &Path) -> Run {
    let bin = Path::new(env!("CARGO_BIN_EXE_sjlint")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .env("XDG_CACHE_HOME", dir.join(".cache"));
    for var in [
        "NO_COLOR",
        "FORCE_COLOR",
        "CLICOLOR_FORCE",
        "GITHUB_ACTIONS",
    ] {
        cmd.env_remove(var);
    }
    run_cmd(cmd, None)
}

/// Every `sh` line of README.md and docs/ that runs sjlint runs, verbatim; a live pipe from an
/// agent runs with the sample standing in for the agent.
#[cfg(unix)]
#[test]
fn the_readme_shell_examples_run_verbatim() {
    let dir = readme_dir("readme-sh");
    let mut ran = 0;
    let mut ran_in_readme = 0;
    for (page, block) in doc_blocks("sh") {
        for line in block {
            // Aligned comments go; a `#` inside the command stays.
            let command = match line.find("  #") {
                Some(i) => line[..i].trim_end(),
                None => line.trim_end(),
            };
            let command = if let Some(args) = command.strip_prefix("cargo run --release -- ") {
                format!("sjlint {args}")
            } else if command.starts_with("sjlint run ") && runs_an_agent_cli(command) {
                // `sjlint run` of an agent's CLI, which needs its own install and network.
                continue;
            } else if command.starts_with("sjlint ") || command == "sjlint" {
                command.to_owned()
            } else if let Some((_, rest)) = command
                .split_once(" | ")
                .filter(|(agent, _)| agent.starts_with("cursor-agent "))
            {
                // A live pipe: the sample stands for the agent's output, `cat` for the consumer,
                // and what reaches it is the stream, byte for byte.
                let piped = format!(
                    "cat testdata/sample.ndjson | {}",
                    rest.replace("your-consumer", "cat")
                );
                let run = run_shell(&piped, &dir);
                assert_eq!(
                    run.code,
                    0,
                    "{page} example `{command}`\n{}",
                    run.describe()
                );
                assert_eq!(
                    run.stdout,
                    sample().into_bytes(),
                    "{page} example `{command}`"
                );
                ran += 1;
                continue;
            } else {
                // Not run: `cargo test` and `cargo install` (a build of their own, the latter
                // outside the project), and what needs another program installed.
                continue;
            };
            let run = run_shell(&command, &dir);
            assert!(
                run.code == 0 || run.code == 1,
                "{page} example `{command}`\n{}",
                run.describe()
            );
            for bad in ["panicked", "error: ", "cannot read", "no files matched"] {
                assert!(
                    !run.stderr().contains(bad),
                    "{page} example `{command}`\n{}",
                    run.describe()
                );
            }
            ran += 1;
            if page == "README.md" {
                ran_in_readme += 1;
            }
        }
    }
    assert!(ran >= 20, "only {ran} shell examples were run");
    assert!(
        ran_in_readme >= 6,
        "only {ran_in_readme} README shell examples were run"
    );
}

/// Blocks that show a command (`$ sjlint …`) and its output, in README.md and docs/: the command
/// runs, and where the output is shown whole (no `…`), it is what the command prints.
#[cfg(unix)]
#[test]
fn the_readme_sample_outputs_are_what_sjlint_prints() {
    let dir = readme_dir("readme-out");
    let mut compared = 0;
    let mut compared_in_readme = 0;
    for (page, block) in doc_blocks("") {
        let Some(command) = block.first().and_then(|l| l.strip_prefix("$ ")) else {
            continue;
        };
        if command.starts_with("sjlint run ") && runs_an_agent_cli(command) {
            // It starts an agent's CLI, which needs its own install and network.
            continue;
        }
        let run = run_shell(command, &dir);
        assert!(
            run.code == 0 || run.code == 1,
            "{page}: `{command}`\n{}",
            run.describe()
        );
        let shown = block[1..].join("\n") + "\n";
        let out = run.stdout();
        if block[1..].iter().any(|l| l == "…") {
            // Lines left out: the lines shown are printed, in that order.
            let mut rest = out.as_str();
            for line in block[1..].iter().filter(|l| *l != "…") {
                let at = rest.find(&format!("{line}\n")).unwrap_or_else(|| {
                    panic!("{page}: `{command}` does not print {line:?}:\n{out}")
                });
                rest = &rest[at + line.len()..];
            }
        } else {
            assert_eq!(out, shown, "{page}: `{command}`");
        }
        compared += 1;
        if page == "README.md" {
            compared_in_readme += 1;
        }
    }
    assert!(compared >= 10, "only {compared} outputs compared");
    assert!(
        compared_in_readme >= 7,
        "only {compared_in_readme} README outputs compared"
    );

    // The first run the README shows.
    let text = doc_page("README.md");
    let run = exec(&["check", "testdata/sample-with-problem.ndjson"], None);
    assert_eq!(run.code, 1);
    assert!(
        text.contains(&run.stdout()),
        "the README's first run is not what sjlint prints:\n{}",
        run.stdout()
    );
}

/// The CI formats section of docs/check.md shows one finding in each format, cut where it says
/// `…`: each piece is what that format prints for the file it names.
#[test]
fn the_readme_ci_format_examples_are_what_sjlint_prints() {
    let text = doc_page("docs/check.md");
    let section = &text[text.find("## CI formats").unwrap()..];
    let file = "testdata/rules/orphan-completion/fails.ndjson";
    assert!(
        section.contains(&format!("`sjlint check --format FORMAT {file}`")),
        "the section does not name {file}"
    );
    let block = section.split("```\n").nth(1).unwrap();
    let mut formats = 0;
    for line in block.lines() {
        let (format, shown) = line.split_once(':').unwrap();
        let run = exec(&["check", "--format", format, file], None);
        assert_eq!(run.code, 1, "{}", run.describe());
        let out = run.stdout();
        for piece in shown.trim_start().split('…').filter(|p| !p.is_empty()) {
            assert!(out.contains(piece), "{format}: {piece:?} is not in\n{out}");
        }
        formats += 1;
    }
    assert_eq!(formats, 3);
}

/// The README's list of commands names each subcommand, in the order of `sjlint --help`, and its
/// tour has a section for each.
#[test]
fn the_readme_lists_the_commands_in_the_order_of_help() {
    let text = doc_page("README.md");
    let section = &text[text.find("## A tour of the commands").unwrap()..];
    let block = section.split("```\n").nth(1).unwrap();
    let readme: Vec<&str> = block
        .lines()
        .map(|l| {
            l.split_whitespace()
                .nth(1)
                .unwrap()
                .trim_matches(['[', ']'])
        })
        .collect();
    let help = exec(&["--help"], None).stdout();
    let commands = help.split("Commands:\n").nth(1).unwrap();
    let listed: Vec<&str> = commands
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(|l| l.split_whitespace().next().unwrap())
        .filter(|c| *c != "help")
        .collect();
    assert_eq!(readme, listed);
    let toured: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .flat_map(|l| l.split(" and "))
        .collect();
    for command in &listed {
        assert!(
            toured.contains(command),
            "the README's tour has no `### {command}`"
        );
    }
}

/// The README stays short: at most 300 lines, no table row over 300 characters; and it links
/// every page of docs/.
#[test]
fn the_readme_is_short_and_links_every_page() {
    let text = doc_page("README.md");
    let lines = text.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines");
    for (i, line) in text.lines().enumerate() {
        assert!(
            !line.starts_with('|') || line.chars().count() <= 300,
            "README.md line {} is a table row of {} characters",
            i + 1,
            line.chars().count()
        );
    }
    for (page, _) in doc_pages().iter().skip(1) {
        assert!(
            text.contains(&format!("]({page})")),
            "README.md does not link {page}"
        );
    }
}

/// The links between README.md and the pages of docs/ lead to a file that is there, and a link
/// to a heading (`page.md#heading`) to a heading of that page.
#[test]
fn the_links_between_the_pages_resolve() {
    let root = manifest_dir();
    // GitHub's anchor of a heading: lower case, spaces as `-`, punctuation dropped.
    let anchor = |heading: &str| -> String {
        heading
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect()
    };
    for (page, text) in doc_pages() {
        let dir = Path::new(&page).parent().unwrap().to_path_buf();
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')').unwrap()];
            if target.starts_with("http") || target.contains(' ') {
                continue;
            }
            let (file, heading) = target.split_once('#').unwrap_or((target, ""));
            let file = if file.is_empty() {
                PathBuf::from(&page)
            } else {
                dir.join(file)
            };
            assert!(
                root.join(&file).exists(),
                "{page} links {target}, which is not there"
            );
            if !heading.is_empty() {
                let linked = std::fs::read_to_string(root.join(&file)).unwrap();
                // Headings, outside fenced blocks.
                let mut fenced = false;
                let headings: Vec<String> = linked
                    .lines()
                    .filter(|l| {
                        if l.starts_with("```") {
                            fenced = !fenced;
                        }
                        !fenced && l.starts_with('#')
                    })
                    .map(|l| anchor(l.trim_start_matches('#')))
                    .collect();
                assert!(
                    headings.iter().any(|h| h == heading),
                    "{page} links {target}: no such heading"
                );
            }
        }
    }
}

/// The README and docs/ speak to users: no name of the project's own test data or tooling that a
/// user cannot look up.
#[test]
fn the_readme_has_no_word_a_user_cannot_look_up() {
    for (page, text) in doc_pages() {
        for word in [
            "seed 0",
            "Seed 0",
            "corpus",
            "../shared",
            "SPEC.md",
            "DESIGN.md",
        ] {
            let at: Vec<usize> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| l.contains(word))
                .map(|(i, _)| i + 1)
                .collect();
            assert!(at.is_empty(), "{page} says {word:?} on lines {at:?}");
        }
    }
}

/// The minimum Rust the README asks for is the `rust-version` Cargo holds the build to.
#[test]
fn the_readme_asks_for_the_rust_version_of_the_manifest() {
    let manifest = std::fs::read_to_string(manifest_dir().join("Cargo.toml")).unwrap();
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("Cargo.toml declares rust-version")
        .trim_matches('"');
    let text = doc_page("README.md");
    assert!(
        text.contains(&format!("a Rust toolchain ({version} or newer)")),
        "the README does not ask for Rust {version}"
    );
    assert!(text.contains("cargo install --path ."));
}

/// `sjlint schema`'s comment in the README names every schema it lists.
#[test]
fn the_readme_names_every_bundled_schema() {
    let listed = exec(&["schema"], None).stdout();
    let listed: Vec<&str> = listed.lines().collect();
    let text = doc_page("README.md");
    let line = text
        .lines()
        .find(|l| l.starts_with("sjlint schema ") && l.contains("# the names: "))
        .expect("the README's `sjlint schema` example");
    let named: Vec<&str> = line
        .split("# the names: ")
        .nth(1)
        .unwrap()
        .split(", ")
        .collect();
    assert_eq!(named, listed);
}

/// The configuration example of docs/check.md (the one `toml` block of README.md and docs/) is a
/// valid configuration file, read as it says.
#[test]
fn the_readme_configuration_example_is_valid() {
    let blocks = doc_blocks("toml");
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].0, "docs/check.md");
    let dir = scratch("readme-toml");
    write(&dir.join("sjlint.toml"), &(blocks[0].1.join("\n") + "\n"));
    let mut cmd = sjlint();
    cmd.current_dir(&dir).arg("config");
    let run = run_cmd(cmd, None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stdout()
            .contains("unknown-event-type = error (default info)"),
        "{}",
        run.describe()
    );
}

// ------------------------------------------------------------------------------------------
// Wording.

#[test]
fn wording_reads_right() {
    // A quoted type takes no article: never "an `user`".
    let user =
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#;
    let (_, findings) = check_json(&[], Some(format!("{user}\n").as_bytes()));
    let init = findings.iter().find(|f| f.rule == "missing-init").unwrap();
    assert!(
        init.message
            .contains("starts with `user`, not with `system`/`init`"),
        "{}",
        init.message
    );

    // One session, not "1 session(s)".
    let run = exec(
        &["fmt", "--to", "json"],
        Some(format!("{user}\n").as_bytes()),
    );
    assert!(
        run.stderr().contains(": 1 session with no `result`"),
        "{}",
        run.describe()
    );

    // A result that failed is not counted among "errors" beside the findings.
    let failed =
        r#"{"type":"result","subtype":"error","is_error":true,"result":"boom","session_id":"s"}"#;
    let run = exec(&["stats"], Some(format!("{failed}\n").as_bytes()));
    assert!(
        run.stdout().contains("1 result (0 success, 1 failed)"),
        "{}",
        run.describe()
    );

    // A thinking heading written right after the last sentence starts a paragraph.
    let delta = |text: &str| {
        format!(r#"{{"type":"thinking","subtype":"delta","text":"{text}","session_id":"s"}}"#)
    };
    let stream = [
        delta("**Planning**\\n\\nFirst this."),
        delta("\\n**Doing**"),
        delta("\\n\\nThen that."),
        r#"{"type":"thinking","subtype":"completed","session_id":"s"}"#.to_owned(),
    ]
    .join("\n")
        + "\n";
    let run = exec(
        &["render", "--thinking", "--color", "never"],
        Some(stream.as_bytes()),
    );
    assert!(
        run.stdout()
            .contains("First this.\n\n**Doing**\n\nThen that."),
        "{}",
        run.describe()
    );
}

#[test]
fn help_is_grouped_and_the_man_page_has_exit_status_and_examples() {
    let help = exec(&["check", "--help"], None).stdout();
    let at = |heading: &str| {
        help.find(&format!("\n{heading}:\n"))
            .unwrap_or_else(|| panic!("no {heading} heading:\n{help}"))
    };
    // In the order of a run: what is read, what is checked, what is printed, how fast.
    let headings: Vec<usize> = ["Input", "Rules", "Output", "Performance"]
        .iter()
        .map(|h| at(h))
        .collect();
    assert!(headings.windows(2).all(|w| w[0] < w[1]), "{help}");
    for (option, heading) in [
        ("--include", "Input"),
        ("--select", "Rules"),
        ("--format", "Output"),
        ("--jobs", "Performance"),
    ] {
        let under = help[..help
            .find(&format!("      {option}"))
            .or_else(|| help.find(&format!(", {option}")))
            .unwrap()]
            .rfind(":\n")
            .map(|end| {
                let start = help[..end].rfind('\n').map_or(0, |i| i + 1);
                &help[start..end]
            });
        assert_eq!(under, Some(heading), "{option}");
    }
    // Every option of the commands that read streams is under a heading: `Options:` keeps
    // only --help.
    for command in ["check", "fmt", "stats", "render"] {
        let text = exec(&[command, "--help"], None).stdout();
        let options = text
            .split("\nOptions:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{command}: {text}"));
        // Up to the next heading: a line of one capitalised word and a colon.
        let listed: Vec<&str> = options
            .lines()
            .take_while(|l| !(l.ends_with(':') && l.chars().next().is_some_and(char::is_uppercase)))
            .filter(|l| l.trim_start().starts_with('-'))
            .map(str::trim)
            .collect();
        assert_eq!(listed, ["-h, --help"], "{command}: {text}");
        for heading in ["Input", "Output"] {
            assert!(
                text.contains(&format!("\n{heading}:\n")),
                "{command}: {text}"
            );
        }
    }
    let top = exec(&["--help"], None).stdout();
    let order: Vec<usize> = [
        "  check ",
        "  fmt ",
        "  stats ",
        "  render ",
        "  rules ",
        "  explain ",
    ]
    .iter()
    .map(|c| top.find(c).unwrap_or_else(|| panic!("{c}: {top}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{top}");
    let stats = exec(&["stats", "--help"], None).stdout();
    assert!(
        stats.contains("`sjlint schema stats`") && !stats.contains("schemas/"),
        "{stats}"
    );
    for command in ["check", "fmt", "stats", "render"] {
        let text = exec(&[command, "--help"], None).stdout();
        assert!(!text.to_lowercase().contains("seed 0"), "{command}: {text}");
    }
    let man = exec(&["man"], None).stdout();
    assert!(
        man.contains(".SH \"EXIT STATUS\"") && man.contains(".SH EXAMPLES"),
        "{man}"
    );
    assert!(man.contains("no file matched"), "{man}");
    // Every exit code `check` has: SIGTERM and SIGHUP too, and where `run`'s are.
    assert!(
        man.contains("128+n") && man.contains("143") && man.contains("129"),
        "{man}"
    );
    assert!(man.contains("sjlint\\-run\\fR(1)"), "{man}");
}
