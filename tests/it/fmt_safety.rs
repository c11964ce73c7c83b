//! `fmt --check | --diff | --write` on files a user cares about: nothing is lost (another agent's
//! stream, a line appended meanwhile, the owner, a hard link, a FIFO), nothing is written where
//! it was not asked to be (a planted link, a link met in a walk), nothing hangs, and what is said
//! (the summary, the exit code through a closed stdout, a diff of hostile text) is true and safe.

use crate::common::{exec, run_cmd, sjlint, testdata};
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fmt-safety-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A cursor stream that is not in canonical form (spaces between tokens), of `lines` records:
/// large ones take `fmt` long enough to race with.
fn spaced_stream(lines: usize) -> String {
    let mut s =
        String::from("{ \"type\": \"system\", \"subtype\": \"init\", \"session_id\": \"s\" }\n");
    for i in 0..lines {
        s.push_str(&format!(
            "{{ \"type\": \"user\", \"message\": {{ \"role\": \"user\", \"content\": [ {{ \"type\": \"text\", \"text\": \"line {i}\" }} ] }}, \"session_id\": \"s\" }}\n"
        ));
    }
    s
}

fn spaced_file(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, spaced_stream(3)).unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Waits for `child` at most `limit`; kills it past that (it hung) and says so.
fn wait_at_most(child: &mut Child, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn other_agents_streams_are_left_as_they_are() {
    let dir = scratch("agents");
    let claude = fs::read(testdata("agents/claude-session.ndjson")).unwrap();
    let codex = fs::read(testdata("agents/codex-session.ndjson")).unwrap();
    let gemini = fs::read(testdata("agents/gemini/tool-run.ndjson")).unwrap();
    fs::write(dir.join("claude.ndjson"), &claude).unwrap();
    fs::write(dir.join("codex.jsonl"), &codex).unwrap();
    fs::write(dir.join("gemini.jsonl"), &gemini).unwrap();

    let run = exec(&["fmt", "--check", s(&dir)], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stdout().contains("3 files already formatted"),
        "{}",
        run.describe()
    );
    let run = exec(&["fmt", "--diff", s(&dir)], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(run.stdout().is_empty(), "{}", run.describe());

    spaced_file(&dir, "cursor.ndjson");
    let run = exec(&["fmt", "--write", s(&dir)], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stderr()
            .contains("claude.ndjson: left as is: Claude Code streams have no canonical form"),
        "{}",
        run.describe()
    );
    assert!(
        run.stdout()
            .contains("1 file reformatted, 3 files left unchanged"),
        "{}",
        run.describe()
    );
    assert_eq!(fs::read(dir.join("claude.ndjson")).unwrap(), claude);
    assert_eq!(fs::read(dir.join("codex.jsonl")).unwrap(), codex);
    assert_eq!(fs::read(dir.join("gemini.jsonl")).unwrap(), gemini);
}

#[test]
fn a_link_planted_at_the_temporary_name_is_not_written_through() {
    let dir = scratch("planted");
    let path = dir.join("a.ndjson");
    let original = spaced_stream(60_000);
    fs::write(&path, &original).unwrap();
    let victim = dir.join("victim");
    fs::write(&victim, "precious\n").unwrap();
    let mut child = sjlint()
        .args(["fmt", "--write", s(&path)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The name a temporary file named after the process would take, planted while it formats.
    let planted = dir.join(format!(".a.ndjson.sjlint-{}.tmp", child.id()));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let code = wait_at_most(&mut child, Duration::from_secs(120));
    assert_eq!(code, Some(0));
    assert!(
        fs::read_to_string(&victim).unwrap() == "precious\n",
        "the planted link's target was written"
    );
    let meta = fs::symlink_metadata(&path).unwrap();
    assert!(meta.is_file(), "the file became a link");
    let written = fs::read_to_string(&path).unwrap();
    assert!(
        written.starts_with("{\"type\":\"system\""),
        "{}",
        &written[..80]
    );
    assert_eq!(written.lines().count(), original.lines().count());
}

#[test]
fn the_temporary_file_is_never_more_readable_than_the_file() {
    let dir = scratch("temp-mode");
    let path = dir.join("private.ndjson");
    fs::write(&path, spaced_stream(60_000)).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    let mut child = sjlint()
        .args(["fmt", "--write", s(&path)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Every mode the temporary file is seen with while fmt runs.
    let mut seen = std::collections::BTreeSet::new();
    while child.try_wait().unwrap().is_none() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            if entry.file_name().to_string_lossy().contains(".sjlint-")
                && let Ok(meta) = entry.metadata()
            {
                seen.insert(meta.mode() & 0o777);
            }
        }
    }
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert!(!seen.is_empty(), "the temporary file was never seen");
    assert!(
        seen.iter().all(|m| *m == 0o600),
        "modes seen: {:?}",
        seen.iter().map(|m| format!("{m:o}")).collect::<Vec<_>>()
    );
    assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
}

#[test]
fn a_line_appended_while_fmt_writes_is_kept() {
    let dir = scratch("append");
    let path = dir.join("live.ndjson");
    fs::write(&path, spaced_stream(60_000)).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let appender = {
        let (path, stop) = (path.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut appended = Vec::new();
            for n in 0.. {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let line = format!("{{\"type\":\"user\",\"appended\":{n}}}\n");
                let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
                f.write_all(line.as_bytes()).unwrap();
                appended.push(line);
                std::thread::sleep(Duration::from_millis(2));
            }
            appended
        })
    };
    let run = exec(&["fmt", "--write", s(&path)], None);
    stop.store(true, Ordering::Relaxed);
    let appended = appender.join().unwrap();
    let now = fs::read_to_string(&path).unwrap();
    let kept: std::collections::HashSet<&str> = now.split_inclusive('\n').collect();
    let lost: Vec<&String> = appended
        .iter()
        .filter(|l| !kept.contains(l.as_str()))
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {} appended lines lost\n{}",
        lost.len(),
        appended.len(),
        run.describe()
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    assert!(
        run.stderr().contains("not written: the file changed while"),
        "{}",
        run.describe()
    );
    assert!(
        run.stdout().contains("1 file not written"),
        "{}",
        run.describe()
    );
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        1,
        "a temporary file was left"
    );
}

#[test]
fn the_owner_group_and_mode_of_a_written_file_are_kept() {
    let dir = scratch("owner");
    let path = spaced_file(&dir, "a.ndjson");
    std::os::unix::fs::chown(&path, Some(1234), Some(1234)).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let run = exec(&["fmt", "--write", s(&path)], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    let meta = fs::metadata(&path).unwrap();
    assert!(
        fs::read_to_string(&path).unwrap().starts_with("{\"type\""),
        "not written"
    );
    assert_eq!((meta.uid(), meta.gid()), (1234, 1234));
    assert_eq!(meta.mode() & 0o7777, 0o640);
}

#[test]
fn read_only_and_hard_linked_files_are_written_only_with_force() {
    let dir = scratch("force");
    let ro = spaced_file(&dir, "ro.ndjson");
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o444)).unwrap();
    let linked = spaced_file(&dir, "linked.ndjson");
    fs::hard_link(&linked, dir.join("other-name.ndjson")).unwrap();
    let before = spaced_stream(3);

    let run = exec(&["fmt", "--write", s(&ro), s(&linked)], None);
    assert_eq!(run.code, 1, "{}", run.describe());
    let err = run.stderr();
    assert!(
        err.contains("ro.ndjson: not written: the file is read-only (--force writes it anyway)"),
        "{err}"
    );
    assert!(
        err.contains("linked.ndjson: not written: the file has 2 hard links"),
        "{err}"
    );
    assert!(
        run.stdout().contains("2 files not written"),
        "{}",
        run.describe()
    );
    assert_eq!(fs::read_to_string(&ro).unwrap(), before);
    assert_eq!(fs::read_to_string(&linked).unwrap(), before);

    let run = exec(&["fmt", "--write", "--force", s(&ro), s(&linked)], None);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_ne!(fs::read_to_string(&ro).unwrap(), before);
    assert_eq!(fs::metadata(&ro).unwrap().mode() & 0o777, 0o444);
    assert_ne!(fs::read_to_string(&linked).unwrap(), before);
    // The other name keeps the old file, as after `sed -i`.
    assert_eq!(
        fs::read_to_string(dir.join("other-name.ndjson")).unwrap(),
        before
    );
}

#[test]
fn a_fifo_named_for_write_is_neither_waited_on_nor_replaced() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe.ndjson");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let mut child = sjlint()
        .args(["fmt", "--write", s(&fifo)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let code = wait_at_most(&mut child, Duration::from_secs(30));
    assert_eq!(code, Some(1), "fmt --write hung on a FIFO");
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(
        err.contains("not written: --write replaces regular files only, and this is a FIFO"),
        "{err}"
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn a_symbolic_link_met_in_a_walk_is_not_written_through() {
    let dir = scratch("walk-link");
    let sdk = fs::read_to_string(testdata("dialects/sdk/healthy.ndjson")).unwrap();
    fs::create_dir_all(dir.join("store")).unwrap();
    fs::create_dir_all(dir.join("runs")).unwrap();
    fs::write(dir.join("store/run.ndjson"), &sdk).unwrap();
    let link = dir.join("runs/run.ndjson");
    std::os::unix::fs::symlink("../store/run.ndjson", &link).unwrap();
    let run = exec(&["fmt", "--write", s(&dir.join("runs"))], None);
    assert!(
        run.stderr()
            .contains("not written: a symbolic link met in a directory walk is not followed"),
        "{}",
        run.describe()
    );
    assert_eq!(
        fs::read_to_string(dir.join("store/run.ndjson")).unwrap(),
        sdk
    );
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn write_says_what_it_could_not_write() {
    // Standard input named as a path: a pipe, not a file to replace.
    let run = exec(
        &["fmt", "--write", "/dev/stdin"],
        Some(spaced_stream(3).as_bytes()),
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    assert!(
        run.stderr().contains(
            "/dev/stdin: not written: --write replaces regular files only, and this is a FIFO"
        ),
        "{}",
        run.describe()
    );
    assert_eq!(run.stdout(), "1 file not written\n", "{}", run.describe());
}

/// `sjlint ARGS…` with its stdout closed before it writes: its exit code and stderr.
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = sjlint()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (wait_at_most(&mut child, Duration::from_secs(60)), err)
}

#[test]
fn a_closed_stdout_keeps_the_exit_code_of_what_was_found() {
    let dir = scratch("closed");
    let a = dir.join("a.ndjson");
    let b = dir.join("b.ndjson");
    // Diffs longer than the output buffer, so that each file's is written as it comes.
    fs::write(&a, spaced_stream(2_000)).unwrap();
    fs::write(&b, spaced_stream(2_000)).unwrap();
    let (code, err) = with_closed_stdout(&["fmt", "--diff", s(&a), s(&b)]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        !err.contains("cannot write") && !err.contains("Broken pipe"),
        "{err}"
    );
    let (code, err) = with_closed_stdout(&["fmt", "--check", s(&a), s(&b)]);
    assert_eq!(code, Some(1), "{err}");
    // Like `check`.
    let (code, _) = with_closed_stdout(&["check", s(&testdata("sample-with-problem.ndjson"))]);
    assert_eq!(code, Some(1));
}

#[test]
fn a_diff_shows_control_and_bidi_characters_escaped() {
    let dir = scratch("diff-escapes");
    let path = dir.join("hostile.ndjson");
    let record = "{ \"type\": \"user\", \"text\": \"\u{1b}[2J\u{202e}evil\u{2066}x\u{2069} \u{85} \u{9b}31m\" }\n";
    fs::write(&path, record).unwrap();
    let run = exec(&["fmt", "--diff", s(&path)], None);
    assert_eq!(run.code, 1, "{}", run.describe());
    let out = run.stdout();
    for c in [
        '\u{1b}', '\u{202e}', '\u{2066}', '\u{2069}', '\u{85}', '\u{9b}',
    ] {
        assert!(!out.contains(c), "{c:?} written raw:\n{out}");
    }
    assert!(
        out.contains("-{ \"type\": \"user\", \"text\": \"\\u{1b}[2J\\u{202e}evil\\u{2066}x"),
        "{out}"
    );
    assert!(
        out.contains("+{\"type\":\"user\",\"text\":\"\\u001b[2J\\u{202e}evil"),
        "{out}"
    );
}

#[test]
fn to_json_on_another_agents_stream_says_why_nothing_is_written() {
    for fixture in [
        "agents/claude-session.ndjson",
        "agents/codex-session.ndjson",
        "agents/gemini/tool-run.ndjson",
    ] {
        let run = exec(&["fmt", "--to", "json", s(&testdata(fixture))], None);
        assert_eq!(run.code, 2, "{fixture}: {}", run.describe());
        assert!(run.stdout.is_empty());
        assert!(
            run.stderr()
                .contains("nothing written: --to json builds cursor-agent's `--output-format json` result object"),
            "{fixture}: {}",
            run.describe()
        );
    }
}

#[test]
fn to_common_keeps_a_result_text_with_an_unpaired_surrogate() {
    let stream = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s","cwd":"/x","tools":[],"model":"m","permissionMode":"default","apiKeySource":"none","uuid":"u1"}"#,
        "\n",
        r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"result":"a\ud800b","session_id":"s","total_cost_usd":0,"usage":{},"uuid":"u2"}"#,
        "\n",
    );
    let run = exec(&["fmt", "--to", "common"], Some(stream.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stdout().contains(r#""text":"a\\ud800b""#),
        "{}",
        run.describe()
    );
}

#[test]
fn check_still_reads_a_fifo_named_on_the_command_line() {
    // Named explicitly, a FIFO is read by --check (only --write refuses it).
    let run = run_cmd(
        {
            let mut cmd = sjlint();
            cmd.args(["fmt", "--check", "/dev/stdin"]);
            cmd
        },
        Some(spaced_stream(3).as_bytes()),
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    assert!(
        run.stdout().contains("Would reformat: /dev/stdin"),
        "{}",
        run.describe()
    );
}

/// One healthy run of each agent, cursor-agent's in a form that is already canonical and one
/// that is not (spaces between tokens).
fn one_run_of_each_agent() -> Vec<(&'static str, Vec<u8>)> {
    let mut runs = vec![
        ("cursor", fs::read(testdata("sample.ndjson")).unwrap()),
        ("cursor-spaced", spaced_stream(3).into_bytes()),
        (
            "common",
            fs::read(testdata("agents/common/gemini-tool-run.ndjson")).unwrap(),
        ),
    ];
    for agent in [
        "claude", "codex", "gemini", "grok", "copilot", "opencode", "pi", "droid", "kimi", "qwen",
        "amp",
    ] {
        let path = testdata(&format!("agents/{agent}/tool-run.ndjson"));
        runs.push((agent, fs::read(path).unwrap()));
    }
    runs
}

/// Every record of `bytes`, as JSON values, sorted: what a lossless rewrite keeps.
fn records_of(bytes: &[u8]) -> Vec<String> {
    let mut out: Vec<String> = String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .unwrap_or_else(|e| panic!("{e}: {l}"))
                .to_string()
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_file_that_mixes_agents_loses_no_record_to_write_and_check_agrees() {
    let dir = scratch("mixed-pairs");
    let runs = one_run_of_each_agent();
    let mut rewritten = 0;
    for (a, first) in &runs {
        for (b, second) in &runs {
            if a == b || (a.starts_with("cursor") && b.starts_with("cursor")) {
                continue;
            }
            let mut both = first.clone();
            both.extend_from_slice(second);
            let path = dir.join(format!("{a}-then-{b}.ndjson"));
            fs::write(&path, &both).unwrap();
            let check = exec(&["fmt", "--check", s(&path)], None);
            let diff = exec(&["fmt", "--diff", s(&path)], None);
            let write = exec(&["fmt", "--write", s(&path)], None);
            let after = fs::read(&path).unwrap();
            let context = format!(
                "{a} then {b}\n--- check\n{}\n--- write\n{}",
                check.describe(),
                write.describe()
            );
            // Not a record is lost, whatever was done.
            assert_eq!(records_of(&after), records_of(&both), "{context}");
            let changed = after != both;
            // `--check` and `--diff` say what `--write` did.
            assert_eq!(check.code, i32::from(changed), "{context}");
            assert_eq!(diff.code, i32::from(changed), "{context}");
            assert_eq!(diff.stdout().is_empty(), !changed, "{context}");
            assert_eq!(write.code, 0, "{context}");
            if changed {
                rewritten += 1;
                assert!(*a == "cursor-spaced", "{context}");
                // The other agent's records are copied byte for byte.
                let tail = &after[after.len() - second.len()..];
                assert_eq!(tail, &second[..], "{context}");
            }
        }
    }
    // Every agent after the spaced cursor-agent stream.
    assert_eq!(rewritten, runs.len() - 2);
}

#[test]
fn a_translation_of_a_mixed_file_says_which_records_it_left_out() {
    let dir = scratch("mixed-translation");
    let mut both = fs::read(testdata("agents/opencode/tool-run.ndjson")).unwrap();
    let opencode_lines = both.iter().filter(|&&b| b == b'\n').count();
    both.extend_from_slice(&fs::read(testdata("sample.ndjson")).unwrap());
    let path = dir.join("mixed.ndjson");
    fs::write(&path, &both).unwrap();
    for to in ["common", "otlp", "ndjson"] {
        let run = exec(&["fmt", "--to", to, s(&path)], None);
        assert_eq!(run.code, 1, "--to {to}: {}", run.describe());
        assert!(
            run.stderr().contains(&format!(
                "20 records of another agent's run (from line {},",
                opencode_lines + 1
            )),
            "--to {to}: {}",
            run.describe()
        );
    }
}
