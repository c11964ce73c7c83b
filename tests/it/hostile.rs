//! Hostile conditions around the stream rather than in it, through the real binary: a closed
//! stdout, a terminal on stdin, paths that cannot be read, a stdin that never ends, and Ctrl-C.
//! These tests use Linux interfaces (`/proc`, pseudo-terminals, signals).
#![cfg(target_os = "linux")]

use crate::common::{exec, sjlint, testdata};
use std::ffi::CStr;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Only guards against a hang: every wait below normally ends in milliseconds.
const HANG: Duration = Duration::from_secs(30);

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s"}"#;

/// Waits for `child` at most `HANG`; kills it (by its own handle) and fails on a hang.
fn wait(child: &mut Child) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("sjlint hung");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Reads `reader` to its end on a thread.
fn drain(mut reader: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = reader.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Lines of `reader` as they arrive, on a channel.
/// Drains the output of `child`, does `meanwhile` to it, and waits for it (at most `HANG`):
/// how it ended, its stdout and its stderr.
fn outcome(mut child: Child, meanwhile: impl FnOnce(&Child)) -> (ExitStatus, String, String) {
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    meanwhile(&child);
    let status = wait(&mut child);
    (status, stdout.join().unwrap(), stderr.join().unwrap())
}

fn lines(reader: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Receives lines until one contains `part`; fails after `HANG`.
fn until(rx: &mpsc::Receiver<String>, part: &str) -> Vec<String> {
    let start = Instant::now();
    let mut seen = Vec::new();
    loop {
        let left = HANG.saturating_sub(start.elapsed());
        match rx.recv_timeout(left) {
            Ok(line) => {
                let done = line.contains(part);
                seen.push(line);
                if done {
                    return seen;
                }
            }
            Err(e) => panic!("no line with {part:?} in time ({e}); got {seen:#?}"),
        }
    }
}

/// A temporary directory of the test's own, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("sjlint-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn sample() -> Vec<u8> {
    std::fs::read(testdata("sample.ndjson")).unwrap()
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    // Far more output than a pipe buffer holds, so sjlint is still writing when the reader
    // goes away after the first line (`sjlint … | head -1`).
    let sample = sample();
    let noisy = "{not json at all}\n".repeat(100_000).into_bytes();
    let many = sample.repeat(500);
    let cases: [(&[&str], &[u8]); 7] = [
        (&["check"], &noisy),
        (&["check", "--jobs", "1"], &noisy),
        (&["check", "--jobs", "2", "--batch-size", "1K"], &noisy),
        (&["check", "--format", "json"], &noisy),
        (&["render"], &many),
        (&["render", "--plain"], &many),
        (&["stats", "-", "-"], &many),
    ];
    for (args, input) in cases {
        let mut child = sjlint()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let stderr = drain(child.stderr.take().unwrap());
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "sjlint {args:?} printed nothing");
        drop(stdout);
        let status = wait(&mut child);
        feeder.join().unwrap();
        let stderr = stderr.join().unwrap();
        assert!(
            stderr.is_empty(),
            "sjlint {args:?}: nothing on stderr, got: {stderr}"
        );
        assert!(
            status.code().is_some_and(|c| c != 101),
            "sjlint {args:?}: {status:?}"
        );
    }
}

/// A new pseudo-terminal: its controller, kept open by the caller, and the path of its device;
/// `None` where the system has no pseudo-terminals (some containers have no /dev/ptmx).
fn pseudo_terminal() -> Option<(OwnedFd, String)> {
    // SAFETY: plain libc calls on a descriptor this function owns: `posix_openpt` returns a new
    // descriptor (checked), `grantpt`/`unlockpt` take it, and `ptsname_r` writes a
    // NUL-terminated name into the buffer whose length it is given (checked before the read).
    unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        if fd < 0 {
            return None;
        }
        let controller = OwnedFd::from_raw_fd(fd);
        assert_eq!(libc::grantpt(fd), 0, "grantpt");
        assert_eq!(libc::unlockpt(fd), 0, "unlockpt");
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0);
        let path = CStr::from_ptr(name.as_ptr()).to_str().unwrap().to_owned();
        Some((controller, path))
    }
}

