//! `sjlint run` when the world around it misbehaves: a stderr nobody reads, durations too
//! large or too small for a deadline, signals nobody expected, a full disk, a full stdout, an
//! agent cut by sjlint's own hand after its result, and an agent given without `--`. Each run
//! goes through the real binary and ends with nothing of the agent's group left. Linux only
//! (`/proc`, signals, `/dev/full`).
#![cfg(target_os = "linux")]

use crate::common::{sjlint, testdata};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Longer than any run below may take when sjlint does its job; a hang fails the test.
const HANG: Duration = Duration::from_secs(20);

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "sjlint-faults-{}-{}-{name}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// A fake agent: `body` run by `sh` after it wrote its pid to `pids` in this directory.
    fn agent(&self, body: &str) -> PathBuf {
        let path = self.path("agent.sh");
        let script = format!(
            "#!/bin/sh\necho $$ >> '{}'\nhere='{}'\n{body}\n",
            self.path("pids").display(),
            testdata("agents").display()
        );
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// The agent's process group (its first recorded pid), once it wrote it.
    fn agent_pgid(&self) -> i32 {
        let start = Instant::now();
        loop {
            if let Ok(s) = std::fs::read_to_string(self.path("pids"))
                && let Some(pid) = s.lines().next().and_then(|l| l.trim().parse().ok())
            {
                return pid;
            }
            assert!(start.elapsed() < HANG, "the agent never started");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn summary(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.path("summary.json")).unwrap_or_default();
        serde_json::from_str(&text).unwrap_or(serde_json::Value::Null)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Whatever a failed test left of the agent's group is ended with it.
        if let Ok(s) = std::fs::read_to_string(self.path("pids")) {
            for pid in s.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                // SAFETY: killpg has no memory-safety preconditions.
                unsafe { libc::killpg(pid, libc::SIGKILL) };
            }
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether any process of group `pgid` is alive (zombies, dead already, do not count).
fn group_alive(pgid: i32) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            return false;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        // Fields after the command: state, ppid, pgrp.
        fields.get(2) == Some(&pgid.to_string().as_str()) && fields.first() != Some(&"Z")
    })
}

/// Waits for `child` to end within `within`; past it, kills it and fails.
fn wait_within(child: &mut Child, within: Duration, what: &str) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > within {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: sjlint run did not end within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// `sjlint run ARGS -- AGENT` to its end, with its summary in the scratch directory.
fn run(dir: &Scratch, args: &[&str], agent: &Path) -> Output {
    let mut cmd = sjlint();
    cmd.args(["run", "--color", "never", "--summary"])
        .arg(dir.path("summary.json"))
        .args(args)
        .arg("--")
        .arg(agent)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    collect(cmd.spawn().unwrap())
}

#[test]
fn durations_too_long_for_a_deadline_are_usage_errors_not_panics() {
    for flag in [
        "--timeout",
        "--idle-timeout",
        "--after-result",
        "--kill-after",
        "--tool-timeout",
    ] {
        for huge in ["10000000000000000000", "18446744073709551615s", "36501d"] {
            let out = sjlint()
                .args(["run", flag, huge, "--", "true"])
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(2),
                "{flag} {huge}\n{}",
                describe(&out)
            );
            assert!(
                text(&out.stderr).contains("too long (at most 100 years"),
                "{flag} {huge}\n{}",
                describe(&out)
            );
        }
    }
}

