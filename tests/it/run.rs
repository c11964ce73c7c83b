//! `sjlint run` through the real binary, with the fake agents of `testdata/agents/`: what is
//! forwarded, how each kind of run ends, the exit codes, the summary against its schema, and
//! that no process of the agent's group outlives the run. Timings are asserted as orders and
//! generous bounds, never as exact times. These tests use Linux interfaces (`/proc`, signals).
#![cfg(target_os = "linux")]

use crate::common::{exec, manifest_dir, sjlint, testdata};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The longest any run below may take: the fake agents sleep 60 s when nobody ends them.
const HANG: Duration = Duration::from_secs(20);

/// What one run did.
struct Ran {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
    elapsed: Duration,
    summary: Value,
    /// The pids the fake agent recorded: itself first, then what it started.
    pids: Vec<i32>,
    /// Kept until the run is dropped: the summary and pid files live there.
    _dir: Scratch,
}

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "sjlint-run-{}-{}-{name}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn agent(name: &str) -> String {
    testdata(&format!("agents/{name}"))
        .to_string_lossy()
        .into_owned()
}

/// The bytes a healthy fake agent writes.
fn session() -> Vec<u8> {
    let mut s = std::fs::read(testdata("agents/session.ndjson")).unwrap();
    s.extend(std::fs::read(testdata("agents/result.ndjson")).unwrap());
    s
}

/// Starts `sjlint run ARGS -- testdata/agents/SCRIPT` with `env`, a summary and a pid file.
fn start(script: &str, args: &[&str], env: &[(&str, &str)]) -> (Child, Scratch) {
    let dir = Scratch::new(script.trim_end_matches(".sh"));
    let mut cmd = sjlint();
    cmd.args(["run", "--color", "never", "--summary"])
        .arg(dir.path("summary.json"))
        .args(args)
        .arg("--")
        .arg(agent(script))
        .env("PIDS", dir.path("pids"))
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    (cmd.spawn().expect("cannot start sjlint"), dir)
}

/// Waits for `child` to end (failing after [`HANG`]) and gathers what it did.
fn finish(mut child: Child, dir: Scratch, started: Instant) -> Ran {
    let out = child.stdout.take();
    let mut err = child.stderr.take().unwrap();
    let stdout = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(mut out) = out {
            out.read_to_end(&mut v).unwrap();
        }
        v
    });
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).unwrap();
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            panic!("sjlint run did not end within {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = started.elapsed();
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    let summary = std::fs::read_to_string(dir.path("summary.json")).map_or(Value::Null, |s| {
        serde_json::from_str(&s).expect("the summary is JSON")
    });
    let pids = std::fs::read_to_string(dir.path("pids"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    Ran {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr,
        elapsed,
        summary,
        pids,
        _dir: dir,
    }
}

/// `sjlint run ARGS -- testdata/agents/SCRIPT`, to its end.
fn run(script: &str, args: &[&str], env: &[(&str, &str)]) -> Ran {
    let started = Instant::now();
    let (child, dir) = start(script, args, env);
    finish(child, dir, started)
}

impl Ran {
    fn describe(&self) -> String {
        format!(
            "exit code {} after {:?}\n--- stdout\n{}--- stderr\n{}--- summary\n{:#}",
            self.code,
            self.elapsed,
            String::from_utf8_lossy(&self.stdout),
            self.stderr,
            self.summary
        )
    }

    /// The run ended with `code`, its summary matches the schema and says `ended`, and nothing
    /// of the agent's process group is left.
    fn ended(&self, code: i32, ended: &str) {
        assert_eq!(self.code, code, "{}", self.describe());
        assert_valid(&self.summary);
        assert_eq!(self.summary["ended"], ended, "{}", self.describe());
        assert_eq!(self.summary["exit_code"], code, "{}", self.describe());
        self.nothing_left();
    }

    /// No process the agent recorded, and none of its group, outlives the run.
    fn nothing_left(&self) {
        assert!(!self.pids.is_empty(), "the agent recorded no pid");
        let pgid = self.pids[0];
        // SAFETY: kill has no memory-safety preconditions; signal 0 only checks existence.
        let group = unsafe { libc::kill(-pgid, 0) };
        assert!(
            group != 0 || all_zombies(pgid),
            "the agent's process group {pgid} outlived the run\n{}",
            self.describe()
        );
        for &pid in &self.pids {
            // SAFETY: as above.
            let alive = unsafe { libc::kill(pid, 0) } == 0 && !is_zombie(pid);
            assert!(
                !alive,
                "process {pid} outlived the run\n{}",
                self.describe()
            );
        }
    }
}

/// None of the processes whose pids the fake agent wrote to the file `pids` is alive.
fn none_outlived(pids: &std::path::Path) {
    let pids = std::fs::read_to_string(pids).unwrap();
    assert!(!pids.is_empty(), "the agent recorded no pid");
    for pid in pids.lines().map(|l| l.trim().parse::<i32>().unwrap()) {
        // SAFETY: kill has no memory-safety preconditions; signal 0 only checks existence.
        let alive = unsafe { libc::kill(pid, 0) } == 0 && !is_zombie(pid);
        assert!(!alive, "process {pid} outlived the run");
    }
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'))
    })
}

/// Every process of group `pgid` is a zombie (dead, waiting for a slow init to reap it).
fn all_zombies(pgid: i32) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().all(|e| {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            return true;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return true;
        };
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        // Fields after the command: state, ppid, pgrp.
        fields.get(2) != Some(&pgid.to_string().as_str()) || fields.first() == Some(&"Z")
    })
}

fn assert_valid(summary: &Value) {
    let text = std::fs::read_to_string(manifest_dir().join("schemas/run-summary.schema.json"))
        .expect("the schema is readable");
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::meta::validate(&schema).expect("the schema is a valid schema");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(summary)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{summary:#}\ndoes not match: {errors:#?}"
    );
}

#[test]
fn an_agent_that_exits_is_forwarded_byte_for_byte_and_the_run_succeeds() {
    let dir = Scratch::new("save");
    let save = dir.path("run.ndjson");
    let save = save.to_str().unwrap();
    let ran = run("exits.sh", &["--save", save, "--save-stderr"], &[]);
    ran.ended(0, "exited");
    assert_eq!(ran.stdout, session(), "{}", ran.describe());
    assert_eq!(std::fs::read(save).unwrap(), session());
    assert_eq!(std::fs::read(format!("{save}.stderr")).unwrap(), b"");
    let s = &ran.summary;
    assert_eq!(s["agent"]["exit_code"], 0);
    assert_eq!(s["agent"]["kind"], "cursor");
    assert_eq!(s["result"]["subtype"], "success");
    assert_eq!(s["result"]["is_error"], false);
    assert_eq!(s["result"]["line"], 7);
    assert_eq!(s["records"], 7);
    assert_eq!(s["bytes"], session().len());
    assert_eq!(s["tool_calls"]["total"], 1);
    assert_eq!(s["tokens"]["input"], 1200);
    assert_eq!(s["tokens"]["output"], 80);
    assert_eq!(s["findings"]["errors"], 0);
    assert_eq!(s["signals_sent"], serde_json::json!([]));
    assert_eq!(s["saved"], save);
    assert!(
        ran.stderr
            .contains("sjlint run: the agent ended by itself · agent exited with code 0"),
        "{}",
        ran.describe()
    );
}

#[test]
fn an_agent_that_hangs_after_its_result_is_ended_and_the_run_succeeds() {
    for (quiet_child, what) in [
        ("0", "its child holds stdout"),
        ("1", "nothing holds stdout"),
    ] {
        let ran = run(
            "hangs-after-result.sh",
            &["--after-result", "300ms", "--kill-after", "5s"],
            &[("QUIET_CHILD", quiet_child)],
        );
        ran.ended(0, "terminated-after-result");
        assert_eq!(ran.stdout, session(), "{what}: {}", ran.describe());
        assert!(
            ran.elapsed >= Duration::from_millis(300) && ran.elapsed < Duration::from_secs(4),
            "{what}: the agent is ended 300ms after its result, long before SIGKILL would be due\n{}",
            ran.describe()
        );
        assert_eq!(ran.summary["signals_sent"], serde_json::json!(["SIGTERM"]));
        assert_eq!(ran.summary["agent"]["signal"], "SIGTERM");
        assert!(
            ran.stderr.contains(
                "warning[agent-hung-after-result]: the agent did not exit 300ms after its result (line 7)"
            ),
            "{what}: {}",
            ran.describe()
        );
        assert_eq!(ran.summary["findings"]["warnings"], 1, "{what}");
    }
}

#[test]
fn a_grandchild_holding_stdout_does_not_keep_the_run_waiting() {
    let ran = run("grandchild-holds-stdout.sh", &["--kill-after", "5s"], &[]);
    ran.ended(0, "exited");
    assert_eq!(ran.stdout, session(), "{}", ran.describe());
    // The grandchild sleeps 60 s; the run ends as soon as it is ended.
    assert!(ran.elapsed < Duration::from_secs(4), "{}", ran.describe());
    assert_eq!(ran.pids.len(), 2, "the agent and its grandchild");
    assert_eq!(ran.summary["signals_sent"], serde_json::json!(["SIGTERM"]));
    assert!(
        ran.stderr.contains(
            "the agent exited and left processes in its group that hold its stdout open; sending them SIGTERM"
        ),
        "{}",
        ran.describe()
    );
    // A reader of the agent's own stdout would have waited for the grandchild: the hang after
    // the result that it is, reported as such, and still a success.
    assert!(
        ran.stderr.contains(
            "warning[agent-hung-after-result]: the agent exited after its result (line 7), but processes it started held its stdout open; sjlint ended them"
        ),
        "{}",
        ran.describe()
    );
    assert_eq!(ran.summary["findings"]["warnings"], 1, "{}", ran.describe());

    // A leftover that holds nothing is ended too, with no finding: nobody waited for it.
    let ran = run(
        "grandchild-holds-stdout.sh",
        &["--kill-after", "5s"],
        &[("QUIET_CHILD", "1")],
    );
    ran.ended(0, "exited");
    assert_eq!(ran.pids.len(), 2, "the agent and its grandchild");
    assert_eq!(ran.summary["signals_sent"], serde_json::json!(["SIGTERM"]));
    assert!(
        ran.stderr
            .contains("the agent exited and left processes in its group; sending them SIGTERM"),
        "{}",
        ran.describe()
    );
    assert!(
        !ran.stderr.contains("agent-hung-after-result"),
        "{}",
        ran.describe()
    );
    assert_eq!(ran.summary["findings"]["warnings"], 0, "{}", ran.describe());
}