#[test]
fn a_terminal_on_stdin_and_no_path_gets_a_usage_hint() {
    let Some((_controller, device)) = pseudo_terminal() else {
        eprintln!(
            "skipped: no pseudo-terminal here ({})",
            std::io::Error::last_os_error()
        );
        return;
    };
    for args in [&[][..], &["check"], &["stats"], &["render"]] {
        let tty = File::options()
            .read(true)
            .write(true)
            .open(&device)
            .unwrap();
        let child = sjlint()
            .args(args)
            .stdin(Stdio::from(tty))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (status, stdout, stderr) = outcome(child, |_| {});
        assert_eq!(status.code(), Some(2), "sjlint {args:?}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(
            stderr.contains("pipe a stream in") && stderr.contains("sjlint run.ndjson"),
            "sjlint {args:?}: {stderr}"
        );
    }
}

#[test]
fn unreadable_paths_are_reported_and_the_others_still_checked() {
    let tmp = TempDir::new("unreadable");
    let dir = tmp.path();
    let bad = testdata("rules/orphan-completion/fails.ndjson");
    // A symlink that loops, and a directory walked that holds a "file" which is a directory.
    let looping = dir.join("loop.ndjson");
    std::os::unix::fs::symlink(&looping, &looping).unwrap();
    let walked = dir.join("walked");
    std::fs::create_dir_all(walked.join("real")).unwrap();
    std::os::unix::fs::symlink(walked.join("real"), walked.join("a-dir.ndjson")).unwrap();
    std::fs::copy(&bad, walked.join("b.ndjson")).unwrap();
    let mut unreadable = vec![looping.clone(), walked.join("a-dir.ndjson")];
    // Permissions stop everyone but root.
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        let locked = dir.join("locked.ndjson");
        std::fs::copy(&bad, &locked).unwrap();
        std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000))
            .unwrap();
        unreadable.push(locked);
    }
    let mut args: Vec<String> = vec![looping.display().to_string(), walked.display().to_string()];
    args.extend(unreadable[2..].iter().map(|p| p.display().to_string()));
    args.push(bad.display().to_string());
    for command in [&["check", "--format", "json"][..], &["stats"], &["render"]] {
        let mut all: Vec<&str> = command.to_vec();
        all.extend(args.iter().map(String::as_str));
        let run = exec(&all, None);
        assert_eq!(run.code, 2, "sjlint {command:?}\n{}", run.describe());
        for path in &unreadable {
            assert!(
                run.stderr()
                    .contains(&format!("cannot read {}", path.display())),
                "sjlint {command:?} does not name {}\n{}",
                path.display(),
                run.describe()
            );
        }
        assert!(!run.stderr().contains("panicked"), "{}", run.describe());
        if command[0] == "check" {
            // Both readable copies of the file were checked.
            let orphans = run
                .findings()
                .into_iter()
                .filter(|f| f.rule == "orphan-completion")
                .count();
            assert_eq!(orphans, 2, "{}", run.describe());
        } else {
            assert!(!run.stdout.is_empty(), "{}", run.describe());
        }
    }
}

/// `VmHWM` (peak resident memory) of a running process, in KiB.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status")
}

#[test]
fn an_endless_stdin_gets_findings_as_records_arrive_in_flat_memory() {
    // On one thread, and with a reader thread that waits for input while the workers and the
    // in-order stage have nothing to do.
    for jobs in ["1", "2"] {
        endless_stdin(jobs);
    }
}