#[test]
fn a_duration_that_rounds_to_zero_is_a_usage_error_not_no_limit() {
    let out = sjlint()
        .args(["run", "--timeout", "0.0000000001ms", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        text(&out.stderr).contains("rounds to zero"),
        "{}",
        describe(&out)
    );
}

#[test]
fn compound_durations_are_read_and_help_lists_the_units() {
    // 1m30s is 90 s, not an error: a quiet agent is not ended by it within the run's bounds.
    let dir = Scratch::new("compound");
    let agent = dir.agent("cat \"$here/session.ndjson\" \"$here/result.ndjson\"");
    for timeout in ["1m30s", "1h2m", "2min"] {
        let out = run(&dir, &["--timeout", timeout], &agent);
        assert_eq!(out.status.code(), Some(0), "{timeout}\n{}", describe(&out));
    }
    // A compound timeout short enough to fire is a timeout (124).
    let dir = Scratch::new("compound-fires");
    let agent = dir.agent("head -n 3 \"$here/session.ndjson\"\nexec sleep 60");
    let out = run(&dir, &["--timeout", "0s500ms"], &agent);
    assert_eq!(out.status.code(), Some(124), "{}", describe(&out));
    let help = sjlint().args(["run", "--help"]).output().unwrap();
    assert!(
        text(&help.stdout).contains("1m30s"),
        "{}",
        text(&help.stdout)
    );
}

#[test]
fn sizes_take_t_and_stop_at_one_tebibyte() {
    let dir = Scratch::new("sizes");
    let agent = dir.agent("cat \"$here/session.ndjson\" \"$here/result.ndjson\"");
    let out = run(&dir, &["--max-record-bytes", "1T"], &agent);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let out = sjlint()
        .args([
            "run",
            "--max-record-bytes",
            "18446744073709551615",
            "--",
            "true",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        text(&out.stderr).contains("too large"),
        "{}",
        describe(&out)
    );
}

#[test]
fn an_agent_given_without_dashes_gets_a_hint_to_put_it_after_them() {
    let out = sjlint().args(["run", "./agent.sh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        text(&out.stderr).contains("put it after `--`: sjlint run -- ./agent.sh"),
        "{}",
        describe(&out)
    );
    let out = sjlint()
        .args(["run", "--timeout", "5s", "./agent.sh", "-p"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        text(&out.stderr).contains("sjlint run -- ./agent.sh"),
        "{}",
        describe(&out)
    );
}

/// The agent's group ends soon after the run: sjlint waited for it, so at most a moment.
fn assert_group_gone(pgid: i32, what: &str) {
    let start = Instant::now();
    while group_alive(pgid) {
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{what}: the agent's process group {pgid} outlived sjlint run"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `sjlint run ARGS -- AGENT` started with stdin closed and a summary in `dir`.
fn command(dir: &Scratch, args: &[&str], agent: &Path) -> Command {
    let mut cmd = sjlint();
    cmd.args(["run", "--color", "never", "--summary"])
        .arg(dir.path("summary.json"))
        .args(args)
        .arg("--")
        .arg(agent)
        .stdin(Stdio::null());
    cmd
}

#[test]
fn a_stderr_nobody_reads_does_not_hold_back_the_timeout() {
    let dir = Scratch::new("stuck-stderr");
    let agent = dir.agent(
        "head -n 2 \"$here/session.ndjson\"\nyes 'the agent says something on stderr, again and again' >&2",
    );
    // As an orchestrator that reads stderr only once sjlint has exited.
    let mut child = command(&dir, &["--timeout", "2s"], &agent)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pgid = dir.agent_pgid();
    let started = Instant::now();
    let status = wait_within(&mut child, Duration::from_secs(10), "stuck stderr");
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(124), "{}", text(&stderr));
    assert!(started.elapsed() < Duration::from_secs(10));
    let summary = dir.summary();
    assert_eq!(summary["ended"], "timeout");
    // What could not be written is counted where the orchestrator can read it.
    assert!(
        summary["stderr_dropped"].as_u64().is_some_and(|n| n > 0),
        "{summary:#}"
    );
    assert_group_gone(pgid, "stuck stderr");
    // What stderr could hold is the agent's own text, passed on.
    assert!(text(&stderr).contains("the agent says something on stderr"));
}

#[test]
fn signals_sjlint_does_not_pass_on_still_end_the_agents_group() {
    for (signal, name) in [
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGVTALRM, "SIGVTALRM"),
        (libc::SIGXCPU, "SIGXCPU"),
    ] {
        let dir = Scratch::new("signal");
        let agent = dir.agent("head -n 3 \"$here/session.ndjson\"\nexec sleep 60");
        let mut cmd = command(&dir, &[], &agent);
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let child = cmd.spawn().unwrap();
        let pgid = dir.agent_pgid();
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        // SAFETY: kill has no memory-safety preconditions; the pid is our own live child's.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
        let out = collect(child);
        assert_eq!(
            out.status.code(),
            Some(128 + signal),
            "{name}\n{}",
            describe(&out)
        );
        assert_group_gone(pgid, name);
        assert!(
            text(&out.stderr).contains(&format!(
                "received {name}; sending SIGTERM to the agent's process group"
            )),
            "{name}\n{}",
            describe(&out)
        );
        let summary = dir.summary();
        assert_eq!(summary["ended"], "interrupted");
        assert_eq!(summary["signal_received"], name);
        assert_eq!(summary["signals_sent"][0], "SIGTERM");
    }
}

/// Reads what `child` writes and waits for its end, failing after [`HANG`].
fn collect(mut child: Child) -> Output {
    let mut out = child.stdout.take();
    let mut err = child.stderr.take().unwrap();
    let stdout = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(out) = &mut out {
            let _ = out.read_to_end(&mut v);
        }
        v
    });
    let stderr = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let status = wait_within(&mut child, HANG, "run");
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// The bytes of the healthy session the fake agents write.
fn session() -> Vec<u8> {
    let mut s = std::fs::read(testdata("agents/session.ndjson")).unwrap();
    s.extend(std::fs::read(testdata("agents/result.ndjson")).unwrap());
    s
}

#[test]
fn a_transcript_past_ulimit_f_fails_the_run_and_sjlint_is_not_killed_by_sigxfsz() {
    use std::os::unix::process::CommandExt;
    let dir = Scratch::new("ulimit-f");
    let agent = dir.agent("cat \"$here/session.ndjson\" \"$here/result.ndjson\"");
    let save = dir.path("run.ndjson");
    let mut cmd = command(&dir, &["--save", save.to_str().unwrap()], &agent);
    // SAFETY: setrlimit is async-signal-safe and touches only the given struct.
    unsafe {
        cmd.pre_exec(|| {
            // As `ulimit -f`: the session (3 kB) does not fit, the summary (1 kB) does.
            let limit = libc::rlimit {
                rlim_cur: 2048,
                rlim_max: 2048,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &raw const limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = collect(
        cmd.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("cannot write the transcript {}", save.display()))
            && stderr.contains("File too large"),
        "{}",
        describe(&out)
    );
    assert_eq!(out.stdout, session(), "the forwarding goes on");
    let summary = dir.summary();
    assert_eq!(summary["exit_code"], 2);
    assert_eq!(summary["saved"], serde_json::Value::Null);
    assert!(
        summary["save_error"]
            .as_str()
            .is_some_and(|e| e.contains("File too large"))
    );
    assert_group_gone(dir.agent_pgid(), "ulimit -f");
}

#[test]
fn a_transcript_on_a_full_disk_fails_the_run_and_says_why() {
    let dir = Scratch::new("dev-full");
    let agent = dir.agent("cat \"$here/session.ndjson\" \"$here/result.ndjson\"");
    let out = run(&dir, &["--save", "/dev/full"], &agent);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        text(&out.stderr)
            .contains("cannot write the transcript /dev/full: No space left on device"),
        "{}",
        describe(&out)
    );
    let summary = dir.summary();
    assert_eq!(summary["saved"], serde_json::Value::Null);
    assert!(
        summary["save_error"]
            .as_str()
            .is_some_and(|e| e.contains("/dev/full"))
    );
    assert_group_gone(dir.agent_pgid(), "/dev/full");

    // A small file system that fills up part way, where one can be mounted (root).
    let mnt = dir.path("small");
    std::fs::create_dir_all(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&mnt)
        .output();
    match mounted {
        Ok(m) if m.status.success() => {}
        Ok(m) => {
            println!(
                "skipped the tmpfs part: mount failed: {}",
                text(&m.stderr).trim()
            );
            return;
        }
        Err(e) => {
            println!("skipped the tmpfs part: cannot run mount: {e}");
            return;
        }
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(mnt.clone());
    let dir2 = Scratch::new("small-fs");
    let agent = dir2.agent(
        r#"head -n 2 "$here/session.ndjson"
pad=$(printf '%1000s' '' | tr ' ' 'x')
yes "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"$pad\"}]},\"session_id\":\"715a85db-b49c-5c29-b369-3ae58f467c71\"}" | head -n 200
cat "$here/result.ndjson""#,
    );
    let save = mnt.join("run.ndjson");
    let out = run(&dir2, &["--save", save.to_str().unwrap()], &agent);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        text(&out.stderr).contains("No space left on device"),
        "{}",
        describe(&out)
    );
    assert!(out.stdout.len() > 200 << 10, "the forwarding goes on");
    assert_eq!(dir2.summary()["saved"], serde_json::Value::Null);
}

#[test]
fn a_full_stdout_says_what_happened_not_that_stdout_was_closed() {
    let dir = Scratch::new("stdout-full");
    let agent = dir.agent("cat \"$here/session.ndjson\" \"$here/result.ndjson\"\nexec sleep 60");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut cmd = command(&dir, &[], &agent);
    cmd.stdout(Stdio::from(full)).stderr(Stdio::piped());
    let out = collect(cmd.spawn().unwrap());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("cannot write to stdout: No space left on device"),
        "{}",
        describe(&out)
    );
    assert!(!stderr.contains("stdout closed"), "{}", describe(&out));
    assert!(
        !stderr.contains("agent-wrote-no-events"),
        "{}",
        describe(&out)
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert_eq!(dir.summary()["ended"], "output-failed");
    assert_group_gone(dir.agent_pgid(), "stdout full");
}

#[test]
fn a_record_cut_by_sjlint_after_a_successful_result_is_no_finding() {
    let dir = Scratch::new("cut");
    // The result and the start of one more record in one write, then the agent hangs.
    let mut bytes = session();
    bytes.extend_from_slice(br#"{"type":"assistant","message":{"role":"assis"#);
    std::fs::write(dir.path("stream"), bytes).unwrap();
    let agent = dir.agent(&format!(
        "cat '{}'\nexec sleep 60",
        dir.path("stream").display()
    ));
    let out = run(&dir, &["--after-result", "0"], &agent);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        !text(&out.stderr).contains("truncated-record"),
        "{}",
        describe(&out)
    );
    let summary = dir.summary();
    assert_eq!(summary["ended"], "terminated-after-result");
    assert_eq!(summary["findings"]["errors"], 0, "{}", describe(&out));
    assert_group_gone(dir.agent_pgid(), "cut");
}

#[test]
fn sigxfsz_sent_to_sjlint_is_ignored_and_the_run_goes_on() {
    let dir = Scratch::new("sigxfsz");
    // The agent waits for a file to appear before it writes its result.
    let go = dir.path("go");
    let agent = dir.agent(&format!(
        "head -n 3 \"$here/session.ndjson\"\nwhile [ ! -e '{}' ]; do sleep 0.05; done\ntail -n +4 \"$here/session.ndjson\"\ncat \"$here/result.ndjson\"",
        go.display()
    ));
    let mut cmd = command(&dir, &[], &agent);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let pgid = dir.agent_pgid();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions; the pid is our own live child's.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGXFSZ) }, 0);
    std::thread::sleep(Duration::from_millis(200));
    std::fs::write(&go, b"").unwrap();
    let out = collect(child);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(out.stdout, session(), "{}", describe(&out));
    assert_eq!(dir.summary()["ended"], "exited");
    assert_group_gone(pgid, "SIGXFSZ");
}

#[test]
fn a_signal_reaches_the_agent_while_nothing_reads_stderr() {
    let dir = Scratch::new("stuck-stderr-signal");
    let agent = dir.agent(
        "head -n 2 \"$here/session.ndjson\"\nyes 'the agent says something on stderr, again and again' >&2",
    );
    let mut child = command(&dir, &[], &agent)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pgid = dir.agent_pgid();
    // Long enough for the agent to fill every pipe and queue on the way to the test.
    std::thread::sleep(Duration::from_millis(500));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions; the pid is our own live child's.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = wait_within(&mut child, Duration::from_secs(10), "SIGTERM, stuck stderr");
    assert_eq!(status.code(), Some(143));
    assert_eq!(dir.summary()["signals_sent"][0], "SIGTERM");
    assert_group_gone(pgid, "SIGTERM, stuck stderr");
}