#[test]
fn an_agent_that_ignores_sigterm_gets_sigkill_after_kill_after() {
    let ran = run(
        "ignores-sigterm.sh",
        &["--after-result", "200ms", "--kill-after", "400ms"],
        &[],
    );
    // Ended after a successful result: a success, however it had to be ended.
    ran.ended(0, "terminated-after-result");
    assert_eq!(
        ran.summary["signals_sent"],
        serde_json::json!(["SIGTERM", "SIGKILL"])
    );
    assert_eq!(ran.summary["agent"]["signal"], "SIGKILL");
    assert!(
        ran.elapsed >= Duration::from_millis(600) && ran.elapsed < Duration::from_secs(5),
        "{}",
        ran.describe()
    );
    let term = ran.stderr.find("sending SIGTERM").unwrap();
    let kill = ran.stderr.find("sending SIGKILL").unwrap();
    assert!(term < kill, "{}", ran.describe());
}

#[test]
fn a_tool_call_that_runs_too_long_is_a_stall_that_names_the_call() {
    // The idle timeout is shorter, but a running tool call is not idleness.
    let ran = run(
        "stalls-mid-tool.sh",
        &["--tool-timeout", "600ms", "--idle-timeout", "200ms"],
        &[],
    );
    ran.ended(124, "tool-timeout");
    assert!(
        ran.elapsed >= Duration::from_millis(600) && ran.elapsed < Duration::from_secs(5),
        "{}",
        ran.describe()
    );
    let stall = &ran.summary["stall"];
    assert_eq!(stall["running"][0]["kind"], "shellToolCall");
    assert_eq!(stall["running"][0]["id"], "toolu_01Lnt7QwErTy5UiOp3AsDfGh");
    assert_eq!(stall["running"][0]["line"], 4);
    assert!(stall["running"][0]["age_ms"].as_u64().unwrap() >= 600);
    assert_eq!(stall["last_event"]["type"], "tool_call");
    assert_eq!(stall["last_event"]["subtype"], "started");
    assert!(
        ran.stderr.contains(
            "stalled: a tool call ran longer than --tool-timeout 600ms; running: shellToolCall `toolu_01Lnt7QwErTy5UiOp3AsDfGh` (line 4)"
        ),
        "{}",
        ran.describe()
    );
    // What the stream lacks is reported too.
    assert!(
        ran.stderr.contains("unfinished-tool-call"),
        "{}",
        ran.describe()
    );
}

#[test]
fn an_agent_that_goes_quiet_is_an_idle_stall() {
    let ran = run("goes-quiet.sh", &["--idle-timeout", "300ms"], &[]);
    ran.ended(124, "idle-timeout");
    assert!(
        ran.elapsed >= Duration::from_millis(300) && ran.elapsed < Duration::from_secs(5),
        "{}",
        ran.describe()
    );
    assert_eq!(ran.summary["stall"]["last_event"]["type"], "assistant");
    assert_eq!(ran.summary["stall"]["last_event"]["line"], 3);
    assert_eq!(ran.summary["stall"]["running"], serde_json::json!([]));
    assert!(
        ran.stderr.contains(
            "no output for 300ms while no tool call was running; last event: assistant on line 3"
        ),
        "{}",
        ran.describe()
    );
}

#[test]
fn the_overall_timeout_ends_the_run() {
    let ran = run("stalls-mid-tool.sh", &["--timeout", "400ms"], &[]);
    ran.ended(124, "timeout");
    assert!(
        ran.elapsed >= Duration::from_millis(400) && ran.elapsed < Duration::from_secs(5),
        "{}",
        ran.describe()
    );
    assert!(
        ran.stderr.contains("the run reached --timeout 400ms"),
        "{}",
        ran.describe()
    );
}

#[test]
fn an_agent_that_dies_mid_record_failed_and_its_last_bytes_are_forwarded() {
    let ran = run("dies-mid-record.sh", &[], &[]);
    ran.ended(3, "exited");
    let whole = std::fs::read(testdata("agents/session.ndjson")).unwrap();
    let lines: Vec<&[u8]> = whole.split_inclusive(|&b| b == b'\n').collect();
    let mut expected = lines[..3].concat();
    expected.extend_from_slice(&lines[3][..100]);
    assert_eq!(ran.stdout, expected, "{}", ran.describe());
    assert_eq!(ran.summary["agent"]["signal"], "SIGKILL");
    assert_eq!(ran.summary["result"], Value::Null);
    assert!(
        ran.stderr.contains("truncated-record"),
        "{}",
        ran.describe()
    );
}

#[test]
fn an_agent_that_prints_only_to_stderr_gets_a_headline_quoting_it() {
    let dir = Scratch::new("stderr");
    let save = dir.path("run.ndjson");
    let ran = run(
        "stderr-only.sh",
        &["--save", save.to_str().unwrap(), "--save-stderr"],
        &[],
    );
    ran.ended(3, "exited");
    assert!(ran.stdout.is_empty(), "{}", ran.describe());
    assert_eq!(ran.summary["agent"]["kind"], Value::Null);
    let said = "Error: Authentication required. Please run 'agent login' first.";
    assert!(
        ran.stderr.starts_with(&format!("{said}\n")),
        "the agent's stderr is forwarded as it is\n{}",
        ran.describe()
    );
    assert!(
        ran.stderr.contains(&format!(
            "error[agent-wrote-no-events]: no events: the agent wrote nothing on stdout, so it never wrote its stream; it exited with code 1; on stderr it printed \"{said}\""
        )),
        "{}",
        ran.describe()
    );
    // It stands in for the less telling `empty-stream`.
    assert!(!ran.stderr.contains("empty-stream"), "{}", ran.describe());
    assert_eq!(ran.summary["findings"]["errors"], 1);
    assert_eq!(
        std::fs::read_to_string(format!("{}.stderr", save.display())).unwrap(),
        format!("{said}\n")
    );
    assert_eq!(ran.summary["stderr_bytes"], said.len() + 1);
}

#[test]
fn an_error_result_is_the_agents_failure_and_a_broken_stream_is_1() {
    let ran = run("error-result.sh", &[], &[]);
    ran.ended(3, "exited");
    assert_eq!(ran.summary["result"]["is_error"], true);

    // The agent says it succeeded, but its stream has no result.
    let ran = run("exits.sh", &[], &[("NO_RESULT", "1")]);
    ran.ended(1, "exited");
    assert!(ran.stderr.contains("missing-result"), "{}", ran.describe());
}

#[test]
fn findings_can_go_to_a_file_in_any_format() {
    let dir = Scratch::new("findings");
    let file = dir.path("findings.json");
    let ran = run(
        "exits.sh",
        &["--format", "json", "--output-file", file.to_str().unwrap()],
        &[("NO_RESULT", "1")],
    );
    ran.ended(1, "exited");
    let findings: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let first = &findings[0];
    assert_eq!(first["rule"], "missing-result");
    assert!(!ran.stderr.contains("missing-result"), "{}", ran.describe());
}

#[test]
fn what_run_saw_is_a_finding_in_every_format_and_counted() {
    let dir = Scratch::new("run-findings");
    for format in ["json", "sarif", "junit", "github", "concise", "human"] {
        let file = dir.path(&format!("findings.{format}"));
        let ran = run(
            "stalls-mid-tool.sh",
            &[
                "--tool-timeout",
                "300ms",
                "--format",
                format,
                "--output-file",
                file.to_str().unwrap(),
            ],
            &[],
        );
        ran.ended(124, "tool-timeout");
        let written = std::fs::read_to_string(&file).unwrap();
        assert!(
            written.contains("agent-stalled"),
            "{format}: {written}\n{}",
            ran.describe()
        );
        assert!(
            written.contains("toolu_01Lnt7QwErTy5UiOp3AsDfGh"),
            "{format}: the call is named\n{written}"
        );
        // agent-stalled, with the unfinished call and the missing result as its notes.
        assert_eq!(ran.summary["findings"]["errors"], 1, "{}", ran.describe());
        if format == "json" {
            let all: Vec<Value> = serde_json::from_str(&written).unwrap();
            let stalled = all
                .into_iter()
                .find(|f| f["rule"] == "agent-stalled")
                .unwrap();
            assert_eq!(stalled["group"], "run");
            assert_eq!(stalled["severity"], "error");
            assert_eq!(stalled["line"], 4);
        }
    }
    // An agent ended after a successful result is a success, --strict too; --ignore silences
    // the finding.
    let ran = run(
        "hangs-after-result.sh",
        &["--after-result", "200ms", "--strict"],
        &[],
    );
    ran.ended(0, "terminated-after-result");
    assert!(
        ran.stderr.contains("agent-hung-after-result"),
        "{}",
        ran.describe()
    );
    let ran = run(
        "hangs-after-result.sh",
        &["--after-result", "200ms", "--ignore", "run"],
        &[],
    );
    ran.ended(0, "terminated-after-result");
    assert!(
        !ran.stderr.contains("agent-hung-after-result"),
        "{}",
        ran.describe()
    );
    assert_eq!(ran.summary["findings"]["warnings"], 0);
}

#[test]
fn untrusted_stderr_is_quoted_escaped_and_bounded() {
    let ran = run("stderr-only.sh", &["--format", "json"], &[("HOSTILE", "1")]);
    ran.ended(3, "exited");
    let finding: Value = ran
        .stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|f| f["rule"] == "agent-wrote-no-events")
        .unwrap_or_else(|| panic!("{}", ran.describe()));
    let message = finding["message"].as_str().unwrap();
    assert!(message.len() < 300, "bounded: {message}");
    assert!(message.contains("\\u{1b}]0;pwned"), "escaped: {message}");
    let ran = run("stderr-only.sh", &[], &[("HOSTILE", "1")]);
    let headline = ran
        .stderr
        .lines()
        .find(|l| l.contains("error[agent-wrote-no-events]"))
        .unwrap_or_else(|| panic!("{}", ran.describe()));
    assert!(!headline.contains('\x1b'), "{headline:?}");
}