fn endless_stdin(jobs: &str) {
    let mut child = sjlint()
        .args(["check", "--format", "concise", "--jobs", jobs])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let out = lines(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    // A bad record, and stdin stays open: its finding must come now, not at the end.
    writeln!(stdin, "{INIT}\nnot json").unwrap();
    stdin.flush().unwrap();
    let seen = until(&out, "invalid-json");
    assert_eq!(
        seen,
        ["-:2:1: error[invalid-json] the line is plain text, not JSON"]
    );
    // 48 MiB of healthy sessions later, another one, and memory has not grown with the input.
    let sample = sample();
    let block = sample.repeat((1 << 20) / sample.len() + 1);
    for _ in 0..48 {
        stdin.write_all(&block).unwrap();
    }
    writeln!(stdin, "still not json").unwrap();
    stdin.flush().unwrap();
    let after = until(&out, "invalid-json");
    assert!(
        after
            .last()
            .unwrap()
            .ends_with(":1: error[invalid-json] the line is plain text, not JSON")
    );
    let peak = peak_kib(child.id());
    assert!(peak < 32 << 10, "peak memory {peak} KiB after 48 MiB");
    drop(stdin);
    let status = wait(&mut child);
    assert_eq!(status.code(), Some(1), "{}", stderr.join().unwrap());
}

/// Waits until `pid` is blocked reading its standard input (the SIGINT handler is installed
/// before sjlint reads anything), or a moment when `/proc` does not say. The read is `read(2)`
/// of descriptor 0 on one thread, or, when a reader thread waits for input, `poll(2)` (sjlint
/// polls nothing else).
fn wait_until_reading_stdin(pid: u32) {
    let start = Instant::now();
    while start.elapsed() < HANG {
        if !cfg!(target_arch = "x86_64") {
            std::thread::sleep(Duration::from_secs(1));
            return;
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            std::thread::sleep(Duration::from_secs(1));
            return;
        };
        // Syscall 0 is read(2) on x86-64, and its first argument the descriptor; 7 is poll(2),
        // 271 ppoll(2).
        let waiting = tasks.flatten().any(|task| {
            std::fs::read_to_string(task.path().join("syscall")).is_ok_and(|s| {
                s.starts_with("0 0x0 ") || s.starts_with("7 ") || s.starts_with("271 ")
            })
        });
        if waiting {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn interrupt(child: &Child) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill has no memory-safety preconditions; the pid is our own live child's.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
}

#[test]
fn ctrl_c_prints_the_summary_so_far_and_exits_130() {
    for jobs in ["1", "2"] {
        ctrl_c_summary(jobs);
    }
}

fn ctrl_c_summary(jobs: &str) {
    let mut child = sjlint()
        .args(["check", "--color", "never", "--jobs", jobs])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let out = lines(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    write!(stdin, "{INIT}\nnot json\n").unwrap();
    stdin.flush().unwrap();
    until(&out, "error[invalid-json]");
    // sjlint now waits on a silent stdin that stays open, as behind a thinking agent.
    wait_until_reading_stdin(child.id());
    interrupt(&child);
    let status = wait(&mut child);
    let rest: Vec<String> = out.iter().collect();
    let stderr = stderr.join().unwrap();
    assert_eq!(status.code(), Some(130), "{rest:#?}\n{stderr}");
    let bytes = INIT.len() + "not json".len() + 2;
    assert_eq!(
        rest.last().map(String::as_str),
        Some(format!("1 error in 1 file; 2 records, {bytes} B").as_str()),
        "{rest:#?}"
    );
    assert!(stderr.contains("interrupted"), "{stderr}");
    // No end-of-input finding for a stream that did not end.
    assert!(
        !rest.iter().any(|l| l.contains("missing-result")),
        "{rest:#?}"
    );
    drop(stdin);
}

#[test]
fn ctrl_c_stops_stats_and_render_with_130() {
    for (args, shows) in [(&["stats"][..], "records"), (&["render", "--plain"], "")] {
        let mut child: Child = Command::new(env!("CARGO_BIN_EXE_sjlint"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = drain(child.stdout.take().unwrap());
        let stderr = drain(child.stderr.take().unwrap());
        stdin.write_all(&sample()).unwrap();
        stdin.flush().unwrap();
        wait_until_reading_stdin(child.id());
        interrupt(&child);
        let status = wait(&mut child);
        let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
        assert_eq!(
            status.code(),
            Some(130),
            "sjlint {args:?}: {stdout}\n{stderr}"
        );
        assert!(stdout.contains(shows), "sjlint {args:?}: {stdout}");
        assert!(stderr.contains("interrupted"), "{stderr}");
        drop(stdin);
    }
}

#[test]
fn ctrl_c_during_binary_input_still_reports_what_was_counted() {
    for jobs in ["1", "2"] {
        ctrl_c_binary(jobs);
    }
}

fn ctrl_c_binary(jobs: &str) {
    let mut child = sjlint()
        .args(["check", "--format", "json", "--jobs", jobs])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = drain(child.stdout.take().unwrap());
    let stderr = drain(child.stderr.take().unwrap());
    // Pseudo-random bytes: about 250 lines of binary data, then stdin stays open.
    let mut seed = 3u64;
    let noise: Vec<u8> = (0..64 << 10)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 56) as u8
        })
        .collect();
    writeln!(stdin, "{INIT}").unwrap();
    stdin.write_all(&noise).unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.flush().unwrap();
    wait_until_reading_stdin(child.id());
    interrupt(&child);
    let status = wait(&mut child);
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    assert_eq!(status.code(), Some(130), "{stdout}\n{stderr}");
    let findings = crate::common::parse_findings(stdout.as_bytes());
    assert!(
        findings.last().is_some_and(|f| f
            .message
            .contains("look binary; their framing findings, not shown one by one")),
        "{stdout}"
    );
    drop(stdin);
}

#[test]
fn ctrl_c_stops_a_mapped_file_with_the_summary_so_far() {
    // Long enough that a test build cannot be done with it before the signal.
    let mut input = Vec::new();
    let sample = sample();
    while input.len() < 96 << 20 {
        input.extend_from_slice(&sample);
    }
    // In a directory removed however the test ends.
    let dir = TempDir::new("mapped-ctrl-c");
    let path = dir.path().join("input.ndjson");
    std::fs::write(&path, &input).unwrap();
    for jobs in ["1", "2"] {
        let child = sjlint()
            .args(["check", "--color", "never", "--jobs", jobs])
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (status, out, stderr) = outcome(child, |child| {
            std::thread::sleep(Duration::from_millis(300));
            interrupt(child);
        });
        assert_eq!(status.code(), Some(130), "--jobs {jobs}\n{out}\n{stderr}");
        assert!(stderr.contains("interrupted"), "{stderr}");
        // The summary counts part of the file's records, and no end-of-input finding is made.
        let summary = out.lines().last().unwrap_or_default();
        let records: u64 = summary
            .rsplit("; ")
            .next()
            .and_then(|s| s.split(" records").next())
            .map(|n| n.replace(',', ""))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no record count in {summary:?}"));
        let lines = input.iter().filter(|&&b| b == b'\n').count() as u64;
        assert!(records > 0 && records < lines, "{summary}");
        assert!(!out.contains("missing-result"), "{out}");
    }
}

#[test]
fn megabytes_of_random_bytes_are_checked_in_linear_time() {
    // Invalid UTF-8 every few bytes: each read is checked for UTF-8 once, not once per error.
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let input: Vec<u8> = (0..4 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let dir = TempDir::new("random");
    let path = dir.path().join("input");
    std::fs::write(&path, &input).unwrap();
    for jobs in ["1", "2"] {
        let child = sjlint()
            .args(["check", "--quiet", "--format", "concise", "--jobs", jobs])
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (status, out, stderr) = outcome(child, |_| {});
        assert_eq!(status.code(), Some(1), "{stderr}");
        assert!(
            out.contains("invalid-utf8") || out.contains("binary"),
            "{out}"
        );
    }
}
