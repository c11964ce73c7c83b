//! `sjlint archive`: the session logs of the agents' homes copied into compressed files, again
//! as they grow, verified, and read back by the other commands as the logs themselves.

use crate::common::{Run, Scratch, exec, run_cmd, sjlint, testdata};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A home with a Claude Code project (a main log and a subagent's) and a Codex rollout.
fn home(dir: &Path) -> Vec<PathBuf> {
    let claude = dir.join("home/.claude/projects/-work-app");
    let codex = dir.join("home/.codex/sessions/2026/11/28");
    fs::create_dir_all(claude.join("0a1b/subagents")).unwrap();
    fs::create_dir_all(&codex).unwrap();
    let logs = vec![
        claude.join("0a1b.jsonl"),
        claude.join("0a1b/subagents/agent-a1.jsonl"),
        codex.join("rollout-2026-11-28T10-00-00-0a1b.jsonl"),
    ];
    fs::copy(testdata("agents/claude/subagent.ndjson"), &logs[0]).unwrap();
    fs::copy(testdata("agents/claude-result.ndjson"), &logs[1]).unwrap();
    fs::copy(testdata("agents/codex-session.ndjson"), &logs[2]).unwrap();
    // Not a log: Claude Code's prompt history.
    fs::write(
        dir.join("home/.claude/history.jsonl"),
        "{\"display\":\"hi\"}\n",
    )
    .unwrap();
    logs
}

fn archive(dir: &Path, extra: &[&str]) -> Run {
    let mut cmd = sjlint();
    cmd.arg("archive")
        .arg("--to")
        .arg(dir.join("archive"))
        .args(extra)
        .env("HOME", dir.join("home"))
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME");
    run_cmd(cmd, None)
}

/// The bytes the copy at `path` decompresses to.
fn unpacked(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    zstd::stream::read::Decoder::new(fs::File::open(path).unwrap())
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn copy_of(dir: &Path, rel: &str) -> PathBuf {
    dir.join("archive").join(rel)
}

#[test]
fn every_log_is_copied_compressed_then_only_what_grew_and_the_copies_read_as_the_logs() {
    let dir = Scratch::new("archive");
    let logs = home(&dir);
    let before: Vec<Vec<u8>> = logs.iter().map(|l| fs::read(l).unwrap()).collect();

    let dry = archive(&dir, &["--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.describe());
    assert!(
        dry.stderr().contains("would archive 3 new"),
        "{}",
        dry.describe()
    );
    assert!(!dir.join("archive").exists(), "a dry run writes nothing");

    let first = archive(&dir, &[]);
    assert_eq!(first.code, 0, "{}", first.describe());
    assert!(
        first.stderr().contains("archived 3 new, 0 grown"),
        "{}",
        first.describe()
    );
    let copies = [
        "claude/projects/-work-app/0a1b.jsonl.zst",
        "claude/projects/-work-app/0a1b/subagents/agent-a1.jsonl.zst",
        "codex/sessions/2026/11/28/rollout-2026-11-28T10-00-00-0a1b.jsonl.zst",
    ];
    for (copy, log) in copies.iter().zip(&before) {
        assert_eq!(&unpacked(&copy_of(&dir, copy)), log, "{copy}");
    }
    assert!(
        !first.stdout().contains("history"),
        "only the homes' logs are copied: {}",
        first.stdout()
    );

    // Nothing new: nothing copied.
    let again = archive(&dir, &[]);
    assert!(
        again
            .stderr()
            .contains("0 new, 0 grown and 0 rewritten logs"),
        "{}",
        again.describe()
    );
    assert!(
        again.stderr().contains("3 unchanged"),
        "{}",
        again.describe()
    );

    // The session goes on: its copy grows by frames of the new bytes only.
    let size = fs::metadata(copy_of(&dir, copies[0])).unwrap().len();
    let more = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"and now?\"},\"session_id\":\"s\"}\n";
    fs::OpenOptions::new()
        .append(true)
        .open(&logs[0])
        .unwrap()
        .write_all_str(more);
    let grown = archive(&dir, &[]);
    assert!(
        grown.stderr().contains("0 new, 1 grown"),
        "{}",
        grown.describe()
    );
    assert!(fs::metadata(copy_of(&dir, copies[0])).unwrap().len() > size);
    assert_eq!(
        unpacked(&copy_of(&dir, copies[0])),
        fs::read(&logs[0]).unwrap(),
        "the grown copy decompresses to the whole log"
    );

    // A log written anew: copied anew, and the old copy kept where no walk takes it.
    fs::write(&logs[2], &before[2][..before[2].len() / 2]).unwrap();
    let rewritten = archive(&dir, &[]);
    assert!(
        rewritten.stderr().contains("1 rewritten"),
        "{}",
        rewritten.describe()
    );
    assert_eq!(
        unpacked(&copy_of(&dir, copies[2])),
        fs::read(&logs[2]).unwrap()
    );
    let kept = copy_of(&dir, &format!("{}.superseded-1", copies[2]));
    assert_eq!(unpacked(&kept), before[2], "the first copy is kept whole");

    // The logs themselves are never touched.
    assert_eq!(fs::read(&logs[1]).unwrap(), before[1]);

    reads_as_the_logs(&dir.join("archive"), &logs);
}

#[test]
fn a_copy_cut_short_by_a_stopped_run_is_made_whole_and_a_second_run_waits_for_none() {
    let dir = Scratch::new("archive-resume");
    let logs = home(&dir);
    assert_eq!(archive(&dir, &[]).code, 0);
    let copy = copy_of(&dir, "claude/projects/-work-app/0a1b.jsonl.zst");
    // A run stopped after appending a frame it had not verified: bytes the manifest does not
    // count.
    fs::OpenOptions::new()
        .append(true)
        .open(&copy)
        .unwrap()
        .write_all_str("garbage");
    fs::OpenOptions::new()
        .append(true)
        .open(&logs[0])
        .unwrap()
        .write_all_str("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n");
    let ran = archive(&dir, &[]);
    assert_eq!(ran.code, 0, "{}", ran.describe());
    assert_eq!(unpacked(&copy), fs::read(&logs[0]).unwrap());

    // The same, with the log only touched (written again, the same bytes).
    fs::OpenOptions::new()
        .append(true)
        .open(&copy)
        .unwrap()
        .write_all_str("garbage");
    fs::write(&logs[0], fs::read(&logs[0]).unwrap()).unwrap();
    let ran = archive(&dir, &[]);
    assert_eq!(ran.code, 0, "{}", ran.describe());
    assert_eq!(unpacked(&copy), fs::read(&logs[0]).unwrap());

    // Another run holds the archive: this one says so and writes nothing.
    let lock = fs::File::open(dir.join("archive/.sjlint-archive.lock")).unwrap();
    // SAFETY: the descriptor is open for the call.
    assert_eq!(
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) },
        0
    );
    let blocked = archive(&dir, &[]);
    assert_eq!(blocked.code, 2, "{}", blocked.describe());
    assert!(
        blocked.stderr().contains("another `sjlint archive`"),
        "{}",
        blocked.describe()
    );
}

/// The archive reads as the logs: the same findings.
fn reads_as_the_logs(archive: &Path, logs: &[PathBuf]) {
    let on_copies = exec(
        &["check", "--format", "json-lines", archive.to_str().unwrap()],
        None,
    );
    let on_logs = exec(
        &["check", "--format", "json-lines"]
            .into_iter()
            .chain(logs.iter().map(|l| l.to_str().unwrap()))
            .collect::<Vec<_>>(),
        None,
    );
    let rules = |r: &Run| {
        let mut v: Vec<String> = r
            .stdout()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["rule"].to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(rules(&on_copies), rules(&on_logs));
    assert_eq!(on_copies.code, on_logs.code);
}

trait WriteStr {
    fn write_all_str(&mut self, s: &str);
}

impl WriteStr for fs::File {
    fn write_all_str(&mut self, s: &str) {
        std::io::Write::write_all(self, s.as_bytes()).unwrap();
    }
}

#[test]
fn a_walk_of_an_agents_home_takes_its_session_logs_only() {
    let dir = Scratch::new("home-walk");
    let logs = home(&dir);
    let claude = dir.join("home/.claude");
    fs::create_dir_all(claude.join("todos")).unwrap();
    fs::copy(&logs[1], claude.join("todos/0a1b.jsonl")).unwrap();
    let stats = |home: &Path| {
        let mut cmd = sjlint();
        cmd.args(["stats", "--format", "json"])
            .arg(&claude)
            .env("HOME", home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("XDG_CONFIG_HOME");
        let run = run_cmd(cmd, None);
        assert_eq!(run.code, 0, "{}", run.describe());
        let v: serde_json::Value = serde_json::from_str(&run.stdout()).unwrap();
        let mut files: Vec<String> = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                f["file"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        files.sort();
        files
    };
    // The home of this HOME: its transcripts, not its prompt history nor its todos.
    assert_eq!(stats(&dir.join("home")), ["0a1b.jsonl", "agent-a1.jsonl"]);
    // The same folder when it is nobody's home: every stream file in it.
    assert_eq!(
        stats(&dir.join("elsewhere")),
        [
            "0a1b.jsonl",
            "0a1b.jsonl",
            "agent-a1.jsonl",
            "history.jsonl"
        ]
    );
}