#[test]
fn signals_are_passed_on_to_the_group_and_the_run_exits_128_plus_n() {
    for (signal, name) in [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGHUP, "SIGHUP"),
        // Ctrl-\: its default action would end sjlint at once and leave the agent running.
        (libc::SIGQUIT, "SIGQUIT"),
    ] {
        let started = Instant::now();
        let (mut child, dir) = start("stalls-mid-tool.sh", &["--kill-after", "10s"], &[]);
        // Once the fourth record is forwarded the agent sleeps in its tool call.
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut forwarded = Vec::new();
        for _ in 0..4 {
            out.read_until(b'\n', &mut forwarded).unwrap();
        }
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        // SAFETY: kill has no memory-safety preconditions; the pid is our own live child's.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
        child.stdout = Some(
            // What is left of stdout, read by `finish`.
            std::process::ChildStdout::from(std::os::fd::OwnedFd::from(out.into_inner())),
        );
        let ran = finish(child, dir, started);
        ran.ended(128 + signal, "interrupted");
        assert_eq!(ran.summary["signal_received"], name);
        assert_eq!(ran.summary["signals_sent"][0], name, "{}", ran.describe());
        // The agent's shell ends on it, but its background `sleep` ignores SIGINT and SIGQUIT,
        // as a shell's background jobs do: once the agent is gone, what it left is sent
        // SIGTERM, and the run ends at once, long before SIGKILL would be due.
        assert!(
            !ran.summary["signals_sent"]
                .as_array()
                .unwrap()
                .contains(&Value::from("SIGKILL")),
            "{}",
            ran.describe()
        );
        assert!(ran.elapsed < Duration::from_secs(8), "{}", ran.describe());
        assert!(
            ran.stderr.contains(&format!(
                "received {name}; passing it on to the agent's process group"
            )),
            "{}",
            ran.describe()
        );
    }
}

#[test]
fn standard_input_goes_to_the_agent() {
    let mut child = sjlint()
        .args(["run", "--", "cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = session();
    let feeder = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(out.stdout, session());
}

#[test]
fn an_agent_that_cannot_be_found_is_127() {
    let out = sjlint()
        .args(["run", "--", "/nonexistent/agent-cli"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot run `/nonexistent/agent-cli`"),
        "{out:?}"
    );
}

/// The resident set of process `pid` in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_slow_reader_holds_the_agent_back_and_memory_stays_flat() {
    // 40 MB of records, written as fast as the agent can.
    const RECORDS: &str = "40000";
    let started = Instant::now();
    // Time sjlint spends blocked on its own stdout is not the agent's idleness.
    let (mut child, dir) = start(
        "floods.sh",
        &["--idle-timeout", "300ms"],
        &[("RECORDS", RECORDS)],
    );
    let mut out = child.stdout.take().unwrap();
    // Nothing is read for a while: an sjlint that buffered would take everything in now, and
    // one that counted this wait as the agent's silence would end it.
    std::thread::sleep(Duration::from_millis(700));
    let pid = child.id();
    let mut peak = rss_kib(pid).unwrap_or(0);
    let mut total = 0usize;
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = out.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        total += n;
        if total % (1 << 20) < n {
            // A slow consumer: a pause every MiB, and the resident set looked at.
            std::thread::sleep(Duration::from_millis(5));
            peak = peak.max(rss_kib(pid).unwrap_or(0));
        }
    }
    child.stdout = None;
    let ran = finish(child, dir, started);
    ran.ended(0, "exited");
    assert!(total > 40_000_000, "{total} bytes forwarded");
    assert_eq!(ran.summary["bytes"], total);
    assert_eq!(ran.summary["records"], 40_000 + 3);
    eprintln!("peak resident set: {peak} KiB");
    // The pipes and sjlint's buffers hold a few MiB at most; the rest stays with the agent.
    assert!(
        peak < 24 << 10,
        "sjlint's resident set reached {peak} KiB while 40 MB went through it"
    );
}

#[test]
fn a_closed_stdout_ends_the_agent_and_exits_141() {
    let started = Instant::now();
    let (mut child, dir) = start("floods.sh", &[], &[("RECORDS", "100000")]);
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    out.read_exact(&mut first).unwrap();
    assert!(first.starts_with(b"{\"type\":\"system\""));
    // The consumer goes away, as `sjlint run … | head -c 100` does.
    drop(out);
    let ran = finish(child, dir, started);
    ran.ended(141, "output-closed");
    // The agent is ended by SIGTERM, unless its next write, into the pipe sjlint stopped
    // reading, killed it first (SIGPIPE); either way it does not run on (a flooding agent
    // blocked on a full pipe would wait for the hang guard).
    let sent = ran.summary["signals_sent"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        sent.is_empty() || sent[0] == "SIGTERM",
        "{}",
        ran.describe()
    );
    assert!(ran.elapsed < HANG, "{}", ran.describe());
}

#[test]
fn a_process_outside_the_group_holding_stdout_does_not_keep_the_run_waiting() {
    if std::process::Command::new("setsid")
        .arg("true")
        .status()
        .is_err()
    {
        eprintln!("skipped: no setsid(1) here");
        return;
    }
    let ran = run("escapes-group.sh", &[], &[]);
    ran.ended(0, "exited");
    assert_eq!(ran.stdout, session(), "{}", ran.describe());
    // The escaped process sleeps 3 s with stdout open; once the group is gone, what is in the
    // pipe is taken and the reading stops.
    assert!(
        ran.elapsed < Duration::from_millis(2500),
        "{}",
        ran.describe()
    );
}

/// The bytes of the fake agents' files `names`, in order.
fn files(names: &[&str]) -> Vec<u8> {
    let mut v = Vec::new();
    for n in names {
        v.extend(std::fs::read(testdata(&format!("agents/{n}"))).unwrap());
    }
    v
}

#[test]
fn claude_code_hanging_after_its_result_is_ended_and_the_run_succeeds() {
    let ran = run(
        "claude-hangs-after-result.sh",
        &["--after-result", "300ms", "--kill-after", "5s"],
        &[],
    );
    ran.ended(0, "terminated-after-result");
    assert_eq!(
        ran.stdout,
        files(&["claude-session.ndjson", "claude-result.ndjson"])
    );
    assert!(ran.elapsed < Duration::from_secs(4), "{}", ran.describe());
    let s = &ran.summary;
    assert_eq!(s["agent"]["kind"], "claude", "{}", ran.describe());
    assert_eq!(s["result"]["subtype"], "success", "{}", ran.describe());
    assert_eq!(s["result"]["is_error"], false);
    assert_eq!(s["result"]["line"], 5);
    assert_eq!(s["tool_calls"]["total"], 1, "{}", ran.describe());
    assert_eq!(s["tokens"]["input"], 32, "{}", ran.describe());
    assert!(
        ran.stderr
            .contains("the agent did not exit 300ms after its result (line 5)"),
        "{}",
        ran.describe()
    );
}

#[test]
fn a_long_claude_code_tool_call_is_not_idleness_and_tool_timeout_names_it() {
    // Silent while its tool runs: --idle-timeout must not fire, the overall --timeout does.
    let ran = run(
        "claude-long-tool.sh",
        &["--idle-timeout", "300ms", "--timeout", "1200ms"],
        &[],
    );
    ran.ended(124, "timeout");
    assert!(
        ran.elapsed >= Duration::from_millis(1200),
        "{}",
        ran.describe()
    );
    // With --tool-timeout, the call is named.
    let ran = run(
        "claude-long-tool.sh",
        &["--tool-timeout", "600ms", "--idle-timeout", "200ms"],
        &[],
    );
    ran.ended(124, "tool-timeout");
    assert!(
        ran.elapsed >= Duration::from_millis(600) && ran.elapsed < Duration::from_secs(5),
        "{}",
        ran.describe()
    );
    let running = &ran.summary["stall"]["running"][0];
    assert_eq!(running["kind"], "Bash", "{}", ran.describe());
    assert_eq!(running["id"], "toolu_01Bash7QwErTy");
    assert_eq!(running["line"], 2);
    assert!(running["age_ms"].as_u64().unwrap() >= 600);
    assert_eq!(ran.summary["stall"]["last_event"]["type"], "assistant");
    assert_eq!(ran.summary["stall"]["last_event"]["line"], 2);
    assert!(
        ran.stderr
            .contains("running: Bash `toolu_01Bash7QwErTy` (line 2)"),
        "{}",
        ran.describe()
    );
}

#[test]
fn a_claude_code_session_after_a_result_cancels_the_after_result_timer() {
    // The second session begins 400 ms after the first result and ends 1 s after it: with
    // --after-result 700ms the agent would be ended if the first result still counted.
    let ran = run(
        "claude-background-task.sh",
        &["--after-result", "700ms", "--kill-after", "5s"],
        &[],
    );
    ran.ended(0, "exited");
    assert_eq!(ran.summary["signals_sent"], serde_json::json!([]));
    assert_eq!(ran.summary["result"]["line"], 8, "{}", ran.describe());
}

#[test]
fn codex_hanging_after_turn_completed_is_ended_and_the_run_succeeds() {
    let ran = run(
        "codex-hangs-after-turn.sh",
        &["--after-result", "300ms", "--kill-after", "5s"],
        &[],
    );
    ran.ended(0, "terminated-after-result");
    assert_eq!(
        ran.stdout,
        files(&["codex-session.ndjson", "codex-completed.ndjson"])
    );
    assert!(ran.elapsed < Duration::from_secs(4), "{}", ran.describe());
    assert_eq!(ran.summary["agent"]["kind"], "codex");
    assert_eq!(ran.summary["result"]["subtype"], "turn.completed");
    assert_eq!(ran.summary["result"]["line"], 6);
    assert_eq!(ran.summary["tool_calls"]["total"], 1, "{}", ran.describe());
}

#[test]
fn a_codex_turn_failed_is_the_agents_failure() {
    let ran = run("codex-turn-failed.sh", &[], &[]);
    ran.ended(3, "exited");
    assert_eq!(ran.summary["result"]["subtype"], "turn.failed");
    assert_eq!(
        ran.summary["result"]["is_error"],
        true,
        "{}",
        ran.describe()
    );
}

#[test]
fn gemini_cli_hanging_after_its_result_is_ended_and_the_run_succeeds() {
    let ran = run(
        "gemini-hangs-after-result.sh",
        &["--after-result", "300ms", "--kill-after", "5s"],
        &[],
    );
    ran.ended(0, "terminated-after-result");
    assert_eq!(ran.stdout, files(&["gemini/tool-run.ndjson"]));
    assert!(ran.elapsed < Duration::from_secs(4), "{}", ran.describe());
    assert_eq!(ran.summary["agent"]["kind"], "gemini");
    assert_eq!(ran.summary["result"]["line"], 14);
    assert_eq!(ran.summary["result"]["subtype"], "success");
    assert_eq!(ran.summary["result"]["is_error"], false);
    assert_eq!(ran.summary["tool_calls"]["total"], 4, "{}", ran.describe());
}

/// `sjlint check --tee ARGS` on the file `stream` and `sjlint run ARGS -- replay.sh` writing it,
/// both in `dir`: their stdout and their findings (run's own `sjlint run:` lines left out).
fn check_and_run(
    dir: &std::path::Path,
    stream: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> [String; 4] {
    let common = ["--color", "never", "--progress", "never"];
    let check = sjlint()
        .current_dir(dir)
        .args(["check", "--tee"])
        .args(common)
        .args(args)
        .envs(env.iter().copied())
        .stdin(std::fs::File::open(stream).unwrap())
        .output()
        .unwrap();
    let run = sjlint()
        .current_dir(dir)
        .arg("run")
        .args(common)
        .args(args)
        .arg("--")
        .arg(agent("replay.sh"))
        .env("STREAM", stream)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let own = |s: &[u8]| {
        String::from_utf8_lossy(s)
            .lines()
            .filter(|l| !l.starts_with("sjlint run: "))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    [
        String::from_utf8_lossy(&check.stdout).into_owned(),
        own(&check.stderr),
        String::from_utf8_lossy(&run.stdout).into_owned(),
        own(&run.stderr),
    ]
}

#[test]
fn findings_are_judged_and_printed_exactly_as_check_tee_prints_them() {
    // A stream with many findings, several of them repeated (collapsed in the human format).
    let stream = testdata("schema/breaks.ndjson");
    let dir = Scratch::new("as-check");
    let bare = dir.path("bare");
    let configured = dir.path("configured");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::create_dir_all(&configured).unwrap();
    // A configuration file found from the current directory, as `check` finds it for stdin.
    std::fs::write(
        configured.join("sjlint.toml"),
        "ignore = [\"event-after-result\"]\n[severity]\nduplicate-call-id = \"warning\"\n",
    )
    .unwrap();
    let github: &[(&str, &str)] = &[("GITHUB_ACTIONS", "true")];
    type Env<'a> = &'a [(&'a str, &'a str)];
    let cases: [(&PathBuf, &[&str], Env); 8] = [
        (&bare, &[], &[]),
        (&configured, &[], &[]),
        (&configured, &["--isolated"], &[]),
        (
            &bare,
            &["--severity", "invalid-json=info", "--level", "warning"],
            &[],
        ),
        (&bare, &["--no-collapse"], &[]),
        (&configured, &["--format", "json-lines"], &[]),
        // Under GitHub Actions: human findings and an annotation for every one of them.
        (&bare, &[], github),
        (&bare, &["--format", "concise"], github),
    ];
    for (cwd, args, env) in cases {
        let [check_out, check_err, run_out, run_err] = check_and_run(cwd, &stream, args, env);
        assert_eq!(run_out, check_out, "{args:?}: the stream is forwarded");
        assert_eq!(
            run_err,
            check_err,
            "{args:?} in {}: run reports what check --tee reports",
            cwd.display()
        );
    }
    // And the cases differ from one another: the settings were applied, not ignored alike.
    let [_, plain, ..] = check_and_run(&bare, &stream, &[], &[]);
    let [_, with_config, ..] = check_and_run(&configured, &stream, &[], &[]);
    let [_, annotated, ..] = check_and_run(&bare, &stream, &[], github);
    assert!(annotated.contains("::error file=-,line="), "{annotated}");
    assert!(plain.contains("error[event-after-result]"), "{plain}");
    assert!(
        plain.contains("note: … and 1 more duplicate-call-id"),
        "{plain}"
    );
    assert!(!with_config.contains("event-after-result"), "{with_config}");
    assert!(
        with_config.contains("warning[duplicate-call-id]"),
        "{with_config}"
    );
}

#[test]
fn the_configuration_judges_the_findings_of_the_run_group_too() {
    let dir = Scratch::new("run-config");
    std::fs::write(
        dir.path("sjlint.toml"),
        "[severity]\nagent-stalled = \"warning\"\n",
    )
    .unwrap();
    let mut cmd = sjlint();
    cmd.current_dir(&dir.0)
        .args([
            "run",
            "--color",
            "never",
            "--tool-timeout",
            "300ms",
            "--summary",
        ])
        .arg(dir.path("summary.json"))
        .arg("--")
        .arg(agent("stalls-mid-tool.sh"))
        .env("PIDS", dir.path("pids"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let ran = finish(cmd.spawn().unwrap(), dir, Instant::now());
    // Still a stall (124): the exit code follows how the run ended, not the finding's severity.
    ran.ended(124, "tool-timeout");
    assert!(
        ran.stderr.contains("warning[agent-stalled]"),
        "{}",
        ran.describe()
    );
    assert_eq!(ran.summary["findings"]["warnings"], 1, "{}", ran.describe());
    // A configuration file that cannot be read is a usage error, and nothing is started.
    let dir = Scratch::new("bad-config");
    std::fs::write(dir.path("sjlint.toml"), "ignroe = []\n").unwrap();
    let out = sjlint()
        .current_dir(&dir.0)
        .args(["run", "--"])
        .arg(agent("exits.sh"))
        .env("PIDS", dir.path("pids"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown field"),
        "{out:?}"
    );
    assert!(!dir.path("pids").exists(), "the agent was not started");
}

#[test]
fn durations_are_read_as_timeout_reads_them() {
    // A limit of 0 is no limit, as for `timeout`: the healthy run is not cut short.
    let ran = run(
        "exits.sh",
        &[
            "--timeout",
            "0",
            "--idle-timeout",
            "0s",
            "--tool-timeout",
            "0ms",
        ],
        &[],
    );
    ran.ended(0, "exited");
    assert_eq!(ran.stdout, session());
    // Days are a unit too, and fractions are read.
    let ran = run(
        "exits.sh",
        &["--timeout", "1d", "--kill-after", "1.5s"],
        &[],
    );
    ran.ended(0, "exited");
    // A bad duration is a usage error that says what a duration looks like.
    for bad in ["5x", "", "1e3", "5 parsecs", "ms", "99999999999999999999h"] {
        let out = sjlint()
            .args(["run", "--idle-timeout", bad, "--", "true"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {stderr}");
        assert!(
            stderr.contains("--idle-timeout <DURATION>") && stderr.contains(&format!("`{bad}`")),
            "{bad:?}: {stderr}"
        );
    }
}

#[test]
fn the_closing_line_counts_in_words() {
    let dir = Scratch::new("one-record");
    let stream = dir.path("one.ndjson");
    std::fs::write(&stream, "Do you trust the files in this folder? (y/n)\n").unwrap();
    let ran = run("replay.sh", &[], &[("STREAM", stream.to_str().unwrap())]);
    // The agent exited 0, but its stream is broken.
    ran.ended(1, "exited");
    assert!(
        ran.stderr.contains(" · 1 record · 0 tool calls · "),
        "{}",
        ran.describe()
    );
    // The stream holds no event: the same headline as `check`'s, quoting what it printed.
    assert!(
        ran.stderr
            .contains("error[empty-stream]: no events: the input is 1 line of plain text"),
        "{}",
        ran.describe()
    );
}

#[test]
fn on_a_terminal_the_status_line_is_drawn_as_check_draws_it() {
    // `script` (util-linux) runs sjlint in a pseudo-terminal: stderr is a terminal, stdout a
    // file. The agent hangs after its result for 700 ms, long past the line's first draws.
    let dir = Scratch::new("pty");
    let out = dir.path("out.ndjson");
    let typescript = dir.path("typescript");
    // The pause after sjlint leaves `script` the time to copy the last of its output.
    let inner = format!(
        "{} run --color never --after-result 700ms --summary {} -- {} > {}; code=$?; sleep 0.5; exit $code",
        env!("CARGO_BIN_EXE_sjlint"),
        dir.path("summary.json").display(),
        agent("hangs-after-result.sh"),
        out.display()
    );
    let Ok(status) = std::process::Command::new("script")
        .args(["-q", "-f", "-e", "-c", &inner])
        .arg(&typescript)
        .env("PIDS", dir.path("pids"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
    else {
        eprintln!("skipped: no script(1) here");
        return;
    };
    assert!(status.success(), "{status:?}");
    let screen = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    // Redrawn in place with the counts so far, and the session seen complete.
    assert!(screen.contains('\r'), "{screen:?}");
    assert!(screen.contains("\u{1b}[K"), "{screen:?}");
    // Events in the common vocabulary: the 7 records give 8 (the result is a usage and an end).
    assert!(screen.contains(" · 8 events · "), "{screen:?}");
    assert!(screen.contains("session complete"), "{screen:?}");
    // Erased before the run's own note, then the finding and the closing line below it.
    let note = screen
        .find("\r\u{1b}[Ksjlint run: the agent did not exit 700ms after its result")
        .unwrap_or_else(|| panic!("{screen:?}"));
    let finding = screen
        .find("warning[agent-hung-after-result]")
        .unwrap_or_else(|| panic!("{screen:?}"));
    let closing = screen
        .find("sjlint run: the agent was ended after its result")
        .unwrap_or_else(|| panic!("{screen:?}"));
    assert!(note < finding && finding < closing, "{screen:?}");
    assert!(!screen[closing..].contains(" events · "), "{screen:?}");
    // stdout stayed the stream, byte for byte.
    assert_eq!(std::fs::read(&out).unwrap(), session());
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("summary.json")).unwrap()).unwrap();
    assert_valid(&summary);
    assert_eq!(summary["ended"], "terminated-after-result");
    none_outlived(&dir.path("pids"));
}

#[test]
fn codex_and_gemini_cli_tool_calls_are_paired_by_their_own_rules() {
    // Each stream up to a tool call that starts and never completes, then the agent hangs.
    for (file, lines, agent_kind, kind, id) in [
        (
            "codex-session.ndjson",
            3,
            "codex",
            "command_execution",
            "item_1",
        ),
        (
            "gemini/tool-run.ndjson",
            5,
            "gemini",
            "glob",
            "glob__glob_1791560742625_0",
        ),
    ] {
        let dir = Scratch::new("tool-stall");
        let whole = String::from_utf8(files(&[file])).unwrap();
        let head: String = whole.split_inclusive('\n').take(lines).collect();
        let stream = dir.path("stream.ndjson");
        std::fs::write(&stream, &head).unwrap();
        // A running call is not idleness: --idle-timeout is shorter, --tool-timeout ends it.
        let ran = run(
            "replay.sh",
            &["--idle-timeout", "200ms", "--tool-timeout", "700ms"],
            &[("STREAM", stream.to_str().unwrap()), ("THEN", "hang")],
        );
        ran.ended(124, "tool-timeout");
        assert_eq!(ran.stdout, head.as_bytes(), "{file}");
        assert_eq!(
            ran.summary["agent"]["kind"],
            agent_kind,
            "{}",
            ran.describe()
        );
        let running = &ran.summary["stall"]["running"][0];
        assert_eq!(running["kind"], kind, "{}", ran.describe());
        assert_eq!(running["id"], id);
        assert_eq!(running["line"], lines);
        assert!(running["age_ms"].as_u64().unwrap() >= 700);
    }
}

#[test]
fn ctrl_c_on_the_terminal_reaches_the_agent_through_sjlint() {
    // In a pseudo-terminal, as a person runs it: the terminal sends SIGINT to its foreground
    // process group, sjlint's; the agent runs in a group of its own and hears of it from sjlint.
    let dir = Scratch::new("ctrl-c");
    let typescript = dir.path("typescript");
    let inner = format!(
        "{} run --color never --kill-after 10s --summary {} -- {} > /dev/null",
        env!("CARGO_BIN_EXE_sjlint"),
        dir.path("summary.json").display(),
        agent("stalls-mid-tool.sh"),
    );
    let Ok(mut script) = std::process::Command::new("script")
        .args(["-q", "-f", "-e", "-c", &inner])
        .arg(&typescript)
        .env("PIDS", dir.path("pids"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
    else {
        eprintln!("skipped: no script(1) here");
        return;
    };
    // The status line shows the four records: the agent sleeps in its tool call.
    let started = Instant::now();
    while !std::fs::read(&typescript)
        .is_ok_and(|t| String::from_utf8_lossy(&t).contains(" 4 events "))
    {
        assert!(
            started.elapsed() < HANG,
            "the status line never showed 4 events"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut keys = script.stdin.take().unwrap();
    keys.write_all(b"\x03").unwrap();
    let pressed = Instant::now();
    let status = loop {
        if let Some(status) = script.try_wait().unwrap() {
            break status;
        }
        assert!(
            pressed.elapsed() < HANG,
            "sjlint run did not end after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(keys);
    // Well before --kill-after: the agent ended on SIGINT, its leftover on SIGTERM.
    assert!(
        pressed.elapsed() < Duration::from_secs(8),
        "{:?}",
        pressed.elapsed()
    );
    assert_eq!(status.code(), Some(130), "{status:?}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("summary.json")).unwrap()).unwrap();
    assert_valid(&summary);
    assert_eq!(summary["ended"], "interrupted");
    assert_eq!(summary["signal_received"], "SIGINT");
    assert_eq!(
        summary["signals_sent"],
        serde_json::json!(["SIGINT", "SIGTERM"])
    );
    let screen = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    assert!(
        screen.contains("sjlint run: received SIGINT; passing it on to the agent's process group"),
        "{screen:?}"
    );
    none_outlived(&dir.path("pids"));
}

#[test]
fn the_summary_schema_is_the_one_sjlint_schema_prints() {
    let out = sjlint().args(["schema"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .any(|l| l == "run-summary"),
        "{out:?}"
    );
    let out = sjlint().args(["schema", "run-summary"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let file = std::fs::read(manifest_dir().join("schemas/run-summary.schema.json")).unwrap();
    assert_eq!(out.stdout, file);
    // And a real summary matches it (the other tests validate theirs against the file).
    let ran = run("exits.sh", &[], &[]);
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&ran.summary), "{}", ran.describe());
}

#[test]
fn a_rate_limit_notice_after_the_result_does_not_keep_claude_code_running() {
    // Claude Code writes `rate_limit_event` between any two lines: one after the result is no
    // sign of more work, and an agent that then hangs is still ended --after-result later.
    let dir = Scratch::new("rate-limit");
    let stream = dir.path("stream.ndjson");
    let written = files(&[
        "claude-session.ndjson",
        "claude-result.ndjson",
        "claude-rate-limit.ndjson",
    ]);
    std::fs::write(&stream, &written).unwrap();
    let ran = run(
        "replay.sh",
        &["--after-result", "300ms", "--kill-after", "5s"],
        &[("STREAM", stream.to_str().unwrap()), ("THEN", "hang")],
    );
    ran.ended(0, "terminated-after-result");
    assert_eq!(ran.stdout, written);
    assert!(ran.elapsed < Duration::from_secs(4), "{}", ran.describe());
    assert_eq!(ran.summary["result"]["line"], 5, "{}", ran.describe());
    assert!(
        ran.stderr
            .contains("the agent did not exit 300ms after its result (line 5)"),
        "{}",
        ran.describe()
    );
}

// ------------------------------------------------------------------------------------------
// Every agent of the registry under `run`: its `tool-run.ndjson` fixture written by the fake
// agent `replay.sh`, which then exits, hangs, or stops in the middle of its first tool call.

/// Each agent you run (not cursor-agent, whose fake agents are above, nor the common form) with
/// its `tool-run.ndjson`: a whole run with at least one tool call.
/// Runs `each` for every runnable agent, each on a thread of its own: the runs mostly wait for
/// their timers.
fn each_agent_at_once(each: impl Fn(&str, &std::path::Path) + Sync) {
    let each = &each;
    std::thread::scope(|scope| {
        for (name, file) in runnable_agents() {
            scope.spawn(move || each(&name, &file));
        }
    });
}

fn runnable_agents() -> Vec<(String, PathBuf)> {
    let listed = exec(&["agents", "--format", "json"], None);
    let v: Value = serde_json::from_slice(&listed.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .filter(|a| a["name"] != "cursor" && a["name"] != "common" && a["source"] == "stream")
        .map(|a| {
            let name = a["name"].as_str().unwrap().to_owned();
            let file = manifest_dir()
                .join(a["fixtures"].as_str().unwrap())
                .join("tool-run.ndjson");
            assert!(
                file.is_file(),
                "{name}: no {} (a whole run with a tool call, for `run`)",
                file.display()
            );
            (name, file)
        })
        .collect()
}

/// The common events of `file`, as `fmt --to common` writes them.
fn common_events(file: &std::path::Path) -> Vec<Value> {
    let out = exec(&["fmt", "--to", "common", file.to_str().unwrap()], None);
    assert_eq!(out.code, 0, "{}", out.describe());
    out.stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn every_agent_run_to_its_end_is_forwarded_and_succeeds() {
    for (name, file) in runnable_agents() {
        let stream = file.to_str().unwrap();
        let ran = run("replay.sh", &[], &[("STREAM", stream)]);
        ran.ended(0, "exited");
        assert_eq!(ran.stdout, std::fs::read(&file).unwrap(), "{name}");
        let s = &ran.summary;
        assert_eq!(s["agent"]["kind"], name.as_str(), "{}", ran.describe());
        assert_eq!(s["findings"]["errors"], 0, "{name}: {}", ran.describe());
        assert!(
            s["tool_calls"]["total"].as_u64() >= Some(1),
            "{name}: {}",
            ran.describe()
        );
    }
}

#[test]
fn every_agent_hanging_after_its_run_ended_is_ended() {
    each_agent_at_once(|name, file| {
        let events = common_events(file);
        let stream = file.to_str().unwrap();
        let ran = run(
            "replay.sh",
            &[
                "--after-result",
                "300ms",
                "--idle-timeout",
                "800ms",
                "--kill-after",
                "5s",
            ],
            &[("STREAM", stream), ("THEN", "hang")],
        );
        assert_eq!(ran.stdout, std::fs::read(file).unwrap(), "{name}");
        // Kimi CLI writes no end (its resume hint is newer than this fixture): its run is over
        // only when its input ends, so a hang after it is idleness (its README row says so).
        let end_known_live = name != "kimi";
        if end_known_live && events.iter().any(|e| e["type"] == "end") {
            // The run's end is known: ended --after-result later, and a success.
            ran.ended(0, "terminated-after-result");
            assert!(
                ran.elapsed < Duration::from_secs(2),
                "{name}: {}",
                ran.describe()
            );
            assert!(
                ran.stderr.contains("agent-hung-after-result"),
                "{name}: {}",
                ran.describe()
            );
        } else {
            // An agent that writes no end: only idleness can tell the run is over.
            ran.ended(124, "idle-timeout");
        }
    });
}

#[test]
fn every_agent_stalled_in_a_tool_call_is_ended_naming_the_call() {
    each_agent_at_once(|name, file| {
        let events = common_events(file);
        let start = events
            .iter()
            .find(|e| e["type"] == "tool_start")
            .unwrap_or_else(|| panic!("{name}: no tool_start in {}", file.display()));
        let line = start["line"].as_u64().unwrap();
        // Agents that write a call only once it ended (OpenCode) show no running call.
        let ends_at_once = events.iter().any(|e| {
            e["type"] == "tool_end" && e["line"] == line && e["call_id"] == start["call_id"]
        });
        let text = std::fs::read_to_string(file).unwrap();
        let dir = Scratch::new(&format!("stall-{name}"));
        let cut = dir.path("cut.ndjson");
        let head: String = text.split_inclusive('\n').take(line as usize).collect();
        std::fs::write(&cut, &head).unwrap();
        let ran = run(
            "replay.sh",
            &["--tool-timeout", "500ms", "--idle-timeout", "1500ms"],
            &[("STREAM", cut.to_str().unwrap()), ("THEN", "hang")],
        );
        assert_eq!(ran.stdout, head.as_bytes(), "{name}");
        if ends_at_once {
            ran.ended(124, "idle-timeout");
            return;
        }
        ran.ended(124, "tool-timeout");
        let running = &ran.summary["stall"]["running"][0];
        assert_eq!(
            running["id"],
            start["call_id"],
            "{name}: {}",
            ran.describe()
        );
        assert_eq!(running["line"], line, "{name}: {}", ran.describe());
        assert!(
            ran.stderr
                .contains(start["call_id"].as_str().unwrap_or_default()),
            "{name}: the stall names the call\n{}",
            ran.describe()
        );
    });
}

// ------------------------------------------------------------------------------------------
// Start-up: --idle-timeout counts from the agent's first byte; --first-output-timeout bounds
// the start-up itself.

#[test]
fn a_slow_start_is_not_idleness() {
    let stream = testdata("agents/claude/tool-run.ndjson");
    let ran = run(
        "replay.sh",
        &["--idle-timeout", "300ms"],
        &[("STREAM", stream.to_str().unwrap()), ("DELAY", "0.8")],
    );
    ran.ended(0, "exited");
    assert!(
        ran.elapsed >= Duration::from_millis(800),
        "{}",
        ran.describe()
    );
    assert_eq!(ran.stdout, std::fs::read(&stream).unwrap());
}

#[test]
fn an_agent_that_never_writes_is_ended_by_first_output_timeout() {
    let ran = run(
        "replay.sh",
        &["--first-output-timeout", "400ms", "--idle-timeout", "100ms"],
        &[("THEN", "hang")],
    );
    ran.ended(124, "first-output-timeout");
    assert!(
        ran.elapsed >= Duration::from_millis(400) && ran.elapsed < Duration::from_secs(5),
        "{}",
        ran.describe()
    );
    assert!(
        ran.stderr
            .contains("error[agent-stalled]: stalled: no output for 400ms after the agent started"),
        "{}",
        ran.describe()
    );
    assert_eq!(ran.summary["findings"]["errors"], 1, "{}", ran.describe());
}

#[test]
fn first_output_timeout_is_over_once_the_agent_writes() {
    // A first byte within the limit: the limit no longer applies, however long the run.
    let stream = testdata("agents/claude/tool-run.ndjson");
    let ran = run(
        "replay.sh",
        &["--first-output-timeout", "300ms", "--after-result", "700ms"],
        &[
            ("STREAM", stream.to_str().unwrap()),
            ("DELAY", "0.1"),
            ("THEN", "hang"),
        ],
    );
    ran.ended(0, "terminated-after-result");
    assert!(
        ran.elapsed >= Duration::from_millis(800),
        "{}",
        ran.describe()
    );
}

/// One cause, one finding: ending a stalled agent leaves its result missing and its call
/// unfinished, which are notes of the stall rather than findings of their own.
#[test]
fn a_stall_is_one_finding_and_what_follows_from_it_are_its_notes() {
    let ran = run(
        "stalls-mid-tool.sh",
        &["--tool-timeout", "400ms", "--format", "json"],
        &[],
    );
    ran.ended(124, "tool-timeout");
    assert_eq!(ran.summary["findings"]["errors"], 1, "{}", ran.describe());
    let findings: Vec<Value> = serde_json::from_str(
        &ran.stderr[ran.stderr.find('[').unwrap()..=ran.stderr.rfind(']').unwrap()],
    )
    .unwrap_or_else(|e| panic!("{e}: {}", ran.describe()));
    assert_eq!(findings.len(), 1, "{}", ran.describe());
    assert_eq!(findings[0]["rule"], "agent-stalled");
    let notes: Vec<&str> = findings[0]["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("so unfinished-tool-call:"))
            && notes.iter().any(|n| n.starts_with("so missing-result:")),
        "{notes:?}"
    );
}

/// The summary says what an orchestrator acts on without parsing the stream: the ids to resume
/// the run, the model, the result's text and cost, the calls by kind, the findings, and the
/// end of the agent's stderr.
#[test]
fn the_summary_has_what_an_orchestrator_acts_on() {
    let stream = testdata("agents/claude/tool-run.ndjson");
    let ran = run("replay.sh", &[], &[("STREAM", stream.to_str().unwrap())]);
    ran.ended(0, "exited");
    let s = &ran.summary;
    assert_eq!(s["version"], 2);
    assert_eq!(s["agent"]["kind"], "claude");
    assert_eq!(s["agent"]["session_id"], "s1", "{}", ran.describe());
    assert_eq!(s["agent"]["model"], "claude-sonnet-4-5");
    assert_eq!(s["result"]["text"], "The tests pass.");
    assert_eq!(s["result"]["text_bytes"], 15);
    assert_eq!(s["cost_usd"], 0.0042);
    let shell = &s["tool_calls"]["by_kind"][0];
    assert_eq!(shell["kind"], "shell");
    assert_eq!(shell["names"], serde_json::json!(["Bash"]));
    assert_eq!(shell["count"], 1);
    assert_eq!(s["findings"]["list"], serde_json::json!([]));

    // The findings with their rule, severity, line and message; stderr's last lines, escaped.
    let ran = run("stderr-only.sh", &["--format", "json"], &[("HOSTILE", "1")]);
    let list = &ran.summary["findings"]["list"];
    assert_eq!(
        list[0]["rule"],
        "agent-wrote-no-events",
        "{}",
        ran.describe()
    );
    assert_eq!(list[0]["severity"], "error");
    let tail = ran.summary["stderr_tail"].as_array().unwrap();
    assert!(!tail.is_empty(), "{}", ran.describe());
    assert!(
        tail.iter().all(|l| !l.as_str().unwrap().contains('\u{1b}')),
        "escaped: {tail:?}"
    );
    assert!(
        tail.iter()
            .all(|l| l.as_str().unwrap().chars().count() <= 500 * 10),
        "cut: {tail:?}"
    );
}

/// Long lines before the agent's last word do not cut it: the summary keeps the last lines,
/// each bounded and marked when cut, and the last one whole.
#[test]
fn the_stderr_tail_keeps_the_last_error_line_whole_after_long_lines() {
    let ran = run("stderr-long-lines.sh", &[], &[]);
    ran.ended(3, "exited");
    let tail: Vec<&str> = ran.summary["stderr_tail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(tail.len(), 20, "{}", ran.describe());
    assert_eq!(
        tail[19],
        "Error: Authentication required. Please run 'agent login' first."
    );
    let trace = tail[18];
    assert!(trace.starts_with("trace 0000"), "{trace:.80}");
    assert!(
        trace.ends_with("… (cut: 100,006 bytes in all)"),
        "{}",
        &trace[trace.len() - 60..]
    );
    assert_eq!(
        trace.chars().count(),
        1_000 + "… (cut: 100,006 bytes in all)".len() - 2
    );
    // The eighteen log lines before it are the last ones, each cut the same way.
    for (i, line) in tail[..18].iter().enumerate() {
        assert!(
            line.starts_with(&format!("log {} 000", 12 + i)),
            "{line:.40}"
        );
        assert!(line.ends_with("0… (cut: 3,007 bytes in all)"), "{line:.40}");
    }
}

/// Budgets act on the record that passes them: cost, tokens and tool calls, each with its own
/// ending, exit code 4 and one finding.
#[test]
fn a_run_past_its_budget_is_ended_there() {
    let stream = testdata("agents/claude/tool-run.ndjson");
    let stream = stream.to_str().unwrap();
    // Claude Code's result reports $0.0042; its messages' tokens count as they come (12 + 5 on
    // line 2, 20 + 4 on line 4: 41 by line 4); its one call is on line 2.
    for (args, kind, line) in [
        (&["--max-cost", "0.001"][..], "cost", 5),
        (&["--max-tokens", "30"], "tokens", 4),
        (&["--max-tool-calls", "0"], "tool_calls", 2),
    ] {
        let ran = run("replay.sh", args, &[("STREAM", stream), ("THEN", "hang")]);
        ran.ended(4, "over-budget");
        let b = &ran.summary["budget"];
        assert_eq!(b["kind"], kind, "{args:?}: {}", ran.describe());
        assert_eq!(b["line"], line, "{args:?}: {}", ran.describe());
        assert!(
            b["spent"].as_f64() > b["limit"].as_f64(),
            "{args:?}: {}",
            ran.describe()
        );
        assert!(
            ran.stderr
                .contains("error[agent-over-budget]: over budget: the run went past"),
            "{args:?}: {}",
            ran.describe()
        );
        assert_eq!(ran.summary["findings"]["errors"], 1, "{}", ran.describe());
    }
    // Within its budgets, the run is as without them.
    let ran = run(
        "replay.sh",
        &[
            "--max-cost",
            "1",
            "--max-tokens",
            "100000",
            "--max-tool-calls",
            "5",
        ],
        &[("STREAM", stream)],
    );
    ran.ended(0, "exited");
    assert!(ran.summary["budget"].is_null());
}

/// `--to common`: stdout carries the stream's events in the common form as they are known,
/// the same lines `fmt --to common` writes of the transcript, for every agent; `--save` keeps
/// the agent's bytes.
#[test]
fn to_common_writes_every_agents_events_live() {
    let mut cases = runnable_agents();
    let cursor = Scratch::new("to-common-cursor");
    let file = cursor.path("session.ndjson");
    std::fs::write(&file, session()).unwrap();
    cases.push(("cursor".to_owned(), file));
    for (name, file) in cases {
        let dir = Scratch::new(&format!("to-common-{name}"));
        let save = dir.path("saved.ndjson");
        let ran = run(
            "replay.sh",
            &["--to", "common", "--save", save.to_str().unwrap()],
            &[("STREAM", file.to_str().unwrap())],
        );
        ran.ended(0, "exited");
        let want = exec(&["fmt", "--to", "common", file.to_str().unwrap()], None);
        assert_eq!(
            String::from_utf8_lossy(&ran.stdout),
            want.stdout(),
            "{name}: {}",
            ran.describe()
        );
        assert_eq!(
            std::fs::read(&save).unwrap(),
            std::fs::read(&file).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn to_common_with_a_closed_stdout_ends_the_agent_and_exits_141() {
    let started = Instant::now();
    let (mut child, dir) = start("floods.sh", &["--to", "common"], &[("RECORDS", "100000")]);
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 40];
    out.read_exact(&mut first).unwrap();
    assert!(
        first.starts_with(b"{\"type\":\"session_start\""),
        "{first:?}"
    );
    drop(out);
    let ran = finish(child, dir, started);
    ran.ended(141, "output-closed");
    assert!(ran.elapsed < HANG, "{}", ran.describe());
}

/// The lines of an `--events` file, each checked to be a JSON object that matches
/// `schemas/run-events.schema.json`, with `t_ms` never going back.
fn events_in(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("the events file is there");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(manifest_dir().join("schemas/run-events.schema.json")).unwrap(),
    )
    .unwrap();
    jsonschema::meta::validate(&schema).expect("the schema is a valid schema");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let mut last_t = 0;
    let mut events = Vec::new();
    for line in text.lines() {
        let ev: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let errors: Vec<String> = validator.iter_errors(&ev).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{line}\ndoes not match: {errors:#?}");
        let t = ev["t_ms"].as_u64().unwrap();
        assert!(t >= last_t, "t_ms goes back at {line}\n{text}");
        last_t = t;
        events.push(ev);
    }
    assert!(text.ends_with('\n'), "{text}");
    events
}

fn names(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect()
}

/// The events that say what happened once, without the periodic ones (`idle`, `tool-running`),
/// which a slow machine may add to any run.
fn once(events: &[Value]) -> Vec<&str> {
    names(events)
        .into_iter()
        .filter(|&e| e != "idle" && e != "tool-running")
        .collect()
}

#[test]
fn events_follow_a_run_to_its_end_started_first_and_ending_last() {
    let dir = Scratch::new("events");
    let path = dir.path("events.ndjson");
    let ran = run("exits.sh", &["--events", path.to_str().unwrap()], &[]);
    ran.ended(0, "exited");
    assert_eq!(ran.stdout, session(), "{}", ran.describe());
    let events = events_in(&path);
    assert_eq!(
        once(&events),
        ["started", "agent", "result-seen", "ending"],
        "{}",
        ran.describe()
    );
    let events: Vec<Value> = events
        .into_iter()
        .filter(|e| e["event"] != "idle" && e["event"] != "tool-running")
        .collect();
    let (started, ending) = (&events[0], &events[events.len() - 1]);
    assert_eq!(started["pid"], ran.summary["agent"]["pid"]);
    assert!(started["argv0"].as_str().unwrap().ends_with("exits.sh"));
    assert_eq!(started["agent"], Value::Null);
    assert_eq!(events[1]["agent"], "cursor");
    assert_eq!(events[2]["line"], ran.summary["result"]["line"]);
    assert_eq!(events[2]["is_error"], false);
    assert_eq!(ending["reason"], ran.summary["ended"]);
    assert_eq!(ending["exit_code"], 0);
    assert_eq!(ending["agent_exit_code"], 0);
    assert_eq!(ending["agent_signal"], Value::Null);
    assert_eq!(ending["dropped"], 0);
    // The Unix time is the run's clock from its start.
    let (t0, u0) = (
        started["t_ms"].as_u64().unwrap(),
        started["unix_ms"].as_u64().unwrap(),
    );
    let (t1, u1) = (
        ending["t_ms"].as_u64().unwrap(),
        ending["unix_ms"].as_u64().unwrap(),
    );
    assert_eq!(u1 - u0, t1 - t0);
}

#[test]
fn events_say_the_hang_after_the_result_as_idle_then_how_it_was_ended() {
    let dir = Scratch::new("events-hang");
    let path = dir.path("events.ndjson");
    let ran = run(
        "hangs-after-result.sh",
        &[
            "--events",
            path.to_str().unwrap(),
            "--events-interval",
            "100ms",
            "--after-result",
            "2s",
        ],
        &[],
    );
    ran.ended(0, "terminated-after-result");
    let events = events_in(&path);
    let seen = names(&events);
    let result = seen.iter().position(|&e| e == "result-seen").unwrap();
    assert_eq!(seen[..result], ["started", "agent"], "{seen:?}");
    assert_eq!(seen.last(), Some(&"ending"));
    // The agent says nothing for the 2 s it is given: idle, more than once, after the
    // result's line, with the age since it growing.
    let idle: Vec<&Value> = events.iter().filter(|e| e["event"] == "idle").collect();
    assert!(idle.len() >= 2, "{seen:?}");
    assert!(
        seen[result..seen.len() - 1]
            .iter()
            .all(|&e| e == "idle" || e == "result-seen")
    );
    for pair in idle.windows(2) {
        assert!(
            pair[1]["age_ms"].as_u64() > pair[0]["age_ms"].as_u64(),
            "{idle:?}"
        );
    }
    assert!(idle.iter().all(|e| e["last_line"] == 7), "{idle:?}");
    assert!(idle[0]["age_ms"].as_u64() >= Some(1000), "{idle:?}");
    let ending = events.last().unwrap();
    assert_eq!(ending["reason"], "terminated-after-result");
    assert_eq!(ending["exit_code"], 0);
    assert_eq!(ending["agent_signal"], "SIGTERM");
}

#[test]
fn events_show_a_tool_call_running_with_its_age_until_tool_timeout_ends_it() {
    let dir = Scratch::new("events-stall");
    let path = dir.path("events.ndjson");
    let ran = run(
        "stalls-mid-tool.sh",
        &[
            "--events",
            path.to_str().unwrap(),
            "--events-interval",
            "100ms",
            "--tool-timeout",
            "1s",
        ],
        &[],
    );
    ran.ended(124, "tool-timeout");
    let events = events_in(&path);
    let running: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "tool-running")
        .collect();
    assert!(running.len() >= 2, "{events:?}");
    for e in &running {
        assert_eq!(e["call_id"], "toolu_01Lnt7QwErTy5UiOp3AsDfGh");
        assert_eq!(e["name"], "shellToolCall");
        assert_eq!(e["kind"], "shell");
        assert_eq!(e["line"], 4);
    }
    for pair in running.windows(2) {
        assert!(
            pair[1]["age_ms"].as_u64() > pair[0]["age_ms"].as_u64(),
            "{running:?}"
        );
    }
    // A running call is never idleness.
    assert!(!names(&events).contains(&"idle"), "{events:?}");
    let ending = events.last().unwrap();
    assert_eq!(ending["event"], "ending");
    assert_eq!(ending["reason"], "tool-timeout");
    assert_eq!(ending["exit_code"], 124);
}

/// `sh -c 'sjlint run ARGS… -- AGENT REDIRECTIONS'`: a descriptor opened by the shell.
fn run_in_shell(args: &str, agent_name: &str, redirections: &str, dir: &Scratch) -> (i32, String) {
    let script = format!("exec \"$0\" run --color never {args} -- \"$1\" {redirections}");
    let out = std::process::Command::new("sh")
        .current_dir(&dir.0)
        .args([
            "-c",
            &script,
            env!("CARGO_BIN_EXE_sjlint"),
            &agent(agent_name),
        ])
        .env("PIDS", dir.path("pids"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn events_go_to_a_descriptor_the_shell_opened() {
    let dir = Scratch::new("events-fd");
    let (code, stderr) = run_in_shell(
        "--events 3",
        "exits.sh",
        "> /dev/null 3> events.ndjson",
        &dir,
    );
    assert_eq!(code, 0, "{stderr}");
    let events = events_in(&dir.path("events.ndjson"));
    assert_eq!(once(&events), ["started", "agent", "result-seen", "ending"]);
    none_outlived(&dir.path("pids"));
}

#[test]
fn a_bad_events_descriptor_or_path_is_a_usage_error_before_the_agent_starts() {
    let dir = Scratch::new("events-bad");
    let cases = [
        (
            "--events 9",
            "> /dev/null 9>&-",
            "file descriptor 9 is not open",
        ),
        (
            "--events 3",
            "> /dev/null 3< /dev/null",
            "file descriptor 3 is open for reading only",
        ),
        (
            "--events 1",
            "> /dev/null",
            "0, 1 and 2 are sjlint's own standard streams",
        ),
        (
            "--events no/such/dir/events.ndjson",
            "> /dev/null",
            "cannot open the --events file no/such/dir/events.ndjson: No such file or directory",
        ),
    ];
    for (args, redirections, says) in cases {
        let (code, stderr) = run_in_shell(args, "exits.sh", redirections, &dir);
        assert_eq!(code, 2, "{args}: {stderr}");
        assert!(stderr.contains(says), "{args}: {stderr}");
        assert!(
            !dir.path("pids").exists(),
            "{args}: the agent was started\n{stderr}"
        );
    }
}

#[test]
fn a_closed_events_reader_stops_the_events_and_the_run_goes_on() {
    let dir = Scratch::new("events-closed");
    // The reader takes one byte and goes away; the run writes idle lines after that.
    let (code, stderr) = run_in_shell(
        "--events 3 --events-interval 50ms --after-result 1500ms --summary summary.json --save run.ndjson",
        "hangs-after-result.sh",
        "3>&1 > /dev/null | head -c 1 > /dev/null",
        &dir,
    );
    // The shell's status is head's; the run's is in its summary.
    assert_eq!(code, 0, "{stderr}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["ended"], "terminated-after-result", "{stderr}");
    assert_eq!(summary["exit_code"], 0, "{stderr}");
    assert_eq!(std::fs::read(dir.path("run.ndjson")).unwrap(), session());
    assert!(!stderr.contains("events"), "{stderr}");
    none_outlived(&dir.path("pids"));
}

/// The sidecar of `transcript`: its header and its `(line, t)` entries.
fn arrivals_of(transcript: &std::path::Path) -> (Value, Vec<(u64, u64)>) {
    let mut p = transcript.as_os_str().to_owned();
    p.push(".arrivals");
    let text = std::fs::read_to_string(p).expect("the sidecar is written");
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let entries = lines
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["line"].as_u64().unwrap(), v["t"].as_u64().unwrap())
        })
        .collect();
    (header, entries)
}

#[test]
fn run_save_keeps_the_arrival_time_of_every_record_beside_the_transcript() {
    let dir = Scratch::new("arrivals");
    let save = dir.path("run.ndjson");
    let ran = run("exits.sh", &["--save", save.to_str().unwrap()], &[]);
    ran.ended(0, "exited");
    let (header, entries) = arrivals_of(&save);
    assert_eq!(header["sjlint_arrivals"], 1);
    let started = header["started_unix_ms"].as_u64().unwrap();
    // One entry per record, on the line it starts on (each record is one line here).
    let records = std::fs::read_to_string(&save).unwrap().lines().count() as u64;
    let lines: Vec<u64> = entries.iter().map(|e| e.0).collect();
    assert_eq!(lines, (1..=records).collect::<Vec<_>>());
    let mut last = started;
    for &(_, t) in &entries {
        assert!(t >= last, "{entries:?} (started {started})");
        last = t;
    }
    // A transcript that is no regular file has nothing beside it.
    let ran = run("exits.sh", &["--save", "/dev/null"], &[]);
    ran.ended(0, "exited");
    let beside = std::path::Path::new("/dev/null.arrivals");
    let wrote = beside.exists();
    let _ = std::fs::remove_file(beside);
    assert!(!wrote, "{}", ran.describe());
}

#[test]
fn stats_and_report_time_a_codex_transcript_by_its_arrival_times() {
    let dir = Scratch::new("arrivals-codex");
    let save = dir.path("codex.ndjson");
    let save_s = save.to_str().unwrap();
    let live_page = dir.path("live.html");
    let ran = run(
        "codex-slow-tool.sh",
        &["--save", save_s, "--report", live_page.to_str().unwrap()],
        &[],
    );
    ran.ended(0, "exited");
    // The page `run --report` writes is laid out by the arrival times too.
    let html = std::fs::read_to_string(&live_page).unwrap();
    assert!(!html.contains("id=\"no-clock\""), "the page has a clock");
    let stats = |what: &str| {
        let out = exec(&["stats", "--format", "json", save_s], None);
        assert_eq!(out.code, 0, "{what}: {}", out.describe());
        let v: Value = serde_json::from_str(&out.stdout()).unwrap();
        (v["files"][0].clone(), out.stderr())
    };
    let (timed, stderr) = stats("with arrival times");
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(timed["agent"], "codex");
    let shell = &timed["tool_calls"][0];
    assert_eq!(shell["duration_ms"]["timed"], 1, "{timed:#}");
    assert!(shell["duration_ms"]["max"].as_u64() > Some(0), "{timed:#}");
    assert!(timed["duration_ms"].as_u64() > Some(0), "{timed:#}");
    let page = dir.path("page.html");
    let report = |what: &str| {
        let out = exec(&["report", save_s, "-o", page.to_str().unwrap()], None);
        assert_eq!(out.code, 0, "{what}: {}", out.describe());
        (std::fs::read_to_string(&page).unwrap(), out.stderr())
    };
    let (html, _) = report("with arrival times");
    assert!(!html.contains("id=\"no-clock\""), "the page has a clock");
    assert_eq!(
        without_nonce(&std::fs::read_to_string(&live_page).unwrap()),
        without_nonce(&html),
        "run --report's page is the one report makes of the transcript and its arrival times"
    );
    // The trace of the transcript: the command's span lasts what the command took (0.3 s).
    let tool_span_ms = || {
        let out = exec(&["fmt", "--to", "otlp", save_s], None);
        assert_eq!(out.code, 0, "{}", out.describe());
        let v: Value = serde_json::from_str(&out.stdout()).unwrap();
        let spans = v["resourceSpans"][0]["scopeSpans"][0]["spans"].clone();
        let tool = spans
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "execute_tool command_execution")
            .cloned()
            .unwrap_or_else(|| panic!("no tool span: {spans:#}"));
        let ns = |k: &str| tool[k].as_str().unwrap().parse::<u64>().unwrap();
        (ns("endTimeUnixNano") - ns("startTimeUnixNano")) / 1_000_000
    };
    assert!(tool_span_ms() >= 250, "{}", tool_span_ms());

    let sidecar = format!("{save_s}.arrivals");
    std::fs::rename(&sidecar, dir.path("kept")).unwrap();
    let (untimed, _) = stats("without arrival times");
    assert_eq!(
        untimed["tool_calls"][0]["duration_ms"]["timed"], 0,
        "{untimed:#}"
    );
    assert_eq!(untimed["duration_ms"], 0, "{untimed:#}");
    let (html, _) = report("without arrival times");
    assert!(html.contains("id=\"no-clock\""));
    assert_eq!(tool_span_ms(), 0);

    // A sidecar that is not one: a warning, and what there is without it.
    std::fs::write(&sidecar, "{\"line\":1}\nnot json\n").unwrap();
    let (corrupt, stderr) = stats("with a corrupt sidecar");
    assert_eq!(corrupt, untimed);
    assert!(
        stderr.contains("warning: ignoring the arrival times in") && stderr.contains(".arrivals"),
        "{stderr}"
    );
    let (html, stderr) = report("with a corrupt sidecar");
    assert!(html.contains("id=\"no-clock\""));
    assert!(
        stderr.contains("warning: ignoring the arrival times"),
        "{stderr}"
    );
}

/// `html` with the number its scripts are allowed by, which is new on every page, left out.
fn without_nonce(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find("nonce") {
        let after = &rest[at + "nonce".len()..];
        let value = after.trim_start_matches(['-', '=', '"']);
        out.push_str(&rest[..at]);
        out.push_str("nonce");
        out.push_str(&after[..after.len() - value.len()]);
        rest = value.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || "+/_".contains(c));
        rest = rest.trim_start_matches('=');
    }
    out.push_str(rest);
    out
}

#[test]
fn run_reports_in_its_page_what_report_says_of_its_transcript() {
    // A record cut short by the agent's death; a stream with no result from an agent that
    // says it succeeded. Both pages end the run at the arrival of its last record.
    for (script, env, code) in [
        ("dies-mid-record.sh", None, 3),
        ("exits.sh", Some(("NO_RESULT", "1")), 1),
    ] {
        let dir = Scratch::new("live-page");
        let save = dir.path("run.ndjson");
        let (save_s, live) = (save.to_str().unwrap(), dir.path("live.html"));
        let ran = run(
            script,
            &["--save", save_s, "--report", live.to_str().unwrap()],
            env.as_slice(),
        );
        assert_eq!(ran.code, code, "{script}: {}", ran.describe());
        let page = dir.path("page.html");
        let out = exec(&["report", save_s, "-o", page.to_str().unwrap()], None);
        assert_eq!(out.code, 0, "{script}: {}", out.describe());
        let (live, page) = (
            std::fs::read_to_string(&live).unwrap(),
            std::fs::read_to_string(&page).unwrap(),
        );
        assert!(
            page.contains("id=\"finding-0\""),
            "{script}: the page lists findings"
        );
        assert_eq!(without_nonce(&live), without_nonce(&page), "{script}");
        let names: Vec<_> = std::fs::read_dir(dir.path(""))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(
            names.len(),
            4,
            "{script}: nothing but the transcript, its arrival times and the two pages: {names:?}"
        );
    }
    // A transcript that cannot be read back (a device) takes nothing from the page.
    let dir = Scratch::new("live-page-device");
    let live = dir.path("live.html");
    let ran = run(
        "exits.sh",
        &["--save", "/dev/null", "--report", live.to_str().unwrap()],
        &[("NO_RESULT", "1")],
    );
    assert_eq!(ran.code, 1, "{}", ran.describe());
    let live = std::fs::read_to_string(&live).unwrap();
    assert!(
        live.contains("data-rule=\"missing-result\"") && live.contains("data-call-id"),
        "the page has the run's finding and its call"
    );
}

#[test]
fn an_events_reader_that_never_reads_holds_back_neither_the_timers_nor_the_forwarding() {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;
    let mut fds = [0; 2];
    // Close-on-exec: no other test's child may hold it (dup2 below clears it on descriptor 3).
    // SAFETY: `fds` is valid for two descriptors.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: both descriptors were just opened and are owned here only.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // A small pipe that nobody reads fills within a few lines.
    // SAFETY: F_SETPIPE_SZ on a pipe descriptor owned here.
    unsafe { libc::fcntl(write.as_raw_fd(), libc::F_SETPIPE_SZ, 4096) };
    let dir = Scratch::new("events-stuck");
    let started = Instant::now();
    let mut cmd = sjlint();
    let raw = write.as_raw_fd();
    cmd.args(["run", "--color", "never", "--summary"])
        .arg(dir.path("summary.json"))
        .args([
            "--events",
            "3",
            "--events-interval",
            "10ms",
            "--tool-timeout",
            "2s",
            "--",
        ])
        .arg(agent("stalls-mid-tool.sh"))
        .env("PIDS", dir.path("pids"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: dup2 is async-signal-safe; it puts the pipe's write end on descriptor 3.
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(raw, 3) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    drop(write);
    let ran = finish(child, dir, started);
    ran.ended(124, "tool-timeout");
    assert_eq!(ran.stdout, {
        let s = std::fs::read_to_string(testdata("agents/session.ndjson")).unwrap();
        s.lines()
            .take(4)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .into_bytes()
    });
    // What the pipe took is whole lines, from the start.
    let mut held = String::new();
    std::fs::File::from(read).read_to_string(&mut held).unwrap();
    let first = held.lines().next().unwrap();
    assert!(first.starts_with("{\"event\":\"started\""), "{held}");
    assert!(held.lines().count() >= 2, "{held}");
}
